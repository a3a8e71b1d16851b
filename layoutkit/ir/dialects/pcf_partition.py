"""Exact check that a ``tile_group``'s clusters partition its worker grid, for *every* worker
count and split value (docs/pcf-extension.md, "tile_group").

The domain: worker counts ``s_r >= 1``; per grid dimension ``r`` the split values its bounds use,
in index order, form a chain ``0 <= d_a <= d_b <= ... <= s_r`` (a split used by two dimensions
is in both chains). Over every integer point of that domain the clusters must be boxes inside
the grid (``0 <= lo <= hi <= s``), pairwise without a common worker, and cover the grid.

How it is decided (never by sampling):

- ``floordiv`` / ``ceildiv`` / ``mod`` by a constant: every variable ``v`` inside one is written
  ``v = L h + r`` with ``L`` the product of the divisors it is under and each residue ``r`` in
  ``[0, L)``;
  per residue case every bound is linear in the ``h`` (e.g. ``s0 floordiv 2`` with ``s0 = 2h + 1``
  is ``h``), so the check splits into at most ``MAX_CASES`` linear problems.
- Inside the grid and disjointness: a violation is an integer point of a system of linear
  inequalities (``lo <= -1``; or, per dimension, ``lo_a < hi_b``, ``lo_b < hi_a`` and both boxes
  non-empty), found or refuted by Fourier-Motzkin elimination over the integers: constraints
  are divided by the gcd of their coefficients with the constant rounded down, and a variable is
  eliminated only when every lower/upper pair has a unit coefficient on one side, where the
  real shadow is exactly the integer shadow (Pugh's exact elimination), so back-substitution
  yields a witness. A system needing a non-unit elimination is reported as undecided.
- Cover: given the first two, the grid is covered iff ``sum of volumes - prod s`` is zero on
  the domain; per residue case it is a polynomial of degree at most ``rank`` in each ``h``, so
  it is zero everywhere iff it is zero on a ``(rank + 1)^n`` cube of domain points (a nonzero
  polynomial of degree <= k per variable does not vanish on a grid of k + 1 values per
  variable); the cube is placed deep inside the domain (each constraint holds with margin).

Example: ``(0, d0)``, ``(d0 - 1, s0)``: ``lo_b < hi_a`` is ``d0 - 1 < d0``, always true, so the
point ``d0 = 1, s0 = 1`` is a witness of the overlap of worker 0.
"""

from __future__ import annotations

from itertools import product
from math import gcd

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineSymExpr,
)

MAX_CASES = 4096  # residue cases x cube points, bounded
MAX_CONSTRAINTS = 4000  # Fourier-Motzkin growth bound

# A linear form: dict variable -> coefficient; key 1 holds the constant.
ONE = 1


class Undecided(Exception):
    """The bounds are outside what the exact method handles (the message says why)."""


def _add(a: dict, b: dict, k: int = 1) -> dict:
    out = dict(a)
    for v, c in b.items():
        out[v] = out.get(v, 0) + k * c
        if out[v] == 0:
            del out[v]
    return out


def _scale(a: dict, k: int) -> dict:
    return {v: c * k for v, c in a.items()} if k else {}


def _const(n: int) -> dict:
    return {ONE: n} if n else {}


def sub(a: dict, b: dict) -> dict:
    """``a - b`` for linear forms."""
    return _add(a, b, -1)


def const(n: int) -> dict:
    """The constant linear form ``n``."""
    return _const(n)


