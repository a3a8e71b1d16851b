"""CuTe's definition of a layout's offsets, written out plainly for the tests (Python ints,
one index at a time): the independent computation the algebra is checked against."""

from __future__ import annotations


def leaves(t):
    """The leaves of a nested tuple, left to right."""
    return [y for x in t for y in leaves(x)] if isinstance(t, tuple) else [t]


def offset_of(shape, stride, i: int) -> int:
    """Offset of index ``i``: split column-major over the leaves of size > 1, the last one
    unbounded (how CuTe extends a layout past its size in composition)."""
    pairs = [(s, d) for s, d in zip(leaves(shape), leaves(stride)) if s != 1]
    total = 0
    for k, (s, d) in enumerate(pairs):
        if k == len(pairs) - 1:
            total += i * d
        else:
            total += (i % s) * d
            i //= s
    return total


def ref(layout, i: int) -> int:
    """``layout(i)`` by the definition."""
    return offset_of(layout.shape, layout.stride, i)


def table(layout) -> list[int]:
    """Every offset of ``layout`` in index order, by the definition."""
    return [ref(layout, i) for i in range(layout.size)]
