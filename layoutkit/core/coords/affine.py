"""Affine expressions and maps as MLIR writes them: ``affine_map<(d0, d1) -> (d0 * 256 + d1)>``.

An expression is kept in one canonical form, a :class:`Sum`::

    const + coef_1 * atom_1 + coef_2 * atom_2 + ...

where every atom is a dim ``dK`` or a ``floordiv`` / ``mod`` of another :class:`Sum` by a
positive constant. Building an expression with :func:`add`, :func:`mul`, :func:`floordiv`
and :func:`mod` simplifies as it goes, with the rules MLIR uses and a few more:

- ``(9 * a + b) floordiv 9 == a + b floordiv 9``; ``(9 * a + b) mod 9 == b mod 9``;
- ``(e floordiv 3) floordiv 3 == e floordiv 9``; ``(e mod 9) mod 3 == e mod 3``;
- ``(e floordiv 9) * 9 + e mod 9 == e`` (a Merge followed by its Unmerge is the identity).

With dim ranges (:func:`simplify` with ``sizes``), ``e floordiv c`` is 0 and ``e mod c`` is
``e`` wherever ``0 <= e < c`` holds over the whole domain.

Worked example (seed 003's Merge{2, 3, 3} of ``d1``)::

    >>> k = dim(1)
    >>> [str(e) for e in (floordiv(k, 9), floordiv(mod(k, 9), 3), mod(mod(k, 9), 3))]
    ['d1 floordiv 9', '(d1 mod 9) floordiv 3', 'd1 mod 3']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from layoutkit.core.text import Cursor
from layoutkit.errors import LayoutError, quote

#: coordinates, sizes and constants stay below this magnitude, so that numpy's int64
#: evaluates sums of a few of them exactly
MAX_VALUE = 1 << 62
#: how deeply divisions (and, in text, parentheses) may nest in one expression
MAX_NESTING = 64


@dataclass(frozen=True)
class Dim:
    """The dim ``d{index}`` of a map's domain."""

    index: int

    def __str__(self) -> str:
        return f"d{self.index}"


@dataclass(frozen=True)
class Div:
    """``operand floordiv divisor`` (``kind == "floordiv"``) or ``operand mod divisor``."""

    kind: str
    operand: Sum
    divisor: int

    def __post_init__(self) -> None:
        if self.operand.nesting >= MAX_NESTING:
            raise LayoutError(f"affine expression: divisions nested deeper than {MAX_NESTING} levels")

    @cached_property
    def nesting(self) -> int:
        return 1 + self.operand.nesting

    def __str__(self) -> str:
        return f"{self.operand.text(strong=True)} {self.kind} {self.divisor}"


Atom = Dim | Div


def _atom_key(atom: Atom) -> tuple:
    """Print order: by the first dim an atom involves, then plain dims before divisions."""
    if isinstance(atom, Dim):
        return (atom.index, 0, (), 0)
    first = min(atom.operand.dims, default=-1)
    return (first, 1 if atom.kind == "floordiv" else 2, atom.operand.sort_key, atom.divisor)


