"""Race and uninitialized-read reports around staging stores to shared memory (a batched
loop's stores, the buffer's first store ever and the first store after a barrier, which the
race tracker checks with one scatter): write-write and read-write races and reads of
locations no store reached are reported as one iteration at a time. Expected threads and
indices are worked out by hand from each kernel."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt import SimulationError

from .kernels import kernel_module

SHARED = "memref<64xf32, #gpu.address_space<workgroup>>"
HEAD = f"""      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c16 = arith.constant 16 : index
      %c63 = arith.constant 63 : index
      %sh = memref.alloc() : {SHARED}
      %one = arith.constant 1.0 : f32
"""
# iteration j of 4: thread t stores sh[16 j + t] (16 threads: every location once)
STAGE = f"""      scf.for %j = %c0 to %c4 step %c1 {{
        %j16 = arith.muli %j, %c16 : index
        %at = arith.addi %j16, %t : index
        %ji = arith.index_cast %at : index to i32
        %jf = arith.sitofp %ji : i32 to f32
        memref.store %jf, %sh[%at] : {SHARED}
      }}
"""
READ_BACK = f"""      %back = arith.subi %c63, %t : index
      %v = memref.load %sh[%back] : {SHARED}
      memref.store %v, %x[%t] : memref<64xf32>
"""


def run(body: str, batch: bool, threads: int = 16) -> np.ndarray:
    x = np.zeros(64, np.float32)
    layoutkit.simulate(kernel_module("%x: memref<64xf32>", HEAD + body), "k", 1, threads, {"x": x},
                       batch_loops=batch)
    return x


@pytest.mark.parametrize("batch", [False, True])
def test_staging_twice_with_barriers_reads_back_every_value(batch):
    x = run(STAGE + "      gpu.barrier\n" + STAGE + "      gpu.barrier\n" + READ_BACK, batch)
    assert np.array_equal(x[:16], 63 - np.arange(16, dtype=np.float32))


@pytest.mark.parametrize("batch", [False, True])
def test_second_staging_without_barrier_races_write_write(batch):
    """Staging twice with no barrier between: each location is written by the same thread
    both times, no race. A shifted staging (sh[16 j + (t + 1) % 16]) right after one is:
    thread 0 (iteration 0) writes sh[1], which thread 1 wrote."""
    run(STAGE + STAGE + "      gpu.barrier\n" + READ_BACK, batch)
    shifted = STAGE.replace("%at = arith.addi %j16, %t : index",
                            "%t1 = arith.addi %t, %c1 : index\n"
                            "        %tm = arith.remui %t1, %c16 : index\n"
                            "        %at = arith.addi %j16, %tm : index")
    with pytest.raises(SimulationError, match=r"thread \(0, 0, 0\): data race on shared memref 'sh': "
                                              r"this thread writes \(1,\), written by thread \(1, 0, 0\)"):
        run(STAGE + "      gpu.barrier\n      %w = memref.load %sh[%t] : " + SHARED + "\n"
            + "      gpu.barrier\n" + STAGE + shifted, batch)


@pytest.mark.parametrize("batch", [False, True])
def test_colliding_first_store_after_a_barrier_races(batch):
    """The first store after a barrier (not the buffer's first): iteration j, thread t
    stores sh[(16 j + 2 t) % 64], so thread t + 8 of iteration j and thread t of iteration
    j + 1 store the same location (16 j + 2 t + 16). Which of the two is reported depends
    on the order the iterations run in (see test_race_pending_writes)."""
    body = STAGE + "      gpu.barrier\n" + STAGE.replace(
        "%at = arith.addi %j16, %t : index",
        "%t2 = arith.muli %t, %c2 : index\n        %s = arith.addi %j16, %t2 : index\n"
        "        %at = arith.remui %s, %c64 : index")
    body = "      %c64 = arith.constant 64 : index\n" + body
    with pytest.raises(SimulationError, match=r"data race on shared memref 'sh': this thread writes"):
        run(body, batch)


@pytest.mark.parametrize("batch", [False, True])
def test_store_after_a_read_without_barrier_races_read_write(batch):
    """Thread t reads sh[63 - t], then stages again with no barrier: iterations 0-2 write
    locations no one read; iteration 3's thread 0 writes sh[48], read by thread 15."""
    body = STAGE + "      gpu.barrier\n" + READ_BACK + STAGE
    with pytest.raises(SimulationError, match=r"thread \(0, 0, 0\): data race on shared memref 'sh': "
                                              r"this thread writes \(48,\), read by thread \(15, 0, 0\)"):
        run(body, batch)


@pytest.mark.parametrize("batch", [False, True])
def test_read_of_a_location_the_first_store_missed_is_uninitialized(batch):
    """Three iterations stage sh[0..47]: thread 0 then reads sh[63], which no store reached."""
    body = STAGE.replace("%c4 step", "%c3 step") + "      gpu.barrier\n" + READ_BACK
    with pytest.raises(SimulationError, match=r"thread \(0, 0, 0\): reads shared memref 'sh' at "
                                              r"\(63,\) before any thread of the block stored there"):
        run(body, batch)


BIG = "memref<256xf32, #gpu.address_space<workgroup>>"
REUSED = f"""      %t = gpu.thread_id x
      %b = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c255 = arith.constant 255 : index
      %c256 = arith.constant 256 : index
      %sh = memref.alloc() : {BIG}
      %bt = arith.muli %b, %c256 : index
      %out = arith.addi %bt, %t : index
      scf.for %k = %c0 to %c2 step %c1 {{
        %kv = arith.index_cast %k : index to i32
        %kf = arith.sitofp %kv : i32 to f32
        memref.store %kf, %sh[%t] : {BIG}
        gpu.barrier
        %back = arith.subi %c255, %t : index
        %v = memref.load %sh[%back] : {BIG}
        memref.store %v, %x[%out] : memref<1024xf32>
        gpu.barrier
      }}
"""


def test_a_loop_invariant_staging_store_then_a_colliding_one_races():
    """Four blocks of 256 threads (one chunk of 1,024 slots): the k loop's store to sh[t]
    has the same locations every iteration (kept work) and is distinct; a store to sh[t / 2]
    after the loop, the first after a barrier, still races: thread 0 writes sh[0], which
    thread 1 wrote (numpy keeps the last of the two)."""
    x = np.zeros(1024, np.float32)
    module = kernel_module("%x: memref<1024xf32>", REUSED)
    layoutkit.simulate(module, "k", 4, 256, {"x": x})
    assert np.array_equal(x, np.ones(1024, np.float32))
    colliding = REUSED + f"""      %half = arith.divui %t, %c2 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %sh[%half] : {BIG}"""
    with pytest.raises(SimulationError, match=r"block \(0, 0, 0\), thread \(0, 0, 0\): data race on shared "
                                              r"memref 'sh': this thread writes \(0,\), written by "
                                              r"thread \(1, 0, 0\)"):
        layoutkit.simulate(kernel_module("%x: memref<1024xf32>", colliding), "k", 4, 256, {"x": x})
