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
from layoutkit.backends.types import Scalar, VectorT, value_type
from layoutkit.errors import quote
from layoutkit.ir.dialects.upstream import vector as vops

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


def _element_loop(self: FunctionEmitter, shape: tuple[int, ...], statement) -> None:
    """Unrolled loops over every index of ``shape``; ``statement(names)`` is the body line.
    Example: shape (2, 3) -> ``for (int i0 ...) for (int i1 ...) body(["i0", "i1"])``."""
    names = [self.fresh(f"i{k}") for k in range(len(shape))]
    for name, n in zip(names, shape):
        self.emit("#pragma unroll")
        self.emit(f"for (int {name} = 0; {name} < {n}; ++{name}) {{")
        self.depth += 1
    self.emit(statement(names))
    for _ in shape:
        self.depth -= 1
        self.emit("}")


def _offset(index: str, offset: int) -> str:
    return index if offset == 0 else f"{index} + {offset}"


def _start(self: FunctionEmitter, result: Any, init: str | None = None) -> str:
    """Declare the (mutable) C variable of ``result``, from ``init`` if given; return its name."""
    name = self.name_of(result)
    self.emit(f"{value_type(result.type).c} {name}{'' if init is None else ' = ' + init};")
    self.exprs[result] = name
    return name


def _element(name: str, indices: list[str], shape: tuple[int, ...]) -> str:
    """Element ``indices`` of a C value of vector ``shape`` (the value itself for a scalar)."""
    return f"{name}[{_flat_start(indices, shape)}]" if shape else name


def _convert(expr: str, source: Scalar, target: Scalar) -> str:
    """``expr`` of type ``source`` as a ``target`` value (a contraction's lhs / rhs into acc's type)."""
    if source == target:
        return expr
    if source.is_16bit_float:
        expr = f"{'f16' if source.bits == 16 else 'bf16'}_to_float({expr})"
    if target.is_16bit_float:
        return f"float_to_{'f16' if target.bits == 16 else 'bf16'}({expr})"
    return f"({target.c})({expr})"


@emits(vops.BroadcastOp)
def broadcast(self: FunctionEmitter, op: Any) -> None:
    """A scalar or size-1 vector splats; otherwise each result element reads the source at
    its trailing indices, 0 along the source's size-1 dims."""
    rtype = value_type(op.results[0].type)
    stype = value_type(op.operands[0].type)
    source = self.expr(op.operands[0])
    if not isinstance(stype, VectorT) or stype.count == 1:
        first = f"{source}[0]" if isinstance(stype, VectorT) else source
        self.define(op.results[0], f"{rtype.c}::splat({first})")
        return
    name = _start(self, op.results[0])
    lead = len(rtype.shape) - len(stype.shape)
    _element_loop(self, rtype.shape, lambda i: f"{name}[{_flat_start(i, rtype.shape)}] = " + _element(
        source, [j if n != 1 else "0" for j, n in zip(i[lead:], stype.shape)], stype.shape) + ";")


@emits(vops.ContractionOp)
def contract(self: FunctionEmitter, op: Any) -> None:
    """``acc`` combined (by kind) with each product over the iteration space, in order."""
    kind = vops.kind_name(op.kind)
    shape = op.iteration_shape
    acc_type = value_type(op.acc.type)
    element = acc_type.element if isinstance(acc_type, VectorT) else acc_type
    name = _start(self, op.result, self.expr(op.acc))
    lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
    lt, rt = value_type(op.lhs.type), value_type(op.rhs.type)
    lhs_dims, rhs_dims, acc_dims = op.operand_dims

    def statement(i: list[str]) -> str:
        a = _convert(_element(lhs, [i[d] for d in lhs_dims], lt.shape), lt.element, element)
        b = _convert(_element(rhs, [i[d] for d in rhs_dims], rt.shape), rt.element, element)
        target = _element(name, [i[d] for d in acc_dims], tuple(shape[d] for d in acc_dims))
        return f"{target} = {combine(kind, target, paren(combine('mul', a, b, element)), element)};"

    _element_loop(self, shape, statement)


@emits(vops.MultiDimReductionOp)
def multi_reduction(self: FunctionEmitter, op: Any) -> None:
    kind = vops.kind_name(op.kind)
    stype = value_type(op.source.type)
    name = _start(self, op.dest, self.expr(op.acc))
    source = self.expr(op.source)
    kept = [d for d in range(len(stype.shape)) if d not in op.dims]
    kept_shape = tuple(stype.shape[d] for d in kept)

    def statement(i: list[str]) -> str:
        target = _element(name, [i[d] for d in kept], kept_shape)
        value = f"{source}[{_flat_start(i, stype.shape)}]"
        return f"{target} = {combine(kind, target, value, stype.element)};"

    _element_loop(self, stype.shape, statement)


@emits(vops.TransposeOp)
def transpose(self: FunctionEmitter, op: Any) -> None:
    rshape, sshape = value_type(op.result.type).shape, value_type(op.vector.type).shape
    source, perm = self.expr(op.vector), op.perm
    name = _start(self, op.result)

    def statement(i: list[str]) -> str:
        at = [""] * len(perm)
        for k, p in enumerate(perm):
            at[p] = i[k]
        return f"{name}[{_flat_start(i, rshape)}] = {source}[{_flat_start(at, sshape)}];"

    _element_loop(self, rshape, statement)


@emits(vops.ShapeCastOp)
def shape_cast(self: FunctionEmitter, op: Any) -> None:
    """The same ``Vec<T, N>`` (elements in row-major order either way)."""
    self.define(op.result, self.expr(op.source))


