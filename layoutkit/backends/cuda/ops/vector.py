"""CUDA emitters of ``vector``: a per-thread ``vector<...>`` is a ``Vec<T, N>`` (prelude);
contiguous loads and stores are one ``float4`` / ``uint4`` / ... access."""

from __future__ import annotations

import math
from typing import Any

from xdsl.dialects import vector

from layoutkit.backends.cuda.c_text import enum_text, int_list, paren, prop
from layoutkit.backends.cuda.emit import FunctionEmitter
from layoutkit.backends.cuda.memrefs import View
from layoutkit.backends.cuda.ops.arith import elementwise
from layoutkit.backends.cuda.ops.gpu import combine
from layoutkit.backends.cuda.registry import emits
from layoutkit.backends.types import VectorT, value_type
from layoutkit.errors import quote

_WIDE = {("float", 4): "float", ("float", 8): "float2", ("float", 16): "float4",
         ("int", 4): "int", ("int", 8): "int2", ("int", 16): "int4"}


def _wide_type(vtype: VectorT) -> str | None:
    total = vtype.element.size * vtype.count
    if vtype.element.is_float and vtype.element.bits == 32:
        return _WIDE.get(("float", total))
    if vtype.element.kind in ("int", "index") and vtype.element.bits == 32 or vtype.element.kind == "index":
        return _WIDE.get(("int", total))
    return {2: "unsigned short", 4: "unsigned", 8: "uint2", 16: "uint4"}.get(total)


def _vector_access(self: FunctionEmitter, op: Any, view: View, indices: list[str], vtype: VectorT):
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
        lane = lane if d == 0 else f"{paren(lane)} % {vtype.shape[d]}"
        position = indices[len(indices) - rank + d]
        shifted.append(lane if position == "0" else f"{paren(position)} + {paren(lane)}")
    wide = _wide_type(vtype) if contiguous else None
    return wide, "&" + view.element(indices), view.element(shifted), index


@emits(vector.LoadOp)
def load(self: FunctionEmitter, op: Any) -> None:
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


@emits(vector.StoreOp)
def store(self: FunctionEmitter, op: Any) -> None:
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


def _positions(self: FunctionEmitter, op: Any, dynamic: list[Any]) -> list[str]:
    result = []
    dynamic = list(dynamic)
    for value in int_list(prop(op, "static_position")):
        result.append(self.expr(dynamic.pop(0)) if value < -(2**62) or value == -1 and dynamic else str(value))
    return result


def _flat_start(positions: list[str], shape: tuple[int, ...]) -> str:
    terms = []
    for k, position in enumerate(positions):
        stride = math.prod(shape[k + 1:])
        if position.isdigit():
            terms.append(str(int(position) * stride)) if int(position) else None
        elif position != "0":
            terms.append(position if stride == 1 else f"{paren(position)} * {stride}")
    if terms and all(t.isdigit() for t in terms):
        return str(sum(int(t) for t in terms))
    return " + ".join(terms) if terms else "0"


@emits(vector.ExtractOp)
def extract(self: FunctionEmitter, op: Any) -> None:
    vtype = value_type(op.operands[0].type)
    positions = _positions(self, op, op.operands[1:])
    start = _flat_start(positions, vtype.shape)
    source = self.expr(op.operands[0])
    rtype = value_type(op.results[0].type)
    if isinstance(rtype, VectorT):
        self.define(op.results[0], f"{source}.part<{rtype.count}>({start})")
    else:
        self.define(op.results[0], f"{source}[{start}]")


@emits(vector.InsertOp)
def insert(self: FunctionEmitter, op: Any) -> None:
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


@emits(vector.BroadcastOp)
def broadcast(self: FunctionEmitter, op: Any) -> None:
    rtype = value_type(op.results[0].type)
    stype = value_type(op.operands[0].type)
    source = self.expr(op.operands[0])
    if isinstance(stype, VectorT):
        if stype.count != 1 and stype.count != rtype.count:
            raise self.error(op, "only scalar or size-1 broadcasts are supported")
        source = f"{source}[0]"
    self.define(op.results[0], f"{rtype.c}::splat({source})")


@emits(vector.ReductionOp)
def reduction(self: FunctionEmitter, op: Any) -> None:
    vtype = value_type(op.operands[0].type)
    kind = enum_text(prop(op, "kind"))
    source = self.expr(op.operands[0])
    element = vtype.element
    name = self.name_of(op.results[0])
    start = f"{source}[0]"
    self.emit(f"{element.c} {name} = {start};")
    index = self.fresh("el")
    self.emit("#pragma unroll")
    combined = combine(kind, name, f"{source}[{index}]", element)
    self.emit(f"for (int {index} = 1; {index} < {vtype.count}; ++{index}) {name} = {combined};")
    if len(op.operands) > 1:
        self.emit(f"{name} = {combine(kind, name, self.expr(op.operands[1]), element)};")
    self.exprs[op.results[0]] = name


@emits(vector.BitcastOp)
def bitcast(self: FunctionEmitter, op: Any) -> None:
    """The same bytes as another vector type, through ``bit_cast`` (a memcpy the compiler
    removes; a reinterpret_cast of the address would break C++'s aliasing rules)."""
    rtype = value_type(op.results[0].type)
    self.define(op.results[0], f"bit_cast<{rtype.c}>({self.expr(op.operands[0])})")


class _Renamed:
    """An op seen under another name (vector.fma is math.fma element by element)."""

    def __init__(self, op: Any, name: str) -> None:
        self._op, self.name = op, name

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._op, attr)


@emits(vector.FMAOp)
def fma(self: FunctionEmitter, op: Any) -> None:
    """``vector.fma`` is ``math.fma`` element by element."""
    elementwise(self, _Renamed(op, "math.fma"))
