"""Exact integer semantics on Python integers, the reference the simulator is checked against."""

from __future__ import annotations


def wrap(value: int, bits: int) -> int:
    """``value`` modulo 2**bits as a signed ``bits``-bit integer (i1: -1 or 0)."""
    return (value + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))


def unsigned(value: int, bits: int) -> int:
    """The ``bits``-bit pattern of ``value`` read as unsigned: unsigned(-1, 8) == 255."""
    return value % (1 << bits)


def c_div(a: int, b: int) -> int:
    """C's integer division, truncating toward zero: c_div(-7, 2) == -3."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q
