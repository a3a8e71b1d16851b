"""Known conversions (issue §5): identities, register permutations, shuffles that Triton does
with shuffles, IREE's batch/outer rule, forced shared memory, and conflict-free scratch
layouts where one exists -- each checked against a direct computation in this file."""

from __future__ import annotations

import numpy as np
import pytest
from convert_support import blocked, distribute

from layoutkit import LinearLayout, parse_layout
from layoutkit.convert import plan_conversion
from layoutkit.layouts.iree import NestedLayout

BLOCKED = ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
           "warpsPerCTA = [4, 1], order = [1, 0]}>")
MMA = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>"
MFMA = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>"


def dot(op_idx, k_width, parent=MMA):
    return parse_layout(f"#ttg.dot_op<{{opIdx = {op_idx}, parent = {parent}, kWidth = {k_width}}}>")


@pytest.mark.parametrize("text,shape", [
    (BLOCKED, (64, 64)),
    (MMA, (64, 32)),
    (MFMA, (64, 64)),
    ("#ttg.slice<{dim = 0, parent = " + BLOCKED + "}>", (128,)),
])
def test_a_layout_to_itself_is_a_no_op(text, shape):
    layout = parse_layout(text)
    plan = plan_conversion(layout, layout, shape, "f16")
    assert plan.kind == "no-op"
    assert plan.steps == ()
    assert plan.cost.instructions == {}


def test_nested_layout_to_itself_is_a_no_op():
    nested = NestedLayout(subgroup_tile=[2, 1], batch_tile=[3, 1], outer_tile=[1, 1], thread_tile=[4, 8],
                          element_tile=[1, 3], subgroup_strides=[1, 0], thread_strides=[8, 1],
                          subgroup_size=32, num_subgroups=2)
    assert plan_conversion(nested, nested, nested.tensor_shape(), "f32").kind == "no-op"


def test_blocked_layouts_differing_in_register_order_are_register_permutations():
    # one thread per row-pair: the order of a 2x2 per-thread tile only renumbers registers
    a = parse_layout(blocked([2, 2], [32, 1], [4, 1], [1, 0]))
    b = parse_layout(blocked([2, 2], [32, 1], [4, 1], [0, 1]))
    shape = (256, 4)
    plan = plan_conversion(a, b, shape, "f16")
    assert plan.kind == "registers"
    assert plan.cost.instructions == {}
    tensor = np.arange(np.prod(shape)).reshape(shape)
    out = plan.apply(distribute(a, shape, tensor))
    assert np.array_equal(out, distribute(b, shape, tensor))


def test_linear_layout_with_permuted_register_bases_is_a_register_permutation():
    layout = parse_layout(BLOCKED)
    ll = layout.to_linear_layout((64, 64))
    bases = {name: [list(b) for b in ll.bases[name]] for name in ll.in_dim_names}
    bases["register"] = bases["register"][::-1]
    permuted = LinearLayout(bases, ll.out_dims)
    assert plan_conversion(layout, permuted, (64, 64), "f32").kind == "registers"


def test_mma_accumulator_to_fp16_dot_operand_stays_in_registers():
    # Triton's "mma -> dot operand shortcut": the fp16 A operand layout is the accumulator's
    plan = plan_conversion(parse_layout(MMA), dot(0, 2), (64, 32), "f16")
    assert plan.kind in ("no-op", "registers")


