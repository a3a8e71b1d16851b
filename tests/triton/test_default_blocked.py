"""default_blocked_encoding: seed 004's table of the layouts Triton attaches, and the
properties the algorithm guarantees."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError, default_blocked_encoding, parse_layout, parse_tensor_type

# seed 004: "当传入 target=cuda:80，其他采用默认时" (num_warps 4, 32 lanes, 1 CTA), plus the
# layouts its conversion examples show for plain tensors of a shape
SEED_TABLE = [
    ("tensor<64x2x32xf16>", "#triton_gpu.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 1, 32], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]}>"),
    ("tensor<32x64x2xf16>", "#triton_gpu.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 16, 2], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]}>"),
    ("tensor<64x2x64x2xf32>", "#triton_gpu.blocked<{sizePerThread = [1, 1, 1, 1], threadsPerWarp = [1, 1, 16, 2], warpsPerCTA = [1, 1, 4, 1], order = [3, 2, 1, 0]}>"),
    ("tensor<128x32xf16>", "#triton_gpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>"),
    # tt.join example: tensor<16x32xf16> -> #blocked, tensor<16x32x2xf16> -> #blocked1
    ("tensor<16x32xf16>", "#triton_gpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>"),
    ("tensor<16x32x2xf16>", "#triton_gpu.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 16, 2], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]}>"),
    # tt.dot example: the operands and the accumulator before conversion
    ("tensor<32x128xf16>", "#triton_gpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>"),
    ("tensor<128x128xf32>", "#triton_gpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>"),
    # tt.expand_dims example: tensor<128x1xi32> -> #blocked
    ("tensor<128x1xi32>", "#triton_gpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>"),
    ("tensor<128xi32>", "#triton_gpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"),
]


@pytest.mark.parametrize("tensor_type, expected", SEED_TABLE)
def test_seed_004_table(tensor_type, expected):
    shape, _ = parse_tensor_type(tensor_type)
    assert default_blocked_encoding(shape) == parse_layout(expected)


def test_issue_examples_by_field():
    enc = default_blocked_encoding((64, 2, 32))
    assert enc.size_per_thread == (1, 1, 1)
    assert enc.threads_per_warp == (1, 1, 32)
    assert enc.warps_per_cta == (2, 2, 1)
    assert enc.order == (2, 1, 0)
    enc = default_blocked_encoding((128, 32))
    assert (enc.threads_per_warp, enc.warps_per_cta) == ((1, 32), (4, 1))


@settings(max_examples=80, deadline=None)
@given(
    shape=st.lists(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 256]), min_size=1, max_size=4),
    num_warps=st.sampled_from([1, 2, 4, 8, 16]),
    threads_per_warp=st.sampled_from([16, 32, 64]),
)
def test_every_lane_and_warp_is_used(shape, num_warps, threads_per_warp):
    enc = default_blocked_encoding(shape, num_warps=num_warps, threads_per_warp=threads_per_warp)
    assert math.prod(enc.threads_per_warp) == threads_per_warp
    assert math.prod(enc.warps_per_cta) == num_warps
    # the fastest dims are covered first: a non-slowest dim never gets more threads than
    # it has elements, and the slowest dim only gets threads the faster ones could not use
    for dim in enc.order[:-1]:
        assert enc.threads_per_warp[dim] * enc.warps_per_cta[dim] <= max(1, shape[dim])
    ll = enc.to_linear_layout(tuple(shape))
    assert ll.in_dims["lane"] == threads_per_warp and ll.in_dims["warp"] == num_warps


def test_fastest_dim_gets_the_lanes_first():
    # 4x64: the 64 contiguous elements take all 32 lanes and 2 warps; the rows the rest
    enc = default_blocked_encoding((4, 64))
    assert enc.threads_per_warp == (1, 32) and enc.warps_per_cta == (2, 2)


def test_num_ctas_spread_from_the_slowest_dim():
    enc = default_blocked_encoding((128, 128), num_ctas=4)
    assert enc.cga.cta_split_num == (4, 1)
    enc = default_blocked_encoding((2, 2), num_ctas=8)  # more CTAs than elements: broadcast
    assert enc.cga.ctas_per_cga == (2, 4) and enc.cga.cta_split_num == (2, 2)


@pytest.mark.parametrize(
    "kwargs, field",
    [({"num_warps": 3}, "num_warps"), ({"threads_per_warp": 0}, "threads_per_warp"), ({"num_ctas": 6}, "num_ctas")],
)
def test_bad_arguments(kwargs, field):
    with pytest.raises(LayoutError, match=f"^{field}:"):
        default_blocked_encoding((16, 16), **kwargs)


def test_bad_shape():
    with pytest.raises(LayoutError, match="^shape:"):
        default_blocked_encoding((16, 0))
