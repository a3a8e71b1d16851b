"""``vector`` ops xDSL 0.74 lacks, in MLIR's current syntax (xDSL's others are kept as they are).

    %d = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                           affine_map<(d0, d1, d2) -> (d2, d1)>,
                                           affine_map<(d0, d1, d2) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %a, %b, %c
           : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
    %r = vector.multi_reduction <add>, %src, %acc [1] : vector<4x8xf32> to vector<4xf32>
    %t = vector.transpose %v, [1, 0] : vector<2x3xf32> to vector<3x2xf32>
    %s = vector.shape_cast %v : vector<2x3xf32> to vector<6xf32>
    %e = vector.extract_strided_slice %v {offsets = [0, 2], sizes = [2, 4], strides = [1, 1]}
           : vector<4x8xf32> to vector<2x4xf32>
    %i = vector.insert_strided_slice %e, %v {offsets = [2, 4], strides = [1, 1]}
           : vector<2x4xf32> into vector<4x8xf32>
    %k = vector.step : vector<4xindex>
    %m = vector.constant_mask [3, 2] : vector<4x3xi1>
    %g = vector.gather %base[%c0] [%idx], %mask, %pass : memref<64xf32>, vector<4xi32>,
           vector<4xi1>, vector<4xf32> into vector<4xf32>

``vector.broadcast`` is xDSL's with MLIR's shape rule added to its verifier: the source's
dims match the result's trailing dims, or are 1 (stretched); leading dims are added.

How a contraction is formed: iteration dims ``d0..dn-1``; each operand's map names the dims
its axes walk. For each point of the iteration space, ``lhs[map0(d)] * rhs[map1(d)]`` is
combined (by ``kind``) over the reduction dims, then with ``acc[map2(d)]``. The matmul above
is ``d[i, j] = c[i, j] + sum_k a[i, k] * b[k, j]``.
"""

from __future__ import annotations

import math
from typing import ClassVar

from xdsl.dialects import vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    VectorType,
    i64,
)
from xdsl.dialects.vector import CombiningKindAttr, CombiningKindFlag
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineDimExpr
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir.registry import register

FLOAT_ONLY_KINDS = {"maxnumf", "minnumf", "maximumf", "minimumf"}
INT_ONLY_KINDS = {"and", "or", "xor", "maxsi", "minsi", "maxui", "minui"}


