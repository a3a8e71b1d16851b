"""``#ttg.amd_mfma`` (CDNA matrix cores) and ``#ttg.amd_wmma`` (RDNA), and their operands.

MFMA. A 64-lane wave computes an ``M x N`` tile of C (``instrShape = [M, N, K]``, with
``(M, N)`` one of 32x32, 16x16, 4x64, 64x4). Not transposed: each lane holds 4 consecutive
rows of one column (1 row for 64-bit elements); lanes run along N first (N lanes), then
jump 4 rows; the pattern repeats down M over further registers. ``isTransposed = true``
swaps the roles of rows and columns. Tiles then repeat ``tilesPerWarp`` times per wave,
warps tile ``warpsPerCTA``, and the whole N extent is covered before M advances.

Worked example (Triton's unit test MFMA32_2x4Warps): 32x32, not transposed, on a 32x32
tensor: register bases ``[[1, 0], [2, 0], [8, 0], [16, 0]]``, lane bases ``[[0, 1], [0, 2],
[0, 4], [0, 8], [0, 16], [4, 0]]``: element (i, j) is in lane ``j + 32*((i // 4) % 2)``,
register ``i % 4 + 4*(i // 8)``.

WMMA. A 32-lane wave computes a 16x16 tile; version 1 lanes hold every other row (the two
lane halves interleave rows), versions 2 and 3 lanes hold 8 consecutive rows (the two lane
halves take rows 0-7 and 8-15).
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutkit.core.text import Attribute
from layoutkit.errors import LayoutError, quote
from layoutkit.layouts.triton.cga import CGALayout, as_cga
from layoutkit.layouts.triton.common import (
    DistributedEncoding,
    Draft,
    Fields,
    bases_text,
    bool_text,
    check_bases,
    check_int,
    check_ints,
    check_k_width,
    check_powers_of_two,
    combine_cta_cga,
    dot_operand_order,
    fitted_draft,
    ints_text,
    is_power_of_two,
    matrix_order,
    place,
)
from layoutkit.layouts.triton.fields import CGA, DeclaredFields, Field

MFMA_SHAPES = ((32, 32), (16, 16), (64, 4), (4, 64))
MFMA_WAVE = 64
WMMA_WAVE = 32
WMMA_SHAPES = {
    1: ((16, 16, 16),),
    2: ((16, 16, 16), (16, 16, 32)),
    3: ((16, 16, 4), (16, 16, 32), (16, 16, 64), (16, 16, 128)),
}
WMMA_DEFAULT_INSTR_SHAPE = (16, 16, 16)


def _check_warps(warps: object) -> tuple[int, ...]:
    values = check_ints("warpsPerCTA", warps, minimum=1)
    check_powers_of_two("warpsPerCTA", values)
    if len(values) not in (2, 3):
        raise LayoutError(f"warpsPerCTA: AMD matrix layouts have rank 2 or 3, got {quote(ints_text(values))}")
    return values


def _check_tiles(tiles: object, rank: int) -> tuple[int, ...]:
    if tiles is None:
        return (1,) * rank
    values = check_ints("tilesPerWarp", tiles, minimum=1)
    if all(v == 1 for v in values):
        return (1,) * rank
    if len(values) != rank:
        raise LayoutError(f"tilesPerWarp: has rank {len(values)} but warpsPerCTA has rank {rank}")
    check_powers_of_two("tilesPerWarp", values)
    return values


def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise LayoutError(f"{name}: expected true or false, got {quote(value)}")
    return value


@dataclass(frozen=True)
class AmdMfmaEncoding(DeclaredFields, DistributedEncoding):
    """``#ttg.amd_mfma<{version, warpsPerCTA, instrShape, isTransposed[, CGALayout]
    [, tilesPerWarp][, elementBitWidth]}>``.

    >>> mfma = AmdMfmaEncoding(3, (2, 4), (32, 32, 8), False)
    >>> mfma.to_linear_layout((32, 32)).bases["lane"]
    [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]]
    """

    ATTR_NAME = "amd_mfma"
    LEGACY_ATTR_NAMES = ("mfma",)
    FIELDS = (
        Field("version", "version", "int"),
        Field("warpsPerCTA", "warps_per_cta", "ints", minimum=1, pow2=True),
        Field("instrShape", "instr_shape", "ints", minimum=1),
        Field("isTransposed", "is_transposed", "bool"),
        CGA,
        Field("tilesPerWarp", "tiles_per_warp", "ints", minimum=1, pow2=True, default=None,
              printed=lambda tiles: any(t != 1 for t in tiles)),
        Field("elementBitWidth", "element_bit_width", "int", default=32),
    )
    RANK_FIELD = "warps_per_cta"
    # from_attribute only renames the legacy keys, which canonical text does not have
    CANONICAL_READ = True

    version: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]
    is_transposed: bool
    cga: CGALayout | None = None
    tiles_per_warp: tuple[int, ...] | None = None
    element_bit_width: int = 32

    def __post_init__(self) -> None:
        self.check_declared_fields()
        if not 0 <= self.version <= 4:
            raise LayoutError(f"version: must be in the [0, 4] range, got {quote(self.version)}")
        warps = _check_warps(self.warps_per_cta)
        instr = self.instr_shape
        if len(instr) not in (2, 3) or tuple(instr[:2]) not in MFMA_SHAPES:
            raise LayoutError(
                f"instrShape: (M, N) must be one of 32x32, 16x16, 64x4, 4x64, got {quote(ints_text(instr))}"
            )
        if instr[:2] == (64, 4) and not self.is_transposed:
            raise LayoutError("isTransposed: a 64x4 MFMA layout must be transposed")
        if self.element_bit_width not in (32, 64):
            raise LayoutError(f"elementBitWidth: must be 32 or 64, got {quote(self.element_bit_width)}")
        object.__setattr__(self, "tiles_per_warp", _check_tiles(self.tiles_per_warp, len(warps)))
        object.__setattr__(self, "cga", as_cga(self.cga, len(warps)))

    @classmethod
    def from_attribute(cls, attr: Attribute, aliases: dict[str, Attribute] | None = None) -> AmdMfmaEncoding:
        params = attr.params
        if isinstance(params, dict) and "versionMajor" in params and "version" not in params:  # older Triton
            params = {"version" if k == "versionMajor" else k: v for k, v in params.items() if k != "versionMinor"}
            attr = Attribute(attr.name, params, attr.text)
        return super().from_attribute(attr, aliases)

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def m_dim(self) -> int:
        return self.instr_shape[0]

    @property
    def n_dim(self) -> int:
        return self.instr_shape[1]

    def draft(self, shape: tuple[int, ...]) -> Draft:
        """Triton's ``AMDMfmaEncodingAttr::toLinearLayout``."""
        rank = self.rank
        m_index, n_index = rank - 2, rank - 1
        m, n = self.m_dim, self.n_dim
        height = 1 if self.element_bit_width == 64 else 4
        tiles = (m * n) // (MFMA_WAVE * height)
        along, across, across_size = (m_index, n_index, n) if not self.is_transposed else (n_index, m_index, m)
        steps = [
            ("register", along, height, False),
            ("lane", across, across_size, False),
            ("lane", along, MFMA_WAVE // across_size, False),
        ]
        if tiles > 0:
            steps.append(("register", along, tiles, False))
        # N-contiguous tiles across the whole tensor (see Triton's comment)
        warps_m, warps_n = self.warps_per_cta[m_index], self.warps_per_cta[n_index]
        tiles_m, tiles_n = self.tiles_per_warp[m_index], self.tiles_per_warp[n_index]
        n_repeats = max(1, shape[n_index] // (n * warps_n * tiles_n))
        warp_steps = [
            ("register", n_index, tiles_n, False),
            ("warp", n_index, warps_n, False),
            ("register", n_index, n_repeats, False),
            ("register", m_index, tiles_m, False),
            ("warp", m_index, warps_m, False),
        ]
        if rank == 3:
            warp_steps.append(("warp", 0, self.warps_per_cta[0], False))
        if not self.cga.bases:  # one CTA: the same steps fitted in one pass
            fitted = fitted_draft(rank, (n_index, m_index), steps + warp_steps, shape)
            if fitted is not None:
                return fitted
        tile = Draft.empty(rank).times_steps(steps).with_dims((n_index, m_index))
        return combine_cta_cga(tile.times_steps(warp_steps), self.cga.bases, shape)

    # -- as a dot_op parent -------------------------------------------------------------
    def check_dot_operand(self, op_idx: int, k_width: int) -> None:
        check_k_width(k_width, self.ATTR_NAME)

    def dot_operand_draft(self, op_idx: int, k_width: int, shape: tuple[int, ...], cga: CGALayout) -> Draft:
        """Triton's ``mfmaDotToLinearLayout``."""
        rank = self.rank
        m, n = self.m_dim, self.n_dim
        non_k_index = rank - 2 if op_idx == 0 else rank - 1
        k_index = rank - 1 if op_idx == 0 else rank - 2
        non_k = m if op_idx == 0 else n
        order = dot_operand_order(op_idx, rank)
        dim_k, dim_non_k = order[0], order[1]
        steps = [
            ("register", dim_k, k_width, False),
            ("lane", dim_non_k, non_k, False),
            ("lane", dim_k, MFMA_WAVE // non_k, False),
        ]
        k_tile = MFMA_WAVE // non_k * k_width
        if (m, n, op_idx) in ((64, 4, 0), (4, 64, 1)):
            steps.append(("register", dim_k, 16, False))
            k_tile *= 16
        if shape[k_index] > k_tile:
            steps.append(("register", dim_k, shape[k_index] // k_tile, False))
        steps.append(("register", dim_non_k, self.tiles_per_warp[non_k_index], False))
        if not cga.bases:  # one CTA: the same steps fitted in one pass
            warps = self.warps_per_cta
            fitted = fitted_draft(rank, order, steps + [("warp", d, warps[d], False) for d in matrix_order(rank)],
                                  shape)
            if fitted is not None:
                return fitted
        tile = Draft.empty(rank).times_steps(steps).with_dims(order)
        cta = tile * Draft.identity_nd("warp", self.warps_per_cta, matrix_order(rank))
        return combine_cta_cga(cta, cga.bases, shape)


@dataclass(frozen=True)
class AmdWmmaEncoding(DistributedEncoding):
    """``#ttg.amd_wmma<{version, isTranspose, ctaLayout = {register = [...], warp = [...]}
    [, CGALayout][, instrShape]}>`` (Triton 3.9; older Triton wrote ``warpsPerCTA = [..]``
    instead of ``ctaLayout``, which is read too).

    ``ctaLayout`` places the warps (and extra register tiles) of one CTA by linear-layout
    bases in units of one instruction tile (16x16): ``warp = [[0, 1], [1, 0]]`` puts warp 1
    one tile to the right and warp 2 one tile down -- ``warpsPerCTA = [2, 2]``. Example::

        #ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {warp = [[0, 1], [1, 0]]}}>

    >>> wmma = AmdWmmaEncoding.from_warps_per_cta(1, False, (2, 4))
    >>> wmma.warp_bases, wmma.to_linear_layout((16, 16)).bases["register"]
    (((0, 1), (0, 2), (1, 0)), [[2, 0], [4, 0], [8, 0]])
    """

    ATTR_NAME = "amd_wmma"
    LEGACY_ATTR_NAMES = ("wmma",)

    version: int
    is_transposed: bool
    warp_bases: tuple[tuple[int, ...], ...]
    register_bases: tuple[tuple[int, ...], ...] = ()
    cga: CGALayout | None = None
    instr_shape: tuple[int, ...] = WMMA_DEFAULT_INSTR_SHAPE
    rank: int = 0  # 0: from the bases (or the CGA layout), else 2

    def __post_init__(self) -> None:
        if isinstance(self.version, bool) or self.version not in WMMA_SHAPES:
            raise LayoutError(f"version: WMMA version must be in the [1, 3] range, got {quote(self.version)}")
        transposed = _check_bool("isTranspose", self.is_transposed)
        warp = check_bases("ctaLayout", self.warp_bases)
        registers = check_bases("ctaLayout", self.register_bases)
        rank = check_int("rank", self.rank)
        ranks = {len(b) for b in warp + registers}
        if isinstance(self.cga, CGALayout):
            ranks.add(self.cga.rank)
        if rank:
            ranks.add(rank)
        if len(ranks) > 1:
            raise LayoutError(f"ctaLayout: bases and the CGA layout disagree on the rank: {quote(sorted(ranks))}")
        rank = ranks.pop() if ranks else 2
        if rank not in (2, 3):
            raise LayoutError(f"ctaLayout: AMD matrix layouts have rank 2 or 3, got rank {rank}")
        for basis in warp + registers:
            nonzero = [v for v in basis if v]
            if len(nonzero) > 1 or not all(is_power_of_two(v) for v in nonzero):
                raise LayoutError(
                    f"ctaLayout: each basis moves along at most one dim by a power of two, got {quote(ints_text(basis))}"
                )
        instr = check_ints("instrShape", self.instr_shape, minimum=1)
        if instr not in WMMA_SHAPES[self.version]:
            valid = ", ".join(ints_text(s) for s in WMMA_SHAPES[self.version])
            raise LayoutError(
                f"instrShape: invalid for WMMA version {self.version}: {quote(ints_text(instr))} (valid: {valid})"
            )
        object.__setattr__(self, "is_transposed", transposed)
        object.__setattr__(self, "warp_bases", warp)
        object.__setattr__(self, "register_bases", registers)
        object.__setattr__(self, "instr_shape", instr)
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "cga", as_cga(self.cga, rank))

    @classmethod
    def from_warps_per_cta(cls, version: int, is_transposed: bool, warps_per_cta, **fields) -> AmdWmmaEncoding:
        """The older form: warps tile ``warpsPerCTA`` with the last dim fastest."""
        warps = _check_warps(warps_per_cta)
        draft = Draft.identity_nd("warp", warps, matrix_order(len(warps)))
        return cls(version, is_transposed, draft.bases.get("warp", ()), rank=len(warps), **fields)

    @classmethod
    def from_attribute(cls, attr: Attribute, aliases: dict[str, Attribute] | None = None) -> AmdWmmaEncoding:
        f = Fields(attr, cls.ATTR_NAME, aliases)
        version = f.int("version")
        transposed = f.bool("isTranspose", False)
        instr = f.ints("instrShape", WMMA_DEFAULT_INSTR_SHAPE, minimum=1)
        rank = f.int("rank", 0, minimum=1)
        if f.has("warpsPerCTA") and not f.has("ctaLayout"):  # Triton before 3.9
            warps = f.ints("warpsPerCTA", minimum=1)
            cga = CGALayout.from_fields(f, len(warps))
            return f.build(lambda: cls.from_warps_per_cta(version, transposed, warps, cga=cga, instr_shape=instr))
        cta = f.sub_fields("ctaLayout")
        registers = cta.bases("register", ())
        warp = cta.bases("warp", ())
        cta.finish()
        rank = rank or next((len(b) for b in warp + registers), 0) or CGALayout.rank_of_fields(f) or 2
        cga = CGALayout.from_fields(f, rank)
        return f.build(cls, version, transposed, warp, registers, cga, instr, rank)

    def field_text(self) -> str:
        cta = [f"{name} = {bases_text(bases)}" for name, bases in
               (("register", self.register_bases), ("warp", self.warp_bases)) if bases]
        text = (
            f"version = {self.version}, isTranspose = {bool_text(self.is_transposed)}, "
            f"ctaLayout = {{{', '.join(cta)}}}{self.cga.field_text()}"
        )
        if not cta and self.cga.is_default and self.rank != 2:
            text += f", rank = {self.rank}"
        if self.instr_shape != WMMA_DEFAULT_INSTR_SHAPE:
            text += f", instrShape = {ints_text(self.instr_shape)}"
        return text

    @property
    def warps_per_cta(self) -> tuple[int, ...]:
        """Warps per dim (a broadcast warp basis counts for none)."""
        counts = [1] * self.rank
        for basis in self.warp_bases:
            for d, v in enumerate(basis):
                if v:
                    counts[d] *= 2
        return tuple(counts)

    def cta_bases(self, k_dim: int | None = None) -> Draft:
        """The ``ctaLayout`` bases (in tile units) as a draft to multiply a tile by; for a
        dot operand warps lose their K component (operands are replicated along K) and
        register tiles along K are dropped."""
        def drop_k(bases):
            return bases if k_dim is None else tuple(b[:k_dim] + (0,) + b[k_dim + 1:] for b in bases)

        registers = drop_k(self.register_bases)
        if k_dim is not None:  # register tiles along K are the operand's own K repetition
            registers = tuple(b for b in registers if any(b))
        bases = {"register": registers, "warp": drop_k(self.warp_bases)}
        return Draft.from_bases(self.rank, bases, matrix_order(self.rank))

    def draft(self, shape: tuple[int, ...]) -> Draft:
        """Triton's ``AMDWmmaEncodingAttr::toLinearLayout``."""
        rank = self.rank
        thread_order = matrix_order(rank, row_major=not self.is_transposed)
        tile_dims = (thread_order[0], thread_order[1])
        if self.version == 1:
            registers = [[0, 2], [0, 4], [0, 8]]
            lanes = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]
        else:
            registers = [[0, 1], [0, 2], [0, 4]]
            lanes = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]
        rep_order = matrix_order(rank)
        tile = Draft.from_bases(
            rank,
            {"register": place(registers, tile_dims, rank), "lane": place(lanes, tile_dims, rank)},
            tile_dims,
        )
        cta = tile.with_dims(rep_order) * self.cta_bases()
        return combine_cta_cga(cta, self.cga.bases, shape)

    # -- as a dot_op parent -------------------------------------------------------------
    def check_dot_operand(self, op_idx: int, k_width: int) -> None:
        allowed = {1: (8, 16), 2: (4, 8, 16)}.get(self.version)
        if allowed is not None and k_width not in allowed:
            raise LayoutError(
                f"kWidth: must be {'/'.join(map(str, allowed))} for WMMA v{self.version}, got {k_width}"
            )
        check_k_width(k_width, self.ATTR_NAME)

    def dot_operand_draft(self, op_idx: int, k_width: int, shape: tuple[int, ...], cga: CGALayout) -> Draft:
        """Triton's ``wmmaDotOperandToLinearLayout``."""
        rank = self.rank
        order = dot_operand_order(op_idx, rank)
        dim_k, dim_non_k = order[0], order[1]
        k_size = self.instr_shape[2]
        non_k = self.instr_shape[0] if op_idx == 0 else self.instr_shape[1]
        depth = WMMA_WAVE // non_k
        tile = (
            Draft.empty(rank)
            .times_identity(k_width, "register", dim_k)
            .times_identity(non_k, "lane", dim_non_k)
        )
        if self.version == 1:  # the two lane halves duplicate each other along K
            tile = tile.times_zeros(depth, "lane", dim_k)
        else:
            tile = tile.times_identity(depth, "lane", dim_k)
        tile = tile.times_identity(max(1, k_size // (depth * k_width)), "register", dim_k)
        k_index = rank - 1 if op_idx == 0 else rank - 2
        cta = tile.with_dims(order) * self.cta_bases(k_index)
        return combine_cta_cga(cta, cga.bases, shape)


ENCODINGS = (AmdMfmaEncoding, AmdWmmaEncoding)
