"""shared_linear (bases given directly) and padded_shared (a linear component plus padding,
not linear over F2): parsing both spellings, the map as a function, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from layoutkit import LayoutError, parse_layout
from layoutkit.layouts.triton.shared import PaddedSharedEncoding, SharedLinearEncoding


def apply_bases(bases, index):
    """XOR of the bases of the set bits of ``index`` (the definition of a linear layout)."""
    out = [0] * len(bases[0])
    for i, basis in enumerate(bases):
        if index >> i & 1:
            out = [a ^ b for a, b in zip(out, basis)]
    return tuple(out)


# -- shared_linear ------------------------------------------------------------------------
TRITON_TEXT = "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 2], [2, 0], [4, 0]]}, alignment = 16>"


def test_triton_spelling_and_the_brief_spelling_agree():
    a = parse_layout(TRITON_TEXT)
    b = parse_layout(
        "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 2], [2, 0], [4, 0]], block = [], alignment = 16}>"
    )
    assert a == b
    assert str(a) == TRITON_TEXT
    assert parse_layout(str(a)) == a
    assert a.alignment == 16 and a.kind == "memory"


def test_shared_linear_is_the_linear_map_of_its_bases():
    bases = [[0, 1], [0, 2], [1, 2], [2, 0], [4, 0]]
    enc = parse_layout(TRITON_TEXT)
    assert enc.tensor_shape() == (8, 4)
    table = enc.table()
    for offset in range(32):
        assert tuple(table[offset, 0]) == apply_bases(bases, offset)
    assert enc.to_linear_layout((8, 4)).bases["offset"] == bases


def test_shared_linear_with_blocks_prints_them():
    text = "#ttg.shared_linear<{offset = [[0, 1], [1, 0]], block = [[2, 0], [0, 0]]}, alignment = 128>"
    enc = parse_layout(text)
    assert str(enc) == text
    table = enc.table()
    assert tuple(table[3, 1]) == (3, 1) and tuple(table[3, 2]) == (1, 1)


@pytest.mark.parametrize(
    "text, field",
    [
        ("#ttg.shared_linear<{offset = [[0, 1], [0, 1]]}, alignment = 16>", "offset"),  # not injective
        ("#ttg.shared_linear<{offset = [[0, 2]]}, alignment = 16>", "offset"),  # not surjective
        ("#ttg.shared_linear<{offset = [[0, 1], [1]]}, alignment = 16>", "offset"),
        ("#ttg.shared_linear<{offset = [[0, 1]]}>", "alignment"),
        ("#ttg.shared_linear<{offset = [[0, 1]]}, alignment = 16, alignment = 8>", "layout text"),
    ],
)
def test_shared_linear_errors(text, field):
    with pytest.raises(LayoutError) as err:
        parse_layout(text)
    assert str(err.value).startswith(field) or "given twice" in str(err.value)


def test_shared_linear_shape_is_fixed():
    with pytest.raises(LayoutError, match="^shape:"):
        SharedLinearEncoding.from_bases([[0, 1], [1, 0]]).to_linear_layout((4, 4))


# -- padded_shared ------------------------------------------------------------------------
def padded_position(index: int, pairs) -> int:
    """Triton's doc: element ``i`` sits at ``i + sum_k (i // interval_k) * pad_k``."""
    return index + sum((index // interval) * pad for interval, pad in pairs)


@pytest.mark.parametrize(
    "text, pairs, component",
    [
        # the examples of Triton's PaddedSharedEncodingAttr description
        ("#ttg.padded_shared<[2:+2] {offset = [[2], [1]], block = []}>", [(2, 2)], [[2], [1]]),
        ("#ttg.padded_shared<[2:+1, 4:+2] {order = [0], shape = [16]}>", [(2, 1), (4, 2)], [[1], [2], [4], [8]]),
        ("#ttg.padded_shared<[16:+1] {offset = [[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]], block = []}>",
         [(16, 1)], [[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]]),
        ("#ttg.padded_shared<[4:+4] {order = [1, 0], shape = [4, 8]}>", [(4, 4)],
         [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]),
    ],
)
def test_padded_offsets_against_the_definition(text, pairs, component):
    enc = parse_layout(text)
    n = 1 << len(component)
    size = enc.hardware_dims()["offset"]
    assert size == padded_position(n - 1, pairs) + 1  # no padding after the last element
    table = enc.table()
    assert table.shape[:2] == (size, 1)
    real = set()
    for index in range(n):
        position = padded_position(index, pairs)
        real.add(position)
        assert tuple(table[position, 0]) == apply_bases(component, index)
    for position in set(range(size)) - real:
        assert np.all(table[position, 0] == -1)


def test_padded_seed_style_rows():
    # 8x16 row-major with one pad after every row (the classic bank-conflict fix)
    enc = PaddedSharedEncoding.from_order([(16, 1)], (1, 0), (8, 16))
    table = enc.table()
    for r, c in itertools.product(range(8), range(16)):
        assert tuple(table[r * 17 + c, 0]) == (r, c)
    assert all(np.all(table[r * 17 + 16, 0] == -1) for r in range(7))


def test_padded_is_not_linear():
    enc = parse_layout("#ttg.padded_shared<[4:+1] {order = [1, 0], shape = [4, 4]}>")
    with pytest.raises(LayoutError, match="non-linear over F2"):
        enc.to_linear_layout()
    assert enc.linear_component.bases["offset"] == [[0, 1], [0, 2], [1, 0], [2, 0]]


@pytest.mark.parametrize(
    "text",
    [
        "#ttg.padded_shared<[4:+1] {order = [1, 0], shape = [4, 4]}>",
        "#ttg.padded_shared<[2:+1, 4:+2] {order = [0, 1], shape = [8, 2]}>",
        "#ttg.padded_shared<[2:+2] {offset = [[2], [1]], block = []}>",
    ],
)
def test_padded_prints_back(text):
    enc = parse_layout(text)
    assert str(enc) == text
    assert parse_layout(str(enc)) == enc


@pytest.mark.parametrize(
    "text, field",
    [
        ("#ttg.padded_shared<[3:+1] {order = [1, 0], shape = [4, 4]}>", "intervals"),
        ("#ttg.padded_shared<[4:+1, 4:+2] {order = [1, 0], shape = [4, 4]}>", "intervals"),
        ("#ttg.padded_shared<[4:+1] {order = [1, 0], shape = [4, 3]}>", "shape"),
        ("#ttg.padded_shared<[4:+1] {order = [1, 0]}>", "shape"),
        ("#ttg.padded_shared<[4:+1] {offset = [[1, 1], [0, 2]], block = []}>", "offset"),
        ("#ttg.padded_shared<[4:+1] {offset = [[0, 1], [0, 1]], block = []}>", "offset"),
        ("#ttg.padded_shared<{order = [1, 0], shape = [4, 4]}>", "padded_shared"),
    ],
)
def test_padded_errors(text, field):
    with pytest.raises(LayoutError, match=f"^{field}"):
        parse_layout(text)


# -- fuzz: every mutated shared-encoding text gives a layout or a LayoutError -------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SEEDS = [
    TRITON_TEXT,
    "#ttg.padded_shared<[2:+1, 4:+2] {order = [1, 0], shape = [8, 2]}>",
    "#ttg.padded_shared<[16:+1] {offset = [[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]], block = []}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    "#triton_gpu.shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1,0], hasLeadingOffset = false}>",
]
PIECES = list("[]{}<>,:=+-#0123456789 ") + ["[[", "]]", "true", "block", "offset", "order", "shape", "vec"]


@settings(max_examples=300, deadline=None)
@given(
    seed=st.sampled_from(SEEDS),
    edits=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 3), st.sampled_from(PIECES)), max_size=4),
)
def test_mutated_text_gives_a_layout_or_a_layout_error(seed, edits):
    text = seed
    for position, cut, piece in edits:
        position %= len(text) + 1
        text = text[:position] + piece + text[position + cut:]
    try:
        layout = parse_layout(text)
    except LayoutError:
        return
    assert parse_layout(str(layout)) == layout
