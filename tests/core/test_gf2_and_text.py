"""GF(2) elimination against brute-force subset enumeration; the shared attribute reader."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError
from layoutkit.core import gf2
from layoutkit.core.text import parse_aliases, parse_attribute

columns_st = st.lists(st.integers(0, 31), max_size=7)


def span_of(columns):
    """Every XOR of a subset, with the subset masks that give it."""
    result: dict[int, list[int]] = {}
    for mask in range(1 << len(columns)):
        v = 0
        for j, c in enumerate(columns):
            if mask >> j & 1:
                v ^= c
        result.setdefault(v, []).append(mask)
    return result


@settings(max_examples=150, deadline=None)
@given(columns_st, st.integers(0, 31))
def test_solve_rank_pivots_null_space_by_enumeration(columns, target):
    span = span_of(columns)
    assert gf2.rank(columns) == len(span).bit_length() - 1
    pivots = gf2.pivot_columns(columns)
    for j, c in enumerate(columns):
        assert (j in pivots) == (c not in span_of(columns[:j]))
    (x,) = gf2.solve(columns, [target])
    if target not in span:
        assert x is None
    else:
        assert x in span[target]
        assert all(j in pivots for j in range(len(columns)) if x >> j & 1)  # free vars zero
    null = gf2.null_space(columns)
    assert len(null) == len(columns) - gf2.rank(columns)
    assert set(span[0]) == {0} | {m for r in range(1, len(null) + 1) for combo in itertools.combinations(null, r)
                                  for m in [__import__("functools").reduce(int.__xor__, combo)]}


def test_transpose():
    assert gf2.transpose([0b01, 0b11], 2) == [0b11, 0b10]


def test_attribute_reader_nested_and_aliases():
    attr = parse_attribute("#ttg.slice<{dim = 1, parent = #ttg.blocked<{order = [1, 0]}>}>")
    assert attr.name == "ttg.slice" and attr.params["dim"] == 1
    assert attr.params["parent"].params == {"order": [1, 0]}
    aliases = parse_aliases("#mma = #ttg.nvidia_mma<{versionMajor = 2, flag = true}>\nfoo\n"
                            "#dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>")
    assert aliases["dot"].params["parent"].params == {"versionMajor": 2, "flag": True}


@pytest.mark.parametrize("text", ["#ttg.blocked<{a = [1, }>", "#ttg.x<{a = 1, a = 2}>", "#a<{b = 1}> tail",
                                  "#a<{b = %}>", "blocked", "#a<{b 1}>", ""])
def test_attribute_reader_errors_quote_the_text(text):
    with pytest.raises(LayoutError) as info:
        parse_attribute(text)
    assert "'" in str(info.value)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="#<>{}[](),=: abt_.01-\"", max_size=40))
def test_attribute_reader_fuzz(text):
    try:
        parse_attribute(text)
    except LayoutError:
        pass


@pytest.mark.parametrize("text", [
    "#iree_vector_ext.nested_layout<subgroup_tile = " + "[" * 3000 + "]" * 3000 + ">",
    "#ttg.slice<{dim = 0, parent = " * 2000 + "#ttg.blocked<{}>" + "}>" * 2000,
])
def test_deep_nesting_is_a_layout_error_for_every_family(text):
    from layoutkit import parse_layout

    with pytest.raises(LayoutError, match="nested more than 64 levels deep"):
        parse_layout(text)
