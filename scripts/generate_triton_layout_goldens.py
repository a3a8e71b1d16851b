"""Triton layout-pass goldens: Triton 3.9's own layout passes run one at a time, the IR after each.

Not run by CI (it needs Triton). Run it from the repository root with a Python that has
``pip install triton==3.9.0`` (a CPU is enough)::

    /work/venv-triton39/bin/python scripts/generate_triton_layout_goldens.py            # all, ~1 min
    /work/venv-triton39/bin/python scripts/generate_triton_layout_goldens.py -k matmul_64x64x32

For every kernel of ``scripts/triton_kernels.py`` and every target of :data:`TARGETS` (4 warps),
the start is Triton's own ``convert-triton-to-tritongpu`` output, the front-end golden
``tests/triton/frontend/goldens/<kernel>/convert.<target>-w4.ttgir``. Then the passes of the
target's ``make_ttgir`` (``triton/backends/{nvidia,amd}/compiler.py`` of 3.9) run in its order,
each alone in its own ``ir.pass_manager`` on the module the previous one left, from the first
layout pass up to -- not including -- loop fusion / pipelining / warp specialization / TMA; then
the passes ``make_ttgir`` runs after those stages that choose layouts: the last
``remove_layout_conversions`` and ``reduce_data_duplication`` (:data:`PASSES`).

It writes ``tests/triton/layout_passes/goldens/<kernel>/<target>/``:

- ``00-input.ttgir``: the convert golden, re-printed;
- ``NN-<pass>.ttgir``: the module after step ``NN``, written only when the pass changed it.

Every module is printed without locations (``module.str_nodebug()``) to keep the goldens
small. ``tests/triton/layout_passes/goldens/manifest.json`` lists per kernel and target every
step: the pass, the binding call, its ``input`` file (Triton's module before the pass), its
``output`` file (after it; the input file again when the pass changed nothing) and ``changed``.
A step Triton refuses is listed under ``failures`` with Triton's message, and the steps after
it are not run. Every (kernel, target) runs in a forked child bounded by ``--timeout``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRONTEND = Path("tests/triton/frontend/goldens")
OUT = Path("tests/triton/layout_passes/goldens")
TARGETS = ("cuda:80", "cuda:90", "hip:gfx942")
NUM_WARPS = 4

# (name, binding) per step; ``{cap}``/``{arch}`` are the target's; the comment is make_ttgir's line
_NVIDIA = (
    ("coalesce", "passes.ttgpuir.add_coalesce(pm)"),
    ("f32-dot-tc", "passes.ttgpuir.add_f32_dot_tc(pm, {cap} // 10 >= 8)"),
    ("assign-cga-layouts", "nvidia.passes.ttnvgpuir.add_assign_cga_layouts(pm)"),
    ("remove-layout-conversions", "passes.ttgpuir.add_remove_layout_conversions(pm)"),
    ("optimize-cta-locality", "nvidia.passes.ttnvgpuir.add_optimize_cta_locality(pm)"),
    ("remove-layout-conversions", "passes.ttgpuir.add_remove_layout_conversions(pm)"),
    ("optimize-thread-locality", "passes.ttgpuir.add_optimize_thread_locality(pm)"),
    ("accelerate-matmul", "passes.ttgpuir.add_accelerate_matmul(pm)"),
    ("check-matmul-two-cta", "nvidia.passes.ttnvgpuir.add_check_matmul_two_cta(pm)"),
    ("remove-layout-conversions", "passes.ttgpuir.add_remove_layout_conversions(pm)"),
    ("optimize-dot-operands", "passes.ttgpuir.add_optimize_dot_operands(pm, {cap} >= 80)"),
    ("optimize-descriptor-encoding", "nvidia.passes.ttnvgpuir.add_optimize_descriptor_encoding(pm)"),
    ("loop-aware-cse", "passes.ttir.add_loop_aware_cse(pm)"),
    # make_ttgir's pipelining / TMA stages are skipped; then, as it does after them:
    ("remove-layout-conversions", "passes.ttgpuir.add_remove_layout_conversions(pm)"),
    ("reduce-data-duplication", "passes.ttgpuir.add_reduce_data_duplication(pm)"),
)
_AMD = (
    ("coalesce", "passes.ttgpuir.add_coalesce(pm)"),
    ("f32-dot-tc", "passes.ttgpuir.add_f32_dot_tc(pm, False)"),
    ("remove-layout-conversions", "passes.ttgpuir.add_remove_layout_conversions(pm)"),
    ("optimize-thread-locality", "passes.ttgpuir.add_optimize_thread_locality(pm)"),
    ("accelerate-matmul", "amd.passes.ttgpuir.add_accelerate_matmul(pm, '{arch}', 0, 1)"),
    ("remove-layout-conversions", "passes.ttgpuir.add_remove_layout_conversions(pm)"),
    ("optimize-epilogue", "amd.passes.ttgpuir.add_optimize_epilogue(pm)"),
    ("optimize-dot-operands", "amd.passes.ttgpuir.add_optimize_dot_operands(pm, '{arch}')"),
    ("hoist-layout-conversions", "amd.passes.ttgpuir.add_hoist_layout_conversions(pm)"),
    ("sink-layout-conversions", "amd.passes.ttgpuir.add_sink_layout_conversions(pm)"),
    # make_ttgir's loop fusion / pipelining stages are skipped; then, as it does after them:
    ("remove-layout-conversions", "passes.ttgpuir.add_remove_layout_conversions(pm)"),
    ("reduce-data-duplication", "passes.ttgpuir.add_reduce_data_duplication(pm)"),
)
PASSES = {"cuda": _NVIDIA, "hip": _AMD}


def _frontend():
    """The front-end generator (same directory): its kernels, context and forked-child runner."""
    spec = importlib.util.spec_from_file_location("generate_triton_frontend_goldens",
                                                  ROOT / "scripts" / "generate_triton_frontend_goldens.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def steps(target: str) -> list[tuple[str, str]]:
    backend, arch = target.split(":")
    return [(name, call.format(cap=arch, arch=arch)) for name, call in PASSES[backend]]


def run_steps(convert_path: str, target: str) -> dict:
    """In a child: parse Triton's convert output, run each step alone, the text after each."""
    from triton._C.libtriton import amd, ir, nvidia, passes  # noqa: F401  (used by eval)

    fe = _frontend()
    ctx = fe.triton_context()
    module = ir.parse_mlir_module(convert_path, ctx)
    module.context = ctx
    texts = [module.str_nodebug()]
    for name, call in steps(target):
        pm = ir.pass_manager(ctx)
        eval(call, {"pm": pm, "passes": passes, "nvidia": nvidia, "amd": amd})  # a fixed table, not input
        try:
            pm.run(module, name)
        except Exception as exc:
            return {"texts": texts, "failed": name, "reason": f"{type(exc).__name__}: {exc}"}
        texts.append(module.str_nodebug())
    return {"texts": texts}


