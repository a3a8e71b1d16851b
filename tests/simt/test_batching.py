"""Loop batching (layoutkit.backends.simt.batching): a batched run gives the outputs, counts,
bank and sector reports and error messages of the run one iteration at a time, and loops
whose iterations see each other are not batched."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import scf

import layoutkit
from layoutkit.backends.simt import batching
from layoutkit.ir import parse_module

from .kernels import kernel_module

KERNELS = Path(__file__).parents[2] / "examples" / "kernels"


@cache
def example(name: str):
    return parse_module((KERNELS / f"{name}.mlir").read_text())


def both(module, kernel, grid, block, args: dict, **options):
    """Run batched and one iteration at a time on copies of ``args``: (outputs, report) each."""
    runs = []
    for batch in (False, True):
        copies = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
        report = layoutkit.simulate(module, kernel, grid, block, copies, batch_loops=batch, **options)
        runs.append((copies, report))
    return runs


def assert_same(runs) -> None:
    (seq, a), (bat, b) = runs
    for name in seq:
        if isinstance(seq[name], np.ndarray):
            assert np.array_equal(seq[name], bat[name], equal_nan=True), name
    assert (a.ops, a.thread_instructions) == (b.ops, b.thread_instructions)
    assert a.shared_wavefronts == b.shared_wavefronts
    assert a.global_sectors == b.global_sectors


def matmul_args(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    return {"a": a, "b": b, "c": np.zeros((m, n), np.float32)}


@pytest.mark.parametrize("kernel, threads, shape", [
    ("matmul_mma", 128, (128, 128, 64)), ("matmul_mma", 128, (256, 128, 128)),
    ("matmul_tiled", 256, (128, 256, 64))])
def test_matmuls_batched_equal_sequential_and_numpy(kernel, threads, shape):
    m, n, k = shape
    args = matmul_args(m, n, k)
    runs = both(example(kernel), "matmul", (n // 128, m // 128), threads, args,
                bank_conflicts=True, global_sectors=True)
    assert_same(runs)
    exact = args["a"].astype(np.float64) @ args["b"].astype(np.float64)
    assert np.allclose(runs[1][0]["c"], exact, rtol=1e-3, atol=1e-3)
    assert runs[1][1].shared_wavefronts  # counted, and equal


@pytest.mark.parametrize("name", ["transpose_swizzled", "transpose_padded"])
def test_transpose_batched_equal_sequential(name):
    x = np.random.default_rng(3).standard_normal((96, 160)).astype(np.float32)
    runs = both(example(name), name, (5, 3), (32, 8),
                {"in": x, "out": np.zeros((160, 96), np.float32)}, bank_conflicts=True, global_sectors=True)
    assert_same(runs)
    assert np.array_equal(runs[1][0]["out"], x.T)


def loops_of(module) -> list:
    return [op for op in module.walk() if isinstance(op, scf.ForOp)]


def test_matmul_mma_plans():
    """Zeroing, staging, the mi/ni loops and the write-back's ni loop batch; the k0 and kk
    loops, which add into the same accumulators each iteration, do not, nor the write-back's
    mi loop (its stores to C are inside the ni loop, so their order is not proved)."""
    module = parse_module((KERNELS / "matmul_mma.mlir").read_text())
    plans = [(loop.body.blocks[0].args[0].name_hint, batching.plan(loop) is not None)
             for loop in loops_of(module)]
    assert plans == [("mi", True), ("ni", True), ("k0", False), ("i", True), ("k", True),
                     ("kk", False), ("mi", True), ("ni", True), ("mi", False), ("ni", True)]


def run_pair(signature: str, body: str, block: int, args: dict, **options):
    return both(kernel_module(signature, body), "k", 1, block, args, **options)


def test_reading_the_previous_iteration_is_not_batched():
    """acc[i] = acc[i - 1] + 1 in private memory: each iteration reads the last one's store."""
    body = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %one = arith.constant 1.0 : f32
      %acc = memref.alloca() : memref<8xf32>
      %t = gpu.thread_id x
      %tf = arith.index_cast %t : index to i32
      %start = arith.sitofp %tf : i32 to f32
      memref.store %start, %acc[%c0] : memref<8xf32>
      scf.for %i = %c1 to %c8 step %c1 {
        %p = arith.subi %i, %c1 : index
        %v = memref.load %acc[%p] : memref<8xf32>
        %w = arith.addf %v, %one : f32
        memref.store %w, %acc[%i] : memref<8xf32>
      }
      %last = memref.load %acc[%c8m] : memref<8xf32>
      memref.store %last, %o[%t] : memref<64xf32>""".replace("%c8m", "%c7").replace(
        "%c8 = arith.constant 8 : index", "%c8 = arith.constant 8 : index\n      %c7 = arith.constant 7 : index")
    module = kernel_module("%o: memref<64xf32>", body)
    assert all(batching.plan(loop) is None for loop in loops_of(module))
    runs = both(module, "k", 1, 64, {"o": np.zeros(64, np.float32)})
    assert_same(runs)
    assert np.array_equal(runs[1][0]["o"], np.arange(64, dtype=np.float32) + 7)


REVERSED_STORES = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c100 = arith.constant 100 : index
      %t = gpu.thread_id x
      %row = arith.muli %t, %c4 : index
      scf.for %j = %c0 to %c4 step %c1 {
        %a = arith.addi %row, %j : index
        %rj = arith.subi %c3, %j : index
        %b = arith.addi %row, %rj : index
        %jv = arith.index_cast %j : index to i32
        %jf = arith.sitofp %jv : i32 to f32
        %j100 = arith.addi %j, %c100 : index
        %kv = arith.index_cast %j100 : index to i32
        %kf = arith.sitofp %kv : i32 to f32
        memref.store %jf, %o[%a] : memref<128xf32>
        memref.store %kf, %o[%b] : memref<128xf32>
      }"""


