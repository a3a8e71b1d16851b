"""The tile-and-distribute pipeline (``layoutkit compile``) on the programs of examples/linalg/.

    python benchmarks/bench_pipeline.py [--repeat 3]

1. Compile time per program: parse + the pipeline (default configuration), then emit-cuda
   + NVRTC (sm_90) when installed; target for seed 001's matmul: under 2 s in all.
2. Simulated time: the host function run in the simulator on random inputs (its kernel
   launches in order), and the thread-instructions it executed.
3. For the matmul and the convolution, the generated kernels' memory accesses measured in
   the simulator (every warp request of every launch): global 32-byte sectors against the
   minimum for the bytes moved, and shared-memory wavefronts against their lower bound,
   for the pipeline's default configuration against the seed's fixed tiles (8x8 output
   tiles, K step 4, one element per thread: ``--tile-sizes 8,8,4 --workgroup-size 8,8``;
   for the convolution 8x8x4 tiles of (oh, ow, f), 4x8x8 threads).

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
from layoutkit.ir import parse_module  # noqa: E402
from layoutkit.pipelines.compile import compile_module  # noqa: E402

EXAMPLES = ROOT / "examples" / "linalg"
#: program -> the seed's configuration (tile sizes, workgroup size x,y,z)
SEED_CONFIGS = {"matmul": ("8,8,4", "8,8"), "conv2d": ("0,8,8,4", "4,8,8")}


def median_time(work, repeat: int) -> float:
    work()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def inputs_of(module) -> tuple[str, list[np.ndarray]]:
    """The module's host function and random inputs for it."""
    from layoutkit.backends.simt.host import host_functions

    rng = np.random.default_rng(0)
    ((name, function),) = host_functions(module).items()
    return name, [rng.standard_normal(tuple(t.get_shape())).astype(np.float32) for t in function.function_type.inputs]


def compile_times(name: str, repeat: int) -> tuple[float, float | None]:
    text = (EXAMPLES / f"{name}.mlir").read_text()
    front = median_time(lambda: compile_module(parse_module(text)), repeat)
    if not nvrtc_available():
        return front, None
    total = median_time(lambda: compile_cuda(emit_cuda(compile_module(parse_module(text))), "sm_90",
                                             compiler="nvrtc"), repeat)
    return front, total


def simulated(name: str, repeat: int, tiles=None, workgroup=None, counts: bool = False):
    module = compile_module(parse_module((EXAMPLES / f"{name}.mlir").read_text()), tile_sizes=tiles,
                            workgroup_size=workgroup)
    function, args = inputs_of(module)
    reports: list = []
    seconds = median_time(lambda: run_function(module, function, [a.copy() for a in args]), repeat)
    run_function(module, function, [a.copy() for a in args], reports=reports, memory_counts=counts)
    return seconds, reports


def memory_figures(reports) -> tuple[int, int, int, int]:
    sectors = minimum = wavefronts = lower = 0
    for report in reports:
        for n, least in (report.global_sectors or {}).values():
            sectors, minimum = sectors + n, minimum + least
        for n, least in (report.shared_wavefronts or {}).values():
            wavefronts, lower = wavefronts + n, lower + least
    return sectors, minimum, wavefronts, lower


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    names = sorted(p.stem for p in EXAMPLES.glob("*.mlir"))
    print(f"1-2. compile and simulate, default configuration (median of {args.repeat}; "
          f"NVRTC {'sm_90' if nvrtc_available() else 'not installed'})")
    print(f"{'program':18} {'compile s':>9} {'+cuda+nvrtc s':>13} {'simulate s':>10} {'launches':>8} "
          f"{'thread-instr':>12}")
    for name in names:
        front, total = compile_times(name, args.repeat)
        seconds, reports = simulated(name, args.repeat)
        executed = sum(r.thread_instructions for r in reports)
        nvrtc = f"{total:13.3f}" if total is not None else f"{'-':>13}"
        print(f"{name:18} {front:9.3f} {nvrtc} {seconds:10.3f} {len(reports):8} {executed:12}")
    print()
    print("3. memory accesses of the generated kernels (all launches): global sectors / minimum, "
          "shared wavefronts / lower bound")
    print(f"{'program':10} {'configuration':34} {'sectors':>8} {'minimum':>8} {'ratio':>6} "
          f"{'wavefronts':>10} {'lower':>6} {'simulate s':>10}")
    for name, (tiles, workgroup) in SEED_CONFIGS.items():
        for label, config in (("default", (None, None)),
                              (f"seed: tiles {tiles}, wg {workgroup}", (tiles, workgroup))):
            seconds, reports = simulated(name, args.repeat, *config, counts=True)
            sectors, minimum, wavefronts, lower = memory_figures(reports)
            print(f"{name:10} {label:34} {sectors:8} {minimum:8} {sectors / max(minimum, 1):6.2f} "
                  f"{wavefronts:10} {lower:6} {seconds:10.3f}")


if __name__ == "__main__":
    main()
