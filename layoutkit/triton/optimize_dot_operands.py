"""``tritongpu-optimize-dot-operands``: Triton 3.9's OptimizeDotOperands, the rewrites its
golden kernels exercise::

    layoutkit opt k.ttgir --tritongpu-optimize-dot-operands

- the canonicalization the pass runs first, for a division by a constant: ``arith.divf %x,
  dense<c> : tensor<..xf32>`` becomes ``%r = tt.approx_divf 1.0, c : f32``, ``tt.splat %r``,
  ``arith.mulf %x, splat``. The scalar constants go to the front of the function's entry block
  as MLIR's constant folder puts them: ``c`` first, then ``1.0`` before it (each reused when
  the block has it already); the tensor constant goes when nothing else uses it;
- ``FuseTransMMAV3Plus``: ``local_alloc(tt.trans(x) {order = [1, 0]})`` whose one user is a
  ``ttng.warp_group_dot`` becomes ``memdesc_trans(local_alloc(x))``: ``x`` stored in its own
  order (``getOrder``; of the convert's source when ``x`` is a ``convert_layout``; for
  elements other than f16/bf16: ``[0, 1]`` for operand A, ``[1, 0]`` for B) with the
  ``#ttg.nvmma_shared`` Triton builds for it (``swizzlingByteWidth`` = the largest of 128, 64,
  32 that divides the contiguous dim's bytes, ``transposed = order[0] == 0``), and the
  transpose folded into the view (the ``transposed`` flag flips).

These are NVIDIA's pass (``passes.ttgpuir.add_optimize_dot_operands``); on ``hip:`` targets
make_ttgir runs AMD's pass of the same name instead, whose rewrites are not implemented here
(the pass leaves hip modules unchanged, as Triton does on every golden kernel).

Not implemented yet (no golden step changes by them): ``HoistLayoutConversion`` (a convert to a
dot operand moved above elementwise ops back to a load) and ``SwizzleShmemConvert``
(``cvt(trans(x))`` to a dot operand through a transposed shared view); such IR is left as is.

Worked example: ``%y = arith.divf %x, %c3`` with ``%c3 = arith.constant dense<3.0> :
tensor<64xf32, #l>`` -> ``%r = tt.approx_divf %one, %three : f32`` (``%one = 1.0``, ``%three
= 3.0`` at the top of the function), ``%s = tt.splat %r : f32 -> tensor<64xf32, #l>``,
``%y = arith.mulf %x, %s``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.ir.dialects import tt, ttg
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.layouts.triton.shared import NVMMASharedEncoding
from layoutkit.triton.coalesce import require_ttgir
from layoutkit.triton.reduce_data_duplication import register_order

_FUSED_DOTS = ("ttng.warp_group_dot", "ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled")


def _entry_block(op: Operation) -> Block:
    func = op
    while func.parent_op() is not None and func.name != "tt.func":
        func = func.parent_op()
    return func.regions[0].blocks[0]


def _scalar_constant(block: Block, value: float, rewriter: Rewriter) -> SSAValue:
    """The f32 constant ``value`` of ``block``'s front, made (and put first) when missing."""
    for op in block.ops:
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, FloatAttr) \
                and isinstance(op.value.type, Float32Type) and op.value.value.data == value:
            return op.result
    const = arith.ConstantOp(FloatAttr(value, Float32Type()))
    rewriter.insert_op(const, InsertPoint.at_start(block))
    return const.result


def _splat_f32(value: SSAValue) -> float | None:
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, DenseIntOrFPElementsAttr):
        return None
    if not isinstance(value.type, TensorType) or not isinstance(value.type.element_type, Float32Type):
        return None
    values = set(owner.value.get_values())
    return float(values.pop()) if len(values) == 1 else None