def _div(form: dict, c: int) -> dict:
    """``form floordiv c`` when every variable coefficient is a multiple of ``c``."""
    if c == 0:
        raise Undecided("a division by zero")
    if c < 0:
        form, c = _scale(form, -1), -c
    if any(v != ONE and k % c for v, k in form.items()):
        raise Undecided("a division whose argument is not a multiple of the divisor per residue")
    out = {v: k // c for v, k in form.items() if v != ONE}
    return _add(out, _const(form.get(ONE, 0) // c))


def linear(expr, env: list) -> dict:
    """``expr`` (an AffineExpr) as a linear form; ``env`` maps dims then symbols to forms."""
    if isinstance(expr, AffineConstantExpr):
        return _const(expr.value)
    if isinstance(expr, AffineDimExpr):
        return env[0][expr.position]
    if isinstance(expr, AffineSymExpr):
        return env[1][expr.position]
    assert isinstance(expr, AffineBinaryOpExpr)
    lhs, rhs = linear(expr.lhs, env), linear(expr.rhs, env)
    kind = expr.kind
    if kind == AffineBinaryOpKind.Add:
        return _add(lhs, rhs)
    constant = [f for f in (rhs, lhs) if set(f) <= {ONE}]
    if kind == AffineBinaryOpKind.Mul:
        if not constant:
            raise Undecided("a product of two variables")
        k = constant[0].get(ONE, 0)
        return _scale(rhs if constant[0] is lhs else lhs, k)
    if not set(rhs) <= {ONE}:
        raise Undecided("a division by a variable")
    c = rhs.get(ONE, 0)
    if kind == AffineBinaryOpKind.FloorDiv:
        return _div(lhs, c)
    if kind == AffineBinaryOpKind.CeilDiv:
        return _scale(_div(_scale(lhs, -1), c), -1)
    return _add(lhs, _div(lhs, c), -c)  # Mod


def _periods(exprs) -> dict:
    """Per dim ``("d", k)`` / symbol ``("s", r)`` under a division: the product of the divisors
    of the distinct divisions it is under (so nested divisions stay exact per residue)."""
    divisions = {node for e in exprs for node in e.dfs() if isinstance(node, AffineBinaryOpExpr)
                 and node.kind in (AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.CeilDiv, AffineBinaryOpKind.Mod)}
    periods: dict = {}
    for node in divisions:
        c = abs(node.rhs.value) if isinstance(node.rhs, AffineConstantExpr) else 1
        for leaf in set(node.lhs.dfs()):
            if isinstance(leaf, (AffineDimExpr, AffineSymExpr)):
                key = ("d" if isinstance(leaf, AffineDimExpr) else "s", leaf.position)
                periods[key] = periods.get(key, 1) * max(c, 1)
    return {k: p for k, p in periods.items() if p > 1}


# ------------------------------------------------------------------ integer Fourier-Motzkin
def _normalise(row: dict) -> dict | None:
    """Divide ``row >= 0`` by the gcd of its coefficients (constant rounded down); None when it
    has no variable and holds, False-like ``{ONE: -1}`` when it has none and fails."""
    g = 0
    for v, c in row.items():
        if v != ONE:
            g = gcd(g, c)
    if g == 0:
        return None if row.get(ONE, 0) >= 0 else {ONE: -1}
    return {v: (c // g if v != ONE else c // g) for v, c in row.items()}


def _bounds(rows: list, var) -> tuple[int | None, int | None]:
    lo, hi = None, None
    for row, point in rows:
        a = row.get(var, 0)
        rest = sum(c * (1 if v == ONE else point[v]) for v, c in row.items() if v != var)
        if a > 0:  # a x + rest >= 0 -> x >= ceil(-rest / a)
            b = -(rest // a)
            lo = b if lo is None else max(lo, b)
        elif a < 0:  # x <= floor(rest / -a)
            b = rest // -a
            hi = b if hi is None else min(hi, b)
    return lo, hi


def solve(rows: list[dict], variables: list) -> dict | None:
    """An integer point with every ``row >= 0``, or None if there is none (exact)."""
    normal = []
    for row in rows:
        n = _normalise(row)
        if n is None:
            continue
        if set(n) == {ONE}:
            return None
        normal.append(n)
    live = [v for v in variables if any(v in r for r in normal)]
    if not live:
        return {v: 0 for v in variables}
    if len(normal) > MAX_CONSTRAINTS:
        raise Undecided("too many constraints")

    def exact(v) -> bool:
        low = [r[v] for r in normal if r.get(v, 0) > 0]
        up = [-r[v] for r in normal if r.get(v, 0) < 0]
        return all(a == 1 or b == 1 for a in low for b in up)

    choices = [v for v in live if exact(v)]
    if not choices:
        raise Undecided("an elimination without a unit coefficient")
    var = min(choices, key=lambda v: sum(1 for r in normal if r.get(v, 0) > 0)
              * sum(1 for r in normal if r.get(v, 0) < 0))
    lower = [r for r in normal if r.get(var, 0) > 0]
    upper = [r for r in normal if r.get(var, 0) < 0]
    rest = [r for r in normal if var not in r]
    for p in lower:
        for q in upper:
            rest.append(_add(_scale(p, -q[var]), _scale(q, p[var])))
    point = solve(rest, [v for v in variables if v != var])
    if point is None:
        return None
    lo, hi = _bounds([(r, point) for r in lower + upper], var)
    value = lo if lo is not None else hi if hi is not None else 0
    assert hi is None or lo is None or lo <= hi, "exact elimination"
    point[var] = value
    return point


# ------------------------------------------------------------------ the partition check
class Partition:
    """The integer domain of a tile_group (``n`` splits, grid rank ``rank``) and the clusters'
    bounds as linear forms per residue case (see the module docstring)."""

    def __init__(self, maps: list, n: int, rank: int) -> None:
        self.maps, self.n, self.rank = maps, n, rank
        self.periods = _periods([e for amap in maps for e in amap.results])
        self.split = sorted(self.periods)
        count = 1
        for p in self.periods.values():
            count *= p
        if count > MAX_CASES:
            raise Undecided(f"{count} residue cases")
        used = {r: sorted({e.position for amap in maps for e in _leaves(amap.results[2 * r:2 * r + 2])
                           if isinstance(e, AffineDimExpr)}) for r in range(rank)}
        self.chains = used

    def cases(self):
        """Per residue case: (env of linear forms over h-variables, domain rows, variables)."""
        names = [("d", k) for k in range(self.n)] + [("s", r) for r in range(self.rank)]
        for residues in product(*(range(self.periods[v]) for v in self.split)):
            residue = dict(zip(self.split, residues))
            forms = {}
            for name in names:
                if name in residue:
                    forms[name] = {name: self.periods[name], **_const(residue[name])}
                else:
                    forms[name] = {name: 1}
            env = [[forms[("d", k)] for k in range(self.n)], [forms[("s", r)] for r in range(self.rank)]]
            rows = []
            for r in range(self.rank):
                s = forms[("s", r)]
                rows.append(_add(s, _const(-1)))  # s >= 1
                chain = [_const(0), *(forms[("d", k)] for k in self.chains[r]), s]
                rows += [_add(b, a, -1) for a, b in zip(chain, chain[1:])]
            yield residue, env, rows, names

    def values(self, point: dict, residue: dict) -> tuple[list[int], list[int]]:
        def value(name):
            if name in residue:
                return self.periods[name] * point.get(name, 0) + residue[name]
            return point.get(name, 0)
        return [value(("d", k)) for k in range(self.n)], [value(("s", r)) for r in range(self.rank)]


def _leaves(exprs):
    for e in exprs:
        yield from e.dfs()


def cube(rows: list[dict], names: list, side: int):
    """Integer points ``p + {0..side}^n`` all inside ``rows >= 0`` (``p`` found with margin)."""
    margin = [side * sum(abs(c) for v, c in row.items() if v != ONE) for row in rows]
    p = solve([_add(row, _const(-m)) for row, m in zip(rows, margin)], names)
    if p is None:
        raise Undecided("a domain without interior points")
    for steps in product(range(side + 1), repeat=len(names)):
        yield {v: p[v] + k for v, k in zip(names, steps)}


__all__ = ["MAX_CASES", "ONE", "Partition", "Undecided", "const", "cube", "linear", "solve", "sub"]
