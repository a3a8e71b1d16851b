"""Transform maps (rocMLIR's ``#rock.transform_map``) and chains of them.

A :class:`TransformMap` maps named *upper* dims (with sizes) to named *lower* dims (with
sizes) through a list of :class:`~layoutkit.core.coords.transforms.Transform`; every upper
dim feeds exactly one transform and every lower dim comes out of exactly one. rocMLIR
writes it as::

    #rock.transform_map<affine_map<(d0, d1, d2) -> (d0, d2, d1 floordiv 9, (d1 mod 9) floordiv 3, d1 mod 3)>
        by [<PassThrough ["gemmG"] at [0] -> ["g"] at [0]>,
            <Merge{2, 3, 3} ["gemmK"] at [1] -> ["c", "y", "x"] at [2, 3, 4]>,
            <PassThrough ["gemmM"] at [2] -> ["k"] at [1]>]
        bounds = [1, 18, 128] -> [1, 128, 2, 3, 3]>

rocMLIR never checks that the written ``affine_map`` agrees with the transforms; layoutkit
evaluates both and reports a disagreement as a :class:`~layoutkit.errors.LayoutError`.
``rocmlir-opt`` prints the map as an alias defined at the top of the file,
``#map = affine_map<...>`` and ``#rock.transform_map<#map by [...] ...>``:
:func:`affine_map_aliases` reads those definitions for :func:`parse_transform_map`.

A :class:`TransformChain` is a list of maps, upper first, each map's lower space being the
next one's upper space: ``chain.apply(x) == maps[-1].apply(*...maps[0].apply(*x))``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from layoutkit.core.bits import is_int
from layoutkit.core.coords import affine
from layoutkit.core.coords.transforms import Transform, _first_duplicate
from layoutkit.core.indices import check_table_size
from layoutkit.core.protocol import DISTRIBUTED_DIMS, LayoutBase, check_shape, out_dim_names
from layoutkit.core.text import Attribute, Cursor
from layoutkit.errors import LayoutError, quote

#: grids up to this many points are checked exhaustively; larger ones on a sample
_EXHAUSTIVE_POINTS = 1 << 16


def _sizes(values: Any, field: str) -> tuple[int, ...]:
    try:
        items = tuple(values)
    except TypeError:
        raise LayoutError(f"{field}: expected a list of positive integers, got {quote(values)}") from None
    for v in items:
        if not is_int(v) or v <= 0:
            raise LayoutError(f"{field}: sizes must be positive integers, got {quote(list(items))}")
        if v >= affine.MAX_VALUE:
            raise LayoutError(f"{field}: sizes must lie below 2**62, got {quote(list(items))}")
    return tuple(int(v) for v in items)


class _Mapping(LayoutBase):
    """The layout protocol of a map or a chain of maps from ``upper_names`` /
    ``upper_bounds`` to ``lower_bounds``: the upper dims are the input dims (by name), the
    lower dims the tensor dims ``dim0, dim1, ...``."""

    #: how the lower space is named in messages
    WHAT = "the transform map"

    @property
    def kind(self) -> str:  # type: ignore[override]
        """``"distributed"`` when the upper dims are hardware dims (register, lane, ...)."""
        names = self.upper_names
        return "distributed" if names and set(names) <= set(DISTRIBUTED_DIMS) else "memory"

    def hardware_dims(self, shape: Any = None) -> dict[str, int]:
        self.tensor_shape(shape)
        return dict(zip(self.upper_names, self.upper_bounds))

    def tensor_shape(self, shape: Any = None) -> tuple[int, ...]:
        lower = self.lower_bounds
        if shape is not None and check_shape(shape) != lower:
            raise LayoutError(f"shape: {self.WHAT}'s lower space is {list(lower)}, got {quote(list(shape))}")
        return lower

    def table(self, shape: Any = None) -> np.ndarray:
        """``table()[u0, u1, ...]`` = the lower coordinates of the upper point ``(u0, u1, ...)``."""
        self.tensor_shape(shape)
        check_table_size(dict(zip(self.upper_names, self.upper_bounds)), self)
        grids = np.indices(self.upper_bounds, dtype=np.int64)
        lower = self.apply(*list(grids))
        return np.stack([np.broadcast_to(np.asarray(v, dtype=np.int64), self.upper_bounds) for v in lower], axis=-1)

    def to_linear_layout(self, shape: Any = None):
        """The map as a LinearLayout (upper dims -> ``dim0, ...``) when it is linear over F2
        (power-of-two sizes, XOR of the images of single bits); else a LayoutError."""
        from layoutkit.core.linear import LinearLayout

        self.tensor_shape(shape)
        sizes = tuple(self.upper_bounds) + tuple(self.lower_bounds)
        if any(s & (s - 1) for s in sizes):
            raise LayoutError(f"transform map: not linear over F2: sizes {list(sizes)} are not all powers of two")
        bases: dict[str, list[list[int]]] = {}
        for d, (name, size) in enumerate(zip(self.upper_names, self.upper_bounds)):
            bases[name] = []
            for bit in range(size.bit_length() - 1):
                point = [0] * len(self.upper_bounds)
                point[d] = 1 << bit
                bases[name].append([int(v) for v in self.apply(*point)])
        out_dims = dict(zip(out_dim_names(len(self.lower_bounds)), self.lower_bounds))
        try:
            layout = LinearLayout(bases, out_dims)
        except LayoutError as err:
            raise LayoutError(f"transform map: not linear over F2 ({err})") from None
        grids = np.indices(self.upper_bounds, dtype=np.int64) if self.upper_bounds else []
        want = self.apply(*list(grids))
        got = layout.apply(**{n: g for n, g in zip(self.upper_names, grids)})
        for name, w in zip(out_dims, want):
            if not np.array_equal(np.broadcast_to(got[name], np.shape(w)), w):
                raise LayoutError(f"transform map: not linear over F2 (output {name} is not the XOR of its bit images)")
        return layout


def _named_inputs(mapping: Any, named: dict[str, Any]) -> list[Any]:
    unknown = [k for k in named if k not in mapping.upper_names]
    if unknown:
        raise LayoutError(f"apply: unknown upper dim {quote(unknown[0])} (upper dims: {', '.join(mapping.upper_names)})")
    return [named.get(n, 0) for n in mapping.upper_names]


@dataclass(frozen=True)
class TransformMap(_Mapping):
    """Upper dims -> lower dims through transforms; see the module docstring.

    As a layout (the protocol), the upper dims are the input dims (by name) and the lower
    dims are the tensor dims ``dim0, dim1, ...``.
    """

    transforms: tuple[Transform, ...]
    upper_bounds: tuple[int, ...]
    lower_bounds: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "transforms", tuple(self.transforms))
        if not all(isinstance(t, Transform) for t in self.transforms):
            raise LayoutError(f"transform_map: transforms must be Transform values, got {quote(self.transforms)}")
        object.__setattr__(self, "upper_bounds", _sizes(self.upper_bounds, "transform_map upper bounds"))
        object.__setattr__(self, "lower_bounds", _sizes(self.lower_bounds, "transform_map lower bounds"))
        self._check_coverage()
        for t in self.transforms:
            self._check_sizes(t)

    def _check_coverage(self) -> None:
        for side, bounds in (("upper", self.upper_bounds), ("lower", self.lower_bounds)):
            names: dict[int, str] = {}
            for t in self.transforms:
                for d, n in zip(getattr(t, f"{side}_dims"), getattr(t, f"{side}_names")):
                    if d >= len(bounds):
                        raise LayoutError(f"transform_map: {t} uses {side} dim {d} but there are {len(bounds)} {side} dims")
                    if d in names:
                        raise LayoutError(f"transform_map: {side} dim {d} ({quote(n)}) is defined twice (again by {t})")
                    names[d] = n
            missing = [d for d in range(len(bounds)) if d not in names]
            if missing:
                raise LayoutError(f"transform_map: {side} dim {missing[0]} is not covered by any transform")
            ordered = [names[d] for d in range(len(bounds))]
            if len(set(ordered)) != len(ordered):
                raise LayoutError(f"transform_map: {side} dim name {quote(_first_duplicate(ordered))} used twice")

    def _check_sizes(self, t: Transform) -> None:
        ub, lb, p = self.upper_bounds, self.lower_bounds, t.params

        def need(cond: bool, message: str) -> None:
            if not cond:
                raise LayoutError(f"transform_map: {t}: {message}")

        if t.kind in ("PassThrough", "Xor"):
            for u, low, name in zip(t.upper_dims, t.lower_dims, t.upper_names):
                need(ub[u] == lb[low], f"upper dim {quote(name)} has size {ub[u]} but its lower dim has size {lb[low]}")
        if t.kind == "Xor":
            width = 1 << p[0].bit_length()
            need(lb[t.lower_dims[0]] % width == 0,
                 f"size {lb[t.lower_dims[0]]} of {quote(t.lower_names[0])} must be a multiple of {width} so that xor with mask {p[0]} stays in bounds")
        elif t.kind == "Pad":
            for (left, right), u, low, name in zip(t.pairs(), t.upper_dims, t.lower_dims, t.upper_names):
                need(ub[u] == lb[low] + left + right,
                     f"upper dim {quote(name)} has size {ub[u]}, expected lower {lb[low]} + {left} + {right}")
        elif t.kind == "Slice":
            for (begin, end), u, low, name in zip(t.pairs(), t.upper_dims, t.lower_dims, t.upper_names):
                need(end <= lb[low], f"slice end {end} exceeds the lower size {lb[low]}")
                need(ub[u] == end - begin, f"upper dim {quote(name)} has size {ub[u]}, expected {end} - {begin}")
        elif t.kind == "Unmerge":
            for length, u, name in zip(p, t.upper_dims, t.upper_names):
                need(ub[u] == length, f"upper dim {quote(name)} has size {ub[u]} but its length is {length}")
            need(int(np.prod(p)) == lb[t.lower_dims[0]],
                 f"lengths multiply to {int(np.prod(p))} but lower dim {quote(t.lower_names[0])} has size {lb[t.lower_dims[0]]}")
        elif t.kind == "Merge":
            for length, low, name in zip(p, t.lower_dims, t.lower_names):
                need(lb[low] == length, f"lower dim {quote(name)} has size {lb[low]} but its length is {length}")
            need(int(np.prod(p)) == ub[t.upper_dims[0]],
                 f"lengths multiply to {int(np.prod(p))} but upper dim {quote(t.upper_names[0])} has size {ub[t.upper_dims[0]]}")
        elif t.kind == "AddDim":
            need(ub[t.upper_dims[0]] == p[0], f"size {p[0]} differs from the upper size {ub[t.upper_dims[0]]}")
        elif t.kind == "Broadcast":
            for length, low, name in zip(p, t.lower_dims, t.lower_names):
                need(lb[low] == length, f"lower dim {quote(name)} has size {lb[low]} but its length is {length}")
        elif t.kind == "ConstDim":
            for (_, length), low, name in zip(t.pairs(), t.lower_dims, t.lower_names):
                need(lb[low] == length, f"lower dim {quote(name)} has size {lb[low]} but its length is {length}")

    # -- names and spaces -------------------------------------------------------------
    @cached_property
    def upper_names(self) -> tuple[str, ...]:
        names = {d: n for t in self.transforms for d, n in zip(t.upper_dims, t.upper_names)}
        return tuple(names[d] for d in range(len(self.upper_bounds)))

    @cached_property
    def lower_names(self) -> tuple[str, ...]:
        names = {d: n for t in self.transforms for d, n in zip(t.lower_dims, t.lower_names)}
        return tuple(names[d] for d in range(len(self.lower_bounds)))

    @property
    def upper_space(self) -> dict[str, int]:
        return dict(zip(self.upper_names, self.upper_bounds))

    @property
    def lower_space(self) -> dict[str, int]:
        return dict(zip(self.lower_names, self.lower_bounds))

    @property
    def is_affine(self) -> bool:
        return all(t.is_affine for t in self.transforms)

    # -- evaluation -------------------------------------------------------------------
    def apply(self, *upper: Any, **named: Any) -> Any:
        """Lower coordinates of ``upper`` (ints or numpy arrays, broadcast together):
        ``m.apply(0, 13, 5) -> (0, 5, 1, 1, 1)``.

        Called the protocol's way (``apply(shape, gemmG=..., ...)``, upper dims by name) it
        returns ``{"dim0": ..., ...}``.
        """
        if named:
            lower = self._apply(_named_inputs(self, named))
            return dict(zip(out_dim_names(len(lower)), lower))
        if len(upper) != len(self.upper_bounds):
            raise LayoutError(f"transform_map: expected {len(self.upper_bounds)} upper coordinates "
                              f"{list(self.upper_names)}, got {len(upper)}")
        return tuple(self._apply(list(upper)))

    def _apply(self, upper: list[Any]) -> list[Any]:
        if any(isinstance(u, np.ndarray) for u in upper):
            upper = [np.asarray(u, dtype=np.int64) for u in np.broadcast_arrays(*upper)]
            shape = upper[0].shape
        else:
            upper = [int(u) for u in upper]
            shape = None
        lower: list[Any] = [None] * len(self.lower_bounds)
        for t in self.transforms:
            outs = t.apply([upper[d] for d in t.upper_dims])
            for d, v in zip(t.lower_dims, outs):
                lower[d] = np.broadcast_to(np.asarray(v, dtype=np.int64), shape).copy() if shape is not None and np.ndim(v) == 0 else v
        return lower

    @cached_property
    def affine_map(self) -> affine.AffineMap:
        """The map as MLIR's ``affine_map`` (LayoutError when it holds an Xor)."""
        dims = [affine.dim(i) for i in range(len(self.upper_bounds))]
        results: list[Any] = [None] * len(self.lower_bounds)
        for t in self.transforms:
            for d, e in zip(t.lower_dims, t.expressions([dims[u] for u in t.upper_dims])):
                results[d] = e
        return affine.AffineMap(len(dims), tuple(results))

    def to_affine_map(self) -> str:
        return str(self.affine_map)

    # -- text -------------------------------------------------------------------------
    def __str__(self) -> str:
        head = f"{self.affine_map} " if self.is_affine else ""
        ops = ", ".join(str(t) for t in self.transforms)
        return (f"#rock.transform_map<{head}by [{ops}] bounds = [{', '.join(map(str, self.upper_bounds))}]"
                f" -> [{', '.join(map(str, self.lower_bounds))}]>")

    # -- algebra ----------------------------------------------------------------------
    def invert(self) -> TransformMap:
        """The map from the lower space back to the upper one, where every transform is a
        bijection of its in-bounds spaces (Merge <-> Unmerge, AddDim{1} <-> ConstDim{0, 1},
        Xor, PassThrough, Embed with mixed-radix coefficients); else a LayoutError."""
        ub = dict(enumerate(self.upper_bounds))
        lb = dict(enumerate(self.lower_bounds))
        inverse = tuple(t.inverse(ub, lb) for t in self.transforms)
        return TransformMap(inverse, self.lower_bounds, self.upper_bounds)


