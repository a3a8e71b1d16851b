"""Memories of a simulated launch: global (the caller's arrays), shared (one per block) and
private (one per thread), with bounds checks and shared-memory race tracking."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from layoutkit.backends.simt.warp_order import WarpOrder


@dataclass
class Buffer:
    """A memref's storage. ``data`` is flat per owner: global (size,), shared
    (blocks, size), private (threads, size); ``shape`` is the memref shape."""

    name: str
    space: str  # "global" | "shared" | "private"
    shape: tuple[int, ...]
    data: np.ndarray
    type_: object  # the memref type (printed only when an error quotes it: type_text)
    races: RaceTracker | None = None

    @property
    def type_text(self) -> str:
        return str(self.type_)

    def __post_init__(self) -> None:
        strides, step = [], 1
        for size in reversed(self.shape):
            strides.append(step)
            step *= size
        self.strides: tuple[int, ...] = tuple(reversed(strides))  # row-major, in elements
        self.size: int = step


MANY = -2  # several threads read the location
SCAN_FACTOR = 64  # see RaceTracker.first_unwritten
MAX_PENDING_READS = 256  # reads kept unfolded (RaceTracker.pending_reads) before folding


def _root(array: np.ndarray) -> np.ndarray:
    """The array owning ``array``'s memory (itself unless a view)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _place(array: np.ndarray) -> tuple:
    """Where ``array``'s elements lie in its root's memory: address, shape and strides."""
    return array.__array_interface__["data"][0], array.shape, array.strides


