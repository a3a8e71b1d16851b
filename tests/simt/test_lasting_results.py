"""Work on arrays that last from run to run (a kept launch shape's thread ids, constants,
sequential induction values) is kept with the kernel (Machine.remember): a later run of the
same parsed module reuses it instead of recomputing, and every check that depends on the
run's data still runs: a bounds check against another array's shape, a zero divisor
coming from an argument, an access of an inactive thread."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt.errors import SimulationError
from layoutkit.backends.simt.machine import _STATIC_ATTRIBUTE, LASTING_TRIPS, Machine

from .kernels import kernel_module

# o[t] = (t // 3) * 7 + t % 5 + a[2 * t]: index arithmetic on the thread id and constants only
INDEX_MATH = """
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c5 = arith.constant 5 : index
      %c7 = arith.constant 7 : index
      %t = gpu.thread_id x
      %q = arith.divui %t, %c3 : index
      %q7 = arith.muli %q, %c7 : index
      %r = arith.remui %t, %c5 : index
      %s = arith.addi %q7, %r : index
      %i = arith.muli %t, %c2 : index
      %x = memref.load %a[%i] : memref<?xi64>
      %si = arith.index_cast %s : index to i64
      %v = arith.addi %si, %x : i64
      memref.store %v, %o[%t] : memref<?xi64>
