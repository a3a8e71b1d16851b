"""Memories of a simulated launch: global (the caller's arrays), shared (one per block) and
private (one per thread), with bounds checks and shared-memory race tracking."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

NO_THREAD = np.iinfo(np.int32).max


@dataclass
class Buffer:
    """A memref's storage. ``data`` is flat per owner: global (size,), shared
    (blocks, size), private (threads, size); ``shape`` is the memref shape."""

    name: str
    space: str  # "global" | "shared" | "private"
    shape: tuple[int, ...]
    data: np.ndarray
    type_text: str
    races: RaceTracker | None = None

    @property
    def strides(self) -> tuple[int, ...]:
        strides, step = [], 1
        for size in reversed(self.shape):
            strides.append(step)
            step *= size
        return tuple(reversed(strides))

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


@dataclass
class RaceTracker:
    """Who touched each shared location since the block's last barrier.

    For every (block, location) it keeps the smallest and largest local thread id that
    wrote it and that read it; a thread's access races when another thread's id is there.
    Example: thread 3 stores to location 7, thread 5 loads location 7 before a barrier:
    ``write_min[b, 7] == write_max[b, 7] == 3 != 5`` -> race.
    """

    blocks: int
    size: int
    write_min: np.ndarray = field(init=False)
    write_max: np.ndarray = field(init=False)
    read_min: np.ndarray = field(init=False)
    read_max: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n = self.blocks * self.size
        self.write_min = np.full(n, NO_THREAD, np.int32)
        self.write_max = np.full(n, -1, np.int32)
        self.read_min = np.full(n, NO_THREAD, np.int32)
        self.read_max = np.full(n, -1, np.int32)

    def reset(self, blocks: np.ndarray | None = None) -> None:
        """Forget all accesses of ``blocks`` (all when None): they passed a barrier."""
        if blocks is None:
            self.write_min.fill(NO_THREAD)
            self.write_max.fill(-1)
            self.read_min.fill(NO_THREAD)
            self.read_max.fill(-1)
            return
        for array, value in ((self.write_min, NO_THREAD), (self.write_max, -1),
                             (self.read_min, NO_THREAD), (self.read_max, -1)):
            array.reshape(self.blocks, self.size)[blocks] = value

    @staticmethod
    def _other(lo: np.ndarray, hi: np.ndarray, thread: np.ndarray) -> np.ndarray:
        """Where a thread other than ``thread`` is recorded, the id of one such thread, else -1."""
        other = np.where(lo != thread, lo, hi)
        return np.where((hi >= 0) & ((lo != thread) | (hi != thread)), other, -1)

    def load(self, loc: np.ndarray, thread: np.ndarray) -> tuple[int, int] | None:
        """Record reads; return (position, other thread) of the first read-after-write race."""
        writer = self._other(self.write_min[loc], self.write_max[loc], thread)
        bad = np.flatnonzero(writer >= 0)
        np.minimum.at(self.read_min, loc, thread)
        np.maximum.at(self.read_max, loc, thread)
        return (int(bad[0]), int(writer[bad[0]])) if bad.size else None

    def store(self, loc: np.ndarray, thread: np.ndarray) -> tuple[int, int, str] | None:
        """Record writes; return (position, other thread, kind) of the first race."""
        writer = self._other(self.write_min[loc], self.write_max[loc], thread)
        reader = self._other(self.read_min[loc], self.read_max[loc], thread)
        np.minimum.at(self.write_min, loc, thread)
        np.maximum.at(self.write_max, loc, thread)
        same_op = self._other(self.write_min[loc], self.write_max[loc], thread)
        for other, kind in ((writer, "written"), (reader, "read"), (same_op, "written")):
            bad = np.flatnonzero(other >= 0)
            if bad.size:
                return int(bad[0]), int(other[bad[0]]), kind
        return None
