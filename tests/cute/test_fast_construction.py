"""The public constructor's unrolled check of two-mode flat layouts (the commonest call)
against the general path (the same values as lists, which the inline checks never take),
on leaves of every kind: ints near the 2**62 limits, zero and negative extents, bools,
floats and numpy scalars."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError
from layoutkit.cute import Layout

LIMIT = 1 << 62
LEAVES = st.one_of(
    st.integers(-4, 40),
    st.sampled_from([LIMIT - 1, LIMIT, -(LIMIT - 1), -LIMIT, 1 << 31, 1 << 32]),
    st.sampled_from([True, False, 2.0, np.int64(3), np.float64(2), "2", None]),
)


def outcome(shape, stride):
    try:
        layout = Layout(shape, stride)
    except LayoutError:
        return "refused"
    return str(layout), layout.flat_shape, layout.flat_stride, layout.size, layout.cosize


@given(st.tuples(LEAVES, LEAVES), st.tuples(LEAVES, LEAVES))
@settings(max_examples=500, deadline=None)
def test_two_mode_check_agrees_with_the_general_path(shape, stride):
    fast = outcome(shape, stride)
    general = outcome(list(shape), list(stride))
    assert fast == general
    if fast != "refused":  # what is taken is kept as plain ints
        assert all(type(v) is int for v in fast[1] + fast[2])
