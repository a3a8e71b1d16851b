"""Simulator handlers of ``arith`` and ``math``: one numpy operation per op over all threads,
with each type's numerics (:mod:`layoutkit.backends.simt.numerics`)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith, math, vector
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr

from layoutkit.backends.simt.dtypes import element_dtype, is_float, unsigned, vector_shape
from layoutkit.backends.simt.machine import KEPT_SLOTS, expand
from layoutkit.backends.simt.numerics import (
    BINARY,
    CMPF,
    CMPI,
    DIVISIONS,
    UNARY,
    float_to_int,
    on_i1,
    signed_i1,
    to_float,
)
from layoutkit.backends.simt.numerics import fma as fma_rounded_once
from layoutkit.backends.simt.registry import handles
from layoutkit.ir.dialects.upstream import arith as patched


@handles(arith.ConstantOp)
def constant(m, op, mask) -> None:
    """The constant's value, uniform (leading extent 1), read from the attribute once and
    kept with the kernel, read-only (values are never written in place): reading a dense
    attribute's values through xdsl costs microseconds per element."""
    key = ("constant", op)
    kept = m.static.get(key)
    if kept is not None:
        m.env[kept[0]] = kept[1]
        m.note_lasting(kept[1])
        return
    _constant(m, op)
    result = op.results[0]
    if getattr(getattr(result.type, "encoding", None), "layout", None) is None:
        value = m.env[result]  # (a TTGIR tensor's is spread by the run's layout: not kept)
        value.flags.writeable = False
        m.static[key] = (result, value)
        m.note_lasting(value)


def _constant(m, op) -> None:
    attr = op.value
    dtype = element_dtype(op.result.type)
    if isinstance(attr, (IntegerAttr, FloatAttr)):
        data = attr.value.data
        if dtype == np.bool_:
            data = bool(data & 1)
        out = np.array([data]).astype(dtype) if not is_float(dtype) else np.array([data], dtype)
    elif isinstance(attr, DenseIntOrFPElementsAttr):
        shape = vector_shape(op.result.type)
        values = np.array(attr.get_values())
        if dtype == np.bool_:
            values = values.astype(np.int64) & 1
        values = values.astype(np.float64).astype(dtype) if is_float(dtype) else values.astype(dtype)
        if getattr(getattr(op.result.type, "encoding", None), "layout", None) is not None:
            m.env[op.result] = _distributed_constant(m, op, values)  # a TTGIR tensor
            return
        out = np.broadcast_to(values, shape).copy()[None] if values.size == 1 else values.reshape((1, *shape))
    else:
        m.fail(op, f"constant attribute {attr} not supported")
    m.env[op.result] = out


def _distributed_constant(m, op, values: np.ndarray) -> np.ndarray:
    """A constant tensor with a layout: (1, 1) when a splat, else spread by its encoding."""
    if values.size == 1:
        return values.reshape(1, 1)
    shape = tuple(op.result.type.get_shape())
    return m.per_thread(m.distribute(op, values.reshape((1, *shape)), op.result.type))


@handles(*(cls for cls in BINARY if cls not in DIVISIONS))
def binary(m, op, mask) -> None:
    """One numpy operation; an integer one (index arithmetic) is kept by its operands'
    identities (:meth:`Machine.recall`): run again on the same arrays, as loop-invariant
    index math on each iteration, it costs a lookup."""
    lhs, rhs, result, function, dtype = _binary_info(m, op)
    env = m.env
    a, b = env[lhs], env[rhs]
    if dtype.kind in "iu" and (max(a.shape[0], b.shape[0]) >= KEPT_SLOTS or m.lasts((a, b))):
        key = (op, id(a), id(b))
        out = m.recall(key, (a, b))
        if out is None:
            out = np.asarray(function(a, b)).astype(dtype, copy=False)
            m.remember(key, (a, b), out)
        env[result] = out
        return
    env[result] = np.asarray(function(a, b)).astype(dtype, copy=False)


def _binary_info(m, op) -> tuple:
    """(lhs, rhs, result, function, result dtype) of a binary op, read once."""
    info = m.static.get(op)
    if info is None:
        dtype = element_dtype(op.results[0].type)
        function = BINARY[type(op)]
        if dtype == np.bool_:
            function = on_i1(function)
        info = m.static[op] = (op.operands[0], op.operands[1], op.results[0], function, dtype)
    return info