def generate(fe, kernels, timeout: int, out_dir: Path) -> dict:
    import triton

    runs, failures = [], []
    for k in kernels:
        print(f"{k.name}:", end="", flush=True)
        for target in TARGETS:
            convert = FRONTEND / k.name / f"convert.{fe.slug(target)}-w{NUM_WARPS}.ttgir"
            if not convert.exists():
                print(f" {target} (no convert golden)", end="", flush=True)
                continue
            res = fe.in_child(timeout, run_steps, str(convert), target)
            if "error" in res:
                failures.append({"kernel": k.name, "target": target, "step": None, "reason": res["error"]})
                print(f" {target} FAILED", end="", flush=True)
                continue
            res = res["ok"]
            tdir = out_dir / k.name / fe.slug(target)
            tdir.mkdir(parents=True, exist_ok=True)
            for old in tdir.glob("*.ttgir"):
                old.unlink()
            rel = f"{k.name}/{fe.slug(target)}"
            (tdir / "00-input.ttgir").write_text(res["texts"][0])
            previous, rows = f"{rel}/00-input.ttgir", []
            for number, ((name, call), text) in enumerate(zip(steps(target), res["texts"][1:]), start=1):
                changed = text != res["texts"][number - 1]
                output = previous
                if changed:
                    output = f"{rel}/{number:02d}-{name}.ttgir"
                    (out_dir / output).write_text(text)
                rows.append({"step": number, "pass": name, "binding": call, "input": previous,
                             "output": output, "changed": changed})
                previous = output
            if "failed" in res:
                failures.append({"kernel": k.name, "target": target, "step": res["failed"],
                                 "reason": res["reason"]})
                print(f" {target} stopped at {res['failed']}", end="", flush=True)
            runs.append({"kernel": k.name, "target": target, "num_warps": NUM_WARPS,
                         "threads_per_warp": fe.warp_size(target), "num_ctas": fe.NUM_CTAS,
                         "start": str(convert), "steps": rows})
        print(" ok")
    return {"triton_version": triton.__version__, "generator": "scripts/generate_triton_layout_goldens.py",
            "printed_with": "module.str_nodebug() (no locations)",
            "kernels": [k.name for k in kernels], "runs": runs, "failures": failures}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", "--kernel", action="append", help="only this kernel (repeatable)")
    ap.add_argument("-o", "--out", type=Path, default=OUT, help=f"output directory (default {OUT})")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per kernel and target (default 300)")
    args = ap.parse_args(argv)
    os.chdir(ROOT)
    fe = _frontend()
    kernels = fe.load_kernels()
    if args.kernel:
        kernels = [k for k in kernels if k.name in args.kernel]
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        manifest = generate(fe, kernels, args.timeout, args.out)
    path = args.out / "manifest.json"
    if args.kernel and path.exists():  # keep the other kernels' runs
        old = json.loads(path.read_text())
        fresh = set(manifest["kernels"])
        order = [k.name for k in fe.load_kernels()]
        for key in ("runs", "failures"):
            rows = [r for r in old[key] if r["kernel"] not in fresh] + manifest[key]
            manifest[key] = sorted(rows, key=lambda r: order.index(r["kernel"]))
        manifest["kernels"] = [n for n in order if n in fresh | set(old["kernels"])]
    path.write_text(json.dumps(manifest, indent=1) + "\n")
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"{len(manifest['runs'])} runs, {size / 1e6:.2f} MB, {len(manifest['failures'])} failures -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
