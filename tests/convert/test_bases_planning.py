"""Planning from the bases against planning from the tables.

Power-of-two layouts are planned from their bases (:mod:`layoutkit.convert.bases`); the table
path (:func:`~layoutkit.convert.planner.plan_from_tables`) tabulates the same layouts and
simulates every candidate scratch layout's warp requests. For random pairs both must decide
the same kind and the same cost; the bases' cost must also equal the cost counted on the
plan's materialized steps (every warp request of every block simulated), and the plan must
move the values where the destination's ``apply`` says.

Shuffle plans are the one deliberate difference: the bases schedule the rounds of the
problem divided by the register directions both layouts share (a smaller bipartite graph),
the tables colour the whole graph; both reach the optimal number of rounds, and the divided
schedule never needs more selects here. Where the select counts differ, the choice between
shuffles and shared memory may differ, and each path's choice follows from its own issue
slots.
"""

from __future__ import annotations

import numpy as np
import pytest
from convert_support import distribute
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layout_strategies import linear_layout, mfma_texts, nested_layout, nvidia_family
from test_plan_execution import TableLayout

from layoutkit import LayoutError, LinearLayout, parse_layout
from layoutkit.analysis.hardware import element_bytes, element_type
from layoutkit.convert import bases as linear
from layoutkit.convert import conversion_cost, plan_conversion
from layoutkit.convert.planner import clear_plan_cache, plan_from_bases, plan_from_tables

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])


def both_paths(src, dst, shape, dtype, **options):
    """(plan from the bases or None, plan from the tables or the LayoutError it raised)."""
    name, bits = element_type(dtype)
    args = (src, dst, tuple(shape), name, bits, element_bytes(dtype), options.get("scratch_bytes"),
            options.get("force_shared", False))
    src_bases, dst_bases = linear.flat_bases(src, shape), linear.flat_bases(dst, shape)
    assert src_bases is not None and dst_bases is not None
    fast = plan_from_bases(*args, src_bases, dst_bases)
    try:
        slow = plan_from_tables(*args)
    except LayoutError as error:
        slow = error
    return fast, slow


def issue_slots(plan):
    cost = plan.cost
    if plan.kind == "shuffle":
        return cost.instructions["shfl"] + cost.instructions["select"]
    return (cost.store_wavefronts + cost.load_wavefronts) / plan.hardware[1] + 8 * cost.barriers


def check(src, dst, shape, dtype, seed, **options):
    fast, slow = both_paths(src, dst, shape, dtype, **options)
    if isinstance(slow, LayoutError):
        assert fast is None  # the table path reports the error
        return
    if fast is None:  # only a scratch tile split into repetitions is left to the tables
        assert slow.kind == "shared" and slow.cost.repetitions > 1
        return
    assert fast.known_cost is not None
    assert fast.cost == fast.cost_of_steps()  # the bases' count = every request simulated
    if fast.kind == slow.kind and fast.kind != "shuffle":
        assert fast.cost == slow.cost
    elif fast.kind == slow.kind:
        assert fast.cost.shuffle_rounds == slow.cost.shuffle_rounds
        assert fast.cost.instructions["select"] <= slow.cost.instructions["select"]
    else:  # shuffles against shared memory, decided by each path's own select counts: the
        # bases' divided schedule needs fewer selects, so only the bases keep the shuffles
        assert (fast.kind, slow.kind) == ("shuffle", "shared")
        assert issue_slots(fast) <= issue_slots(slow) and "shared memory chosen over" in slow.notes[-1]
    tensor = np.random.default_rng(seed).integers(0, 1 << 30, size=shape)
    values, expected = distribute(src, shape, tensor), distribute(dst, shape, tensor)
    assert np.array_equal(fast.apply(values), expected)
    assert np.array_equal(slow.apply(values), expected)


@given(data=st.data(), shape=st.sampled_from([(64, 64), (32, 64), (128, 32), (16, 16), (256,)]),
       dtype=st.sampled_from(["f16", "f32", "i8", "f64", "bf16"]), seed=st.integers(0, 2**31),
       force_shared=st.booleans())
@settings(SETTINGS, max_examples=150)
def test_nvidia_families_agree(data, shape, dtype, seed, force_shared):
    if len(shape) == 1:
        src = data.draw(linear_layout(shape, 32, 4, surjective=True))
        dst = data.draw(linear_layout(shape, 32, 4, surjective=False))
    else:
        src = data.draw(nvidia_family(shape, 4, surjective=True))
        dst = data.draw(nvidia_family(shape, 4, surjective=False))
    if linear.flat_bases(src, shape) is None or linear.flat_bases(dst, shape) is None:
        return  # a nested layout of non-power-of-two tiles: tables only
    check(src, dst, shape, dtype, seed, force_shared=force_shared)


