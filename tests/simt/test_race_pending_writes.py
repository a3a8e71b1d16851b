"""Shared-memory race reports around the first store after a barrier, which the race
tracker keeps unentered while its locations are distinct (RaceTracker.pending_write): every
later access still sees it. The expected threads and indices are worked out by hand from
each kernel (thread t stores sh[t], ...)."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt import SimulationError

from .kernels import kernel_module

SHARED = "memref<64xf32, #gpu.address_space<workgroup>>"
SIGNATURE = "%x: memref<64xf32>"
HEAD = f"""      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c63 = arith.constant 63 : index
      %sh = memref.alloc() : {SHARED}
      %one = arith.constant 1.0 : f32
"""


def run(body: str, threads: int = 64, batch: bool = True):
    x = np.zeros(64, np.float32)
    layoutkit.simulate(kernel_module(SIGNATURE, HEAD + body), "k", 1, threads, {"x": x}, batch_loops=batch)
    return x


def test_second_store_without_barrier_races_with_the_first():
    body = f"""      memref.store %one, %sh[%t] : {SHARED}
      %back = arith.subi %c63, %t : index
      memref.store %one, %sh[%back] : {SHARED}"""
    # thread 0 writes sh[63], which thread 63 wrote in the first store
    with pytest.raises(SimulationError, match=r"thread \(0, 0, 0\): data race .* this thread writes "
                                              r"\(63,\), written by thread \(63, 0, 0\)"):
        run(body)
    run(body.replace("      %back", "      gpu.barrier\n      %back"))


def test_load_without_barrier_after_the_first_store_races():
    body = f"""      memref.store %one, %sh[%t] : {SHARED}
      %n = arith.addi %t, %c1 : index
      %j = arith.minui %n, %c63 : index
      %v = memref.load %sh[%j] : {SHARED}
      memref.store %v, %x[%t] : memref<64xf32>"""
    with pytest.raises(SimulationError, match=r"thread \(0, 0, 0\): data race .* this thread reads "
                                              r"\(1,\), written by thread \(1, 0, 0\)"):
        run(body)
    x = run(body.replace("      %n =", "      gpu.barrier\n      %n ="))
    assert np.array_equal(x, np.ones(64, np.float32))


def test_two_threads_storing_one_location_in_the_first_store_race():
    body = f"""      %half = arith.divui %t, %c4 : index
      memref.store %one, %sh[%half] : {SHARED}"""
    # threads 0..3 store sh[0]: numpy keeps the last (thread 3), thread 0 is reported
    with pytest.raises(SimulationError, match=r"thread \(0, 0, 0\): data race .* this thread writes "
                                              r"\(0,\), written by thread \(3, 0, 0\)"):
        run(body, threads=8)


@pytest.mark.parametrize("batch", [False, True])
def test_batched_iterations_storing_one_location_race_across_threads(batch):
    # iteration j: thread t stores sh[t + j]; iteration 1's thread 0 stores sh[1], which
    # iteration 0's thread 1 stored: thread 0 is caught writing it, batched or not (a failed
    # batched run is run again in order, whose first fault this is)
    who, other = "0", "1"
    body = f"""      scf.for %j = %c0 to %c4 step %c1 {{
        %at = arith.addi %t, %j : index
        memref.store %one, %sh[%at] : {SHARED}
      }}"""
    with pytest.raises(SimulationError, match=rf"thread \({who}, 0, 0\): data race on shared memref 'sh': "
                                              rf"this thread writes \(1,\), written by thread \({other}, 0, 0\)"):
        run(body, threads=16, batch=batch)
    run(body, threads=1, batch=batch)  # one thread: its own stores never race


@pytest.mark.parametrize("batch", [False, True])
def test_one_thread_storing_one_location_in_every_iteration_keeps_the_last(batch):
    body = f"""      scf.for %j = %c0 to %c4 step %c1 {{
        %ji = arith.index_cast %j : index to i32
        %jf = arith.sitofp %ji : i32 to f32
        memref.store %jf, %sh[%t] : {SHARED}
      }}
      gpu.barrier
      %back = arith.subi %c63, %t : index
      %v = memref.load %sh[%back] : {SHARED}
      memref.store %v, %x[%t] : memref<64xf32>"""
    assert np.array_equal(run(body, batch=batch), np.full(64, 3, np.float32))
