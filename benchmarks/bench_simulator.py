"""The lockstep SIMT simulator against numba's CUDA simulator, on the same kernels.

    pip install -e ".[bench]"      # numba
    python benchmarks/bench_simulator.py [--repeat 3] [--skip-large]

For the swizzled transpose and the mma.sync matmul tile of examples/kernels/, the script
runs the layoutkit simulator and the same kernel written for numba's CUDA simulator
(NUMBA_ENABLE_CUDASIM=1, set by this script before numba is imported) on the same problem
and reports simulated thread-instructions per second for each and their ratio. A
thread-instruction is one IR op executed by one active thread, counted by layoutkit's run;
both simulators do the same work, so numba's rate is that count over numba's time and the
ratio is the ratio of times. Times are CPU seconds of this process (medians of
``--repeat`` runs; one numba run of the matmul, which takes about half a minute). Then a 1024x1024x1024 f16
matmul in the layoutkit simulator alone (target: under 60 s).

numba's simulator runs one Python thread per GPU thread (about a minute of CPU for the
1024x1024x64 matmul), so the transpose is compared at 256x256; the layoutkit figures are
also printed at the full example sizes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402

import layoutkit  # noqa: E402
from layoutkit.ir import parse_module  # noqa: E402

KERNELS = Path(__file__).resolve().parents[1] / "examples" / "kernels"


def median_time(run, repeat: int, warmup: bool = True) -> tuple[float, object]:
    """Median CPU seconds of this process (all its threads) per run, and the last result.

    CPU time, not wall time: the figures stay meaningful on a busy machine, and numba's
    simulator (one Python thread per GPU thread, in this process) is charged in full.
    """
    times, result = [], None
    if warmup:
        run()
    for _ in range(repeat):
        start = time.process_time()
        result = run()
        times.append(time.process_time() - start)
    return statistics.median(times), result


# --------------------------------------------------------------------------- numba kernels
# module-level: numba's simulator swaps the kernel's global ``cuda`` for its fake module
try:
    from numba import cuda, float32
except ImportError:  # numba is the bench extra
    cuda = float32 = None


def numba_kernels():
    if cuda is None:
        raise ImportError("numba")

    @cuda.jit
    def transpose_swizzled(inp, out):
        tile = cuda.shared.array((32, 32), float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        bx, by = cuda.blockIdx.x, cuda.blockIdx.y
        col = bx * 32 + tx
        for j in range(0, 32, 8):
            r = ty + j
            tile[r, tx ^ r] = inp[by * 32 + r, col]
        cuda.syncthreads()
        ocol = by * 32 + tx
        for j in range(0, 32, 8):
            r = ty + j
            out[bx * 32 + r, ocol] = tile[tx, r ^ tx]

    @cuda.jit
    def matmul(a, b, c):
        # the example's schedule: 128x128 block tile, K step 64, A and B^T staged in shared
        # memory, 2x2 warps of 64x64; each lane accumulates the C elements its mma.sync
        # fragments hold (rows group, group+8; cols 2*pair, 2*pair+1 of each 16x8 tile);
        # shared tiles XOR-swizzled like the example: (r, c) stored at column c ^ 8*(r%8)
        a_s = cuda.shared.array((128, 64), float32)
        b_s = cuda.shared.array((128, 64), float32)
        acc = cuda.local.array((4, 8, 2, 2), float32)
        tid = cuda.threadIdx.x
        m0, n0 = cuda.blockIdx.y * 128, cuda.blockIdx.x * 128
        lane, warp = tid % 32, tid // 32
        group, pair = lane // 4, lane % 4
        wm, wn = (warp // 2) * 64, (warp % 2) * 64
        for mi in range(4):
            for ni in range(8):
                for r in range(2):
                    for e in range(2):
                        acc[mi, ni, r, e] = 0.0
        for k0 in range(0, a.shape[1], 64):
            for i in range(8):
                lin = i * 128 + tid
                row, col = lin // 8, (lin % 8) * 8
                swizzled = col ^ (8 * (row % 8))
                for e in range(8):
                    a_s[row, swizzled + e] = a[m0 + row, k0 + col + e]
            for k in range(64):
                b_s[tid, k ^ (8 * (tid % 8))] = b[k0 + k, n0 + tid]
            cuda.syncthreads()
            for kk in range(0, 64, 16):
                for mi in range(4):
                    for ni in range(8):
                        for r in range(2):
                            row = wm + mi * 16 + group + 8 * r
                            for e in range(2):
                                ncol = wn + ni * 8 + 2 * pair + e
                                s = acc[mi, ni, r, e]
                                for k in range(kk, kk + 16):
                                    s += a_s[row, k ^ (8 * (row % 8))] * b_s[ncol, k ^ (8 * (ncol % 8))]
                                acc[mi, ni, r, e] = s
            cuda.syncthreads()
        for mi in range(4):
            for ni in range(8):
                for r in range(2):
                    for e in range(2):
                        c[m0 + wm + mi * 16 + group + 8 * r, n0 + wn + ni * 8 + 2 * pair + e] = acc[mi, ni, r, e]

    return transpose_swizzled, matmul


# --------------------------------------------------------------------------- runs
def transpose_case(size: int):
    module = parse_module((KERNELS / "transpose_swizzled.mlir").read_text())
    x = np.random.default_rng(0).standard_normal((size, size)).astype(np.float32)
    grid, block = (size // 32, size // 32), (32, 8)
    return module, "transpose_swizzled", grid, block, x


def run_transpose(size: int, repeat: int, numba_kernel=None) -> dict:
    module, name, grid, block, x = transpose_case(size)
    out = np.zeros_like(x)
    seconds, report = median_time(
        lambda: layoutkit.simulate(module, name, grid, block, {"in": x, "out": out}), repeat)
    assert np.array_equal(out, x.T)
    result = {"seconds": seconds, "count": report.thread_instructions}
    if numba_kernel is not None:
        out_n = np.zeros_like(x)
        result["numba_seconds"], _ = median_time(lambda: numba_kernel[grid, block](x, out_n), repeat,
                                                 warmup=False)
        assert np.array_equal(out_n, x.T)
    return result


def run_matmul(m: int, n: int, k: int, repeat: int, numba_kernel=None, warmup: bool = True,
               numba_repeat: int = 1) -> dict:
    module = parse_module((KERNELS / "matmul_mma.mlir").read_text())
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    grid = (n // 128, m // 128)
    seconds, report = median_time(
        lambda: layoutkit.simulate(module, "matmul", grid, 128, {"a": a, "b": b, "c": c}), repeat, warmup)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.allclose(c, exact, rtol=1e-3, atol=1e-3)
    result = {"seconds": seconds, "count": report.thread_instructions}
    if numba_kernel is not None:
        c_n = np.zeros((m, n), np.float32)
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        result["numba_seconds"], _ = median_time(lambda: numba_kernel[grid, 128](a32, b32, c_n),
                                                 numba_repeat, warmup=False)
        assert np.allclose(c_n, exact, rtol=1e-3, atol=1e-3)
    return result


def line(label: str, result: dict) -> str:
    rate = result["count"] / result["seconds"]
    text = (f"{label:<38} layoutkit {result['seconds'] * 1e3:9.1f} ms  "
            f"{rate:10.3g} thread-instr/s")
    if "numba_seconds" in result:
        numba_rate = result["count"] / result["numba_seconds"]
        text += (f" | numba {result['numba_seconds'] * 1e3:9.1f} ms  {numba_rate:10.3g} thread-instr/s"
                 f" | ratio {rate / numba_rate:7.1f}x")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-large", action="store_true", help="skip the 1024^3 matmul")
    options = parser.parse_args(argv)
    repeat = options.repeat
    try:
        numba_transpose, numba_matmul = numba_kernels()
    except ImportError:
        print("numba is not installed (pip install -e '.[bench]'): layoutkit figures only")
        numba_transpose = numba_matmul = None

    print(f"thread-instructions = IR ops x active threads of the layoutkit run; "
          f"CPU time, median of {repeat}")
    print(line("transpose 256x256 (64 blocks)", run_transpose(256, repeat, numba_transpose)))
    print(line("matmul 1024x1024x64 (64 blocks, mma)", run_matmul(1024, 1024, 64, repeat, numba_matmul)))
    print(line("transpose 1024x1024 (1024 blocks)", run_transpose(1024, repeat)))
    print(line("matmul 256x256x128 (4 blocks)", run_matmul(256, 256, 128, repeat)))
    if not options.skip_large:
        wall = time.perf_counter()
        result = run_matmul(1024, 1024, 1024, 1, warmup=False)
        wall = time.perf_counter() - wall
        print(line("matmul 1024x1024x1024 f16 (64 blocks)", result))
        verdict = "meets" if result["seconds"] < 60 else "misses"
        print(f"1024x1024x1024 f16 matmul simulated in {result['seconds']:.1f} CPU s, "
              f"{wall:.1f} s wall with the check against numpy ({verdict} the 60 s target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
