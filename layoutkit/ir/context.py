"""The xDSL context for layoutkit's IR, and ``parse_module`` (parse + verify, errors with lines)."""

from __future__ import annotations

import math
import re
import weakref

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    ModuleOp,
    UnregisteredAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError

from layoutkit.errors import LayoutError
from layoutkit.ir.dialects.upstream.memref import verify_get_globals
from layoutkit.ir.dialects.upstream.vector import verify_static_positions
from layoutkit.ir.dominance import verify_dominance
from layoutkit.ir.registry import dialects


class _Context(Context):
    """An xDSL context where an attribute no dialect defines is kept as written, as MLIR
    keeps ``#ttg.shared_memory`` for a dialect it loads (ops must still be registered)."""

    def get_optional_attr(self, name: str) -> type[Attribute] | None:
        found = super().get_optional_attr(name)
        if found is None:
            found = _KEPT_ATTRIBUTES.get(name)
            if found is None:
                found = _KEPT_ATTRIBUTES[name] = UnregisteredAttr.with_name_and_type(name, False)
            self._loaded_attrs[name] = found
        return found


_KEPT_ATTRIBUTES: dict[str, type[Attribute]] = {}  # one class per name: equal values compare equal


def make_context() -> Context:
    """A context with every dialect of :mod:`layoutkit.ir.registry` (xDSL's upstream
    dialects, layoutkit's patches of them, the layout attribute and layoutkit's own)."""
    ctx = _Context()
    for dialect in dialects():
        ctx.load_dialect(dialect)
    return ctx


class _LocatingParser(Parser):
    """A parser that remembers the source line of every operation it builds."""

    def __init__(self, ctx: Context, text: str):
        super().__init__(ctx, text)
        self.text = text
        self.op_lines: weakref.WeakKeyDictionary[Operation, int] = weakref.WeakKeyDictionary()
        self.failed_op_start: int | None = None  # text offset of the innermost op that failed

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        try:
            op = super().parse_operation()
        except (DiagnosticException, OverflowError):
            if self.failed_op_start is None:
                self.failed_op_start = start
            raise
        self.op_lines[op] = self.text.count("\n", 0, start) + 1
        return op

    def error_start(self) -> int:
        """The text offset of the token the parser stopped at (the start of the last token
        when it ran out of text)."""
        start = self._current_token.span.start
        return min(start, max(len(self.text.rstrip()) - 1, 0))

    def parse_dense_int_or_fp_elements_attr(self, type):
        """As xDSL's, but a float splat written in hex is its bit pattern, as in MLIR:
        ``dense<0xFF800000> : tensor<128xf32>`` is -inf everywhere (xDSL reads the number
        4286578688)."""
        start = self._current_token.span.start
        if self.parse_optional_punctuation("<") is not None:
            token = self._current_token
            if token.text[:2].lower() == "0x" and token.kind.name == "INTEGER_LIT":
                self._consume_token()
                if self.parse_optional_punctuation(">") is not None:
                    dense_type = type
                    if dense_type is None:
                        self.parse_punctuation(":", " in dense attribute")
                        dense_type = self._parse_dense_literal_type()
                    element = dense_type.element_type
                    if isinstance(element, AnyFloat):
                        raw = int(token.text, 16).to_bytes(element.compile_time_size, "little")
                        value = next(element.iter_unpack(raw))
                        count = math.prod(dense_type.get_shape())
                        return DenseIntOrFPElementsAttr.from_list(dense_type, [value] * count)
            self._resume_from(start)
        return super().parse_dense_int_or_fp_elements_attr(type)

    def parse_optional_builtin_int_or_float_attr(self):
        """As xDSL's, but a float literal too large for its type rounds to +-inf as in MLIR
        (the parser converts the double to the type, nearest-even): ``1.0e6 : f16`` is inf,
        ``65519.0 : f16`` is 65504. xDSL raises OverflowError exactly when that rounding
        overflows, so the literal is read again from the text."""
        start = self._current_token.span.start
        try:
            return super().parse_optional_builtin_int_or_float_attr()
        except OverflowError:
            literal = self.text[start:self._current_token.span.start]
            number, _, type_text = literal.partition(":")
            try:
                value = float(number.strip())
                element_type = Parser(self.ctx, type_text.strip()).parse_type()
            except (ValueError, ParseError):
                self.raise_error(f"float literal out of range: '{literal.strip()}'", start)
            return FloatAttr(float("-inf") if value < 0 else float("inf"), element_type)


