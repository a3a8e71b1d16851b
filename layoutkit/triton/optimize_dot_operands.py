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

- ``HoistLayoutConversion`` (to a fixpoint): ``convert(elementwise(x..)) -> #dot_op`` becomes
  ``elementwise(convert(x) -> #dot_op, ..)`` when the elementwise op and every op met walking
  the convert's backward slice nearest-first (MLIR's ``getBackwardSlice``, block arguments
  omitted) up to the first ``tt.load`` or ``arith.constant`` can carry the dot encoding:
  ``tt.fp_to_fp``, ``tt.bitcast`` or an arith op, except ``truncf``/``trunci``/``select``,
  ``extf`` when ``kWidth = 1``, and ``uitofp`` from i1; the op has tensor operands and one
  result. (Written from Triton's source; no golden step exercises it.)

Not implemented yet: ``SwizzleShmemConvert`` (``cvt(trans(x))`` to a dot operand through a
transposed shared view; no golden step uses it); such IR is left as is.

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

from layoutkit.errors import LayoutError
from layoutkit.ir.dialects import tt, ttg
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.layouts.triton import DotOperandEncoding
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


def _can_hoist(op: Operation, dot) -> bool:
    """Triton's ``canHoistDotOpEncV2``."""
    name = op.name
    if name not in ("tt.fp_to_fp", "tt.bitcast") and not name.startswith("arith."):
        return False
    if name == "arith.extf" and dot.k_width == 1:
        return False
    if name in ("arith.trunci", "arith.truncf", "arith.select"):
        return False
    if name == "arith.uitofp":
        t = op.operands[0].type
        return str(getattr(t, "element_type", t)) != "i1"
    return True


def _backward_slice(root: Operation) -> list[Operation]:
    """MLIR's ``getBackwardSlice`` (block arguments omitted): defining ops, defs before uses."""
    order: list[Operation] = []
    seen: set[Operation] = set()
    stack: list[tuple[Operation, bool]] = [(root, False)]
    while stack:
        op, done = stack.pop()
        if done:
            if op is not root:
                order.append(op)
            continue
        if op in seen:
            continue
        seen.add(op)
        stack.append((op, True))
        for v in reversed(op.operands):
            if isinstance(v.owner, Operation) and v.owner not in seen:
                stack.append((v.owner, False))
    return order


def _hoist_once(cvt: Operation, rewriter: Rewriter) -> list[Operation]:
    """One ``HoistLayoutConversion`` step on ``cvt``; the new converts (empty: no change)."""
    ty = cvt.results[0].type
    dot = getattr(ty.encoding, "layout", None)
    src = cvt.operands[0].owner
    if not isinstance(dot, DotOperandEncoding) or not isinstance(src, Operation):
        return []
    if not src.operands or len(src.results) != 1 or not isinstance(src.results[0].type, TensorType):
        return []
    if not all(isinstance(v.type, TensorType) for v in src.operands) or not _can_hoist(src, dot):
        return []
    for op in reversed(_backward_slice(cvt)):
        if op.name in ("tt.load", "arith.constant"):
            break
        if not _can_hoist(op, dot):
            return []
    else:
        return []
    news = []
    for v in src.operands:
        new = ttg.ConvertLayoutOp.build(operands=[v], result_types=[
            TensorType(v.type.element_type, ty.get_shape(), ty.encoding)])
        new.location = cvt.location
        news.append(new)
    clone = type(src).create(operands=[new.results[0] for new in news], properties=dict(src.properties),
                             attributes=dict(src.attributes), result_types=[
                                 TensorType(src.results[0].type.element_type, ty.get_shape(), ty.encoding)])
    clone.location = src.location
    rewriter.insert_op([*news, clone], InsertPoint.before(cvt))
    cvt.results[0].replace_all_uses_with(clone.results[0])
    cvt.detach()
    cvt.erase()
    if not src.results[0].uses:
        src.detach()
        src.erase()
    return news


def hoist_layout_conversions(module: ModuleOp) -> None:
    """``HoistLayoutConversion`` to a fixpoint (module doc)."""
    rewriter = Rewriter()
    todo = [o for o in module.walk() if isinstance(o, ttg.ConvertLayoutOp)]
    steps = 0
    while todo:
        steps += 1
        if steps > 100_000:
            raise LayoutError("tritongpu-optimize-dot-operands: HoistLayoutConversion did not settle")
        cvt = todo.pop()
        if cvt.parent is None:
            continue
        todo.extend(_hoist_once(cvt, rewriter))


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
        hoist_layout_conversions(op)
        fuse_trans_mma_v3(op)


__all__ = ["TritonGPUOptimizeDotOperandsPass", "fuse_trans_mma_v3", "hoist_layout_conversions", "nvmma_shared",
           "reciprocal_divisions"]
