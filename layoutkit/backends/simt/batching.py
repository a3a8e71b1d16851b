"""Loop batching: the iterations of an ``scf.for`` that cannot see each other run side by
side, as more thread slots, so each op of the body runs once instead of once per iteration.

A loop of J iterations over a chunk of T thread slots runs its body once over J * T slots
(:meth:`Chunk.repeated <layoutkit.backends.simt.launch.Chunk.repeated>`): slot ``j * T + t``
is thread slot t in iteration j, its induction variable ``lb + j * step``. Values from
outside the loop are repeated J times; a repeated slot reads and writes its thread's
private memory (iterations touch different elements of what they store to). Ops and thread-instructions count J times, as run one
after another; bank wavefronts and sectors are summed per warp instruction, and iteration
j's warps are warps of their own, so those counts are the sequential run's too.

Iterations run in the sequential order's place only when nothing one iteration writes is
seen by another, proved from the IR (``plan``) and the buffers at run time (``run``):

- the body holds only ops that act per thread or per warp (``arith``, memref and vector
  loads and stores, ``vector.insert``/``extract``, ``nvgpu.mma.sync``, nested ``scf.for``):
  no barrier, no allocation, no region that depends on other iterations;
- the loop has constant bounds, no loop-carried values and every memref it accesses comes
  from outside it;
- each memref the body stores to is either *iteration-private*: every access to it has
  the induction variable as the index of one and the same dimension outside the vector
  (iteration j touches only coordinate ``lb + j * step`` there), or *written only*: stores
  directly in the body and no load of it. One store lands in iteration-major,
  thread-minor order, the sequential order; with several, each element keeps the value
  of the latest iteration that stored it (:meth:`Machine.latest_stores`), as when run in
  order;
- at run time, a stored memref's buffer shares no memory with another accessed memref's.

Example: ``scf.for %ni = 0 to 8 { ... %c = vector.load %acc[%mi, %ni, 0, 0] ...
vector.store %d, %acc[%mi, %ni, 0, 0] }`` over 128 threads runs each op once over 1024
slots. When a batched run fails, ``simulate`` runs the kernel again in order from its
arguments as they were, so the error reported is the first fault in program order (a
batched loop may meet a later iteration's fault first). Kernels with named barriers
(:mod:`~layoutkit.backends.simt.fibers`) are not batched. ``batch_loops=False`` runs every
loop one iteration at a time. A loop whose iterations see each other only through a
recurrence in private memory is fissioned (:mod:`~layoutkit.backends.simt.fission`): the
rest of its body batched, the recurrence one iteration after another.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import memref, scf, vector
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue

from layoutkit.backends.simt.machine import keep_bounded
from layoutkit.ir.dialects.upstream import nvgpu

MAX_BATCH_SLOTS = 1 << 15  # thread slots of one batched run of a body (J * T)
# loops run over more slots than this are not batched: their ops' time is already in their
# elements (a 64-block mma matmul ran 1.6x slower batched), not in the per-op overhead
MAX_LOOP_SLOTS = 1 << 11
# a fissioned loop (:mod:`~layoutkit.backends.simt.fission`) and the loops nested down to its
# recurrence run batched over up to this many slots in all (a 256^3 mma matmul's kk nest,
# 4 x 4 x 8 x 512 slots, ran 12% faster fissioned; cut at 2^15 slots, two iterations at a
# time, it ran slower than not fissioned)
MAX_NEST_SLOTS = 1 << 16
_NEST = "fission nest"  # m.cache: the loops nested in the fissioned loop being run

_ACCESSES = (memref.LoadOp, memref.StoreOp, vector.LoadOp, vector.StoreOp)
_STORES = (memref.StoreOp, vector.StoreOp)
_PER_THREAD = (*_ACCESSES, vector.InsertOp, vector.ExtractOp, nvgpu.MmaSyncOp, scf.ForOp, scf.YieldOp)
_KEY = "batch plan"
_NESTED = "nested batch plan"
_DECIDED = "batch decision"
_ALL_ACTIVE = "all active masks"  # static: read-only all-true masks by size


@dataclass(frozen=True)
class Plan:
    """What a batched run of one loop needs: the values from outside its body, its
    accessed memrefs, and for each stored memref the dimension its induction variable
    indexes (None: written once)."""

    outer: tuple[SSAValue, ...]
    accessed: tuple[SSAValue, ...]
    stored: tuple[tuple[SSAValue, int | None], ...]
    ordered: tuple[SSAValue, ...]  # written only, by several stores: latest iteration wins
    ops: int  # ops of the body (nested ones once): a lower bound of one iteration's count
    body: Block  # (read once: xdsl's region and block accessors cost microseconds per call)
    iv: SSAValue


def _inside(loop: Operation, value: SSAValue) -> bool:
    owner = value.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    return op is not None and loop.is_ancestor(op)


def defined_inside(loop: Operation, ops: list[Operation]) -> set[SSAValue]:
    """The values defined in ``loop``'s regions (``ops``: every op in them): block arguments
    and results (one set, instead of walking up from each operand's owner)."""
    inside: set[SSAValue] = set()
    for region in loop.regions:
        for block in region.blocks:
            inside.update(block.args)
    for op in ops:
        inside.update(op.results)
        for region in op.regions:
            for block in region.blocks:
                inside.update(block.args)
    return inside


def survey(loop: scf.ForOp):
    """(values from outside, {memref: [(access, dims its induction variable indexes)]}) of
    ``loop``'s body, or None when its shape rules batching out: loop-carried values, an op
    that does not act per thread, a nested loop with carried values or bounds from inside,
    or a memref made inside."""
    if loop.iter_args:
        return None
    iv = loop.body.blocks[0].args[0]
    outer: dict[SSAValue, None] = {}
    uses: dict[SSAValue, list[tuple[Operation, set[int]]]] = {}
    ops = list(loop.body.walk())
    inside = defined_inside(loop, ops)
    for op in ops:
        if not isinstance(op, _PER_THREAD) and not op.name.startswith("arith."):
            return None
        if isinstance(op, scf.ForOp) and (op.iter_args or any(
                v in inside for v in (op.lb, op.ub, op.step))):
            return None  # (bounds from inside could differ by iteration: other op counts)
        for operand in op.operands:
            if operand not in inside:
                outer.setdefault(operand)
        if isinstance(op, _ACCESSES):
            ref = accessed(op)
            if ref in inside or not isinstance(ref.type, MemRefType):
                return None
            vector_rank = len(op.results[0].type.get_shape()) if isinstance(op, vector.LoadOp) else (
                len(op.operands[0].type.get_shape()) if isinstance(op, vector.StoreOp) else 0)
            lead = len(op.indices) - vector_rank
            dims = {d for d, index in enumerate(op.indices) if index is iv and d < lead}
            uses.setdefault(ref, []).append((op, dims))
    return outer, uses


def accessed(op: Operation) -> SSAValue:
    """The memref a load or store accesses."""
    return op.operands[0] if isinstance(op, memref.LoadOp | vector.LoadOp) else op.operands[1]


def classify(loop: scf.ForOp, ref_uses: list[tuple[Operation, set[int]]],
             nested: bool = False) -> tuple[bool, int | None]:
    """(legal, dim) of a memref the body stores to: iteration-private along ``dim``, or
    written only (dim None) by stores directly in the body (with ``nested``, or in the body
    of a loop directly in it); legal False when iterations may see each other through it."""
    stores = [op for op, _ in ref_uses if isinstance(op, _STORES)]
    common = set.intersection(*(dims for _, dims in ref_uses))
    if common:
        return True, min(common)
    if len(stores) == len(ref_uses) and all(_direct(loop, store, nested) for store in stores):
        return True, None
    return False, None


def _direct(loop: scf.ForOp, op: Operation, nested: bool) -> bool:
    parent = op.parent_op()
    return parent is loop or (nested and isinstance(parent, scf.ForOp) and parent.parent_op() is loop)


def nested_plan(loop: scf.ForOp) -> Plan | None:
    """The plan of a loop that :func:`plan` refuses only for memrefs written only by stores
    in loops directly in its body (``matmul_mma``'s write-back: ``%c[%row, %col]`` stored in
    the ni loop of the mi loop): they keep the order of the iterations, the mi loop's first,
    then the ni loop's (:meth:`Machine.latest_stores`); None otherwise."""
    surveyed = survey(loop)
    if surveyed is None:
        return None
    outer, uses = surveyed
    stored, ordered = [], []
    for ref, accesses in uses.items():
        stores = [op for op, _ in accesses if isinstance(op, _STORES)]
        if not stores:
            continue
        legal, dim = classify(loop, accesses, nested=True)
        if not legal:
            return None
        stored.append((ref, dim))
        if dim is None:
            ordered.append(ref)
    body = loop.body.blocks[0]
    return Plan(tuple(outer), tuple(uses), tuple(stored), tuple(ordered), sum(1 for _ in loop.body.walk()),
                body, body.args[0])


def plan(loop: scf.ForOp) -> Plan | None:
    """The batching plan of ``loop``, or None when its iterations may see each other."""
    surveyed = survey(loop)
    if surveyed is None:
        return None
    outer, uses = surveyed
    stored, ordered = [], []
    for ref, accesses in uses.items():
        if not any(isinstance(op, _STORES) for op, _ in accesses):
            continue
        legal, dim = classify(loop, accesses)
        if not legal:
            return None
        stored.append((ref, dim))
        if dim is None and sum(isinstance(op, _STORES) for op, _ in accesses) > 1:
            ordered.append(ref)
    body = loop.body.blocks[0]
    return Plan(tuple(outer), tuple(uses), tuple(stored), tuple(ordered), sum(1 for _ in loop.body.walk()),
                body, body.args[0])


def decide(m, loop: scf.ForOp):
    """(plan, fission or None) of ``loop``, or None when it is never batched; planned once
    per kernel (the static part of :func:`run`'s decision)."""
    key = (_DECIDED, loop)
    decided = m.static.get(key, False)
    if decided is not False:
        return decided
    cached = m.static.get((_KEY, loop), False)
    if cached is False:
        cached = m.static[(_KEY, loop)] = plan(loop)
    split = None
    if cached is None:
        cached = m.static.get((_NESTED, loop), False)
        if cached is False:
            cached = m.static[(_NESTED, loop)] = nested_plan(loop)
    if cached is None:
        from layoutkit.backends.simt import fission

        split = fission.of(m, loop)
        cached = split.plan if split is not None else None
    decided = m.static[key] = None if cached is None else (cached, split, _arrays(cached))
    return decided


def _arrays(cached: Plan) -> tuple[SSAValue, ...]:
    """The values from outside the body that hold arrays (not memrefs: buffers)."""
    return tuple(v for v in cached.outer if not isinstance(v.type, MemRefType))


def run(m, loop: scf.ForOp, mask: np.ndarray, ivs: range, dtype, decided=False) -> bool:
    """Run ``loop`` over induction values ``ivs`` batched; False (nothing run) when it
    may not be. ``decided``: :func:`decide`'s answer, when the caller keeps it."""
    if decided is False:
        decided = decide(m, loop)
    if decided is None:
        return False
    cached, split, arrays = decided
    stats = m.stats
    if stats.ops + len(ivs) * cached.ops > stats.max_steps:
        return False  # (a loop reaching the step limit runs one iteration at a time: exact count)
    threads = m.chunk.threads
    nest = m.cache.get(_NEST)
    if nest and loop in nest:
        group = min(len(ivs), MAX_NEST_SLOTS // threads)
    elif threads > MAX_LOOP_SLOTS:
        return False
    else:
        group = min(len(ivs), MAX_BATCH_SLOTS // threads)
    if group < 2:
        return False
    env = m.env
    buffers = {ref: env[ref] for ref in cached.accessed}
    for ref, dim in cached.stored:
        buffer = buffers[ref]
        if buffer.space == "private" and dim is None:
            return False
        for other_ref, other in buffers.items():
            if other_ref is not ref and (other is buffer or np.may_share_memory(other.data, buffer.data)):
                return False
    if split is not None:
        from layoutkit.backends.simt import fission

        group = fission.group(m, split, threads, group)
        if group < 2 or any(buffers[ref].space != "private" for ref in split.refs):
            return False
        steps = m._steps
        block = split.block
        kept = steps.get(block)
        planned = kept or fission.planned(m, split)
        m.cache[_NEST] = split.path
        try:
            return _run(m, cached, arrays, mask, ivs, dtype, threads, group,
                        lambda times: steps.__setitem__(block, fission.steps(m, split, times, planned)))
        finally:
            m.cache[_NEST] = nest
            if kept is None:
                steps.pop(block, None)
            else:
                steps[block] = kept
    return _run(m, cached, arrays, mask, ivs, dtype, threads, group)


def _run(m, cached: Plan, arrays: tuple[SSAValue, ...], mask: np.ndarray, ivs: range, dtype,
         threads: int, group: int, prepare=None) -> bool:
    """Run the batched groups of ``ivs``; ``prepare(times)`` before each (fission's steps)."""
    env = m.env
    iv_arg = cached.iv
    # (only values over the slots are repeated, and restored: the body cannot redefine one)
    saved = [(v, value) for v, value in ((v, env[v]) for v in arrays)
             if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == threads != 1]
    repeated = m.repeated
    mine: list[int] = []  # this run's entries of m.repeated
    try:
        for first in range(0, len(ivs), group):
            values = ivs[first:first + group]
            times = len(values)
            for v, value in saved:
                wide = env[v] = _repeat(m, value, times)
                repeated[id(wide)] = (wide, value, times)
                mine.append(id(wide))
            if prepare is not None:
                prepare(times)
            # (a buffer an enclosing batched run orders keeps that order: nested_plan)
            ordered = [buffer for buffer in (env[ref] for ref in cached.ordered)
                       if m.ordered.get(id(buffer), (None,))[0] is not buffer]
            outer = m.enter_repeated(times, ordered)
            try:
                env[iv_arg] = m.induction(values, threads, dtype)
                m.run_block(cached.body, _repeat_mask(m, mask, times))
            finally:
                m.leave_repeated(outer)
    finally:
        for v, value in saved:
            env[v] = value
        for key in mine:
            repeated.pop(key, None)
    return True


def _repeat_mask(m, mask: np.ndarray, times: int) -> np.ndarray:
    """``mask`` repeated ``times`` over (:func:`_repeat`); with every slot active, one
    read-only all-true mask per size for the kernel (kept across runs)."""
    if not m.full:
        return _repeat(m, mask, times)
    size = mask.shape[0] * times
    kept = m.static.setdefault(_ALL_ACTIVE, {})
    active = kept.get(size)
    if active is None:
        if len(kept) >= 64:
            kept.clear()
        active = kept[size] = np.ones(size, bool)
        active.flags.writeable = False
    return active


# repeated values kept per machine (see _repeat), in bytes: kept arrays hold memory that
# the next op's arrays cannot reuse, so each new one touches fresh pages (with 32 MiB kept a
# 128 KiB repeat took ~100 us instead of ~5; a 256^3 mma matmul ran ~8% slower than with 2 MiB);
# but a repeat kept across a loop's runs keeps the identity that Machine.recall's kept index
# arithmetic and addresses are keyed by: with 8 MiB here and there, a fissioned 256^3
# matmul_mma reuses 99 of 194 such results (13 MB) instead of 12, and ran 15% faster
KEPT_BYTES = 1 << 23


def _repeat(m, value: np.ndarray, times: int) -> np.ndarray:
    """``value`` (threads, ...) repeated ``times`` over along the threads. Values are never
    written in place, so a repeat is kept by the value's identity (holding the value, so
    its id is not reused): a loop's values from outside, such as the thread's lane, are
    the same arrays each time the loop runs. At most ``KEPT_BYTES`` are kept. The repeats
    of arrays that last from run to run (:meth:`Machine.note_lasting`: induction
    variables) are kept with them, and last too."""
    key = ("repeat", id(value), times)
    repeats = m.cache.setdefault("repeats", {})
    kept = repeats.get(key)
    if kept is not None and kept[0] is value:
        return kept[1]
    kept_static = m.lasting
    if kept_static.get(id(value)) is value:
        kept = kept_static.get(key)
        if kept is not None and kept[0] is value:
            return kept[1]
    else:
        kept_static = None
    # (one broadcast copy: np.tile's reshape and repeat cost 1.5-3x as much on these sizes)
    wide = np.empty((times, *value.shape), value.dtype)
    wide[...] = value
    wide = wide.reshape(times * value.shape[0], *value.shape[1:])
    if kept_static is not None and wide.nbytes <= KEPT_BYTES // 8:
        wide.flags.writeable = False  # (shared by every run: an in-place write fails loudly)
        m.note_lasting(wide)
        kept_static[key] = (value, wide)
        return wide
    if wide.nbytes <= KEPT_BYTES:
        keep_bounded(repeats, key, (value, wide), wide.nbytes, KEPT_BYTES)
    return wide

