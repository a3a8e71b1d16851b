"""Every input to the nested-layout parser gives a NestedLayout or a LayoutError."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutkit
from layoutkit import LayoutError
from layoutkit.layouts.iree import ATTR_FIELDS, NestedLayout

small_ints = st.integers(min_value=-2, max_value=9)
int_lists = st.lists(small_ints, min_size=0, max_size=3)


@st.composite
def near_valid_text(draw):
    """Attribute text built from the grammar, with fields dropped, repeated, reordered or
    garbled now and then."""
    names = list(ATTR_FIELDS)
    if draw(st.booleans()):
        names = draw(st.permutations(names))
    if draw(st.integers(0, 4)) == 0:
        names = names[: draw(st.integers(0, len(names)))]
    if draw(st.integers(0, 6)) == 0:
        names.append(draw(st.sampled_from(ATTR_FIELDS + ("bogus",))))
    rank = draw(st.integers(0, 3))
    entries = []
    for name in names:
        values = draw(st.lists(small_ints, min_size=rank, max_size=rank)) if draw(st.integers(0, 5)) else draw(int_lists)
        entries.append(f"{name} = [{', '.join(map(str, values))}]")
    text = "#iree_vector_ext.nested_layout<" + ", ".join(entries) + ">"
    if draw(st.integers(0, 5)) == 0:
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.text(alphabet="[]<>{},=# x-0123456789", max_size=4)) + text[cut:]
    return text


def check(text: str, subgroup_size=64) -> None:
    try:
        layout = layoutkit.parse_layout(text, subgroup_size=subgroup_size)
    except LayoutError:
        return
    assert isinstance(layout, NestedLayout)
    # a value prints back to text that reads as the same value
    assert layoutkit.parse_layout(str(layout), subgroup_size=subgroup_size) == layout


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_valid_text(), st.sampled_from([64, 32, 0, -1, 7]))
def test_grammar_fuzz(text, subgroup_size):
    check(text, subgroup_size)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_after_prefix(tail):
    check("#iree_vector_ext." + tail)
    check("#iree_vector_ext.nested_layout<" + tail)
