"""Grouping each thread's registers into vector memory instructions.

Given ``offsets[block, warp, lane, register]`` -- the memory offset (in elements) of the
element each register holds -- :func:`vectorize` finds the widest power-of-two vector ``v``
such that every thread's distinct offsets fall into complete aligned groups
``[v*k, v*k + v)``, and orders each thread's groups into instructions by the lowest register
of the group. Registers holding the same offset twice (broadcast inside a thread) are moved
once.

With ``contiguous_registers=True`` only runs of consecutive registers ``v*k .. v*k + v-1``
holding consecutive aligned offsets count, the vectors of a plain load or store.

Worked example: a thread holding offsets ``[8, 9, 10, 11, 40, 41, 42, 43]`` in registers 0..7
vectorizes at ``v = 4``: instruction 0 moves offsets 8..11 from registers 0..3, instruction 1
offsets 40..43 from registers 4..7; ``slot[r] == r``. With offsets ``[8, 9, 12, 13]`` the
widest vector is 2.

Instructions of the same index run together across the lanes of a warp: instruction ``i`` of
every lane forms one warp request, whose bank behaviour
:func:`~layoutkit.analysis.banks.shared_wavefronts` counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutkit.analysis.banks import first_of_runs
from layoutkit.errors import LayoutError, quote

_BIG = np.iinfo(np.int64).max


@dataclass(frozen=True, eq=False)
class VectorAccess:
    """Vector instructions of every thread.

    ``offsets[b, w, l, i]``: first element offset of instruction ``i`` (-1: the thread has no
    instruction ``i``); ``registers[b, w, l, i, j]``: the register holding element ``j`` of it;
    ``slot[b, w, l, r] = i * vector + j``: where register ``r``'s element travels.
    """

    vector: int
    offsets: np.ndarray
    registers: np.ndarray
    slot: np.ndarray

    @property
    def instructions(self) -> int:
        """Instructions per thread (the most any thread issues)."""
        return self.offsets.shape[-1]


def _compact_distinct(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's distinct values sorted, padded with a sentinel; and their counts."""
    ordered = np.sort(offsets, axis=1)
    first = first_of_runs(ordered)  # offsets are non-negative
    compact = np.sort(np.where(first, ordered, _BIG), axis=1)
    return compact, first.sum(axis=1)


def _feasible(compact: np.ndarray, counts: np.ndarray, vector: int) -> bool:
    if vector == 1:
        return True
    if (counts % vector).any():
        return False
    pos = np.arange(compact.shape[1])
    valid = pos[None, :] < counts[:, None]
    lane_in_vector = pos % vector
    aligned = (compact % vector) == lane_in_vector
    heads = compact[:, pos - lane_in_vector]
    contiguous = compact == heads + lane_in_vector
    return bool(np.all(~valid | (aligned & contiguous)))


def _contiguous(flat: np.ndarray, vector: int) -> bool:
    """Registers ``v*k .. v*k + v-1`` hold offsets ``base .. base + v-1`` with ``base % v == 0``."""
    regs = flat.shape[1]
    if regs % vector:
        return False
    lane_in_vector = np.arange(regs) % vector
    heads = flat[:, np.arange(regs) - lane_in_vector]
    return bool(np.all((flat - heads == lane_in_vector) & (heads % vector == 0)))


def widest_vector(offsets: np.ndarray, max_vector: int, contiguous_registers: bool = False) -> int:
    """The widest power-of-two vector (at most ``max_vector``) every thread can use; with
    ``contiguous_registers`` only runs of consecutive registers form vectors."""
    flat = np.asarray(offsets, dtype=np.int64).reshape(-1, offsets.shape[-1])
    vector = 1
    if contiguous_registers:
        while vector * 2 <= max_vector and _contiguous(flat, vector * 2):
            vector *= 2
        return vector
    compact, counts = _compact_distinct(flat)
    while vector * 2 <= max_vector and _feasible(compact, counts, vector * 2):
        vector *= 2
    return vector


def vectorize(offsets, max_vector: int = 1, vector: int | None = None,
              contiguous_registers: bool = False) -> VectorAccess:
    """Vector instructions for ``offsets[..., register]`` (element offsets, non-negative).

    ``vector=None`` picks the widest feasible vector up to ``max_vector``; a given ``vector``
    must be feasible (LayoutError otherwise). By default any registers of a thread may form
    a vector (a conversion names its registers freely); ``contiguous_registers=True`` asks for
    runs of consecutive registers, as a load or store of a tensor in registers does.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    if offsets.ndim < 1 or offsets.shape[-1] == 0:
        raise LayoutError("offsets: expected an array whose last axis is the registers of a thread")
    if offsets.min() < 0:
        raise LayoutError("offsets: memory offsets must be non-negative")
    lead, regs = offsets.shape[:-1], offsets.shape[-1]
    flat = offsets.reshape(-1, regs)
    threads = flat.shape[0]
    if vector is None:
        vector = widest_vector(flat, max(1, int(max_vector)), contiguous_registers)
    else:
        if vector <= 0 or vector & (vector - 1):
            raise LayoutError(f"vector: expected a power of two, got {quote(vector)}")
        if contiguous_registers:
            feasible = _contiguous(flat, vector)
        else:
            compact, counts = _compact_distinct(flat)
            feasible = _feasible(compact, counts, vector)
        if not feasible:
            raise LayoutError(f"vector: {vector} elements are not contiguous in every thread")
    chunk = flat // vector
    reg = np.arange(regs)
    order = np.argsort(chunk * regs + reg[None, :], axis=1, kind="stable")
    sorted_chunk = np.take_along_axis(chunk, order, axis=1)
    first = first_of_runs(sorted_chunk)
    rows = np.arange(threads)[:, None]
    is_rep = np.zeros((threads, regs), bool)
    is_rep[np.broadcast_to(rows, order.shape)[first], order[first]] = True
    inst_of_rep = np.cumsum(is_rep, axis=1) - 1  # meaningful at rep registers
    pos = np.arange(regs)[None, :]
    group_start = np.maximum.accumulate(np.where(first, pos, 0), axis=1)
    rep_sorted = np.take_along_axis(order, group_start, axis=1)
    inst_sorted = np.take_along_axis(inst_of_rep, rep_sorted, axis=1)
    inst = np.empty((threads, regs), np.int64)
    np.put_along_axis(inst, order, inst_sorted, axis=1)
    count = int(is_rep.sum(axis=1).max())
    out_offsets = np.full((threads, count), -1, np.int64)
    rows_b = np.broadcast_to(rows, inst.shape)
    out_offsets[rows_b, inst] = chunk * vector
    lane_in_vector = flat % vector
    registers = np.full((threads, count, vector), _BIG, np.int64)
    np.minimum.at(registers, (rows_b, inst, lane_in_vector), np.broadcast_to(reg, inst.shape))
    registers[registers == _BIG] = -1
    slot = inst * vector + lane_in_vector
    return VectorAccess(
        vector=int(vector),
        offsets=out_offsets.reshape(lead + (count,)),
        registers=registers.reshape(lead + (count, vector)),
        slot=slot.reshape(lead + (regs,)),
    )
