"""``plan_conversion``: how to change the layout of a distributed tensor, and at what cost.

The planner tabulates both layouts (any family, through the layout protocol) into
``[block, warp, lane, register]`` maps of tensor elements and classifies the change:

- ``no-op``: the two maps are equal;
- ``registers``: every thread already holds every element it needs (a register permutation;
  e.g. IREE nested layouts that differ only in their batch / outer tiles);
- ``shuffle``: every warp holds every element its lanes need (warp shuffles), unless the
  shared-memory path costs fewer issue slots;
- ``shared``: through shared memory, with a scratch layout chosen for vector width and bank
  conflicts (:mod:`layoutkit.convert.scratch`), split into repetitions separated by barriers
  when ``scratch_bytes`` is smaller than the tile. ``force_shared=True`` (IREE's
  ``shared_memory_conversion``) always takes this path.

Shuffle against shared memory is decided by issue slots per warp: a shuffle round costs one
slot per 32-bit word, plus the selects that pick the word each lane offers when lanes offer
different registers; a shared round trip costs its store and load wavefronts (per warp) plus
:data:`BARRIER_SLOTS` per barrier.

Compared with Triton (``lib/Analysis/Utility.cpp``): Triton composes
``dst.invertAndCompose(src)`` and quotients it by ``block``, ``warp`` and ``lane`` while the
map is the identity there (``minimalCvtLayout``); only ``register`` left means a register
permutation, ``register`` and ``lane`` warp shuffles, anything more shared memory. On layouts
without broadcast the element-map tests above decide the same kinds
(``tests/convert/test_triton_kinds.py`` checks blocked, mma v2 / mfma -> dot operand and slice
pairs against the quotients). Deliberate differences:

- when shuffles are possible, Triton also requires its warp-shuffle decomposition to have
  fewer than two mixed register/lane transpositions; layoutkit compares issue slots instead,
  so a full transpose inside one warp (16 or more shuffle rounds plus select chains) goes
  through shared memory with a conflict-free scratch layout;
- broadcast layouts: the element maps ask whether *some* copy of each element is already in
  the thread / warp, so a conversion whose composed linear map points a duplicate at another
  thread's copy can still be a no-op or a register permutation here.

Example::

    >>> from layoutkit import parse_layout, plan_conversion
    >>> a = parse_layout("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
    ...                  "warpsPerCTA = [4, 1], order = [1, 0]}>")
    >>> b = parse_layout("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], "
    ...                  "warpsPerCTA = [1, 4], order = [0, 1]}>")
    >>> plan = plan_conversion(a, b, (32, 32), "f32")
    >>> plan.kind, plan.cost.store_ratio, plan.cost.load_ratio
    ('shared', 1.0, 1.0)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from layoutkit.analysis.hardware import HardwareMap, element_bytes, element_type, hardware_map
from layoutkit.analysis.vectors import VectorAccess
from layoutkit.convert.plan import Barrier, ConversionPlan, SharedLoad, SharedStore
from layoutkit.convert.scratch import Candidate, choose_scratch
from layoutkit.convert.shuffle import locate, schedule_shuffles
from layoutkit.core.indices import unravel
from layoutkit.core.protocol import check_shape
from layoutkit.errors import LayoutError, quote

#: issue slots one block-wide barrier is charged when comparing shuffles with shared memory
BARRIER_SLOTS = 8


def _check_pair(src: HardwareMap, dst: HardwareMap) -> None:
    for axis, name in enumerate(("block", "warp", "lane")):
        a, b = src.elements.shape[axis], dst.elements.shape[axis]
        if a != b:
            raise LayoutError(f"hardware: the source layout has {a} {name}(s) and the destination {b}; "
                              "a conversion keeps the same hardware")
    blocks = src.elements.shape[0]
    if blocks > 1:
        in_block = locate(src.elements.reshape(blocks, -1), dst.elements.reshape(blocks, -1), src.numel)
        if (in_block < 0).any():
            raise LayoutError("block: the conversion moves elements between blocks (CTAs); layoutkit plans "
                              "conversions inside each block")
    held = np.zeros(src.numel, bool)
    held[src.elements.ravel()] = True
    missing = ~held[dst.elements.ravel()]
    if missing.any():
        element = unravel(dst.elements.ravel()[missing][0], src.shape)
        raise LayoutError(f"src: does not hold element {quote(tuple(map(int, element)))} the destination needs")


def plan_conversion(src: Any, dst: Any, shape: Any, dtype: Any, *, scratch_bytes: int | None = None,
                    force_shared: bool = False) -> ConversionPlan:
    """Plan the conversion of a ``shape`` tensor of ``dtype`` (``"f16"``, ...) from the
    distributed layout ``src`` to ``dst`` (any family). ``scratch_bytes`` bounds the shared
    memory per block (repetitions with barriers when the tile is larger); ``force_shared``
    takes the shared-memory path whatever the layouts."""
    tensor_shape = check_shape(shape)
    dtype_name, bits = element_type(dtype)
    elem_bytes = element_bytes(dtype)
    if scratch_bytes is not None and (isinstance(scratch_bytes, bool) or not isinstance(scratch_bytes, (int, np.integer))
                                      or scratch_bytes <= 0):
        raise LayoutError(f"scratch_bytes: expected a positive integer, got {quote(scratch_bytes)}")
    smap = hardware_map(src, tensor_shape, "src")
    dmap = hardware_map(dst, tensor_shape, "dst")
    _check_pair(smap, dmap)
    blocks, warps, lanes, src_regs = smap.elements.shape
    dst_regs = dmap.registers
    common = dict(src=src, dst=dst, shape=tensor_shape, dtype=dtype_name, elem_bytes=elem_bytes,
                  hardware=(blocks, warps, lanes), registers=(src_regs, dst_regs))
    numel = smap.numel
    if not force_shared:
        if src_regs == dst_regs and np.array_equal(smap.elements, dmap.elements):
            gather = np.broadcast_to(np.arange(src_regs), smap.elements.shape).copy()
            return ConversionPlan(kind="no-op", steps=(), gather=gather, **common)
        threads = blocks * warps * lanes
        local = locate(smap.elements.reshape(threads, src_regs), dmap.elements.reshape(threads, dst_regs), numel)
        if (local >= 0).all():
            return ConversionPlan(kind="registers", steps=(), gather=local.reshape(dmap.elements.shape), **common)
        in_warp = locate(smap.elements.reshape(blocks * warps, -1), dmap.elements.reshape(blocks * warps, -1), numel)
        if (in_warp >= 0).all():
            rounds, gather = schedule_shuffles(smap.elements, dmap.elements, numel, bits)
            shuffle_plan = ConversionPlan(kind="shuffle", steps=tuple(rounds), gather=gather, **common)
            shared_plan = _shared_plan(smap, dmap, elem_bytes, scratch_bytes, common)
            if _issue_slots(shuffle_plan) <= _issue_slots(shared_plan):
                return shuffle_plan
            return _with_note(shared_plan, f"shared memory chosen over {len(rounds)} shuffle round(s): fewer issue slots")
    return _shared_plan(smap, dmap, elem_bytes, scratch_bytes, common)


def _with_note(plan: ConversionPlan, note: str) -> ConversionPlan:
    return replace(plan, notes=plan.notes + (note,))


def _issue_slots(plan: ConversionPlan) -> float:
    """Issue slots per warp used to compare shuffles with shared memory (shared-memory
    wavefronts are averaged over the warps)."""
    cost = plan.cost
    warps = plan.hardware[1]
    if plan.kind == "shuffle":
        return cost.instructions.get("shfl", 0) + cost.instructions.get("select", 0)
    return (cost.store_wavefronts + cost.load_wavefronts) / warps + BARRIER_SLOTS * cost.barriers


def _split(access: VectorAccess, rep_span: int, reps: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per repetition: (offsets local to the repetition, original instruction index), the
    instructions of each thread whose offsets fall in the repetition, in their order."""
    offsets = access.offsets
    out = []
    for rep in range(reps):
        inside = (offsets >= rep * rep_span) & (offsets < (rep + 1) * rep_span)
        order = np.argsort(~inside, axis=-1, kind="stable")
        count = int(inside.sum(axis=-1).max()) if inside.size else 0
        picked = order[..., :count]
        local = np.where(np.take_along_axis(inside, picked, axis=-1),
                         np.take_along_axis(offsets, picked, axis=-1) - rep * rep_span, -1)
        out.append((local, np.where(local >= 0, picked, -1)))
    return out


