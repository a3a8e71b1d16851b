"""A copy of a tile into workgroup (shared) memory done by all threads of the workgroup
together, coalesced: consecutive threads move consecutive vectors of the tile's innermost
dimension.

The tile (largest shape ``shape``, moved ``vector`` elements at a time) is numbered in
vectors, row-major; thread ``l`` (its linear id, ``x`` fastest) moves vectors
``l, l + T, l + 2T, ...`` (T threads). Example: a 8x4 f32 tile by 64 threads with
``vector = 4``: 8 vectors, threads 0-7 each move one row with one 16-byte load and store;
with 16 threads and ``vector = 1`` thread 5 moves elements 5 and 21: ``(1, 1)`` and ``(5, 1)``.

:class:`CopyPlan` gives the coordinates each thread moves (numpy, for the bank analysis
of ``promote-to-workgroup-memory``) and the affine map ``distribute-to-threads`` emits for
them: one implementation of the index for both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType
from xdsl.ir import Block, BlockArgument, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from layoutkit.errors import LayoutError
from layoutkit.passes.linalg_structure import strided_layout

#: the widest access of one thread, in bytes (128-bit loads and stores)
MAX_VECTOR_BYTES = 16


@dataclass(frozen=True)
class CopyPlan:
    """Who moves what in a cooperative copy of a ``shape`` tile (see the module docstring)."""

    shape: tuple[int, ...]
    vector: int
    threads: int

    def __post_init__(self) -> None:
        if not self.shape or any(s < 1 for s in self.shape):
            raise LayoutError(f"copy plan: shape {list(self.shape)} must be positive sizes")
        if self.vector < 1 or self.shape[-1] % self.vector:
            raise LayoutError(f"copy plan: vector {self.vector} must divide the innermost size {self.shape[-1]}")
        if self.threads < 1:
            raise LayoutError(f"copy plan: {self.threads} threads")

    @cached_property
    def vectors(self) -> int:
        """Vectors in the tile."""
        return math.prod(self.shape) // self.vector

    @cached_property
    def steps(self) -> int:
        """Vectors each thread moves at most."""
        return -(-self.vectors // self.threads)

    def element_map(self) -> AffineMap:
        """``(e) -> coordinates`` of the first element of vector ``e``: for 8x4 by 4,
        ``(d0) -> (d0, 0)``; for 8x4 by 1, ``(d0) -> (d0 floordiv 4, d0 mod 4)``."""
        e = AffineDimExpr(0)
        sizes = [*self.shape[:-1], self.shape[-1] // self.vector]
        results, inner = [], 1
        for i in reversed(range(len(sizes))):
            expr = e if inner == 1 else e // inner
            if i > 0:
                expr = expr % sizes[i]
            results.insert(0, expr * self.vector if i == len(sizes) - 1 and self.vector > 1 else expr)
            inner *= sizes[i]
        return AffineMap(1, 0, tuple(results))

    def coordinates(self) -> np.ndarray:
        """``(steps, threads, rank)`` first coordinates each thread moves at each step; -1
        where the thread has nothing left to move."""
        e = np.arange(self.steps)[:, None] * self.threads + np.arange(self.threads)[None, :]
        coords = np.stack(self.element_map().eval([e], []), axis=-1) if self.shape else e[..., None]
        coords = np.broadcast_to(coords, e.shape + (len(self.shape),)).copy()
        coords[e >= self.vectors] = -1
        return coords


def divisibility(value) -> int:
    """A power of two that ``value`` (an int or an index SSA value) is always a multiple of:
    a constant's, or a loop variable's from its lower bound and step (0 counts as 2**20)."""
    from layoutkit.ir.dialects.upstream.scf import ForallOp

    if isinstance(value, int):
        return 1 << 20 if value == 0 else value & -value
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        if isinstance(owner, ForallOp):
            lbs, _, steps = owner.bounds(lambda v: None)
            i = value.index
            if lbs[i] is not None and steps[i] is not None:
                return math.gcd(divisibility(lbs[i]), divisibility(steps[i]))
        from xdsl.dialects import scf

        if isinstance(owner, scf.ForOp) and value.index == 0:
            return math.gcd(divisibility(_constant(owner.lb)), divisibility(_constant(owner.step)))
    return 1


def _constant(value: SSAValue):
    from xdsl.dialects import arith

    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return 1


def buffer_strides(type_: MemRefType) -> list[int]:
    """The element strides of a memref type (row-major unless it is ``strided<...>``; all 0
    when some stride is dynamic)."""
    try:
        return strided_layout(type_)[0]
    except LayoutError:
        return [0] * len(type_.get_shape())


def vector_width(view: SSAValue, shape: tuple[int, ...], row_stride: int | None = None) -> int:
    """Elements a thread may move at once from/to subview ``view`` of largest ``shape``: the
    widest power of two (up to 16 bytes) dividing the static innermost size, every outer
    stride of the underlying buffer (and ``row_stride``, the shared buffer's padded one) and
    every offset, with a unit innermost stride. Example: 8x4 f32 tiles of a 30x24 matrix at
    offsets (8i, 4k): 4; of a 30x22 matrix: 2 (rows start at multiples of 22)."""
    owner = view.owner
    if not isinstance(owner, memref.SubviewOp):
        return 1
    sizes = owner.static_sizes.get_values()
    if sizes[-1] == DYNAMIC_INDEX:
        return 1
    source = owner.source.type
    strides = buffer_strides(source)
    if strides[-1] != 1 or any(s != 1 for s in owner.static_strides.get_values()):
        return 1
    element_bytes = max(1, source.element_type.bitwidth // 8)
    width = MAX_VECTOR_BYTES // element_bytes
    dynamic = iter(owner.offsets)
    offsets = [next(dynamic) if o == DYNAMIC_INDEX else o for o in owner.static_offsets.get_values()]
    for value in (shape[-1], *strides[:-1], *(divisibility(o) * s for o, s in zip(offsets, strides)),
                  *([row_stride] if row_stride else [])):
        width = math.gcd(width, value) if value else width
    return max(1, width & -width)


def linear_thread_id(block: Block, counts: list[int]) -> SSAValue:
    """``affine.apply`` of the block's thread variables (outermost first) to the linear id,
    the last (``x``) fastest: counts (4, 8) -> ``(d0, d1) -> (d0 * 8 + d1)``."""
    from xdsl.dialects.builtin import AffineMapAttr

    from layoutkit.ir.dialects.upstream import affine

    expr, inner = None, 1
    for i in reversed(range(len(counts))):
        term = AffineDimExpr(i) * inner if inner != 1 else AffineDimExpr(i)
        expr = term if expr is None else term + expr
        inner *= counts[i]
    apply = affine.ApplyOp(list(block.args), AffineMapAttr(AffineMap(len(counts), 0, (expr,))))
    block.add_op(apply)
    return apply.results[0]


__all__ = ["CopyPlan", "buffer_strides", "divisibility", "linear_thread_id", "vector_width"]
