"""The ``gpu`` dialect as kernels use it, in MLIR's custom syntax.

xDSL 0.74 defines most ``gpu`` ops but parses and prints them only in the generic form
(``"gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index``). layoutkit defines the
ones kernels use again, with xDSL's fields and attributes (``DimensionAttr``) and MLIR's
custom syntax, plus the ops xDSL lacks (shuffle, subgroup_reduce, the address space):

    gpu.module @kernels { ... }
    gpu.func @name(%a: memref<1024xf32>, ...) kernel [attributes {...}] { ... gpu.return }
    %t = gpu.thread_id x          (also block_id, block_dim, grid_dim, global_id: x|y|z)
    %l = gpu.lane_id
    gpu.barrier
    %v, %ok = gpu.shuffle xor %value, %offset, %width : f32      (xor | up | down | idx)
    %r = gpu.subgroup_reduce add %value [uniform] [cluster(size = 4)] : (f32) -> f32
    memref<32x33xf32, #gpu.address_space<workgroup>>   (shared memory, via memref.alloc or
                                                        memref.global: ir/memref_global.py)
"""

from __future__ import annotations

from xdsl.dialects import gpu as upstream
from xdsl.dialects.builtin import (
    I1,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    VectorType,
    i1,
    i32,
)
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir.registry import register

ADDRESS_SPACES = ("global", "workgroup", "private")
SHUFFLE_MODES = ("xor", "up", "down", "idx")
REDUCE_KINDS = (
    "add", "mul", "minui", "minsi", "minnumf", "maxui", "maxsi", "maxnumf",
    "and", "or", "xor", "minimumf", "maximumf",
)


@irdl_attr_definition
class AddressSpaceAttr(ParametrizedAttribute):
    """``#gpu.address_space<workgroup>``: the memory space of a memref (shared memory)."""

    name = "gpu.address_space"
    value: StringAttr

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.value.data}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            pos = parser.pos
            word = parser.parse_identifier()
            if word not in ADDRESS_SPACES:
                parser.raise_error(
                    f"address space must be one of {', '.join(ADDRESS_SPACES)}, got '{word}'",
                    pos, parser.pos,
                )
        return [StringAttr(word)]

    def verify(self) -> None:
        if self.value.data not in ADDRESS_SPACES:
            raise VerifyException(f"unknown gpu address space '{self.value.data}'")


WORKGROUP = AddressSpaceAttr(StringAttr("workgroup"))


def is_workgroup(memory_space: Attribute) -> bool:
    """True for ``#gpu.address_space<workgroup>`` and the integer space ``3`` (NVVM's)."""
    if isinstance(memory_space, AddressSpaceAttr):
        return memory_space.value.data == "workgroup"
    if isinstance(memory_space, IntegerAttr):
        return memory_space.value.data == 3
    return False


@irdl_op_definition
class ModuleOp(IRDLOperation):
    """``gpu.module @name { ... }``."""

    name = "gpu.module"
    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    traits = traits_def(IsolatedFromAbove(), NoTerminator(), SymbolOpInterface(), SymbolTable())

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        name = parser.parse_symbol_name()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        op = cls(properties={"sym_name": name}, regions=[region])
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, False, False)


def _space_of(type_: Attribute) -> str | None:
    """``workgroup`` / ``private`` / ``global`` for a memref's address space (NVVM's integer
    spaces 3 and 5 too), None when it names none of them."""
    space = getattr(type_, "memory_space", None)
    if isinstance(space, AddressSpaceAttr):
        return space.value.data
    if isinstance(space, IntegerAttr):
        return {3: "workgroup", 5: "private"}.get(space.value.data)
    return None


