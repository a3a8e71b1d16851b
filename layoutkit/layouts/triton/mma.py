"""``#ttg.nvidia_mma`` (tensor-core accumulators) and ``#ttg.dot_op`` (the operands of a dot).

NVIDIA MMA. Version 2 (Ampere, ``mma.sync``, ``instrShape = [16, 8]``) and version 3
(Hopper, ``wgmma``, ``instrShape = [16, N, 16]``) share one per-warp tile of the
accumulator C, ``m x n`` = ``16 x 8`` (v2) or ``16 x N`` (v3)::

    register bit 0        -> column + 1            (2 consecutive columns per register pair)
    lane bits 0, 1        -> column + 2, + 4        (4 lanes across a row)
    lane bits 2, 3, 4     -> row + 1, + 2, + 4      (8 rows)
    register bit 1        -> row + 8                (the lower 8 rows)
    register bits 2, ...  -> column + 8, + 16, ...  (the rest of n, v3)

Warps tile ``warpsPerCTA`` such tiles (row-major for v2, column-major -- M fastest -- for
v3), then registers repeat the CTA tile over the tensor, columns first.

Worked example (Triton's unit test MMAv2_16x16): v2, ``warpsPerCTA = [1, 1]`` on 16x16:
register bases ``[[0, 1], [8, 0], [0, 8]]``, lane bases ``[[0, 2], [0, 4], [1, 0], [2, 0],
[4, 0]]``; element (i, j) is in lane ``4*(i % 8) + (j % 8) // 2``, register
``(j % 2) + 2*(i // 8) + 4*(j // 8)``.

Dot operands. ``#ttg.dot_op<{opIdx, parent, kWidth}>`` lays out operand A (``opIdx = 0``,
``M x K``) or B (``opIdx = 1``, ``K x N``) for a dot whose result has layout ``parent``.
With an ``nvidia_mma`` parent each thread holds ``kWidth`` consecutive K elements per
register group; the tile is ``16 x 8*kWidth`` for A and ``8*kWidth x 8`` for B, and warps
are replicated along K. With a ``blocked`` parent (FMA dots) each thread holds the whole K
extent. AMD parents are handled by :mod:`layoutkit.layouts.triton.amd`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutkit.errors import LayoutError, quote
from layoutkit.layouts.triton.cga import CGALayout, as_cga
from layoutkit.layouts.triton.common import (
    DistributedEncoding,
    Draft,
    check_k_width,
    combine_cta_cga,
    dot_operand_order,
    fitted_draft,
    ints_text,
    is_power_of_two,
    matrix_order,
)
from layoutkit.layouts.triton.fields import CGA, DeclaredFields, Field


def mma_tile(tile_shape: tuple[int, ...], k_width: int, order: tuple[int, ...],
             rep_order: tuple[int, ...]) -> Draft:
    """Triton's ``nvidiaMmaTile``: the register/lane tile of an MMA accumulator or operand.

    ``order[0]`` is the inner (contiguous) dim, ``order[1]`` the outer one; the out-dims are
    kept in ``rep_order`` (the order in which the tile then repeats over registers).
    """
    rank = len(rep_order)
    return Draft.identity_nd("register", (1,) * rank, rep_order).times_steps(mma_tile_steps(tile_shape, k_width, order))


def mma_tile_steps(tile_shape: tuple[int, ...], k_width: int, order: tuple[int, ...]) -> list:
    """The steps of :func:`mma_tile` (``Draft.times_steps``'s ``(in_dim, dim, size, broadcast)``)."""
    inner, outer = order[0], order[1]
    m, n = tile_shape[outer], tile_shape[inner]
    return [
        ("register", inner, k_width, False),
        ("lane", inner, 4, False),
        ("lane", outer, 8, False),
        ("register", outer, m // 8, False),
        ("register", inner, n // (k_width * 4), False),
    ]


@dataclass(frozen=True)
class NvidiaMmaEncoding(DeclaredFields, DistributedEncoding):
    """``#ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA[, CGALayout], instrShape}>``.

    >>> mma = NvidiaMmaEncoding(2, 0, (1, 1), (16, 8))
    >>> mma.to_linear_layout((16, 16)).bases["register"]
    [[0, 1], [8, 0], [0, 8]]
    """

    ATTR_NAME = "nvidia_mma"
    LEGACY_ATTR_NAMES = ("mma",)
    FIELDS = (
        Field("versionMajor", "version_major", "int"),
        Field("versionMinor", "version_minor", "int", default=0, printed=lambda v: True),
        Field("warpsPerCTA", "warps_per_cta", "ints", minimum=1, pow2=True),
        CGA,
        Field("instrShape", "instr_shape", "ints", minimum=1, default=None),
    )
    RANK_FIELD = "warps_per_cta"

    version_major: int
    version_minor: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...] | None = None
    cga: CGALayout | None = None

    def __post_init__(self) -> None:
        self.check_declared_fields()
        if self.version_major not in (2, 3):
            raise LayoutError(
                f"versionMajor: only 2 (Ampere) and 3 (Hopper) are supported, got {quote(self.version_major)}"
            )
        warps = self.warps_per_cta
        rank = len(warps)
        if rank < 2:
            raise LayoutError(f"warpsPerCTA: an MMA layout needs rank >= 2, got {quote(ints_text(warps))}")
        instr = self.instr_shape
        if instr is None:
            if self.version_major == 3:
                raise LayoutError("instrShape: required for versionMajor = 3, e.g. [16, 128, 16]")
            instr = (1,) * (rank - 2) + (16, 8)
        if self.version_major == 2:
            if len(instr) != rank:
                raise LayoutError(
                    f"instrShape: version 2 needs one entry per dim ({rank}), got {quote(ints_text(instr))}"
                )
            m, n = instr[-2], instr[-1]
        else:
            if rank != 2:
                raise LayoutError(f"warpsPerCTA: version 3 (Hopper) layouts have rank 2, got {quote(ints_text(warps))}")
            if len(instr) != 3:
                raise LayoutError(f"instrShape: version 3 needs [M, N, K], got {quote(ints_text(instr))}")
            m, n = instr[0], instr[1]
        if not (is_power_of_two(m) and is_power_of_two(n) and m >= 8 and n >= 8):
            raise LayoutError(
                f"instrShape: M and N must be powers of two >= 8, got {quote(ints_text(instr))}"
            )
        object.__setattr__(self, "instr_shape", instr)
        object.__setattr__(self, "cga", as_cga(self.cga, rank))

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def is_ampere(self) -> bool:
        return self.version_major == 2

    @property
    def is_hopper(self) -> bool:
        return self.version_major == 3

    @property
    def tile_shape(self) -> tuple[int, ...]:
        """One warp's accumulator tile: instrShape for v2, [M, N] of [M, N, K] for v3."""
        return self.instr_shape if self.is_ampere else self.instr_shape[:2]

    @property
    def warp_order(self) -> tuple[int, ...]:
        return matrix_order(self.rank, row_major=not self.is_hopper)

    def draft(self, shape: tuple[int, ...]) -> Draft:
        order = matrix_order(self.rank)
        if not self.cga.bases:  # one CTA: the same steps fitted in one pass
            warps = self.warps_per_cta
            steps = mma_tile_steps(self.tile_shape, 2, order)
            steps += [("warp", d, warps[d], False) for d in self.warp_order]
            fitted = fitted_draft(self.rank, order, steps, shape)
            if fitted is not None:
                return fitted
        return self._draft_by_algebra(shape, order)

    def _draft_by_algebra(self, shape: tuple[int, ...], order: tuple[int, ...]) -> Draft:
        cta = mma_tile(self.tile_shape, 2, order, order)  # the accumulator has kWidth 2
        cta = cta.times_walk("warp", self.warps_per_cta, self.warp_order)  # dims already all present
        return combine_cta_cga(cta, self.cga.bases, shape)

    # -- as a dot_op parent -------------------------------------------------------------
    def check_dot_operand(self, op_idx: int, k_width: int) -> None:
        check_k_width(k_width, self.ATTR_NAME)
        if self.is_hopper and op_idx != 0:
            raise LayoutError("opIdx: must be 0 for a Hopper (versionMajor = 3) parent; B is read from shared memory")

    def dot_operand_draft(self, op_idx: int, k_width: int, shape: tuple[int, ...], cga: CGALayout) -> Draft:
        """Triton's ``nvidiaDotToLinearLayout``."""
        rank = self.rank
        is_a = op_idx == 0
        tile = [1] * rank
        tile[rank - 2], tile[rank - 1] = (16, k_width * 8) if is_a else (k_width * 8, 8)
        order = dot_operand_order(op_idx, rank)
        k_dim = rank - 1 if is_a else rank - 2
        if not cga.bases:  # one CTA: the same steps fitted in one pass
            warps = self.warps_per_cta
            steps = mma_tile_steps(tuple(tile), k_width, order)
            steps += [("warp", d, warps[d], d == k_dim) for d in self.warp_order]
            fitted = fitted_draft(rank, order, steps, shape)
            if fitted is not None:
                return fitted
        return self._dot_operand_draft_by_algebra(tuple(tile), k_width, order, k_dim, shape, cga)

    def _dot_operand_draft_by_algebra(self, tile: tuple[int, ...], k_width: int, order: tuple[int, ...],
                                      k_dim: int, shape: tuple[int, ...], cga: CGALayout) -> Draft:
        cta = mma_tile(tile, k_width, order, order)
        cta = cta.times_walk("warp", self.warps_per_cta, self.warp_order, broadcast_dim=k_dim)
        return combine_cta_cga(cta, cga.bases, shape)


_PARENTS_HINT = "nvidia_mma, blocked, amd_mfma or amd_wmma"


@dataclass(frozen=True)
class DotOperandEncoding(DeclaredFields, DistributedEncoding):
    """``#ttg.dot_op<{opIdx, parent[, kWidth]}>``: operand A (0) or B (1) of a dot whose
    result has layout ``parent``.

    >>> mma = NvidiaMmaEncoding(2, 0, (1, 1), (16, 8))
    >>> DotOperandEncoding(0, mma, 8).to_linear_layout((16, 64)).bases["lane"]
    [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]
    """

    ATTR_NAME = "dot_op"
    FIELDS = (
        Field("opIdx", "op_idx", "int"),
        Field("parent", "parent", "encoding"),
        Field("kWidth", "k_width", "int", default=0),
    )

    op_idx: int
    parent: Any
    k_width: int = 0

    def __post_init__(self) -> None:
        if self.op_idx not in (0, 1) or isinstance(self.op_idx, bool):
            raise LayoutError(f"opIdx: must be 0 (operand A) or 1 (operand B), got {quote(self.op_idx)}")
        if isinstance(self.k_width, bool) or not isinstance(self.k_width, int) or self.k_width < 0:
            raise LayoutError(f"kWidth: expected a non-negative integer, got {quote(self.k_width)}")
        check = getattr(self.parent, "check_dot_operand", None)
        if check is None or not isinstance(self.parent, DistributedEncoding):
            raise LayoutError(f"parent: a dot_op parent must be {_PARENTS_HINT}, got {quote(str(self.parent))}")
        check(self.op_idx, self.k_width)

    @property
    def rank(self) -> int:
        return self.parent.rank

    @property
    def k_dim(self) -> int:
        """The K dim: the last for A, the second to last for B."""
        return self.rank - 1 if self.op_idx == 0 else self.rank - 2

    @property
    def cga(self) -> CGALayout:
        """The parent's CGA layout, never split along K (Triton's ``getCGALayout``)."""
        parent = self.parent.cga
        if not parent.bases:  # one CTA: nothing to split
            return parent
        k = self.k_dim
        return CGALayout(tuple(b[:k] + (0,) + b[k + 1:] for b in parent.bases), parent.rank)

    def draft(self, shape: tuple[int, ...]) -> Draft:
        return self.parent.dot_operand_draft(self.op_idx, self.k_width, shape, self.cga)


ENCODINGS = (NvidiaMmaEncoding, DotOperandEncoding)
