"""Broken kernels: out-of-bounds access, shared-memory races and divergent barriers are
reported with kernel, op, block, thread and index."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt import SimulationError
from layoutkit.errors import LayoutError
from layoutkit.ir import parse_module

from .kernels import kernel_module

KERNELS = Path(__file__).parents[2] / "examples" / "kernels"
SHARED = "memref<64xf32, #gpu.address_space<workgroup>>"
X = "%x: memref<64xf32>"  # the signature of kernels that only need to run


def run_on_x(module, grid: int, block: int):
    """Run kernel @k of ``module`` (signature :data:`X`, zeros) on ``grid`` x ``block``."""
    return layoutkit.simulate(module, "k", grid=grid, block=block, args={"x": np.zeros(64, np.float32)})


def test_out_of_bounds_names_kernel_op_block_thread_index():
    module = parse_module((KERNELS / "vector_add.mlir").read_text())
    a = np.zeros(600, np.float32)
    b = np.zeros(500, np.float32)  # shorter than c: threads 500.. read past its end
    c = np.zeros(600, np.float32)
    with pytest.raises(SimulationError) as err:
        layoutkit.simulate(module, "vector_add", grid=3, block=256, args={"a": a, "b": b, "c": c})
    message = str(err.value)
    assert "kernel @vector_add" in message
    assert "memref.load %b[%i]" in message and "(line 17)" in message
    # global index 500 = block 1 (256 threads each), thread 244
    assert "block (1, 0, 0), thread (244, 0, 0)" in message
    assert "index (500,) out of bounds" in message and "(500,)" in message
    assert isinstance(err.value, LayoutError)


def test_out_of_bounds_on_shared_vector_access():
    module = kernel_module(X, f"""      %t = gpu.thread_id x
      %sh = memref.alloc() : {SHARED}
      %c4 = arith.constant 4 : index
      %i = arith.muli %t, %c4 : index
      %v = arith.constant dense<1.0> : vector<4xf32>
      vector.store %v, %sh[%i] : {SHARED}, vector<4xf32>""")
    with pytest.raises(SimulationError, match=r"thread \(16, 0, 0\): index \(64,\) with vector \[4\] out of bounds for shared"):
        run_on_x(module, 1, 17)
    # 16 threads fit exactly: no error
    run_on_x(module, 1, 16)


def test_masked_threads_do_not_trigger_bounds_checks():
    module = parse_module((KERNELS / "vector_add.mlir").read_text())
    a, b, c = (np.ones(300, np.float32) for _ in range(3))
    layoutkit.simulate(module, "vector_add", grid=2, block=256, args={"a": a, "b": b, "c": c})
    assert (c == 2).all()


def _transpose_without_barrier():
    text = (KERNELS / "transpose_padded.mlir").read_text()
    broken = text.replace("      gpu.barrier\n", "", 1)
    assert broken != text
    return parse_module(broken)


def test_race_read_after_write_without_barrier():
    x = np.zeros((64, 64), np.float32)
    with pytest.raises(SimulationError) as err:
        layoutkit.simulate(_transpose_without_barrier(), "transpose_padded", grid=(2, 2), block=(32, 8),
                           args={"in": x, "out": np.zeros_like(x)})
    message = str(err.value)
    assert "data race on shared memref 'tile'" in message
    assert "memref.load %tile[%tx, %r]" in message
    # thread (1, 0) reads tile[1, 0], which thread (0, 1) wrote (row ty + j = 1, column tx = 0)
    assert "block (0, 0, 0), thread (1, 0, 0)" in message
    assert "reads (1, 0), written by thread (0, 1, 0)" in message


def test_race_check_can_be_switched_off_and_the_run_still_computes():
    """Without the checks the racy transpose runs; a block whose threads run in lockstep
    still gets the transpose (every store lands before any load in the simulator)."""
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    out = np.zeros_like(x)
    layoutkit.simulate(_transpose_without_barrier(), "transpose_padded", grid=(2, 2), block=(32, 8),
                       args={"in": x, "out": out}, race_check=False)
    assert np.array_equal(out, x.T)


def test_race_two_threads_write_one_location():
    module = kernel_module(X, f"""      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %sh = memref.alloc() : {SHARED}
      %v = arith.constant 1.0 : f32
      memref.store %v, %sh[%c0] : {SHARED}""")
    with pytest.raises(SimulationError, match=r"writes \(0,\), written by thread \(1, 0, 0\)"):
        run_on_x(module, 1, 2)
    run_on_x(module, 1, 1)


def test_race_write_after_read_and_barrier_clears_it():
    body = f"""      %t = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %c63 = arith.constant 63 : index
      %sh = memref.alloc() : {SHARED}
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %sh[%t] : {SHARED}
      gpu.barrier
      %n = arith.addi %t, %c1 : index
      %j = arith.minui %n, %c63 : index
      %v = memref.load %sh[%j] : {SHARED}
      BARRIER
      memref.store %v, %sh[%t] : {SHARED}"""
    racy = kernel_module(X, body.replace("BARRIER", ""))
    with pytest.raises(SimulationError, match=r"thread \(1, 0, 0\).*writes \(1,\), read by thread \(0, 0, 0\)"):
        run_on_x(racy, 1, 64)
    fixed = kernel_module(X, body.replace("BARRIER", "gpu.barrier"))
    run_on_x(fixed, 2, 64)


def test_uninitialized_shared_read_is_reported():
    body = f"""      %t = gpu.thread_id x
      %c32 = arith.constant 32 : index
      %sh = memref.alloc() : {SHARED}
      %v = arith.constant 1.0 : f32
      %low = arith.cmpi ult, %t, %c32 : index
      scf.if %low {{
        memref.store %v, %sh[%t] : {SHARED}
      }}
      gpu.barrier
      %j = arith.subi %c32, %t : index
      %r = memref.load %sh[%j] : {SHARED}"""
    module = kernel_module(X, body)
    # threads 0..32 read 32 - t: thread 0 reads element 32, which nobody stored
    with pytest.raises(SimulationError, match=r"thread \(0, 0, 0\): reads shared memref 'sh' at \(32,\) "
                       "before any thread of the block stored there"):
        run_on_x(module, 1, 33)
    # 32 threads reading 31 - t only touch stored elements
    fixed = kernel_module(X, body.replace(
        "%j = arith.subi %c32, %t", "%c31 = arith.constant 31 : index\n      %j = arith.subi %c31, %t"))
    run_on_x(fixed, 1, 32)


def test_divergent_barrier_is_reported():
    module = kernel_module(X, """      %t = gpu.thread_id x
      %c16 = arith.constant 16 : index
      %low = arith.cmpi ult, %t, %c16 : index
      scf.if %low {
        gpu.barrier
      }""")
    with pytest.raises(SimulationError) as err:
        run_on_x(module, 2, 64)
    message = str(err.value)
    assert "gpu.barrier" in message and "block (0, 0, 0), thread (0, 0, 0)" in message
    assert "reached by 16 of 64 threads" in message and "thread (16, 0, 0) does not reach it" in message


def test_barrier_in_block_uniform_branch_is_fine():
    module = kernel_module(X, """      %b = gpu.block_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %b, %c0 : index
      scf.if %first {
        gpu.barrier
      }""")
    run_on_x(module, 3, 64)


def test_barrier_in_thread_dependent_loop_is_reported():
    module = kernel_module(X, """      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %t step %c1 {
        gpu.barrier
      }""")
    with pytest.raises(SimulationError, match="barrier reached by 31 of 32 threads"):
        run_on_x(module, 1, 32)


def test_shuffle_from_inactive_lane_and_divergent_mma():
    shuffle = kernel_module(X, """      %t = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %o = arith.constant 8 : i32
      %w = arith.constant 32 : i32
      %low = arith.cmpi ult, %t, %c8 : index
      scf.if %low {
        %v = memref.load %x[%t] : memref<64xf32>
        %s, %ok = gpu.shuffle down %v, %o, %w : f32
      }""")
    with pytest.raises(SimulationError, match="lane 0 reads inactive lane 8"):
        run_on_x(shuffle, 1, 32)
    mma = kernel_module(X, """      %t = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %a = arith.constant dense<1.0> : vector<4x2xf16>
      %b = arith.constant dense<1.0> : vector<2x2xf16>
      %c = arith.constant dense<0.0> : vector<2x2xf32>
      %low = arith.cmpi ult, %t, %c8 : index
      scf.if %low {
        %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      }""")
    with pytest.raises(SimulationError, match=r"nvgpu.mma.sync.*thread \(8, 0, 0\): needs all lanes"):
        run_on_x(mma, 1, 32)


@pytest.mark.parametrize(
    "args, message",
    [
        ({"a": np.zeros(4, np.float64), "b": np.zeros(4, np.float32), "c": np.zeros(4, np.float32)},
         "argument 'a' has dtype float64"),
        ({"a": np.zeros((2, 2), np.float32), "b": np.zeros(4, np.float32), "c": np.zeros(4, np.float32)},
         "argument 'a' has shape"),
        ({"a": np.zeros(4, np.float32), "b": np.zeros(4, np.float32)}, "missing argument 'c'"),
        ({"a": np.zeros(4, np.float32), "b": np.zeros(4, np.float32), "c": np.zeros(4, np.float32),
          "d": 1}, "no argument 'd'"),
    ],
)
def test_bad_arguments(args, message):
    module = parse_module((KERNELS / "vector_add.mlir").read_text())
    with pytest.raises(LayoutError, match=message):
        layoutkit.simulate(module, "vector_add", grid=1, block=4, args=args)


@pytest.mark.parametrize("grid, block", [((0,), 4), (1, (1, 2, 3, 4)), (1, "x")])
def test_bad_launch(grid, block):
    module = parse_module((KERNELS / "vector_add.mlir").read_text())
    arrays = {n: np.zeros(4, np.float32) for n in "abc"}
    with pytest.raises(LayoutError):
        layoutkit.simulate(module, "vector_add", grid=grid, block=block, args=arrays)


@pytest.mark.parametrize("width", [7, 64, 0])
def test_shuffle_width_must_be_a_power_of_two_within_the_warp(width):
    module = kernel_module(X, f"""      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %o = arith.constant 1 : i32
      %w = arith.constant {width} : i32
      %s, %ok = gpu.shuffle xor %v, %o, %w : f32""")
    with pytest.raises(SimulationError, match=f"width {width} must be a power of two from 1 to 32"):
        run_on_x(module, 1, 32)


def test_oversized_shared_and_private_memory_are_reported_not_allocated():
    shared = kernel_module(X, """      %a = memref.alloc() : memref<40000xf32, #gpu.address_space<workgroup>>
      %b = memref.alloc() : memref<40000xf32, #gpu.address_space<workgroup>>""")
    with pytest.raises(SimulationError, match=r"kernel @k: %b = memref.alloc.*shared memory of "
                                              r"320000 bytes per block exceeds the GPU limit of 232448"):
        run_on_x(shared, 1, 32)
    private = kernel_module(X, "      %p = memref.alloca() : memref<100000000xf32>")
    with pytest.raises(SimulationError, match=r"private memory of 400000000 bytes per thread for "
                                              r"32 threads needs 12800000000 bytes"):
        run_on_x(private, 1, 1)
