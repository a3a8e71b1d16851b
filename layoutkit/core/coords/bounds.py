"""Which lowest dims of a chain can go out of bounds, and on which side.

Starting from an in-bounds upper space, each map's transforms pass "may be out of bounds on
the left (< 0)" and "on the right (>= size)" flags from their upper dims to their lower dims:

- PassThrough, Slice, Xor (per dim) and AddDim pass both flags through;
- Pad adds left when its left padding is > 0 and right when its right padding is > 0;
- Embed and Unmerge: an output goes left (right) when an input with a positive
  coefficient may go left (right), or one with a negative coefficient may go right (left),
  or when the exact range of ``sum c_i u_i`` over the in-bounds inputs leaves ``[0, size)``;
- Merge sends a right overflow to its first (slowest) output only (the others are
  remainders, always in range) and a left one to all;
- Broadcast (``u mod L``) and ConstDim never go out of bounds.

rocMLIR's Embed rule tests each coefficient alone (``c * upper size > lower size``), which
misses e.g. ``Embed{1, 1}`` of a 4 x 4 space into 5 (``3 + 3 = 6``); layoutkit uses the range
of the whole sum, which is sound and at least as precise.

Seed 003's example: ``Pad{0, 64 - 18}`` of K over ``Merge{2, 3, 3}`` (K -> I, H, W) needs
no check on O and only a right-side check on I: ``out_of_bounds(chain).right_names == ("I",)``.

:func:`validity` turns the flags into the comparisons a load needs: one unsigned compare
``unsigned(x) < size`` per dim that may go right (it also catches negatives), one
``x >= 0`` per dim that may only go left.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutkit.core.coords.transform_map import TransformMap, as_chain


@dataclass(frozen=True)
class OutOfBounds:
    """Flags of the lowest space (``left``/``right``: dim indices) and of every space
    (``spaces[k] = (left, right)``, upper first)."""

    names: tuple[str, ...]
    sizes: tuple[int, ...]
    left: frozenset[int]
    right: frozenset[int]
    spaces: tuple[tuple[frozenset[int], frozenset[int]], ...]

    @property
    def left_names(self) -> tuple[str, ...]:
        return tuple(self.names[d] for d in sorted(self.left))

    @property
    def right_names(self) -> tuple[str, ...]:
        return tuple(self.names[d] for d in sorted(self.right))

    def __str__(self) -> str:
        left = ", ".join(self.left_names) or "none"
        right = ", ".join(self.right_names) or "none"
        return f"left: {left}; right: {right}"


def propagate(m: TransformMap, left: frozenset[int], right: frozenset[int]) -> tuple[frozenset[int], frozenset[int]]:
    """The lower space's flags of one map from its upper space's flags."""
    out_left: set[int] = set()
    out_right: set[int] = set()
    ub, lb = m.upper_bounds, m.lower_bounds
    for t in m.transforms:
        ups, lows, p = t.upper_dims, t.lower_dims, t.params
        if t.kind in ("PassThrough", "Slice", "Xor"):
            for u, low in zip(ups, lows):
                if u in left:
                    out_left.add(low)
                if u in right:
                    out_right.add(low)
        elif t.kind == "Pad":
            for (pl, pr), u, low in zip(t.pairs(), ups, lows):
                if u in left or pl > 0:
                    out_left.add(low)
                if u in right or pr > 0:
                    out_right.add(low)
        elif t.kind in ("Embed", "Unmerge"):
            coefs = p if t.kind == "Embed" else t.merge_strides
            low = lows[0]
            go_left = go_right = False
            lo = hi = 0
            for u, c in zip(ups, coefs):
                if c > 0:
                    go_left |= u in left
                    go_right |= u in right
                    hi += c * (ub[u] - 1)
                elif c < 0:
                    go_left |= u in right
                    go_right |= u in left
                    lo += c * (ub[u] - 1)
            if go_left or lo < 0:
                out_left.add(low)
            if go_right or hi >= lb[low]:
                out_right.add(low)
        elif t.kind == "Merge":
            if ups[0] in right:
                out_right.add(lows[0])
            if ups[0] in left:
                out_left.update(lows)
        # AddDim: nothing below; Broadcast, ConstDim: always in range
    return frozenset(out_left), frozenset(out_right)


def out_of_bounds(chain: Any) -> OutOfBounds:
    """The lowest space's dims that may go out of bounds on each side (see the module doc)."""
    chain = as_chain(chain)
    left: frozenset[int] = frozenset()
    right: frozenset[int] = frozenset()
    spaces = [(left, right)]
    for m in chain.maps:
        left, right = propagate(m, left, right)
        spaces.append((left, right))
    return OutOfBounds(chain.lower_names, chain.lower_bounds, left, right, tuple(spaces))


@dataclass(frozen=True)
class BoundCheck:
    """One comparison on lowest dim ``dim``: ``unsigned(x) < size`` when ``right`` (which
    also rejects negatives), else ``x >= 0``."""

    dim: int
    name: str
    size: int
    left: bool
    right: bool

    def evaluate(self, value: Any) -> Any:
        if self.right:
            return (value >= 0) & (value < self.size) if self.left else value < self.size
        return value >= 0

    def text(self, var: str | None = None) -> str:
        var = var or self.name
        return f"unsigned({var}) < {self.size}" if self.right else f"{var} >= 0"


@dataclass(frozen=True)
class Validity:
    """The predicate "the lowest coordinates are in bounds", reduced to the needed checks."""

    checks: tuple[BoundCheck, ...]
    rank: int

    @property
    def comparisons(self) -> int:
        """How many compares a load needs (one per checked dim)."""
        return len(self.checks)

    def evaluate(self, lower: Any) -> Any:
        """True where the lowest coordinates ``lower`` (one value per dim) pass the checks."""
        result: Any = True
        for check in self.checks:
            result = result & check.evaluate(lower[check.dim])
        return np.asarray(result) if isinstance(result, np.ndarray) else bool(result)

    def __str__(self) -> str:
        return " and ".join(c.text() for c in self.checks) or "true"


def validity(chain: Any) -> Validity:
    """The checks a read through ``chain`` needs: ``validity(chain).evaluate(lower)``."""
    chain = as_chain(chain)
    oob = out_of_bounds(chain)
    checks = tuple(
        BoundCheck(d, oob.names[d], oob.sizes[d], d in oob.left, d in oob.right)
        for d in range(len(oob.names)) if d in oob.left or d in oob.right
    )
    return Validity(checks, len(oob.names))
