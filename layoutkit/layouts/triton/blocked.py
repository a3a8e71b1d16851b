"""``#ttg.blocked`` and ``#ttg.slice``: Triton's general-purpose distributed encodings.

Blocked. Each thread holds a ``sizePerThread`` block of contiguous elements; the threads
of a warp tile ``threadsPerWarp`` such blocks, the warps of a CTA tile ``warpsPerCTA``
warp tiles; ``order`` lists the dims fastest first, for registers, lanes and warps alike.
A tensor larger than that CTA tile repeats it over more registers (along ``order[0]``
first); a smaller one leaves the extra lanes/warps (then registers) broadcast.

Worked example (seed 004): ``sizePerThread = [1, 4], threadsPerWarp = [4, 8],
warpsPerCTA = [4, 1], order = [1, 0]`` on a 16x16 tensor. Register bits walk dim 1 by
1, 2; lane bits walk dim 1 by 4, 8, 16 and dim 0 by 1, 2; warp bits walk dim 0 by 4, 8.
The tensor is only 16 wide, so the lane step of 16 along dim 1 becomes 0 (lanes ``l`` and
``l + 4`` hold the same elements). Element (i, j) is held by lane ``8*(i % 4) + j // 4``
(and that lane + 4), register ``j % 4``, warp ``i // 4``.

Slice. ``#ttg.slice<{dim = d, parent = P}>`` is the rank-(r-1) layout obtained by laying
``P`` out on the shape with a size-1 dim inserted at ``d`` and dropping that coordinate:
the threads that differed only along ``d`` now hold the same elements (register bits
that become all-zero are removed, as Triton does).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from layoutkit.errors import LayoutError, quote
from layoutkit.layouts.triton.cga import CGALayout, as_cga
from layoutkit.layouts.triton.common import (
    DistributedEncoding,
    Draft,
    check_permutation,
    combine_cta_cga,
    ints_text,
)
from layoutkit.layouts.triton.fields import CGA, DeclaredFields, Field

#: per dim, sizePerThread * threadsPerWarp * warpsPerCTA is at most this
MAX_EXTENT = 1 << 30


@dataclass(frozen=True)
class BlockedEncoding(DeclaredFields, DistributedEncoding):
    """``#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order[, CGALayout]}>``.

    >>> enc = BlockedEncoding((1, 4), (4, 8), (4, 1), (1, 0))
    >>> enc.to_linear_layout((16, 16)).bases["warp"]
    [[4, 0], [8, 0]]
    """

    ATTR_NAME = "blocked"
    FIELDS = (
        Field("sizePerThread", "size_per_thread", "ints", minimum=1, pow2=True),
        Field("threadsPerWarp", "threads_per_warp", "ints", minimum=1, pow2=True),
        Field("warpsPerCTA", "warps_per_cta", "ints", minimum=1, pow2=True),
        Field("order", "order", "ints"),
        CGA,
    )
    RANK_FIELD = "order"

    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]
    cga: CGALayout | None = None

    def __post_init__(self) -> None:
        self.check_declared_fields()
        order = self.order
        rank = len(order)
        if rank == 0:
            raise LayoutError("order: a blocked layout needs rank >= 1, got '[]'")
        spt, tpw, wpc = self.size_per_thread, self.threads_per_warp, self.warps_per_cta
        if not len(spt) == len(tpw) == len(wpc) == rank:
            for field in self.FIELDS[:3]:
                values = getattr(self, field.attr)
                if len(values) != rank:
                    raise LayoutError(
                        f"{field.key}: has rank {len(values)} but order has rank {rank} "
                        f"(got {quote(ints_text(values))}, order {quote(ints_text(order))})"
                    )
        if order != (1, 0) and order != (0, 1):  # the common orders are permutations already
            check_permutation("order", order)
        if max(map(int.__mul__, spt, map(int.__mul__, tpw, wpc))) > MAX_EXTENT:
            for d, extent in enumerate(self.shape_per_cta_tile):
                if extent > MAX_EXTENT:
                    raise LayoutError(
                        f"sizePerThread: the CTA tile along dim {d} has {extent} elements, at most 2**30 supported"
                    )
        self.__dict__["cga"] = as_cga(self.cga, rank)

    # -- layout --------------------------------------------------------------------------
    @property
    def rank(self) -> int:
        return len(self.order)

    def cta_tile(self) -> Draft:
        """The layout of one CTA before it is fitted to a shape (Triton's ``ctaLayout``)."""
        return (
            Draft.identity_nd("register", self.size_per_thread, self.order)
            .times_walk("lane", self.threads_per_warp, self.order)
            .times_walk("warp", self.warps_per_cta, self.order)
        )

    def draft(self, shape: tuple[int, ...]) -> Draft:
        """On a tensor smaller than the CTA tile, lanes and warps past it broadcast (zero
        bases) while registers past it are dropped (Triton 3.9): sizePerThread [4, 4] at
        4x2 keeps the register bases [[1, 0], [2, 0], [0, 1]]."""
        cga = self.cga.bases
        if not cga:
            return self._one_cta_draft(shape)
        # ``combine_cta_cga`` in one pass (tested against it): along each dim the CGA
        # layout's values are 1, 2, 4, ... (CGALayout checks it), so its cut to ``shape``
        # zeroes those at or past ``shape[d]``, and what is left covers twice its largest
        # value; each CTA covers the rest, and the kept block bases are scaled by it
        rank = len(shape)
        zero = (0,) * rank
        kept: list[tuple[int, int] | None] = []
        covered = [1] * rank
        for basis in cga:
            dim = next((d for d, v in enumerate(basis) if v), -1)
            if dim >= 0 and basis[dim] < shape[dim]:
                kept.append((dim, basis[dim]))
                covered[dim] = max(covered[dim], basis[dim] << 1)
            else:  # a broadcast basis, or one the cut zeroes
                kept.append(None)
        cta_shape = tuple(max(1, s // c) for s, c in zip(shape, covered))
        fitted = self._one_cta_draft(cta_shape)
        block = tuple(zero if k is None else (*zero[:k[0]], k[1] * cta_shape[k[0]], *zero[k[0] + 1:]) for k in kept)
        sizes = tuple(a * c for a, c in zip(cta_shape, covered))
        return Draft(rank, {**fitted.bases, "block": block}, range(rank), sizes, fitted.proven)

    def _one_cta_draft(self, shape: tuple[int, ...], squeeze: int = -1) -> Draft:
        """The CTA tile fitted to ``shape`` in one pass, what the draft algebra gives
        (``combine_cta_cga`` of :meth:`cta_tile`, tested against it). Every basis moves along one dim, and along dim ``d`` the walk makes the
        values 1, 2, 4, ... in turn: the register bits of ``sizePerThread[d]``, the lane
        bits, the warp bits, then repetition registers while below ``shape[d]``; a value at
        or past ``shape[d]`` is zeroed for lanes and warps and dropped for registers.
        ``sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]``,
        ``order = [1, 0]`` on 16x16: dim 1 gives registers 1, 2, lanes 4, 8 and 0 (16 is
        past the tensor); dim 0 lanes 1, 2 and warps 4, 8.

        ``squeeze = d`` (a slice along ``d``; ``shape[d]`` must be 1): the bases are written
        without coordinate ``d``, so the draft has rank ``len(shape) - 1`` -- what
        :class:`SliceEncoding` makes of this draft, in the same pass: along ``d`` every
        register is dropped and every lane and warp is zero."""
        rank = len(shape)
        out_rank = rank if squeeze < 0 else rank - 1
        zero = (0,) * out_rank
        registers: list[tuple[int, ...]] = []
        lanes: list[tuple[int, ...]] = []
        warps: list[tuple[int, ...]] = []
        repeats: list[tuple[int, ...]] = []
        spt, tpw, wpc = self.size_per_thread, self.threads_per_warp, self.warps_per_cta
        for dim in self.order:
            at = dim if squeeze < 0 or dim < squeeze else dim - 1  # the coordinate written
            limit, before, after = shape[dim], zero[:at], zero[at + 1:]
            value = 1
            for _ in range(spt[dim].bit_length() - 1):
                if value < limit:
                    registers.append((*before, value, *after))
                value <<= 1
            for _ in range(tpw[dim].bit_length() - 1):
                lanes.append((*before, value, *after) if value < limit else zero)
                value <<= 1
            for _ in range(wpc[dim].bit_length() - 1):
                warps.append((*before, value, *after) if value < limit else zero)
                value <<= 1
            while value < limit:
                repeats.append((*before, value, *after))
                value <<= 1
        bases = {"register": tuple(registers + repeats), "lane": tuple(lanes), "warp": tuple(warps), "block": ()}
        if squeeze >= 0:
            shape = shape[:squeeze] + shape[squeeze + 1:]
        return Draft(out_rank, bases, range(out_rank), shape, True)

    # -- as a dot_op parent (FMA dots) ----------------------------------------------------
    def check_dot_operand(self, op_idx: int, k_width: int) -> None:
        if self.rank < 2:
            raise LayoutError(f"parent: a dot operand needs rank >= 2, got a rank-{self.rank} blocked parent")
        if k_width != 0:
            raise LayoutError(f"kWidth: not supported with a blocked parent, got {k_width}")

    def dot_operand_draft(self, op_idx: int, k_width: int, shape: tuple[int, ...], cga: CGALayout) -> Draft:
        """Triton's ``fmaDotToLinearLayout``: each thread holds the whole K extent of its
        rows (A) or columns (B); lanes and warps are replicated along K."""
        rank = self.rank
        k_dim = rank - 1 if op_idx == 0 else rank - 2
        thread_size = list(self.size_per_thread)
        thread_size[k_dim] = shape[k_dim]
        cta = (
            Draft.identity_nd("register", thread_size, self.order)
            .times_walk("lane", self.threads_per_warp, self.order, broadcast_dim=k_dim)
            .times_walk("warp", self.warps_per_cta, self.order, broadcast_dim=k_dim)
        )
        return combine_cta_cga(cta, cga.bases, shape)

    def natural_shape(self) -> tuple[int, ...]:
        """The CTA tile times the CTAs that split the tensor: the smallest shape covered
        without broadcast (e.g. (16, 32) for sizePerThread [1, 4], threadsPerWarp [4, 8],
        warpsPerCTA [4, 1])."""
        return tuple(t * s for t, s in zip(self.shape_per_cta_tile, self.cga.cta_split_num))

    @property
    def shape_per_cta_tile(self) -> tuple[int, ...]:
        """sizePerThread * threadsPerWarp * warpsPerCTA, per dim."""
        return tuple(s * t * w for s, t, w in zip(self.size_per_thread, self.threads_per_warp, self.warps_per_cta))

    @property
    def num_warps(self) -> int:
        return math.prod(self.warps_per_cta)

    @property
    def num_threads_per_warp(self) -> int:
        return math.prod(self.threads_per_warp)


@dataclass(frozen=True)
class SliceEncoding(DeclaredFields, DistributedEncoding):
    """``#ttg.slice<{dim, parent}>``: ``parent`` with dim ``dim`` squeezed out.

    >>> parent = BlockedEncoding((1, 4), (4, 8), (4, 1), (1, 0))
    >>> SliceEncoding(1, parent).to_linear_layout((16,)).bases["lane"]
    [[0], [0], [0], [1], [2]]
    """

    ATTR_NAME = "slice"
    FIELDS = (Field("dim", "dim", "int"), Field("parent", "parent", "encoding"))

    dim: int
    parent: Any

    def __post_init__(self) -> None:
        if not isinstance(self.parent, DistributedEncoding):
            raise LayoutError(f"parent: expected a distributed encoding, got {quote(self.parent)}")
        if isinstance(self.dim, bool) or not isinstance(self.dim, int):
            raise LayoutError(f"dim: expected an integer, got {quote(self.dim)}")
        parent_rank = self.parent.rank
        if parent_rank < 2:
            raise LayoutError(f"parent: a slice needs a parent of rank >= 2, got rank {parent_rank} ({self.parent})")
        if not 0 <= self.dim < parent_rank:
            raise LayoutError(f"dim: {self.dim} must be less than the parent rank {parent_rank}")

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    @property
    def cga(self) -> CGALayout:
        """The parent's CGA layout with the sliced dim removed."""
        return self.parent.cga.remove_dim(self.dim)

    def parent_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        return shape[: self.dim] + (1,) + shape[self.dim:]

    def draft(self, shape: tuple[int, ...]) -> Draft:
        parent_shape = self.parent_shape(shape)
        parent = self.parent
        if parent.__class__ is BlockedEncoding and not parent.cga.bases:
            # one pass from the parent's fields (tested against the general path below);
            # ``shape`` is checked (power-of-two dims), so the parent shape is as well
            return parent._one_cta_draft(parent_shape, squeeze=self.dim)
        return self._draft_of_parent(shape, parent_shape)

    def _draft_of_parent(self, shape: tuple[int, ...], parent_shape: tuple[int, ...]) -> Draft:
        """The general path: the parent's draft on ``parent_shape`` with the dim dropped."""
        self.parent.tensor_shape(parent_shape)  # the parent's own shape checks
        parent = self.parent.draft(parent_shape)
        d = self.dim
        bases = {
            in_dim: tuple(b[:d] + b[d + 1:] for b in in_bases)
            for in_dim, in_bases in parent.bases.items()
        }
        bases["register"] = tuple(b for b in bases.get("register", ()) if any(b))
        dims = tuple(x - (x > d) for x in parent.dims if x != d)
        # the parent's values lie below its sizes, at most the parent shape: so below ``shape``
        proven = parent.proven and all(a <= b for a, b in zip(parent.sizes, parent_shape))
        return Draft(len(shape), bases, dims, tuple(shape), proven)


ENCODINGS = (BlockedEncoding, SliceEncoding)
