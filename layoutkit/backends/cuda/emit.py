"""CUDA C++ from the kernel IR: one readable ``extern "C" __global__`` function per kernel.

Every ``gpu.func`` with the ``kernel`` attribute inside a ``gpu.module`` becomes a CUDA
kernel of the same name. SSA values become named locals (the IR's ``%names`` where they are
valid C identifiers), ``scf.if`` / ``scf.for`` become ``if`` / ``for`` blocks, workgroup
memory becomes ``__shared__`` arrays, ``gpu.barrier`` becomes ``__syncthreads()``, warp
shuffles ``__shfl_*_sync``, ``nvgpu.mma.sync`` a prelude function holding the inline PTX ``mma.sync.aligned``, and
``vector.load`` / ``vector.store`` one ``float4`` / ``uint4`` / ... access.

How an index is formed: a memref argument is a pointer to its first element and an access
is linearized with the memref's strides. For ``%a : memref<64x32xf32>`` (strides 32, 1)::

    %x = memref.load %a[%i, %j] : memref<64x32xf32>     ->   const float x = a[i * 32 + j];

A ``memref<32x33xf32, #gpu.address_space<workgroup>>`` allocation becomes
``__shared__ float tile[32][33];`` and is indexed ``tile[i][j]``.

Numbers: ``index`` is a 32-bit ``int`` (kernels address fewer than 2**31 elements, so index
arithmetic stays signed and readable: ``i * 32 + j``); ``iN`` add, sub, mul and shl wrap around
as arith says, through the unsigned type (``(int)((unsigned)a + (unsigned)b)``: C++ signed
overflow is undefined); unsigned ops (``divui``, ``cmpi ult``, ...) go through the unsigned
type too. f16 and bf16 are kept as bits (see :mod:`layoutkit.backends.cuda.prelude`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutkit.backends.cuda.prelude import PRELUDE
from layoutkit.errors import LayoutError, quote

FULL_MASK = "0xffffffffu"
PRELUDE_LEFT_OUT = "// (prelude left out: Vec, f16_t, load_vector, mma_*; see layoutkit.backends.cuda.prelude)\n"
WARP_SIZE = 32

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
_MATH_FUNCTIONS = {
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
    maths = {name + suffix for name in _MATH_FUNCTIONS.values() for suffix in ("", "f")}
    return prelude | maths | {"Vec", "f16_t", "bf16_t", "min", "max", "abs", "fmax", "fmaxf",
                              "fmin", "fminf", "float2", "float4", "int2", "int4", "uint2", "uint4"}


_RESERVED_NAMES = _C_KEYWORDS | _names_the_code_refers_to()


# ----------------------------------------------------------------------------------------
# types


@dataclass(frozen=True)
class Scalar:
    """An element type: ``kind`` is ``"int"``, ``"index"``, ``"float"``; ``bits`` its width."""

    kind: str
    bits: int

    @property
    def c(self) -> str:
        if self.kind == "index":
            return "int"
        if self.kind == "float":
            return {16: "f16_t", 17: "bf16_t", 32: "float", 64: "double"}[self.bits]
        return {1: "bool", 8: "signed char", 16: "short", 32: "int", 64: "long long"}[self.bits]

    @property
    def unsigned_c(self) -> str:
        return {1: "bool", 8: "unsigned char", 16: "unsigned short", 32: "unsigned",
                64: "unsigned long long"}[32 if self.kind == "index" else self.bits]

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_16bit_float(self) -> bool:
        return self.kind == "float" and self.bits in (16, 17)

    @property
    def compute_c(self) -> str:
        """The C type arithmetic runs in: f32 for 16-bit floats, else the type itself."""
        return "float" if self.is_16bit_float else self.c

    @property
    def size(self) -> int:
        if self.kind == "index":
            return 4
        return {1: 1, 17: 2}.get(self.bits, self.bits // 8)


@dataclass(frozen=True)
class VectorT:
    element: Scalar
    shape: tuple[int, ...]

    @property
    def count(self) -> int:
        return math.prod(self.shape)

    @property
    def c(self) -> str:
        return f"Vec<{self.element.c}, {self.count}>"


def scalar_type(t: Any) -> Scalar:
    name = type(t).__name__
    text = str(t)
    if name == "IndexType" or text == "index":
        return Scalar("index", 32)
    if name == "IntegerType" or re.fullmatch(r"i\d+", text):
        bits = int(t.width.data) if hasattr(t, "width") else int(text[1:])
        if bits not in (1, 8, 16, 32, 64):
            raise LayoutError(f"type: the CUDA backend has no C type for {quote(text)}")
        return Scalar("int", bits)
    floats = {"f16": 16, "bf16": 17, "f32": 32, "f64": 64}
    if text in floats:
        return Scalar("float", floats[text])
    raise LayoutError(f"type: the CUDA backend has no C type for {quote(text)}")


def value_type(t: Any) -> Scalar | VectorT:
    if type(t).__name__ == "VectorType" or str(t).startswith("vector<"):
        shape = tuple(int(d) for d in t.get_shape())
        return VectorT(scalar_type(t.get_element_type()), shape)
    return scalar_type(t)


def c_type(t: Any) -> str:
    return value_type(t).c


@dataclass(frozen=True)
class MemrefInfo:
    """A memref type's facts as C sees them: shape and strides (in elements) as numbers or, for
    dynamic sizes of a kernel argument, the names of the ``int`` parameters that carry them."""

    element: Scalar
    shape: tuple[int | str, ...]
    strides: tuple[int | str, ...]
    offset: int | None  # None: dynamic (held in the view's base pointer)
    space: str  # "global", "workgroup" or "private"
    identity: bool

    @property
    def dynamic_sizes(self) -> list[str]:
        return [d for d in self.shape if isinstance(d, str)]


def _product(factors: list[int | str]) -> int | str:
    """The product of sizes, folded: ``[4, "n", 2] -> "n * 8"``."""
    number = math.prod(f for f in factors if isinstance(f, int))
    names = [f for f in factors if isinstance(f, str)]
    if not names:
        return number
    return " * ".join(names + ([str(number)] if number != 1 else []))


def _memory_space(memref_type: Any) -> str:
    space = getattr(memref_type, "memory_space", None)
    text = "" if space is None else str(space)
    if "workgroup" in text or text.strip() in ("3", "3 : i64", "3 : i32"):
        return "workgroup"
    if "private" in text or text.strip() in ("5", "5 : i64", "5 : i32"):
        return "private"
    return "global"


def memref_info(memref_type: Any, what: str, size_prefix: str | None = None) -> MemrefInfo:
    """The C view of a memref type. Dynamic sizes (``?``) are allowed for kernel arguments:
    size ``k`` of argument ``a`` becomes the ``int`` parameter ``a_size{k}``."""
    if type(memref_type).__name__ != "MemRefType":
        raise LayoutError(f"{what}: expected a memref type, got {quote(memref_type)}")
    raw = [int(d) for d in memref_type.get_shape()]
    if any(d < 0 for d in raw) and size_prefix is None:
        raise LayoutError(
            f"{what}: the CUDA backend needs static sizes here (dynamic sizes only for kernel "
            f"arguments), got {quote(memref_type)}")
    shape: tuple[int | str, ...] = tuple(
        d if d >= 0 else f"{size_prefix}_size{k}" for k, d in enumerate(raw))
    element = scalar_type(memref_type.get_element_type())
    row_major = tuple(_product(list(shape[i + 1:])) for i in range(len(shape)))
    layout = getattr(memref_type, "layout", None)
    layout_name = type(layout).__name__
    if layout is None or layout_name in ("NoneAttr",) or str(layout) in ("", "#none"):
        return MemrefInfo(element, shape, row_major, 0, _memory_space(memref_type), True)
    if layout_name == "StridedLayoutAttr":
        strides = tuple(layout.get_strides())
        offset = layout.get_offset()
        if any(s is None for s in strides):
            raise LayoutError(f"{what}: the CUDA backend needs static strides, got {quote(memref_type)}")
        identity = tuple(strides) == row_major and offset == 0
        return MemrefInfo(element, shape, tuple(int(s) for s in strides),
                          None if offset is None else int(offset), _memory_space(memref_type), identity)
    raise LayoutError(f"{what}: the CUDA backend supports identity and strided memref layouts, got {quote(memref_type)}")


# ----------------------------------------------------------------------------------------
# attributes


def _prop(op: Any, *names: str) -> Any:
    for name in names:
        if name in op.properties:
            return op.properties[name]
        if name in op.attributes:
            return op.attributes[name]
    return None


def _enum_text(attr: Any) -> str:
    """``x`` for ``#gpu<dim x>``, ``xor`` for ``#gpu<shuffle_mode xor>``, ``add`` for ... ."""
    data = getattr(attr, "data", attr)
    value = getattr(data, "value", data)
    if isinstance(value, str):
        return value
    text = str(attr).strip()
    match = re.search(r"([A-Za-z_][\w]*)\s*>?\s*$", text.rstrip(">").strip())
    return match.group(1) if match else text


