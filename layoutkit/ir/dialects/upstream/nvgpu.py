"""``nvgpu.mma.sync``: a warp-wide matrix multiply-accumulate (PTX ``mma.sync.aligned``).

    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]}
           : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>

All 32 lanes of a warp execute it together; each lane holds a fragment of A (m x k), B
(k x n) and C/D (m x n) as ``vector<regs x 2>``. Shapes and per-lane fragment types:

    m16n8k16: A vector<4x2xf16|bf16>, B vector<2x2xf16|bf16>, C/D vector<2x2xf32>
    m16n8k8:  A vector<2x2xf16|bf16>, B vector<1x2xf16|bf16>, C/D vector<2x2xf32>

Which element each lane holds is PTX's fragment layout (see
``layoutkit.backends.simt.mma`` for the index formulas); D = A @ B + C accumulated in f32.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    Float16Type,
    Float32Type,
    IntegerAttr,
    VectorType,
    i64,
)
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir.registry import register

# (m, n, k) -> per-lane fragment shapes of A, B, C/D
MMA_FRAGMENT_SHAPES = {
    (16, 8, 16): ((4, 2), (2, 2), (2, 2)),
    (16, 8, 8): ((2, 2), (1, 2), (2, 2)),
}


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """``%d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [m, n, k]} : (A, B, C) -> D``."""

    name = "nvgpu.mma.sync"
    matrix_a = operand_def(VectorType)
    matrix_b = operand_def(VectorType)
    matrix_c = operand_def(VectorType)
    mma_shape = prop_def(ArrayAttr, prop_name="mmaShape")
    res = result_def(VectorType)

    def __init__(self, a, b, c, shape: tuple[int, int, int]):
        super().__init__(
            operands=[a, b, c],
            result_types=[c.type],
            properties={"mmaShape": ArrayAttr([IntegerAttr(v, i64) for v in shape])},
        )

    @property
    def shape(self) -> tuple[int, int, int]:
        """(m, n, k) of the instruction."""
        return tuple(int(v.value.data) for v in self.mma_shape.data)

    @classmethod
    def parse(cls, parser: Parser) -> MmaSyncOp:
        parser.parse_punctuation("(")
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        c = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        pos = parser.pos
        if "mmaShape" not in attrs:
            parser.raise_error("nvgpu.mma.sync: missing attribute 'mmaShape'", pos, pos)
        parser.parse_punctuation(":")
        func_type = parser.parse_function_type()
        if len(func_type.inputs) != 3 or len(func_type.outputs) != 1:
            parser.raise_error("nvgpu.mma.sync: expected type (A, B, C) -> D", pos, parser.pos)
        ta, tb, tc = func_type.inputs.data
        op = cls.__new__(cls)
        IRDLOperation.__init__(
            op,
            operands=[parser.resolve_operand(a, ta), parser.resolve_operand(b, tb),
                      parser.resolve_operand(c, tc)],
            result_types=[func_type.outputs.data[0]],
            properties={"mmaShape": attrs.pop("mmaShape")},
            attributes=attrs,
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list([self.matrix_a, self.matrix_b, self.matrix_c], printer.print_operand)
        printer.print_string(") {mmaShape = [" + ", ".join(str(v) for v in self.shape) + "]}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_list([self.matrix_a.type, self.matrix_b.type, self.matrix_c.type],
                           printer.print_attribute)
        printer.print_string(") -> ")
        printer.print_attribute(self.res.type)

    def verify_(self) -> None:
        data = self.mma_shape.data
        if len(data) != 3 or not all(isinstance(v, IntegerAttr) for v in data):
            raise VerifyException("nvgpu.mma.sync: mmaShape must be [m, n, k]")
        shape = self.shape
        if shape not in MMA_FRAGMENT_SHAPES:
            raise VerifyException(
                f"nvgpu.mma.sync: mmaShape {list(shape)} not supported (m16n8k16 or m16n8k8)"
            )
        expected = MMA_FRAGMENT_SHAPES[shape]
        for name, value, want in zip("ABC", (self.matrix_a, self.matrix_b, self.matrix_c), expected):
            got = tuple(value.type.get_shape())
            if got != want:
                raise VerifyException(
                    f"nvgpu.mma.sync: operand {name} must be a vector<{want[0]}x{want[1]}x...> "
                    f"fragment for mmaShape {list(shape)}, "
                    f"got {value.type}"
                )
        ea = self.matrix_a.type.element_type
        eb = self.matrix_b.type.element_type
        if not isinstance(ea, (Float16Type, BFloat16Type)) or ea != eb:
            raise VerifyException("nvgpu.mma.sync: A and B must both be f16 or both bf16")
        if not isinstance(self.matrix_c.type.element_type, Float32Type):
            raise VerifyException("nvgpu.mma.sync: C must hold f32 accumulators")
        if self.res.type != self.matrix_c.type:
            raise VerifyException("nvgpu.mma.sync: result type must equal C's type")


register("nvgpu", [MmaSyncOp])

__all__ = ["MMA_FRAGMENT_SHAPES", "MmaSyncOp"]
