"""``linalg`` named ops MLIR has and xDSL lacks: ``linalg.batch_matmul``, and ``linalg.matmul``
with mixed element types (f16 x f16 -> f32: MLIR's body extends each input to the output's
type before the multiply; xDSL's body multiplies the inputs as they are)::

    %c = linalg.batch_matmul ins(%a, %b : tensor<3x12x10xf32>, tensor<3x10x20xf32>)
                             outs(%init : tensor<3x12x20xf32>) -> tensor<3x12x20xf32>

A batch of matmuls: loops (d0, d1, d2, d3) = (batch, row, column, reduction), ``C[b, i, j] +=
A[b, i, k] * B[b, k, j]``; its maps are ``(d0, d1, d3)``, ``(d0, d3, d2)``, ``(d0, d1, d2)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, AnyFloat, ArrayAttr
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import MatmulOp, NamedOperation, YieldOp
from xdsl.ir import BlockArgument, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import irdl_op_definition, prop_def

from layoutkit.ir.registry import register


@irdl_op_definition
class BatchMatmulOp(NamedOperation):
    """``linalg.batch_matmul``: a matmul per index of the leading (batch) dimension (the
    body, builder and syntax of xDSL's ``linalg.matmul``)."""

    name = "linalg.batch_matmul"

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True

    indexing_maps = prop_def(
        ArrayAttr[AffineMapAttr],
        default_value=ArrayAttr([
            AffineMapAttr(AffineMap.from_callable(lambda b, i, _, k: (b, i, k))),
            AffineMapAttr(AffineMap.from_callable(lambda b, _, j, k: (b, k, j))),
            AffineMapAttr(AffineMap.from_callable(lambda b, i, j, _: (b, i, j))),
        ]),
    )

    __init__ = MatmulOp.__init__
    get_hidden_region = classmethod(MatmulOp.get_hidden_region.__func__)
    get_default_indexing_maps = MatmulOp.get_default_indexing_maps
    get_indexing_maps = MatmulOp.get_indexing_maps

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return ArrayAttr([IteratorTypeAttr.parallel()] * 3 + [IteratorTypeAttr.reduction()])


def _extended(value: SSAValue, to) -> SSAValue:
    """``value`` as type ``to``: ``arith.extf`` for a narrower float, else unchanged."""
    if value.type == to or not isinstance(to, AnyFloat) or not isinstance(value.type, AnyFloat):
        return value
    return arith.ExtFOp(value, to).result


class MixedMatmulOp(MatmulOp):
    """xDSL's ``linalg.matmul`` whose body, as MLIR's, extends the inputs to the output's
    element type: ``f16 x f16 -> f32`` is ``c + extf(a) * extf(b)`` in f32."""

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        arg_types = cls.body_arg_types((*inputs, *outputs))
        out = arg_types[-1]
        if all(t == out for t in arg_types):
            return MatmulOp.get_hidden_region.__func__(cls, inputs, outputs)
        add, mul = (arith.AddfOp, arith.MulfOp) if isinstance(out, AnyFloat) else (arith.AddiOp, arith.MuliOp)

        @Builder.implicit_region(arg_types)
        def hidden_region(args: tuple[BlockArgument, ...]) -> None:
            product = mul(_extended(args[0], out), _extended(args[1], out))
            YieldOp(add(product, args[2]))

        return hidden_region


register("linalg", [BatchMatmulOp, MixedMatmulOp])