@pytest.mark.parametrize("shape", [(64, 32), (64, 64), (128, 64)])
def test_mma_accumulator_to_fp8_dot_operand_uses_shuffles(shape):
    # Triton converts the mma v2 accumulator to an 8-bit A operand inside each warp with shuffles
    src, dst = parse_layout(MMA), dot(0, 4)
    plan = plan_conversion(src, dst, shape, "f8E4M3FN")
    assert plan.kind == "shuffle"
    # every element a lane needs is in its own quad of lanes (lanes 4*g .. 4*g+3)
    for shuffle in plan.steps:
        lanes = np.arange(32)
        assert np.all(shuffle.source_lane // 4 == lanes // 4)
    tensor = np.random.default_rng(1).integers(0, 255, size=shape)
    out = plan.apply(distribute(src, shape, tensor))
    assert np.array_equal(out, distribute(dst, shape, tensor))
    # cost: one shfl per round; selects = per round, distinct offered register tuples in a warp - 1
    selects = 0
    for shuffle in plan.steps:
        per_warp = [{tuple(int(r) for r in shuffle.offered[0, w, lane]) for lane in range(32)}
                    for w in range(shuffle.offered.shape[1])]
        selects += max(len(words) for words in per_warp) - 1
    assert plan.cost.instructions == {"shfl": len(plan.steps), "select": selects}


def test_nested_layouts_differing_only_in_batch_and_outer_convert_in_registers():
    common = dict(subgroup_tile=[2, 1], thread_tile=[4, 16], element_tile=[1, 2],
                  subgroup_strides=[1, 0], thread_strides=[16, 1], subgroup_size=64, num_subgroups=2)
    a = NestedLayout(batch_tile=[2, 1], outer_tile=[1, 3], **common)
    b = NestedLayout(batch_tile=[1, 3], outer_tile=[2, 1], **common)
    assert a.tensor_shape() == b.tensor_shape() == (16, 96)
    plan = plan_conversion(a, b, a.tensor_shape(), "f16")
    assert plan.kind == "registers"
    forced = plan_conversion(a, b, a.tensor_shape(), "f16", force_shared=True)
    assert forced.kind == "shared"
    assert forced.cost.instructions["st.shared"] > 0 and forced.cost.instructions["ld.shared"] > 0


def test_across_warps_goes_through_shared_memory():
    a = parse_layout(BLOCKED)
    b = parse_layout("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], "
                     "warpsPerCTA = [1, 4], order = [0, 1]}>")
    plan = plan_conversion(a, b, (64, 64), "f32")
    assert plan.kind == "shared"
    assert plan.cost.barriers == 1
    assert plan.cost.scratch_bytes == 64 * 64 * 4


@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_128x128_transpose_is_conflict_free_on_both_sides(dtype):
    # Triton issue #7815: a row-major -> column-major transpose of a 128x128 block
    a = parse_layout("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
                     "warpsPerCTA = [4, 1], order = [1, 0]}>")
    b = parse_layout("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], "
                     "warpsPerCTA = [1, 4], order = [0, 1]}>")
    cost = plan_conversion(a, b, (128, 128), dtype).cost
    assert cost.store_wavefronts == cost.store_lower_bound
    assert cost.load_wavefronts == cost.load_lower_bound
    # 16-byte accesses on at least one side
    assert max(cost.store_vector, cost.load_vector) * (2 if dtype == "f16" else 4) == 16


def test_scratch_budget_splits_into_repetitions():
    a = parse_layout(BLOCKED)
    b = parse_layout("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], "
                     "warpsPerCTA = [1, 4], order = [0, 1]}>")
    whole = plan_conversion(a, b, (128, 128), "f16")
    split = plan_conversion(a, b, (128, 128), "f16", scratch_bytes=8192)
    assert whole.cost.repetitions == 1
    assert split.cost.repetitions == 4 and split.cost.scratch_bytes == 8192
    assert split.cost.barriers == 7
    offsets = [s.offsets for s in split.steps if s.kind in ("st.shared", "ld.shared")]
    assert all(o.max() < 8192 // 2 for o in offsets)


def test_non_power_of_two_nested_pair_is_conflict_free_through_a_bank_coloured_table():
    common = dict(element_tile=[2, 5], subgroup_size=32, num_subgroups=2)
    a = NestedLayout(subgroup_tile=[2, 1], batch_tile=[3, 1], outer_tile=[1, 1], thread_tile=[4, 8],
                     subgroup_strides=[1, 0], thread_strides=[8, 1], **common)
    b = NestedLayout(subgroup_tile=[1, 2], batch_tile=[1, 1], outer_tile=[3, 1], thread_tile=[8, 4],
                     subgroup_strides=[0, 1], thread_strides=[1, 8], **common)
    shape = a.tensor_shape()
    plan = plan_conversion(a, b, shape, "f32")
    cost = plan.cost
    assert (cost.store_wavefronts, cost.load_wavefronts) == (cost.store_lower_bound, cost.load_lower_bound)
    assert cost.scratch_bytes == 4 * 48 * 40  # every word used
    # the claim checked by hand: in every request all active lanes hit distinct banks
    for step in plan.steps:
        if step.kind in ("st.shared", "ld.shared"):
            for w in range(2):
                for i in range(step.offsets.shape[-1]):
                    offs = [int(o) for o in step.offsets[0, w, :, i] if o >= 0]
                    assert len({o % 32 for o in offs}) == len(set(offs))
    tensor = np.random.default_rng(3).integers(0, 1 << 20, size=shape)
    out = plan.apply(distribute(a, shape, tensor))
    assert np.array_equal(out, distribute(b, shape, tensor))


@pytest.mark.parametrize("cga", ["[[1, 0]]", "[[0, 1], [1, 0]]"])
def test_multi_block_layouts_convert_inside_each_block_with_a_scratch_per_block(cga):
    a = parse_layout("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
                     f"order = [1, 0], CGALayout = {cga}}}>")
    b = parse_layout("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
                     f"order = [0, 1], CGALayout = {cga}}}>")
    shape = (64, 64)
    blocks = a.hardware_dims(shape)["block"]
    for options in ({}, {"scratch_bytes": 1024}):
        plan = plan_conversion(a, b, shape, "f16", **options)
        assert plan.kind == "shared"
        assert plan.cost.scratch_bytes <= options.get("scratch_bytes", 64 * 64 * 2 // blocks)
        tensor = np.random.default_rng(5).integers(0, 1 << 20, size=shape)
        out = plan.apply(distribute(a, shape, tensor))
        assert np.array_equal(out, distribute(b, shape, tensor))
        assert plan.cost.store_wavefronts == plan.cost.store_lower_bound


def test_shuffles_costing_more_than_shared_memory_go_through_shared_memory():
    # a 64x64 transpose inside one warp: every lane would offer a different register each
    # round (a select chain per round), while shared memory moves it in 32 + 32 wavefronts
    a = parse_layout("#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], "
                     "warpsPerCTA = [1, 1], order = [1, 0]}>")
    b = parse_layout("#ttg.blocked<{sizePerThread = [16, 1], threadsPerWarp = [1, 32], "
                     "warpsPerCTA = [1, 1], order = [0, 1]}>")
    plan = plan_conversion(a, b, (64, 64), "f32")
    assert plan.kind == "shared"
    assert any("shuffle" in note for note in plan.notes)


def test_triton_linear_encoding_text_converts_like_its_bases_say():
    # the same map as an mma v2 accumulator with its register bases reordered: registers only
    text = ("#ttg.linear<{register = [[0, 1], [8, 0], [0, 8], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], "
            "[2, 0], [4, 0]], warp = [[16, 0], [32, 0]], block = []}>")
    swapped = text.replace("[[0, 1], [8, 0], [0, 8], [64, 0]]", "[[64, 0], [0, 8], [8, 0], [0, 1]]")
    a, b = parse_layout(text), parse_layout(swapped)
    plan = plan_conversion(a, b, (128, 16), "f32")
    assert plan.kind == "registers"
    # register r of b holds the element of register reverse-bits(r) of a
    reverse = [int(f"{r:04b}"[::-1], 2) for r in range(16)]
    assert np.array_equal(plan.gather[0, 0, 0], reverse)
