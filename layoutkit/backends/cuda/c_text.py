"""C++ text the CUDA emitter writes, and the op attributes it reads: literals, casts,
parentheses, names.

How a literal is formed: ``1.5 : f32`` -> ``1.5f``; ``-1 : i64`` -> ``-1ll``; an ``i32``
operand of an unsigned op -> ``(unsigned)x``, folded for literals: ``4`` -> ``4u``.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from layoutkit.backends.cuda.prelude import PRELUDE
from layoutkit.backends.types import Scalar
from layoutkit.errors import LayoutError, quote

CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]

CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
        "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]

_C_KEYWORDS = {
    "auto", "bool", "break", "case", "char", "const", "continue", "default", "do", "double",
    "else", "enum", "extern", "float", "for", "goto", "if", "int", "long", "register",
    "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "class", "new", "delete", "this", "template",
    "typename", "namespace", "using", "true", "false", "inline", "asm", "operator", "private",
    "public", "friend", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
}

# CUDA math functions by math dialect op; the f32 versions add an "f" (expf, sqrtf, ...)
MATH_FUNCTIONS = {
    "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2",
    "log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "rsqrt": "rsqrt", "absf": "fabs",
    "tanh": "tanh", "sin": "sin", "cos": "cos", "tan": "tan", "fma": "fma", "powf": "pow",
    "floor": "floor", "ceil": "ceil", "erf": "erf", "trunc": "trunc", "round": "round",
    "roundeven": "rint", "copysign": "copysign", "atan": "atan", "atan2": "atan2",
    "sinh": "sinh", "cosh": "cosh", "asin": "asin", "acos": "acos", "cbrt": "cbrt",
}


def _names_the_code_refers_to() -> set[str]:
    """Function and type names of the emitted code, which a local must not shadow (``const
    float expf = expf(x);`` breaks every later ``expf``): the prelude's, the math functions,
    the wide access types."""
    code = re.sub(r"//[^\n]*", "", PRELUDE)
    prelude = set(re.findall(r"\b([A-Za-z_]\w*)(?:\s*\(|<)", code))  # f(...), T<...>
    maths = {name + suffix for name in MATH_FUNCTIONS.values() for suffix in ("", "f")}
    return prelude | maths | {"Vec", "f16_t", "bf16_t", "min", "max", "abs", "fmax", "fmaxf",
                              "fmin", "fminf", "float2", "float4", "int2", "int4", "uint2", "uint4"}


RESERVED_NAMES = _C_KEYWORDS | _names_the_code_refers_to()


def prop(op: Any, *names: str) -> Any:
    for name in names:
        if name in op.properties:
            return op.properties[name]
        if name in op.attributes:
            return op.attributes[name]
    return None


def enum_text(attr: Any) -> str:
    """``x`` for ``#gpu<dim x>``, ``xor`` for ``#gpu<shuffle_mode xor>``, ``add`` for ... ."""
    data = getattr(attr, "data", attr)
    value = getattr(data, "value", data)
    if isinstance(value, str):
        return value
    text = str(attr).strip()
    match = re.search(r"([A-Za-z_][\w]*)\s*>?\s*$", text.rstrip(">").strip())
    return match.group(1) if match else text


def int_list(attr: Any) -> list[int]:
    if attr is None:
        return []
    if hasattr(attr, "get_values"):
        return [int(v) for v in attr.get_values()]
    if hasattr(attr, "iter_values"):
        return [int(v) for v in attr.iter_values()]
    data = getattr(attr, "data", attr)
    return [int(getattr(getattr(v, "value", v), "data", v)) for v in data]


def predicate(op: Any, table: list[str]) -> str:
    attr = prop(op, "predicate")
    if attr is None:
        raise LayoutError(f"{op.name}: missing predicate")
    if hasattr(attr, "value") and hasattr(attr.value, "data"):
        return table[int(attr.value.data)]
    return enum_text(attr)


def float_literal(value: float, element: Scalar) -> str:
    """A C literal of ``value`` rounded once to the element type: ``0.1f`` (the shortest text
    that reads back as the same f32), ``2.5``, ``f16_t(0x3e00) /* 1.5 */``, ``bf16_t(0x3fc0) /* 1.5 */``;
    NaN and infinities by their bits."""
    with np.errstate(over="ignore"):  # out of range is infinity, as in the IR
        return float_literal_text(float(value), element)


