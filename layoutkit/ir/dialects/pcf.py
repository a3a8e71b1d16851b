"""IREE's PCF (parallel control flow) base dialect (seed 002) in IREE 3.13's syntax::

    %r = pcf.loop scope(#iree_codegen.workgroup_scope<linearize>) count(%m, %n)
      execute(%ref = %init)[%i: index, %j: index]
           : (!pcf.sref<64x64xf32, sync(#iree_codegen.workgroup_scope<linearize>)>)
          -> (tensor<64x64xf32>) {
      %t = pcf.read_slice %ref[%i, %j] [4, 4] [1, 1] : !pcf.sref<...> to tensor<4x4xf32>
      pcf.write_slice %t into %ref[%i, %j] [4, 4] [1, 1] : tensor<4x4xf32> into !pcf.sref<...>
      pcf.return
    }
    %g = pcf.generic sync true scope(#iree_gpu.subgroup_scope) initialize {
        %a = pcf.alloc(%d) : !pcf.sref<?x8xf32, #iree_gpu.subgroup_scope>
        pcf.yield %a : !pcf.sref<?x8xf32, #iree_gpu.subgroup_scope>
      } -> (%scratch: !pcf.sref<?x8xf32, #iree_gpu.subgroup_scope>)
      execute(%ref = %buf, %fresh)[%id: index, %count: index]
           : (!pcf.sref<?x8xf32, #iree_gpu.subgroup_scope>, !pcf.sref<4xf32, #iree_gpu.subgroup_scope>)
          -> (memref<?x8xf32>, tensor<4xf32>) {
      ...
      pcf.br.cond_return %cond ^bb1(%id : index)   // return when %cond, else continue at ^bb1
    ^bb1(%x: index):
      pcf.return
    }

Types and attributes:

- ``!pcf.sref<SHAPExELT, SCOPE[, SYNC]>``: a shaped reference owned by ``SCOPE``; ``SYNC``
  (any attribute or type) says how accesses synchronise. ``sync(SCOPE)`` is shorthand for
  ``SCOPE, #pcf.sync_on_return`` (fenced when the scope's workers return) and is how it prints.
- Scopes: ``#pcf.sequential`` (one worker), ``#iree_codegen.workgroup_scope`` (the workgroup
  grid; ``<linearize>`` linearises several ids onto one grid dimension),
  ``#iree_gpu.subgroup_scope`` (subgroups of a workgroup), ``#iree_gpu.lane_scope`` (lanes of
  a subgroup).

Ops and their semantics (as IREE states them):

- ``pcf.generic``: every worker of the scope's native worker set runs the execute region with
  its ids and the worker counts (``[%id0, ..., %count0, ...]``, as many counts as ids). The
  optional ``initialize`` region runs once first; what it yields becomes the leading block
  arguments of the execute region.
- ``pcf.loop``: the execute region runs once per point of ``count(...)`` with that point's ids;
  the scope maps points to workers.
- For both, each ``%ref = %init`` ties a result to an init (tensor or memref; the result has the
  init's type); a ``%ref`` without init is a fresh result whose dynamic sizes follow its type
  (``tensor<?x4xf32>{%n}``). Results are snapshots of the tied srefs after every worker has
  returned. Different coordinates of an sref never alias. ``sync true`` fences at return.
- ``pcf.read_slice`` / ``pcf.write_slice`` / ``pcf.get_memref``: offsets, sizes, strides as in
  ``tensor.extract_slice``. A vector read may be larger than its sizes: the lanes beyond them
  are undefined. ``get_memref`` returns a view with fully dynamic strides and offset (and no
  memory space), breaking the sref's synchronisation guarantees.
- Terminators: ``pcf.return`` (a worker returns), ``pcf.yield`` (ends ``initialize``),
  ``pcf.br.cond_return %c ^bb(args)`` (returns when ``%c``, else branches; in ``generic`` only).

Verifiers check what IREE's do (types tied, block arguments, terminators, ranks, element
types, the ``get_memref`` layout) and also static slice sizes against the value written or read.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    IndexType,
    IntAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    TensorType,
    VectorType,
    i1,
    i64,
)
from xdsl.dialects.utils import parse_dynamic_index_list_without_types, print_dynamic_index_list
from xdsl.ir import Attribute, ParametrizedAttribute, Region, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    successor_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir.registry import register

# Ops of extension modules (``pcf_ext``) whose regions end with ``pcf.return`` / ``pcf.yield``.
RETURN_PARENTS: set[str] = set()
YIELD_PARENTS: set[str] = set()

DYNAMIC = -(2**63)  # a dynamic entry of offsets/sizes/strides (MLIR's kDynamic)


# ---------------------------------------------------------------- scopes
class _ScopeBase(ParametrizedAttribute):
    """A PCF scope: who the workers are (see the module doc)."""


@irdl_attr_definition
class SequentialScopeAttr(_ScopeBase):
    """``#pcf.sequential``: one worker; a loop at this scope runs its iterations in order."""

    name = "pcf.sequential"


