"""Which shared-memory accesses named barriers order: happens-before between warps.

A ``gpu.barrier`` orders every access of the block before it with every access after it, so
the race tracker simply forgets what it saw. A named barrier (``bar.sync id, n`` /
``bar.arrive id, n``) orders less: the accesses a warp made before it *arrived* happen
before the accesses a warp makes after it *waited* (``bar.sync``) on the same completion of
the barrier; an ``arrive``-only warp orders its past for the waiters but learns nothing
itself. Ordering is transitive: what warp 1 saw before arriving at barrier 2 is ordered for
the waiters of barrier 2 too.

Per shared location (one block: named-barrier kernels run one block per chunk) this keeps,
as bit masks over the warps of the block (at most 64):

- ``seen_write``: the warps for which the location's last write happens before their
  future accesses;
- ``readers``: the warps that read it since its last write, ``seen_read`` the warps for
  which *all* those reads happen before their future accesses;

and per barrier id waiting to complete, what the arrivals released: ``released_write``
(bool per location: its last write happened before some arrival) and ``released_read``
(the reader warps whose reads happened before some arrival). Completion adds the waiting
warps to ``seen_write`` where the write was released, and to ``seen_read`` where every
reader was. A new write clears the location's masks and its releases.

Example: producer warp 0 writes location 5 and arrives at barrier 1; consumer warp 1 syncs
on barrier 1 (completes): ``seen_write[5] = {1}``, so warp 1 reading 5 is ordered; warp 2,
which never synced, reading 5 races with warp 0's write.
"""

from __future__ import annotations

import numpy as np

MAX_WARPS = 64


class WarpOrder:
    """Happens-before masks of one shared buffer (see the module docstring)."""

    def __init__(self, size: int, warp_size: int) -> None:
        self.warp_size = warp_size
        self.seen_write = np.zeros(size, np.uint64)
        self.readers = np.zeros(size, np.uint64)
        self.seen_read = np.zeros(size, np.uint64)
        self.released_write: dict[int, np.ndarray] = {}
        self.released_read: dict[int, np.ndarray] = {}

    def bits(self, thread: np.ndarray) -> np.ndarray:
        """Each thread's warp as a one-bit mask."""
        return np.left_shift(np.uint64(1), (thread // self.warp_size).astype(np.uint64))

    def ordered_write(self, loc: np.ndarray, thread: np.ndarray) -> np.ndarray:
        """Whether the last write of each location happens before ``thread``'s access."""
        return (self.seen_write[loc] & self.bits(thread)) != 0

    def ordered_reads(self, loc: np.ndarray, thread: np.ndarray) -> np.ndarray:
        """Whether every read of each location happens before ``thread``'s access."""
        return (self.seen_read[loc] & self.bits(thread)) != 0

    def read(self, loc: np.ndarray, thread: np.ndarray) -> None:
        np.bitwise_or.at(self.readers, loc, self.bits(thread))
        self.seen_read[loc] = 0

    def wrote(self, loc: np.ndarray) -> None:
        self.seen_write[loc] = 0
        self.readers[loc] = 0
        self.seen_read[loc] = 0
        for released in self.released_write.values():
            released[loc] = False
        for released in self.released_read.values():
            released[loc] = 0

    def forget(self) -> None:
        """A full barrier: nothing is left to order."""
        for array in (self.seen_write, self.readers, self.seen_read):
            array.fill(0)
        self.released_write.clear()
        self.released_read.clear()

    def arrive(self, barrier: int, warps: int, writer: np.ndarray) -> None:
        """Warps ``warps`` (a bit mask) arrive at ``barrier``: release what they saw or did.
        ``writer``: the thread of each location's last write (-1: none)."""
        mask = np.uint64(warps)
        written = writer >= 0
        writer_bits = np.where(written, self.bits(np.maximum(writer, 0)), np.uint64(0))
        write = written & (((writer_bits | self.seen_write) & mask) != 0)
        read = (self.readers & mask) | np.where((self.seen_read & mask) != 0, self.readers, np.uint64(0))
        if barrier in self.released_write:
            self.released_write[barrier] |= write
            self.released_read[barrier] |= read
        else:
            self.released_write[barrier] = write
            self.released_read[barrier] = read

    def complete(self, barrier: int, waiters: int) -> None:
        """``barrier`` completes; warps ``waiters`` (a bit mask) waited on it."""
        write = self.released_write.pop(barrier, None)
        read = self.released_read.pop(barrier, None)
        if write is None or not waiters:
            return
        mask = np.uint64(waiters)
        self.seen_write[write] |= mask
        every = (self.readers != 0) & ((self.readers & ~read) == 0)
        self.seen_read[every] |= mask
