"""The lockstep SIMT simulator against Triton's interpreter and numba's CUDA simulator.

    pip install -e ".[bench]"      # triton 3.9 (its interpreter runs on the CPU), numba
    python benchmarks/bench_simulator.py [--repeat 3] [--skip-large] [--skip-numba]

1. The mma matmul of examples/kernels/matmul_mma.mlir (f16 A and B, f32 accumulators; one
   block of 128 threads per 128x128 tile of C, K step 64) against a Triton matmul kernel
   written here with the same schedule (``matmul_triton``: one program per 128x128 tile,
   ``tl.dot`` on 128x64 and 64x128 f16 tiles, f32 accumulator) run by Triton's interpreter
   (``TRITON_INTERPRET=1``, set by this script before triton is imported, in this process)
   on the same problem, at 128x128x64 and 256x256x256: times and the speed-up (target 2x);
   matmul_mma also with ``batch_loops=False`` (every scf.for one iteration at a time, the
   simulator before loop batching), in the same run; and the first launch of matmul_mma
   from a freshly parsed module (what a kernel keeps from launch to launch built anew).
2. Element-wise kernels (vector_add, the swizzled transpose) at 1M and 16M threads:
   simulated thread-instructions per second.
3. Peak memory of a 16M-thread run (tracemalloc: the peak of what the run allocates, the
   caller's argument arrays not included) over the bytes of those arrays (target 2x).
4. Unless ``--skip-numba``: the swizzled transpose and the mma matmul tile against the same
   kernels written for numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, set by this script
   before numba is imported; one Python thread per GPU thread, about half a minute for the
   matmul), so the transpose is compared at 256x256. Unless ``--skip-large``: a
   1024x1024x1024 f16 matmul in the layoutkit simulator alone (target: under 60 s).

A thread-instruction is one IR op executed by one active thread, counted by layoutkit's run;
every simulator does the same work, so a reference's rate is that count over its time and a
ratio is a ratio of times. Times are CPU seconds of this process (medians of ``--repeat``
runs after one warm-up run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported: its interpreter, on the CPU
# one BLAS thread (before numpy is imported): a multi-threaded BLAS spins its idle threads,
# which CPU time counts (Triton's interpreter runs tl.dot as np.matmul: 3-8x its time here)
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402
from triton_reference import NumpyTensor  # noqa: E402

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


# --------------------------------------------------------------------------- Triton kernel
try:
    import triton
    import triton.language as tl
except ImportError:  # triton is the bench extra
    triton = tl = None


def triton_matmul():
    """The Triton kernel with the schedule of examples/kernels/matmul_mma.mlir."""
    if triton is None:
        raise ImportError("triton")

    @triton.jit
    def matmul_triton(a_ptr, b_ptr, c_ptr, M, N, K,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # one program per BM x BN tile of C (grid: N / BN, M / BM, as the layoutkit kernel's
        # blocks), stepping K by BK with f16 tiles of A and B and an f32 accumulator
        rm = tl.program_id(1) * BM + tl.arange(0, BM)
        rn = tl.program_id(0) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
            b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

    return matmul_triton


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


# layoutkit's matmul kernels: file, threads per block (each block computes a 128 x 128 tile)
MATMULS = {"matmul_tiled": 256, "matmul_mma": 128}


def run_matmul(m: int, n: int, k: int, repeat: int, numba_kernel=None, warmup: bool = True,
               numba_repeat: int = 1, kernel: str = "matmul_mma", batch_loops: bool = True) -> dict:
    module = parse_module((KERNELS / f"{kernel}.mlir").read_text())
    a, b, exact = matmul_problem(m, n, k)
    c = np.zeros((m, n), np.float32)
    grid = (n // 128, m // 128)
    seconds, report = median_time(
        lambda: layoutkit.simulate(module, "matmul", grid, MATMULS[kernel], {"a": a, "b": b, "c": c},
                                   batch_loops=batch_loops),
        repeat, warmup)
    assert np.allclose(c, exact, rtol=1e-3, atol=1e-3)
    result = {"seconds": seconds, "count": report.thread_instructions, "ops": report.ops}
    if numba_kernel is not None:
        c_n = np.zeros((m, n), np.float32)
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        result["numba_seconds"], _ = median_time(lambda: numba_kernel[grid, 128](a32, b32, c_n),
                                                 numba_repeat, warmup=False)
        assert np.allclose(c_n, exact, rtol=1e-3, atol=1e-3)
    return result


def matmul_problem(m: int, n: int, k: int):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    return a, b, a.astype(np.float64) @ b.astype(np.float64)


def run_matmuls_against_triton(m: int, n: int, k: int, repeat: int, kernel) -> list[str]:
    """Triton's interpreter and each layoutkit matmul kernel on the same problem: lines."""
    a, b, exact = matmul_problem(m, n, k)
    label = f"matmul {m}x{n}x{k} f16->f32"
    triton_seconds = None
    if kernel is None:
        lines = [f"{label:<30} Triton interpreter: skipped (pip install triton==3.9.0, in the bench extra)"]
    else:
        c = np.zeros((m, n), np.float32)
        args = (NumpyTensor(a), NumpyTensor(b), NumpyTensor(c), m, n, k)
        grid = (n // 128, m // 128)
        triton_seconds, _ = median_time(lambda: kernel[grid](*args, BM=128, BN=128, BK=64), repeat)
        assert np.allclose(c, exact, rtol=1e-3, atol=1e-3)
        lines = [f"{label:<30} Triton interpreter {triton_seconds * 1e3:8.1f} ms"]
    runs = [(name, True) for name in MATMULS] + [("matmul_mma", False)]
    for name, batch in runs:
        result = run_matmul(m, n, k, repeat, kernel=name, batch_loops=batch)
        label = name + ".mlir" + ("" if batch else " batch_loops=False")
        text = f"{'':<30} layoutkit {label:<34} {result['seconds'] * 1e3:8.1f} ms"
        if triton_seconds is not None:
            ratio = triton_seconds / result["seconds"]
            text += f"  {ratio:5.2f}x Triton's speed"
            if batch:
                text += f" ({'meets' if ratio >= 2 else 'misses'} 2x)"
        lines.append(text + f"  [{result['ops']} IR ops executed]")
    first = first_launch(m, n, k, repeat)
    text = f"{'':<30} layoutkit {'matmul_mma.mlir first launch':<34} {first * 1e3:8.1f} ms"
    if triton_seconds is not None:
        text += f"  {triton_seconds / first:5.2f}x Triton's speed"
    lines.append(text + "  (a fresh parse each time, not timed)")
    return lines


def first_launch(m: int, n: int, k: int, repeat: int) -> float:
    """Median CPU seconds of the first launch of matmul_mma from a freshly parsed module:
    the runs above reuse what a kernel keeps from launch to launch (its static data per op,
    the work on its thread ids and constants, batching's plans); this one builds it all."""
    text = (KERNELS / "matmul_mma.mlir").read_text()
    a, b, exact = matmul_problem(m, n, k)
    c = np.zeros((m, n), np.float32)
    times = []
    for _ in range(repeat):
        module = parse_module(text)
        start = time.process_time()
        layoutkit.simulate(module, "matmul", (n // 128, m // 128), MATMULS["matmul_mma"], {"a": a, "b": b, "c": c})
        times.append(time.process_time() - start)
    assert np.allclose(c, exact, rtol=1e-3, atol=1e-3)
    return statistics.median(times)


def run_vector_add(n: int, repeat: int) -> dict:
    module = parse_module((KERNELS / "vector_add.mlir").read_text())
    a = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    b, c = np.ones_like(a), np.zeros_like(a)
    args = {"a": a, "b": b, "c": c}
    seconds, report = median_time(lambda: layoutkit.simulate(module, "vector_add", n // 256, 256, args), repeat)
    assert np.array_equal(c, a + 1)
    return {"seconds": seconds, "count": report.thread_instructions, "args": args,
            "run": lambda: layoutkit.simulate(module, "vector_add", n // 256, 256, args)}


def peak_memory(run, args: dict) -> str:
    """Peak bytes allocated by ``run()`` (tracemalloc) over the bytes of its array arguments."""
    data = sum(a.nbytes for a in args.values())
    tracemalloc.start()
    try:
        run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    verdict = "meets" if peak <= 2 * data else "misses"
    return (f"{peak / 2**20:7.0f} MiB peak over {data / 2**20:.0f} MiB of data = "
            f"{peak / data:4.2f}x ({verdict} 2x)")


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
    parser.add_argument("--skip-numba", action="store_true", help="skip the numba comparisons")
    options = parser.parse_args(argv)
    repeat = options.repeat
    print(f"CPU time of this process, median of {repeat} after a warm-up; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the start")
    try:
        triton_kernel = triton_matmul()
    except ImportError:
        triton_kernel = None
    for m, n, k in ((128, 128, 64), (256, 256, 256)):
        print("\n".join(run_matmuls_against_triton(m, n, k, repeat, triton_kernel)))

    print("thread-instructions = IR ops x active threads of the layoutkit run")
    added = {}
    for n in (1 << 20, 1 << 24):
        added[n] = run_vector_add(n, repeat if n < 1 << 24 else 1)
        print(line(f"vector_add {n >> 20}M threads", added[n]))
    print(line("transpose 1024x1024 (1M threads)", run_transpose(1024, repeat)))
    print(line("transpose 4096x4096 (16M threads)", run_transpose(4096, 1)))
    print("vector_add, 16M threads:          " + peak_memory(added[1 << 24]["run"], added[1 << 24]["args"]))
    module, name, grid, block, x = transpose_case(4096)
    args = {"in": x, "out": np.zeros_like(x)}
    print("transpose 4096x4096, 16M threads: " + peak_memory(
        lambda: layoutkit.simulate(module, name, grid, block, args), args))

    if not options.skip_numba:
        try:
            numba_transpose, numba_matmul = numba_kernels()
        except ImportError:
            print("numba is not installed (pip install -e '.[bench]'): layoutkit figures only")
            numba_transpose = numba_matmul = None
        print(line("transpose 256x256 (64 blocks)", run_transpose(256, repeat, numba_transpose)))
        print(line("matmul 1024x1024x64 (64 blocks, mma)", run_matmul(1024, 1024, 64, repeat, numba_matmul)))
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
