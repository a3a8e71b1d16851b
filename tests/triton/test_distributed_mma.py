"""nvidia_mma and dot_op encodings: against the PTX fragment layouts written out per element,
and against the bases pinned in Triton's LinearLayoutConversionsTest.cpp."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.layouts.triton.blocked import BlockedEncoding, SliceEncoding
from layoutkit.layouts.triton.cga import CGALayout
from layoutkit.layouts.triton.mma import DotOperandEncoding, NvidiaMmaEncoding

MMA_LANE = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]


def bases(encoding, shape):
    return encoding.to_linear_layout(shape).bases


def mma(major, minor, instr, warps, cpg=None, split=None, cta_order=None):
    """Triton's test fixture (legacy CTA fields)."""
    cga = None if cpg is None else CGALayout.from_split_params(cpg, split, cta_order)
    return NvidiaMmaEncoding(major, minor, warps, instr, cga)


# ---------------------------------------------------------------------------------------
# formulas from the PTX ISA fragment layouts (mma.m16n8k16 / wgmma), per element
# ---------------------------------------------------------------------------------------
def accumulator_reference(warps, shape, hopper=False, n_instr=8):
    """C fragment: lane = 4*groupID + threadID_in_group holds rows groupID (+8) and columns
    2*threadID_in_group (+1); registers: bit 0 -> column + 1, bit 1 -> row + 8, then
    8-column groups of the instruction, then repetitions of the CTA tile (columns first).
    Warps are row-major (Ampere) or M-fastest (Hopper)."""
    wm, wn = warps
    tile_m, tile_n = 16 * wm, n_instr * wn
    reps_m, reps_n = max(1, shape[0] // tile_m), max(1, shape[1] // tile_n)
    groups = n_instr // 8
    n_reg = 4 * groups * reps_m * reps_n
    out = np.zeros((n_reg, 32, wm * wn, 1, 2), dtype=np.int64)
    for r, lane, w in itertools.product(range(n_reg), range(32), range(wm * wn)):
        group, tig = lane // 4, lane % 4
        col_group = (r >> 2) % groups
        rep = (r >> 2) // groups
        rep_n, rep_m = rep % reps_n, rep // reps_n
        warp_m, warp_n = (w % wm, w // wm) if hopper else (w // wn, w % wn)
        row = rep_m * tile_m + warp_m * 16 + group + 8 * ((r >> 1) & 1)
        col = rep_n * tile_n + warp_n * n_instr + 8 * col_group + 2 * tig + (r & 1)
        out[r, lane, w, 0] = (row % shape[0], col % shape[1])
    return out


def operand_reference(op_idx, k_width, warps, shape, hopper=False):
    """A (M x K) / B (K x N) fragments of mma.m16n8k(8*kWidth): a thread holds kWidth
    consecutive K elements at K offset kWidth*threadID_in_group, a second group 4*kWidth
    further; A rows are groupID (+8), B columns groupID. Warps are replicated along K;
    repetitions walk K first."""
    wm, wn = warps
    k_tile = 8 * k_width
    if op_idx == 0:
        tile_m = 16 * wm
        reps_m, reps_k = max(1, shape[0] // tile_m), max(1, shape[1] // k_tile)
        per_tile = 4 * k_width  # kWidth, row + 8, K + 4*kWidth
    else:
        tile_n = 8 * wn
        reps_k, reps_n = max(1, shape[0] // k_tile), max(1, shape[1] // tile_n)
        per_tile = 2 * k_width  # kWidth, K + 4*kWidth
    n_reg = per_tile * (reps_m * reps_k if op_idx == 0 else reps_k * reps_n)
    out = np.zeros((n_reg, 32, wm * wn, 1, 2), dtype=np.int64)
    for r, lane, w in itertools.product(range(n_reg), range(32), range(wm * wn)):
        group, tig = lane // 4, lane % 4
        within, rep = r % per_tile, r // per_tile
        warp_m, warp_n = (w % wm, w // wm) if hopper else (w // wn, w % wn)
        k_elem = within % k_width
        if op_idx == 0:
            row_half = (within // k_width) & 1
            k_half = (within // (2 * k_width)) & 1
            rep_k, rep_m = rep % reps_k, rep // reps_k
            row = rep_m * tile_m + warp_m * 16 + group + 8 * row_half
            k = rep_k * k_tile + 4 * k_width * k_half + k_width * tig + k_elem
            out[r, lane, w, 0] = (row % shape[0], k % shape[1])
        else:
            k_half = (within // k_width) & 1
            rep_k, rep_n = rep % reps_k, rep // reps_k
            k = rep_k * k_tile + 4 * k_width * k_half + k_width * tig + k_elem
            col = rep_n * tile_n + warp_n * 8 + group
            out[r, lane, w, 0] = (k % shape[0], col % shape[1])
    return out


def fma_operand_reference(op_idx, spt, tpw, wpc, order, shape):
    """FMA dot operand over a blocked parent: a thread holds the whole K extent of its
    sizePerThread rows (A) / columns (B); lanes and warps along K are replicated."""
    k = 1 if op_idx == 0 else 0
    thread = list(spt)
    thread[k] = shape[k]
    reps = [max(1, shape[d] // (spt[d] * tpw[d] * wpc[d])) if d != k else 1 for d in range(2)]

    def digits(index, sizes):
        out = [0, 0]
        for d in order:
            out[d] = index % sizes[d]
            index //= sizes[d]
        return out

    n_reg = thread[0] * thread[1] * reps[0] * reps[1]
    out = np.zeros((n_reg, tpw[0] * tpw[1], wpc[0] * wpc[1], 1, 2), dtype=np.int64)
    for r, lane, w in itertools.product(range(n_reg), range(tpw[0] * tpw[1]), range(wpc[0] * wpc[1])):
        s = digits(r % (thread[0] * thread[1]), thread)
        rep = digits(r // (thread[0] * thread[1]), reps)
        lc, wc = digits(lane, tpw), digits(w, wpc)
        for d in range(2):
            if d == k:
                out[r, lane, w, 0, d] = s[d] % shape[d]
            else:
                pos = rep[d] * spt[d] * tpw[d] * wpc[d] + wc[d] * spt[d] * tpw[d] + lc[d] * spt[d] + s[d]
                out[r, lane, w, 0, d] = pos % shape[d]
    return out


# ---------------------------------------------------------------------------------------
# pinned Triton values
# ---------------------------------------------------------------------------------------
def test_mma_v2_16x16_issue_pin():
    """LinearLayoutConversionsTest.MMAv2_16x16."""
    layout = mma(2, 0, [16, 8], [1, 1]).to_linear_layout((16, 16))
    assert layout.bases == {"register": [[0, 1], [8, 0], [0, 8]], "lane": MMA_LANE, "warp": [], "block": []}


@pytest.mark.parametrize(
    "name, encoding, shape, expected",
    [
        ("MMAv2_32x32", mma(2, 0, [16, 8], [1, 1]), (32, 32),
         {"register": [[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]], "lane": MMA_LANE, "warp": [], "block": []}),
        ("MMAv2_ExtendDim2", mma(2, 0, [16, 8], [1, 1]), (16, 128),
         {"register": [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], "lane": MMA_LANE, "warp": [],
          "block": []}),
        ("MMAv2_Cga", mma(2, 0, [1, 16, 8], [16, 1, 1], [4, 2, 2], [4, 2, 1], [2, 1, 0]), (64, 128, 128),
         {"register": [[0, 0, 1], [0, 8, 0], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64], [0, 16, 0],
                       [0, 32, 0]],
          "lane": [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]],
          "warp": [[1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0]],
          "block": [[0, 0, 0], [0, 64, 0], [16, 0, 0], [32, 0, 0]]}),
        ("MMAv2_Small3D", mma(2, 0, [1, 16, 8], [16, 1, 1], [4, 2, 2], [4, 2, 1], [2, 1, 0]), (1, 128, 128),
         {"register": [[0, 0, 1], [0, 8, 0], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64], [0, 16, 0],
                       [0, 32, 0]],
          "lane": [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]],
          "warp": [[0, 0, 0]] * 4, "block": [[0, 0, 0], [0, 64, 0], [0, 0, 0], [0, 0, 0]]}),
        ("MMAv3_64x16", mma(3, 0, [16, 16, 8], [4, 1]), (64, 16),
         {"register": [[0, 1], [8, 0], [0, 8]], "lane": MMA_LANE, "warp": [[16, 0], [32, 0]], "block": []}),
        ("MMAv3_64x16/16x8x8", mma(3, 0, [16, 8, 8], [4, 1]), (64, 16),
         {"register": [[0, 1], [8, 0], [0, 8]], "lane": MMA_LANE, "warp": [[16, 0], [32, 0]], "block": []}),
        ("MMAv3_128x16", mma(3, 0, [16, 16, 8], [4, 1]), (128, 16),
         {"register": [[0, 1], [8, 0], [0, 8], [64, 0]], "lane": MMA_LANE, "warp": [[16, 0], [32, 0]],
          "block": []}),
        ("MMAv3_1024x1024", mma(3, 0, [16, 16, 8], [4, 1]), (1024, 1024),
         {"register": [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [0, 256], [0, 512],
                       [64, 0], [128, 0], [256, 0], [512, 0]],
          "lane": MMA_LANE, "warp": [[16, 0], [32, 0]], "block": []}),
        ("MMAv3_4x2Warps", mma(3, 0, [16, 32, 16], [4, 2]), (64, 32),
         {"register": [[0, 1], [8, 0], [0, 8], [0, 16]], "lane": MMA_LANE, "warp": [[16, 0], [32, 0], [0, 0]],
          "block": []}),
        ("MMAv3_4x2Warps", mma(3, 0, [16, 32, 16], [4, 2]), (256, 64),
         {"register": [[0, 1], [8, 0], [0, 8], [0, 16], [64, 0], [128, 0]], "lane": MMA_LANE,
          "warp": [[16, 0], [32, 0], [0, 32]], "block": []}),
        ("MMAv3_4x4Warps", mma(3, 0, [16, 16, 8], [4, 4]), (16, 16),
         {"register": [[0, 1], [8, 0], [0, 8]], "lane": MMA_LANE, "warp": [[0, 0]] * 4, "block": []}),
        ("MMAv3_4x4Warps", mma(3, 0, [16, 16, 8], [4, 4]), (64, 32),
         {"register": [[0, 1], [8, 0], [0, 8]], "lane": MMA_LANE, "warp": [[16, 0], [32, 0], [0, 16], [0, 0]],
          "block": []}),
    ],
)
def test_triton_mma_bases(name, encoding, shape, expected):
    """LinearLayoutConversionsTest.<name>."""
    assert bases(encoding, shape) == expected


DOT_A_LANE = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]
DOT_B_LANE = [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]]


@pytest.mark.parametrize(
    "name, parent, op_idx, k_width, shape, expected",
    [
        ("DotMMAv2_tile_kwidth8", mma(2, 0, [16, 8], [1, 1]), 0, 8, (16, 64),
         {"register": [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]], "lane": DOT_A_LANE, "warp": [], "block": []}),
        ("DotMMAv2_tile_kwidth8", mma(2, 0, [16, 8], [1, 1]), 1, 8, (64, 8),
         {"register": [[1, 0], [2, 0], [4, 0], [32, 0]], "lane": DOT_B_LANE, "warp": [], "block": []}),
        ("DotMMAv2_3D", mma(2, 0, [1, 16, 8], [2, 4, 2]), 0, 8, (16, 128, 128),
         {"register": [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 8, 0], [0, 0, 32], [0, 0, 64], [0, 64, 0],
                       [2, 0, 0], [4, 0, 0], [8, 0, 0]],
          "lane": [[0, 0, 8], [0, 0, 16], [0, 1, 0], [0, 2, 0], [0, 4, 0]],
          "warp": [[0, 0, 0], [0, 16, 0], [0, 32, 0], [1, 0, 0]], "block": []}),
        ("DotMMAv2_3D", mma(2, 0, [1, 16, 8], [2, 4, 2]), 1, 8, (8, 128, 64),
         {"register": [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 32, 0], [0, 64, 0], [0, 0, 16], [0, 0, 32],
                       [2, 0, 0], [4, 0, 0]],
          "lane": [[0, 8, 0], [0, 16, 0], [0, 0, 1], [0, 0, 2], [0, 0, 4]],
          "warp": [[0, 0, 8], [0, 0, 0], [0, 0, 0], [1, 0, 0]], "block": []}),
        ("DotMMAv3_warp4_kwidth2", mma(3, 0, [16, 16, 8], [4, 1]), 0, 2, (128, 32),
         {"register": [[0, 1], [8, 0], [0, 8], [0, 16], [64, 0]], "lane": MMA_LANE, "warp": [[16, 0], [32, 0]],
          "block": []}),
        ("DotMMAv3_mixed_warp_kwidth4", mma(3, 0, [16, 16, 8], [4, 2]), 0, 4, (128, 64),
         {"register": [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [64, 0]],
          "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], "warp": [[16, 0], [32, 0], [0, 0]], "block": []}),
        ("DotMMAv2_split_warp_kwidth8", mma(2, 0, [16, 8], [2, 2]), 0, 8, (64, 128),
         {"register": [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [32, 0]], "lane": DOT_A_LANE,
          "warp": [[0, 0], [16, 0]], "block": []}),
        ("DotMMAv2_split_warp_kwidth8", mma(2, 0, [16, 8], [2, 2]), 1, 8, (128, 32),
         {"register": [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 16]], "lane": DOT_B_LANE,
          "warp": [[0, 8], [0, 0]], "block": []}),
    ],
)
def test_triton_dot_bases(name, parent, op_idx, k_width, shape, expected):
    """LinearLayoutConversionsTest.<name>."""
    assert bases(DotOperandEncoding(op_idx, parent, k_width), shape) == expected


def test_slices_of_mma_and_dot():
    # LinearLayoutConversionsTest.SliceOfMmaV2 (the version matching today's slice)
    parent = mma(2, 0, [16, 8], [2, 2], [1, 1], [1, 1], [0, 1])
    assert bases(SliceEncoding(0, parent), (16,)) == {
        "register": [[1]], "lane": [[2], [4], [0], [0], [0]], "warp": [[8], [0]], "block": []}
    assert bases(SliceEncoding(0, parent), (128,)) == {
        "register": [[1], [16], [32], [64]], "lane": [[2], [4], [0], [0], [0]], "warp": [[8], [0]], "block": []}
    assert bases(SliceEncoding(1, parent), (8,)) == {
        "register": [], "lane": [[0], [0], [1], [2], [4]], "warp": [[0], [0]], "block": []}
    assert bases(SliceEncoding(1, parent), (128,)) == {
        "register": [[8], [32], [64]], "lane": [[0], [0], [1], [2], [4]], "warp": [[0], [16]], "block": []}
    # LinearLayoutConversionsTest.SliceDot
    dot_v2 = DotOperandEncoding(0, mma(2, 0, [16, 8], [1, 1]), 8)
    assert bases(SliceEncoding(1, dot_v2), (16,)) == {
        "register": [[8]], "lane": [[0], [0], [1], [2], [4]], "warp": [], "block": []}
    dot_v3 = DotOperandEncoding(0, mma(3, 0, [16, 16, 8], [4, 1]), 2)
    assert bases(SliceEncoding(0, dot_v3), (16,)) == {
        "register": [[1], [8]], "lane": [[2], [4], [0], [0], [0]], "warp": [[0], [0]], "block": []}


# ---------------------------------------------------------------------------------------
# the PTX formulas
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("warps, shape", [((1, 1), (16, 16)), ((2, 2), (64, 32)), ((4, 1), (32, 64)),
                                          ((2, 4), (16, 8))])
def test_mma_v2_matches_ptx_fragment(warps, shape):
    enc = mma(2, 0, [16, 8], list(warps))
    assert np.array_equal(enc.table(shape), accumulator_reference(warps, shape))


@pytest.mark.parametrize("warps, n, shape", [((4, 1), 64, (64, 64)), ((4, 2), 32, (128, 128)),
                                             ((4, 1), 16, (32, 16))])
def test_mma_v3_matches_wgmma_fragment(warps, n, shape):
    enc = mma(3, 0, [16, n, 16], list(warps))
    assert np.array_equal(enc.table(shape), accumulator_reference(warps, shape, hopper=True, n_instr=n))


@pytest.mark.parametrize(
    "op_idx, k_width, warps, shape",
    [(0, 2, (1, 1), (16, 16)), (0, 4, (2, 2), (64, 64)), (0, 8, (4, 1), (64, 128)),
     (1, 2, (1, 1), (16, 8)), (1, 4, (2, 2), (64, 32)), (1, 8, (1, 4), (128, 64))],
)
def test_mma_v2_operands_match_ptx_fragment(op_idx, k_width, warps, shape):
    enc = DotOperandEncoding(op_idx, mma(2, 0, [16, 8], list(warps)), k_width)
    assert np.array_equal(enc.table(shape), operand_reference(op_idx, k_width, warps, shape))


def test_mma_v3_operand_a_matches_fragment():
    enc = DotOperandEncoding(0, mma(3, 0, [16, 64, 16], [4, 1]), 2)
    ref = operand_reference(0, 2, (4, 1), (128, 64), hopper=True)
    assert np.array_equal(enc.table((128, 64)), ref)


@pytest.mark.parametrize(
    "op_idx, spt, tpw, wpc, order, shape",
    [(0, [2, 1], [8, 4], [2, 2], [1, 0], (64, 16)), (1, [1, 4], [4, 8], [2, 2], [1, 0], (8, 64)),
     (0, [1, 1], [16, 2], [4, 1], [0, 1], (64, 8))],
)
def test_fma_operands_match_formula(op_idx, spt, tpw, wpc, order, shape):
    enc = DotOperandEncoding(op_idx, BlockedEncoding(spt, tpw, wpc, order))
    assert np.array_equal(enc.table(shape), fma_operand_reference(op_idx, spt, tpw, wpc, order, shape))


# ---------------------------------------------------------------------------------------
# text and errors
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>",
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], CGALayout = [[1, 0]], "
        "instrShape = [16, 8]}>",
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, "
        "warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>, kWidth = 2}>",
        "#ttg.dot_op<{opIdx = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
        "warpsPerCTA = [4, 1], order = [1, 0]}>}>",
    ],
)
def test_print_round_trip(text):
    enc = layoutkit.parse_layout(text)
    assert str(enc) == text
    assert layoutkit.parse_layout(str(enc)) == enc