@emits(vops.ExtractStridedSliceOp)
def extract_strided_slice(self: FunctionEmitter, op: Any) -> None:
    offsets, _, _ = op.slice()
    rshape, sshape = value_type(op.result.type).shape, value_type(op.vector.type).shape
    source = self.expr(op.vector)
    name = _start(self, op.result)
    _element_loop(self, rshape, lambda i: f"{name}[{_flat_start(i, rshape)}] = {source}["
                  f"{_flat_start([_offset(j, o) for j, o in zip(i, offsets)], sshape)}];")


@emits(vops.InsertStridedSliceOp)
def insert_strided_slice(self: FunctionEmitter, op: Any) -> None:
    sshape, dshape = value_type(op.source.type).shape, value_type(op.dest.type).shape
    offsets = op.offset_values
    lead = len(dshape) - len(sshape)
    source = self.expr(op.source)
    name = _start(self, op.result, self.expr(op.dest))
    _element_loop(self, sshape, lambda i: f"{name}[" + _flat_start(
        [str(o) for o in offsets[:lead]] + [_offset(j, o) for j, o in zip(i, offsets[lead:])], dshape)
        + f"] = {source}[{_flat_start(i, sshape)}];")


@emits(vops.StepOp)
def step(self: FunctionEmitter, op: Any) -> None:
    name = _start(self, op.result)
    _element_loop(self, value_type(op.result.type).shape, lambda i: f"{name}[{i[0]}] = {i[0]};")


def _mask(self: FunctionEmitter, result: Any, sizes: list[str]) -> None:
    """``result[i0, i1, ...] = i0 < sizes[0] && i1 < sizes[1] && ...``."""
    shape = value_type(result.type).shape
    name = _start(self, result)
    _element_loop(self, shape, lambda i: f"{name}[{_flat_start(i, shape)}] = "
                  + " && ".join(f"{j} < {paren(n)}" for j, n in zip(i, sizes)) + ";")


@emits(vops.ConstantMaskOp)
def constant_mask(self: FunctionEmitter, op: Any) -> None:
    _mask(self, op.result, [str(n) for n in op.sizes])


@emits(vector.CreateMaskOp)
def create_mask(self: FunctionEmitter, op: Any) -> None:
    _mask(self, op.mask_vector, [self.expr(v) for v in op.mask_dim_sizes])


@emits(vops.GatherOp)
def gather(self: FunctionEmitter, op: Any) -> None:
    """Masked-on elements read ``base[o0, ..., ok + indices[i]]``, the others ``pass_thru[i]``."""
    view = self.view(op.base, op)
    shape = value_type(op.result.type).shape
    offsets = [self.expr(v) for v in op.offsets]
    indices, mask, pass_thru = self.expr(op.indices), self.expr(op.mask), self.expr(op.pass_thru)
    name = _start(self, op.result)

    def statement(i: list[str]) -> str:
        at = _flat_start(i, shape)
        inner = f"(int){indices}[{at}]" if offsets[-1] == "0" else f"{paren(offsets[-1])} + (int){indices}[{at}]"
        return f"{name}[{at}] = {mask}[{at}] ? {view.element(offsets[:-1] + [inner])} : {pass_thru}[{at}];"

    _element_loop(self, shape, statement)


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


def _transfer_access(self: FunctionEmitter, op: Any, vtype: VectorT):
    """``(element(names), inside(names))`` of a transfer with a minor identity map and no mask:
    vector dim k walks memref dim ``rank - vrank + k`` from the op's index; ``inside`` is the
    C condition that the element is inside the memref along the dims not marked in bounds
    (``"1"`` when all are). Example: ``memref<?x?xf32>``, indices (r, c), ``vector<1x4xf32>``,
    in_bounds [false, false]: element (i0, i1) is ``m[r + i0][c + i1]``, inside when
    ``r + i0 < rows && c + i1 < cols``."""
    from xdsl.ir.affine import AffineDimExpr

    view = self.view(op.source, op)
    indices = [self.expr(v) for v in op.indices]
    rank, vrank = len(indices), len(vtype.shape)
    results = op.permutation_map.data.results
    minor = [r.position if isinstance(r, AffineDimExpr) else None for r in results] == list(range(rank - vrank, rank))
    if not minor or op.mask is not None:
        raise self.error(op, "only transfers with a minor identity permutation map and no mask are emitted")
    in_bounds = [bool(v.value.data) for v in op.in_bounds.data]

    def coords(names: list[str]) -> list[str]:
        return indices[:rank - vrank] + [f"{paren(i)} + {n}" for i, n in zip(indices[rank - vrank:], names)]

    def inside(names: list[str]) -> str:
        checks = [f"{c} < {paren(str(view.info.shape[rank - vrank + k]))}"
                  for k, c in enumerate(coords(names)[rank - vrank:]) if not in_bounds[k]]
        return " && ".join(checks) or "1"

    return (lambda names: view.element(coords(names))), inside


@emits(vector.TransferReadOp)
def transfer_read(self: FunctionEmitter, op: Any) -> None:
    vtype = value_type(op.result.type)
    element, inside = _transfer_access(self, op, vtype)
    pad = self.expr(op.padding)
    name = _start(self, op.result)
    _element_loop(self, vtype.shape, lambda names: f"{_element(name, names, vtype.shape)} = "
                  f"({inside(names)}) ? {element(names)} : {pad};")


@emits(vector.TransferWriteOp)
def transfer_write(self: FunctionEmitter, op: Any) -> None:
    vtype = value_type(op.vector.type)
    element, inside = _transfer_access(self, op, vtype)
    value = self.expr(op.vector)
    _element_loop(self, vtype.shape, lambda names: f"if ({inside(names)}) {element(names)} = "
                  f"{_element(value, names, vtype.shape)};")
