"""Coordinate transformations: chain evaluation speed and index-diff operation counts.

1. A 4-map chain (tile a 256 x 256 tensor, flatten, re-split) evaluated on every point of
   the 256 x 256 grid at once (numpy), against its composed affine map and a per-element
   Python loop (timed on 4096 points and scaled) in the same process. Target: < 10 ms.
2. The seed's 4 x 8 copy loop (load through Pad{0, 46} over Merge{2, 3, 3}, store through
   Embed{256, 1}) unrolled: arithmetic operations per iteration with and without index diffs.

Run: python benchmarks/bench_coords.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from layoutkit.coords import BottomUpBuilder, TopDownBuilder, TransformChain, unrolled_program


def median_ms(fn, repeat: int = 15) -> float:
    return timings_ms(fn, repeat)[0]


def timings_ms(fn, repeat: int = 15) -> tuple[float, float]:
    """(median, best) wall time in ms."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), min(times)


def four_map_chain() -> TransformChain:
    b = TopDownBuilder(["row", "col"], [256, 256])
    b.merge(["rb", "rt"], [0, 1], "row", [16, 16])
    b.merge(["cb", "ct"], [2, 3], "col", [8, 32])
    m1 = b.get()
    b = TopDownBuilder.below(m1)
    b.unmerge("blk", 0, ["rb", "cb"], [16, 8])
    b.unmerge("elem", 1, ["rt", "ct"], [16, 32])
    m2 = b.get()
    b = TopDownBuilder.below(m2)
    b.embed("off", 0, 65536, ["blk", "elem"], [512, 1])
    m3 = b.get()
    b = TopDownBuilder.below(m3)
    b.merge(["y", "x"], [0, 1], "off", [256, 256])
    return TransformChain((m1, m2, m3, b.get()))


def seed_loop_chains():
    b = BottomUpBuilder(["O", "I", "H", "W"], [128, 2, 3, 3])
    b.pass_through("M", 0, "O")
    b.merge("K", 1, ["I", "H", "W"])
    f2 = b.get()
    b = BottomUpBuilder.above(f2)
    b.pass_through("M")
    b.pad("Kp", [0, 64 - 18], source="K")
    f1 = b.get()
    b = TopDownBuilder(["d0", "d1"], [4, 16])
    b.embed("buffer", 0, 1024, ["d0", "d1"], [256, 1])
    return [[f1, f2], [b.get()]]


def main() -> None:
    chain = four_map_chain()
    rows, cols = np.indices((256, 256), dtype=np.int64)
    amap = chain.affine_map
    chain_ms, chain_best = timings_ms(lambda: chain.apply(rows, cols))
    affine_ms, affine_best = timings_ms(lambda: amap.apply(rows, cols))
    sample = [(int(r), int(c)) for r, c in zip(rows.reshape(-1)[::16], cols.reshape(-1)[::16])]
    loop_ms = median_ms(lambda: [chain.apply(r, c) for r, c in sample], repeat=3) * 16
    y, x = chain.apply(rows, cols)
    assert np.array_equal(y * 256 + x, (rows // 16 * 8 + cols // 32) * 512 + rows % 16 * 32 + cols % 32)
    print("4-map chain over a 256x256 grid (65536 points)")
    print(f"  composed map: {amap}")
    print(f"  chain.apply, vectorized        : {chain_ms:8.2f} ms median, {chain_best:.2f} ms best of 15 (target < 10 ms)")
    print(f"  composed affine map, vectorized: {affine_ms:8.2f} ms median, {affine_best:.2f} ms best")
    print(f"  per-element Python loop        : {loop_ms:8.1f} ms (4096 points, scaled x16)"
          f"  -> vectorized is {loop_ms / chain_ms:.0f}x faster")

    chains = seed_loop_chains()
    print("\nseed 003's 4x8 copy loop: load via Pad{0, 46} over Merge{2, 3, 3}, store via Embed{256, 1}")
    print("  operations per unrolled iteration (32 iterations, constants folded, checks included)")
    header = f"  {'':16}" + "".join(f"{k:>9}" for k in ("total", "add/sub", "mul", "div/mod", "compare", "select"))
    print(header)
    for diffs in (False, True):
        counts = unrolled_program(chains, [4, 8], [1, 1], use_index_diffs=diffs).op_counts()
        label = "with diffs" if diffs else "recompute"
        print(f"  {label:16}" + "".join(f"{counts[k] / 32:9.2f}" for k in ("total", "add/sub", "mul", "div/mod", "compare", "select")))
    print("  (div/mod by a non-power-of-two constant costs several instructions on a GPU: a\n"
          "   multiply-high, shifts and, for mod, a multiply and subtract; the diffs replace them\n"
          "   with adds, compares and selects)")


if __name__ == "__main__":
    main()
