"""CUDA emitters of ``math``: each op a CUDA math function, the f32 version with an ``f``
(``math.exp`` on f32 -> ``expf(x)``; on f16 through f32: ``float_to_f16(expf(f16_to_float(x)))``)."""

from __future__ import annotations

from typing import Any

from xdsl.dialects import math

from layoutkit.backends.cuda.c_text import MATH_FUNCTIONS
from layoutkit.backends.cuda.ops.arith import elementwise
from layoutkit.backends.cuda.registry import emits
from layoutkit.backends.types import Scalar

# op class -> CUDA function (f32: name + "f")
FUNCTIONS = {cls: MATH_FUNCTIONS[cls.name.split(".", 1)[1]] for cls in math.Math.operations
             if cls.name.split(".", 1)[1] in MATH_FUNCTIONS}


def math_call(op: Any, args: list[str], t: Scalar) -> str | None:
    """``expf(x)``, ``abs(i)``...: the call for ``op`` on ``args`` of type t, None if none."""
    if isinstance(op, math.AbsIOp):
        return f"abs({args[0]})"
    function = MATH_FUNCTIONS.get(op.name.split(".", 1)[1])
    if function is None:
        return None
    return f"{function}{'' if t.bits == 64 else 'f'}({', '.join(args)})"


emits(math.AbsIOp, *FUNCTIONS)(elementwise)
