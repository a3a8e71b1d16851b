"""The PCF collective extension proposed by seed 002 (no IREE release has it); the
specification is docs/pcf-extension.md. Same dialect (``pcf``) as :mod:`.pcf`::

    %r = pcf.shared_executor scope(#iree_gpu.subgroup_scope)
      execute(%acc = %init, %a <- %lhs)[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>]
           : (!pcf.sref<64x64xf32, #iree_gpu.subgroup_scope>, !pcf.sref<64x64xf16, #iree_gpu.subgroup_scope>)
          -> (tensor<64x64xf32>) {
      pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
      ^bb0(%left: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>,
           %right: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right>):
        ...
        pcf.yield
      }
      pcf.return
    }

A cluster's bounds map has two results per worker-grid dimension, the half-open range
``[lo, hi)`` of worker ids; dims ``d0, d1, ...`` are the tile_group's split values, symbols
``s0, s1, ...`` the worker counts of the grid being split. Example: with 8 subgroups and
``%h = 3``, ``tg.left`` is subgroups ``[0, 3)`` (tile-relative ids 0..2) and ``tg.right`` is
``[3, 8)``: subgroup 5 is thread 2 of ``tg.right``.
"""

from __future__ import annotations

from itertools import combinations
from typing import ClassVar

from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntAttr,
    MemRefType,
    StringAttr,
    TensorType,
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
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir.dialects.pcf import (
    DYNAMIC,
    RETURN_PARENTS,
    YIELD_PARENTS,
    ReturnOp,
    ShapedRefType,
    YieldOp,
    _ReadLike,
    is_scope,
)
from layoutkit.ir.dialects.pcf_partition import (
    MAX_CASES,
    Partition,
    Undecided,
    const,
    cube,
    linear,
    solve,
    sub,
)
from layoutkit.ir.registry import register

# Worker counts and split values at which tile_group bounds are checked: per sample the grid
# extent S of every dimension and split values strictly increasing inside (0, S).
_SAMPLES = (64, 97)


def _parse_payloads(parser: AttrParser) -> tuple[ArrayAttr, ArrayAttr]:
    """``[, shared(T, ...)][, private(T, ...)]`` after the leading parameters."""
    found = {"shared": [], "private": []}
    for word in ("shared", "private"):
        if parser.parse_optional_keyword(word) is not None:
            found[word] = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            if word == "shared" and parser.parse_optional_punctuation(",") is None:
                break
    return ArrayAttr(found["shared"]), ArrayAttr(found["private"])


def _print_payloads(printer: Printer, shared: ArrayAttr, private: ArrayAttr) -> None:
    for word, types in (("shared", shared), ("private", private)):
        if types.data:
            printer.print_string(f", {word}(")
            printer.print_list(types.data, printer.print_attribute)
            printer.print_string(")")


class _Group:
    """What ``!pcf.threadgroup`` and ``!pcf.cluster`` share: a scope and two payload structs."""

    @property
    def shared_types(self) -> list[Attribute]:
        return list(self.shared.data)

    @property
    def private_types(self) -> list[Attribute]:
        return list(self.private.data)

    def _verify_scope(self) -> None:
        if not is_scope(self.scope):
            raise VerifyException(f"{self.name}: scope: expected a scope, got {self.scope}")
        for word, types in (("shared", self.shared_types), ("private", self.private_types)):
            for t in types:
                if isinstance(t, (ThreadgroupType, ClusterType)) or not isinstance(t, TypeAttribute):
                    raise VerifyException(f"{self.name}: {word}: payloads are value types, got {t}")


@irdl_attr_definition
class ThreadgroupType(_Group, ParametrizedAttribute, TypeAttribute):
    """``!pcf.threadgroup<#scope[, shared(T...)][, private(T...)]>``: all workers of the scope."""

    name = "pcf.threadgroup"
    scope: Attribute
    shared: ArrayAttr
    private: ArrayAttr

    def __init__(self, scope: Attribute, shared=(), private=()):
        super().__init__(scope, ArrayAttr(list(shared)), ArrayAttr(list(private)))

    @property
    def id(self) -> str:
        return "tg"

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            scope = parser.parse_attribute()
            shared, private = (_parse_payloads(parser) if parser.parse_optional_punctuation(",")
                               else (ArrayAttr([]), ArrayAttr([])))
        return [scope, shared, private]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.scope)
        _print_payloads(printer, self.shared, self.private)
        printer.print_string(">")

    def verify(self) -> None:
        self._verify_scope()


