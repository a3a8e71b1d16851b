"""Review of the simulator speed work (issue 17): kernels aimed at the edges of loop
fission, private row views and waiting stores, kept results and the race tracker's pending
first store. Each runs with batch_loops=False and True and is checked against numpy (or
the expected error) computed here."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutkit

from .kernels import kernel_module
from .test_batching import assert_same, both


def runs_of(signature: str, body: str, grid, block, args: dict, **options):
    runs = both(kernel_module(signature, body), "k", grid, block, args, **options)
    assert_same(runs)
    return runs


def errors_of(signature: str, body: str, grid, block, args: dict, match: str, **options) -> str:
    """The message both modes raise (the same one)."""
    messages = []
    for batch in (False, True):
        copies = {k: v.copy() for k, v in args.items()}
        with pytest.raises(layoutkit.LayoutError, match=match) as caught:
            layoutkit.simulate(kernel_module(signature, body), "k", grid, block, copies,
                               batch_loops=batch, **options)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    return messages[0]


def test_wide_private_row_load_is_not_a_view_of_the_buffer():
    """A 32-wide load through a private row view (an index array equal in every slot) keeps
    its value after the buffer is stored again (it was a view of the data: o = 2 x)."""
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    body = """
      %c0 = arith.constant 0 : index
      %c4096 = arith.constant 4096 : index
      %t = gpu.thread_id x
      %z = arith.divui %t, %c4096 : index
      %buf = memref.alloca() : memref<32xf32>
      %v = vector.load %x[%t, %c0] : memref<64x32xf32>, vector<32xf32>
      vector.store %v, %buf[%c0] : memref<32xf32>, vector<32xf32>
      %a = vector.load %buf[%z] : memref<32xf32>, vector<32xf32>
      %w = arith.addf %v, %v : vector<32xf32>
      vector.store %w, %buf[%c0] : memref<32xf32>, vector<32xf32>
      vector.store %a, %o[%t, %c0] : memref<64x32xf32>, vector<32xf32>"""
    runs = runs_of("%x: memref<64x32xf32>, %o: memref<64x32xf32>", body, 1, 64,
                   {"x": x, "o": np.zeros_like(x)})
    assert np.array_equal(runs[1][0]["o"], x)


SHARED = "memref<64xf32, #gpu.address_space<workgroup>>"
ROTATING_STORE = f"""
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %zero = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %s = memref.alloc() : {SHARED}
      %acc = memref.alloca() : memref<4xf32>
      scf.for %i = %c0 to %c4 step %c1 {{
        memref.store %zero, %acc[%i] : memref<4xf32>
      }}
      scf.for %j = %c0 to %c8 step %c1 {{
        %v = memref.load %x[%j, %t] : memref<8x64xf32>
        %tj = arith.addi %t, %j : index
        %m = arith.remui %tj, %c64 : index
        memref.store %v, %s[%m] : {SHARED}
        ACCUMULATE
      }}"""
ACCUMULATE = """scf.for %i = %c0 to %c4 step %c1 {
          %w = arith.mulf %v, %v : f32
          %a = memref.load %acc[%i] : memref<4xf32>
          %sum = arith.addf %a, %w : f32
          memref.store %sum, %acc[%i] : memref<4xf32>
        }"""


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("threads", [48, 64])
def test_write_write_race_across_iterations_names_the_first_race(accumulate, threads):
    """s[(t + j) % 64] = x[j, t] without a barrier: in order, iteration 1's store by thread
    0 meets thread 1's of iteration 0 at s[1]."""
    body = ROTATING_STORE.replace("ACCUMULATE", ACCUMULATE if accumulate else "")
    x = np.ones((8, 64), np.float32)
    message = errors_of("%x: memref<8x64xf32>", body, 1, threads, {"x": x}, "data race on shared memref 's'")
    assert "thread (0, 0, 0): data race on shared memref 's': this thread writes (1,), " \
           "written by thread (1, 0, 0)" in message