"""
SIGNATURE = "%a: memref<?xi64>, %o: memref<?xi64>"


def _want(threads: int, a: np.ndarray) -> np.ndarray:
    t = np.arange(threads)
    return (t // 3) * 7 + t % 5 + a[2 * t]


def _run(module, threads: int, size: int, seed: int) -> np.ndarray:
    a = np.random.default_rng(seed).integers(-1000, 1000, size)
    o = np.zeros(threads, np.int64)
    layoutkit.simulate(module, "k", 1, threads, {"a": a, "o": o})
    assert np.array_equal(o, _want(threads, a)), (threads, size, seed)
    return o


def test_index_math_on_thread_ids_runs_once_for_repeated_launches(monkeypatch):
    """The first launch computes and keeps the index arithmetic (and the load's addresses);
    the second computes none of it and gives the formula's values for its own data."""
    module = kernel_module(SIGNATURE, INDEX_MATH)
    remembered = []
    remember = Machine.remember

    def spy(self, key, operands, result):
        remembered.append(key[0])
        remember(self, key, operands, result)

    monkeypatch.setattr(Machine, "remember", spy)
    _run(module, 64, 128, seed=1)
    first = len(remembered)
    names = {op.name for op in remembered}
    assert {"arith.divui", "arith.muli", "arith.remui", "arith.addi", "memref.load"} <= names
    remembered.clear()
    _run(module, 64, 128, seed=2)
    assert first >= 6 and remembered == []


def test_other_launch_shapes_compute_their_own_ids():
    """Launches of 32, 64 and 96 threads alternate on one module: each gets its own ids'
    arithmetic (their thread-id arrays are other arrays), with the formula's values."""
    module = kernel_module(SIGNATURE, INDEX_MATH)
    for seed, threads in enumerate([64, 32, 96, 64, 32, 96]):
        _run(module, threads, 2 * threads + seed, seed)


def test_a_kept_address_is_checked_again_against_a_smaller_array():
    """The load's addresses were in bounds for the first array; the second is too short for
    thread 40 (it reads a[80] of 80 elements): reported, then a fitting array runs again."""
    module = kernel_module(SIGNATURE, INDEX_MATH)
    _run(module, 64, 128, seed=3)
    a, o = np.zeros(80, np.int64), np.zeros(64, np.int64)
    with pytest.raises(SimulationError, match=r"thread \(40, 0, 0\): index \(80,\) out of bounds"):
        layoutkit.simulate(module, "k", 1, 64, {"a": a, "o": o})
    _run(module, 64, 128, seed=4)


# o[t] = t // (t % d): the divisor is zero for threads that are multiples of d (an argument)
DIVISOR = """
      %t = gpu.thread_id x
      %d = arith.index_cast %n : i32 to index
      %r = arith.remui %t, %d : index
      %one = arith.constant 1 : index
      %r1 = arith.addi %r, %one : index
      %q = arith.divui %t, %r1 : index
      %bad = arith.divui %t, %r : index
      %qi = arith.index_cast %q : index to i64
      memref.store %qi, %o[%t] : memref<?xi64>
"""


def test_a_zero_divisor_is_reported_in_every_run():
    """t % 5 is zero for thread 0: every launch reports it, though the remainder and the
    safe quotient t // (t % 5 + 1) are kept from the first launch; n = 0 is reported at
    the remainder itself."""
    module = kernel_module("%n: i32, %o: memref<?xi64>", DIVISOR)
    for _ in range(3):
        with pytest.raises(SimulationError, match=r"%bad = arith.divui.*thread \(0, 0, 0\).*division by zero"):
            layoutkit.simulate(module, "k", 1, 32, {"n": 5, "o": np.zeros(32, np.int64)})
    with pytest.raises(SimulationError, match=r"%r = arith.remui.*division by zero"):
        layoutkit.simulate(module, "k", 1, 32, {"n": 0, "o": np.zeros(32, np.int64)})


# threads t < n store o[t + 32]; the others would be out of bounds of o (64 elements) but
# are inactive
MASKED = """
      %c32 = arith.constant 32 : index
      %t = gpu.thread_id x
      %lim = arith.index_cast %n : i32 to index
      %in = arith.cmpi ult, %t, %lim : index
      %i = arith.addi %t, %c32 : index
      scf.if %in {
        %v = arith.index_cast %t : index to i64
        memref.store %v, %o[%i] : memref<64xi64>
      }
"""


@pytest.mark.parametrize("order", [(32, 64, 32), (64, 32)])
def test_an_inactive_thread_out_of_bounds_is_told_from_an_active_one(order):
    """With n = 32 the threads 32..63 are inactive and may lie out of bounds; with n = 64
    thread 32 is active and stores o[64]: reported, whichever launch came first."""
    module = kernel_module("%n: i32, %o: memref<64xi64>", MASKED)
    for n in order:
        o = np.zeros(64, np.int64)
        if n == 64:
            with pytest.raises(SimulationError, match=r"thread \(32, 0, 0\): index \(64,\) out of bounds"):
                layoutkit.simulate(module, "k", 1, 64, {"n": n, "o": o})
            continue
        layoutkit.simulate(module, "k", 1, 64, {"n": n, "o": o})
        assert np.array_equal(o[32:], np.arange(32)) and not o[:32].any()


LONG_LOOP = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %t = gpu.thread_id x
      %z = arith.constant 0 : index
      %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (index) {
        %i3 = arith.muli %i, %c3 : index
        %ti = arith.addi %t, %i3 : index
        %next = arith.addi %acc, %ti : index
        scf.yield %next : index
      }
      %v = arith.index_cast %sum : index to i64
      memref.store %v, %o[%t] : memref<?xi64>
"""


def test_sequential_induction_values_last_from_run_to_run(monkeypatch):
    """A loop that carries a value runs one iteration at a time, its induction variable a
    uniform array: the same array in every launch, read-only."""
    module = kernel_module("%o: memref<?xi64>, %n: index", LONG_LOOP)
    seen = []
    uniform = Machine.uniform

    def spy(self, value, dtype, lasting=True):
        array = uniform(self, value, dtype, lasting)
        seen.append(array)
        return array

    monkeypatch.setattr(Machine, "uniform", spy)
    for _ in range(2):
        o = np.zeros(32, np.int64)
        layoutkit.simulate(module, "k", 1, 32, {"o": o, "n": 4})
        assert np.array_equal(o, np.arange(32) * 4 + 18)  # sum over i < 4 of t + 3i
    assert len(seen) == 8 and all(a is b for a, b in zip(seen[:4], seen[4:]))
    assert not seen[0].flags.writeable


@pytest.mark.parametrize("trips", [LASTING_TRIPS, LASTING_TRIPS + 1])
def test_only_short_loops_keep_their_iterations_work_with_the_kernel(trips):
    """Work on a loop's induction values is kept with the kernel for a short loop (each
    iteration's, reused by the next launch) but not for a longer one, whose results would
    only fill the bounded store: kept entries grow with the short loop's trips, not the
    long loop's. Each launch gives the formula's values."""
    counts = []
    for n in (trips, 2 * trips):
        module = kernel_module("%o: memref<?xi64>, %n: index", LONG_LOOP)
        o = np.zeros(32, np.int64)
        layoutkit.simulate(module, "k", 1, 32, {"o": o, "n": n})
        t = np.arange(32)
        assert np.array_equal(o, n * t + 3 * n * (n - 1) // 2)
        kernel = next(op for op in module.walk() if op.name == "gpu.func")
        counts.append(len(kernel.__dict__[_STATIC_ATTRIBUTE]["lasting results"]))
    if trips > LASTING_TRIPS:
        assert counts[0] == counts[1]
    else:
        assert counts[0] >= trips  # (i * 3 at least, per iteration)
