"""Executing a plan redistributes the tensor exactly as the destination layout's table says.

For random pairs of layouts across families (Triton blocked / slice / nvidia_mma / dot_op /
amd_mfma encodings, linear layouts, IREE nested layouts with non-power-of-two tiles, and a
layout defined only by a table), ``plan.apply(src values)`` must equal the tensor read
through the destination layout -- every element of every thread, broadcast copies included --
on the planner's own path, through shared memory (``force_shared``) and with a scratch budget
smaller than the tile (repetitions). The expected values come from the layouts' ``apply``
in this file, not from the planner's tabulation.
"""

from __future__ import annotations

import numpy as np
import pytest
from convert_support import distribute
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layout_strategies import blocked_text, linear_layout, mfma_texts, nested_layout, nvidia_family

from layoutkit import LayoutError, parse_layout
from layoutkit.convert import plan_conversion
from layoutkit.core.protocol import LayoutBase

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- the reference: convert_support.distribute reads a tensor through a layout's apply ---------

def check_pair(src, dst, shape, dtype, rng, **options):
    tensor = rng.integers(0, 1 << 30, size=shape)
    plan = plan_conversion(src, dst, shape, dtype, **options)
    out = plan.apply(distribute(src, shape, tensor))
    expected = distribute(dst, shape, tensor)
    assert out.shape == expected.shape
    assert np.array_equal(out, expected), (plan.kind, str(src), str(dst))
    return plan


def check_printed_scratch(plan):
    """The shared layout as printed, parsed back, puts every element where the plan does."""
    text = plan.scratch_text
    if not text.startswith("#ttg.") or plan.hardware[0] > 1:
        return  # a bank-coloured table has no attribute form; several blocks: one scratch each
    printed = parse_layout(text)
    table = np.asarray(printed.table(plan.shape)).reshape(-1, len(plan.shape))
    offset_of = np.full(int(np.prod(plan.shape)), -1)
    for offset, coords in enumerate(table):
        if (coords >= 0).all():
            flat = int(np.ravel_multi_index(tuple(coords), plan.shape))
            offset_of[flat] = offset if offset_of[flat] < 0 else min(offset_of[flat], offset)
    assert np.array_equal(offset_of, plan.scratch.offsets), text


def check_all_paths(src, dst, shape, dtype, seed):
    rng = np.random.default_rng(seed)
    plan = check_pair(src, dst, shape, dtype, rng)
    shared = check_pair(src, dst, shape, dtype, rng, force_shared=True)
    assert shared.kind == "shared"
    check_printed_scratch(shared)
    tile = shared.cost.scratch_bytes
    if tile > 256:
        small = check_pair(src, dst, shape, dtype, rng, scratch_bytes=max(256, tile // 4), force_shared=True)
        assert small.cost.scratch_bytes <= max(256, tile // 4)
        assert small.cost.repetitions >= 2
        assert small.cost.barriers == 2 * small.cost.repetitions - 1
    return plan


class TableLayout(LayoutBase):
    """A distributed layout given only by its table (tests the protocol path)."""

    def __init__(self, table, shape):
        self._table = np.asarray(table)
        self._shape = tuple(shape)

    def hardware_dims(self, shape=None):
        return dict(zip(("register", "lane", "warp"), self._table.shape[:3]))

    def tensor_shape(self, shape=None):
        return self._shape

    def apply(self, shape=None, **hw):
        reg, lane, warp = (np.asarray(hw.get(n, 0)) for n in ("register", "lane", "warp"))
        coords = self._table[reg, lane, warp]
        return {f"dim{d}": coords[..., d] for d in range(len(self._shape))}

    def __str__(self):
        return "table layout"


@st.composite
def table_layout(draw, shape, lanes, warps, registers):
    """Random assignment of the elements to (register, lane, warp), every element at least once."""
    numel = int(np.prod(shape))
    slots = registers * lanes * warps
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    flat = np.concatenate([rng.permutation(numel), rng.integers(0, numel, slots - numel)])
    flat = rng.permutation(flat) if draw(st.booleans()) else flat
    coords = np.stack(np.unravel_index(flat, shape), axis=-1)
    return TableLayout(coords.reshape(registers, lanes, warps, len(shape)), shape)


# -- the properties --------------------------------------------------------------------------------

@given(data=st.data(), shape=st.sampled_from([(64, 64), (32, 64), (128, 32)]),
       dtype=st.sampled_from(["f16", "f32", "i8", "f64"]), seed=st.integers(0, 2**31))
@settings(SETTINGS, max_examples=80)
def test_nvidia_families(data, shape, dtype, seed):
    src = data.draw(nvidia_family(shape, 4, surjective=True))
    dst = data.draw(nvidia_family(shape, 4, surjective=False))
    check_all_paths(src, dst, shape, dtype, seed)


@given(data=st.data(), dtype=st.sampled_from(["f16", "bf16", "f32"]), seed=st.integers(0, 2**31))
@settings(SETTINGS, max_examples=40)
def test_amd_families(data, dtype, seed):
    shape = (64, 64)

    def family():
        return st.one_of(
            st.sampled_from(mfma_texts(4)).map(parse_layout),
            blocked_text(2, 64, 4).map(parse_layout),
            nested_layout(shape, 64, 4),
        )

    check_all_paths(data.draw(family()), data.draw(family()), shape, dtype, seed)


@given(data=st.data(), shape=st.sampled_from([(48, 40), (24, 36), (96,)]),
       dtype=st.sampled_from(["f16", "f32"]), seed=st.integers(0, 2**31))
@settings(SETTINGS, max_examples=60)
def test_non_power_of_two_tables(data, shape, dtype, seed):
    lanes, warps = 32, 2
    numel = int(np.prod(shape))
    registers = -(-numel // (lanes * warps)) * data.draw(st.sampled_from([1, 2]))

    def family():
        return st.one_of(nested_layout(shape, lanes, warps), table_layout(shape, lanes, warps, registers))

    src = data.draw(family())
    dst = data.draw(family())
    check_all_paths(src, dst, shape, dtype, seed)


@given(data=st.data(), dtype=st.sampled_from(["f16", "f32"]), seed=st.integers(0, 2**31))
@SETTINGS
def test_slices_one_dimensional(data, dtype, seed):
    shape = (256,)

    def family():
        parent = blocked_text(2, 32, 4)
        return st.one_of(
            st.tuples(st.integers(0, 1), parent).map(
                lambda p: parse_layout(f"#ttg.slice<{{dim = {p[0]}, parent = {p[1]}}}>")),
            blocked_text(1, 32, 4).map(parse_layout),
            linear_layout(shape, 32, 4, surjective=True),
        )

    check_all_paths(data.draw(family()), data.draw(family()), shape, dtype, seed)


def test_apply_checks_the_values_shape():
    blocked = parse_layout("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
                           "warpsPerCTA = [4, 1], order = [1, 0]}>")
    plan = plan_conversion(blocked, blocked, (16, 32), "f16")
    with pytest.raises(LayoutError, match="values"):
        plan.apply(np.zeros((1, 4, 32, 3)))
