"""Review of lasting results (work on arrays that last from run to run, kept with the
kernel): one parsed module launched again and again, with other data, shapes, scalar
arguments and options in between, gives what a freshly parsed module gives each time
(outputs bit for bit, counts, the error and the thread it names) and what numpy gives;
and what it keeps with the kernel stays bounded."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutkit
from layoutkit import LayoutError
from layoutkit.backends.simt import machine
from layoutkit.backends.simt.errors import SimulationError
from layoutkit.ir import parse_module


def module_text(signature: str, body: str) -> str:
    return (f"module {{\n  gpu.module @m {{\n    gpu.func @k({signature}) kernel {{\n{body}\n"
            f"      gpu.return\n    }}\n  }}\n}}\n")


def outcome(module, grid, block, args: dict, **options) -> tuple:
    """What a launch of kernel @k gives (:func:`outcome_of`)."""
    return outcome_of(module, "k", grid, block, args, **options)


def outcome_of(module, kernel: str, grid, block, args: dict, **options) -> tuple:
    """What a launch gives: its arrays' bytes and counts, or its error's type and text."""
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    try:
        r = layoutkit.simulate(module, kernel, grid, block, args, **options)
    except (SimulationError, LayoutError) as e:
        return ("error", type(e).__name__, str(e))
    arrays = {k: v.tobytes() for k, v in args.items() if isinstance(v, np.ndarray)}
    return ("ok", arrays, r.ops, r.thread_instructions, r.shared_wavefronts, r.global_sectors,
            r.barrier_arrivals)


def assert_relaunches_match_fresh(text: str, launches) -> list:
    """Each (grid, block, args, options) launched on one parsed module equals a launch of a
    fresh parse; the outcomes, in order."""
    module = parse_module(text)
    seen = []
    for grid, block, args, options in launches:
        kept = outcome(module, grid, block, args, **options)
        fresh = outcome(parse_module(text), grid, block, args, **options)
        assert kept == fresh, (grid, block, options, kept[:1] + kept[2:], fresh[:1] + fresh[2:])
        seen.append(kept)
    return seen


def static_of(module) -> dict:
    (kernel,) = [op for op in module.walk() if machine._STATIC_ATTRIBUTE in op.__dict__]
    return kernel.__dict__[machine._STATIC_ATTRIBUTE]


# a loop carrying a value runs one iteration at a time: each value of %i is a new uniform
# array, lasting, and the constants inside the loop last too
LONG_LOOP = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %z = arith.constant 0 : i64
      %t = gpu.thread_id x
      %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
        %c3 = arith.constant 3 : index
        %c5 = arith.constant 5 : index
        %a = arith.muli %i, %c3 : index
        %b = arith.addi %a, %t : index
        %c = arith.xori %b, %i : index
        %d = arith.subi %c, %c5 : index
        %e = arith.index_cast %d : index to i64
        %acc2 = arith.addi %acc, %e : i64
        scf.yield %acc2 : i64
      }
      memref.store %s, %o[%t] : memref<?xi64>
"""


def test_a_long_sequential_loop_keeps_a_bounded_number_of_lasting_results():
    """20000 iterations of index math on the uniform induction value and constants: each
    result (8 bytes) lasts, and was kept with the kernel until 8 MiB of them, ~1M entries
    of some hundred bytes each (~450 MB with 300000 iterations); now at most a few
    thousand entries. The sums are numpy's."""
    n = 20000
    module = parse_module(module_text("%o: memref<?xi64>, %n: index", LONG_LOOP))
    o = np.zeros(4, np.int64)
    layoutkit.simulate(module, "k", 1, 4, {"o": o, "n": n}, max_steps=10**7)
    i, t = np.arange(n)[:, None], np.arange(4)[None]
    assert np.array_equal(o, (((i * 3 + t) ^ i) - 5).sum(axis=0))
    assert len(static_of(module)["lasting results"]) <= 4097


