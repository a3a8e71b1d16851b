"""``memref.global`` in MLIR's custom syntax, for shared memory declared at module level.

xDSL 0.74 defines ``memref.global`` (sym_name, sym_visibility, type, initial_value,
constant, alignment) but reads it only in the generic form. layoutkit defines it again with
the same fields and MLIR's syntax; ``memref.get_global`` is xDSL's own:

    gpu.module @m {
      memref.global "private" @tile : memref<32x33xf32, #gpu.address_space<workgroup>>
      gpu.func @k(...) kernel {
        %tile = memref.get_global @tile : memref<32x33xf32, #gpu.address_space<workgroup>>

A global without ``= ...`` (or with ``= uninitialized``) has no initial value; it prints
as ``= uninitialized``. Initial values (``= dense<...>``) are not read: xDSL's dense parser
needs a type MLIR leaves out there, and shared memory, the use here, has none. In workgroup space it is shared memory, one copy per block, like a
workgroup ``memref.alloc``. :func:`verify_get_globals` checks that every ``get_global``
names a global of its type.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir.dialects.upstream.gpu import parse_choice
from layoutkit.ir.registry import register


class GlobalOp(memref.GlobalOp):
    """``memref.global ["private"] [constant] @name : memref<...> [= uninitialized]``
    (xDSL's op definition, fields and verifier; only the text form is new)."""

    @classmethod
    def parse(cls, parser: Parser) -> GlobalOp:
        visibility = parser.parse_optional_str_literal() or "public"
        constant = UnitAttr() if parser.parse_optional_keyword("constant") else None
        sym_name = parser.parse_symbol_name()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        if parser.parse_optional_punctuation("=") is not None:
            if parser.parse_optional_keyword("uninitialized") is None:
                parser.raise_error("memref.global: only '= uninitialized' is supported (initial "
                                   "values are not: shared memory starts undefined on a GPU)")
        extra = parser.parse_optional_attr_dict()
        properties = {"sym_name": sym_name, "sym_visibility": StringAttr(visibility), "type": type_,
                      "initial_value": UnitAttr(), "constant": constant,
                      "alignment": extra.pop("alignment", None)}
        return cls.build(properties=properties, attributes=extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.sym_visibility.data)
        if self.constant is not None:
            printer.print_string(" constant")
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" : ")
        printer.print_attribute(self.type)
        printer.print_string(" = uninitialized")
        if self.alignment is not None:
            printer.print_string(f" {{alignment = {self.alignment.value.data} : i64}}")


# MLIR's arith::AtomicRMWKind, in its numbering (the generic form's ``kind = N : i64``)
ATOMIC_KINDS = ("addf", "addi", "assign", "maximumf", "maxs", "maxu", "minimumf", "mins", "minu",
                "mulf", "muli", "ori", "andi", "maxnumf", "minnumf", "xori")
_FLOAT_KINDS = {"addf", "maximumf", "minimumf", "mulf", "maxnumf", "minnumf"}


class AtomicRMWOp(memref.AtomicRMWOp):
    """``%old = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<8xf32>) -> f32``: reads the
    element, stores ``old <kind> v`` in one indivisible step and returns ``old`` (xDSL's op
    definition; MLIR's text form and kinds, :data:`ATOMIC_KINDS`)."""

    @property
    def kind_name(self) -> str:
        return ATOMIC_KINDS[self.kind.value.data]

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        kind = parse_choice(parser, "memref.atomic_rmw: kind", ATOMIC_KINDS)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        target = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        value_type = parser.parse_type()
        parser.parse_punctuation(",")
        memref_type = parser.parse_type()
        parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls.build(
            operands=[parser.resolve_operand(value, value_type), parser.resolve_operand(target, memref_type),
                      [parser.resolve_operand(i, IndexType()) for i in indices]],
            result_types=[result_type],
            properties={"kind": IntegerAttr(ATOMIC_KINDS.index(kind), 64)},
            attributes=attrs,
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind_name} ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_attribute(self.value.type)
        printer.print_string(", ")
        printer.print_attribute(self.memref.type)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        number = self.kind.value.data
        if not 0 <= number < len(ATOMIC_KINDS):
            raise VerifyException(f"memref.atomic_rmw: unknown kind {number}")
        kind = ATOMIC_KINDS[number]
        is_float = not isinstance(self.value.type, IntegerType)
        if kind != "assign" and (kind in _FLOAT_KINDS) != is_float:
            want = "a float" if kind in _FLOAT_KINDS else "an integer"
            raise VerifyException(f"memref.atomic_rmw: {kind} needs {want} type, got {self.value.type}")
        if self.result.type != self.value.type:
            raise VerifyException("memref.atomic_rmw: the result type must equal the value type")
        if len(self.indices) != self.memref.type.get_num_dims():
            raise VerifyException(f"memref.atomic_rmw: {self.memref.type} needs "
                                  f"{self.memref.type.get_num_dims()} indices, got {len(self.indices)}")


register("memref", [GlobalOp, AtomicRMWOp], upstream=memref.MemRef)


def verify_get_globals(root: Operation) -> None:
    """Each ``memref.get_global`` in ``root`` names a ``memref.global`` of its memref type in
    an enclosing symbol table (VerifyException otherwise)."""
    for op in root.walk():
        if not isinstance(op, memref.GetGlobalOp):
            continue
        symbol = op.name_
        found = SymbolTable.lookup_symbol(op, symbol) if isinstance(symbol, SymbolRefAttr) else None
        if not isinstance(found, memref.GlobalOp):
            raise VerifyException(f"memref.get_global: no memref.global @{symbol.root_reference.data}")
        if found.type != op.memref.type:
            raise VerifyException(f"memref.get_global: @{symbol.root_reference.data} has type "
                                  f"{found.type}, not {op.memref.type}")