def _xdsl_op_names(dialect: str) -> set[str]:
    """The op names xDSL defines for ``dialect`` (empty when xDSL has no such dialect)."""
    from xdsl.dialects import get_all_dialects

    factory = get_all_dialects().get(dialect)
    return {op.name for op in factory().operations} if factory is not None else set()


def _unsupported_op(message: str) -> str | None:
    """The op an xDSL parse error is about when it is an MLIR op layoutkit does not read:
    xDSL knows it only in the generic form ("does not have a custom format"), or defines it
    in a dialect whose ops layoutkit registers itself (``gpu.launch``)."""
    found = re.match(r"Operation (\S+) does not have a custom format", message)
    if found:
        return found.group(1)
    found = re.match(r"Operation (\S+) is not registered", message)
    if found and found.group(1) in _xdsl_op_names(found.group(1).split(".")[0]):
        return found.group(1)
    return None


def _first_use(name: str, text: str, default: int) -> int:
    """The text offset of the first ``name`` (``%v``) outside a ``//`` comment, else ``default``.

    Example: ``_first_use("%t", "%z = arith.addi %t, %c1 : index", 0)`` is 16."""
    for found in re.finditer(re.escape(name) + r"(?![\w$.-])", text):
        line_start = text.rfind("\n", 0, found.start()) + 1
        if "//" not in text[line_start:found.start()]:
            return found.start()
    return default


def _line_of(start: int, message: str, text: str) -> str:
    """``line L, column C: message (in 'source line')`` for the text offset ``start``."""
    if message.startswith(" "):  # xDSL's bare context (" in block definition"): text ran out
        message = "expected more text" + message.rstrip() + " (an unclosed '{' or region?)"
    undefined = re.match(r"values used but not defined: \[(%[^,\]]+)", message)
    if undefined:  # xDSL points at the end of the text; point at the first use
        start = _first_use(undefined.group(1), text, start)
    unknown = re.match(r"Operation (\S+) (is not registered|does not have a custom format)", message)
    if unknown and text.rfind(unknown.group(1), 0, start + 1) >= 0:
        # xDSL points after an unknown op without results; point at its name
        start = text.rfind(unknown.group(1), 0, start + 1)
    line = text.count("\n", 0, start) + 1
    unsupported = _unsupported_op(message)
    if unsupported:
        return f"'{unsupported}' is not supported by layoutkit (line {line})"
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    lines = text.split("\n")
    source = lines[line - 1].strip() if line <= len(lines) else ""
    context = f" (in '{source}')" if source else " (at the end of the text)"
    return f"line {line}, column {column}: {message}{context}"


