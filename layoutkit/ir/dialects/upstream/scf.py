"""``scf.forall`` and its terminator ``scf.forall.in_parallel`` in MLIR's syntax (xDSL 0.74
has neither; its ``scf.index_switch`` already reads and prints MLIR's text)::

    %r = scf.forall (%i, %j) in (4, %n) shared_outs(%o = %init) -> (tensor<4x64xf32>) {
      ...
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %tile into %o[%i, %j] [1, 8] [1, 1] : ...
      }
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}

    scf.forall (%i) = (0) to (%n) step (2) {   // on memrefs: no shared_outs, no results
      ...
    }

Bounds are constants or index values. The loop is printed ``in (upper bounds)`` when every
lower bound is 0 and every step 1, as MLIR does. ``mapping`` (``#gpu.block<x>``,
``#gpu.thread<x>``, ``#gpu.warp<x>``...) is kept as written, one per induction variable.
Without shared outputs the ``in_parallel`` terminator is implicit and not printed.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IndexType, TensorType, i64
from xdsl.dialects.utils import parse_dynamic_index_list_without_types, print_dynamic_index_list
from xdsl.ir import Block, Region
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoTerminator
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir.registry import register

DYNAMIC = -(2**63)
_BOUNDS = ("static_lowerBound", "static_upperBound", "static_step")


@irdl_op_definition
class InParallelOp(IRDLOperation):
    """``scf.forall.in_parallel { tensor.parallel_insert_slice ... }``: the forall's
    terminator, holding the writes of each iteration into the shared outputs."""

    name = "scf.forall.in_parallel"
    region = region_def("single_block")
    traits = traits_def(IsTerminator(), NoTerminator())

    @classmethod
    def parse(cls, parser: Parser) -> InParallelOp:
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        op = cls.build(regions=[region])
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=False, print_empty_block=False)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if not isinstance(self.parent_op(), ForallOp):
            raise VerifyException(f"{self.name}: must terminate an scf.forall")
        for inner in self.region.block.ops:
            if inner.name != "tensor.parallel_insert_slice":
                raise VerifyException(f"{self.name}: may hold only tensor.parallel_insert_slice, "
                                      f"not {inner.name}")


@irdl_op_definition
class ForallOp(IRDLOperation):
    """``scf.forall``: a parallel loop nest over a box of index tuples (see the module doc)."""

    name = "scf.forall"
    dynamic_lowerBound = var_operand_def(IndexType)
    dynamic_upperBound = var_operand_def(IndexType)
    dynamic_step = var_operand_def(IndexType)
    outputs = var_operand_def(TensorType)
    static_lowerBound = prop_def(DenseArrayBase.constr(i64))
    static_upperBound = prop_def(DenseArrayBase.constr(i64))
    static_step = prop_def(DenseArrayBase.constr(i64))
    mapping = opt_prop_def(ArrayAttr)
    res = var_result_def(TensorType)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @property
    def rank(self) -> int:
        return len(self.static_upperBound)

    @property
    def induction_vars(self) -> tuple:
        return self.body.block.args[:self.rank]

    @property
    def shared_out_args(self) -> tuple:
        return self.body.block.args[self.rank:]

    def bounds(self, value) -> tuple[list, list, list]:
        """(lower bounds, upper bounds, steps), each element an int or ``value(operand)``."""
        lists = []
        for static, dynamic in ((self.static_lowerBound, self.dynamic_lowerBound),
                                (self.static_upperBound, self.dynamic_upperBound),
                                (self.static_step, self.dynamic_step)):
            operands = iter(dynamic)
            lists.append([value(next(operands)) if b == DYNAMIC else b for b in static.get_values()])
        return tuple(lists)

    def is_normalized(self) -> bool:
        return (all(b == 0 for b in self.static_lowerBound.get_values()) and
                all(s == 1 for s in self.static_step.get_values()))

    @classmethod
    def parse(cls, parser: Parser) -> ForallOp:
        ivs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False))

        def bound_list() -> tuple[list, list[int]]:
            unresolved, static = parse_dynamic_index_list_without_types(
                parser, DYNAMIC, delimiter=parser.Delimiter.PAREN)
            return [parser.resolve_operand(u, IndexType()) for u in unresolved], list(static)

        if parser.parse_optional_keyword("in"):
            upper = bound_list()
            lower = ([], [0] * len(upper[1]))
            step = ([], [1] * len(upper[1]))
        else:
            parser.parse_punctuation("=")
            lower = bound_list()
            parser.parse_keyword("to")
            upper = bound_list()
            parser.parse_keyword("step")
            step = bound_list()
        out_args, out_operands, result_types = [], [], []
        if parser.parse_optional_keyword("shared_outs"):
            def assignment():
                arg = parser.parse_argument(expect_type=False)
                parser.parse_punctuation("=")
                return arg, parser.parse_unresolved_operand()
            pairs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, assignment)
            parser.parse_punctuation("->")
            result_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            if len(result_types) != len(pairs):
                parser.raise_error(f"scf.forall: {len(pairs)} shared_outs but "
                                   f"{len(result_types)} result types")
            out_operands = [parser.resolve_operand(o, t) for (_, o), t in zip(pairs, result_types)]
            out_args = [a.resolve(t) for (a, _), t in zip(pairs, result_types)]
        args = [iv.resolve(IndexType()) for iv in ivs] + out_args
        body = parser.parse_region(args)
        attributes = parser.parse_optional_attr_dict()
        mapping = attributes.pop("mapping", None)
        block = body.block
        if not isinstance(block.last_op, InParallelOp):
            block.add_op(InParallelOp.build(regions=[Region(Block())]))
        properties = {name: DenseArrayBase.from_list(i64, static)
                      for name, (_, static) in zip(_BOUNDS, (lower, upper, step))}
        properties["mapping"] = mapping
        return cls.build(operands=[lower[0], upper[0], step[0], out_operands],
                         result_types=[result_types], properties=properties,
                         regions=[body], attributes=attributes)

    def print(self, printer: Printer) -> None:
        def bound_list(static, dynamic) -> None:
            print_dynamic_index_list(printer, DYNAMIC, list(dynamic), static.get_values(),
                                     delimiter=Parser.Delimiter.PAREN)

        printer.print_string(" (")
        printer.print_list(self.induction_vars, printer.print_operand)
        if self.is_normalized():
            printer.print_string(") in ")
            bound_list(self.static_upperBound, self.dynamic_upperBound)
        else:
            printer.print_string(") = ")
            bound_list(self.static_lowerBound, self.dynamic_lowerBound)
            printer.print_string(" to ")
            bound_list(self.static_upperBound, self.dynamic_upperBound)
            printer.print_string(" step ")
            bound_list(self.static_step, self.dynamic_step)
        if self.outputs:
            printer.print_string(" shared_outs(")
            printer.print_list(zip(self.shared_out_args, self.outputs), lambda pair: (
                printer.print_operand(pair[0]), printer.print_string(" = "),
                printer.print_operand(pair[1])))
            printer.print_string(") -> (")
            printer.print_list(self.res.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False,
                             print_block_terminators=bool(self.res))
        attributes = dict(self.attributes)
        if self.mapping is not None:
            attributes = {"mapping": self.mapping, **attributes}
        printer.print_op_attributes(attributes)

    def verify_(self) -> None:
        rank = self.rank
        for name, operands in zip(_BOUNDS, (self.dynamic_lowerBound, self.dynamic_upperBound,
                                            self.dynamic_step)):
            static = getattr(self, name).get_values()
            if len(static) != rank:
                raise VerifyException(f"{self.name}: {len(static)} {name[7:]} values for "
                                      f"{rank} induction variables")
            if sum(v == DYNAMIC for v in static) != len(operands):
                raise VerifyException(f"{self.name}: {name[7:]} names {len(operands)} values "
                                      f"but has {sum(v == DYNAMIC for v in static)} dynamic entries")
        bad = [s for s in self.static_step.get_values() if s != DYNAMIC and s <= 0]
        if bad:
            raise VerifyException(f"{self.name}: constant step must be positive, got {bad[0]}")
        if rank == 0:
            raise VerifyException(f"{self.name}: needs at least one induction variable")
        block = self.body.block
        if len(block.args) != rank + len(self.outputs):
            raise VerifyException(f"{self.name}: {rank} bounds and {len(self.outputs)} shared_outs "
                                  f"need {rank + len(self.outputs)} block arguments (induction "
                                  f"variables, then shared outputs), got {len(block.args)}")
        if any(not isinstance(a.type, IndexType) for a in block.args[:rank]):
            raise VerifyException(f"{self.name}: induction variables must be index")
        if len(self.res) != len(self.outputs):
            raise VerifyException(f"{self.name}: {len(self.outputs)} shared_outs but "
                                  f"{len(self.res)} results")
        for k, (out, arg, result) in enumerate(zip(self.outputs, self.shared_out_args, self.res)):
            if not (out.type == arg.type == result.type):
                raise VerifyException(f"{self.name}: shared_outs #{k} has types {out.type}, "
                                      f"{arg.type} and result {result.type}; they must be equal")
        if not isinstance(block.last_op, InParallelOp):
            raise VerifyException(f"{self.name}: the body must end with scf.forall.in_parallel")
        if self.mapping is not None and len(self.mapping.data) != rank:
            raise VerifyException(f"{self.name}: mapping has {len(self.mapping.data)} entries "
                                  f"for {rank} induction variables")


register("scf", [ForallOp, InParallelOp])
