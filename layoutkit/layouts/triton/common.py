"""Helpers shared by the TritonGPU encodings: reading fields, checking them, printing them,
and building linear-layout bases the way Triton's ``LinearLayoutConversions.cpp`` does.

Reading. :class:`Fields` wraps the ``{key = value}`` parameters of one attribute; every
reader names the field and quotes the attribute in its :class:`~layoutkit.errors.LayoutError`::

    >>> from layoutkit.core.text import parse_attribute
    >>> f = Fields(parse_attribute("#ttg.blocked<{order = [1, x]}>"), "blocked")
    >>> f.ints("order")
    Traceback (most recent call last):
    ...
    layoutkit.errors.LayoutError: order: expected a list of integers, got '[1, x]' in '#ttg.blocked<{order = [1, x]}>'

Building. :class:`Draft` is a small, mutable-free stand-in for Triton's ``LinearLayout``
while an encoding is being assembled: bases per in-dim (each basis a full-rank tuple of
tensor coordinates), the out-dim order (which matters: Triton adds repetition registers
in out-dim order) and the out-dim sizes. Its operations are exactly the handful Triton
uses to build encodings (``identity1D``, ``zeros1D``, ``operator*``, ``transposeOuts``,
``ensureLayoutNotSmallerThan`` / ``NotLargerThan``); :meth:`Draft.build` turns it into one
:class:`~layoutkit.core.linear.LinearLayout`. Assembling plain tuples and constructing the
LinearLayout once keeps ``to_linear_layout`` well under 100 us.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from layoutkit.core.bits import is_int, log2
from layoutkit.core.bits import is_pow2 as is_power_of_two
from layoutkit.core.linear import LinearLayout
from layoutkit.core.protocol import LayoutBase, check_shape
from layoutkit.core.text import Attribute
from layoutkit.errors import LayoutError, quote

DISTRIBUTED_IN_DIMS = ("register", "lane", "warp", "block")
_OUT_NAMES = tuple(f"dim{d}" for d in range(16))
_MISSING = object()


# --------------------------------------------------------------------------------------
# printing
# --------------------------------------------------------------------------------------
def value_text(value: Any) -> str:
    """A parsed attribute value printed back in MLIR style (for messages and ``__str__``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Attribute):
        return value.text or "#" + value.name
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return str(value)


def ints_text(values: Iterable[int]) -> str:
    """``(1, 4)`` -> ``'[1, 4]'``."""
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def bases_text(bases: Iterable[Iterable[int]]) -> str:
    """``((0, 1), (8, 0))`` -> ``'[[0, 1], [8, 0]]'``."""
    return "[" + ", ".join(ints_text(b) for b in bases) + "]"


def bool_text(value: bool) -> str:
    return "true" if value else "false"


