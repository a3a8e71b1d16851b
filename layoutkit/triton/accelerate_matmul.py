"""``tritongpu-accelerate-matmul``: Triton 3.9's AccelerateMatmul for NVIDIA targets -- every
``tt.dot`` with a blocked result moves to an ``#ttg.nvidia_mma`` layout::

    layoutkit opt k.ttgir --tritongpu-accelerate-matmul

The rules (``BlockedToMMA`` in Triton's AccelerateMatmul.cpp), for a dot ``MxK * KxN``:

- the version: 3 on ``cuda:90`` when the dot allows it (rank 2, ``M % 64 == 0``,
  ``N % 8 == 0``, warps a multiple of 4) -- not implemented yet here: such a dot is an error
  naming it -- else 2 (``cuda:80`` and up); operands of f16/bf16/i8/fp8, or f32 with
  ``inputPrecision`` tf32 (an IEEE f32 dot stays on FMA, unchanged);
- v2's ``warpsPerCTA``: if another dot of the same region is in the dot's def-use slice
  (``tt.trans`` ops cut it), that dot's mma warps if it has them already, else all warps
  on the longer dim (``[w, 1]`` when ``M >= N``); otherwise warps are doubled one at a time on
  the dim with more 16x8 tiles left (ties to M), halving that dim's tile count;
  ``instrShape = [16, 8]``;
- operands: ``c`` converted to the mma layout, then ``a`` and ``b`` to
  ``#ttg.dot_op<{opIdx, parent = mma, kWidth = 32 / bits}>``, the new dot, its result
  converted back to the old blocked layout.

Worked example: ``64x32 * 32x64`` f16, 4 warps, no chained dot: tiles ``[64/16, 64/8] =
[4, 8]`` -> N gets 2 warps (tiles [4, 4]) -> M gets 2 -> ``warpsPerCTA = [2, 2]``, ``kWidth = 2``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.errors import LayoutError
from layoutkit.ir.dialects import ttg
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.ir.dialects.triton_format import INPUT_PRECISION
from layoutkit.layouts.triton import BlockedEncoding, DotOperandEncoding
from layoutkit.layouts.triton.mma import NvidiaMmaEncoding
from layoutkit.triton.coalesce import module_int
from layoutkit.triton.op_slice import multi_root_slice

_MMA_TYPES = ("f16", "bf16", "i8", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ")


def _bits(element) -> int:
    width = getattr(element, "bitwidth", None)
    if width is None:
        width = getattr(getattr(element, "width", None), "data", 32)
    return int(width)


def _precision(dot: Operation) -> str:
    attr = dot.properties.get("inputPrecision")
    if attr is None:
        return "ieee"
    value = attr.value.data if isinstance(attr, IntegerAttr) else attr.data if isinstance(attr, StringAttr) else attr
    names = {v: k for k, v in INPUT_PRECISION.items()}
    return names.get(value, str(value))


def supports_mma(dot: Operation) -> bool:
    """Operands Triton puts on tensor cores: f16/bf16/i8/fp8, or f32 as tf32."""
    a = str(dot.operands[0].type.element_type)
    if a in _MMA_TYPES:
        return True
    return a == "f32" and _precision(dot) in ("tf32", "tf32x3")


def _layout(value):
    return value.type.encoding.layout


def _supports_v3(dot: Operation, num_warps: int) -> bool:
    shape = tuple(dot.results[0].type.get_shape())
    return len(shape) == 2 and shape[0] % 64 == 0 and shape[1] % 8 == 0 and num_warps % 4 == 0


def warps_per_tile_v2(dot: Operation, shape: tuple[int, ...], num_warps: int) -> tuple[int, ...]:
    """Triton's ``warpsPerTileV2``."""
    if len(shape) == 3:
        return (num_warps, 1, 1)
    region = dot.parent_region()

    def keep(op: Operation) -> bool:
        return op.parent_region() is region and op.name != "tt.trans"

    chained = False
    for other in multi_root_slice(dot, keep):
        if other is dot or other.name != "tt.dot":
            continue
        t = other.results[0].type
        if len(t.get_shape()) != len(shape):
            continue
        layout = _layout(other.results[0])
        if isinstance(layout, NvidiaMmaEncoding):
            return tuple(layout.warps_per_cta)
        chained = True
    if chained:
        return (num_warps, 1) if shape[0] >= shape[1] else (1, num_warps)
    warps = [1, 1]
    reps = [-(-shape[0] // 16), -(-shape[1] // 8)]
    while warps[0] * warps[1] < num_warps:
        if reps[0] >= reps[1]:
            warps[0] *= 2
            if reps[0] != 1:
                reps[0] //= 2
        else:
            warps[1] *= 2
            reps[1] //= 2
    return tuple(warps)


def _retyped(t: TensorType, layout) -> TensorType:
    return TensorType(t.element_type, t.get_shape(), LayoutAttr.of(layout))


def to_mma_v2(dot: Operation, num_warps: int) -> None:
    """Rewrite ``dot`` onto an mma v2 layout (converts in, the dot, a convert back)."""
    result = dot.results[0]
    shape = tuple(result.type.get_shape())
    old = _layout(result)
    instr = (16, 8) if len(shape) == 2 else (1, 16, 8)
    mma = NvidiaMmaEncoding(2, 0, warps_per_tile_v2(dot, shape, num_warps), instr, old.cga)
    rewriter = Rewriter()

    def convert(value, layout):
        cvt = ttg.ConvertLayoutOp.build(operands=[value], result_types=[_retyped(value.type, layout)])
        cvt.location = dot.location
        rewriter.insert_op(cvt, InsertPoint.before(dot))
        return cvt.result

    c = convert(dot.operands[2], mma)
    a, b = (convert(dot.operands[i], DotOperandEncoding(i, mma, max(32 // _bits(dot.operands[i].type.element_type), 1)))
            for i in (0, 1))
    new = type(dot).create(operands=[a, b, c], result_types=[_retyped(result.type, mma)],
                           properties=dict(dot.properties), attributes=dict(dot.attributes))
    new.location = dot.location
    rewriter.insert_op(new, InsertPoint.before(dot))
    back = ttg.ConvertLayoutOp.build(operands=[new.results[0]], result_types=[result.type])
    back.location = dot.location
    rewriter.insert_op(back, InsertPoint.after(new))
    result.replace_all_uses_with(back.result)
    dot.detach()
    dot.erase()


@dataclass(frozen=True)
class TritonGPUAccelerateMatmulPass(ModulePass):
    """Triton 3.9's ``tritongpu-accelerate-matmul`` (NVIDIA): blocked dots onto mma layouts."""

    name = "tritongpu-accelerate-matmul"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = op.attributes.get("ttg.target")
        target = target.data if isinstance(target, StringAttr) else ""
        warps = module_int(op, "ttg.num-warps", 4)
        dots = [d for d in op.walk() if d.name == "tt.dot" and isinstance(_layout(d.results[0]), BlockedEncoding)
                and supports_mma(d)]
        if not dots:
            return
        if not target.startswith("cuda:"):
            raise LayoutError(f"tritongpu-accelerate-matmul: target {target!r}: only cuda targets are "
                              f"implemented (AMD's mfma is not yet)")
        capability = int(target.split(":")[1])
        if capability < 80 or capability >= 100:
            raise LayoutError(f"tritongpu-accelerate-matmul: target {target!r}: only cuda:80 to cuda:90 are implemented")
        for dot in dots:
            if capability == 90 and _supports_v3(dot, warps):
                raise LayoutError(f"tritongpu-accelerate-matmul: {dot.name} of "
                                  f"{dot.results[0].type}: mma v3 (cuda:90) is not implemented yet")
        for dot in dots:
            to_mma_v2(dot, warps)


__all__ = ["TritonGPUAccelerateMatmulPass", "supports_mma", "warps_per_tile_v2"]
