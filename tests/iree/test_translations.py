"""Triton blocked <-> nested translations, checked as functions with layoutkit.equivalent
and against fields worked out by hand from both systems' definitions."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.layouts.iree import NestedLayout, to_blocked
from layoutkit.layouts.triton.blocked import BlockedEncoding

SEED004 = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"


def test_seed004_blocked_16x16_by_hand():
    blocked = layoutkit.parse_layout(SEED004)
    nested = layoutkit.to_nested(blocked, (16, 16))
    # dim 0: 4 warps (warp stride 1) x 4 lanes (lane stride 8);
    # dim 1: 4 of the 8 lanes along it (stride 1; lanes l and l+4 duplicate) x 4 elements
    assert nested == NestedLayout([4, 1], [1, 1], [1, 1], [4, 4], [1, 4], [1, 0], [8, 1],
                                  subgroup_size=32, num_subgroups=4)
    assert layoutkit.equivalent(nested, blocked, (16, 16))
    # the element (i, j) rule of seed 004: lane 8*(i % 4) + j // 4, register j % 4, warp i // 4
    i, j = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    got = nested.apply(register=j % 4, lane=8 * (i % 4) + j // 4, warp=i // 4)
    np.testing.assert_array_equal(got["dim0"], i)
    np.testing.assert_array_equal(got["dim1"], j)


def test_repetitions_above_warps_join_the_thread_level():
    blocked = layoutkit.parse_layout(SEED004)
    nested = layoutkit.to_nested(blocked, (64, 64))
    # dim 0 = 4 repetitions x (4 warps x 4 lanes): the warps continue dim 0's lane ids
    # (flat thread ids 8, 16 | 32, 64), so they form one thread tile of 16 with stride 8
    assert nested.thread_tile == (16, 8) and nested.thread_strides == (8, 1)
    assert nested.batch_tile == (4, 2) and nested.subgroup_tile == (1, 1)
    assert layoutkit.equivalent(nested, blocked, (64, 64))
    assert to_blocked(nested) == blocked


@pytest.mark.parametrize("shape", [(16, 16), (64, 64), (128, 16), (4, 4), (2, 128), (16, 4)])
def test_round_trip_seed004(shape):
    blocked = layoutkit.parse_layout(SEED004)
    nested = layoutkit.to_nested(blocked, shape)
    assert layoutkit.equivalent(nested, blocked, shape)
    back = to_blocked(nested)
    assert layoutkit.equivalent(back, blocked, shape)


def test_untranslatable_blocked_layouts():
    column_major = BlockedEncoding((2, 2), (4, 8), (1, 4), (0, 1))
    with pytest.raises(LayoutError, match="row-major"):
        layoutkit.to_nested(column_major, (16, 64))
    # (a blocked layout on a tensor smaller than sizePerThread no longer has repeated (zero)
    # registers: Triton 3.9 drops them, and the seed's layout at 4x2 translates)
    small = layoutkit.parse_layout(SEED004)
    assert layoutkit.equivalent(layoutkit.to_nested(small, (4, 2)), small, (4, 2))
    # warps of dim 0 do not continue its lanes (dim 0 lanes are not the top lane bits)
    interleaved = BlockedEncoding((1, 1), (4, 8), (4, 1), (0, 1))
    with pytest.raises(LayoutError, match="subgroups outermost"):
        layoutkit.to_nested(interleaved, (64, 8))
    with pytest.raises(LayoutError, match="blocked"):
        layoutkit.to_nested(NestedLayout([1], [1], [1], [1], [1], [0], [0]), (1,))


def test_seed000_layout_has_no_blocked_form():
    # subgroups outside batches along dim 0: a blocked layout repeats its tile above warps
    seed = NestedLayout([2, 1], [2, 4], [1, 1], [16, 4], [1, 4], [1, 0], [1, 16])
    with pytest.raises(LayoutError, match="no blocked layout"):
        to_blocked(seed)
    with pytest.raises(LayoutError, match="outer_tile"):
        to_blocked(NestedLayout([1], [2], [2], [4], [1], [0], [1]))


def test_random_blocked_layouts():
    rng = np.random.default_rng(7)
    translated = 0
    for _ in range(60):
        rank = int(rng.integers(1, 4))
        spt = tuple(int(v) for v in rng.choice([1, 2, 4], size=rank))
        tpw = [1] * rank
        for _ in range(5):  # 32 lanes over the dims
            tpw[int(rng.integers(rank))] *= 2
        wpc = [1] * rank
        for _ in range(int(rng.integers(0, 3))):
            wpc[int(rng.integers(rank))] *= 2
        order = tuple(int(v) for v in (rng.permutation(rank) if rng.random() < 0.3 else range(rank - 1, -1, -1)))
        blocked = BlockedEncoding(spt, tuple(tpw), tuple(wpc), order)
        shape = tuple(int(v) for v in rng.choice([1, 2, 4, 8, 16, 32], size=rank))
        try:
            nested = layoutkit.to_nested(blocked, shape)
        except LayoutError:
            continue
        translated += 1
        assert layoutkit.equivalent(nested, blocked, shape)
        np.testing.assert_array_equal(nested.table(), blocked.table(shape)[..., 0, :])
        assert layoutkit.equivalent(to_blocked(nested), blocked, shape)
    assert translated >= 30
