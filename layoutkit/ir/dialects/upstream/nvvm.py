"""Named barriers of MLIR's ``nvvm`` dialect (PTX ``bar.sync`` / ``bar.arrive``), in MLIR's syntax::

    nvvm.barrier                                         // bar.sync 0: the whole block
    nvvm.barrier id = %id number_of_threads = %n         // bar.sync id, n
    nvvm.barrier.arrive id = %id number_of_threads = %n  // bar.arrive id, n

``id`` (i32, 0..15; 0 when absent) names one of the block's 16 hardware barriers;
``number_of_threads`` (i32, a multiple of the warp size; the whole block when absent) is how
many threads must arrive before it completes. Each warp that executes the op counts as warp
size threads. ``nvvm.barrier`` waits for completion; ``nvvm.barrier.arrive`` only counts its
arrival and goes on (a producer signalling a consumer). Example: 4 producer warps run
``bar.arrive 1, 256`` after writing a tile, 4 consumer warps ``bar.sync 1, 256`` before
reading it: the consumers leave the barrier when all 8 warps arrived, and the producers'
writes before their arrival are visible to the consumers' reads after it.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerType, i32
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation, irdl_op_definition, opt_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir.registry import register

NUM_BARRIERS = 16  # hardware barriers per block (ids 0..15)


class _NamedBarrier:
    """``[id = %id] [number_of_threads = %n]`` with i32 operands."""

    REQUIRES_COUNT: ClassVar[bool] = False

    @classmethod
    def parse(cls, parser: Parser):
        operands = {"id": None, "number_of_threads": None}
        for word in operands:
            if parser.parse_optional_keyword(word) is not None:
                parser.parse_punctuation("=")
                operands[word] = parser.resolve_operand(parser.parse_unresolved_operand(), i32)
        attributes = parser.parse_optional_attr_dict()
        return cls.build(operands=[[v] if v is not None else [] for v in operands.values()],
                         attributes=attributes)

    def print(self, printer: Printer) -> None:
        for word, value in (("id", self.barrier_id), ("number_of_threads", self.number_of_threads)):
            if value is not None:
                printer.print_string(f" {word} = ")
                printer.print_operand(value)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        for word, value in (("id", self.barrier_id), ("number_of_threads", self.number_of_threads)):
            if value is not None and not (isinstance(value.type, IntegerType) and value.type.width.data == 32):
                raise VerifyException(f"{self.name}: {word}: expected an i32, got {value.type}")
        if self.REQUIRES_COUNT and self.number_of_threads is None:
            raise VerifyException(f"{self.name}: number_of_threads: required (bar.arrive needs a count)")


@irdl_op_definition
class BarrierOp(_NamedBarrier, IRDLOperation):
    """``nvvm.barrier [id = %id] [number_of_threads = %n]``: PTX ``bar.sync``: arrive and wait."""

    name = "nvvm.barrier"
    barrier_id = opt_operand_def(i32)
    number_of_threads = opt_operand_def(i32)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)


@irdl_op_definition
class BarrierArriveOp(_NamedBarrier, IRDLOperation):
    """``nvvm.barrier.arrive [id = %id] number_of_threads = %n``: PTX ``bar.arrive``: arrive, do not wait."""

    name = "nvvm.barrier.arrive"
    REQUIRES_COUNT: ClassVar[bool] = True
    barrier_id = opt_operand_def(i32)
    number_of_threads = opt_operand_def(i32)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)


register("nvvm", [BarrierOp, BarrierArriveOp])

__all__ = ["NUM_BARRIERS", "BarrierArriveOp", "BarrierOp"]
