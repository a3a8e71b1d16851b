"""permute / project / apply_map / reshape / recombine / needs_shared_memory_for_conversion /
to_linear_layout, each checked against the layout's meaning (tables), not its fields."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.layouts.iree import AffineMap, NestedLayout

SEED = NestedLayout([2, 1], [2, 4], [1, 1], [16, 4], [1, 4], [1, 0], [1, 16], num_subgroups=2)
ODD = NestedLayout([1, 3], [2, 1], [1, 2], [2, 5], [3, 1], [0, 1], [5, 1], subgroup_size=16)


def per_thread_sets(table: np.ndarray, columns=None) -> list[set]:
    """For each (lane, warp): the set of coordinates it holds (columns picked/reordered)."""
    regs, lanes, warps, rank = table.shape
    cols = list(range(rank)) if columns is None else list(columns)
    return [{tuple(table[r, lane, warp, cols]) for r in range(regs)}
            for lane in range(lanes) for warp in range(warps)]


@pytest.mark.parametrize("layout", [SEED, ODD])
def test_permute_moves_coordinates(layout):
    perm = [1, 0]
    permuted = layout.permute(perm)
    assert permuted.undistributed_shape == tuple(layout.undistributed_shape[p] for p in perm)
    assert per_thread_sets(permuted.table()) == per_thread_sets(layout.table(), perm)
    with pytest.raises(LayoutError, match="perm"):
        layout.permute([0, 0])


def test_project_and_apply_map():
    layout = NestedLayout([1, 2, 1], [2, 1, 2], [1, 1, 1], [4, 1, 8], [1, 2, 2], [0, 1, 0], [8, 0, 1],
                          subgroup_size=32)
    projected = layout.project([False, True, False])
    assert projected == layout.project([1])
    assert projected.undistributed_shape == (8, 32)
    # the kept dims of every thread's elements are exactly what the projection holds
    full = layout.table()
    assert [s for s in per_thread_sets(projected.table())] == [
        s for s in per_thread_sets(full[:, :, : projected.num_subgroups], [0, 2])]
    mapped = layout.apply_map("affine_map<(d0, d1, d2) -> (d2, 0, d0)>")
    assert mapped.undistributed_shape == (32, 1, 8)
    assert mapped.permute([2, 1, 0]).project([1]) == projected
    with pytest.raises(LayoutError, match="affine_map"):
        layout.apply_map("affine_map<(d0, d1) -> (d1, d0)>")
    with pytest.raises(LayoutError, match="affine_map"):
        layout.apply_map("affine_map<(d0, d1, d2) -> (d0 + d1)>")
    with pytest.raises(LayoutError, match="dropped_dims"):
        layout.project([0, 1, 2])


def test_affine_map_reader():
    assert AffineMap.parse("affine_map<(d0, d1, d2) -> (d2, d0)>") == AffineMap(3, (2, 0))
    assert AffineMap.parse("(i, j) -> (j, 0, i)").results == (1, None, 0)
    assert str(AffineMap(2, (1, None))) == "affine_map<(d0, d1) -> (d1, 0)>"
    for bad in ["affine_map<(d0) -> (d1)>", "affine_map<(d0, d0) -> (d0)>", "(d0)[s0] -> (d0)",
                "affine_map<(d0) -> (d0)", "(d0) -> (d0 * 2)"]:
        with pytest.raises(LayoutError):
            AffineMap.parse(bad)


def assert_reshape_preserves_map(layout: NestedLayout, new_shape):
    new = layout.reshape(new_shape)
    assert new.undistributed_shape == tuple(new_shape)
    old_tab, new_tab = layout.table(), new.table()
    old_flat = np.ravel_multi_index(tuple(np.moveaxis(old_tab, -1, 0)), layout.undistributed_shape)
    new_flat = np.ravel_multi_index(tuple(np.moveaxis(new_tab, -1, 0)), tuple(new_shape))
    np.testing.assert_array_equal(old_flat, new_flat)
    return new


def test_reshape_iree_examples():
    # IREE's comments: 64x64 <-> 16x4x16x4 with batch [4, 4], thread [16, 4], element [1, 4]
    layout = NestedLayout([1, 1], [4, 4], [1, 1], [16, 4], [1, 4], [0, 0], [1, 16])
    expanded = assert_reshape_preserves_map(layout, [16, 4, 16, 4])
    assert expanded.thread_tile == (4, 4, 4, 1)
    assert expanded.batch_tile == (4, 1, 4, 1)
    assert expanded.thread_strides == (4, 1, 16, 0)
    back = assert_reshape_preserves_map(expanded, [64, 64])
    assert back == layout
    assert_reshape_preserves_map(SEED, [2, 32, 16, 4])
    with pytest.raises(LayoutError, match="batch tile inside a thread tile"):
        SEED.reshape([4096])  # dim 0's threads sit above dim 1's batches
    assert_reshape_preserves_map(SEED, [8, 8, 8, 8])


def test_reshape_non_power_of_two():
    layout = NestedLayout([1, 1], [3, 1], [1, 1], [1, 6], [1, 5], [0, 0], [0, 1], subgroup_size=8)
    assert_reshape_preserves_map(layout, [90])
    assert_reshape_preserves_map(layout, [3, 2, 3, 5])
    assert_reshape_preserves_map(layout, [3, 3, 2, 5])
    assert_reshape_preserves_map(ODD, [12, 6, 5])
    assert_reshape_preserves_map(ODD, [2, 6, 6, 5])


def test_reshape_impossible():
    # dim 0 is distributed over threads, dim 1 over batches: merging would put a batch
    # tile inside a thread tile
    layout = NestedLayout([1, 1], [1, 2], [1, 1], [2, 1], [1, 1], [0, 0], [1, 0])
    with pytest.raises(LayoutError, match="new_shape"):
        layout.reshape([4])
    # thread strides that do not nest cannot merge: dim 0 stride 1, dim 1 stride 2 -> ok,
    # but dim 0 stride 2, dim 1 stride 1 (inner dim slower) cannot
    good = NestedLayout([1, 1], [1, 1], [1, 1], [2, 2], [1, 1], [0, 0], [2, 1])
    assert assert_reshape_preserves_map(good, [4]).thread_strides == (1,)
    bad = NestedLayout([1, 1], [1, 1], [1, 1], [2, 2], [1, 1], [0, 0], [1, 2])
    with pytest.raises(LayoutError, match="thread_strides"):
        bad.reshape([4])
    with pytest.raises(LayoutError, match="new_shape"):
        SEED.reshape([64, 63])
    with pytest.raises(LayoutError, match="new_shape"):
        NestedLayout([1], [1], [1], [4], [3], [0], [1]).reshape([3, 4])
    assert_reshape_preserves_map(NestedLayout([1], [1], [1], [4], [3], [0], [1], subgroup_size=4), [2, 6])


def test_recombine_contraction():
    lhs = NestedLayout([2, 1], [1, 1], [1, 1], [16, 1], [1, 16], [1, 0], [1, 0])  # (m, k)
    rhs = NestedLayout([1, 2], [1, 2], [1, 1], [1, 4], [16, 4], [0, 2], [0, 16])  # (k, n)
    result = NestedLayout.recombine(
        [lhs, rhs],
        ["affine_map<(d0, d1, d2) -> (d0, d2)>", "affine_map<(d0, d1, d2) -> (d2, d1)>"],
        "affine_map<(d0, d1, d2) -> (d0, d1)>",
    )
    # m takes lhs dim 0, n takes rhs dim 1
    assert result == NestedLayout([2, 2], [1, 2], [1, 1], [16, 4], [1, 4], [1, 2], [1, 16])
    assert result.permute([1, 0]) == NestedLayout.recombine(
        [lhs, rhs], ["(m, n, k) -> (m, k)", "(m, n, k) -> (k, n)"], "(m, n, k) -> (n, m)")
    with pytest.raises(LayoutError, match="conflicts"):
        NestedLayout.recombine([lhs, rhs], ["(a, b, c) -> (a, c)", "(a, b, c) -> (a, b)"],
                               "(a, b, c) -> (a, b)")
    with pytest.raises(LayoutError, match="result_map"):
        NestedLayout.recombine([lhs], ["(a, b, c) -> (a, c)"], "(a, b, c) -> (a, b)")


def test_needs_shared_memory_for_conversion():
    def brute(src, dst):
        s, d = src.table(), dst.table(src.undistributed_shape)
        return any(not (b <= a) for a, b in zip(per_thread_sets(s), per_thread_sets(d)))

    same_threads = SEED.to_linear_layout()
    # reorder registers only: swap the first two register bases
    bases = {k: [list(b) for b in v] for k, v in same_threads.bases.items()}
    bases["register"][0], bases["register"][1] = bases["register"][1], bases["register"][0]
    reordered = layoutkit.LinearLayout(bases, same_threads.out_dims)
    assert SEED.needs_shared_memory_for_conversion(SEED) is False
    assert SEED.needs_shared_memory_for_conversion(reordered) is False
    assert brute(SEED, reordered) is False
    other = NestedLayout([2, 1], [2, 4], [1, 1], [16, 4], [1, 4], [1, 0], [4, 1], num_subgroups=2)
    assert SEED.needs_shared_memory_for_conversion(other) is True
    assert brute(SEED, other) is True
    # a layout holding more per thread (broadcast over lanes) -> fewer per thread: no smem
    wide = NestedLayout([1], [1], [1], [1], [8], [0], [0], subgroup_size=4)
    narrow = NestedLayout([1], [2], [1], [4], [1], [0], [1], subgroup_size=4)
    assert wide.needs_shared_memory_for_conversion(narrow) is False
    assert narrow.needs_shared_memory_for_conversion(wide) is True
    assert brute(wide, narrow) is False and brute(narrow, wide) is True


def test_to_linear_layout_equivalent_and_errors():
    for layout in (SEED, SEED.permute([1, 0]), SEED.reshape([2, 32, 16, 4])):
        linear = layout.to_linear_layout()
        assert linear.in_dim_names == ["register", "lane", "warp"]
        assert layoutkit.equivalent(linear, layout)
    with pytest.raises(LayoutError, match="subgroup_tile: entry 1 is 3, not a power of two"):
        ODD.to_linear_layout()
    with pytest.raises(LayoutError, match="thread_tile: entry 1 is 5, not a power of two"):
        NestedLayout([1, 1], [1, 1], [1, 1], [2, 5], [1, 1], [0, 0], [8, 1], subgroup_size=16).to_linear_layout()
    with pytest.raises(LayoutError, match="thread_strides: entry 0 is 3"):
        NestedLayout([1], [1], [1], [2], [1], [0], [3], subgroup_size=8).to_linear_layout()
    text = SEED.to_linear_text()
    # registers walk dim 1 by 1, 2 (elements), 16, 32 (batches), then dim 0 by 16 (batch)
    assert text.startswith("#ttg.linear<{register = [[0, 1], [0, 2], [0, 16], [0, 32], [16, 0]], lane = ")
    encoding = layoutkit.parse_layout(text)
    assert layoutkit.equivalent(encoding, SEED, (64, 64))


def test_random_layouts_equal_their_linear_layouts_and_ttg_linear_text():
    rng = np.random.default_rng(3)
    texts = 0
    for _ in range(30):
        rank = int(rng.integers(1, 4))
        tiles = [list(rng.choice([1, 2, 4], size=rank)) for _ in range(5)]
        strides = []
        for level in (0, 3):
            s, running = [0] * rank, 1
            for d in rng.permutation(rank):
                s[d] = running
                running *= tiles[level][d] * int(rng.choice([1, 2]))
            strides.append(s)
        layout = NestedLayout(*tiles, *strides, subgroup_size=int(rng.choice([8, 16, 32])),
                              num_subgroups=rng.choice([None, None, 1, 2, 4]))
        assert layoutkit.equivalent(layout.to_linear_layout(), layout)
        covered = np.unique(layout.table().reshape(-1, layout.rank), axis=0).shape[0]
        if covered < np.prod(layout.undistributed_shape):
            with pytest.raises(LayoutError, match="num_subgroups"):
                layout.to_linear_text()
            continue
        encoding = layoutkit.parse_layout(layout.to_linear_text())
        assert layoutkit.equivalent(encoding, layout, layout.undistributed_shape)
        texts += 1
    assert texts >= 8


def test_random_reshapes_are_right_or_refused():
    """Any reshape either keeps every thread on the same elements in the same register
    order (checked on linear indices) or raises LayoutError -- never a wrong layout."""
    rng = np.random.default_rng(11)
    done = refused = 0
    for _ in range(60):
        rank = int(rng.integers(1, 4))
        tiles = [list(rng.choice([1, 2, 3, 4], size=rank, p=[0.45, 0.25, 0.15, 0.15])) for _ in range(5)]
        strides = []
        for level in (0, 3):
            s, running = [0] * rank, 1
            for d in rng.permutation(rank):
                s[d] = running
                running *= tiles[level][d]
            strides.append(s)
        layout = NestedLayout(*tiles, *strides, subgroup_size=16)
        # a new shape: the prime factors of the size, grouped at random
        total = int(np.prod(layout.undistributed_shape))
        factors, n, p = [], total, 2
        while n > 1:
            while n % p == 0:
                factors.append(p)
                n //= p
            p += 1
        new_shape, current = [], 1
        for f in factors:
            current *= f
            if rng.random() < 0.5:
                new_shape.append(current)
                current = 1
        if current > 1 or not new_shape:
            new_shape.append(current)
        try:
            assert_reshape_preserves_map(layout, new_shape)
            done += 1
        except LayoutError:
            refused += 1
    assert done >= 20 and refused >= 3
