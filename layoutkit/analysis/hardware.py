"""A distributed layout as one array: which tensor element every hardware slot holds.

:func:`hardware_map` tabulates any distributed layout (any family, through the protocol's
``table``) into ``elements[block, warp, lane, register]`` = the row-major flat index of the
tensor element held there. Missing hardware dims count as size 1.

Worked example: ``#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8],
warpsPerCTA = [1, 1], order = [1, 0]}>`` on a 4x16 tensor puts register ``r`` of lane ``l``
on row ``l // 8`` and column ``2 * (l % 8) + r``, so
``elements[0, 0, l, r] == 16 * (l // 8) + 2 * (l % 8) + r``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from layoutkit.core.protocol import DISTRIBUTED_DIMS, check_shape
from layoutkit.errors import LayoutError, quote
from layoutkit.layouts.parse import element_bits

#: axis order of every hardware map
AXES = ("block", "warp", "lane", "register")

#: widest element an integer ``dtype`` may name: one 16-byte (128-bit) vector access
MAX_ELEMENT_BITS = 128

#: most tensor elements, and most hardware slots of one layout, that the analysis and the
#: planner tabulate (1024x1024 plans in about a second; one block's tile is far smaller)
MAX_TABULATED = 1 << 20


def check_tabulated(count: int, field: str, text: Any, what: str) -> None:
    """LayoutError naming ``field`` and quoting ``text`` when ``count`` ``what`` (elements,
    hardware slots) are more than :data:`MAX_TABULATED` -- before any table is built."""
    if count > MAX_TABULATED:
        raise LayoutError(f"{field}: {quote(text)} has {count} {what}; layoutkit tabulates at most "
                          f"{MAX_TABULATED} (2**20) per layout, one block's tile")


def element_type(dtype: Any) -> tuple[str, int]:
    """``(name, bits)`` of an element type, checked: see :func:`_element_type`."""
    name, bits = _element_type(dtype)
    if bits > 8 and bits & (bits - 1):
        raise LayoutError(f"element type: a {bits}-bit element is no power-of-two number of bytes, "
                          f"which shared-memory vectors need, got {quote(dtype)}")
    return name, bits


def _element_type(dtype: Any) -> tuple[str, int]:
    """``(name, bits)`` of an element type: ``"f16"`` -> ``("f16", 16)``; an int is a bit
    width, named ``i<bits>`` (at most :data:`MAX_ELEMENT_BITS`)."""
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        bits = int(dtype)
        if not 0 < bits <= MAX_ELEMENT_BITS:
            raise LayoutError(f"element type: bit width must be 1 to {MAX_ELEMENT_BITS} (one 16-byte access), "
                              f"got {quote(dtype)}")
        return f"i{bits}", bits
    if isinstance(dtype, np.dtype) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
        dtype = _mlir_name(np.dtype(dtype))
    if isinstance(dtype, str):
        name = dtype.strip()
        bits = element_bits(name)
        if bits > MAX_ELEMENT_BITS:
            raise LayoutError(f"element type: bit width must be 1 to {MAX_ELEMENT_BITS} (one 16-byte access), "
                              f"got {quote(name)}")
        return name, bits
    raise LayoutError(f"element type: expected a name like 'f16' or a numpy dtype like np.float16, got {quote(repr(dtype))}")


#: numpy (and ml_dtypes) float names -> MLIR's
_NUMPY_FLOATS = {
    "float16": "f16", "float32": "f32", "float64": "f64", "bfloat16": "bf16",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3fnuz": "f8E4M3FNUZ",
    "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ", "float8_e4m3": "f8E4M3",
    "float8_e3m4": "f8E3M4", "float8_e8m0fnu": "f8E8M0FNU", "float6_e2m3fn": "f6E2M3FN",
    "float6_e3m2fn": "f6E3M2FN", "float4_e2m1fn": "f4E2M1FN",
}


def _mlir_name(dtype: np.dtype) -> str:
    """MLIR's name of a numpy dtype: ``np.float16`` -> ``f16``, ``np.int8`` -> ``i8``,
    ``np.uint16`` -> ``ui16``, ``np.bool_`` -> ``i1``, ml_dtypes' ``bfloat16`` -> ``bf16``."""
    if dtype.name in _NUMPY_FLOATS:
        return _NUMPY_FLOATS[dtype.name]
    if dtype.kind == "b":
        return "i1"
    if m := re.fullmatch(r"(u?)int(\d+)", dtype.name):  # numpy's int8 ... uint64, ml_dtypes' int4, uint2
        return ("ui" if m.group(1) else "i") + m.group(2)
    raise LayoutError(f"element type: the numpy dtype {quote(dtype.name)} has no MLIR element type layoutkit knows "
                      f"(known: {', '.join(_NUMPY_FLOATS)}, bool, intN, uintN)")


