"""Loop fission (layoutkit.backends.simt.fission): a loop with a recurrence runs its other
ops batched and the recurrence iteration by iteration, with the outputs, counts and reports
of the run one iteration at a time (batch_loops=False), checked against values computed
here; loops whose recurrence cannot be split off exactly run as before."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import scf

import layoutkit
from layoutkit.backends.simt import batching, fission

from .kernels import kernel_module
from .test_batching import assert_same, both, example, loops_of, matmul_args


@pytest.fixture
def fissioned(monkeypatch):
    """The loops a run fissioned (each time a group of its iterations ran so)."""
    seen = []
    steps = fission.steps

    def spy(m, plan, times, planned):
        seen.append((plan.plan.iv.name_hint, times))
        return steps(m, plan, times, planned)

    monkeypatch.setattr(fission, "steps", spy)
    return seen


def iv_names(module, keep) -> list:
    return [loop.body.blocks[0].args[0].name_hint for loop in loops_of(module) if keep(loop)]


@pytest.mark.parametrize("shape, grid, times", [
    ((128, 128, 64), (1, 1), 4), ((256, 128, 128), (1, 2), 4), ((256, 512, 64), (4, 2), 2)])
def test_matmul_mma_kk_loop_is_fissioned_exactly(fissioned, shape, grid, times):
    """The kk loop's fragment loads and mma products run batched over its iterations, the
    accumulator's load, + C and store one iteration after another; with 8 blocks (1024
    threads) two iterations at a time, so that the nest fits MAX_NEST_SLOTS."""
    module = example("matmul_mma")
    assert iv_names(module, lambda loop: fission.plan(loop) is not None) == ["kk"]
    m, n, k = shape
    args = matmul_args(m, n, k, seed=5)
    runs = both(module, "matmul", grid, 128, args, bank_conflicts=True, global_sectors=True)
    assert_same(runs)
    assert set(fissioned) == {("kk", times)}
    assert len(fissioned) == (k // 64) * (4 // times)  # (both blocks run in one chunk)
    # the sequential f32 order: each kk step's 16-wide product rounded, then added
    a, b = args["a"].astype(np.float32), args["b"].astype(np.float32)
    want = np.zeros((m, n), np.float32)
    for k0 in range(0, k, 16):
        want += a[:, k0:k0 + 16].astype(np.float64) @ b[k0:k0 + 16].astype(np.float64)
    assert np.allclose(runs[1][0]["c"], want, rtol=1e-5, atol=1e-5)


SQUARES = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %zero = arith.constant 0.0 : f32
      %acc = memref.alloca() : memref<4xf32>
      %t = gpu.thread_id x
      scf.for %i = %c0 to %c4 step %c1 {
        memref.store %zero, %acc[%i] : memref<4xf32>
      }
      scf.for %j = %c0 to %c8 step %c1 {
        scf.for %i = %c0 to %c4 step %c1 {
          %v = memref.load %x[%j, %i, %t] : memref<8x4x64xf32>
          %w = arith.mulf %v, %v : f32
          %a = memref.load %acc[%i] : memref<4xf32>
          %s = arith.addf %a, %w : f32
          memref.store %s, %acc[%i] : memref<4xf32>
        }
      }
      scf.for %i = %c0 to %c4 step %c1 {
        %a = memref.load %acc[%i] : memref<4xf32>
        memref.store %a, %o[%i, %t] : memref<4x64xf32>
      }"""


@pytest.mark.parametrize("threads", [64, 48])
def test_private_accumulator_in_a_nested_loop(fissioned, threads):
    """acc[i] += x[j, i, t]^2: the j loop's recurrence is in the i loop's body, an
    accumulation (one load, 8 adds, one store) with 64 threads; with 48 the second warp is
    partial and each iteration loads and stores."""
    x = np.random.default_rng(1).standard_normal((8, 4, 64)).astype(np.float32)
    module = kernel_module("%x: memref<8x4x64xf32>, %o: memref<4x64xf32>", SQUARES)
    assert fission.plan(loops_of(module)[1]).accumulates
    runs = both(module, "k", 1, threads, {"x": x, "o": np.zeros((4, 64), np.float32)})
    assert_same(runs)
    assert fissioned and {name for name, _ in fissioned} == {"j"}
    want = np.zeros((4, 64), np.float32)
    for j in range(8):
        want = want + x[j] * x[j]  # (f32 each step, in order)
    want[:, threads:] = 0
    assert np.array_equal(runs[1][0]["o"], want)


