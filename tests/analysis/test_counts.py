"""The analysis counts equal brute-force counts: every lane's addresses of every instruction are
simulated here with plain Python sets and dicts, independently of the vectorized code."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError, parse_layout
from layoutkit.analysis import (
    duplication_factor,
    global_access,
    global_sectors,
    registers_per_thread,
    shared_access,
    shared_wavefronts,
)
from layoutkit.convert import plan_conversion
from layoutkit.layouts.iree import NestedLayout

# -- one warp request, brute force -------------------------------------------------------------


def brute_wavefronts(addresses, access_bytes):
    """(wavefronts, lower bound) of one request: phases of 128 bytes of consecutive lanes; per
    phase the most distinct 4-byte words any bank delivers; lower bound ceil(words / 32)."""
    per_phase = 128 // max(access_bytes, 4)
    waves = lower = 0
    for start in range(0, len(addresses), per_phase):
        words = set()
        for a in addresses[start:start + per_phase]:
            if a < 0:
                continue
            first = a // 4
            words.update(range(first, first + max(1, access_bytes // 4)))
        banks: dict[int, set[int]] = {}
        for w in words:
            banks.setdefault(w % 32, set()).add(w)
        waves += max((len(s) for s in banks.values()), default=0)
        lower += math.ceil(len(words) / 32)
    return waves, lower


def brute_sectors(addresses, access_bytes):
    touched = {b for a in addresses if a >= 0 for b in range(a, a + access_bytes)}
    return len({b // 32 for b in touched}), math.ceil(len(touched) / 32)


@st.composite
def warp_request(draw):
    access = draw(st.sampled_from([1, 2, 4, 8, 16]))
    lanes = draw(st.sampled_from([32, 64]))
    span = draw(st.sampled_from([8, 64, 512]))
    units = draw(st.lists(st.integers(-1, span), min_size=lanes, max_size=lanes))
    return [u * access if u >= 0 else -1 for u in units], access


@given(requests=st.lists(warp_request(), min_size=1, max_size=4))
@settings(max_examples=200, deadline=None)
def test_shared_wavefronts_match_brute_force(requests):
    for addresses, access in requests:
        waves, lower = shared_wavefronts(np.array([addresses]), access)
        assert (int(waves[0]), int(lower[0])) == brute_wavefronts(addresses, access)


@given(request=warp_request())
@settings(max_examples=200, deadline=None)
def test_global_sectors_match_brute_force(request):
    addresses, access = request
    sectors, minimum = global_sectors(np.array(addresses), access)
    assert (int(sectors), int(minimum)) == brute_sectors(addresses, access)


def test_known_bank_cases():
    column = np.arange(32) * 128  # column of a row-major 32x32 f32 tile
    assert tuple(map(int, shared_wavefronts(column, 4))) == (32, 1)
    assert tuple(map(int, shared_wavefronts(column + np.arange(32) * 4, 4))) == (1, 1)  # padded by one word
    assert tuple(map(int, shared_wavefronts(np.zeros(32, int), 4))) == (1, 1)  # broadcast
    assert tuple(map(int, shared_wavefronts(np.arange(32) * 16, 16))) == (4, 4)  # 128-bit, 4 phases
    assert tuple(map(int, shared_wavefronts(np.arange(32) * 2, 2))) == (1, 1)  # f16 pairs share words
    with pytest.raises(LayoutError, match="access_bytes"):
        shared_wavefronts(column, 32)


# -- a layout's accesses, brute force ------------------------------------------------------------


def threads_of(layout, shape):
    """{(block, warp, lane): [flat element per register]} from the layout's own apply."""
    hw = layout.hardware_dims(shape)
    out = {}
    for b in range(hw.get("block", 1)):
        for w in range(hw.get("warp", 1)):
            for lane in range(hw["lane"]):
                regs = np.arange(hw["register"])
                args = {"register": regs, "lane": np.full_like(regs, lane), "warp": np.full_like(regs, w)}
                if "block" in hw:
                    args["block"] = np.full_like(regs, b)
                coords = layout.apply(shape, **{k: v for k, v in args.items() if k in hw})
                flat = np.ravel_multi_index(tuple(np.asarray(coords[f"dim{d}"]) for d in range(len(shape))), shape)
                out[(b, w, lane)] = [int(x) for x in np.broadcast_to(flat, regs.shape)]
    return out, hw


def contiguous_runs(offs, v):
    """Registers v*k .. v*k+v-1 hold aligned consecutive offsets."""
    return len(offs) % v == 0 and all(
        offs[k] % v == 0 and all(offs[k + j] == offs[k] + j for j in range(v)) for k in range(0, len(offs), v))


def any_registers(offs, v):
    """Every held offset's aligned group of v offsets is held by the thread."""
    return all((o - o % v + j) in set(offs) for o in offs for j in range(v))


