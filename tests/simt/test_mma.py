"""mma.sync fragments against the PTX ISA's formulas, and D = A @ B + C with f32 sums."""

from __future__ import annotations

import numpy as np
import pytest

from layoutkit.backends.simt import mma


def ptx_a(lane: int, i: int, k: int) -> tuple[int, int]:
    """PTX ISA, mma.m16n8k16 / m16n8k8 .f16 A fragment: element a_i of a lane."""
    group, tid = lane >> 2, lane % 4
    row = group if (i < 2 or 4 <= i < 6) else group + 8
    col = tid * 2 + (i & 0x1) + (8 if i >= 4 else 0)
    if k == 8:  # a0..a3 only: rows group / group + 8, cols tid*2 + (i & 1)
        row = group if i < 2 else group + 8
        col = tid * 2 + (i & 0x1)
    return row, col


def ptx_b(lane: int, i: int) -> tuple[int, int]:
    """PTX ISA .f16 B fragment: element b_i of a lane (k x n)."""
    group, tid = lane >> 2, lane % 4
    row = tid * 2 + (i & 0x1) + (8 if i >= 2 else 0)
    return row, group


def ptx_c(lane: int, i: int) -> tuple[int, int]:
    """PTX ISA .f32 C/D fragment: element c_i of a lane."""
    group, tid = lane >> 2, lane % 4
    row = group if i < 2 else group + 8
    return row, tid * 2 + (i & 0x1)


@pytest.mark.parametrize("k", [16, 8])
def test_fragments_match_ptx(k):
    shape = (16, 8, k)
    for operand, count, formula in (("a", k // 2, lambda lane, i: ptx_a(lane, i, k)),
                                    ("b", k // 4, ptx_b), ("c", 4, ptx_c)):
        rows, cols = mma.fragment(shape, operand)
        assert rows.shape == (32, count // 2, 2)
        for lane in range(32):
            for i in range(count):
                assert (rows[lane, i // 2, i % 2], cols[lane, i // 2, i % 2]) == formula(lane, i)
        # every element of the matrix is held exactly once
        mrows, mcols = mma.matrix_shape(shape, operand)
        assert sorted(zip(rows.ravel(), cols.ravel())) == [(r, c) for r in range(mrows) for c in range(mcols)]


@pytest.mark.parametrize("k", [16, 8])
def test_mma_computes_product_from_ptx_fragments(k):
    rng = np.random.default_rng(k)
    warps = 3
    a = rng.standard_normal((warps, 16, k)).astype(np.float16)
    b = rng.standard_normal((warps, k, 8)).astype(np.float16)
    c = rng.standard_normal((warps, 16, 8)).astype(np.float32)
    fa = np.zeros((warps * 32, k // 4, 2), np.float16)
    fb = np.zeros((warps * 32, k // 8, 2), np.float16)
    fc = np.zeros((warps * 32, 2, 2), np.float32)
    for w in range(warps):
        for lane in range(32):
            t = w * 32 + lane
            for i in range(k // 2):
                fa[t, i // 2, i % 2] = a[w][ptx_a(lane, i, k)]
            for i in range(k // 4):
                fb[t, i // 2, i % 2] = b[w][ptx_b(lane, i)]
            for i in range(4):
                fc[t, i // 2, i % 2] = c[w][ptx_c(lane, i)]
    fd = mma.mma(fa, fb, fc, (16, 8, k))
    exact = a.astype(np.float64) @ b.astype(np.float64) + c
    for w in range(warps):
        for lane in range(32):
            for i in range(4):
                got = fd[w * 32 + lane, i // 2, i % 2]
                want = exact[w][ptx_c(lane, i)]
                assert abs(got - want) <= 1e-5 * (1 + abs(want))


def test_accumulation_is_f32():
    """2048 + 1 is exact in f32 but rounds to 2048 in f16: the accumulator must be f32."""
    fa = np.zeros((32, 4, 2), np.float16)
    fb = np.zeros((32, 2, 2), np.float16)
    fa[0, 0, 0] = 1.0  # lane 0, a0 = A[0][0]
    fb[0, 0, 0] = 1.0  # lane 0, b0 = B[0][0]
    fc = np.full((32, 2, 2), 2048.0, np.float32)
    fd = mma.mma(fa, fb, fc, (16, 8, 16))
    assert fd[0, 0, 0] == 2049.0  # lane 0, c0 = D[0][0]
    assert fd[1, 0, 0] == 2048.0


def test_bf16_inputs():
    import ml_dtypes

    rng = np.random.default_rng(3)
    a = rng.standard_normal((16, 16)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((16, 8)).astype(ml_dtypes.bfloat16)
    fa = np.zeros((32, 4, 2), ml_dtypes.bfloat16)
    fb = np.zeros((32, 2, 2), ml_dtypes.bfloat16)
    for lane in range(32):
        for i in range(8):
            fa[lane, i // 2, i % 2] = a[ptx_a(lane, i, 16)]
        for i in range(4):
            fb[lane, i // 2, i % 2] = b[ptx_b(lane, i)]
    fd = mma.mma(fa, fb, np.zeros((32, 2, 2), np.float32), (16, 8, 16))
    exact = a.astype(np.float64) @ b.astype(np.float64)
    for lane in range(32):
        for i in range(4):
            assert abs(fd[lane, i // 2, i % 2] - exact[ptx_c(lane, i)]) <= 1e-5 * (1 + abs(exact[ptx_c(lane, i)]))