@handles(*DIVISIONS)
def division(m, op, mask) -> None:
    """An integer division or remainder; a zero divisor of an active thread (undefined
    behaviour in MLIR, a garbage value on GPUs) is reported."""
    lhs, rhs, result, function, dtype = _binary_info(m, op)
    dividend, divisor = m.env[lhs], m.env[rhs]
    key = (op, id(dividend), id(divisor))
    keep = max(dividend.shape[0], divisor.shape[0]) >= KEPT_SLOTS or m.lasts((dividend, divisor))
    out = m.recall(key, (dividend, divisor)) if keep else None  # (kept: no divisor was zero)
    if out is not None:
        m.env[result] = out
        return
    zero = divisor == 0
    if zero.ndim > 1:
        zero = zero.reshape(zero.shape[0], -1).any(axis=1)
    zero = zero & mask if zero.shape[0] == mask.shape[0] else (mask & zero[0])
    if zero.any():
        m.fail(op, "integer division by zero", int(np.flatnonzero(zero)[0]))
    out = m.env[result] = np.asarray(function(dividend, divisor)).astype(dtype, copy=False)
    if keep and divisor.all():
        m.remember(key, (dividend, divisor), out)


@handles(*UNARY)
def unary(m, op, mask) -> None:
    a = m.value(op.operands[0])
    m.env[op.results[0]] = np.asarray(UNARY[type(op)](a)).astype(a.dtype, copy=False)


@handles(math.FmaOp, vector.FMAOp)
def fma(m, op, mask) -> None:
    a, b, c = (m.value(v) for v in op.operands)
    m.env[op.results[0]] = fma_rounded_once(a, b, c)


@handles(patched.CmpiOp)
def cmpi(m, op, mask) -> None:
    a, b = signed_i1(m.value(op.lhs)), signed_i1(m.value(op.rhs))
    name = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    if name.startswith("u"):
        a, b = a.view(unsigned(a.dtype)), b.view(unsigned(b.dtype))
        name = "s" + name[1:]
    m.env[op.result] = CMPI[name](a, b)


@handles(patched.CmpfOp)
def cmpf(m, op, mask) -> None:
    a, b = m.value(op.lhs), m.value(op.rhs)
    name = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    nan = np.isnan(a) | np.isnan(b)
    if name in ("false", "true"):
        out = np.full(np.broadcast_shapes(a.shape, b.shape), name == "true")
    elif name == "ord":
        out = ~nan
    elif name == "uno":
        out = nan
    elif name == "one":
        out = (a != b) & ~nan
    elif name == "une":
        out = a != b
    elif name.startswith("o"):
        out = CMPF[name](a, b)
    else:
        out = CMPF["o" + name[1:]](a, b) | nan
    m.env[op.result] = out


@handles(patched.SelectOp)
def select(m, op, mask) -> None:
    cond = m.value(op.cond)
    a, b = m.value(op.lhs), m.value(op.rhs)
    ndim = max(a.ndim, b.ndim)
    m.env[op.result] = np.where(expand(cond, ndim) if cond.ndim < ndim else cond, a, b)


@handles(arith.ExtFOp, arith.TruncFOp,
         *(patched.CASTS[c] for c in (arith.IndexCastOp, arith.ExtSIOp, arith.TruncIOp, arith.SIToFPOp)))
def cast(m, op, mask) -> None:
    """index_cast, extsi, trunci: numpy's integer conversions wrap; i1 is signed (true
    extends to -1, truncation to i1 keeps the low bit). sitofp, extf, truncf: rounded
    once to nearest even (:func:`to_float`)."""
    a = m.value(op.operands[0])
    dtype = element_dtype(op.results[0].type)
    if is_float(dtype):
        out = to_float(a, dtype)
    elif dtype == np.bool_:
        out = (a & 1).astype(np.bool_) if a.dtype != np.bool_ else a
    else:
        out = signed_i1(a).astype(dtype)
    m.env[op.results[0]] = out


@handles(patched.CASTS[arith.ExtUIOp], patched.CASTS[arith.UIToFPOp])
def extui(m, op, mask) -> None:
    """extui, index_castui and uitofp: the operand's bits read as unsigned (i1 true -> 1)."""
    a = m.value(op.operands[0])
    dtype = element_dtype(op.results[0].type)
    bits = a.view(unsigned(a.dtype)) if a.dtype != np.bool_ else a.astype(np.uint8)
    m.env[op.results[0]] = to_float(bits, dtype) if is_float(dtype) else bits.astype(dtype)


@handles(patched.CASTS[arith.FPToSIOp], patched.CASTS[arith.FPToUIOp])
def fptoi(m, op, mask) -> None:
    a = m.value(op.operands[0])
    dtype = element_dtype(op.results[0].type)
    m.env[op.results[0]] = float_to_int(a, dtype, signed=op.name == "arith.fptosi")


@handles(arith.BitcastOp, vector.BitcastOp)
def bitcast(m, op, mask) -> None:
    a = m.value(op.operands[0])
    dtype = element_dtype(op.results[0].type)
    shape = vector_shape(op.results[0].type)
    m.env[op.results[0]] = np.ascontiguousarray(a).view(dtype).reshape((a.shape[0], *shape))