# -- chains ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TransformChain(_Mapping):
    """Maps applied one after another, upper first: ``maps[i]``'s lower space is
    ``maps[i + 1]``'s upper space (same sizes)."""

    WHAT = "the chain"

    maps: tuple[TransformMap, ...]

    def __post_init__(self) -> None:
        maps = tuple(self.maps)
        if not maps:
            raise LayoutError("transform chain: needs at least one transform map")
        if not all(isinstance(m, TransformMap) for m in maps):
            raise LayoutError(f"transform chain: expected TransformMap values, got {quote(maps)}")
        for i in range(len(maps) - 1):
            if maps[i].lower_bounds != maps[i + 1].upper_bounds:
                raise LayoutError(
                    f"transform chain: map {i}'s lower space {list(maps[i].lower_bounds)} "
                    f"({', '.join(maps[i].lower_names)}) does not match map {i + 1}'s upper space "
                    f"{list(maps[i + 1].upper_bounds)} ({', '.join(maps[i + 1].upper_names)})"
                )
        object.__setattr__(self, "maps", maps)

    @property
    def upper_bounds(self) -> tuple[int, ...]:
        return self.maps[0].upper_bounds

    @property
    def lower_bounds(self) -> tuple[int, ...]:
        return self.maps[-1].lower_bounds

    @property
    def upper_names(self) -> tuple[str, ...]:
        return self.maps[0].upper_names

    @property
    def lower_names(self) -> tuple[str, ...]:
        return self.maps[-1].lower_names

    @property
    def is_affine(self) -> bool:
        return all(m.is_affine for m in self.maps)

    def spaces(self) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
        """(names, sizes) of every space, upper first: ``len(maps) + 1`` entries."""
        out = [(self.maps[0].upper_names, self.maps[0].upper_bounds)]
        out += [(m.lower_names, m.lower_bounds) for m in self.maps]
        return out

    def apply(self, *upper: Any, **named: Any) -> Any:
        """Lowest coordinates of ``upper`` through every map (ints or numpy arrays)."""
        if named:
            values = _named_inputs(self, named)
            return dict(zip(out_dim_names(len(self.lower_bounds)), self.apply(*values)))
        coords = tuple(upper)
        for m in self.maps:
            coords = m.apply(*coords)
        return coords

    def __str__(self) -> str:
        return "\n".join(str(m) for m in self.maps)

    @cached_property
    def affine_map(self) -> affine.AffineMap:
        """The whole chain as one affine map, simplified over the upper bounds."""
        result = self.maps[0].affine_map
        for m in self.maps[1:]:
            result = m.affine_map.compose(result)
        return result.simplified(self.upper_bounds)

    def to_affine_map(self) -> str:
        """MLIR ``affine_map<...>`` text of the composed chain."""
        return str(self.affine_map)

    def invert(self) -> TransformChain:
        return TransformChain(tuple(m.invert() for m in reversed(self.maps)))

    def compose(self) -> TransformMap:
        return compose(self)