@irdl_op_definition
class FuncOp(IRDLOperation):
    """``gpu.func @name(%a: memref<...>, ...) [workgroup(%w: memref<...>, ...)]
    [private(%p: memref<...>, ...)] kernel [attributes {...}] { ... }``.

    Attributions are extra arguments of the entry block after the function's own, as in
    MLIR: a workgroup attribution is shared memory (one buffer per block, in
    ``#gpu.address_space<workgroup>``), a private one a per-thread buffer
    (``#gpu.address_space<private>``). Their number is the ``workgroup_attributions``
    attribute (MLIR's name); the remaining extra block arguments are private. Example::

        gpu.func @k(%out: memref<64xf32>) workgroup(%tile: memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    """

    name = "gpu.func"
    body = region_def()
    sym_name = attr_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    kernel = opt_prop_def(UnitAttr)
    workgroup_attributions = opt_attr_def(IntegerAttr)
    traits = traits_def(IsolatedFromAbove(), HasParent(ModuleOp), SymbolOpInterface())

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name = parser.parse_symbol_name().data
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
        attributions = {}
        for keyword in ("workgroup", "private"):
            attributions[keyword] = []
            if parser.parse_optional_keyword(keyword) is not None:
                attributions[keyword] = parser.parse_comma_separated_list(
                    parser.Delimiter.PAREN, parser.parse_argument)
        kernel = parser.parse_optional_keyword("kernel") is not None
        attrs = parser.parse_optional_attr_dict_with_keyword(
            ("sym_name", "function_type", "workgroup_attributions"))
        region = parser.parse_region([*args, *attributions["workgroup"], *attributions["private"]])
        properties: dict[str, Attribute] = {
            "function_type": FunctionType.from_lists([a.type for a in args], [])
        }
        if kernel:
            properties["kernel"] = UnitAttr()
        attributes: dict[str, Attribute] = {"sym_name": StringAttr(name)}
        if attributions["workgroup"] or attributions["private"]:
            attributes["workgroup_attributions"] = IntegerAttr(len(attributions["workgroup"]), 64)
        op = cls(properties=properties, attributes=attributes, regions=[region])
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    @property
    def arguments(self) -> tuple:
        """The entry block arguments that are the function's arguments (no attributions)."""
        return tuple(self.body.blocks[0].args[:len(self.function_type.inputs.data)])

    @property
    def workgroup_arguments(self) -> tuple:
        """The workgroup attributions: shared memory, one buffer per block."""
        first = len(self.function_type.inputs.data)
        count = self.workgroup_attributions.value.data if self.workgroup_attributions else 0
        return tuple(self.body.blocks[0].args[first:first + count])

    @property
    def private_arguments(self) -> tuple:
        """The private attributions: one buffer per thread."""
        first = len(self.function_type.inputs.data) + len(self.workgroup_arguments)
        return tuple(self.body.blocks[0].args[first:])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        for keyword, args in (("", self.arguments), (" workgroup", self.workgroup_arguments),
                              (" private", self.private_arguments)):
            if keyword and not args:
                continue
            printer.print_string(f"{keyword}(")
            printer.print_list(args, printer.print_block_argument)
            printer.print_string(")")
        if self.kernel is not None:
            printer.print_string(" kernel")
        printer.print_op_attributes(
            self.attributes, reserved_attr_names=("sym_name", "function_type", "workgroup_attributions"),
            print_keyword=True,
        )
        printer.print_string(" ")
        printer.print_region(self.body, False, False)

    def verify_(self) -> None:
        name = f"gpu.func @{self.sym_name.data}"
        if not self.body.blocks:
            raise VerifyException(f"{name}: missing body")
        inputs = tuple(self.function_type.inputs.data)
        block_types = tuple(self.body.blocks[0].arg_types)
        if inputs != block_types[:len(inputs)]:
            raise VerifyException(f"{name}: argument types differ from the signature")
        count = self.workgroup_attributions.value.data if self.workgroup_attributions else 0
        if not 0 <= count <= len(block_types) - len(inputs):
            raise VerifyException(f"{name}: workgroup_attributions = {count} but the entry block "
                                  f"has {len(block_types) - len(inputs)} extra arguments")
        for space, args in (("workgroup", self.workgroup_arguments), ("private", self.private_arguments)):
            for arg in args:
                if not isinstance(arg.type, MemRefType) or _space_of(arg.type) != space:
                    raise VerifyException(
                        f"{name}: {space} attribution %{arg.name_hint or arg.index} must be a memref in "
                        f"#gpu.address_space<{space}>, got {arg.type}")
                if any(d < 0 for d in arg.type.get_shape()):
                    raise VerifyException(f"{name}: {space} attribution %{arg.name_hint or arg.index} "
                                          f"must have a static shape, got {arg.type}")


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``gpu.return``."""

    name = "gpu.return"
    traits = traits_def(IsTerminator(), HasParent(FuncOp))
    assembly_format = "attr-dict"


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """``gpu.barrier``: every thread of the block waits here (``__syncthreads``)."""

    name = "gpu.barrier"
    assembly_format = "attr-dict"


def _dimension_op(class_name: str, op_name: str) -> type[IRDLOperation]:
    """``%v = gpu.<op> x|y|z`` (index), xDSL's op fields with MLIR's custom syntax."""

    def __init__(self, dim: upstream.DimensionAttr):
        IRDLOperation.__init__(self, result_types=[IndexType()], properties={"dimension": dim})

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        dim = parser.parse_identifier()
        if dim not in ("x", "y", "z"):
            parser.raise_error(f"{op_name}: dimension must be x, y or z, got '{dim}'", pos, parser.pos)
        return cls(upstream.DimensionAttr(upstream.DimensionEnum(dim)))

    def print(self, printer: Printer) -> None:
        printer.print_string(" " + self.dimension.data)

    namespace = {
        "name": op_name, "dimension": prop_def(upstream.DimensionAttr),
        "result": result_def(IndexType), "__init__": __init__, "parse": parse, "print": print,
        "__doc__": f"``%v = {op_name} x|y|z`` (index).", "__module__": __name__,
    }
    cls = type(class_name, (IRDLOperation,), namespace)
    return irdl_op_definition(cls)


ThreadIdOp = _dimension_op("ThreadIdOp", "gpu.thread_id")
BlockIdOp = _dimension_op("BlockIdOp", "gpu.block_id")
BlockDimOp = _dimension_op("BlockDimOp", "gpu.block_dim")
GridDimOp = _dimension_op("GridDimOp", "gpu.grid_dim")
GlobalIdOp = _dimension_op("GlobalIdOp", "gpu.global_id")


@irdl_op_definition
class LaneIdOp(IRDLOperation):
    """``%l = gpu.lane_id``: the lane within the subgroup (warp), an index."""

    name = "gpu.lane_id"
    result = result_def(IndexType)
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[IndexType()])


def _index_op(class_name: str, op_name: str, doc: str) -> type[IRDLOperation]:
    """``%v = <op_name> : index``, an op without operands giving one index."""

    def __init__(self):
        IRDLOperation.__init__(self, result_types=[IndexType()])

    namespace = {"name": op_name, "result": result_def(IndexType), "__init__": __init__,
                 "assembly_format": "attr-dict `:` type($result)", "__doc__": doc,
                 "__module__": __name__}
    return irdl_op_definition(type(class_name, (IRDLOperation,), namespace))


SubgroupSizeOp = _index_op("SubgroupSizeOp", "gpu.subgroup_size",
                           "``%n = gpu.subgroup_size : index``: lanes per warp (32, or 64 with --warp-size 64).")
SubgroupIdOp = _index_op("SubgroupIdOp", "gpu.subgroup_id",
                         "``%w = gpu.subgroup_id : index``: the warp of the thread within its block (the "
                         "linear thread index ``x + bx * (y + by * z)`` divided by the subgroup size).")
NumSubgroupsOp = _index_op("NumSubgroupsOp", "gpu.num_subgroups",
                           "``%n = gpu.num_subgroups : index``: warps per block (threads rounded up to warps).")


def parse_choice(parser: Parser, what: str, choices: tuple[str, ...]) -> str:
    """An identifier among ``choices``, else a parse error ``<what> must be one of ...``."""
    pos = parser.pos
    word = parser.parse_identifier()
    if word not in choices:
        parser.raise_error(f"{what} must be one of {', '.join(choices)}, got '{word}'", pos, parser.pos)
    return word


def _check_scalar_or_vector(op_name: str, type_: Attribute) -> None:
    element = type_.element_type if isinstance(type_, VectorType) else type_
    if isinstance(element, IndexType) or not isinstance(element, Attribute):
        return
    if hasattr(element, "bitwidth") or isinstance(element, IntegerType):
        return
    raise VerifyException(f"{op_name}: value must be a scalar or vector of integers/floats, got {type_}")


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """``%v, %ok = gpu.shuffle xor|up|down|idx %value, %offset, %width : T``.

    Each lane reads ``value`` from a source lane of its segment of ``width`` lanes:
    ``xor``: lane ^ offset; ``up``: lane - offset; ``down``: lane + offset; ``idx``: offset.
    ``ok`` is false (and ``v`` is the lane's own value) where the source leaves the segment.
    Example: width 32, ``down`` offset 16: lane 3 reads lane 19; lane 20 reads itself, ok=false.
    """

    name = "gpu.shuffle"
    value = operand_def()
    offset = operand_def(i32)
    width = operand_def(i32)
    mode = prop_def(StringAttr)
    result = result_def()
    valid = result_def(I1)

    def __init__(self, mode: str, value, offset, width):
        super().__init__(
            operands=[value, offset, width],
            result_types=[value.type, i1],
            properties={"mode": StringAttr(mode)},
        )

    @classmethod
    def parse(cls, parser: Parser) -> ShuffleOp:
        mode = parse_choice(parser, "gpu.shuffle: mode", SHUFFLE_MODES)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        width = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        return cls(
            mode,
            parser.resolve_operand(value, type_),
            parser.resolve_operand(offset, i32),
            parser.resolve_operand(width, i32),
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data} ")
        printer.print_list([self.value, self.offset, self.width], printer.print_operand)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    def verify_(self) -> None:
        if self.mode.data not in SHUFFLE_MODES:
            raise VerifyException(f"gpu.shuffle: unknown mode '{self.mode.data}'")
        if self.result.type != self.value.type:
            raise VerifyException("gpu.shuffle: result type must equal the value type")
        _check_scalar_or_vector("gpu.shuffle", self.value.type)


@irdl_op_definition
class SubgroupReduceOp(IRDLOperation):
    """``%r = gpu.subgroup_reduce add %v [uniform] [cluster(size = N[, stride = S])] : (T) -> T``.

    Reduces ``v`` over the active lanes of each warp, or of each cluster: N lanes ``i, i + S,
    ..., i + (N - 1) * S`` (S defaults to 1); every lane receives its cluster's result.
    Example: size 4, stride 2 on 32 lanes: clusters {0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, ...
    """

    name = "gpu.subgroup_reduce"
    value = operand_def()
    op = prop_def(StringAttr)
    uniform = opt_prop_def(UnitAttr)
    cluster_size = opt_prop_def(IntegerAttr)
    cluster_stride = opt_prop_def(IntegerAttr)
    result = result_def()

    def __init__(self, kind: str, value, uniform: bool = False, cluster_size: int | None = None,
                 cluster_stride: int | None = None):
        properties: dict[str, Attribute] = {"op": StringAttr(kind)}
        if uniform:
            properties["uniform"] = UnitAttr()
        if cluster_size is not None:
            properties["cluster_size"] = IntegerAttr(cluster_size, i32)
        if cluster_stride is not None:
            properties["cluster_stride"] = IntegerAttr(cluster_stride, i32)
        super().__init__(operands=[value], result_types=[value.type], properties=properties)

    @classmethod
    def parse(cls, parser: Parser) -> SubgroupReduceOp:
        kind = parse_choice(parser, "gpu.subgroup_reduce: kind", REDUCE_KINDS)
        value = parser.parse_unresolved_operand()
        uniform = parser.parse_optional_keyword("uniform") is not None
        cluster = stride = None
        if parser.parse_optional_keyword("cluster") is not None:
            parser.parse_punctuation("(")
            parser.parse_keyword("size")
            parser.parse_punctuation("=")
            cluster = parser.parse_integer()
            if parser.parse_optional_punctuation(",") is not None:
                parser.parse_keyword("stride")
                parser.parse_punctuation("=")
                stride = parser.parse_integer()
            parser.parse_punctuation(")")
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        type_ = parser.parse_type()
        parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        parser.parse_type()
        return cls(kind, parser.resolve_operand(value, type_), uniform, cluster, stride)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.op.data} ")
        printer.print_operand(self.value)
        if self.uniform is not None:
            printer.print_string(" uniform")
        if self.cluster_size is not None:
            stride = "" if self.cluster_stride is None else f", stride = {self.cluster_stride.value.data}"
            printer.print_string(f" cluster(size = {self.cluster_size.value.data}{stride})")
        printer.print_string(" : (")
        printer.print_attribute(self.value.type)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if self.op.data not in REDUCE_KINDS:
            raise VerifyException(f"gpu.subgroup_reduce: unknown kind '{self.op.data}'")
        if self.result.type != self.value.type:
            raise VerifyException("gpu.subgroup_reduce: result type must equal the value type")
        if self.cluster_stride is not None and self.cluster_size is None:
            raise VerifyException("gpu.subgroup_reduce: a cluster stride needs a cluster size")
        for what, attr in (("size", self.cluster_size), ("stride", self.cluster_stride)):
            number = attr.value.data if attr is not None else 1
            if number < 1 or number & (number - 1):
                raise VerifyException(f"gpu.subgroup_reduce: cluster {what} must be a power of two, got {number}")


class LaunchFuncOp(upstream.LaunchFuncOp):
    """``gpu.launch_func @module::@kernel blocks in (%gx, %gy, %gz) threads in (%bx, %by, %bz)
    [: i32|i64] [dynamic_shared_memory_size %s] [args(%a : memref<...>, %n : index)]``.

    The host launches a kernel of a ``gpu.module`` and waits for it (xDSL's op definition,
    fields and generic form; the text form is MLIR's). The async forms (``async``, ``<%stream
    : ...>``) and ``clusters in`` are not read: layoutkit says so.
    """

    @classmethod
    def parse(cls, parser: Parser) -> LaunchFuncOp:
        for unsupported in ("async", "clusters"):
            pos = parser.pos
            if parser.parse_optional_keyword(unsupported) is not None:
                parser.raise_error(f"gpu.launch_func: '{unsupported}' is not supported by layoutkit",
                                   pos, parser.pos)
        pos = parser.pos
        kernel = parser.parse_attribute()
        if not isinstance(kernel, SymbolRefAttr) or not kernel.nested_references.data:
            parser.raise_error("gpu.launch_func: expected the kernel as @module::@kernel", pos, parser.pos)
        if parser.parse_optional_keyword("clusters") is not None:
            parser.raise_error("gpu.launch_func: 'clusters' is not supported by layoutkit")
        sizes = {}
        for keyword in ("blocks", "threads"):
            parser.parse_keyword(keyword)
            parser.parse_keyword("in")
            sizes[keyword] = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            if len(sizes[keyword]) != 3:
                parser.raise_error(f"gpu.launch_func: '{keyword} in' takes 3 sizes (x, y, z)")
        dim_type = parser.parse_type() if parser.parse_optional_punctuation(":") else IndexType()
        shared = None
        if parser.parse_optional_keyword("dynamic_shared_memory_size") is not None:
            shared = parser.resolve_operand(parser.parse_unresolved_operand(), i32)
        operands = []
        if parser.parse_optional_keyword("args") is not None:
            def argument():
                value = parser.parse_unresolved_operand()
                parser.parse_punctuation(":")
                return parser.resolve_operand(value, parser.parse_type())
            operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN, argument)
        attrs = parser.parse_optional_attr_dict()
        grid = [parser.resolve_operand(v, dim_type) for v in sizes["blocks"]]
        block = [parser.resolve_operand(v, dim_type) for v in sizes["threads"]]
        op = cls(kernel, grid, block, kernelOperands=operands, dynamicSharedMemorySize=shared)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.kernel)
        for keyword, values in (("blocks", (self.gridSizeX, self.gridSizeY, self.gridSizeZ)),
                                ("threads", (self.blockSizeX, self.blockSizeY, self.blockSizeZ))):
            printer.print_string(f" {keyword} in (")
            printer.print_list(values, printer.print_operand)
            printer.print_string(")")
        if not isinstance(self.gridSizeX.type, IndexType):
            printer.print_string(" : ")
            printer.print_attribute(self.gridSizeX.type)
        if self.dynamicSharedMemorySize is not None:
            printer.print_string(" dynamic_shared_memory_size ")
            printer.print_operand(self.dynamicSharedMemorySize)
        if self.kernelOperands:
            printer.print_string(" args(")
            printer.print_list(self.kernelOperands, lambda v: (
                printer.print_operand(v), printer.print_string(" : "), printer.print_attribute(v.type)))
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)

    def kernel_func(self) -> FuncOp | None:
        """The launched ``gpu.func``, or None when the symbol names none."""
        try:
            found = SymbolTable.lookup_symbol(self, self.kernel)
        except ValueError:
            return None
        return found if isinstance(found, FuncOp) else None

    def verify_(self) -> None:
        name = "::".join(f"@{r.data}" for r in (self.kernel.root_reference, *self.kernel.nested_references.data))
        kernel = self.kernel_func()
        if kernel is None:
            raise VerifyException(f"gpu.launch_func: no gpu.func {name} in a gpu.module")
        if kernel.kernel is None:
            raise VerifyException(f"gpu.launch_func: {name} is not a kernel (no 'kernel' keyword)")
        expected = list(kernel.function_type.inputs.data)
        given = [v.type for v in self.kernelOperands]
        if given != expected:
            raise VerifyException(
                f"gpu.launch_func: {name} takes ({', '.join(map(str, expected))}), "
                f"got args ({', '.join(map(str, given))})")
        if self.asyncDependencies or self.asyncToken is not None or self.asyncObject is not None:
            raise VerifyException("gpu.launch_func: async launches are not supported by layoutkit")


register("gpu", [
    ModuleOp, FuncOp, ReturnOp, BarrierOp, ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp,
    GlobalIdOp, LaneIdOp, SubgroupSizeOp, SubgroupIdOp, NumSubgroupsOp, ShuffleOp,
    SubgroupReduceOp, LaunchFuncOp,
], [AddressSpaceAttr, upstream.DimensionAttr])

__all__ = [
    "WORKGROUP", "AddressSpaceAttr", "BarrierOp", "BlockDimOp", "BlockIdOp", "FuncOp",
    "GlobalIdOp", "GridDimOp", "LaneIdOp", "LaunchFuncOp", "ModuleOp", "NumSubgroupsOp",
    "ReturnOp", "ShuffleOp", "SubgroupIdOp", "SubgroupReduceOp", "SubgroupSizeOp", "ThreadIdOp",
    "is_workgroup",
]



