"""The planner's kind against Triton's decision for the same pair.

Triton (``lib/Analysis/Utility.cpp``: ``minimalCvtLayout``, ``cvtReordersRegisters``,
``cvtNeedsWarpShuffle``, ``cvtNeedsSharedMemory``) composes ``dst.invertAndCompose(src)``
and quotients it by ``block``, then ``warp``, then ``lane`` while the map is the identity
there. What survives decides: no out dims or only ``register`` -> registers; ``register`` and
``lane`` -> warp shuffles; ``warp`` (or ``block``) left -> shared memory. That computation is
redone here from :class:`~layoutkit.core.linear.LinearLayout` (``invert_and_compose``,
``quotient``), independently of the planner, which works on the tabulated element maps.

Where layoutkit deliberately differs:

- ``register`` + ``lane`` left (shuffles possible): Triton further asks its warp-shuffle
  decomposition for fewer than two mixed register/lane transpositions; layoutkit instead
  compares issue slots and takes shared memory when that is cheaper (full transposes inside a
  warp). The test checks that the shared plan then issues fewer memory instructions per thread
  than any shuffle schedule needs rounds (each lane receives at most one 32-bit word a round).
- broadcast (duplicated) layouts: ``invert_and_compose`` here sets free variables to 0, so
  the composed map may point a duplicate at another thread's copy and fail a quotient that the
  element maps pass (Triton's least-squares choice prefers the identity for the same reason).
  layoutkit never picks a costlier kind than the quotient; the test checks the cheaper kind
  directly on the tables.
"""

from __future__ import annotations

import pytest
from convert_support import blocked, dot, slice_of, thread_elements

from layoutkit import parse_layout
from layoutkit.convert import plan_conversion

KIND_ORDER = {"no-op": 0, "registers": 1, "shuffle": 2, "shared": 3}


MMA2 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>"
MMA2_1 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>"
MFMA32 = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [4, 1], instrShape = [32, 32, 8], isTransposed = true}>"
MFMA16 = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16], isTransposed = true}>"
ROW_F16 = blocked([1, 8], [4, 8], [4, 1], [1, 0])
PARENT = blocked([1, 4], [4, 8], [4, 1], [1, 0])

# (name, src, dst, shape, dtype) without broadcast where the kinds must agree exactly
AGREEING = [
    ("blocked -> blocked, register order", blocked([2, 2], [32, 1], [4, 1], [1, 0]),
     blocked([2, 2], [32, 1], [4, 1], [0, 1]), (256, 4), "f32"),
    ("blocked -> blocked, across warps", blocked([1, 1], [32, 1], [1, 4], [1, 0]),
     blocked([1, 1], [1, 32], [4, 1], [1, 0]), (32, 32), "f32"),
    ("blocked -> blocked, lanes only", blocked([1, 1], [8, 4], [1, 1], [1, 0]),
     blocked([1, 1], [4, 8], [1, 1], [1, 0]), (8, 8), "f32"),
    ("blocked 128x128 transpose (#7815)", ROW_F16, blocked([8, 1], [8, 4], [1, 4], [0, 1]), (128, 128), "f16"),
    ("blocked -> mma v2 dot A", ROW_F16, dot(0, MMA2, 2), (128, 64), "f16"),
    ("mma v2 -> dot A kWidth 2 (same map)", MMA2, dot(0, MMA2, 2), (128, 64), "f16"),
    ("mma v2 -> dot A fp8", MMA2_1, dot(0, MMA2_1, 4), (16, 32), "f8E4M3FN"),
    ("mma v2 -> dot A fp8, 4 warps", MMA2, dot(0, MMA2, 4), (64, 64), "f8E4M3FN"),
    ("mma v2 -> dot B", MMA2, dot(1, MMA2, 2), (64, 64), "f16"),
    ("mma v2 -> blocked store", MMA2, blocked([1, 4], [2, 16], [4, 1], [1, 0]), (128, 128), "f32"),
    ("mfma 32 -> dot A kWidth 4 (same map)", MFMA32, dot(0, MFMA32, 4), (128, 64), "f16"),
    ("mfma 32 -> dot A fp8 kWidth 8", MFMA32, dot(0, MFMA32, 8), (128, 64), "f8E4M3FN"),
    ("mfma 16 -> dot A fp8 kWidth 8", MFMA16, dot(0, MFMA16, 8), (64, 64), "f8E4M3FN"),
    ("slice(1) -> slice(0) of a reduction", slice_of(1, PARENT), slice_of(0, PARENT), (128,), "f32"),
    ("slice of mma -> slice of blocked", slice_of(1, MMA2), slice_of(1, blocked([1, 1], [32, 1], [4, 1], [1, 0])),
     (128,), "f32"),
]