def as_chain(value: Any) -> TransformChain:
    """A chain from a TransformChain, one TransformMap, or a list of maps (upper first)."""
    if isinstance(value, TransformChain):
        return value
    if isinstance(value, TransformMap):
        return TransformChain((value,))
    try:
        return TransformChain(tuple(value))
    except TypeError:
        raise LayoutError(f"transform chain: expected transform maps, got {quote(value)}") from None


def sample_points(bounds: tuple[int, ...], limit: int = _EXHAUSTIVE_POINTS, seed: int = 0) -> list[np.ndarray]:
    """Every point of the grid when it is small, else its corners plus a random sample."""
    total = int(np.prod(bounds)) if bounds else 1
    if total <= limit:
        return list(np.indices(bounds, dtype=np.int64).reshape(len(bounds), -1)) if bounds else []
    rng = np.random.default_rng(seed)
    corners = np.array(list(itertools.product(*[(0, b - 1) for b in bounds])), dtype=np.int64)[: limit // 2]
    random = np.stack([rng.integers(0, b, size=limit, dtype=np.int64) for b in bounds], axis=1)
    points = np.concatenate([corners, random], axis=0)
    return list(points.T)


def same_function(a: Any, b: Any, bounds: tuple[int, ...]) -> bool:
    """True when ``a.apply`` and ``b.apply`` agree on the grid (or a large sample of it)."""
    points = sample_points(bounds)
    if not bounds:
        return tuple(a.apply()) == tuple(b.apply())
    va, vb = a.apply(*points), b.apply(*points)
    return len(va) == len(vb) and all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(va, vb))


