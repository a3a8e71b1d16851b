"""numpy dtypes of the IR's element types: i1..i64 and index as integers, f16, bf16, f32, f64."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute

from layoutkit.errors import LayoutError

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
_INT = {1: np.dtype(np.bool_), 8: np.dtype(np.int8), 16: np.dtype(np.int16),
        32: np.dtype(np.int32), 64: np.dtype(np.int64)}
UNSIGNED = {np.dtype(np.int8): np.dtype(np.uint8), np.dtype(np.int16): np.dtype(np.uint16),
            np.dtype(np.int32): np.dtype(np.uint32), np.dtype(np.int64): np.dtype(np.uint64),
            np.dtype(np.bool_): np.dtype(np.bool_)}


def element_dtype(type_: Attribute) -> np.dtype:
    """The numpy dtype holding one element of ``type_`` (a scalar, vector or memref type)."""
    if isinstance(type_, (VectorType, MemRefType)):
        type_ = type_.element_type
    if isinstance(type_, IndexType):
        return np.dtype(np.int64)
    if isinstance(type_, IntegerType):
        width = type_.width.data
        if width not in _INT:
            raise LayoutError(f"type: integer width {width} is not simulated (i1, i8, i16, i32, i64)")
        return _INT[width]
    if isinstance(type_, Float16Type):
        return np.dtype(np.float16)
    if isinstance(type_, BFloat16Type):
        return BFLOAT16
    if isinstance(type_, Float32Type):
        return np.dtype(np.float32)
    if isinstance(type_, Float64Type):
        return np.dtype(np.float64)
    raise LayoutError(f"type: '{type_}' is not simulated")


def vector_shape(type_: Attribute) -> tuple[int, ...]:
    """The per-thread shape of a value: () for scalars, the vector shape for vectors."""
    if isinstance(type_, VectorType):
        return tuple(type_.get_shape())
    return ()


def is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype == BFLOAT16


def unsigned(dtype: np.dtype) -> np.dtype:
    """The unsigned dtype of the same width (for ult, divui, shrui, ...)."""
    return UNSIGNED[np.dtype(dtype)]
