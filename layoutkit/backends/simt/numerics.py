"""Integer and float semantics of arith/math ops and combining kinds, on numpy arrays.

Integers wrap like hardware registers (numpy's fixed-width arithmetic); signed division
truncates toward zero as in C (``-7 / 2 == -3``, ``-7 % 2 == -1``); unsigned ops view the
bits as unsigned; shifts by the width or more give 0 (``shrsi``: the sign). Division by zero
(undefined in MLIR) gives a value, not an error.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith, math

from layoutkit.backends.simt.dtypes import is_float, unsigned
from layoutkit.errors import LayoutError


def _trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    safe = np.where(b == 0, 1, b)
    q = a // safe
    fix = (a % safe != 0) & ((a < 0) != (safe < 0))
    return np.where(fix, q + 1, q).astype(a.dtype)


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


def _divui(a, b):
    ua, ub = a.view(unsigned(a.dtype)), b.view(unsigned(b.dtype))
    return (ua // np.where(ub == 0, 1, ub)).astype(ua.dtype).view(a.dtype)


def _remui(a, b):
    ua, ub = a.view(unsigned(a.dtype)), b.view(unsigned(b.dtype))
    return (ua % np.where(ub == 0, 1, ub)).astype(ua.dtype).view(a.dtype)


def _remsi(a, b):
    return (a - _trunc_div(a, b) * b).astype(a.dtype)


def _ceildivsi(a, b):
    safe = np.where(b == 0, 1, b)
    return (-((-a) // safe)).astype(a.dtype)


def _floordivsi(a, b):
    return (a // np.where(b == 0, 1, b)).astype(a.dtype)


BINARY: dict[type, Callable] = {
    arith.AddiOp: operator.add, arith.SubiOp: operator.sub, arith.MuliOp: operator.mul,
    arith.DivSIOp: _trunc_div, arith.DivUIOp: _divui, arith.RemSIOp: _remsi, arith.RemUIOp: _remui,
    arith.FloorDivSIOp: _floordivsi, arith.CeilDivSIOp: _ceildivsi,
    arith.AndIOp: np.bitwise_and, arith.OrIOp: np.bitwise_or, arith.XOrIOp: np.bitwise_xor,
    arith.ShLIOp: _shli, arith.ShRSIOp: _shrsi, arith.ShRUIOp: _shrui,
    arith.MinSIOp: np.minimum, arith.MaxSIOp: np.maximum,
    arith.MinUIOp: _as_unsigned(np.minimum), arith.MaxUIOp: _as_unsigned(np.maximum),
    arith.AddfOp: operator.add, arith.SubfOp: operator.sub, arith.MulfOp: operator.mul,
    arith.DivfOp: operator.truediv, arith.MaximumfOp: np.maximum, arith.MinimumfOp: np.minimum,
    arith.MaxnumfOp: np.fmax, arith.MinnumfOp: np.fmin,
    math.PowFOp: np.power, math.CopySignOp: np.copysign, math.Atan2Op: np.arctan2,
}
UNARY: dict[type, Callable] = {
    arith.NegfOp: np.negative, math.ExpOp: np.exp, math.Exp2Op: np.exp2, math.ExpM1Op: np.expm1,
    math.LogOp: np.log, math.Log2Op: np.log2, math.Log10Op: np.log10, math.Log1pOp: np.log1p,
    math.SqrtOp: np.sqrt, math.RsqrtOp: lambda x: (1 / np.sqrt(x)).astype(x.dtype),
    math.TanhOp: np.tanh, math.SinOp: np.sin, math.CosOp: np.cos, math.TanOp: np.tan,
    math.AbsFOp: np.abs, math.AbsIOp: np.abs, math.FloorOp: np.floor, math.CeilOp: np.ceil,
    math.TruncOp: np.trunc, math.RoundEvenOp: np.rint,
    math.RoundOp: lambda x: (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(x.dtype),
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
    """Combine ``values`` along ``axis`` with a vector/subgroup combining kind."""
    if kind == "add":
        return np.add.reduce(values, axis=axis, dtype=values.dtype)
    if kind == "mul":
        return np.multiply.reduce(values, axis=axis, dtype=values.dtype)
    if kind in ("minsi", "minimumf"):
        return np.minimum.reduce(values, axis=axis)
    if kind in ("maxsi", "maximumf"):
        return np.maximum.reduce(values, axis=axis)
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


def identity_of(kind: str, dtype: np.dtype):
    """The neutral element of a combining kind (fills inactive lanes)."""
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
