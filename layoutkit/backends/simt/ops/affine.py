"""Simulator handlers of ``affine`` index arithmetic, vectorized over threads.

An affine map is evaluated on whole arrays: ``floordiv`` / ``ceildiv`` round toward -inf /
+inf and ``mod`` takes the divisor's sign (never negative for a positive divisor), as in
MLIR's affine semantics. A zero divisor in an active thread is an error naming the op.
Example: ``affine_map<(d0) -> (d0 floordiv 4, d0 mod 4)>`` on d0 = -5 gives (-2, 3).
"""

from __future__ import annotations

import functools

import numpy as np
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)

from layoutkit.backends.simt.machine import full
from layoutkit.backends.simt.registry import handles
from layoutkit.ir.dialects.upstream import affine


def _check_divisor(m, op, divisor: np.ndarray, mask: np.ndarray) -> None:
    zero = divisor == 0
    if zero.any():
        hits = np.flatnonzero(full(zero, mask.shape[0]) & mask)
        if hits.size:
            m.fail(op, "division by zero in an affine expression", int(hits[0]))


def evaluate(m, op, expr: AffineExpr, dims: list, symbols: list, mask) -> np.ndarray:
    """``expr`` over arrays of index values (leading extent 1 or threads)."""
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return symbols[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return np.array([expr.value], np.int64)
    assert isinstance(expr, AffineBinaryOpExpr)
    a = evaluate(m, op, expr.lhs, dims, symbols, mask)
    b = evaluate(m, op, expr.rhs, dims, symbols, mask)
    kind = expr.kind
    if kind is AffineBinaryOpKind.Add:
        return a + b
    if kind is AffineBinaryOpKind.Mul:
        return a * b
    _check_divisor(m, op, b, mask)
    if kind is AffineBinaryOpKind.FloorDiv:
        return np.floor_divide(a, b)
    if kind is AffineBinaryOpKind.CeilDiv:
        return -np.floor_divide(-a, b)
    return np.mod(a, b)


def _map_results(m, op, mask) -> list[np.ndarray]:
    data = op.map.data
    operands = [m.value(v) for v in op.map_operands]
    dims, symbols = operands[:data.num_dims], operands[data.num_dims:]
    return [evaluate(m, op, e, dims, symbols, mask) for e in data.results]


@handles(affine.ApplyOp)
def apply(m, op, mask) -> None:
    m.env[op.result] = _map_results(m, op, mask)[0]


@handles(affine.MinOp, affine.MaxOp)
def min_max(m, op, mask) -> None:
    pick = np.minimum if isinstance(op, affine.MinOp) else np.maximum
    m.env[op.result] = functools.reduce(pick, _map_results(m, op, mask))


def _inner_basis(m, op, count: int, mask) -> list:
    """The basis elements that scale the ``count`` indices: the last ``count - 1`` (an outer
    bound, when given, is not used); each an int or an index array. Checked positive."""
    basis = affine.basis_values(op, m.value)
    inner = basis[len(basis) - (count - 1):] if count > 1 else []
    for b in inner:
        if not isinstance(b, int):
            hits = np.flatnonzero(full(b <= 0, mask.shape[0]) & mask)
            if hits.size:
                m.fail(op, "basis elements must be positive", int(hits[0]))
    return inner


@handles(affine.LinearizeIndexOp)
def linearize(m, op, mask) -> None:
    indices = [m.value(v) for v in op.multi_index]
    inner = _inner_basis(m, op, len(indices), mask)
    total, stride = np.zeros(1, np.int64), 1
    for index, size in zip(reversed(indices), [*reversed(inner), None]):
        total = total + index * stride
        if size is not None:
            stride = stride * size
    m.env[op.linear_index] = total


@handles(affine.DelinearizeIndexOp)
def delinearize(m, op, mask) -> None:
    x = m.value(op.linear_index)
    results = list(op.multi_index)
    inner = _inner_basis(m, op, len(results), mask)
    stride = 1
    for result, size in zip(reversed(results), [*reversed(inner), None]):
        quotient = x if isinstance(stride, int) and stride == 1 else np.floor_divide(x, stride)
        m.env[result] = quotient if size is None else np.mod(quotient, size)
        if size is not None:
            stride = stride * size