@irdl_attr_definition
class ClusterType(_Group, ParametrizedAttribute, TypeAttribute):
    """``!pcf.cluster<#scope, affine_map<(d..)[s..] -> (lo0, hi0, ...)>, a.b[, shared(..)][, private(..)]>``."""

    name = "pcf.cluster"
    scope: Attribute
    bounds: AffineMapAttr
    cluster_id: StringAttr
    shared: ArrayAttr
    private: ArrayAttr

    def __init__(self, scope: Attribute, bounds: AffineMapAttr, cluster_id: str, shared=(), private=()):
        super().__init__(scope, bounds, StringAttr(cluster_id), ArrayAttr(list(shared)),
                         ArrayAttr(list(private)))

    @property
    def id(self) -> str:
        return self.cluster_id.data

    @property
    def rank(self) -> int:
        return len(self.bounds.data.results) // 2

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            scope = parser.parse_attribute()
            parser.parse_punctuation(",")
            pos = parser.pos
            bounds = parser.parse_attribute()
            if not isinstance(bounds, AffineMapAttr):
                parser.raise_error(f"pcf.cluster: bounds: expected an affine_map, got {bounds}", pos, parser.pos)
            parser.parse_punctuation(",")
            cluster_id = parser.parse_identifier()
            shared, private = (_parse_payloads(parser) if parser.parse_optional_punctuation(",")
                               else (ArrayAttr([]), ArrayAttr([])))
        return [scope, bounds, StringAttr(cluster_id), shared, private]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.scope)
        printer.print_string(", ")
        printer.print_attribute(self.bounds)
        printer.print_string(f", {self.id}")
        _print_payloads(printer, self.shared, self.private)
        printer.print_string(">")

    def verify(self) -> None:
        self._verify_scope()
        amap = self.bounds.data
        if not amap.results or len(amap.results) % 2:
            raise VerifyException(f"pcf.cluster: bounds: {amap} needs two results (lo, hi) per "
                                  f"grid dimension, got {len(amap.results)}")
        if amap.num_symbols != self.rank:
            raise VerifyException(f"pcf.cluster: bounds: {amap} needs one symbol (worker count) per "
                                  f"grid dimension ({self.rank}), got {amap.num_symbols}")
        if any(not part or not (part[0].isalpha() or part[0] == "_") for part in self.id.split(".")):
            raise VerifyException(f"pcf.cluster: id: expected dot-qualified names, got '{self.id}'")


def _group_type(value_type, op_name: str, what: str):
    if not isinstance(value_type, (ThreadgroupType, ClusterType)):
        raise VerifyException(f"{op_name}: {what}: expected a !pcf.threadgroup or !pcf.cluster, got {value_type}")
    return value_type


