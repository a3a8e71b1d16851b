"""Index arithmetic and access addresses kept by their operands' identities
(Machine.recall / remember): loop-invariant work is reused across iterations, and every
check that depends on which threads are active (a zero divisor, an out-of-bounds index of
an inactive thread) still runs when it could fail."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt.machine import Machine

from .kernels import kernel_module

SIGNATURE = "%o: memref<4x64xi64>"


@pytest.fixture(autouse=True)
def keep_everything(monkeypatch):
    """Keep work over any number of slots (these kernels are small; see KEPT_SLOTS)."""
    from layoutkit.backends.simt import machine
    from layoutkit.backends.simt.ops import arith

    monkeypatch.setattr(machine, "KEPT_SLOTS", 1)
    monkeypatch.setattr(arith, "KEPT_SLOTS", 1)


def run(body: str, threads: int = 64, batch: bool = True) -> np.ndarray:
    o = np.zeros((4, 64), np.int64)
    layoutkit.simulate(kernel_module(SIGNATURE, body), "k", 1, threads, {"o": o}, batch_loops=batch)
    return o


# o[i, t] = (t * 3 + 5) // 2 + i, the first part loop-invariant; the loop carries a value, so
# it runs one iteration at a time (no batching)
INVARIANT = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %t = gpu.thread_id x
      %z = arith.constant 0 : i64
      %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (i64) {
        %a = arith.muli %t, %c3 : index
        %b = arith.addi %a, %c5 : index
        %q = arith.divui %b, %c2 : index
        %r = arith.addi %q, %i : index
        %v = arith.index_cast %r : index to i64
        memref.store %v, %o[%i, %t] : memref<4x64xi64>
        %next = arith.addi %acc, %v : i64
        scf.yield %next : i64
      }
"""


def test_loop_invariant_index_math_is_reused_and_exact(monkeypatch):
    hits = []
    recall = Machine.recall

    def counted(self, key, operands):
        found = recall(self, key, operands)
        hits.append(found is not None)
        return found

    monkeypatch.setattr(Machine, "recall", counted)
    out = run(INVARIANT)
    i, t = np.meshgrid(np.arange(4), np.arange(64), indexing="ij")
    assert np.array_equal(out, (t * 3 + 5) // 2 + i)
    # muli, addi, divui and the store's addresses of iterations 1..3 at least
    assert sum(hits) >= 3 * 3


def test_zero_divisor_of_a_thread_inactive_then_active_is_reported():
    # iteration i runs the division on threads t >= 1 - i: thread 0 (divisor 0) joins at i = 1
    body = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c100 = arith.constant 100 : index
      %t = gpu.thread_id x
      scf.for %i = %c0 to %c2 step %c1 {
        %from = arith.subi %c1, %i : index
        %in = arith.cmpi uge, %t, %from : index
        scf.if %in {
          %q = arith.divui %c100, %t : index
          %v = arith.index_cast %q : index to i64
          memref.store %v, %o[%i, %t] : memref<4x64xi64>
        }
      }
"""
    with pytest.raises(layoutkit.LayoutError, match=r"thread \(0, 0, 0\): integer division by zero"):
        run(body)


def test_out_of_bounds_thread_inactive_then_active_is_reported():
    # the same index arrays (0, t + 1) each iteration; thread 63 (index 64) runs only at i = 1
    body = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c63 = arith.constant 63 : index
      %t = gpu.thread_id x
      %next = arith.addi %t, %c1 : index
      %seven = arith.constant 7 : i64
      scf.for %i = %c0 to %c2 step %c1 {
        %low = arith.cmpi ult, %t, %c63 : index
        %later = arith.cmpi ugt, %i, %c0 : index
        %run = arith.ori %low, %later : i1
        scf.if %run {
          memref.store %seven, %o[%c0, %next] : memref<4x64xi64>
        }
      }
"""
    with pytest.raises(layoutkit.LayoutError, match=r"thread \(63, 0, 0\): index \(0, 64\) out of bounds"):
        run(body)


def test_kept_results_are_read_only():
    """A kept array is shared by every later use: writing it in place must fail loudly."""
    import types
    from collections import OrderedDict

    keeper = types.SimpleNamespace(_results=OrderedDict(), _result_bytes=0, lasting={}, _lasting_results={})
    keeper.lasts = lambda arrays: Machine.lasts(keeper, arrays)
    a, b = np.arange(4), np.ones(4, np.int64)
    out = a + b
    Machine.remember(keeper, ("op", id(a), id(b)), (a, b), out)
    assert Machine.recall(keeper, ("op", id(a), id(b)), (a, b)) is out
    assert Machine.recall(keeper, ("op", id(a), id(b)), (a, b.copy())) is None  # other arrays
    with pytest.raises(ValueError, match="read-only"):
        out += 1
