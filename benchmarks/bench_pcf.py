"""PCF programs through ``--pipeline pcf-to-gpu``, and the ``pcf-matmul`` pipeline: compile
time and simulated cost.

    python benchmarks/bench_pcf.py [--repeat 3] [--tm 8] [--k 64]

For each program of :data:`PROGRAMS` (c = a @ b, a (4 tm) x K, b K x 32, 128 threads per
workgroup, 32-lane subgroups), one row:

- compile: parse + the pcf-to-gpu pipeline (cluster resolution included), median seconds;
- simulated: the host function run in the simulator, median seconds, and what it executed:
  thread-instructions, shared-memory wavefronts (and their conflict-free lower bound),
  barrier arrivals (warps that executed a barrier, summed over barriers);
- critical path: IR ops on the slowest warp's path through the block, a wait at a barrier
  raising a warp's count to the latest arriving warp's (``SimulationReport.critical_path``):
  what the overlap of warps running different code saves, which the totals do not show;
- the ratio of each figure to the plain (non-specialized) version of the same computation.

Times are medians of ``--repeat`` runs after a warm-up (wall-clock seconds of this process).
Every run is checked against numpy.

Then the reworked matmul pipeline (``--pipeline pcf-matmul``, seed 002) on
examples/pcf/matmul_f16.mlir (``C += A @ B``, f16 x f16 -> f32, dynamic sizes): compile time
(parse + its 12 passes) at the seed's 128x256x64 tile and at 32x32x16, then emit-cuda + NVRTC
(sm_90) when installed; and a simulated run at 130x260x70 (a 2x2 grid of tiles, the last ones
partial; 2 K steps, the last partial): seconds, thread-instructions, shared-memory wavefronts
against their lower bound (the panels are XOR-swizzled: fragment reads are at it), the largest
error against numpy.
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

EXAMPLES = ROOT / "examples" / "pcf"
#: name -> (file, host function); the first is the reference of the ratios
PROGRAMS = {
    "plain": ("plain_matmul.mlir", "plain_matmul"),
    "warp-specialized": ("warp_specialized.mlir", "ws_matmul"),
    "ping-pong": ("ping_pong.mlir", "pp_matmul"),
}


def median_time(work, repeat: int) -> float:
    work()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def compile_text(text: str) -> str:
    return print_ir(compile_module(parse_module(text), "pcf-to-gpu", workgroup_size="128", subgroup_size="32"))


def measure(lowered: str, function: str, tm: int, k: int, repeat: int) -> dict:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4 * tm, k)).astype(np.float32)
    b = rng.standard_normal((k, 32)).astype(np.float32)
    module = parse_module(lowered)
    reports: list = []

    def run() -> None:
        reports.clear()
        c = np.zeros((4 * tm, 32), np.float32)
        (result,) = run_function(module, function, [a, b, c, tm], reports=reports, memory_counts=True)
        if not np.allclose(result, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4):
            raise SystemExit(f"{function}: result differs from numpy")

    seconds = median_time(run, repeat)
    (report,) = reports
    wavefronts = sum(w for w, _ in report.shared_wavefronts.values())
    ideal = sum(i for _, i in report.shared_wavefronts.values())
    return {"simulated s": seconds, "thread-instr": report.thread_instructions,
            "shared wavefronts": wavefronts, "ideal": ideal, "barrier arrivals": report.barrier_arrivals,
            "critical path": report.critical_path}


MATMUL = EXAMPLES / "matmul_f16.mlir"


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
    parser.add_argument("--tm", type=int, default=8, help="workgroup tiles (4 rows each)")
    parser.add_argument("--k", type=int, default=64, help="K, a multiple of 8")
    args = parser.parse_args()
    print(f"c = a @ b, a {4 * args.tm}x{args.k}, b {args.k}x32; 128 threads per workgroup, 32-lane subgroups; "
          f"medians of {args.repeat}")
    rows = {}
    for name, (file, function) in PROGRAMS.items():
        text = (EXAMPLES / file).read_text()
        compile_s = median_time(lambda text=text: compile_text(text), args.repeat)
        rows[name] = {"compile s": compile_s, **measure(compile_text(text), function, args.tm, args.k, args.repeat)}
    columns = ["compile s", "simulated s", "thread-instr", "shared wavefronts", "ideal", "barrier arrivals",
               "critical path"]
    print(f"{'program':18}" + "".join(f"{c:>18}" for c in columns))
    base = rows[next(iter(PROGRAMS))]
    for name, row in rows.items():
        cells = [f"{row[c]:.3f}" if isinstance(row[c], float) else str(row[c]) for c in columns]
        print(f"{name:18}" + "".join(f"{c:>18}" for c in cells))
        if row is not base:
            ratios = [f"x{row[c] / base[c]:.2f}" if base[c] else "-" for c in columns]
            print(f"{'  vs plain':18}" + "".join(f"{r:>18}" for r in ratios))
    print()
    matmul_rows(args.repeat)


if __name__ == "__main__":
    main()
