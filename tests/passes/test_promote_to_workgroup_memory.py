"""promote-to-workgroup-memory: matmuls with operand tiles in workgroup memory, run in the
simulator against numpy; its race check catches a missing barrier; the chosen padding is
conflict-free by the simulator's own bank count; the copy's thread mapping by brute force."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from layoutkit.backends.simt import SimulationError, simulate
from layoutkit.backends.simt.host import run_function
from layoutkit.cli.compile import compile_module
from layoutkit.cli.opt import print_ir
from layoutkit.ir import parse_module
from layoutkit.passes.workgroup_copy import CopyPlan

MATMUL = (Path(__file__).parents[2] / "examples" / "linalg" / "matmul.mlir").read_text()


def matmul_text(m: int, k: int, n: int) -> str:
    return MATMUL.replace("32x24", f"{m}x{k}").replace("24x16", f"{k}x{n}").replace("32x16", f"{m}x{n}")


def compiled(text: str, **options) -> str:
    return print_ir(compile_module(parse_module(text), **options))


def operands(m, k, n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)


@pytest.mark.parametrize(("shape", "tiles", "workgroup"), [
    ((32, 24, 16), None, None),            # seed 001: A 8x24 and B 24x8 tiles promoted
    ((32, 24, 16), "8,8,4", None),         # the seed's 8x8x4: K in 6 steps of 4
    ((30, 22, 13), "8,8,4", None),         # partial tiles in M, N and K
    ((30, 7, 19), "16,4,3", "2,4"),        # each thread several outputs and copies
    ((64, 64, 64), "32,32,32", "8,8"),     # padded A rows, 16-byte copies
    ((5, 3, 40), "0,16", "16"),            # untiled rows
])
def test_promoted_matmul_equals_numpy(shape, tiles, workgroup):
    m, k, n = shape
    out = compiled(matmul_text(m, k, n), tile_sizes=tiles, workgroup_size=workgroup)
    assert out.count("#gpu.address_space<workgroup>>") >= 2 and "gpu.barrier" in out
    a, b = operands(m, k, n)
    (c,) = run_function(out, "matmul", [a.copy(), b.copy()])
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def _drop_line(text: str, occurrence: int, needle: str = "gpu.barrier") -> str:
    lines = text.splitlines()
    hits = [i for i, line in enumerate(lines) if line.strip() == needle]
    del lines[hits[occurrence]]
    return "\n".join(lines)


@pytest.mark.parametrize(("barrier", "race"), [(1, "reads .* written by thread"), (0, "writes .* read by")])
def test_a_missing_barrier_is_a_reported_race(barrier, race):
    """Without the barrier after the copies a thread reads a shared element another thread
    stored with no barrier between; without the one before them, the next K step's copy
    overwrites elements other threads are still reading."""
    out = compiled(matmul_text(16, 12, 16), tile_sizes="8,8,4")
    a, b = operands(16, 12, 16)
    (c,) = run_function(out, "matmul", [a.copy(), b.copy()])  # with both barriers: runs, no race
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    broken = _drop_line(out, barrier)
    with pytest.raises(SimulationError, match=f"data race on shared memref 'shared0': this thread {race}"):
        run_function(broken, "matmul", [a.copy(), b.copy()])


def _kernel_report(out: str, name: str, a, b, c):
    module = parse_module(out)
    launch = re.search(rf"gpu.launch_func @kernels::@{name} blocks in \((.*?)\) threads in \((.*?)\) args\((.*?)\)\n",
                       out)
    constants = dict(re.findall(r"(%\d+) = arith.constant (\d+) : index", out.split("gpu.module")[0]))
    grid = [int(constants[v.strip()]) for v in launch.group(1).split(",")]
    block = [int(constants[v.strip()]) for v in launch.group(2).split(",")]
    names = [arg.split(":")[0].strip().lstrip("%") for arg in launch.group(3).split(", %")]
    arrays = {"a": a, "b": b}
    args = [arrays.get(n, c) for n in names]
    return simulate(module, name, grid, block, args, bank_conflicts=True)


def test_chosen_padding_is_conflict_free_by_the_simulators_bank_count():
    """32x32x32 tiles, 8x8 threads: a warp reads A[ty, k] on 4 rows at once; unpadded rows of
    32 words put them all in one bank (4-way conflicts), the pass pads rows to 36 elements."""
    m = k = n = 64
    out = compiled(matmul_text(m, k, n), tile_sizes="32,32,32", workgroup_size="8,8")
    assert "memref<32x36xf32, #gpu.address_space<workgroup>>" in out
    a, b = operands(m, k, n)
    c = np.zeros((m, n), np.float32)
    report = _kernel_report(out, "matmul_kernel1", a, b, c)
    shared = report.shared_wavefronts
    assert shared and all(w == ideal for w, ideal in shared.values()), shared
    unpadded = out.replace("memref<32x36xf32, #gpu.address_space<workgroup>>",
                           "memref<32x32xf32, #gpu.address_space<workgroup>>")
    worse = _kernel_report(unpadded, "matmul_kernel1", a, b, np.zeros((m, n), np.float32))
    assert worse.bank_conflicts > 0
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_copies_are_vectorized_where_contiguous():
    out = compiled(matmul_text(64, 64, 64), tile_sizes="32,32,32", workgroup_size="8,8")
    assert "vector.load %b" in out and "vector<4xf32>" in out
    odd = compiled(matmul_text(30, 22, 13), tile_sizes="8,8,4")  # rows of 22 and 13: no 16-byte runs
    assert "vector<4xf32>" not in odd


@pytest.mark.parametrize(("shape", "vector", "threads"), [((5, 8), 4, 3), ((8, 4), 1, 16), ((3, 2, 6), 2, 7),
                                                          ((7,), 1, 32)])
def test_copy_plan_coordinates_by_brute_force(shape, vector, threads):
    """Thread l moves vectors l, l + T, ...: enumerate the tile's vectors row-major."""
    plan = CopyPlan(shape, vector, threads)
    starts = [c for c in itertools.product(*(range(s) for s in shape)) if c[-1] % vector == 0]
    coords = plan.coordinates()
    for step in range(plan.steps):
        for lane in range(threads):
            e = step * threads + lane
            expected = list(starts[e]) if e < len(starts) else [-1] * len(shape)
            assert coords[step, lane].tolist() == expected
    moved = sorted(tuple(c) for c in coords.reshape(-1, len(shape)) if c[0] >= 0)
    assert moved == sorted(starts)  # every vector exactly once