def _int_list(attr: Any) -> list[int]:
    if attr is None:
        return []
    if hasattr(attr, "get_values"):
        return [int(v) for v in attr.get_values()]
    if hasattr(attr, "iter_values"):
        return [int(v) for v in attr.iter_values()]
    data = getattr(attr, "data", attr)
    return [int(getattr(getattr(v, "value", v), "data", v)) for v in data]


def _predicate(op: Any, table: list[str]) -> str:
    attr = _prop(op, "predicate")
    if attr is None:
        raise LayoutError(f"{op.name}: missing predicate")
    if hasattr(attr, "value") and hasattr(attr.value, "data"):
        return table[int(attr.value.data)]
    return _enum_text(attr)


def _float_literal(value: float, element: Scalar) -> str:
    """A C literal of ``value`` rounded once to the element type: ``0.1f`` (the shortest text
    that reads back as the same f32), ``2.5``, ``f16_t(0x3e00) /* 1.5 */``, ``bf16_t(0x3fc0) /* 1.5 */``;
    NaN and infinities by their bits."""
    with np.errstate(over="ignore"):  # out of range is infinity, as in the IR
        return _float_literal_text(float(value), element)


def _float_literal_text(value: float, element: Scalar) -> str:
    if element.bits == 16:
        half = np.float16(value)  # numpy rounds an f64 to f16 once
        return f"f16_t(0x{int(np.array(half).view(np.uint16)):04x}) /* {float(half)!r} */"
    if element.bits == 17:
        bits = _bf16_bits(value)
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


def _bf16_bits(value: float) -> int:
    """The bits of ``value`` rounded once to bf16 (nearest, ties to even): through f32 rounded
    to odd (toward zero, lowest bit set when inexact), which keeps the last rounding exact."""
    if math.isnan(value):
        return 0x7FC0
    toward_zero = np.float32(value)
    if abs(float(toward_zero)) > abs(value):
        toward_zero = np.nextafter(toward_zero, np.float32(0))
    bits = int(np.array(toward_zero).view(np.uint32)) | (float(toward_zero) != value)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def _int_literal(value: int, element: Scalar) -> str:
    if element.bits == 1:
        return "true" if value & 1 else "false"
    if element.bits == 64:
        return "(-9223372036854775807ll - 1)" if value == -(2**63) else f"{value}ll"
    if element.kind == "index" or element.bits == 32:
        if value == -(2**31):
            return "(-2147483647 - 1)"
        return str(value)
    return f"({element.c}){value}"


# ----------------------------------------------------------------------------------------
# memref views


@dataclass
class View:
    """How a memref value is reached from C: a base array or pointer and its strides."""

    base: str
    info: MemrefInfo
    multi_dim: bool  # base is a C multi-dimensional array, indexed base[i][j]
    offset: str = ""  # extra linear offset expression added to every index

    def element(self, indices: list[str]) -> str:
        if self.multi_dim and not self.offset:
            return self.base + "".join(f"[{i}]" for i in indices) if indices else f"{self.base}[0]"
        terms = []
        for index, stride in zip(indices, self.info.strides):
            if index == "0" or stride == 0:
                continue
            if stride == 1 or index == "1":
                terms.append(index if stride == 1 else str(stride))
            elif index.isdigit() and isinstance(stride, int):
                terms.append(str(int(index) * stride))
            else:
                terms.append(f"{_paren(index)} * {_paren(str(stride))}")
        if self.info.offset:
            terms.append(str(self.info.offset))
        if self.offset:
            terms.append(self.offset)
        linear = " + ".join(terms) if terms else "0"
        base = f"(&{self.base}" + "[0]" * len(self.info.shape) + ")" if self.multi_dim else self.base
        return f"{base}[{linear}]"


