"""CuTe's fast paths against the slow paths they skip, on random inputs.

- construction: plain nested int tuples are checked in one pass; the result equals the one
  the general normalisation builds (lists, numpy ints), and bad tuples still raise;
- composition: where :func:`~layoutkit.core.cute._carry_free` proves that ``b``'s modes add up
  inside ``a`` (``b`` may overlap: not injective), the brute-force check is skipped; the result
  must equal ``a(b(i))`` evaluated index by index by CuTe's definition (``cute_reference``);
- ``zipped_divide`` by a tuple of int modes from the integer fast path equals the general
  unzip of ``logical_divide``'s halves.
"""

from __future__ import annotations

import numpy as np
import pytest
from cute_reference import ref, table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError
from layoutkit.core import cute as core
from layoutkit.cute import Layout, composition, logical_divide, zipped_divide

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def nested(draw, leaf, depth=0):
    if depth >= 2 or draw(st.booleans()):
        return draw(leaf)
    return tuple(nested(draw, leaf, depth + 1) for _ in range(draw(st.integers(1, 3))))


def congruent(shape, leaf, draw):
    if isinstance(shape, tuple):
        return tuple(congruent(s, leaf, draw) for s in shape)
    return draw(leaf)


def as_lists(t):
    return [as_lists(x) for x in t] if isinstance(t, tuple) else np.int64(t)


@given(data=st.data())
@settings(SETTINGS)
def test_construction_fast_path_equals_general_path(data):
    shape = nested(data.draw, st.integers(1, 9))
    stride = congruent(shape, st.integers(-50, 50), data.draw)
    fast = Layout(shape, stride)
    general = Layout(as_lists(shape), as_lists(stride))  # lists of numpy ints: the general path
    assert fast == general and str(fast) == str(general)
    assert fast.flat_shape == core.flatten(general.shape) and fast.flat_stride == core.flatten(general.stride)
    assert fast.size == core.product(general.shape)
    assert fast.cosize == general.max_offset - general.min_offset + 1


@pytest.mark.parametrize("shape, stride", [((2, 0), (1, 2)), ((2, True), (1, 2)), ((2, 3), (1, (2, 3))),
                                           ((2, 3), (1,)), ((2, 1 << 62), (1, 2)), ((), ())])
def test_construction_fast_path_still_refuses(shape, stride):
    with pytest.raises(LayoutError):
        Layout(shape, stride)


@pytest.mark.parametrize("shape, stride", [((1, 2), (1 << 62, 1)), ((2, 2), (1, -(1 << 62))),
                                           ((1 << 31, 1 << 31), (1, 1 << 31)), ((2, 1.0), (1, 2)),
                                           ((2, 3), (1, np.float64(2))), ((2, -3), (1, 2))])
def test_inline_flat_check_refuses_what_the_general_check_refuses(shape, stride):
    """The public constructor checks flat int tuples inline; each case must still be refused,
    as the general path refuses it (leaves, the size and the offset span below 2**62)."""
    for args in ((shape, stride), (list(shape), list(stride))):
        with pytest.raises(LayoutError):
            Layout(*args)


@given(st.lists(st.tuples(st.integers(1, 1 << 40), st.integers(-(1 << 40), 1 << 40)), min_size=1, max_size=4))
@settings(SETTINGS)
def test_inline_flat_check_agrees_with_the_general_check(modes):
    shape, stride = tuple(s for s, _ in modes), tuple(d for _, d in modes)
    outcomes = []
    for args in ((shape, stride), (as_lists(shape), as_lists(stride))):
        try:
            outcomes.append(str(Layout(*args)))
        except LayoutError:
            outcomes.append("refused")
    assert outcomes[0] == outcomes[1]


