"""Triton kernels run by layoutkit's TTGIR executor against Triton's interpreter, in one process.

    pip install -e ".[bench]"      # triton 3.9: its compiler (CPU, no GPU) and its interpreter
    python benchmarks/bench_ttgir.py [--repeat 3] [--skip-large] [--matmul-target cuda:90]

The kernels are those of ``scripts/triton_kernels.py`` (the Triton front-end goldens):
``matmul`` (64x64x32 tiles, f16 in, f32 accumulation) at 256^3 and 1024^3, ``softmax_rows``
(4 rows x 1024 columns per program) at 1024x1024 and 4096x1024, ``layer_norm_fwd`` (one
1024-column row per program) at 4096x1024.

- layoutkit: ``layoutkit.triton.simulate`` -- Triton compiles the kernel to TTGIR for the
  target (once, cached; not timed), then each timed run parses the TTGIR and executes it
  with every tensor held as its encoding distributes it (conversions, shared memory,
  ``wgmma``/``mma`` operands in their layouts);
- Triton: the same ``@triton.jit`` function under ``TRITON_INTERPRET=1`` (Triton's
  interpreter: numpy per program, no layouts), its arguments numpy arrays dressed as tensors
  (``triton_reference.NumpyTensor``), results written in place. Triton reads
  ``TRITON_INTERPRET`` when ``triton.language`` is first imported (its library functions
  such as ``tl.cdiv`` are interpreted or compiled for the whole process), so this side runs
  in a child process of this script (``--interpreter LABEL``) on the same seeded inputs.

Both outputs are checked against numpy. Times are wall-clock medians of ``--repeat`` runs
after a warm-up run; the ratio is Triton's time over layoutkit's (target: >= 5x on matmul and
softmax, and the 1024^3 matmul under 30 s).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton's default; silences its warning
# one BLAS thread: the interpreter's tl.dot is np.matmul, and a threaded BLAS spins idle threads
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_reference import NumpyTensor, available, quiet_exit  # noqa: E402


def load_kernels():
    """scripts/triton_kernels.py (compiled or interpreted as ``TRITON_INTERPRET`` says)."""
    spec = importlib.util.spec_from_file_location("triton_kernels", ROOT / "scripts" / "triton_kernels.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["triton_kernels"] = module
    spec.loader.exec_module(module)
    return module


def median_seconds(run, repeat: int) -> float:
    run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --------------------------------------------------------------------------- cases
def matmul_case(size: int, target: str):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    tiles = (size // 64) ** 2

    def launch(kernels, out, wrap):
        call = (wrap(a), wrap(b), wrap(out), size, size, size, size, 1, size, 1, size, 1)
        return call, dict(BM=64, BN=64, BK=32, GROUP_M=8), (tiles,)

    expected = (a.astype(np.float32) @ b.astype(np.float32))
    return "matmul", launch, lambda: np.zeros((size, size), np.float16), expected, dict(target=target), \
        dict(rtol=2e-2, atol=0.25)


def softmax_case(rows: int, cols: int):
    x = np.random.default_rng(1).standard_normal((rows, cols)).astype(np.float16)

    def launch(kernels, out, wrap):
        return (wrap(x), wrap(out), rows, cols, cols), dict(ROWS=4, COLS=cols), (rows // 4,)

    xf = x.astype(np.float32)
    e = np.exp(xf - xf.max(axis=1, keepdims=True))
    return "softmax_rows", launch, lambda: np.zeros_like(x), e / e.sum(axis=1, keepdims=True), {}, \
        dict(rtol=1e-2, atol=1e-3)


def layer_norm_case(rows: int, cols: int):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((rows, cols)).astype(np.float16)
    w, b = rng.standard_normal(cols).astype(np.float32), rng.standard_normal(cols).astype(np.float32)
    mean, rstd = np.zeros(rows, np.float32), np.zeros(rows, np.float32)

    def launch(kernels, out, wrap):
        return (wrap(x), wrap(w), wrap(b), wrap(out), wrap(mean), wrap(rstd), cols, cols, 1e-5), \
            dict(BLOCK=cols), (rows,)

    xf = x.astype(np.float64)
    mu = xf.mean(axis=1, keepdims=True)
    expected = (xf - mu) / np.sqrt(((xf - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5) * w + b
    return "layer_norm_fwd", launch, lambda: np.zeros_like(x), expected, {}, dict(rtol=2e-2, atol=2e-2)


def run_ours(case, kernels, repeat: int):
    """(median seconds, last run) of layoutkit.triton.simulate, the output checked."""
    import layoutkit.triton

    name, launch, fresh, expected, options, tolerance = case
    out = fresh()
    args, constexprs, grid = launch(kernels, out, lambda a: a)
    result = {}

    def ours():
        result["run"] = layoutkit.triton.simulate(getattr(kernels, name), grid, *args, **constexprs, **options)

    layoutkit.triton.simulate(getattr(kernels, name), grid, *args, **constexprs, **options)  # compile: not timed
    seconds = median_seconds(ours, repeat)
    np.testing.assert_allclose(out.astype(np.float32), expected, **tolerance)
    return seconds, result["run"]


def run_interpreter(case, kernels, repeat: int) -> float:
    name, launch, fresh, expected, options, tolerance = case
    out = fresh()
    args, constexprs, grid = launch(kernels, out, NumpyTensor)
    seconds = median_seconds(lambda: getattr(kernels, name)[grid](*args, **constexprs), repeat)
    np.testing.assert_allclose(out.astype(np.float32), expected, **tolerance)
    return seconds


def interpreter_in_child(label: str, repeat: int, matmul_target: str) -> float:
    env = dict(os.environ, TRITON_INTERPRET="1")
    done = subprocess.run([sys.executable, __file__, "--interpreter", label, "--repeat", str(repeat),
                           "--matmul-target", matmul_target], env=env, capture_output=True, text=True,
                          timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"interpreter run of {label} failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def cases(matmul_target: str) -> dict:
    """label -> (case, small)"""
    return {"matmul 256^3 f16": (lambda: matmul_case(256, matmul_target), True),
            "matmul 1024^3 f16": (lambda: matmul_case(1024, matmul_target), False),
            "softmax 1024x1024 f16": (lambda: softmax_case(1024, 1024), True),
            "softmax 4096x1024 f16": (lambda: softmax_case(4096, 1024), False),
            "layer norm 4096x1024 f16": (lambda: layer_norm_case(4096, 1024), False)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-large", action="store_true", help="leave out the 1024^3 matmul and 4096-row cases")
    parser.add_argument("--matmul-target", default="cuda:80",
                        help="target of the matmul (cuda:80: mma.sync, ldmatrix; cuda:90: wgmma)")
    parser.add_argument("--only", default=None, help="run only cases whose label contains this")
    parser.add_argument("--interpreter", default=None, metavar="LABEL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not available():
        print("bench_ttgir needs Triton: pip install -e '.[bench]' (triton==3.9.0)")
        return
    table = cases(args.matmul_target)
    if args.interpreter is not None:  # the child: Triton's interpreter alone
        make, small = table[args.interpreter]
        print(run_interpreter(make(), load_kernels(), args.repeat if small else 1))
        quiet_exit()
    kernels = load_kernels()
    print(f"layoutkit TTGIR executor vs Triton {__import__('triton').__version__} interpreter "
          f"(wall medians of {args.repeat}, 1 for the large cases; matmul on {args.matmul_target}, "
          f"the rest cuda:80)")
    for label, (make, small) in table.items():
        if (args.skip_large and not small) or (args.only and args.only not in label):
            continue
        repeat = args.repeat if small else 1
        ours, run = run_ours(make(), kernels, repeat)
        theirs = interpreter_in_child(label, repeat, args.matmul_target)
        print(f"{label:<26} layoutkit {ours:8.3f} s   Triton interpreter {theirs:8.3f} s   "
              f"ratio {theirs / ours:6.1f}x   ({run.thread_instructions / max(run.seconds, 1e-9):.3g} "
              f"thread-instr/s)", flush=True)
    quiet_exit()


if __name__ == "__main__":
    main()