def _paren(expr: str) -> str:
    """``expr`` wrapped in parentheses unless it is atomic (a name, number, call or subscript).

    >>> _paren("a[i]"), _paren("f16_to_float(x)"), _paren("i * 32"), _paren("-x")
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


# ----------------------------------------------------------------------------------------
# the emitter


class _FunctionEmitter:
    """Emits one ``gpu.func`` as a CUDA function."""

    def __init__(self, module_emitter: ModuleEmitter, func: Any) -> None:
        self.module = module_emitter
        self.func = func
        self.kernel_name = _symbol_name(func)
        self.lines: list[str] = []
        self.depth = 1
        self.exprs: dict[Any, str] = {}
        self.views: dict[Any, View] = {}
        self.used_names: set[str] = set(module_emitter.global_names)
        self.shared_decls: list[str] = []

    # -- names ---------------------------------------------------------------------------
    def fresh(self, hint: str | None, fallback: str = "v") -> str:
        base = re.sub(r"\W", "_", hint or "") or fallback
        if base[0].isdigit():
            base = f"{fallback}{base}"
        if base in _RESERVED_NAMES or base.startswith("__"):
            base = base.strip("_") + "_"
        name, n = base, 1
        while name in self.used_names:
            name = f"{base}_{n}"
            n += 1
        self.used_names.add(name)
        return name

    def name_of(self, value: Any, fallback: str = "v") -> str:
        return self.fresh(getattr(value, "name_hint", None), fallback)

    def expr(self, value: Any) -> str:
        try:
            return self.exprs[value]
        except KeyError:
            raise LayoutError(
                f"kernel @{self.kernel_name}: a value of type {quote(value.type)} is used "
                "before the CUDA backend defined it") from None

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.depth + line)

    def error(self, op: Any, message: str) -> LayoutError:
        line = _op_line(op)
        where = f"line {line}: " if line else ""
        return LayoutError(f"{where}kernel @{self.kernel_name}: {op.name}: {message}")

    def define(self, value: Any, rhs: str, const: bool = True) -> str:
        name = self.name_of(value)
        qualifier = "const " if const else ""
        self.emit(f"{qualifier}{c_type(value.type)} {name} = {rhs};")
        self.exprs[value] = name
        return name

    # -- the function --------------------------------------------------------------------
    def run(self) -> list[str]:
        block = self.func.body.blocks[0]
        params = []
        for arg in block.args:
            name = self.name_of(arg, "arg")
            try:
                if type(arg.type).__name__ == "MemRefType":
                    info = memref_info(arg.type, "type", size_prefix=name)
                    params.append(f"{info.element.c}* {name}")
                    params.extend(f"int {size}" for size in info.dynamic_sizes)
                    self.used_names.update(info.dynamic_sizes)
                    self.views[arg] = View(name, info, multi_dim=False)
                else:
                    params.append(f"{c_type(arg.type)} {name}")
                    self.exprs[arg] = name
            except LayoutError as err:
                raise self.error(self.func, f"argument %{arg.name_hint or name}: {err}") from None
        for op in block.ops:
            self.op(op)
        is_kernel = _is_kernel(self.func)
        head = 'extern "C" __global__ void' if is_kernel else "__device__ void"
        bounds = _prop(self.func, "known_block_size", "gpu.known_block_size")
        if is_kernel and bounds is not None:
            threads = math.prod(_int_list(bounds))
            head += f" __launch_bounds__({threads})"
        signature = f"{head} {self.kernel_name}({', '.join(params)}) {{"
        return [signature, *self.shared_decls, *self.lines, "}"]

    def region(self, block: Any) -> None:
        self.depth += 1
        for op in block.ops:
            self.op(op)
        self.depth -= 1

    def op(self, op: Any) -> None:
        handler = _HANDLERS.get(op.name)
        if handler is None:
            dialect = op.name.split(".")[0]
            if dialect in ("arith", "math") and op.results:
                handler = _FunctionEmitter.elementwise
            else:
                raise self.error(op, "not supported by the CUDA backend")
        try:
            handler(self, op)
        except LayoutError as err:
            if str(err).startswith(("line ", "kernel @")):  # already says where
                raise
            raise self.error(op, str(err)) from None
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as err:
            raise self.error(op, f"cannot be emitted ({type(err).__name__}: {err})") from err

    # -- elementwise arithmetic (scalars, and vectors element by element) ----------------
    def elementwise(self, op: Any) -> None:
        result = op.results[0]
        rtype = value_type(result.type)
        operand_types = [value_type(v.type) if type(v.type).__name__ != "MemRefType" else None
                         for v in op.operands]
        if isinstance(rtype, VectorT) or any(isinstance(t, VectorT) for t in operand_types):
            count = rtype.count if isinstance(rtype, VectorT) else operand_types[0].count
            name = self.name_of(result)
            self.emit(f"{rtype.c} {name};")
            index = self.fresh("el")
            self.emit("#pragma unroll")
            operands = [f"{self.expr(v)}[{index}]" if isinstance(t, VectorT) else self.expr(v)
                        for v, t in zip(op.operands, operand_types)]
            scalars = [t.element if isinstance(t, VectorT) else t for t in operand_types]
            relement = rtype.element if isinstance(rtype, VectorT) else rtype
            rhs = self.scalar_expr(op, operands, scalars, relement)
            self.emit(f"for (int {index} = 0; {index} < {count}; ++{index}) {name}[{index}] = {rhs};")
            self.exprs[result] = name
            return
        operands = [self.expr(v) for v in op.operands]
        rhs = self.scalar_expr(op, operands, operand_types, rtype)
        self.define(result, rhs)

    def scalar_expr(self, op: Any, args: list[str], types: list[Scalar], rtype: Scalar) -> str:
        name = op.name
        t0 = types[0] if types else rtype

        def up(i: int) -> str:  # operand i in its compute type
            t = types[i]
            if t.is_16bit_float:
                return f"{'f16' if t.bits == 16 else 'bf16'}_to_float({args[i]})"
            return args[i]

        def down(expr: str, t: Scalar = rtype) -> str:  # a compute-type expression as t
            if t.is_16bit_float:
                return f"float_to_{'f16' if t.bits == 16 else 'bf16'}({expr})"
            return expr

        def u(i: int) -> str:  # operand i as an unsigned C value
            return _unsigned(args[i], t0)
        binary = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.divsi": "/",
                  "arith.remsi": "%", "arith.andi": "&", "arith.ori": "|", "arith.xori": "^",
                  "arith.shli": "<<", "arith.shrsi": ">>"}
        if name in binary:
            if t0.bits == 1 and name in ("arith.andi", "arith.ori", "arith.xori"):
                return f"{_paren(args[0])} {binary[name].replace('^', '!=')} {_paren(args[1])}"
            if t0.kind == "int" and (name == "arith.shli" or t0.bits >= 32 and name in _WRAPPING):
                # arith wraps around; C++ signed overflow (and << of a negative) is undefined
                return _cast(t0.c, f"{u(0)} {binary[name]} {u(1)}")
            return f"{_paren(args[0])} {binary[name]} {_paren(args[1])}"
        if name in ("arith.divui", "arith.remui", "arith.shrui"):
            symbol = {"arith.divui": "/", "arith.remui": "%", "arith.shrui": ">>"}[name]
            return _cast(t0.c, f"{u(0)} {symbol} {u(1)}")
        if name in ("arith.maxsi", "arith.minsi"):
            return f"{'max' if name.endswith('maxsi') else 'min'}({args[0]}, {args[1]})"
        if name in ("arith.maxui", "arith.minui"):
            fn = "max" if name.endswith("maxui") else "min"
            return _cast(t0.c, f"{fn}({u(0)}, {u(1)})")
        if name == "arith.floordivsi":
            return f"floordiv({args[0]}, {args[1]})"
        if name == "arith.ceildivsi":
            return f"ceildiv({args[0]}, {args[1]})"
        if name == "arith.ceildivui":
            # a / b, plus one when b does not divide a (a + b - 1 would wrap for large a)
            return _cast(t0.c, f"{u(0)} / {u(1)} + ({u(0)} % {u(1)} != 0)")
        fbinary = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/"}
        if name in fbinary:
            return down(f"{_paren(up(0))} {fbinary[name]} {_paren(up(1))}")
        if name == "arith.negf":
            return down(f"-{_paren(up(0))}")
        if name in ("arith.maxnumf", "arith.minnumf"):
            fn = ("fmax" if name.endswith("maxnumf") else "fmin") + ("" if t0.bits == 64 else "f")
            return down(f"{fn}({up(0)}, {up(1)})")
        if name in ("arith.maximumf", "arith.minimumf"):
            return down(f"{name.split('.')[1]}({up(0)}, {up(1)})")
        if name == "arith.cmpi":
            pred = _predicate(op, CMPI)
            symbol = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
                      "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}[pred]
            if pred.startswith("u"):
                return f"{u(0)} {symbol} {u(1)}"
            return f"{_paren(args[0])} {symbol} {_paren(args[1])}"
        if name == "arith.cmpf":
            pred = _predicate(op, CMPF)
            a, b = _paren(up(0)), _paren(up(1))
            ordered = {"oeq": "==", "ogt": ">", "oge": ">=", "olt": "<", "ole": "<="}
            negated = {"ugt": "<=", "uge": "<", "ult": ">=", "ule": ">", "une": "=="}
            if pred in ordered:
                return f"{a} {ordered[pred]} {b}"
            if pred in negated:
                return f"!({a} {negated[pred]} {b})"
            return {"false": "false", "true": "true", "one": f"({a} < {b} || {a} > {b})",
                    "ueq": f"!({a} < {b} || {a} > {b})", "ord": f"({a} == {a} && {b} == {b})",
                    "uno": f"({a} != {a} || {b} != {b})"}[pred]
        if name == "arith.select":
            return f"{_paren(args[0])} ? {args[1]} : {args[2]}"
        if name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.trunci"):
            if rtype.bits == 1:
                return f"bool({_paren(args[0])} & 1)"
            if rtype.c == t0.c:
                return args[0]
            if t0.bits == 1 and name != "arith.index_castui":  # signed: true is -1
                return f"{_paren(args[0])} ? {_int_literal(-1, rtype)} : {_int_literal(0, rtype)}"
            source = args[0]
            if name == "arith.index_castui":
                source = u(0)
            return _cast(rtype.c, source)
        if name == "arith.extui":
            if t0.bits == 1:
                return _cast(rtype.c, args[0])
            return _cast(rtype.c, u(0))
        if name in ("arith.sitofp", "arith.uitofp"):
            if t0.bits == 1:  # sitofp: true is -1; uitofp: true is 1
                one = "-1" if name == "arith.sitofp" else "1"
                return down(_cast(rtype.compute_c, f"{_paren(args[0])} ? {one} : 0"))
            source = args[0] if name == "arith.sitofp" else u(0)
            return down(_cast(rtype.compute_c, source))
        if name in ("arith.fptosi", "arith.fptoui"):
            target = rtype.c if name == "arith.fptosi" else rtype.unsigned_c
            cast = _cast(target, up(0))
            return cast if name == "arith.fptosi" else _cast(rtype.c, cast)
        if name in ("arith.extf", "arith.truncf"):
            if rtype.is_16bit_float and t0.bits == 64:  # one rounding, not two through f32
                return f"double_to_{'f16' if rtype.bits == 16 else 'bf16'}({args[0]})"
            if rtype.compute_c == t0.compute_c:
                return down(up(0))
            return down(f"({rtype.compute_c}){_paren(up(0))}")
        if name == "arith.bitcast":
            return _bitcast(args[0], t0, rtype)
        if name.startswith("math."):
            expr = _math_expr(op, [up(i) for i in range(len(args))], t0)
            if expr is None:
                raise self.error(op, "not supported by the CUDA backend")
            return expr if op.name == "math.absi" else down(expr)
        raise self.error(op, "not supported by the CUDA backend")


_WRAPPING = ("arith.addi", "arith.subi", "arith.muli")


def _cast(c_type_name: str, expr: str) -> str:
    """``expr`` converted to a C type, C style (``long long(x)`` would not parse):
    ``_cast("long long", "a / b") == "(long long)(a / b)"``."""
    return f"({c_type_name}){_paren(expr)}"


def _unsigned(expr: str, t: Scalar) -> str:
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
    return _cast(t.unsigned_c, expr)


def _bitcast(arg: str, source: Scalar, target: Scalar) -> str:
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
    return f"({target.c}){_paren(arg)}"


def _math_expr(op: Any, args: list[str], t: Scalar) -> str | None:
    fn = op.name.split(".", 1)[1]
    suffix = "" if t.bits == 64 else "f"
    if fn == "absi":
        return f"abs({args[0]})"
    if fn not in _MATH_FUNCTIONS:
        return None
    return f"{_MATH_FUNCTIONS[fn]}{suffix}({', '.join(args)})"


def _op_line(op: Any) -> int | None:
    try:
        from layoutkit.ir import op_line
    except ImportError:  # pragma: no cover -- the IR package is part of layoutkit
        return None
    return op_line(op)


def _symbol_name(op: Any) -> str:
    attr = _prop(op, "sym_name")
    return getattr(attr, "data", str(attr))


def _is_kernel(func: Any) -> bool:
    return any(name in func.properties or name in func.attributes
               for name in ("kernel", "gpu.kernel"))


# ----------------------------------------------------------------------------------------
# op handlers


def _h_constant(self: _FunctionEmitter, op: Any) -> None:
    result = op.results[0]
    rtype = value_type(result.type)
    attr = _prop(op, "value")
    if isinstance(rtype, VectorT):
        values = _dense_values(attr)
        element = rtype.element
        literals = [_literal(v, element) for v in values]
        if len(set(literals)) == 1:
            self.define(result, f"{rtype.c}::splat({literals[0]})")
        else:
            self.define(result, f"{rtype.c}{{{{{', '.join(literals)}}}}}")
        return
    value = attr.value.data if hasattr(attr, "value") else attr
    self.exprs[result] = _literal(value, rtype)


def _literal(value: Any, element: Scalar) -> str:
    if element.is_float:
        return _float_literal(float(value), element)
    return _int_literal(int(value), element)


def _dense_values(attr: Any) -> list[Any]:
    for method in ("get_values", "iter_values"):
        if hasattr(attr, method):
            values = list(getattr(attr, method)())
            if values:
                return values
    data = getattr(attr, "data", None)
    if data is not None and hasattr(data, "data"):
        return [getattr(getattr(v, "value", v), "data", v) for v in data.data]
    raise LayoutError(f"arith.constant: cannot read the dense value {quote(attr)}")


def _h_dim_op(what: str):
    def handler(self: _FunctionEmitter, op: Any) -> None:
        dim = _enum_text(_prop(op, "dimension"))
        if what == "global_id":
            rhs = f"int(blockIdx.{dim} * blockDim.{dim} + threadIdx.{dim})"
        else:
            rhs = f"int({what}.{dim})"
        self.define(op.results[0], rhs)
    return handler


def _h_simple(rhs: str):
    def handler(self: _FunctionEmitter, op: Any) -> None:
        self.define(op.results[0], rhs)
    return handler


def _h_barrier(self: _FunctionEmitter, op: Any) -> None:
    self.emit("__syncthreads();")


def _h_return(self: _FunctionEmitter, op: Any) -> None:
    parent = op.parent_op()
    if parent is not self.func:
        self.emit("return;")


def _h_load(self: _FunctionEmitter, op: Any) -> None:
    view = self.view(op.operands[0], op)
    indices = [self.expr(v) for v in op.operands[1:]]
    self.define(op.results[0], view.element(indices))


def _h_store(self: _FunctionEmitter, op: Any) -> None:
    value = self.expr(op.operands[0])
    view = self.view(op.operands[1], op)
    indices = [self.expr(v) for v in op.operands[2:]]
    self.emit(f"{view.element(indices)} = {value};")


def _view(self: _FunctionEmitter, value: Any, op: Any) -> View:
    try:
        return self.views[value]
    except KeyError:
        raise self.error(op, f"memref of type {quote(value.type)} is not a kernel argument, an "
                             "allocation or a view of one") from None


_FunctionEmitter.view = _view  # type: ignore[attr-defined]


def _h_alloc(self: _FunctionEmitter, op: Any) -> None:
    result = op.results[0]
    info = memref_info(result.type, f"kernel @{self.kernel_name}: {op.name}")
    if op.operands:
        raise self.error(op, "dynamic sizes are not supported by the CUDA backend")
    name = self.name_of(result, "buffer")
    dims = "".join(f"[{d}]" for d in info.shape) or "[1]"
    if info.space == "workgroup":
        self.shared_decls.append(f"  __shared__ __align__(16) {info.element.c} {name}{dims};")
    elif info.space == "private" or op.name == "memref.alloca":
        self.emit(f"__align__(16) {info.element.c} {name}{dims};")
    else:
        raise self.error(op, f"global-memory allocation inside a kernel is not supported: {quote(result.type)}")
    self.views[result] = View(name, info, multi_dim=info.identity and bool(info.shape))


def _h_get_global(self: _FunctionEmitter, op: Any) -> None:
    symbol = _prop(op, "name")
    name = getattr(getattr(symbol, "root_reference", symbol), "data", str(symbol).lstrip("@"))
    declared = self.module.globals.get(name)
    if declared is None:
        raise self.error(op, f"no memref.global named {quote('@' + name)}")
    info = memref_info(op.results[0].type, f"kernel @{self.kernel_name}: {op.name}")
    self.views[op.results[0]] = View(declared, info, multi_dim=info.identity and bool(info.shape))


def _h_noop(self: _FunctionEmitter, op: Any) -> None:
    pass


def _h_cast(self: _FunctionEmitter, op: Any) -> None:
    source = self.view(op.operands[0], op)
    info = memref_info(op.results[0].type, f"kernel @{self.kernel_name}: {op.name}")
    self.views[op.results[0]] = View(source.base, info, source.multi_dim and info.identity, source.offset)


def _h_subview(self: _FunctionEmitter, op: Any) -> None:
    source = self.view(op.operands[0], op)
    static_offsets = _int_list(_prop(op, "static_offsets"))
    segments = _int_list(_prop(op, "operandSegmentSizes", "operand_segment_sizes"))
    dynamic = list(op.operands[1:1 + segments[1]]) if segments else []
    offsets: list[str] = []
    for value in static_offsets:
        offsets.append(self.expr(dynamic.pop(0)) if value < -(2**62) else str(value))
    terms = [o if s == 1 else f"{_paren(o)} * {_paren(str(s))}"
             for o, s in zip(offsets, source.info.strides) if o != "0"]
    if source.offset:
        terms.insert(0, source.offset)
    info = memref_info(op.results[0].type, f"kernel @{self.kernel_name}: {op.name}")
    info = MemrefInfo(info.element, info.shape, info.strides, (source.info.offset or 0), info.space, False)
    name = self.fresh(getattr(op.results[0], "name_hint", None), "view")
    base = f"&{source.base}" + "[0]" * len(source.info.shape) if source.multi_dim else source.base
    element = source.info.element.c
    self.emit(f"{element}* const {name} = {base} + {' + '.join(terms) if terms else '0'};")
    self.views[op.results[0]] = View(name, info, multi_dim=False)


def _h_dim(self: _FunctionEmitter, op: Any) -> None:
    info = self.view(op.operands[0], op).info
    index_value = op.operands[1]
    owner = index_value.owner
    if getattr(owner, "name", "") != "arith.constant":
        raise self.error(op, "needs a constant dimension index")
    self.exprs[op.results[0]] = str(info.shape[int(_prop(owner, "value").value.data)])


# -- vectors -------------------------------------------------------------------------


_WIDE = {("float", 4): "float", ("float", 8): "float2", ("float", 16): "float4",
         ("int", 4): "int", ("int", 8): "int2", ("int", 16): "int4"}


def _wide_type(vtype: VectorT) -> str | None:
    total = vtype.element.size * vtype.count
    if vtype.element.is_float and vtype.element.bits == 32:
        return _WIDE.get(("float", total))
    if vtype.element.kind in ("int", "index") and vtype.element.bits == 32 or vtype.element.kind == "index":
        return _WIDE.get(("int", total))
    return {2: "unsigned short", 4: "unsigned", 8: "uint2", 16: "uint4"}.get(total)


def _vector_access(self: _FunctionEmitter, op: Any, view: View, indices: list[str], vtype: VectorT):
    """(wide C type or None, address of element 0, element expression for lane ``el``, ``el``).

    A ``vector<AxBxT>`` covers the memref's last two dims from ``indices`` on (MLIR's rule);
    it is one wide access when those elements are contiguous in memory."""
    rank = len(vtype.shape)
    if len(indices) < rank:
        raise self.error(op, f"a {quote(vtype.c)} access needs at least {rank} indices")
    shape, strides = view.info.shape[-rank:], view.info.strides[-rank:]
    contiguous = strides[-1] == 1 and all(
        shape[d] == vtype.shape[d] and strides[d - 1] == vtype.shape[d] * strides[d]
        for d in range(1, rank))
    index = self.fresh("el")
    shifted = list(indices[:-rank])
    for d in range(rank):
        inner = math.prod(vtype.shape[d + 1:])
        lane = index if inner == 1 else f"{index} / {inner}"
        lane = lane if d == 0 else f"{_paren(lane)} % {vtype.shape[d]}"
        position = indices[len(indices) - rank + d]
        shifted.append(lane if position == "0" else f"{_paren(position)} + {_paren(lane)}")
    wide = _wide_type(vtype) if contiguous else None
    return wide, "&" + view.element(indices), view.element(shifted), index


def _h_vector_load(self: _FunctionEmitter, op: Any) -> None:
    view = self.view(op.operands[0], op)
    vtype = value_type(op.results[0].type)
    indices = [self.expr(v) for v in op.operands[1:]]
    wide, address, element, index = _vector_access(self, op, view, indices, vtype)
    if wide is not None:
        self.define(op.results[0], f"load_vector<{wide}, {vtype.element.c}, {vtype.count}>({address})")
        return
    name = self.name_of(op.results[0])
    self.emit(f"{vtype.c} {name};")
    self.emit("#pragma unroll")
    self.emit(f"for (int {index} = 0; {index} < {vtype.count}; ++{index}) {name}[{index}] = {element};")
    self.exprs[op.results[0]] = name


def _h_vector_store(self: _FunctionEmitter, op: Any) -> None:
    value = self.expr(op.operands[0])
    vtype = value_type(op.operands[0].type)
    view = self.view(op.operands[1], op)
    indices = [self.expr(v) for v in op.operands[2:]]
    wide, address, element, index = _vector_access(self, op, view, indices, vtype)
    if wide is not None:
        self.emit(f"store_vector<{wide}>({address}, {value});")
        return
    self.emit("#pragma unroll")
    self.emit(f"for (int {index} = 0; {index} < {vtype.count}; ++{index}) {element} = {value}[{index}];")


def _positions(self: _FunctionEmitter, op: Any, dynamic: list[Any]) -> list[str]:
    result = []
    dynamic = list(dynamic)
    for value in _int_list(_prop(op, "static_position")):
        result.append(self.expr(dynamic.pop(0)) if value < -(2**62) or value == -1 and dynamic else str(value))
    return result


def _flat_start(positions: list[str], shape: tuple[int, ...]) -> str:
    terms = []
    for k, position in enumerate(positions):
        stride = math.prod(shape[k + 1:])
        if position.isdigit():
            terms.append(str(int(position) * stride)) if int(position) else None
        elif position != "0":
            terms.append(position if stride == 1 else f"{_paren(position)} * {stride}")
    if terms and all(t.isdigit() for t in terms):
        return str(sum(int(t) for t in terms))
    return " + ".join(terms) if terms else "0"


def _h_extract(self: _FunctionEmitter, op: Any) -> None:
    vtype = value_type(op.operands[0].type)
    positions = _positions(self, op, op.operands[1:])
    start = _flat_start(positions, vtype.shape)
    source = self.expr(op.operands[0])
    rtype = value_type(op.results[0].type)
    if isinstance(rtype, VectorT):
        self.define(op.results[0], f"{source}.part<{rtype.count}>({start})")
    else:
        self.define(op.results[0], f"{source}[{start}]")


def _h_insert(self: _FunctionEmitter, op: Any) -> None:
    dest_type = value_type(op.operands[1].type)
    positions = _positions(self, op, op.operands[2:])
    start = _flat_start(positions, dest_type.shape)
    source, dest = self.expr(op.operands[0]), self.expr(op.operands[1])
    stype = value_type(op.operands[0].type)
    if isinstance(stype, VectorT):
        self.define(op.results[0], f"{dest}.with_part<{stype.count}>({start}, {source})")
        return
    name = self.name_of(op.results[0])
    self.emit(f"{dest_type.c} {name} = {dest};")
    self.emit(f"{name}[{start}] = {source};")
    self.exprs[op.results[0]] = name


def _h_broadcast(self: _FunctionEmitter, op: Any) -> None:
    rtype = value_type(op.results[0].type)
    stype = value_type(op.operands[0].type)
    source = self.expr(op.operands[0])
    if isinstance(stype, VectorT):
        if stype.count != 1 and stype.count != rtype.count:
            raise self.error(op, "only scalar or size-1 broadcasts are supported")
        source = f"{source}[0]"
    self.define(op.results[0], f"{rtype.c}::splat({source})")


def _h_shape_cast(self: _FunctionEmitter, op: Any) -> None:
    """Same elements, another shape: the same ``Vec<T, N>`` type, so a plain copy."""
    self.define(op.results[0], self.expr(op.operands[0]))


def _h_reduction(self: _FunctionEmitter, op: Any) -> None:
    vtype = value_type(op.operands[0].type)
    kind = _enum_text(_prop(op, "kind"))
    source = self.expr(op.operands[0])
    element = vtype.element
    name = self.name_of(op.results[0])
    start = f"{source}[0]"
    self.emit(f"{element.c} {name} = {start};")
    index = self.fresh("el")
    self.emit("#pragma unroll")
    combined = _combine(kind, name, f"{source}[{index}]", element)
    self.emit(f"for (int {index} = 1; {index} < {vtype.count}; ++{index}) {name} = {combined};")
    if len(op.operands) > 1:
        self.emit(f"{name} = {_combine(kind, name, self.expr(op.operands[1]), element)};")
    self.exprs[op.results[0]] = name


def _combine(kind: str, a: str, b: str, t: Scalar) -> str:
    """``a <kind> b`` for a reduction kind (add, mul, maxnumf, ...), in t's own rounding."""
    if t.is_16bit_float:
        to = f"{'f16' if t.bits == 16 else 'bf16'}_to_float"
        back = f"float_to_{'f16' if t.bits == 16 else 'bf16'}"
        return f"{back}({_combine(kind, f'{to}({a})', f'{to}({b})', Scalar('float', 32))})"
    suffix = "" if t.bits == 64 else "f"
    table = {"add": f"{a} + {b}", "mul": f"{a} * {b}", "and": f"{a} & {b}", "or": f"{a} | {b}",
             "xor": f"{a} ^ {b}", "maxsi": f"max({a}, {b})", "minsi": f"min({a}, {b})",
             "maxui": _cast(t.c, f"max({_unsigned(a, t)}, {_unsigned(b, t)})"),
             "minui": _cast(t.c, f"min({_unsigned(a, t)}, {_unsigned(b, t)})"),
             "maxnumf": f"fmax{suffix}({a}, {b})", "minnumf": f"fmin{suffix}({a}, {b})",
             "maximumf": f"maximumf({a}, {b})", "minimumf": f"minimumf({a}, {b})"}
    if kind not in table:
        raise LayoutError(f"reduction kind: not supported by the CUDA backend: {quote(kind)}")
    return table[kind]


