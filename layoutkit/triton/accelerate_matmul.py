"""``tritongpu-accelerate-matmul``: Triton 3.9's AccelerateMatmul -- every ``tt.dot`` with a
blocked result moves to an ``#ttg.nvidia_mma`` layout (cuda) or ``#ttg.amd_mfma`` (hip:gfx942,
Triton's AMD pass of the same job, ``matrix-instruction-size=0 kPack=1`` as make_ttgir runs it)::

    layoutkit opt k.ttgir --tritongpu-accelerate-matmul

The rules (``BlockedToMMA`` in Triton's AccelerateMatmul.cpp), for a dot ``MxK * KxN``:

- the version (``supportMMA``): 3 on ``cuda:90`` when the dot allows it (rank 2,
  ``M % 64 == 0``, ``N % 8 == 0``, warps a multiple of 4, ``K >= 256 / bits`` of A, A of
  f16/bf16/i8/fp8e4m3fn/fp8e5m2/f32, not fp8 into f32 with ``maxNumImpreciseAcc < 32``), else 2
  (``cuda:80`` and up); operands of f16/bf16/i8/fp8, or f32 with ``inputPrecision`` tf32 (an
  IEEE f32 dot stays on FMA, unchanged);
- v2's ``warpsPerCTA``: if another dot of the same region is in the dot's def-use slice
  (``tt.trans`` ops cut it), that dot's mma warps if it has them already, else all warps
  on the longer dim (``[w, 1]`` when ``M >= N``); otherwise warps are doubled one at a time on
  the dim with more 16x8 tiles left (ties to M), halving that dim's tile count;
  ``instrShape = [16, 8]``;
- operands: ``c`` converted to the mma layout, then ``a`` and ``b`` to
  ``#ttg.dot_op<{opIdx, parent = mma, kWidth = 32 / bits}>``, the new dot, its result
  converted back to the old blocked layout.

mma v3 (Hopper ``wgmma``): ``instrShape = [16, n, 256 / bits]`` with ``n`` the largest of
256, 248, ..., 8 (i8: 224, 208, ..., 8) dividing ``N`` and at most ``N / max(w / (M / 16), 1)``;
``warpsPerCTA`` ``[w, 1]`` when another dot is in the result's forward slice, else from
``[4, 1]`` doubled on M while ``M > 16 wM``, then on N; the accumulator converted, A kept in
registers (``#ttg.dot_op<{opIdx = 0, parent = mma, kWidth = 32 / bits}>``) unless it comes
from a load or a block argument (through converts), then A and always B stored to shared
memory by a ``ttg.local_alloc`` placed right after the value behind the converts, encoded
``#ttg.nvmma_shared`` from its ``getOrderForMemory`` (f16/bf16; other types: ``[1, 0]`` for A,
``[0, 1]`` for B); the dot becomes ``ttng.warp_group_dot``.

AMD (``BlockedToMFMA``, gfx942 = mfma version 3): ``mDim = nDim = 32`` if ``min(M, N) >= 32``,
16 if it is >= 16 (else FMA); the instruction's ``kDim``/``kBase`` from the MFMA table (f16 and
bf16: 32x32x8 / 16x16x16 with kBase 4; f32 as tf32, "xf32": 32x32x4 / 16x16x8 with kBase 2 --
other element types are an error here, not yet implemented); ``K % kDim != 0`` stays on FMA.
``warpsPerCTA``: ``[w, 1]`` for the head of a dot chain (its result reaches another dot's A),
``[min(w, ceil(M / mDim)), rest]`` for a tail (A computed from a dot), else doubled on M while
``M / (2 mDim) / wM >= N / nDim / wN`` (and M has room), else on N, swapped when N is
over-covered; ``isTransposed`` (not fp8); ``kWidth = kBase``.

Worked example: ``64x32 * 32x64`` f16, 4 warps, no chained dot: tiles ``[64/16, 64/8] =
[4, 8]`` -> N gets 2 warps (tiles [4, 4]) -> M gets 2 -> ``warpsPerCTA = [2, 2]``, ``kWidth = 2``.
The same dot on ``cuda:90``, both operands loaded: v3, ``M / 16 = 4`` warps on M, so ``n <= 64 /
1``: ``instrShape = [16, 64, 16]``, ``warpsPerCTA = [4, 1]``; A ``64x32xf16`` row-major is
64 bytes a row: ``#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, ...}>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.errors import LayoutError
from layoutkit.ir.dialects import ttg, ttng
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.ir.dialects.triton_format import INPUT_PRECISION
from layoutkit.layouts.triton import BlockedEncoding, DotOperandEncoding
from layoutkit.layouts.triton.amd import AmdMfmaEncoding
from layoutkit.layouts.triton.mma import NvidiaMmaEncoding
from layoutkit.triton.coalesce import module_int, require_ttgir
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


_V3_TYPES = ("f16", "bf16", "i8", "f32", "f8E4M3FN", "f8E5M2")


def _max_imprecise(dot: Operation) -> int:
    attr = dot.properties.get("maxNumImpreciseAcc")
    return int(attr.value.data) if isinstance(attr, IntegerAttr) else 0


def supports_v3(dot: Operation, num_warps: int) -> bool:
    """Triton's ``supportMMA(dot, 3)`` (module doc), for a dot that ``supports_mma``."""
    shape = tuple(dot.results[0].type.get_shape())
    a = dot.operands[0].type
    element = str(a.element_type)
    if a.get_shape()[-1] < 256 // _bits(a.element_type) or len(shape) != 2:
        return False
    if not (num_warps % 4 == 0 and shape[0] % 64 == 0 and shape[1] % 8 == 0 and element in _V3_TYPES):
        return False
    return not (element.startswith("f8") and _max_imprecise(dot) < 32
                and str(dot.results[0].type.element_type) == "f32")


