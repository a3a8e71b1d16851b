"""The thread and subgroup ids of a nested layout, computed the way IREE computes them:
``NestedLayoutAttr::computeThreadIds`` delinearizes the workgroup's flat thread id with a
mixed-radix basis built from each level's tiles and strides (``basisFromSizesStrides``:
sizes sorted by stride, a gap entry where a stride jumps, the part above the last size left
unbounded), the subgroup basis followed by the subgroup size. Written here step by step, as
IREE does it, and compared with the layout's table -- also for thread tiles that reach past
one subgroup, where the flat id and the lane differ."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError
from layoutkit.layouts.iree import NestedLayout


def basis_from_sizes_strides(sizes, strides):
    """IREE's construction: the basis (outermost first) and, per dim, its result index in a
    delinearization whose result 0 is the unbounded overflow."""
    terms = sorted((0 if size == 1 else stride, 1 if stride == 0 else size, dim)
                   for dim, (size, stride) in enumerate(zip(sizes, strides)))
    basis_inner_first, entry_dim = [], []
    previous = 1
    for stride, size, dim in terms:
        if stride == 0:
            stride, size = 1, 1
        assert stride % previous == 0
        if stride != previous:
            basis_inner_first.append(stride // previous)
            entry_dim.append(None)
            previous = stride
        basis_inner_first.append(size)
        entry_dim.append(dim)
        previous *= size
    basis = basis_inner_first[::-1]
    dims = entry_dim[::-1]
    dim_to_result = {d: i + 1 for i, d in enumerate(dims) if d is not None}
    return basis, [dim_to_result[d] for d in range(len(sizes))]


def delinearize(value: int, basis) -> list[int]:
    """``affine.delinearize_index`` without an outer bound: [overflow, *digits]."""
    digits = []
    for size in reversed(basis):
        digits.append(value % size)
        value //= size
    return [value, *digits[::-1]]


def iree_virtual_ids(layout: NestedLayout, flat_thread_id: int):
    sg_basis, sg_result = basis_from_sizes_strides(layout.subgroup_tile, layout.subgroup_strides)
    th_basis, th_result = basis_from_sizes_strides(layout.thread_tile, layout.thread_strides)
    sg_split = delinearize(flat_thread_id, sg_basis + [layout.subgroup_size])
    th_split = delinearize(flat_thread_id, th_basis)
    return [sg_split[i] for i in sg_result], [th_split[i] for i in th_result]


def expected_table(layout: NestedLayout) -> np.ndarray:
    rank = layout.rank
    table = np.zeros((layout.num_registers, layout.subgroup_size, layout.num_subgroups, rank), dtype=np.int64)
    for warp in range(layout.num_subgroups):
        for lane in range(layout.subgroup_size):
            vsg, vt = iree_virtual_ids(layout, warp * layout.subgroup_size + lane)
            for r, index in enumerate(np.ndindex(*layout.distributed_shape)):
                for d in range(rank):
                    b, o, e = index[d], index[rank + d], index[2 * rank + d]
                    coord = vsg[d]
                    for digit, size in ((b, layout.batch_tile[d]), (o, layout.outer_tile[d]),
                                        (vt[d], layout.thread_tile[d]), (e, layout.element_tile[d])):
                        coord = coord * size + digit
                    table[r, lane, warp, d] = coord
    return table


CASES = [
    # the seed's 64x64 layout: thread tiles inside one subgroup of 64
    NestedLayout([2, 1], [2, 4], [1, 1], [16, 4], [1, 4], [1, 0], [1, 16], subgroup_size=64),
    # thread tile 8x4 = 32 threads over subgroups of 8: the thread ids run over 4 subgroups
    NestedLayout([1, 1], [1, 2], [1, 1], [8, 4], [1, 2], [0, 0], [1, 8], subgroup_size=8),
    # a stride gap and a transposed order, tiles past one subgroup of 4
    NestedLayout([2, 1], [1, 1], [1, 1], [4, 2], [2, 1], [1, 0], [2, 16], subgroup_size=4),
    # non-power-of-two tiles, the subgroups ordered by the second dim
    NestedLayout([3, 2], [1, 2], [1, 1], [2, 5], [1, 1], [2, 1], [5, 1], subgroup_size=4),
]


@pytest.mark.parametrize("layout", CASES, ids=range(len(CASES)))
def test_table_follows_iree_computeThreadIds(layout):
    assert np.array_equal(layout.table(), expected_table(layout))


def test_flat_id_is_not_the_lane_past_one_subgroup():
    layout = CASES[1]  # thread 8 * warp + lane: warp 1, lane 0 has virtual thread id (0, 1)
    got = layout.apply(register=0, lane=0, warp=1)
    assert (got["dim0"], got["dim1"]) == (0, 1 * 2)
    # with the lane alone (lane 0 of every subgroup alike) it would be (0, 0)
    assert (got["dim0"], got["dim1"]) != (0, 0)


@st.composite
def nested_levels(draw):
    rank = draw(st.integers(1, 2))
    fields = {name: draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
              for name in ("subgroup_tile", "batch_tile", "outer_tile", "thread_tile", "element_tile")}
    for level, tiles in (("subgroup_strides", fields["subgroup_tile"]), ("thread_strides", fields["thread_tile"])):
        order = draw(st.permutations(range(rank)))
        strides, running = [0] * rank, 1
        for d in order:  # nested strides, with an optional gap of 2
            running *= draw(st.sampled_from([1, 1, 2]))
            strides[d] = running
            running *= tiles[d]
        fields[level] = strides
    return NestedLayout(**fields, subgroup_size=draw(st.sampled_from([1, 2, 4, 8])))


@settings(max_examples=60, deadline=None)
@given(nested_levels())
def test_random_layouts_follow_iree(layout):
    try:
        table = layout.table()
    except LayoutError:
        return
    assert np.array_equal(table, expected_table(layout))
