"""CuTe layouts as a layout family: ``parse_text`` and the thread-value layout.

CuTe's ``TiledMMA`` and ``TiledCopy`` describe who holds what with a *thread-value* (TV)
layout: a rank-2 CuTe layout whose mode 0 is the thread index and mode 1 the value index
within a thread, mapping ``(thread, value)`` to the **column-major** index of a tensor
element. The accumulator of ``SM80_16x8x8_F16F16F16F16_TN`` is::

    ((4,8),(2,2)):((32,1),(16,8)) over 16x8

Thread 5, value 3: thread 5 -> ``(1,1)`` -> 32 + 1, value 3 -> ``(1,1)`` -> 16 + 8, index
57 of the 16x8 tensor, i.e. row ``57 % 16 = 9``, column ``57 // 16 = 3``.

Text. ``parse_layout`` hands every text without a leading ``#`` to :func:`parse_text`:

- ``LAYOUT over 16x8`` (or ``parse_layout(LAYOUT, tensor_shape=(16, 8))``) gives a
  :class:`ThreadValueLayout`;
- a swizzled layout ``Sw<3,4,3> o 0 o (8,64):(64,1)`` with ``over 8x64`` (or option
  ``tensor_shape``) gives a :class:`SharedMemoryLayout`: the tensor element at coordinate
  ``c`` is stored at offset ``L(c)``, drawn and shown like Triton's shared layouts;
- any other CuTe text gives the algebra value: a :class:`~layoutkit.core.cute.Layout`
  (``(2,3):(3,1)``), a :class:`~layoutkit.core.cute.ComposedLayout`
  (``Sw<3,4,3> o 0 o (8,64):(64,1)``), a :class:`~layoutkit.core.cute.Swizzle` or a tiler.

Hardware dims (the common protocol's names): ``register`` = the value index, ``lane`` =
``thread % 32`` and ``warp = thread // 32`` -- CUDA's warp of 32 threads, so thread
``t = lane + 32 * warp``. A TV layout with fewer than 32 threads has ``lane`` of that size
and one warp; more than 32 threads must be a multiple of 32.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from math import prod
from typing import Any

import numpy as np

from layoutkit.core import cute
from layoutkit.core.indices import check_table_size, hardware_indices
from layoutkit.core.protocol import LayoutBase, check_shape, out_dim_names
from layoutkit.errors import LayoutError, quote

WARP_SIZE = 32
#: largest tensor a thread-value layout may index (offsets stay well inside int64)
MAX_ELEMENTS = 1 << 62

_OVER = re.compile(r"^(?P<layout>.*?)\s+over\s+(?P<shape>\S+)\s*$", re.DOTALL)


def parse_text(text: str, aliases: Any = None, **options: Any) -> Any:
    """CuTe text -> a :class:`ThreadValueLayout` (``... over MxN`` or option
    ``tensor_shape``), else the algebra value of :func:`layoutkit.core.cute.parse`."""
    if not isinstance(text, str):
        raise LayoutError(f"layout text: expected a string, got {quote(repr(text))}")
    text = text.strip()
    m = _OVER.match(text)
    shape = options.get("tensor_shape")
    if m is not None:
        shape = _parse_shape(m.group("shape"))
        text = m.group("layout")
    value = cute.parse(text)
    if shape is None:
        return value
    if isinstance(value, cute.ComposedLayout):
        return SharedMemoryLayout(value, shape)
    if not isinstance(value, cute.Layout):
        raise LayoutError(f"thread-value layout: expected a rank-2 'shape:stride' layout, got {quote(text)}")
    return ThreadValueLayout(value, shape)


def _parse_shape(text: str) -> tuple[int, ...]:
    if not re.fullmatch(r"[0-9]+(x[0-9]+)*", text):
        raise LayoutError(f"tensor shape: expected 'MxN' after 'over', got {quote(text)}")
    return check_shape(tuple(int(d) for d in text.split("x")), "tensor shape")


@dataclass(frozen=True)
class ThreadValueLayout(LayoutBase):
    """``(thread, value) -> column-major tensor index`` (CuTe's TV layout) over ``shape``.

    >>> tv = ThreadValueLayout(cute.Layout.parse("((4,8),(2,2)):((32,1),(16,8))"), (16, 8))
    >>> tv.hardware_dims()
    {'register': 4, 'lane': 32, 'warp': 1}
    >>> {k: int(v) for k, v in tv.apply(register=3, lane=5).items()}   # index 57 -> (9, 3)
    {'dim0': 9, 'dim1': 3}
    """

    layout: cute.Layout
    shape: tuple[int, ...]

    kind = "distributed"

    def __post_init__(self) -> None:
        layout = self.layout
        if isinstance(layout, str):
            layout = cute.Layout.parse(layout)
        if not isinstance(layout, cute.Layout):
            raise LayoutError(f"thread-value layout: expected a CuTe Layout, got {quote(repr(layout))}")
        if layout.rank != 2:
            raise LayoutError(
                f"thread-value layout: expected two modes (thread, value), got rank {layout.rank} in {quote(layout)}"
            )
        shape = check_shape(self.shape, "tensor shape")
        object.__setattr__(self, "layout", layout)
        object.__setattr__(self, "shape", shape)
        elements = prod(shape)
        if elements > MAX_ELEMENTS:
            raise LayoutError(
                f"tensor shape: {quote('x'.join(map(str, shape)))} has {elements} elements, "
                f"more than 2**{MAX_ELEMENTS.bit_length() - 1}"
            )
        if layout.min_offset < 0 or layout.max_offset >= elements:
            raise LayoutError(
                f"thread-value layout: {quote(layout)} reaches indices "
                f"[{layout.min_offset}, {layout.max_offset}] outside the {len(shape)}-d tensor "
                f"{quote('x'.join(map(str, shape)))} of {elements} elements"
            )
        threads = self.num_threads
        if threads > WARP_SIZE and threads % WARP_SIZE:
            raise LayoutError(
                f"thread-value layout: {threads} threads in {quote(layout)} is not a multiple of the warp size {WARP_SIZE}"
            )

    @classmethod
    def from_modes(cls, thread: Any, value: Any, shape: Any) -> ThreadValueLayout:
        """The TV layout ``(thread, value)`` from its two modes."""
        return cls(cute.make_layout(cute.as_layout(thread), cute.as_layout(value)), shape)

    @property
    def num_threads(self) -> int:
        return self.layout[0].size

    @property
    def num_values(self) -> int:
        return self.layout[1].size

    # -- protocol -------------------------------------------------------------------------
    def hardware_dims(self, shape: Any = None) -> dict[str, int]:
        self.tensor_shape(shape)
        threads = self.num_threads
        return {
            "register": self.num_values,
            "lane": min(threads, WARP_SIZE),
            "warp": max(1, threads // WARP_SIZE),
        }

    def tensor_shape(self, shape: Any = None) -> tuple[int, ...]:
        if shape is not None and check_shape(shape) != self.shape:
            raise LayoutError(f"shape: the layout covers {quote(self.shape)}, not {quote(tuple(shape))}")
        return self.shape

    def apply(self, shape: Any = None, **hw: Any) -> dict[str, Any]:
        """``{"dim0": ..., ...}`` for arrays of ``register``, ``lane``, ``warp`` (missing = 0)."""
        dims = self.hardware_dims(shape)
        values = hardware_indices(hw, dims)
        thread = values["lane"] + dims["lane"] * values["warp"]
        index = self.layout.evaluate(thread + self.num_threads * values["register"])
        coords = {}
        for name, extent in zip(out_dim_names(len(self.shape)), self.shape):
            coords[name] = index % extent
            index = index // extent
        return coords

    def table(self, shape: Any = None) -> np.ndarray:
        """``table()[register, lane, warp]`` = the tensor coordinates (one numpy pass over
        the layout's offsets, which are in ``thread + threads * value`` order)."""
        dims = self.hardware_dims(shape)
        check_table_size(dims, self)
        index = self.layout.all_offsets().reshape(dims["register"], dims["warp"], dims["lane"])
        index = index.transpose(0, 2, 1)
        out = np.empty(index.shape + (len(self.shape),), dtype=np.int64)
        for k, extent in enumerate(self.shape):
            if k == len(self.shape) - 1:
                out[..., k] = index
            else:
                index, out[..., k] = np.divmod(index, extent)
        return out

    def to_linear_layout(self, shape: Any = None):
        """The :class:`~layoutkit.core.linear.LinearLayout` (in dims register, lane, warp),
        when every size is a power of two and the map is linear over F2."""
        return _checked_linear_layout(self, self.hardware_dims(shape))

    @cached_property
    def _text(self) -> str:
        return f"{self.layout} over {'x'.join(map(str, self.shape))}"

    def __str__(self) -> str:
        return self._text


def _checked_linear_layout(layout: Any, dims: dict[str, int]):
    """The :class:`~layoutkit.core.linear.LinearLayout` whose bases are ``layout``'s images
    of each hardware bit, when every size is a power of two and it equals ``layout`` on every
    hardware index; else a LayoutError naming the size or the first index that differs."""
    from layoutkit.core.linear import LinearLayout

    shape = layout.tensor_shape()
    for name, size in [*dims.items(), *zip(out_dim_names(len(shape)), shape)]:
        if size & (size - 1):
            raise LayoutError(f"to_linear_layout: {name} has size {size}, not a power of two, in {quote(layout)}")
    bases = {}
    for name, size in dims.items():
        rows = []
        for bit in range(size.bit_length() - 1):
            coords = layout.apply(**{name: 1 << bit})
            rows.append([int(c) for c in coords.values()])
        bases[name] = rows
    linear = LinearLayout(bases, dict(zip(out_dim_names(len(shape)), shape)))
    mine, theirs = layout.table(), linear.table()
    if not np.array_equal(mine, theirs):
        where = tuple(int(i) for i in np.argwhere(np.any(mine != theirs, axis=-1))[0])
        at = ", ".join(f"{n}={i}" for n, i in zip(dims, where))
        raise LayoutError(
            f"to_linear_layout: {quote(layout)} is not linear over F2: at {at} it gives "
            f"{quote(mine[where].tolist())}, the XOR of its bases gives {quote(theirs[where].tolist())}"
        )
    return linear


@dataclass(frozen=True)
class SharedMemoryLayout(LayoutBase):
    """A CuTe layout read as shared memory: the tensor element at coordinate ``c`` is stored
    at offset ``L(c)`` -- CuTe's smem layouts, e.g. the 128-byte swizzle of f16 tiles
    ``Sw<3,4,3> o 0 o (8,64):(64,1)``. The tensor's dims are the layout's top modes (a nested
    mode is one dim, its coordinate the mode's column-major index); the hardware dim is
    ``offset`` (Triton's name for shared layouts), of size ``cosize``; offsets no element
    uses map to ``-1``, as padding does.

    ``Sw<B,M,S>`` XORs the bits ``[M+S, M+S+B)`` of an offset into the bits ``[M, M+B)``:
    with ``Sw<3,4,3>`` element ``(2, 0)`` is at ``2 * 64 = 128 = 0b0010000000`` whose bit 7
    flips bit 4, so it is stored at offset 144.

    >>> smem = SharedMemoryLayout(cute.parse("Sw<3,4,3> o 0 o (8,64):(64,1)"), (8, 64))
    >>> smem.hardware_dims()
    {'offset': 512}
    >>> {k: int(v) for k, v in smem.apply(offset=144).items()}
    {'dim0': 2, 'dim1': 0}
    """

    layout: cute.ComposedLayout | cute.Layout
    shape: tuple[int, ...] | None = None

    kind = "memory"

    def __post_init__(self) -> None:
        layout = self.layout
        if isinstance(layout, str):
            layout = cute.parse(layout)
        if not isinstance(layout, (cute.ComposedLayout, cute.Layout)):
            raise LayoutError(f"shared memory layout: expected a CuTe layout, got {quote(repr(layout))}")
        object.__setattr__(self, "layout", layout)
        modes = tuple(layout[i].size for i in range(layout.rank)) if layout.rank > 1 else (layout.size,)
        shape = check_shape(modes if self.shape is None else self.shape, "tensor shape")
        if shape != modes:
            raise LayoutError(
                f"tensor shape: {quote(layout)} covers a {quote('x'.join(map(str, modes)))} tensor, "
                f"not {quote('x'.join(map(str, shape)))}"
            )
        object.__setattr__(self, "shape", shape)
        offsets = self.offsets
        if offsets.size and offsets.min() < 0:
            raise LayoutError(f"shared memory layout: {quote(layout)} reaches the negative offset {int(offsets.min())}")
        if np.unique(offsets).size != offsets.size:
            raise LayoutError(f"shared memory layout: {quote(layout)} stores two elements at one offset (not injective)")

    @cached_property
    def offsets(self) -> np.ndarray:
        """``offsets[i]`` = the offset of the element of column-major index ``i``."""
        return np.asarray(self.layout.offsets, dtype=np.int64)

    @cached_property
    def _element_at(self) -> np.ndarray:
        """The column-major element index stored at each offset, -1 where none is."""
        at = np.full(int(self.offsets.max()) + 1 if self.offsets.size else 0, -1, dtype=np.int64)
        at[self.offsets] = np.arange(self.offsets.size)
        return at

    def hardware_dims(self, shape: Any = None) -> dict[str, int]:
        self.tensor_shape(shape)
        return {"offset": int(self._element_at.size)}

    def tensor_shape(self, shape: Any = None) -> tuple[int, ...]:
        if shape is not None and check_shape(shape) != self.shape:
            raise LayoutError(f"shape: the layout covers {quote(self.shape)}, not {quote(tuple(shape))}")
        return self.shape  # type: ignore[return-value]

    def apply(self, shape: Any = None, **hw: Any) -> dict[str, Any]:
        """``{"dim0": ..., ...}`` of the element at each ``offset`` (-1 where none is)."""
        dims = self.hardware_dims(shape)
        index = self._element_at[hardware_indices(hw, dims)["offset"]]
        coords = {}
        for name, extent in zip(out_dim_names(len(self.shape)), self.shape):
            coords[name] = np.where(index >= 0, index % extent, -1)
            index = np.where(index >= 0, index // extent, -1)
        return coords

    def to_linear_layout(self, shape: Any = None):
        """Triton's shared linear layout (in dim ``offset``) when the layout fills its
        offsets, every size is a power of two and the map is linear over F2 (swizzles are)."""
        dims = self.hardware_dims(shape)
        if dims["offset"] != self.offsets.size:
            raise LayoutError(f"to_linear_layout: {quote(self)} leaves offsets unused, no linear layout has holes")
        return _checked_linear_layout(self, dims)

    def __str__(self) -> str:
        return f"{self.layout} over {'x'.join(map(str, self.shape))}"

    def __repr__(self) -> str:
        return f"SharedMemoryLayout({str(self)!r})"
