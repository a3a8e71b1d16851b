"""CuTe's shape:stride layout algebra, checked.

A CuTe layout is a function from a coordinate to an integer offset. Its *shape* and
*stride* are congruent nested tuples of integers; ``(2,3):(1,2)`` maps coordinate ``(i, j)``
to ``i*1 + j*2``. A plain index ``k`` is first split into a coordinate column-major
(colexicographically), leftmost mode fastest:

    >>> L = Layout.parse("((2,3),(5,4)):((5,10),(1,30))")
    >>> L(7)            # 7 -> ((1,0),(1,0)) -> 5 + 1
    6
    >>> L(((1, 0), (1, 0))), L((1, 1))   # a hierarchical or a top-level coordinate
    (6, 6)

Coordinate ``(1, 1)`` above gives each top-level mode an index that is split again inside
it: mode ``(2,3):(5,10)`` takes index 1 -> ``(1,0)`` -> 5 and mode ``(5,4):(1,30)`` takes
index 1 -> ``(1,0)`` -> 1.

The operations follow CuTe's documentation (``01_layout.md``, ``02_layout_algebra.md``):
``coalesce``, ``filter``, ``composition`` (``R(i) == A(B(i))``), ``complement``,
``right_inverse`` / ``left_inverse``, the divides (``logical``, ``zipped``, ``tiled``,
``flat``) and products (``logical``, ``zipped``, ``tiled``, ``blocked``, ``raked``),
``Swizzle(bits, base, shift)`` and :class:`ComposedLayout` (``outer o offset o inner``).
Where CuTe's Python reference (pycute) silently returns a wrong layout, these functions
either return the right one or raise :class:`~layoutkit.errors.LayoutError`:

- ``composition((4,6):(1,8), 6:1)``: no layout of size 6 equals ``A(B(i))`` (the function
  is 0,1,2,3,8,9), so a LayoutError, where pycute returns the size-4 ``4:1``. When the
  stride-divisibility rule fails but a layout exists, it is found by fitting the function.
- ``complement`` of a layout whose modes overlap (not injective) or interleave: LayoutError.
- ``right_inverse`` skips stride-0 modes instead of stopping at them.

A *tiler* is a Layout, an int ``n`` (the layout ``n:1``), ``None`` (leave the mode), or a
tuple of tilers applied mode by mode, written ``<3:3, (2,4):(1,8)>`` in text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from layoutkit.core.indices import index_array
from layoutkit.errors import LayoutError, quote

IntTuple = int | tuple

# an error message that starts with the field it is about ("shape: ...")
_NAMES_A_FIELD = re.compile(r"^[\w .\[\]]+: ")
_MAX_DEPTH = 32  # nesting depth accepted from users (text or tuples)
_INT64_LIMIT = 1 << 62  # sizes and offsets must stay well inside int64 for numpy evaluation
_NEG_INT64_LIMIT = -_INT64_LIMIT
_FIT_LIMIT = 1 << 16  # largest composition mode fitted by enumeration
#: most offsets a layout is enumerated into (``offsets``, ``is_injective``, tables):
#: 2**24 int64 values are 128 MiB
MAX_ENUMERATED = 1 << 24


# ------------------------------------------------------------------------------------------
# integer tuples
# ------------------------------------------------------------------------------------------

def flatten(t: IntTuple) -> tuple[int, ...]:
    """The leaves of a nested tuple, left to right: ``flatten(((2,3),4)) == (2, 3, 4)``."""
    if isinstance(t, tuple):
        out: list[int] = []
        for x in t:
            if isinstance(x, tuple):
                out.extend(flatten(x))
            else:
                out.append(x)
        return tuple(out)
    return (t,)


def product(t: IntTuple) -> int:
    """The product of a nested tuple's leaves."""
    if isinstance(t, tuple):
        p = 1
        for x in t:
            p *= product(x) if isinstance(x, tuple) else x
        return p
    return t


def _format(t: IntTuple) -> str:
    if isinstance(t, tuple):
        return "(" + ",".join(_format(x) for x in t) + ")"
    return str(t)


def _congruent(a: IntTuple, b: IntTuple) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_congruent(x, y) for x, y in zip(a, b))
    return not isinstance(a, tuple) and not isinstance(b, tuple)


def _depth(t: IntTuple) -> int:
    return 1 + max((_depth(x) for x in t), default=0) if isinstance(t, tuple) else 0


def _compact_stride(shape: IntTuple, start: int = 1) -> tuple[IntTuple, int]:
    """Column-major strides for ``shape`` and the next stride: ``(2,(3,4))`` -> ``(1,(2,6))``."""
    if isinstance(shape, tuple):
        out = []
        for s in shape:
            d, start = _compact_stride(s, start)
            out.append(d)
        return tuple(out), start
    return start, start * shape


