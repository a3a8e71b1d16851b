"""``cost-model=triton`` against Triton 3.9 itself: for every golden kernel, Triton's own output
after its layout passes (the last step of ``tests/triton/layout_passes/goldens/manifest.json``
for cuda:80, 4 warps: the same pass list, no pipelining) against layoutkit's
``--triton-gpu-pipeline="target=cuda:80 num-warps=4 cost-model=triton"`` from the kernel's
TTIR, by ``layoutkit analyze``'s measure (``bench_layout_opt.measure``), with the pipeline's time
(median of 3 runs).

    python benchmarks/bench_cost_model_triton.py [KERNEL ...]
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from bench_layout_opt import GOLDENS, measure

from layoutkit.ir import make_context, parse_module
from layoutkit.passes import pass_class

STEPS = Path(__file__).resolve().parents[1] / "tests" / "triton" / "layout_passes" / "goldens"


def ours(kernel: str):
    module = parse_module((GOLDENS / kernel / "kernel.ttir").read_text())
    pass_class("triton-gpu-pipeline")(target="cuda:80", num_warps=4, cost_model="triton").apply(make_context(), module)
    return module


def main(names: list[str]) -> None:
    runs = {r["kernel"]: r for r in json.loads((STEPS / "manifest.json").read_text())["runs"] if r["target"] == "cuda:80"}
    print(f"{'kernel':<20} {'converts T/L':>12} {'conv cost T/L':>14} {'global instr T/L':>17} "
          f"{'elementwise T/L':>17} {'time':>7}")
    same = 0
    for kernel in names or sorted(runs):
        triton = measure(parse_module((STEPS / runs[kernel]["steps"][-1]["output"]).read_text()))
        times = []
        for _ in range(3):
            start = time.perf_counter()
            module = ours(kernel)
            times.append(time.perf_counter() - start)
        mine = measure(module)
        same += mine == triton
        print(f"{kernel:<20} {triton[0]:>5} / {mine[0]:<5} {triton[1]:>6} / {mine[1]:<6} "
              f"{triton[2]:>7} / {mine[2]:<8} {triton[3]:>7} / {mine[3]:<8} {statistics.median(times):>6.2f}s")
    print(f"same measure as Triton on {same} of {len(names or runs)} kernels")


if __name__ == "__main__":
    main(sys.argv[1:])