ROTATE = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %half = arith.constant 0.5 : f32
      %acc = memref.alloca() : memref<4xf32>
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %tf = arith.sitofp %ti : i32 to f32
      scf.for %k = %c0 to %c4 step %c1 {
        %ki = arith.index_cast %k : index to i32
        %kf = arith.sitofp %ki : i32 to f32
        %s = arith.addf %tf, %kf : f32
        memref.store %s, %acc[%k] : memref<4xf32>
      }
      scf.for %j = %c0 to %c8 step %c1 {
        %jn = arith.addi %j, %c1 : index
        %other = arith.remui %jn, %c4 : index
        %mine = arith.remui %j, %c4 : index
        %prev = memref.load %acc[%other] : memref<4xf32>
        %xj = memref.load %x[%j, %t] : memref<8x32xf32>
        %y = arith.mulf %prev, %half : f32
        %z = arith.addf %y, %xj : f32
        memref.store %z, %acc[%mine] : memref<4xf32>
      }
      scf.for %k = %c0 to %c4 step %c1 {
        %a = memref.load %acc[%k] : memref<4xf32>
        memref.store %a, %o[%k, %t] : memref<4x32xf32>
      }"""


def test_recurrence_reading_another_index(fissioned):
    """acc[j % 4] = acc[(j + 1) % 4] / 2 + x[j]: each iteration reads an element a different
    iteration stored (the loop's own body is the recurrence's block)."""
    x = np.random.default_rng(2).standard_normal((8, 32)).astype(np.float32)
    module = kernel_module("%x: memref<8x32xf32>, %o: memref<4x32xf32>", ROTATE)
    runs = both(module, "k", 1, 32, {"x": x, "o": np.zeros((4, 32), np.float32)})
    assert_same(runs)
    assert {name for name, _ in fissioned} == {"j"}
    acc = np.arange(32, dtype=np.float32)[None, :] + np.arange(4, dtype=np.float32)[:, None]
    for j in range(8):
        acc[j % 4] = acc[(j + 1) % 4] * np.float32(0.5) + x[j]
    assert np.array_equal(runs[1][0]["o"], acc)


SHARED = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %sh = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
      %t = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %sh[%t] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %j = %c0 to %c4 step %c1 {
        %n1 = arith.addi %t, %c1 : index
        %n = arith.remui %n1, %c32 : index
        %xj = memref.load %x[%j, %t] : memref<4x32xf32>
        %v = memref.load %sh[INDEX] : memref<32xf32, #gpu.address_space<workgroup>>
        BARRIER
        %w = arith.addf %v, %xj : f32
        memref.store %w, %sh[%t] : memref<32xf32, #gpu.address_space<workgroup>>
        BARRIER
      }
      gpu.barrier
      %r = memref.load %sh[%t] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %r, %o[%t] : memref<32xf32>"""


@pytest.mark.parametrize("index, barrier", [("%n", "gpu.barrier"), ("%t", "")])
def test_shared_memory_recurrences_are_not_fissioned(fissioned, index, barrier):
    """sh[t] = sh[t + 1] + x[j] with barriers between (fission's plan refuses the barrier);
    sh[t] += x[j] without (the recurrence is in shared memory: refused at run time)."""
    x = np.random.default_rng(3).standard_normal((4, 32)).astype(np.float32)
    module = kernel_module("%x: memref<4x32xf32>, %o: memref<32xf32>",
                           SHARED.replace("INDEX", index).replace("BARRIER", barrier))
    assert (fission.plan(loops_of(module)[0]) is None) == bool(barrier)
    runs = both(module, "k", 1, 32, {"x": x, "o": np.zeros(32, np.float32)}, bank_conflicts=True)
    assert_same(runs)
    assert not fissioned
    sh = np.zeros(32, np.float32)
    for j in range(4):
        sh = (np.roll(sh, -1) if barrier else sh) + x[j]
    assert np.array_equal(runs[1][0]["o"], sh)