def _plain_pair(shape: Any, stride: Any, depth: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The leaves of ``shape`` and ``stride`` when both are congruent nested tuples of plain
    ints (shape leaves positive, every leaf below 2**62 in size), else None: the general
    checks then run and name what is wrong. ``((2,3),4)``, ``((1,2),8)`` -> ``(2,3,4), (1,2,8)``."""
    if shape.__class__ is int:
        if stride.__class__ is int and 0 < shape < _INT64_LIMIT and -_INT64_LIMIT < stride < _INT64_LIMIT:
            return (shape,), (stride,)
        return None
    if shape.__class__ is not tuple or stride.__class__ is not tuple or len(shape) != len(stride) or not shape:
        return None
    if depth > _MAX_DEPTH:
        return None
    shapes: list[int] = []
    strides: list[int] = []
    for s, d in zip(shape, stride):
        if s.__class__ is int and d.__class__ is int:
            if not (0 < s < _INT64_LIMIT and -_INT64_LIMIT < d < _INT64_LIMIT):
                return None
            shapes.append(s)
            strides.append(d)
            continue
        inner = _plain_pair(s, d, depth + 1)
        if inner is None:
            return None
        shapes.extend(inner[0])
        strides.extend(inner[1])
    return tuple(shapes), tuple(strides)


def _normalize(t: Any, field: str, positive: bool, depth: int = 0) -> IntTuple:
    """A user's nested int tuple (lists and numpy ints allowed) as nested tuples of int."""
    if depth > _MAX_DEPTH:
        raise LayoutError(f"{field}: nested deeper than {_MAX_DEPTH} levels")
    if isinstance(t, (tuple, list)):
        if not t:
            raise LayoutError(f"{field}: empty tuple in {quote(t)}")
        return tuple(_normalize(x, field, positive, depth + 1) for x in t)
    if isinstance(t, (int, np.integer)) and not isinstance(t, bool):
        v = int(t)
        if positive and v <= 0:
            raise LayoutError(f"{field}: extents must be positive integers, got {quote(v)}")
        if abs(v) >= _INT64_LIMIT:
            raise LayoutError(f"{field}: {quote(v)} is too large")
        return v
    raise LayoutError(f"{field}: expected an int or a tuple of ints, got {quote(repr(t))}")


# ------------------------------------------------------------------------------------------
# Layout
# ------------------------------------------------------------------------------------------

class _derived:
    """A value computed from a frozen layout on first use and kept in its ``__dict__`` (later
    reads are plain attribute reads); ``functools.cached_property`` without its lock, which
    costs more than the computations it guards here."""

    def __init__(self, compute: Any) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.compute(obj)
        return value


@dataclass(frozen=True)
class Layout:
    """A CuTe layout ``shape:stride``; ``Layout(shape)`` has column-major strides.

    >>> Layout((2, 3))
    Layout('(2,3):(1,2)')
    >>> Layout((2, 3), (3, 1))(1, 2)   # 1*3 + 2*1
    5
    """

    shape: IntTuple
    stride: IntTuple = None  # type: ignore[assignment]

    def __init__(self, shape: IntTuple, stride: IntTuple = None) -> None:  # type: ignore[assignment]
        """Written out (the dataclass keeps it) so that the common call -- flat tuples of plain
        ints -- is checked inline: positive extents, every leaf, the size and the offset span
        below 2**62. Anything else goes through :meth:`__post_init__`'s general checks."""
        fields = self.__dict__
        fields["shape"] = shape
        fields["stride"] = stride
        if shape.__class__ is tuple is stride.__class__ and len(shape) == 2 == len(stride):
            # the commonest call, unrolled (a loop over zip costs more than these checks);
            # positive extents whose product is below the limit are each below it
            s0, s1 = shape
            d0, d1 = stride
            if (s0.__class__ is s1.__class__ is d0.__class__ is d1.__class__ is int
                    and 0 < s0 and 0 < s1 and s0 * s1 < _INT64_LIMIT
                    and (s0 - 1) * (d0 if d0 > 0 else -d0) + (s1 - 1) * (d1 if d1 > 0 else -d1) < _INT64_LIMIT
                    and _NEG_INT64_LIMIT < d0 < _INT64_LIMIT and _NEG_INT64_LIMIT < d1 < _INT64_LIMIT):
                fields["flat_shape"] = shape
                fields["flat_stride"] = stride
                return
        elif shape.__class__ is tuple and stride.__class__ is tuple and len(shape) == len(stride) and shape:
            size, span = 1, 0
            for s, d in zip(shape, stride):
                if s.__class__ is not int or d.__class__ is not int or not 0 < s < _INT64_LIMIT or not (
                        -_INT64_LIMIT < d < _INT64_LIMIT):
                    break
                size *= s
                span += (s - 1) * (d if d > 0 else -d)
            else:
                if size < _INT64_LIMIT and span < _INT64_LIMIT:
                    fields["flat_shape"] = shape
                    fields["flat_stride"] = stride
                    return
        self.__post_init__()

    def __post_init__(self) -> None:
        if self.stride is not None:
            leaves = _plain_pair(self.shape, self.stride, 0)
            if leaves is not None:  # nested tuples of plain ints, congruent: checked in one pass
                shapes, strides = leaves
                size, top, bottom = 1, 0, 0
                for s, d in zip(shapes, strides):
                    size *= s
                    if d > 0:
                        top += (s - 1) * d
                    else:
                        bottom += (s - 1) * d
                if size < _INT64_LIMIT and top - bottom < _INT64_LIMIT:
                    self.__dict__["flat_shape"] = shapes
                    self.__dict__["flat_stride"] = strides
                    return
        shape = _normalize(self.shape, "shape", positive=True)
        stride = _compact_stride(shape)[0] if self.stride is None else _normalize(self.stride, "stride", positive=False)
        if not _congruent(shape, stride):
            raise LayoutError(
                f"stride: {quote(_format(stride))} does not have the nesting of shape {quote(_format(shape))}"
            )
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "stride", stride)
        if self.size >= _INT64_LIMIT or self.max_offset - self.min_offset >= _INT64_LIMIT:
            raise LayoutError(f"shape: layout {quote(self)} is too large to evaluate")

    @staticmethod
    def _make(shape: IntTuple, stride: IntTuple) -> Layout:
        """Internal constructor without validation (inputs already normalized)."""
        obj = object.__new__(Layout)
        obj.__dict__["shape"] = shape
        obj.__dict__["stride"] = stride
        return obj

    @classmethod
    def parse(cls, text: str) -> Layout:
        """``Layout.parse("(2,3):(3,1)")``; a shape alone (``"(2,3)"``) is column-major."""
        value = parse(text)
        if not isinstance(value, Layout):
            raise LayoutError(f"layout: expected 'shape:stride', got {quote(text)}")
        return value

    # -- structure ------------------------------------------------------------------------
    @_derived
    def size(self) -> int:
        """Number of coordinates: the product of the shape."""
        size = 1
        for s in self.flat_shape:
            size *= s
        return size

    @property
    def max_offset(self) -> int:
        return sum((s - 1) * d for s, d in zip(self.flat_shape, self.flat_stride) if d > 0)

    @property
    def min_offset(self) -> int:
        return sum((s - 1) * d for s, d in zip(self.flat_shape, self.flat_stride) if d < 0)

    @property
    def cosize(self) -> int:
        """Length of the codomain: ``max_offset - min_offset + 1``.

        For non-negative strides this is CuTe's ``L(size-1) + 1``; with negative strides the
        image reaches below 0 (``L(0) == 0`` always), e.g. ``4:-1`` covers -3..0, cosize 4.
        """
        spread = 1
        for s, d in zip(self.flat_shape, self.flat_stride):
            spread += (s - 1) * (d if d > 0 else -d)
        return spread

    @property
    def rank(self) -> int:
        """Number of top-level modes (1 for an int shape)."""
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    @property
    def depth(self) -> int:
        """Nesting depth of the shape: 0 for an int, 1 for a flat tuple, ..."""
        return _depth(self.shape)

    @_derived
    def flat_shape(self) -> tuple[int, ...]:
        shape = self.shape
        return flatten(shape) if shape.__class__ is tuple else (shape,)

    @_derived
    def flat_stride(self) -> tuple[int, ...]:
        stride = self.stride
        return flatten(stride) if stride.__class__ is tuple else (stride,)

    @_derived
    def coalesced_modes(self) -> tuple[list[int], list[int]]:
        """(shapes, strides) of the flat modes coalesced, kept (composition reads the left
        operand's on every call); callers must not modify the lists."""
        return _coalesce_flat(self.flat_shape, self.flat_stride)

    def __len__(self) -> int:
        return self.rank

    def __getitem__(self, i: int) -> Layout:
        """Mode ``i`` as a layout."""
        if not isinstance(self.shape, tuple):
            if i in (0, -1):
                return self
            raise LayoutError(f"mode: index {i} out of range for rank-1 layout {quote(self)}")
        try:
            return Layout._make(self.shape[i], self.stride[i])
        except (IndexError, TypeError):
            raise LayoutError(f"mode: index {quote(i)} out of range for {quote(self)}") from None

    def modes(self) -> tuple[Layout, ...]:
        """The top-level modes as layouts."""
        if self.shape.__class__ is tuple:
            return tuple(map(Layout._make, self.shape, self.stride))
        return (self,)

    # -- evaluation -----------------------------------------------------------------------
    def __call__(self, *coord: Any) -> int:
        """The offset of an index or a (hierarchical) coordinate; ``L(i, j) == L((i, j))``."""
        c = coord[0] if len(coord) == 1 else coord
        if c.__class__ is int and 0 <= c < self.size:  # a plain index: split column-major
            total = 0
            for s, d in zip(self.flat_shape, self.flat_stride):
                total += (c % s) * d
                c //= s
            return total
        return _crd2idx(c, self.shape, self.stride, self)

    def evaluate(self, indices: Any) -> np.ndarray:
        """Offsets of an array of indices, vectorized. As in CuTe's composition, indices past
        ``size`` continue along the last mode of size > 1 (the coalesced layout's last mode):
        ``(4,1):(1,7)`` maps index 4 to 4."""
        _check_evaluable(self)
        idx = index_array(indices, "indices")
        out = np.zeros(idx.shape, dtype=np.int64)
        modes = [(s, d) for s, d in zip(self.flat_shape, self.flat_stride) if s != 1]
        if not modes:
            return out
        shapes, strides = [m[0] for m in modes], [m[1] for m in modes]
        for s, d in zip(shapes[:-1], strides[:-1]):
            if d:
                out += (idx % s) * d
            idx = idx // s
        out += idx * strides[-1]
        return out

    @cached_property
    def offsets(self) -> np.ndarray:
        """All offsets in index order: ``offsets[i] == L(i)`` (read-only int64 array)."""
        out = self.all_offsets()
        out.flags.writeable = False
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``np.asarray(layout)`` is :attr:`offsets` (``L(i)`` for every index ``i``)."""
        return self.offsets if dtype is None else self.offsets.astype(dtype)

    def all_offsets(self) -> np.ndarray:
        """A new array of every offset in index order (an outer sum, one numpy op per mode);
        LayoutError past :data:`MAX_ENUMERATED` offsets."""
        _check_enumerable(self)
        out = np.zeros(1, dtype=np.int64)
        for s, d in zip(self.flat_shape, self.flat_stride):
            out = (np.arange(s, dtype=np.int64) * d)[:, None] + out[None, :]
            out = out.reshape(-1)
        return out

    def is_injective(self) -> bool:
        """No two indices share an offset: decided from the strides when the modes, sorted
        by stride, do not overlap (any size), else by enumerating the offsets."""
        shapes, strides = self.flat_shape, self.flat_stride
        if all(d != 0 or s == 1 for s, d in zip(shapes, strides)):
            if _non_overlapping(shapes, tuple(abs(d) for d in strides)):
                return True
        return bool(np.unique(self.offsets).size == self.size)

    def __str__(self) -> str:
        return f"{_format(self.shape)}:{_format(self.stride)}"

    def __repr__(self) -> str:  # CuTe's own text, as ``print(layout)`` shows it in C++
        return str(self)


def _check_evaluable(layout: Layout) -> None:
    """LayoutError when numpy's int64 cannot hold the layout's indices or offsets (an
    algebra result, e.g. a product of two huge layouts, can grow past them)."""
    if layout.size >= _INT64_LIMIT or max(layout.max_offset, -layout.min_offset) >= _INT64_LIMIT:
        raise LayoutError(f"shape: layout {quote(layout)} is too large to evaluate (past 2**62)")


def _check_enumerable(layout: Layout) -> None:
    """LayoutError when ``layout`` has more offsets than :data:`MAX_ENUMERATED`."""
    _check_evaluable(layout)
    if layout.size > MAX_ENUMERATED:
        raise LayoutError(
            f"size: {quote(layout)} has {layout.size} offsets, too many to enumerate "
            f"(at most {MAX_ENUMERATED} = 2**{MAX_ENUMERATED.bit_length() - 1})"
        )


def _crd2idx(coord: Any, shape: IntTuple, stride: IntTuple, text: Any) -> int:
    """``text``: the layout (or its text), printed only in an error message."""
    if coord.__class__ is int and shape.__class__ is int:
        if not 0 <= coord < shape:
            raise LayoutError(f"coordinate: index {coord} is outside [0, {shape}) of layout {quote(str(text))}")
        return coord * stride
    if isinstance(coord, (int, np.integer)) and not isinstance(coord, bool):
        c = int(coord)
        size = product(shape)
        if not 0 <= c < size:
            raise LayoutError(f"coordinate: index {c} is outside [0, {size}) of layout {quote(str(text))}")
        if not isinstance(shape, tuple):
            return c * stride
        total = 0
        for s, d in zip(flatten(shape), flatten(stride)):
            total += (c % s) * d
            c //= s
        return total
    if isinstance(coord, (tuple, list)) and isinstance(shape, tuple) and len(coord) == len(shape):
        return sum(_crd2idx(c, s, d, text) for c, s, d in zip(coord, shape, stride))
    raise LayoutError(f"coordinate: {quote(coord)} does not match the shape {quote(_format(shape))} of {quote(str(text))}")


def make_layout(*layouts: Layout) -> Layout:
    """The layout whose modes are ``layouts``: ``make_layout(2:1, 3:2) == (2,3):(1,2)``."""
    if len(layouts) == 1 and isinstance(layouts[0], (tuple, list)):
        layouts = tuple(layouts[0])
    return Layout._make(tuple([a.shape for a in layouts]), tuple([a.stride for a in layouts]))


def _layout_from_flat(shapes: list[int], strides: list[int]) -> Layout:
    if len(shapes) == 1:
        return Layout._make(shapes[0], strides[0])
    if not shapes:
        return Layout._make(1, 0)
    return Layout._make(tuple(shapes), tuple(strides))


def _append(layout: Layout, rank: int) -> Layout:
    """``layout`` padded with ``1:0`` modes to ``rank`` top-level modes."""
    modes = list(layout.modes()) if isinstance(layout.shape, tuple) else [layout]
    modes += [Layout._make(1, 0)] * (rank - len(modes))
    return make_layout(*modes)


# ------------------------------------------------------------------------------------------
# Swizzle and ComposedLayout
# ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Swizzle:
    """CuTe's ``Swizzle<bits, base, shift>``: XOR ``bits`` bits of the offset, taken
    ``shift`` places higher, into the bits starting at ``base``.

    With ``Sw<3,4,3>`` the mask ``yyy`` is bits 7..9 and ``zzz`` bits 4..6:
    ``f(x) = x ^ ((x >> 3) & 0b1110000)``; e.g. ``f(0b0010000000) == 0b0010010000``
    (128 -> 144).
    """

    bits: int
    base: int
    shift: int

    def __post_init__(self) -> None:
        for name in ("bits", "base", "shift"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                raise LayoutError(f"swizzle {name}: expected an int, got {quote(repr(v))}")
            object.__setattr__(self, name, int(v))
        if self.bits < 0 or self.base < 0:
            raise LayoutError(f"swizzle: bits and base must be >= 0, got {quote(self)}")
        if abs(self.shift) < self.bits:
            raise LayoutError(f"swizzle: |shift| must be >= bits so the masks do not overlap, got {quote(self)}")
        if self.bits + self.base + abs(self.shift) > 48:
            raise LayoutError(f"swizzle: too many bits in {quote(self)}")

    @property
    def yyy_mask(self) -> int:
        return ((1 << self.bits) - 1) << (self.base + max(0, self.shift))

    @property
    def zzz_mask(self) -> int:
        return ((1 << self.bits) - 1) << (self.base - min(0, self.shift))

    def __call__(self, offset: Any) -> Any:
        y = offset & self.yyy_mask
        return offset ^ ((y >> self.shift) if self.shift >= 0 else (y << -self.shift))

    evaluate = __call__

    @property
    def size(self) -> int:
        return 1 << (self.bits + self.base + abs(self.shift))

    def __str__(self) -> str:
        return f"Sw<{self.bits},{self.base},{self.shift}>"

    def __repr__(self) -> str:  # CuTe's own text, as ``print(layout)`` shows it in C++
        return str(self)


@dataclass(frozen=True)
class ComposedLayout:
    """``outer o offset o inner``: the function ``c -> outer(offset + inner(c))``.

    A swizzled shared-memory layout is ``Sw<3,3,3> o 0 o (8,64):(64,1)``; the algebra
    (composition, divides, products, coalesce) acts on ``inner`` and keeps ``outer``.
    """

    outer: Swizzle | Layout
    offset: int
    inner: Layout

    def __post_init__(self) -> None:
        if not isinstance(self.outer, (Swizzle, Layout)):
            raise LayoutError(f"composed layout outer: expected a Swizzle or a Layout, got {quote(repr(self.outer))}")
        if not isinstance(self.inner, Layout):
            raise LayoutError(f"composed layout inner: expected a Layout, got {quote(repr(self.inner))}")
        if not isinstance(self.offset, (int, np.integer)) or isinstance(self.offset, bool):
            raise LayoutError(f"composed layout offset: expected an int, got {quote(repr(self.offset))}")
        object.__setattr__(self, "offset", int(self.offset))

    @property
    def shape(self) -> IntTuple:
        return self.inner.shape

    @property
    def size(self) -> int:
        return self.inner.size

    @property
    def rank(self) -> int:
        return self.inner.rank

    @property
    def depth(self) -> int:
        return self.inner.depth

    @property
    def cosize(self) -> int:
        values = self.offsets
        return int(values.max() - min(0, values.min()) + 1)

    def __len__(self) -> int:
        return self.inner.rank

    def __getitem__(self, i: int) -> ComposedLayout:
        return ComposedLayout(self.outer, self.offset, self.inner[i])

    def __call__(self, *coord: Any) -> int:
        return int(self.outer(self.offset + self.inner(*coord)))

    def evaluate(self, indices: Any) -> np.ndarray:
        return np.asarray(self.outer.evaluate(self.offset + self.inner.evaluate(indices)))

    @cached_property
    def offsets(self) -> np.ndarray:
        out = np.asarray(self.outer.evaluate(self.offset + self.inner.offsets), dtype=np.int64)
        out.flags.writeable = False
        return out

    def is_injective(self) -> bool:
        return bool(np.unique(self.offsets).size == self.size)

    __array__ = Layout.__array__

    def __str__(self) -> str:
        return f"{self.outer} o {self.offset} o {self.inner}"

    def __repr__(self) -> str:  # CuTe's own text, as ``print(layout)`` shows it in C++
        return str(self)


AnyLayout = Layout | ComposedLayout


# ------------------------------------------------------------------------------------------
# coalesce, filter
# ------------------------------------------------------------------------------------------

def _coalesce_flat(shapes: Any, strides: Any) -> tuple[list[int], list[int]]:
    if len(shapes) == 1:
        return ([], []) if shapes[0] == 1 else ([shapes[0]], [strides[0]])
    out_s: list[int] = []
    out_d: list[int] = []
    for s, d in zip(shapes, strides):
        if s == 1:
            continue
        if out_s and out_s[-1] * out_d[-1] == d:
            out_s[-1] *= s
        else:
            out_s.append(s)
            out_d.append(d)
    return out_s, out_d


def _check_profile(profile: Any, op: str) -> None:
    """A profile is None or an int (the whole layout) or a tuple (mode by mode)."""
    if profile is None or isinstance(profile, tuple) or (
            isinstance(profile, (int, np.integer)) and not isinstance(profile, bool)):
        return
    raise LayoutError(f"{op} profile: expected None, an int or a tuple, got {quote(repr(profile))}")


def coalesce(layout: AnyLayout, profile: Any = None) -> AnyLayout:
    """The same function with as few modes as possible (flat); with a tuple ``profile``,
    mode by mode: ``coalesce((2,(1,6)):(1,(6,2))) == 12:1``."""
    layout = as_layout(layout)
    _check_profile(profile, "coalesce")
    if isinstance(layout, ComposedLayout):
        return ComposedLayout(layout.outer, layout.offset, coalesce(layout.inner, profile))
    if isinstance(profile, tuple):
        if len(profile) > layout.rank:
            raise LayoutError(f"coalesce profile: {quote(profile)} has more modes than {quote(layout)}")
        modes = [coalesce(layout[i], p) for i, p in enumerate(profile)]
        return make_layout(*modes, *layout.modes()[len(profile):])
    s, d = _coalesce_flat(layout.flat_shape, layout.flat_stride)
    if not s:
        return Layout._make(1, 0)
    return _layout_from_flat(s, d)


def filter(layout: AnyLayout, profile: Any = None) -> AnyLayout:  # noqa: A001 - CuTe's name
    """``layout`` without its stride-0 and size-1 modes, coalesced (``1:0`` if none left)."""
    layout = as_layout(layout)
    _check_profile(profile, "filter")
    if isinstance(layout, ComposedLayout):
        return ComposedLayout(layout.outer, layout.offset, filter(layout.inner, profile))
    if isinstance(profile, tuple):
        if len(profile) > layout.rank:
            raise LayoutError(f"filter profile: {quote(profile)} has more modes than {quote(layout)}")
        modes = [filter(layout[i], p) for i, p in enumerate(profile)]
        return make_layout(*modes, *layout.modes()[len(profile):])
    kept = [(s, d) for s, d in zip(layout.flat_shape, layout.flat_stride) if s != 1 and d != 0]
    s, d = _coalesce_flat(tuple(k[0] for k in kept), tuple(k[1] for k in kept))
    return _layout_from_flat(s, d) if s else Layout._make(1, 0)


# ------------------------------------------------------------------------------------------
# arguments
# ------------------------------------------------------------------------------------------

def as_layout(value: Any) -> AnyLayout:
    """A Layout or ComposedLayout from a layout, an int ``n`` (``n:1``) or text."""
    if value.__class__ is Layout or isinstance(value, (Layout, ComposedLayout)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return Layout(int(value))
    if isinstance(value, str):
        parsed = parse(value)
        if isinstance(parsed, (Layout, ComposedLayout)):
            return parsed
    raise LayoutError(f"layout: expected a Layout, an int or 'shape:stride' text, got {quote(repr(value))}")


def _as_tiler(value: Any) -> Any:
    """Layout | None | tuple of tilers (ints become ``n:1``, text is parsed)."""
    if value is None or value.__class__ is Layout:
        return value
    if value.__class__ is int and value > 0:
        return Layout._make(value, 1)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return Layout(int(value))
    if isinstance(value, str):
        parsed = parse(value)
        return _as_tiler(parsed)
    if isinstance(value, (tuple, list)) and value:
        return tuple([Layout._make(v, 1) if v.__class__ is int and v > 0 else _as_tiler(v) for v in value])
    raise LayoutError(f"tiler: expected a Layout, an int, None or a tuple of those, got {quote(repr(value))}")


def _as_block_tiler(value: Any) -> Layout:
    """The tiler of blocked/raked products: a Layout, a shape tuple (column-major), a tuple
    of layouts (its modes), an int or text."""
    if isinstance(value, Layout):
        return value
    if isinstance(value, (tuple, list)) and value:
        if all(isinstance(v, Layout) for v in value):
            return make_layout(*value)
        return Layout(tuple(value))
    if isinstance(value, str):
        parsed = parse(value)
        if isinstance(parsed, tuple) and all(isinstance(v, Layout) for v in parsed):
            return make_layout(*parsed)
        if isinstance(parsed, Layout):
            return parsed
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return Layout(int(value))
    raise LayoutError(f"tiler: expected a Layout or a shape, got {quote(repr(value))}")


def _check_rank(layout: AnyLayout, tiler: tuple, what: str) -> None:
    if len(tiler) > layout.rank:
        raise LayoutError(
            f"{what}: tiler {quote(_tiler_text(tiler))} has {len(tiler)} modes but layout "
            f"{quote(layout)} has rank {layout.rank}"
        )


def _tiler_text(tiler: tuple) -> str:
    return "<" + ", ".join("_" if t is None else str(t) for t in tiler) + ">"


# ------------------------------------------------------------------------------------------
# composition
# ------------------------------------------------------------------------------------------

def composition(a: Any, b: Any) -> Any:
    """``R = a o b``: ``R(c) == a(b(c))`` for every coordinate ``c`` of ``b``; ``R`` has
    ``b``'s shape (each mode possibly split). ``b`` may be a tiler, applied mode by mode.

    >>> str(composition(Layout.parse("(6,2):(8,2)"), Layout.parse("(4,3):(3,1)")))
    '((2,2),3):((24,2),8)'
    """
    if a.__class__ is Layout and b.__class__ is tuple:
        fast = _by_mode_fast(a, b, divide=False)
        if fast is not None:
            return fast
    if a.__class__ is not Layout:
        if isinstance(a, Swizzle):
            return ComposedLayout(a, 0, as_layout(b))
        a = as_layout(a)
        if isinstance(a, ComposedLayout):
            return ComposedLayout(a.outer, a.offset, composition(a.inner, b))
    b = _as_tiler(b)
    if b is None:
        return a
    if b.__class__ is tuple:
        _check_rank(a, b, "composition")
        modes = a.modes()
        parts = [_compose(m, t.shape, t.stride) if t.__class__ is Layout else composition(m, t)
                 for m, t in zip(modes, b)]
        return make_layout(*parts, *modes[len(b):])
    return _compose(a, b.shape, b.stride)


def _by_mode_fast(a: Layout, tiler: tuple, divide: bool) -> Layout | None:
    """composition / logical_divide by a tuple tiler when every mode involved is one int
    mode (``128:128`` by ``32``): plain integer arithmetic, no intermediate layouts.
    None when the general path is needed."""
    shapes, strides = a.shape, a.stride
    if shapes.__class__ is not tuple or len(tiler) > len(shapes):
        return None
    shapes, strides = list(shapes), list(strides)
    for i, t in enumerate(tiler):
        if t.__class__ is int:
            ts, td = t, 1
        elif t.__class__ is Layout:
            ts, td = t.shape, t.stride
        else:
            return None
        a_s, a_d = shapes[i], strides[i]
        if a_s.__class__ is not int or ts.__class__ is not int or ts < 1 or td < 0:
            return None
        if a_s == 1:
            a_d = 0  # a size-1 mode is the constant 0
        if not divide:
            shapes[i], strides[i] = ts, (0 if ts == 1 else td * a_d)
            continue
        # logical_divide: (t, complement(t, a_s)) scaled by a's stride
        if ts == 1 or td == 0:
            rest = [(a_s, 1)]
        else:
            rest = [(td, 1)] if td != 1 else []
            rest.append((-(-a_s // (ts * td)), ts * td))
        rest = [r for r in rest if r[0] != 1]
        tile_d = 0 if ts == 1 else td * a_d
        if not rest:
            shapes[i], strides[i] = (ts, 1), (tile_d, 0)
        elif len(rest) == 1:
            shapes[i], strides[i] = (ts, rest[0][0]), (tile_d, rest[0][1] * a_d)
        else:
            shapes[i] = (ts, (rest[0][0], rest[1][0]))
            strides[i] = (tile_d, (rest[0][1] * a_d, rest[1][1] * a_d))
    return Layout._make(tuple(shapes), tuple(strides))


def _compose(a: Layout, b_shape: IntTuple, b_stride: IntTuple,
             a_flat: tuple[list[int], list[int]] | None = None) -> Layout:
    """``a o (b_shape:b_stride)`` for a Layout ``a``, checked; ``a_flat``: ``a``'s modes
    already coalesced, when the caller has them."""
    a_shapes, a_strides = a.coalesced_modes if a_flat is None else a_flat
    if len(a_shapes) <= 1 and _non_negative(b_stride):
        # a is i -> i*d on every index (its one mode extends): a o b scales b's strides
        factor = a_strides[0] if a_shapes else 0
        return Layout._make(b_shape, _scale(b_shape, b_stride, factor))
    digits = [0] * (len(a_shapes) + 1)
    shape, stride, exact = _compose_raw(a, a_shapes, a_strides, b_shape, b_stride, digits)
    result = Layout._make(shape, stride)
    if (b_shape.__class__ is tuple and not _carry_free(digits, a_shapes)
            and not (exact and _non_overlapping(flatten(b_shape), flatten(b_stride)))):
        _check_composition(a, Layout._make(b_shape, b_stride), result)
    return result


def _carry_free(digits: list[int], a_shapes: list[int]) -> bool:
    """Whether ``b``'s modes provably add up inside ``a`` (so ``a o b`` mode by mode is exact).

    ``a`` (coalesced) reads an offset ``x`` through its mixed-radix digits: digit ``k`` of
    ``x`` in the radices ``a_shapes`` (the last digit unbounded), ``a(x) = sum(digit_k *
    a_stride_k)``, so ``a(x + y) == a(x) + a(y)`` whenever adding the digits carries nowhere.
    Where CuTe's divisibility conditions hold, every value ``c * d`` of one mode of ``b`` has
    its digits in fixed ranges; ``digits[k]`` is the sum over ``b``'s modes of their largest
    digit ``k`` (``digits[-1]``: modes that were fitted, with no such ranges). When every sum
    stays below its radix, no coordinate of ``b`` can carry.

    Example: ``a = (128,128):(128,1)``, ``b = ((8,4),(2,2)):((1,8),(32,32))`` (two modes of
    stride 32: not injective): digit 0 takes at most ``7 + 24 + 32 + 32 = 95 < 128``, so the
    mode-by-mode result is ``a o b`` without evaluating it."""
    if digits[-1]:
        return False
    return all(digits[k] < a_shapes[k] for k in range(len(a_shapes) - 1))


def _compose_raw(a: Layout, a_shapes: list[int], a_strides: list[int], b_shape: IntTuple,
                 b_stride: IntTuple, digits: list[int]) -> tuple[IntTuple, IntTuple, bool]:
    """``a`` (coalesced to ``a_shapes:a_strides``) composed with each int mode of
    ``b_shape:b_stride``, keeping its nesting; the flag says whether only CuTe's exact
    divisibility steps were used (see :func:`_check_composition`). Adds each mode's largest
    digits to ``digits`` (see :func:`_carry_free`)."""
    if b_shape.__class__ is tuple:
        shapes, strides, exact = [], [], True
        for s, d in zip(b_shape, b_stride):
            rs, rd, ex = _compose_raw(a, a_shapes, a_strides, s, d, digits)
            shapes.append(rs)
            strides.append(rd)
            exact = exact and ex
        return tuple(shapes), tuple(strides), exact
    s, d = b_shape, b_stride
    if d == 0 or s == 1 or not a_shapes:
        return s, 0, True
    if d < 0:
        raise LayoutError(f"composition: right operand stride {d} is negative; {quote(a)} is only defined on indices >= 0")
    exact = True
    rest_shape, rest_stride = s, d
    out_s: list[int] = []
    out_d: list[int] = []
    last = len(a_shapes) - 1
    for k in range(last):
        a_s = a_shapes[k]
        if rest_stride % a_s == 0:
            rest_stride //= a_s
            continue
        if a_s % rest_stride == 0:
            s1 = a_s // rest_stride
            if rest_shape <= s1:
                out_s.append(rest_shape)
                out_d.append(rest_stride * a_strides[k])
                digits[k] += (rest_shape - 1) * rest_stride
                break
            if rest_shape % s1:
                fitted = _compose_by_fit(a, s, d)
                digits[-1] += 1
                return fitted.shape, fitted.stride, False
            out_s.append(s1)
            out_d.append(rest_stride * a_strides[k])
            digits[k] += (s1 - 1) * rest_stride
            rest_shape //= s1
            rest_stride = 1
            continue
        if (rest_shape - 1) * rest_stride < a_s:  # within this mode: exact values, no carry
            out_s.append(rest_shape)
            out_d.append(rest_stride * a_strides[k])
            digits[k] += (rest_shape - 1) * rest_stride
            exact = False
            break
        fitted = _compose_by_fit(a, s, d)
        digits[-1] += 1
        return fitted.shape, fitted.stride, False
    else:
        out_s.append(rest_shape)
        out_d.append(rest_stride * a_strides[last])
    if len(out_s) == 1:
        return out_s[0], out_d[0], exact
    cs, cd = _coalesce_flat(out_s, out_d)
    if len(cs) == 1:
        return cs[0], cd[0], exact
    return (tuple(cs), tuple(cd), exact) if cs else (1, 0, exact)


def _non_negative(stride: IntTuple) -> bool:
    if stride.__class__ is tuple:
        return all(_non_negative(d) for d in stride)
    return stride >= 0


def _scale(shape: IntTuple, stride: IntTuple, factor: int) -> IntTuple:
    """``stride * factor`` leaf by leaf (0 where the extent is 1, as composition gives)."""
    if shape.__class__ is tuple:
        return tuple([_scale(s, d, factor) for s, d in zip(shape, stride)])
    return 0 if shape == 1 else stride * factor


def _non_overlapping(shapes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Sorted by stride, each mode starts beyond the span of the smaller ones."""
    modes = sorted([(d, s) for s, d in zip(shapes, strides) if s != 1 and d != 0])
    return all(d2 >= s1 * d1 for (d1, s1), (d2, _) in zip(modes, modes[1:]))


