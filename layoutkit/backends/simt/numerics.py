"""Integer and float semantics of arith/math ops and combining kinds, on numpy arrays.

Integers wrap like hardware registers (numpy's fixed-width arithmetic, no wider
intermediates: ``ceildivsi(-2**31, 7) == -306783378``); signed division truncates toward
zero as in C (``-7 / 2 == -3``, ``-7 % 2 == -1``), ``MIN / -1`` wraps to ``MIN``; unsigned
ops view the bits as unsigned; shifts by the width or more give 0 (``shrsi``: the sign).
i1 is signed (true is -1): its ops run on int8 -1/0 and keep the low bit. Division by zero
(undefined in MLIR) is reported by the machine before these run (:data:`DIVISIONS`).
Conversions to a float and fma round once to nearest even (:func:`to_float`, :func:`fma`);
float to integer truncates and saturates like PTX ``cvt.rzi`` (NaN gives 0,
:func:`float_to_int`). ``minimumf`` / ``maximumf`` are IEEE 754-2019 minimum / maximum as
MLIR defines them: NaN (the canonical quiet NaN, as PTX ``min.NaN`` gives) when either operand
is NaN, and -0.0 < +0.0 (``minimumf(+0.0, -0.0) == -0.0``); ``minnumf`` / ``maxnumf`` return
the non-NaN operand (NaN only when both are).
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith, math

from layoutkit.backends.simt.dtypes import BFLOAT16, is_float, unsigned
from layoutkit.errors import LayoutError


def _safe_divisor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``b`` with 0 (reported by the machine for active threads) and the overflowing
    ``MIN / -1`` replaced by 1, so numpy never divides by zero or overflows."""
    bad = b == 0
    if a.dtype.kind == "i":
        bad = bad | ((b == -1) & (a == np.iinfo(a.dtype).min))
    return np.where(bad, 1, b).astype(b.dtype)


def _floordivsi(a, b):
    """Floor of a / b; ``MIN / -1`` wraps to MIN."""
    safe = _safe_divisor(a, b)
    return np.where(safe == b, a // safe, a).astype(a.dtype)


def _trunc_div(a, b):
    """C division: -7 / 2 == -3 (floor, plus one when inexact and the signs differ)."""
    safe = _safe_divisor(a, b)
    q = a // safe + ((a % safe != 0) & ((a < 0) != (safe < 0)))
    return np.where(safe == b, q, a).astype(a.dtype)


def _ceildivsi(a, b):
    """Ceiling of a / b from the floor, so no intermediate overflows: ceildivsi(-2**31, 7)
    == floor(-2**31 / 7) + 1 == -306783378."""
    safe = _safe_divisor(a, b)
    q = a // safe + (a % safe != 0)
    return np.where(safe == b, q, a).astype(a.dtype)


def _remsi(a, b):
    """C remainder, the sign of ``a``: -7 % 2 == -1 (``MIN % -1 == 0``)."""
    return np.fmod(a, _safe_divisor(a, b)).astype(a.dtype)


def _as_unsigned(f: Callable) -> Callable:
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        ua, ub = a.view(unsigned(a.dtype)), b.view(unsigned(b.dtype))
        return np.asarray(f(ua, ub)).astype(ua.dtype).view(a.dtype)
    return run


def _shift_amount(b: np.ndarray, bits: int) -> np.ndarray:
    return np.where((b < 0) | (b >= bits), bits, b)


def _shli(a, b):
    bits = a.dtype.itemsize * 8
    s = _shift_amount(b, bits)
    out = np.left_shift(a, np.minimum(s, bits - 1))
    return np.where(s >= bits, 0, out).astype(a.dtype)


def _shrsi(a, b):
    bits = a.dtype.itemsize * 8
    return np.right_shift(a, np.minimum(_shift_amount(b, bits), bits - 1)).astype(a.dtype)


def _shrui(a, b):
    bits = a.dtype.itemsize * 8
    ua = a.view(unsigned(a.dtype))
    s = _shift_amount(b, bits)
    out = np.right_shift(ua, np.minimum(s, bits - 1).astype(ua.dtype))
    return np.where(s >= bits, 0, out).astype(ua.dtype).view(a.dtype)


def _round_half_away(x):
    """math.round: to nearest, ties away from zero, from the exact fraction ``x - trunc(x)``
    (``floor(|x| + 0.5)`` rounds 0.49999997f up to 1: the sum itself rounds)."""
    whole = np.trunc(x)
    return np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole).astype(x.dtype)


def _divui(a, b):
    return a // np.where(b == 0, 1, b)


def _remui(a, b):
    return a % np.where(b == 0, 1, b)