# Triton's quotient leaves {register, lane}; layoutkit finds shared memory cheaper
SHARED_ON_COST = [
    ("in-warp transpose 32x16 f32", blocked([1, 4], [8, 4], [1, 1], [1, 0]),
     blocked([4, 1], [4, 8], [1, 1], [0, 1]), (32, 16), "f32"),
    ("in-warp transpose 64x64 f32", blocked([1, 4], [8, 4], [1, 1], [1, 0]),
     blocked([4, 1], [4, 8], [1, 1], [0, 1]), (64, 64), "f32"),
]

# broadcast layouts: the free-variable choice of invert_and_compose makes the quotient pessimistic
BROADCAST = [
    ("slice of spt [1, 4] -> slice of spt [1, 1]", slice_of(1, blocked([1, 4], [4, 8], [4, 1], [1, 0])),
     slice_of(1, blocked([1, 1], [4, 8], [4, 1], [1, 0])), (16,), "f32"),
]


def triton_kind(src, dst, shape):
    """Triton's minimalCvtLayout + cvtReordersRegisters / cvtNeedsWarpShuffle, on quotients."""
    comp = dst.to_linear_layout(shape).invert_and_compose(src.to_linear_layout(shape))
    for dim in ("block", "warp", "lane", "register"):
        if dim not in comp.in_dim_names:
            continue
        quotient = comp.quotient([dim])
        if quotient is None:
            break
        comp = quotient
    left = [name for name in comp.out_dim_names if comp.out_dims[name] > 1]
    if not left:
        return "no-op", left
    if left == ["register"]:
        return "registers", left
    if set(left) <= {"register", "lane"}:
        return "shuffle", left
    return "shared", left


def elements_received(src, dst, shape):
    """Per thread, how many destination elements it holds no copy of in the source."""
    have, need = thread_elements(src, shape), thread_elements(dst, shape)
    return max(len(need[t] - have.get(t, set())) for t in need)


@pytest.mark.parametrize("name,src,dst,shape,dtype", AGREEING, ids=[c[0] for c in AGREEING])
def test_kind_agrees_with_tritons_quotients(name, src, dst, shape, dtype):
    src, dst = parse_layout(src), parse_layout(dst)
    expected, _ = triton_kind(src, dst, shape)
    assert plan_conversion(src, dst, shape, dtype).kind == expected


@pytest.mark.parametrize("name,src,dst,shape,dtype", SHARED_ON_COST, ids=[c[0] for c in SHARED_ON_COST])
def test_shared_memory_chosen_over_shuffles_only_when_cheaper(name, src, dst, shape, dtype):
    src, dst = parse_layout(src), parse_layout(dst)
    kind, left = triton_kind(src, dst, shape)
    assert kind == "shuffle" and left == ["register", "lane"]
    plan = plan_conversion(src, dst, shape, dtype)
    assert plan.kind == "shared"
    assert any("shuffle" in note for note in plan.notes)
    bits = {"f32": 32, "f16": 16}[dtype]
    rounds_at_least = -(-elements_received(src, dst, shape) * bits // 32)
    memory = plan.cost.instructions["st.shared"] + plan.cost.instructions["ld.shared"]
    assert memory < rounds_at_least
    assert plan.cost.store_ratio == plan.cost.load_ratio == 1.0


@pytest.mark.parametrize("name,src,dst,shape,dtype", BROADCAST, ids=[c[0] for c in BROADCAST])
def test_broadcast_pairs_are_never_costlier_than_the_quotient_says(name, src, dst, shape, dtype):
    src, dst = parse_layout(src), parse_layout(dst)
    expected, _ = triton_kind(src, dst, shape)
    plan = plan_conversion(src, dst, shape, dtype)
    assert KIND_ORDER[plan.kind] < KIND_ORDER[expected]
    if plan.kind in ("no-op", "registers"):
        assert elements_received(src, dst, shape) == 0  # every thread already holds a copy