@st.composite
def carry_free_pairs(draw):
    """``a`` with several modes and ``b`` whose modes (some overlapping or repeated) keep
    inside ``a``'s digits often enough for the proof to apply."""
    a_shape = tuple(draw(st.lists(st.sampled_from([2, 3, 4, 6, 8]), min_size=2, max_size=3)))
    a_stride = tuple(draw(st.lists(st.integers(0, 40), min_size=len(a_shape), max_size=len(a_shape))))
    modes = draw(st.integers(2, 4))
    b_shape = tuple(draw(st.sampled_from([1, 2, 3, 4])) for _ in range(modes))
    b_stride = tuple(draw(st.sampled_from([0, 1, 2, 3, 4, 6, 8, 12, 16])) for _ in range(modes))
    return Layout(a_shape, a_stride), Layout(b_shape, b_stride)


@given(pair=carry_free_pairs())
@settings(SETTINGS, max_examples=400)
def test_proved_compositions_equal_the_definition(pair):
    a, b = pair
    a_shapes, a_strides = core._coalesce_flat(a.flat_shape, a.flat_stride)
    try:
        result = composition(a, b)
    except LayoutError:
        return
    expected = [ref(a, ref(b, i)) for i in range(b.size)]
    assert table(result) == expected
    if len(a_shapes) > 1:
        digits = [0] * (len(a_shapes) + 1)
        core._compose_raw(a, a_shapes, a_strides, b.shape, b.stride, digits)
        if core._carry_free(digits, a_shapes):
            core._check_composition(a, b, result)  # the brute-force oracle agrees


def test_proof_covers_non_injective_right_operands():
    a = Layout((128, 128), (128, 1))
    b = Layout(((8, 4), (2, 2)), ((1, 8), (32, 32)))  # two modes of stride 32: not injective
    assert not b.is_injective()
    a_shapes, a_strides = core._coalesce_flat(a.flat_shape, a.flat_stride)
    digits = [0] * (len(a_shapes) + 1)
    core._compose_raw(a, a_shapes, a_strides, b.shape, b.stride, digits)
    assert digits[0] == 7 + 24 + 32 + 32 and core._carry_free(digits, a_shapes)
    result = composition(a, b)
    assert table(result) == [ref(a, ref(b, i)) for i in range(b.size)]
    # strides of 64 can carry (7 + 24 + 64 + 64 > 127): the proof declines, the check decides
    digits = [0] * (len(a_shapes) + 1)
    core._compose_raw(a, a_shapes, a_strides, (8, 4, 2, 2), (1, 8, 64, 64), digits)
    assert not core._carry_free(digits, a_shapes)


@given(layout_shape=st.lists(st.integers(1, 12), min_size=1, max_size=3),
       data=st.data())
@settings(SETTINGS)
def test_zipped_divide_fast_path_equals_general(layout_shape, data):
    stride = data.draw(st.lists(st.integers(0, 30), min_size=len(layout_shape), max_size=len(layout_shape)))
    layout = Layout(tuple(layout_shape), tuple(stride))
    tiler = tuple(data.draw(st.lists(st.integers(1, 8), min_size=1, max_size=len(layout_shape))))
    try:
        general = core._unzip(logical_divide, layout, core._as_tiler(tiler))
    except LayoutError:
        with pytest.raises(LayoutError):
            zipped_divide(layout, tiler)
        return
    assert zipped_divide(layout, tiler) == general


@given(st.lists(st.tuples(st.integers(1, 6), st.integers(-20, 40)), min_size=1, max_size=5))
@settings(max_examples=200, deadline=None)
def test_kept_coalesced_modes_are_the_same_function(modes):
    """A layout's kept coalesced modes (read by composition) evaluate every index as the
    layout does, by brute force over its size, and no two neighbours could merge."""
    shapes, strides = tuple(s for s, _ in modes), tuple(d for _, d in modes)
    layout = Layout(shapes, strides)
    cs, cd = layout.coalesced_modes
    assert layout.coalesced_modes is layout.coalesced_modes  # (kept)
    index = np.arange(layout.size)
    want = layout.evaluate(index)
    got, rest = np.zeros_like(index), index
    for s, d in zip(cs, cd):
        got, rest = got + (rest % s) * d, rest // s
    assert np.array_equal(got, want) and 1 not in cs
    assert all(s0 * d0 != d1 for s0, d0, d1 in zip(cs, cd, cd[1:]))
