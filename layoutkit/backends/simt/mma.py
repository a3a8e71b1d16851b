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
instruction tile (register bits (e, r) map to (col + 1, row + 8, col + 8) for A,
(k + 1, k + 8) for B and (col + 1, row + 8) for C), and :func:`fragment` reads them off
those layouts (``layoutkit.layouts.triton.mma``); the tests check them against PTX.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from layoutkit.errors import LayoutError

OPERANDS = ("a", "b", "c")


def _triton_layout(operand: str, k: int):
    """The Triton layout of one warp's operand tile: register/lane -> (dim0, dim1)."""
    from layoutkit.layouts.triton.mma import DotOperandEncoding, NvidiaMmaEncoding

    accumulator = NvidiaMmaEncoding(2, 0, (1, 1), (16, 8))
    if operand == "c":
        return accumulator.to_linear_layout((16, 8))
    if operand == "a":
        return DotOperandEncoding(0, accumulator, k_width=2).to_linear_layout((16, k))
    return DotOperandEncoding(1, accumulator, k_width=2).to_linear_layout((k, 8))


@cache
def fragment(shape: tuple[int, int, int], operand: str) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols): int arrays of shape (32, regs, 2), the matrix element of each lane slot.

    Read off Triton's nvidia_mma v2 / dot_op (kWidth 2) linear layouts: slot (r, e) of a
    lane is that layout's register ``2 * r + e`` (for k = 8 the first registers; Triton pads
    the k tile to 16 with broadcast registers after them).
    """
    m, n, k = shape
    if (m, n) != (16, 8) or k not in (8, 16):
        raise LayoutError(f"mmaShape: {list(shape)} not supported (m16n8k16 or m16n8k8)")
    if operand not in OPERANDS:
        raise LayoutError(f"operand: expected one of a, b, c, got '{operand}'")
    rows_, cols_ = matrix_shape(shape, operand)
    registers = rows_ * cols_ // 32
    layout = _triton_layout(operand, k)
    lane = np.arange(32)[:, None]
    register = np.arange(registers)[None, :]
    coords = layout.apply(register=register, lane=lane)
    rows = np.broadcast_to(coords["dim0"], (32, registers)).reshape(32, registers // 2, 2)
    cols = np.broadcast_to(coords["dim1"], (32, registers)).reshape(32, registers // 2, 2)
    return np.ascontiguousarray(rows, dtype=np.int64), np.ascontiguousarray(cols, dtype=np.int64)


def matrix_shape(shape: tuple[int, int, int], operand: str) -> tuple[int, int]:
    m, n, k = shape
    return {"a": (m, k), "b": (k, n), "c": (m, n)}[operand]


@cache
def _positions(shape: tuple[int, int, int], operand: str) -> tuple[np.ndarray, np.ndarray]:
    """(slot of each matrix element, matrix element of each slot), both flat."""
    rows, cols = fragment(shape, operand)
    element_of_slot = (rows * matrix_shape(shape, operand)[1] + cols).ravel()
    return np.argsort(element_of_slot), element_of_slot


def gather_matrices(values: np.ndarray, shape: tuple[int, int, int], operand: str) -> np.ndarray:
    """Fragments ``values`` (warps*32, regs, 2) -> per-warp f32 matrices (warps, rows, cols)
    by gathering each matrix element from its slot (any layout; see :func:`to_matrices`)."""
    slot_of_element, _ = _positions(shape, operand)
    warps = values.shape[0] // 32
    flat = values.reshape(warps, -1)[:, slot_of_element]
    return flat.astype(np.float32).reshape(warps, *matrix_shape(shape, operand))


@cache
def _slots(shape: tuple[int, int, int], operand: str, warps: int) -> np.ndarray:
    """Flat positions in ``warps`` warps' fragments (warps*32, regs, 2) of each warp's
    matrix elements (operands a, b) or in the stacked matrices of each C slot (c)."""
    slot_of_element, element_of_slot = _positions(shape, operand)
    positions = element_of_slot if operand == "c" else slot_of_element
    return (np.arange(warps)[:, None] * positions.size + positions[None, :]).ravel()


def to_matrices(values: np.ndarray, shape: tuple[int, int, int], operand: str) -> np.ndarray:
    """Fragments ``values`` (warps*32, regs, 2) -> per-warp f32 matrices (warps, rows, cols),
    C-contiguous (numpy's matmul runs several times slower on a non-contiguous stack): one
    gather with the warps' positions (kept per shape and warp count), then one conversion."""
    warps = values.shape[0] // 32
    flat = np.take(values.reshape(-1), _slots(shape, operand, warps))
    return flat.astype(np.float32).reshape(warps, *matrix_shape(shape, operand))


def mma(a: np.ndarray, b: np.ndarray, c: np.ndarray, shape: tuple[int, int, int],
        a_matrices: np.ndarray | None = None) -> np.ndarray:
    """D = A @ B + C for every warp at once, products exact and sums in f32.

    ``a_matrices``, when given, is ``to_matrices(a, shape, "a")`` computed before (an A
    fragment is typically reused by several instructions), of as many warps as ``b`` or of
    a divisor of them: then warp ``j * len(a_matrices) + w`` uses ``a_matrices[w]`` (the
    same A repeated for a batched loop's iterations; numpy's matmul broadcasts it). Each
    warp's product is the same 16 x k by k x 8 matmul either way.
    """
    warps = b.shape[0] // 32
    if a_matrices is None:
        a_matrices = to_matrices(a, shape, "a")
    b_matrices = to_matrices(b, shape, "b")
    base = a_matrices.shape[0]
    if base != warps:  # (base, m, k) @ (times, base, k, n)
        b_matrices = b_matrices.reshape(warps // base, base, *b_matrices.shape[1:])
    product = np.matmul(a_matrices, b_matrices)
    # C and D share the fragment layout: add C lane by lane instead of gathering it
    d = np.take(product.reshape(-1), _slots(shape, "c", warps)).reshape(warps * 32, 2, 2)
    d += c
    return d
