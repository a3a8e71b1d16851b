"""Choosing one layout per value for a whole program, by exact cost: a discrete labelling
problem solved globally.

The problem: variables ``0..n-1`` (a tensor value, or a store's access), each with a few
candidate layouts; a *unary* cost per candidate (what computing, loading or storing in that
layout costs); and *pair* costs between two variables (a ``convert_layout`` between the
producer's layout and the layout its user wants, priced by the conversion planner). The
solution is the candidate index per variable minimising the sum.

Worked example: a load ``x`` (candidates A, B; global cost 4, 6) feeding a store ``s``
(candidates A, B; cost 8, 4) with a conversion costing 10 when they differ::

    >>> p = AssignmentProblem((2, 2), ((4, 6), (8, 4)),
    ...                       ((0, 1, ((0, 10), (10, 0))),))
    >>> solve(p).choice, solve(p).cost          # B, B: 6 + 4 beats A, A (12) and A, B (18)
    ((1, 1), 10.0)

Solvers (:func:`solve` picks):

- ``ilp``: HiGHS through ``highspy`` (``pip install layoutkit[solver]``): binary ``x[v, c]``,
  one candidate per variable, and per pair the local-marginal variables ``y[u, v, a, b]``
  with ``sum_b y = x[u, a]`` and ``sum_a y = x[v, b]`` -- exact for integer ``x``;
- ``tree``: exact dynamic programming when the pair graph is a forest (chains, trees);
- ``descent``: the fallback for a cyclic problem without highspy or above
  :data:`ILP_LIMIT` pair entries: DP on a spanning forest, then single-variable moves while
  any strictly lowers the true cost (a local optimum, said so in ``method``);
- ``brute``: every combination (tests; at most :data:`BRUTE_LIMIT`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from layoutkit.errors import LayoutError

#: the most pair-cost entries handed to the ILP (beyond: the documented descent fallback)
ILP_LIMIT = 200_000
#: the most combinations brute force enumerates
BRUTE_LIMIT = 1 << 20


@dataclass(frozen=True)
class AssignmentProblem:
    """``choices[v]`` candidates of variable ``v``, ``unary[v][c]`` their costs, ``pairs``
    ``(u, v, cost[a][b])`` with ``u != v`` (several pairs on the same two variables add)."""

    choices: tuple[int, ...]
    unary: tuple[tuple[float, ...], ...]
    pairs: tuple[tuple[int, int, tuple[tuple[float, ...], ...]], ...] = ()

    def __post_init__(self) -> None:
        if len(self.unary) != len(self.choices):
            raise LayoutError(f"unary: {len(self.unary)} rows for {len(self.choices)} variables")
        for v, (k, row) in enumerate(zip(self.choices, self.unary)):
            if k < 1 or len(row) != k:
                raise LayoutError(f"unary: variable {v} has {k} candidates and {len(row)} costs")
        for u, v, cost in self.pairs:
            n = len(self.choices)
            if not (0 <= u < n and 0 <= v < n) or u == v:
                raise LayoutError(f"pairs: ({u}, {v}) is not two distinct variables of {n}")
            if np.shape(cost) != (self.choices[u], self.choices[v]):
                raise LayoutError(f"pairs: ({u}, {v}) cost has shape {np.shape(cost)}, "
                                  f"expected {(self.choices[u], self.choices[v])}")

    def cost(self, choice) -> float:
        """The total cost of one candidate per variable."""
        total = sum(self.unary[v][c] for v, c in enumerate(choice))
        return float(total + sum(cost[choice[u]][choice[v]] for u, v, cost in self.pairs))


@dataclass(frozen=True)
class Solution:
    choice: tuple[int, ...]
    cost: float
    method: str


def solve(problem: AssignmentProblem, method: str = "auto") -> Solution:
    """The cheapest assignment: ``method`` ``auto`` (tree DP on a forest, else the ILP when
    highspy is installed and the problem is within :data:`ILP_LIMIT`, else descent),
    ``ilp``, ``tree``, ``descent`` or ``brute``."""
    if method == "brute":
        return solve_brute_force(problem)
    if method == "tree":
        return solve_tree(problem)
    if method == "descent":
        return solve_descent(problem)
    if method == "ilp":
        return solve_ilp(problem)
    if method != "auto":
        raise LayoutError(f"method: expected auto, ilp, tree, descent or brute, got {method!r}")
    if _is_forest(problem):
        return solve_tree(problem)
    entries = sum(len(c) * len(c[0]) for _, _, c in problem.pairs)
    if entries <= ILP_LIMIT and _has_highspy():
        return solve_ilp(problem)
    return solve_descent(problem)


def _has_highspy() -> bool:
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


def solve_brute_force(problem: AssignmentProblem) -> Solution:
    """Every combination; an error above :data:`BRUTE_LIMIT` of them."""
    if math.prod(problem.choices) > BRUTE_LIMIT:
        raise LayoutError(f"brute force: {math.prod(problem.choices)} combinations (limit {BRUTE_LIMIT})")
    best = min(itertools.product(*(range(k) for k in problem.choices)), key=problem.cost)
    return Solution(tuple(best), problem.cost(best), "brute")


def _merged_pairs(problem: AssignmentProblem) -> dict[tuple[int, int], np.ndarray]:
    merged: dict[tuple[int, int], np.ndarray] = {}
    for u, v, cost in problem.pairs:
        matrix = np.asarray(cost, dtype=float)
        if u > v:
            u, v, matrix = v, u, matrix.T
        merged[(u, v)] = merged.get((u, v), 0) + matrix
    return merged


def _is_forest(problem: AssignmentProblem) -> bool:
    parent = list(range(len(problem.choices)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for u, v in _merged_pairs(problem):
        ru, rv = find(u), find(v)
        if ru == rv:
            return False
        parent[ru] = rv
    return True


def _tree_dp(problem: AssignmentProblem, edges: dict[tuple[int, int], np.ndarray]) -> tuple[int, ...]:
    """The exact optimum over ``edges`` (a forest): min-sum messages from the leaves up."""
    n = len(problem.choices)
    neighbours: dict[int, list[int]] = {v: [] for v in range(n)}
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)

    def matrix(u: int, v: int) -> np.ndarray:  # cost[u's candidate, v's candidate]
        return edges[(u, v)] if (u, v) in edges else edges[(v, u)].T

    choice = [0] * n
    seen = [False] * n
    for root in range(n):
        if seen[root]:
            continue
        order, parent = [], {root: -1}
        stack = [root]
        seen[root] = True
        while stack:
            v = stack.pop()
            order.append(v)
            for w in neighbours[v]:
                if not seen[w]:
                    seen[w] = True
                    parent[w] = v
                    stack.append(w)
        belief = {v: np.asarray(problem.unary[v], dtype=float).copy() for v in order}
        pick: dict[int, np.ndarray] = {}
        for v in reversed(order):  # children before parents
            p = parent[v]
            if p < 0:
                continue
            table = matrix(p, v) + belief[v][None, :]  # [parent's, child's]
            pick[v] = table.argmin(axis=1)
            belief[p] += table.min(axis=1)
        choice[root] = int(belief[root].argmin())
        for v in order[1:]:
            choice[v] = int(pick[v][choice[parent[v]]])
    return tuple(choice)


def solve_tree(problem: AssignmentProblem) -> Solution:
    """Exact dynamic programming; the pair graph must be a forest (chains, trees)."""
    if not _is_forest(problem):
        raise LayoutError("tree: the pair graph has a cycle (use ilp or descent)")
    choice = _tree_dp(problem, _merged_pairs(problem))
    return Solution(choice, problem.cost(choice), "tree")


def solve_descent(problem: AssignmentProblem, max_rounds: int = 100) -> Solution:
    """DP on a spanning forest, then single-variable moves while one strictly helps (a local
    optimum: the fallback for large cyclic problems or without highspy)."""
    merged = _merged_pairs(problem)
    parent = list(range(len(problem.choices)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    forest = {}
    for (u, v), m in sorted(merged.items(), key=lambda item: -float(np.ptp(item[1]))):
        if find(u) != find(v):
            parent[find(u)] = find(v)
            forest[(u, v)] = m
    choice = list(_tree_dp(problem, forest))
    touching: dict[int, list[tuple[int, np.ndarray]]] = {v: [] for v in range(len(choice))}
    for (u, v), m in merged.items():
        touching[u].append((v, m))
        touching[v].append((u, m.T))
    for _ in range(max_rounds):
        improved = False
        for v in range(len(choice)):
            local = np.asarray(problem.unary[v], dtype=float).copy()
            for w, m in touching[v]:
                local += m[:, choice[w]]
            best = int(local.argmin())
            if local[best] < local[choice[v]] - 1e-9:
                choice[v], improved = best, True
        if not improved:
            break
    return Solution(tuple(choice), problem.cost(choice), "descent")


def _quiet_highs(highspy):
    """A silent ``highspy.Highs()``: its first construction prints a banner from C on file
    descriptor 1 (the CLI's stdout), so that descriptor points at /dev/null meanwhile."""
    import os
    import sys

    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    return h


def solve_ilp(problem: AssignmentProblem) -> Solution:
    """The exact optimum with HiGHS (an error naming the ``solver`` extra without highspy)."""
    try:
        import highspy
    except ImportError:
        raise LayoutError("cost-model=exact: the ILP needs highspy (pip install 'layoutkit[solver]')") from None
    merged = _merged_pairs(problem)
    offsets, count = [], 0
    for k in problem.choices:
        offsets.append(count)
        count += k
    costs = [float(c) for row in problem.unary for c in row]
    integrality = [1] * count
    pair_offsets = {}
    for (u, v), m in merged.items():
        pair_offsets[(u, v)] = len(costs)
        costs.extend(float(c) for c in m.reshape(-1))
        integrality.extend([0] * m.size)
    rows: list[tuple[list[int], list[float], float, float]] = []
    for v, k in enumerate(problem.choices):
        rows.append((list(range(offsets[v], offsets[v] + k)), [1.0] * k, 1.0, 1.0))
    for (u, v), m in merged.items():
        base, ku, kv = pair_offsets[(u, v)], m.shape[0], m.shape[1]
        for a in range(ku):  # sum_b y[a, b] = x[u, a]
            rows.append(([base + a * kv + b for b in range(kv)] + [offsets[u] + a], [1.0] * kv + [-1.0], 0.0, 0.0))
        for b in range(kv):  # sum_a y[a, b] = x[v, b]
            rows.append(([base + a * kv + b for a in range(ku)] + [offsets[v] + b], [1.0] * ku + [-1.0], 0.0, 0.0))
    h = _quiet_highs(highspy)
    h.setOptionValue("time_limit", 30.0)
    h.setOptionValue("mip_rel_gap", 0.0)  # the optimum, not HiGHS's default 0.01 % gap
    h.setOptionValue("mip_abs_gap", 1e-6)
    inf = highspy.kHighsInf
    n = len(costs)
    h.addVars(n, np.zeros(n), np.ones(n))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), np.asarray(costs))
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.asarray(integrality, dtype=np.uint8))
    for index, values, lower, upper in rows:
        h.addRow(lower, upper if upper is not None else inf, len(index), np.asarray(index, dtype=np.int32),
                 np.asarray(values))
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise LayoutError(f"cost-model=exact: HiGHS stopped with {h.modelStatusToString(status)}")
    x = np.asarray(h.getSolution().col_value)
    choice = tuple(int(np.argmax(x[offsets[v]:offsets[v] + k])) for v, k in enumerate(problem.choices))
    return Solution(choice, problem.cost(choice), "ilp")


__all__ = ["AssignmentProblem", "BRUTE_LIMIT", "ILP_LIMIT", "Solution", "solve", "solve_brute_force",
           "solve_descent", "solve_ilp", "solve_tree"]