def _executor_of(op):
    """The innermost ``pcf.shared_executor`` around ``op`` (or None)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, SharedExecutorOp):
        parent = parent.parent_op()
    return parent


def _in_shared_executor(op) -> None:
    if _executor_of(op) is None:
        raise VerifyException(f"{op.name}: must be inside a pcf.shared_executor")


def _join(types) -> str:
    return ", ".join(map(str, types))


# ---------------------------------------------------------------- pcf.shared_executor
@irdl_op_definition
class SharedExecutorOp(IRDLOperation):
    """``pcf.shared_executor scope(S) execute(%rw = %init, %ro <- %buf)[%tg: !pcf.threadgroup<S>]
    : (srefs) -> (results) { ... pcf.return }``: a collective region over all workers of ``S``;
    ``=`` operands are tied to results (snapshots after the region), ``<-`` ones are read-only."""

    name = "pcf.shared_executor"
    inits = var_operand_def()
    reads = var_operand_def()
    scope = prop_def(Attribute)
    is_tied = prop_def(DenseArrayBase)  # per ref argument: 1 read-write (=), 0 read-only (<-)
    num_leading_args = prop_def(IntAttr)  # block arguments yielded by ``initialize``
    results_ = var_result_def()
    initializer = region_def()
    region = region_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @property
    def tied_flags(self) -> list[bool]:
        return [bool(v) for v in self.is_tied.get_values()]

    @property
    def num_leading(self) -> int:
        return self.num_leading_args.data

    @property
    def ref_args(self) -> tuple:
        return tuple(self.region.blocks.first.args[self.num_leading:-1])

    @property
    def threadgroup(self):
        return self.region.blocks.first.args[-1]

    @classmethod
    def parse(cls, parser: Parser) -> SharedExecutorOp:
        parser.parse_keyword("scope")
        with parser.in_parens():
            scope = parser.parse_attribute()
        initializer, leading = Region(), []
        if parser.parse_optional_keyword("initialize"):
            initializer = parser.parse_region()
            parser.parse_punctuation("->")
            leading = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        parser.parse_keyword("execute")
        refs = []  # (argument, "=" or "<-", unresolved operand)

        def ref():
            arg = parser.parse_argument(expect_type=False)
            if parser.parse_optional_punctuation("=") is not None:
                return arg, "=", parser.parse_unresolved_operand()
            pos = parser.pos
            if parser.parse_optional_punctuation("<") is None or parser.parse_optional_punctuation("-") is None:
                parser.raise_error("pcf.shared_executor: execute: expected '= %init' or '<- %operand'", pos, parser.pos)
            return arg, "<-", parser.parse_unresolved_operand()
        if parser.parse_optional_punctuation("(") is not None:
            refs = parser.parse_comma_separated_list(parser.Delimiter.NONE, ref)
            parser.parse_punctuation(")")
        group = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_argument)
        if len(group) != 1:
            parser.raise_error(f"pcf.shared_executor: execute: expected one threadgroup argument, got {len(group)}")
        sref_types, result_types, read_types = [], [], []
        if refs:
            parser.parse_punctuation(":")
            sref_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            parser.parse_punctuation("->")
            result_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            if parser.parse_optional_keyword("reads") is not None:
                read_types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        tied = [kind == "=" for _, kind, _ in refs]
        if len(sref_types) != len(refs) or len(result_types) != sum(tied) or len(read_types) != len(refs) - sum(tied):
            parser.raise_error(f"pcf.shared_executor: execute: {len(refs)} refs ({sum(tied)} read-write) need "
                               f"as many sref types, one result type per '=' and one 'reads' type per '<-'; got "
                               f"{len(sref_types)}, {len(result_types)} and {len(read_types)}")
        rtypes, wtypes = iter(result_types), iter(read_types)
        inits, reads = [], []
        for _, kind, operand in refs:
            if kind == "=":
                inits.append(parser.resolve_operand(operand, next(rtypes)))
            else:
                reads.append(parser.resolve_operand(operand, next(wtypes)))
        args = [*leading, *(arg.resolve(t) for (arg, _, _), t in zip(refs, sref_types)), group[0]]
        region = parser.parse_region(args)
        attributes = parser.parse_optional_attr_dict()
        return cls.build(operands=[inits, reads], result_types=[result_types], regions=[initializer, region],
                         attributes=attributes,
                         properties={"scope": scope, "is_tied": DenseArrayBase.from_list(i1, tied),
                                     "num_leading_args": IntAttr(len(leading))})

    def print(self, printer: Printer) -> None:
        printer.print_string(" scope(")
        printer.print_attribute(self.scope)
        printer.print_string(")")
        if self.initializer.blocks:
            printer.print_string(" initialize ")
            printer.print_region(self.initializer, print_entry_block_args=False)
            printer.print_string(" -> (")
            printer.print_list(self.region.blocks.first.args[:self.num_leading], printer.print_block_argument)
            printer.print_string(")")
        printer._print_new_line(indent=printer._indent + 1)
        printer.print_string("execute")
        refs = self.ref_args
        if refs:
            inits, reads = iter(self.inits), iter(self.reads)
            printer.print_string("(")
            for k, (arg, tied) in enumerate(zip(refs, self.tied_flags)):
                printer.print_string(", " if k else "")
                printer.print_operand(arg)
                printer.print_string(" = " if tied else " <- ")
                printer.print_operand(next(inits) if tied else next(reads))
            printer.print_string(")")
        printer.print_string("[")
        printer.print_block_argument(self.threadgroup)
        printer.print_string("]")
        if refs:
            printer._print_new_line(indent=printer._indent + 1)
            printer.print_string("     : (")
            printer.print_list([a.type for a in refs], printer.print_attribute)
            printer.print_string(")")
            printer._print_new_line(indent=printer._indent + 1)
            printer.print_string("    -> (")
            printer.print_list(self.result_types, printer.print_attribute)
            printer.print_string(")")
            if self.reads:
                printer.print_string(" reads(")
                printer.print_list(self.reads.types, printer.print_attribute)
                printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        name = self.name
        if not is_scope(self.scope):
            raise VerifyException(f"{name}: scope: expected a scope, got {self.scope}")
        entry = self.region.blocks.first
        flags = self.tied_flags
        if entry is None or len(entry.args) != self.num_leading + len(flags) + 1:
            raise VerifyException(f"{name}: the execute region needs {self.num_leading} initialized, "
                                  f"{len(flags)} ref and one threadgroup argument")
        leading = [a.type for a in entry.args[:self.num_leading]]
        if self.initializer.blocks:
            last = self.initializer.blocks.first.last_op
            if not isinstance(last, YieldOp) or list(last.values.types) != leading:
                got = _join(last.values.types) if isinstance(last, YieldOp) else "no pcf.yield"
                raise VerifyException(f"{name}: initialize yields ({got}) but the region takes ({_join(leading)})")
        elif leading:
            raise VerifyException(f"{name}: {len(leading)} initialized arguments without initialize")
        tg = self.threadgroup.type
        if not isinstance(tg, ThreadgroupType) or tg.scope != self.scope:
            raise VerifyException(f"{name}: execute: the last argument must be a "
                                  f"!pcf.threadgroup<{self.scope}>, got {tg}")
        inits, reads = iter(self.inits), iter(self.reads)
        for k, (arg, tied) in enumerate(zip(self.ref_args, flags)):
            operand = next(inits) if tied else next(reads)
            otype, atype = operand.type, arg.type
            if not isinstance(otype, (TensorType, MemRefType)):
                raise VerifyException(f"{name}: ref #{k}: expected a ranked tensor or memref operand, got {otype}")
            if not isinstance(atype, ShapedRefType):
                raise VerifyException(f"{name}: ref #{k}: expected a !pcf.sref, got {atype}")
            if atype.get_shape() != tuple(otype.get_shape()) or atype.element_type != otype.element_type:
                raise VerifyException(f"{name}: ref #{k}: {atype} must have the shape and element type of {otype}")
            if atype.scope != self.scope:
                raise VerifyException(f"{name}: ref #{k}: scope {atype.scope} of {atype} must be the "
                                      f"op's scope {self.scope}")
        for result, init in zip(self.results, self.inits):
            if result.type != init.type:
                raise VerifyException(f"{name}: result type {result.type} must be its init's {init.type}")
        for block in self.region.blocks:
            if not isinstance(block.last_op, ReturnOp):
                raise VerifyException(f"{name}: every block of the execute region must end with pcf.return")
        seen: dict[str, IRDLOperation] = {}
        for op in self.region.walk():
            if isinstance(op, TileGroupOp) and _executor_of(op) is self:  # a nested executor has its own
                for cluster in op.clusters:
                    if seen.get(cluster.type.id, op) is not op:  # twice in one op: tile_group says so
                        raise VerifyException(f"{name}: cluster id '{cluster.type.id}' is defined twice "
                                              f"in the region")
                    seen[cluster.type.id] = op


# ---------------------------------------------------------------- pcf.shared_executor.tile_group
def _box(ctype: ClusterType, splits: list[int], extents: list[int]) -> list[tuple[int, int]]:
    try:
        values = ctype.bounds.data.eval(splits, extents)
    except ZeroDivisionError:
        raise VerifyException(f"pcf.shared_executor.tile_group: cluster {ctype.id}: bounds "
                              f"{ctype.bounds.data} divide by zero (d = {splits}, s = {extents})") from None
    return list(zip(values[0::2], values[1::2]))


@irdl_op_definition
class TileGroupOp(IRDLOperation):
    """``pcf.shared_executor.tile_group %g split(%h, ...) : G { ^bb0(%a: !pcf.cluster<...>, ...): ... pcf.yield }``:
    partitions the workers of ``%g`` into the clusters of the entry block (disjoint, covering).
    Example: ``split(%h)`` with bounds ``(0, d0)`` and ``(d0, s0)`` on 8 workers, ``%h = 3``:
    workers 0-2 and 3-7."""

    name = "pcf.shared_executor.tile_group"
    source = operand_def()
    splits = var_operand_def(IndexType)
    region = region_def("single_block")

    @property
    def clusters(self) -> tuple:
        return tuple(self.region.blocks.first.args)

    @classmethod
    def parse(cls, parser: Parser) -> TileGroupOp:
        source = parser.parse_unresolved_operand()
        splits = []
        if parser.parse_optional_keyword("split") is not None:
            splits = [parser.resolve_operand(u, IndexType()) for u in
                      parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)]
        parser.parse_punctuation(":")
        source = parser.resolve_operand(source, parser.parse_type())
        region = parser.parse_region()
        attributes = parser.parse_optional_attr_dict()
        return cls.build(operands=[source, splits], regions=[region], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        if self.splits:
            printer.print_string(" split(")
            printer.print_list(self.splits, printer.print_operand)
            printer.print_string(")")
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        name = self.name
        _in_shared_executor(self)
        source = _group_type(self.source.type, name, "source")
        clusters = [a.type for a in self.clusters]
        if not clusters:
            raise VerifyException(f"{name}: the region needs one !pcf.cluster argument per cluster")
        for k, ctype in enumerate(clusters):
            if not isinstance(ctype, ClusterType):
                raise VerifyException(f"{name}: argument #{k}: expected a !pcf.cluster, got {ctype}")
            if ctype.scope != source.scope:
                raise VerifyException(f"{name}: cluster {ctype.id}: scope {ctype.scope} must be the "
                                      f"source's {source.scope}")
            if ctype.bounds.data.num_dims != len(self.splits):
                raise VerifyException(f"{name}: cluster {ctype.id}: bounds {ctype.bounds.data} need one "
                                      f"dim per split value ({len(self.splits)})")
            if isinstance(source, ClusterType) and not ctype.id.startswith(source.id + "."):
                raise VerifyException(f"{name}: cluster {ctype.id}: id must start with '{source.id}.' "
                                      f"(the cluster it splits)")
        ranks = {c.rank for c in clusters} | ({source.rank} if isinstance(source, ClusterType) else set())
        if len(ranks) != 1:
            raise VerifyException(f"{name}: clusters and source must have the same grid rank, got {sorted(ranks)}")
        ids = [c.id for c in clusters]
        for a, b in combinations(ids, 2):
            if a == b:
                raise VerifyException(f"{name}: cluster id '{a}' is not unique")
        if not isinstance(self.region.blocks.first.last_op, YieldOp) or self.region.blocks.first.last_op.values:
            raise VerifyException(f"{name}: the region must end with an empty pcf.yield")
        self._verify_partition(clusters, ranks.pop())

    def _verify_partition(self, clusters: list[ClusterType], rank: int) -> None:
        """Disjoint boxes covering the grid: first at two sample points (the clearest witnesses),
        then proven for every worker count and ordered split value (:meth:`_verify_exact`)."""
        n = len(self.splits)
        for extent in _SAMPLES:
            splits = [extent * (k + 1) // (n + 1) for k in range(n)]
            extents = [extent] * rank
            where = f"(d = {splits}, s = {extents})"
            boxes = [_box(c, splits, extents) for c in clusters]
            for c, box in zip(clusters, boxes):
                if any(not 0 <= lo <= hi <= extent for lo, hi in box):
                    raise VerifyException(f"{self.name}: cluster {c.id}: bounds {box} leave the worker "
                                          f"grid {where}")
            for (ca, a), (cb, b) in combinations(zip(clusters, boxes), 2):
                if all(max(la, lb) < min(ha, hb) for (la, ha), (lb, hb) in zip(a, b)):
                    raise VerifyException(f"{self.name}: clusters {ca.id} and {cb.id} overlap: bounds "
                                          f"{a} and {b} {where}")
            covered = sum(_volume(box) for box in boxes)
            if covered != extent ** rank:
                raise VerifyException(f"{self.name}: the clusters cover {covered} of {extent ** rank} "
                                      f"workers {where}")
        self._verify_exact(clusters, rank)

    def _verify_exact(self, clusters: list[ClusterType], rank: int) -> None:
        """The same three rules for every worker count and ordered split value (a proof, or a
        violation with its witness; see :mod:`.pcf_partition`)."""
        name = self.name
        try:
            self._prove(clusters, rank)
        except Undecided as reason:
            raise VerifyException(f"{name}: cannot decide whether the clusters partition the worker "
                                  f"grid: the bounds have {reason}") from None

    def _prove(self, clusters: list[ClusterType], rank: int) -> None:
        name, n = self.name, len(self.splits)
        part = Partition([c.bounds.data for c in clusters], n, rank)
        for residue, env, rows, names in part.cases():
            forms = [[(linear(lo, env), linear(hi, env)) for lo, hi in
                      zip(c.bounds.data.results[0::2], c.bounds.data.results[1::2])] for c in clusters]

            def witness(extra, residue=residue, rows=rows, names=names):
                point = solve(rows + extra, names)
                if point is None:
                    return None
                splits, extents = part.values(point, residue)
                return splits, extents, f"(d = {splits}, s = {extents})"

            for c, box in zip(clusters, forms):
                for r, (lo, hi) in enumerate(box):
                    s = env[1][r]
                    for row in (sub(const(0), lo), sub(lo, hi), sub(hi, s)):
                        found = witness([sub(row, const(1))])
                        if found:
                            raise VerifyException(f"{name}: cluster {c.id}: bounds {_box(c, *found[:2])} "
                                                  f"leave the worker grid {found[2]}")
            for (ca, a), (cb, b) in combinations(zip(clusters, forms), 2):
                extra = []
                for (la, ha), (lb, hb) in zip(a, b):
                    extra += [sub(sub(hb, la), const(1)), sub(sub(ha, lb), const(1)),
                              sub(sub(ha, la), const(1)), sub(sub(hb, lb), const(1))]
                found = witness(extra)
                if found:
                    raise VerifyException(f"{name}: clusters {ca.id} and {cb.id} overlap: bounds "
                                          f"{_box(ca, *found[:2])} and {_box(cb, *found[:2])} {found[2]}")
            live = [v for v in names if any(v in row for row in rows) or any(
                v in f for box in forms for pair in box for f in pair)]
            if (rank + 1) ** len(live) > MAX_CASES:
                raise Undecided(f"{len(live)} variables (a {rank + 1}^{len(live)} cube to count)")
            for point in cube(rows, live, rank):
                splits, extents = part.values(point, residue)
                covered, total = sum(_volume(_box(c, splits, extents)) for c in clusters), _product(extents)
                if covered != total:
                    raise VerifyException(f"{name}: the clusters cover {covered} of {total} workers "
                                          f"(d = {splits}, s = {extents})")


def _volume(box) -> int:
    volume = 1
    for lo, hi in box:
        volume *= hi - lo
    return volume


# ---------------------------------------------------------------- run_cluster / run_thread
class _Run:
    """``pcf.shared_executor.run_X %on [ins(%a, ... : A, ...)] : ON [-> R] { ^bb0(...): ... pcf.yield ... }``;
    the fields of both ops (xDSL collects IRDL fields along the MRO)."""

    on = operand_def()
    ins = var_operand_def()
    result = opt_result_def()
    region = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser):
        on = parser.parse_unresolved_operand()
        ins, in_types = [], []
        if parser.parse_optional_keyword("ins") is not None:
            parser.parse_punctuation("(")
            ins = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            in_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            if len(ins) != len(in_types):
                parser.raise_error(f"{cls.name}: ins: {len(ins)} values but {len(in_types)} types")
        parser.parse_punctuation(":")
        on = parser.resolve_operand(on, parser.parse_type())
        result = [parser.parse_type()] if parser.parse_optional_punctuation("->") is not None else []
        region = parser.parse_region()
        attributes = parser.parse_optional_attr_dict()
        return cls.build(operands=[on, [parser.resolve_operand(u, t) for u, t in zip(ins, in_types)]],
                         result_types=[result], regions=[region], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.on)
        if self.ins:
            printer.print_string(" ins(")
            printer.print_list(self.ins, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list(self.ins.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" : ")
        printer.print_attribute(self.on.type)
        if self.result is not None:
            printer.print_string(" -> ")
            printer.print_attribute(self.result.type)
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)

    def _verify_run(self, kind: str, leading: list, payloads: list) -> None:
        """Block arguments = ``leading`` + ``payloads``; the yield fills the result's ``kind`` payload."""
        name = self.name
        on = _group_type(self.on.type, name, "on")
        want = leading + payloads
        got = list(self.region.blocks.first.arg_types) if self.region.blocks else []
        if got != want:
            raise VerifyException(f"{name}: the region takes ({_join(got)}) but needs ({_join(want)})")
        last = self.region.blocks.first.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException(f"{name}: the region must end with pcf.yield")
        yielded = list(last.values.types)
        if self.result is None:
            if yielded:
                raise VerifyException(f"{name}: yields ({_join(yielded)}) but has no result to carry them")
            return
        rtype = _group_type(self.result.type, name, "result")
        expect = (type(on), on.scope, getattr(on, "bounds", None), on.id)
        if (type(rtype), rtype.scope, getattr(rtype, "bounds", None), rtype.id) != expect:
            raise VerifyException(f"{name}: result {rtype} must be the same group as {on}")
        carried = rtype.shared_types if kind == "shared" else rtype.private_types
        other = rtype.private_types if kind == "shared" else rtype.shared_types
        if yielded != carried or other:
            raise VerifyException(f"{name}: yields ({_join(yielded)}) but the result carries {kind}"
                                  f"({_join(carried)}) and nothing else")


