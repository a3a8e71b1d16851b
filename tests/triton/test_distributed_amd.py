"""amd_mfma and amd_wmma encodings (and their dot operands): against the matrix-core
layouts written out per element, and the bases pinned in Triton's
LinearLayoutConversionsTest.cpp."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.layouts.triton.amd import AmdMfmaEncoding, AmdWmmaEncoding
from layoutkit.layouts.triton.mma import DotOperandEncoding


def bases(encoding, shape):
    return encoding.to_linear_layout(shape).bases


def mfma(warps, m, n, transposed):
    """Triton's test fixture (version 2, unit CGA)."""
    return AmdMfmaEncoding(2, warps, (m, n), transposed)


# ---------------------------------------------------------------------------------------
# per-element formulas
# ---------------------------------------------------------------------------------------
def mfma_reference(warps, m, n, transposed, shape):
    """A 64-lane wave holds an m x n tile of C: lane l is column l % n (row l % m when
    transposed); it holds 4 consecutive rows starting at 4*(l // n), repeated every
    4*64/n rows over further registers. Warps and register repetitions cover N before M."""
    wm, wn = warps
    per_tile = m * n // 64
    reps_n = max(1, shape[1] // (n * wn))
    reps_m = max(1, shape[0] // (m * wm))
    n_reg = per_tile * reps_n * reps_m
    out = np.zeros((n_reg, 64, wm * wn, 1, 2), dtype=np.int64)
    for r, lane, w in itertools.product(range(n_reg), range(64), range(wm * wn)):
        t, rep = r % per_tile, r // per_tile
        rep_n, rep_m = rep % reps_n, rep // reps_n
        warp_n, warp_m = w % wn, w // wn
        across = lane % (n if not transposed else m)
        along = 4 * (lane // (n if not transposed else m)) + (t % 4) + (t // 4) * (4 * 64 // (n if not transposed else m))
        row, col = (along, across) if not transposed else (across, along)
        row += rep_m * m * wm + warp_m * m
        col += rep_n * n * wn + warp_n * n
        out[r, lane, w, 0] = (row % shape[0], col % shape[1])
    return out


def wmma_reference(version, warps, shape):
    """A 32-lane wave holds a 16x16 tile: lane l is column l % 16; version 1 lanes hold rows
    2*i + l // 16 (i = 0..7), versions 2/3 rows 8*(l // 16) + i. Repetitions: N first."""
    wm, wn = warps
    reps_n, reps_m = max(1, shape[1] // (16 * wn)), max(1, shape[0] // (16 * wm))
    n_reg = 8 * reps_n * reps_m
    out = np.zeros((n_reg, 32, wm * wn, 1, 2), dtype=np.int64)
    for r, lane, w in itertools.product(range(n_reg), range(32), range(wm * wn)):
        i, rep = r % 8, r // 8
        rep_n, rep_m = rep % reps_n, rep // reps_n
        row = 2 * i + lane // 16 if version == 1 else 8 * (lane // 16) + i
        row += rep_m * 16 * wm + (w // wn) * 16
        col = lane % 16 + rep_n * 16 * wn + (w % wn) * 16
        out[r, lane, w, 0] = (row % shape[0], col % shape[1])
    return out


# ---------------------------------------------------------------------------------------
# pinned Triton values
# ---------------------------------------------------------------------------------------
MFMA32_LANE = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]]
MFMA32_LANE_T = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]]


@pytest.mark.parametrize(
    "transposed, shape, register, lane, warp",
    [
        (False, (32, 32), [[1, 0], [2, 0], [8, 0], [16, 0]], MFMA32_LANE, [[0, 0], [0, 0], [0, 0]]),
        (False, (64, 32), [[1, 0], [2, 0], [8, 0], [16, 0]], MFMA32_LANE, [[0, 0], [0, 0], [32, 0]]),
        (False, (128, 128), [[1, 0], [2, 0], [8, 0], [16, 0], [64, 0]], MFMA32_LANE,
         [[0, 32], [0, 64], [32, 0]]),
        (True, (32, 32), [[0, 1], [0, 2], [0, 8], [0, 16]], MFMA32_LANE_T, [[0, 0], [0, 0], [0, 0]]),
        (True, (64, 32), [[0, 1], [0, 2], [0, 8], [0, 16]], MFMA32_LANE_T, [[0, 0], [0, 0], [32, 0]]),
        (True, (128, 128), [[0, 1], [0, 2], [0, 8], [0, 16], [64, 0]], MFMA32_LANE_T,
         [[0, 32], [0, 64], [32, 0]]),
    ],
)
def test_mfma32_2x4_warps(transposed, shape, register, lane, warp):
    """LinearLayoutConversionsTest.MFMA32_2x4Warps."""
    assert bases(mfma((2, 4), 32, 32, transposed), shape) == {
        "register": register, "lane": lane, "warp": warp, "block": []}


def test_mfma16_and_3d():
    # LinearLayoutConversionsTest.MFMA16_2x4Warps
    assert bases(mfma((2, 4), 16, 16, False), (16, 16)) == {
        "register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
        "warp": [[0, 0], [0, 0], [0, 0]], "block": []}
    # LinearLayoutConversionsTest.MFMA32_2x4x1Warps
    enc = mfma((2, 4, 1), 32, 32, False)
    lane3 = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 4, 0]]
    assert bases(enc, (1, 128, 128)) == {
        "register": [[0, 1, 0], [0, 2, 0], [0, 8, 0], [0, 16, 0], [0, 0, 32], [0, 0, 64]],
        "lane": lane3, "warp": [[0, 32, 0], [0, 64, 0], [0, 0, 0]], "block": []}
    assert bases(enc, (2, 64, 32)) == {
        "register": [[0, 1, 0], [0, 2, 0], [0, 8, 0], [0, 16, 0]],
        "lane": lane3, "warp": [[0, 32, 0], [0, 0, 0], [1, 0, 0]], "block": []}


