"""CUDA emitters of ``memref``: loads and stores through a :class:`View`, allocations as
``__shared__`` or local arrays, views (cast, subview) as pointers."""

from __future__ import annotations

from typing import Any

from xdsl.dialects import memref

from layoutkit.backends.cuda.c_text import int_list, paren, prop
from layoutkit.backends.cuda.emit import FunctionEmitter
from layoutkit.backends.cuda.memrefs import MemrefInfo, View, memref_info
from layoutkit.backends.cuda.registry import emits
from layoutkit.backends.types import value_type
from layoutkit.errors import quote
from layoutkit.ir.dialects.upstream.memref import AtomicRMWOp


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
    if info.space != "workgroup" and info.space != "private" and op.name != "memref.alloca":
        raise self.error(op, f"global-memory allocation inside a kernel is not supported: {quote(result.type)}")
    self.declare_array(result, info, shared=info.space == "workgroup")


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


# memref.atomic_rmw kinds CUDA has an atomic function for, on the unsigned bits of the type
_ON_BITS = {"addi": "atomicAdd", "andi": "atomicAnd", "ori": "atomicOr", "xori": "atomicXor",
            "maxu": "atomicMax", "minu": "atomicMin", "assign": "atomicExch"}
# the others combine in a compare-and-swap loop, with gpu.subgroup_reduce's combining text
_CAS_COMBINE = {"mulf": "mul", "muli": "mul", "maxnumf": "maxnumf", "minnumf": "minnumf",
                "maximumf": "maximumf", "minimumf": "minimumf", "addf": "add", "maxs": "maxsi",
                "mins": "minsi"}


@emits(AtomicRMWOp)
def atomic_rmw(self: FunctionEmitter, op: Any) -> None:
    """``atomicAdd`` / ``atomicMax`` / ... where CUDA has the operation for the type, else a
    compare-and-swap loop on the element's bits::

        unsigned seen = *(unsigned*)&x[i], expected;
        do { expected = seen; seen = atomicCAS((unsigned*)&x[i], expected,
                 bit_cast<unsigned>(bit_cast<float>(expected) * v)); } while (seen != expected);
        const float old = bit_cast<float>(seen);
    """
    from layoutkit.backends.cuda.ops.gpu import combine

    kind = op.kind_name
    t = value_type(op.value.type)
    if t.bits not in (32, 64) and t.kind != "index":
        raise self.error(op, f"atomics on {t.bits}-bit elements are not supported by the CUDA backend")
    view = self.view(op.memref, op)
    address = f"&{view.element([self.expr(v) for v in op.indices])}"
    value = self.expr(op.value)
    bits = t.unsigned_c
    if kind in _ON_BITS:
        call = f"{_ON_BITS[kind]}(({bits}*){address}, bit_cast<{bits}>({value}))"
        self.define(op.result, f"bit_cast<{t.c}>({call})")
        return
    if kind in ("addf", "maxs", "mins"):
        function = {"addf": "atomicAdd", "maxs": "atomicMax", "mins": "atomicMin"}[kind]
        self.define(op.result, f"{function}({address}, {value})")
        return
    name = self.name_of(op.result)
    seen, expected = self.fresh(f"{name}_seen"), self.fresh(f"{name}_expected")
    self.emit(f"{bits} {seen} = *({bits}*){address}, {expected};")
    new = combine(_CAS_COMBINE[kind], f"bit_cast<{t.c}>({expected})", value, t)
    self.emit(f"do {{ {expected} = {seen}; {seen} = atomicCAS(({bits}*){address}, {expected}, "
              f"bit_cast<{bits}>({new})); }} while ({seen} != {expected});")
    self.emit(f"const {t.c} {name} = bit_cast<{t.c}>({seen});")
    self.exprs[op.result] = name