# -- composition into one map ----------------------------------------------------------------
def compose(chain: Any) -> TransformMap:
    """The chain as one TransformMap, when a single map can express it.

    The composed affine map (simplified over the upper bounds) is read back as transforms:
    ``d`` -> PassThrough (or Pad/Slice when the sizes differ), ``d - c`` -> Pad,
    ``d + c`` -> Slice, ``sum c_i d_i`` -> Unmerge or Embed, mixed-radix digits of one dim ->
    Merge, ``d mod L`` -> Broadcast, a constant -> ConstDim, an unused upper dim -> AddDim.
    The result is checked to equal the chain on the upper grid; a chain that no single map
    expresses (padding followed by a Merge, say) is a LayoutError.
    """
    chain = as_chain(chain)
    if len(chain.maps) == 1:
        return chain.maps[0]
    if not chain.is_affine:
        raise LayoutError("transform chain: a chain with an Xor does not compose into one transform_map")
    ub, lb = chain.upper_bounds, chain.lower_bounds
    un, ln = chain.upper_names, chain.lower_names
    results = chain.affine_map.results
    transforms: list[Transform] = []
    used: set[int] = set()
    by_dim: dict[int, list[int]] = {}
    feeds: dict[int, int] = {}
    for expr in results:
        for d in expr.dims:
            feeds[d] = feeds.get(d, 0) + 1
    for out, expr in enumerate(results):
        shared = len(expr.dims) == 1 and feeds[next(iter(expr.dims))] > 1
        t = None if shared else _single_output(expr, out, ub, lb, un, ln)
        if t is not None:
            transforms.append(t)
            used.update(t.upper_dims)
            continue
        if len(expr.dims) != 1:
            raise LayoutError(f"transform chain: lower dim {quote(ln[out])} = {quote(expr)} is not one transform")
        by_dim.setdefault(next(iter(expr.dims)), []).append(out)
    for d, outs in by_dim.items():
        transforms.append(_merge_for(d, outs, results, ub, lb, un, ln))
        used.add(d)
    overlap = [t.upper_dims for t in transforms]
    flat = [d for dims in overlap for d in dims]
    if len(flat) != len(set(flat)):
        raise LayoutError(f"transform chain: upper dim {quote(un[_first_duplicate(flat)])} feeds several lower dims; not one transform_map")
    for d in range(len(ub)):
        if d not in used:
            transforms.append(Transform("AddDim", (ub[d],), (un[d],), (d,), (), ()))
    try:
        result = TransformMap(tuple(transforms), ub, lb)
    except LayoutError as err:
        raise LayoutError(f"transform chain: not expressible as one transform_map ({err})") from None
    if not same_function(result, chain, ub):
        raise LayoutError("transform chain: the chain is not expressible as one transform_map")
    return result


