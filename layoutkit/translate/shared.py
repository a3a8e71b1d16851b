"""Shared-memory offsets -> Triton's shared encodings.

A conversion's scratch layout (:mod:`layoutkit.convert.scratch`) gives every tensor element an
offset; printed, it is the Triton encoding with the same offsets: ``#ttg.swizzled_shared`` when
one equals it, else ``#ttg.shared_linear`` for an F2-linear layout (its offset bases), and
``#ttg.padded_shared`` (or an unpadded ``swizzled_shared``) for a padded row-major one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from layoutkit.core.bits import is_pow2
from layoutkit.core.indices import unravel
from layoutkit.errors import LayoutError
from layoutkit.layouts.triton.shared import (
    PaddedSharedEncoding,
    SharedLinearEncoding,
    SwizzledSharedEncoding,
)


def shared_linear_encoding(bases: Sequence[Sequence[int]], block_bases: Sequence[Sequence[int]] = (),
                           alignment: int = 16) -> SharedLinearEncoding:
    """``#ttg.shared_linear<{offset = bases, block = block_bases}, alignment = 16>``: offset
    bit ``i`` holds the tensor coordinate ``bases[i]``."""
    return SharedLinearEncoding.from_bases([list(b) for b in bases], [list(b) for b in block_bases],
                                           alignment=alignment)


def swizzled_shared_encoding(offsets: np.ndarray, shape: tuple[int, ...],
                             bases: Sequence[Sequence[int]]) -> SwizzledSharedEncoding | None:
    """The ``#ttg.swizzled_shared`` encoding whose offsets are ``offsets[flat element]`` (an
    F2-linear layout with offset ``bases``), or None. Candidates swizzle the dim of the first
    basis (the columns) with each other dim as the row, the rest row-major."""
    rank = len(shape)
    if rank < 2:
        return None
    col_dim = next((d for d in range(rank) if bases and bases[0][d]), rank - 1)
    cols = shape[col_dim]
    coords = np.stack(unravel(np.arange(len(offsets)), shape), axis=-1)
    for row_dim in range(rank):
        if row_dim == col_dim:
            continue
        rest = [d for d in reversed(range(rank)) if d not in (col_dim, row_dim)]
        low = cols.bit_length() - 1
        xors = [b[col_dim] for b in bases[low: low + shape[row_dim].bit_length() - 1]]
        nonzero = [i for i, x in enumerate(xors) if x]
        vec, per_phase, max_phase = (xors[nonzero[0]], 1 << nonzero[0], 1 << len(nonzero)) if nonzero else (1, 1, 1)
        try:
            encoding = SwizzledSharedEncoding(vec=vec, per_phase=per_phase, max_phase=max_phase,
                                              order=(col_dim, row_dim, *rest))
            table = encoding.table(shape).reshape(-1, rank)
        except LayoutError:  # not expressible with these parameters
            continue
        if len(table) == len(offsets) and np.array_equal(table[offsets], coords):
            return encoding
    return None


def padded_shared_encoding(shape: tuple[int, ...], order: Sequence[int], interval: int,
                           pad: int) -> SwizzledSharedEncoding | PaddedSharedEncoding | None:
    """Row-major along ``order`` (``order[0]`` fastest) with ``pad`` elements after every
    ``interval``: an unswizzled ``#ttg.swizzled_shared`` when ``pad`` is 0, else
    ``#ttg.padded_shared<[interval:+pad] {order, shape}>``; None where Triton has no form
    (its shared encodings take power-of-two shapes, intervals and paddings only)."""
    if not all(is_pow2(n) for n in shape):
        return None
    if pad == 0:
        return SwizzledSharedEncoding(vec=1, per_phase=1, max_phase=1, order=tuple(order))
    if is_pow2(interval) and is_pow2(pad):
        return PaddedSharedEncoding.from_order([(interval, pad)], tuple(order), shape)
    return None
