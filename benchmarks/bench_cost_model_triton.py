"""``cost-model=triton`` against Triton 3.9 itself: for every golden kernel, Triton's own output
after its layout passes (``layoutkit.triton.compare.triton_golden_output``: the last step of the
layout-pass goldens, the same pass list, no pipelining) against layoutkit's
``--triton-gpu-pipeline="target=cuda:80 num-warps=4 cost-model=triton"`` from the kernel's TTIR,
by ``layoutkit analyze``'s measure (``layoutkit.triton.compare.measure``), with the pipeline's
time (median of 3 runs).

    python benchmarks/bench_cost_model_triton.py [--target cuda:80] [KERNEL ...]
"""

from __future__ import annotations

import statistics
import sys
import time

from layoutkit.ir import make_context, parse_module
from layoutkit.passes import pass_class
from layoutkit.triton.compare import FRONTEND_GOLDENS, measure, triton_golden_output


def ours(kernel: str, target: str):
    module = parse_module((FRONTEND_GOLDENS / kernel / "kernel.ttir").read_text())
    lanes = 64 if target.startswith("hip:gfx9") else 32
    pass_class("triton-gpu-pipeline")(target=target, num_warps=4, threads_per_warp=lanes,
                                      cost_model="triton").apply(make_context(), module)
    return module


def main(args: list[str]) -> None:
    target = "cuda:80"
    if args[:1] == ["--target"]:
        target, args = args[1], args[2:]
    kernels = args or sorted(p.name for p in FRONTEND_GOLDENS.iterdir() if (p / "kernel.ttir").exists())
    print(f"target {target}, 4 warps; T = Triton 3.9's layout passes, L = layoutkit cost-model=triton")
    print(f"{'kernel':<20} {'converts T/L':>12} {'conv cost T/L':>14} {'global instr T/L':>17} "
          f"{'elementwise T/L':>17} {'time':>7}")
    same = 0
    for kernel in kernels:
        t = measure(parse_module(triton_golden_output(kernel, target, 4).read_text()))
        times = []
        try:
            for _ in range(3):
                start = time.perf_counter()
                module = ours(kernel, target)
                times.append(time.perf_counter() - start)
        except Exception as err:  # noqa: BLE001 - a benchmark row, not a user path
            print(f"{kernel:<20} error: {str(err).splitlines()[0][:90]}")
            continue
        m = measure(module)
        same += m == t
        print(f"{kernel:<20} {t.converts:>5} / {m.converts:<5} {t.cost:>6} / {m.cost:<6} "
              f"{t.global_instructions:>7} / {m.global_instructions:<8} {t.elementwise:>7} / {m.elementwise:<8} "
              f"{statistics.median(times):>6.2f}s")
    print(f"same measure as Triton on {same} of {len(kernels)} kernels")


if __name__ == "__main__":
    main(sys.argv[1:])