def instr_shape_v3(shape: tuple[int, ...], element, num_warps: int) -> tuple[int, int, int]:
    """Triton's ``mmaVersionToInstrShape(3, ...)``: ``[16, n, 256 / bits]`` (module doc)."""
    ns = (*range(224, 31, -16), 24, 16, 8) if str(element) == "i8" else range(256, 7, -8)
    m_warps = max(shape[0] // 16, 1)
    max_n = max(shape[1] // max(num_warps // m_warps, 1), 8)
    n = next((n for n in ns if shape[1] % n == 0 and n <= max_n), None)
    if n is None:
        raise LayoutError(f"tritongpu-accelerate-matmul: no mma v3 instruction for a {shape[0]}x{shape[1]} "
                          f"result of {element} operands")
    return (16, n, 256 // _bits(element))


def _forward_slice(op: Operation) -> set[Operation]:
    """MLIR's ``getForwardSlice`` of ``op``: every transitive user of its results, and every op
    nested in the regions of an op of the slice (with their users)."""
    seen, todo = set(), [op]
    while todo:
        current = todo.pop()
        nested = [o for region in current.regions for block in region.blocks for o in block.ops]
        for other in [*(use.operation for result in current.results for use in result.uses), *nested]:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


_DOT_LIKE = ("tt.dot", "tt.dot_scaled", "ttng.warp_group_dot", "ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled")


def warps_per_tile_v3(dot: Operation, shape: tuple[int, ...], num_warps: int) -> tuple[int, int]:
    """Triton's ``warpsPerTileV3``: ``[w, 1]`` before another dot, else warp groups along M first."""
    if any(o.name in _DOT_LIKE for o in _forward_slice(dot)):
        return (num_warps, 1)
    warps = [4, 1]
    while warps[0] * warps[1] < num_warps:
        if shape[0] > 16 * warps[0]:
            warps[0] *= 2
        else:
            warps[1] *= 2
    return tuple(warps)


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
    _rewrite(dot, mma, lambda element: max(32 // _bits(element), 1))


def comes_from_load_or_block_arg(value) -> bool:
    """Triton's ``comesFromLoadOrBlockArg``: through converts (and memdesc views), a ``tt.load``,
    a ``tt.descriptor_load`` or a block argument."""
    while isinstance(value.owner, Operation) and value.owner.name in (
            "ttg.convert_layout", "ttg.memdesc_trans", "ttg.memdesc_reshape", "ttg.memdesc_index",
            "ttg.memdesc_subslice", "ttg.memdesc_reinterpret"):
        value = value.owner.operands[0]
    owner = value.owner
    return not isinstance(owner, Operation) or owner.name in ("tt.load", "tt.descriptor_load",
                                                              "tt.descriptor_gather")


def _shared_operand(value, op_idx: int, allow_transpose: bool):
    """Triton's ``getSharedMemoryMMAOperand``: a ``local_alloc`` of the value behind the converts,
    right after it, in ``#ttg.nvmma_shared``."""
    from layoutkit.triton.optimize_dot_operands import nvmma_shared
    from layoutkit.triton.reduce_data_duplication import order_for_memory

    while isinstance(value.owner, ttg.ConvertLayoutOp):
        value = value.owner.operands[0]
    t = value.type
    shape = tuple(t.get_shape())
    order = order_for_memory(t.encoding.layout, shape) if allow_transpose else ((0, 1) if op_idx == 1 else (1, 0))
    memdesc = ttg.MemDescType(shape, t.element_type, LayoutAttr.of(nvmma_shared(shape, order, _bits(t.element_type))),
                              ttg.SharedMemorySpaceAttr())
    alloc = ttg.LocalAllocOp.build(operands=[[value]], result_types=[memdesc])
    owner = value.owner
    if isinstance(owner, Operation):
        alloc.location = owner.location
        Rewriter().insert_op(alloc, InsertPoint.after(owner))
    else:
        Rewriter().insert_op(alloc, InsertPoint.at_start(owner))
    return alloc.results[0]


def to_mma_v3(dot: Operation, num_warps: int) -> None:
    """Rewrite ``dot`` as a ``ttng.warp_group_dot`` on an mma v3 layout (module doc)."""
    result = dot.results[0]
    shape = tuple(result.type.get_shape())
    element = dot.operands[0].type.element_type
    instr = instr_shape_v3(shape, element, num_warps)
    mma = NvidiaMmaEncoding(3, 0, warps_per_tile_v3(dot, shape, num_warps), instr, _layout(result).cga)
    rewriter = Rewriter()
    c = _convert_before(dot, dot.operands[2], mma, rewriter)
    allow_transpose = str(element) in ("f16", "bf16")
    a = dot.operands[0]
    if comes_from_load_or_block_arg(a):
        a = _shared_operand(a, 0, allow_transpose)
    else:
        a = _convert_before(dot, a, DotOperandEncoding(0, mma, max(32 // _bits(element), 1)), rewriter)
    b = _shared_operand(dot.operands[1], 1, allow_transpose)
    properties = {k: v for k, v in dot.properties.items() if k in ("inputPrecision", "maxNumImpreciseAcc")}
    new = ttng.WarpGroupDotOp.build(operands=[a, b, c, []], result_types=[_retyped(result.type, mma)],
                                    properties=properties)
    old_operands = list(dot.operands[:2])
    _replace_dot(dot, new, rewriter)
    for value in old_operands:  # the converts left dead, erased as Triton's rewrite driver does
        while isinstance(value.owner, ttg.ConvertLayoutOp) and not value.uses:
            cvt, value = value.owner, value.owner.operands[0]
            cvt.detach()
            cvt.erase()


#: gfx942 (CDNA3) MFMA instructions checked against Triton: (A type, "xf32" for f32 as tf32, mDim) -> (kDim, kBase)
_MFMA_CDNA3 = {("f16", 32): (8, 4), ("f16", 16): (16, 4), ("bf16", 32): (8, 4), ("bf16", 16): (16, 4),
               ("xf32", 32): (4, 2), ("xf32", 16): (8, 2)}


def _same_region_forward(op: Operation) -> set[Operation]:
    region, seen, todo = op.parent_region(), set(), [op]
    while todo:
        for result in todo.pop().results:
            for use in result.uses:
                user = use.operation
                if user not in seen and user.parent_region() is region:
                    seen.add(user)
                    todo.append(user)
    return seen


def _same_region_backward(op: Operation) -> set[Operation]:
    region, seen, todo = op.parent_region(), {op}, [op]
    while todo:
        for value in todo.pop().operands:
            owner = value.owner
            if isinstance(owner, Operation) and owner not in seen and owner.parent_region() is region:
                seen.add(owner)
                todo.append(owner)
    return seen


def is_chain_dot_head(dot: Operation) -> bool:
    """The dot's result reaches (in its region) the op defining another dot's A operand."""
    forward = _same_region_forward(dot)
    return any(o.name == "tt.dot" and isinstance(o.operands[0].owner, Operation) and o.operands[0].owner in forward
               for o in forward)


def is_chain_dot_tail(dot: Operation) -> bool:
    """The dot's A operand is computed (in its region) from another dot."""
    owner = dot.operands[0].owner
    return isinstance(owner, Operation) and any(o.name == "tt.dot" for o in _same_region_backward(owner))


def warps_per_tile_mfma(dot: Operation, shape: tuple[int, ...], num_warps: int, m: int, n: int) -> tuple[int, ...]:
    """Triton's AMD ``warpsPerTile``."""
    if len(shape) == 3:
        return (num_warps, 1, 1)
    if is_chain_dot_head(dot):
        return (num_warps, 1)
    if is_chain_dot_tail(dot):
        first = min(num_warps, -(-shape[0] // m))
        return (first, num_warps // first)
    ret = [1, 1]
    while ret[0] * ret[1] < num_warps:
        if shape[0] // (m * 2) // ret[0] >= shape[1] // n // ret[1]:
            if ret[0] < shape[0] // m:
                ret[0] *= 2
            else:
                ret[1] *= 2
        else:
            ret[1] *= 2
    if ret[1] * n > shape[1]:
        return (ret[1], ret[0])
    return tuple(ret)


def mfma_choice(dot: Operation, num_warps: int) -> tuple[AmdMfmaEncoding, int] | None:
    """The ``amd_mfma`` version 3 layout (gfx942) Triton gives ``dot``'s result and the
    operands' ``kWidth`` (module doc); None where the dot stays on FMA. Raises
    :class:`LayoutError` for an MFMA element type not implemented yet. Worked example:
    ``64x32 * 32x64`` f16, 4 warps, no chain: ``mDim = 32``, 32x32x8 with kBase 4; warps
    ``[1, 1] -> [1, 2]`` (``64 / 64 / 1 = 1 < 64 / 32 / 1 = 2``) ``-> [2, 2]``: ``(mfma [2, 2]
    [32, 32, 8], 4)``."""
    result = dot.results[0]
    shape = tuple(result.type.get_shape())
    element = str(dot.operands[0].type.element_type)
    if element == "f32" and _precision(dot) == "tf32":
        element = "xf32"
    size = min(shape[-2:])
    m = 32 if size >= 32 else 16 if size >= 16 else 0
    if not m:
        return None
    if (element, m) not in _MFMA_CDNA3:
        raise LayoutError(f"tritongpu-accelerate-matmul: {dot.name} with {element} operands on hip:gfx942: "
                          f"this MFMA instruction is not implemented yet")
    k_dim, k_base = _MFMA_CDNA3[(element, m)]
    if dot.operands[0].type.get_shape()[-1] % k_dim:
        return None
    old = _layout(result)
    return AmdMfmaEncoding(3, warps_per_tile_mfma(dot, shape, num_warps, m, m), (m, m, k_dim), True, old.cga), k_base


def to_mfma(dot: Operation, num_warps: int) -> None:
    """Rewrite ``dot`` onto an ``amd_mfma`` version 3 layout (gfx942); FMA dots stay."""
    choice = mfma_choice(dot, num_warps)
    if choice is not None:
        _rewrite(dot, *choice)


def _convert_before(dot: Operation, value, layout, rewriter: Rewriter):
    cvt = ttg.ConvertLayoutOp.build(operands=[value], result_types=[_retyped(value.type, layout)])
    cvt.location = dot.location
    rewriter.insert_op(cvt, InsertPoint.before(dot))
    return cvt.result


def _replace_dot(dot: Operation, new: Operation, rewriter: Rewriter) -> None:
    """``new`` in place of ``dot``, its result converted back to the dot's old layout."""
    result = dot.results[0]
    new.location = dot.location
    rewriter.insert_op(new, InsertPoint.before(dot))
    back = ttg.ConvertLayoutOp.build(operands=[new.results[0]], result_types=[result.type])
    back.location = dot.location
    rewriter.insert_op(back, InsertPoint.after(new))
    result.replace_all_uses_with(back.result)
    dot.detach()
    dot.erase()


def _rewrite(dot: Operation, mma, k_width) -> None:
    """Converts in (accumulator, A, B), the dot on ``mma``, its result converted back.
    ``k_width``: one value, or a function of the operand's element type."""
    rewriter = Rewriter()
    c = _convert_before(dot, dot.operands[2], mma, rewriter)
    a, b = (_convert_before(dot, dot.operands[i], DotOperandEncoding(
        i, mma, k_width(dot.operands[i].type.element_type) if callable(k_width) else k_width), rewriter)
        for i in (0, 1))
    new = type(dot).create(operands=[a, b, c], result_types=[_retyped(dot.results[0].type, mma)],
                           properties=dict(dot.properties), attributes=dict(dot.attributes))
    _replace_dot(dot, new, rewriter)


@dataclass(frozen=True)
class TritonGPUAccelerateMatmulPass(ModulePass):
    """Triton 3.9's ``tritongpu-accelerate-matmul`` (NVIDIA): blocked dots onto mma layouts."""

    name = "tritongpu-accelerate-matmul"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_ttgir(op, self.name)
        target = op.attributes.get("ttg.target")
        target = target.data if isinstance(target, StringAttr) else ""
        warps = module_int(op, "ttg.num-warps", 4)
        blocked = [d for d in op.walk() if d.name == "tt.dot" and isinstance(_layout(d.results[0]), BlockedEncoding)]
        if target == "hip:gfx942":
            for dot in blocked:
                to_mfma(dot, warps)
            return
        dots = [d for d in blocked if supports_mma(d)]
        if not dots:
            return
        if not target.startswith("cuda:"):
            raise LayoutError(f"tritongpu-accelerate-matmul: target {target!r}: only cuda:80, cuda:90 (mma v2) "
                              f"and hip:gfx942 are implemented")
        capability = int(target.split(":")[1])
        if capability < 80 or capability >= 100:
            raise LayoutError(f"tritongpu-accelerate-matmul: target {target!r}: only cuda:80 to cuda:90 are implemented")
        for dot in dots:
            if capability == 90 and supports_v3(dot, warps):
                to_mma_v3(dot, warps)
            else:
                to_mma_v2(dot, warps)


__all__ = ["TritonGPUAccelerateMatmulPass", "comes_from_load_or_block_arg", "instr_shape_v3", "is_chain_dot_head",
           "is_chain_dot_tail", "mfma_choice", "supports_mma", "supports_v3", "warps_per_tile_mfma", "warps_per_tile_v2",
           "warps_per_tile_v3"]