def test_recurrence_stored_to_global_memory_is_not_fissioned(fissioned):
    """The running sum is also stored to o each iteration: the recurrence touches global
    memory, so the loop runs one iteration at a time."""
    body = SQUARES.replace("""          memref.store %s, %acc[%i] : memref<4xf32>
""", """          memref.store %s, %acc[%i] : memref<4xf32>
          memref.store %s, %o[%i, %t] : memref<4x64xf32>
""")
    module = kernel_module("%x: memref<8x4x64xf32>, %o: memref<4x64xf32>", body)
    assert iv_names(module, lambda loop: fission.plan(loop) is not None) == ["j"]
    x = np.random.default_rng(4).standard_normal((8, 4, 64)).astype(np.float32)
    runs = both(module, "k", 1, 64, {"x": x, "o": np.zeros((4, 64), np.float32)}, global_sectors=True)
    assert_same(runs)
    assert not fissioned


def test_loop_under_a_branch_and_branches_in_the_loop(fissioned):
    """The fissioned loop runs under scf.if (threads t < 40 of 64); a loop holding an
    scf.if is not fissioned (its plan is None)."""
    inner = SQUARES.split("      scf.for %j")[1].split("      scf.for %i = %c0 to %c4 step %c1 {\n        %a")[0]
    branch = SQUARES.replace("      scf.for %j" + inner, f"""      %c40 = arith.constant 40 : index
      %low = arith.cmpi ult, %t, %c40 : index
      scf.if %low {{
      scf.for %j{inner}      }}
""")
    module = kernel_module("%x: memref<8x4x64xf32>, %o: memref<4x64xf32>", branch)
    x = np.random.default_rng(6).standard_normal((8, 4, 64)).astype(np.float32)
    runs = both(module, "k", 1, 64, {"x": x, "o": np.zeros((4, 64), np.float32)})
    assert_same(runs)
    assert {name for name, _ in fissioned} == {"j"}
    want = np.zeros((4, 64), np.float32)
    for j in range(8):
        want[:, :40] = want[:, :40] + x[j, :, :40] ** 2
    assert np.array_equal(runs[1][0]["o"], want)
    guarded = SQUARES.replace("""          %a = memref.load %acc[%i] : memref<4xf32>
          %s = arith.addf %a, %w : f32
          memref.store %s, %acc[%i] : memref<4xf32>""", """          %big = arith.cmpf ogt, %w, %half : f32
          scf.if %big {
            %a = memref.load %acc[%i] : memref<4xf32>
            %s = arith.addf %a, %w : f32
            memref.store %s, %acc[%i] : memref<4xf32>
          }""").replace("%zero = arith", "%half = arith.constant 0.5 : f32\n      %zero = arith")
    module = kernel_module("%x: memref<8x4x64xf32>, %o: memref<4x64xf32>", guarded)
    assert all(fission.plan(loop) is None for loop in loops_of(module))
    fissioned.clear()
    runs = both(module, "k", 1, 64, {"x": x, "o": np.zeros((4, 64), np.float32)})
    assert_same(runs)
    assert not fissioned
    sq = x * x
    want = np.zeros((4, 64), np.float32)
    for j in range(8):
        want = want + np.where(sq[j] > 0.5, sq[j], np.float32(0))
    assert np.array_equal(runs[1][0]["o"], want)


INDICES = ("%c0", "%c1", "%jm", "%i", "%tm")