def test_parent_alias_and_legacy_names():
    file_text = (
        "#mma = #triton_gpu.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], "
        "instrShape = [16, 8]}>\n"
    )
    enc = layoutkit.parse_layout("#ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>", aliases=file_text)
    assert enc.parent == NvidiaMmaEncoding(2, 0, (4, 1), (16, 8))
    old = layoutkit.parse_layout("#triton_gpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1]}>")
    assert old == NvidiaMmaEncoding(2, 0, (4, 1), (16, 8))


def test_aliases_given_as_a_dict_of_text():
    mma = ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], "
           "instrShape = [16, 8]}>")
    assert layoutkit.parse_layout("#mma", aliases={"mma": mma}) == NvidiaMmaEncoding(2, 0, (4, 1), (16, 8))
    enc = layoutkit.parse_layout("#ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>", aliases={"mma": mma})
    assert enc == DotOperandEncoding(1, NvidiaMmaEncoding(2, 0, (4, 1), (16, 8)), 2)
    for bad, fragment in [({"mma": "garbage"}, "aliases: 'mma': "), ({"m m": mma}, "aliases: "),
                          ({"mma": "#ttg.blocked<{"}, "in '#ttg.blocked<{'")]:
        with pytest.raises(LayoutError, match=re.escape(fragment)):
            layoutkit.parse_layout("#mma", aliases=bad)


