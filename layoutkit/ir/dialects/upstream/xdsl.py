"""xDSL's upstream dialects, registered as they are (layoutkit's patches of some of them
live beside this file and register their ops on top)."""

from __future__ import annotations

from xdsl.dialects import affine, arith, builtin, func, linalg, math, scf, tensor, vector
from xdsl.dialects import bufferization as bufferization_dialect

from layoutkit.ir.registry import register

for _dialect in (builtin.Builtin, func.Func, arith.Arith, math.Math, scf.Scf, vector.Vector,
                 affine.Affine, tensor.Tensor, linalg.Linalg, bufferization_dialect.Bufferization):
    register(_dialect.name, upstream=_dialect)