# --------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------
class Fields:
    """The parameters of one ``#ttg.<name><{...}>`` attribute, read field by field.

    Every read marks the key as used; :meth:`finish` rejects keys nobody read.
    """

    def __init__(self, attr: Attribute, encoding: str, aliases: dict[str, Attribute] | None = None,
                 prefix: str = ""):
        if not isinstance(attr.params, dict):
            raise LayoutError(f"{encoding}: expected '<{{key = value, ...}}>' parameters in {quote(attr.text)}")
        self.attr = attr
        self.encoding = encoding
        self.aliases = aliases or {}
        self.params: dict[str, Any] = attr.params
        self.used: set[str] = set()
        self.prefix = prefix  # "ctaLayout." for the fields of a dictionary value

    # -- generic -------------------------------------------------------------------
    def fail(self, key: str, message: str) -> LayoutError:
        return LayoutError(f"{self.prefix}{key}: {message} in {quote(self.attr.text, 200)}")

    def sub_fields(self, key: str) -> Fields:
        """The fields of a dictionary value, e.g. ``ctaLayout = {warp = [[0, 1]]}`` (an
        absent key reads as ``{}``); call :meth:`finish` on them."""
        value = self.raw(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a dictionary like '{{warp = [[0, 1]]}}', got {quote(value_text(value))}")
        return Fields(Attribute(self.attr.name, value, self.attr.text), self.encoding, self.aliases, f"{key}.")

    def has(self, key: str) -> bool:
        return key in self.params

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        if key not in self.params:
            if default is _MISSING:
                raise LayoutError(
                    f"{self.prefix}{key}: missing field of #ttg.{self.encoding} in {quote(self.attr.text, 200)}"
                )
            return default
        self.used.add(key)
        return self.params[key]

    def finish(self) -> None:
        unknown = [k for k in self.params if k not in self.used]
        if unknown:
            raise LayoutError(
                f"{self.prefix}{unknown[0]}: unknown field of #ttg.{self.encoding} in {quote(self.attr.text, 200)}"
            )

    def build(self, make: Callable[..., Any], *args: Any) -> Any:
        """``make(*args)`` once every field has been read (:meth:`finish`); a LayoutError it
        raises gets the attribute text appended. The last line of every ``from_attribute``:
        ``return f.build(cls, size_per_thread, ..., cga)``."""
        self.finish()
        try:
            return make(*args)
        except LayoutError as err:
            raise LayoutError(f"{err} in {quote(self.attr.text, 200)}") from None

    # -- typed ---------------------------------------------------------------------
    # each typed reader first takes the common case -- plain ints as the scanner gives them --
    # in one pass; anything else goes through the checks that word the error
    def int(self, key: str, default: Any = _MISSING, *, minimum: int = 0) -> int:
        value = self.params.get(key, _MISSING)
        if value.__class__ is int and value >= minimum:
            self.used.add(key)
            return value
        if value is _MISSING and default is not _MISSING:
            return default
        value = self.raw(key)
        if not is_int(value):
            raise self.fail(key, f"expected an integer, got {quote(value_text(value))}")
        if value < minimum:
            raise self.fail(key, f"expected an integer >= {minimum}, got {quote(value_text(value))}")
        return int(value)

    def bool(self, key: str, default: Any = _MISSING) -> bool:
        if key not in self.params and default is not _MISSING:
            return default
        value = self.raw(key)
        if not isinstance(value, bool):
            raise self.fail(key, f"expected 'true' or 'false', got {quote(value_text(value))}")
        return value

    def ints(self, key: str, default: Any = _MISSING, *, minimum: int = 0) -> tuple[int, ...]:
        value = self.params.get(key, _MISSING)
        if value.__class__ is list and all(v.__class__ is int and v >= minimum for v in value):
            self.used.add(key)
            return tuple(value)
        if value is _MISSING and default is not _MISSING:
            return default
        value = self.raw(key)
        if isinstance(value, tuple):
            value = list(value)
        if not isinstance(value, list) or not all(is_int(v) for v in value):
            raise self.fail(key, f"expected a list of integers, got {quote(value_text(value))}")
        if any(v < minimum for v in value):
            what = "positive integers" if minimum == 1 else f"integers >= {minimum}"
            raise self.fail(key, f"expected a list of {what}, got {quote(value_text(value))}")
        return tuple(int(v) for v in value)

    def bases(self, key: str, default: Any = _MISSING) -> tuple[tuple[int, ...], ...]:
        """A list of integer lists, e.g. ``[[0, 1], [8, 0]]``."""
        value = self.params.get(key, _MISSING)
        if value.__class__ is list and all(
                b.__class__ is list and all(v.__class__ is int and v >= 0 for v in b) for b in value):
            self.used.add(key)
            return tuple(map(tuple, value))
        if value is _MISSING and default is not _MISSING:
            return default
        value = self.raw(key)
        if isinstance(value, tuple):
            value = list(value)
        ok = isinstance(value, list) and all(
            isinstance(b, (list, tuple)) and all(is_int(v) for v in b) for b in value
        )
        if not ok:
            raise self.fail(key, f"expected a list of integer lists like [[0, 1]], got {quote(value_text(value))}")
        if any(v < 0 for b in value for v in b):
            raise self.fail(key, f"expected non-negative integers, got {quote(value_text(value))}")
        return tuple(tuple(int(v) for v in b) for b in value)

    def attribute(self, key: str) -> Attribute:
        value = self.raw(key)
        if not isinstance(value, Attribute):
            raise self.fail(key, f"expected an attribute like '#ttg.blocked<{{...}}>' or an alias, got {quote(value_text(value))}")
        return value


# --------------------------------------------------------------------------------------
# checking
# --------------------------------------------------------------------------------------
def check_ints(field: str, values: Any, *, minimum: int = 0) -> tuple[int, ...]:
    """``values`` as a tuple of ints >= ``minimum`` (for constructor arguments)."""
    if values.__class__ in (tuple, list) and all(v.__class__ is int and v >= minimum for v in values):
        return tuple(values)
    try:
        items = tuple(values)
    except TypeError:
        raise LayoutError(f"{field}: expected a list of integers, got {quote(values)}") from None
    if not all(is_int(v) for v in items):
        raise LayoutError(f"{field}: expected a list of integers, got {quote(list(items))}")
    items = tuple(int(v) for v in items)
    if any(v < minimum for v in items):
        raise LayoutError(f"{field}: expected integers >= {minimum}, got {quote(ints_text(items))}")
    return items


def check_int(field: str, value: Any, *, minimum: int = 0) -> int:
    """``value`` as an int >= ``minimum`` (a bool is not an int here)."""
    if not is_int(value) or value < minimum:
        raise LayoutError(f"{field}: expected an integer >= {minimum}, got {quote(value)}")
    return int(value)


def check_bases(field: str, values: Any) -> tuple[tuple[int, ...], ...]:
    """``values`` as a tuple of bases (tuples of non-negative ints)."""
    if values.__class__ in (tuple, list) and all(b.__class__ in (tuple, list) and all(
            v.__class__ is int and v >= 0 for v in b) for b in values):
        return tuple(map(tuple, values))
    try:
        bases = tuple(check_ints(field, b) for b in values)
    except TypeError:
        raise LayoutError(f"{field}: expected a list of integer lists, got {quote(values)}") from None
    return bases


def check_powers_of_two(field: str, values: Sequence[int]) -> None:
    if not all(is_power_of_two(v) for v in values):
        raise LayoutError(f"{field}: every entry must be a power of two, got {quote(ints_text(values))}")


def check_rank(field: str, values: Sequence[Any], rank: int, reference: str) -> None:
    if len(values) != rank:
        raise LayoutError(
            f"{field}: has rank {len(values)} but {reference} has rank {rank} "
            f"(got {quote(value_text(list(values)))})"
        )


def check_k_width(k_width: int, parent: str) -> None:
    """kWidth of a dot operand whose parent is the matrix-core layout ``parent``: required,
    a power of two <= 64."""
    if k_width == 0:
        raise LayoutError(f"kWidth: required (non-zero) for an {parent} parent")
    if not is_power_of_two(k_width) or k_width > 64:
        raise LayoutError(f"kWidth: must be a power of two <= 64 for an {parent} parent, got {k_width}")


def check_permutation(field: str, order: Sequence[int]) -> None:
    if sorted(order) != list(range(len(order))):
        raise LayoutError(f"{field}: must be a permutation of 0..{len(order) - 1}, got {quote(ints_text(order))}")


def check_tensor_shape(shape: Any, rank: int, encoding: str) -> tuple[int, ...]:
    """A tensor shape for an encoding of ``rank``: positive powers of two, the right rank."""
    dims = check_shape(shape)
    if len(dims) != rank:
        raise LayoutError(f"shape: {quote(ints_text(dims))} has rank {len(dims)} but the {encoding} layout has rank {rank}")
    if not all(is_power_of_two(d) for d in dims):
        raise LayoutError(
            f"shape: Triton's {encoding} layout covers power-of-two shapes only, got {quote(ints_text(dims))}"
        )
    return dims


# --------------------------------------------------------------------------------------
# building
# --------------------------------------------------------------------------------------
class Draft:
    """A linear layout under construction, in Triton's terms (see the module docstring).

    ``bases[in_dim]`` is a tuple of bases, each a tuple of ``rank`` tensor coordinates;
    ``dims`` is the out-dim order (tensor-dim indices; a dim not yet produced is absent);
    ``sizes[d]`` is the out-dim size of tensor dim ``d`` (1 where absent). Treat a draft as
    a value: every operation returns a new one (it is a plain slotted class, not a frozen
    dataclass, only because building layouts is on the hot path).

    Example: ``Draft.identity(2, "register", 1, rank=2) * Draft.identity(4, "lane", 0, rank=2)``
    has ``bases == {"register": ((0, 1),), "lane": ((1, 0), (2, 0))}``, ``dims == (1, 0)``
    and ``sizes == (4, 2)``.

    ``proven``: the bases are tuples of ``rank`` non-negative ints, each below its dim's size
    in ``sizes`` -- true of every draft the operations below make from a proven draft (a walk
    appends ``step << k`` below ``step * size``; a product scales ``other``'s values below
    ``other``'s sizes by ``self``'s; an inferred size lies above every value), so
    :meth:`build` skips its check of the values. A draft made from outside bases is not
    proven unless its maker shows it (``from_bases`` checks them once).
    """

    __slots__ = ("rank", "bases", "dims", "sizes", "proven")

    def __init__(self, rank: int, bases: dict[str, tuple[tuple[int, ...], ...]], dims: Sequence[int],
                 sizes: Sequence[int], proven: bool = False):
        self.rank = rank
        self.bases = bases
        self.dims = tuple(dims)
        self.sizes = tuple(sizes)
        self.proven = proven

    def __repr__(self) -> str:
        return f"Draft(rank={self.rank}, bases={self.bases}, dims={self.dims}, sizes={self.sizes})"

    # -- constructors (Triton's identity1D / zeros1D / empty) -----------------------
    @classmethod
    def empty(cls, rank: int) -> Draft:
        return cls(rank, {}, (), (1,) * rank, True)

    @classmethod
    def identity(cls, size: int, in_dim: str, dim: int, *, rank: int) -> Draft:
        """``identity1D(size, in_dim, dim)``: input ``i`` -> coordinate ``i`` along ``dim``."""
        return cls.empty(rank).times_identity(size, in_dim, dim)

    @classmethod
    def zeros(cls, size: int, in_dim: str, dim: int, *, rank: int) -> Draft:
        """``zeros1D(size, in_dim, dim)``: every input -> coordinate 0 (broadcast)."""
        return cls.empty(rank).times_zeros(size, in_dim, dim)

    @classmethod
    def from_bases(cls, rank: int, bases: dict[str, Sequence[Sequence[int]]], dims: Sequence[int]) -> Draft:
        """``LinearLayout(bases, outDimNames)`` with sizes inferred from the bases; the
        bases are given per in-dim as full-rank tensor coordinates."""
        frozen = {k: tuple(tuple(int(x) for x in b) for b in v) for k, v in bases.items()}
        every = [b for v in frozen.values() for b in v]
        proven = all(len(b) == rank and min(b, default=0) >= 0 for b in every)
        return cls(rank, frozen, dims, _inferred_sizes(rank, frozen), proven)

    @classmethod
    def identity_nd(cls, in_dim: str, shape: Sequence[int], order: Sequence[int]) -> Draft:
        """Triton's ``identityStandardND``: ``in_dim`` walks ``shape`` with ``order[0]`` fastest."""
        return cls.empty(len(shape)).times_walk(in_dim, shape, order)

    # -- algebra ----------------------------------------------------------------------
    def times_identity(self, size: int, in_dim: str, dim: int) -> Draft:
        """``self * identity1D(size, in_dim, dim)``, without building the factor."""
        return self.times_walk(in_dim, {dim: size}, (dim,))

    def times_zeros(self, size: int, in_dim: str, dim: int) -> Draft:
        """``self * zeros1D(size, in_dim, dim)``: ``log2(size)`` broadcast bases."""
        return self.times_walk(in_dim, {dim: size}, (dim,), broadcast_dim=dim)

    def times_walk(self, in_dim: str, shape: Any, order: Sequence[int], broadcast_dim: int = -1) -> Draft:
        """``self * identityStandardND(in_dim, shape, order)``; steps along
        ``broadcast_dim`` map to 0 (Triton's ``broadcastedDotOperandLayout``). All the new
        bases are made in one pass: ``shape[dim] = 4`` along dim 1 of a rank-2 draft whose
        dim 1 has size 2 appends ``(0, 2), (0, 4)`` and makes that size 8."""
        rank = self.rank
        sizes = list(self.sizes)
        dims = list(self.dims)
        new: list[tuple[int, ...]] = []
        for dim in order:
            size = shape[dim]
            if dim == broadcast_dim:
                new += [(0,) * rank] * log2(max(size, 1))
            elif size > 1:
                step = sizes[dim]
                before, after = (0,) * dim, (0,) * (rank - dim - 1)
                new += [before + (step << k,) + after for k in range((size - 1).bit_length())]
                sizes[dim] = step * size
            if dim not in dims:
                dims.append(dim)
        bases = dict(self.bases)
        bases[in_dim] = bases.get(in_dim, ()) + tuple(new)
        # a size <= 0 appends nothing but would make a size that bounds nothing
        return Draft(rank, bases, dims, sizes, self.proven and min(sizes) > 0)

    def times_steps(self, steps: Iterable[tuple[str, int, int, bool]]) -> Draft:
        """Several ``times_identity`` (``broadcast`` false) / ``times_zeros`` (true) in turn,
        given as ``(in_dim, dim, size, broadcast)``, making one draft instead of one per
        step: ``[("lane", 1, 4, False), ("lane", 0, 8, False)]`` on an empty rank-2 draft
        appends the lane bases ``(0, 1), (0, 2), (1, 0), (2, 0), (4, 0)``."""
        rank = self.rank
        sizes = list(self.sizes)
        dims = list(self.dims)
        bases = self.bases.copy()
        zero = (0,) * rank
        for in_dim, dim, size, broadcast in steps:
            if dim not in dims:
                dims.append(dim)
            if broadcast:
                new: Any = (zero,) * log2(max(size, 1))
            elif size > 1:
                step = sizes[dim]
                before, after = zero[:dim], zero[dim + 1:]
                new = tuple([(*before, step << k, *after) for k in range((size - 1).bit_length())])
                sizes[dim] = step * size
            else:
                new = ()
            bases[in_dim] = bases[in_dim] + new if in_dim in bases else new
        return Draft(rank, bases, dims, sizes, self.proven and min(sizes) > 0)

    def __mul__(self, other: Draft) -> Draft:
        """Triton's ``operator*``: in-dims and out-dims united; ``other``'s bases come after
        ``self``'s and are scaled by ``self``'s out-dim sizes."""
        bases = dict(self.bases)
        scale = self.sizes
        scaled = any(s != 1 for s in scale)
        for in_dim, other_bases in other.bases.items():
            if scaled:
                other_bases = tuple(tuple(v * s for v, s in zip(b, scale)) for b in other_bases)
            bases[in_dim] = bases.get(in_dim, ()) + tuple(other_bases)
        dims = self.dims + tuple(d for d in other.dims if d not in self.dims)
        sizes = tuple(a * b for a, b in zip(self.sizes, other.sizes))
        return Draft(self.rank, bases, dims, sizes, self.proven and other.proven and other.rank == self.rank)

    def with_dims(self, dims: Sequence[int]) -> Draft:
        """``transposeOuts``: the same map with the out-dims listed in ``dims`` order."""
        return Draft(self.rank, self.bases, dims, self.sizes, self.proven)

    def with_in_dims(self, names: Sequence[str]) -> Draft:
        """The in-dims in ``names`` order; a missing one gets no bases (size 1)."""
        return Draft(self.rank, {n: self.bases.get(n, ()) for n in names}, self.dims, self.sizes, self.proven)

    def not_smaller_than(self, shape: Sequence[int], in_dim: str = "register") -> Draft:
        """``ensureLayoutNotSmallerThan``: repeat over ``in_dim`` (in out-dim order) until
        every out-dim is at least ``shape``."""
        steps = [(in_dim, dim, shape[dim] // self.sizes[dim], False)
                 for dim in self.dims if shape[dim] > self.sizes[dim]]
        return self.times_steps(steps) if steps else self

    def not_larger_than(self, shape: Sequence[int], broadcast_registers: bool = True) -> Draft:
        """``ensureLayoutNotLargerThan``: zero the largest bases of each out-dim until it is
        no larger than ``shape``; with ``broadcast_registers=False`` such register bases are
        dropped instead of zeroed. Out-dim sizes are then inferred from the bases."""
        over = [d for d in self.dims if self.sizes[d] > shape[d]]
        if not over:
            return Draft(self.rank, self.bases, self.dims, _inferred_sizes(self.rank, self.bases), self.proven)
        bases = dict(self.bases)  # only the in-dims with a zeroed basis are rebuilt
        dropped: set[int] = set()
        for dim in over:
            actual, desired = self.sizes[dim], shape[dim]
            candidates = [
                (b[dim], in_dim, i)
                for in_dim, in_bases in bases.items()
                for i, b in enumerate(in_bases)
                if b[dim] != 0
            ]
            # largest first, stable (reverse keeps ties in order); Triton's llvm::sort is not
            candidates.sort(key=_first, reverse=True)
            zeroed: dict[str, set[int]] = {}
            for _, in_dim, i in candidates:
                if actual <= desired:
                    break
                if not broadcast_registers and in_dim == "register":
                    dropped.add(i)
                else:
                    zeroed.setdefault(in_dim, set()).add(i)
                actual >>= 1
            for in_dim, rows in zeroed.items():
                bases[in_dim] = tuple(b[:dim] + (0,) + b[dim + 1:] if i in rows else b
                                      for i, b in enumerate(bases[in_dim]))
        if dropped:
            bases["register"] = tuple(b for i, b in enumerate(bases["register"]) if i not in dropped)
        return Draft(self.rank, bases, self.dims, _inferred_sizes(self.rank, bases), self.proven)

    # -- result -----------------------------------------------------------------------
    def build(self, in_dims: Sequence[str] = DISTRIBUTED_IN_DIMS, sizes: Sequence[int] | None = None):
        """The :class:`~layoutkit.core.linear.LinearLayout` (in-dims in ``in_dims`` order,
        out-dims ``dim0, dim1, ...`` of ``sizes``, by default the draft's sizes)."""
        out_sizes = self.sizes if sizes is None else sizes
        get = self.bases.get
        ins = tuple((name, get(name, ())) for name in in_dims)
        out = tuple(zip(_OUT_NAMES, out_sizes)) if len(out_sizes) <= len(_OUT_NAMES) else tuple(
            (f"dim{d}", s) for d, s in enumerate(out_sizes))
        rank = len(out_sizes)
        sizes_ok = (rank == self.rank and all(s.__class__ is int and s > 0 and not s & (s - 1) for s in out_sizes)
                    and sum(s.bit_length() - 1 for s in out_sizes) <= 62)
        if sizes_ok and self.proven and all(a >= b for a, b in zip(out_sizes, self.sizes)):
            # every value lies below the draft's size, which lies within the out dim
            return LinearLayout._trusted(ins, out)
        bases = dict(ins)
        # a draft made from outside bases: when every value lies inside its power-of-two
        # out dim (one pass per column), the parts are the LinearLayout's as they are;
        # otherwise the public constructor names what is wrong
        every = [b for rows in bases.values() for b in rows]
        if (sizes_ok
                and {b.__class__ for b in every} <= {tuple} and {len(b) for b in every} <= {rank}
                and (not every or (min(map(min, every)) >= 0
                                   and all(max(c) < s for c, s in zip(zip(*every), out_sizes))))):
            return LinearLayout._trusted(tuple((name, tuple(rows)) for name, rows in bases.items()), out)
        return LinearLayout(bases, {name: int(s) for name, s in out})


def _first(item: tuple) -> Any:
    return item[0]


def _unit(rank: int, dim: int, value: int) -> tuple[int, ...]:
    return tuple(value if d == dim else 0 for d in range(rank))


def _inferred_sizes(rank: int, bases: dict[str, tuple[tuple[int, ...], ...]]) -> tuple[int, ...]:
    """Per dim, the smallest power of two above every basis value (1 when all are 0): the
    next power of two above the column's largest value."""
    every = [b for in_bases in bases.values() for b in in_bases]
    if not every:
        return (1,) * rank
    return tuple(1 << top.bit_length() for top in map(max, zip(*every)))


def combine_cta_cga(cta: Draft | None, cga_bases: Sequence[Sequence[int]], shape: Sequence[int],
                    drop_registers: bool = False, fit: Callable[[tuple[int, ...]], Draft] | None = None) -> Draft:
    """Triton's ``combineCtaCgaWithShape``: fit the CGA layout (``block`` bases) and the
    per-CTA layout (``register``/``lane``/``warp`` or ``offset``) to ``shape`` and multiply.

    The CGA layout is first cut to ``shape``; each CTA then covers ``shape / cga size``
    (at least 1), repeating over registers where larger and broadcasting where smaller --
    except that with ``drop_registers`` (Triton 3.9's blocked layouts) register bases that
    leave the tensor are removed rather than zeroed. ``fit(cta_shape)``: the CTA layout
    already fitted to a shape (its out-dims in order), where an encoding makes it in one
    pass; ``cta`` is then not used.
    """
    rank = len(shape)
    if fit is None:
        first_in_dim = next(iter(cta.bases), "register")
        def fit(cta_shape):
            return cta.not_smaller_than(cta_shape, first_in_dim).not_larger_than(cta_shape, not drop_registers)
    if not cga_bases:  # one CTA: the CTA layout covers the shape; no block bases
        fitted = fit(tuple(shape))
        return Draft(rank, {**fitted.bases, "block": fitted.bases.get("block", ())}, range(rank), fitted.sizes,
                     fitted.proven and fitted.rank == rank)
    cga = Draft.from_bases(rank, {"block": cga_bases}, range(rank)).not_larger_than(shape)
    cta_shape = tuple(max(1, s // c) for s, c in zip(shape, cga.sizes))
    fitted = fit(cta_shape)
    return (fitted * cga.with_dims(fitted.dims)).with_dims(range(rank))


def fitted_draft(rank: int, dims: Sequence[int], steps: Iterable[tuple[str, int, int, bool]],
                 shape: tuple[int, ...]) -> Draft | None:
    """One pass of ``combine_cta_cga(Draft(rank, {}, dims, ...).times_steps(steps), (), shape)``
    (one CTA, ``register`` the first in-dim; tested against it): the steps' bases made with every value at or past
    ``shape`` along its dim zeroed (``not_larger_than``), then register repetitions along
    ``dims`` (then the steps' new dims, in turn) until each dim covers ``shape``
    (``not_smaller_than``). None when a step's size is not a power of two (the draft algebra
    then decides). Along each dim the values are 1, 2, 4, ... once each, so zeroing the
    largest until the dim fits zeroes exactly those at or past it. With ``dims = (1, 0)``
    the steps ``("lane", 1, 4, False), ("lane", 0, 8, False)`` on shape (16, 2) give the
    lanes ``(0, 1), (0, 0), (1, 0), (2, 0), (4, 0)`` (2 is past dim 1) and the register
    ``(8, 0)`` (dim 0 covers 8 of 16)."""
    zero = (0,) * rank
    sizes = [1] * rank
    order = list(dims)
    out: dict[str, list[tuple[int, ...]]] = {"register": [], "lane": [], "warp": []}
    for in_dim, dim, size, broadcast in steps:
        if size & (size - 1) or size < 1:
            return None
        rows = out[in_dim] if in_dim in out else out.setdefault(in_dim, [])
        if dim not in order:
            order.append(dim)
        if broadcast:
            rows += (zero,) * (size.bit_length() - 1)
        elif size > 1:
            value, limit = sizes[dim], shape[dim]
            before, after = zero[:dim], zero[dim + 1:]
            for _ in range(size.bit_length() - 1):
                rows.append((*before, value, *after) if value < limit else zero)
                value <<= 1
            sizes[dim] = value
    registers = out["register"]
    for dim in order:
        value, limit = sizes[dim], shape[dim]
        before, after = zero[:dim], zero[dim + 1:]
        while value < limit:
            registers.append((*before, value, *after))
            value <<= 1
    if len(order) != rank:  # a dim no step walks: the algebra's sizes say what it covers
        return None
    bases = {name: tuple(rows) for name, rows in out.items()}
    bases["block"] = ()
    return Draft(rank, bases, range(rank), shape, True)


@lru_cache(maxsize=64)
def matrix_order(rank: int, row_major: bool = True) -> tuple[int, ...]:
    """Triton's ``getMatrixOrder``: ``[rank-1, ..., 0]``, the two minor dims swapped when
    not row-major (``[0, 1]`` for a column-major matrix)."""
    order = list(range(rank - 1, -1, -1))
    if not row_major:
        order[0], order[1] = order[1], order[0]
    return tuple(order)


def dot_operand_order(op_idx: int, rank: int, k_contiguous: bool = True) -> tuple[int, ...]:
    """Triton's ``getOrderForDotOperand``: operand A ``[.., M, K]`` is row-major and B
    ``[.., K, N]`` column-major when K is the contiguous dim."""
    return matrix_order(rank, row_major=bool(op_idx) != k_contiguous)


def broadcast_along(in_dim: str, sizes: Sequence[int], order: Sequence[int], k_dim: int) -> Draft:
    """Triton's ``broadcastedDotOperandLayout``: ``in_dim`` walks ``sizes`` in ``order`` but
    every step along ``k_dim`` maps to 0 (the operand is replicated along K)."""
    return Draft.empty(len(sizes)).times_walk(in_dim, sizes, order, broadcast_dim=k_dim)


def place(vectors: Sequence[Sequence[int]], dims: Sequence[int], rank: int) -> list[tuple[int, ...]]:
    """Short bases written over out dims ``dims`` -> full-rank tensor coordinates.

    >>> place([[0, 2], [1, 0]], dims=(1, 0), rank=2)   # written as (dim1, dim0)
    [(2, 0), (0, 1)]
    """
    out = []
    for vec in vectors:
        full = [0] * rank
        for d, v in zip(dims, vec):
            full[d] = v
        out.append(tuple(full))
    return out


MAX_TENSOR_DIM = 1 << 30


class DistributedEncoding(LayoutBase):
    """What every TritonGPU distributed encoding shares: the protocol over
    :meth:`to_linear_layout`, shape checks, and a cache of linear layouts per shape.

    A subclass sets ``ATTR_NAME``, defines ``rank``, ``field_text()`` (the ``k = v, ...``
    body) and ``draft(shape)`` (its layout as a :class:`Draft` on a checked shape).
    """

    kind = "distributed"
    ATTR_NAME = ""

    @property
    def rank(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def field_text(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def draft(self, shape: tuple[int, ...]) -> Draft:  # pragma: no cover - overridden
        raise NotImplementedError

    def __str__(self) -> str:
        return f"#ttg.{self.ATTR_NAME}<{{{self.field_text()}}}>"

    # -- protocol ----------------------------------------------------------------------
    def tensor_shape(self, shape: Any = None) -> tuple[int, ...]:
        if shape.__class__ is tuple and len(shape) == self.rank and all(
                d.__class__ is int and 0 < d <= MAX_TENSOR_DIM and not d & (d - 1) for d in shape):
            return shape  # the common case in one pass: a tuple of power-of-two ints in range
        if shape is None:
            raise LayoutError(f"shape: #ttg.{self.ATTR_NAME} needs a tensor shape, e.g. shape=(16, 16)")
        dims = check_tensor_shape(shape, self.rank, self.ATTR_NAME)
        if any(d > MAX_TENSOR_DIM for d in dims):
            raise LayoutError(f"shape: dims are limited to 2**30, got {quote(ints_text(dims))}")
        return dims

    def build_linear_layout(self, shape: Any):
        """``to_linear_layout`` computed afresh (no cache): what the benchmark times."""
        dims = self.tensor_shape(shape)
        draft = self.draft(dims)
        if draft.sizes != dims:  # pragma: no cover - Triton asserts the same
            raise LayoutError(
                f"shape: #ttg.{self.ATTR_NAME} cannot cover {quote(ints_text(dims))} "
                f"(it covers {quote(ints_text(draft.sizes))})"
            )
        return draft.build(sizes=dims)

    def natural_shape(self) -> tuple[int, ...]:
        """The smallest tensor shape this layout covers without broadcast: grown from all
        ones by doubling, each step the first dim whose doubling removes a broadcast bit (a
        free variable of the linear layout). The shape to draw the layout at when none is
        given (Jupyter). Example: the seed's blocked layout sizePerThread [1, 4],
        threadsPerWarp [4, 8], warpsPerCTA [4, 1] gives (16, 32)."""
        shape = [1] * self.rank

        def broadcast_bits(dims: list[int]) -> int:
            layout = self.to_linear_layout(tuple(dims))
            return layout.total_in_bits - layout.matrix_rank

        free = broadcast_bits(shape)
        while free:
            for d in range(self.rank):
                grown = shape[:d] + [shape[d] * 2] + shape[d + 1:]
                if grown[d] <= MAX_TENSOR_DIM and (now := broadcast_bits(grown)) < free:
                    shape, free = grown, now
                    break
            else:
                break
        return tuple(shape)

    def to_linear_layout(self, shape: Any = None):
        """Triton's linear layout of this encoding on a tensor ``shape``: in-dims ``register,
        lane, warp, block``, out-dims ``dim0, dim1, ...`` of the shape's sizes."""
        dims = self.tensor_shape(shape)
        return _cached_linear_layout(self, dims)

    def hardware_dims(self, shape: Any = None) -> dict[str, int]:
        return dict(self.to_linear_layout(shape).in_dims)

    def apply(self, shape: Any = None, **hw: Any) -> dict[str, Any]:
        return self.to_linear_layout(shape).apply(**hw)


@lru_cache(maxsize=1024)
def _cached_linear_layout(encoding: DistributedEncoding, shape: tuple[int, ...]):
    return encoding.build_linear_layout(shape)