def _ceildivui(a, b):
    safe = np.where(b == 0, 1, b)
    return a // safe + (a % safe != 0)


def _canonical_nan(result: np.ndarray) -> np.ndarray:
    """``result`` with every NaN replaced by the positive quiet NaN (f32 0x7fc00000)."""
    nan = np.isnan(result)
    if not nan.any():
        return result
    return np.where(nan, np.array(np.nan, result.dtype), result)


def minimumf(a, b):
    """IEEE minimum: NaN if either is NaN, -0.0 below +0.0: ``minimumf(0.0, -0.0) == -0.0``."""
    a, b = np.asarray(a), np.asarray(b)
    # among equal operands (the only case: +-0) the one with the sign bit is the minimum
    return _canonical_nan(np.where(a == b, np.where(np.signbit(a), a, b), np.minimum(a, b)))


def maximumf(a, b):
    """IEEE maximum: NaN if either is NaN, +0.0 above -0.0: ``maximumf(-0.0, 0.0) == 0.0``."""
    a, b = np.asarray(a), np.asarray(b)
    return _canonical_nan(np.where(a == b, np.where(np.signbit(a), b, a), np.maximum(a, b)))


def _reduce_extremum(values: np.ndarray, axis, minimum: bool) -> np.ndarray:
    """minimumf / maximumf over ``axis``: numpy's reduction propagates NaN; a zero result
    is -0.0 for the minimum when any operand is -0.0, +0.0 for the maximum when any is +0.0."""
    if not is_float(values.dtype):
        return (np.minimum if minimum else np.maximum).reduce(values, axis=axis)
    result = np.asarray((np.minimum if minimum else np.maximum).reduce(values, axis=axis))
    zero = values == 0
    wanted = np.any(zero & (np.signbit(values) == minimum), axis=axis)
    signed = np.array(-0.0 if minimum else 0.0, values.dtype)
    other = np.array(0.0 if minimum else -0.0, values.dtype)
    result = np.where(result == 0, np.where(wanted, signed, other), result)
    return _canonical_nan(result)


BINARY: dict[type, Callable] = {
    arith.AddiOp: operator.add, arith.SubiOp: operator.sub, arith.MuliOp: operator.mul,
    arith.DivSIOp: _trunc_div, arith.DivUIOp: _as_unsigned(_divui), arith.RemSIOp: _remsi,
    arith.RemUIOp: _as_unsigned(_remui), arith.FloorDivSIOp: _floordivsi,
    arith.CeilDivSIOp: _ceildivsi, arith.CeilDivUIOp: _as_unsigned(_ceildivui),
    arith.AndIOp: np.bitwise_and, arith.OrIOp: np.bitwise_or, arith.XOrIOp: np.bitwise_xor,
    arith.ShLIOp: _shli, arith.ShRSIOp: _shrsi, arith.ShRUIOp: _shrui,
    arith.MinSIOp: np.minimum, arith.MaxSIOp: np.maximum,
    arith.MinUIOp: _as_unsigned(np.minimum), arith.MaxUIOp: _as_unsigned(np.maximum),
    arith.AddfOp: operator.add, arith.SubfOp: operator.sub, arith.MulfOp: operator.mul,
    arith.DivfOp: operator.truediv, arith.MaximumfOp: maximumf, arith.MinimumfOp: minimumf,
    arith.MaxnumfOp: np.fmax, arith.MinnumfOp: np.fmin,
    math.PowFOp: np.power, math.CopySignOp: np.copysign, math.Atan2Op: np.arctan2,
}
# integer divisions: a zero divisor of an active thread is a SimulationError
DIVISIONS = frozenset({arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp,
                       arith.FloorDivSIOp, arith.CeilDivSIOp, arith.CeilDivUIOp})


def signed_i1(values: np.ndarray) -> np.ndarray:
    """i1 values as int8 with the sign (true -> -1); other values unchanged."""
    if values.dtype != np.bool_:
        return values
    return np.negative(values.astype(np.int8))


def on_i1(function: Callable) -> Callable:
    """An integer op on i1: run on int8 -1/0, keep the low bit (wraps like any width:
    addi(true, true) == false, minsi(true, false) == true, divui(true, true) == true)."""
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (np.asarray(function(signed_i1(a), signed_i1(b))) & 1).astype(np.bool_)
    return run