@dataclass(frozen=True)
class Sum:
    """``const + sum(coef * atom)``: the canonical affine expression (see the module doc)."""

    terms: tuple[tuple[int, Atom], ...] = ()
    const: int = 0

    # -- derived --------------------------------------------------------------------
    @cached_property
    def dims(self) -> frozenset[int]:
        """Indices of the dims this expression reads."""
        out: set[int] = set()
        for _, atom in self.terms:
            out |= {atom.index} if isinstance(atom, Dim) else atom.operand.dims
        return frozenset(out)

    @cached_property
    def nesting(self) -> int:
        """How deeply divisions nest in this expression (0 for ``2 * d0 + 1``)."""
        return max((atom.nesting for _, atom in self.terms if isinstance(atom, Div)), default=0)

    @cached_property
    def sort_key(self) -> tuple:
        return tuple((_atom_key(a), c) for c, a in self.terms) + ((self.const,),)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def single_atom(self) -> Atom | None:
        """The atom when this expression is exactly ``1 * atom``."""
        if self.const == 0 and len(self.terms) == 1 and self.terms[0][0] == 1:
            return self.terms[0][1]
        return None

    # -- evaluation -----------------------------------------------------------------
    def evaluate(self, dims: Any) -> Any:
        """Value for dim values ``dims[i]`` (ints or numpy arrays, floor semantics)."""
        total: Any = self.const
        for coef, atom in self.terms:
            if isinstance(atom, Dim):
                value = dims[atom.index]
            elif atom.kind == "floordiv":
                value = floor_div(atom.operand.evaluate(dims), atom.divisor)
            else:
                value = floor_mod(atom.operand.evaluate(dims), atom.divisor)
            total = total + (value if coef == 1 else coef * value)
        return total

    def bounds(self, sizes: Any) -> tuple[int, int]:
        """Inclusive ``(min, max)`` over dims ``0 <= d_i < sizes[i]`` (interval arithmetic)."""
        lo = hi = self.const
        for coef, atom in self.terms:
            if isinstance(atom, Dim):
                a_lo, a_hi = 0, sizes[atom.index] - 1
            else:
                o_lo, o_hi = atom.operand.bounds(sizes)
                if atom.kind == "floordiv":
                    a_lo, a_hi = o_lo // atom.divisor, o_hi // atom.divisor
                elif o_lo >= 0 and o_hi < atom.divisor:
                    a_lo, a_hi = o_lo, o_hi
                elif o_lo // atom.divisor == o_hi // atom.divisor:
                    a_lo, a_hi = o_lo % atom.divisor, o_hi % atom.divisor
                else:
                    a_lo, a_hi = 0, atom.divisor - 1
            lo += min(coef * a_lo, coef * a_hi)
            hi += max(coef * a_lo, coef * a_hi)
        return lo, hi

    def substitute(self, values: Any) -> Sum:
        """This expression with each dim ``d_i`` replaced by the expression ``values[i]``."""
        out = constant(self.const)
        for coef, atom in self.terms:
            if isinstance(atom, Dim):
                part = values[atom.index]
            else:
                inner = atom.operand.substitute(values)
                part = floordiv(inner, atom.divisor) if atom.kind == "floordiv" else mod(inner, atom.divisor)
            out = add(out, mul(part, coef))
        return out

    def count_ops(self) -> int:
        """Arithmetic operations to evaluate this expression as written (no sharing)."""
        ops = 0
        n_parts = len(self.terms) + (1 if self.const else 0)
        ops += max(n_parts - 1, 0)
        for coef, atom in self.terms:
            if coef not in (1, -1) or (coef == -1 and n_parts == 1):
                ops += 1
            if isinstance(atom, Div):
                ops += 1 + atom.operand.count_ops()
        return ops

    # -- text -----------------------------------------------------------------------
    def text(self, strong: bool = False) -> str:
        """MLIR's printing: binary operands of ``*``, ``floordiv``, ``mod`` are parenthesized."""
        if not self.terms:
            return str(self.const) if self.const >= 0 or not strong else f"({self.const})"
        parts: list[str] = []
        terms = list(self.terms)
        first_positive = next((i for i, (c, _) in enumerate(terms) if c > 0), 0)
        terms.insert(0, terms.pop(first_positive))  # print "d1 - d0 * 2", not "d0 * -2 + d1"
        for i, (coef, atom) in enumerate(terms):
            atom_text = str(atom) if isinstance(atom, Dim) else f"({atom})"
            if i == 0:
                if coef == 1:
                    parts.append(atom_text if isinstance(atom, Dim) else str(atom))
                elif coef == -1:
                    parts.append(f"-{atom_text}")
                else:
                    parts.append(f"{atom_text} * {coef}")
            elif coef == 1:
                parts.append(" + " + (atom_text if isinstance(atom, Dim) else str(atom)))
            elif coef == -1:
                parts.append(f" - {atom_text}")
            elif coef < 0:
                parts.append(f" - {atom_text} * {-coef}")
            else:
                parts.append(f" + {atom_text} * {coef}")
        if self.const > 0:
            parts.append(f" + {self.const}")
        elif self.const < 0:
            parts.append(f" - {-self.const}")
        out = "".join(parts)
        single = len(terms) == 1 and self.const == 0 and terms[0][0] == 1
        if strong and not (single and isinstance(terms[0][1], Dim)):
            return f"({out})"
        return out

    def __str__(self) -> str:
        return self.text()


