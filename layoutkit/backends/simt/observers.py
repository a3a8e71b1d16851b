"""Observers of shared-memory accesses: race and initialization checks, bank wavefronts;
the 32-byte sectors of global-memory accesses.

Every shared-memory access of the simulator goes through one path
(:meth:`Machine.shared_access <layoutkit.backends.simt.machine.Machine.shared_access>`),
which hands each observer the same description of it:

- ``slots[i]``: the thread slot of access row i (lane ``slot % warp_size`` of warp
  ``slot // warp_size``);
- ``offsets[i, k]``: the element offset in the block's copy of the buffer of row i's k-th
  element, -1 where row i does not access element k;
- ``width``: bytes per access when each row is one wide access (a contiguous ``float4``),
  else the element size, each element its own warp instruction;
- ``loc``: for a vector access (every element of every row accessed), the offsets' flat
  locations in the block-major data (``block * buffer.size + offset``), else None.

Example: 32 lanes each reading ``vector<4xf32>`` at ``tile[lane][0..3]`` of a float[32][4]
tile: slots 0..31, offsets ``4 * lane + [0, 1, 2, 3]``, width 16.
"""

from __future__ import annotations

import numpy as np

from layoutkit.analysis.banks import global_sectors, shared_wavefronts
from layoutkit.core.indices import unravel


class RaceChecker:
    """Reports a shared access that races with another thread's since the last barrier, and
    a read of shared memory no thread of the block stored to (each buffer's RaceTracker)."""

    def access(self, machine, op, buffer, kind: str, slots, offsets, width: int, loc=None) -> None:
        tracker = buffer.races
        if tracker is None:
            return
        chunk = machine.chunk
        if loc is None:  # some elements not accessed: list the accessed ones
            rows, elements = np.nonzero(offsets >= 0)
            loc = chunk.block_local[slots[rows]] * buffer.size + offsets[rows, elements]
            thread_ids = chunk.local[slots[rows]]

            def locate(i: int) -> tuple[int, int]:
                return int(rows[i]), int(elements[i])
        else:
            per_thread = offsets.shape[1]
            loc = loc.ravel()
            if slots.size == chunk.threads:  # every slot: the same ids each time
                thread_ids = machine.thread_ids.get(per_thread)
                if thread_ids is None:
                    thread_ids = machine.thread_ids[per_thread] = _repeat(chunk.local, per_thread)
            else:
                thread_ids = _repeat(chunk.local[slots], per_thread)

            def locate(i: int) -> tuple[int, int]:
                return divmod(i, per_thread)
        if kind == "load":
            fresh = tracker.first_unwritten(loc)
            if fresh is not None:
                row, element = locate(fresh)
                coords = tuple(int(c) for c in unravel(int(offsets[row, element]), buffer.shape))
                machine.fail(op, f"reads shared memref '{buffer.name}' at {coords} before any "
                                 "thread of the block stored there (uninitialized shared memory)",
                             int(slots[row]))
        found = tracker.load(loc, thread_ids) if kind == "load" else tracker.store(loc, thread_ids)
        if found is None:
            return
        position, other = found[0], found[1]
        row, element = locate(position)
        t = int(slots[row])
        coords = tuple(int(c) for c in unravel(int(offsets[row, element]), buffer.shape))
        if other >= 0:
            other_slot = int(chunk.block_local[t]) * machine.geometry.slots_per_block + other
            who = f"thread {tuple(int(a[other_slot]) for a in chunk.thread_xyz)}"
        else:
            who = "more than one thread"
        verb = "reads" if kind == "load" else "writes"
        done = "written" if kind == "load" else found[2]
        between = ("no gpu.barrier between" if tracker.order is None else
                   "no barrier ordering them (a gpu.barrier, or a named barrier this warp waited "
                   "on after the other warp arrived)")
        machine.fail(op, f"data race on shared memref '{buffer.name}': this thread {verb} "
                         f"{coords}, {done} by {who} with {between}", t)


def _repeat(values: np.ndarray, times: int) -> np.ndarray:
    """Each value ``times`` times in a row (np.repeat, without its slow per-element copies)."""
    return np.broadcast_to(values[:, None], (values.size, times)).ravel()


