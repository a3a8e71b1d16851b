"""Builders for transform maps with named dims, as in rocMLIR's ``TransformMapBuilder``.

A builder starts from one space with named dims and sizes and defines the other space one
transform at a time; ``get()`` returns the :class:`TransformMap`.

- :class:`BottomUpBuilder` starts from the *lower* space (a tensor's real shape) and defines
  upper dims: ``merge("K", 1, ["I", "H", "W"])`` makes an upper dim ``K`` at position 1 of
  size ``I * H * W``.
- :class:`TopDownBuilder` starts from the *upper* space and defines lower dims:
  ``embed("raw", 0, 4096, ["i", "j"], [64, 1])``.

Seed 003's example: from the lower OIHW filter 128 x 2 x 3 x 3::

    >>> b = BottomUpBuilder(["O", "I", "H", "W"], [128, 2, 3, 3])
    >>> b.pass_through("M", 0, "O"); b.merge("K", 1, ["I", "H", "W"])
    >>> b.get().to_affine_map()
    'affine_map<(d0, d1) -> (d0, d1 floordiv 9, (d1 mod 9) floordiv 3, d1 mod 3)>'

Names and dims may be given singly (``"M"``, ``0``) or as lists.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutkit.core.bits import is_int
from layoutkit.core.coords.transform_map import TransformMap
from layoutkit.core.coords.transforms import Transform
from layoutkit.errors import LayoutError, quote


def _names(value: Any, what: str) -> list[str]:
    items = [value] if isinstance(value, str) else list(value)
    if not all(isinstance(n, str) and n for n in items):
        raise LayoutError(f"{what}: expected dim names, got {quote(value)}")
    return items


def _ints(value: Any, what: str) -> list[int]:
    items = [value] if is_int(value) else list(value)
    if not all(is_int(v) for v in items):
        raise LayoutError(f"{what}: expected integers, got {quote(value)}")
    return [int(v) for v in items]


class _Builder:
    """Shared bookkeeping: the start space (given) and the end space (being defined)."""

    #: which side of the map the start space is
    start_side = "upper"

    def __init__(self, names: Any, sizes: Any):
        names = _names(names, f"{type(self).__name__} names")
        sizes = _ints(sizes, f"{type(self).__name__} sizes")
        if len(names) != len(sizes):
            raise LayoutError(f"{type(self).__name__}: {len(names)} names for {len(sizes)} sizes")
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise LayoutError(f"{type(self).__name__}: dim name {quote(dup)} used twice")
        if any(s <= 0 for s in sizes):
            raise LayoutError(f"{type(self).__name__}: sizes must be positive, got {quote(sizes)}")
        self.start_names = names
        self.start_sizes = sizes
        self.end: dict[int, tuple[str, int]] = {}
        self.used: set[str] = set()
        self.transforms: list[Transform] = []
        self.frozen = False

    # -- bookkeeping ----------------------------------------------------------------------
    def start_index(self, name: str, what: str) -> int:
        if name not in self.start_names:
            raise LayoutError(f"{what}: no dim named {quote(name)} in {self.start_names}")
        if name in self.used:
            raise LayoutError(f"{what}: dim {quote(name)} is already used by another transform")
        return self.start_names.index(name)

    def start_size(self, name: str) -> int:
        return self.start_sizes[self.start_names.index(name)]

    def end_names(self) -> list[str]:
        return [self.end[d][0] for d in sorted(self.end)]

    def define(self, name: str, dim: int, size: int, what: str) -> None:
        if self.frozen:
            raise LayoutError(f"{what}: the builder's map was already taken with get()")
        if size <= 0:
            raise LayoutError(f"{what}: dim {quote(name)} would have size {size}")
        if dim < 0:
            raise LayoutError(f"{what}: dim position {dim} of {quote(name)} is negative")
        if any(n == name for n, _ in self.end.values()):
            raise LayoutError(f"{what}: dim name {quote(name)} used twice")
        if dim in self.end:
            raise LayoutError(f"{what}: position {dim} already holds {quote(self.end[dim][0])}")
        self.end[dim] = (name, size)

    def next_free(self) -> int:
        d = 0
        while d in self.end:
            d += 1
        return d

    def add(self, kind: str, params: Any, start: list[str], end: list[str], end_dims: list[int]) -> None:
        start_dims = [self.start_names.index(n) for n in start]
        self.used.update(start)
        if self.start_side == "upper":
            t = Transform(kind, tuple(params), tuple(start), tuple(start_dims), tuple(end), tuple(end_dims))
        else:
            t = Transform(kind, tuple(params), tuple(end), tuple(end_dims), tuple(start), tuple(start_dims))
        self.transforms.append(t)

    def _positions(self, at: Any, sources: list[str], count: int, what: str) -> list[int]:
        if at is None and sources:
            return [self.start_names.index(s) for s in sources]
        if at is None:
            free, d = [], 0
            while len(free) < count:
                if d not in self.end:
                    free.append(d)
                d += 1
            return free
        dims = _ints(at, f"{what} positions")
        if len(dims) != count:
            raise LayoutError(f"{what}: {count} dims but {len(dims)} positions {quote(dims)}")
        return dims

    def _ends_and_sources(self, names: Any, source: Any, what: str) -> tuple[list[str], list[str]]:
        """The end dims ``names`` and the start dims they come from (default: the same names)."""
        ends = _names(names, what)
        return ends, ends if source is None else _names(source, f"{what} sources")

    def _dim_by_dim(self, what: str, kind: str, params: Any, ends: list[str], sources: list[str], at: Any,
                    end_sizes: list[int] | None = None) -> None:
        """A transform taking each start dim of ``sources`` to one end dim of ``ends``, at
        positions ``at`` (default: their sources'), of sizes ``end_sizes`` (default: the
        sources' sizes)."""
        for s in sources:
            self.start_index(s, what)
        dims = self._positions(at, sources, len(ends), what)
        if end_sizes is None:
            end_sizes = [self.start_size(s) for s in sources]
        for n, d, size in zip(ends, dims, end_sizes):
            self.define(n, d, size, what)
        self.add(kind, params, sources, ends, dims)

    # -- transforms that read the same either way -----------------------------------------
    def pass_through(self, names: Any, at: Any = None, source: Any = None) -> None:
        """``names`` (at ``at``, default: their source's position) pass ``source`` dims
        (default: the same names) through unchanged."""
        ends, sources = self._ends_and_sources(names, source, "pass_through")
        if len(sources) != len(ends):
            raise LayoutError(f"pass_through: {len(ends)} names for {len(sources)} sources")
        self._dim_by_dim("pass_through", "PassThrough", (), ends, sources, at)

    def pad(self, names: Any, params: Any, at: Any = None, source: Any = None) -> None:
        """``names`` pad ``source`` dims (default: the same names) by ``params = [l1, r1, l2,
        r2, ...]``: upper size = lower size + left + right, whichever side is being built."""
        ends, sources = self._ends_and_sources(names, source, "pad")
        params = _ints(params, "pad params")
        if len(params) != 2 * len(ends) or len(sources) != len(ends):
            raise LayoutError(f"pad: {len(ends)} dims need {2 * len(ends)} params and as many sources, got {quote(params)}")
        for s in sources:
            self.start_index(s, "pad")
        growth = -1 if self.start_side == "upper" else 1  # building the lower side shrinks
        sizes = [self.start_size(s) + growth * (params[2 * i] + params[2 * i + 1]) for i, s in enumerate(sources)]
        self._dim_by_dim("pad", "Pad", params, ends, sources, at, sizes)

    def xor(self, names: Any, mask: int, shift: int, at: Any = None, source: Any = None) -> None:
        """``names = [a, b]`` over ``source`` dims (default: the same names), an XOR swizzle:
        lower ``a = upper a xor ((upper b >> shift) & mask)``, ``b`` passes through."""
        ends, sources = self._ends_and_sources(names, source, "xor")
        if len(ends) != 2 or len(sources) != 2:
            raise LayoutError("xor: takes two dims [a, b]")
        self._dim_by_dim("xor", "Xor", [int(mask), int(shift)], ends, sources, at)

    def take_remainder(self) -> None:
        """Pass every start dim no transform has used yet through, same name, at the next
        free positions in start order."""
        rest = [n for n in self.start_names if n not in self.used]
        if rest:
            dims = []
            for n in rest:
                d = self.start_names.index(n)
                dims.append(d if d not in self.end else self.next_free())
                self.define(n, dims[-1], self.start_size(n), "take_remainder")
            self.add("PassThrough", (), rest, rest, dims)

    def get(self) -> TransformMap:
        """The map built so far; every start dim must be used and the end positions must
        be 0, 1, ..., n - 1."""
        unused = [n for n in self.start_names if n not in self.used]
        if unused:
            raise LayoutError(f"{type(self).__name__}.get: dim {quote(unused[0])} is used by no transform (use take_remainder)")
        if sorted(self.end) != list(range(len(self.end))):
            gap = next(d for d in range(len(self.end) + 1) if d not in self.end)
            raise LayoutError(f"{type(self).__name__}.get: no dim defined at position {gap}")
        self.frozen = True
        end_sizes = tuple(self.end[d][1] for d in range(len(self.end)))
        if self.start_side == "upper":
            return TransformMap(tuple(self.transforms), tuple(self.start_sizes), end_sizes)
        return TransformMap(tuple(self.transforms), end_sizes, tuple(self.start_sizes))


class BottomUpBuilder(_Builder):
    """Builds a map from its lower space up (see the module docstring)."""

    start_side = "lower"

    @classmethod
    def above(cls, previous: TransformMap) -> BottomUpBuilder:
        """A builder whose lower space is ``previous``'s upper space (the next map up)."""
        return cls(list(previous.upper_names), list(previous.upper_bounds))

    def slice(self, names: Any, source: Any, begins: Any, ends: Any, at: Any = None) -> None:
        """Upper ``names`` are the ``[begin, end)`` slices of the lower ``source`` dims."""
        uppers, sources = _names(names, "slice"), _names(source, "slice sources")
        begins, stops = _ints(begins, "slice begins"), _ints(ends, "slice ends")
        if not len(uppers) == len(sources) == len(begins) == len(stops):
            raise LayoutError("slice: needs as many names, sources, begins and ends")
        for s in sources:
            self.start_index(s, "slice")
        dims = self._positions(at, sources, len(uppers), "slice")
        params = []
        for n, d, s, b, e in zip(uppers, dims, sources, begins, stops):
            if not 0 <= b < e <= self.start_size(s):
                raise LayoutError(f"slice: [{b}, {e}) is not inside {quote(s)} of size {self.start_size(s)}")
            self.define(n, d, e - b, "slice")
            params += [b, e]
        self.add("Slice", params, sources, uppers, dims)

    def embed(self, names: Any, at: Any, sizes: Any, lower: str, coefficients: Any) -> None:
        """Upper ``names`` (sizes ``sizes``) embed into ``lower = sum(coef_i * name_i)``."""
        uppers, coefs = _names(names, "embed"), _ints(coefficients, "embed coefficients")
        sizes = _ints(sizes, "embed sizes")
        if not len(uppers) == len(coefs) == len(sizes):
            raise LayoutError("embed: needs one size and one coefficient per name")
        self.start_index(lower, "embed")
        dims = self._positions(at, [], len(uppers), "embed")
        for n, d, s in zip(uppers, dims, sizes):
            self.define(n, d, s, "embed")
        self.add("Embed", coefs, [lower], uppers, dims)

    def unmerge(self, names: Any, at: Any, lower: str, lengths: Any) -> None:
        """Upper ``names`` of sizes ``lengths`` (slowest first) split the lower dim."""
        uppers, lengths = _names(names, "unmerge"), _ints(lengths, "unmerge lengths")
        if len(uppers) != len(lengths):
            raise LayoutError("unmerge: needs one length per name")
        self.start_index(lower, "unmerge")
        if int(np.prod(lengths)) != self.start_size(lower):
            raise LayoutError(f"unmerge: lengths {lengths} multiply to {int(np.prod(lengths))}, "
                              f"but {quote(lower)} has size {self.start_size(lower)}")
        dims = self._positions(at, [], len(uppers), "unmerge")
        for n, d, s in zip(uppers, dims, lengths):
            self.define(n, d, s, "unmerge")
        self.add("Unmerge", lengths, [lower], uppers, dims)

    def merge(self, name: str, at: int, lower: Any) -> None:
        """Upper ``name`` at ``at`` merges the lower dims (slowest first); its size is
        their product."""
        lowers = _names(lower, "merge")
        for s in lowers:
            self.start_index(s, "merge")
        sizes = [self.start_size(s) for s in lowers]
        self.define(name, int(at), int(np.prod(sizes)), "merge")
        self.add("Merge", sizes, lowers, [name], [int(at)])

    def add_dim(self, name: str, at: int, size: int) -> None:
        """A new upper dim that maps to nothing (the data is the same along it)."""
        self.define(name, int(at), int(size), "add_dim")
        self.add("AddDim", [int(size)], [], [name], [int(at)])

    def broadcast(self, names: Any, sizes: Any) -> None:
        """The lower ``names`` become upper dims of sizes ``sizes`` read modulo the lower size."""
        lowers, sizes = _names(names, "broadcast"), _ints(sizes, "broadcast sizes")
        if len(lowers) != len(sizes):
            raise LayoutError("broadcast: needs one size per name")
        for s in lowers:
            self.start_index(s, "broadcast")
        self._dim_by_dim("broadcast", "Broadcast", [self.start_size(s) for s in lowers], lowers, lowers, None, sizes)

    def const_dim(self, name: str, value: int) -> None:
        """Assert that the lower dim ``name`` holds ``value`` (no upper dim reads it)."""
        self.start_index(name, "const_dim")
        if not 0 <= value < self.start_size(name):
            raise LayoutError(f"const_dim: value {value} of {quote(name)} must lie in [0, {self.start_size(name)})")
        self.add("ConstDim", [int(value), self.start_size(name)], [name], [], [])


class TopDownBuilder(_Builder):
    """Builds a map from its upper space down (see the module docstring)."""

    start_side = "upper"

    @classmethod
    def below(cls, previous: TransformMap) -> TopDownBuilder:
        """A builder whose upper space is ``previous``'s lower space (the next map down)."""
        return cls(list(previous.lower_names), list(previous.lower_bounds))

    def slice(self, names: Any, begins: Any, sizes: Any, at: Any = None, source: Any = None) -> None:
        """Upper ``source`` dims are the slices starting at ``begins`` of lower ``names``
        of sizes ``sizes``."""
        ends = _names(names, "slice")
        sources = ends if source is None else _names(source, "slice sources")
        begins, sizes = _ints(begins, "slice begins"), _ints(sizes, "slice sizes")
        if not len(ends) == len(sources) == len(begins) == len(sizes):
            raise LayoutError("slice: needs as many names, sources, begins and sizes")
        for s in sources:
            self.start_index(s, "slice")
        dims = self._positions(at, sources, len(ends), "slice")
        params = []
        for n, d, s, b, size in zip(ends, dims, sources, begins, sizes):
            e = b + self.start_size(s)
            if b < 0 or e > size:
                raise LayoutError(f"slice: [{b}, {e}) is not inside {quote(n)} of size {size}")
            self.define(n, d, size, "slice")
            params += [b, e]
        self.add("Slice", params, sources, ends, dims)

    def embed(self, name: str, at: int, size: int, upper: Any, coefficients: Any) -> None:
        """Lower ``name`` (size ``size``) = ``sum(coef_i * upper_i)``."""
        uppers, coefs = _names(upper, "embed"), _ints(coefficients, "embed coefficients")
        if len(uppers) != len(coefs):
            raise LayoutError("embed: needs one coefficient per upper dim")
        for s in uppers:
            self.start_index(s, "embed")
        self.define(name, int(at), int(size), "embed")
        self.add("Embed", coefs, uppers, [name], [int(at)])

    def unmerge(self, name: str, at: int, upper: Any, lengths: Any) -> None:
        """Lower ``name`` = the upper dims as mixed-radix digits (slowest first)."""
        uppers, lengths = _names(upper, "unmerge"), _ints(lengths, "unmerge lengths")
        if len(uppers) != len(lengths):
            raise LayoutError("unmerge: needs one length per upper dim")
        for s, length in zip(uppers, lengths):
            self.start_index(s, "unmerge")
            if self.start_size(s) != length:
                raise LayoutError(f"unmerge: {quote(s)} has size {self.start_size(s)}, not the length {length}")
        self.define(name, int(at), int(np.prod(lengths)), "unmerge")
        self.add("Unmerge", lengths, uppers, [name], [int(at)])

    def merge(self, names: Any, at: Any, upper: str, sizes: Any) -> None:
        """Lower ``names`` of sizes ``sizes`` (slowest first) are the digits of ``upper``."""
        lowers, sizes = _names(names, "merge"), _ints(sizes, "merge sizes")
        dims = _ints(at, "merge positions")
        if not len(lowers) == len(sizes) == len(dims):
            raise LayoutError("merge: needs one position and one size per name")
        self.start_index(upper, "merge")
        if int(np.prod(sizes)) != self.start_size(upper):
            raise LayoutError(f"merge: sizes {sizes} multiply to {int(np.prod(sizes))}, "
                              f"but {quote(upper)} has size {self.start_size(upper)}")
        for n, d, s in zip(lowers, dims, sizes):
            self.define(n, d, s, "merge")
        self.add("Merge", sizes, [upper], lowers, dims)

    def ignore(self, name: str) -> None:
        """Drop the upper dim ``name`` (AddDim): the lower space does not depend on it."""
        self.start_index(name, "ignore")
        self.add("AddDim", [self.start_size(name)], [name], [], [])

    add_dim = ignore

    def broadcast(self, names: Any, lengths: Any, at: Any = None, source: Any = None) -> None:
        """Lower ``names`` of sizes ``lengths`` read the upper dims modulo the length."""
        ends, sources = self._ends_and_sources(names, source, "broadcast")
        lengths = _ints(lengths, "broadcast lengths")
        if not len(ends) == len(sources) == len(lengths):
            raise LayoutError("broadcast: needs one length per name")
        self._dim_by_dim("broadcast", "Broadcast", lengths, ends, sources, at, lengths)

    def const_dim(self, name: str, at: int, value: int, size: int) -> None:
        """A lower dim of size ``size`` that always holds ``value``."""
        if not 0 <= value < size:
            raise LayoutError(f"const_dim: value {value} of {quote(name)} must lie in [0, {size})")
        self.define(name, int(at), int(size), "const_dim")
        self.add("ConstDim", [int(value), int(size)], [], [name], [int(at)])
