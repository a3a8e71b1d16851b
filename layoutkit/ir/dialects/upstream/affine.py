"""``affine`` index arithmetic in MLIR's current syntax: ``apply``, ``min``, ``max``,
``linearize_index`` and ``delinearize_index``.

xDSL 0.74 has ``affine.apply`` and ``affine.min`` (printed with a space before the operands)
and lacks the other three. layoutkit defines all five here on one pattern::

    %a = affine.apply affine_map<(d0)[s0] -> (d0 floordiv 4 + s0)>(%i)[%n]
    %m = affine.min affine_map<(d0) -> (d0, 16)>(%i)
    %x = affine.max affine_map<(d0)[s0] -> (d0 - s0, 0)>(%i)[%n]
    %l = affine.linearize_index disjoint [%a, %b] by (4, 8) : index
    %d:2 = affine.delinearize_index %l into (4, 8) : index, index

Semantics (what the backends compute): a map's results with ``floordiv`` / ``ceildiv``
rounding toward -inf / +inf and ``mod`` never negative (for a positive divisor);
``min`` / ``max`` over the map's results. ``linearize_index [i0, .., in] by (b0, .., bn)`` is
``sum(i_k * prod(b_{k+1..n}))`` (``b0`` may be left out: it only bounds ``i0``; ``disjoint``
promises every ``i_k < b_k``). ``delinearize_index %x into (b0, .., bn)`` gives
``x floordiv prod(b_{k+1..n}) mod b_k`` for k > 0 and ``x floordiv prod(b_1..n)`` for the first
result (with ``n + 1`` results the first basis element is an outer bound, not used); e.g.
``delinearize_index 29 into (4, 8)`` is (3, 5). A basis element is a constant or an index value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import AffineMapAttr, DenseArrayBase, IndexType, UnitAttr, i64
from xdsl.dialects.utils import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
    verify_dynamic_index_list,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir.registry import register

DYNAMIC = -(2**63)  # MLIR's ShapedType::kDynamic in a static list: the value is an operand


class _MapOp(IRDLOperation):
    """``affine.<op> MAP(dims)[symbols]``: one index result computed from an affine map."""

    map_operands = var_operand_def(IndexType)
    map = prop_def(AffineMapAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    SINGLE_RESULT: ClassVar[bool] = False  # affine.apply: exactly one result expression

    def __init__(self, operands: Sequence, affine_map: AffineMapAttr):
        super().__init__(operands=[operands], properties={"map": affine_map},
                         result_types=[IndexType()])

    @classmethod
    def parse(cls, parser: Parser):
        at = parser.pos
        affine_map = parser.parse_attribute()
        if not isinstance(affine_map, AffineMapAttr):
            parser.raise_error(f"{cls.name}: expected an affine map", at_position=at)
        dims = parser.parse_optional_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_operand(IndexType())) or []
        symbols = parser.parse_optional_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType())) or []
        op = cls([*dims, *symbols], affine_map)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        dims = self.map.data.num_dims
        operands = list(self.map_operands)
        printer.print_string(" ")
        printer.print_attribute(self.map)
        printer.print_string("(")
        printer.print_list(operands[:dims], printer.print_operand)
        printer.print_string(")")
        if len(operands) > dims:
            printer.print_string("[")
            printer.print_list(operands[dims:], printer.print_operand)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        data = self.map.data
        expected = data.num_dims + data.num_symbols
        if len(self.map_operands) != expected:
            raise VerifyException(f"{self.name}: the map {data} takes {data.num_dims} dims and "
                                  f"{data.num_symbols} symbols, got {len(self.map_operands)} operands")
        if self.SINGLE_RESULT and len(data.results) != 1:
            raise VerifyException(f"{self.name}: the map must have one result, {data} has "
                                  f"{len(data.results)}")
        if not data.results:
            raise VerifyException(f"{self.name}: the map must have at least one result")


@irdl_op_definition
class ApplyOp(_MapOp):
    name = "affine.apply"
    SINGLE_RESULT: ClassVar[bool] = True


@irdl_op_definition
class MinOp(_MapOp):
    name = "affine.min"


@irdl_op_definition
class MaxOp(_MapOp):
    name = "affine.max"


def _parse_basis(parser: Parser) -> tuple[list, list[int]]:
    """``(%b, 8, 4)``: resolved index operands and the static list (DYNAMIC where an operand)."""
    unresolved, static = parse_dynamic_index_list_without_types(
        parser, DYNAMIC, delimiter=parser.Delimiter.PAREN)
    return [parser.resolve_operand(u, IndexType()) for u in unresolved], list(static)


def _print_basis(printer: Printer, dynamic, static) -> None:
    print_dynamic_index_list(printer, DYNAMIC, list(dynamic), static.get_values(),
                             delimiter=Parser.Delimiter.PAREN)


def _verify_basis(op, indices: int, what: str) -> None:
    """The basis has ``indices`` or ``indices - 1`` elements, each operand or positive."""
    static = op.static_basis.get_values()
    verify_dynamic_index_list(static, op.dynamic_basis, DYNAMIC, " in the basis")
    if len(static) not in (indices, indices - 1):
        raise VerifyException(f"{op.name}: {indices} {what} need a basis of {indices} or "
                              f"{indices - 1} elements, got {len(static)}")
    bad = [b for b in static if b != DYNAMIC and b <= 0]
    if bad:
        raise VerifyException(f"{op.name}: basis elements must be positive, got {bad[0]}")
    if indices == 0:
        raise VerifyException(f"{op.name}: needs at least one index")


@irdl_op_definition
class LinearizeIndexOp(IRDLOperation):
    """``affine.linearize_index [disjoint] [%i, %j] by (4, 8) : index`` (MLIR's syntax)."""

    name = "affine.linearize_index"
    multi_index = var_operand_def(IndexType)
    dynamic_basis = var_operand_def(IndexType)
    static_basis = prop_def(DenseArrayBase.constr(i64))
    disjoint = opt_prop_def(UnitAttr)
    linear_index = result_def(IndexType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> LinearizeIndexOp:
        disjoint = UnitAttr() if parser.parse_optional_keyword("disjoint") else None
        indices = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType()))
        parser.parse_keyword("by")
        dynamic, static = _parse_basis(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_type()
        return cls.build(operands=[indices, dynamic], result_types=[IndexType()],
                         properties={"static_basis": DenseArrayBase.from_list(i64, static),
                                     "disjoint": disjoint}, attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" disjoint [" if self.disjoint is not None else " [")
        printer.print_list(self.multi_index, printer.print_operand)
        printer.print_string("] by ")
        _print_basis(printer, self.dynamic_basis, self.static_basis)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : index")

    def verify_(self) -> None:
        _verify_basis(self, len(self.multi_index), "indices")


@irdl_op_definition
class DelinearizeIndexOp(IRDLOperation):
    """``affine.delinearize_index %x into (4, 8) : index, index`` (MLIR's syntax)."""

    name = "affine.delinearize_index"
    linear_index = operand_def(IndexType)
    dynamic_basis = var_operand_def(IndexType)
    static_basis = prop_def(DenseArrayBase.constr(i64))
    multi_index = var_result_def(IndexType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> DelinearizeIndexOp:
        index = parser.parse_operand(IndexType())
        parser.parse_keyword("into")
        dynamic, static = _parse_basis(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        return cls.build(operands=[index, dynamic], result_types=[types],
                         properties={"static_basis": DenseArrayBase.from_list(i64, static)},
                         attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.linear_index)
        printer.print_string(" into ")
        _print_basis(printer, self.dynamic_basis, self.static_basis)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list(self.multi_index.types, printer.print_attribute)

    def verify_(self) -> None:
        _verify_basis(self, len(self.multi_index), "results")


def basis_values(op, value) -> list:
    """The basis of a (de)linearize op, each element an int or ``value(operand)``."""
    dynamic = iter(op.dynamic_basis)
    return [value(next(dynamic)) if b == DYNAMIC else b for b in op.static_basis.get_values()]


register("affine", [ApplyOp, MinOp, MaxOp, LinearizeIndexOp, DelinearizeIndexOp])
