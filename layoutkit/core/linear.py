"""Linear layouts over F2, with the semantics of Triton's ``LinearLayout``.

A linear layout maps named *input* dims (``register``, ``lane``, ``warp``, ``block`` for a
distributed tensor; ``offset``, ``block`` for memory) to named, ordered *output* dims
(``dim0``, ``dim1``, ... for a tensor). Every dim has a power-of-two size. The map is linear
over F2 (bits, with XOR as addition), so it is fixed by the images of the single-bit inputs:
``bases[in_dim][i]`` is the output -- one int per out dim -- for ``in_dim = 2**i`` with all
other inputs 0. Any other input XORs the bases of its set bits::

    L = LinearLayout({"register": [[0, 1], [8, 0]],
                      "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]},
                     {"dim0": 16, "dim1": 8})
    L.apply(register=3, lane=5)   # bases register 1, 2 and lane 1, 4 XORed:
    # (0,1) ^ (8,0) ^ (0,2) ^ (1,0) = {"dim0": 9, "dim1": 3}

A zero basis, or a basis repeated (or a XOR of other bases), means two inputs hold the same
output: broadcast. Out-dim sizes are explicit, so a layout need not be surjective.

Internally each basis is also kept *flat*: one int whose bits are the out dims' bits
concatenated, the first out dim least significant (Triton's ``flattenOuts`` order). Input
bits are flattened the same way, the first in dim least significant. The matrix of the
layout has one column per flat input bit; all the algebra is GF(2) elimination on those
columns (:mod:`layoutkit.core.gf2`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from layoutkit.core import gf2
from layoutkit.core.bits import is_pow2, log2
from layoutkit.core.protocol import LayoutBase, check_shape, out_dim_names
from layoutkit.errors import LayoutError, quote

Bases = dict[str, list[list[int]]]


def _supremum(first: Sequence[str], second: Sequence[str], what: str) -> list[str]:
    """All names of both lists, in an order consistent with each (Triton's supremum)."""
    in_first, in_second = set(first), set(second)
    result: list[str] = []
    i = j = 0
    while i < len(first) and j < len(second):
        if first[i] == second[j]:
            result.append(first[i])
            i += 1
            j += 1
        elif first[i] not in in_second:
            result.append(first[i])
            i += 1
        elif second[j] not in in_first:
            result.append(second[j])
            j += 1
        else:
            raise LayoutError(
                f"{what}: the dims {quote(list(first))} and {quote(list(second))} "
                "appear in different relative orders"
            )
    result.extend(first[i:])
    result.extend(second[j:])
    return result


@dataclass(frozen=True, init=False, eq=False, repr=False)
class LinearLayout(LayoutBase):
    """A linear map over F2 from named input dims to named output dims (see module doc).

    ``LinearLayout(bases, out_dims)``: ``bases`` maps each in dim to its list of bases (each
    a list of ints, one per out dim, in ``out_dims`` order); ``out_dims`` maps each out dim
    to its size (a power of two). Use :meth:`from_bases` to infer the out sizes.
    """

    _in: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...]
    _out: tuple[tuple[str, int], ...]

    def __init__(self, bases: Mapping[str, Sequence[Sequence[int]]], out_dims: Mapping[str, int] | Sequence[tuple[str, int]]):
        out_items = list(out_dims.items()) if isinstance(out_dims, Mapping) else list(out_dims)
        out_names: list[str] = []
        for item in out_items:
            if not (isinstance(item, tuple) and len(item) == 2):
                raise LayoutError(f"out_dims: expected name -> size, got {quote(item)}")
            name, size = item
            if not isinstance(name, str) or not name:
                raise LayoutError(f"out_dims: dim names must be strings, got {quote(name)}")
            if name in out_names:
                raise LayoutError(f"out_dims: dim {quote(name)} given twice")
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not is_pow2(int(size)):
                raise LayoutError(f"out_dims: size of {quote(name)} must be a power of two, got {quote(size)}")
            out_names.append(name)
        out = tuple((name, int(size)) for name, size in out_items)
        if not isinstance(bases, Mapping):
            raise LayoutError(f"bases: expected a mapping in-dim -> list of bases, got {quote(bases)}")
        ins = []
        for in_name, in_bases in bases.items():
            if not isinstance(in_name, str) or not in_name:
                raise LayoutError(f"bases: in-dim names must be strings, got {quote(in_name)}")
            rows = []
            for i, basis in enumerate(in_bases):
                try:
                    row = tuple(int(v) for v in basis)
                except (TypeError, ValueError):
                    raise LayoutError(f"bases[{in_name!r}][{i}]: expected a list of ints, got {quote(basis)}") from None
                if any(isinstance(v, bool) for v in basis):
                    raise LayoutError(f"bases[{in_name!r}][{i}]: expected ints, got {quote(basis)}")
                if len(row) != len(out):
                    raise LayoutError(
                        f"bases[{in_name!r}][{i}]: expected {len(out)} values (one per out dim: "
                        f"{', '.join(out_names)}), got {quote(list(row))}"
                    )
                for (out_name, size), v in zip(out, row):
                    if not 0 <= v < size:
                        raise LayoutError(
                            f"bases[{in_name!r}][{i}]: value {v} for out dim {quote(out_name)} "
                            f"is outside [0, {size})"
                        )
                rows.append(row)
            ins.append((in_name, tuple(rows)))
        object.__setattr__(self, "_in", tuple(ins))
        object.__setattr__(self, "_out", out)
        if self.total_out_bits > 62:
            raise LayoutError(f"out_dims: at most 62 output bits are supported, got {self.total_out_bits}")

    # -- construction -------------------------------------------------------------------
    @classmethod
    def _trusted(cls, ins: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...], out: tuple[tuple[str, int], ...],
                 columns: tuple[int, ...] | None = None) -> LinearLayout:
        """The layout of already-checked parts, without the public constructor's checks: the
        algebra builds its results this way (their bases come from valid layouts).
        ``columns``: the flat bases when the caller has them."""
        layout = object.__new__(cls)
        object.__setattr__(layout, "_in", ins)
        object.__setattr__(layout, "_out", out)
        if columns is not None:
            layout.__dict__["columns"] = columns
        return layout

    @classmethod
    def from_bases(cls, bases: Mapping[str, Sequence[Sequence[int]]], out_names: Sequence[str],
                   require_surjective: bool = True) -> LinearLayout:
        """Infer each out dim's size as the smallest power of two above every basis value
        (Triton's constructor with out-dim names only)."""
        out_names = list(out_names)
        sizes = [1] * len(out_names)
        for in_name, in_bases in bases.items():
            for basis in in_bases:
                if len(basis) != len(out_names):
                    raise LayoutError(f"bases[{in_name!r}]: expected {len(out_names)} values per basis, got {quote(list(basis))}")
                for k, v in enumerate(basis):
                    if int(v) < 0:
                        raise LayoutError(f"bases[{in_name!r}]: negative value {v}")
                    while sizes[k] <= int(v):
                        sizes[k] *= 2
        layout = cls(bases, dict(zip(out_names, sizes)))
        if require_surjective and not layout.is_surjective():
            raise LayoutError(f"bases: the layout is not surjective onto {quote(out_names)}: {layout!r}")
        return layout

    @classmethod
    def empty(cls) -> LinearLayout:
        """The layout with no dims: the unit of ``*``."""
        return cls({}, {})

    @classmethod
    def identity_1d(cls, size: int, in_dim: str, out_dim: str) -> LinearLayout:
        """``out_dim = in_dim`` for ``in_dim`` in ``[0, size)``."""
        cls._check_size(size, "size")
        return cls({in_dim: [[1 << i] for i in range(log2(size))]}, {out_dim: size})

    @classmethod
    def zeros_1d(cls, size: int, in_dim: str, out_dim: str, out_dim_size: int = 1) -> LinearLayout:
        """Every ``in_dim`` value maps to ``out_dim = 0`` (pure broadcast)."""
        cls._check_size(size, "size")
        return cls({in_dim: [[0] for _ in range(log2(size))]}, {out_dim: out_dim_size})

    @classmethod
    def strided_1d(cls, size: int, stride: int, in_dim: str, out_dim: str) -> LinearLayout:
        """``out_dim = in_dim * stride`` (stride a power of two)."""
        cls._check_size(size, "size")
        cls._check_size(stride, "stride")
        return cls({in_dim: [[stride << i] for i in range(log2(size))]}, {out_dim: size * stride})

    @staticmethod
    def _check_size(size: Any, field: str) -> None:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not is_pow2(int(size)):
            raise LayoutError(f"{field}: must be a power of two, got {quote(size)}")

    # -- dims ---------------------------------------------------------------------------------
    @property
    def bases(self) -> Bases:
        """A fresh plain mapping in-dim -> list of bases (lists of ints, one per out dim)."""
        return {name: [list(b) for b in rows] for name, rows in self._in}

    @property
    def in_dims(self) -> dict[str, int]:
        return {name: 1 << len(rows) for name, rows in self._in}

    @property
    def out_dims(self) -> dict[str, int]:
        return dict(self._out)

    @property
    def in_dim_names(self) -> list[str]:
        return [name for name, _ in self._in]

    @property
    def out_dim_names(self) -> list[str]:
        return [name for name, _ in self._out]

    def has_in_dim(self, name: str) -> bool:
        return any(n == name for n, _ in self._in)

    def has_out_dim(self, name: str) -> bool:
        return any(n == name for n, _ in self._out)

    def _bases_of(self, name: str) -> tuple[tuple[int, ...], ...]:
        for n, rows in self._in:
            if n == name:
                return rows
        raise LayoutError(f"in dim: {quote(name)} is not one of {quote(self.in_dim_names)}")

    def _out_index(self, name: str) -> int:
        for k, (n, _) in enumerate(self._out):
            if n == name:
                return k
        raise LayoutError(f"out dim: {quote(name)} is not one of {quote(self.out_dim_names)}")

    def in_dim_size(self, name: str) -> int:
        return 1 << len(self._bases_of(name))

    def in_dim_size_log2(self, name: str) -> int:
        return len(self._bases_of(name))

    def out_dim_size(self, name: str) -> int:
        return self._out[self._out_index(name)][1]

    def out_dim_size_log2(self, name: str) -> int:
        return log2(self.out_dim_size(name))

    def get_basis(self, in_dim: str, i: int, out_dim: str | None = None) -> Any:
        """Basis ``i`` of ``in_dim``: a list of ints, or one int when ``out_dim`` is given."""
        rows = self._bases_of(in_dim)
        if not 0 <= i < len(rows):
            raise LayoutError(f"basis index: {i} is outside [0, {len(rows)}) for {quote(in_dim)}")
        if out_dim is None:
            return list(rows[i])
        return rows[i][self._out_index(out_dim)]

    @cached_property
    def total_in_bits(self) -> int:
        return sum(len(rows) for _, rows in self._in)

    @cached_property
    def total_out_bits(self) -> int:
        return sum(log2(size) for _, size in self._out)

    @property
    def total_in_dim_size(self) -> int:
        return 1 << self.total_in_bits

    @property
    def total_out_dim_size(self) -> int:
        return 1 << self.total_out_bits

    @cached_property
    def _out_shifts(self) -> tuple[int, ...]:
        shifts, shift = [], 0
        for _, size in self._out:
            shifts.append(shift)
            shift += log2(size)
        return tuple(shifts)

    def _flatten_value(self, row: Sequence[int]) -> int:
        return sum(v << s for v, s in zip(row, self._out_shifts))

    def _split_value(self, flat: int) -> list[int]:
        return [(flat >> s) & (size - 1) for s, (_, size) in zip(self._out_shifts, self._out)]

    @cached_property
    def columns(self) -> tuple[int, ...]:
        """The flat bases, one per input bit, in-dims in order (the matrix columns)."""
        return tuple(self._flatten_value(row) for _, rows in self._in for row in rows)

    # -- evaluation ------------------------------------------------------------------------
    def apply(self, shape: Any = None, **inputs: Any) -> dict[str, Any]:
        """Map input indices to outputs; ints give ints, numpy arrays broadcast together.

        Missing in dims count as 0. ``shape``, if given, must be this layout's tensor shape.
        """
        if shape is not None:
            self.tensor_shape(shape)
        arrays = any(isinstance(v, np.ndarray) for v in inputs.values())
        known = dict(self._in)
        flat: Any = 0
        for name, value in inputs.items():
            rows = known.get(name)
            if rows is None:
                raise LayoutError(f"apply: unknown in dim {quote(name)} (in dims: {quote(self.in_dim_names)})")
            size = 1 << len(rows)
            if arrays:
                value = np.asarray(value, dtype=np.int64)
                if value.size and (value.min() < 0 or value.max() >= size):
                    raise LayoutError(f"apply: {name} values must be in [0, {size})")
                for i, row in enumerate(rows):
                    basis = self._flatten_value(row)
                    if basis:
                        flat = flat ^ (((value >> i) & 1) * basis)
            else:
                value = int(value)
                if not 0 <= value < size:
                    raise LayoutError(f"apply: {name}={value} is outside [0, {size})")
                for i, row in enumerate(rows):
                    if value >> i & 1:
                        flat ^= self._flatten_value(row)
        if arrays:
            flat = np.broadcast_to(np.asarray(flat, dtype=np.int64),
                                   np.broadcast_shapes(*(np.shape(v) for v in inputs.values())))
            return {name: (flat >> s) & (size - 1) for s, (name, size) in zip(self._out_shifts, self._out)}
        return dict(zip(self.out_dim_names, self._split_value(flat)))

    def apply_flat(self, x: Any) -> Any:
        """Flat input (in dims' bits concatenated, first dim lowest) -> flat output."""
        x = np.asarray(x, dtype=np.int64)
        out = np.zeros_like(x)
        for i, col in enumerate(self.columns):
            if col:
                out ^= ((x >> i) & 1) * col
        return out

    # -- protocol ---------------------------------------------------------------------------
    def hardware_dims(self, shape: Any = None) -> dict[str, int]:
        return self.in_dims

    def tensor_shape(self, shape: Any = None) -> tuple[int, ...]:
        names = self.out_dim_names
        if names != out_dim_names(len(names)) or not names:
            raise LayoutError(f"out dims: a tensor layout needs out dims dim0, dim1, ..., got {quote(names)}")
        own = tuple(size for _, size in self._out)
        if shape is not None and check_shape(shape) != own:
            raise LayoutError(f"shape: this linear layout covers {quote(own)}, not {quote(tuple(shape))}")
        return own

    def to_linear_layout(self, shape: Any = None) -> LinearLayout:
        if shape is not None:
            self.tensor_shape(shape)
        return self

    @property
    def kind(self) -> str:  # type: ignore[override]
        return "memory" if "offset" in self.in_dims else "distributed"

    # -- properties -------------------------------------------------------------------------
    @cached_property
    def matrix_rank(self) -> int:
        """Rank of the layout's matrix over F2."""
        return gf2.rank(self.columns)

    def is_surjective(self) -> bool:
        return self.matrix_rank == self.total_out_bits

    def is_injective(self) -> bool:
        return self.matrix_rank == self.total_in_bits

    def is_invertible(self) -> bool:
        return self.is_surjective() and self.is_injective()

    def free_variable_masks(self) -> dict[str, int]:
        """Per in dim, the mask of its bits whose bases lie in the span of the bases before
        them (in flat order): the non-pivot columns of the reduced row-echelon form."""
        pivots = set(gf2.pivot_columns(self.columns))
        masks, c = {}, 0
        for name, rows in self._in:
            mask = 0
            for i in range(len(rows)):
                if c not in pivots:
                    mask |= 1 << i
                c += 1
            masks[name] = mask
        return masks

    # -- algebra ------------------------------------------------------------------------------
    def _from_flat(self, in_dims: Sequence[tuple[str, int]], flat_columns: Sequence[int],
                   out_dims: Sequence[tuple[str, int]]) -> LinearLayout:
        """The layout whose flat bases are ``flat_columns`` (values already inside the out
        dims: they come from layouts of these out dims)."""
        out = tuple((name, int(size)) for name, size in out_dims)
        fields, shift = [], 0
        for _, size in out:
            fields.append((shift, size - 1))
            shift += log2(size)
        columns = tuple(int(c) for c in flat_columns)
        ins, start = [], 0
        for name, bits in in_dims:
            ins.append((name, tuple(tuple((c >> s) & m for s, m in fields) for c in columns[start:start + bits])))
            start += bits
        return LinearLayout._trusted(tuple(ins), out, columns[:start])

    def compose(self, outer: LinearLayout) -> LinearLayout:
        """``outer(self(x))``: this layout's out dims must be ``outer``'s in dims, by name,
        each no larger than the in dim it feeds."""
        if set(self.out_dim_names) != set(outer.in_dim_names):
            raise LayoutError(
                f"compose: out dims {quote(self.out_dim_names)} do not match the outer layout's "
                f"in dims {quote(outer.in_dim_names)}"
            )
        for name, size in self._out:
            if size > outer.in_dim_size(name):
                raise LayoutError(f"compose: out dim {quote(name)} of size {size} exceeds the outer in dim size {outer.in_dim_size(name)}")
        outer_rows = dict(outer._in)
        images = []
        for _, rows in self._in:
            for row in rows:
                flat = 0
                for (name, _), v in zip(self._out, row):
                    obases = outer_rows[name]
                    i = 0
                    while v:
                        if v & 1:
                            flat ^= outer._flatten_value(obases[i])
                        v >>= 1
                        i += 1
                images.append(flat)
        return outer._from_flat([(n, len(r)) for n, r in self._in], images, outer._out)

    def invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
        """The layout ``C`` with ``outer(C(x)) == self(x)`` (Triton's ``invertAndCompose``).

        ``outer`` must be surjective onto out dims containing this layout's out dims. Where
        ``outer`` is not injective, each solution sets the free variables to zero, so it uses
        the earliest possible input bits (registers before lanes before warps).
        """
        missing = [n for n in self.out_dim_names if not outer.has_out_dim(n)]
        if missing:
            raise LayoutError(f"invert_and_compose: out dims {quote(missing)} are not out dims of the outer layout")
        for name, size in self._out:
            if size > outer.out_dim_size(name):
                raise LayoutError(f"invert_and_compose: out dim {quote(name)} of size {size} exceeds the outer layout's {outer.out_dim_size(name)}")
        if not outer.is_surjective():
            raise LayoutError("invert_and_compose: the outer layout must be surjective")
        # this layout's outputs in outer's flat out-space
        index = {name: k for k, name in enumerate(self.out_dim_names)}
        targets = []
        for _, rows in self._in:
            for row in rows:
                targets.append(sum(row[index[name]] << s for (name, _), s in zip(outer._out, outer._out_shifts) if name in index))
        solutions = gf2.solve(outer.columns, targets)
        assert all(s is not None for s in solutions)  # outer is surjective
        result_out = [(name, 1 << len(rows)) for name, rows in outer._in]
        return self._from_flat([(n, len(r)) for n, r in self._in], solutions, result_out)  # type: ignore[arg-type]

    def pseudo_invert(self) -> LinearLayout:
        """A right inverse ``P`` (``self(P(y)) == y`` for every ``y``) when surjective: out
        dims -> in dims, free variables zero. Requires a surjective layout."""
        if not self.is_surjective():
            raise LayoutError("pseudo_invert: the layout is not surjective")
        identity = LinearLayout({name: [[1 << i if k == j else 0 for k in range(len(self._out))]
                                        for i in range(log2(size))]
                                 for j, (name, size) in enumerate(self._out)}, self._out)
        return identity.invert_and_compose(self)

    def invert(self) -> LinearLayout:
        """The inverse layout (out dims -> in dims); the layout must be invertible."""
        if not self.is_invertible():
            raise LayoutError(f"invert: the layout is not invertible (rank {self.matrix_rank}, {self.total_in_bits} in bits, {self.total_out_bits} out bits)")
        return self.pseudo_invert()

    def __mul__(self, other: LinearLayout) -> LinearLayout:
        """The product: ``self`` is minor, ``other`` major. Shared in dims get ``other``'s
        bases after this layout's; shared out dims shift ``other``'s values above this
        layout's size (Triton's ``operator*``)."""
        if not isinstance(other, LinearLayout):
            return NotImplemented
        ins = _supremum(self.in_dim_names, other.in_dim_names, "product in dims")
        outs = _supremum(self.out_dim_names, other.out_dim_names, "product out dims")
        out_sizes = [(n, (self.out_dim_size(n) if self.has_out_dim(n) else 1)
                      * (other.out_dim_size(n) if other.has_out_dim(n) else 1)) for n in outs]
        bases: Bases = {}
        for name in ins:
            rows: list[list[int]] = []
            for layout in (self, other):
                if not layout.has_in_dim(name):
                    continue
                for row in layout._bases_of(name):
                    new = []
                    for out_name in outs:
                        if layout.has_out_dim(out_name):
                            v = row[layout._out_index(out_name)]
                            if layout is other and self.has_out_dim(out_name):
                                v <<= self.out_dim_size_log2(out_name)
                            new.append(v)
                        else:
                            new.append(0)
                    rows.append(new)
            bases[name] = rows
        return LinearLayout(bases, out_sizes)

    def _quotient_out_dims(self, divisor: LinearLayout) -> list[tuple[str, int]] | None:
        """Out dims of ``self`` divided by ``divisor``'s, or None when ``divisor`` has dims
        ``self`` lacks or is larger in one."""
        if not (set(divisor.in_dim_names) <= set(self.in_dim_names) and set(divisor.out_dim_names) <= set(self.out_dim_names)):
            return None
        out_sizes = []
        for name, size in self._out:
            d = divisor.out_dim_size(name) if divisor.has_out_dim(name) else 1
            if d > size:
                return None
            out_sizes.append((name, size // d))
        return out_sizes

    def divide_left(self, divisor: LinearLayout) -> LinearLayout | None:
        """The ``C`` with ``divisor * C == self`` (``divisor`` the minor factor), or None."""
        out_sizes = self._quotient_out_dims(divisor)
        if out_sizes is None:
            return None
        bases: Bases = {}
        for name, rows in self._in:
            skip = divisor.in_dim_size_log2(name) if divisor.has_in_dim(name) else 0
            if skip > len(rows):
                return None
            bases[name] = [[v >> (divisor.out_dim_size_log2(o) if divisor.has_out_dim(o) else 0)
                            for (o, _), v in zip(self._out, row)] for row in rows[skip:]]
        quotient = LinearLayout(bases, out_sizes)
        return quotient if divisor * quotient == self else None

    def divide_right(self, divisor: LinearLayout) -> LinearLayout | None:
        """The ``C`` with ``C * divisor == self`` (``divisor`` the major factor), or None."""
        out_sizes = self._quotient_out_dims(divisor)
        if out_sizes is None:
            return None
        bases: Bases = {}
        for name, rows in self._in:
            keep = len(rows) - (divisor.in_dim_size_log2(name) if divisor.has_in_dim(name) else 0)
            if keep < 0:
                return None
            new_rows = []
            for row in rows[:keep]:
                if any(v >= s for v, (_, s) in zip(row, out_sizes)):
                    return None
                new_rows.append(list(row))
            bases[name] = new_rows
        quotient = LinearLayout(bases, out_sizes)
        return quotient if quotient * divisor == self else None

    def sublayout(self, in_dims: Iterable[str], out_dims: Iterable[str]) -> LinearLayout:
        """The restriction to the given in dims and out dims (kept in this layout's order)."""
        in_set, out_set = set(in_dims), set(out_dims)
        unknown = (in_set - set(self.in_dim_names)) | (out_set - set(self.out_dim_names))
        if unknown:
            raise LayoutError(f"sublayout: unknown dims {quote(sorted(unknown))}")
        keep = [k for k, (n, _) in enumerate(self._out) if n in out_set]
        return LinearLayout({n: [[row[k] for k in keep] for row in rows] for n, rows in self._in if n in in_set},
                            [self._out[k] for k in keep])

    def is_trivial_over(self, dims: Iterable[str]) -> bool:
        """True when the layout is the identity on ``dims`` (as in and out dims) and mixes
        no other dim into them or them into others."""
        dims = list(dims)
        for d in dims:
            if not (self.has_in_dim(d) and self.has_out_dim(d)) or self.in_dim_size(d) != self.out_dim_size(d):
                return False
        for name, rows in self._in:
            for i, row in enumerate(rows):
                for d in dims:
                    v = row[self._out_index(d)]
                    if v != (1 << i if name == d else 0):
                        return False
                if name in dims and any(v for (o, _), v in zip(self._out, row) if o not in dims):
                    return False
        return True

    def quotient(self, dims: Iterable[str]) -> LinearLayout | None:
        """When the layout is trivial over ``dims`` (see :meth:`is_trivial_over`), the
        sublayout of the remaining dims; else None (Triton's ``quotient``)."""
        dims = list(dims)
        if not self.is_trivial_over(dims):
            return None
        return self.sublayout([n for n in self.in_dim_names if n not in dims],
                              [n for n in self.out_dim_names if n not in dims])

    # -- reshaping --------------------------------------------------------------------------
    def _reshape(self, new_dims: Sequence[tuple[str, int]], side: str) -> LinearLayout:
        new_dims = list(new_dims)
        for item in new_dims:
            if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
                raise LayoutError(f"reshape_{side}: expected (name, size) pairs, got {quote(item)}")
            self._check_size(item[1], f"reshape_{side} size of {item[0]!r}")
        total = 1
        for _, size in new_dims:
            total *= size
        have = self.total_in_dim_size if side == "ins" else self.total_out_dim_size
        if total != have:
            raise LayoutError(f"reshape_{side}: sizes {quote([s for _, s in new_dims])} multiply to {total}, not {have}")
        if side == "ins":
            result = self._from_flat([(n, log2(s)) for n, s in new_dims], self.columns, self._out)
        else:
            result = self._from_flat([(n, len(r)) for n, r in self._in], self.columns, [(n, s) for n, s in new_dims])
        return LinearLayout(result.bases, result.out_dims)  # new names from the caller: checked

    def reshape_ins(self, new_in_dims: Sequence[tuple[str, int]]) -> LinearLayout:
        """Flatten the in dims (first dim lowest) and split them into ``new_in_dims``."""
        return self._reshape(new_in_dims, "ins")

    def reshape_outs(self, new_out_dims: Sequence[tuple[str, int]]) -> LinearLayout:
        """Flatten the out dims (first dim lowest) and split them into ``new_out_dims``."""
        return self._reshape(new_out_dims, "outs")

    def flatten_ins(self) -> LinearLayout:
        """One in dim named after the first, of the total size."""
        if not self._in:
            return self
        return self.reshape_ins([(self._in[0][0], self.total_in_dim_size)])

    def flatten_outs(self) -> LinearLayout:
        """One out dim named after the first: the first out dim is the least significant."""
        if not self._out:
            return self
        return self.reshape_outs([(self._out[0][0], self.total_out_dim_size)])

    def transpose_ins(self, order: Sequence[str]) -> LinearLayout:
        """The same map with the in dims in ``order`` (a permutation of them)."""
        order = list(order)
        if sorted(order) != sorted(self.in_dim_names):
            raise LayoutError(f"transpose_ins: {quote(order)} is not a permutation of {quote(self.in_dim_names)}")
        rows = dict(self._in)
        return LinearLayout._trusted(tuple((n, rows[n]) for n in order), self._out)

    def transpose_outs(self, order: Sequence[str]) -> LinearLayout:
        """The same map with the out dims (and each basis's values) in ``order``."""
        order = list(order)
        if sorted(order) != sorted(self.out_dim_names):
            raise LayoutError(f"transpose_outs: {quote(order)} is not a permutation of {quote(self.out_dim_names)}")
        perm = [self._out_index(n) for n in order]
        return LinearLayout({n: [[row[k] for k in perm] for row in rows] for n, rows in self._in},
                            [self._out[k] for k in perm])

    def resize_in_dim(self, name: str, size: int) -> LinearLayout:
        """Drop the top bases of ``name`` (smaller) or append zero bases (larger)."""
        self._check_size(size, f"resize_in_dim size of {name!r}")
        self._bases_of(name)  # checks the name
        bits = log2(size)
        zero = (0,) * len(self._out)
        return LinearLayout({n: (rows[:bits] + (zero,) * (bits - len(rows)) if n == name else rows)
                             for n, rows in self._in}, self._out)

    def resize_out_dim(self, name: str, size: int) -> LinearLayout:
        """Change the size of out dim ``name``; shrinking keeps only the low bits of each
        value (the map modulo the new size)."""
        self._check_size(size, f"resize_out_dim size of {name!r}")
        k = self._out_index(name)
        out = [(n, size if j == k else s) for j, (n, s) in enumerate(self._out)]
        return LinearLayout({n: [[v & (size - 1) if j == k else v for j, v in enumerate(row)] for row in rows]
                             for n, rows in self._in}, out)

    def concat_ins(self, other: LinearLayout) -> LinearLayout:
        """Both layouts' in dims side by side over the same out dims (``other``'s dims must be new)."""
        if self._out != other._out:
            raise LayoutError("concat_ins: the layouts have different out dims")
        if set(self.in_dim_names) & set(other.in_dim_names):
            raise LayoutError(f"concat_ins: shared in dims {quote(sorted(set(self.in_dim_names) & set(other.in_dim_names)))}")
        return LinearLayout._trusted(tuple({**dict(self._in), **dict(other._in)}.items()), self._out)

    # -- matrices -----------------------------------------------------------------------------
    def to_matrix(self) -> np.ndarray:
        """The F2 matrix: ``uint8[out bits, in bits]``, flat bit order (first dims lowest)."""
        mat = np.zeros((self.total_out_bits, self.total_in_bits), dtype=np.uint8)
        for j, col in enumerate(self.columns):
            for r in range(self.total_out_bits):
                mat[r, j] = (col >> r) & 1
        return mat

    @classmethod
    def from_matrix(cls, matrix: Any, in_dims: Mapping[str, int], out_dims: Mapping[str, int]) -> LinearLayout:
        """Inverse of :meth:`to_matrix` given the dims' names and sizes."""
        mat = np.asarray(matrix, dtype=np.int64) & 1
        template = cls({}, dict(out_dims))
        if mat.shape != (template.total_out_bits, sum(log2(s) for s in in_dims.values())):
            raise LayoutError(f"matrix: shape {quote(mat.shape)} does not match the dims")
        cols = [int(sum(int(mat[r, j]) << r for r in range(mat.shape[0]))) for j in range(mat.shape[1])]
        result = template._from_flat([(n, log2(s)) for n, s in in_dims.items()], cols, list(out_dims.items()))
        return cls(result.bases, result.out_dims)  # the caller's dims: checked

    # -- value semantics ------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinearLayout):
            return NotImplemented
        return self._in == other._in and self._out == other._out

    def __hash__(self) -> int:
        return hash((self._in, self._out))

    def __str__(self) -> str:
        """Triton's listing: each in dim's bases, then the out dims with their sizes."""
        lines = []
        for name, rows in self._in:
            for i, row in enumerate(rows):
                prefix = " - " if i == 0 else "   "
                lines.append(f"{prefix}{name}={1 << i} -> ({', '.join(map(str, row))})")
            if not rows:
                lines.append(f" - {name} is a size 1 dimension")
        outs = ", ".join(f"{n} (size {s})" for n, s in self._out)
        lines.append(f"where out dims are: [{outs}]")
        return "\n".join(lines)