def _check_composition(a: Layout, b: Layout, result: Layout) -> None:
    """Mode-by-mode composition is ``a o b`` only when ``a`` adds up over ``b``'s modes;
    CuTe's divisibility conditions with non-overlapping modes guarantee it (a sum of lower
    modes never carries into a higher one), otherwise compare with ``a(b(i))`` directly."""
    if b.size > MAX_ENUMERATED:
        raise LayoutError(
            f"composition: {quote(a)} o {quote(b)} cannot be checked: the modes of {quote(b)} may not "
            f"add up inside {quote(a)}, and its {b.size} indices are too many to compare one by one"
        )
    direct = a.evaluate(b.offsets)
    if not np.array_equal(result.offsets, direct):
        i = int(np.argmax(result.offsets != direct))
        raise LayoutError(
            f"composition: {quote(a)} o {quote(b)} is not a layout with the shape of {quote(b)}: "
            f"the modes of {quote(b)} do not add up inside {quote(a)} (at index {i}, a(b(i)) = "
            f"{int(direct[i])} but the sum over the modes gives {int(result.offsets[i])})"
        )


def _compose_by_fit(a: Layout, s: int, d: int) -> Layout:
    """When CuTe's divisibility conditions fail: the layout equal to ``i -> a(i*d)`` on
    ``[0, s)`` if one exists, else a LayoutError."""
    reason = (
        f"composition: {quote(a)} o {quote(f'{s}:{d}')} is not a layout (stride {d} and shape {s} "
        f"do not divide the modes of {quote(a)}"
    )
    if s > _FIT_LIMIT:
        raise LayoutError(reason + ")")
    values = a.evaluate(np.arange(s, dtype=np.int64) * d)
    fitted = fit_layout(values)
    if fitted is None:
        raise LayoutError(reason + f", and no layout of size {s} gives {quote(values[:12].tolist())})")
    return fitted


