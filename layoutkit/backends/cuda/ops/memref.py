"""CUDA emitters of ``memref``: loads and stores through a :class:`View`, allocations as
``__shared__`` or local arrays, views (cast, subview) as pointers."""

from __future__ import annotations

from typing import Any

from xdsl.dialects import memref

from layoutkit.backends.cuda.c_text import int_list, paren, prop
from layoutkit.backends.cuda.emit import FunctionEmitter
from layoutkit.backends.cuda.memrefs import MemrefInfo, View, memref_info
from layoutkit.backends.cuda.registry import emits
from layoutkit.errors import quote


@emits(memref.LoadOp)
def load(self: FunctionEmitter, op: Any) -> None:
    view = self.view(op.operands[0], op)
    indices = [self.expr(v) for v in op.operands[1:]]
    self.define(op.results[0], view.element(indices))


@emits(memref.StoreOp)
def store(self: FunctionEmitter, op: Any) -> None:
    value = self.expr(op.operands[0])
    view = self.view(op.operands[1], op)
    indices = [self.expr(v) for v in op.operands[2:]]
    self.emit(f"{view.element(indices)} = {value};")


@emits(memref.AllocOp, memref.AllocaOp)
def alloc(self: FunctionEmitter, op: Any) -> None:
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


@emits(memref.GetGlobalOp)
def get_global(self: FunctionEmitter, op: Any) -> None:
    symbol = prop(op, "name")
    name = getattr(getattr(symbol, "root_reference", symbol), "data", str(symbol).lstrip("@"))
    declared = self.module.globals.get(name)
    if declared is None:
        raise self.error(op, f"no memref.global named {quote('@' + name)}")
    info = memref_info(op.results[0].type, f"kernel @{self.kernel_name}: {op.name}")
    self.views[op.results[0]] = View(declared, info, multi_dim=info.identity and bool(info.shape))


@emits(memref.DeallocOp)
def dealloc(self: FunctionEmitter, op: Any) -> None:
    pass


@emits(memref.CastOp)
def cast(self: FunctionEmitter, op: Any) -> None:
    source = self.view(op.operands[0], op)
    info = memref_info(op.results[0].type, f"kernel @{self.kernel_name}: {op.name}")
    self.views[op.results[0]] = View(source.base, info, source.multi_dim and info.identity, source.offset)


@emits(memref.SubviewOp)
def subview(self: FunctionEmitter, op: Any) -> None:
    source = self.view(op.operands[0], op)
    static_offsets = int_list(prop(op, "static_offsets"))
    segments = int_list(prop(op, "operandSegmentSizes", "operand_segment_sizes"))
    dynamic = list(op.operands[1:1 + segments[1]]) if segments else []
    offsets: list[str] = []
    for value in static_offsets:
        offsets.append(self.expr(dynamic.pop(0)) if value < -(2**62) else str(value))
    terms = [o if s == 1 else f"{paren(o)} * {paren(str(s))}"
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


@emits(memref.DimOp)
def dim(self: FunctionEmitter, op: Any) -> None:
    info = self.view(op.operands[0], op).info
    index_value = op.operands[1]
    owner = index_value.owner
    if getattr(owner, "name", "") != "arith.constant":
        raise self.error(op, "needs a constant dimension index")
    self.exprs[op.results[0]] = str(info.shape[int(prop(owner, "value").value.data)])