def accumulation_body(trips: int, lb: int, step: int, size: int, load: str, guard: bool, threads: int) -> str:
    """acc[i] = acc[LOAD] + x[j, i, tt]^2 over j = lb, lb + step, ... (trips iterations) and
    i < size, tt = t + block * threads; with ``guard`` stored only while j < tt % 40."""
    store = f"memref.store %s, %acc[%i] : memref<{size}xf32>"
    if guard:
        store = f"""%g = arith.cmpi ult, %j, %lim : index
          scf.if %g {{
            {store}
          }}"""
    return f"""
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %clb = arith.constant {lb} : index
      %cub = arith.constant {lb + trips * step} : index
      %cst = arith.constant {step} : index
      %cI = arith.constant {size} : index
      %cIm = arith.constant {size - 1} : index
      %cT = arith.constant {threads} : index
      %c40 = arith.constant 40 : index
      %zero = arith.constant 0.0 : f32
      %acc = memref.alloca() : memref<{size}xf32>
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %bt = arith.muli %b, %cT : index
      %tt = arith.addi %t, %bt : index
      %lim = arith.remui %tt, %c40 : index
      scf.for %i = %c0 to %cI step %c1 {{
        memref.store %zero, %acc[%i] : memref<{size}xf32>
      }}
      scf.for %j = %clb to %cub step %cst {{
        scf.for %i = %c0 to %cI step %c1 {{
          %ri = arith.subi %cIm, %i : index
          %v = memref.load %x[%j, %i, %tt] : memref<48x4x256xf32>
          %w = arith.mulf %v, %v : f32
          %a = memref.load %acc[{load}] : memref<{size}xf32>
          %s = arith.addf %a, %w : f32
          {store}
        }}
      }}
      scf.for %i = %c0 to %cI step %c1 {{
        %a = memref.load %acc[%i] : memref<{size}xf32>
        memref.store %a, %o[%i, %tt] : memref<4x256xf32>
      }}"""


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([1, 3, 8, 16]), st.sampled_from([(0, 1), (0, 2), (1, 3), (5, 1)]),
       st.sampled_from([2, 4]), st.sampled_from(["%i", "%ri", "%c0"]), st.booleans(),
       st.sampled_from([32, 48, 64, 100]), st.sampled_from([1, 2]), st.integers(0, 2**16))
def test_random_accumulations_equal_the_run_in_order_and_numpy(trips, start, size, load, guard, threads,
                                                               grid, seed):
    """Private accumulators (fissioned j loops: accumulation form when acc[i] is loaded,
    a recurrence read across indices otherwise, partial warps, several blocks, a guarded
    store) against numpy, one j and i at a time in f32."""
    lb, step = start
    x = np.random.default_rng(seed).standard_normal((48, 4, 256)).astype(np.float32)
    body = accumulation_body(trips, lb, step, size, load, guard, threads)
    runs = runs_of("%x: memref<48x4x256xf32>, %o: memref<4x256xf32>", body, grid, threads,
                   {"x": x, "o": np.zeros((4, 256), np.float32)}, global_sectors=True)
    n = grid * threads
    tt = np.arange(n)
    acc = np.zeros((size, n), np.float32)
    for j in range(lb, lb + trips * step, step):
        for i in range(size):
            source = {"%i": i, "%ri": size - 1 - i, "%c0": 0}[load]
            s = acc[source] + x[j, i, :n] * x[j, i, :n]
            acc[i] = np.where(j < tt % 40, s, acc[i]) if guard else s
    want = np.zeros((4, 256), np.float32)
    want[:size, :n] = acc
    assert np.array_equal(runs[1][0]["o"], want)


KEPT = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c512 = arith.constant 512 : index
      %c4096 = arith.constant 4096 : index
      %t = gpu.thread_id x
"""


def test_kept_division_reports_a_zero_divisor_once_its_thread_is_active():
    """1024 threads (kept work): 4096 / (t - 512) under t > 512 divides by no zero; the same
    division with every thread active then meets thread 512's zero."""
    body = KEPT + """
      %d = arith.subi %t, %c512 : index
      %pos = arith.cmpi ugt, %t, %c512 : index
      scf.if %pos {
        %q0 = arith.divui %c4096, %d : index
        %qi = arith.index_cast %q0 : index to i32
        memref.store %qi, %o[%c4, %t] : memref<8x1024xi32>
      }
      scf.for %j = %c0 to %c2 step %c1 {
        %q = arith.divui %c4096, %d : index
        %qi = arith.index_cast %q : index to i32
        memref.store %qi, %o[%j, %t] : memref<8x1024xi32>
      }"""
    message = errors_of("%o: memref<8x1024xi32>", body, 1, 1024, {"o": np.zeros((8, 1024), np.int32)},
                        "integer division by zero")
    assert "%q = arith.divui" in message and "thread (512, 0, 0)" in message


