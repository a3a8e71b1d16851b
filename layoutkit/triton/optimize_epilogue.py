"""``tritonamdgpu-optimize-epilogue``: Triton 3.9's AMD OptimizeEpilogue -- a store of a value
converted out of an AMD matrix-core layout stores in that layout instead::

    layoutkit opt k.ttgir --tritonamdgpu-optimize-epilogue

The rule (``BypassEpilogueSMEM`` of ``third_party/amd/.../OptimizeEpilogue.cpp``): a
``tt.store`` whose pointer and value are ``#ttg.blocked``, the value reached from a
``ttg.convert_layout`` out of ``#ttg.amd_mfma`` / ``#ttg.amd_wmma`` through single-use
one-operand element-wise ops (ext/trunc, int<->float casts, negf, unary math, bitcast,
fp_to_fp, ...), the convert used once: the element-wise ops take the mma encoding in place,
the pointer (then the mask) get a convert to it, inserted before the store, and the store
takes them; the convert left without users goes. The final remove-layout-conversions then
recomputes the pointer and mask chains in the mma layout, so the epilogue's
shared-memory round trip of the value is gone.

Worked example (matmul_64x64x32 on hip:gfx942)::

    %71 = ttg.convert_layout %70 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked1>
    tt.store %62, %71, %69 : tensor<64x64x!tt.ptr<f16>, #blocked1>

becomes ``%71 = convert %62 -> #mma``, ``%72 = convert %69 -> #mma``,
``tt.store %71, %70, %72 : tensor<64x64x!tt.ptr<f16>, #mma>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from layoutkit.layouts.triton import BlockedEncoding
from layoutkit.layouts.triton.amd import AmdMfmaEncoding, AmdWmmaEncoding
from layoutkit.triton.coalesce import require_ttgir
from layoutkit.triton.layout_rules import encoding_of, erase_op, insert_convert, set_encoding

#: Triton's isOneOperandElementwiseOp (tt.extern_elementwise: pure, one operand)
_ONE_OPERAND = frozenset("""arith.extf arith.extsi arith.extui arith.fptosi arith.fptoui arith.negf arith.sitofp
arith.truncf arith.trunci arith.uitofp math.absf math.absi math.atan math.atan2 math.ceil math.cos math.sin math.ctlz
math.cttz math.ctpop math.erf math.exp math.exp2 math.expm1 math.floor math.log math.log10 math.log1p math.log2
math.rsqrt math.sqrt math.tanh tt.int_to_ptr tt.ptr_to_int tt.bitcast tt.fp_to_fp""".split())


def _blocked(value: SSAValue | None) -> bool:
    return isinstance(getattr(value, "type", None), TensorType) and isinstance(encoding_of(value), BlockedEncoding)


def _one_operand_elementwise(op: Operation) -> bool:
    if op.name == "tt.extern_elementwise":
        return len(op.operands) == 1 and len(op.results) == 1 and bool(op.properties.get("pure"))
    return op.name in _ONE_OPERAND


def bypass_epilogue(store: Operation) -> bool:
    """Rewrite one ``tt.store`` as Triton's BypassEpilogueSMEM does; False when it does not apply."""
    ptr, value = store.operands[0], store.operands[1]
    if not (_blocked(ptr) and _blocked(value)):
        return False
    chain: list[Operation] = []
    while not (isinstance(value.owner, Operation) and value.owner.name == "ttg.convert_layout"):
        op = value.owner
        if not isinstance(op, Operation) or len(op.results) != 1 or len(list(op.results[0].uses)) != 1 \
                or not _one_operand_elementwise(op):
            return False
        chain.append(op)
        value = op.operands[0]
    cvt = value.owner
    layout = encoding_of(cvt.operands[0])
    if not isinstance(layout, AmdMfmaEncoding | AmdWmmaEncoding) or len(list(cvt.results[0].uses)) != 1:
        return False
    where = InsertPoint.before(store)
    store.operands[0] = insert_convert(ptr, layout, where, store.location)
    new = cvt.operands[0]
    for op in reversed(chain):  # from the op next to the convert down to the store
        op.operands[0] = new
        set_encoding(op.results[0], layout)
        new = op.results[0]
    store.operands[1] = new
    if len(store.operands) > 2:
        store.operands[2] = insert_convert(store.operands[2], layout, where, store.location)
    if not cvt.results[0].uses:
        erase_op(cvt)
    return True


@dataclass(frozen=True)
class TritonAMDGPUOptimizeEpiloguePass(ModulePass):
    """Triton 3.9's ``tritonamdgpu-optimize-epilogue``: stores of values converted out of an
    AMD mma layout store in that layout (their pointer and mask converted instead)."""

    name = "tritonamdgpu-optimize-epilogue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_ttgir(op, self.name)
        for store in [o for o in op.walk() if o.name == "tt.store"]:
            bypass_epilogue(store)


__all__ = ["TritonAMDGPUOptimizeEpiloguePass", "bypass_epilogue"]