# thread g = block * block_dim + t, active when g < lim and (t % 4 != 0 or t >= z): it
# divides g by t % 4 (zero for an active thread only when t % 4 == 0 and t >= z), and
# stores a[t % 4 % 2, g // (t % 4) + s] + a[.., .. + 1] (a vector<2xf32> load of a
# dynamic 2-d memref) to o[g]
GUARDED = """
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %bd = gpu.block_dim x
      %g0 = arith.muli %b, %bd : index
      %g = arith.addi %g0, %t : index
      %r4 = arith.remui %t, %c4 : index
      %nz = arith.cmpi ne, %r4, %c0 : index
      %big = arith.cmpi uge, %t, %z : index
      %either = arith.ori %nz, %big : i1
      %below = arith.cmpi ult, %g, %lim : index
      %ok = arith.andi %either, %below : i1
      scf.if %ok {
        %q = arith.divui %g, %r4 : index
        %col = arith.addi %q, %s : index
        %row = arith.remui %r4, %c2 : index
        %x = vector.load %a[%row, %col] : memref<?x?xf32>, vector<2xf32>
        %x0 = vector.extract %x[0] : f32 from vector<2xf32>
        %x1 = vector.extract %x[1] : f32 from vector<2xf32>
        %y = arith.addf %x0, %x1 : f32
        memref.store %y, %o[%g] : memref<?xf32>
      }
"""
GUARDED_SIGNATURE = "%a: memref<?x?xf32>, %o: memref<?xf32>, %lim: index, %s: index, %z: index"


def guarded_numpy(grid: int, block: int, args: dict):
    """The output o, or the kind of error ("division" / "bounds") the launch must report."""
    a, o = args["a"], args["o"].copy()
    g = np.arange(grid * block)
    t = g % block
    r4 = t % 4
    active = (g < args["lim"]) & ((r4 != 0) | (t >= args["z"]))
    if (active & (r4 == 0)).any():
        return "division"
    g, r4 = g[active], r4[active]
    col = g // r4 + args["s"]
    if (col + 2 > a.shape[1]).any() or (g >= o.size).any():
        return "bounds"
    o[g] = a[r4 % 2, col] + a[r4 % 2, col + 1]
    return o


launch_options = st.sampled_from([{}, {"batch_loops": False}, {"global_sectors": True},
                                  {"bank_conflicts": True}, {"race_check": False}])


