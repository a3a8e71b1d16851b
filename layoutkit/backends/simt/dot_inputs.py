"""Dot operands as the tensor cores take them: the one place where a dot's inputs are
rounded (every dot handler — ``tt.dot``, ``ttng.warp_group_dot`` — goes through
:func:`dot_operand` / :func:`dot`) before fp32 accumulation.

- f16, bf16, fp8 (ml_dtypes) inputs convert to f32 exactly, and their products are exact
  in f32; sums are f32 (numpy's order). A result of a narrower float type (f16
  accumulators) is rounded once at the end.
- integer inputs (i8 -> i32) multiply and sum exactly in int64; the result wraps to the
  accumulator's width as the hardware's s32 accumulation does.
- f32 inputs follow ``inputPrecision`` (Triton's enum; an absent property is Triton's
  default, ``ieee``):
  ``tf32`` (0): read as tf32 — the hardware ignores the 13 low mantissa bits (PTX
  ``mma``/``wgmma`` ``.tf32``), so the value is truncated toward zero to 10 mantissa bits;
  ``tf32x3`` (1): each input split as big = tf32(x), small = tf32(x - big), and
  big·big + (small·big + big·small) (NaNs of the small terms dropped, as Triton's
  F32DotTC does); ``ieee`` (2): f32; ``bf16x3`` (3) / ``bf16x6`` (4): x split into two /
  three bf16 parts (round to nearest even) and the 3 / 6 leading products summed.
- ``maxNumImpreciseAcc`` (Hopper fp8 accumulation in limited precision) is not modelled:
  accumulation is always full f32.
- FMA dots (a ``#ttg.blocked`` parent) ignore ``inputPrecision`` like Triton's FMA
  lowering: the caller passes ``IEEE``.

Worked example: 1 + 2**-11 (f32 bits 0x3F800100) read as tf32 is 1.0 (bit 8 of the
mantissa is among the 13 ignored); 1 + 2**-10 (0x3F800200) stays.
"""

from __future__ import annotations

import numpy as np

from layoutkit.backends.simt.dtypes import BFLOAT16

TF32, TF32X3, IEEE, BF16X3, BF16X6 = 0, 1, 2, 3, 4
_TF32_MASK = np.uint32(0xFFFFE000)  # sign, exponent and the 10 high mantissa bits


def input_precision(attr) -> int:
    """The ``inputPrecision`` property's value (``ieee`` when absent, Triton's default)."""
    if attr is None:
        return IEEE
    value = getattr(attr, "value", attr)
    return int(getattr(value, "data", value))


def to_tf32(x: np.ndarray) -> np.ndarray:
    """f32 values as tf32 reads them (13 low mantissa bits dropped)."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32) & _TF32_MASK
    return bits.view(np.float32)


def dot_operand(x: np.ndarray, precision: int) -> np.ndarray:
    """A dot operand in f32 as the hardware multiplies it (one-pass precisions)."""
    if x.dtype == np.float32:
        return to_tf32(x) if precision == TF32 else x
    return x.astype(np.float32)


def _split(x: np.ndarray, parts: int, to) -> list[np.ndarray]:
    """x as ``parts`` terms, each ``to`` of what the previous ones left."""
    out = []
    rest = x
    for _ in range(parts):
        term = to(rest)
        out.append(term)
        rest = (rest - term).astype(np.float32)
    return out


def _to_bf16(x: np.ndarray) -> np.ndarray:
    return x.astype(BFLOAT16).astype(np.float32)


def _multi_pass(a: np.ndarray, b: np.ndarray, precision: int) -> np.ndarray:
    """tf32x3 / bf16x3 / bf16x6: the leading products of split inputs, smallest first."""
    parts, to = (2, to_tf32) if precision == TF32X3 else (2 if precision == BF16X3 else 3, _to_bf16)
    pa, pb = _split(a, parts, to), _split(b, parts, to)
    order = [(i, j) for i in range(parts) for j in range(parts) if i + j < parts and (i, j) != (0, 0)]
    order.sort(key=lambda ij: -(ij[0] + ij[1]))
    low = np.zeros((), np.float32)
    for i, j in order:
        low = low + np.matmul(pa[i], pb[j])
    low = np.where(np.isnan(low), np.float32(0), low)
    return np.matmul(pa[0], pb[0]) + low


def dot(a: np.ndarray, b: np.ndarray, c: np.ndarray | None, precision: int) -> np.ndarray:
    """``a @ b + c`` per leading (block) index with inputs as the hardware takes them: f32
    results for float inputs, int64 (exact) for integer inputs."""
    if a.dtype.kind in "iu":
        out = np.matmul(a.astype(np.int64), b.astype(np.int64))
        return out if c is None else out + c.astype(np.int64)
    if a.dtype == np.float32 and precision in (TF32X3, BF16X3, BF16X6):
        out = _multi_pass(a, b.astype(np.float32), precision)
    else:
        out = np.matmul(dot_operand(a, precision), dot_operand(b, precision))
    return out if c is None else out + c.astype(np.float32)
