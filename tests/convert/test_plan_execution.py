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

from layoutkit import LayoutError, LinearLayout, parse_layout
from layoutkit.convert import plan_conversion
from layoutkit.core.protocol import LayoutBase
from layoutkit.layouts.iree import NestedLayout

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


# -- strategies ------------------------------------------------------------------------------------

def pow2_split(draw, total, parts):
    """``parts`` powers of two whose product is ``total`` (a power of two)."""
    bits = total.bit_length() - 1
    cuts = sorted(draw(st.lists(st.integers(0, bits), min_size=parts - 1, max_size=parts - 1)))
    edges = [0, *cuts, bits]
    return [1 << (edges[i + 1] - edges[i]) for i in range(parts)]


@st.composite
def blocked_text(draw, rank, lanes, warps):
    size = [draw(st.sampled_from([1, 2, 4, 8])) for _ in range(rank)]
    threads = pow2_split(draw, lanes, rank)
    warps_per = pow2_split(draw, warps, rank)
    order = draw(st.permutations(list(range(rank))))
    return (f"#ttg.blocked<{{sizePerThread = {size}, threadsPerWarp = {threads}, "
            f"warpsPerCTA = {warps_per}, order = {list(order)}}}>")


@st.composite
def linear_layout(draw, shape, lanes, warps, surjective):
    """A random linear layout (register, lane, warp, block) onto ``shape`` (powers of two)."""
    rank = len(shape)
    tensor_bits = [(d, 1 << b) for d in range(rank) for b in range(shape[d].bit_length() - 1)]
    n = len(tensor_bits)
    hw_bits = {"lane": lanes.bit_length() - 1, "warp": warps.bit_length() - 1}
    need = max(0, n - sum(hw_bits.values())) if surjective else 0
    hw_bits["register"] = draw(st.integers(need, need + 2))
    total = sum(hw_bits.values())
    # random columns; the first n columns of a random order form an invertible matrix when surjective
    rows = []
    if surjective:
        while True:
            matrix = np.array(draw(st.lists(st.integers(0, (1 << n) - 1), min_size=total, max_size=total)))
            from layoutkit.core import gf2
            if gf2.rank([int(v) for v in matrix]) == n:
                break
    else:
        matrix = np.array(draw(st.lists(st.integers(0, (1 << n) - 1), min_size=total, max_size=total)))
    for value in matrix:
        coord = [0] * rank
        for bit, (d, step) in enumerate(tensor_bits):
            if int(value) >> bit & 1:
                coord[d] += step
        rows.append(coord)
    bases, start = {}, 0
    for name in ("register", "lane", "warp"):
        bases[name] = rows[start:start + hw_bits[name]]
        start += hw_bits[name]
    bases["block"] = []
    return LinearLayout(bases, {f"dim{d}": shape[d] for d in range(rank)})


def mma_texts(warps):
    out = []
    for w0 in (1, 2, 4):
        if warps % w0:
            continue
        mma = f"#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [{w0}, {warps // w0}], instrShape = [16, 8]}}>"
        out += [mma,
                f"#ttg.dot_op<{{opIdx = 0, parent = {mma}, kWidth = 2}}>",
                f"#ttg.dot_op<{{opIdx = 1, parent = {mma}, kWidth = 2}}>"]
    return out


def mfma_texts(warps):
    out = []
    for w0 in (1, 2, 4):
        if warps % w0:
            continue
        for instr, transposed in (("[32, 32, 8]", "false"), ("[16, 16, 16]", "true")):
            mfma = (f"#ttg.amd_mfma<{{version = 3, warpsPerCTA = [{w0}, {warps // w0}], "
                    f"instrShape = {instr}, isTransposed = {transposed}}}>")
            out += [mfma, f"#ttg.dot_op<{{opIdx = 0, parent = {mfma}, kWidth = 4}}>"]
    return out


@st.composite
def nested_layout(draw, shape, lanes, warps):
    """An IREE nested layout on ``shape`` (any sizes): per dim subgroup * batch * outer *
    thread * element = size, threads and subgroups laid out row- or column-major."""
    rank = len(shape)
    tiles = {k: [1] * rank for k in ("subgroup", "batch", "outer", "thread", "element")}
    budget = {"thread": lanes, "subgroup": warps}
    for d in range(rank):
        rest = shape[d]
        for level in ("subgroup", "thread", "element", "outer"):
            divisors = [f for f in range(1, rest + 1) if rest % f == 0
                        and (level not in budget or f <= budget[level] and budget[level] % f == 0)]
            f = draw(st.sampled_from(divisors))
            tiles[level][d] = f
            rest //= f
            if level in budget:
                budget[level] //= f
        tiles["batch"][d] = rest
    strides = {}
    for level in ("thread", "subgroup"):
        dims = draw(st.permutations(list(range(rank))))
        stride, out = 1, [0] * rank
        for d in dims:
            out[d] = stride if tiles[level][d] > 1 else 0
            stride *= tiles[level][d]
        strides[level] = out
    return NestedLayout(subgroup_tile=tiles["subgroup"], batch_tile=tiles["batch"], outer_tile=tiles["outer"],
                        thread_tile=tiles["thread"], element_tile=tiles["element"],
                        subgroup_strides=strides["subgroup"], thread_strides=strides["thread"],
                        subgroup_size=lanes, num_subgroups=warps)


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

@st.composite
def nvidia_family(draw, shape, warps, surjective):
    kind = draw(st.sampled_from(["blocked", "linear", "mma", "nested"]))
    if kind == "blocked":
        return parse_layout(draw(blocked_text(len(shape), 32, warps)))
    if kind == "linear":
        return draw(linear_layout(shape, 32, warps, surjective))
    if kind == "mma":
        return parse_layout(draw(st.sampled_from(mma_texts(warps))))
    return draw(nested_layout(shape, 32, warps))


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
