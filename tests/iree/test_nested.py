"""Nested layouts against seed 000: its worked examples and a brute-force evaluation of its
formulas (the packed view ``vector<[sg...] x [batch...] x ... x [element...]>`` sliced by
virtual ids), written here independently of layoutkit's digit arithmetic."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.layouts.iree import NestedLayout

SEED_TEXT = (
    "#iree_vector_ext.nested_layout<subgroup_tile = [2, 1], batch_tile = [2, 4], "
    "outer_tile = [1, 1], thread_tile = [16, 4], element_tile = [1, 4], "
    "subgroup_strides = [1, 0], thread_strides = [1, 16]>"
)


def nested(sg, b, o, t, e, ss, ts, **kw):
    return NestedLayout(sg, b, o, t, e, ss, ts, **kw)


def brute_force_table(layout: NestedLayout) -> np.ndarray:
    """Seed 000 literally: view the tensor as vector<[sg]x[batch]x[outer]x[thread]x[element]>
    (levels outer, dims inner), compute each hardware thread's virtual ids with
    ``(id / stride) % tile``, slice, and number the remaining [batch, outer, element]
    entries row-major as registers."""
    rank = layout.rank
    tiles = [layout.subgroup_tile, layout.batch_tile, layout.outer_tile,
             layout.thread_tile, layout.element_tile]
    shape = [int(np.prod([t[d] for t in tiles])) for d in range(rank)]
    coords = np.indices(shape)  # (rank, *shape)
    # split each dim into its 5 levels, then order axes level-major
    split = coords.reshape((rank,) + tuple(t[d] for d in range(rank) for t in tiles))
    axes = [1 + d * 5 + level for level in range(5) for d in range(rank)]
    packed = np.transpose(split, [0] + axes)  # (rank, sg..., b..., o..., t..., e...)
    regs = int(np.prod(layout.distributed_shape))
    out = np.zeros((regs, layout.subgroup_size, layout.num_subgroups, rank), dtype=np.int64)
    for warp in range(layout.num_subgroups):
        vsg = [(warp // s) % n if s else 0 for s, n in zip(layout.subgroup_strides, layout.subgroup_tile)]
        for lane in range(layout.subgroup_size):
            flat = warp * layout.subgroup_size + lane
            vt = [(flat // s) % n if s else 0 for s, n in zip(layout.thread_strides, layout.thread_tile)]
            index = (slice(None), *vsg, *([slice(None)] * (2 * rank)), *vt, *([slice(None)] * rank))
            piece = packed[index]  # (rank, b..., o..., e...)
            out[:, lane, warp, :] = piece.reshape(rank, -1).T
    return out


def test_seed_text_round_trips_and_prints_exactly():
    layout = layoutkit.parse_layout(SEED_TEXT, subgroup_size=64)
    assert isinstance(layout, NestedLayout)
    assert str(layout) == SEED_TEXT
    assert layoutkit.parse_layout(str(layout)) == layout
    assert layout.undistributed_shape == (64, 64)


def test_seed_full_example_thread16_and_distributed_shape():
    layout = layoutkit.parse_layout(SEED_TEXT, subgroup_size=64, num_subgroups=4)
    assert layout.distributed_unpacked_shape == (2, 16)
    assert layout.distributed_shape == (2, 4, 1, 1, 1, 4)
    # seed: thread16 gets vector<[2x4]x[1x1]x[16x4]x[1x4]>[:,:,:,:,0,1,:,:] of subgroup 0,
    # i.e. rows 0 and 16 (batch 0/1 of 16 rows), and within each of the 4 column batches
    # of 16 the 4 elements after thread column 1: columns 16*b1 + 4 + e
    expected = [(16 * b0, 16 * b1 + 4 + e) for b0 in range(2) for b1 in range(4) for e in range(4)]
    assert [tuple(r) for r in layout.thread_elements(16, warp=0).tolist()] == expected
    # subgroup 1 takes the second half of the rows; subgroups 2, 3 wrap to 0, 1
    sub1 = layout.thread_elements(16, warp=1)
    assert [tuple(r) for r in sub1.tolist()] == [(32 + r, c) for r, c in expected]
    np.testing.assert_array_equal(layout.thread_elements(16, warp=2), layout.thread_elements(16, warp=0))
    np.testing.assert_array_equal(layout.thread_elements(16, warp=3), sub1)
    # thread 1 has virtual id (1, 0): row 1 of each batch, columns 0..3 of each column batch
    assert layout.thread_elements(1)[0].tolist() == [1, 0]


def test_seed_subgroup_order():
    layout = nested([4, 2], [1, 1], [1, 1], [1, 1], [1, 1], [1, 4], [0, 0])
    assert layout.subgroup_ids() == [0, 4, 1, 5, 2, 6, 3, 7]
    assert layout.subgroup_ids(num_subgroups=4) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert layout.num_subgroups == 8
    # forward formula: subgroup 4 has virtual id (0, 1)
    coords = layout.apply(warp=np.arange(8))
    assert list(zip(coords["dim0"].tolist(), coords["dim1"].tolist())) == [
        (0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1), (3, 1)]


def test_seed_outer_example_thread_tile_2x5():
    # seed: outer_tile=[2, 1], thread_tile=[2, 5]: the 2x5 thread grid duplicated twice -> 4x5
    layout = nested([1, 1], [1, 1], [2, 1], [2, 5], [1, 1], [0, 0], [5, 1], subgroup_size=10)
    grid = np.full((4, 5), -1)
    tab = layout.table()
    for reg, lane in itertools.product(range(2), range(10)):
        r, c = tab[reg, lane, 0]
        grid[r, c] = lane
    assert grid.tolist() == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]] * 2


CASES = [
    ([2, 1], [2, 4], [1, 1], [16, 4], [1, 4], [1, 0], [1, 16], {}),
    ([1, 2], [1, 2], [2, 1], [2, 5], [3, 1], [0, 1], [5, 1], {"subgroup_size": 16}),
    ([3], [2], [1], [4], [2], [1], [1], {"subgroup_size": 8, "num_subgroups": 4}),
    ([2, 2, 1], [1, 2, 1], [1, 1, 2], [2, 1, 4], [2, 1, 1], [2, 1, 0], [4, 0, 1], {"subgroup_size": 32}),
    ([1, 1], [1, 1], [1, 1], [4, 4], [1, 1], [0, 0], [1, 32], {"subgroup_size": 64}),
    # a thread tile reaching past the subgroup: lanes 0..7 and subgroups 0..3 share dim 0
    ([1, 1], [2, 1], [1, 1], [32, 4], [1, 2], [0, 0], [4, 1], {"subgroup_size": 32}),
]


@pytest.mark.parametrize("case", CASES)
def test_table_matches_brute_force(case):
    *fields_, kw = case
    layout = nested(*fields_, **kw)
    np.testing.assert_array_equal(layout.table(), brute_force_table(layout))


def test_random_layouts_match_brute_force():
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 25:
        rank = int(rng.integers(1, 4))
        tiles = [list(rng.choice([1, 2, 3, 4], size=rank, p=[0.4, 0.3, 0.15, 0.15])) for _ in range(5)]
        strides = []
        for level in (0, 3):
            order = rng.permutation(rank)
            s, running = [0] * rank, int(rng.integers(1, 3))
            for d in order:
                s[d] = running
                running *= tiles[level][d] * int(rng.integers(1, 3))
            strides.append(s)
        layout = nested(*tiles, *strides, subgroup_size=int(rng.integers(1, 20)),
                        num_subgroups=int(rng.integers(1, 6)))
        np.testing.assert_array_equal(layout.table(), brute_force_table(layout))
        checked += 1


def test_thread_tile_spanning_subgroups():
    layout = nested([1, 1], [2, 1], [1, 1], [32, 4], [1, 2], [0, 0], [4, 1], subgroup_size=32)
    assert layout.num_subgroups == 4  # 128 thread ids over subgroups of 32
    # flat thread 37 = subgroup 1, lane 5: virtual ids (37 // 4 % 32, 37 % 4) = (9, 1)
    assert layout.apply(register=0, lane=5, warp=1) == {"dim0": 9, "dim1": 2}


def test_validation_errors_name_the_field():
    with pytest.raises(LayoutError, match="thread_tile"):
        nested([1, 1], [1, 1], [1, 1], [1, 1, 1], [1, 1], [0, 0], [0, 0])
    with pytest.raises(LayoutError, match="thread_strides: dims 0 and 1 overlap"):
        nested([1, 1], [1, 1], [1, 1], [4, 4], [1, 1], [0, 0], [1, 2])
    with pytest.raises(LayoutError, match="subgroup_strides"):
        nested([2, 2], [1, 1], [1, 1], [1, 1], [1, 1], [1, 1], [0, 0])
    with pytest.raises(LayoutError, match="batch_tile"):
        nested([1], [0], [1], [1], [1], [0], [0])
    # a tile with stride 0 is not distributed (IREE 3.13 accepts it: virtual id 0), not an error
    assert nested([2], [1], [1], [1], [1], [0], [0]).table().reshape(-1).max() == 0
    with pytest.raises(LayoutError, match="subgroup_size"):
        nested([1], [1], [1], [1], [1], [0], [0], subgroup_size=0)


def test_strides_normalized_to_zero_where_tile_is_one():
    layout = nested([1, 2], [1, 1], [1, 1], [1, 4], [1, 1], [7, 1], [3, 1])
    assert layout.subgroup_strides == (0, 1)
    assert layout.thread_strides == (0, 1)


def test_parse_errors():
    for bad in [
        "#iree_vector_ext.nested_layout<subgroup_tile = [1]>",
        SEED_TEXT.replace("thread_tile", "thread_tiles"),
        SEED_TEXT.replace("[1, 16]", "[1, x]"),
        SEED_TEXT.replace("[16, 4]", "[16, -4]"),
        "#iree_vector_ext.other<>",
        SEED_TEXT[:-1],
    ]:
        with pytest.raises(LayoutError):
            layoutkit.parse_layout(bad)


def test_shapes():
    layout = layoutkit.parse_layout(SEED_TEXT)
    assert layout.packed_shape(1) == (1, 4, 1, 4, 4)
    assert layout.hardware_dims() == {"register": 32, "lane": 64, "warp": 2}
    with pytest.raises(LayoutError, match="dim"):
        layout.packed_shape(2)
    with pytest.raises(LayoutError, match="shape"):
        layout.table((64, 32))


def test_apply_checks_ranges():
    layout = layoutkit.parse_layout(SEED_TEXT)
    for kwargs in ({"register": 32}, {"lane": 64}, {"warp": 2}, {"lane": np.array([-1, 0])}):
        with pytest.raises(LayoutError, match="apply"):
            layout.apply(**kwargs)
    with pytest.raises(LayoutError, match="apply: unknown hardware dim"):
        layout.apply(block=0)


def test_owners_of_the_seed_layout():
    layout = layoutkit.parse_layout(SEED_TEXT, num_subgroups=4)
    owners = layout.owners((33, 4))
    # row 33 = subgroup 1 (rows 32..63), batch 0, thread row 1; column 4 = thread column 1
    assert {(o["lane"], o["warp"]) for o in owners} == {(17, 1), (17, 3)}
    assert all(o["register"] == 0 for o in owners)