def _single_output(expr: affine.Sum, out: int, ub: Any, lb: Any, un: Any, ln: Any) -> Transform | None:
    low = lb[out]
    if expr.is_const:
        return Transform("ConstDim", (expr.const, low), (), (), (ln[out],), (out,))
    linear = all(isinstance(a, affine.Dim) for _, a in expr.terms)
    if linear and len(expr.terms) == 1 and expr.terms[0][0] == 1:
        d = expr.terms[0][1].index
        shift, up = expr.const, ub[d]
        names = dict(upper_names=(un[d],), upper_dims=(d,), lower_names=(ln[out],), lower_dims=(out,))
        if shift == 0 and up == low:
            return Transform("PassThrough", (), **names)
        if shift <= 0 and up + shift - low >= 0:
            return Transform("Pad", (-shift, up + shift - low), **names)
        if shift >= 0 and shift + up <= low:
            return Transform("Slice", (shift, shift + up), **names)
        raise LayoutError(f"transform chain: lower dim {quote(ln[out])} = {quote(expr)} is neither a pad nor a slice of its {up} values")
    if linear and expr.const == 0:
        dims = [a.index for _, a in expr.terms]
        coefs = [c for c, _ in expr.terms]
        names = dict(upper_names=tuple(un[d] for d in dims), upper_dims=tuple(dims),
                     lower_names=(ln[out],), lower_dims=(out,))
        strides, s = [], 1
        for d in reversed(dims):
            strides.append(s)
            s *= ub[d]
        if coefs == list(reversed(strides)) and s == low:
            return Transform("Unmerge", tuple(ub[d] for d in dims), **names)
        return Transform("Embed", tuple(coefs), **names)
    atom = expr.single_atom()
    if isinstance(atom, affine.Div) and atom.kind == "mod" and atom.divisor == low:
        inner = atom.operand.single_atom()
        if isinstance(inner, affine.Dim):
            return Transform("Broadcast", (low,), (un[inner.index],), (inner.index,), (ln[out],), (out,))
    return None