@st.composite
def recurrent_kernels(draw):
    """A j loop (2-5 iterations) around an optional i loop (1-3), whose innermost body
    loads private acc at some index, adds x[j, t] (scaled), and stores at some index;
    sometimes a second such statement, an iteration-private scratch store, or a load of
    acc before the nested loop (about half of them are fissioned)."""
    trips = draw(st.integers(2, 5))
    nested = draw(st.integers(0, 3))
    lines = []
    for s in range(draw(st.integers(1, 2))):
        # (in the nested loop, mostly %i: the nested loop must batch for fission)
        choices = ("%i",) * 6 + INDICES if nested else INDICES[:3] + INDICES[4:]
        load = draw(st.sampled_from(choices))
        store = draw(st.sampled_from(choices))
        op = draw(st.sampled_from(["arith.addf", "arith.mulf", "arith.subf"]))
        lines += [f"%a{s} = memref.load %acc[{load}] : memref<4xf32>",
                  f"%b{s} = {op} %a{s}, %xs : f32",
                  f"memref.store %b{s}, %acc[{store}] : memref<4xf32>"]
    if draw(st.booleans()):
        lines.append("memref.store %xs, %scr[%j] : memref<8xf32>")
    inner = "\n".join(lines)
    before = "%pre = memref.load %acc[%c1] : memref<4xf32>\n" if draw(st.integers(0, 3)) == 0 else ""
    if nested:
        inner = f"scf.for %i = %c0 to %c{nested} step %c1 {{\n{inner}\n}}"
    body = f"""
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %q = arith.constant 0.75 : f32
      %acc = memref.alloca() : memref<4xf32>
      %scr = memref.alloca() : memref<8xf32>
      %t = gpu.thread_id x
      %tm = arith.remui %t, %c4 : index
      scf.for %k = %c0 to %c4 step %c1 {{
        %v = memref.load %x[%k, %t] : memref<8x64xf32>
        memref.store %v, %acc[%k] : memref<4xf32>
      }}
      scf.for %j = %c0 to %c{trips} step %c1 {{
        %jm = arith.remui %j, %c4 : index
        %xj = memref.load %x[%j, %t] : memref<8x64xf32>
        %xs = arith.mulf %xj, %q : f32
        {before}{inner}
      }}
      scf.for %k = %c0 to %c4 step %c1 {{
        %a = memref.load %acc[%k] : memref<4xf32>
        memref.store %a, %o[%k, %t] : memref<4x64xf32>
      }}"""
    return body, draw(st.sampled_from([32, 48, 64]))


@settings(max_examples=30, deadline=None)
@given(recurrent_kernels())
def test_random_recurrences_fission_exactly(case):
    """Whatever the indices, a batched run (fissioned or not) equals the sequential one."""
    body, threads = case
    module = kernel_module("%x: memref<8x64xf32>, %o: memref<4x64xf32>", body)
    x = np.random.default_rng(7).standard_normal((8, 64)).astype(np.float32)
    runs = both(module, "k", 1, threads, {"x": x, "o": np.zeros((4, 64), np.float32)})
    assert_same(runs)


def test_plans_only_loops_with_a_recurrence():
    """Fission plans only loops batching refuses for a recurrence; batchable loops and loops
    with barriers have none."""
    module = example("matmul_mma")
    for loop in loops_of(module):
        assert isinstance(loop, scf.ForOp)
    names = iv_names(module, lambda loop: fission.plan(loop) is not None)
    assert names == ["kk"]


