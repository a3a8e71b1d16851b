"""PCF pipelines: compile time and simulated cost.

    python benchmarks/bench_pcf.py [--repeat 3]

The reworked matmul pipeline (``--pipeline pcf-matmul``, seed 002) on
examples/pcf/matmul_f16.mlir (``C += A @ B``, f16 x f16 -> f32, dynamic sizes):

1. compile time: parse + the pipeline's 12 passes, at the seed's 128x256x64 tile and at a
   32x32x16 tile, then emit-cuda + NVRTC (sm_90) when installed;
2. simulated run of the host function at 130x260x70 (a 2x2 grid of tiles, the last ones
   partial; 2 K steps, the last partial): wall-clock seconds of the simulator, thread
   instructions, shared-memory wavefronts against their lower bound (the panels are
   XOR-swizzled: fragment reads are at it); the largest error against numpy.

Times are medians of ``--repeat`` runs after a warm-up (wall-clock seconds of this process).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from layoutkit.backends.cuda import emit_cuda  # noqa: E402
from layoutkit.backends.cuda.compile import compile_cuda, nvrtc_available  # noqa: E402
from layoutkit.backends.simt.host import run_function  # noqa: E402
from layoutkit.cli.opt import print_ir  # noqa: E402
from layoutkit.ir import parse_module  # noqa: E402
from layoutkit.pipelines.compile import compile_module  # noqa: E402

MATMUL = ROOT / "examples" / "pcf" / "matmul_f16.mlir"


def median_time(work, repeat: int) -> float:
    work()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def matmul_rows(repeat: int) -> None:
    text = MATMUL.read_text()
    print("pcf-matmul pipeline (examples/pcf/matmul_f16.mlir)")
    print(f"{'tile':10} {'compile s':>9} {'nvrtc s':>8}")
    compiled = {}
    for tile in ("128,256,64", "32,32,16"):
        seconds = median_time(lambda tile=tile: compile_module(parse_module(text), "pcf-matmul", tile_sizes=tile), repeat)
        module = compile_module(parse_module(text), "pcf-matmul", tile_sizes=tile)
        compiled[tile] = print_ir(module)
        nvrtc = "-"
        if nvrtc_available():
            source = emit_cuda(module)
            nvrtc = f"{median_time(lambda source=source: compile_cuda(source, 'sm_90', compiler='nvrtc'), 1):8.3f}"
        print(f"{tile:10} {seconds:9.3f} {nvrtc:>8}")
    m, n, k = 130, 260, 70
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = rng.standard_normal((m, n)).astype(np.float32)
    print(f"simulated {m}x{n}x{k} at the seed's tile 128x256x64")
    print(f"{'simulate s':>10} {'thread instr':>12} {'wavefronts':>10} {'lower':>7} {'max |err|':>9}")
    reports: list = []
    out = c.copy()

    def run() -> None:
        reports.clear()
        out[...] = c
        run_function(compiled["128,256,64"], "matmul", [a, b, out], reports=reports, memory_counts=True)

    seconds = median_time(run, repeat)
    executed = sum(r.thread_instructions for r in reports)
    waves = [w for r in reports for w in (r.shared_wavefronts or {}).values()]
    exact = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    print(f"{seconds:10.3f} {executed:12} {sum(w for w, _ in waves):10} {sum(x for _, x in waves):7} "
          f"{np.abs(out - exact).max():9.2e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    matmul_rows(args.repeat)


if __name__ == "__main__":
    main()