def _check_string_literals(text: str) -> None:
    """Reject a string literal left open at the end of its line.

    xDSL's string regex backtracks exponentially on an unclosed quote, so this linear scan
    runs first. Example: ``memref.global "private`` -> line 3, column 19.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        opened = None
        column = 0
        while column < len(line):
            char = line[column]
            if opened is None:
                if line.startswith("//", column):
                    break
                if char == '"':
                    opened = column
            elif char == "\\":
                column += 1
            elif char == '"':
                opened = None
            column += 1
        if opened is not None:
            raise LayoutError(f"line {number}, column {opened + 1}: string literal not closed "
                              f"on its line (in '{line.strip()}')")


_COMMENT = re.compile(r"//[^\n]*")
_CODE = re.compile(r"\S")
_LOC_ALIAS = re.compile(r"^(#loc\w*) = loc\(.*\)[ \t\r]*$", re.MULTILINE)


def _location_aliases_first(text: str) -> str:
    """Triton and MLIR print ``#loc3 = loc("k.py":12:4)`` after the module that uses it as
    ``loc(#loc3)``; xDSL needs an alias before its use. Such definitions move to the start of
    the first line (their own lines left empty), so every line keeps its number."""
    definitions = list(_LOC_ALIAS.finditer(text))
    late = [m for m in definitions if text.find(m.group(1) + ")", 0, m.start()) >= 0]
    if not late:
        return text
    moved = " ".join(m.group(0).strip() for m in definitions)
    for m in reversed(definitions):
        text = text[:m.start()] + text[m.end():]
    return f"{moved} {text}"


def parse_module(text: str) -> ModuleOp:
    """Parse MLIR text holding a ``gpu.module`` of kernels and verify it.

    Raises :class:`~layoutkit.LayoutError` naming the line, e.g.
    ``line 4, column 14: Operation gpu.foo is not registered``.
    The source line of each op is kept for error reports: :func:`op_line`.
    """
    _check_string_literals(text)
    if not _CODE.search(_COMMENT.sub("", text)):
        return ModuleOp([])  # nothing but comments and blanks: an empty module, as mlir-opt
    text = _location_aliases_first(text)
    parser = None
    try:
        parser = _LocatingParser(make_context(), text)  # lexes the first token: can fail too
        module = parser.parse_module()
    except ParseError as err:
        raise LayoutError(_line_of(err.span.start, err.msg, text)) from None
    except DiagnosticException as err:  # e.g. a declarative format's type check: the op's line
        start = parser.failed_op_start if parser is not None else None
        raise LayoutError(_line_of(start or 0, str(err), text)) from None
    except OverflowError:  # a dense<...> float literal too large for its element type
        start = parser.failed_op_start if parser is not None else None
        raise LayoutError(_line_of(start or 0, "dense float literal out of range for its element type "
                                   "(write inf, or a value the type can hold)", text)) from None
    except Exception as err:  # xDSL raises bare exceptions for some malformed ops
        start = parser.failed_op_start if parser is not None else None
        if start is None and parser is not None:  # raised outside an op's own checks (an
            start = parser.error_start()          # attribute or type): where parsing stopped
        raise LayoutError(_line_of(start or 0, f"malformed operation: {err}", text)) from None
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
            verify_get_globals(op) if isinstance(op, memref.GetGlobalOp) else None
            verify_static_positions(op)
        except Exception as err:  # VerifyException, and xDSL verifiers' bare exceptions
            line = parser.op_lines.get(op)
            where = f"line {line}: " if line else ""
            message = str(err)
            if not message.startswith(op.name):
                message = f"{op.name}: {message}"
            raise LayoutError(f"{where}{message}") from None
    verify_dominance(module, parser.op_lines.get)
    _OP_LINES.update(parser.op_lines)
    return module


_OP_LINES: weakref.WeakKeyDictionary[Operation, int] = weakref.WeakKeyDictionary()


def op_line(op: Operation) -> int | None:
    """The source line of ``op`` if it came from :func:`parse_module`, else None."""
    return _OP_LINES.get(op)


def at_op(op: Operation, message: str) -> str:
    """``message`` prefixed ``line N: `` when ``op`` was parsed from line N (``layoutkit opt`` /
    ``compile`` then report it at ``FILE:N:COL``), else unchanged: for a pass's error about ``op``.

    Example: ``at_op(loop, "pcf-lower-structural: pcf.loop: has sref arguments")`` is
    ``"line 7: pcf-lower-structural: pcf.loop: has sref arguments"`` for a loop on line 7."""
    line = op_line(op)
    return f"line {line}: {message}" if line else message


_SOURCE = {"name": "<input>", "lines": []}


def set_source(name: str, text: str) -> None:
    """Name the text :func:`parse_module` read, for :func:`op_location` (``layoutkit opt``
    calls it with FILE)."""
    _SOURCE["name"], _SOURCE["lines"] = name, text.split("\n")


def op_location(op: Operation) -> str:
    """``FILE:LINE:COL`` of ``op`` as MLIR reports it: the column of the op's name on its
    source line (``FILE`` alone when the op was not parsed)."""
    line = op_line(op)
    if line is None:
        return _SOURCE["name"]
    lines = _SOURCE["lines"]
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    column = text.find(op.name)
    if column < 0:
        column = len(text) - len(text.lstrip())
    return f"{_SOURCE['name']}:{line}:{column + 1}"
