"""``tritongpu-coalesce``: Triton 3.9's Coalesce pass -- every global memory access of a tensor of
pointers (``tt.load``, ``tt.store``, ``tt.atomic_rmw``, ``tt.atomic_cas``) gets a blocked layout
whose ``sizePerThread`` is the widest vector its pointer's axis info allows::

    layoutkit opt k.ttgir --tritongpu-coalesce

The rule (Triton's ``buildCoalescedEncoding`` / ``getNumElementsPerThread``), for an access of
``shape`` whose pointer has contiguity ``c`` and divisibility ``D`` (bytes), elements of ``b`` bits:

- ``order``: dims by decreasing contiguity, ties from the last dim (a stable sort of
  ``[rank-1, ..., 0]``);
- ``perThread(op) = min(max(D[o] / max(b/8, 1), 1), min(c[o], shape[o]), 128 / b)`` with
  ``o = order[0]`` (``D`` read as a 32-bit unsigned, as Triton's ``unsigned`` does);
- the op's ``perThread`` is the largest over every access of the same shape and order in its
  def-use slice, capped at ``max(numel / (warps * lanes), 1)``; a store or atomic is further
  capped at its own ``perThread``;
- the layout is ``BlockedEncodingAttr::get(shape, sizePerThread, order, warps, lanes)``
  (:func:`~layoutkit.layouts.triton.default.default_blocked_encoding` with those arguments).

Then each access is rebuilt in that layout: every tensor operand converted to it right before
the op, the op re-made, each result whose type changed converted back right after.

Worked example: ``tensor<1024x!tt.ptr<f32>>`` with contiguity [1024] and divisibility [16],
4 warps of 32: ``perThread = min(16/4, 1024, 128/32) = 4`` (cap ``1024/128 = 8``) ->
``#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>``.
It lives in the ``layoutkit.triton`` layer because it needs the axis-info walk of that layer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.analysis.axis_info import AxisInfo
from layoutkit.errors import LayoutError
from layoutkit.ir.dialects import ttg
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.ir.dialects.tt import PointerType
from layoutkit.layouts.triton.blocked import BlockedEncoding
from layoutkit.layouts.triton.default import default_blocked_encoding
from layoutkit.triton.axis_walk import axis_infos
from layoutkit.triton.op_slice import multi_root_slice

#: the ops whose pointer operand (their first) Triton coalesces
ACCESSES = ("tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas")
_MAX_VECTOR_BITS = 128


def access_pointer(op: Operation) -> SSAValue | None:
    """The tensor-of-pointers operand of a global access (``getMemAccessPtr``), else None."""
    if op.name not in ACCESSES or not op.operands:
        return None
    t = op.operands[0].type
    return op.operands[0] if isinstance(t, TensorType) and isinstance(t.element_type, PointerType) else None


def order_from_contiguity(contiguity: tuple[int, ...]) -> tuple[int, ...]:
    """Dims by decreasing contiguity, ties broken from the last dim:
    ``order_from_contiguity((1, 64)) == (1, 0)``, ``order_from_contiguity((1, 1)) == (1, 0)``."""
    return tuple(sorted(reversed(range(len(contiguity))), key=lambda d: -contiguity[d]))


def _pointee_bits(ptr: SSAValue) -> int:
    pointee = ptr.type.element_type.pointee
    width = getattr(pointee, "bitwidth", None)
    if width is None:
        width = getattr(getattr(pointee, "width", None), "data", 8)
    return int(width)


def elements_per_thread(ptr: SSAValue, info: AxisInfo, order: tuple[int, ...]) -> int:
    """Triton's ``getNumElementsPerThread``: the widest vector along ``order[0]``."""
    bits = _pointee_bits(ptr)
    shape = tuple(ptr.type.get_shape())
    dim = order[0]
    divisibility = info.divisibility[dim] & 0xFFFFFFFF  # Triton holds it in an ``unsigned``
    multiple = max(divisibility // max(bits // 8, 1), 1)
    contig = min(info.contiguity[dim], shape[dim])
    return min(multiple, contig, max(_MAX_VECTOR_BITS // bits, 1))


def module_int(module: ModuleOp, name: str, default: int) -> int:
    attr = module.attributes.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else default


def require_ttgir(module: ModuleOp, pass_name: str) -> None:
    """A layout pass runs on TTGIR: the module carries ``ttg.num-warps`` (as Triton asserts)."""
    if not isinstance(module.attributes.get("ttg.num-warps"), IntegerAttr):
        raise LayoutError(f"{pass_name}: the module has no 'ttg.num-warps' attribute: expected TTGIR "
                          f"(run convert-triton-to-tritongpu first)")


def coalesced_encoding(op: Operation, infos: dict[SSAValue, AxisInfo], num_warps: int,
                       threads_per_warp: int, num_ctas: int) -> BlockedEncoding:
    """The layout Triton's coalesce gives the access ``op``."""
    ptr = access_pointer(op)
    shape = tuple(ptr.type.get_shape())
    info = infos.get(ptr)
    rank = len(shape)
    if info is None:
        from layoutkit.analysis.axis_info import unknown

        info = unknown(rank)
    order = order_from_contiguity(info.contiguity)
    per_thread = elements_per_thread(ptr, info, order)
    for other in multi_root_slice(op):
        p = access_pointer(other) if other is not op else None
        if p is None or tuple(p.type.get_shape()) != shape or p not in infos:
            continue
        if order_from_contiguity(infos[p].contiguity) == order:
            per_thread = max(per_thread, elements_per_thread(p, infos[p], order))
    per_thread = min(per_thread, max(math.prod(shape) // (num_warps * threads_per_warp), 1))
    if op.name != "tt.load":
        per_thread = min(per_thread, elements_per_thread(ptr, info, order))
    size = [1] * rank
    size[order[0]] = per_thread
    return default_blocked_encoding(shape, num_warps, threads_per_warp, num_ctas,
                                    size_per_thread=size, order=order)


def _retyped(t: TensorType, layout: BlockedEncoding) -> TensorType:
    return TensorType(t.element_type, t.get_shape(), LayoutAttr.of(layout))


def coalesce_op(op: Operation, layout: BlockedEncoding) -> None:
    """Rebuild ``op`` in ``layout``: operands converted before it, results converted back."""
    rewriter = Rewriter()
    args = []
    for value in op.operands:
        if isinstance(value.type, TensorType):
            cvt = ttg.ConvertLayoutOp.build(operands=[value], result_types=[_retyped(value.type, layout)])
            cvt.location = op.location
            rewriter.insert_op(cvt, InsertPoint.before(op))
            args.append(cvt.result)
        else:
            args.append(value)
    types = [_retyped(r.type, layout) if isinstance(r.type, TensorType) else r.type for r in op.results]
    new = type(op).create(operands=args, result_types=types, properties=dict(op.properties),
                          attributes=dict(op.attributes))
    new.location = op.location
    rewriter.insert_op(new, InsertPoint.before(op))
    replacements = []
    after = new
    for old, res in zip(op.results, new.results):
        if res.type != old.type:
            back = ttg.ConvertLayoutOp.build(operands=[res], result_types=[old.type])
            back.location = op.location
            rewriter.insert_op(back, InsertPoint.after(after))
            after = back
            replacements.append(back.result)
        else:
            replacements.append(res)
    for old, value in zip(op.results, replacements):
        old.replace_all_uses_with(value)
    op.detach()
    op.erase()


@dataclass(frozen=True)
class TritonGPUCoalescePass(ModulePass):
    """Triton 3.9's ``tritongpu-coalesce``: each global access in its widest-vector blocked layout."""

    name = "tritongpu-coalesce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_ttgir(op, self.name)
        warps = module_int(op, "ttg.num-warps", 4)
        lanes = module_int(op, "ttg.threads-per-warp", 32)
        ctas = module_int(op, "ttg.num-ctas", 1)
        infos: dict[SSAValue, AxisInfo] = {}
        for func in op.walk():
            if func.name == "tt.func":
                infos.update(axis_infos(func))
        plan = [(o, coalesced_encoding(o, infos, warps, lanes, ctas)) for o in op.walk()
                if access_pointer(o) is not None]
        for access, layout in plan:
            coalesce_op(access, layout)


__all__ = ["ACCESSES", "TritonGPUCoalescePass", "coalesced_encoding", "elements_per_thread",
           "order_from_contiguity"]
