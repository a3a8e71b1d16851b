"""The CuTe text reader: round trips, messages, and a hypothesis fuzz (every string gives a
value or a LayoutError)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError, parse_layout
from layoutkit.cute import ComposedLayout, Layout, Swizzle, ThreadValueLayout, parse, parse_tiler

FUZZ = settings(max_examples=400, deadline=None)


@pytest.mark.parametrize(
    ("text", "shape", "stride"),
    [
        ("8:1", 8, 1),
        ("_8:_1", 8, 1),
        ("(2,3):(3,1)", (2, 3), (3, 1)),
        (" ( 2 , 3 ) : ( 3 , 1 ) ", (2, 3), (3, 1)),
        ("((2,3),(5,4)):((5,10),(1,30))", ((2, 3), (5, 4)), ((5, 10), (1, 30))),
        ("(2,(3,4))", (2, (3, 4)), (1, (2, 6))),
        ("(4):(-1)", (4,), (-1,)),
        ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", ((4, 8), (2, 2)), ((32, 1), (16, 8))),
    ],
)
def test_parse_layout_text(text, shape, stride):
    layout = Layout.parse(text)
    assert layout.shape == shape and layout.stride == stride
    assert Layout.parse(str(layout)) == layout


def test_parse_other_values():
    assert parse("Sw<3,4,3>") == Swizzle(3, 4, 3)
    composed = parse("Sw<3,4,3> o 0 o (8,64):(64,1)")
    assert composed == ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    assert parse("Sw<3,4,3> o (8,64):(64,1)") == composed
    assert parse("Sw<2,0,-3> o _4 o 32:1") == ComposedLayout(Swizzle(2, 0, -3), 4, Layout(32, 1))
    assert parse_tiler("<3:3, (2,4):(1,8)>") == (Layout(3, 3), Layout((2, 4), (1, 8)))
    assert parse_tiler("<_, 4>") == (None, Layout(4, 1))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("(2,3):(1)", "stride"),
        ("(2,0):(1,2)", "positive"),
        ("(2,3", "close a tuple"),
        ("2:1 junk", "trailing"),
        ("(2,3):(1,2,3)", "nesting"),
        ("Sw<3,4,2>", "shift"),
        ("<3:3, 2:1", "close the tiler"),
        ("2:1 over 4x", "tensor shape"),
        ("(8,2):(1,4) over 8", "outside"),
        ("8:1 over 8", "two modes"),
        ("(" * 40 + "2" + ")" * 40, "deeper"),
        ("4$2", "unexpected character"),
    ],
)
def test_bad_text_raises_layout_error(text, message):
    with pytest.raises(LayoutError, match=message):
        parse_layout(text) if "over" in text else parse(text)


def test_parse_layout_dispatches_cute_text():
    assert parse_layout("(2,3):(3,1)") == Layout((2, 3), (3, 1))
    tv = parse_layout("((4,8),(2,2)):((32,1),(16,8)) over 16x8")
    assert isinstance(tv, ThreadValueLayout) and tv.shape == (16, 8)
    assert parse_layout(str(tv)) == tv
    assert parse_layout("((4,8),(2,2)):((32,1),(16,8))", tensor_shape=(16, 8)) == tv


@st.composite
def int_tuple_text(draw, depth=0):
    if depth < 3 and draw(st.booleans()):
        items = draw(st.lists(int_tuple_text(depth + 1), min_size=1, max_size=3))
        return "(" + ",".join(items) + ")"
    return draw(st.sampled_from(["", "_", "-"])) + str(draw(st.integers(0, 40)))


CUTE_ALPHABET = "()_,:<>-0123456789 Swo x"


@FUZZ
@given(st.one_of(
    st.text(alphabet=CUTE_ALPHABET, max_size=40),
    st.builds(lambda a, b: f"{a}:{b}", int_tuple_text(), int_tuple_text()),
    st.builds(lambda a, b, t: f"{a}:{b} over {t}", int_tuple_text(), int_tuple_text(),
              st.text(alphabet="0123456789x", min_size=1, max_size=6)),
    st.text(max_size=30),
))
def test_fuzz_every_string_gives_a_value_or_layout_error(text):
    try:
        value = parse_layout(text)
    except LayoutError:
        return
    assert isinstance(value, (Layout, ComposedLayout, Swizzle, tuple, ThreadValueLayout))
    if not isinstance(value, tuple):
        assert parse_layout(str(value)) == value