def brute_access(layout, shape, offset_of, elem_bytes, kind, contiguous=True):
    threads, hw = threads_of(layout, shape)
    per_thread = {t: [offset_of[e] for e in elems] for t, elems in threads.items()}
    feasible = contiguous_runs if contiguous else any_registers
    vector = 1
    while vector * 2 * elem_bytes <= 16:
        v = vector * 2
        if all(feasible(offs, v) for offs in per_thread.values()):
            vector = v
        else:
            break
    instructions = {}
    for t, offs in per_thread.items():
        first_reg = {}
        for r, o in enumerate(offs):
            first_reg.setdefault(o // vector, r)
        instructions[t] = [g * vector for g, _ in sorted(first_reg.items(), key=lambda kv: kv[1])]
    count = max(len(v) for v in instructions.values())
    total_waves = total_lower = 0
    for (b, w) in {(t[0], t[1]) for t in per_thread}:
        for i in range(count):
            addrs = []
            for lane in range(hw["lane"]):
                ins = instructions[(b, w, lane)]
                addrs.append(ins[i] * elem_bytes if i < len(ins) else -1)
            if kind == "shared":
                wv, lo = brute_wavefronts(addrs, vector * elem_bytes)
            else:
                wv, lo = brute_sectors(addrs, vector * elem_bytes)
            total_waves += wv
            total_lower += lo
    return vector, count, total_waves, total_lower


def offsets_from_memory_layout(memory, shape):
    table = memory.table(shape).reshape(-1, len(shape))
    offset_of = {}
    for offset, coord in enumerate(table):
        if (coord >= 0).all():
            offset_of.setdefault(int(np.ravel_multi_index(tuple(coord), shape)), offset)
    return offset_of


DISTRIBUTED = [
    ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>", (32, 64)),
    ("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>", (32, 64)),
    ("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [0, 1]}>", (32, 64)),
    ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>", (32, 64)),
    ("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
     "warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>", (32, 64)),
    ("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], isTransposed = true}>", (32, 64)),
]
MEMORY = [
    "row-major",
    "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
    "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
    "#ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [0, 1]}>",
    "#ttg.padded_shared<[64:+4] {order = [1, 0], shape = [32, 64]}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
]


@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize("memory_text", MEMORY)
@pytest.mark.parametrize("layout_text,shape", DISTRIBUTED)
@pytest.mark.parametrize("dtype,elem_bytes", [("f16", 2), ("f32", 4)])
def test_shared_access_matches_brute_force(layout_text, shape, memory_text, dtype, elem_bytes, contiguous):
    layout = parse_layout(layout_text)
    if memory_text == "row-major":
        memory = "row-major"
        offset_of = {e: e for e in range(int(np.prod(shape)))}
    else:
        memory = parse_layout(memory_text)
        offset_of = offsets_from_memory_layout(memory, shape)
    report = shared_access(layout, memory, shape, dtype, contiguous_registers=contiguous)
    vector, count, waves, lower = brute_access(layout, shape, offset_of, elem_bytes, "shared", contiguous)
    assert (report.vector, report.instructions, report.wavefronts, report.lower_bound) == (vector, count, waves, lower)


def test_shared_access_of_a_non_power_of_two_nested_layout():
    nested = NestedLayout(subgroup_tile=[2, 1], batch_tile=[3, 1], outer_tile=[1, 1], thread_tile=[4, 8],
                          element_tile=[1, 3], subgroup_strides=[1, 0], thread_strides=[8, 1],
                          subgroup_size=32, num_subgroups=2)
    shape = nested.tensor_shape()
    numel = int(np.prod(shape))
    padded = np.arange(numel) + (np.arange(numel) // shape[1]) * 1  # one element of padding per row
    report = shared_access(nested, padded, shape, "f32")
    vector, count, waves, lower = brute_access(nested, shape, {e: int(padded[e]) for e in range(numel)}, 4, "shared")
    assert (report.vector, report.instructions, report.wavefronts, report.lower_bound) == (vector, count, waves, lower)


@pytest.mark.parametrize("layout_text,shape", DISTRIBUTED)
def test_global_access_matches_brute_force(layout_text, shape):
    layout = parse_layout(layout_text)
    report = global_access(layout, shape, "f16")
    vector, count, sectors, minimum = brute_access(
        layout, shape, {e: e for e in range(int(np.prod(shape)))}, 2, "global")
    assert (report.vector, report.instructions, report.sectors, report.minimum_sectors) == (vector, count, sectors, minimum)


def test_global_access_with_strides():
    layout = parse_layout(DISTRIBUTED[0][0])
    shape = (32, 64)
    strides = (1, 32)  # column-major
    offset_of = {r * 64 + c: r + 32 * c for r in range(32) for c in range(64)}
    report = global_access(layout, shape, "f32", strides=strides)
    vector, count, sectors, minimum = brute_access(layout, shape, offset_of, 4, "global")
    assert (report.vector, report.sectors, report.minimum_sectors) == (vector, sectors, minimum)
    assert report.efficiency < 1.0


def test_global_access_refuses_strides_beyond_2_to_the_56():
    with pytest.raises(LayoutError, match=r"strides: '\[1, 72057594037927936\]' reach offsets of 2\*\*56"):
        global_access(parse_layout(DISTRIBUTED[0][0]), (32, 64), "f32", strides=(1, 1 << 56))


def test_registers_and_duplication():
    blocked = parse_layout(DISTRIBUTED[0][0])  # covers 16x32 per CTA tile
    threads, _ = threads_of(blocked, (8, 16))
    slots = sum(len(v) for v in threads.values())
    distinct = len({e for v in threads.values() for e in v})
    assert duplication_factor(blocked, (8, 16)) == slots / distinct == (16 * 32) / (8 * 16)
    assert registers_per_thread(blocked, (64, 64)) == 64 * 64 // 128


def test_plan_cost_matches_brute_force_over_its_steps():
    src = parse_layout(DISTRIBUTED[0][0])
    dst = parse_layout(DISTRIBUTED[1][0])
    for options in ({}, {"scratch_bytes": 1024}):
        plan = plan_conversion(src, dst, (32, 64), "f16", **options)
        waves = {"st.shared": [0, 0], "ld.shared": [0, 0]}
        issued = {"st.shared": 0, "ld.shared": 0}
        for step in plan.steps:
            if step.kind not in waves:
                continue
            offsets = step.offsets
            issued[step.kind] += max(int((offsets[b, w, lane] >= 0).sum())
                                     for b in range(offsets.shape[0]) for w in range(offsets.shape[1])
                                     for lane in range(offsets.shape[2]))
            for b in range(offsets.shape[0]):
                for w in range(offsets.shape[1]):
                    for i in range(offsets.shape[3]):
                        addrs = [int(o) * 2 if o >= 0 else -1 for o in offsets[b, w, :, i]]
                        wv, lo = brute_wavefronts(addrs, step.vector * 2)
                        waves[step.kind][0] += wv
                        waves[step.kind][1] += lo
        cost = plan.cost
        assert [cost.store_wavefronts, cost.store_lower_bound] == waves["st.shared"]
        assert [cost.load_wavefronts, cost.load_lower_bound] == waves["ld.shared"]
        assert cost.instructions["st.shared"] == issued["st.shared"]
        assert cost.instructions["ld.shared"] == issued["ld.shared"]


def test_benchmark_transpose_7815_wavefronts_by_hand():
    """The 128x128 f16 transpose of the benchmark (Triton issue #7815): every lane's store and
    load addresses rebuilt from the layout tables and the chosen scratch offsets, then counted
    lane by lane -- the figures the benchmark prints (256/256 on both sides)."""
    src = parse_layout("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
                       "warpsPerCTA = [4, 1], order = [1, 0]}>")
    dst = parse_layout("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], "
                       "warpsPerCTA = [1, 4], order = [0, 1]}>")
    shape = (128, 128)
    plan = plan_conversion(src, dst, shape, "f16")
    offset_of = plan.scratch.offsets  # scratch offset (elements) of each row-major element
    cost = plan.cost
    for layout, kind, vector in ((src, "st.shared", cost.store_vector), (dst, "ld.shared", cost.load_vector)):
        step = next(s for s in plan.steps if s.kind == kind)
        threads, hw = threads_of(layout, shape)
        waves = lower = 0
        for warp in range(hw["warp"]):
            lanes_vectors = []
            for lane in range(hw["lane"]):
                offsets = sorted(int(offset_of[e]) for e in threads[(0, warp, lane)])
                heads = offsets[::vector]
                # every vector is `vector` consecutive, aligned scratch elements of this lane
                assert all(offsets[k:k + vector] == list(range(h, h + vector)) and h % vector == 0
                           for k, h in zip(range(0, len(offsets), vector), heads))
                assert sorted(int(o) for o in step.offsets[0, warp, lane] if o >= 0) == heads
                lanes_vectors.append([int(o) for o in step.offsets[0, warp, lane]])
            for i in range(len(lanes_vectors[0])):
                w, lo = brute_wavefronts([v[i] * 2 if v[i] >= 0 else -1 for v in lanes_vectors], vector * 2)
                waves += w
                lower += lo
        achieved = cost.store_wavefronts if kind == "st.shared" else cost.load_wavefronts
        bound = cost.store_lower_bound if kind == "st.shared" else cost.load_lower_bound
        assert (achieved, bound) == (waves, lower) == (128 * 128 * 2 // 128,) * 2
