"""The fast paths of batched loops: private accesses with one offset per iteration move
whole rows (checked against numpy and the run one iteration at a time), and ``mma`` with
the A matrices of fewer warps broadcasts them (checked against a product formed from the
PTX fragment coordinates in float64)."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt import mma

from .kernels import kernel_module

# thread t stores v[i] = (t + 100 * i, t + 100 * i + 0.5) at acc[i, 0..1] in one batched
# loop (starts: one offset per iteration), reads them back in another and writes o[i, t, :]
BODY = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %h = arith.constant 0.5 : f32
      %z = arith.constant dense<0.0> : vector<2xf32>
      %hundred = arith.constant 100 : index
      %acc = memref.alloca() : memref<4x2xf32>
      %t = gpu.thread_id x
      scf.for %i = %c0 to %c4 step %c1 {
        %s = arith.muli %i, %hundred : index
        %x = arith.addi %t, %s : index
        %xi = arith.index_cast %x : index to i32
        %xf = arith.sitofp %xi : i32 to f32
        %yf = arith.addf %xf, %h : f32
        %v0 = vector.insert %xf, %z [0] : f32 into vector<2xf32>
        %v = vector.insert %yf, %v0 [1] : f32 into vector<2xf32>
        vector.store %v, %acc[%i, %c0] : memref<4x2xf32>, vector<2xf32>
      }
      scf.for %i = %c0 to %c4 step %c1 {
        %w = vector.load %acc[%i, %c0] : memref<4x2xf32>, vector<2xf32>
        vector.store %w, %o[%i, %t, %c0] : memref<4x64x2xf32>, vector<2xf32>
      }
"""


@pytest.mark.parametrize("batch", [False, True])
def test_private_rows_per_iteration(batch):
    module = kernel_module("%o: memref<4x64x2xf32>", BODY)
    out = np.zeros((4, 64, 2), np.float32)
    report = layoutkit.simulate(module, "k", 1, 64, {"o": out}, batch_loops=batch)
    i, t = np.meshgrid(np.arange(4), np.arange(64), indexing="ij")
    want = np.stack([t + 100 * i, t + 100 * i + 0.5], axis=-1).astype(np.float32)
    assert np.array_equal(out, want)
    assert report.ops == 8 + 2 + 1 + 4 * 9 + 4 * 3  # prologue, loops, return, bodies with yield


def exact_mma(a, b, c, shape):
    """D from fragments by the PTX coordinates (mma.fragment), in float64."""
    warps = b.shape[0] // 32
    rows = {x: mma.fragment(shape, x)[0] for x in "abc"}
    cols = {x: mma.fragment(shape, x)[1] for x in "abc"}
    m, n, k = shape
    d = np.zeros(c.shape, np.float64)
    for w in range(warps):
        am, bm = np.zeros((m, k)), np.zeros((k, n))
        am[rows["a"], cols["a"]] = a[w * 32:(w + 1) * 32]
        bm[rows["b"], cols["b"]] = b[w * 32:(w + 1) * 32]
        d[w * 32:(w + 1) * 32] = (am @ bm)[rows["c"], cols["c"]] + c[w * 32:(w + 1) * 32]
    return d


@pytest.mark.parametrize("k", [16, 8])
def test_mma_broadcasts_fewer_a_matrices(k):
    shape = (16, 8, k)
    rng = np.random.default_rng(5)
    base, times = 2, 3
    a = rng.standard_normal((base * 32, k // 4, 2)).astype(np.float16)
    b = rng.standard_normal((base * times * 32, k // 8, 2)).astype(np.float16)
    c = rng.standard_normal((base * times * 32, 2, 2)).astype(np.float32)
    wide = np.tile(a, (times, 1, 1))
    broadcast = mma.mma(wide, b, c, shape, a_matrices=mma.to_matrices(a, shape, "a"))
    tiled = mma.mma(wide, b, c, shape)
    assert np.array_equal(broadcast, tiled)
    exact = exact_mma(wide, b, c, shape)
    assert np.allclose(broadcast, exact, rtol=1e-5, atol=1e-5)
