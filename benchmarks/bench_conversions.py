"""Conversion plans on realistic layout pairs: kind, vector widths, wavefronts against their
lower bound on both sides, scratch bytes and planning time.

Run: ``python benchmarks/bench_conversions.py`` (``--repeat N`` planning runs per pair).

The reference in the same process is the naive scratch layout -- row-major, unswizzled, with
the widest vectors each side can use there -- whose store / load wavefront ratios are printed
next to the planner's. Target: ratio 1.00 on both sides wherever a conflict-free plan exists,
and planning under 50 ms per pair (median of the process CPU time, which a busy shared
machine disturbs less than wall-clock time).
"""

from __future__ import annotations

import argparse
import statistics
import time

from layoutkit import parse_layout
from layoutkit.analysis import shared_access
from layoutkit.convert import plan_conversion
from layoutkit.layouts.iree import NestedLayout


def blocked(spt, tpw, wpc, order):
    return (f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, "
            f"warpsPerCTA = {wpc}, order = {order}}}>")


MMA2 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>"
MMA2_22 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
MMA3 = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>"
MFMA32 = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>"
MFMA16 = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], isTransposed = false}>"


def dot(op, parent, k_width):
    return f"#ttg.dot_op<{{opIdx = {op}, parent = {parent}, kWidth = {k_width}}}>"


ROW_F16 = blocked([1, 8], [4, 8], [4, 1], [1, 0])          # 16-byte global loads, row-major
COL_F16 = blocked([8, 1], [8, 4], [1, 4], [0, 1])          # 16-byte global loads, column-major
ROW_F32 = blocked([1, 4], [4, 8], [4, 1], [1, 0])
COL_F32 = blocked([4, 1], [8, 4], [1, 4], [0, 1])
ROW_I8 = blocked([1, 16], [8, 4], [4, 1], [1, 0])
STORE_F32 = blocked([1, 4], [2, 16], [4, 1], [1, 0])       # store layout of an epilogue
AMD_ROW = blocked([1, 8], [8, 8], [4, 1], [1, 0])           # 64-lane waves
REDUCE_PARENT = blocked([1, 4], [4, 8], [4, 1], [1, 0])


def nested(**kw):
    return NestedLayout(**kw)


# IREE's MFMA 16x16x16 f16 fragments on a 2x2 subgroup grid of a 64x64 tile (64-lane waves)
MFMA_A = nested(subgroup_tile=[2, 2], batch_tile=[2, 1], outer_tile=[1, 1], thread_tile=[16, 4],
                element_tile=[1, 4], subgroup_strides=[2, 1], thread_strides=[1, 16], subgroup_size=64, num_subgroups=4)
MFMA_ACC = nested(subgroup_tile=[2, 2], batch_tile=[2, 1], outer_tile=[1, 1], thread_tile=[4, 16],
                  element_tile=[4, 1], subgroup_strides=[2, 1], thread_strides=[16, 1], subgroup_size=64, num_subgroups=4)
ACC_BATCH = nested(subgroup_tile=[2, 2], batch_tile=[2, 2], outer_tile=[1, 1], thread_tile=[4, 16],
                   element_tile=[4, 1], subgroup_strides=[2, 1], thread_strides=[16, 1], subgroup_size=64, num_subgroups=4)
ACC_OUTER = nested(subgroup_tile=[2, 2], batch_tile=[1, 2], outer_tile=[2, 1], thread_tile=[4, 16],
                   element_tile=[4, 1], subgroup_strides=[2, 1], thread_strides=[16, 1], subgroup_size=64, num_subgroups=4)
MFMA_A_T = nested(subgroup_tile=[2, 2], batch_tile=[2, 1], outer_tile=[1, 1], thread_tile=[16, 4],
                  element_tile=[1, 4], subgroup_strides=[1, 2], thread_strides=[4, 1], subgroup_size=64, num_subgroups=4)
NESTED_READ = nested(subgroup_tile=[4, 1], batch_tile=[1, 1], outer_tile=[1, 1], thread_tile=[8, 8],
                     element_tile=[2, 4], subgroup_strides=[1, 0], thread_strides=[8, 1], subgroup_size=64, num_subgroups=4)
NESTED_ODD_A = nested(subgroup_tile=[2, 1], batch_tile=[3, 1], outer_tile=[1, 1], thread_tile=[4, 8],
                      element_tile=[2, 5], subgroup_strides=[1, 0], thread_strides=[8, 1], subgroup_size=32, num_subgroups=2)
NESTED_ODD_B = nested(subgroup_tile=[1, 2], batch_tile=[1, 1], outer_tile=[3, 1], thread_tile=[8, 4],
                      element_tile=[2, 5], subgroup_strides=[0, 1], thread_strides=[1, 8], subgroup_size=32, num_subgroups=2)

