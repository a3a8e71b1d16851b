"""``bufferize``: tensors to memrefs with no temporaries -- a function's results become the
buffers its ops write in place.

Each structured linalg op on tensors writes its result into its ``outs`` tensor; following
that chain back from each returned tensor reaches the ``tensor.empty`` that becomes the
result's buffer (one ``memref.alloc``). Every other tensor is a function argument, read
only. Example (seed 001's matmul)::

    %e = tensor.empty() : tensor<32x16xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
    %c = linalg.matmul ins(%a, %b : ...) outs(%f : tensor<32x16xf32>) -> tensor<32x16xf32>
    return %c : tensor<32x16xf32>

becomes ``%c = memref.alloc()``, ``linalg.fill ins(%zero) outs(%c)``,
``linalg.matmul ins(%a, %b) outs(%c)``, ``return %c``: ``linalg.fill`` initialises the
reduction in the result buffer. A program that would need another buffer (a tensor.empty
that is not returned, an input written, a tensor read after it was overwritten) is a
LayoutError saying so.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Operation, Region
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError
from layoutkit.passes.linalg_structure import is_structured, static_shape, strided_layout


def _memref_type(type_):
    if isinstance(type_, TensorType):
        return MemRefType(type_.element_type, type_.get_shape())
    return type_


def _clone_region(region: Region, mapping: dict) -> Region:
    """A copy of ``region`` whose uses of outer values (a body's constant) follow ``mapping``."""
    copy = Region()
    region.clone_into(copy, value_mapper=dict(mapping))
    return copy


def _root(value):
    """The tensor a value's buffer starts as: follow linalg results back to their outs
    (and a tensor.insert_slice back to the tensor it inserts into)."""
    while hasattr(value, "owner"):
        op = value.owner
        if is_structured(op):
            value = op.outputs[list(op.results).index(value)]
        elif isinstance(op, tensor.InsertSliceOp):
            value = op.dest
        else:
            break
    return value


def _slice_view(op, buffer, name: str):
    """The ``memref.subview`` of ``buffer`` that tensor slice ``op`` (extract_slice or
    insert_slice, static offsets, sizes and strides) names, its type as MLIR infers it.
    Example: ``[2, 4] [10, 15] [1, 2]`` of ``memref<16x24xf32>`` is
    ``memref<10x15xf32, strided<[24, 2], offset: 52>>``."""
    offsets = op.static_offsets.get_values()
    sizes = op.static_sizes.get_values()
    steps = op.static_strides.get_values()
    small = op.result.type if isinstance(op, tensor.ExtractSliceOp) else op.source.type
    if DYNAMIC_INDEX in (*offsets, *sizes, *steps):
        raise LayoutError(f"bufferize: {op.name} with dynamic offsets, sizes or strides in @{name} "
                          "is not supported yet")
    if len(small.get_shape()) != len(sizes):
        raise LayoutError(f"bufferize: a rank-reducing {op.name} in @{name} is not supported yet")
    return _subview(buffer, offsets, sizes, steps)


def _subview(buffer, offsets, sizes, steps):
    """The static ``memref.subview`` of ``buffer``, its strided type as MLIR infers it."""
    strides, base = strided_layout(buffer.type)
    offset = NoneAttr() if base is None else base + sum(o * s for o, s in zip(offsets, strides))
    type_ = MemRefType(buffer.type.element_type, sizes,
                       StridedLayoutAttr([s * t for s, t in zip(strides, steps)], offset))
    return memref.SubviewOp(buffer, [], [], [], DenseArrayBase.from_list(i64, offsets),
                            DenseArrayBase.from_list(i64, sizes), DenseArrayBase.from_list(i64, steps), type_)


def _pad(op: tensor.PadOp, source, mapping: dict, name: str) -> list:
    """The ops that bufferize ``tensor.pad``: an explicit buffer of the padded shape filled
    with the padding value, and the source copied (an identity ``linalg.generic``) into its
    interior subview. Example: ``low[0, 1, 1, 0] high[0, 1, 1, 0]`` of ``tensor<1x8x8x4xf32>``
    is ``memref.alloc() : memref<1x10x10x4xf32>``, ``linalg.fill``, and a copy into
    ``[0, 1, 1, 0] [1, 8, 8, 4] [1, 1, 1, 1]`` (``strided<[400, 40, 4, 1], offset: 44>``)."""
    low, high = op.static_low.get_values(), op.static_high.get_values()
    if op.low or op.high or DYNAMIC_INDEX in (*low, *high):
        raise LayoutError(f"bufferize: tensor.pad with dynamic low or high padding in @{name} "
                          "is not supported yet")
    body = op.region.block
    value = body.last_op.operands[0] if body.last_op and body.last_op.operands else None
    if (len(body.ops) != 1 or value is None or value.owner is body
            or (isinstance(value.owner, Operation) and value.owner.parent_block() is body)):
        raise LayoutError(f"bufferize: tensor.pad in @{name} must yield one value defined outside its "
                          "body (a constant padding value)")
    result = op.result.type
    static_shape(op.result, "bufferize: tensor.pad")
    alloc = memref.AllocOp.get(result.element_type, shape=result.get_shape())
    alloc.memref.name_hint = op.result.name_hint
    fill = linalg.FillOp([mapping.get(value, value)], [alloc.memref], res=[])
    shape = op.source.type.get_shape()
    view = _subview(alloc.memref, low, shape, [1] * len(shape))
    copy_body = Block(arg_types=[result.element_type, result.element_type])
    copy_body.add_op(linalg.YieldOp(copy_body.args[0]))
    identity = AffineMapAttr(AffineMap.identity(len(shape)))
    copy = linalg.GenericOp([source], [view.result], Region(copy_body), [identity, identity],
                            ArrayAttr([IteratorTypeAttr.parallel()] * len(shape)))
    return [alloc, fill, view, copy]


def _inserted_into(block) -> dict:
    """``tensor.empty`` result -> the tensor.insert_slice that puts what is computed in it
    into a bigger tensor: that empty tensor becomes a subview of the bigger buffer."""
    found = {}
    for op in block.ops:
        if isinstance(op, tensor.InsertSliceOp):
            root = _root(op.source)
            if isinstance(root.owner, tensor.EmptyOp):
                found[root] = op
    return found


def _bufferize(function: func.FuncOp) -> func.FuncOp:
    name = function.sym_name.data
    block = function.body.blocks[0]
    returned = block.last_op
    roots = set()
    for value in returned.operands:
        if isinstance(value.type, TensorType):
            root = _root(value)
            if not isinstance(root.owner, tensor.EmptyOp):
                raise LayoutError(f"bufferize: @{name} returns a tensor whose buffer is a function argument "
                                  f"({root.name_hint or 'argument'}); results must start as tensor.empty")
            roots.add(root)
    for arg in block.args:
        static_shape(arg, f"bufferize: @{name} argument")
    new_block = Block(arg_types=[_memref_type(a.type) for a in block.args])
    mapping = dict(zip(block.args, new_block.args))
    for old, new in mapping.items():
        new.name_hint = old.name_hint
    inserted = _inserted_into(block)
    order = {op: i for i, op in enumerate(block.ops)}
    for op in block.ops:
        if isinstance(op, tensor.EmptyOp) and op.tensor in inserted:
            insert = inserted[op.tensor]
            dest = insert.dest
            if _root(dest) not in mapping:
                raise LayoutError(f"bufferize: tensor.insert_slice in @{name} inserts into a tensor defined "
                                  f"after %{op.tensor.name_hint or 'tensor'}; define it first")
            writer = dest.owner if hasattr(dest, "owner") else None
            first_use = min(order[u.operation] for u in op.tensor.uses)
            if writer is not None and order.get(writer, -1) > first_use:
                raise LayoutError(f"bufferize: tensor.insert_slice in @{name} would overwrite the slice it "
                                  "inserts (its destination is written after the slice is computed); "
                                  "that needs a temporary")
            view = _slice_view(insert, mapping[_root(dest)], name)
            new_block.add_op(view)
            mapping[op.tensor] = view.result
        elif isinstance(op, tensor.InsertSliceOp):
            if inserted.get(_root(op.source)) is not op:
                raise LayoutError(f"bufferize: tensor.insert_slice in @{name} inserts a tensor that is not "
                                  "computed in place (it does not start as tensor.empty); that needs a copy")
            mapping[op.result] = mapping[op.dest]
        elif isinstance(op, tensor.ExtractSliceOp):
            view = _slice_view(op, mapping.get(op.source, op.source), name)
            new_block.add_op(view)
            mapping[op.result] = view.result
        elif isinstance(op, tensor.PadOp):
            ops = _pad(op, mapping.get(op.source, op.source), mapping, name)
            new_block.add_ops(ops)
            mapping[op.result] = ops[0].memref
        elif isinstance(op, tensor.EmptyOp):
            if op.tensor not in roots:
                raise LayoutError(f"bufferize: %{op.tensor.name_hint or 'tensor'} = tensor.empty in @{name} "
                                  "needs a temporary buffer (it is not a function result); "
                                  "fuse its producer into its consumer first (linalg-fuse-elementwise)")
            static_shape(op.tensor, "bufferize: tensor.empty")
            alloc = memref.AllocOp.get(op.tensor.type.element_type, shape=op.tensor.type.get_shape())
            alloc.memref.name_hint = op.tensor.name_hint
            new_block.add_op(alloc)
            mapping[op.tensor] = alloc.memref
        elif is_structured(op):
            for out in op.outputs:
                if isinstance(out.type, TensorType):
                    if not out.has_one_use():
                        raise LayoutError(f"bufferize: {op.name} in @{name} writes %{out.name_hint or 'tensor'} "
                                          "in place but it is read again; that needs a copy (a temporary)")
                    if not isinstance(_root(out).owner, tensor.EmptyOp):
                        raise LayoutError(f"bufferize: {op.name} in @{name} writes into a function argument; "
                                          "start its output from tensor.empty")
            new = type(op).create(operands=[mapping.get(v, v) for v in op.operands], result_types=[],
                                  properties=dict(op.properties), attributes=dict(op.attributes),
                                  regions=[_clone_region(r, mapping) for r in op.regions])
            new_block.add_op(new)
            for result, out in zip(op.results, op.outputs):
                mapping[result] = mapping[out]
        elif isinstance(op, func.ReturnOp):
            new_block.add_op(func.ReturnOp(*[mapping.get(v, v) for v in op.operands]))
        else:
            if any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
                raise LayoutError(f"bufferize: {op.name} on tensors is not supported yet (in @{name})")
            new_block.add_op(op.clone(value_mapper=mapping))
    types = ([_memref_type(t) for t in function.function_type.inputs],
             [_memref_type(t) for t in function.function_type.outputs])
    return func.FuncOp(name, types, Region(new_block), function.sym_visibility)


@dataclass(frozen=True)
class BufferizePass(ModulePass):
    """Tensors to memrefs in place: function results become the buffers their ops write."""

    name = "bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in list(op.body.block.ops):
            if isinstance(function, func.FuncOp) and function.body.blocks:
                new = _bufferize(function)
                op.body.block.insert_op_before(new, function)
                op.body.block.erase_op(function)