# ---------------------------------------------------------------- shared text helpers
def _parse_ints(parser: Parser) -> list[int]:
    """``[1, 0]`` (or ``[]``)."""
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def _ints_text(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _dense(values) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _array(values) -> ArrayAttr:
    return ArrayAttr([IntegerAttr(int(v), i64) for v in values])


def _array_ints(attr: Attribute, op_name: str, field: str) -> tuple[int, ...]:
    """The ints of an ``[1, 2]`` attribute (I64ArrayAttr); VerifyException otherwise."""
    if not isinstance(attr, ArrayAttr) or not all(isinstance(v, IntegerAttr) for v in attr.data):
        raise VerifyException(f"{op_name}: '{field}' must be a list of integers, got {attr}")
    return tuple(int(v.value.data) for v in attr.data)


def _parse_kind(parser: Parser, op_name: str) -> CombiningKindAttr:
    """``<add>`` as a ``#vector.kind``."""
    parser.parse_punctuation("<")
    pos = parser.pos
    name = parser.parse_identifier()
    parser.parse_punctuation(">")
    try:
        return CombiningKindAttr(CombiningKindFlag(name))
    except ValueError:
        parser.raise_error(f"{op_name}: unknown combining kind '{name}' (one of "
                           f"{', '.join(k.value for k in CombiningKindFlag)})", pos, parser.pos)


def kind_name(attr: CombiningKindAttr) -> str:
    """``add`` for ``#vector.kind<add>``."""
    data = attr.data
    return data.value if hasattr(data, "value") else str(data)


def _check_kind(op_name: str, kind: str, element: Attribute) -> None:
    is_int = isinstance(element, (IntegerType, IndexType))
    if is_int and kind in FLOAT_ONLY_KINDS or not is_int and kind in INT_ONLY_KINDS:
        raise VerifyException(f"{op_name}: kind '{kind}' does not apply to element type {element}")


def _shape(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape()) if isinstance(t, VectorType) else ()


def _element(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def _parse_types(parser: Parser, separators: tuple[str, ...]) -> list[Attribute]:
    """``: T1 sep1 T2 sep2 ...`` where each separator is ``,`` or a keyword."""
    parser.parse_punctuation(":")
    types = [parser.parse_type()]
    for separator in separators:
        if separator == ",":
            parser.parse_punctuation(",")
        else:
            parser.parse_keyword(separator)
        types.append(parser.parse_type())
    return types


def _print_types(printer: Printer, types: list[Attribute], separators: tuple[str, ...]) -> None:
    """`` : T1 sep1 T2 ...`` (what :func:`_parse_types` reads)."""
    printer.print_string(" : ")
    printer.print_attribute(types[0])
    for separator, type_ in zip(separators, types[1:]):
        printer.print_string(", " if separator == "," else f" {separator} ")
        printer.print_attribute(type_)


# ---------------------------------------------------------------- contract
@irdl_op_definition
class ContractionOp(IRDLOperation):
    """``vector.contract {indexing_maps = [...], iterator_types = [...], kind = #vector.kind<k>}
    %lhs, %rhs, %acc : L, R into A`` (see the module docstring for the semantics)."""

    name = "vector.contract"
    lhs = operand_def(VectorType)
    rhs = operand_def(VectorType)
    acc = operand_def()
    indexing_maps = prop_def(ArrayAttr)
    iterator_types = prop_def(ArrayAttr)
    kind = prop_def(CombiningKindAttr)
    result = result_def()

    @classmethod
    def parse(cls, parser: Parser) -> ContractionOp:
        pos = parser.pos
        if parser._current_token.text != "{":
            trait = parser.parse_attribute()  # an alias of a dictionary: #trait
            if not isinstance(trait, DictionaryAttr):
                parser.raise_error("vector.contract: expected the trait dictionary "
                                   "{indexing_maps = ..., iterator_types = ...}", pos, parser.pos)
            attrs = dict(trait.data)
        else:
            attrs = parser.parse_optional_attr_dict()
        for field in ("indexing_maps", "iterator_types"):
            if field not in attrs:
                parser.raise_error(f"vector.contract: missing '{field}'", pos, parser.pos)
        kind = attrs.pop("kind", CombiningKindAttr(CombiningKindFlag.ADD))
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        acc = parser.parse_unresolved_operand()
        extra = parser.parse_optional_attr_dict()
        lt, rt, at = _parse_types(parser, (",", "into"))
        properties = {"indexing_maps": attrs.pop("indexing_maps"),
                      "iterator_types": attrs.pop("iterator_types"), "kind": kind}
        extra.update(attrs)
        return cls.build(operands=[parser.resolve_operand(lhs, lt), parser.resolve_operand(rhs, rt),
                                   parser.resolve_operand(acc, at)],
                         result_types=[at], properties=properties, attributes=extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(" {indexing_maps = [")
        printer.print_list(self.indexing_maps.data, printer.print_attribute)
        printer.print_string("], iterator_types = [")
        printer.print_list(self.iterator_types.data, printer.print_attribute)
        printer.print_string("], kind = ")
        printer.print_attribute(self.kind)
        printer.print_string("} ")
        printer.print_list([self.lhs, self.rhs, self.acc], printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)
        printer.print_string(", ")
        printer.print_attribute(self.rhs.type)
        printer.print_string(" into ")
        printer.print_attribute(self.result.type)

    # -- the maps as dims --------------------------------------------------------------
    @property
    def operand_dims(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """For lhs, rhs and acc: the iteration dim each of its axes walks."""
        return tuple(tuple(r.position for r in m.data.results) for m in self.indexing_maps.data)

    @property
    def iterators(self) -> tuple[str, ...]:
        return tuple(t.data for t in self.iterator_types.data)

    @property
    def iteration_shape(self) -> tuple[int, ...]:
        """The size of each iteration dim (read from the operand that walks it)."""
        sizes = {}
        for dims, value in zip(self.operand_dims, (self.lhs, self.rhs, self.acc)):
            sizes.update(zip(dims, _shape(value.type)))
        return tuple(sizes[d] for d in range(len(self.iterators)))

    def verify_(self) -> None:
        name = self.name
        iterators = self.iterator_types.data
        if not all(isinstance(t, StringAttr) and t.data in ("parallel", "reduction") for t in iterators):
            raise VerifyException(f"{name}: iterator_types must be \"parallel\" or \"reduction\" strings")
        maps = self.indexing_maps.data
        if len(maps) != 3 or not all(isinstance(m, AffineMapAttr) for m in maps):
            raise VerifyException(f"{name}: expected 3 indexing maps (lhs, rhs, acc), got {len(maps)}")
        n = len(iterators)
        for which, m in zip(("lhs", "rhs", "acc"), maps):
            amap = m.data
            if amap.num_dims != n or amap.num_symbols:
                raise VerifyException(f"{name}: the {which} map {amap} must have {n} dims (one per "
                                      "iterator) and no symbols")
            dims = [r.position for r in amap.results if isinstance(r, AffineDimExpr)]
            if len(dims) != len(amap.results) or len(set(dims)) != len(dims):
                raise VerifyException(f"{name}: the {which} map {amap} must be a projected permutation "
                                      "(distinct dims only)")
        sizes: dict[int, int] = {}
        for which, dims, value in zip(("lhs", "rhs", "acc"), self.operand_dims, (self.lhs, self.rhs, self.acc)):
            shape = _shape(value.type)
            if len(shape) != len(dims):
                raise VerifyException(f"{name}: {which} of type {value.type} has rank {len(shape)}, "
                                      f"its map has {len(dims)} results")
            for d, size in zip(dims, shape):
                if sizes.setdefault(d, size) != size:
                    raise VerifyException(f"{name}: iteration dim d{d} has size {sizes[d]} in one operand "
                                          f"and {size} in {which}")
        lhs_dims, rhs_dims, acc_dims = self.operand_dims
        for d, kind in enumerate(self.iterators):
            if d not in lhs_dims and d not in rhs_dims:
                raise VerifyException(f"{name}: iteration dim d{d} is walked by neither lhs nor rhs")
            if kind == "reduction" and (d in acc_dims or d not in lhs_dims or d not in rhs_dims):
                raise VerifyException(f"{name}: reduction dim d{d} must be walked by lhs and rhs "
                                      "and not by acc")
            if kind == "parallel" and d not in acc_dims:
                raise VerifyException(f"{name}: parallel dim d{d} must be walked by acc")
        if self.result.type != self.acc.type:
            raise VerifyException(f"{name}: result type {self.result.type} must equal acc's {self.acc.type}")
        if self.lhs.type.element_type != self.rhs.type.element_type:
            raise VerifyException(f"{name}: lhs and rhs must have one element type")
        _check_kind(name, kind_name(self.kind), _element(self.acc.type))


# ---------------------------------------------------------------- multi_reduction
@irdl_op_definition
class MultiDimReductionOp(IRDLOperation):
    """``vector.multi_reduction <kind>, %src, %acc [dims] : S to A``: ``src`` combined by
    ``kind`` over ``dims``, then with ``acc`` (the kept dims, in order)."""

    name = "vector.multi_reduction"
    source = operand_def(VectorType)
    acc = operand_def()
    kind = prop_def(CombiningKindAttr)
    reduction_dims = prop_def(DenseArrayBase)
    dest = result_def()

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(self.reduction_dims.get_values())

    @classmethod
    def parse(cls, parser: Parser) -> MultiDimReductionOp:
        kind = _parse_kind(parser, cls.name)
        parser.parse_punctuation(",")
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        acc = parser.parse_unresolved_operand()
        extra = parser.parse_optional_attr_dict()
        dims = _parse_ints(parser)
        st, at = _parse_types(parser, ("to",))
        return cls.build(operands=[parser.resolve_operand(source, st), parser.resolve_operand(acc, at)],
                         result_types=[at], attributes=extra,
                         properties={"kind": kind, "reduction_dims": _dense(dims)})

    def print(self, printer: Printer) -> None:
        printer.print_string(f" <{kind_name(self.kind)}>, ")
        printer.print_list([self.source, self.acc], printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" {_ints_text(self.dims)} : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" to ")
        printer.print_attribute(self.dest.type)

    def verify_(self) -> None:
        shape = _shape(self.source.type)
        dims = self.dims
        if len(set(dims)) != len(dims) or not all(0 <= d < len(shape) for d in dims):
            raise VerifyException(f"{self.name}: reduction dims {list(dims)} must be distinct dims "
                                  f"of the source's {len(shape)}")
        kept = tuple(n for d, n in enumerate(shape) if d not in dims)
        if _shape(self.dest.type) != kept or isinstance(self.dest.type, VectorType) != bool(kept):
            want = f"vector<{'x'.join(map(str, kept))}x...>" if kept else "a scalar"
            raise VerifyException(f"{self.name}: result must be {want} (the kept dims), got {self.dest.type}")
        if self.acc.type != self.dest.type or _element(self.dest.type) != self.source.type.element_type:
            raise VerifyException(f"{self.name}: acc and result must have one type, of the source's elements")
        _check_kind(self.name, kind_name(self.kind), self.source.type.element_type)


# ---------------------------------------------------------------- transpose, shape_cast
@irdl_op_definition
class TransposeOp(IRDLOperation):
    """``vector.transpose %v, [p0, p1, ...] : S to R``: result dim i is source dim p_i."""

    name = "vector.transpose"
    vector = operand_def(VectorType)
    permutation = prop_def(DenseArrayBase)
    result = result_def(VectorType)

    @property
    def perm(self) -> tuple[int, ...]:
        return tuple(self.permutation.get_values())

    @classmethod
    def parse(cls, parser: Parser) -> TransposeOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        perm = _parse_ints(parser)
        extra = parser.parse_optional_attr_dict()
        st, rt = _parse_types(parser, ("to",))
        return cls.build(operands=[parser.resolve_operand(source, st)], result_types=[rt],
                         properties={"permutation": _dense(perm)}, attributes=extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.vector)
        printer.print_string(f", {_ints_text(self.perm)}")
        printer.print_op_attributes(self.attributes)
        _print_types(printer, [self.vector.type, self.result.type], ("to",))

    def verify_(self) -> None:
        shape, perm = _shape(self.vector.type), self.perm
        if sorted(perm) != list(range(len(shape))):
            raise VerifyException(f"{self.name}: {list(perm)} is not a permutation of the "
                                  f"{len(shape)} dims of {self.vector.type}")
        want = tuple(shape[p] for p in perm)
        if _shape(self.result.type) != want or self.result.type.element_type != self.vector.type.element_type:
            raise VerifyException(f"{self.name}: result must be vector<{'x'.join(map(str, want))}x"
                                  f"{self.vector.type.element_type}>, got {self.result.type}")


@irdl_op_definition
class ShapeCastOp(IRDLOperation):
    """``vector.shape_cast %v : S to R``: the same elements in row-major order, another shape."""

    name = "vector.shape_cast"
    source = operand_def(VectorType)
    result = result_def(VectorType)

    @classmethod
    def parse(cls, parser: Parser) -> ShapeCastOp:
        source = parser.parse_unresolved_operand()
        extra = parser.parse_optional_attr_dict()
        st, rt = _parse_types(parser, ("to",))
        return cls.build(operands=[parser.resolve_operand(source, st)], result_types=[rt], attributes=extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_op_attributes(self.attributes)
        _print_types(printer, [self.source.type, self.result.type], ("to",))

    def verify_(self) -> None:
        s, r = self.source.type, self.result.type
        if math.prod(_shape(s)) != math.prod(_shape(r)) or s.element_type != r.element_type:
            raise VerifyException(f"{self.name}: {s} and {r} must hold as many elements of one type")


# ---------------------------------------------------------------- strided slices
def _slice_attrs(parser: Parser, op_name: str, fields: tuple[str, ...]) -> dict[str, Attribute]:
    pos = parser.pos
    attrs = parser.parse_optional_attr_dict()
    for field in fields:
        if field not in attrs:
            parser.raise_error(f"{op_name}: missing '{field}'", pos, parser.pos)
    return attrs


def _print_slice_attrs(printer: Printer, op: IRDLOperation, fields: tuple[str, ...]) -> None:
    printer.print_string(" {" + ", ".join(
        f"{f} = {_ints_text(_array_ints(op.properties[f], op.name, f))}" for f in fields) + "}")
    printer.print_op_attributes(op.attributes)


@irdl_op_definition
class ExtractStridedSliceOp(IRDLOperation):
    """``vector.extract_strided_slice %v {offsets = [..], sizes = [..], strides = [..]} : S to R``:
    result[i] = v[offsets + i * strides] over the leading ``len(offsets)`` dims (the rest whole)."""

    name = "vector.extract_strided_slice"
    vector = operand_def(VectorType)
    offsets = prop_def(ArrayAttr)
    sizes = prop_def(ArrayAttr)
    strides = prop_def(ArrayAttr)
    result = result_def(VectorType)

    FIELDS: ClassVar[tuple[str, ...]] = ("offsets", "sizes", "strides")

    @classmethod
    def parse(cls, parser: Parser) -> ExtractStridedSliceOp:
        source = parser.parse_unresolved_operand()
        attrs = _slice_attrs(parser, cls.name, cls.FIELDS)
        st, rt = _parse_types(parser, ("to",))
        properties = {f: attrs.pop(f) for f in cls.FIELDS}
        return cls.build(operands=[parser.resolve_operand(source, st)], result_types=[rt],
                         properties=properties, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.vector)
        _print_slice_attrs(printer, self, self.FIELDS)
        _print_types(printer, [self.vector.type, self.result.type], ("to",))

    def slice(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """(offsets, sizes, strides) over every dim (the dims left out taken whole)."""
        shape = _shape(self.vector.type)
        offsets, sizes, strides = (_array_ints(self.properties[f], self.name, f) for f in self.FIELDS)
        k = len(offsets)
        return offsets + (0,) * (len(shape) - k), sizes + shape[k:], strides + (1,) * (len(shape) - k)

    def verify_(self) -> None:
        shape = _shape(self.vector.type)
        offsets, sizes, strides = (_array_ints(self.properties[f], self.name, f) for f in self.FIELDS)
        if not len(offsets) == len(sizes) == len(strides) <= len(shape):
            raise VerifyException(f"{self.name}: offsets, sizes and strides must have one length, at "
                                  f"most the rank {len(shape)}")
        _check_window(self.name, shape, offsets, sizes, strides)
        want = tuple(sizes) + shape[len(sizes):]
        if _shape(self.result.type) != want or self.result.type.element_type != self.vector.type.element_type:
            raise VerifyException(f"{self.name}: result must be vector<{'x'.join(map(str, want))}x"
                                  f"{self.vector.type.element_type}>, got {self.result.type}")


def _check_window(op_name: str, shape, offsets, sizes, strides) -> None:
    for d, (o, n, s) in enumerate(zip(offsets, sizes, strides)):
        if s != 1:
            raise VerifyException(f"{op_name}: strides must be 1 (MLIR's rule), got {s} in dim {d}")
        if n < 1 or o < 0 or o + n > shape[d]:
            raise VerifyException(f"{op_name}: dim {d}: offset {o} + size {n} leaves the extent {shape[d]}")


@irdl_op_definition
class InsertStridedSliceOp(IRDLOperation):
    """``vector.insert_strided_slice %s, %d {offsets = [..], strides = [..]} : S into D``: ``d``
    with its window at ``offsets`` (one per dim of ``d``) replaced by ``s`` (its trailing dims)."""

    name = "vector.insert_strided_slice"
    source = operand_def(VectorType)
    dest = operand_def(VectorType)
    offsets = prop_def(ArrayAttr)
    strides = prop_def(ArrayAttr)
    result = result_def(VectorType)

    FIELDS: ClassVar[tuple[str, ...]] = ("offsets", "strides")

    @classmethod
    def parse(cls, parser: Parser) -> InsertStridedSliceOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dest = parser.parse_unresolved_operand()
        attrs = _slice_attrs(parser, cls.name, cls.FIELDS)
        st, dt = _parse_types(parser, ("into",))
        properties = {f: attrs.pop(f) for f in cls.FIELDS}
        return cls.build(operands=[parser.resolve_operand(source, st), parser.resolve_operand(dest, dt)],
                         result_types=[dt], properties=properties, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.source, self.dest], printer.print_operand)
        _print_slice_attrs(printer, self, self.FIELDS)
        _print_types(printer, [self.source.type, self.dest.type], ("into",))

    @property
    def offset_values(self) -> tuple[int, ...]:
        return _array_ints(self.offsets, self.name, "offsets")

    def verify_(self) -> None:
        sshape, dshape = _shape(self.source.type), _shape(self.dest.type)
        offsets = self.offset_values
        strides = _array_ints(self.strides, self.name, "strides")
        if len(offsets) != len(dshape) or len(strides) != len(sshape) or len(sshape) > len(dshape):
            raise VerifyException(f"{self.name}: needs one offset per dest dim ({len(dshape)}) and one "
                                  f"stride per source dim ({len(sshape)}), source rank <= dest rank")
        lead = len(dshape) - len(sshape)
        for d in range(lead):
            if not 0 <= offsets[d] < dshape[d]:
                raise VerifyException(f"{self.name}: offset {offsets[d]} out of dim {d} of size {dshape[d]}")
        _check_window(self.name, dshape[lead:], offsets[lead:], sshape, strides)
        if self.result.type != self.dest.type or self.source.type.element_type != self.dest.type.element_type:
            raise VerifyException(f"{self.name}: source, dest and result must have one element type, "
                                  "result the dest's type")


# ---------------------------------------------------------------- step, masks
@irdl_op_definition
class StepOp(IRDLOperation):
    """``vector.step : vector<Nxindex>``: [0, 1, ..., N - 1]."""

    name = "vector.step"
    result = result_def(VectorType)

    @classmethod
    def parse(cls, parser: Parser) -> StepOp:
        extra = parser.parse_optional_attr_dict()
        (rt,) = _parse_types(parser, ())
        return cls.build(result_types=[rt], attributes=extra)

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        t = self.result.type
        if len(_shape(t)) != 1 or not isinstance(t.element_type, IndexType):
            raise VerifyException(f"{self.name}: result must be a 1-D vector of index, got {t}")


@irdl_op_definition
class ConstantMaskOp(IRDLOperation):
    """``vector.constant_mask [n0, n1, ...] : vector<...xi1>``: true where index i_k < n_k for all k."""

    name = "vector.constant_mask"
    mask_dim_sizes = prop_def(DenseArrayBase)
    result = result_def(VectorType)

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(self.mask_dim_sizes.get_values())

    @classmethod
    def parse(cls, parser: Parser) -> ConstantMaskOp:
        sizes = _parse_ints(parser)
        extra = parser.parse_optional_attr_dict()
        (rt,) = _parse_types(parser, ())
        return cls.build(result_types=[rt], properties={"mask_dim_sizes": _dense(sizes)}, attributes=extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {_ints_text(self.sizes)}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        t, sizes = self.result.type, self.sizes
        shape = _shape(t)
        if not (isinstance(t.element_type, IntegerType) and t.element_type.width.data == 1):
            raise VerifyException(f"{self.name}: result must be a vector of i1, got {t}")
        if len(sizes) != len(shape) or not all(0 <= n <= s for n, s in zip(sizes, shape)):
            raise VerifyException(f"{self.name}: sizes {list(sizes)} must be one per dim, each within "
                                  f"the dim's extent {list(shape)}")
        if 0 in sizes and any(sizes):
            raise VerifyException(f"{self.name}: all sizes must be 0 when one is (MLIR's rule), "
                                  f"got {list(sizes)}")


# ---------------------------------------------------------------- gather
@irdl_op_definition
class GatherOp(IRDLOperation):
    """``vector.gather %base[%o0, ..., %ok] [%indices], %mask, %pass_thru : memref, I, M, P into R``:
    ``result[i] = mask[i] ? base[o0, ..., ok + indices[i]] : pass_thru[i]`` (an index moves the
    innermost offset, in elements)."""

    name = "vector.gather"
    base = operand_def(MemRefType)
    offsets = var_operand_def(IndexType)
    indices = operand_def(VectorType)
    mask = operand_def(VectorType)
    pass_thru = operand_def(VectorType)
    result = result_def(VectorType)

    @classmethod
    def parse(cls, parser: Parser) -> GatherOp:
        base = parser.parse_unresolved_operand()
        offsets = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation("[")
        indices = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        parser.parse_punctuation(",")
        mask = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        pass_thru = parser.parse_unresolved_operand()
        extra = parser.parse_optional_attr_dict()
        bt, it, mt, pt, rt = _parse_types(parser, (",", ",", ",", "into"))
        operands = [parser.resolve_operand(base, bt), [parser.resolve_operand(o, IndexType()) for o in offsets],
                    parser.resolve_operand(indices, it), parser.resolve_operand(mask, mt),
                    parser.resolve_operand(pass_thru, pt)]
        return cls.build(operands=operands, result_types=[rt], attributes=extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.base)
        printer.print_string("[")
        printer.print_list(self.offsets, printer.print_operand)
        printer.print_string("] [")
        printer.print_operand(self.indices)
        printer.print_string("], ")
        printer.print_list([self.mask, self.pass_thru], printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([self.base.type, self.indices.type, self.mask.type, self.pass_thru.type],
                           printer.print_attribute)
        printer.print_string(" into ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        base, rt = self.base.type, self.result.type
        if len(self.offsets) != len(base.get_shape()):
            raise VerifyException(f"{self.name}: needs one offset per dim of {base}, got {len(self.offsets)}")
        shape = _shape(rt)
        for what, value in (("indices", self.indices), ("mask", self.mask), ("pass_thru", self.pass_thru)):
            if _shape(value.type) != shape:
                raise VerifyException(f"{self.name}: {what} {value.type} must have the result's shape {list(shape)}")
        if not isinstance(self.indices.type.element_type, (IntegerType, IndexType)):
            raise VerifyException(f"{self.name}: indices must be integers, got {self.indices.type}")
        element = self.mask.type.element_type
        if not (isinstance(element, IntegerType) and element.width.data == 1):
            raise VerifyException(f"{self.name}: mask must be a vector of i1, got {self.mask.type}")
        if self.pass_thru.type != rt or rt.element_type != base.element_type:
            raise VerifyException(f"{self.name}: pass_thru and result must be {rt} of the memref's elements")


# ---------------------------------------------------------------- broadcast
class BroadcastOp(vector.BroadcastOp):
    """xDSL's ``vector.broadcast`` (``%r = vector.broadcast %s : S to R``) with MLIR's shape
    rule: S is a scalar, or its dims equal R's trailing dims or are 1 (stretched)."""

    def verify_(self) -> None:
        super().verify_()
        source = _shape(self.source.type)
        result = _shape(self.vector.type)
        lead = len(result) - len(source)
        if lead < 0 or any(s not in (1, r) for s, r in zip(source, result[lead:])):
            raise VerifyException(f"{self.name}: {self.source.type} does not broadcast to "
                                  f"{self.vector.type} (each source dim must equal the result's "
                                  "trailing dim or be 1)")


OPS = [ContractionOp, MultiDimReductionOp, TransposeOp, ShapeCastOp, ExtractStridedSliceOp,
       InsertStridedSliceOp, StepOp, ConstantMaskOp, GatherOp, BroadcastOp]

register("vector", OPS)

__all__ = [op.__name__ for op in OPS] + ["kind_name"]


def verify_static_positions(op) -> None:
    """MLIR's rule for ``vector.extract`` / ``vector.insert`` that xDSL's verifier lacks: each
    static position is in ``[0, dim)`` of the vector it indexes, or -1 (poison); e.g.
    ``vector.extract %v[1, 0] : f32 from vector<1x1xf32>`` is a VerifyException."""
    if not isinstance(op, (vector.ExtractOp, vector.InsertOp)):
        return
    indexed = op.vector.type if isinstance(op, vector.ExtractOp) else op.dest.type
    shape = indexed.get_shape()
    for d, p in enumerate(op.static_position.get_values()):
        if p == DYNAMIC_INDEX or p == -1 or d >= len(shape):
            continue
        if not 0 <= p < shape[d]:
            raise VerifyException(f"{op.name}: position #{d}: {p} is out of range for dimension {d} "
                                  f"of size {shape[d]} ({indexed}); expected 0..{shape[d] - 1} or -1 (poison)")
