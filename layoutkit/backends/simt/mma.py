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

import sys
from functools import cache, lru_cache

import numpy as np

from layoutkit.errors import LayoutError

OPERANDS = ("a", "b", "c")
_SMALL_GATHER = 1 << 13  # fragment elements: up to this, the plain gather and cast are faster
_INDEX_CACHE = 32  # gather positions kept per (shape, operand, warps): up to 512 KiB each


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


def _warp_index(base: int, times: int) -> np.ndarray:
    """(base, 1, times, 1): the warp whose matrix sits in matrix ``w``'s columns ``j``."""
    return (np.arange(times)[None, None, :, None] * base + np.arange(base)[:, None, None, None])


@lru_cache(maxsize=_INDEX_CACHE)
def _matrix_index(shape: tuple[int, int, int], operand: str, base: int, times: int) -> np.ndarray:
    """Flat positions in ``times * base`` warps' fragments (warps*32, regs, 2) of the
    elements of ``base`` matrices (base, rows, times * cols): matrix ``w``'s columns
    ``j * cols ..`` are those of warp ``j * base + w`` (an operand's iterations side by side).

    Example (operand b, m16n8k16, base 1, times 2): element (k 9, col 8 + 3) is warp 1's
    B[9][3], held by lane 4 * 3 + 0 (group 3, pair 0) in register 1, element 1: position
    (32 + 12) * 4 + 1 * 2 + 1 = 179.
    """
    slot_of_element, _ = _positions(shape, operand)
    rows, cols = matrix_shape(shape, operand)
    slots = slot_of_element.reshape(1, rows, 1, cols)
    return (_warp_index(base, times) * slot_of_element.size + slots).reshape(-1)