@given(data=st.data(), dtype=st.sampled_from(["f16", "f32"]), seed=st.integers(0, 2**31))
@settings(SETTINGS, max_examples=40)
def test_amd_families_agree(data, dtype, seed):
    shape = (64, 64)
    family = st.one_of(st.sampled_from(mfma_texts(4)).map(parse_layout), nested_layout(shape, 64, 4),
                       linear_layout(shape, 64, 4, surjective=True))
    src, dst = data.draw(family), data.draw(family)
    if linear.flat_bases(src, shape) is None or linear.flat_bases(dst, shape) is None:
        return
    check(src, dst, shape, dtype, seed)


@st.composite
def permuted(draw, layout):
    """``layout`` with its register, lane and warp bases shuffled among themselves (so every
    element stays in its block), some broadcast, and the same block bases."""
    bases = layout.bases
    moving = bases["register"] + bases["lane"] + bases["warp"]
    order = draw(st.permutations(range(len(moving))))
    zeros = draw(st.sets(st.integers(0, len(moving) - 1), max_size=2))
    rows = [[0] * len(moving[0]) if k in zeros else moving[i] for k, i in enumerate(order)]
    extra = draw(st.integers(0, 1))
    registers = len(bases["register"]) + extra
    lanes = len(bases["lane"])
    out = {"register": rows[:len(bases["register"])] + [[0] * len(moving[0])] * extra,
           "lane": rows[len(bases["register"]):len(bases["register"]) + lanes],
           "warp": rows[len(bases["register"]) + lanes:], "block": bases["block"]}
    assert len(out["register"]) == registers
    return LinearLayout(out, layout.out_dims)


@given(data=st.data(), dtype=st.sampled_from(["f16", "f32", "i8"]), seed=st.integers(0, 2**31),
       force_shared=st.booleans())
@settings(SETTINGS, max_examples=60)
def test_several_blocks_agree(data, dtype, seed, force_shared):
    shape = (64, 32)
    src = data.draw(linear_layout(shape, 32, 2, surjective=True, blocks=2))
    dst = data.draw(st.one_of(permuted(src), linear_layout(shape, 32, 2, surjective=False, blocks=2)))
    check(src, dst, shape, dtype, seed, force_shared=force_shared)


BLOCKED = parse_layout("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
                       "order = [1, 0]}>")
DOT_B = parse_layout("#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
                     "warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 2}>")


@pytest.mark.parametrize("size", [64, 128, 256, 512])
def test_cost_only_is_the_plans_cost(size):
    clear_plan_cache()
    cost = conversion_cost(BLOCKED, DOT_B, (size, size), "f16")
    assert plan_conversion(BLOCKED, DOT_B, (size, size), "f16", cost_only=True) == cost
    clear_plan_cache()
    plan = plan_conversion(BLOCKED, DOT_B, (size, size), "f16")
    assert "steps" not in plan.__dict__ and "parts" not in plan.__dict__  # nothing per element yet
    assert plan.cost == cost == plan.cost_of_steps()


def test_plans_are_cached_by_value():
    clear_plan_cache()
    first = plan_conversion(BLOCKED, DOT_B, (64, 64), "f16")
    again = plan_conversion(parse_layout(str(BLOCKED)), parse_layout(str(DOT_B)), [64, 64], "f16")
    assert again is first
    assert plan_conversion(BLOCKED, DOT_B, (64, 64), "f32") is not first
    table = TableLayout(np.asarray(BLOCKED.table((64, 64))).reshape(-1, 32, 4, 2), (64, 64))  # planned afresh
    assert plan_conversion(table, DOT_B, (64, 64), "f16").cost == first.cost


def test_errors_come_from_the_table_path():
    wide = parse_layout("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], "
                        "order = [1, 0]}>")
    partial = LinearLayout({"register": [[0, 1]], "lane": [[1, 0]] + [[0, 0]] * 4, "warp": [[0, 0]] * 2},
                           {"dim0": 4, "dim1": 4})
    for src, dst, shape, match in [(BLOCKED, parse_layout(str(wide).replace("warpsPerCTA = [2, 2]",
                                                                            "warpsPerCTA = [8, 1]")),
                                    (64, 64), "warp"),
                                   (partial, BLOCKED.to_linear_layout((4, 4)), (4, 4), "src")]:
        with pytest.raises(LayoutError, match=match):
            plan_conversion(src, dst, shape, "f16")
