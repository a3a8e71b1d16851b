"""``tensor`` slices in MLIR's syntax, with MLIR's checks: ``extract_slice``, ``insert_slice``,
``empty`` (xDSL's syntax, verifiers added) and ``parallel_insert_slice`` (new)::

    %e = tensor.empty(%n) : tensor<?x4xf32>
    %s = tensor.extract_slice %t[%i, 0] [1, 4] [1, 1] : tensor<16x16xf32> to tensor<4xf32>
    %u = tensor.insert_slice %s into %t[0, %j] [1, 4] [1, 1] : tensor<4xf32> into tensor<16x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %out[%i, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<16x16xf32>
    }

A slice is ``offsets`` / ``sizes`` / ``strides``, one per dimension of the big tensor, each a
constant or an index value. The small tensor has the slice's shape, or that shape with some
unit dimensions dropped (rank-reducing): above, ``[1, 4]`` of a 2-d tensor is a
``tensor<4xf32>``. A slice with constant offset, size and stride must lie inside a static
dimension: ``offset + (size - 1) * stride < dim``.
"""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, TensorType, i64
from xdsl.dialects.utils import DynamicIndexList
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir.registry import register


def dropped_dims(slice_shape: list[int], small_shape: list[int]) -> list[int] | None:
    """The unit dimensions of ``slice_shape`` left out of ``small_shape`` (a rank-reducing
    slice), leftmost first; None when ``small_shape`` is not ``slice_shape`` less unit dims.
    Example: slice [1, 4, 1], small [4] -> [0, 2]; slice [2, 4], small [4] -> None."""
    dropped, k = [], 0
    for d, size in enumerate(slice_shape):
        if k < len(small_shape) and small_shape[k] == size:
            k += 1  # kept (matching a unit dim early or late drops the same number)
        elif size == 1:
            dropped.append(d)
        else:
            return None
    return dropped if k == len(small_shape) else None


def verify_slice(op, big: TensorType, small: TensorType, small_name: str) -> None:
    """MLIR's checks of a slice of ``big`` whose tensor is ``small`` (VerifyException)."""
    offsets = op.static_offsets.get_values()
    sizes = op.static_sizes.get_values()
    strides = op.static_strides.get_values()
    shape = big.get_shape()
    for what, static, dynamic in (("offsets", offsets, op.offsets), ("sizes", sizes, op.sizes),
                                  ("strides", strides, op.strides)):
        if len(static) != len(shape):
            raise VerifyException(f"{op.name}: {len(static)} {what} for a tensor of rank {len(shape)}")
        if sum(v == DYNAMIC_INDEX for v in static) != len(dynamic):
            raise VerifyException(f"{op.name}: {what} name {sum(v == DYNAMIC_INDEX for v in static)} "
                                  f"values but {len(dynamic)} are given")
    if small.get_element_type() != big.get_element_type():
        raise VerifyException(f"{op.name}: element types differ: {small} and {big}")
    slice_shape = list(sizes)
    if dropped_dims(slice_shape, list(small.get_shape())) is None:
        shown = "x".join("?" if s == DYNAMIC_INDEX else str(s) for s in sizes)
        raise VerifyException(f"{op.name}: the {small_name} {small} is not the slice's shape "
                              f"{shown} (or it less unit dimensions)")
    for d, (offset, size, stride, dim) in enumerate(zip(offsets, sizes, strides, shape)):
        if DYNAMIC_INDEX in (offset, size, stride) or dim == DYNAMIC_INDEX or size == 0:
            continue
        if offset < 0 or size < 0 or offset + (size - 1) * stride >= dim:
            raise VerifyException(f"{op.name}: dimension {d}: offset {offset}, size {size}, stride "
                                  f"{stride} leave the tensor's extent {dim}")


class ExtractSliceOp(tensor.ExtractSliceOp):
    """xDSL's ``tensor.extract_slice`` with MLIR's shape and bounds checks."""

    def verify_(self) -> None:
        verify_slice(self, self.source.type, self.result.type, "result")


class InsertSliceOp(tensor.InsertSliceOp):
    """xDSL's ``tensor.insert_slice`` with MLIR's shape and bounds checks."""

    def verify_(self) -> None:
        verify_slice(self, self.dest.type, self.source.type, "source")


class EmptyOp(tensor.EmptyOp):
    """xDSL's ``tensor.empty``; one size operand per dynamic dimension, as MLIR checks."""

    def verify_(self) -> None:
        dynamic = sum(d == DYNAMIC_INDEX for d in self.tensor.type.get_shape())
        if dynamic != len(self.dynamic_sizes):
            raise VerifyException(f"{self.name}: {self.tensor.type} has {dynamic} dynamic "
                                  f"dimensions but {len(self.dynamic_sizes)} sizes are given")


@irdl_op_definition
class ParallelInsertSliceOp(IRDLOperation):
    """``tensor.parallel_insert_slice %s into %out[...] [...] [...] : T into U``: inside
    ``scf.forall.in_parallel``, writes ``%s`` into the slice of the loop's shared output
    ``%out`` (a block argument of the forall); no result."""

    name = "tensor.parallel_insert_slice"
    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase.constr(i64))
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    static_strides = prop_def(DenseArrayBase.constr(i64))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$source `into` $dest ``"
        "custom<DynamicIndexList>($offsets, $static_offsets)"
        "custom<DynamicIndexList>($sizes, $static_sizes)"
        "custom<DynamicIndexList>($strides, $static_strides)"
        "attr-dict `:` type($source) `into` type($dest)"
    )
    custom_directives = (DynamicIndexList,)

    def verify_(self) -> None:
        from layoutkit.ir.dialects.upstream.scf import ForallOp, InParallelOp

        verify_slice(self, self.dest.type, self.source.type, "source")
        parent = self.parent_op()
        if not isinstance(parent, InParallelOp):
            raise VerifyException(f"{self.name}: must be inside scf.forall.in_parallel")
        forall = parent.parent_op()
        if isinstance(forall, ForallOp) and self.dest not in forall.shared_out_args:
            raise VerifyException(f"{self.name}: the destination must be a shared_outs "
                                  "argument of the enclosing scf.forall")


register("tensor", [ExtractSliceOp, InsertSliceOp, EmptyOp, ParallelInsertSliceOp])
