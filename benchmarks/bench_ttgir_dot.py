"""``tt.dot`` in TTGIR on the simulator: Triton 3.9's golden matmuls as Triton compiled them.

    python benchmarks/bench_ttgir_dot.py [--repeat 3] [--skip-large]

For each golden (sm_80 ``matmul_128x128x64``: mma v2, kWidth 4 operands from a pipelined
shared-memory ring; gfx942 ``matmul_64x64x32``: MFMA 32x32x8) and size (256^3, and 1024^3
unless ``--skip-large``) of f16 A and B: the median wall time of ``layoutkit.simulate``
(after one warm-up run), the share of it spent in ``tt.dot`` (its handler timed alone), and
numpy's f32 matmul of the same problem in this process as a reference (the ratio is how
many numpy matmuls one simulated launch costs). Each run's output is checked against numpy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # one BLAS thread: the machine is shared

import numpy as np  # noqa: E402

import layoutkit  # noqa: E402
from layoutkit.backends.simt import registry  # noqa: E402
from layoutkit.ir import parse_module  # noqa: E402
from layoutkit.ir.dialects import tt  # noqa: E402

GOLDENS = Path(__file__).resolve().parents[1] / "tests" / "triton" / "frontend" / "goldens"
CASES = (("matmul_128x128x64", "cuda-80", 128), ("matmul_64x64x32", "hip-gfx942", 64))


class DotTimer:
    """Wraps the tt.dot handler to add up its time."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.handler = registry.handlers()[tt.DotOp]

    def __call__(self, m, op, mask) -> None:
        start = time.perf_counter()
        self.handler(m, op, mask)
        self.seconds += time.perf_counter() - start


def median_time(repeat: int, function, *args, **kwargs) -> float:
    function(*args, **kwargs)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-large", action="store_true")
    options = parser.parse_args()
    timer = DotTimer()
    registry.handles(tt.DotOp)(timer)  # before any module runs: machines look handlers up once
    rng = np.random.default_rng(0)
    print(f"{'kernel':<30} {'size':>6} {'simulate':>10} {'tt.dot':>8} {'numpy':>10} {'ratio':>8}")
    for kernel, target, block in CASES:
        module = parse_module((GOLDENS / kernel / f"full.{target}.ttgir").read_text())
        for size in (256,) if options.skip_large else (256, 1024):
            a = rng.standard_normal((size, size)).astype(np.float16)
            b = rng.standard_normal((size, size)).astype(np.float16)
            c = np.zeros((size, size), np.float16)
            args = [a, b, c, size, size, size, size, size, size]
            grid = (size // block) ** 2
            timer.seconds = 0.0
            simulated = median_time(options.repeat, layoutkit.simulate, module, "matmul", grid=grid, args=args)
            dot_share = timer.seconds / (options.repeat + 1) / simulated
            expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
            assert np.allclose(c.astype(np.float32), expected.astype(np.float32), rtol=2e-3, atol=2e-3)
            fa, fb = a.astype(np.float32), b.astype(np.float32)
            reference = median_time(options.repeat, np.matmul, fa, fb)
            print(f"{kernel + ' ' + target:<30} {size:>5}^3 {simulated:>9.3f}s {dot_share:>7.0%} "
                  f"{reference:>9.4f}s {simulated / reference:>7.0f}x")


if __name__ == "__main__":
    main()
