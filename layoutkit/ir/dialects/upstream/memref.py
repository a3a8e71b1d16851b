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
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr, UnitAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

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


register("memref", [GlobalOp], upstream=memref.MemRef)


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