def fit_layout(values: Any) -> Layout | None:
    """A flat layout ``L`` with ``L(i) == values[i]`` for every ``i``, or None if there is none.

    >>> str(fit_layout([0, 1, 8, 9, 16, 17]))
    '(2,3):(1,8)'
    """
    v = np.asarray(values, dtype=np.int64).reshape(-1)
    if v.size == 0 or v[0] != 0:
        return None
    found = _fit(v)
    if found is None:
        return None
    s, d = _coalesce_flat(tuple(found[0]), tuple(found[1]))
    return _layout_from_flat(s, d) if s else Layout._make(v.size, 0)


def _fit(v: np.ndarray) -> tuple[list[int], list[int]] | None:
    n = v.size
    if n == 1:
        return [], []
    step = int(v[1])
    ramp = np.arange(n, dtype=np.int64) * step
    run = int(np.argmin(v == ramp)) if not np.array_equal(v, ramp) else n
    for s1 in range(min(run, n), 1, -1):
        if n % s1:
            continue
        block = v.reshape(n // s1, s1)
        if np.array_equal(block, block[:, :1] + ramp[:s1]):
            rest = _fit(block[:, 0])
            if rest is not None:
                return [s1, *rest[0]], [step, *rest[1]]
    return None


# ------------------------------------------------------------------------------------------
# complement, inverses
# ------------------------------------------------------------------------------------------

def complement(layout: Any, cotarget: Any = None) -> Layout:
    """The ordered layout ``R`` filling the gaps of ``layout``'s image up to ``cotarget``
    (default: its cosize): ``(layout, R)`` is injective, ``R`` is increasing, and
    ``size(layout) * size(R) >= cotarget``.

    >>> str(complement(Layout.parse("(2,2):(1,6)"), 24))
    '(3,2):(2,12)'
    """
    if layout.__class__ is Layout and cotarget.__class__ is int and cotarget > 0:  # the common call
        return _layout_from_flat(*_complement_flat(layout, cotarget))
    layout = as_layout(layout)
    if isinstance(layout, ComposedLayout):
        raise LayoutError(f"complement: not defined for the composed (swizzled) layout {quote(layout)}")
    if cotarget is None:
        cotarget = layout.cosize
    elif isinstance(cotarget, (tuple, list)):
        cotarget = product(_normalize(cotarget, "complement cotarget", positive=True))
    elif not isinstance(cotarget, (int, np.integer)) or isinstance(cotarget, bool) or cotarget < 1:
        raise LayoutError(f"complement cotarget: expected a positive int, got {quote(repr(cotarget))}")
    shape, stride = _complement_raw(layout, int(cotarget))
    return Layout._make(shape, stride)


def _complement_raw(layout: Layout, cotarget: int) -> tuple[IntTuple, IntTuple]:
    cs, cd = _complement_flat(layout, cotarget)
    if len(cs) == 1:
        return cs[0], cd[0]
    return (tuple(cs), tuple(cd)) if cs else (1, 0)


def _complement_flat(layout: Layout, cotarget: int) -> tuple[list[int], list[int]]:
    """The complement's flat modes, coalesced (empty for ``1:0``): the gaps between
    ``layout``'s modes sorted by stride, then one mode up to ``cotarget``.
    ``(2,2):(1,6)`` up to 24: gap ``3:2`` below stride 6, then ``2:12``."""
    modes = sorted([(d, s) for s, d in zip(layout.flat_shape, layout.flat_stride) if s != 1 and d != 0])
    if modes and modes[0][0] < 0:
        raise LayoutError(f"complement: {quote(layout)} has a negative stride")
    current = 1
    out_s: list[int] = []
    out_d: list[int] = []
    for d, s in modes:
        if d % current:
            injective = layout.size <= _FIT_LIMIT and layout.is_injective()
            kind = "interleave" if injective else "overlap (the layout is not injective)"
            raise LayoutError(
                f"complement: the modes of {quote(layout)} {kind}: stride {d} is not a multiple of "
                f"{current}, the extent of the modes with smaller strides"
            )
        if d != current:
            out_s.append(d // current)
            out_d.append(current)
        current = s * d
    last = -(-cotarget // current)
    if last != 1:
        out_s.append(last)
        out_d.append(current)
    # already coalesced: a gap d // current > 1 (d a multiple of current) ends at d, below the
    # next stride, which is at least s * d with s > 1
    return out_s, out_d


def right_inverse(layout: Any) -> Layout:
    """The largest ``R`` found with ``layout(R(i)) == i`` for ``i`` in ``[0, size(R))``;
    stride-0 and negative-stride modes are skipped (pycute stops at a stride-0 mode).

    >>> str(right_inverse(Layout.parse("(2,4):(0,1)")))
    '4:2'
    """
    if layout.__class__ is not Layout:
        layout = as_layout(layout)
        if isinstance(layout, ComposedLayout):
            raise LayoutError(f"right_inverse: not defined for the composed (swizzled) layout {quote(layout)}")
    cs, cd = _right_inverse_flat(layout.flat_shape, layout.flat_stride)
    return _layout_from_flat(cs, cd)


def _right_inverse_flat(shapes: Any, strides: Any) -> tuple[list[int], list[int]]:
    """The right inverse's flat modes, coalesced. Each positive-stride mode, sorted by
    stride, continues the offsets reached so far when its stride is their extent; it then
    contributes its size with its domain stride (the product of the sizes before it):
    ``(4,2):(2,1)`` -> ``2:4`` (offsets 0,1 come from mode 1) then ``4:1`` -> ``(2,4):(4,1)``."""
    modes = []
    r = 1
    for s, d in zip(shapes, strides):
        if s != 1 and d > 0:
            modes.append((d, -s, r))
        r *= s
    modes.sort()
    current = 1
    out_s: list[int] = []
    out_d: list[int] = []
    for d, neg_s, r in modes:
        if d != current:
            if d < current:
                continue  # a duplicate of offsets already reached
            break
        out_s.append(-neg_s)
        out_d.append(r)
        current = -neg_s * d
    return _coalesce_flat(out_s, out_d)


def left_inverse(layout: Any) -> Layout:
    """``R`` with ``R(layout(i)) == i`` for every index ``i``; ``layout`` must be injective.

    >>> str(left_inverse(Layout.parse("(2,3):(3,1)")))
    '(3,2):(2,1)'
    """
    if layout.__class__ is Layout:
        shapes, strides = layout.flat_shape, layout.flat_stride
        if _sorted_disjoint(shapes, strides):  # injective, its complement exists: no enumeration
            rest_s, rest_d = _complement_flat(layout, layout.cosize)
            return _layout_from_flat(*_right_inverse_flat(shapes + tuple(rest_s), strides + tuple(rest_d)))
    layout = as_layout(layout)
    if isinstance(layout, ComposedLayout):
        raise LayoutError(f"left_inverse: not defined for the composed (swizzled) layout {quote(layout)}")
    if not layout.is_injective():
        raise LayoutError(f"left_inverse: {quote(layout)} is not injective (two indices share an offset)")
    try:
        rest = complement(layout)
    except LayoutError as err:
        raise LayoutError(f"left_inverse: {err}") from None
    return right_inverse(make_layout(layout, rest))


def _sorted_disjoint(shapes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Every mode of size > 1 has a positive stride and, sorted by stride, each stride is a
    multiple of the extent of the modes below it: ``(4,2):(1,8)`` yes (8 = 4*1 * 2),
    ``(4,2):(1,2)`` no (overlap), ``(2,4):(0,1)`` no (stride 0)."""
    modes = []
    for s, d in zip(shapes, strides):
        if s != 1:
            if d <= 0:
                return False
            modes.append((d, s))
    modes.sort()
    current = 1
    for d, s in modes:
        if d % current:
            return False
        current = s * d
    return True


# ------------------------------------------------------------------------------------------
# divides
# ------------------------------------------------------------------------------------------

def logical_divide(layout: Any, tiler: Any) -> Any:
    """``layout o (tiler, complement(tiler, size(layout)))``: mode 0 indexes inside a tile,
    mode 1 across tiles. A tuple tiler divides mode by mode.

    >>> str(logical_divide(Layout.parse("(4,6):(6,1)"), (2, 3)))
    '((2,2),(3,2)):((6,12),(1,3))'
    """
    if layout.__class__ is Layout and tiler.__class__ is tuple:
        fast = _by_mode_fast(layout, tiler, divide=True)
        if fast is not None:
            return fast
    if layout.__class__ is not Layout:
        layout = as_layout(layout)
    tiler = _as_tiler(tiler)
    if layout.__class__ is ComposedLayout:
        return ComposedLayout(layout.outer, layout.offset, logical_divide(layout.inner, tiler))
    if tiler is None:
        return layout
    if tiler.__class__ is tuple:
        _check_rank(layout, tiler, "logical_divide")
        modes = layout.modes()
        parts = [_divide(m, t) if t.__class__ is Layout else logical_divide(m, t) for m, t in zip(modes, tiler)]
        return make_layout(*parts, *modes[len(tiler):])
    return _divide(layout, tiler)


def _divide(layout: Layout, tiler: Layout) -> Layout:
    rest_shape, rest_stride = _complement_raw(tiler, layout.size)
    return _compose(layout, (tiler.shape, rest_shape), (tiler.stride, rest_stride))


def _unzip(split: Any, layout: Any, tiler: Any) -> Any:
    """Gather ``split(layout_i, tiler_i)``'s two halves: ``((tiles...), (rests..., rest modes))``."""
    if isinstance(layout, ComposedLayout):
        return ComposedLayout(layout.outer, layout.offset, _unzip(split, layout.inner, tiler))
    if tiler is None:
        return make_layout(Layout._make(1, 0), layout)
    if isinstance(tiler, tuple):
        _check_rank(layout, tiler, split.__name__)
        modes = layout.modes()
        parts = [_unzip(split, modes[i], t) for i, t in enumerate(tiler)]
        return make_layout(
            make_layout(*[p[0] for p in parts]),
            make_layout(*[p[1] for p in parts], *modes[len(tiler):]),
        )
    return split(layout, tiler)


def zipped_divide(layout: Any, tiler: Any) -> Any:
    """``((tile modes...), (rest modes...))``: the tile as mode 0, all rests as mode 1.

    >>> str(zipped_divide(Layout.parse("(4,6):(6,1)"), (2, 3)))
    '((2,3),(2,2)):((6,1),(12,3))'
    """
    if layout.__class__ is Layout and tiler.__class__ is tuple:
        fast = _by_mode_fast(layout, tiler, divide=True)
        if fast is not None:  # each divided mode is (tile, rest): gather the two halves
            n = len(tiler)
            shapes, strides = fast.shape, fast.stride
            return Layout._make(
                (tuple([s[0] for s in shapes[:n]]), tuple([s[1] for s in shapes[:n]]) + shapes[n:]),
                (tuple([d[0] for d in strides[:n]]), tuple([d[1] for d in strides[:n]]) + strides[n:]))
    return _unzip(logical_divide, as_layout(layout), _as_tiler(tiler))


def tiled_divide(layout: Any, tiler: Any) -> Any:
    """``(tile, rest0, rest1, ...)``: zipped_divide with the rest mode unpacked."""
    return _unpack(zipped_divide(layout, tiler), unpack_tile=False)


def flat_divide(layout: Any, tiler: Any) -> Any:
    """``(tile0, tile1, ..., rest0, rest1, ...)``: zipped_divide with both modes unpacked."""
    return _unpack(zipped_divide(layout, tiler), unpack_tile=True)


def _unpack(result: Any, unpack_tile: bool) -> Any:
    if isinstance(result, ComposedLayout):
        return ComposedLayout(result.outer, result.offset, _unpack(result.inner, unpack_tile))
    tile, rest = result[0], result[1]
    tiles = list(tile.modes()) if unpack_tile else [tile]
    return make_layout(*tiles, *rest.modes())


# ------------------------------------------------------------------------------------------
# products
# ------------------------------------------------------------------------------------------

def logical_product(layout: Any, tiler: Any) -> Any:
    """``(layout, complement(layout, size(layout)*cosize(tiler)) o tiler)``: mode 0 is one
    copy of ``layout``, mode 1 places the copies as ``tiler`` says. Tuple tilers act by mode.

    >>> str(logical_product(Layout.parse("(2,2):(4,1)"), Layout.parse("6:1")))
    '((2,2),(2,3)):((4,1),(2,8))'
    """
    if layout.__class__ is Layout and tiler.__class__ is Layout:
        rest = _placement(layout, tiler)
        return Layout._make((layout.shape, rest.shape), (layout.stride, rest.stride))
    layout = as_layout(layout)
    tiler = _as_tiler(tiler)
    if isinstance(layout, ComposedLayout):
        return ComposedLayout(layout.outer, layout.offset, logical_product(layout.inner, tiler))
    if tiler is None:
        return layout
    if isinstance(tiler, tuple):
        _check_rank(layout, tiler, "logical_product")
        modes = layout.modes()
        return make_layout(*[logical_product(modes[i], t) for i, t in enumerate(tiler)], *modes[len(tiler):])
    return make_layout(layout, _placement(layout, tiler))


def _placement(layout: Layout, tiler: Layout) -> Layout:
    """Mode 1 of ``logical_product(layout, tiler)``: ``complement(layout, size(layout) *
    cosize(tiler)) o tiler``, the offsets where the copies of ``layout`` start."""
    if tiler.min_offset < 0:
        raise LayoutError(f"logical_product: tiler {quote(tiler)} has a negative stride")
    rest_s, rest_d = _complement_flat(layout, layout.size * tiler.cosize)
    return _compose(_layout_from_flat(rest_s, rest_d), tiler.shape, tiler.stride, (rest_s, rest_d))


def zipped_product(layout: Any, tiler: Any) -> Any:
    """``((layout modes...), (tiler-placement modes...))``."""
    if layout.__class__ is Layout and tiler.__class__ is Layout:  # one tiler: the logical product
        return logical_product(layout, tiler)
    return _unzip(logical_product, as_layout(layout), _as_tiler(tiler))


def tiled_product(layout: Any, tiler: Any) -> Any:
    """``(layout, rest0, rest1, ...)``: zipped_product with the rest mode unpacked."""
    if layout.__class__ is Layout and tiler.__class__ is Layout:
        rest = _placement(layout, tiler)
        if rest.shape.__class__ is tuple:
            return Layout._make((layout.shape, *rest.shape), (layout.stride, *rest.stride))
        return Layout._make((layout.shape, rest.shape), (layout.stride, rest.stride))
    return _unpack(zipped_product(layout, tiler), unpack_tile=False)


def flat_product(layout: Any, tiler: Any) -> Any:
    """``(layout0, layout1, ..., rest0, rest1, ...)``: zipped_product with both modes unpacked."""
    return _unpack(zipped_product(layout, tiler), unpack_tile=True)


def _zip_product(layout: Any, tiler: Any, block_first: bool) -> Any:
    layout = as_layout(layout)
    if isinstance(layout, ComposedLayout):
        return ComposedLayout(layout.outer, layout.offset, _zip_product(layout.inner, tiler, block_first))
    tiler = _as_block_tiler(tiler)
    rank = max(layout.rank, tiler.rank)
    a, b = _append(layout, rank), _append(tiler, rank)
    result = logical_product(a, b)
    blocks, places = result[0], result[1]
    pairs = [(blocks[i], places[i]) if block_first else (places[i], blocks[i]) for i in range(rank)]
    return make_layout(*[make_layout(x, y) for x, y in pairs])


def blocked_product(layout: Any, tiler: Any) -> Any:
    """Mode ``k`` is ``(layout_k, placement_k)``: copies of ``layout`` laid out as blocks.

    >>> str(blocked_product(Layout.parse("(2,5):(5,1)"), (3, 4)))
    '((2,3),(5,4)):((5,10),(1,30))'
    """
    return _zip_product(layout, tiler, block_first=True)


def raked_product(layout: Any, tiler: Any) -> Any:
    """Mode ``k`` is ``(placement_k, layout_k)``: copies of ``layout`` interleaved (raked)."""
    return _zip_product(layout, tiler, block_first=False)


# ------------------------------------------------------------------------------------------
# text
# ------------------------------------------------------------------------------------------

def parse(text: str) -> Any:
    """CuTe text -> a Layout, a ComposedLayout, a Swizzle or a tiler tuple.

    ``(2,3):(3,1)``; ``(2,3)`` (column-major); ``_8:_1`` (C++ static ints print with
    ``_``); ``Sw<3,4,3>``; ``Sw<3,4,3> o 0 o (8,64):(64,1)`` or ``Sw<3,4,3> o (8,64):(64,1)``;
    ``<3:3, (2,4):(1,8)>`` (a tiler; ``_`` leaves a mode).
    """
    from layoutkit.core.text import Cursor

    if not isinstance(text, str):
        raise LayoutError(f"layout text: expected a string, got {quote(repr(text))}")
    try:
        cur = Cursor(text)
        if cur.at_end():
            raise LayoutError("layout text: empty")
        value = _parse_top(cur)
        cur.expect_end()
    except LayoutError as err:
        if _NAMES_A_FIELD.match(str(err)):
            raise
        raise LayoutError(f"layout: {err}") from None
    return value


def parse_tiler(text: str) -> tuple:
    """``"<3:3, (2,4):(1,8)>"`` -> ``(Layout('3:3'), Layout('(2,4):(1,8)'))``."""
    value = parse(text)
    if not isinstance(value, tuple):
        raise LayoutError(f"tiler: expected '<layout, layout, ...>', got {quote(text)}")
    return value


def _parse_top(cur: Any) -> Any:
    if cur.at("<"):
        return _parse_tiler(cur)
    if cur.at("Sw"):
        swizzle = _parse_swizzle(cur)
        if not cur.accept("o"):
            return swizzle
        offset = 0
        if cur.peek.kind == "int" or _is_static_int(cur.peek):
            offset = _parse_int(cur)
            cur.expect("o", "between the offset and the inner layout")
        return ComposedLayout(swizzle, offset, _parse_layout(cur))
    return _parse_layout(cur)


def _parse_tiler(cur: Any) -> tuple:
    cur.expect("<")
    items = []
    while True:
        if cur.peek.text == "_":
            cur.next()
            items.append(None)
        else:
            items.append(_parse_layout(cur))
        if not cur.accept(","):
            break
    cur.expect(">", "to close the tiler")
    return tuple(items)


def _parse_swizzle(cur: Any) -> Swizzle:
    cur.expect("Sw")
    cur.expect("<")
    bits = _parse_int(cur)
    cur.expect(",")
    base = _parse_int(cur)
    cur.expect(",")
    shift = _parse_int(cur)
    cur.expect(">", "to close 'Sw<'")
    return Swizzle(bits, base, shift)


def _parse_layout(cur: Any) -> Layout:
    start = cur.peek
    shape = _parse_int_tuple(cur, 0)
    stride = _parse_int_tuple(cur, 0) if cur.accept(":") else None
    try:
        return Layout(shape, stride)
    except LayoutError as err:
        raise LayoutError(f"{err} in {quote(cur.text[start.pos:cur.peek.pos].strip() or cur.text)}") from None


def _is_static_int(tok: Any) -> bool:
    return tok.kind == "ident" and len(tok.text) > 1 and tok.text[0] == "_" and tok.text[1:].isdigit()


def _parse_int(cur: Any) -> int:
    tok = cur.peek
    if tok.kind == "int":
        cur.next()
        return int(tok.text)
    if _is_static_int(tok):
        cur.next()
        return int(tok.text[1:])
    cur.fail("expected an integer")
    raise AssertionError  # unreachable


def _parse_int_tuple(cur: Any, depth: int) -> IntTuple:
    if depth > _MAX_DEPTH:
        cur.fail(f"nested deeper than {_MAX_DEPTH} levels")
    if cur.accept("("):
        items = [_parse_int_tuple(cur, depth + 1)]
        while cur.accept(","):
            items.append(_parse_int_tuple(cur, depth + 1))
        cur.expect(")", "to close a tuple")
        return tuple(items)
    return _parse_int(cur)


__all__ = [
    "ComposedLayout", "Layout", "Swizzle", "as_layout", "blocked_product", "coalesce",
    "complement", "composition", "filter", "fit_layout", "flat_divide", "flat_product", "flatten",
    "left_inverse", "logical_divide", "logical_product", "make_layout", "parse", "parse_tiler",
    "product", "raked_product", "right_inverse", "tiled_divide", "tiled_product",
    "zipped_divide", "zipped_product",
]
