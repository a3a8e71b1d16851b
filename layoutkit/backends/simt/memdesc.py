"""Shared memory of TTGIR runs: ``!ttg.memdesc`` allocations, views and async copies.

An :class:`Allocation` (one ``ttg.local_alloc``) holds ``data`` (blocks, span): each block's
copy of the allocation's shared memory, in elements. A :class:`MemDesc` (the value of a
``!ttg.memdesc`` SSA value) is a view of it: ``offsets[b, e]`` is the element offset in
block b's copy of the view's row-major element e (a leading extent of 1 when every block
sees the same offsets). Views only select and permute offsets:

- the allocation places each element by its shared encoding's offset map (the encoding's
  table inverted by :func:`layoutkit.analysis.access.memory_offsets`), the encoding covering
  the trailing dims it has the rank of; leading dims index whole copies of that tile
  (multi-buffering), each ``span`` elements long (padding included);
- ``memdesc_index %a[%i]`` takes the offsets of sub-buffer i, ``memdesc_subslice`` a box of
  them, ``memdesc_trans`` permutes their dims, ``memdesc_reshape`` keeps them (row-major).

Worked example: ``!ttg.memdesc<3x64x32xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 2,
maxPhase = 4, order = [1, 0]}>>``: the tile is 64x32 (2048 elements); element (i, r, c) sits
at ``2048 * i + tile[r, c]`` with ``tile[r, c] = 32 * r + 8 * ((c // 8) ^ (r // 2) % 4) + c % 8``;
``memdesc_index %a[1]`` has offsets ``2048 + tile``.

Async copies (:class:`AsyncCopies`): ``async_copy_global_to_local`` reads global memory when
it runs and marks its destination ``pending``; ``async_commit_group`` closes a group;
``async_wait {num = N}`` completes every group but the N newest, writing their data to
shared memory. Reading (``local_load``, a dot's shared operand) or overwriting a pending
location is a race, reported with the copy that has not been waited for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from layoutkit.errors import LayoutError

MAX_SHARED_ELEMENTS = 1 << 22  # one allocation's elements per block (4 Mi; sm_90 has 227 KiB)


def tile_offsets(encoding, shape: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """(offset of each row-major element, elements per tile) of an allocation of ``shape``
    laid out by ``encoding``: the encoding maps the trailing dims of its own rank, the
    leading dims step by whole tiles. Example: 2x4x8 with a rank-2 encoding -> the 4x8
    tile's 32 offsets, then the same plus 32."""
    from layoutkit.analysis.access import memory_offsets

    error: LayoutError | None = None
    for rank in range(len(shape), 0, -1):
        tile = tuple(shape[-rank:])
        try:
            inner = memory_offsets(encoding, tile)
            span = int(encoding.hardware_dims(tile)["offset"])
        except (LayoutError, TypeError, ValueError) as err:
            error = error or err
            continue
        lead = int(np.prod(shape[:-rank], dtype=np.int64))
        offsets = (np.arange(lead, dtype=np.int64)[:, None] * span + inner[None, :]).reshape(-1)
        return offsets, span * lead
    raise LayoutError(f"encoding: {encoding} does not lay out a memdesc of shape {list(shape)}: {error}")


@dataclass(eq=False)
class Allocation:
    """One ``ttg.local_alloc``: each block's elements and whether it was deallocated (the
    locations async copies in flight write are their :class:`Copy`'s)."""

    name: str
    data: np.ndarray  # (blocks, span)
    freed: bool = False


@dataclass(frozen=True, eq=False)
class MemDesc:
    """A view of ``allocation``: row-major element e of ``shape`` at ``offsets[b or 0, e]``."""

    allocation: Allocation
    shape: tuple[int, ...]
    offsets: np.ndarray  # (1 or blocks, elements)

    def __post_init__(self) -> None:
        if self.offsets.shape[-1] != int(np.prod(self.shape, dtype=np.int64)):
            raise LayoutError(f"memdesc: {self.offsets.shape[-1]} offsets for shape {list(self.shape)}")

    def view(self, shape: tuple[int, ...], offsets: np.ndarray) -> MemDesc:
        return MemDesc(self.allocation, tuple(shape), offsets)

    def grid(self) -> np.ndarray:
        """The offsets as (1 or blocks, *shape)."""
        return self.offsets.reshape(self.offsets.shape[0], *self.shape)


@dataclass(eq=False)
class Copy:
    """One async copy in flight: its op, destination and, per (block, element) written,
    the flat location ``block * span + offset`` and the value."""

    op: object
    allocation: Allocation
    locations: np.ndarray
    values: np.ndarray
    group: int | None = None
    bounds: tuple[int, int] = (0, 1 << 62)  # smallest, largest offset of the destination view


@dataclass
class AsyncCopies:
    """The async copies of a chunk's blocks not yet completed, and the groups committed."""

    copies: list[Copy] = field(default_factory=list)
    groups: int = 0  # committed so far

    def issue(self, copy: Copy) -> None:
        self.copies.append(copy)

    def commit(self) -> None:
        """Close a group with every copy issued since the last commit (an empty group too)."""
        for copy in self.copies:
            if copy.group is None:
                copy.group = self.groups
        self.groups += 1

    def wait(self, outstanding: int) -> None:
        """Complete every committed group but the ``outstanding`` newest, in issue order
        (``cp.async.wait_group N``); uncommitted copies stay in flight."""
        done = [c for c in self.copies if c.group is not None and c.group < self.groups - outstanding]
        if not done:
            return
        self.copies = [c for c in self.copies if c not in done]
        for copy in done:
            flat = copy.allocation.data.reshape(-1)
            flat[copy.locations] = copy.values

    def pending(self, allocation: Allocation, locations: np.ndarray, bounds: tuple[int, int]) -> np.ndarray | None:
        """Which of ``locations`` (flat, in ``allocation``'s data) a copy in flight writes, or
        None when none does; ``bounds`` (smallest, largest offset within a block) of the
        locations' view rule out copies to other parts of the allocation (a multi-buffered
        loop's other stages) without comparing locations."""
        lo, hi = bounds
        hits = None
        for copy in self.copies:
            if copy.allocation is allocation and copy.bounds[0] <= hi and lo <= copy.bounds[1]:
                found = np.isin(locations, copy.locations)
                hits = found if hits is None else hits | found
        return hits if hits is not None and hits.any() else None

    def writer_of(self, allocation: Allocation, location: int) -> Copy | None:
        """The newest copy in flight that writes ``location`` of ``allocation``."""
        for copy in reversed(self.copies):
            if copy.allocation is allocation and (copy.locations == location).any():
                return copy
        return None