def _merge_for(d: int, outs: list[int], results: Any, ub: Any, lb: Any, un: Any, ln: Any) -> Transform:
    xs = np.arange(ub[d], dtype=np.int64)
    values = [0] * len(ub)
    values[d] = xs

    def period(out: int) -> int:
        v = np.broadcast_to(results[out].evaluate(values), xs.shape)
        changes = np.nonzero(np.diff(v))[0]
        return int(changes[0]) + 1 if len(changes) else ub[d]

    order = sorted(outs, key=lambda o: -period(o))
    return Transform("Merge", tuple(lb[o] for o in order), (un[d],), (d,),
                     tuple(ln[o] for o in order), tuple(order))


# -- text in ----------------------------------------------------------------------------------
def parse_transform_map(text: str, aliases: Any = None) -> TransformMap:
    """Read ``#rock.transform_map<affine_map<...> by [<...>, ...] bounds = [...] -> [...]>``.

    The ``affine_map`` may be left out (layoutkit writes none for maps with an Xor); when
    present it must agree with the transforms."""
    if not isinstance(text, str):
        raise LayoutError(f"transform_map: expected a string, got {quote(repr(text))}")
    cursor = Cursor(text.strip(), aliases)
    result = read_transform_map(cursor)
    cursor.expect_end()
    return result