@st.composite
def guarded_launch(draw):
    block = draw(st.sampled_from([32, 33, 64, 96]))
    grid = draw(st.sampled_from([1, 2, 3, 200]))  # (200 x 96 slots: a chunk not kept)
    threads = grid * block
    lim = draw(st.sampled_from([threads, threads // 2, 5]))
    s = draw(st.integers(0, 3))
    z = draw(st.sampled_from([block, block, block, 8, 0]))
    cols = threads + s + 2 - draw(st.sampled_from([0, 0, threads // 2, threads - 2]))
    seed = draw(st.integers(0, 2**16))
    data = np.random.default_rng(seed).standard_normal((2, max(cols, 2))).astype(np.float32)
    o = np.zeros(threads - draw(st.sampled_from([0, 0, 1])), np.float32)
    return grid, block, {"a": data, "o": o, "lim": lim, "s": s, "z": z}, draw(launch_options)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(guarded_launch(), min_size=2, max_size=4))
def test_guarded_divisions_and_dynamic_shapes_relaunched_equal_fresh_and_numpy(launches):
    """Launches of one parsed module (kept chunks and a chunk of more than 1 << 14 slots,
    dynamic shapes that shrink so that kept addresses would leave them, divisors zero only
    for some threads in some launches) equal fresh parses, and numpy."""
    seen = assert_relaunches_match_fresh(module_text(GUARDED_SIGNATURE, GUARDED), launches)
    for (grid, block, args, _), got in zip(launches, seen):
        want = guarded_numpy(grid, block, args)
        if isinstance(want, str):
            assert got[0] == "error" and ("division by zero" if want == "division" else "out of bounds") in got[2]
        else:
            assert got[0] == "ok", got
            assert got[1]["o"] == want.tobytes()


# a batched loop (vector loads of a dynamic memref through private memory, a division by
# an argument) and a sequential one (a carried sum: uniform induction values), over k
# iterations: o[(g*k + i)*4 + j] = a[i % 2 + s, 4i + g + j], u[g] = sum_i a[s, i + g]
LOOPS = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %zero = arith.constant 0.0 : f32
      %p = memref.alloca() : memref<8x4xf32, #gpu.address_space<private>>
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %bd = gpu.block_dim x
      %g0 = arith.muli %b, %bd : index
      %g = arith.addi %g0, %t : index
      scf.for %i = %c0 to %k step %c1 {
        %i4 = arith.muli %i, %c4 : index
        %r = arith.remui %i, %c2 : index
        %row = arith.addi %r, %s : index
        %col = arith.addi %i4, %g : index
        %x = vector.load %a[%row, %col] : memref<?x?xf32>, vector<4xf32>
        %pi = arith.remui %i, %c4 : index
        %pj = arith.divui %t, %d : index
        %pj2 = arith.remui %pj, %c2 : index
        vector.store %x, %p[%pi, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
        %y = vector.load %p[%pi, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
        %pjx = arith.addi %pj2, %pi : index
        %w = vector.load %p[%pjx, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
        %o1 = arith.muli %g, %k : index
        %o2 = arith.addi %o1, %i : index
        %o4 = arith.muli %o2, %c4 : index
        vector.store %y, %o[%o4] : memref<?xf32>, vector<4xf32>
      }
      %sum = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
        %cj = arith.addi %j, %g : index
        %v = memref.load %a[%s, %cj] : memref<?x?xf32>
        %acc2 = arith.addf %acc, %v : f32
        scf.yield %acc2 : f32
      }
      memref.store %sum, %u[%g] : memref<?xf32>
"""
LOOPS_SIGNATURE = "%a: memref<?x?xf32>, %o: memref<?xf32>, %u: memref<?xf32>, %k: index, %s: index, %d: index"


def loops_numpy(threads: int, args: dict):
    """(o, u), or None when the launch must fail (a bound or a zero divisor)."""
    a, k, s = args["a"], args["k"], args["s"]
    o, u = args["o"].copy(), args["u"].copy()
    if k == 0:
        return o, u
    g = np.arange(threads)
    if (args["d"] == 0 or s + min(k, 2) > a.shape[0] or 4 * (k - 1) + threads + 3 > a.shape[1]
            or threads * k * 4 > o.size or threads > u.size):
        return None
    for i in range(k):
        for j in range(4):
            o[(g * k + i) * 4 + j] = a[i % 2 + s, 4 * i + g + j]
    u[:threads] = a[s, g[:, None] + np.arange(k)].sum(axis=1)  # (small integers: exact)
    return o, u


@st.composite
def loops_launch(draw):
    block = draw(st.sampled_from([32, 64, 96]))
    grid = draw(st.sampled_from([1, 2, 3]))
    threads = grid * block
    k = draw(st.sampled_from([0, 1, 2, 3, 5]))
    s = draw(st.sampled_from([0, 0, 1]))
    d = draw(st.sampled_from([1, 2, 3, 3, 0]))
    rows = draw(st.sampled_from([2, 3, 3]))
    cols = threads + 4 * k + draw(st.sampled_from([0, 0, -1, -4]))
    seed = draw(st.integers(0, 2**16))
    data = np.random.default_rng(seed).integers(-8, 8, (rows, max(cols, 1))).astype(np.float32)
    o = np.zeros(max(threads * k * 4 - draw(st.sampled_from([0, 0, 1])), 1), np.float32)
    return grid, block, {"a": data, "o": o, "u": np.zeros(threads, np.float32), "k": k, "s": s,
                         "d": d}, draw(launch_options)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(loops_launch(), min_size=2, max_size=4))
def test_batched_and_sequential_loops_relaunched_with_other_trip_counts_equal_fresh_and_numpy(launches):
    """Trip counts, shapes and divisors change from launch to launch (batched loops on and
    off): one parsed module gives what fresh parses give, and numpy."""
    seen = assert_relaunches_match_fresh(module_text(LOOPS_SIGNATURE, LOOPS), launches)
    for (grid, block, args, _), got in zip(launches, seen):
        want = loops_numpy(grid * block, args)
        if want is None:
            assert got[0] == "error", got[:1]
        else:
            assert got[0] == "ok", got
            assert (got[1]["o"], got[1]["u"]) == (want[0].tobytes(), want[1].tobytes())


# the usual global index: block_id * block_dim + thread_id, then index math and an access
GLOBAL_INDEX = """
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim x
      %ws = gpu.subgroup_size : index
      %g0 = arith.muli %b, %bd : index
      %g = arith.addi %g0, %t : index
      %h = arith.muli %g, %c3 : index
      %h1 = arith.addi %h, %c1 : index
      %x = memref.load %a[%h1] : memref<?xf32>
      %n = arith.muli %gd, %bd : index
      %w = arith.remui %g, %ws : index
      %nw = arith.addi %n, %w : index
      %y = arith.index_cast %nw : index to i32
      %yf = arith.sitofp %y : i32 to f32
      %z = arith.addf %x, %yf : f32
      memref.store %z, %o[%g] : memref<?xf32>
"""


def test_block_and_grid_extents_last_so_that_a_global_index_is_computed_once(monkeypatch):
    """gpu.block_dim, grid_dim and subgroup_size gave a new array each run: noted lasting,
    the work on them was kept with the kernel run after run (growing its lasting results)
    and never found again. Now a relaunch of one shape keeps nothing new, and every launch
    (shapes alternating) gives numpy's values."""
    module = parse_module(module_text("%a: memref<?xf32>, %o: memref<?xf32>", GLOBAL_INDEX))
    remembered = []
    remember = machine.Machine.remember

    def spy(self, key, operands, result):
        remembered.append(key[0])
        remember(self, key, operands, result)

    monkeypatch.setattr(machine.Machine, "remember", spy)
    for grid, block in [(4, 64), (2, 96), (4, 64), (4, 64), (2, 96)]:
        n = grid * block
        a = np.random.default_rng(n).standard_normal(3 * n + 1).astype(np.float32)
        o = np.zeros(n, np.float32)
        remembered.clear()
        layoutkit.simulate(module, "k", grid, block, {"a": a, "o": o})
        g = np.arange(n)
        assert np.array_equal(o, a[3 * g + 1] + (n + g % 32).astype(np.float32))
    assert remembered == []  # (the last launch's shape was run before: all of it kept)


# shared memory, several blocks per chunk: sh[(t * m) % bd] = a[g] (m an argument: a race
# when two threads store one location), a barrier, then y = sh[(t + 1) % bd] and, for
# t < lim, a vector<4xf32> load of sh[4t ..] (uninitialized past bd, out of bounds past 256)
SHARED = """
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %sh = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %bd = gpu.block_dim x
      %g0 = arith.muli %b, %bd : index
      %g = arith.addi %g0, %t : index
      %x = memref.load %a[%g] : memref<?xf32>
      %tm = arith.muli %t, %m : index
      %p = arith.remui %tm, %bd : index
      memref.store %x, %sh[%p] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %t1 = arith.addi %t, %c1 : index
      %q = arith.remui %t1, %bd : index
      %y = memref.load %sh[%q] : memref<256xf32, #gpu.address_space<workgroup>>
      %ok = arith.cmpi ult, %t, %lim : index
      scf.if %ok {
        %t4 = arith.muli %t, %c4 : index
        %v = vector.load %sh[%t4] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
        %e = vector.extract %v[1] : f32 from vector<4xf32>
        %z = arith.addf %y, %e : f32
        memref.store %z, %o[%g] : memref<?xf32>
      }
"""


def shared_numpy(grid: int, block: int, args: dict, checked: bool):
    """o, or the words of the error the launch must report, or None (not told: unchecked
    reads of unwritten shared memory)."""
    a, o, m, lim = args["a"], args["o"].copy(), args["m"], args["lim"]
    n = grid * block
    if a.size < n:
        return "out of bounds"
    t = np.arange(block)
    if np.unique(t * m % block).size < block:
        return "race" if checked else None
    reading = t[t < lim]
    if (4 * reading + 4 > 256).any():
        return "out of bounds"
    if (4 * reading + 4 > block).any():
        return "before any thread" if checked else None
    for blk in range(grid):
        sh = np.zeros(block, np.float32)
        sh[t * m % block] = a[blk * block + t]
        g = blk * block + reading
        o[g] = sh[(reading + 1) % block] + sh[4 * reading + 1]
    return o


@st.composite
def shared_launch(draw):
    block = draw(st.sampled_from([32, 64, 128, 256]))
    grid = draw(st.sampled_from([1, 2, 4, 8, 70]))  # (70 x 256 slots: a chunk not kept)
    n = grid * block
    lim = draw(st.sampled_from([block, block // 4, block // 4 + 1, 8]))
    m = draw(st.sampled_from([1, 5, 3, 2]))
    a = np.random.default_rng(draw(st.integers(0, 2**16))).standard_normal(
        n - draw(st.sampled_from([0, 0, 1]))).astype(np.float32)
    return grid, block, {"a": a, "o": np.zeros(n, np.float32), "lim": lim, "m": m}, draw(launch_options)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(shared_launch(), min_size=2, max_size=4))
def test_shared_memory_with_several_blocks_per_chunk_relaunched_equal_fresh_and_numpy(launches):
    """Races, uninitialized and out-of-bounds reads depending on the launch's arguments,
    wavefronts counted or not: one parsed module gives what fresh parses give, and numpy."""
    seen = assert_relaunches_match_fresh(
        module_text("%a: memref<?xf32>, %o: memref<?xf32>, %lim: index, %m: index", SHARED), launches)
    for (grid, block, args, options), got in zip(launches, seen):
        want = shared_numpy(grid, block, args, options.get("race_check", True))
        if isinstance(want, str):
            assert got[0] == "error" and want in got[2], (want, got[:1] + got[2:3])
        elif want is not None:
            assert got[0] == "ok", got
            assert got[1]["o"] == want.tobytes()


def test_two_parses_of_one_text_launched_in_turn_keep_their_own_work():
    """Two modules of the same text share the kept chunks (their thread ids) but not their
    kernels' static data: launched in turn with other shapes, each equals numpy."""
    text = module_text("%a: memref<?xf32>, %o: memref<?xf32>", GLOBAL_INDEX)
    modules = [parse_module(text), parse_module(text)]
    for i, (grid, block) in enumerate([(4, 64), (4, 64), (2, 96), (4, 64), (2, 96), (2, 96)]):
        n = grid * block
        a = np.random.default_rng(i).standard_normal(3 * n + 1 - 3 * (i == 3)).astype(np.float32)
        o = np.zeros(n, np.float32)
        if i == 3:  # (three elements short: thread (63, 0, 0) of block 3 reads a[766])
            try:
                layoutkit.simulate(modules[i % 2], "k", grid, block, {"a": a, "o": o})
            except SimulationError as e:
                assert "block (3, 0, 0), thread (63, 0, 0): index (766,) out of bounds" in str(e)
            else:
                raise AssertionError("no error")
            continue
        layoutkit.simulate(modules[i % 2], "k", grid, block, {"a": a, "o": o})
        g = np.arange(n)
        assert np.array_equal(o, a[3 * g + 1] + (n + g % 32).astype(np.float32))


def test_matmul_mma_relaunched_with_other_k_equals_fresh_and_the_k_step_sums():
    """The batched and fissioned kk loop of matmul_mma with K changing from launch to launch
    (the last one not a multiple of its 64-wide tiles: a bound reported): one parsed module
    gives what fresh parses give bit for bit, and the f32 sums of each 16-wide k step's
    product to 1e-5."""
    text = (Path(__file__).parents[2] / "examples" / "kernels" / "matmul_mma.mlir").read_text()
    module = parse_module(text)
    for k, seed, options in [(128, 1, {}), (64, 2, {"bank_conflicts": True}), (192, 3, {}),
                             (64, 4, {"batch_loops": False}), (128, 5, {"global_sectors": True}),
                             (96, 6, {})]:
        rng = np.random.default_rng(seed)
        args = {"a": rng.standard_normal((128, k)).astype(np.float16),
                "b": rng.standard_normal((k, 128)).astype(np.float16),
                "c": np.zeros((128, 128), np.float32)}
        kept = outcome_of(module, "matmul", (1, 1), 128, args, **options)
        assert kept == outcome_of(parse_module(text), "matmul", (1, 1), 128, args, **options)
        if k % 64:
            assert kept[0] == "error" and "out of bounds for global memref 'a'" in kept[2]
            continue
        a, b = args["a"].astype(np.float64), args["b"].astype(np.float64)
        want = np.zeros((128, 128), np.float32)
        for k0 in range(0, k, 16):
            want += a[:, k0:k0 + 16] @ b[k0:k0 + 16]
        assert kept[0] == "ok"  # (the mma's own order of a step's products: close, not equal)
        got = np.frombuffer(kept[1]["c"], np.float32).reshape(128, 128)
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5)