def to_float(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Integers (any width, signed or unsigned) or floats rounded once to nearest even in
    ``dtype``. numpy and ml_dtypes round some casts twice (int64 or float64 to bfloat16 go
    through float32: 2**24 + 2**16 + 1 becomes 2**24, not 2**24 + 2**17); here the value
    is first rounded to odd in float64 and float32, from which bfloat16 rounds exactly.
    """
    dtype = np.dtype(dtype)
    if values.dtype == np.bool_:
        values = signed_i1(values)
    if dtype != BFLOAT16 or values.dtype.itemsize <= 4 and values.dtype.kind == "f":
        return values.astype(dtype)  # exact, or one rounding by numpy or ml_dtypes
    if values.dtype.kind in "iu":
        values = _int_to_odd_float64(values)
    odd = _round_to_odd(values, values.astype(np.float32), lambda t: t.astype(np.float64))
    return odd.astype(dtype)


def _round_to_odd(exact: np.ndarray, nearest: np.ndarray, widen: Callable) -> np.ndarray:
    """``nearest`` (``exact`` rounded to nearest) turned into ``exact`` rounded to odd:
    truncated toward zero, lowest significand bit set when inexact."""
    wide = widen(nearest)
    away = np.abs(wide) > np.abs(exact)
    truncated = np.where(away, np.nextafter(nearest, nearest.dtype.type(0)), nearest)
    inexact = widen(truncated) != exact
    bits = truncated.view(f"u{truncated.dtype.itemsize}")
    return (bits | inexact.astype(bits.dtype)).view(truncated.dtype)


def _int_to_odd_float64(values: np.ndarray) -> np.ndarray:
    """64-bit integers rounded to odd in float64: the high and low 32-bit halves are exact
    in float64 and their sum's rounding error is exact (Fast2Sum: |high| >= |low| or high
    is 0)."""
    values = values.astype(np.uint64 if values.dtype.kind == "u" else np.int64)
    high = (values >> 32).astype(np.float64) * 2.0**32
    low = (values & 0xFFFFFFFF).astype(np.float64)
    total = high + low
    return _odd_from_error(total, low - (total - high))


def _odd_from_error(total: np.ndarray, error: np.ndarray) -> np.ndarray:
    """float64 ``total`` with the exact value ``total + error``, rounded to odd instead:
    truncated toward zero, lowest significand bit set when inexact (finite values only)."""
    inexact = (error != 0) & np.isfinite(total)
    truncated = np.where(inexact & (np.sign(error) * np.sign(total) < 0),
                         np.nextafter(total, 0.0), total)
    return (truncated.view(np.uint64) | inexact.astype(np.uint64)).view(np.float64)


def _two_sum(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, e) with s = x + y rounded and s + e == x + y exactly (Knuth's TwoSum)."""
    s = x + y
    y_part = s - x
    return s, (x - (s - y_part)) + (y - y_part)


def _two_product(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, e) with p = x * y rounded and p + e == x * y exactly (Dekker, Veltkamp splits;
    exact while nothing overflows or underflows)."""
    def split(v):
        scaled = v * 134217729.0  # 2**27 + 1
        high = scaled - (scaled - v)
        return high, v - high

    p = x * y
    xh, xl = split(x)
    yh, yl = split(y)
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once. For f16, bf16 and f32 the product is exact in float64 and
    the sum's error is exact (TwoSum), so the sum rounds to odd in float64 and from there
    once to the type: fma(24929, 673, 2**-30) : f32 == 2**24 + 2, not the 2**24 that
    rounding through float64 gives. f64: Boldo and Melquiond's emulation, exact product
    and sum pieces whose small part is rounded to odd before the final addition (values
    near overflow or underflow, and non-finite ones, take the plain a * b + c)."""
    if a.dtype == np.float64:
        product, product_error = _two_product(a, b)
        high, low = _two_sum(c, product)
        small, small_error = _two_sum(low, product_error)
        out = high + _odd_from_error(small, small_error)
        plain = a * b + c
        safe = np.isfinite(out) & (np.abs(a * b) < 2.0**970) & (np.abs(c) < 2.0**970) & (
            (np.abs(product) > 2.0**-960) | (product == 0))
        return np.where(safe, out, plain)
    x, y, z = (v.astype(np.float64) for v in (a, b, c))
    total, error = _two_sum(x * y, z)
    return to_float(_odd_from_error(total, error), a.dtype)