def parse_transform_maps(text: str, aliases: dict[str, Attribute] | None = None) -> list[TransformMap]:
    """Every ``#rock.transform_map<...>`` in ``text``, in order (the rest of the text, such as
    ``#map0 = `` alias prefixes or surrounding IR, is skipped); ``#map = affine_map<...>``
    lines define the affine maps the transform maps may name (:func:`affine_map_aliases`),
    as do ``aliases`` (from other files)."""
    if not isinstance(text, str):
        raise LayoutError(f"transform_map: expected a string, got {quote(repr(text))}")
    aliases = {**(aliases or {}), **affine_map_aliases(text)}
    maps = []
    key = "#rock.transform_map<"
    start = text.find(key)
    while start >= 0:
        end = _matching_close(text, start + len(key) - 1)
        maps.append(parse_transform_map(" ".join(text[start:end + 1].split()), aliases))
        start = text.find(key, end + 1)
    if not maps:
        raise LayoutError(f"transform_map: no '#rock.transform_map<...>' in {quote(text)}")
    return maps


_AFFINE_MAP_ALIAS = re.compile(r"^[ \t]*#([A-Za-z_][\w.$]*)[ \t]*=[ \t]*(affine_map[ \t]*<.*>)[ \t]*$", re.MULTILINE)


def affine_map_aliases(text: str) -> dict[str, Attribute]:
    """The ``#name = affine_map<...>`` definitions in ``text`` (an MLIR file as rocmlir-opt
    prints it), as aliases :func:`parse_transform_map` resolves in
    ``#rock.transform_map<#name by [...] ...>``: ``{name: Attribute("affine_map", None, text)}``.

    >>> affine_map_aliases("#map = affine_map<(d0) -> (d0)>\\n#x = #ttg.linear<{}>")
    {'map': Attribute(name='affine_map', params=None, text='affine_map<(d0) -> (d0)>')}
    """
    return {m.group(1): Attribute("affine_map", None, m.group(2)) for m in _AFFINE_MAP_ALIAS.finditer(text)}


def _aliased_affine_map(cursor: Cursor) -> affine.AffineMap:
    """The affine map an alias (``#map``) at the cursor stands for, from the cursor's aliases."""
    tok = cursor.expect_kind("hash", "an affine map")
    alias = cursor.aliases.get(tok.text[1:])
    if alias is None or alias.name != "affine_map":
        cursor.fail(f"transform_map: {quote(tok.text)} is not an affine map defined in the file "
                    f"(rocmlir-opt writes '{tok.text} = affine_map<...>' at the top of the file)", tok)
    try:
        return affine.parse_affine_map(alias.text)
    except LayoutError as err:
        raise LayoutError(f"transform_map: {quote(tok.text)} = {quote(alias.text)}: {err}") from None


def _matching_close(text: str, open_at: int) -> int:
    depth, i, in_string = 0, open_at, False
    while i < len(text):
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "<":
            depth += 1
        elif ch == ">" and text[i - 1] != "-":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise LayoutError(f"transform_map: unclosed '#rock.transform_map<' in {quote(text[open_at - 19:], 120)}")


def read_transform_map(cursor: Cursor) -> TransformMap:
    tok = cursor.expect_kind("hash", "'#rock.transform_map<'")
    if tok.text != "#rock.transform_map":
        cursor.fail(f"expected '#rock.transform_map', not {quote(tok.text)}", tok)
    cursor.expect("<", "after '#rock.transform_map'")
    written = None
    written_tok = cursor.peek
    if cursor.at("affine_map") or cursor.at("("):
        from layoutkit.core.coords.affine import read_affine_map

        written = read_affine_map(cursor)
    elif cursor.peek.kind == "hash":  # rocmlir-opt's '#map', defined as 'affine_map<...>' in the file
        written = _aliased_affine_map(cursor)
    cursor.expect("by", "before the list of transforms")
    cursor.expect("[", "to open the list of transforms")
    transforms: list[Transform] = []
    if not cursor.at("]"):
        transforms.append(_read_transform(cursor))
        while cursor.accept(","):
            transforms.append(_read_transform(cursor))
    cursor.expect("]", "to close the list of transforms")
    cursor.expect("bounds", "after the transforms")
    cursor.expect("=", "after 'bounds'")
    upper = _int_list(cursor, "upper bounds")
    cursor.expect("->", "between the upper and lower bounds")
    lower = _int_list(cursor, "lower bounds")
    cursor.expect(">", "to close '#rock.transform_map<'")
    result = TransformMap(tuple(transforms), tuple(upper), tuple(lower))
    if written is not None:
        _check_written_map(result, written, written_tok, cursor)
    return result