def element_bytes(dtype: Any) -> int:
    """Bytes one element occupies in memory: ``"f16"`` -> 2; an int is a bit width.
    Sub-byte types (``i1``, ``f4E2M1FN``) take one byte each."""
    return max(1, -(-element_type(dtype)[1] // 8))


@dataclass(frozen=True, eq=False)
class HardwareMap:
    """``elements[block, warp, lane, register]``: flat tensor index held by each slot."""

    elements: np.ndarray
    shape: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.elements.ndim != 4:
            raise LayoutError("hardware map: expected an array indexed [block, warp, lane, register]")
        if self.elements.size and (self.elements.min() < 0 or self.elements.max() >= self.numel):
            raise LayoutError(f"layout: holds coordinates outside the tensor shape {quote(self.shape)}")

    @property
    def registers(self) -> int:
        """Registers per thread (the last axis)."""
        return self.elements.shape[3]

    @property
    def numel(self) -> int:
        """Tensor elements."""
        return math.prod(self.shape)

    @cached_property
    def duplication(self) -> float:
        """Hardware slots per tensor element (1.0 when nothing is broadcast)."""
        return self.elements.size / self.numel


def hardware_map(layout: Any, shape: Any, field: str = "layout") -> HardwareMap:
    """Tabulate a distributed layout on ``shape``; LayoutError for memory layouts and layouts
    whose hardware dims are not register / lane / warp / block."""
    tensor_shape = check_shape(shape)
    if not hasattr(layout, "hardware_dims") or not hasattr(layout, "table"):
        raise LayoutError(f"{field}: expected a layout, got {quote(repr(layout))}")
    if getattr(layout, "kind", "distributed") == "memory":
        raise LayoutError(f"{field}: {quote(layout)} is a memory layout, not a distributed layout")
    check_tabulated(math.prod(tensor_shape), "shape", tensor_shape, "elements")
    hw = layout.hardware_dims(tensor_shape)
    check_tabulated(math.prod(hw.values()), field, layout, "hardware slots")
    unknown = [name for name in hw if name not in DISTRIBUTED_DIMS]
    if unknown:
        raise LayoutError(
            f"{field}: {quote(layout)} has hardware dims {quote(list(hw))}; a distributed layout "
            f"has only {', '.join(DISTRIBUTED_DIMS)}")
    table = np.asarray(layout.table(tensor_shape), dtype=np.int64)
    if table.shape[-1] != len(tensor_shape):
        raise LayoutError(f"{field}: {quote(layout)} has rank {table.shape[-1]}, the tensor {len(tensor_shape)}")
    names = list(hw)
    # axes -> (block, warp, lane, register), inserting size-1 axes for missing dims
    table = table.reshape([hw[n] for n in names] + [len(tensor_shape)])
    order = [names.index(n) for n in AXES if n in hw]
    table = np.transpose(table, order + [table.ndim - 1])
    table = table.reshape([hw.get(n, 1) for n in AXES] + [len(tensor_shape)])
    coords = np.moveaxis(table, -1, 0)
    bounds = np.asarray(tensor_shape).reshape((-1,) + (1,) * 4)
    if ((coords < 0) | (coords >= bounds)).any():
        raise LayoutError(f"{field}: {quote(layout)} holds coordinates outside the tensor shape {quote(tensor_shape)}")
    flat = np.ravel_multi_index(tuple(coords), tensor_shape)
    return HardwareMap(np.ascontiguousarray(flat, dtype=np.int64), tensor_shape)
