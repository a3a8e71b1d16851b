"""Atomic read-modify-writes (``memref.atomic_rmw``) over all threads at once, sequentially
consistent: the updates of one op are applied in thread order, and each thread gets the
value its update replaced.

Example: threads 0, 1, 2 run ``atomic_rmw addi 5`` on ``x[0] == 1`` and thread 1 on
``x[3]``: thread 0 gets 1, thread 2 gets 6, ``x[0]`` ends at 11; thread 1 gets ``x[3]``.

The threads are sorted (stably) by address, so each address is one segment in thread
order, and a segmented inclusive scan of the updates gives the value after each of them.
Kinds whose combination is exactly associative (integers, bitwise, min/max, assign) scan in
log2(n) whole-array steps; float add and mul round at each step, so they are applied one
after another — by rounds (the k-th thread of every address at once) or by address (one
``ufunc.accumulate`` each), whichever is fewer.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from layoutkit.backends.simt.dtypes import unsigned
from layoutkit.backends.simt.numerics import maximumf, minimumf
from layoutkit.ir.dialects import triton_format as fmt

COMBINE: dict[str, Callable] = {
    "addf": np.add, "addi": np.add, "mulf": np.multiply, "muli": np.multiply,
    "maxs": np.maximum, "mins": np.minimum, "maxu": np.maximum, "minu": np.minimum,
    "maxnumf": np.fmax, "minnumf": np.fmin, "maximumf": maximumf, "minimumf": minimumf,
    "andi": np.bitwise_and, "ori": np.bitwise_or, "xori": np.bitwise_xor,
    "assign": lambda old, new: new,
}
#: Triton's atomic_rmw kinds (tt and amdg) by the names above
TRITON_RMW = {"add": "addi", "fadd": "addf", "max": "maxs", "min": "mins", "umax": "maxu",
              "umin": "minu", "and": "andi", "or": "ori", "xor": "xori", "exch": "assign"}


def triton_rmw_kind(attr) -> str:
    """The kind above of a Triton ``atomic_rmw_op`` property (its enum integer)."""
    value = int(getattr(getattr(attr, "value", attr), "data", attr))
    name = next(name for name, code in fmt.ATOMIC_RMW.items() if code == value)
    return TRITON_RMW[name]
ROUNDED = {"addf": np.add, "mulf": np.multiply}  # not associative in floating point


def atomic_update(kind: str, data: np.ndarray, loc: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Apply ``data[loc[i]] = data[loc[i]] <kind> values[i]`` for i in order; return the old
    values (one per i). ``data`` is flat and updated in place."""
    if kind in ("maxu", "minu") and data.dtype != np.bool_:
        old = atomic_update(kind.replace("u", "s"), data.view(unsigned(data.dtype)), loc,
                            values.astype(data.dtype, copy=False).view(unsigned(data.dtype)))
        return old.view(data.dtype)
    combine = COMBINE[kind]
    values = values.astype(data.dtype, copy=False)
    n = loc.size
    order = np.argsort(loc, kind="stable")
    address, update = loc[order], values[order]
    start = np.ones(n, bool)
    start[1:] = address[1:] != address[:-1]
    first = np.flatnonzero(start)
    initial = data[address[first]]
    if first.size == n:  # no two threads on one address
        data[address] = combine(initial, update).astype(data.dtype, copy=False)
        old = np.empty_like(update)
        old[order] = initial
        return old
    after = update.copy()
    after[first] = combine(initial, update[first])
    lengths = np.diff(np.append(first, n))
    if kind in ROUNDED:
        _sequential_scan(ROUNDED[kind], after, first, lengths)
    else:
        _associative_scan(combine, after, np.cumsum(start) - 1, int(lengths.max()))
    old_sorted = np.empty_like(update)
    old_sorted[first] = initial
    later = np.flatnonzero(~start)
    old_sorted[later] = after[later - 1]
    data[address[first]] = after[first + lengths - 1]
    old = np.empty_like(old_sorted)
    old[order] = old_sorted
    return old


def _associative_scan(combine: Callable, x: np.ndarray, segment: np.ndarray, longest: int) -> None:
    """Inclusive scan of ``x`` within segments, in place (Hillis-Steele: log2 steps)."""
    step = 1
    while step < longest:
        same = np.flatnonzero(segment[step:] == segment[:-step]) + step
        x[same] = combine(x[same - step], x[same])
        step *= 2


def _sequential_scan(ufunc: np.ufunc, x: np.ndarray, first: np.ndarray, lengths: np.ndarray) -> None:
    """Inclusive scan of ``x`` within segments, in place, one rounding per element in order."""
    if lengths.max() <= first.size:
        for k in range(1, int(lengths.max())):
            at = first[lengths > k] + k
            x[at] = ufunc(x[at - 1], x[at])
        return
    for begin, length in zip(first.tolist(), lengths.tolist()):
        if length > 1:
            x[begin:begin + length] = ufunc.accumulate(x[begin:begin + length])


def atomic_cas(data: np.ndarray, loc: np.ndarray, compare: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Apply ``if data[loc[i]] == compare[i]: data[loc[i]] = values[i]`` for i in order (bits
    compared, as a GPU's compare-and-swap); return the old values. The k-th access of every
    address runs in step k. Example: x[0] == 0, three CAS(0 -> 1, 2, 3): old 0, 1, 1; x[0] == 1."""
    bits = unsigned(data.dtype)
    compare = compare.astype(data.dtype, copy=False).view(bits)
    values = values.astype(data.dtype, copy=False)
    order = np.argsort(loc, kind="stable")
    address = loc[order]
    start = np.ones(loc.size, bool)
    start[1:] = address[1:] != address[:-1]
    first = np.flatnonzero(start)
    rank = np.arange(loc.size) - np.repeat(first, np.diff(np.append(first, loc.size)))
    old = np.empty_like(values)
    for k in range(int(rank.max()) + 1 if loc.size else 0):
        at = order[rank == k]
        before = data[loc[at]]
        old[at] = before
        data[loc[at]] = np.where(before.view(bits) == compare[at], values[at], before)
    return old