def reciprocal_divisions(module: ModuleOp) -> None:
    """``divf x, dense<c>`` (f32) -> ``mulf x, splat(approx_divf(1.0, c))`` (module doc)."""
    rewriter = Rewriter()
    for div in [o for o in module.walk() if isinstance(o, arith.DivfOp)]:
        c = _splat_f32(div.rhs)
        if c is None:
            continue
        block, old = _entry_block(div), div.rhs.owner
        three = _scalar_constant(block, c, rewriter)
        one = _scalar_constant(block, 1.0, rewriter)
        recip = tt.ApproxDivFOp.build(operands=[one, three], result_types=[Float32Type()])
        splat = tt.SplatOp.build(operands=[recip.results[0]], result_types=[div.rhs.type])
        mul = arith.MulfOp(div.lhs, splat.results[0], flags=div.fastmath)
        for new in (recip, splat, mul):
            new.location = div.location
        rewriter.insert_op([recip, splat, mul], InsertPoint.before(div))
        div.result.replace_all_uses_with(mul.result)
        div.detach()
        div.erase()
        if not old.result.uses:
            old.detach()
            old.erase()


def nvmma_shared(shape: tuple[int, ...], order: tuple[int, ...], bits: int) -> NVMMASharedEncoding:
    """Triton's ``NVMMASharedEncodingAttr::get(shape, order, eltTy)`` (no fp4 padding)."""
    contig = shape[order[0]] * bits // 8
    width = next((w for w in (128, 64, 32) if contig >= w and contig % w == 0), 0)
    return NVMMASharedEncoding(swizzling_byte_width=width, transposed=order[0] == 0, element_bit_width=bits)


def fuse_trans_mma_v3(module: ModuleOp) -> None:
    """``local_alloc(trans(x))`` feeding a wgmma -> ``memdesc_trans(local_alloc(x))``."""
    from layoutkit.triton.accelerate_matmul import _bits

    rewriter = Rewriter()
    for alloc in [o for o in module.walk() if isinstance(o, ttg.LocalAllocOp)]:
        if not alloc.operands or alloc.result.uses.get_length() != 1:
            continue
        dot = next(iter(alloc.result.uses)).operation
        trans = alloc.operands[0].owner
        if dot.name not in _FUSED_DOTS or not isinstance(trans, tt.TransOp):
            continue
        if _order_of(trans) != (1, 0):
            continue
        x = trans.operands[0]
        source = x.owner.operands[0] if isinstance(x.owner, ttg.ConvertLayoutOp) else x
        shape = tuple(x.type.get_shape())
        order = register_order(source.type.encoding.layout, shape)
        element = alloc.result.type.element_type
        if str(element) not in ("f16", "bf16"):
            order = (0, 1) if dot.operands[0] is alloc.result else (1, 0) if dot.operands[1] is alloc.result else order
        inner = nvmma_shared(shape, order, _bits(element))
        space = alloc.result.type.memory_space
        new_alloc = ttg.LocalAllocOp.build(operands=[[x]], result_types=[
            ttg.MemDescType(shape, element, LayoutAttr.of(inner), space)])
        outer = NVMMASharedEncoding(swizzling_byte_width=inner.swizzling_byte_width, transposed=not inner.transposed,
                                    element_bit_width=inner.element_bit_width)
        view = ttg.MemDescTransOp.build(operands=[new_alloc.results[0]], properties={"order": trans.properties["order"]},
                                        result_types=[ttg.MemDescType(tuple(alloc.result.type.get_shape()), element,
                                                                      LayoutAttr.of(outer), space)])
        new_alloc.location, view.location = alloc.location, alloc.location
        rewriter.insert_op([new_alloc, view], InsertPoint.before(alloc))
        alloc.result.replace_all_uses_with(view.results[0])
        alloc.detach()
        alloc.erase()
        if not trans.results[0].uses:
            trans.detach()
            trans.erase()


def _order_of(trans: Operation) -> tuple[int, ...]:
    attr = trans.properties.get("order")
    return tuple(int(v) for v in attr.get_values()) if hasattr(attr, "get_values") else ()


@dataclass(frozen=True)
class TritonGPUOptimizeDotOperandsPass(ModulePass):
    """Triton 3.9's ``tritongpu-optimize-dot-operands`` (the rewrites of the module doc)."""

    name = "tritongpu-optimize-dot-operands"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_ttgir(op, self.name)
        target = op.attributes.get("ttg.target")
        if isinstance(target, StringAttr) and target.data.startswith("hip:"):
            return  # AMD's own pass of this name: none of its rewrites is implemented here
        reciprocal_divisions(op)
        fuse_trans_mma_v3(op)


__all__ = ["TritonGPUOptimizeDotOperandsPass", "fuse_trans_mma_v3", "nvmma_shared", "reciprocal_divisions"]
