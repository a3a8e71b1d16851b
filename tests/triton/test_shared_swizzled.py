"""swizzled_shared: Triton's unit-test bases, and the layout as a function against the
swizzle definition (seed 004: column groups of ``vec`` XOR-ed with the row's phase)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError, parse_layout
from layoutkit.layouts.triton.shared import SwizzledSharedEncoding


def swizzled_offset(index, shape, vec, per_phase, max_phase, order):
    """Offset of element ``index`` straight from the definition: the two fastest dims are
    (row, col); col's group ``col // vec`` is XOR-ed with ``(row // perPhase) % maxPhase``
    (wrapping within the row); the other dims are stacked above in ``order``."""
    col_dim = order[0]
    cols = shape[col_dim]
    col = index[col_dim]
    stride = cols
    offset = 0
    if len(shape) > 1:
        row_dim = order[1]
        row = index[row_dim]
        phase = (row // per_phase) % max_phase
        groups = max(1, cols // vec)
        if vec <= cols:
            col = (((col // vec) ^ phase) % groups) * vec + col % vec
        offset = row * cols
        stride = cols * shape[row_dim]
    offset += col
    for dim in order[2:]:
        offset += index[dim] * stride
        stride *= shape[dim]
    return offset


def check_against_definition(enc: SwizzledSharedEncoding, shape):
    table = enc.table(shape)  # (offsets, blocks, rank)
    assert table.shape[:2] == (int(np.prod(shape)), 1)
    for index in itertools.product(*(range(s) for s in shape)):
        offset = swizzled_offset(index, shape, enc.vec, enc.per_phase, enc.max_phase, enc.order)
        assert tuple(table[offset, 0]) == index, (index, offset)


# -- Triton's LinearLayoutConversionsTest ------------------------------------------------
@pytest.mark.parametrize(
    "params, shape, offset_bases",
    [
        ((2, 1, 4, (1, 0)), (4, 8), [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]]),
        ((1, 1, 4, (1, 0)), (32, 32),
         [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 1], [2, 2], [4, 0], [8, 0], [16, 0]]),
        ((1, 2, 4, (1, 0)), (32, 32),
         [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 1], [4, 2], [8, 0], [16, 0]]),
        ((2, 2, 4, (1, 0)), (32, 32),
         [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 2], [4, 4], [8, 0], [16, 0]]),
        ((1, 1, 4, (0, 1)), (4, 8), [[1, 0], [2, 0], [1, 1], [2, 2], [0, 4]]),
        ((2, 2, 4, (1, 0)), (64, 1), [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]),
        ((2, 2, 4, (3, 2, 1, 0)), (2, 4, 32, 32),
         [[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 4], [0, 0, 0, 8], [0, 0, 0, 16], [0, 0, 1, 0],
          [0, 0, 2, 2], [0, 0, 4, 4], [0, 0, 8, 0], [0, 0, 16, 0], [0, 1, 0, 0], [0, 2, 0, 0],
          [1, 0, 0, 0]]),
        ((1, 1, 1, (0,)), (1024,), [[1 << i] for i in range(10)]),
    ],
)
def test_triton_unit_test_bases(params, shape, offset_bases):
    ll = SwizzledSharedEncoding(*params).to_linear_layout(shape)
    assert ll.bases["offset"] == offset_bases
    assert ll.bases["block"] == []
    assert list(ll.out_dims.values()) == list(shape)


def test_issue_pin_through_the_parser():
    enc = parse_layout("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>")
    assert enc.to_linear_layout((4, 8)).bases["offset"] == [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]]
    assert enc.kind == "memory"
    assert enc.hardware_dims((4, 8)) == {"offset": 32, "block": 1}


# -- as a function ----------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    vec=st.sampled_from([1, 2, 4, 8]),
    per_phase=st.sampled_from([1, 2, 4]),
    max_phase=st.sampled_from([1, 2, 4, 8]),
    rows=st.sampled_from([1, 2, 4, 8, 16, 32]),
    cols=st.sampled_from([1, 2, 4, 8, 16, 32]),
    transposed=st.booleans(),
)
def test_2d_matches_the_swizzle_definition(vec, per_phase, max_phase, rows, cols, transposed):
    order = (0, 1) if transposed else (1, 0)
    shape = (cols, rows) if transposed else (rows, cols)
    check_against_definition(SwizzledSharedEncoding(vec, per_phase, max_phase, order), shape)


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_3d_matches_the_swizzle_definition(order):
    check_against_definition(SwizzledSharedEncoding(2, 1, 4, order), (4, 8, 2))


def test_every_offset_holds_one_element():
    table = SwizzledSharedEncoding(4, 2, 8, (1, 0)).table((64, 64))
    flat = table[:, 0, 0] * 64 + table[:, 0, 1]
    assert sorted(flat.tolist()) == list(range(64 * 64))


# -- seed 004's 4x4 examples (out[r][c] = in[r][...]) --------------------------------------
SEED_EXAMPLES = {
    (1, 1, 4): lambda r, c: c ^ r,
    (1, 2, 4): lambda r, c: c ^ (r // 2),
    (1, 1, 2): lambda r, c: c ^ (r % 2),
    (2, 1, 4): lambda r, c: (((c // 2) ^ r) * 2 + c % 2) % 4,
    # the seed's formula line says ``r % 2`` but its printed grid (rows 0, 1 unswizzled,
    # rows 2, 3 swizzled by one group) is ``r // 2``, which is perPhase = 2
    (2, 2, 4): lambda r, c: (((c // 2) ^ (r // 2)) * 2 + c % 2) % 4,
}


@pytest.mark.parametrize("params", list(SEED_EXAMPLES))
def test_seed_004_examples(params):
    vec, per_phase, max_phase = params
    text = f"#shared = #triton_gpu.shared<{{vec={vec}, perPhase={per_phase}, maxPhase={max_phase}, order=[1,0]}}>"
    enc = parse_layout("#shared", aliases=text)
    table = enc.table((4, 4))
    for r in range(4):
        for c in range(4):
            assert tuple(table[4 * r + c, 0]) == (r, SEED_EXAMPLES[params](r, c))


# -- CTAs -------------------------------------------------------------------------------
def test_cga_split_rows_over_two_ctas():
    enc = parse_layout(
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CGALayout = [[1, 0]]}>"
    )
    shape = (16, 64)
    table = enc.table(shape)  # (offset, block, rank)
    assert table.shape == (8 * 64, 2, 2)
    for r, c in itertools.product(range(16), range(64)):
        block, local = divmod(r, 8)
        offset = swizzled_offset((local, c), (8, 64), 8, 1, 8, (1, 0))
        assert tuple(table[offset, block]) == (r, c)


def test_legacy_cta_fields_broadcast():
    enc = parse_layout(
        "#triton_gpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], CTAsPerCGA = [1, 2], "
        "CTASplitNum = [1, 1], CTAOrder = [1, 0], hasLeadingOffset = false}>"
    )
    table = enc.table((4, 4))
    assert np.array_equal(table[:, 0], table[:, 1])  # both CTAs hold the whole tensor


# -- text --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
        "#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], CGALayout = [[0, 1], [1, 0]]}>",
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 0, 1]}>",
    ],
)
def test_prints_back(text):
    enc = parse_layout(text)
    assert str(enc) == text
    assert parse_layout(str(enc)) == enc


def test_legacy_spelling_reads_as_swizzled_shared():
    legacy = parse_layout(
        "#triton_gpu.shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1,0], hasLeadingOffset = false}>"
    )
    assert legacy == SwizzledSharedEncoding(2, 1, 4, (1, 0))
    assert str(legacy) == "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>"


@pytest.mark.parametrize(
    "text, field",
    [
        ("#triton_gpu.shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], hasLeadingOffset = true}>", "hasLeadingOffset"),
        ("#ttg.swizzled_shared<{vec = 3, perPhase = 1, maxPhase = 4, order = [1, 0]}>", "vec"),
        ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 1]}>", "order"),
        ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, order = [1, 0]}>", "maxPhase"),
        ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], swizzle = 1}>", "swizzle"),
        ("#ttg.swizzled_shared<{vec = 2, perPhase = 0, maxPhase = 4, order = [1, 0]}>", "perPhase"),
    ],
)
def test_bad_fields_name_the_field(text, field):
    with pytest.raises(LayoutError, match=f"^{field}:"):
        parse_layout(text)


@pytest.mark.parametrize("shape, message", [((4, 6), "power-of-two"), ((4, 4, 4), "rank")])
def test_bad_shapes(shape, message):
    enc = SwizzledSharedEncoding(1, 1, 1, (1, 0))
    with pytest.raises(LayoutError, match=message):
        enc.to_linear_layout(shape)