def test_dot_cga_is_not_split_along_k():
    parent = NvidiaMmaEncoding(2, 0, (2, 2), (16, 8), CGALayout(((1, 0), (0, 1)), 2))
    assert DotOperandEncoding(0, parent, 2).cga.bases == ((1, 0), (0, 0))
    assert DotOperandEncoding(1, parent, 2).cga.bases == ((0, 0), (0, 1))


@pytest.mark.parametrize(
    "text, field",
    [
        ("#ttg.nvidia_mma<{versionMajor = 1, versionMinor = 0, warpsPerCTA = [4, 1]}>", "versionMajor"),
        ("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1]}>", "instrShape"),
        ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [3, 1], instrShape = [16, 8]}>",
         "warpsPerCTA"),
        ("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 24, 16]}>",
         "instrShape"),
        ("#ttg.dot_op<{opIdx = 2, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
         "warpsPerCTA = [4, 1]}>, kWidth = 2}>", "opIdx"),
        ("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
         "warpsPerCTA = [4, 1]}>}>", "kWidth"),
        ("#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, "
         "warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>, kWidth = 2}>", "opIdx"),
        ("#ttg.dot_op<{opIdx = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
         "warpsPerCTA = [4, 1], order = [1, 0]}>, kWidth = 2}>", "kWidth"),
        ("#ttg.dot_op<{opIdx = 0, parent = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], "
         "threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>, kWidth = 2}>", "parent"),
    ],
)
def test_bad_text_names_the_field(text, field):
    with pytest.raises(LayoutError) as info:
        layoutkit.parse_layout(text)
    assert field in str(info.value)


def test_bad_shapes():
    enc = NvidiaMmaEncoding(2, 0, (4, 1), (16, 8))
    for shape in [(16,), (16, 24), (16, 16, 16)]:
        with pytest.raises(LayoutError, match="shape"):
            enc.to_linear_layout(shape)