def floor_div(x: Any, c: int) -> Any:
    """``x floordiv c`` (``c > 0``): an arithmetic shift for powers of two."""
    return x >> (c.bit_length() - 1) if c & (c - 1) == 0 else x // c


def floor_mod(x: Any, c: int) -> Any:
    """``x mod c`` in ``[0, c)`` (``c > 0``): a mask for powers of two."""
    return x & (c - 1) if c & (c - 1) == 0 else x % c


# -- building (with simplification) -------------------------------------------------------
def constant(value: int) -> Sum:
    return Sum((), int(value))


def dim(index: int) -> Sum:
    return Sum(((1, Dim(int(index))),), 0)


def _atom(atom: Atom) -> Sum:
    return Sum(((1, atom),), 0)


def _normalize(terms: dict[Atom, int], const: int) -> Sum:
    terms = {a: c for a, c in terms.items() if c != 0}
    # (e floordiv c) * (k*c) + (e mod c) * k  ==  k * e
    changed = True
    while changed:
        changed = False
        for atom, coef in list(terms.items()):
            if not (isinstance(atom, Div) and atom.kind == "floordiv"):
                continue
            partner = Div("mod", atom.operand, atom.divisor)
            inner = atom.operand.single_atom()
            if partner not in terms and isinstance(inner, Div) and inner.kind == "mod" and inner.divisor % atom.divisor == 0:
                partner = Div("mod", inner.operand, atom.divisor)  # (e mod 9) mod 3 == e mod 3
            k = terms.get(partner)
            if k is not None and coef == k * atom.divisor:
                del terms[atom], terms[partner]
                for c2, a2 in atom.operand.terms:
                    terms[a2] = terms.get(a2, 0) + k * c2
                const += k * atom.operand.const
                terms = {a: c for a, c in terms.items() if c != 0}
                changed = True
                break
    ordered = tuple(sorted(((c, a) for a, c in terms.items()), key=lambda t: _atom_key(t[1])))
    return Sum(ordered, int(const))


def add(a: Sum, b: Sum) -> Sum:
    terms: dict[Atom, int] = {}
    for coef, atom in a.terms + b.terms:
        terms[atom] = terms.get(atom, 0) + coef
    return _normalize(terms, a.const + b.const)


def neg(a: Sum) -> Sum:
    return mul(a, -1)


def sub(a: Sum, b: Sum) -> Sum:
    return add(a, neg(b))


def mul(a: Sum, factor: int) -> Sum:
    factor = int(factor)
    if factor == 0:
        return constant(0)
    return Sum(tuple((c * factor, atom) for c, atom in a.terms), a.const * factor)


def _check_divisor(divisor: int, op: str) -> int:
    if not isinstance(divisor, (int, np.integer)) or divisor <= 0:
        raise LayoutError(f"affine expression: {op} needs a positive constant divisor, got {quote(divisor)}")
    return int(divisor)


