"""More bases pinned by Triton's own unit tests, checked independently of the authors' pins:
unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp in triton-lang/triton (commit
db1ed003402dba242f67073bd5c2365a875db310); each case names its TEST_F. They cover dot
operands with kWidth 4/8/16 (nvidia_mma, amd_mfma, amd_wmma parents), mfma 16x16 / 32x32
transposed or not, wmma versions 1 and 2 (transposed too), and the blocked / mma CGA
examples written in the current ``CGALayout = [[...]]`` form (bases derived by hand from
the legacy fields the C++ test uses)."""

from __future__ import annotations

import pytest

from layoutkit import parse_layout
from layoutkit.layouts.triton.amd import AmdMfmaEncoding, AmdWmmaEncoding
from layoutkit.layouts.triton.blocked import BlockedEncoding, SliceEncoding
from layoutkit.layouts.triton.mma import DotOperandEncoding, NvidiaMmaEncoding


def bases(encoding, shape):
    return encoding.to_linear_layout(shape).bases


def expect(register, lane, warp, block=()):
    return {"register": register, "lane": lane, "warp": warp, "block": list(block)}


def mma(major, instr, warps):
    return NvidiaMmaEncoding(major, 0, warps, instr)


def mfma(warps, m, transposed=False):
    """The test fixture: version 2, M = N = m, one CTA."""
    return AmdMfmaEncoding(2, warps, (m, m), transposed)


def wmma(warps, version, transposed=False):
    return AmdWmmaEncoding.from_warps_per_cta(version, transposed, warps)


def dot(parent, op_idx, k_width):
    return DotOperandEncoding(op_idx, parent, k_width)


DOT_A_LANE = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]
DOT_B_LANE = [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]]
MMA_LANE = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]

NVIDIA_DOT = [
    ("DotMMAv2_large_warp4_kwidth8", dot(mma(2, [16, 8], [4, 1]), 0, 8), (128, 128),
     expect([[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [64, 0]], DOT_A_LANE, [[16, 0], [32, 0]])),
    ("DotMMAv2_large_warp4_kwidth8", dot(mma(2, [16, 8], [4, 1]), 1, 8), (128, 64),
     expect([[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32]], DOT_B_LANE, [[0, 0], [0, 0]])),
    ("DotMMAv2_large_warp4_kwidth8", dot(mma(2, [16, 8], [4, 1]), 1, 8), (64, 128),
     expect([[1, 0], [2, 0], [4, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]], DOT_B_LANE, [[0, 0], [0, 0]])),
    ("DotMMAv2_split_warp_kwidth8", dot(mma(2, [16, 8], [2, 2]), 0, 8), (32, 64),
     expect([[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]], DOT_A_LANE, [[0, 0], [16, 0]])),
    ("DotMMAv2_split_warp_kwidth8", dot(mma(2, [16, 8], [2, 2]), 1, 8), (64, 16),
     expect([[1, 0], [2, 0], [4, 0], [32, 0]], DOT_B_LANE, [[0, 8], [0, 0]])),
    ("DotMMAv3_warp4_kwidth2", dot(mma(3, [16, 16, 8], [4, 1]), 0, 2), (64, 16),
     expect([[0, 1], [8, 0], [0, 8]], MMA_LANE, [[16, 0], [32, 0]])),
    ("DotMMAv3_warp4_kwidth2", dot(mma(3, [16, 16, 8], [4, 1]), 0, 2), (128, 16),
     expect([[0, 1], [8, 0], [0, 8], [64, 0]], MMA_LANE, [[16, 0], [32, 0]])),
]

MFMA32_LANE = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]]
MFMA32_A_LANE = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]]
MFMA16_A_LANE = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]]
MFMA16_B_LANE = [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]]
K8_32_A_LANE = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]]
K8_16_A_LANE = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]]

