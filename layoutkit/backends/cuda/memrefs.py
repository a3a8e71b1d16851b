"""Memrefs as C sees them: a kernel argument is a pointer to its first element, an access
is linearized with the memref's strides; a workgroup allocation is a ``__shared__`` array.

How an index is formed: for ``%a : memref<64x32xf32>`` (strides 32, 1)::

    %x = memref.load %a[%i, %j] : memref<64x32xf32>     ->   const float x = a[i * 32 + j];
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from layoutkit.backends.cuda.c_text import paren
from layoutkit.backends.types import Scalar, scalar_type
from layoutkit.errors import LayoutError, quote


@dataclass(frozen=True)
class MemrefInfo:
    """A memref type's facts as C sees them: shape and strides (in elements) as numbers or, for
    dynamic sizes of a kernel argument, the names of the ``int`` parameters that carry them."""

    element: Scalar
    shape: tuple[int | str, ...]
    strides: tuple[int | str, ...]
    offset: int | None  # None: dynamic (held in the view's base pointer)
    space: str  # "global", "workgroup" or "private"
    identity: bool

    @property
    def dynamic_sizes(self) -> list[str]:
        return [d for d in self.shape if isinstance(d, str)]


def _product(factors: list[int | str]) -> int | str:
    """The product of sizes, folded: ``[4, "n", 2] -> "n * 8"``."""
    number = math.prod(f for f in factors if isinstance(f, int))
    names = [f for f in factors if isinstance(f, str)]
    if not names:
        return number
    return " * ".join(names + ([str(number)] if number != 1 else []))


def _memory_space(memref_type: Any) -> str:
    space = getattr(memref_type, "memory_space", None)
    text = "" if space is None else str(space)
    if "workgroup" in text or text.strip() in ("3", "3 : i64", "3 : i32"):
        return "workgroup"
    if "private" in text or text.strip() in ("5", "5 : i64", "5 : i32"):
        return "private"
    return "global"


def memref_info(memref_type: Any, what: str, size_prefix: str | None = None) -> MemrefInfo:
    """The C view of a memref type. Dynamic sizes (``?``) are allowed for kernel arguments:
    size ``k`` of argument ``a`` becomes the ``int`` parameter ``a_size{k}``."""
    if type(memref_type).__name__ != "MemRefType":
        raise LayoutError(f"{what}: expected a memref type, got {quote(memref_type)}")
    raw = [int(d) for d in memref_type.get_shape()]
    if any(d < 0 for d in raw) and size_prefix is None:
        raise LayoutError(
            f"{what}: the CUDA backend needs static sizes here (dynamic sizes only for kernel "
            f"arguments), got {quote(memref_type)}")
    shape: tuple[int | str, ...] = tuple(
        d if d >= 0 else f"{size_prefix}_size{k}" for k, d in enumerate(raw))
    element = scalar_type(memref_type.get_element_type())
    row_major = tuple(_product(list(shape[i + 1:])) for i in range(len(shape)))
    layout = getattr(memref_type, "layout", None)
    layout_name = type(layout).__name__
    if layout is None or layout_name in ("NoneAttr",) or str(layout) in ("", "#none"):
        return MemrefInfo(element, shape, row_major, 0, _memory_space(memref_type), True)
    if layout_name == "StridedLayoutAttr":
        strides = tuple(layout.get_strides())
        offset = layout.get_offset()
        if any(s is None for s in strides):
            raise LayoutError(f"{what}: the CUDA backend needs static strides, got {quote(memref_type)}")
        identity = tuple(strides) == row_major and offset == 0
        return MemrefInfo(element, shape, tuple(int(s) for s in strides),
                          None if offset is None else int(offset), _memory_space(memref_type), identity)
    raise LayoutError(f"{what}: the CUDA backend supports identity and strided memref layouts, got {quote(memref_type)}")


@dataclass
class View:
    """How a memref value is reached from C: a base array or pointer and its strides."""

    base: str
    info: MemrefInfo
    multi_dim: bool  # base is a C multi-dimensional array, indexed base[i][j]
    offset: str = ""  # extra linear offset expression added to every index

    def element(self, indices: list[str]) -> str:
        if self.multi_dim and not self.offset:
            return self.base + "".join(f"[{i}]" for i in indices) if indices else f"{self.base}[0]"
        terms = []
        for index, stride in zip(indices, self.info.strides):
            if index == "0" or stride == 0:
                continue
            if stride == 1 or index == "1":
                terms.append(index if stride == 1 else str(stride))
            elif index.isdigit() and isinstance(stride, int):
                terms.append(str(int(index) * stride))
            else:
                terms.append(f"{paren(index)} * {paren(str(stride))}")
        if self.info.offset:
            terms.append(str(self.info.offset))
        if self.offset:
            terms.append(self.offset)
        linear = " + ".join(terms) if terms else "0"
        base = f"(&{self.base}" + "[0]" * len(self.info.shape) + ")" if self.multi_dim else self.base
        return f"{base}[{linear}]"