def _check_written_map(result: TransformMap, written: affine.AffineMap, tok: Any, cursor: Cursor) -> None:
    if written.num_dims != len(result.upper_bounds) or len(written.results) != len(result.lower_bounds):
        cursor.fail(
            f"transform_map: the affine_map has {written.num_dims} dims and {len(written.results)} results "
            f"but the bounds give {len(result.upper_bounds)} upper and {len(result.lower_bounds)} lower dims", tok)
    if not result.is_affine:
        cursor.fail("transform_map: a map with an Xor has no affine_map; leave it out", tok)
    points = sample_points(result.upper_bounds)
    got = written.apply(*points) if points else written.apply()
    want = result.apply(*points) if points else result.apply()
    for i, (g, w) in enumerate(zip(got, want)):
        g_arr, w_arr = np.broadcast_arrays(np.asarray(g), np.asarray(w))
        if not np.array_equal(g_arr, w_arr):
            bad = int(np.argmax(g_arr.reshape(-1) != w_arr.reshape(-1)))
            point = [int(np.broadcast_to(p, g_arr.shape).reshape(-1)[bad]) for p in points]
            cursor.fail(
                f"transform_map: the written affine_map disagrees with the transforms on lower dim {i} "
                f"({quote(result.lower_names[i])}): at {point} it gives {int(g_arr.reshape(-1)[bad])}, the transforms "
                f"give {int(w_arr.reshape(-1)[bad])} (they say {quote(result.affine_map.results[i])})", tok)


def _int_list(cursor: Cursor, what: str) -> list[int]:
    cursor.expect("[", f"to open the {what}")
    items: list[int] = []
    if not cursor.at("]"):
        items.append(int(cursor.expect_kind("int", f"an integer in the {what}").text))
        while cursor.accept(","):
            items.append(int(cursor.expect_kind("int", f"an integer in the {what}").text))
    cursor.expect("]", f"to close the {what}")
    return items


def _name_list(cursor: Cursor, what: str) -> list[str]:
    cursor.expect("[", f"to open the {what}")
    items: list[str] = []
    if not cursor.at("]"):
        while True:
            tok = cursor.peek
            if tok.kind not in ("string", "ident"):
                cursor.fail(f"expected a dim name in the {what}")
            value = cursor.value()
            items.append(value)
            if not cursor.accept(","):
                break
    cursor.expect("]", f"to close the {what}")
    return items


def _read_transform(cursor: Cursor) -> Transform:
    if cursor.peek.kind == "hash":
        tok = cursor.next()
        if tok.text != "#rock.transform":
            cursor.fail("expected a transform '<Kind ...>' or '#rock.transform<...>'", tok)
    cursor.expect("<", "to open a transform")
    kind_tok = cursor.expect_kind("ident", "a transform kind (PassThrough, Pad, Merge, ...)")
    params: list[int] = []
    if cursor.accept("{"):
        if not cursor.at("}"):
            params.append(int(cursor.expect_kind("int", f"an integer parameter of {kind_tok.text}").text))
            while cursor.accept(","):
                params.append(int(cursor.expect_kind("int", f"an integer parameter of {kind_tok.text}").text))
        cursor.expect("}", f"to close the parameters of {kind_tok.text}")
    upper_names = _name_list(cursor, f"upper names of {kind_tok.text}")
    cursor.expect("at", "after the upper names")
    upper_dims = _int_list(cursor, f"upper dims of {kind_tok.text}")
    cursor.expect("->", "between the upper and lower dims of a transform")
    lower_names = _name_list(cursor, f"lower names of {kind_tok.text}")
    cursor.expect("at", "after the lower names")
    lower_dims = _int_list(cursor, f"lower dims of {kind_tok.text}")
    cursor.expect(">", f"to close the {kind_tok.text} transform")
    if any(d < 0 for d in upper_dims + lower_dims):
        cursor.fail(f"{kind_tok.text}: dims must be non-negative", kind_tok)
    return Transform(kind_tok.text, tuple(params), tuple(upper_names), tuple(upper_dims),
                     tuple(lower_names), tuple(lower_dims))