# -- warp operations ------------------------------------------------------------------


def _shuffle_call(kind: str, value: str, t: Scalar, lane: str, width: str) -> str:
    """``__shfl_<kind>_sync`` of a value of type t (16-bit and bool values go as 32 bits)."""
    function = {"xor": "__shfl_xor_sync", "idx": "__shfl_sync", "up": "__shfl_up_sync",
                "down": "__shfl_down_sync"}[kind]
    width_arg = "" if width in ("32", str(WARP_SIZE)) else f", {width}"
    if t.bits in (1, 8, 16, 17):
        call = f"{function}({FULL_MASK}, (unsigned){_paren(value)}, {lane}{width_arg})"
        return f"({t.c}){call}" if t.bits != 1 else f"bool({call})"
    return f"{function}({FULL_MASK}, {value}, {lane}{width_arg})"


def _h_shuffle(self: _FunctionEmitter, op: Any) -> None:
    """``gpu.shuffle``: lane k of a segment of ``width`` lanes reads lane ``k ^ offset``,
    ``offset`` (idx), ``k - offset`` (up) or ``k + offset`` (down) of its segment; when that
    is outside ``[0, width)``, ``valid`` is false and (as in the simulator) k keeps its own value.

    PTX's ``shfl.sync`` agrees only while the offset is in range: it wraps an idx offset to
    ``offset % width`` and reads offsets modulo 32. So a constant in-range offset with a
    power-of-two width is one ``__shfl_xor_sync(mask, x, 16)``; anything else computes the
    source lane and reads it with one ``__shfl_sync``, its own lane when out of range::

        const int y_position = int(lane_id()) % 16;
        const int y_source = o;
        const bool ok = y_source >= 0 && y_source < 16;
        const float y = __shfl_sync(0xffffffffu, x, ok ? int(lane_id()) - y_position + y_source : int(lane_id()));
    """
    mode = _enum_text(_prop(op, "mode"))
    if mode not in ("xor", "idx", "up", "down"):
        raise self.error(op, f"unknown shuffle mode {quote(mode)}")
    value, offset, width = (self.expr(v) for v in op.operands[:3])
    vtype = value_type(op.operands[0].type)
    if isinstance(vtype, VectorT):
        raise self.error(op, "shuffles of vectors are not supported; shuffle each element")
    if re.fullmatch(r"-?\d+", width) and not 1 <= int(width) <= WARP_SIZE:
        raise self.error(op, f"width must be from 1 to {WARP_SIZE} lanes, got {width}")
    wants_valid = len(op.results) > 1 and _has_uses(op.results[1])
    if _shuffle_stays_in_range(mode, offset, width):
        self.define(op.results[0], _shuffle_call(mode, value, vtype, offset, width))
        if wants_valid:  # always true for xor and idx here; up and down check their end
            position = "int(lane_id())" if width == "32" else f"int(lane_id()) % {width}"
            self.define(op.results[1], {"xor": "true", "idx": "true",
                                        "up": f"{position} >= {offset}",
                                        "down": f"{position} + {offset} < {width}"}[mode])
        return
    result_name = self.name_of(op.results[0])
    lane = "int(lane_id())"
    position = self.fresh(f"{result_name}_position")
    self.emit(f"const int {position} = {lane} % {_paren(width)};")
    source = self.fresh(f"{result_name}_source")
    offset_ = _paren(offset)
    self.emit(f"const int {source} = " + {"xor": f"{position} ^ {offset_}", "idx": offset,
                                          "up": f"{position} - {offset_}",
                                          "down": f"{position} + {offset_}"}[mode] + ";")
    valid = self.name_of(op.results[1], "valid") if wants_valid else self.fresh(f"{result_name}_valid")
    self.emit(f"const bool {valid} = {source} >= 0 && {source} < {_paren(width)};")
    if wants_valid:
        self.exprs[op.results[1]] = valid
    absolute = f"{valid} ? {lane} - {position} + {source} : {lane}"
    self.emit(f"const {vtype.c} {result_name} = {_shuffle_call('idx', value, vtype, absolute, '32')};")
    self.exprs[op.results[0]] = result_name