MMA_CHAIN = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %acc = memref.alloca() : memref<2x2x2xf32>
      %t = gpu.thread_id x
      vector.store %zero, %acc[%c0, %c0, %c0] : memref<2x2x2xf32>, vector<2x2xf32>
      vector.store %zero, %acc[%c1, %c0, %c0] : memref<2x2x2xf32>, vector<2x2xf32>
      scf.for %j = %c0 to %c4 step %c1 {
        %jm = arith.remui %j, %c2 : index
        %j1 = arith.addi %j, %c1 : index
        %jn = arith.remui %j1, %c2 : index
        %fa = vector.load %x[%j, %t, %c0, %c0] : memref<4x32x4x2xf16>, vector<4x2xf16>
        %fb = vector.load %y[%j, %t, %c0, %c0] : memref<4x32x2x2xf16>, vector<2x2xf16>
        %cf = vector.load %acc[LOAD, %c0, %c0] : memref<2x2x2xf32>, vector<2x2xf32>
        %d = nvgpu.mma.sync (%fa, %fb, %cf) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
        vector.store %d, %acc[STORE, %c0, %c0] : memref<2x2x2xf32>, vector<2x2xf32>
      }
      scf.for %k = %c0 to %c2 step %c1 {
        %v = vector.load %acc[%k, %c0, %c0] : memref<2x2x2xf32>, vector<2x2xf32>
        vector.store %v, %o[%k, %t, %c0, %c0] : memref<2x32x2x2xf32>, vector<2x2xf32>
      }"""


@pytest.mark.parametrize("load, store, accumulates", [
    ("%c0", "%c0", True), ("%jm", "%jm", False), ("%c0", "%c1", False), ("%jn", "%jm", False)])
def test_mma_chains_split_and_accumulated(fissioned, load, store, accumulates):
    """One warp's mma chain through private acc: at one address (the accumulation: one
    load, the products summed in order, one store), at an address that depends on the
    iteration, or reading another address than it stores: each equal to the run in order."""
    module = kernel_module("%x: memref<4x32x4x2xf16>, %y: memref<4x32x2x2xf16>, %o: memref<2x32x2x2xf32>",
                           MMA_CHAIN.replace("LOAD", load).replace("STORE", store))
    planned = fission.plan(loops_of(module)[0])
    assert planned is not None and len(planned.split) == 1 and planned.accumulates == accumulates
    rng = np.random.default_rng(8)
    args = {"x": rng.standard_normal((4, 32, 4, 2)).astype(np.float16),
            "y": rng.standard_normal((4, 32, 2, 2)).astype(np.float16),
            "o": np.zeros((2, 32, 2, 2), np.float32)}
    runs = both(module, "k", 1, 32, args)
    assert_same(runs)
    assert {name for name, _ in fissioned} == {"j"}
    assert np.abs(runs[1][0]["o"]).sum() > 0


def test_fission_inside_a_batched_loop(fissioned):
    """The o loop batches (acc[o] is its own); the j loop inside it, a recurrence on
    acc[o], is fissioned over the o loop's 4 x 32 slots."""
    body = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %zero = arith.constant 0.0 : f32
      %acc = memref.alloca() : memref<4xf32>
      %t = gpu.thread_id x
      scf.for %o = %c0 to %c4 step %c1 {
        memref.store %zero, %acc[%o] : memref<4xf32>
        %o1 = arith.addi %o, %c1 : index
        %oi = arith.index_cast %o1 : index to i32
        %of = arith.sitofp %oi : i32 to f32
        scf.for %j = %c0 to %c8 step %c1 {
          %v = memref.load %x[%j, %t] : memref<8x32xf32>
          %w = arith.mulf %v, %of : f32
          %a = memref.load %acc[%o] : memref<4xf32>
          %s = arith.addf %a, %w : f32
          memref.store %s, %acc[%o] : memref<4xf32>
        }
        %r = memref.load %acc[%o] : memref<4xf32>
        memref.store %r, %out[%o, %t] : memref<4x32xf32>
      }"""
    module = kernel_module("%x: memref<8x32xf32>, %out: memref<4x32xf32>", body)
    outer, inner = loops_of(module)
    assert batching.plan(outer) is not None and fission.plan(inner) is not None
    x = np.random.default_rng(9).standard_normal((8, 32)).astype(np.float32)
    runs = both(module, "k", 1, 32, {"x": x, "out": np.zeros((4, 32), np.float32)})
    assert_same(runs)
    assert fissioned == [("j", 8)]
    want = np.zeros((4, 32), np.float32)
    for j in range(8):
        want = want + x[j] * np.arange(1, 5, dtype=np.float32)[:, None]
    assert np.array_equal(runs[1][0]["out"], want)


def test_a_fault_in_the_recurrence_names_the_same_thread_and_op(fissioned):
    """acc[j] read at j = 4 of memref<4xf32>: the fissioned run reports what the run in
    order reports (the first faulting iteration's load, the same thread)."""
    body = ROTATE.replace("%prev = memref.load %acc[%other]", "%prev = memref.load %acc[%j]")
    module = kernel_module("%x: memref<8x32xf32>, %o: memref<4x32xf32>", body)
    assert fission.plan(loops_of(module)[1]) is not None
    x = np.zeros((8, 32), np.float32)
    errors = []
    for batch in (False, True):
        with pytest.raises(layoutkit.LayoutError, match="out of bounds") as caught:
            layoutkit.simulate(module, "k", 1, 32, {"x": x, "o": np.zeros((4, 32), np.float32)},
                               batch_loops=batch)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert fissioned
