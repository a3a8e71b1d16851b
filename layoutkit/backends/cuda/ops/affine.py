"""CUDA emitters of ``affine`` index arithmetic: C expressions over ``int`` (``index``).

``floordiv`` / ``ceildiv`` are the prelude's ``floordiv`` / ``ceildiv`` (rounding toward
-inf / +inf); ``a mod b`` is ``a - floordiv(a, b) * b`` (the divisor's sign, as the
simulator computes it). Example: ``affine_map<(d0)[s0] -> (d0 floordiv 4 + s0 mod 8)>`` on
``%i``, ``%n`` gives ``(floordiv(i, 4) + (n - floordiv(n, 8) * 8))``.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineSymExpr,
)

from layoutkit.backends.cuda.c_text import paren
from layoutkit.backends.cuda.emit import FunctionEmitter
from layoutkit.backends.cuda.registry import emits
from layoutkit.ir.dialects.upstream import affine


def c_expression(expr: Any, dims: list[str], symbols: list[str]) -> str:
    """The C text of the affine expression ``expr`` over operand texts ``dims``, ``symbols``."""
    if isinstance(expr, AffineDimExpr):
        return paren(dims[expr.position])
    if isinstance(expr, AffineSymExpr):
        return paren(symbols[expr.position])
    if isinstance(expr, AffineConstantExpr):
        return str(expr.value) if expr.value >= 0 else f"({expr.value})"
    assert isinstance(expr, AffineBinaryOpExpr)
    a, b = c_expression(expr.lhs, dims, symbols), c_expression(expr.rhs, dims, symbols)
    kind = expr.kind
    if kind is AffineBinaryOpKind.Add:
        return f"({a} + {b})"
    if kind is AffineBinaryOpKind.Mul:
        return f"({a} * {b})"
    if kind is AffineBinaryOpKind.FloorDiv:
        return f"floordiv({a}, {b})"
    if kind is AffineBinaryOpKind.CeilDiv:
        return f"ceildiv({a}, {b})"
    return f"({a} - floordiv({a}, {b}) * {b})"


def _map_results(f: FunctionEmitter, op: Any) -> list[str]:
    data = op.map.data
    operands = [f.expr(v) for v in op.map_operands]
    dims, symbols = operands[:data.num_dims], operands[data.num_dims:]
    return [c_expression(e, dims, symbols) for e in data.results]


@emits(affine.ApplyOp)
def apply(f: FunctionEmitter, op: Any) -> None:
    f.define(op.result, _map_results(f, op)[0])


@emits(affine.MinOp, affine.MaxOp)
def min_max(f: FunctionEmitter, op: Any) -> None:
    pick = "min" if isinstance(op, affine.MinOp) else "max"
    results = _map_results(f, op)
    text = results[-1]
    for result in reversed(results[:-1]):
        text = f"{pick}({result}, {text})"
    f.define(op.result, text)


def _inner_basis(f: FunctionEmitter, op: Any, count: int) -> list[str]:
    """C texts of the basis elements that scale ``count`` indices (the last ``count - 1``)."""
    basis = affine.basis_values(op, lambda v: paren(f.expr(v)))
    inner = basis[len(basis) - (count - 1):] if count > 1 else []
    return [str(b) for b in inner]


@emits(affine.LinearizeIndexOp)
def linearize(f: FunctionEmitter, op: Any) -> None:
    indices = [paren(f.expr(v)) for v in op.multi_index]
    inner = _inner_basis(f, op, len(indices))
    terms, stride = [], []
    for index, size in zip(reversed(indices), [*reversed(inner), None]):
        terms.append(" * ".join([index, *stride]))
        if size is not None:
            stride = [size, *stride]
    f.define(op.linear_index, " + ".join(reversed(terms)))


@emits(affine.DelinearizeIndexOp)
def delinearize(f: FunctionEmitter, op: Any) -> None:
    x = paren(f.expr(op.linear_index))
    results = list(op.multi_index)
    inner = _inner_basis(f, op, len(results))
    stride: list[str] = []
    texts = []
    for size in [*reversed(inner), None]:
        quotient = f"floordiv({x}, {' * '.join(stride)})" if stride else x
        texts.append(quotient if size is None else f"({quotient} - floordiv({quotient}, {size}) * {size})")
        if size is not None:
            stride = [size, *stride]
    for result, text in zip(results, reversed(texts)):
        f.define(result, text)
