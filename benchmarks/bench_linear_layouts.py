"""How fast TritonGPU encodings become linear layouts, and how fast a conversion is solved.

For every distributed encoding at 128x128 and 256x256 it prints the median time of a cold
``to_linear_layout`` (``build_linear_layout``: the per-shape cache is bypassed), next to the
reference cost of merely constructing the resulting ``LinearLayout`` from its bases in the
same process (the floor any encoding pays), and the median of ``invert_and_compose`` for a
blocked -> nvidia_mma dot-operand pair at 128x128.

Targets on a 2-core machine: to_linear_layout < 100 us, invert_and_compose < 200 us.

    python benchmarks/bench_linear_layouts.py [--repeat 200] [--profile]
"""

from __future__ import annotations

import argparse
import statistics
import time

import layoutkit
from layoutkit.core.linear import LinearLayout

ENCODINGS = {
    "blocked": "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "blocked+CGA": "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], "
                   "order = [1, 0], CGALayout = [[0, 1], [1, 0]]}>",
    "slice(blocked)": "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
                      "warpsPerCTA = [4, 1], order = [1, 0]}>}>",
    "nvidia_mma v2": "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>",
    "nvidia_mma v3": "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
                     "instrShape = [16, 128, 16]}>",
    "dot_op A (mma v2)": "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
                         "warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>",
    "dot_op B (mma v2)": "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
                         "warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>",
    "dot_op A (mma v3)": "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, "
                         "warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>, kWidth = 2}>",
    "dot_op (blocked)": "#ttg.dot_op<{opIdx = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], "
                        "threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>",
    "amd_mfma": "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
    "dot_op (amd_mfma)": "#ttg.dot_op<{opIdx = 1, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], "
                         "instrShape = [32, 32, 8], isTransposed = true}>, kWidth = 8}>",
    "amd_wmma": "#ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>",
    "dot_op (amd_wmma)": "#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_wmma<{version = 2, isTranspose = false, "
                         "warpsPerCTA = [2, 2]}>, kWidth = 8}>",
    "linear": "#ttg.linear<{register = [[0, 1], [8, 0], [0, 8], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], "
              "[4, 0]], warp = [[16, 0], [32, 0]], block = []}>",
}


def median_us(fn, repeat: int) -> float:
    fn()  # warm the interpreter paths (not the result: build_linear_layout is uncached)
    times = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1000.0


def rebuild(layout: LinearLayout):
    bases = layout.bases
    out_dims = layout.out_dims
    return lambda: LinearLayout(bases, out_dims)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--profile", action="store_true", help="cProfile the invert_and_compose case")
    args = parser.parse_args()

    print(f"{'encoding':<20} {'shape':>9} {'to_linear_layout':>17} {'LinearLayout(...)':>18} {'ratio':>6}")
    worst = 0.0
    for name, text in ENCODINGS.items():
        enc = layoutkit.parse_layout(text)
        for size in (128, 256):
            shape = (size,) * enc.rank
            t_build = median_us(lambda enc=enc, shape=shape: enc.build_linear_layout(shape), args.repeat)
            t_ref = median_us(rebuild(enc.build_linear_layout(shape)), args.repeat)
            worst = max(worst, t_build)
            print(f"{name:<20} {'x'.join(map(str, shape)):>9} {t_build:>14.1f} us {t_ref:>15.1f} us "
                  f"{t_build / t_ref:>6.2f}")
    print(f"slowest to_linear_layout: {worst:.1f} us (target < 100 us)")

    src = layoutkit.parse_layout(ENCODINGS["blocked"]).to_linear_layout((128, 128))
    dst = layoutkit.parse_layout(ENCODINGS["dot_op A (mma v2)"]).to_linear_layout((128, 128))
    t_cvt = median_us(lambda: src.invert_and_compose(dst), args.repeat)
    print(f"invert_and_compose blocked -> dot_op(mma v2) at 128x128: {t_cvt:.1f} us (target < 200 us)")
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(200):
            src.invert_and_compose(dst)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(12)


if __name__ == "__main__":
    main()