@irdl_op_definition
class RunClusterOp(_Run, IRDLOperation):
    """A collective phase over the workers of ``%on``; its block arguments are the shared
    payloads of ``ins`` (any clusters of the same scope), its ``pcf.yield`` the result's shared payload."""

    name = "pcf.shared_executor.run_cluster"

    def verify_(self) -> None:
        _in_shared_executor(self)
        on = _group_type(self.on.type, self.name, "on")
        payloads = []
        for k, value in enumerate(self.ins):
            group = _group_type(value.type, self.name, f"ins #{k}")
            if group.scope != on.scope:
                raise VerifyException(f"{self.name}: ins #{k}: scope {group.scope} must be {on.scope}")
            if group.private_types:
                raise VerifyException(f"{self.name}: ins #{k}: a private payload ({_join(group.private_types)}) "
                                      f"cannot be read collectively; use run_thread")
            payloads += group.shared_types
        self._verify_run("shared", [], payloads)


@irdl_op_definition
class RunThreadOp(_Run, IRDLOperation):
    """The per-worker phase over ``%on``: block arguments are one tile-relative id per grid
    dimension (``index``), then the private payloads of ``ins`` (the same cluster only)."""

    name = "pcf.shared_executor.run_thread"

    def verify_(self) -> None:
        _in_shared_executor(self)
        on = _group_type(self.on.type, self.name, "on")
        payloads = []
        for k, value in enumerate(self.ins):
            group = _group_type(value.type, self.name, f"ins #{k}")
            if group.id != on.id or type(group) is not type(on):
                raise VerifyException(f"{self.name}: ins #{k}: reads a payload of cluster {group.id} "
                                      f"from cluster {on.id}")
            if group.shared_types:
                raise VerifyException(f"{self.name}: ins #{k}: a shared payload ({_join(group.shared_types)}) "
                                      f"is collective; use run_cluster")
            payloads += group.private_types
        rank = on.rank if isinstance(on, ClusterType) else 1
        self._verify_run("private", [IndexType()] * rank, payloads)