@lru_cache(maxsize=_INDEX_CACHE)
def _pair_index(shape: tuple[int, int, int], operand: str, base: int, times: int) -> tuple[np.ndarray, bool] | None:
    """Like :func:`_matrix_index` in units of a slot's two elements (e 0, 1), when they are
    always two adjacent rows or columns of the matrix, in the order of the matrices
    (base, rows / 2, times * cols) or, for columns, of their transposes (base, times * cols / 2,
    rows): the pairs are two consecutive rows, which a conversion writes in contiguous runs.
    Also whether transposed; None when the elements do not pair. m16n8k16: B pairs rows
    (k = 2 * pair + e + 8 * r), A pairs columns (2 * pair + e).
    """
    if sys.byteorder != "little":
        return None
    slot_of_element, element_of_slot = _positions(shape, operand)
    rows, cols = matrix_shape(shape, operand)
    first, second = element_of_slot[0::2], element_of_slot[1::2]
    slots = slot_of_element.reshape(rows, cols)
    warps = _warp_index(base, times) * (slot_of_element.size // 2)  # (base, 1, times, 1)
    if np.array_equal(second, first + cols) and ((first // cols) % 2 == 0).all():
        pairs = slots[::2].reshape(1, rows // 2, 1, cols) // 2
        return (warps + pairs).reshape(-1), False
    if np.array_equal(second, first + 1) and (first % 2 == 0).all():
        pairs = slots[:, ::2].T.reshape(1, 1, cols // 2, rows) // 2  # (.., times, col pair, row)
        return (warps.reshape(base, times, 1, 1) + pairs).reshape(-1), True
    return None


@lru_cache(maxsize=_INDEX_CACHE)
def _d_index(shape: tuple[int, int, int], base: int, times: int) -> tuple[np.ndarray, bool]:
    """Positions in the products (base, 16, times * 8) of each D slot of ``times * base``
    warps' fragments, and whether they count pairs of f32 (a slot's two elements are
    always adjacent columns in C/D fragments: one 8-byte take per pair)."""
    _, element_of_slot = _positions(shape, "c")
    rows, cols = matrix_shape(shape, "c")
    row, col = np.divmod(element_of_slot, cols)
    width = times * cols
    slot = (np.arange(base)[None, :, None] * (rows * width) + np.arange(times)[:, None, None] * cols
            + (row * width + col)[None, None, :]).reshape(-1)
    if np.array_equal(slot[1::2], slot[::2] + 1) and not (slot[::2] % 2).any():
        return slot[::2] // 2, True
    return slot, False


_NEGATIVE_ZERO = 0x80000000  # f32 bits of -0.0
_F16_SCALE = np.float32(2.0 ** 112)  # f16 exponent bias 15 -> f32 bias 127


def _f16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    """uint32 words holding a float16 in their high half (low half ignored) -> the float32
    values, in place, bit for bit as numpy's cast (NaN payloads included).

    Shifted right 3 places arithmetically, the sign stays at bit 31 (copied into bits
    28-30, masked off with the low half), the exponent lands at bits 23-27 and the
    mantissa at 13-22: that f32 times 2^112 is the value (exact for subnormals too).
    Exponent 31 (inf, NaN) lands on 143: those get 255. Example: 1.0 is 0x3C00 ->
    0x3C000000 >> 3 = 0x07800000 = 2^-112, times 2^112 = 1.0.
    """
    signed = bits.view(np.int32)
    np.right_shift(signed, 3, out=signed)
    np.bitwise_and(bits, np.uint32(0x8FFFE000), out=bits)
    result = bits.view(np.float32)
    np.multiply(result, _F16_SCALE, out=result)
    if not (-65536.0 < result.min() and result.max() < 65536.0):  # inf or NaN inputs (rare)
        bits[np.abs(result) >= 65536.0] |= np.uint32(0x7F800000)
    return result


def to_f32(values: np.ndarray) -> np.ndarray:
    """``values.astype(float32)``, bit for bit; for float16 by integer and float passes
    (:func:`_f16_bits_to_f32`: numpy's own f16 cast is a scalar loop, several times slower)."""
    if values.dtype != np.float16:
        return values.astype(np.float32)
    return _f16_bits_to_f32(np.left_shift(values.view(np.uint16), 16, dtype=np.uint32))


def to_matrices(values: np.ndarray, shape: tuple[int, int, int], operand: str, times: int = 1) -> np.ndarray:
    """Fragments ``values`` (warps*32, regs, 2) -> per-warp f32 matrices (warps, rows, cols),
    C-contiguous or the transpose of a C-contiguous stack (numpy's matmul hands either to
    BLAS): one gather with the warps' positions (kept per shape and warp count), then one
    conversion.
    With ``times`` > 1: (warps / times, rows, times * cols), warp ``j * warps / times + w``
    in matrix ``w``'s columns ``j * cols ...`` (see :func:`_matrix_index`).

    Above ``_SMALL_GATHER`` elements, float16 fragments are gathered a slot's two elements
    at once (one 4-byte word), copied into two rows with each element in the high half of a
    4-byte word (its low half ignored), then converted (:func:`_f16_bits_to_f32`; pairs:
    :func:`_pair_index`); smaller ones (one instruction's warps) by one element gather and
    numpy's cast, fewer numpy calls.
    """
    base = values.shape[0] // 32 // times
    rows, cols = matrix_shape(shape, operand)
    large = values.size > _SMALL_GATHER
    pairs = _pair_index(shape, operand, base, times) if large and values.dtype == np.float16 else None
    if pairs is None:
        flat = np.take(values.reshape(-1), _matrix_index(shape, operand, base, times))
        return (to_f32(flat) if large else flat.astype(np.float32)).reshape(base, rows, times * cols)
    index, transposed = pairs
    height, width = (times * cols, rows) if transposed else (rows, times * cols)
    words = np.take(values.reshape(-1).view(np.uint32), index).reshape(base, height // 2, width)
    bits = np.empty((base, height // 2, 2, width), np.uint32)
    # little-endian: element 0 is a word's low half, element 1 its high half; the second
    # row is the words, the first the words one half later (its low halves are ignored)
    halves, words = bits.view(np.uint16), words.view(np.uint16)
    np.copyto(halves[:, :, 1], words)
    np.copyto(halves[:, :, 0, 1:], words[..., :-1])
    matrices = _f16_bits_to_f32(bits).reshape(base, height, width)
    return matrices.transpose(0, 2, 1) if transposed else matrices


def mma(a: np.ndarray, b: np.ndarray, c: np.ndarray, shape: tuple[int, int, int],
        a_matrices: np.ndarray | None = None) -> np.ndarray:
    """D = A @ B + C for every warp at once, products exact and sums in f32; ``c`` is
    (warps*32, 2, 2) or one C for all (1, 2, 2).

    ``a_matrices``, when given, is ``to_matrices(a, shape, "a")`` computed before (an A
    fragment is typically reused by several instructions), of as many warps as ``b`` or of
    a divisor ``base`` of them: then warp ``j * base + w`` uses ``a_matrices[w]`` (the same
    A repeated for a batched loop's iterations). The B matrices of the warps sharing an A
    sit side by side in one (k, times * 8) matrix, so numpy runs one GEMM per A instead of
    one per warp; each product element is still the same k-term f32 dot product, summed in
    the same order (tests/simt check the bits against one matmul per warp).
    """
    warps = b.shape[0] // 32
    if a_matrices is None:
        a_matrices = to_matrices(a, shape, "a")
    base = a_matrices.shape[0]
    times = warps // base
    product = np.matmul(a_matrices, to_matrices(b, shape, "b", times))
    # C and D share the fragment layout: D slots gathered from the products, then C added
    index, pairs = _d_index(shape, base, times)
    if pairs:
        d = np.take(product.view(np.uint64).reshape(-1), index).view(np.float32)
    else:
        d = np.take(product.reshape(-1), index)
    d = d.reshape(warps * 32, 2, 2)
    if c.shape[0] == 1 or c.strides[0] == 0:  # one C for every slot (numpy's broadcast add
        _add_uniform(d, c[0])                 # of a (2, 2) block per slot is 8x slower)
    else:
        d += c
    return d


def _add_uniform(d: np.ndarray, c: np.ndarray) -> None:
    """``d += c`` for every slot's (2, 2) block ``c``: one scalar add when its elements are
    the same bits (a splat constant, the usual case; none for -0.0, which x + -0.0 gives
    back bit for bit: fission's split product), else one strided add per element."""
    words = c.reshape(-1)
    bits = words.view(np.uint32)
    if (bits == bits[0]).all():
        if bits[0] != _NEGATIVE_ZERO:  # (matmul's NaNs are quiet: + -0.0 keeps them too)
            d += words[0]
        return
    flat = d.reshape(d.shape[0], -1)
    for i, value in enumerate(words):
        flat[:, i] += value