def _shuffle_stays_in_range(mode: str, offset: str, width: str) -> bool:
    """True when PTX's own shuffle of ``mode`` gives gpu.shuffle's result on every lane: a
    constant power-of-two width and a constant offset below it (below 32 for up and down,
    whose out-of-range lanes PTX also leaves with their own value)."""
    if not (offset.isdigit() and width.isdigit()):
        return False
    w, o = int(width), int(offset)
    if not (1 <= w <= WARP_SIZE and w & (w - 1) == 0):
        return False
    return o < (w if mode in ("xor", "idx") else WARP_SIZE)


def _has_uses(value: Any) -> bool:
    uses = getattr(value, "uses", None)
    return True if uses is None else next(iter(uses), None) is not None


def _h_subgroup_reduce(self: _FunctionEmitter, op: Any) -> None:
    kind = _enum_text(_prop(op, "op"))
    rtype = value_type(op.results[0].type)
    if isinstance(rtype, VectorT):
        raise self.error(op, "vector subgroup reductions are not supported; reduce each element")
    cluster = _prop(op, "cluster_size")
    stride_attr = _prop(op, "cluster_stride")
    size = int(cluster.value.data) if cluster is not None and hasattr(cluster, "value") else WARP_SIZE
    stride = int(stride_attr.value.data) if stride_attr is not None and hasattr(stride_attr, "value") else 1
    name = self.name_of(op.results[0])
    self.emit(f"{rtype.c} {name} = {self.expr(op.operands[0])};  // {kind} over {size} lanes (butterfly)")
    offset = self.fresh("offset")
    self.emit("#pragma unroll")
    partner = _shuffle_call("xor", name, rtype, offset, "32")
    self.emit(f"for (int {offset} = {size // 2 * stride}; {offset} >= {stride}; {offset} /= 2) "
              f"{name} = {_combine(kind, name, partner, rtype)};")
    self.exprs[op.results[0]] = name