# ---------------------------------------------------------------- sref views
def _same_owner(op, source: ShapedRefType, result) -> None:
    if not isinstance(result, ShapedRefType):
        raise VerifyException(f"{op.name}: result: expected a !pcf.sref, got {result}")
    if (result.element_type, result.scope, result.sync_scope) != (source.element_type, source.scope,
                                                                  source.sync_scope):
        raise VerifyException(f"{op.name}: result: {result} must have the element type, scope and "
                              f"sync of {source}")


@irdl_op_definition
class SubviewOp(_ReadLike, IRDLOperation):
    """``%v = pcf.subview %s[%i, 0] [4, 8] [1, 2] : !pcf.sref<?x16xf32, S> to !pcf.sref<4x8xf32, S>``:
    a view of the same storage; view element ``(a, b)`` is source element ``(%i + a, 0 + 2 * b)``."""

    name = "pcf.subview"
    RESULTS: ClassVar[tuple] = (ShapedRefType,)

    def verify_result_extra(self, rtype) -> None:
        source = self.source.type
        _same_owner(self, source, rtype)
        lists = zip(self.static_offsets.get_values(), self.static_sizes.get_values(),
                    self.static_strides.get_values(), source.get_shape())
        for d, (offset, size, stride, dim) in enumerate(lists):
            if DYNAMIC in (offset, size, stride) or dim < 0 or size == 0:
                continue
            if offset < 0 or offset + (size - 1) * stride >= dim:
                raise VerifyException(f"{self.name}: dim {d}: offset {offset} + ({size} - 1) * stride "
                                      f"{stride} is outside the size {dim} of {source}")