@irdl_attr_definition
class WorkgroupScopeAttr(_ScopeBase):
    """``#iree_codegen.workgroup_scope`` or ``#iree_codegen.workgroup_scope<linearize>``: the
    workgroups of a dispatch; with ``linearize`` several ids share one grid dimension
    (row-major: ids ``(i, j)`` of counts ``(m, n)`` run on workgroup ``i * n + j``)."""

    name = "iree_codegen.workgroup_scope"
    linearize: BoolAttr

    def __init__(self, linearize: bool = False):
        super().__init__(BoolAttr.from_bool(linearize))

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        if parser.parse_optional_punctuation("<") is None:
            return [BoolAttr.from_bool(False)]
        pos = parser.pos
        word = parser.parse_identifier()
        if word != "linearize":
            parser.raise_error(f"iree_codegen.workgroup_scope: expected 'linearize', got '{word}'",
                               pos, parser.pos)
        parser.parse_punctuation(">")
        return [BoolAttr.from_bool(True)]

    def print_parameters(self, printer: Printer) -> None:
        if self.linearize.value.data:
            printer.print_string("<linearize>")


@irdl_attr_definition
class SubgroupScopeAttr(_ScopeBase):
    """``#iree_gpu.subgroup_scope``: the subgroups (warps) of one workgroup."""

    name = "iree_gpu.subgroup_scope"


@irdl_attr_definition
class LaneScopeAttr(_ScopeBase):
    """``#iree_gpu.lane_scope``: the lanes of one subgroup."""

    name = "iree_gpu.lane_scope"


@irdl_attr_definition
class SyncOnReturnAttr(ParametrizedAttribute):
    """``#pcf.sync_on_return``: an sref's accesses are fenced when its scope's workers return."""

    name = "pcf.sync_on_return"


SCOPES = (SequentialScopeAttr, WorkgroupScopeAttr, SubgroupScopeAttr, LaneScopeAttr)


def is_scope(attr: Attribute) -> bool:
    return isinstance(attr, _ScopeBase)


# ---------------------------------------------------------------- !pcf.sref
@irdl_attr_definition
class ShapedRefType(ParametrizedAttribute, TypeAttribute):
    """``!pcf.sref<4x?xf32, SCOPE[, SYNC]>``; ``sync(SCOPE)`` means ``SCOPE, #pcf.sync_on_return``.
    ``shape`` holds -1 for ``?``; ``sync_scope`` is ``NoneAttr`` when absent."""

    name = "pcf.sref"
    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    scope: Attribute
    sync_scope: Attribute

    def __init__(self, shape, element_type: Attribute, scope: Attribute,
                 sync_scope: Attribute | None = None):
        super().__init__(ArrayAttr([IntAttr(d) for d in shape]), element_type, scope,
                         NoneAttr() if sync_scope is None else sync_scope)

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    def get_element_type(self) -> Attribute:
        return self.element_type

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    @property
    def syncs_on_return(self) -> bool:
        return isinstance(self.sync_scope, SyncOnReturnAttr)

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            shape, element = parser.parse_ranked_shape()
            parser.parse_punctuation(",")
            if parser.parse_optional_keyword("sync"):
                with parser.in_parens():
                    scope = parser.parse_attribute()
                sync = SyncOnReturnAttr()
            else:
                scope = parser.parse_attribute()
                sync = parser.parse_attribute() if parser.parse_optional_punctuation(",") else NoneAttr()
        return [ArrayAttr([IntAttr(d) for d in shape]), element, scope, sync]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + "".join("?x" if d < 0 else f"{d}x" for d in self.get_shape()))
        printer.print_attribute(self.element_type)
        printer.print_string(", ")
        if self.syncs_on_return:
            printer.print_string("sync(")
            printer.print_attribute(self.scope)
            printer.print_string(")")
            return printer.print_string(">")
        printer.print_attribute(self.scope)
        if not isinstance(self.sync_scope, NoneAttr):
            printer.print_string(", ")
            printer.print_attribute(self.sync_scope)
        printer.print_string(">")

    def verify(self) -> None:
        if not is_scope(self.scope):
            raise VerifyException(f"pcf.sref: scope: expected a scope (#pcf.sequential, "
                                  f"#iree_codegen.workgroup_scope, #iree_gpu.subgroup_scope, "
                                  f"#iree_gpu.lane_scope), got {self.scope}")
        if any(d < DYNAMIC_INDEX for d in self.get_shape()):
            raise VerifyException(f"pcf.sref: shape: negative size in {self.get_shape()}")


