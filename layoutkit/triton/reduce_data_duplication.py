"""``tritongpu-reduce-data-duplication``: Triton 3.9's ReduceDataDuplication -- every
``ttg.convert_layout`` to a ``#ttg.dot_op`` that must go through shared memory becomes an
explicit ``ttg.local_alloc`` + ``ttg.local_load`` with the ``#ttg.swizzled_shared`` encoding
Triton picks for that operand::

    layoutkit opt k.ttgir --tritongpu-reduce-data-duplication

The rules (ReduceDataDuplication.cpp, Utility.cpp and Dialect.cpp of Triton 3.9):

- *needs shared memory* (``cvtNeedsSharedMemory``): ``dst.invertAndCompose(src)`` quotiented
  by ``block``, ``warp``, ``lane``, ``register`` (slowest first, while it is the identity
  there) keeps an out dim other than ``register`` and ``lane``. Conversions that only move
  registers or lanes stay (Triton also keeps a lane-only one to shared memory when its
  warp-shuffle decomposition has two or more mixed transpositions -- not modelled: no golden
  kernel has one);
- the memory order (``getOrderForMemory``): the order of the register bases (``getOrder``:
  dims by first register basis, then the rest in reverse), unless the lane order differs
  and the tensor has one element per thread along the lanes' fastest dim -- then the lanes'
  order;
- the swizzle, for operand ``opIdx`` of ``kWidth``, ``b``-bit elements, ``K`` = the size of
  the contiguous dim ``order[0]``:

  * nvidia mma v2/v3: ``perPhase = max(1024 / (b K), 1)``, ``vec = 4 kWidth`` and
    ``stride = 8`` (swapped when ``order[0]`` is not the operand's K dim),
    ``maxPhase = max(max(min(stride, 1024 / (vec b)), 1) / perPhase, 1)``;
  * amd_mfma: no swizzle (1, 1, 1) unless ``order[0]`` is the K dim; else ``vec = kWidth``,
    ``perPhase = max(1024 / b / K, 1)``, ``maxPhase = max(min(16 / perPhase, K / vec), 1)``
    (4 for an mfma of ``instrShape[0] = 4``);
  * any other parent: (1, 1, 1).

Worked example: ``64x32xf16`` operand A (``kWidth = 2``) from ``order = [1, 0]``: ``K = 32``,
``perPhase = 1024 / (16 * 32) = 2``, ``vec = 8``, ``maxPhase = min(8, 1024 / 128) / 2 = 4``:
``#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.ir.dialects import ttg
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.layouts.triton import DotOperandEncoding
from layoutkit.layouts.triton.amd import AmdMfmaEncoding
from layoutkit.layouts.triton.mma import NvidiaMmaEncoding
from layoutkit.layouts.triton.shared import SwizzledSharedEncoding
from layoutkit.triton.accelerate_matmul import _bits
from layoutkit.triton.coalesce import require_ttgir

_HARDWARE = ("register", "lane", "warp", "block")


def needs_shared_memory(src, dst, shape: tuple[int, ...]) -> bool:
    """Triton's ``cvtNeedsSharedMemory`` (without the warp-shuffle decomposition test)."""
    a, b = src.to_linear_layout(shape), dst.to_linear_layout(shape)
    comp = b.invert_and_compose(a)
    common = [d for d in reversed(_HARDWARE) if a.has_in_dim(d) and b.has_in_dim(d)]
    for dim in common:
        q = comp.quotient([dim])
        if q is None:
            break
        comp = q
    return any(d not in ("register", "lane") for d in comp.out_dim_names)


def _order_per_dim(linear, in_dim: str, default: list[int]) -> list[int]:
    order: list[int] = []
    if linear.has_in_dim(in_dim):
        for basis in linear.bases[in_dim]:
            nonzero = [i for i, v in enumerate(basis) if v]
            if nonzero and nonzero[0] not in order:
                order.append(nonzero[0])
    return order + [d for d in default if d not in order]