def _without_repeated_stores(store: VectorAccess) -> VectorAccess:
    """Broadcast source layouts hold an element in several threads: only the first thread
    (in block, warp, lane order) that holds a vector stores it; the others stay idle."""
    blocks = store.offsets.shape[0]
    per_block = store.offsets.reshape(blocks, -1)
    span = int(per_block.max()) + 2
    keys = np.where(per_block >= 0, per_block + np.arange(blocks)[:, None] * span, -1).ravel()
    first = np.zeros(keys.shape, bool)
    _, index = np.unique(keys, return_index=True)
    first[index] = True
    offsets = np.where(first.reshape(store.offsets.shape), store.offsets, -1)
    return replace(store, offsets=offsets)


def _shared_plan(smap: HardwareMap, dmap: HardwareMap, elem_bytes: int, scratch_bytes: int | None,
                 common: dict[str, Any]) -> ConversionPlan:
    blocks, warps, lanes, src_regs = smap.elements.shape
    best: Candidate = choose_scratch(smap.elements, dmap.elements, smap.shape, elem_bytes, scratch_bytes)
    store, load = best.store, best.load
    span = best.layout.span
    rep_span, reps = best.rep_span, best.repetitions
    notes: list[str] = []
    if reps > 1:
        notes.append(f"tile of {span * elem_bytes} bytes split into {reps} repetitions of {rep_span * elem_bytes} bytes")
    store = _without_repeated_stores(store)
    steps: list[Any] = []
    store_parts = _split(store, rep_span, reps)
    load_parts = _split(load, rep_span, reps)
    # pool index of every (thread, load instruction) -> base of its vector in the pool
    load_base = np.full(load.offsets.shape, -1, np.int64)
    base = src_regs
    for rep in range(reps):
        s_local, s_index = store_parts[rep]
        regs = np.take_along_axis(store.registers, np.maximum(s_index, 0)[..., None], axis=-2)
        regs = np.where(s_index[..., None] >= 0, regs, -1)
        steps.append(SharedStore(repetition=rep, vector=store.vector, offsets=s_local, registers=regs))
        steps.append(Barrier(repetition=rep))
        l_local, l_index = load_parts[rep]
        steps.append(SharedLoad(repetition=rep, vector=load.vector, offsets=l_local))
        positions = np.broadcast_to(np.arange(l_index.shape[-1]), l_index.shape)
        valid = l_index >= 0
        idx = np.nonzero(valid)
        load_base[idx[:-1] + (l_index[valid],)] = base + positions[valid] * load.vector
        base += l_index.shape[-1] * load.vector
        if rep + 1 < reps:
            steps.append(Barrier(repetition=rep))
    inst, lane_in_vec = load.slot // load.vector, load.slot % load.vector
    gather = np.take_along_axis(load_base, inst, axis=-1) + lane_in_vec
    assert (gather >= src_regs).all()
    return ConversionPlan(kind="shared", steps=tuple(steps), gather=gather, scratch=best.layout,
                          scratch_span=rep_span if reps > 1 else span, notes=tuple(notes), **common)
