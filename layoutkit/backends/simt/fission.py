"""Loop fission for batching: a loop whose iterations see each other only through a
*recurrence* (``acc = acc + x`` in private memory) runs its other ops batched over all
iterations (:mod:`~layoutkit.backends.simt.batching`) and the recurrence one iteration after
another, with results, counts and reports identical to the run one iteration at a time.

The recurrence ``R`` of a loop is every access to a memref the loop stores to where batching
cannot prove the iterations apart (:func:`~layoutkit.backends.simt.batching.classify`), the
ops using their results (transitively), and every access to a memref those ops store to.
Fission is legal (:func:`plan`) when

- the body has batching's shape (:func:`~layoutkit.backends.simt.batching.survey`) and every
  other stored memref is iteration-private or written only;
- the ops of ``R`` all lie in one block ``B``: the loop's body or the body of loops nested in
  it, each of which batches (its plan is not None) with each memref of ``R`` iteration-private
  in it, so ``R``'s iterations of the nested loops touch different elements and may run in
  any order relative to each other;
- at run time, every memref ``R`` accesses is private memory and no stored memref's buffer
  shares memory with another accessed one.

``B`` then runs its other ops over all slots and, at its end, ``R`` once per iteration j of the
loop in order, over the slots of iteration j: slot ``(x * J + j) * T + t`` of a batched run of
J iterations over T slots, x counting the repeats of the nested loops (each value ``R`` reads
from outside it is sliced so). Nothing else reads what ``R`` computes or stores, so moving it
to the end of ``B`` changes no value. An ``nvgpu.mma.sync`` in ``R`` only through its
accumulator is split: its product (A @ B gathered into D's fragments, with C = -0.0, which adds
exactly nothing) runs with the other ops, and ``D = product + C`` in ``R``: the same f32
additions in the same order as the unsplit op.

Example: matmul_mma's kk loop (4 iterations) batches its fragment loads and mma products over
4 x 4 x 8 x 128 slots; its accumulator load, add and store run 4 times over 4 x 8 x 128 slots.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import scf
from xdsl.ir import Block, Operation, SSAValue

from layoutkit.backends.simt import batching
from layoutkit.backends.simt.dtypes import element_dtype
from layoutkit.backends.simt.machine import Machine, full
from layoutkit.ir.dialects.upstream import nvgpu

_KEY = "fission plan"
_PLANNED = "fission block steps"
_STEPS = "fissioned steps"  # kept with the planned steps, by (fission, iterations, chunk)
_KEPT_STEPS = 64


@dataclass(frozen=True)
class Fission:
    """A loop's batching plan without its recurrence, the recurrence's block and ops in
    order, the mma ops split in two, and the values the recurrence reads from outside it."""

    plan: batching.Plan
    block: Block
    recurrent: tuple[Operation, ...]  # R's ops in block order
    refs: tuple[SSAValue, ...]  # every memref R accesses (private at run time)
    split: frozenset[Operation]  # mma ops whose product runs outside R
    inputs: tuple[SSAValue, ...]  # values R reads from outside R (and split mmas' products)
    path: tuple[scf.ForOp, ...]  # the loops from the fissioned one's body down to the block
    accumulates: bool  # R is `load X[I]; ...; store X[I]` (see _accumulation)
    parts: tuple = ()  # an accumulation's ops and values, read once (see _parts)


def _nested_plans_ok(loop: scf.ForOp, block: Block, refs: set) -> bool:
    """Whether every loop from ``block``'s owner up to (not including) ``loop`` batches with
    each of ``refs`` it stores to iteration-private."""
    op = block.parent_op()
    while op is not loop:
        if not isinstance(op, scf.ForOp):
            return False
        inner = batching.plan(op)
        if inner is None or any(dim is None for ref, dim in inner.stored if ref in refs):
            return False
        op = op.parent_op()
    return True


def plan(loop: scf.ForOp) -> Fission | None:
    """The fission of ``loop`` (see the module), or None when it has no recurrence to split
    off or splitting it is not proved exact."""
    surveyed = batching.survey(loop)
    if surveyed is None:
        return None
    outer, uses = surveyed
    recurrent_refs = {ref for ref, accesses in uses.items()
                      if any(isinstance(op, batching._STORES) for op, _ in accesses)
                      and not batching.classify(loop, accesses)[0]}
    if not recurrent_refs:
        return None
    ops: set[Operation] = set()
    work = [op for ref in recurrent_refs for op, _ in uses[ref]]
    while work:
        op = work.pop()
        if op in ops:
            continue
        if isinstance(op, scf.ForOp | scf.YieldOp):
            return None
        ops.add(op)
        if isinstance(op, batching._STORES):
            ref = batching.accessed(op)
            if ref not in recurrent_refs:
                recurrent_refs.add(ref)
                work.extend(access for access, _ in uses[ref])
        for result in op.results:
            work.extend(use.operation for use in result.uses)
    blocks = {op.parent_block() for op in ops}
    if len(blocks) != 1:
        return None
    (block,) = blocks
    if not _nested_plans_ok(loop, block, recurrent_refs):
        return None
    stored, ordered = [], []
    for ref, accesses in uses.items():
        if ref in recurrent_refs or not any(isinstance(op, batching._STORES) for op, _ in accesses):
            continue
        legal, dim = batching.classify(loop, accesses)
        if not legal:
            return None
        stored.append((ref, dim))
        if dim is None and sum(isinstance(op, batching._STORES) for op, _ in accesses) > 1:
            ordered.append(ref)
    stored += [(ref, 0) for ref in recurrent_refs]  # (dim unused: private, checked at run time)
    recurrent = tuple(op for op in block.ops if op in ops)
    split = frozenset(op for op in recurrent if isinstance(op, nvgpu.MmaSyncOp)
                      and op.matrix_a.owner not in ops and op.matrix_b.owner not in ops)
    refs = tuple(dict.fromkeys(batching.accessed(op) for op in recurrent if isinstance(op, batching._ACCESSES)))
    inputs: dict[SSAValue, None] = {}
    for op in recurrent:
        if op in split:
            inputs.setdefault(op.results[0])
        for operand in (op.matrix_c,) if op in split else op.operands:
            if operand.owner not in ops and operand not in refs:
                inputs.setdefault(operand)
    body = loop.body.blocks[0]
    whole = batching.Plan(tuple(outer), tuple(uses), tuple(stored), tuple(ordered),
                          sum(1 for _ in loop.body.walk()), body, body.args[0])
    path = []
    op = block.parent_op()
    while op is not loop:
        path.insert(0, op)
        op = op.parent_op()
    accumulates = _accumulation(recurrent, path, loop)
    return Fission(whole, block, recurrent, refs, split, tuple(inputs), tuple(path), accumulates,
                   _parts(recurrent, split, tuple(inputs)) if accumulates else ())


def _parts(recurrent: tuple[Operation, ...], split: frozenset, inputs: tuple[SSAValue, ...]) -> tuple:
    """What :func:`_accumulate` reads of an accumulation's ops: (load, store, the ops between
    as (op, split, result, accumulator), the inputs the load and store read, the inputs
    that vary by iteration, the loaded value, the stored value)."""
    load, *middle, store = recurrent
    products = {r.results[0] for r in middle if r in split}
    fixed = {*load.operands, *store.operands[1:]}
    return (load, store, tuple((r, r in split, r.results[0], getattr(r, "matrix_c", None)) for r in middle),
            tuple(v for v in inputs if v in fixed), tuple(v for v in inputs if v not in products and v not in fixed),
            load.results[0], store.operands[0])


def _accumulation(recurrent: tuple[Operation, ...], path, loop) -> bool:
    """Whether R is one accumulation at an address every iteration of ``loop`` shares: a
    load of ``%x[I]`` first, a store of a value of the loaded type to ``%x[I]`` last (the
    same index values, each defined outside ``loop`` or a nested loop's induction
    variable), no other access between (e.g. ``%c = load %acc[%mi, %ni]; %d = mma(%a, %b,
    %c); store %d, %acc[%mi, %ni]``). Iteration j then continues from the value iteration
    j - 1 stored: the ops between run J times on the value, between one load and one store."""
    if len(recurrent) < 2:
        return False
    load, *middle, store = recurrent
    if (not isinstance(load, batching._ACCESSES) or isinstance(load, batching._STORES)
            or not isinstance(store, batching._STORES)
            or any(isinstance(op, batching._ACCESSES) for op in middle)):
        return False
    ivs = {op.body.blocks[0].args[0] for op in path}
    return (batching.accessed(load) is batching.accessed(store)
            and tuple(load.indices) == tuple(store.indices)
            and all(index in ivs or not batching._inside(loop, index) for index in load.indices)
            and store.operands[0].type == load.results[0].type)


def group(m, fission: Fission, threads: int, iterations: int) -> int:
    """Iterations of a fissioned run of ``threads`` slots: as many as keep every loop down to
    the recurrence's block batched whole within ``MAX_NEST_SLOTS`` (a nested loop left to
    run one iteration at a time would repeat R's per-iteration work), at most
    ``iterations``; 0 when a nested loop's bounds are not uniform."""
    nest = 1  # slots per slot of the fissioned loop's run, in the recurrence's block
    env = m.env
    for op in fission.path:
        lb, ub, step = env.get(op.lb), env.get(op.ub), env.get(op.step)
        for v in (lb, ub, step):
            if not isinstance(v, np.ndarray) or v.shape != (1,):
                return 0
        if step[0] <= 0:
            return 0
        nest *= max(len(range(int(lb[0]), int(ub[0]), int(step[0]))), 1)
    return min(iterations, batching.MAX_NEST_SLOTS // (threads * nest))


def of(m, loop: scf.ForOp) -> Fission | None:
    """``loop``'s fission, planned once per kernel."""
    cached = m.static.get((_KEY, loop), False)
    if cached is False:
        cached = m.static[(_KEY, loop)] = plan(loop)
    return cached


def planned(m, fission: Fission) -> list:
    """The (handler, op) steps of ``fission.block`` as the machine plans them, kept with
    the kernel's static data when the machine's steps are (:meth:`Machine._plan`)."""
    kept = m.static.setdefault((_PLANNED, type(m)), {}) if type(m)._plan is Machine._plan else None
    if kept is None:
        return m._plan(fission.block)
    found = kept.get(fission.block)
    if found is None:
        found = kept[fission.block] = m._plan(fission.block)
    return found


def steps(m, fission: Fission, times: int, planned: list) -> list:
    """The (handler, op) steps of ``fission.block`` (planned: ``planned``) in a fissioned
    run of ``times`` iterations: its ops outside R, split mmas as their products, then R
    over each iteration. Kept with ``planned`` when it is kept (:func:`planned`), by
    iterations and chunk."""
    base = m.chunk
    kept = m.static.get((_PLANNED, type(m)))
    if kept is None or kept.get(fission.block) is not planned:
        kept = None
    else:
        key = (_STEPS, id(fission), times, id(base))
        hit = kept.get(key)
        if hit is not None and hit[0] is base:
            return hit[1]
    out = []
    for handler, op in planned:
        if handler is None:
            out.append((_recurrence_handler(fission, base, times, {o: h for h, o in planned}), op))
            out.append((handler, op))
        elif op in fission.split:
            out.append((_product_handler(handler, op), op))
        elif op not in fission.recurrent:
            out.append((handler, op))
    if kept is not None:
        if len(kept) > _KEPT_STEPS:
            for old in [k for k in kept if isinstance(k, tuple) and k[0] == _STEPS]:
                del kept[old]
        kept[key] = (base, out)  # (holding the chunk: its id is not reused)
    return out


def _product_handler(handler, op):
    c = op.matrix_c
    zero = np.full((1, *c.type.get_shape()), -0.0, element_dtype(c.type))
    zero.flags.writeable = False

    def product(m, op, mask) -> None:
        """The mma with C = -0.0 (x + -0.0 is x, bit for bit): its product alone. C is one
        vector for all slots, which the mma adds as such (:func:`~layoutkit.backends.simt.mma.mma`)."""
        env = m.env
        saved = env.get(c)
        env[c] = zero
        try:
            handler(m, op, mask)
        finally:
            if saved is None:
                env.pop(c, None)
            else:
                env[c] = saved
    return product


def _recurrence_handler(fission: Fission, base, times: int, handlers: dict):
    def recurrence(m, op, mask) -> None:
        """R over iteration 0, 1, ... of the fissioned loop (this step itself not counted)."""
        stats = m.stats
        count = int(np.count_nonzero(mask))
        stats.ops -= m.weight
        stats.thread_instructions -= count
        threads = m.chunk.threads
        width = base.threads
        repeats = threads // (width * times)
        env = m.env
        inputs = {v: env[v] for v in fission.inputs}
        saved = m.chunk, m._bases, m.thread_ids, m.weight, m.full
        sliced_chunk = base.repeated(repeats) if repeats > 1 else base
        caches = m._slot_caches.setdefault(sliced_chunk, ({}, {}))
        weight = m.weight // times

        def slice_(value, j):
            if not isinstance(value, np.ndarray) or not value.ndim or value.shape[0] != threads:
                return value
            return value.reshape(repeats, times, width, *value.shape[1:])[:, j].reshape(
                repeats * width, *value.shape[1:])

        try:
            m.chunk = sliced_chunk
            m._bases, m.thread_ids = caches
            m.weight = weight
            if fission.accumulates and count == threads:  # (idle slots: each iteration's load)
                _accumulate(m, fission, handlers, inputs, slice_, mask, count, repeats, times, width)
                return
            for j in range(times):
                part = slice_(mask, j)
                active = int(part.sum())
                m.full = active == sliced_chunk.threads
                for v, value in inputs.items():
                    env[v] = slice_(value, j)
                for r in fission.recurrent:
                    if r in fission.split:  # (counted with its product)
                        product = env[r.results[0]]
                        env[r.results[0]] = np.add(product, full(env[r.matrix_c], product.shape[0]))
                    else:
                        stats.ops += weight
                        stats.thread_instructions += active
                        handlers[r](m, r, part)
        finally:
            m.chunk, m._bases, m.thread_ids, m.weight, m.full = saved
            env.update(inputs)
    return recurrence


def _accumulate(m, fission: Fission, handlers: dict, inputs: dict, slice_, mask, count: int,
                repeats: int, times: int, width: int) -> None:
    """R of an accumulation (:func:`_accumulation`) over slots all active: the load over
    iteration 0's slots, the ops between for iterations 0, 1, ... in turn, each starting
    from the value the last one would have stored (a split mma adds its product,
    ``product + c``, as the mma does), then the store of the last value. The load and store
    count ``times`` iterations; what those of iterations 1 .. J-1 would move is never read."""
    load, store, middle, fixed, varying, loaded, value = fission.parts
    stats = m.stats
    env = m.env
    weight = m.weight
    part = slice_(mask, 0)
    active = count // times
    m.full = True
    for v in fixed:
        env[v] = slice_(inputs[v], 0)
    stats.ops += 2 * weight * times
    stats.thread_instructions += 2 * count
    handlers[load](m, load, part)
    for j in range(times):
        if j:
            env[loaded] = env[value]
        for v in varying:
            env[v] = slice_(inputs[v], j)
        for r, is_split, result, matrix_c in middle:
            if is_split:  # (counted with its product)
                product = inputs[result]
                vector_shape = product.shape[1:]
                rows = product.reshape(repeats, times, width, *vector_shape)[:, j]
                c = full(env[matrix_c], repeats * width).reshape(repeats, width, *vector_shape)
                env[result] = np.add(rows, c).reshape(repeats * width, *vector_shape)
            else:
                stats.ops += weight
                stats.thread_instructions += active
                handlers[r](m, r, part)
    handlers[store](m, store, part)
