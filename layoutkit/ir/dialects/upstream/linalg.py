"""``linalg`` named ops MLIR has and xDSL lacks: ``linalg.batch_matmul``::

    %c = linalg.batch_matmul ins(%a, %b : tensor<3x12x10xf32>, tensor<3x10x20xf32>)
                             outs(%init : tensor<3x12x20xf32>) -> tensor<3x12x20xf32>

A batch of matmuls: loops (d0, d1, d2, d3) = (batch, row, column, reduction), ``C[b, i, j] +=
A[b, i, k] * B[b, k, j]``; its maps are ``(d0, d1, d3)``, ``(d0, d3, d2)``, ``(d0, d1, d2)``.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import MatmulOp, NamedOperation
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


register("linalg", [BatchMatmulOp])