def _split(a: Sum, divisor: int) -> tuple[Sum, Sum]:
    """``a == divisor * quotient + rest`` with the terms whose coefficients ``divisor``
    divides moved into ``quotient`` and ``0 <= rest.const < divisor``."""
    q_terms: dict[Atom, int] = {}
    r_terms: dict[Atom, int] = {}
    for coef, atom in a.terms:
        if coef % divisor == 0:
            q_terms[atom] = coef // divisor
        else:
            r_terms[atom] = coef
    return _normalize(q_terms, a.const // divisor), _normalize(r_terms, a.const % divisor)


def floordiv(a: Sum, divisor: int) -> Sum:
    divisor = _check_divisor(divisor, "floordiv")
    if divisor == 1:
        return a
    quotient, rest = _split(a, divisor)
    if rest.is_const:
        return add(quotient, constant(rest.const // divisor))
    inner = rest.single_atom()
    if isinstance(inner, Div) and inner.kind == "mod" and inner.divisor <= divisor:
        return quotient  # (e mod c) floordiv k == 0 for k >= c
    if isinstance(inner, Div) and inner.kind == "floordiv":
        return add(quotient, _atom(Div("floordiv", inner.operand, inner.divisor * divisor)))
    return add(quotient, _atom(Div("floordiv", rest, divisor)))


def mod(a: Sum, divisor: int) -> Sum:
    divisor = _check_divisor(divisor, "mod")
    if divisor == 1:
        return constant(0)
    _, rest = _split(a, divisor)
    if rest.is_const:
        return constant(rest.const % divisor)
    inner = rest.single_atom()
    if isinstance(inner, Div) and inner.kind == "mod" and inner.divisor % divisor == 0:
        return mod(inner.operand, divisor)
    return _atom(Div("mod", rest, divisor))


def ceildiv(a: Sum, divisor: int) -> Sum:
    """``a ceildiv c == -((-a) floordiv c)``."""
    return neg(floordiv(neg(a), _check_divisor(divisor, "ceildiv")))


def simplify(expr: Sum, sizes: Any) -> Sum:
    """Rebuild ``expr`` using the dim ranges ``0 <= d_i < sizes[i]``: a division whose
    operand already lies in ``[0, divisor)`` folds (``e floordiv c -> 0``, ``e mod c -> e``)."""
    out = constant(expr.const)
    for coef, atom in expr.terms:
        if isinstance(atom, Dim):
            part = _atom(atom)
        else:
            inner = simplify(atom.operand, sizes)
            lo, hi = inner.bounds(sizes)
            if lo >= 0 and hi < atom.divisor:
                part = constant(0) if atom.kind == "floordiv" else inner
            elif atom.kind == "floordiv" and lo // atom.divisor == hi // atom.divisor:
                part = constant(lo // atom.divisor)
            else:
                part = floordiv(inner, atom.divisor) if atom.kind == "floordiv" else mod(inner, atom.divisor)
        out = add(out, mul(part, coef))
    return out


# -- maps ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class AffineMap:
    """``affine_map<(d0, ..., d{n-1}) -> (results...)>`` without symbols."""

    num_dims: int
    results: tuple[Sum, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.num_dims, int) or self.num_dims < 0:
            raise LayoutError(f"affine_map: num_dims must be a non-negative int, got {quote(self.num_dims)}")
        for expr in self.results:
            bad = [d for d in expr.dims if d >= self.num_dims]
            if bad:
                raise LayoutError(f"affine_map: result {quote(expr)} uses d{bad[0]} but the map has {self.num_dims} dims")

    def __str__(self) -> str:
        dims = ", ".join(f"d{i}" for i in range(self.num_dims))
        return f"affine_map<({dims}) -> ({', '.join(str(e) for e in self.results)})>"

    def apply(self, *dims: Any) -> tuple:
        """Evaluate on ints or numpy arrays (one per dim); returns one value per result."""
        if len(dims) != self.num_dims:
            raise LayoutError(f"affine_map: expected {self.num_dims} coordinates, got {len(dims)}")
        return tuple(e.evaluate(dims) for e in self.results)

    def compose(self, inner: AffineMap) -> AffineMap:
        """``self(inner(x))``: ``inner``'s results feed this map's dims."""
        if len(inner.results) != self.num_dims:
            raise LayoutError(
                f"affine_map: cannot compose {quote(self)} after {quote(inner)}: "
                f"{len(inner.results)} results feed {self.num_dims} dims"
            )
        return AffineMap(inner.num_dims, tuple(e.substitute(inner.results) for e in self.results))

    def simplified(self, sizes: Any) -> AffineMap:
        """Simplified with the dim ranges ``0 <= d_i < sizes[i]``."""
        return AffineMap(self.num_dims, tuple(simplify(e, sizes) for e in self.results))

    def count_ops(self) -> int:
        return sum(e.count_ops() for e in self.results)


# -- parsing ------------------------------------------------------------------------------
def parse_affine_map(text: str) -> AffineMap:
    """Read ``affine_map<(d0, d1) -> (d0 floordiv 9, d1 * 2 + 1)>`` (the ``affine_map<...>``
    wrapper may be omitted)."""
    cursor = Cursor(text.strip())
    result = read_affine_map(cursor)
    cursor.expect_end()
    return result


def read_affine_map(cursor: Cursor) -> AffineMap:
    """Read an affine map at the cursor's position (with or without ``affine_map<>``)."""
    wrapped = cursor.accept("affine_map")
    if wrapped:
        cursor.expect("<", "after 'affine_map'")
    names: dict[str, int] = {}
    cursor.expect("(", "to open the affine map's dims")
    if not cursor.at(")"):
        while True:
            tok = cursor.expect_kind("ident", "a dim name")
            if tok.text in names:
                cursor.fail(f"affine_map: dim {quote(tok.text)} named twice", tok)
            names[tok.text] = len(names)
            if not cursor.accept(","):
                break
    cursor.expect(")", "to close the affine map's dims")
    if cursor.at("["):
        cursor.fail("affine_map: symbols are not supported")
    cursor.expect("->", "between the affine map's dims and results")
    cursor.expect("(", "to open the affine map's results")
    results: list[Sum] = []
    if not cursor.at(")"):
        results.append(_read_expr(cursor, names))
        while cursor.accept(","):
            results.append(_read_expr(cursor, names))
    cursor.expect(")", "to close the affine map's results")
    if wrapped:
        cursor.expect(">", "to close 'affine_map<'")
    return AffineMap(len(names), tuple(results))


def _read_expr(cursor: Cursor, names: dict[str, int], depth: int = 0) -> Sum:
    expr = _read_term(cursor, names, depth)
    while True:
        tok = cursor.peek
        if cursor.accept("+"):
            expr = add(expr, _read_term(cursor, names, depth))
        elif cursor.accept("-"):
            expr = sub(expr, _read_term(cursor, names, depth))
        elif tok.kind == "int" and tok.text.startswith("-"):  # "d0 -3" tokenizes as d0, -3
            cursor.next()
            expr = add(expr, _read_postfix(cursor, names, constant(int(tok.text)), depth))
        else:
            return expr


def _read_term(cursor: Cursor, names: dict[str, int], depth: int) -> Sum:
    return _read_postfix(cursor, names, _read_factor(cursor, names, depth), depth)


def _read_postfix(cursor: Cursor, names: dict[str, int], expr: Sum, depth: int) -> Sum:
    while True:
        tok = cursor.peek
        if cursor.accept("*"):
            rhs = _read_factor(cursor, names, depth)
            if rhs.is_const:
                expr = mul(expr, rhs.const)
            elif expr.is_const:
                expr = mul(rhs, expr.const)
            else:
                cursor.fail("affine_map: a product needs a constant side (non-affine)", tok)
        elif tok.text in ("floordiv", "ceildiv", "mod") and tok.kind == "ident":
            cursor.next()
            rhs = _read_factor(cursor, names, depth)
            if not rhs.is_const or rhs.const <= 0:
                cursor.fail(f"affine_map: {tok.text} needs a positive constant divisor", tok)
            op = {"floordiv": floordiv, "ceildiv": ceildiv, "mod": mod}[tok.text]
            try:
                expr = op(expr, rhs.const)
            except LayoutError as err:  # nested too deeply
                cursor.fail(str(err), tok)
        else:
            return expr


def _read_factor(cursor: Cursor, names: dict[str, int], depth: int) -> Sum:
    tok = cursor.peek
    if tok.text in ("-", "(") and depth >= MAX_NESTING:
        cursor.fail(f"affine_map: nested deeper than {MAX_NESTING} levels", tok)
    if cursor.accept("-"):
        return neg(_read_factor(cursor, names, depth + 1))
    if cursor.accept("("):
        inner = _read_expr(cursor, names, depth + 1)
        cursor.expect(")", "to close a parenthesized expression")
        return inner
    if tok.kind == "int":
        cursor.next()
        if abs(int(tok.text)) >= MAX_VALUE:
            cursor.fail("affine_map: constants must lie below 2**62 in magnitude", tok)
        return constant(int(tok.text))
    if tok.kind == "ident" and tok.text in names:
        cursor.next()
        return dim(names[tok.text])
    if tok.kind == "ident":
        cursor.fail(f"affine_map: unknown dim {quote(tok.text)}", tok)
    cursor.fail("affine_map: expected a dim, a constant or '('")
    raise AssertionError  # pragma: no cover
