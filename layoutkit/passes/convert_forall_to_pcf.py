"""``convert-forall-to-pcf``: an ``scf.forall`` mapped to workgroups (``#gpu.block<...>`` or
IREE's ``#iree_codegen.workgroup_mapping<...>``) on buffers becomes a ``pcf.loop`` at
``#iree_codegen.workgroup_scope<linearize>`` (IREE's ``iree-codegen-convert-workgroup-forall-to-pcf``).

Each loop dim becomes one id counted by the dim's trip count ``ceil((ub - lb) / step)``, and
the induction variable is ``lb + id * step``. Example::

    scf.forall (%i) = (2) to (%n) step (4) { ... }  {mapping = [#gpu.block<x>]}

becomes ``pcf.loop scope(#iree_codegen.workgroup_scope<linearize>) count(%t) execute[%id: index]
{ %i = 2 + %id * 4; ... }`` with ``%t = max((%n - 2 + 3) / 4, 0)``. IREE linearizes the ids into one
count; several ids are kept here (``pcf-lower-structural`` linearizes them, every id from 0).
Foralls with ``shared_outs`` (tensors) are left for after bufferization: a LayoutError.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, IndexType, IntegerAttr, ModuleOp, i1
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError
from layoutkit.ir.context import at_op
from layoutkit.ir.dialects import pcf
from layoutkit.ir.dialects.upstream.scf import ForallOp, InParallelOp
from layoutkit.passes.linalg_structure import mapping_kind

NAME = "convert-forall-to-pcf"
WORKGROUP_KINDS = ("block", "#iree_codegen.workgroup_mapping")


def _index(ops: list, value):
    """An SSA value for ``value`` (an int makes a constant)."""
    if isinstance(value, int):
        op = arith.ConstantOp(IntegerAttr(value, IndexType()))
        ops.append(op)
        return op.result
    return value


def convert(forall: ForallOp) -> list:
    """The ops replacing ``forall``: its trip counts and the ``pcf.loop``."""
    if forall.outputs:
        raise LayoutError(at_op(forall, f"{NAME}: an scf.forall with shared_outs (tensors) is not converted yet; bufferize first"))
    lbs, ubs, steps = forall.bounds(lambda v: v)
    ops: list = []
    counts = []
    for lb, ub, step in zip(lbs, ubs, steps):
        if all(isinstance(v, int) for v in (lb, ub, step)):
            counts.append(_index(ops, max(0, -(-(ub - lb) // step))))
            continue
        extent = arith.SubiOp(_index(ops, ub), _index(ops, lb))
        rounded = arith.AddiOp(extent.result, _index(ops, step - 1) if isinstance(step, int) else
                               _sub_one(ops, step))
        ops += [extent, rounded]
        trips = arith.DivSIOp(rounded.result, _index(ops, step))
        ops.append(trips)
        clamped = arith.MaxSIOp(trips.result, _index(ops, 0))  # an empty dim (ub < lb) counts 0
        ops.append(clamped)
        counts.append(clamped.result)
    body = Block(arg_types=[IndexType()] * forall.rank)
    for iv, block_id, lb, step in zip(forall.induction_vars, body.args, lbs, steps):
        block_id.name_hint = f"id_{iv.name_hint}" if iv.name_hint else None
        value = block_id
        if step != 1:
            scaled = arith.MuliOp(value, _index(prefix := [], step))
            body.add_ops([*prefix, scaled])
            value = scaled.result
        if lb != 0:
            shifted = arith.AddiOp(value, _index(prefix := [], lb))
            body.add_ops([*prefix, shifted])
            value = shifted.result
        if value is not block_id:
            value.name_hint = iv.name_hint
        iv.replace_all_uses_with(value)
    for op in list(forall.body.block.ops):
        op.detach()
        if not isinstance(op, InParallelOp):
            body.add_op(op)
    body.add_op(pcf.ReturnOp())
    loop = pcf.LoopOp.build(operands=[counts, [], []], result_types=[[]], regions=[Region(body)],
                            properties={"scope": pcf.WorkgroupScopeAttr(True),
                                        "is_tied": DenseArrayBase.from_list(i1, []),
                                        "sync_on_return": BoolAttr.from_bool(False)})
    return [*ops, loop]


def _sub_one(ops: list, step):
    one = _index(ops, 1)
    op = arith.SubiOp(step, one)
    ops.append(op)
    return op.result


@dataclass(frozen=True)
class ConvertForallToPcfPass(ModulePass):
    """scf.forall mapped to workgroups (on buffers) to pcf.loop at workgroup scope."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for forall in [o for o in op.walk() if isinstance(o, ForallOp)]:
            if mapping_kind(forall.mapping) in WORKGROUP_KINDS:
                block = forall.parent_block()
                block.insert_ops_before(convert(forall), forall)
                block.erase_op(forall)


__all__ = ["ConvertForallToPcfPass", "convert"]
