"""Malformed and hostile input to the CuTe algebra and thread-value layouts: huge shapes
(``(1000000000,1000000000)``), bad index arrays, garbage text -- each a quick LayoutError
naming the field and quoting the text, never a hang, a MemoryError or another exception.
Large layouts keep working where no enumeration is needed, checked here against a direct
evaluation of ``sum(coord * stride)``. The CLI (`show` / `render` with CuTe text) is in
tests/render/test_render_bad_input.py."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from cute_reference import offset_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layout_errors import raises

import layoutkit
from layoutkit import LayoutError, cute

HUGE = "(1000000000,1000000000):(1,1000000000)"
HUGE_T = "(1000000000,1000000000):(1000000000,1)"




# ------------------------------------------------------------------------------------------
# huge layouts: enumeration refused, analytic operations still right
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, fragments", [
    (lambda: cute.Layout.parse(HUGE).offsets, ["size: ", f"'{HUGE}'", "2**24"]),
    (lambda: cute.Layout.parse("(1000000000,1000000000):(1,1)").is_injective(), ["size: ", "too many"]),
    (lambda: cute.parse("Sw<3,4,3> o 0 o " + HUGE).offsets, ["size: ", f"'{HUGE}'"]),
    (lambda: cute.parse("Sw<3,4,3> o 0 o " + HUGE).is_injective(), ["size: ", f"'{HUGE}'"]),
    (lambda: layoutkit.parse_layout(HUGE + " over 1000000000x1000000000").table(), ["hardware dims: ", "register=1000000000"]),
    (lambda: layoutkit.parse_layout(HUGE + " over 1000000000x1000000000").owners((1, 2)), ["hardware dims: "]),
    (lambda: layoutkit.parse_layout("(1073741824,1073741824):(1,1073741824) over 1073741824x1073741824")
     .to_linear_layout(), ["hardware dims: "]),
    (lambda: cute.logical_product(HUGE, HUGE).evaluate([1]), ["shape: ", "too large to evaluate"]),
    (lambda: cute.tiled_product("(2,2):(1,2)", "(1000000000000,1000000000000)"), ["shape: ", "too large"]),
    (lambda: cute.parse("99999999999999999999999999999"), ["shape: ", "'99999999999999999999999999999'"]),
    (lambda: layoutkit.parse_layout("(32,4):(1,32) over 99999999999999999999999x4"),
     ["tensor shape: ", "'99999999999999999999999x4'"]),
    (lambda: cute.composition("(3,600000000):(1,7)", "(5,100000000):(1,5)"), ["composition: "]),
])
def test_huge_layouts_fail_fast(call, fragments):
    raises(fragments, call)


def test_huge_layouts_work_where_nothing_is_enumerated():
    layout = cute.Layout.parse(HUGE_T)
    assert layout.is_injective() and cute.Layout.parse(HUGE).is_injective()
    inverse = cute.left_inverse(layout)
    right = cute.right_inverse(layout)
    rng = np.random.default_rng(0)
    for index in rng.integers(0, 10**18, 20).tolist():
        offset = offset_of((10**9, 10**9), (10**9, 1), index)
        assert inverse(offset) == index
        assert layout(right(index)) == index
    # a thread-value layout over a huge tensor still applies, element by element
    tv = layoutkit.parse_layout(HUGE + " over 1000000000x1000000000")
    got = tv.apply(register=3, lane=4, warp=5)
    index = offset_of((10**9, 10**9), (1, 10**9), 4 + 32 * 5 + 10**9 * 3)
    assert (int(got["dim0"]), int(got["dim1"])) == (index % 10**9, index // 10**9)


@st.composite
def small_layouts(draw):
    rank = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    stride = draw(st.lists(st.integers(-12, 12), min_size=rank, max_size=rank))
    return shape, stride


@settings(max_examples=200, deadline=None)
@given(small_layouts())
def test_is_injective_against_enumeration(layout_modes):
    shape, stride = layout_modes
    layout = cute.Layout(tuple(shape), tuple(stride))
    offsets = [sum(c * d for c, d in zip(coord, stride))
               for coord in itertools.product(*(range(s) for s in shape))]
    assert layout.is_injective() == (len(set(offsets)) == len(offsets))


# ------------------------------------------------------------------------------------------
# bad arguments
# ------------------------------------------------------------------------------------------
L23 = cute.Layout.parse("(2,3):(1,2)")
TV = layoutkit.parse_layout("(32,4):(1,32) over 32x4")


@pytest.mark.parametrize("call, fragments", [
    (lambda: L23.evaluate("abc"), ["indices: ", "'abc'"]),
    (lambda: L23.evaluate(1.5), ["indices: ", "'1.5'"]),
    (lambda: L23.evaluate([1, None]), ["indices: ", "None"]),
    (lambda: L23.evaluate(2**70), ["indices: ", str(2**70)]),
    (lambda: L23(-1), ["coordinate: ", "-1"]),
    (lambda: L23("x"), ["coordinate: ", "'x'"]),
    (lambda: L23["a"], ["mode: ", "'a'"]),
    (lambda: cute.composition("abc", "def"), ["layout: ", "'abc'"]),
    (lambda: cute.composition(None, 3), ["layout: ", "'None'"]),
    (lambda: cute.logical_divide(L23, "<2, 3, 4>"), ["logical_divide: ", "3 modes"]),
    (lambda: cute.logical_divide(L23, 0), ["shape: ", "'0'"]),
    (lambda: cute.complement(L23, "x"), ["complement cotarget: ", "'x'"]),
    (lambda: cute.complement("(2,3):(-1,2)"), ["complement: ", "'(2,3):(-1,2)'"]),
    (lambda: cute.left_inverse("(2,3):(1,1)"), ["left_inverse: ", "'(2,3):(1,1)'"]),
    (lambda: cute.Swizzle(3.0, 4, 3), ["swizzle bits: ", "'3.0'"]),
    (lambda: cute.coalesce(L23, "xx"), ["coalesce profile: ", "'xx'"]),
    (lambda: cute.filter(L23, [1, 1]), ["filter profile: ", "[1, 1]"]),
    (lambda: cute.parse(None), ["layout text: ", "'None'"]),
    (lambda: cute.parse("(2,3):(1,2)\x00"), ["layout text: "]),
    (lambda: cute.parse("(" * 5000), ["layout: ", "nested deeper"]),
    (lambda: cute.parse("(２,３):(1,2"), ["layout text: ", "unexpected character", "２"]),
    (lambda: TV.apply(register=1.5), ["apply: register", "'1.5'"]),
    (lambda: TV.apply(register="a"), ["apply: register", "'a'"]),
    (lambda: TV.apply(register=9), ["apply: register", "'9'"]),
    (lambda: TV.apply(thread=1), ["apply: ", "'thread'"]),
    (lambda: cute.ThreadValueLayout("(32,4,2):(1,32,128)", (32, 8)), ["thread-value layout: ", "rank 3"]),
    (lambda: cute.ThreadValueLayout("(48,2):(1,48)", (48, 2)), ["thread-value layout: ", "48 threads"]),
    (lambda: cute.ThreadValueLayout("(32,4):(1,32)", (32.0, 4)), ["tensor shape: ", "'[32.0, 4]'"]),
    (lambda: layoutkit.parse_layout("(32,4):(1,32) over 32xx4"), ["tensor shape: ", "'32xx4'"]),
])
def test_bad_arguments(call, fragments):
    raises(fragments, call)


def test_evaluate_takes_lists_and_integral_floats():
    assert L23.evaluate([1, 2.0, 5]).tolist() == [offset_of((2, 3), (1, 2), i) for i in (1, 2, 5)]


# ------------------------------------------------------------------------------------------
# hypothesis: random text and random index arguments
# ------------------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="()<>,:_-Sswo 0123456789x", max_size=40) | st.text(max_size=20))
def test_random_text_gives_a_value_or_a_layout_error(text):
    for call in (lambda: cute.parse(text), lambda: layoutkit.parse_layout(text + " over 32x4"),
                 lambda: cute.logical_divide(L23, text), lambda: cute.composition(text, "2:1")):
        try:
            call()
        except LayoutError:
            pass


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.none(), st.text(max_size=5), st.floats(), st.integers(-2**70, 2**70),
                 st.lists(st.one_of(st.integers(-5, 2**64), st.floats(0, 9)), max_size=4)))
def test_random_indices_give_offsets_or_a_layout_error(value):
    try:
        got = L23.evaluate(value)
    except LayoutError:
        return
    # indices past the size continue along the last mode, as in CuTe: i % 2 + (i // 2) * 2
    flat = np.asarray(value).reshape(-1)
    assert got.reshape(-1).tolist() == [int(i) % 2 + (int(i) // 2) * 2 for i in flat]