AMD = [
    # transposed mfma: lanes walk the rows, registers the columns
    ("MFMA32_2x4x1Warps", mfma((2, 4, 1), 32, True), (1, 128, 128),
     expect([[0, 0, 1], [0, 0, 2], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64]],
            [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 16, 0], [0, 0, 4]],
            [[0, 32, 0], [0, 64, 0], [0, 0, 0]])),
    ("MFMA32_2x4x1Warps", mfma((2, 4, 1), 32, True), (2, 64, 32),
     expect([[0, 0, 1], [0, 0, 2], [0, 0, 8], [0, 0, 16]],
            [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 16, 0], [0, 0, 4]],
            [[0, 32, 0], [0, 0, 0], [1, 0, 0]])),
    # dot operands, kWidth 4
    ("mfma32_dot_op_lhs_kwidth4", dot(mfma((2, 4), 32), 0, 4), (128, 128),
     expect([[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [0, 64], [64, 0]], MFMA32_A_LANE, [[0, 0], [0, 0], [32, 0]])),
    ("mfma32_dot_op_lhs_kwidth4", dot(mfma((2, 4), 32), 0, 4), (16, 16),
     expect([[0, 1], [0, 2], [0, 8]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 4]], [[0, 0], [0, 0], [0, 0]])),
    ("mfma16_dot_op_lhs_kwidth4", dot(mfma((2, 4), 16), 0, 4), (128, 128),
     expect([[0, 1], [0, 2], [0, 16], [0, 32], [0, 64], [32, 0], [64, 0]], MFMA16_A_LANE, [[0, 0], [0, 0], [16, 0]])),
    ("mfma16_dot_op_lhs_kwidth4", dot(mfma((2, 4), 16), 0, 4), (64, 32),
     expect([[0, 1], [0, 2], [0, 16], [32, 0]], MFMA16_A_LANE, [[0, 0], [0, 0], [16, 0]])),
    ("mfma32_dot_op_rhs_kwidth4", dot(mfma((2, 4), 32), 1, 4), (128, 128),
     expect([[1, 0], [2, 0], [8, 0], [16, 0], [32, 0], [64, 0]], MFMA32_LANE, [[0, 32], [0, 64], [0, 0]])),
    ("mfma32_dot_op_rhs_kwidth4", dot(mfma((2, 4), 32), 1, 4), (16, 16),
     expect([[1, 0], [2, 0], [8, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0], [4, 0]], [[0, 0], [0, 0], [0, 0]])),
    ("mfma16_dot_op_rhs_kwidth4", dot(mfma((2, 4), 16), 1, 4), (128, 128),
     expect([[1, 0], [2, 0], [16, 0], [32, 0], [64, 0], [0, 64]], MFMA16_B_LANE, [[0, 16], [0, 32], [0, 0]])),
    ("mfma16_dot_op_rhs_kwidth4", dot(mfma((2, 4), 16), 1, 4), (32, 64),
     expect([[1, 0], [2, 0], [16, 0]], MFMA16_B_LANE, [[0, 16], [0, 32], [0, 0]])),
    # dot operands, kWidth 8, warps only along N
    ("warp1onK_mfma32_lhs_kwidth8", dot(mfma((1, 8), 32), 0, 8), (256, 256),
     expect([[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [0, 64], [0, 128], [32, 0], [64, 0], [128, 0]],
            K8_32_A_LANE, [[0, 0], [0, 0], [0, 0]])),
    ("warp1onK_mfma32_lhs_kwidth8", dot(mfma((1, 8), 32), 0, 8), (16, 16),
     expect([[0, 1], [0, 2], [0, 4]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 8]], [[0, 0], [0, 0], [0, 0]])),
    ("warp1onK_mfma32_rhs_kwidth8", dot(mfma((1, 8), 32), 1, 8), (16, 16),
     expect([[1, 0], [2, 0], [4, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0], [8, 0]], [[0, 0], [0, 0], [0, 0]])),
    ("warp1onK_mfma16_lhs_kwidth8", dot(mfma((1, 4), 16), 0, 8), (128, 128),
     expect([[0, 1], [0, 2], [0, 4], [0, 32], [0, 64], [16, 0], [32, 0], [64, 0]], K8_16_A_LANE, [[0, 0], [0, 0]])),
    ("warp1onK_mfma16_lhs_kwidth8", dot(mfma((1, 4), 16), 0, 8), (128, 1),
     expect([[0, 0], [0, 0], [0, 0], [16, 0], [32, 0], [64, 0]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 0]],
            [[0, 0], [0, 0]])),
    ("warp1onK_mfma16_lhs_kwidth8", dot(mfma((1, 1, 8), 16), 0, 8), (1, 256, 256),
     expect([[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 32], [0, 0, 64], [0, 0, 128], [0, 16, 0], [0, 32, 0],
             [0, 64, 0], [0, 128, 0]],
            [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 0, 8], [0, 0, 16]], [[0, 0, 0]] * 3)),
    # wmma version 2, plain and transposed
    ("WMMA_v2_2x4Warps", wmma((2, 4), 2), (16, 16),
     expect([[1, 0], [2, 0], [4, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]], [[0, 0], [0, 0], [0, 0]])),
    ("WMMA_v2_2x4Warps", wmma((2, 4), 2), (64, 128),
     expect([[1, 0], [2, 0], [4, 0], [0, 64], [32, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]],
            [[0, 16], [0, 32], [16, 0]])),
    ("WMMA_v2_2x2x2Warps", wmma((2, 2, 2), 2), (4, 64, 64),
     expect([[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 0, 32], [0, 32, 0], [2, 0, 0]],
            [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 8, 0]], [[0, 0, 16], [0, 16, 0], [1, 0, 0]])),
    ("TWMMA_v2_2x4Warps", wmma((2, 4), 2, True), (16, 32),
     expect([[0, 1], [0, 2], [0, 4]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], [[0, 16], [0, 0], [0, 0]])),
    ("TWMMA_v2_2x4Warps", wmma((2, 4), 2, True), (64, 128),
     expect([[0, 1], [0, 2], [0, 4], [0, 64], [32, 0]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]],
            [[0, 16], [0, 32], [16, 0]])),
    ("TWMMA_v2_2x2x2Warps", wmma((2, 2, 2), 2, True), (4, 64, 64),
     expect([[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 32], [0, 32, 0], [2, 0, 0]],
            [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 0, 8]], [[0, 0, 16], [0, 16, 0], [1, 0, 0]])),
    # wmma dot operands
    ("WMMA_v1_2x4Warps_lhs", dot(wmma((2, 4), 1), 0, 16), (64, 128),
     expect([[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [32, 0]],
            [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], [[0, 0], [0, 0], [16, 0]])),
    ("WMMA_v1_2x4Warps_rhs", dot(wmma((2, 4), 1), 1, 16), (64, 128),
     expect([[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 64]],
            [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0]], [[0, 16], [0, 32], [0, 0]])),
    ("WMMA_v1_2x4x1Warps_lhs", dot(wmma((2, 4, 1), 1), 0, 16), (4, 128, 32),
     expect([[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 64, 0], [2, 0, 0]],
            [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 0, 0]], [[0, 16, 0], [0, 32, 0], [1, 0, 0]])),
    ("WMMA_v1_2x4x1Warps_rhs", dot(wmma((2, 4, 1), 1), 1, 16), (4, 128, 32),
     expect([[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 16, 0], [0, 32, 0], [0, 64, 0], [0, 0, 16],
             [2, 0, 0]],
            [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [1, 0, 0]])),
    ("WMMA_v2_2x4Warps_lhs", dot(wmma((2, 4), 2), 0, 8), (64, 128),
     expect([[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [0, 64], [32, 0]],
            [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], [[0, 0], [0, 0], [16, 0]])),
    ("WMMA_v2_2x4Warps_lhs", dot(wmma((2, 4), 2), 0, 16), (32, 128),
     expect([[0, 1], [0, 2], [0, 4], [0, 8], [0, 32], [0, 64]],
            [[1, 0], [2, 0], [4, 0], [8, 0], [0, 16]], [[0, 0], [0, 0], [16, 0]])),
    ("WMMA_v2_2x4Warps_rhs", dot(wmma((2, 4), 2), 1, 8), (64, 128),
     expect([[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [0, 64]],
            [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]], [[0, 16], [0, 32], [0, 0]])),
    ("WMMA_v2_2x4Warps_rhs", dot(wmma((2, 4), 2), 1, 16), (128, 128),
     expect([[1, 0], [2, 0], [4, 0], [8, 0], [32, 0], [64, 0], [0, 64]],
            [[0, 1], [0, 2], [0, 4], [0, 8], [16, 0]], [[0, 16], [0, 32], [0, 0]])),
    ("WMMA_v2_2x4x1Warps_lhs", dot(wmma((2, 4, 1), 2), 0, 8), (4, 128, 32),
     expect([[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 16], [0, 64, 0], [2, 0, 0]],
            [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 0, 8]], [[0, 16, 0], [0, 32, 0], [1, 0, 0]])),
    ("WMMA_v2_2x4x1Warps_rhs", dot(wmma((2, 4, 1), 2), 1, 8), (4, 128, 32),
     expect([[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 16, 0], [0, 32, 0], [0, 64, 0], [0, 0, 16], [2, 0, 0]],
            [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 8, 0]], [[0, 0, 0], [0, 0, 0], [1, 0, 0]])),
]


