"""The CGA layout: legacy CTAsPerCGA / CTASplitNum / CTAOrder against the definition (block
id digits over CTAOrder; a CTA holds piece ``digit mod CTASplitNum``), the current
``CGALayout = [[...]]`` form, and their equality."""

from __future__ import annotations

import itertools
import math

import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.core.text import parse_attribute
from layoutkit.layouts.triton.cga import CGALayout
from layoutkit.layouts.triton.common import Fields

CASES = [
    ([1, 1], [1, 1], [1, 0]),
    ([2, 2], [2, 1], [1, 0]),
    ([4, 2], [2, 2], [0, 1]),
    ([1, 4], [1, 4], [1, 0]),
    ([4, 2, 2], [4, 2, 1], [2, 1, 0]),
    ([8], [2], [0]),
]


def piece_of_block(block, ctas, split, order):
    digits = [0] * len(ctas)
    for d in order:
        digits[d], block = block % ctas[d], block // ctas[d]
    return [digit % s for digit, s in zip(digits, split)]


@pytest.mark.parametrize("ctas, split, order", CASES)
def test_legacy_fields_match_definition(ctas, split, order):
    cga = CGALayout.from_split_params(ctas, split, order)
    assert cga.num_ctas == math.prod(ctas)
    layout = cga.to_linear_layout()
    for block in range(cga.num_ctas):
        got = layout.apply(block=block)
        assert [got[f"dim{d}"] for d in range(len(ctas))] == piece_of_block(block, ctas, split, order)
    assert cga.cta_split_num == tuple(split)


def test_split_param_accessors_follow_triton():
    # no broadcast before the first split: Triton's getCTAsPerCGA gives the fields back
    cga = CGALayout.from_split_params([4, 2], [4, 2], [0, 1])
    assert (cga.ctas_per_cga, cga.cta_split_num, cga.cta_order) == ((4, 2), (4, 2), (0, 1))
    # Triton's basesPerDim counts a leading broadcast block bit towards dim 0
    cga = CGALayout.from_split_params([2, 2], [2, 1], [1, 0])
    assert cga.bases == ((0, 0), (1, 0))
    assert cga.ctas_per_cga == (4, 1) and cga.cta_split_num == (2, 1) and cga.cta_order == (0, 1)


def test_both_spellings_are_equal():
    legacy = layoutkit.parse_layout(
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1], "
        "CTAsPerCGA = [4, 2], CTASplitNum = [4, 1], CTAOrder = [1, 0]}>")
    current = layoutkit.parse_layout(
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1], "
        "CGALayout = [[0, 0], [1, 0], [2, 0]]}>")
    assert legacy == current
    assert legacy.to_linear_layout((256, 8)) == current.to_linear_layout((256, 8))
    # dim 1 (fastest) has 2 CTAs and no split -> broadcast; dim 0 is split in 4 pieces of 64 rows
    assert legacy.to_linear_layout((256, 8)).bases["block"] == [[0, 0], [64, 0], [128, 0]]


def test_default_prints_nothing():
    assert CGALayout.default(2).field_text() == ""
    assert CGALayout.from_split_params([1, 1], [1, 1], [0, 1]).is_default


def test_blocks_repeat_the_cta_layout():
    """Block b's elements are block 0's shifted by its piece times the CTA's share."""
    enc = layoutkit.parse_layout(
        "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0], "
        "CTAsPerCGA = [2, 2], CTASplitNum = [2, 2], CTAOrder = [1, 0]}>")
    shape = (32, 64)
    table = enc.table(shape)
    for block in range(4):
        piece = piece_of_block(block, [2, 2], [2, 2], [1, 0])
        for r, lane, warp in itertools.product(range(table.shape[0]), range(32), range(2)):
            base = table[r, lane, warp, 0]
            assert list(table[r, lane, warp, block]) == [base[0] + 16 * piece[0], base[1] + 32 * piece[1]]


@pytest.mark.parametrize(
    "text, field",
    [
        ("#ttg.blocked<{CTAsPerCGA = [2, 2], CTASplitNum = [4, 1], CTAOrder = [1, 0]}>", "CTASplitNum"),
        ("#ttg.blocked<{CTAsPerCGA = [2, 3], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>", "CTAsPerCGA"),
        ("#ttg.blocked<{CTAsPerCGA = [2, 2], CTASplitNum = [1, 1], CTAOrder = [0, 0]}>", "CTAOrder"),
        ("#ttg.blocked<{CTAsPerCGA = [2, 2], CTAOrder = [1, 0]}>", "CTASplitNum"),
        ("#ttg.blocked<{CGALayout = [[0, 3]]}>", "CGALayout"),
        ("#ttg.blocked<{CGALayout = [[1, 1]]}>", "CGALayout"),
        ("#ttg.blocked<{CGALayout = [[1]]}>", "CGALayout"),
        ("#ttg.blocked<{CGALayout = 4}>", "CGALayout"),
        ("#ttg.blocked<{CGALayout = [[1, 0]], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
         "CTAsPerCGA"),
    ],
)
def test_bad_fields_name_the_field(text, field):
    with pytest.raises(LayoutError) as info:
        CGALayout.from_fields(Fields(parse_attribute(text), "blocked"), 2)
    assert field in str(info.value)


@pytest.mark.parametrize("module", ["common", "cga", "blocked", "mma", "amd", "linear"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"layoutkit.layouts.triton.{module}"))
    assert result.attempted > 0 and result.failed == 0