def _h_mma(self: _FunctionEmitter, op: Any) -> None:
    shape = _int_list(_prop(op, "mmaShape", "mma_shape", "shape"))
    a_type, b_type, c_type_ = (value_type(v.type) for v in op.operands[:3])
    if shape not in ([16, 8, 16], [16, 8, 8]):
        raise self.error(op, f"mmaShape must be [16, 8, 16] or [16, 8, 8], got {shape}")
    m, n, k = shape
    element = a_type.element
    if not element.is_16bit_float or b_type.element != element or c_type_.element != Scalar("float", 32):
        raise self.error(op, "supports f16 or bf16 inputs with f32 accumulators")
    a_regs, b_regs = m * k // 32 // 2, n * k // 32 // 2
    if a_type.count != 2 * a_regs or b_type.count != 2 * b_regs or c_type_.count != 4:
        raise self.error(op, f"fragment sizes for m{m}n{n}k{k} are A {2 * a_regs}, B {2 * b_regs}, "
                             f"C 4 elements per lane; got {a_type.count}, {b_type.count}, {c_type_.count}")
    a, b, c = (self.expr(v) for v in op.operands[:3])
    dtype = "f16" if element.bits == 16 else "bf16"
    self.define(op.results[0], f"mma_m{m}n{n}k{k}_{dtype}({a}, {b}, {c})")