def register_order(layout, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Triton's ``getOrder`` of a distributed layout: dims by their first register basis, the
    others after them from the last dim down."""
    linear = layout.to_linear_layout(shape)
    return tuple(_order_per_dim(linear, "register", list(reversed(range(len(shape))))))


def order_for_memory(layout, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Triton's ``getOrderForMemory`` of a distributed layout on ``shape``."""
    linear = layout.to_linear_layout(shape)
    order = list(register_order(layout, shape))
    threads = _order_per_dim(linear, "lane", order)
    if order == threads:
        return tuple(order)
    per_thread = [0] * len(shape)
    for basis in linear.bases.get("register", []):
        for i, v in enumerate(basis):
            per_thread[i] += bool(v)
    return tuple(threads if per_thread[threads[0]] == 0 else order)


def operand_swizzle(dot: DotOperandEncoding, shape: tuple[int, ...], order: tuple[int, ...],
                    bits: int) -> SwizzledSharedEncoding:
    """The ``#ttg.swizzled_shared`` Triton gives operand ``dot`` stored in ``order`` (module doc)."""
    parent, rank = dot.parent, len(shape)
    k_dim = rank - 1 if dot.op_idx == 0 else rank - 2
    inner = shape[order[0]]
    if isinstance(parent, NvidiaMmaEncoding) and parent.version_major in (2, 3):
        per_phase = max(1024 // (bits * inner), 1)
        vec, stride = 4 * dot.k_width, 8
        if order[0] != k_dim:
            vec, stride = stride, vec
        max_phase = max(max(min(stride, 1024 // (vec * bits)), 1) // per_phase, 1)
        return SwizzledSharedEncoding(vec=vec, per_phase=per_phase, max_phase=max_phase, order=order)
    if isinstance(parent, AmdMfmaEncoding) and order[0] == k_dim:
        vec = dot.k_width
        per_phase = max(1024 // bits // inner, 1)
        max_phase = max(min(16 // per_phase, inner // vec), 1)
        if parent.instr_shape[0] == 4:
            max_phase = 4
        return SwizzledSharedEncoding(vec=vec, per_phase=per_phase, max_phase=max_phase, order=order)
    return SwizzledSharedEncoding(vec=1, per_phase=1, max_phase=1, order=order)


def _rewrite(cvt: Operation) -> None:
    src, result = cvt.operands[0], cvt.results[0]
    shape = tuple(src.type.get_shape())
    order = order_for_memory(src.type.encoding.layout, shape)
    shared = operand_swizzle(result.type.encoding.layout, shape, order, _bits(src.type.element_type))
    memdesc = ttg.MemDescType(shape, src.type.element_type, LayoutAttr.of(shared), ttg.SharedMemorySpaceAttr())
    alloc = ttg.LocalAllocOp.build(operands=[[src]], result_types=[memdesc])
    load = ttg.LocalLoadOp.build(operands=[alloc.results[0], []], result_types=[result.type])
    alloc.location = load.location = cvt.location
    rewriter = Rewriter()
    rewriter.insert_op([alloc, load], InsertPoint.before(cvt))
    result.replace_all_uses_with(load.results[0])
    cvt.detach()
    cvt.erase()


@dataclass(frozen=True)
class TritonGPUReduceDataDuplicationPass(ModulePass):
    """Triton 3.9's ``tritongpu-reduce-data-duplication``: conversions to dot operands that
    need shared memory become ``local_alloc`` + ``local_load`` (swizzled as Triton does)."""

    name = "tritongpu-reduce-data-duplication"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_ttgir(op, self.name)
        for cvt in [o for o in op.walk() if isinstance(o, ttg.ConvertLayoutOp)]:
            src, dst = cvt.operands[0].type, cvt.results[0].type
            if not (isinstance(src, TensorType) and isinstance(dst, TensorType)):
                continue
            dst_layout = getattr(dst.encoding, "layout", None)
            src_layout = getattr(src.encoding, "layout", None)
            if not isinstance(dst_layout, DotOperandEncoding) or src_layout is None:
                continue
            if needs_shared_memory(src_layout, dst_layout, tuple(src.get_shape())):
                _rewrite(cvt)


__all__ = ["TritonGPUReduceDataDuplicationPass", "needs_shared_memory", "operand_swizzle", "order_for_memory", "register_order"]