class BankCounter:
    """Adds each access's wavefronts and their lower bound to ``wavefronts[op]``, with the
    one bank model of :func:`layoutkit.analysis.shared_wavefronts`."""

    def __init__(self, wavefronts: dict) -> None:
        self.wavefronts = wavefronts

    def access(self, machine, op, buffer, kind: str, slots, offsets, width: int, loc=None) -> None:
        itemsize = buffer.data.itemsize
        if width != itemsize:
            offsets = offsets[:, :1]  # one wide access per thread, from its first element
        addresses = np.where(offsets >= 0, offsets * itemsize, -1)
        wavefronts, ideal = bank_wavefronts(slots, addresses, width, machine.geometry.warp_size)
        counts = self.wavefronts.setdefault(op, [0, 0])
        counts[0] += wavefronts
        counts[1] += ideal


def bank_wavefronts(slots: np.ndarray, addresses: np.ndarray, access_bytes: int,
                    warp_size: int = 32) -> tuple[int, int]:
    """(wavefronts, lower bound) summed over warps and instructions for one shared-memory op,
    counted by :func:`layoutkit.analysis.shared_wavefronts` (the one bank model: 32 four-byte
    banks; 64-bit accesses in 2 phases of 16 lanes, 128-bit in 4 phases of 8).

    ``slots[i]`` is the thread slot of access row i, ``addresses[i, k]`` its byte address in
    the block's shared memory for the op's k-th warp instruction (-1: none), each
    ``access_bytes`` wide. Example: 32 lanes reading column 0 of a float[32][32] tile
    (addresses 128 * lane, 4 bytes) hit bank 0 with 32 words: 32 wavefronts, lower bound 1;
    a float4 per lane at 16 * lane is 4 phases of 128 bytes: 4, 4.
    """
    if slots.size == 0:
        return 0, 0
    wavefronts, lower = shared_wavefronts(warp_requests(slots, addresses, warp_size), access_bytes)
    return int(wavefronts.sum()), int(lower.sum())


def warp_requests(slots: np.ndarray, addresses: np.ndarray, warp_size: int) -> np.ndarray:
    """The byte addresses ``[instruction, warp, lane]`` of the warp requests of one op:
    thread slot ``slots[i]`` accesses ``addresses[i, k]`` in its k-th instruction (-1:
    none); lanes of a warp whose thread is not in ``slots`` are inactive (-1)."""
    addresses = addresses.reshape(slots.size, -1)
    warps, warp_index = np.unique(slots // warp_size, return_inverse=True)
    requests = np.full((addresses.shape[1], warps.size, warp_size), -1, np.int64)
    requests[:, warp_index, slots % warp_size] = addresses.T
    return requests


def count_global_sectors(machine, op, buffer, ids, flat: np.ndarray) -> None:
    """Add the 32-byte sectors the warps of an access of global ``buffer`` touched, and
    their minimum, to ``machine.stats.sectors[op]`` (:func:`layoutkit.analysis.global_sectors`):
    active threads ``ids`` (None: all) access element offsets ``flat`` (threads or 1, *vector).
    Example: 32 lanes reading consecutive f32 elements: 4 sectors, minimum 4; reading a
    column of a row-major 32x32 f32 matrix: 32 sectors, minimum 4."""
    threads = machine.chunk.threads
    if flat.shape[0] == 1 and threads != 1:
        flat = np.broadcast_to(flat, (threads, *flat.shape[1:]))
    slots = machine.chunk.slots if ids is None else ids
    if flat.shape[0] != slots.size:
        flat = flat[slots]
    itemsize = buffer.data.itemsize
    offsets = flat.reshape(slots.size, -1)
    requests = warp_requests(slots, np.where(offsets >= 0, offsets * itemsize, -1), machine.geometry.warp_size)
    sectors, minimum = global_sectors(requests, itemsize)
    counts = machine.stats.sectors.setdefault(op, [0, 0])
    counts[0] += int(sectors.sum())
    counts[1] += int(minimum.sum())