@irdl_op_definition
class ExpandShapeOp(IRDLOperation):
    """``%e = pcf.expand_shape %s [[0, 1], [2]] output_shape [%n, 8, 16] : !pcf.sref<?x16xf32, S>
    into !pcf.sref<?x8x16xf32, S>``: source dim ``k`` splits into the result dims of group ``k``
    (row-major): result element ``(a, b, c)`` is source element ``(a * 8 + b, c)``."""

    name = "pcf.expand_shape"
    source = operand_def(ShapedRefType)
    output_shape = var_operand_def(IndexType)
    static_output_shape = prop_def(DenseArrayBase)
    reassociation = prop_def(ArrayAttr)
    result = result_def()

    @property
    def groups(self) -> list[list[int]]:
        return [[i.data for i in group.data] for group in self.reassociation.data]

    @classmethod
    def parse(cls, parser: Parser) -> ExpandShapeOp:
        source = parser.parse_unresolved_operand()
        groups = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_integer))
        parser.parse_keyword("output_shape")
        unresolved, static = parse_dynamic_index_list_without_types(parser, DYNAMIC,
                                                                    delimiter=parser.Delimiter.SQUARE)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source = parser.resolve_operand(source, parser.parse_type())
        parser.parse_keyword("into")
        result = parser.parse_type()
        return cls.build(operands=[source, [parser.resolve_operand(u, IndexType()) for u in unresolved]],
                         result_types=[result], attributes=attributes,
                         properties={"static_output_shape": DenseArrayBase.from_list(i64, list(static)),
                                     "reassociation": ArrayAttr([ArrayAttr([IntAttr(i) for i in g])
                                                                 for g in groups])})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(" [" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in self.groups) + "]")
        printer.print_string(" output_shape ")
        print_dynamic_index_list(printer, DYNAMIC, list(self.output_shape),
                                 self.static_output_shape.get_values(), delimiter=Parser.Delimiter.SQUARE)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" into ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        name, source, result = self.name, self.source.type, self.result.type
        _same_owner(self, source, result)
        groups, shape = self.groups, result.get_shape()
        if [i for g in groups for i in g] != list(range(result.rank)) or any(not g for g in groups):
            raise VerifyException(f"{name}: reassociation: {groups} must split 0..{result.rank - 1} "
                                  f"into consecutive non-empty groups")
        if len(groups) != source.rank:
            raise VerifyException(f"{name}: reassociation: {len(groups)} groups for the rank-{source.rank} {source}")
        static = list(self.static_output_shape.get_values())
        if len(static) != result.rank or sum(v == DYNAMIC for v in static) != len(self.output_shape):
            raise VerifyException(f"{name}: output_shape: needs {result.rank} entries with one operand "
                                  f"per dynamic entry")
        for d, (s, n) in enumerate(zip(static, shape)):
            if (s == DYNAMIC) != (n < 0) or (n >= 0 and s != n):
                raise VerifyException(f"{name}: output_shape: entry {d} must be "
                                      f"{'dynamic' if n < 0 else n} as dim {d} of {result}")
        for k, (group, dim) in enumerate(zip(groups, source.get_shape())):
            sizes = [shape[i] for i in group]
            if dim >= 0 and all(n >= 0 for n in sizes) and _product(sizes) != dim:
                raise VerifyException(f"{name}: group {k}: sizes {sizes} multiply to {_product(sizes)}, "
                                      f"not to dim {k} ({dim}) of {source}")
            if dim >= 0 and any(n < 0 for n in sizes):
                raise VerifyException(f"{name}: group {k}: a static dim {dim} cannot expand into a dynamic one")


def _product(sizes) -> int:
    out = 1
    for n in sizes:
        out *= n
    return out


EXT_OPS = [SharedExecutorOp, TileGroupOp, RunClusterOp, RunThreadOp, SubviewOp, ExpandShapeOp]
RETURN_PARENTS.add(SharedExecutorOp.name)
YIELD_PARENTS.update({SharedExecutorOp.name, TileGroupOp.name, RunClusterOp.name, RunThreadOp.name})

register("pcf", ops=EXT_OPS, attributes=[ThreadgroupType, ClusterType])