@dataclass
class RaceTracker:
    """Who touched each shared location since the block's last barrier.

    For every (block, location) it keeps the thread that wrote it (-1: none) and the thread
    that read it (-1: none, ``MANY``: two or more). A thread's access races when another
    thread wrote the location, or (for a store) when another thread read it.
    Example: thread 3 stores to location 7, thread 5 loads location 7 before a barrier:
    ``writer[b * size + 7] == 3 != 5`` -> race.

    Plain gathers and scatters suffice: after ``writer[loc] = thread`` a location written
    by two threads in one op holds only one of them, so the other sees a foreign id.
    Reads matter only to a later store of the same epoch, so they are kept as a list and
    folded in at the next store; a barrier drops them.
    """

    blocks: int
    size: int
    writer: np.ndarray = field(init=False)
    reader: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n = self.blocks * self.size
        self.writer = np.full(n, -1, np.int32)
        self.reader = np.full(n, -1, np.int32)
        self.written = np.zeros(n, bool)  # ever stored to (not reset by barriers)
        self.stored = False  # whether any location was (``written`` is all False until then)
        # a read-only location array a store found distinct (values never change): see store
        self._distinct: tuple[weakref.ref, tuple] | None = None
        # (locations, threads) of reads since the last store, or a function giving them
        self.pending_reads: list = []
        self.has_writes = False
        self.has_reads = False
        # whether every location was stored to: once it is, loads skip the per-access check
        self.all_written = False
        self._stored_since_scan = False
        self.order: WarpOrder | None = None  # named barriers: see warp_order
        # the (locations, threads) of the epoch's first store, all locations distinct, not yet
        # entered in ``writer`` (see store); ``writer`` holds entries to clear at a barrier
        self.pending_write: tuple[np.ndarray, np.ndarray] | None = None
        self._writer_dirty = False

    def enable_order(self, warp_size: int) -> None:
        """Track which warps named barriers order (one block per chunk)."""
        if self.order is None:
            self.order = WarpOrder(self.blocks * self.size, warp_size)

    def _fold_write(self) -> None:
        if self.pending_write is not None:
            loc, thread = self.pending_write
            self.pending_write = None
            self.writer[loc] = thread
            self._writer_dirty = True

    def _fold_reads(self) -> None:
        if not self.pending_reads:
            return
        pairs = [p() if callable(p) else p for p in self.pending_reads]
        loc = np.concatenate([p[0] for p in pairs])
        thread = np.concatenate([p[1] for p in pairs])
        self.pending_reads.clear()
        if self.order is not None:
            self.order.read(loc, thread)
        prior = self.reader[loc]
        many = (prior == MANY) | ((prior >= 0) & (prior != thread))
        self.reader[loc] = thread
        many |= self.reader[loc] != thread  # two readers of one location in this batch
        self.reader[loc[many]] = MANY
        self.has_reads = True

    def reset(self, blocks: np.ndarray | None = None) -> None:
        """Forget all accesses of ``blocks`` (all when None): they passed a barrier."""
        if self.order is not None:
            self.order.forget()
        if blocks is None:
            self.pending_reads.clear()
            self.pending_write = None
            if self._writer_dirty:
                self.writer.fill(-1)
                self._writer_dirty = False
            if self.has_reads:
                self.reader.fill(-1)
            self.has_writes = self.has_reads = False
            return
        self._fold_reads()
        self._fold_write()
        for array in (self.writer, self.reader):
            array.reshape(self.blocks, self.size)[blocks] = -1

    def arrive(self, barrier: int, warps: int) -> None:
        """Warps ``warps`` (bit mask) arrive at named barrier ``barrier``: release their past."""
        self._fold_reads()
        self._fold_write()
        self.order.arrive(barrier, warps, self.writer)

    def complete(self, barrier: int, waiters: int) -> None:
        """Named barrier ``barrier`` completes; warps ``waiters`` (bit mask) waited on it."""
        self.order.complete(barrier, waiters)

    @staticmethod
    def _first(conflict: np.ndarray, other: np.ndarray) -> tuple[int, int] | None:
        bad = np.flatnonzero(conflict)
        return (int(bad[0]), int(other[bad[0]])) if bad.size else None

    def first_unwritten(self, loc: np.ndarray) -> int | None:
        """Position of the first location in ``loc`` that no thread has stored to yet.

        Once every location was stored to, answers None at once; whether that is so is
        checked again at the first load after stores when the buffer is at most
        ``SCAN_FACTOR`` times the access (so the scan costs at most that many accesses).
        """
        if self.fully_written(loc.size):
            return None
        fresh = np.flatnonzero(~self.written[loc])
        return int(fresh[0]) if fresh.size else None

    def fully_written(self, accessed: int) -> bool:
        """Whether every location was stored to; after stores, scanned again only when the
        buffer is at most ``SCAN_FACTOR`` times an access of ``accessed`` locations."""
        if not self.all_written and self._stored_since_scan and self.written.size <= SCAN_FACTOR * accessed:
            self._stored_since_scan = False
            self.all_written = bool(self.written.all())
        return self.all_written

    def mark_written(self, loc: np.ndarray) -> None:
        """Record that ``loc`` holds stored data (for the uninitialized-read check)."""
        if self.all_written:  # (never reset: nothing to add)
            return
        self.written[loc] = True
        self._stored_since_scan = self.stored = True

    def defer_read(self, elements) -> None:
        """Record reads that need no check now (no store since the last barrier):
        ``elements()`` gives their (locations, threads) when a later store needs them."""
        self._record(elements)

    def _record(self, reads) -> None:
        if len(self.pending_reads) >= MAX_PENDING_READS:  # bound what is kept
            self._fold_reads()
        self.pending_reads.append(reads)

    def load(self, loc: np.ndarray, thread: np.ndarray) -> tuple[int, int] | None:
        """Record reads; return (position, writer) of the first read-after-write race."""
        self._record((loc, thread))
        if not self.has_writes:
            return None
        self._fold_write()
        writer = self.writer[loc]
        conflict = (writer >= 0) & (writer != thread)
        if self.order is not None and conflict.any():
            conflict &= ~self.order.ordered_write(loc, thread)
        return self._first(conflict, writer)

    def store(self, loc: np.ndarray, thread: np.ndarray) -> tuple[int, int, str] | None:
        """Record writes; return (position, other thread or MANY, kind) of the first race.

        The first store since the barrier with no reads before it can race only with itself
        (two threads storing one location); when its locations are distinct, which one
        boolean scatter and count show (none for the same read-only array found distinct
        before: a loop-invariant staging store), it is kept unentered (``pending_write``)
        until a later access needs ``writer``: a barrier usually comes first and forgets it."""
        self._fold_reads()
        order = self.order
        if (order is None and not self.has_writes and not self.has_reads
                and self.writer.size <= SCAN_FACTOR * loc.size):
            first = not self.stored
            known = self._distinct
            if known is not None and known[0]() is _root(loc) and known[1] == _place(loc):
                distinct = True  # (the same elements of a read-only array: the same values)
            elif first:  # the buffer's first store: ``written`` (all False before) serves as seen
                self.mark_written(loc)
                distinct = np.count_nonzero(self.written) == loc.size
            else:
                seen = np.zeros(self.writer.size, bool)
                seen[loc] = True
                distinct = np.count_nonzero(seen) == loc.size
            if distinct:
                root = _root(loc)
                if not root.flags.writeable:  # (kept work: a loop-invariant store's locations)
                    self._distinct = weakref.ref(root), _place(loc)
                self.pending_write = (loc, thread)
                if not first:
                    self.mark_written(loc)
                self.has_writes = True
                return None
        self._fold_write()
        if self.has_writes:
            writer = self.writer[loc]
            conflict = (writer >= 0) & (writer != thread)
            if order is not None and conflict.any():
                conflict &= ~order.ordered_write(loc, thread)
            found = self._first(conflict, writer)
            if found:
                return (*found, "written")
        if self.has_reads:
            reader = self.reader[loc]
            conflict = (reader == MANY) | ((reader >= 0) & (reader != thread))
            if order is not None and conflict.any():
                conflict &= ~order.ordered_reads(loc, thread)
            found = self._first(conflict, reader)
            if found:
                return (*found, "read")
        if order is not None:  # the reads before this write are ordered before it
            order.wrote(loc)
            self.reader[loc] = -1
        self.writer[loc] = thread
        self._writer_dirty = True
        self.mark_written(loc)
        self.has_writes = True
        winner = self.writer[loc]
        found = self._first(winner != thread, winner)
        return (*found, "written") if found else None
