"""nvmma_shared: Triton's unit-test bases, and the layout as a function against the
documented NVMMA / wgmma swizzle: CuTe's ``Swizzle<log2(W/16), 4, 3>`` on the byte address
inside each ``W``-byte-wide column group (16-byte chunk index XOR-ed with address bits 7..)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError, parse_layout
from layoutkit.layouts.triton.shared import NVMMASharedEncoding


def cute_swizzle(address: int, bits: int, base: int = 4, shift: int = 3) -> int:
    """CuTe ``Swizzle<B, M, S>``: XOR bits [M, M+B) with bits [M+S, M+S+B)."""
    mask = ((1 << bits) - 1) << (base + shift)
    return address ^ ((address & mask) >> shift)


def nvmma_offset(outer: int, inner: int, outer_size: int, width: int, element_bits: int) -> int:
    """Element offset of (outer, inner), ``inner`` the contiguous dim: column groups of one
    ``width``-byte row each, all rows of a group before the next group, bytes swizzled."""
    if width == 0:
        raise AssertionError("unswizzled layouts are checked separately")
    group_elems = 8 * width // element_bits
    group, col = divmod(inner, group_elems)
    byte = (outer * group_elems + col) * element_bits // 8
    swizzled = cute_swizzle(byte, (width // 16).bit_length() - 1)
    return group * outer_size * group_elems + swizzled * 8 // element_bits


@settings(max_examples=40, deadline=None)
@given(
    width=st.sampled_from([32, 64, 128]),
    element_bits=st.sampled_from([8, 16, 32]),
    transposed=st.booleans(),
    outer_log=st.integers(3, 6),
    groups=st.sampled_from([1, 2, 4]),
)
def test_2d_matches_the_documented_swizzle(width, element_bits, transposed, outer_log, groups):
    group_elems = 8 * width // element_bits
    inner_size = group_elems * groups
    outer_size = 1 << outer_log
    if inner_size > 256:
        return  # TMA boxes stop at 256; covered by the unit-test pins
    shape = (inner_size, outer_size) if transposed else (outer_size, inner_size)
    enc = NVMMASharedEncoding(width, transposed, element_bits)
    table = enc.table(shape)
    assert table.shape == (outer_size * inner_size, 1, 2)
    for outer, inner in itertools.product(range(outer_size), range(inner_size)):
        offset = nvmma_offset(outer, inner, outer_size, width, element_bits)
        expected = (inner, outer) if transposed else (outer, inner)
        assert tuple(table[offset, 0]) == expected


@pytest.mark.parametrize("shape", [(4, 8), (16, 64), (2, 4, 8), (256, 128)])
def test_no_swizzle_is_row_major(shape):
    table = NVMMASharedEncoding(0, False, 16).table(shape)
    for index in itertools.product(*(range(s) for s in shape)):
        offset = 0
        for i, s in zip(index, shape):
            offset = offset * s + i
        assert tuple(table[offset, 0]) == index


# -- Triton's LinearLayoutConversionsTest (LeadingOffset_*, MMAv5Fp4Padded) ---------------
@pytest.mark.parametrize(
    "params, shape, offset_bases",
    [
        ((32, False, 16), (8, 16), [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8]]),
        ((32, False, 16), (128, 16),
         [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8], [8, 0], [16, 0], [32, 0], [64, 0]]),
        ((64, False, 16), (8, 32), [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 8], [4, 16]]),
        ((128, False, 16), (8, 64),
         [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]]),
        ((128, False, 32), (8, 64),
         [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [0, 32]]),
        ((128, True, 32), (128, 128),
         [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [4, 1], [8, 2], [16, 4], [0, 8], [0, 16],
          [0, 32], [0, 64], [32, 0], [64, 0]]),
        ((64, False, 32), (32, 4, 64),
         [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 1, 0], [0, 2, 4], [1, 0, 8], [2, 0, 0],
          [4, 0, 0], [8, 0, 0], [16, 0, 0], [0, 0, 16], [0, 0, 32]]),
        ((64, True, 32), (64, 4, 32),
         [[1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0], [0, 0, 4], [4, 0, 8], [8, 0, 16], [0, 1, 0],
          [0, 2, 0], [0, 0, 1], [0, 0, 2], [16, 0, 0], [32, 0, 0]]),
        ((128, False, 8, True), (32, 64),
         [[0, 1], [0, 2], [0, 4], [0, 0], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32],
          [8, 0], [16, 0]]),
    ],
)
def test_triton_unit_test_bases(params, shape, offset_bases):
    ll = NVMMASharedEncoding(*params).to_linear_layout(shape)
    assert ll.bases["offset"] == offset_bases
    assert list(ll.out_dims.values()) == list(shape)


def test_issue_text_and_derived_parameters():
    enc = parse_layout("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>")
    assert (enc.vec, enc.per_phase, enc.max_phase, enc.alignment) == (8, 1, 8, 1024)
    assert enc.kind == "memory"
    assert enc.hardware_dims((64, 64)) == {"offset": 4096, "block": 1}


def test_two_ctas_split_rows():
    enc = parse_layout(
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, "
        "CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>"
    )
    table = enc.table((16, 64))
    for r, c in itertools.product(range(16), range(64)):
        block, local = divmod(r, 8)
        assert tuple(table[nvmma_offset(local, c, 8, 128, 16), block]) == (r, c)


@pytest.mark.parametrize(
    "text",
    [
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8, fp4Padded = true}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 32, rank = 3}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16, CGALayout = [[1, 0]]}>",
    ],
)
def test_prints_back(text):
    enc = parse_layout(text)
    assert str(enc) == text
    assert parse_layout(str(enc)) == enc


@pytest.mark.parametrize(
    "text, field",
    [
        ("#ttg.nvmma_shared<{swizzlingByteWidth = 96, transposed = false, elementBitWidth = 16}>", "swizzlingByteWidth"),
        ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = 1, elementBitWidth = 16}>", "transposed"),
        ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 12}>", "elementBitWidth"),
        ("#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false}>", "elementBitWidth"),
    ],
)
def test_bad_fields_name_the_field(text, field):
    with pytest.raises(LayoutError, match=f"^{field}:"):
        parse_layout(text)


@pytest.mark.parametrize("shape", [(8, 32), (4, 64), (64,)])
def test_shapes_smaller_than_a_swizzle_tile_are_errors(shape):
    enc = NVMMASharedEncoding(128, False, 16)
    with pytest.raises(LayoutError, match="^shape:"):
        enc.to_linear_layout(shape)


@pytest.mark.parametrize("width", [0, 32, 64, 128])
@pytest.mark.parametrize("bits", [8, 16, 32])
@pytest.mark.parametrize("shape", [(64, 128), (128, 64), (256, 32), (32, 256), (128, 128)])
def test_transposed_is_the_mirror_image(width, bits, shape):
    """Issue 10 item 2: ``transposed = true`` puts dim 0 innermost, for every swizzle width:
    the layout on (a, b) is the untransposed one on (b, a) with the two coordinates swapped."""
    a, b = shape
    if width and a < 8 * width // bits:  # one swizzle row is longer than the contiguous dim
        for enc, dims in ((NVMMASharedEncoding(width, True, bits), (a, b)),
                          (NVMMASharedEncoding(width, False, bits), (b, a))):
            with pytest.raises(LayoutError, match="needs at least"):
                enc.to_linear_layout(dims)
        return
    transposed = NVMMASharedEncoding(width, True, bits).to_linear_layout((a, b)).bases["offset"]
    plain = NVMMASharedEncoding(width, False, bits).to_linear_layout((b, a)).bases["offset"]
    assert transposed == [[col, row] for row, col in plain]
    assert transposed[0] == [1, 0]  # offset 1 is the next element along dim 0


def test_unswizzled_transposed_is_column_major():
    """swizzlingByteWidth = 0, transposed: offsets walk dim 0 first (Triton 3.9)."""
    enc = parse_layout("#ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = true, elementBitWidth = 16}>")
    assert enc.to_linear_layout((16, 32)).bases["offset"] == [
        [1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]