@pytest.mark.parametrize(
    "name, parent, op_idx, shape, expected",
    [
        ("warp1onK_mfma32_rhs_kwidth8", mfma((1, 8), 32, 32, False), 1, (128, 128),
         {"register": [[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [64, 0]],
          "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]], "warp": [[0, 32], [0, 64], [0, 0]]}),
        ("warp1onK_mfma32_rhs_kwidth8", mfma((1, 8), 32, 32, False), 1, (32, 64),
         {"register": [[1, 0], [2, 0], [4, 0], [16, 0]],
          "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]], "warp": [[0, 32], [0, 0], [0, 0]]}),
        ("warp1onK_mfma32_rhs_kwidth8", mfma((1, 4), 32, 32, False), 1, (256, 256),
         {"register": [[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [64, 0], [128, 0], [0, 128]],
          "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]], "warp": [[0, 32], [0, 64]]}),
        ("warp1onK_mfma16_rhs_kwidth8", mfma((1, 4), 16, 16, False), 1, (1, 128),
         {"register": [[0, 0], [0, 0], [0, 0], [0, 64]],
          "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0], [0, 0]], "warp": [[0, 16], [0, 32]]}),
        ("warp1onK_mfma16_rhs_kwidth8", mfma((1, 4), 16, 16, False), 1, (128, 1),
         {"register": [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0]],
          "lane": [[0, 0], [0, 0], [0, 0], [0, 0], [8, 0], [16, 0]], "warp": [[0, 0], [0, 0]]}),
        ("warp1onK_mfma32_lhs_kwidth8", mfma((1, 8), 32, 32, False), 0, (128, 128),
         {"register": [[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [0, 64], [32, 0], [64, 0]],
          "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]], "warp": [[0, 0], [0, 0], [0, 0]]}),
    ],
)
def test_mfma_dot_operands(name, parent, op_idx, shape, expected):
    """LinearLayoutConversionsTest.<name> (kWidth 8)."""
    assert bases(DotOperandEncoding(op_idx, parent, 8), shape) == {**expected, "block": []}


WMMA_LANE = [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]]


@pytest.mark.parametrize(
    "shape, register, warp",
    [
        ((16, 16), [[2, 0], [4, 0], [8, 0]], [[0, 0], [0, 0], [0, 0]]),
        ((32, 16), [[2, 0], [4, 0], [8, 0]], [[0, 0], [0, 0], [16, 0]]),
        ((16, 32), [[2, 0], [4, 0], [8, 0]], [[0, 16], [0, 0], [0, 0]]),
        ((128, 128), [[2, 0], [4, 0], [8, 0], [0, 64], [32, 0], [64, 0]], [[0, 16], [0, 32], [16, 0]]),
    ],
)
def test_wmma_2x4_warps(shape, register, warp):
    """LinearLayoutConversionsTest.WMMA_2x4Warps."""
    assert bases(AmdWmmaEncoding.from_warps_per_cta(1, False, (2, 4)), shape) == {
        "register": register, "lane": WMMA_LANE, "warp": warp, "block": []}


def test_wmma_2x4x1_warps():
    """LinearLayoutConversionsTest.WMMA_2x4x1Warps."""
    enc = AmdWmmaEncoding.from_warps_per_cta(1, False, (2, 4, 1))
    lane = [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 1, 0]]
    assert bases(enc, (8, 16, 16)) == {
        "register": [[0, 2, 0], [0, 4, 0], [0, 8, 0], [2, 0, 0], [4, 0, 0]], "lane": lane,
        "warp": [[0, 0, 0], [0, 0, 0], [1, 0, 0]], "block": []}


# ---------------------------------------------------------------------------------------
# formulas
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "warps, m, transposed, shape",
    [((2, 4), 32, False, (128, 128)), ((2, 2), 32, True, (64, 128)), ((1, 4), 16, False, (64, 64)),
     ((2, 2), 16, True, (16, 64)), ((4, 1), 32, False, (16, 16))],
)
def test_mfma_matches_formula(warps, m, transposed, shape):
    enc = mfma(warps, m, m, transposed)
    assert np.array_equal(enc.table(shape), mfma_reference(warps, m, m, transposed, shape))


@pytest.mark.parametrize("version, warps, shape", [(1, (2, 4), (64, 128)), (2, (2, 2), (32, 64)),
                                                   (1, (1, 1), (16, 32))])
def test_wmma_matches_formula(version, warps, shape):
    enc = AmdWmmaEncoding.from_warps_per_cta(version, False, warps)
    assert np.array_equal(enc.table(shape), wmma_reference(version, warps, shape))


def test_transposed_wmma_is_the_transpose_of_the_tile():
    """isTranspose swaps rows and columns inside a wave's 16x16 tile."""
    plain = AmdWmmaEncoding.from_warps_per_cta(2, False, (1, 1)).table((16, 16))
    transposed = AmdWmmaEncoding.from_warps_per_cta(2, True, (1, 1)).table((16, 16))
    assert np.array_equal(plain[..., ::-1], transposed)


# ---------------------------------------------------------------------------------------
# text and errors
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
        "#ttg.amd_mfma<{version = 4, warpsPerCTA = [4, 1], instrShape = [16, 16, 32], isTransposed = false, "
        "CGALayout = [[0, 1]], tilesPerWarp = [2, 2], elementBitWidth = 64}>",
        "#ttg.amd_wmma<{version = 1, isTranspose = false, ctaLayout = {warp = [[0, 1], [1, 0]]}}>",
        "#ttg.amd_wmma<{version = 3, isTranspose = true, ctaLayout = {register = [[1, 0]], warp = [[0, 1]]}, "
        "instrShape = [16, 16, 32]}>",
        "#ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {}, CGALayout = [[1, 0]]}>",
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], "
        "instrShape = [32, 32, 8], isTransposed = true}>, kWidth = 4}>",
    ],
)
def test_print_round_trip(text):
    enc = layoutkit.parse_layout(text)
    assert str(enc) == text
    assert layoutkit.parse_layout(str(enc)) == enc
    enc.to_linear_layout((64,) * enc.rank)


@pytest.mark.parametrize(
    "text, field",
    [
        ("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [8, 8, 8], isTransposed = true}>",
         "instrShape"),
        ("#ttg.amd_mfma<{version = 9, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
         "version"),
        ("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8]}>", "isTransposed"),
        ("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = 1}>",
         "isTransposed"),
        ("#ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2], instrShape = [16, 16, 32]}>",
         "instrShape"),
        ("#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_wmma<{version = 1, warpsPerCTA = [2, 2]}>, kWidth = 4}>",
         "kWidth"),
        ("#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], "
         "instrShape = [32, 32, 8], isTransposed = true}>}>", "kWidth"),
    ],
)
def test_bad_text_names_the_field(text, field):
    with pytest.raises(LayoutError) as info:
        layoutkit.parse_layout(text)
    assert field in str(info.value)


def test_wmma_warps_per_cta_reads_as_cta_layout():
    """Triton before 3.9 wrote ``warpsPerCTA``; it reads as the ``ctaLayout`` warp bases
    (in tiles, the last dim fastest) and prints in Triton 3.9's form."""
    old = layoutkit.parse_layout("#ttg.amd_wmma<{version = 2, isTranspose = true, warpsPerCTA = [2, 4]}>")
    assert str(old) == "#ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {warp = [[0, 1], [0, 2], [1, 0]]}}>"


def test_wmma_on_a_tensor_smaller_than_its_tile():
    """Triton 3.9 fits a WMMA layout to any shape (broadcast lanes, zero registers); checked
    with triton==3.9.0."""
    ll = layoutkit.parse_layout(
        "#ttg.amd_wmma<{version = 1, isTranspose = false, ctaLayout = {warp = [[0, 1], [1, 0]]}}>"
    ).to_linear_layout((8, 16))
    assert ll.bases == {"register": [[2, 0], [4, 0], [0, 0]], "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]],
                        "warp": [[0, 0], [0, 0]], "block": []}


@pytest.mark.parametrize("text, field", [
    ("#ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {warp = [[0, 3]]}}>", "ctaLayout"),
    ("#ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {lanes = [[0, 1]]}}>", "ctaLayout.lanes"),
    ("#ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = [[0, 1]]}>", "ctaLayout"),
    ("#ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {warp = [[0, 1, 0]]}, CGALayout = [[1, 0]]}>",
     "CGALayout"),
])
def test_wmma_cta_layout_errors_name_the_field(text, field):
    with pytest.raises(LayoutError) as info:
        layoutkit.parse_layout(text)
    assert str(info.value).startswith(field)
