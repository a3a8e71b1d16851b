"""Malformed and hostile input to nested layouts through the Python API (the fields,
apply, permute / project / apply_map / reshape / recombine): each gives a LayoutError naming
the field and quoting the text, quickly, never a hang, a MemoryError or another exception.
The CLI (`show` / `render` with nested text) is in tests/render/test_render_bad_input.py."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layout_errors import raises

import layoutkit
from layoutkit import LayoutError
from layoutkit.layouts.iree import NestedLayout

FIELDS = dict(subgroup_tile=[2, 1], batch_tile=[2, 4], outer_tile=[1, 1], thread_tile=[16, 4],
              element_tile=[1, 4], subgroup_strides=[1, 0], thread_strides=[1, 16])
HUGE = 99999999999


def nested(**changes) -> NestedLayout:
    return NestedLayout(**{**FIELDS, **changes})


def text_of(**changes) -> str:
    fields = {**FIELDS, **changes}
    body = ", ".join(f"{name} = {value}" for name, value in fields.items())
    return f"#iree_vector_ext.nested_layout<{body}>"


SEED = nested()




# ------------------------------------------------------------------------------------------
# fields: sizes that would not fit, or tables too large to build
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("changes, fragments", [
    (dict(thread_strides=[10**30, 16]), ["thread_strides: ", str(10**30)]),
    (dict(subgroup_strides=[2**62, 0], subgroup_tile=[4, 1]), ["subgroup_strides: ", "dim 0"]),
    (dict(batch_tile=[2**40, 2**40], element_tile=[2**40, 2**40]), ["element_tile: ", "2**62"]),
    (dict(thread_tile=[16.0, 4]), ["thread_tile: ", "'[16.0, 4]'"]),
    (dict(thread_tile="16,4"), ["thread_tile: ", "'16,4'"]),
    (dict(thread_tile=None), ["thread_tile: ", "'None'"]),
    (dict(thread_tile=[[16], 4]), ["thread_tile: ", "'[[16], 4]'"]),
    (dict(thread_tile=[True, 4]), ["thread_tile: ", "'[True, 4]'"]),
    (dict(subgroup_size=64.0), ["subgroup_size: ", "'64.0'"]),
    (dict(subgroup_size=2**40, num_subgroups=2**40), ["num_subgroups: ", str(2**40)]),
])
def test_bad_fields(changes, fragments):
    raises(fragments, lambda: nested(**changes))


@pytest.mark.parametrize("changes", [
    dict(thread_tile=[HUGE, 1]), dict(batch_tile=[HUGE, 1]), dict(element_tile=[100000, 100000]),
    dict(subgroup_size=10**12), dict(num_subgroups=10**12),
])
def test_huge_layouts_refuse_their_table_but_still_apply(changes):
    layout = nested(**changes)
    for call in (layout.table, lambda: layout.owners((0, 0)), layout.to_linear_layout,
                 lambda: layoutkit.equivalent(layout, layout)):
        with pytest.raises(LayoutError):
            call()
    raises(["hardware dims: ", "at most 16777216"], layout.table)
    # single elements are still computed, by the seed's formula written out here
    lane, warp = 17, 1
    thread_id = warp * layout.subgroup_size + lane
    expect = []
    for d in range(2):
        sg, b, o, t, e = (getattr(layout, f)[d] for f in
                          ("subgroup_tile", "batch_tile", "outer_tile", "thread_tile", "element_tile"))
        vsg = (warp // layout.subgroup_strides[d]) % sg if layout.subgroup_strides[d] else 0
        vt = (thread_id // layout.thread_strides[d]) % t if layout.thread_strides[d] else 0
        expect.append((((vsg * b + 0) * o + 0) * t + vt) * e + 0)
    got = layout.apply(register=0, lane=lane, warp=warp)
    assert [got["dim0"], got["dim1"]] == expect


# ------------------------------------------------------------------------------------------
# methods
# ------------------------------------------------------------------------------------------
METHOD_CASES = [
    (lambda: SEED.permute(None), ["perm: ", "'None'"]),
    (lambda: SEED.permute("10"), ["perm: ", "'10'"]),
    (lambda: SEED.permute([0, 0]), ["perm: ", "'[0, 0]'"]),
    (lambda: SEED.permute([1.0, 0]), ["perm: ", "'[1.0, 0]'"]),
    (lambda: SEED.project(None), ["dropped_dims: ", "'None'"]),
    (lambda: SEED.project(0), ["dropped_dims: ", "'0'"]),
    (lambda: SEED.project("0"), ["dropped_dims: ", "'0'"]),
    (lambda: SEED.project([5]), ["dropped_dims: ", "'5'"]),
    (lambda: SEED.project([True]), ["dropped_dims: ", "'[True]'"]),
    (lambda: SEED.apply_map(None), ["affine_map: ", "'None'"]),
    (lambda: SEED.apply_map(5), ["affine_map: ", "'5'"]),
    (lambda: SEED.apply_map("garbage"), ["affine_map: ", "'garbage'"]),
    (lambda: SEED.apply_map("affine_map<(d0, ☃) -> (d0)>"), ["affine_map: ", "'☃'"]),
    (lambda: SEED.apply_map("affine_map<(d0, d1) -> (d0 + d1, d0)>"), ["affine_map: ", "'d0 + d1'"]),
    (lambda: SEED.apply_map("affine_map<(d0) -> (d0)>"), ["affine_map: ", "rank 2"]),
    (lambda: SEED.reshape(None), ["new_shape: ", "'None'"]),
    (lambda: SEED.reshape("64x64"), ["new_shape: "]),
    (lambda: SEED.reshape([0, 64]), ["new_shape: ", "'[0, 64]'"]),
    (lambda: SEED.reshape([2**62, 2**62]), ["new_shape: ", str(2**124)]),
    (lambda: NestedLayout.recombine(None, None, None), ["layouts: ", "'None'"]),
    (lambda: NestedLayout.recombine([SEED], [None], "(d0, d1) -> (d0, d1)"), ["maps[0]: ", "'None'"]),
    (lambda: NestedLayout.recombine([SEED], ["garbage"], "(d0, d1) -> (d0, d1)"), ["maps[0]: ", "'garbage'"]),
    (lambda: NestedLayout.recombine([SEED], ["(d0, d1) -> (d0, d1)"], 7), ["result_map: ", "'7'"]),
    (lambda: SEED.needs_shared_memory_for_conversion("junk"), ["other: ", "'str'"]),
    (lambda: SEED.thread_elements("a"), ["lane: ", "'a'"]),
    (lambda: SEED.thread_elements(-1), ["lane: ", "'-1'"]),
    (lambda: SEED.subgroup_ids(0), ["modulus: ", "'0'"]),
    (lambda: SEED.thread_ids("a"), ["modulus: ", "'a'"]),
    (lambda: SEED.apply(lane=1.5), ["apply: lane", "'1.5'"]),
    (lambda: SEED.apply(lane="a"), ["apply: lane", "'a'"]),
    (lambda: SEED.apply(lane=10**30), ["apply: lane", str(10**30)]),
    (lambda: SEED.apply(lane=64), ["apply: lane", "'64'"]),
    (lambda: SEED.apply(thread=1), ["apply: ", "'thread'"]),
    (lambda: SEED.packed_shape(2), ["dim: ", "'2'"]),
]


@pytest.mark.parametrize("call, fragments", METHOD_CASES)
def test_bad_method_arguments(call, fragments):
    raises(fragments, call)


def test_apply_takes_lists_and_integral_floats():
    table = SEED.table()
    got = SEED.apply(register=[0, 5], lane=[3, 40], warp=1.0)
    assert np.array_equal(np.stack([got["dim0"], got["dim1"]], -1), table[[0, 5], [3, 40], 1])


def test_thread_elements_wrap_around_like_the_table():
    table = SEED.table()
    assert np.array_equal(SEED.thread_elements(64 + 5, 3), table[:, 5, 1])


# ------------------------------------------------------------------------------------------
# hypothesis: every argument gives a value or a LayoutError
# ------------------------------------------------------------------------------------------
anything = st.one_of(
    st.none(), st.text(max_size=12), st.integers(-3, 2**70), st.floats(allow_nan=True),
    st.lists(st.one_of(st.integers(-3, 2**64), st.booleans(), st.floats(0, 5), st.text(max_size=2)), max_size=5),
)


def value_or_layout_error(call):
    try:
        return call()
    except LayoutError:
        return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(anything)
def test_methods_accept_anything(value):
    for call in (lambda: SEED.permute(value), lambda: SEED.project(value), lambda: SEED.apply_map(value),
                 lambda: SEED.reshape(value), lambda: SEED.apply(lane=value),
                 lambda: NestedLayout.recombine([SEED], [value], "(d0, d1) -> (d0, d1)")):
        result = value_or_layout_error(call)
        assert result is None or isinstance(result, (NestedLayout, dict))


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_affine_map_text_fuzz(tail):
    for text in (tail, "affine_map<" + tail, "affine_map<(d0, d1) -> (" + tail):
        result = value_or_layout_error(lambda text=text: SEED.apply_map(text))
        if result is not None:  # a map over rank 2 built only from d0, d1 and constants
            assert isinstance(result, NestedLayout)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-2, 2**64), min_size=1, max_size=4),
       st.sampled_from(list(FIELDS)))
def test_random_field_values(values, name):
    layout = value_or_layout_error(lambda: nested(**{name: values}))
    if layout is not None:
        assert layoutkit.parse_layout(str(layout)) == layout


def test_needs_shared_memory_on_a_large_layout_is_quick():
    """1024 threads over 512x512: the old dense threads x elements matrix took 256 MiB."""
    big = NestedLayout([4, 4], [4, 4], [1, 1], [8, 8], [4, 4], [1, 4], [1, 8], subgroup_size=64)
    swapped_lanes = NestedLayout([4, 4], [4, 4], [1, 1], [8, 8], [4, 4], [1, 4], [8, 1], subgroup_size=64)
    same = NestedLayout([4, 4], [4, 4], [1, 1], [8, 8], [4, 4], [1, 4], [1, 8], subgroup_size=64)
    assert big.undistributed_shape == (512, 512) and big.num_subgroups == 16
    start = time.perf_counter()
    assert big.needs_shared_memory_for_conversion(same) is False
    assert big.needs_shared_memory_for_conversion(swapped_lanes) is True
    assert time.perf_counter() - start < 3
    # lane 1 holds other elements in the two layouts (checked by their tables here)
    held = {tuple(c) for c in big.thread_elements(1).tolist()}
    wanted = {tuple(c) for c in swapped_lanes.thread_elements(1).tolist()}
    assert wanted - held
