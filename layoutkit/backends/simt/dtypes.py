"""numpy dtypes of the IR's element types: i1..i64 and index as integers, f16, bf16, f32, f64."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import MemRefType, TensorType, VectorType
from xdsl.ir import Attribute

from layoutkit.backends.types import scalar_type

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
UNSIGNED = {np.dtype(np.int8): np.dtype(np.uint8), np.dtype(np.int16): np.dtype(np.uint16),
            np.dtype(np.int32): np.dtype(np.uint32), np.dtype(np.int64): np.dtype(np.uint64),
            np.dtype(np.bool_): np.dtype(np.bool_)}


def element_dtype(type_: Attribute) -> np.dtype:
    """The numpy dtype holding one element of ``type_`` (a scalar, vector or memref type),
    from the backends' one type mapping (:mod:`layoutkit.backends.types`)."""
    if isinstance(type_, (VectorType, MemRefType, TensorType)):
        type_ = type_.element_type
    found = _ELEMENT_DTYPES.get(type_)
    if found is not None:
        return found
    if type_.name == "tt.ptr":  # a Triton pointer: buffer and byte offset in an int64
        found = np.dtype(np.int64)
    else:
        fp8 = fp8_dtype(str(type_))
        found = fp8 if fp8 is not None else scalar_type(type_).numpy
    if len(_ELEMENT_DTYPES) < 1024:  # element types are few; handlers ask for them on every run
        _ELEMENT_DTYPES[type_] = found
    return found


_ELEMENT_DTYPES: dict[Attribute, np.dtype] = {}


def fp8_dtype(text: str) -> np.dtype | None:
    """ml_dtypes' dtype of an MLIR fp8 type (the simulator's only; Triton converts them
    with ``tt.fp_to_fp`` before arithmetic). Example: ``f8E4M3FN`` -> ``float8_e4m3fn``."""
    if not text.startswith("f8E"):
        return None
    dtype = getattr(ml_dtypes, "float8_" + text[2:].lower(), None)
    return None if dtype is None else np.dtype(dtype)


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
