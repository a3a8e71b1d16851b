"""Per-lane fragments of ``mma.sync.aligned.m16n8k16`` / ``m16n8k8`` (f16/bf16 in, f32 acc).

PTX ISA ("Matrix Fragments for mma.m16n8k16 with floating point type"): with
``group = lane >> 2`` and ``pair = lane % 4``, register ``r`` element ``e`` of a lane holds

    A (16 x 16):  row = group + 8 * (r % 2)    col = 2 * pair + e + 8 * (r // 2)
    B (16 x 8):   row = 2 * pair + e + 8 * r    col = group
    C/D (16 x 8): row = group + 8 * r           col = 2 * pair + e

and for m16n8k8: A (16 x 8) has r in {0, 1} with row = group + 8 * r, col = 2 * pair + e;
B (8 x 8) has r = 0 only. Example: lane 5 (group 1, pair 1) holds A[9][10] in register 3,
element 0 (row 1 + 8, col 2 + 0 + 8).

These are Triton's ``#ttg.nvidia_mma<{versionMajor = 2}>`` accumulator layout and its
``#ttg.dot_op<{opIdx = 0|1, kWidth = 2}>`` operand layouts restricted to one warp and one
instruction tile: register bits (e, r) map to (col + 1, row + 8, col + 8) for A,
(k + 1, k + 8) for B and (col + 1, row + 8) for C.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from layoutkit.errors import LayoutError

OPERANDS = ("a", "b", "c")


@cache
def fragment(shape: tuple[int, int, int], operand: str) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols): int arrays of shape (32, regs, 2), the matrix element of each lane slot."""
    m, n, k = shape
    if (m, n) != (16, 8) or k not in (8, 16):
        raise LayoutError(f"mmaShape: {list(shape)} not supported (m16n8k16 or m16n8k8)")
    if operand not in OPERANDS:
        raise LayoutError(f"operand: expected one of a, b, c, got '{operand}'")
    lane = np.arange(32)[:, None, None]
    group, pair = lane >> 2, lane & 3
    if operand == "a":
        r = np.arange(k // 4)[None, :, None]
        e = np.arange(2)[None, None, :]
        rows = group + 8 * (r % 2)
        cols = 2 * pair + e + 8 * (r // 2)
    elif operand == "b":
        r = np.arange(k // 8)[None, :, None]
        e = np.arange(2)[None, None, :]
        rows = 2 * pair + e + 8 * r
        cols = group + 0 * r + 0 * e
    else:
        r = np.arange(2)[None, :, None]
        e = np.arange(2)[None, None, :]
        rows = group + 8 * r + 0 * e
        cols = 2 * pair + e + 0 * r
    rows, cols = np.broadcast_arrays(rows, cols)
    return np.ascontiguousarray(rows), np.ascontiguousarray(cols)


def matrix_shape(shape: tuple[int, int, int], operand: str) -> tuple[int, int]:
    m, n, k = shape
    return {"a": (m, k), "b": (k, n), "c": (m, n)}[operand]


def gather_matrices(values: np.ndarray, shape: tuple[int, int, int], operand: str) -> np.ndarray:
    """Fragments ``values`` (warps*32, regs, 2) -> per-warp f32 matrices (warps, rows, cols)."""
    rows, cols = fragment(shape, operand)
    warps = values.shape[0] // 32
    out = np.zeros((warps, *matrix_shape(shape, operand)), np.float32)
    out[:, rows, cols] = values.reshape(warps, *rows.shape).astype(np.float32)
    return out


def scatter_matrices(matrices: np.ndarray, shape: tuple[int, int, int]) -> np.ndarray:
    """Per-warp accumulators (warps, 16, 8) -> C/D fragments (warps*32, 2, 2)."""
    rows, cols = fragment(shape, "c")
    return matrices[:, rows, cols].reshape(-1, *rows.shape[1:])


def mma(a: np.ndarray, b: np.ndarray, c: np.ndarray, shape: tuple[int, int, int]) -> np.ndarray:
    """D = A @ B + C for every warp at once, products exact and sums in f32."""
    d = np.matmul(gather_matrices(a, shape, "a"), gather_matrices(b, shape, "b"))
    d += gather_matrices(c, shape, "c")
    return scatter_matrices(d, shape)