@pytest.mark.parametrize("name, encoding, shape, expected", NVIDIA_DOT + AMD, ids=lambda v: v if isinstance(v, str) else None)
def test_triton_bases(name, encoding, shape, expected):
    """LinearLayoutConversionsTest.<name>."""
    assert bases(encoding, shape) == expected


@pytest.mark.parametrize("m", [16, 32])
@pytest.mark.parametrize("op_idx", [0, 1])
@pytest.mark.parametrize("shape", [(128, 128), (64, 32), (16, 16)])
def test_dot_operand_of_transposed_mfma_is_the_ordinary_one(m, op_idx, shape):
    """LinearLayoutConversionsTest.mfma{16,32}_dot_op_{lhs,rhs}_kwidth4: "Dot operand based on
    transposed mfma layout has same layout as ordinary"."""
    assert bases(dot(mfma((2, 4), m, True), op_idx, 4), shape) == bases(dot(mfma((2, 4), m), op_idx, 4), shape)


def blocked_text(spt, tpw, wpc, order, cga):
    return (f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, "
            f"order = {order}, CGALayout = {cga}}}>")


# (name, layout text with the CGA written as block bases, shape, Triton's expected bases). The
# C++ test gives CTAsPerCGA / CTASplitNum / CTAOrder; the CGALayout bases are written by hand:
# walking CTAOrder (fastest dim first), a dim with n CTAs of which s are split gets the
# bases 1, 2, .. s/2 (in CTA tiles) and then log2(n/s) zero bases.
CGA_FORMS = [
    ("CTADuplication", blocked_text([1], [4], [4], [0], [[1], [0]]), (32,),  # cpg 4, split 2
     expect([], [[1], [2]], [[4], [8]], [[16], [0]])),
    ("CTABroadcast", blocked_text([8, 1], [8, 4], [1, 4], [0, 1], [[0, 1]]), (64, 128),  # cpg [1, 2], split [1, 2]
     expect([[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]], [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]],
            [[0, 4], [0, 8]], [[0, 64]])),
    ("OneDimTooLargeAnotherTooSmall",  # cpg [2, 2], split [2, 1], CTAOrder [1, 0]
     blocked_text([1, 4], [8, 4], [4, 1], [1, 0], [[0, 0], [1, 0]]), (128, 16),
     expect([[0, 1], [0, 2], [32, 0]], [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], [[8, 0], [16, 0]],
            [[0, 0], [64, 0]])),
    ("RepeatInCTGDimFirst", blocked_text([1], [1], [4], [0], [[1]]), (4,),
     expect([], [], [[1], [0]], [[2]])),
    ("SmallerThanCTALayout", blocked_text([1], [1], [1], [0], [[1], [2]]), (2,),
     expect([], [], [], [[1], [0]])),
    ("Skinny", blocked_text([8, 1], [8, 4], [1, 4], [0, 1], [[0, 1]]), (64, 1),  # CTAOrder [0, 1]
     expect([[1, 0], [2, 0], [4, 0]], [[8, 0], [16, 0], [32, 0], [0, 0], [0, 0]], [[0, 0], [0, 0]], [[0, 0]])),
    ("BlockedOrder", blocked_text([2, 2], [4, 8], [2, 2], [1, 0], [[0, 1], [1, 0]]), (1024, 128),
     expect([[0, 1], [1, 0], [0, 32], [16, 0], [32, 0], [64, 0], [128, 0], [256, 0]],
            [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]], [[0, 16], [8, 0]], [[0, 64], [512, 0]])),
    ("MMAv2_Cga",  # cpg [4, 2, 2], split [4, 2, 1], CTAOrder [2, 1, 0]
     "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [16, 1, 1], "
     "CGALayout = [[0, 0, 0], [0, 1, 0], [1, 0, 0], [2, 0, 0]], instrShape = [1, 16, 8]}>", (64, 128, 128),
     expect([[0, 0, 1], [0, 8, 0], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64], [0, 16, 0], [0, 32, 0]],
            [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]],
            [[1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0]], [[0, 0, 0], [0, 64, 0], [16, 0, 0], [32, 0, 0]])),
]


@pytest.mark.parametrize("name, text, shape, expected", CGA_FORMS, ids=[c[0] for c in CGA_FORMS])
def test_cga_layout_form(name, text, shape, expected):
    """LinearLayoutConversionsTest.<name>, its CTA layout spelled ``CGALayout = [[...]]``."""
    assert bases(parse_layout(text), shape) == expected


def test_slice_of_blocked_in_cga_layout_form():
    """LinearLayoutConversionsTest.SliceOfBlocked (cpg [2, 2], split [2, 2], CTAOrder [1, 0])."""
    parent = parse_layout(blocked_text([2, 4], [4, 2], [2, 2], [1, 0], [[0, 1], [1, 0]]))
    assert isinstance(parent, BlockedEncoding)
    assert bases(SliceEncoding(0, parent), (128,)) == expect(
        [[1], [2], [16], [32]], [[4], [0], [0]], [[8], [0]], [[64], [0]])
    assert bases(SliceEncoding(1, parent), (128,)) == expect(
        [[1], [16], [32]], [[0], [2], [4]], [[0], [8]], [[0], [64]])
