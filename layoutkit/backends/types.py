"""The element and value types of the IR as both backends see them: one mapping from MLIR
types to numpy dtypes (the simulator) and C types (the CUDA emitter).

``f32`` -> ``Scalar("float", 32)``: numpy ``float32``, C ``float``; ``bf16`` is bits 17
(a 16-bit float that is not f16): numpy ``ml_dtypes.bfloat16``, C ``bf16_t``; ``index`` is
64-bit in the simulator and a 32-bit ``int`` in CUDA (kernels address fewer than 2**31
elements). ``vector<4x2xf16>`` -> ``VectorT(Scalar("float", 16), (4, 2))``, C ``Vec<f16_t, 8>``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutkit.errors import LayoutError, quote


@dataclass(frozen=True)
class Scalar:
    """An element type: ``kind`` is ``"int"``, ``"index"``, ``"float"``; ``bits`` its width."""

    kind: str
    bits: int

    @property
    def c(self) -> str:
        if self.kind == "index":
            return "int"
        if self.kind == "float":
            return {16: "f16_t", 17: "bf16_t", 32: "float", 64: "double"}[self.bits]
        return {1: "bool", 8: "signed char", 16: "short", 32: "int", 64: "long long"}[self.bits]

    @property
    def unsigned_c(self) -> str:
        return {1: "bool", 8: "unsigned char", 16: "unsigned short", 32: "unsigned",
                64: "unsigned long long"}[32 if self.kind == "index" else self.bits]

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_16bit_float(self) -> bool:
        return self.kind == "float" and self.bits in (16, 17)

    @property
    def compute_c(self) -> str:
        """The C type arithmetic runs in: f32 for 16-bit floats, else the type itself."""
        return "float" if self.is_16bit_float else self.c

    @property
    def numpy(self) -> np.dtype:
        """The numpy dtype holding one element (``index`` as int64)."""
        if self.kind == "index":
            return np.dtype(np.int64)
        if self.kind == "float":
            if self.bits == 17:
                import ml_dtypes

                return np.dtype(ml_dtypes.bfloat16)
            return np.dtype({16: np.float16, 32: np.float32, 64: np.float64}[self.bits])
        return np.dtype({1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[self.bits])

    @property
    def size(self) -> int:
        if self.kind == "index":
            return 4
        return {1: 1, 17: 2}.get(self.bits, self.bits // 8)


@dataclass(frozen=True)
class VectorT:
    element: Scalar
    shape: tuple[int, ...]

    @property
    def count(self) -> int:
        return math.prod(self.shape)

    @property
    def c(self) -> str:
        return f"Vec<{self.element.c}, {self.count}>"


def scalar_type(t: Any) -> Scalar:
    name = type(t).__name__
    text = str(t)
    if name == "IndexType" or text == "index":
        return Scalar("index", 32)
    if name == "IntegerType" or re.fullmatch(r"i\d+", text):
        bits = int(t.width.data) if hasattr(t, "width") else int(text[1:])
        if bits not in (1, 8, 16, 32, 64):
            raise LayoutError(f"type: no backend supports the element type {quote(text)} (i1, i8, i16, i32, i64, index, f16, bf16, f32, f64)")
        return Scalar("int", bits)
    floats = {"f16": 16, "bf16": 17, "f32": 32, "f64": 64}
    if text in floats:
        return Scalar("float", floats[text])
    raise LayoutError(f"type: no backend supports the element type {quote(text)} (i1, i8, i16, i32, i64, index, f16, bf16, f32, f64)")


def value_type(t: Any) -> Scalar | VectorT:
    if type(t).__name__ == "VectorType" or str(t).startswith("vector<"):
        shape = tuple(int(d) for d in t.get_shape())
        return VectorT(scalar_type(t.get_element_type()), shape)
    return scalar_type(t)


def c_type(t: Any) -> str:
    return value_type(t).c
