"""CUDA emitter of ``nvgpu.mma.sync``: a prelude function holding the inline PTX
``mma.sync.aligned`` for the fragment shapes."""

from __future__ import annotations

from typing import Any

from layoutkit.backends.cuda.c_text import int_list, prop
from layoutkit.backends.cuda.emit import FunctionEmitter
from layoutkit.backends.cuda.registry import emits
from layoutkit.backends.types import Scalar, value_type
from layoutkit.ir.dialects.upstream import nvgpu


@emits(nvgpu.MmaSyncOp)
def mma(self: FunctionEmitter, op: Any) -> None:
    shape = int_list(prop(op, "mmaShape", "mma_shape", "shape"))
    a_type, b_type, c_type_ = (value_type(v.type) for v in op.operands[:3])
    if shape not in ([16, 8, 16], [16, 8, 8]):
        raise self.error(op, f"mmaShape must be [16, 8, 16] or [16, 8, 8], got {shape}")
    m, n, k = shape
    element = a_type.element
    if not element.is_16bit_float or b_type.element != element or c_type_.element != Scalar("float", 32):
        raise self.error(op, "supports f16 or bf16 inputs with f32 accumulators")
    a_regs, b_regs = m * k // 32 // 2, n * k // 32 // 2
    if a_type.count != 2 * a_regs or b_type.count != 2 * b_regs or c_type_.count != 4:
        raise self.error(op, f"fragment sizes for m{m}n{n}k{k} are A {2 * a_regs}, B {2 * b_regs}, "
                             f"C 4 elements per lane; got {a_type.count}, {b_type.count}, {c_type_.count}")
    a, b, c = (self.expr(v) for v in op.operands[:3])
    dtype = "f16" if element.bits == 16 else "bf16"
    self.define(op.results[0], f"mma_m{m}n{n}k{k}_{dtype}({a}, {b}, {c})")
