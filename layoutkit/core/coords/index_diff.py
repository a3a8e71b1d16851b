"""Index diffs: move the coordinates of every space of a chain by an upper delta without
re-evaluating the maps, and rocMLIR's ``transforming_for`` loop built on them.

Given ``x = g(t)`` for every space of a chain, ``x' = g(t + delta)`` follows transform by
transform from the lower coordinates already known:

- PassThrough, Pad, Slice: ``l' = l + delta``;
- Embed ``{c}`` and Unmerge: linear, ``l' = l + sum c_i delta_i``;
- Merge: the delta split into digits (``d_i = (delta mod S_{i-1}) floordiv S_i``) is added
  digit by digit, then carried from the fastest dim to the slowest (``if l_i >= L_i:
  l_i -= L_i; l_{i-1} += 1``); nothing carries out of the slowest dim, so an overflow
  stays visible there as out of bounds;
- Broadcast: ``l' = (l + delta) mod L``; ConstDim: unchanged; Xor: re-evaluated from the
  moved upper pair (it is not additive).

The lower delta handed to the next map is ``l' - l``.

Seed 003's example: for ``Embed{256, 1}``, ``u(x, delta) = x0 + 256 delta0 + delta1``::

    >>> from layoutkit.core.coords.builders import TopDownBuilder
    >>> b = TopDownBuilder(["i", "j"], [4, 16]); b.embed("buf", 0, 1024, ["i", "j"], [256, 1])
    >>> IndexWalker([b.get()], (0, 8)).step((1, 2)).lower
    (266,)

rocMLIR requires non-negative deltas; these rules are exact for any sign (the Merge digits
use floor semantics, so only the slowest digit can be negative).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutkit.core.coords.bounds import Validity, validity
from layoutkit.core.coords.transform_map import TransformChain, TransformMap, as_chain
from layoutkit.core.coords.transforms import Transform
from layoutkit.errors import LayoutError, quote


def _ge(a: Any, b: int) -> Any:
    """``a >= b`` as 0/1 (int or int array)."""
    c = a >= b
    return c.astype(np.int64) if isinstance(c, np.ndarray) else int(c)


def transform_step(t: Transform, upper_new: list[Any], delta: list[Any], lower: list[Any]) -> list[Any]:
    """New lower values of ``t`` from its old lower values ``lower``, the upper ``delta``
    and (for Xor only) the new upper values."""
    kind, p = t.kind, t.params
    if kind in ("PassThrough", "Pad", "Slice"):
        return [low + d for low, d in zip(lower, delta)]
    if kind in ("Embed", "Unmerge"):
        coefs = p if kind == "Embed" else t.merge_strides
        total: Any = lower[0]
        for d, c in zip(delta, coefs):
            total = total + c * d
        return [total]
    if kind == "Merge":
        s = t.merge_strides
        step = delta[0]
        digits = [step // s[0]] + [(step % s[i - 1]) // s[i] for i in range(1, len(p))]
        new = [low + d for low, d in zip(lower, digits)]
        for i in range(len(p) - 1, 0, -1):
            carry = _ge(new[i], p[i])
            new[i] = new[i] - carry * p[i]
            new[i - 1] = new[i - 1] + carry
        return new
    if kind == "AddDim":
        return []
    if kind == "Broadcast":
        return [(low + d) % length for low, d, length in zip(lower, delta, p)]
    if kind == "ConstDim":
        return list(lower)
    return t.apply(upper_new)  # Xor


def map_step(m: TransformMap, upper_new: list[Any], delta: list[Any], lower: list[Any]) -> list[Any]:
    """New lower coordinates of map ``m`` (see :func:`transform_step`)."""
    out = list(lower)
    for t in m.transforms:
        values = transform_step(t, [upper_new[d] for d in t.upper_dims], [delta[d] for d in t.upper_dims],
                                [lower[d] for d in t.lower_dims])
        for d, v in zip(t.lower_dims, values):
            out[d] = v
    return out


@dataclass(frozen=True)
class IndexWalker:
    """The coordinates of every space of ``chain`` at one upper point; :meth:`step` moves
    them by an upper delta with index diffs (returns a new walker)."""

    chain: TransformChain
    spaces: tuple[tuple[Any, ...], ...]

    def __init__(self, chain: Any, start: Any, spaces: Any = None):
        chain = as_chain(chain)
        object.__setattr__(self, "chain", chain)
        if spaces is None:
            start = tuple(start)
            if len(start) != len(chain.upper_bounds):
                raise LayoutError(f"IndexWalker: the chain has {len(chain.upper_bounds)} upper dims "
                                  f"{list(chain.upper_names)}, got start {quote(start)}")
            coords = [start]
            for m in chain.maps:
                coords.append(tuple(m.apply(*coords[-1])))
            spaces = tuple(coords)
        object.__setattr__(self, "spaces", tuple(spaces))

    @property
    def upper(self) -> tuple[Any, ...]:
        return self.spaces[0]

    @property
    def lower(self) -> tuple[Any, ...]:
        """The lowest space's coordinates."""
        return self.spaces[-1]

    def step(self, delta: Any) -> IndexWalker:
        """The walker at ``upper + delta``, updated map by map with index diffs."""
        delta = tuple(delta)
        if len(delta) != len(self.upper):
            raise LayoutError(f"IndexWalker.step: expected {len(self.upper)} deltas, got {quote(delta)}")
        new_spaces = [tuple(u + d for u, d in zip(self.upper, delta))]
        for m, old_lower in zip(self.chain.maps, self.spaces[1:]):
            lower = map_step(m, list(new_spaces[-1]), list(delta), list(old_lower))
            delta = tuple(n - o for n, o in zip(lower, old_lower))
            new_spaces.append(tuple(lower))
        return IndexWalker(self.chain, None, tuple(new_spaces))


