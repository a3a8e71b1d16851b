"""mma's fast paths against independent computations: the f16 -> f32 conversion against
numpy's cast on every f16 bit pattern, the operand matrices against the PTX ISA fragment
formulas, and a batched D (warps sharing an A, their B side by side in one GEMM) against
one float32 matmul per warp, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from layoutkit.backends.simt import mma

from .test_mma import ptx_a, ptx_b, ptx_c


def test_f16_conversion_matches_numpy_cast_on_every_bit_pattern():
    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    got = mma.to_f32(every)
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.uint32), every.astype(np.float32).view(np.uint32))
    # finite inputs only: the inf/NaN repair is not needed, the values are the same
    finite = every[np.isfinite(every)]
    assert np.array_equal(mma.to_f32(finite).view(np.uint32), finite.astype(np.float32).view(np.uint32))


def fragments(a, b, c, k):
    """PTX-ISA fragments (per lane) of per-warp matrices a (w, 16, k), b (w, k, 8), c (w, 16, 8)."""
    warps = b.shape[0]
    fa = np.zeros((a.shape[0] * 32, k // 4, 2), a.dtype)
    fb = np.zeros((warps * 32, k // 8, 2), b.dtype)
    fc = np.zeros((warps * 32, 2, 2), np.float32)
    for lane in range(32):
        for i in range(k // 2):
            fa[lane::32, i // 2, i % 2] = a[(slice(None), *ptx_a(lane, i, k))]
        for i in range(k // 4):
            fb[lane::32, i // 2, i % 2] = b[(slice(None), *ptx_b(lane, i))]
        for i in range(4):
            fc[lane::32, i // 2, i % 2] = c[(slice(None), *ptx_c(lane, i))]
    return fa, fb, fc


def spread(rng, shape):
    """f16 values over many binades, so that the order of an f32 sum shows in its bits."""
    return (rng.standard_normal(shape) * 2.0 ** rng.integers(-12, 12, shape)).astype(np.float16)


def c_slots(d_matrices):
    """Per-warp D matrices (w, 16, 8) -> fragments (w*32, 2, 2) by the PTX C formula."""
    rows, cols = np.zeros((32, 4), int), np.zeros((32, 4), int)
    for lane in range(32):
        for i in range(4):
            rows[lane, i], cols[lane, i] = ptx_c(lane, i)
    return d_matrices[:, rows, cols].reshape(-1, 2, 2)


@pytest.mark.parametrize("k", [16, 8])
@pytest.mark.parametrize("base,times", [(1, 1), (3, 1), (2, 4), (5, 8), (72, 2)])
def test_batched_mma_equals_one_matmul_per_warp_bit_for_bit(k, base, times):
    # (72, 2): fragments above mma._SMALL_GATHER elements take the pair-word gather
    rng = np.random.default_rng(100 * k + 10 * base + times)
    a = spread(rng, (base, 16, k))
    b = spread(rng, (base * times, k, 8))
    c = (rng.standard_normal((base * times, 16, 8)) * 64).astype(np.float32)
    fa, fb, fc = fragments(a, b, c, k)
    shape = (16, 8, k)
    assert np.array_equal(mma.to_matrices(fa, shape, "a"), a.astype(np.float32))
    assert np.array_equal(mma.to_matrices(fb, shape, "b"), b.astype(np.float32))
    # warp j * base + w's B in matrix w's columns 8j .. 8j + 7
    side_by_side = b.astype(np.float32).reshape(times, base, k, 8).transpose(1, 2, 0, 3).reshape(base, k, 8 * times)
    assert np.array_equal(mma.to_matrices(fb, shape, "b", times), side_by_side)
    wide = np.tile(fa, (times, 1, 1))  # warp j * base + w holds a[w]
    assert np.array_equal(mma.to_matrices(wide, shape, "a", times), np.tile(a.astype(np.float32), (1, 1, times)))
    d = mma.mma(wide, fb, fc, shape, a_matrices=mma.to_matrices(fa, shape, "a"))
    assert d.dtype == np.float32
    warps = np.arange(base * times)
    want = np.stack([np.matmul(a[w % base].astype(np.float32), b[w].astype(np.float32)) for w in warps]) + c
    assert np.array_equal(d.view(np.uint32), c_slots(want).view(np.uint32))


def test_pair_gathers_are_taken_above_the_small_size():
    shape = (16, 8, 16)
    assert mma._pair_index(shape, "a", 72, 1)[1] is True  # A pairs columns: gathered transposed
    assert mma._pair_index(shape, "b", 72, 2)[1] is False
    assert 72 * 32 * 8 > mma._SMALL_GATHER


def test_mma_without_a_matrices_and_bf16_take_the_general_path():
    import ml_dtypes

    rng = np.random.default_rng(9)
    a = rng.standard_normal((2, 16, 16)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((2, 16, 8)).astype(ml_dtypes.bfloat16)
    c = np.zeros((2, 16, 8), np.float32)
    fa, fb, fc = fragments(a, b, c, 16)
    d = mma.mma(fa, fb, fc, (16, 8, 16))
    for warp in range(2):
        want = np.matmul(a[warp].astype(np.float32), b[warp].astype(np.float32))
        for lane in range(32):
            for i in range(4):
                assert d[warp * 32 + lane, i // 2, i % 2] == want[ptx_c(lane, i)]


@pytest.mark.parametrize("c_block", [[[-0.0, -0.0], [-0.0, -0.0]], [[0.25, 0.25], [0.25, 0.25]],
                                     [[1.5, -2.0], [3.0, 0.125]]])
def test_one_c_for_every_slot(c_block):
    """C given once (1, 2, 2), as a constant accumulator is: each slot adds that block, bit
    for bit as a C of that value in every slot (checked against one matmul per warp)."""
    rng = np.random.default_rng(4)
    warps = 4
    a = spread(rng, (warps, 16, 16))
    b = spread(rng, (warps, 16, 8))
    block = np.float32(c_block)
    c = np.zeros((warps, 16, 8), np.float32)
    fa, fb, _ = fragments(a, b, c, 16)
    d = mma.mma(fa, fb, block[None], (16, 8, 16))
    for warp in range(warps):
        product = np.matmul(a[warp].astype(np.float32), b[warp].astype(np.float32))
        for lane in range(32):
            for i in range(4):
                want = product[ptx_c(lane, i)] + block[i // 2, i % 2]
                assert d[warp * 32 + lane, i // 2, i % 2].view(np.uint32) == want.view(np.uint32)