def float_to_int(values: np.ndarray, dtype: np.dtype, signed: bool) -> np.ndarray:
    """Floats truncated toward zero and saturated to the integer range of ``dtype`` (as
    unsigned when not ``signed``), NaN -> 0, like PTX ``cvt.rzi`` and CUDA's casts.
    Example: fptosi 3e9 : f32 to i32 == 2147483647; fptoui -2.5 : f32 to i8 == 0."""
    dtype = np.dtype(dtype)
    bits = 1 if dtype == np.bool_ else dtype.itemsize * 8
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    x = np.trunc(values.astype(np.float64))
    above = x >= float(high + 1)  # a power of two, exact in float64 (high itself may not be)
    inside = (x >= low) & ~above
    target = np.dtype(np.int64) if signed or bits < 64 else np.dtype(np.uint64)
    out = np.where(inside, x, 0).astype(target)
    out = np.where(above, target.type(high), np.where(x < low, target.type(low), out))
    if dtype == np.bool_:
        return (out & 1).astype(np.bool_)
    return out.astype(dtype if signed else unsigned(dtype)).view(dtype)


UNARY: dict[type, Callable] = {
    arith.NegfOp: np.negative, math.ExpOp: np.exp, math.Exp2Op: np.exp2, math.ExpM1Op: np.expm1,
    math.LogOp: np.log, math.Log2Op: np.log2, math.Log10Op: np.log10, math.Log1pOp: np.log1p,
    math.SqrtOp: np.sqrt, math.RsqrtOp: lambda x: (1 / np.sqrt(x)).astype(x.dtype),
    math.TanhOp: np.tanh, math.SinOp: np.sin, math.CosOp: np.cos, math.TanOp: np.tan,
    math.AbsFOp: np.abs, math.AbsIOp: np.abs, math.FloorOp: np.floor, math.CeilOp: np.ceil,
    math.TruncOp: np.trunc, math.RoundEvenOp: np.rint,
    math.RoundOp: _round_half_away,
    math.SinhOp: np.sinh, math.CoshOp: np.cosh, math.AtanOp: np.arctan,
}
CMPI = {
    "eq": operator.eq, "ne": operator.ne, "slt": operator.lt, "sle": operator.le,
    "sgt": operator.gt, "sge": operator.ge,
}
CMPF = {
    "oeq": operator.eq, "ogt": operator.gt, "oge": operator.ge, "olt": operator.lt,
    "ole": operator.le,
}


def reduce_kind(kind: str, values: np.ndarray, axis) -> np.ndarray:
    """Combine ``values`` along ``axis`` with a vector/subgroup combining kind (i1: on
    int8 -1/0, the low bit kept, so add is parity and minsi is 'any')."""
    if values.dtype == np.bool_:
        return (np.asarray(reduce_kind(kind, signed_i1(values), axis)) & 1).astype(np.bool_)
    if kind == "add":
        return np.add.reduce(values, axis=axis, dtype=values.dtype)
    if kind == "mul":
        return np.multiply.reduce(values, axis=axis, dtype=values.dtype)
    if kind == "minsi":
        return np.minimum.reduce(values, axis=axis)
    if kind == "maxsi":
        return np.maximum.reduce(values, axis=axis)
    if kind in ("minimumf", "maximumf"):
        return _reduce_extremum(values, axis, kind == "minimumf")
    if kind == "minnumf":
        return np.fmin.reduce(values, axis=axis)
    if kind == "maxnumf":
        return np.fmax.reduce(values, axis=axis)
    if kind in ("minui", "maxui"):
        u = values.view(unsigned(values.dtype))
        f = np.minimum if kind == "minui" else np.maximum
        return f.reduce(u, axis=axis).view(values.dtype)
    if kind == "and":
        return np.bitwise_and.reduce(values, axis=axis)
    if kind == "or":
        return np.bitwise_or.reduce(values, axis=axis)
    if kind == "xor":
        return np.bitwise_xor.reduce(values, axis=axis)
    raise LayoutError(f"reduction kind '{kind}' is not simulated")


# i1 is signed (true = -1): the largest value is false, the smallest true
I1_IDENTITY = {"add": False, "or": False, "xor": False, "mul": True, "and": True,
               "minsi": False, "maxsi": True, "minui": True, "maxui": False}


def identity_of(kind: str, dtype: np.dtype):
    """The neutral element of a combining kind (fills inactive lanes)."""
    if dtype == np.bool_:
        if kind not in I1_IDENTITY:
            raise LayoutError(f"reduction kind '{kind}' is not simulated for i1")
        return I1_IDENTITY[kind]
    if kind in ("add", "or", "xor"):
        return 0
    if kind == "mul":
        return 1
    if kind == "and":
        return -1 if dtype != np.bool_ else True
    floating = is_float(dtype)
    if kind in ("minsi", "minimumf", "minnumf"):
        return np.inf if floating else np.iinfo(dtype).max
    if kind in ("maxsi", "maximumf", "maxnumf"):
        return -np.inf if floating else np.iinfo(dtype).min
    if kind == "minui":
        return -1
    if kind == "maxui":
        return 0
    raise LayoutError(f"reduction kind '{kind}' is not simulated")
