"""Dot operands as the tensor cores take them: the one place where a dot's inputs are
rounded (every dot handler — ``tt.dot``, ``ttng.warp_group_dot`` — goes through
:func:`dot_operand`) before fp32 accumulation.

- f16, bf16, fp8 (ml_dtypes) and integer inputs convert to f32 exactly;
- f32 inputs with ``inputPrecision = tf32`` (Triton's default, enum value 0) are read as
  tf32: the hardware ignores the 13 low mantissa bits (PTX ``mma``/``wgmma`` ``.tf32``), so
  the value is truncated toward zero to 10 mantissa bits. ``tf32x3`` (1) and ``ieee`` (2)
  keep f32 (tf32x3 splits each input in three tf32 parts whose products sum to f32
  accuracy).

Worked example: 1 + 2**-11 (f32 bits 0x3F800100) read as tf32 is 1.0 (bit 8 of the
mantissa is among the 13 ignored); 1 + 2**-10 (0x3F800200) stays.
"""

from __future__ import annotations

import numpy as np

TF32, TF32X3, IEEE = 0, 1, 2
_TF32_MASK = np.uint32(0xFFFFE000)  # sign, exponent and the 10 high mantissa bits


def input_precision(attr) -> int:
    """The ``inputPrecision`` property's value (tf32 when absent, as Triton defaults)."""
    if attr is None:
        return TF32
    value = getattr(attr, "value", attr)
    return int(getattr(value, "data", value))


def to_tf32(x: np.ndarray) -> np.ndarray:
    """f32 values as tf32 reads them (13 low mantissa bits dropped)."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32) & _TF32_MASK
    return bits.view(np.float32)


def dot_operand(x: np.ndarray, precision: int) -> np.ndarray:
    """A dot operand in f32 as the hardware multiplies it."""
    if x.dtype == np.float32:
        return to_tf32(x) if precision == TF32 else x
    return x.astype(np.float32)


def dot(a: np.ndarray, b: np.ndarray, c: np.ndarray | None, precision: int) -> np.ndarray:
    """``a @ b + c`` per leading (block) index with rounded inputs, f32 accumulation
    (f16/bf16 products are exact in f32; the sum is f32 in numpy's order)."""
    out = np.matmul(dot_operand(a, precision), dot_operand(b, precision))
    return out if c is None else out + c.astype(np.float32)
