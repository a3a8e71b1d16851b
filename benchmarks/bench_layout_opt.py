"""Layout optimisation side by side: Triton 3.9's layouts (its full ``make_ttgir`` golden for
cuda:80, 4 warps) against layoutkit's ``--triton-gpu-pipeline="target=cuda:80 cost-model=exact"``
on every front-end golden kernel, by ``layoutkit analyze``'s measure.

Columns: convert_layout ops; conversion cost (convert_layout instructions per thread + shared
wavefronts, plus the shared_memory ops' instructions + wavefronts); global load/store
instructions per thread (vector widths: fewer is wider); element-wise work (arith/math
instructions per block: registers per thread x threads, summed over ops -- a replicated
layout makes it larger, triton issue 10987); the exact optimisation's time.
Triton's golden also pipelines loops (matmul, attention: async copies, local loads), which
the exact pipeline does not do, so those rows compare different programs.

    python benchmarks/bench_layout_opt.py [KERNEL ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from layoutkit.ir import make_context, parse_module
from layoutkit.passes import pass_class
from layoutkit.triton import analyze

GOLDENS = Path(__file__).resolve().parents[1] / "tests" / "triton" / "frontend" / "goldens"


def elementwise_work(module) -> int:
    """arith/math instructions per block: registers per thread x threads, over the ops."""
    from xdsl.dialects.builtin import TensorType

    from layoutkit.analysis.access import registers_per_thread

    attr = module.attributes.get("ttg.num-warps")
    warps = int(attr.value.data) if attr is not None else 4
    total = 0
    for op in module.walk():
        if op.dialect_name() not in ("arith", "math") or not op.results:
            continue
        t = op.results[0].type
        if isinstance(t, TensorType) and hasattr(t.encoding, "layout"):
            total += registers_per_thread(t.encoding.layout, tuple(t.get_shape())) * 32 * warps
    return total


def measure(module) -> tuple[int, int, int, int]:
    """(convert ops, conversion cost, global instructions per thread, element-wise work)."""
    count = cost = global_instructions = 0
    for totals in analyze(module).totals.values():
        cv, sm, gm = totals["convert_layout"], totals["shared_memory"], totals["global_memory"]
        count += cv["count"]
        cost += cv["instructions"] + cv["shared_wavefronts"] + sm["instructions"] + sm["wavefronts"]
        global_instructions += gm["instructions"]
    return count, cost, global_instructions, elementwise_work(module)


def exact(kernel: str):
    module = parse_module((GOLDENS / kernel / "kernel.ttir").read_text())
    start = time.perf_counter()
    pass_class("triton-gpu-pipeline")(target="cuda:80", num_warps=4).apply(make_context(), module)
    return module, time.perf_counter() - start


def main(names: list[str]) -> None:
    kernels = names or sorted(p.name for p in GOLDENS.iterdir() if (p / "full.cuda-80.ttgir").exists())
    print(f"{'kernel':<20} {'converts T/E':>12} {'conv cost T/E':>14} {'global instr T/E':>17} "
          f"{'elementwise T/E':>17} {'opt time':>9}")
    for kernel in kernels:
        triton = measure(parse_module((GOLDENS / kernel / "full.cuda-80.ttgir").read_text()))
        try:
            module, seconds = exact(kernel)
            mine = measure(module)
        except Exception as err:  # noqa: BLE001 - a benchmark row, not a user path
            print(f"{kernel:<20} error: {str(err).splitlines()[0][:90]}")
            continue
        print(f"{kernel:<20} {triton[0]:>5} / {mine[0]:<5} {triton[1]:>6} / {mine[1]:<6} "
              f"{triton[2]:>7} / {mine[2]:<8} {triton[3]:>7} / {mine[3]:<8} {seconds:>7.2f}s")


if __name__ == "__main__":
    main(sys.argv[1:])