def float_literal_text(value: float, element: Scalar) -> str:
    if element.bits == 16:
        half = np.float16(value)  # numpy rounds an f64 to f16 once
        return f"f16_t(0x{int(np.array(half).view(np.uint16)):04x}) /* {float(half)!r} */"
    if element.bits == 17:
        bits = bf16_bits(value)
        return f"bf16_t(0x{bits:04x}) /* {float(np.array(bits << 16, np.uint32).view(np.float32))!r} */"
    if element.bits == 64:
        number, suffix = value, ""
        nan, infinity = "__longlong_as_double(0x7ff8000000000000ll)", "__longlong_as_double(0x7ff0000000000000ll)"
        text = repr(number)
    else:
        number, suffix = float(np.float32(value)), "f"
        nan, infinity = "__int_as_float(0x7fc00000)", "__int_as_float(0x7f800000)"
        text = repr(float(str(np.float32(value))))  # shortest f32 digits, written as Python does: 1000000.0
        if not math.isfinite(number) or np.float32(text) != np.float32(value):
            text = str(np.float32(value))
    if math.isnan(number):
        return nan
    if math.isinf(number):
        return ("-" if number < 0 else "") + infinity
    if "." not in text and "e" not in text:
        text += ".0"
    return text + suffix


def bf16_bits(value: float) -> int:
    """The bits of ``value`` rounded once to bf16 (nearest, ties to even): through f32 rounded
    to odd (toward zero, lowest bit set when inexact), which keeps the last rounding exact."""
    if math.isnan(value):
        return 0x7FC0
    toward_zero = np.float32(value)
    if abs(float(toward_zero)) > abs(value):
        toward_zero = np.nextafter(toward_zero, np.float32(0))
    bits = int(np.array(toward_zero).view(np.uint32)) | (float(toward_zero) != value)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def int_literal(value: int, element: Scalar) -> str:
    if element.bits == 1:
        return "true" if value & 1 else "false"
    if element.bits == 64:
        return "(-9223372036854775807ll - 1)" if value == -(2**63) else f"{value}ll"
    if element.kind == "index" or element.bits == 32:
        if value == -(2**31):
            return "(-2147483647 - 1)"
        return str(value)
    return f"({element.c}){value}"


def paren(expr: str) -> str:
    """``expr`` wrapped in parentheses unless it is atomic (a name, number, call or subscript).

    >>> paren("a[i]"), paren("f16_to_float(x)"), paren("i * 32"), paren("-x")
    ('a[i]', 'f16_to_float(x)', '(i * 32)', '(-x)')
    """
    depth = 0
    for char in expr:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and (char.isspace() or char in "+-*/%<>=!&|^?:,~"):
            return f"({expr})"
    if expr.startswith("(") and not expr.endswith(")"):
        return f"({expr})"
    return expr


def cast(c_type_name: str, expr: str) -> str:
    """``expr`` converted to a C type, C style (``long long(x)`` would not parse):
    ``cast("long long", "a / b") == "(long long)(a / b)"``."""
    return f"({c_type_name}){paren(expr)}"


def unsigned(expr: str, t: Scalar) -> str:
    """``expr`` of integer type t as its unsigned C type; literals are folded:
    ``4`` -> ``4u``, ``-1ll`` -> ``18446744073709551615ull``, ``(short)5`` -> ``(unsigned short)5``,
    ``i`` -> ``(unsigned)i``."""
    if t.bits == 1:  # bool is unsigned already
        return expr
    literal = re.fullmatch(r"(?:\([a-z ]+\))?(-?\d+)(?:ll)?", expr)
    if literal:
        value = int(literal.group(1)) % (1 << (32 if t.kind == "index" else t.bits))
        if t.unsigned_c == "unsigned":
            return f"{value}u"
        if t.unsigned_c == "unsigned long long":
            return f"{value}ull"
        return f"({t.unsigned_c}){value}"
    return cast(t.unsigned_c, expr)


def bitcast(arg: str, source: Scalar, target: Scalar) -> str:
    if source.size != target.size:
        raise LayoutError(f"arith.bitcast: {source.c} and {target.c} differ in size")
    if source.is_float and source.bits == 32:
        return f"__float_as_int({arg})" if target.c == "int" else arg
    if target.is_float and target.bits == 32:
        return f"__int_as_float({arg})"
    if source.is_float and source.bits == 64:
        return f"__double_as_longlong({arg})"
    if target.is_float and target.bits == 64:
        return f"__longlong_as_double({arg})"
    return f"({target.c}){paren(arg)}"


def literal(value: Any, element: Scalar) -> str:
    if element.is_float:
        return float_literal(float(value), element)
    return int_literal(int(value), element)


def dense_values(attr: Any) -> list[Any]:
    for method in ("get_values", "iter_values"):
        if hasattr(attr, method):
            values = list(getattr(attr, method)())
            if values:
                return values
    data = getattr(attr, "data", None)
    if data is not None and hasattr(data, "data"):
        return [getattr(getattr(v, "value", v), "data", v) for v in data.data]
    raise LayoutError(f"arith.constant: cannot read the dense value {quote(attr)}")