@pytest.mark.parametrize("threads", [32, 20])
def test_written_only_memref_keeps_the_latest_iterations_stores(threads):
    """Iteration j stores j at o[4t + j], then 100 + j at o[4t + 3 - j]: element x of a
    thread's four was stored by iterations x (first store) and 3 - x (second); the later
    iteration's value stays (the second store's when both are the same iteration). With 20
    threads the warp is partial: its 12 idle lanes store nothing."""
    module = kernel_module("%o: memref<128xf32>", REVERSED_STORES)
    plan = batching.plan(loops_of(module)[0])
    assert plan is not None and len(plan.ordered) == 1
    runs = both(module, "k", 1, threads, {"o": np.zeros(128, np.float32)}, global_sectors=True)
    assert_same(runs)
    x = np.arange(4)
    expected = np.where(x > 3 - x, x, 100 + (3 - x)).astype(np.float32)
    want = np.zeros(128, np.float32)
    want[:4 * threads] = np.tile(expected, threads)
    assert np.array_equal(runs[1][0]["o"], want)


def test_aliased_arguments_run_one_iteration_at_a_time():
    """o and x are the same array: iteration j reads x[t + 32 j] that iteration j - 1 stored
    through o (o[t + 32 (j+1)] = x[t + 32 j] + 1): a chain only the sequential order gives."""
    body = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c32 = arith.constant 32 : index
      %one = arith.constant 1.0 : f32
      %t = gpu.thread_id x
      scf.for %j = %c0 to %c3 step %c1 {
        %base = arith.muli %j, %c32 : index
        %src = arith.addi %base, %t : index
        %dst = arith.addi %src, %c32 : index
        %v = memref.load %x[%src] : memref<128xf32>
        %w = arith.addf %v, %one : f32
        memref.store %w, %o[%dst] : memref<128xf32>
      }"""
    module = kernel_module("%x: memref<128xf32>, %o: memref<128xf32>", body)
    assert batching.plan(loops_of(module)[0]) is not None  # (distinct memrefs in the IR)
    data = np.zeros(128, np.float32)
    layoutkit.simulate(module, "k", 1, 32, {"x": data, "o": data})
    assert np.array_equal(data, np.repeat(np.arange(4, dtype=np.float32), 32))


def test_inner_bounds_from_the_iteration_are_not_batched():
    """A triangular nest: the inner loop's bound is the outer induction variable."""
    body = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %one = arith.constant 1.0 : f32
      %t = gpu.thread_id x
      %row = arith.muli %t, %c4 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %at = arith.addi %row, %i : index
        scf.for %j = %c0 to %i step %c1 {
          memref.store %one, %o[%at] : memref<128xf32>
        }
      }"""
    module = kernel_module("%o: memref<128xf32>", body)
    outer, inner = loops_of(module)
    assert batching.plan(outer) is None and batching.plan(inner) is not None
    runs = both(module, "k", 1, 32, {"o": np.zeros(128, np.float32)})
    assert_same(runs)
    assert np.array_equal(runs[1][0]["o"], np.tile([0, 1, 1, 1], 32).astype(np.float32))


@pytest.mark.parametrize("body, message", [
    ("""
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %v = arith.constant 1.0 : f32
      %tile = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
      scf.for %j = %c0 to %c4 step %c1 {
        memref.store %v, %tile[%j] : memref<4xf32, #gpu.address_space<workgroup>>
      }""", "data race on shared memref"),
    ("""
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c40 = arith.constant 40 : index
      %t = gpu.thread_id x
      scf.for %j = %c0 to %c4 step %c1 {
        %s = arith.muli %j, %c40 : index
        %at = arith.addi %s, %t : index
        %v = memref.load %o[%at] : memref<128xf32>
      }""", "out of bounds"),
])
def test_errors_in_batched_loops_name_the_same_thread(body, message):
    errors = []
    for batch in (False, True):
        with pytest.raises(layoutkit.LayoutError, match=message) as caught:
            layoutkit.simulate(kernel_module("%o: memref<128xf32>", body), "k", 1, 32,
                               {"o": np.zeros(128, np.float32)}, batch_loops=batch)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


def test_uniform_private_reads_in_batched_loops():
    """A private value read at a uniform index inside a batched loop (each iteration sees
    the thread's own copy) and a per-iteration private store."""
    body = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %priv = memref.alloca() : memref<4xf32>
      %scale = memref.alloca() : memref<1xf32>
      %t = gpu.thread_id x
      %tv = arith.index_cast %t : index to i32
      %tf = arith.sitofp %tv : i32 to f32
      memref.store %tf, %scale[%c0] : memref<1xf32>
      scf.for %j = %c0 to %c4 step %c1 {
        %s = memref.load %scale[%c0] : memref<1xf32>
        %jv = arith.index_cast %j : index to i32
        %jf = arith.sitofp %jv : i32 to f32
        %p = arith.mulf %s, %jf : f32
        memref.store %p, %priv[%j] : memref<4xf32>
      }
      %row = arith.muli %t, %c4 : index
      %v = vector.load %priv[%c0] : memref<4xf32>, vector<4xf32>
      vector.store %v, %o[%row] : memref<128xf32>, vector<4xf32>"""
    for threads in (32, 20):  # (20: a partial warp)
        runs = run_pair("%o: memref<128xf32>", body, threads, {"o": np.zeros(128, np.float32)})
        assert_same(runs)
        t, j = np.meshgrid(np.arange(threads), np.arange(4), indexing="ij")
        want = np.zeros(128, np.float32)
        want[:4 * threads] = (t * j).ravel()
        assert np.array_equal(runs[1][0]["o"], want)


NESTED_STORES = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %t = gpu.thread_id x
      %t8 = arith.muli %t, %c8 : index
      %tm = arith.remui %t, %c3 : index
      %tb = arith.addi %tm, %c1 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %i16 = arith.muli %i, %c16 : index
        scf.for %j = %c0 to UPPER step %c1 {
          %s = arith.addi %i, %j : index
          %a = arith.addi %t8, %s : index
          %j2 = arith.muli %j, %c2 : index
          %s2 = arith.addi %i, %j2 : index
          %s3 = arith.addi %s2, %c1 : index
          %s4 = arith.andi %s3, %c7 : index
          %b = arith.addi %t8, %s4 : index
          %k0 = arith.addi %i16, %j : index
          %k = arith.index_cast %k0 : index to i32
          %v = arith.sitofp %k : i32 to f32
          %w = arith.negf %v : f32
          memref.store %v, %o[%a] : memref<256xf32>
          memref.store %w, %o[%b] : memref<256xf32>
        }
      }"""


@pytest.mark.parametrize("upper", ["%c3", "%tb"])
@pytest.mark.parametrize("threads", [32, 20])
def test_stores_in_a_nested_loop_keep_the_nest_order(upper, threads):
    """The i loop batches with its o stores inside the j loop (batching.nested_plan):
    thread t's o[8t + i + j] and o[8t + (i + 2j + 1) % 8] are written by several (i, j)
    (i + j = 2 by (0, 2), (1, 1) and (2, 0): the last in the order i, then j, is (2, 0)) and
    keep the value of the last in the order i, then j, then the two stores; also with the
    j loop's bound per thread (%tb: it runs one iteration at a time) and a partial warp."""
    module = kernel_module("%o: memref<256xf32>", NESTED_STORES.replace("UPPER", upper))
    outer = loops_of(module)[0]
    assert batching.plan(outer) is None and batching.nested_plan(outer) is not None
    runs = both(module, "k", 1, threads, {"o": np.full(256, 0.5, np.float32)}, global_sectors=True)
    assert_same(runs)
    want = np.full(256, 0.5, np.float32)
    for t in range(threads):
        for i in range(4):
            for j in range(3 if upper == "%c3" else t % 3 + 1):
                want[8 * t + i + j] = 16 * i + j
                want[8 * t + (i + 2 * j + 1) % 8] = -(16 * i + j)
    assert np.array_equal(runs[1][0]["o"], want)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4), st.integers(1, 4), st.integers(0, 7), st.integers(0, 7), st.integers(0, 3),
       st.sampled_from([32, 20]))