@dataclass(frozen=True)
class Iteration:
    """One iteration of a ``transforming_for``: the loop ``index``, and per chain the lowest
    coordinates and whether they are in bounds."""

    index: tuple[int, ...]
    coords: tuple[tuple[Any, ...], ...]
    valid: tuple[Any, ...]


def loop_order(bounds: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...] | None, int]]:
    """Every loop index (row-major) with the earlier index it is stepped from and the loop
    dim that moves by one: the first index of a row comes from the first of the previous
    row, every other from its left neighbour. The first entry has no predecessor."""
    order = []
    for index in itertools.product(*[range(b) for b in bounds]):
        moved = next((k for k in range(len(index) - 1, -1, -1) if index[k] != 0), None)
        if moved is None:
            order.append((index, None, -1))
        else:
            prev = index[:moved] + (index[moved] - 1,) + index[moved + 1:]
            order.append((index, prev, moved))
    return order


def transforming_for(chains: Any, starts: Any, bounds: Any, strides: Any = None,
                     use_index_diffs: bool = True) -> Iterator[Iteration]:
    """rocMLIR's ``transforming_for``: for every index of the loop nest ``bounds`` (row-major,
    the upper point of chain ``k`` being ``starts[k] + index * strides``), yield the lowest
    coordinates of each chain and their validity.

    With ``use_index_diffs`` the coordinates come from index diffs (see :func:`loop_order`);
    without, from evaluating the chains. ``starts`` may hold numpy arrays (one loop per
    thread, say)."""
    chain_list = [as_chain(c) for c in (chains if isinstance(chains, (list, tuple)) else [chains])]
    starts = [tuple(s) for s in starts]
    bounds = tuple(int(b) for b in bounds)
    strides = tuple(int(s) for s in strides) if strides is not None else (1,) * len(bounds)
    if len(starts) != len(chain_list):
        raise LayoutError(f"transforming_for: {len(chain_list)} chains but {len(starts)} starts")
    if len(strides) != len(bounds) or any(b <= 0 for b in bounds):
        raise LayoutError(f"transforming_for: bounds {list(bounds)} must be positive with one stride each, got {list(strides)}")
    for k, (c, s) in enumerate(zip(chain_list, starts)):
        if len(c.upper_bounds) != len(bounds) or len(s) != len(bounds):
            raise LayoutError(f"transforming_for: chain {k} has {len(c.upper_bounds)} upper dims and start "
                              f"{quote(s)}, the loop has {len(bounds)} dims")
    checks: list[Validity] = [validity(c) for c in chain_list]
    walkers: dict[tuple[int, ...], list[IndexWalker]] = {}
    for index, prev, moved in loop_order(bounds):
        if prev is None or not use_index_diffs:
            current = [IndexWalker(c, tuple(s_i + i * st for s_i, i, st in zip(s, index, strides)))
                       for c, s in zip(chain_list, starts)]
        else:
            delta = tuple(strides[k] if k == moved else 0 for k in range(len(bounds)))
            current = [w.step(delta) for w in walkers[prev]]
        walkers[index] = current
        yield Iteration(index, tuple(w.lower for w in current),
                        tuple(v.evaluate(w.lower) for v, w in zip(checks, current)))