# -- structured control flow --------------------------------------------------------


def _h_if(self: _FunctionEmitter, op: Any) -> None:
    results = []
    for result in op.results:
        name = self.name_of(result)
        self.emit(f"{c_type(result.type)} {name};")
        self.exprs[result] = name
        results.append(name)
    then_region, else_region = op.regions[0], op.regions[1]
    self.emit(f"if ({self.expr(op.operands[0])}) {{")
    self._branch(then_region, results)
    if else_region.blocks and (list(else_region.blocks[0].ops) and
                               (results or len(list(else_region.blocks[0].ops)) > 1)):
        self.emit("} else {")
        self._branch(else_region, results)
    self.emit("}")


def _branch(self: _FunctionEmitter, region: Any, results: list[str]) -> None:
    if not region.blocks:
        return
    block = region.blocks[0]
    self.depth += 1
    for inner in block.ops:
        if inner.name == "scf.yield":
            for name, value in zip(results, inner.operands):
                self.emit(f"{name} = {self.expr(value)};")
        else:
            self.op(inner)
    self.depth -= 1


_FunctionEmitter._branch = _branch  # type: ignore[attr-defined]


def _h_for(self: _FunctionEmitter, op: Any) -> None:
    lower, upper, step = (self.expr(v) for v in op.operands[:3])
    inits = op.operands[3:]
    block = op.regions[0].blocks[0]
    induction, carried_args = block.args[0], block.args[1:]
    carried = []
    for arg, init, result in zip(carried_args, inits, op.results):
        name = self.name_of(arg, "carried")
        self.emit(f"{c_type(arg.type)} {name} = {self.expr(init)};")
        self.exprs[arg] = name
        self.exprs[result] = name
        carried.append(name)
    index = self.name_of(induction, "i")
    self.exprs[induction] = index
    increment = f"++{index}" if re.fullmatch(r"1(ll)?", step) else f"{index} += {step}"
    self.emit(f"for ({c_type(induction.type)} {index} = {lower}; {index} < {upper}; {increment}) {{")
    self.depth += 1
    for inner in block.ops:
        if inner.name == "scf.yield":
            self._assign_carried(carried, list(carried_args), [self.expr(v) for v in inner.operands])
        else:
            self.op(inner)
    self.depth -= 1
    self.emit("}")