def test_random_nested_stores_keep_the_nest_order(outer, inner, a, b, c, threads):
    """o[(a i + b j + c t) % 8 + 8 (t % 4)] = 16 i + j over random trip counts and
    coefficients (threads collide too): the batched run equals the run in order."""
    body = f"""
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %ca = arith.constant {a} : index
      %cb = arith.constant {b} : index
      %cc = arith.constant {c} : index
      %co = arith.constant {outer} : index
      %cn = arith.constant {inner} : index
      %t = gpu.thread_id x
      %tc = arith.muli %t, %cc : index
      %t4 = arith.remui %t, %c4 : index
      %row = arith.muli %t4, %c8 : index
      scf.for %i = %c0 to %co step %c1 {{
        %ia = arith.muli %i, %ca : index
        %i16 = arith.muli %i, %c16 : index
        scf.for %j = %c0 to %cn step %c1 {{
          %jb = arith.muli %j, %cb : index
          %s = arith.addi %ia, %jb : index
          %st = arith.addi %s, %tc : index
          %sm = arith.remui %st, %c8 : index
          %at = arith.addi %row, %sm : index
          %k0 = arith.addi %i16, %j : index
          %k = arith.index_cast %k0 : index to i32
          %v = arith.sitofp %k : i32 to f32
          memref.store %v, %o[%at] : memref<32xf32>
        }}
      }}"""
    module = kernel_module("%o: memref<32xf32>", body)
    runs = both(module, "k", 1, threads, {"o": np.full(32, 0.5, np.float32)}, global_sectors=True)
    assert_same(runs)