PAIRS = [
    ("blocked -> mma2 dot A fp16", ROW_F16, dot(0, MMA2, 2), (128, 64), "f16", None),
    ("blocked -> mma2 dot B fp16", ROW_F16, dot(1, MMA2, 2), (64, 128), "f16", None),
    ("blocked(col) -> dot B fp16", COL_F16, dot(1, MMA2, 2), (64, 128), "f16", None),
    ("blocked -> mma2 dot A bf16", ROW_F16, dot(0, MMA2_22, 2), (128, 64), "bf16", None),
    ("blocked -> mma2 dot A fp8", ROW_I8, dot(0, MMA2, 4), (128, 64), "f8E4M3FN", None),
    ("blocked -> mma2 dot B fp8", ROW_I8, dot(1, MMA2, 4), (64, 128), "f8E5M2", None),
    ("mma2 acc -> blocked f32", MMA2, STORE_F32, (128, 128), "f32", None),
    ("mma2 acc -> blocked f16", MMA2_22, ROW_F16, (128, 128), "f16", None),
    ("mma3 acc -> blocked f32", MMA3, STORE_F32, (128, 128), "f32", None),
    ("mma3 acc -> blocked f16", MMA3, ROW_F16, (128, 128), "f16", None),
    ("mma2 acc -> blocked f32 16KB", MMA2, STORE_F32, (128, 128), "f32", 16384),
    ("mma2 acc -> dot A fp16", MMA2, dot(0, MMA2, 2), (128, 64), "f16", None),
    ("mma2 acc -> dot A fp8", MMA2, dot(0, MMA2, 4), (128, 64), "f8E4M3FN", None),
    ("transpose 128x128 f16", ROW_F16, COL_F16, (128, 128), "f16", None),
    ("transpose 128x128 f32", ROW_F32, COL_F32, (128, 128), "f32", None),
    ("amd mfma32 acc -> blocked f16", MFMA32, AMD_ROW, (128, 128), "f16", None),
    ("blocked -> mfma16 dot A f16", AMD_ROW, dot(0, MFMA16, 4), (64, 64), "f16", None),
    ("nested MFMA acc -> A f16", MFMA_ACC, MFMA_A, None, "f16", None),
    ("nested MFMA A -> A^T f16", MFMA_A, MFMA_A_T, None, "f16", None),
    ("nested read -> MFMA A f16", NESTED_READ, MFMA_A, None, "f16", None),
    ("nested batch <-> outer", ACC_BATCH, ACC_OUTER, None, "f32", None),
    ("nested 48x40 non-pow2", NESTED_ODD_A, NESTED_ODD_B, None, "f32", None),
    ("reduce: slice(1) -> slice(0)", f"#ttg.slice<{{dim = 1, parent = {REDUCE_PARENT}}}>",
     f"#ttg.slice<{{dim = 0, parent = {REDUCE_PARENT}}}>", (128,), "f32", None),
    ("reduce: slice(1) -> blocked 1d", f"#ttg.slice<{{dim = 1, parent = {REDUCE_PARENT}}}>",
     blocked([4], [32], [4], [0]), (512,), "f32", None),
    ("reduce: mma slice -> blocked", f"#ttg.slice<{{dim = 1, parent = {MMA2}}}>",
     blocked([1], [32], [4], [0]), (128,), "f32", None),
]


def as_layout(x):
    return parse_layout(x) if isinstance(x, str) else x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    header = (f"{'pair':32} {'kind':9} {'vec st/ld':>9} {'store wf/lb':>13} {'load wf/lb':>13} "
              f"{'ratio st/ld':>11} {'naive st/ld':>11} {'scratch B':>9} {'CPU ms':>8}")
    print(header)
    print("-" * len(header))
    ratios, times = [], []
    for name, src_text, dst_text, shape, dtype, scratch in PAIRS:
        src, dst = as_layout(src_text), as_layout(dst_text)
        shape = shape or src.tensor_shape()
        plan_conversion(src, dst, shape, dtype, scratch_bytes=scratch)  # warm caches of the layouts
        samples = []
        for _ in range(args.repeat):
            start = time.process_time()
            plan = plan_conversion(src, dst, shape, dtype, scratch_bytes=scratch)
            samples.append((time.process_time() - start) * 1e3)
        ms = statistics.median(samples)
        times.append(ms)
        c = plan.cost
        if plan.kind == "shared":
            naive_st = shared_access(src, "row-major", shape, dtype).ratio
            naive_ld = shared_access(dst, "row-major", shape, dtype).ratio
            ratios.append((c.store_ratio, c.load_ratio))
            print(f"{name:32} {plan.kind:9} {c.store_vector:>4}/{c.load_vector:<4} "
                  f"{c.store_wavefronts:>6}/{c.store_lower_bound:<6} {c.load_wavefronts:>6}/{c.load_lower_bound:<6} "
                  f"{c.store_ratio:>5.2f}/{c.load_ratio:<5.2f} {naive_st:>5.2f}/{naive_ld:<5.2f} "
                  f"{c.scratch_bytes:>9} {ms:>8.1f}")
        else:
            detail = f"{c.shuffle_rounds} rounds" if plan.kind == "shuffle" else ""
            print(f"{name:32} {plan.kind:9} {detail:>9} {'':>13} {'':>13} {'':>11} {'':>11} {0:>9} {ms:>8.1f}")
    perfect = sum(1 for s, ld in ratios if s == 1.0 and ld == 1.0)
    print("-" * len(header))
    print(f"pairs: {len(PAIRS)}; shared plans: {len(ratios)}, conflict-free on both sides: {perfect}; "
          f"worst ratio: {max((max(r) for r in ratios), default=1.0):.2f}")
    print(f"planning time: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms")


if __name__ == "__main__":
    main()
