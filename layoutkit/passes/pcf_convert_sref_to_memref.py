"""``pcf-convert-sref-to-memref``: the ``!pcf.sref`` arguments of ``pcf.loop`` and
``pcf.generic`` become the memrefs they are tied to, and slice reads and writes become
vector transfers on those memrefs (IREE's pass of the same name).

A tied sref is its init's buffer: every worker writes that buffer in place, so the op's
result *is* the init (the snapshot taken after all workers return is the buffer itself;
the fence is placed by ``pcf-lower-structural``). The memory space follows the buffer: a
workgroup-scope sref tied to a function argument stays in global memory; a ``pcf.alloc`` at
subgroup or lane scope becomes ``memref.alloc`` in ``#gpu.address_space<workgroup>``.
Example::

    %r = pcf.loop scope(#iree_codegen.workgroup_scope) count(%n) execute(%ref = %dst)[%i: index]
         : (!pcf.sref<?xf32, sync(#iree_codegen.workgroup_scope)>) -> (memref<?xf32>) {
      pcf.write_slice %v into %ref[%i] [4] [1] : vector<4xf32> into !pcf.sref<...>
    }

becomes ``pcf.loop scope(...) count(%n) execute[%i: index] { vector.transfer_write %v,
%dst[%i] : vector<4xf32>, memref<?xf32> }`` and uses of ``%r`` use ``%dst``.

Supported so far: memref inits; vector values with unit strides (a vector lane past the
slice's static size is undefined in PCF; here it reads the buffer or the padding zero, and
a write of it lands only inside the buffer). Tensor inits and values (they need
bufferization first) and memref values are rejected with a LayoutError.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    VectorType,
    i1,
)
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError
from layoutkit.ir.context import at_op
from layoutkit.ir.dialects import pcf
from layoutkit.passes.linalg_structure import parse_attribute

NAME = "pcf-convert-sref-to-memref"
WORKGROUP_SPACE = "#gpu.address_space<workgroup>"


def _index_values(op, dynamic, static) -> tuple[list, list]:
    """SSA values for a slice list (constants created for static entries) and the ops made."""
    made, values, dyn = [], [], iter(dynamic)
    for entry in static.get_values():
        if entry == pcf.DYNAMIC:
            values.append(next(dyn))
        else:
            const = arith.ConstantOp(IntegerAttr(entry, IndexType()))
            made.append(const)
            values.append(const.result)
    return values, made


def _check_slice(op, value_type) -> None:
    if not isinstance(value_type, VectorType):
        raise LayoutError(at_op(op, f"{NAME}: {op.name}: only vector values are converted yet, got {value_type} "
                          "(bufferize tensors first)"))
    if any(s != 1 for s in op.static_strides.get_values()):
        raise LayoutError(at_op(op, f"{NAME}: {op.name}: strides: only unit strides are converted yet, "
                          f"got {list(op.static_strides.get_values())}"))
    if any(s == pcf.DYNAMIC for s in op.static_sizes.get_values()):
        raise LayoutError(at_op(op, f"{NAME}: {op.name}: sizes: dynamic slice sizes are not converted yet"))


def _in_bounds(rank: int):
    return ArrayAttr([BoolAttr.from_bool(False)] * rank)


def _convert_read(op: pcf.ReadSliceOp, buffer) -> None:
    rtype = op.result.type
    _check_slice(op, rtype)
    indices, made = _index_values(op, op.offsets, op.static_offsets)
    element = rtype.element_type
    pad_attr = FloatAttr(0.0, element) if hasattr(element, "bitwidth") and element.name.startswith("f") \
        else IntegerAttr(0, element)
    pad = arith.ConstantOp(pad_attr)
    rank = len(rtype.get_shape())
    read = vector.TransferReadOp(buffer, indices, pad, rtype, _in_bounds(rank),
                                 AffineMapAttr(AffineMap.identity(rank)))
    op.parent_block().insert_ops_before([*made, pad, read], op)
    op.result.replace_all_uses_with(read.results[0])
    op.parent_block().erase_op(op)


def _convert_write(op: pcf.WriteSliceOp, buffer) -> None:
    _check_slice(op, op.source.type)
    indices, made = _index_values(op, op.offsets, op.static_offsets)
    rank = len(op.source.type.get_shape())
    write = vector.TransferWriteOp(op.source, buffer, indices, _in_bounds(rank),
                                   permutation_map=AffineMapAttr(AffineMap.identity(rank)))
    op.parent_block().insert_ops_before([*made, write], op)
    op.parent_block().erase_op(op)


def _convert_uses(sref_value, buffer) -> None:
    """Rewrite every slice op on ``sref_value`` to a transfer on ``buffer``."""
    for use in list(sref_value.uses):
        user = use.operation
        if isinstance(user, pcf.ReadSliceOp):
            _convert_read(user, buffer)
        elif isinstance(user, pcf.WriteSliceOp) and use.index == 1:
            _convert_write(user, buffer)
        else:
            raise LayoutError(at_op(user, f"{NAME}: {user.name} on an sref is not converted yet"))


def _rebuild(op) -> None:
    """``op`` without its (now unused) sref arguments, inits and results."""
    block = op.region.blocks.first
    synced = op.sync_on_return.value.data or any(a.type.syncs_on_return for a in op.ref_args)
    for arg in list(op.ref_args):
        block.erase_arg(arg)
    # a sync(S) sref fences at the scope's return: the op keeps that as ``sync true``
    props = {"scope": op.scope, "is_tied": DenseArrayBase.from_list(i1, []),
             "sync_on_return": BoolAttr.from_bool(bool(synced))}
    regions = [op.region.clone()]
    if isinstance(op, pcf.LoopOp):
        operands = [list(op.count), [], []]
    else:
        operands = [[], []]
        props["num_leading_args"] = op.num_leading_args
        regions = [op.initializer.clone(), *regions]
    new = type(op).build(operands=operands, result_types=[[]], regions=regions, properties=props,
                         attributes=dict(op.attributes))
    op.parent_block().insert_op_before(new, op)
    op.parent_block().erase_op(op)


def _convert_alloc(op: pcf.AllocOp) -> None:
    sref = op.result.type
    space = None if isinstance(sref.scope, (pcf.WorkgroupScopeAttr, pcf.SequentialScopeAttr)) \
        else parse_attribute(WORKGROUP_SPACE)
    mtype = MemRefType(sref.element_type, sref.get_shape(), memory_space=space) if space is not None \
        else MemRefType(sref.element_type, sref.get_shape())
    alloc = memref.AllocOp(list(op.operands), [], mtype)
    alloc.results[0].name_hint = op.result.name_hint
    op.parent_block().insert_op_before(alloc, op)
    _convert_uses(op.result, alloc.results[0])
    op.parent_block().erase_op(op)


def convert(op) -> None:
    """Convert one ``pcf.loop``/``pcf.generic`` whose srefs are tied to memrefs."""
    if op.num_leading:
        raise LayoutError(at_op(op, f"{NAME}: {op.name}: initialize regions are not converted yet"))
    flags = op.tied_flags
    for k, (arg, init, result) in enumerate(zip(op.ref_args, op.inits, op.results)):
        if not flags[k]:
            raise LayoutError(at_op(op, f"{NAME}: {op.name}: untied sref results are not converted yet"))
        if not isinstance(init.type, MemRefType):
            raise LayoutError(at_op(op, f"{NAME}: {op.name}: init {k}: only memref inits are converted yet, got "
                              f"{init.type} (bufferize tensors first)"))
        _convert_uses(arg, init)
        result.replace_all_uses_with(init)
    _rebuild(op)


@dataclass(frozen=True)
class PcfConvertSrefToMemrefPass(ModulePass):
    """The srefs of pcf.loop/pcf.generic become their tied memrefs; slices become vector transfers."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for alloc in [o for o in op.walk() if isinstance(o, pcf.AllocOp)]:
            if alloc.parent_op() is not None and isinstance(alloc.parent_op(), pcf.GenericOp) \
                    and alloc.parent_region() is alloc.parent_op().initializer:
                raise LayoutError(at_op(alloc, f"{NAME}: pcf.alloc in an initialize region is not converted yet"))
            _convert_alloc(alloc)
        # inner ones first: rebuilding an op clones its region (and the parallel ops in it)
        for parallel in reversed([o for o in op.walk() if isinstance(o, (pcf.LoopOp, pcf.GenericOp))]):
            if parallel.results or parallel.inits:
                convert(parallel)


__all__ = ["PcfConvertSrefToMemrefPass", "convert"]