def _dims(type_) -> tuple[int, ...]:
    return tuple(type_.get_shape())


def _shape_text(shape) -> str:
    return "x".join("?" if d < 0 else str(d) for d in shape)


# ---------------------------------------------------------------- pcf.alloc
@irdl_op_definition
class AllocOp(IRDLOperation):
    """``%s = pcf.alloc(%d0) : !pcf.sref<?x8xf32, #iree_gpu.subgroup_scope>``: a fresh sref,
    one size operand per ``?``; its scope owns it (subgroup scope: workgroup shared memory)."""

    name = "pcf.alloc"
    dynamic_sizes = var_operand_def(IndexType)
    result = result_def(ShapedRefType)

    assembly_format = "`(` $dynamic_sizes `)` attr-dict `:` type($result)"

    def verify_(self) -> None:
        dynamic = sum(d < 0 for d in self.result.type.get_shape())
        if dynamic != len(self.dynamic_sizes):
            raise VerifyException(f"{self.name}: dynamic_sizes: {self.result.type} has {dynamic} "
                                  f"dynamic dims but {len(self.dynamic_sizes)} sizes are given")


# ---------------------------------------------------------------- terminators
@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``pcf.return``: the worker returns (no fence of its own)."""

    name = "pcf.return"
    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        parent = self.parent_op()
        if not isinstance(parent, (GenericOp, LoopOp)) and getattr(parent, "name", None) not in RETURN_PARENTS:
            raise VerifyException(f"{self.name}: must be inside a pcf.generic or pcf.loop")


@irdl_op_definition
class YieldOp(IRDLOperation):
    """``pcf.yield %a, %b : T, U``: ends a ``pcf.generic``'s ``initialize`` region."""

    name = "pcf.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())

    @classmethod
    def parse(cls, parser: Parser) -> YieldOp:
        attributes = parser.parse_optional_attr_dict()
        unresolved = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand) or []
        types = []
        if unresolved:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(unresolved):
            parser.raise_error(f"pcf.yield: {len(unresolved)} values but {len(types)} types")
        return cls.build(operands=[[parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]],
                         attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        if self.values:
            printer.print_string(" ")
            printer.print_list(self.values, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list(self.values.types, printer.print_attribute)

    def verify_(self) -> None:
        parent = self.parent_op()
        if getattr(parent, "name", None) in YIELD_PARENTS:
            return
        if not isinstance(parent, GenericOp) or self.parent_region() is not parent.initializer:
            raise VerifyException(f"{self.name}: must end the initialize region of a pcf.generic")


@irdl_op_definition
class BranchCondReturnOp(IRDLOperation):
    """``pcf.br.cond_return %c ^bb1(%x : index)``: return when ``%c`` is true, else branch."""

    name = "pcf.br.cond_return"
    condition = operand_def(IntegerType)
    dest_operands = var_operand_def()
    dest = successor_def()
    traits = traits_def(IsTerminator())

    @classmethod
    def parse(cls, parser: Parser) -> BranchCondReturnOp:
        condition = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        dest = parser.parse_successor()
        operands = []
        if parser.parse_optional_punctuation("("):
            unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE,
                                                           parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            if len(types) != len(unresolved):
                parser.raise_error(f"pcf.br.cond_return: {len(unresolved)} operands but {len(types)} types")
            operands = [parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]
        attributes = parser.parse_optional_attr_dict()
        return cls.build(operands=[condition, operands], successors=[dest], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.condition)
        printer.print_string(" ")
        printer.print_block_name(self.dest)
        if self.dest_operands:
            printer.print_string("(")
            printer.print_list(self.dest_operands, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list(self.dest_operands.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if self.condition.type != i1:
            raise VerifyException(f"{self.name}: condition: expected i1, got {self.condition.type}")
        parent = self.parent_op()
        if not isinstance(parent, GenericOp) or self.parent_region() is not parent.region:
            raise VerifyException(f"{self.name}: must be in the execute region of a pcf.generic")
        want = [a.type for a in self.dest.args]
        got = list(self.dest_operands.types)
        if want != got:
            raise VerifyException(f"{self.name}: dest_operands: types ({', '.join(map(str, got))}) "
                                  f"do not match the block arguments ({', '.join(map(str, want))})")


# ---------------------------------------------------------------- generic / loop
def _parse_execute(parser: Parser, op_name: str, leading: list, index_args: int | None):
    """``execute(%ref = %init, %fresh)[%id: index, ...] [: (srefs) -> (results{dims})]``;
    returns (inits, dynamic sizes, result types, is_tied, region, number of index args).
    ``index_args``: how many ``[...]`` arguments the op needs (None: any even number)."""
    parser.parse_keyword("execute")
    refs = []  # (argument, unresolved init or None)
    if parser.parse_optional_punctuation("(") is not None:
        def ref():
            arg = parser.parse_argument(expect_type=False)
            init = parser.parse_unresolved_operand() if parser.parse_optional_punctuation("=") else None
            return arg, init
        refs = parser.parse_comma_separated_list(parser.Delimiter.NONE, ref)
        parser.parse_punctuation(")")
    pos = parser.pos
    ids = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_argument)
    if index_args is not None and len(ids) != index_args:
        parser.raise_error(f"{op_name}: execute: expected {index_args} ids (one per count), got "
                           f"{len(ids)}", pos, parser.pos)
    if index_args is None and len(ids) % 2:
        parser.raise_error(f"{op_name}: execute: needs as many counts as ids (an even number of "
                           f"index arguments), got {len(ids)}", pos, parser.pos)
    sref_types, result_types, sizes = [], [], []
    if parser.parse_optional_punctuation(":") is not None:
        sref_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        parser.parse_punctuation("->")

        def result():
            type_ = parser.parse_type()
            if parser.parse_optional_punctuation("{") is not None:
                dims = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
                parser.parse_punctuation("}")
                sizes.extend(parser.resolve_operand(d, IndexType()) for d in dims)
            return type_
        result_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, result)
    if not (len(refs) == len(sref_types) == len(result_types)):
        parser.raise_error(f"{op_name}: execute: {len(refs)} refs, {len(sref_types)} sref types and "
                           f"{len(result_types)} result types must be as many")
    inits = [parser.resolve_operand(init, t) for (_, init), t in zip(refs, result_types) if init is not None]
    is_tied = [init is not None for _, init in refs]
    args = [*leading, *(arg.resolve(t) for (arg, _), t in zip(refs, sref_types)), *ids]
    region = parser.parse_region(args)
    return inits, sizes, result_types, is_tied, region, len(ids)


def _print_execute(printer: Printer, op) -> None:
    """The ``execute`` part as IREE 3.13 prints it (newline, indented two levels)."""
    printer._print_new_line(indent=printer._indent + 1)
    printer.print_string("execute")
    refs = op.ref_args
    if refs:
        inits = iter(op.inits)
        printer.print_string("(")
        for k, (arg, tied) in enumerate(zip(refs, op.tied_flags)):
            printer.print_string(", " if k else "")
            printer.print_operand(arg)
            if tied:
                printer.print_string(" = ")
                printer.print_operand(next(inits))
        printer.print_string(")")
    printer.print_string("[")
    printer.print_list(op.index_args, printer.print_block_argument)
    printer.print_string("]")
    if refs:
        printer._print_new_line(indent=printer._indent + 1)
        printer.print_string("     : (")
        printer.print_list([a.type for a in refs], printer.print_attribute)
        printer.print_string(")")
        printer._print_new_line(indent=printer._indent + 1)
        printer.print_string("    -> (")
        sizes = iter(op.dynamic_sizes)
        for k, (result, tied) in enumerate(zip(op.results, op.tied_flags)):
            printer.print_string(", " if k else "")
            printer.print_attribute(result.type)
            dynamic = sum(d < 0 for d in _dims(result.type))
            if not tied and dynamic:
                printer.print_string("{")
                printer.print_list([next(sizes) for _ in range(dynamic)], printer.print_operand)
                printer.print_string("}")
        printer.print_string(")")
    printer.print_string(" ")
    printer.print_region(op.region, print_entry_block_args=False)
    printer.print_op_attributes(op.attributes)


def _verify_parallel(op, leading: int, index_args: int) -> None:
    """What ``pcf.generic`` and ``pcf.loop`` share: scope, tied inits, ref args, terminators."""
    name = op.name
    if not is_scope(op.scope):
        raise VerifyException(f"{name}: scope: expected a scope, got {op.scope}")
    flags = op.tied_flags
    if len(flags) != len(op.results):
        raise VerifyException(f"{name}: is_tied: {len(flags)} flags for {len(op.results)} results")
    if sum(flags) != len(op.inits):
        raise VerifyException(f"{name}: {sum(flags)} tied results but {len(op.inits)} inits")
    entry = op.region.blocks.first
    if entry is None:
        raise VerifyException(f"{name}: the execute region needs a block")
    want = leading + len(op.results) + index_args
    if len(entry.args) != want:
        raise VerifyException(f"{name}: the execute region needs {want} block arguments "
                              f"({leading} initialized, {len(op.results)} refs, {index_args} "
                              f"index), got {len(entry.args)}")
    inits = iter(op.inits)
    dynamic_needed = 0
    for k, (result, tied, arg) in enumerate(zip(op.results, flags, op.ref_args)):
        rtype = result.type
        if not isinstance(rtype, (TensorType, MemRefType)):
            raise VerifyException(f"{name}: result #{k}: expected a ranked tensor or memref, got {rtype}")
        if tied:
            init = next(inits)
            if init.type != rtype:
                raise VerifyException(f"{name}: result #{k}: type {rtype} must be its init's {init.type}")
        else:
            dynamic_needed += sum(d < 0 for d in _dims(rtype))
        atype = arg.type
        if not isinstance(atype, ShapedRefType):
            raise VerifyException(f"{name}: ref #{k}: expected a !pcf.sref, got {atype}")
        if atype.get_shape() != _dims(rtype) or atype.element_type != rtype.element_type:
            raise VerifyException(f"{name}: ref #{k}: {atype} must have the shape and element type "
                                  f"of its result {rtype}")
        if atype.scope != op.scope:
            raise VerifyException(f"{name}: ref #{k}: scope {atype.scope} of {atype} must be the "
                                  f"op's scope {op.scope}")
    if dynamic_needed != len(op.dynamic_sizes):
        raise VerifyException(f"{name}: dynamic_sizes: the untied results have {dynamic_needed} "
                              f"dynamic dims but {len(op.dynamic_sizes)} sizes are given")
    if any(not isinstance(a.type, IndexType) for a in op.index_args):
        raise VerifyException(f"{name}: the id and count arguments must be index")
    for block in op.region.blocks:
        last = block.last_op
        if not isinstance(last, (ReturnOp, BranchCondReturnOp)):
            raise VerifyException(f"{name}: every block of the execute region must end with "
                                  f"pcf.return or pcf.br.cond_return, got "
                                  f"{last.name if last else 'an empty block'}")


class _Parallel:
    """Accessors shared by ``pcf.generic`` and ``pcf.loop``."""

    @property
    def tied_flags(self) -> list[bool]:
        return [bool(v) for v in self.is_tied.get_values()]

    @property
    def num_leading(self) -> int:
        return 0

    @property
    def ref_args(self) -> tuple:
        args = self.region.blocks.first.args
        return tuple(args[self.num_leading:self.num_leading + len(self.results)])

    @property
    def index_args(self) -> tuple:
        args = self.region.blocks.first.args
        return tuple(args[self.num_leading + len(self.results):])


@irdl_op_definition
class GenericOp(_Parallel, IRDLOperation):
    """``pcf.generic [sync true] scope(S) [initialize {...} -> (%a: T)] execute(...)[ids, counts]
    : (srefs) -> (results) { ... }`` (see the module doc)."""

    name = "pcf.generic"
    inits = var_operand_def()
    dynamic_sizes = var_operand_def(IndexType)
    scope = prop_def(Attribute)
    is_tied = prop_def(DenseArrayBase)
    sync_on_return = prop_def(BoolAttr)
    num_leading_args = prop_def(IntAttr)
    results_ = var_result_def()
    initializer = region_def()
    region = region_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @property
    def num_leading(self) -> int:
        return self.num_leading_args.data

    @property
    def ids(self) -> tuple:
        args = self.index_args
        return args[:len(args) // 2]

    @property
    def counts(self) -> tuple:
        args = self.index_args
        return args[len(args) // 2:]

    @classmethod
    def parse(cls, parser: Parser) -> GenericOp:
        sync = False
        if parser.parse_optional_keyword("sync"):
            pos = parser.pos
            word = parser.parse_identifier()
            if word not in ("true", "false"):
                parser.raise_error(f"pcf.generic: sync: expected true or false, got '{word}'", pos, parser.pos)
            sync = word == "true"
        parser.parse_keyword("scope")
        with parser.in_parens():
            scope = parser.parse_attribute()
        initializer, leading = Region(), []
        if parser.parse_optional_keyword("initialize"):
            initializer = parser.parse_region()
            parser.parse_punctuation("->")
            leading = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        inits, sizes, types, tied, region, n_index = _parse_execute(parser, cls.name, leading, None)
        attributes = parser.parse_optional_attr_dict()
        return cls.build(operands=[inits, sizes], result_types=[types], regions=[initializer, region],
                         attributes=attributes,
                         properties={"scope": scope, "is_tied": DenseArrayBase.from_list(i1, tied),
                                     "sync_on_return": BoolAttr.from_bool(sync),
                                     "num_leading_args": IntAttr(len(leading))})

    def print(self, printer: Printer) -> None:
        if self.sync_on_return.value.data:
            printer.print_string(" sync true")
        printer.print_string(" scope(")
        printer.print_attribute(self.scope)
        printer.print_string(")")
        if self.initializer.blocks:
            printer.print_string(" initialize ")
            printer.print_region(self.initializer, print_entry_block_args=False)
            printer.print_string(" -> (")
            printer.print_list(self.region.blocks.first.args[:self.num_leading], printer.print_block_argument)
            printer.print_string(")")
        _print_execute(printer, self)

    def verify_(self) -> None:
        n_index = len(self.index_args) if self.region.blocks else 0
        if n_index % 2 or n_index == 0:
            raise VerifyException(f"{self.name}: needs ids and as many counts ([%id: index, "
                                  f"%count: index]), got {n_index} index arguments")
        _verify_parallel(self, self.num_leading, n_index)
        leading = [a.type for a in self.region.blocks.first.args[:self.num_leading]]
        if self.initializer.blocks:
            last = self.initializer.blocks.first.last_op
            if not isinstance(last, YieldOp):
                raise VerifyException(f"{self.name}: initialize must end with pcf.yield")
            if list(last.values.types) != leading:
                raise VerifyException(f"{self.name}: initialize yields ({', '.join(map(str, last.values.types))}) "
                                      f"but the region takes ({', '.join(map(str, leading))})")
        elif leading:
            raise VerifyException(f"{self.name}: {len(leading)} initialized arguments without initialize")


@irdl_op_definition
class LoopOp(_Parallel, IRDLOperation):
    """``pcf.loop [sync true] scope(S) count(%m, %n) execute(...)[%i: index, %j: index] ...``:
    one run of the body per point of ``count`` (see the module doc)."""

    name = "pcf.loop"
    count = var_operand_def(IndexType)
    inits = var_operand_def()
    dynamic_sizes = var_operand_def(IndexType)
    scope = prop_def(Attribute)
    is_tied = prop_def(DenseArrayBase)
    sync_on_return = prop_def(BoolAttr)
    results_ = var_result_def()
    region = region_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @property
    def ids(self) -> tuple:
        return self.index_args

    @classmethod
    def parse(cls, parser: Parser) -> LoopOp:
        sync = False
        if parser.parse_optional_keyword("sync"):
            word = parser.parse_identifier()
            if word not in ("true", "false"):
                parser.raise_error(f"pcf.loop: sync: expected true or false, got '{word}'")
            sync = word == "true"
        parser.parse_keyword("scope")
        with parser.in_parens():
            scope = parser.parse_attribute()
        parser.parse_keyword("count")
        count = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        count = [parser.resolve_operand(c, IndexType()) for c in count]
        inits, sizes, types, tied, region, _ = _parse_execute(parser, cls.name, [], len(count))
        attributes = parser.parse_optional_attr_dict()
        if region.blocks and region.blocks.last.last_op is None or (
                region.blocks and not region.blocks.last.last_op.has_trait(IsTerminator)):
            region.blocks.last.add_op(ReturnOp())  # the implicit terminator
        return cls.build(operands=[count, inits, sizes], result_types=[types], regions=[region],
                         attributes=attributes,
                         properties={"scope": scope, "is_tied": DenseArrayBase.from_list(i1, tied),
                                     "sync_on_return": BoolAttr.from_bool(sync)})

    def print(self, printer: Printer) -> None:
        if self.sync_on_return.value.data:
            printer.print_string(" sync true")
        printer.print_string(" scope(")
        printer.print_attribute(self.scope)
        printer.print_string(") count(")
        printer.print_list(self.count, printer.print_operand)
        printer.print_string(")")
        _print_execute(printer, self)

    def verify_(self) -> None:
        if not self.count:
            raise VerifyException(f"{self.name}: count: needs at least one count")
        _verify_parallel(self, 0, len(self.count))
        if len(self.region.blocks) != 1:
            raise VerifyException(f"{self.name}: the execute region must have one block")
        if isinstance(self.region.blocks.first.last_op, BranchCondReturnOp):
            raise VerifyException(f"{self.name}: pcf.br.cond_return is allowed in pcf.generic only")


# ---------------------------------------------------------------- slices
def _parse_slice_lists(parser: Parser):
    lists = []
    for _ in range(3):
        unresolved, static = parse_dynamic_index_list_without_types(
            parser, DYNAMIC, delimiter=parser.Delimiter.SQUARE)
        lists.append(([parser.resolve_operand(u, IndexType()) for u in unresolved], list(static)))
    return lists


def _slice_properties(lists) -> dict:
    names = ("static_offsets", "static_sizes", "static_strides")
    return {n: DenseArrayBase.from_list(i64, static) for n, (_, static) in zip(names, lists)}


class _Slice:
    """Offsets, sizes and strides (static with ``DYNAMIC`` marking an operand)."""

    def print_lists(self, printer: Printer) -> None:
        for k, (dynamic, static) in enumerate(((self.offsets, self.static_offsets),
                                               (self.sizes, self.static_sizes),
                                               (self.strides, self.static_strides))):
            printer.print_string(" " if k else "")
            print_dynamic_index_list(printer, DYNAMIC, list(dynamic), static.get_values(),
                                     delimiter=Parser.Delimiter.SQUARE)

    def static_sizes_list(self) -> list[int]:
        return list(self.static_sizes.get_values())

    def verify_lists(self, sref: ShapedRefType) -> None:
        rank = sref.rank
        for label, dynamic, static in (("offsets", self.offsets, self.static_offsets),
                                       ("sizes", self.sizes, self.static_sizes),
                                       ("strides", self.strides, self.static_strides)):
            values = static.get_values()
            if len(values) != rank:
                raise VerifyException(f"{self.name}: {label}: {len(values)} entries for the rank-{rank} {sref}")
            if sum(v == DYNAMIC for v in values) != len(dynamic):
                raise VerifyException(f"{self.name}: {label}: {len(dynamic)} operands for "
                                      f"{sum(v == DYNAMIC for v in values)} dynamic entries")
            if label != "offsets" and any(v != DYNAMIC and v < 0 for v in values):
                raise VerifyException(f"{self.name}: {label}: negative entry in {list(values)}")

    def verify_value(self, value_type, sref: ShapedRefType, what: str, at_most: bool) -> None:
        """Rank, element type and static sizes of the value read or written."""
        shape = _dims(value_type)
        if len(shape) != sref.rank:
            raise VerifyException(f"{self.name}: {what}: rank of {value_type} must be the rank "
                                  f"{sref.rank} of {sref}")
        if value_type.element_type != sref.element_type:
            raise VerifyException(f"{self.name}: {what}: element type of {value_type} must be "
                                  f"{sref.element_type} (of {sref})")
        for d, (n, s) in enumerate(zip(shape, self.static_sizes_list())):
            if n < 0 or s == DYNAMIC:
                continue
            if (s > n) if at_most else (s != n):
                relation = "at most" if at_most else "equal to"
                raise VerifyException(f"{self.name}: sizes: size {s} of dim {d} must be {relation} "
                                      f"dim {d} of {value_type}")


class _ReadLike(_Slice):
    """Fields, parse, print and verify of ``read_slice``, ``get_memref`` and ``subview`` (same
    text form); xDSL collects the IRDL fields along the MRO, so each op adds only its name,
    docstring and ``RESULTS``."""

    source = operand_def(ShapedRefType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    static_strides = prop_def(DenseArrayBase)
    result = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser):
        source = parser.parse_unresolved_operand()
        lists = _parse_slice_lists(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_keyword("to")
        result_type = parser.parse_type()
        return cls.build(operands=[parser.resolve_operand(source, source_type), *(d for d, _ in lists)],
                         result_types=[result_type], properties=_slice_properties(lists),
                         attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        self.print_lists(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" to ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        sref = self.source.type
        self.verify_lists(sref)
        rtype = self.result.type
        if not isinstance(rtype, self.RESULTS):
            kinds = " or ".join(t.name.split(".")[-1] for t in self.RESULTS)
            raise VerifyException(f"{self.name}: result: expected a {kinds}, got {rtype}")
        self.verify_value(rtype, sref, "result", at_most=isinstance(rtype, VectorType))
        self.verify_result_extra(rtype)

    def verify_result_extra(self, rtype) -> None:
        pass


@irdl_op_definition
class ReadSliceOp(_ReadLike, IRDLOperation):
    """``%t = pcf.read_slice %ref[%i, 0] [4, 8] [1, 1] : !pcf.sref<...> to tensor<4x8xf32>``;
    a vector result may be larger than the sizes (its extra lanes are undefined)."""

    name = "pcf.read_slice"
    RESULTS: ClassVar[tuple] = (TensorType, VectorType)


@irdl_op_definition
class GetMemrefOp(_ReadLike, IRDLOperation):
    """``%m = pcf.get_memref %ref[0, 0] [%n, 8] [1, 1] : !pcf.sref<?x8xf32, S> to
    memref<?x8xf32, strided<[?, ?], offset: ?>>``: a view breaking the sref's sync guarantees;
    its layout is fully dynamic and it has no memory space (conversion decides both)."""

    name = "pcf.get_memref"
    RESULTS: ClassVar[tuple] = (MemRefType,)

    def verify_result_extra(self, rtype) -> None:
        layout = rtype.layout
        dynamic = (isinstance(layout, StridedLayoutAttr)
                   and layout.get_offset() is None
                   and all(s is None for s in layout.get_strides()))
        if not dynamic:
            rank = len(_dims(rtype))
            raise VerifyException(f"{self.name}: result: layout must be fully dynamic, "
                                  f"strided<[{', '.join('?' * rank)}], offset: ?>, got {rtype}")
        if not isinstance(rtype.memory_space, NoneAttr):
            raise VerifyException(f"{self.name}: result: must have no memory space, got {rtype}")


@irdl_op_definition
class WriteSliceOp(_Slice, IRDLOperation):
    """``pcf.write_slice %t into %ref[%i, 0] [4, 8] [1, 1] : tensor<4x8xf32> into !pcf.sref<...>``:
    writes a tensor, vector or memref into a slice of the sref."""

    name = "pcf.write_slice"
    source = operand_def()
    dest = operand_def(ShapedRefType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    static_strides = prop_def(DenseArrayBase)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser):
        source = parser.parse_unresolved_operand()
        parser.parse_keyword("into")
        dest = parser.parse_unresolved_operand()
        lists = _parse_slice_lists(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_keyword("into")
        dest_type = parser.parse_type()
        return cls.build(operands=[parser.resolve_operand(source, source_type),
                                   parser.resolve_operand(dest, dest_type), *(d for d, _ in lists)],
                         properties=_slice_properties(lists), attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(" into ")
        printer.print_operand(self.dest)
        self.print_lists(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" into ")
        printer.print_attribute(self.dest.type)

    def verify_(self) -> None:
        sref = self.dest.type
        self.verify_lists(sref)
        stype = self.source.type
        if not isinstance(stype, (TensorType, VectorType, MemRefType)):
            raise VerifyException(f"{self.name}: source: expected a tensor, vector or memref, got {stype}")
        self.verify_value(stype, sref, "source", at_most=False)


OPS = [AllocOp, GenericOp, LoopOp, ReadSliceOp, WriteSliceOp, GetMemrefOp, ReturnOp, YieldOp,
       BranchCondReturnOp]

register("pcf", ops=OPS, attributes=[ShapedRefType, SequentialScopeAttr, SyncOnReturnAttr])
register("iree_codegen", attributes=[WorkgroupScopeAttr])
register("iree_gpu", attributes=[SubgroupScopeAttr, LaneScopeAttr])
