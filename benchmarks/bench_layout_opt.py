"""Layout optimisation side by side, every front-end golden kernel: Triton 3.9's layout passes
(T) against layoutkit's ``cost-model=exact`` (E), by ``layoutkit analyze``'s measure -- the
table of ``layoutkit compare-pipelines`` (one implementation: :mod:`layoutkit.triton.compare`),
without the executor runs, plus the exact optimisation's time.

The Triton side is ``cost-model=triton`` once all its passes are registered, else Triton's own
output of the same layout-pass list (the committed goldens of tests/triton/layout_passes; no
pipelining). Columns: convert_layout ops; conversion cost (instructions per thread + shared
wavefronts of converts and shared-memory ops); global load/store instructions per thread
(fewer is wider); element-wise work (arith/math instructions per block) and its replicated part;
the exact optimisation's time.

    python benchmarks/bench_layout_opt.py [--target cuda:80] [KERNEL ...]
"""

from __future__ import annotations

import sys

from layoutkit.triton.compare import FRONTEND_GOLDENS, compare_pipelines


def main(args: list[str]) -> None:
    target = "cuda:80"
    if args[:1] == ["--target"]:
        target, args = args[1], args[2:]
    kernels = args or sorted(p.name for p in FRONTEND_GOLDENS.iterdir() if (p / "kernel.ttir").exists())
    print(f"target {target}, 4 warps; T = Triton's layout passes, E = cost-model=exact")
    print(f"{'kernel':<20} {'converts T/E':>12} {'conv cost T/E':>14} {'global instr T/E':>17} "
          f"{'elementwise T/E':>17} {'replicated T/E':>15} {'opt time':>9}")
    for kernel in kernels:
        try:
            triton, exact = compare_pipelines((FRONTEND_GOLDENS / kernel / "kernel.ttir").read_text(), target).sides
        except Exception as err:  # noqa: BLE001 - a benchmark row, not a user path
            print(f"{kernel:<20} error: {str(err).splitlines()[0][:90]}")
            continue
        t, e = triton.measure, exact.measure
        print(f"{kernel:<20} {t.converts:>5} / {e.converts:<5} {t.cost:>6} / {e.cost:<6} "
              f"{t.global_instructions:>7} / {e.global_instructions:<8} {t.elementwise:>7} / {e.elementwise:<8} "
              f"{t.replicated:>6} / {e.replicated:<7} {exact.seconds:>7.2f}s")


if __name__ == "__main__":
    main(sys.argv[1:])
