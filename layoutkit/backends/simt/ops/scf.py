"""Simulator handlers of ``scf``: divergence as masks (see :mod:`layoutkit.backends.simt.machine`)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import scf

from layoutkit.backends.simt import batching
from layoutkit.backends.simt.machine import LASTING_TRIPS, expand, full, uses_named_barriers
from layoutkit.backends.simt.ops import tensor as tensor_ops
from layoutkit.backends.simt.registry import handles, terminates
from layoutkit.ir.dialects.upstream import scf as upstream_scf

terminates(scf.YieldOp, scf.ConditionOp)


@handles(scf.IfOp)
def if_(m, op, mask) -> None:
    cond = m.value(op.cond)
    results = list(op.output)
    if cond.shape[0] == 1:
        region = op.true_region if bool(cond[0]) else op.false_region
        values = m.run_block(region.blocks[0], mask) if region.blocks else None
        for r, v in zip(results, values or []):
            m.env[r] = v
        return
    then_mask = mask & cond
    else_mask = mask & ~cond
    then_values = else_values = None
    if m.named_barriers and op.false_region.blocks and then_mask.any() and else_mask.any() \
            and uses_named_barriers(op):  # the branches may wait on each other
        then_values, else_values = m.scheduler().run_cases(
            [(op.true_region.blocks[0], then_mask, "then"), (op.false_region.blocks[0], else_mask, "else")])
    elif then_mask.any():
        then_values = m.run_block(op.true_region.blocks[0], then_mask)
    if op.false_region.blocks and else_mask.any() and else_values is None:
        else_values = m.run_block(op.false_region.blocks[0], else_mask)
    for i, r in enumerate(results):
        if then_values is None:
            m.env[r] = else_values[i]
        elif else_values is None:
            m.env[r] = then_values[i]
        else:
            a, b = then_values[i], else_values[i]
            ndim = max(a.ndim, b.ndim)
            m.env[r] = np.where(expand(cond, ndim), a, b)


@handles(scf.ForOp)
def for_(m, op, mask) -> None:
    static = m.static.get(op)
    if static is None:
        body = op.body.blocks[0]
        static = m.static[op] = (op.lb, op.ub, op.step, body, body.args[0], body.args[1:],
                                 tuple(op.iter_args))
    lb_value, ub_value, step_value, body, iv_arg, carried_args, iter_args = static
    env = m.env
    lb, ub, step = env[lb_value], env[ub_value], env[step_value]
    carried = [env[v] for v in iter_args]
    if lb.shape[0] == 1 and ub.shape[0] == 1 and step.shape[0] == 1:
        if step[0] <= 0:
            m.fail(op, f"step must be positive, got {step[0]}")
        ivs = range(int(lb[0]), int(ub[0]), int(step[0]))
        if m.batch_loops and len(ivs) > 1 and batching.run(m, op, mask, ivs, lb.dtype):
            return
        lasting = len(ivs) <= LASTING_TRIPS
        for i in ivs:
            m.env[iv_arg] = m.uniform(i, lb.dtype, lasting)
            for arg, v in zip(carried_args, carried):
                m.env[arg] = v
            carried = m.run_block(body, mask) or []
    else:
        threads = m.chunk.threads
        iv = np.array(full(lb, threads))
        step_full = full(step, threads)
        if np.any(mask & (step_full <= 0)):
            m.fail(op, "step must be positive", int(np.flatnonzero(mask & (step_full <= 0))[0]))
        while True:
            running = mask & (iv < ub)
            if not running.any():
                break
            m.env[iv_arg] = iv
            for arg, v in zip(carried_args, carried):
                m.env[arg] = v
            new = m.run_block(body, running) or []
            carried = [np.where(expand(running, max(n.ndim, o.ndim)), n, o)
                       for n, o in zip(new, carried)]
            iv = np.where(running, iv + step_full, iv)
    for r, v in zip(op.res, carried):
        m.env[r] = v


@handles(scf.WhileOp)
def while_(m, op, mask) -> None:
    before, after = op.before_region.blocks[0], op.after_region.blocks[0]
    values = [m.value(v) for v in op.arguments]
    running = mask.copy()
    final = list(values)
    while True:
        for arg, v in zip(before.args, values):
            m.env[arg] = v
        cond_value, *forwarded = m.run_block(before, running)
        cond_full = full(cond_value, m.chunk.threads)
        leaving = running & ~cond_full
        final = [np.where(expand(leaving, max(f.ndim, n.ndim)), n, f) if f is not None else n
                 for f, n in zip(final, forwarded)] if final else forwarded
        running = running & cond_full
        if not running.any():
            break
        for arg, v in zip(after.args, forwarded):
            m.env[arg] = v
        values = m.run_block(after, running) or []
    for r, v in zip(op.res, final):
        m.env[r] = v


@handles(scf.IndexSwitchOp)
def index_switch(m, op, mask) -> None:
    """Each thread runs the case of its value (or the default); results merge by mask."""
    arg = m.value(op.arg)
    cases = list(op.cases.get_values())
    regions = [*op.case_regions, op.default_region]
    if arg.shape[0] == 1:
        value = int(arg[0])
        region = regions[cases.index(value)] if value in cases else op.default_region
        for r, v in zip(op.output, m.run_block(region.block, mask) or []):
            m.env[r] = v
        return
    masks = [mask & (arg == c) for c in cases] + [mask & ~np.isin(arg, cases)]
    merged: list = [None] * len(op.output)
    active = [k for k, sub in enumerate(masks) if sub.any()]
    if m.named_barriers and len(active) > 1 and uses_named_barriers(op):  # cases may wait on each other
        labels = [f"case {c}" for c in cases] + ["default"]
        values = m.scheduler().run_cases([(regions[k].block, masks[k], labels[k]) for k in active])
        for k, found in zip(active, values):
            for i, v in enumerate(found or []):
                merged[i] = v if merged[i] is None else np.where(
                    expand(masks[k], max(v.ndim, merged[i].ndim)), v, merged[i])
        for r, v in zip(op.output, merged):
            m.env[r] = v
        return
    for k, (sub, region) in enumerate(zip(masks, regions)):
        if not sub.any() and not (k == len(regions) - 1 and merged and merged[0] is None):
            continue  # (the default runs, maskless, when no thread is active: results exist)
        for i, v in enumerate(m.run_block(region.block, sub) or []):
            merged[i] = v if merged[i] is None else np.where(
                expand(sub, max(v.ndim, merged[i].ndim)), v, merged[i])
    for r, v in zip(op.output, merged):
        m.env[r] = v


terminates(upstream_scf.InParallelOp)


@handles(upstream_scf.ForallOp)
def forall(m, op, mask) -> None:
    """``scf.forall``: every thread runs all iterations itself, one after another in row-major
    order of the induction variables, all threads in lockstep (iteration k of each thread
    together; with per-thread bounds a thread stops after its own last iteration). The
    ``mapping`` attribute is not applied: mapping iterations to blocks or threads is a pass's
    work. With ``shared_outs`` the shared tensors are per-thread values: the body sees them
    as written so far, and each iteration's ``tensor.parallel_insert_slice`` writes into them.
    """
    threads = m.chunk.threads
    lbs, ubs, steps = (
        [v if isinstance(v, np.ndarray) else np.array([v], np.int64) for v in values]
        for values in op.bounds(m.value))
    for step in steps:
        bad = np.flatnonzero(full(step <= 0, threads) & mask)
        if bad.size:
            m.fail(op, "step must be positive", int(bad[0]))
    counts = [np.maximum(-np.floor_divide(lb - ub, step), 0) for lb, ub, step in zip(lbs, ubs, steps)]
    inner = [np.ones(1, np.int64)]
    for count in reversed(counts[1:]):
        inner.insert(0, inner[0] * count)
    total = inner[0] * counts[0]
    uniform = total.shape[0] == 1
    last = int(total[0]) if uniform else int(np.max(total, where=mask, initial=0))
    block = op.body.block
    ivs, outs = block.args[:len(counts)], block.args[len(counts):]
    shared = [m.value(v) for v in op.outputs]
    writes = list(block.last_op.region.block.ops)
    for k in range(last):
        running = mask if uniform else mask & (total > k)
        for iv, lb, step, count, stride in zip(ivs, lbs, steps, counts, inner):
            m.env[iv] = lb + np.mod(k // stride, np.maximum(count, 1)) * step
        for arg, value in zip(outs, shared):
            m.env[arg] = value
        m.run_block(block, running)
        for write in writes:
            i = outs.index(write.dest)
            new = tensor_ops.insert(m, write, m.value(write.source), shared[i], running)
            shared[i] = new if running is mask else np.where(
                expand(running, new.ndim), new, full(shared[i], threads))
    for r, v in zip(op.res, shared):
        m.env[r] = v
