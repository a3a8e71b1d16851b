"""A chain of static ``vector.insert`` ops fills one copy of its first dest (issue 17): the
results against numpy, including a chain whose intermediate value is read again later (it
must keep its own value) and a chain inside a batched loop whose first dest comes from
outside the loop (the loop's repeated value must stay as it was for the next iteration)."""

from __future__ import annotations

import numpy as np

import layoutkit

from .kernels import kernel_module

THREADS = 64


def _run(body: str, out_shape: tuple[int, ...]) -> np.ndarray:
    module = kernel_module(f"%x: memref<{THREADS}x4xf32>, %o: memref<{'x'.join(map(str, out_shape))}xf32>", body)
    x = np.arange(THREADS * 4, dtype=np.float32).reshape(THREADS, 4) + 0.5
    out = np.zeros(out_shape, np.float32)
    layoutkit.simulate(module, "k", 1, THREADS, {"x": x, "o": out})
    return x, out


def test_chain_with_a_reread_intermediate():
    body = """\
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %a = vector.load %x[%t, %c0] : memref<64x4xf32>, vector<2xf32>
      %b = vector.load %x[%t, %c2] : memref<64x4xf32>, vector<2xf32>
      %f0 = vector.insert %a, %zero [0] : vector<2xf32> into vector<2x2xf32>
      %f1 = vector.insert %b, %f0 [1] : vector<2xf32> into vector<2x2xf32>
      %g0 = vector.insert %b, %f1 [0] : vector<2xf32> into vector<2x2xf32>
      %g1 = vector.insert %a, %g0 [1] : vector<2xf32> into vector<2x2xf32>
      vector.store %f1, %o[%t, %c0, %c0, %c0] : memref<64x3x2x2xf32>, vector<2x2xf32>
      %c1 = arith.constant 1 : index
      vector.store %g1, %o[%t, %c1, %c0, %c0] : memref<64x3x2x2xf32>, vector<2x2xf32>
      vector.store %zero, %o[%t, %c2, %c0, %c0] : memref<64x3x2x2xf32>, vector<2x2xf32>"""
    x, out = _run(body, (THREADS, 3, 2, 2))
    a, b = x[:, :2], x[:, 2:]
    np.testing.assert_array_equal(out[:, 0], np.stack([a, b], axis=1))  # f1 after g0 read it
    np.testing.assert_array_equal(out[:, 1], np.stack([b, a], axis=1))
    np.testing.assert_array_equal(out[:, 2], 0)  # the constant dest untouched


def test_chain_in_a_batched_loop_keeps_the_outer_value():
    # %f0 is made outside the loop; inside, each iteration inserts into it: every iteration
    # must start from %f0 (row 0 = a, row 1 = 0), and %f0 must keep its value after the loop
    body = """\
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %a = vector.load %x[%t, %c0] : memref<64x4xf32>, vector<2xf32>
      %f0 = vector.insert %a, %zero [0] : vector<2xf32> into vector<2x2xf32>
      scf.for %i = %c0 to %c3 step %c1 {
        %w = vector.load %x[%t, %i] : memref<64x4xf32>, vector<2xf32>
        %f1 = vector.insert %w, %f0 [1] : vector<2xf32> into vector<2x2xf32>
        %f2 = vector.insert %w, %f1 [0] : vector<2xf32> into vector<2x2xf32>
        vector.store %f2, %o[%t, %i, %c0, %c0] : memref<64x4x2x2xf32>, vector<2x2xf32>
      }
      vector.store %f0, %o[%t, %c3, %c0, %c0] : memref<64x4x2x2xf32>, vector<2x2xf32>"""
    x, out = _run(body, (THREADS, 4, 2, 2))
    for i in range(3):
        w = x[:, i:i + 2]
        np.testing.assert_array_equal(out[:, i], np.stack([w, w], axis=1))
    np.testing.assert_array_equal(out[:, 3], np.stack([x[:, :2], np.zeros((THREADS, 2), np.float32)], axis=1))
