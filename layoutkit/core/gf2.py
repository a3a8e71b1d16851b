"""Linear algebra over GF(2) on bit vectors stored as Python ints -- written once, used by
every layout (rank, elimination, solving with free variables set to zero, null spaces).

A matrix is a sequence of *columns*, each an int whose bit ``k`` is row ``k``. Column ``j``
is a *pivot* when it is not in the span of columns ``0..j-1``; the other columns are *free*.
This is exactly the set of pivot columns of the reduced row-echelon form when the lowest
column is taken first, so "free variables set to zero" picks the solution that uses only
the earliest independent columns.

Example: columns ``[0b01, 0b01, 0b10]`` have pivots ``[0, 2]`` (column 1 repeats column 0);
``solve([0b01, 0b01, 0b10], [0b11])`` is ``[0b101]``: columns 0 and 2 XOR to ``0b11``.
"""

from __future__ import annotations

from collections.abc import Sequence


class Elimination:
    """An incremental XOR basis that remembers which original columns built each vector.

    Columns are numbered in the order they are added; ``add(column)`` returns True when the
    column is a new pivot (a dependent column is numbered but not kept). ``express(v)`` returns the
    mask of pivot columns whose XOR is ``v``, or None when ``v`` is outside the span.
    """

    __slots__ = ("_by_lead", "_count")

    def __init__(self) -> None:
        self._by_lead: dict[int, tuple[int, int]] = {}  # leading bit -> (vector, column mask)
        self._count = 0

    def _reduce(self, vector: int) -> tuple[int, int]:
        combo = 0
        by_lead = self._by_lead
        while vector:
            lead = vector.bit_length() - 1
            entry = by_lead.get(lead)
            if entry is None:
                break
            vector ^= entry[0]
            combo ^= entry[1]
        return vector, combo

    def add(self, column: int) -> bool:
        index = self._count
        self._count += 1
        residual, combo = self._reduce(column)
        if residual == 0:
            return False
        self._by_lead[residual.bit_length() - 1] = (residual, combo ^ (1 << index))
        return True

    def express(self, vector: int) -> int | None:
        residual, combo = self._reduce(vector)
        return combo if residual == 0 else None

    @property
    def rank(self) -> int:
        return len(self._by_lead)


class Span:
    """An incremental XOR basis that only answers membership (no column masks: the fast
    form of :class:`Elimination` for span and rank questions). ``add`` returns True when the
    vector was outside the span."""

    __slots__ = ("_by_lead",)

    def __init__(self, vectors: Sequence[int] = ()) -> None:
        self._by_lead: dict[int, int] = {}
        for v in vectors:
            self.add(v)

    def _residual(self, vector: int) -> int:
        by_lead = self._by_lead
        while vector:
            basis = by_lead.get(vector.bit_length() - 1)
            if basis is None:
                return vector
            vector ^= basis
        return 0

    def add(self, vector: int) -> bool:
        residual = self._residual(vector)
        if residual:
            self._by_lead[residual.bit_length() - 1] = residual
        return residual != 0

    def contains(self, vector: int) -> bool:
        return self._residual(vector) == 0

    @property
    def rank(self) -> int:
        return len(self._by_lead)

    @property
    def leading_bits(self) -> set[int]:
        """Leading bits of an echelon basis of the span."""
        return set(self._by_lead)


def pivot_columns(columns: Sequence[int]) -> list[int]:
    """Indices of the columns not in the span of the columns before them."""
    span = Span()
    return [j for j, col in enumerate(columns) if span.add(col)]


def rank(columns: Sequence[int]) -> int:
    """Rank of the matrix whose columns are ``columns``."""
    return Span(columns).rank


def solve(columns: Sequence[int], targets: Sequence[int]) -> list[int | None]:
    """For each target ``t``, the column mask ``x`` with ``XOR(columns[j] for j in x) == t``
    using pivot columns only (free variables zero), or None where ``t`` is not in the span."""
    elim = Elimination()
    for col in columns:
        elim.add(col)
    return [elim.express(t) for t in targets]


def null_space(columns: Sequence[int]) -> list[int]:
    """A basis of ``{x : XOR(columns[j] for j in x) == 0}``: one vector per free column ``j``,
    ``j`` together with the pivot columns that build ``columns[j]``."""
    elim = Elimination()
    basis = []
    for j, col in enumerate(columns):
        combo = elim.express(col)
        if combo is not None:
            basis.append(combo | (1 << j))
        elim.add(col)  # counts column j either way, so masks use original indices
    return basis


def transpose(columns: Sequence[int], num_rows: int) -> list[int]:
    """The columns of the transposed matrix (i.e. the rows of ``columns``)."""
    return [sum(((col >> r) & 1) << j for j, col in enumerate(columns)) for r in range(num_rows)]
