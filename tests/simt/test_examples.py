"""Each example kernel runs in the simulator and matches numpy."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit.ir import parse_module

KERNELS = Path(__file__).parents[2] / "examples" / "kernels"


@cache
def module(name: str):
    return parse_module((KERNELS / f"{name}.mlir").read_text())


def test_vector_add_with_tail():
    rng = np.random.default_rng(1)
    n = 1000  # not a multiple of the block: the last block's tail is masked off
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    report = layoutkit.simulate(module("vector_add"), "vector_add", grid=4, block=256,
                                args={"a": a, "b": b, "c": c})
    assert np.array_equal(c, a + b)
    assert report.thread_instructions > 0


def test_transpose_swizzled_1024():
    x = np.random.default_rng(2).standard_normal((1024, 1024)).astype(np.float32)
    out = np.zeros_like(x)
    layoutkit.simulate(module("transpose_swizzled"), "transpose_swizzled", grid=(32, 32),
                       block=(32, 8), args={"in": x, "out": out})
    assert np.array_equal(out, x.T)


@pytest.mark.parametrize("name", ["transpose_padded", "transpose_swizzled"])
def test_transpose_non_square(name):
    x = np.arange(96 * 160, dtype=np.float32).reshape(96, 160)
    out = np.full((160, 96), -1, np.float32)
    layoutkit.simulate(module(name), name, grid=(5, 3), block=(32, 8), args={"in": x, "out": out})
    assert np.array_equal(out, x.T)


def test_swizzle_is_bank_conflict_free():
    """The swizzled tile's addresses, read off the kernel's index formula (col ^ row), put
    the 32 lanes of every warp access on 32 different banks (4-byte words, 32 banks)."""
    text = (KERNELS / "transpose_swizzled.mlir").read_text()
    assert "arith.xori %tx, %r" in text and "memref.load %tile[%tx, %sc]" in text
    lanes = np.arange(32)
    for r in range(32):  # a warp writes row r: word r*32 + (lane ^ r)
        assert len(set((r * 32 + (lanes ^ r)) % 32)) == 32
        # a warp reads column r: row lane, word lane*32 + (r ^ lane)
        assert len(set((lanes * 32 + (r ^ lanes)) % 32)) == 32


def test_block_sum():
    rng = np.random.default_rng(3)
    x = rng.random(5000).astype(np.float32)
    blocks = -(-x.size // 256)
    out = np.zeros(blocks, np.float32)
    layoutkit.simulate(module("block_sum"), "block_sum", grid=blocks, block=256,
                       args={"in": x, "out": out})
    padded = np.zeros(blocks * 256)
    padded[: x.size] = x
    expected = padded.reshape(blocks, 256).sum(axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_softmax_rows():
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((37, 100)) * 4).astype(np.float32)  # 100 = 3 * 32 + 4: uneven loops
    out = np.zeros_like(x)
    layoutkit.simulate(module("softmax"), "softmax", grid=10, block=(32, 4), args={"in": x, "out": out})
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("m, n, k, grid", [(128, 128, 64, (1, 1)), (256, 128, 128, (1, 2))])
def test_matmul_mma(m, n, k, grid):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    layoutkit.simulate(module("matmul_mma"), "matmul", grid=grid, block=128, args={"a": a, "b": b, "c": c})
    exact = a.astype(np.float64) @ b.astype(np.float64)
    # f16 products are exact in f32; only the f32 sums round: |error| <= k * eps32 * sum|ab|
    bound = k * 2.0**-24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    assert np.all(np.abs(c - exact) <= bound + 1e-30)


def test_launch_split_into_block_chunks(monkeypatch):
    """Large launches run a chunk of blocks at a time; results and reports stay exact."""
    import layoutkit.backends.simt.host as host

    monkeypatch.setattr(host, "MAX_THREADS_PER_CHUNK", 3 * 256)  # 3 blocks per chunk
    x = np.arange(96 * 160, dtype=np.float32).reshape(96, 160)
    out = np.zeros((160, 96), np.float32)
    report = layoutkit.simulate(module("transpose_swizzled"), "transpose_swizzled", grid=(5, 3),
                                block=(32, 8), args={"in": x, "out": out})
    assert np.array_equal(out, x.T)
    assert report.thread_instructions == 15 * 256 * 64  # 15 blocks, 64 ops each, all active
    # b is one element short: global index 999 = block 3 (of the second chunk), thread 231
    with pytest.raises(layoutkit.LayoutError, match=r"block \(3, 0, 0\), thread \(231, 0, 0\)"):
        layoutkit.simulate(module("vector_add"), "vector_add", grid=4, block=256,
                           args={"a": np.zeros(1000, np.float32), "b": np.zeros(999, np.float32),
                                 "c": np.zeros(1000, np.float32)})


def test_simulate_accepts_text_and_positional_args():
    text = (KERNELS / "vector_add.mlir").read_text()
    a = np.arange(8, dtype=np.float32)
    c = np.zeros(8, np.float32)
    layoutkit.simulate(text, "vector_add", grid=1, block=8, args=[a, a, c])
    assert np.array_equal(c, 2 * a)


def test_values_are_freed_after_their_last_use():
    """The entry block's values (and everything inside a finished loop) leave the
    environment once no later op needs them, so big launches keep few arrays alive."""
    from layoutkit.backends.simt.launch import Chunk, Geometry, bind_arguments
    from layoutkit.backends.simt.machine import Machine, Stats
    from layoutkit.ir import find_kernel

    kernel = find_kernel(module("matmul_mma"), "matmul")
    a = np.ones((128, 64), np.float16)
    b = np.ones((64, 128), np.float16)
    c = np.zeros((128, 128), np.float32)
    geometry = Geometry((1, 1, 1), (128, 1, 1))
    machine = Machine(kernel, Chunk(geometry, 0, 1), bind_arguments(kernel, [a, b, c]), Stats())
    machine.run()
    assert np.all(c == 64)
    assert machine.env == {}