def _h_while(self: _FunctionEmitter, op: Any) -> None:
    """``scf.while``: a ``while (true)`` loop that leaves when the condition is false.

    The before-region's arguments are loop-carried locals, the values ``scf.condition``
    forwards are the loop's results (and the after-region's arguments)."""
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    carried = []
    for arg, init in zip(before.args, op.operands):
        name = self.name_of(arg, "carried")
        self.emit(f"{c_type(arg.type)} {name} = {self.expr(init)};")
        self.exprs[arg] = name
        carried.append(name)
    results = []
    for result, arg in zip(op.results, after.args):
        name = self.name_of(arg if getattr(arg, "name_hint", None) else result)
        self.emit(f"{c_type(result.type)} {name};")
        self.exprs[result] = name
        self.exprs[arg] = name
        results.append(name)
    self.emit("while (true) {")
    self.depth += 1
    for inner in before.ops:
        if inner.name == "scf.condition":
            condition, *forwarded = (self.expr(v) for v in inner.operands)
            for name, value in zip(results, forwarded):
                if name != value:
                    self.emit(f"{name} = {value};")
            self.emit(f"if (!{_paren(condition)}) break;")
        else:
            self.op(inner)
    for inner in after.ops:
        if inner.name == "scf.yield":
            self._assign_carried(carried, list(before.args), [self.expr(v) for v in inner.operands])
        else:
            self.op(inner)
    self.depth -= 1
    self.emit("}")


def _assign_carried(self: _FunctionEmitter, carried: list[str], args: list[Any], yielded: list[str]) -> None:
    """``carried[i] = yielded[i]`` for all i at once (through temporaries when they overlap)."""
    changes = [(n, y, a) for n, y, a in zip(carried, yielded, args) if n != y]
    targets = {n for n, _, _ in changes}
    if len(changes) > 1 and any(re.search(rf"\b{re.escape(t)}\b", y) for _, y, _ in changes for t in targets):
        staged = []
        for n, y, a in changes:
            temp = self.fresh(f"next_{n}")
            self.emit(f"const {c_type(a.type)} {temp} = {y};")
            staged.append((n, temp, a))
        changes = staged
    for n, y, _ in changes:
        self.emit(f"{n} = {y};")


_FunctionEmitter._assign_carried = _assign_carried  # type: ignore[attr-defined]


def _h_vector_bitcast(self: _FunctionEmitter, op: Any) -> None:
    """The same bytes as another vector type, through ``bit_cast`` (a memcpy the compiler
    removes; a reinterpret_cast of the address would break C++'s aliasing rules)."""
    rtype = value_type(op.results[0].type)
    self.define(op.results[0], f"bit_cast<{rtype.c}>({self.expr(op.operands[0])})")


_HANDLERS = {
    "arith.constant": _h_constant,
    "gpu.thread_id": _h_dim_op("threadIdx"),
    "gpu.block_id": _h_dim_op("blockIdx"),
    "gpu.block_dim": _h_dim_op("blockDim"),
    "gpu.grid_dim": _h_dim_op("gridDim"),
    "gpu.global_id": _h_dim_op("global_id"),
    "gpu.lane_id": _h_simple("int(lane_id())"),
    "gpu.subgroup_id": _h_simple("int(linear_thread_id() / warpSize)"),
    "gpu.subgroup_size": _h_simple("warpSize"),
    "gpu.num_subgroups": _h_simple("int((blockDim.x * blockDim.y * blockDim.z + warpSize - 1) / warpSize)"),
    "gpu.barrier": _h_barrier,
    "gpu.return": _h_return,
    "func.return": _h_return,
    "gpu.shuffle": _h_shuffle,
    "gpu.subgroup_reduce": _h_subgroup_reduce,
    "nvgpu.mma.sync": _h_mma,
    "memref.load": _h_load,
    "memref.store": _h_store,
    "memref.alloc": _h_alloc,
    "memref.alloca": _h_alloc,
    "memref.dealloc": _h_noop,
    "memref.get_global": _h_get_global,
    "memref.cast": _h_cast,
    "memref.subview": _h_subview,
    "memref.dim": _h_dim,
    "vector.load": _h_vector_load,
    "vector.store": _h_vector_store,
    "vector.extract": _h_extract,
    "vector.insert": _h_insert,
    "vector.broadcast": _h_broadcast,
    "vector.splat": _h_broadcast,
    "vector.shape_cast": _h_shape_cast,
    "vector.reduction": _h_reduction,
    "vector.fma": lambda self, op: self.elementwise(_Renamed(op, "math.fma")),
    "scf.if": _h_if,
    "scf.for": _h_for,
    "scf.while": _h_while,
    "vector.bitcast": _h_vector_bitcast,
}


class _Renamed:
    """An op seen under another name (vector.fma is math.fma element by element)."""

    def __init__(self, op: Any, name: str) -> None:
        self._op, self.name = op, name

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._op, attr)


# ----------------------------------------------------------------------------------------
# modules


class ModuleEmitter:
    """Emits every ``gpu.module`` of an xDSL module as one CUDA translation unit."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.globals: dict[str, str] = {}
        self.global_names: set[str] = set()

    def run(self) -> str:
        gpu_modules = [op for op in self.module.walk() if op.name == "gpu.module"]
        funcs = [op for op in self.module.walk() if op.name == "gpu.func"]
        if not funcs:
            raise LayoutError("module: no gpu.func found; the CUDA backend emits kernels of a gpu.module")
        if not any(_is_kernel(f) for f in funcs):
            raise LayoutError("module: no gpu.func has the kernel attribute")
        names = [_symbol_name(m) for m in gpu_modules] or ["(none)"]
        out = [f"// CUDA C++ emitted by layoutkit from gpu.module @{', @'.join(names)}",
               "// compile: layoutkit emit-cuda FILE --compile  (or nvcc -arch=sm_90 -cubin)",
               "", PRELUDE]
        for op in self.module.walk():
            if op.name == "memref.global":
                out.append(self.global_decl(op))
        ordered = [f for f in funcs if not _is_kernel(f)] + [f for f in funcs if _is_kernel(f)]
        for func in ordered:
            out.extend(_FunctionEmitter(self, func).run())
            out.append("")
        return "\n".join(out).rstrip() + "\n"

    def global_decl(self, op: Any) -> str:
        name = _symbol_name(op)
        memref_type = _prop(op, "type")
        info = memref_info(memref_type, f"memref.global @{name}")
        if info.space != "workgroup":
            raise LayoutError(f"memref.global @{name}: only workgroup-memory globals are supported, got {quote(memref_type)}")
        c_name = re.sub(r"\W", "_", name)
        self.globals[name] = c_name
        self.global_names.add(c_name)
        dims = "".join(f"[{d}]" for d in info.shape) or "[1]"
        return f"__shared__ __align__(16) {info.element.c} {c_name}{dims};"


def emit_cuda(module: Any, prelude: bool = True) -> str:
    """CUDA C++ for every kernel of ``module`` (an xDSL module or MLIR text).

    Text is parsed with :func:`layoutkit.ir.parse_module`. Raises ``LayoutError`` naming the
    kernel and op for anything the backend cannot express. ``prelude=False`` leaves out the
    helper definitions (``Vec``, ``f16_t``, ``load_vector``, ...) for reading; the result
    then no longer compiles on its own.
    """
    if isinstance(module, str):
        from layoutkit.ir import parse_module

        module = parse_module(module)
    if not hasattr(module, "walk"):
        raise LayoutError(f"module: expected an xDSL module or MLIR text, got {quote(type(module).__name__)}")
    source = ModuleEmitter(module).run()
    return source if prelude else without_prelude(source)


def without_prelude(source: str) -> str:
    """Emitted ``source`` with the prelude replaced by a one-line note (for reading)."""
    return source.replace(PRELUDE, PRELUDE_LEFT_OUT)