def test_kept_addresses_out_of_bounds_only_for_inactive_threads():
    """x[8 t] is in bounds for t < 512 only: read under that mask (twice: the second time
    from kept work), then by every thread, which faults at thread 512."""
    x = np.arange(4096, dtype=np.int32) * 3 - 5
    body = KEPT + """
      %i = arith.muli %t, %c8 : index
      %small = arith.cmpi ult, %t, %c512 : index
      scf.for %j = %c0 to %c2 step %c1 {
        scf.if %small {
          %v = memref.load %x[%i] : memref<4096xi32>
          memref.store %v, %o[%j, %t] : memref<8x1024xi32>
        }
      }
      %again = memref.load %x[%i] : memref<4096xi32>"""
    signature = "%x: memref<4096xi32>, %o: memref<8x1024xi32>"
    errors_of(signature, body, 1, 1024, {"x": x, "o": np.zeros((8, 1024), np.int32)},
              r"thread \(512, 0, 0\): index \(4096,\) out of bounds")
    runs = runs_of(signature, body.rsplit("\n", 1)[0], 1, 1024, {"x": x, "o": np.zeros((8, 1024), np.int32)})
    want = np.zeros((8, 1024), np.int32)
    want[:2, :512] = x[::8][:512]
    assert np.array_equal(runs[1][0]["o"], want)


def test_private_buffer_allocated_in_a_loop_with_kept_index_work():
    """An alloca in the loop body (a new buffer each iteration) stored and loaded at
    (j + t % 8) % 8 by 1024 threads: each iteration reads back x[4 t + j]."""
    x = np.arange(4096, dtype=np.int32) * 7 + 1
    body = KEPT + """
      scf.for %j = %c0 to %c4 step %c1 {
        %buf = memref.alloca() : memref<8xi32>
        %k = arith.remui %t, %c8 : index
        %jk = arith.addi %j, %k : index
        %jk8 = arith.remui %jk, %c8 : index
        %xi = arith.muli %t, %c4 : index
        %xj = arith.addi %xi, %j : index
        %v = memref.load %x[%xj] : memref<4096xi32>
        memref.store %v, %buf[%jk8] : memref<8xi32>
        %w = memref.load %buf[%jk8] : memref<8xi32>
        memref.store %w, %o[%j, %t] : memref<8x1024xi32>
      }"""
    runs = runs_of("%x: memref<4096xi32>, %o: memref<8x1024xi32>", body, 1, 1024,
                   {"x": x, "o": np.zeros((8, 1024), np.int32)})
    want = np.zeros((8, 1024), np.int32)
    want[:4] = x.reshape(1024, 4).T
    assert np.array_equal(runs[1][0]["o"], want)


def test_waiting_accumulator_read_with_other_shapes():
    """acc[i, 0:2] += x[4 t + j] in a nested loop (rows stored through a view wait), read
    after each j by a scalar load at (1, 1) and a vector<1> load at (j, 0)."""
    x = np.arange(4096, dtype=np.int32) * 3 - 5
    body = KEPT + """
      %acc = memref.alloca() : memref<4x2xi32>
      %z = arith.constant dense<0> : vector<2xi32>
      scf.for %i = %c0 to %c4 step %c1 {
        vector.store %z, %acc[%i, %c0] : memref<4x2xi32>, vector<2xi32>
      }
      scf.for %j = %c0 to %c4 step %c1 {
        scf.for %i = %c0 to %c4 step %c1 {
          %a = vector.load %acc[%i, %c0] : memref<4x2xi32>, vector<2xi32>
          %xi = arith.muli %t, %c4 : index
          %xj = arith.addi %xi, %j : index
          %v = memref.load %x[%xj] : memref<4096xi32>
          %vv = vector.broadcast %v : i32 to vector<2xi32>
          %s = arith.addi %a, %vv : vector<2xi32>
          vector.store %s, %acc[%i, %c0] : memref<4x2xi32>, vector<2xi32>
        }
        %e = memref.load %acc[%c1, %c1] : memref<4x2xi32>
        %w = vector.load %acc[%j, %c0] : memref<4x2xi32>, vector<1xi32>
        %w0 = vector.extract %w[0] : i32 from vector<1xi32>
        %ew = arith.addi %e, %w0 : i32
        memref.store %ew, %o[%j, %t] : memref<8x1024xi32>
      }"""
    runs = runs_of("%x: memref<4096xi32>, %o: memref<8x1024xi32>", body, 1, 1024,
                   {"x": x, "o": np.zeros((8, 1024), np.int32)})
    running = np.cumsum(x.reshape(1024, 4).T.astype(np.int64), axis=0)  # acc[*, *] after j
    want = np.zeros((8, 1024), np.int32)
    want[:4] = (2 * running).astype(np.int32)
    assert np.array_equal(runs[1][0]["o"], want)


