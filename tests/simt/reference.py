"""Exact integer semantics on Python integers, the reference the simulator is checked against."""

from __future__ import annotations

import math
from fractions import Fraction


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


# op -> exact result on signed Python integers of width w (then wrapped to w bits)
BINARY = {
    "arith.addi": lambda a, b, w: a + b,
    "arith.subi": lambda a, b, w: a - b,
    "arith.muli": lambda a, b, w: a * b,
    "arith.andi": lambda a, b, w: a & b,
    "arith.ori": lambda a, b, w: a | b,
    "arith.xori": lambda a, b, w: a ^ b,
    "arith.minsi": lambda a, b, w: min(a, b),
    "arith.maxsi": lambda a, b, w: max(a, b),
    "arith.minui": lambda a, b, w: min(unsigned(a, w), unsigned(b, w)),
    "arith.maxui": lambda a, b, w: max(unsigned(a, w), unsigned(b, w)),
    # shifts by the width or more: 0, or the sign for shrsi (Python's >> does the latter)
    "arith.shli": lambda a, b, w: a << unsigned(b, w) if unsigned(b, w) < w else 0,
    "arith.shrsi": lambda a, b, w: a >> unsigned(b, w),
    "arith.shrui": lambda a, b, w: unsigned(a, w) >> unsigned(b, w),
}
DIVISION = {  # b != 0; MIN / -1 wraps to MIN
    "arith.divsi": lambda a, b, w: c_div(a, b),
    "arith.remsi": lambda a, b, w: a - b * c_div(a, b),
    "arith.floordivsi": lambda a, b, w: math.floor(Fraction(a, b)),
    "arith.ceildivsi": lambda a, b, w: math.ceil(Fraction(a, b)),
    "arith.divui": lambda a, b, w: unsigned(a, w) // unsigned(b, w),
    "arith.remui": lambda a, b, w: unsigned(a, w) % unsigned(b, w),
    "arith.ceildivui": lambda a, b, w: math.ceil(Fraction(unsigned(a, w), unsigned(b, w))),
}