def fragments(matrices: np.ndarray, formula, count: int) -> np.ndarray:
    """Per-lane fragments (warps * 32, count // 2, 2) of (warps, rows, cols) matrices."""
    warps = matrices.shape[0]
    out = np.zeros((warps * 32, count // 2, 2), matrices.dtype)
    for lane in range(32):
        for i in range(count):
            r, c = formula(lane, i)
            out[lane::32, i // 2, i % 2] = matrices[:, r, c]
    return out


@pytest.mark.parametrize("chain", [False, True])
@pytest.mark.parametrize("threads, grid", [(128, 2), (96, 1)])
def test_mma_accumulation_with_special_f16_values(chain, threads, grid):
    """acc = mma(A_k, B_k, acc) over k (chained: mma(A_k, B_k, mma(A_k, B_k, acc))), the
    accumulator in private memory (a fissioned loop), with inf, NaN, subnormal and
    largest f16 inputs and NaN / -0.0 in C: against float64 products per warp."""
    from .test_mma import ptx_a, ptx_b, ptx_c

    rng = np.random.default_rng(threads + chain)
    steps, warps = 4, grid * threads // 32
    a = rng.standard_normal((steps, warps, 16, 16)).astype(np.float16)
    b = rng.standard_normal((steps, warps, 16, 8)).astype(np.float16)
    for m in (a, b):
        pick = rng.random(m.shape) < 0.01
        m[pick] = rng.choice(np.array([np.inf, -np.inf, np.nan, 6e-8, -6e-8, 65504, -0.0], np.float16), pick.sum())
    c = rng.standard_normal((warps, 16, 8)).astype(np.float32)
    c[0, 0, :2] = np.nan, -0.0
    n = warps * 32
    fa = np.stack([fragments(a[k], lambda lane, i: ptx_a(lane, i, 16), 8) for k in range(steps)])
    fb = np.stack([fragments(b[k], ptx_b, 4) for k in range(steps)])
    fc = fragments(c, ptx_c, 4)
    second = """%d = nvgpu.mma.sync (%fa, %fb, %d0) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>""" \
        if chain else "%d = arith.addf %d0, %zero : vector<2x2xf32>"
    body = f"""
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %cK = arith.constant {steps} : index
      %cB = arith.constant {threads} : index
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %t0 = gpu.thread_id x
      %bid = gpu.block_id x
      %bb = arith.muli %bid, %cB : index
      %t = arith.addi %t0, %bb : index
      %acc = memref.alloca() : memref<2x2xf32>
      %cin = vector.load %c[%t, %c0, %c0] : memref<{n}x2x2xf32>, vector<2x2xf32>
      vector.store %cin, %acc[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
      scf.for %k = %c0 to %cK step %c1 {{
        %fa = vector.load %a[%k, %t, %c0, %c0] : memref<{steps}x{n}x4x2xf16>, vector<4x2xf16>
        %fb = vector.load %b[%k, %t, %c0, %c0] : memref<{steps}x{n}x2x2xf16>, vector<2x2xf16>
        %cf = vector.load %acc[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
        %d0 = nvgpu.mma.sync (%fa, %fb, %cf) {{mmaShape = [16, 8, 16]}} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        {second}
        vector.store %d, %acc[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
      }}
      %r = vector.load %acc[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
      vector.store %r, %o[%t, %c0, %c0] : memref<{n}x2x2xf32>, vector<2x2xf32>"""
    signature = (f"%a: memref<{steps}x{n}x4x2xf16>, %b: memref<{steps}x{n}x2x2xf16>, "
                 f"%c: memref<{n}x2x2xf32>, %o: memref<{n}x2x2xf32>")
    runs = runs_of(signature, body, grid, threads, {"a": fa, "b": fb, "c": fc, "o": np.zeros((n, 2, 2), np.float32)})
    want = c.astype(np.float64)
    scale = np.abs(want)
    with np.errstate(invalid="ignore", over="ignore"):
        for k in range(steps):
            product = a[k].astype(np.float64) @ b[k].astype(np.float64)
            size = np.abs(a[k].astype(np.float64)) @ np.abs(b[k].astype(np.float64))
            for _ in range(2 if chain else 1):
                want = want + product
                scale = scale + size
    got = runs[1][0]["o"]
    want, scale = fragments(want, ptx_c, 4), fragments(scale, ptx_c, 4)
    assert 0 < np.isnan(want).sum() < want.size // 2 and np.isinf(want).any()
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    assert np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    assert np.all(np.abs(got[finite] - want[finite]) <= 1e-5 * (1 + scale[finite]))


# acc falls by 1 per iteration from its initial value (x is zeros): 100 / acc divides by
# zero once it reaches 0, while x[40 j + t] leaves x (128 elements) at iteration 3
FALLING_ACCUMULATOR = """
      scf.for %j = %c0 to %c4 step %c1 {
        %s = arith.muli %j, %c40 : index
        %at = arith.addi %s, %t : index
        %v = memref.load %x[%at] : memref<128xi32>
        %a = memref.load %acc[%c0] : memref<1xi32>
        %q = arith.divui %c100, %a : i32
        %n = arith.subi %a, %one : i32
        %w = arith.addi %n, %v : i32
        memref.store %w, %acc[%c0] : memref<1xi32>
      }"""


def test_recurrence_fault_before_a_later_iterations_fault():
    body = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c40 = arith.constant 40 : index
      %c100 = arith.constant 100 : i32
      %one = arith.constant 1 : i32
      %init = arith.constant 2 : i32
      %t = gpu.thread_id x
      %acc = memref.alloca() : memref<1xi32>
      memref.store %init, %acc[%c0] : memref<1xi32>
""" + FALLING_ACCUMULATOR
    message = errors_of("%x: memref<128xi32>", body, 1, 32, {"x": np.zeros(128, np.int32)}, "thread")
    assert "%q = arith.divui" in message and "thread (0, 0, 0): integer division by zero" in message


def test_failed_batched_run_reruns_in_order_from_the_arguments_as_they_were():
    """y is read and written before the fissioned loop: the run in order after a failed
    batched run must start from y as the caller gave it. y = 0: the accumulator starts at
    2 + 0 and the division by zero at iteration 2 comes first; from the y the failed run
    left (5), it would start at 7, never reach zero, and x's out-of-bounds read at
    iteration 3 would be reported instead."""
    body = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c40 = arith.constant 40 : index
      %c100 = arith.constant 100 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %five = arith.constant 5 : i32
      %t = gpu.thread_id x
      %old = memref.load %y[%t] : memref<32xi32>
      %bumped = arith.addi %old, %five : i32
      memref.store %bumped, %y[%t] : memref<32xi32>
      %init = arith.addi %old, %two : i32
      %acc = memref.alloca() : memref<1xi32>
      memref.store %init, %acc[%c0] : memref<1xi32>
""" + FALLING_ACCUMULATOR
    module = kernel_module("%x: memref<128xi32>, %y: memref<32xi32>", body)
    for batch in (False, True):
        args = {"x": np.zeros(128, np.int32), "y": np.zeros(32, np.int32)}
        with pytest.raises(layoutkit.LayoutError, match="thread \\(0, 0, 0\\): integer division by zero"):
            layoutkit.simulate(module, "k", 1, 32, args, batch_loops=batch)
        assert np.array_equal(args["y"], np.full(32, 5, np.int32))  # stored once, as in order
