"""``convert-triton-to-tritongpu``: Triton's TTIR -> TTGIR conversion, as Triton 3.9 does it.

Every tensor without an encoding gets the default ``#ttg.blocked`` layout of its shape
(:func:`~layoutkit.layouts.triton.default_blocked_encoding`); a few ops choose their own
result layout; and wherever a value's layout differs from the one its user wants, a
``ttg.convert_layout`` goes in. Triton's pass does no clean-up, and neither does this one:
the output is Triton's, chained and duplicated converts included::

    layoutkit opt k.ttir --convert-triton-to-tritongpu="target=cuda:80 num-warps=4 threads-per-warp=32 num-ctas=1"

How MLIR's dialect conversion places the converts (what makes the output *exactly* Triton's):

- ops are converted one by one in program order, an op before the ops of its regions;
- each operand of a converted op is wanted in the default layout of its original type; when
  the value it now has differs, one new convert is made *for that use* (a value used three
  times gets three converts), placed right after the value's definition (at the start of
  its block for a block argument) -- so a later convert lands *above* earlier ones;
- converts a rule makes itself (``expand_dims``'s slice, ``dot``'s operands) go right before
  the op, in the order made.

Worked example, ``%e = tt.expand_dims %r {axis = 1}`` on ``tensor<64xi32>`` with 4 warps of 32:
``%r`` is ``blocked<[1], [32], [4], [0]>``; the parent is that layout with a 1 inserted at
``axis`` and order ``[0, 1]`` -- ``blocked<[1, 1], [32, 1], [4, 1], [0, 1]>``; ``%r`` is
converted to ``#ttg.slice<{dim = 1, parent = ...}>`` and ``%e`` has the parent layout; each
user of ``%e`` wants the default of ``64x1`` (order ``[1, 0]``), so each use gets a convert.

The rules per op (seed 004 and Triton 3.9's patterns):

===================================  ===================================================
op                                   result layout
===================================  ===================================================
arith, math, splat, make_range,      the default of the result's shape (operands: theirs)
load/store, addptr, reshape, gather,
histogram, atomics, casts, calls,
``scf.yield``/``condition``, return
``tt.broadcast``                     the operand's (default) layout at the new shape
``tt.expand_dims``                   see above
``tt.reduce``                        ``#ttg.slice<{dim = axis, parent = operand's}>``
``tt.scan``                          the operand's
``tt.trans``                         the operand's, dims permuted (order mapped)
``tt.join``                          operand's + a last dim: sizePerThread 2, fastest
``tt.split``                         operand converted (if needed) to the default of the
                                     result with a last dim of sizePerThread 2; the
                                     result drops that dim
``tt.cat``                           the default, sizePerThread on the fastest dim
                                     scaled so each thread holds both operands' elements
``tt.dot``                           blocked, sizePerThread 2 (>= 4 elements per thread)
                                     or 4 (>= 16) on the last two dims; ``a``/``b`` as
                                     ``#ttg.dot_op`` of it, ``c`` converted to it
``scf.for/if/while``, ``tt.func``    region arguments and results: the default
===================================  ===================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.errors import LayoutError, quote
from layoutkit.ir.context import op_line
from layoutkit.ir.dialects import tt, ttg
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.layouts.triton import BlockedEncoding, DotOperandEncoding, SliceEncoding
from layoutkit.layouts.triton.cga import CGALayout
from layoutkit.layouts.triton.default import default_blocked_encoding

_TARGET = re.compile(r"(cuda:\d+|hip:gfx[0-9a-z]+)")

#: dialects whose ops Triton's conversion target makes legal only without plain tensors
_CONVERTED_DIALECTS = ("arith", "math", "tt", "scf", "cf", "ub")

#: ops converted by Triton's GenericOpPattern (operands and results in the default layout);
#: another op of those dialects on plain tensors fails, as in Triton (math.tanh, arith.bitcast)
_GENERIC = frozenset("""
arith.addi arith.subi arith.muli arith.divui arith.divsi arith.ceildivui arith.ceildivsi
arith.floordivsi arith.remui arith.remsi arith.andi arith.ori arith.xori arith.shli arith.shrui
arith.shrsi arith.addf arith.subf arith.maximumf arith.maxnumf arith.maxsi arith.maxui
arith.minimumf arith.minnumf arith.minsi arith.minui arith.mulf arith.divf arith.remf arith.cmpi
arith.cmpf arith.select arith.trunci arith.truncf arith.extui arith.extsi arith.extf arith.sitofp
arith.fptosi arith.fptoui arith.uitofp arith.negf
math.exp math.exp2 math.floor math.ceil math.cos math.sin math.log math.log2 math.erf math.absf
math.absi math.sqrt math.rsqrt math.fma
tt.advance tt.make_tensor_ptr tt.reshape tt.bitcast tt.fp_to_fp tt.int_to_ptr tt.ptr_to_int
tt.splat tt.unsplat tt.addptr tt.clampf tt.precise_sqrt tt.precise_divf tt.mulhiui tt.elementwise_inline_asm
tt.reduce.return tt.scan.return tt.make_range tt.load tt.store tt.histogram tt.gather
tt.extern_elementwise tt.print tt.assert tt.atomic_cas tt.atomic_rmw tt.return
tt.descriptor_load tt.descriptor_store tt.dot_scaled tt.call
scf.yield scf.condition ub.poison
""".split())


@dataclass(frozen=True)
class ConvertTritonToTritonGPUPass(ModulePass):
    """Give every tensor a TritonGPU layout, as Triton 3.9's convert-triton-to-tritongpu.

    Options as Triton spells them: ``target`` (``cuda:80``, ``hip:gfx942``; required),
    ``num-warps``, ``threads-per-warp`` and ``num-ctas`` (powers of two). Sets the module
    attributes ``ttg.num-warps``, ``ttg.threads-per-warp``, ``ttg.num-ctas``, ``ttg.target``.
    """

    name = "convert-triton-to-tritongpu"

    target: str = ""
    num_warps: int = 4
    threads_per_warp: int = 32
    num_ctas: int = 1

    def __post_init__(self) -> None:
        if not self.target:
            raise LayoutError("target: required, not set (e.g. target=cuda:80 or target=hip:gfx942)")
        if not _TARGET.fullmatch(self.target):
            raise LayoutError(f"target: unknown target {quote(self.target)} "
                              f"(expected cuda:<compute capability> or hip:gfx<arch>, e.g. cuda:80, hip:gfx942)")
        for option, value in (("num-warps", self.num_warps), ("threads-per-warp", self.threads_per_warp),
                              ("num-ctas", self.num_ctas)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value & (value - 1):
                raise LayoutError(f"{option}: expected a power of two >= 1, got {quote(value)}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _Conversion(self.num_warps, self.threads_per_warp, self.num_ctas).run(op)
        attributes = dict(op.attributes)
        attributes.update({"ttg.num-ctas": IntegerAttr(self.num_ctas, i32),
                           "ttg.num-warps": IntegerAttr(self.num_warps, i32),
                           "ttg.target": StringAttr(self.target),
                           "ttg.threads-per-warp": IntegerAttr(self.threads_per_warp, i32)})
        op.attributes = dict(sorted(attributes.items()))  # MLIR prints a dictionary sorted


def _check_power_of_two(module: ModuleOp) -> None:
    """Every tensor without an encoding has power-of-two dims, as Triton's verifiers require
    (``tt.make_range``: "Number of elements must be power of 2"); else a LayoutError at the
    op, e.g. ``line 3: tt.make_range: result #0: shape 'tensor<48xi32>': ...``."""
    for op in module.walk():
        for index, result in enumerate(op.results):
            t = result.type
            if isinstance(t, TensorType) and isinstance(t.encoding, NoneAttr) and \
                    any(d < 1 or d & (d - 1) for d in t.get_shape()):
                line = op_line(op)
                where = f"line {line}: " if line else ""
                raise LayoutError(f"{where}{op.name}: result #{index}: shape {quote(t)}: expected power-of-two "
                                  f"dimensions (Triton's tensors have them; its layouts cover no other shape)")


def _blocked(t: Attribute) -> BlockedEncoding:
    layout = t.encoding.layout
    if not isinstance(layout, BlockedEncoding):  # the default layout of an operand: never
        raise LayoutError(f"convert-triton-to-tritongpu: expected a blocked layout, got {layout}")
    return layout


def _with_layout(t: TensorType, layout, shape=None) -> TensorType:
    return TensorType(t.element_type, t.get_shape() if shape is None else shape, LayoutAttr.of(layout))


def _elems_per_thread(layout: BlockedEncoding, shape) -> int:
    """Triton's getTotalElemsPerThread for a blocked layout: per dim, sizePerThread times the
    tile's repetitions over the shape (at least one)."""
    total = 1
    for size, spt, lanes, warps in zip(shape, layout.size_per_thread, layout.threads_per_warp,
                                       layout.warps_per_cta):
        tile = spt * lanes * warps
        total *= spt * max(1, -(-size // tile))
    return total


@dataclass
class _Conversion:
    """One run of the conversion over a module (the type converter and the rules)."""

    num_warps: int
    threads_per_warp: int
    num_ctas: int
    #: the type a retyped value had in the input (legality and the wanted types use it)
    original: dict[SSAValue, Attribute] = field(default_factory=dict)
    _defaults: dict[tuple[int, ...], LayoutAttr] = field(default_factory=dict)

    # --- the type converter -----------------------------------------------------------------

    def default_layout(self, shape: tuple[int, ...]) -> LayoutAttr:
        found = self._defaults.get(shape)
        if found is None:
            found = self._defaults[shape] = LayoutAttr.of(default_blocked_encoding(
                shape, self.num_warps, self.threads_per_warp, self.num_ctas))
        return found

    def convert_type(self, t: Attribute) -> Attribute:
        """A tensor without encoding gets the default blocked layout; other types stay."""
        if isinstance(t, TensorType) and isinstance(t.encoding, NoneAttr):
            return TensorType(t.element_type, t.get_shape(), self.default_layout(tuple(t.get_shape())))
        return t

    def original_type(self, value: SSAValue) -> Attribute:
        return self.original.get(value, value.type)

    def retype(self, value: SSAValue, t: Attribute) -> None:
        """Give ``value`` the type ``t`` in place (MLIR's ``Value::setType``)."""
        if value.type != t:
            self.original.setdefault(value, value.type)
            value._type = t  # noqa: SLF001 - xDSL has no public setter; the users stay

    def is_legal(self, op: Operation) -> bool:
        """Triton's conversion target: its dialects' ops are legal without plain tensors."""
        if op.dialect_name() not in _CONVERTED_DIALECTS:
            return True
        if isinstance(op, tt.DotOp):
            return all(isinstance(getattr(operand.type.encoding, "layout", None), DotOperandEncoding)
                       for operand in (op.a, op.b))
        types = [self.original_type(v) for v in op.operands] + [self.original_type(v) for v in op.results]
        types += [self.original_type(arg) for region in op.regions for block in region.blocks
                  for arg in block.args]
        if isinstance(op, tt.FuncOp):
            types += list(op.function_type.inputs.data) + list(op.function_type.outputs.data)
        return all(self.convert_type(t) == t for t in types)

    # --- converts ---------------------------------------------------------------------------

    def convert(self, value: SSAValue, t: Attribute, where: InsertPoint, location) -> SSAValue:
        new = ttg.ConvertLayoutOp.build(operands=[value], result_types=[t])
        new.location = location
        Rewriter.insert_op(new, where)
        return new.results[0]

    def adapt_operands(self, op: Operation) -> None:
        """Each operand in the default layout of its original type: a convert per use that
        needs one, right after the value's definition (MLIR's target materialization)."""
        for index, value in enumerate(op.operands):
            wanted = self.convert_type(self.original_type(value))
            if value.type == wanted:
                continue
            if isinstance(value, BlockArgument):
                where = InsertPoint.at_start(value.block)
            else:
                where = InsertPoint.after(value.owner)
            op.operands[index] = self.convert(value, wanted, where, op.location)

    def convert_before(self, op: Operation, index: int, t: Attribute, location) -> None:
        """A convert a rule makes: operand ``index`` of ``op`` to ``t``, right before ``op``."""
        op.operands[index] = self.convert(op.operands[index], t, InsertPoint.before(op), location)

    def convert_block_args(self, block: Block) -> None:
        for arg in block.args:
            self.retype(arg, self.convert_type(arg.type))

    # --- the walk ---------------------------------------------------------------------------

    def run(self, module: ModuleOp) -> None:
        _check_power_of_two(module)
        for op in list(module.walk()):
            if self.is_legal(op):
                continue
            rule = _RULES.get(op.name)
            if rule is None:
                if op.name not in _GENERIC:
                    line = op_line(op)
                    where = f"line {line}: " if line else ""
                    raise LayoutError(f"{where}{op.name}: failed to legalize operation '{op.name}' that was "
                                      f"explicitly marked illegal (convert-triton-to-tritongpu has no rule for it)")
                rule = _Conversion.generic
            rule(self, op)

    def generic(self, op: Operation) -> None:
        self.adapt_operands(op)
        for result in op.results:
            self.retype(result, self.convert_type(result.type))

    # --- rules ------------------------------------------------------------------------------

    def constant(self, op: Operation) -> None:
        self.generic(op)
        new_type = op.results[0].type
        if isinstance(op.value, DenseIntOrFPElementsAttr) and op.value.type != new_type:
            op.value = DenseIntOrFPElementsAttr(new_type, op.value.data)

    def broadcast(self, op: tt.BroadcastOp) -> None:
        self.adapt_operands(op)
        self.retype(op.result, _with_layout(op.result.type, _blocked(op.src.type)))

    def expand_dims(self, op: tt.ExpandDimsOp) -> None:
        self.adapt_operands(op)
        source = _blocked(op.src.type)
        axis = op.axis.value.data
        rank = source.rank + 1

        def insert_one(values):
            return tuple(values[:axis]) + (1,) + tuple(values[axis:])

        parent = BlockedEncoding(insert_one(source.size_per_thread), insert_one(source.threads_per_warp),
                                 insert_one(source.warps_per_cta), tuple(range(rank)),
                                 _cga(source, rank, lambda b: b[:axis] + [0] + b[axis:]))
        self.convert_before(op, 0, _with_layout(op.src.type, SliceEncoding(axis, parent)), op.location)
        self.retype(op.result, _with_layout(op.result.type, parent))

    def dot(self, op: tt.DotOp) -> None:
        self.adapt_operands(op)
        shape = tuple(op.d.type.get_shape())
        rank = len(shape)
        per_thread = [1] * rank
        elements = 1
        for size in shape:
            elements *= size
        threads = self.num_warps * self.threads_per_warp
        size = 4 if elements // threads >= 16 else 2 if elements // threads >= 4 else 1
        per_thread[-1] = min(size, shape[-1])
        per_thread[-2] = min(size, shape[-2])
        result = default_blocked_encoding(shape, self.num_warps, self.threads_per_warp, self.num_ctas,
                                          size_per_thread=per_thread)
        for index, operand in ((0, op.a), (1, op.b)):
            if not isinstance(operand.type.encoding.layout, DotOperandEncoding):
                self.convert_before(op, index, _with_layout(operand.type, DotOperandEncoding(index, result)),
                                    _location(operand))
        result_type = _with_layout(op.d.type, result)
        self.convert_before(op, 2, result_type, _location(op.c))
        self.retype(op.d, result_type)

    def reduce(self, op: tt.ReduceOp) -> None:
        self.adapt_operands(op)
        axis = op.axis.value.data
        for source, result in zip(op.srcs, op.results):
            if isinstance(result.type, TensorType):
                self.retype(result, _with_layout(result.type, SliceEncoding(axis, source.type.encoding.layout)))

    def scan(self, op: tt.ScanOp) -> None:
        self.adapt_operands(op)
        for source, result in zip(op.srcs, op.results):
            self.retype(result, source.type)

    def trans(self, op: tt.TransOp) -> None:
        self.adapt_operands(op)
        source = _blocked(op.src.type)
        perm = tuple(op.order.get_values())
        new_position = {old: new for new, old in enumerate(perm)}
        cga = _cga(source, source.rank, lambda b: [b[d] for d in perm])
        layout = BlockedEncoding(tuple(source.size_per_thread[d] for d in perm),
                                 tuple(source.threads_per_warp[d] for d in perm),
                                 tuple(source.warps_per_cta[d] for d in perm),
                                 tuple(new_position[d] for d in source.order), cga)
        self.retype(op.result, _with_layout(op.result.type, layout))

    def join(self, op: tt.JoinOp) -> None:
        self.adapt_operands(op)
        source = _blocked(op.lhs.type)
        rank = source.rank
        layout = BlockedEncoding(source.size_per_thread + (2,), source.threads_per_warp + (1,),
                                 source.warps_per_cta + (1,), (rank,) + tuple(source.order),
                                 _cga(source, rank + 1, lambda b: b + [0]))
        self.retype(op.result, _with_layout(op.result.type, layout))

    def split(self, op: tt.SplitOp) -> None:
        self.adapt_operands(op)
        source = _blocked(op.src.type)
        rank = source.rank
        if source.size_per_thread[-1] != 2 or source.order[0] != rank - 1:
            default = self.default_layout(tuple(op.outLHS.type.get_shape())).layout
            source = BlockedEncoding(default.size_per_thread + (2,), default.threads_per_warp + (1,),
                                     default.warps_per_cta + (1,), (rank - 1,) + tuple(default.order),
                                     _cga(default, rank, lambda b: b + [0]))
            self.convert_before(op, 0, _with_layout(op.src.type, source), op.location)
        layout = BlockedEncoding(source.size_per_thread[:-1], source.threads_per_warp[:-1],
                                 source.warps_per_cta[:-1], tuple(d for d in source.order if d != rank - 1),
                                 _cga(source, rank - 1, lambda b: b[:-1]))
        for result in op.results:
            self.retype(result, _with_layout(result.type, layout))

    def cat(self, op: tt.CatOp) -> None:
        self.adapt_operands(op)
        result_type = self.convert_type(op.result.type)
        layout = result_type.encoding.layout
        shape = tuple(result_type.get_shape())
        lhs = _elems_per_thread(_blocked(op.lhs.type), op.lhs.type.get_shape())
        rhs = _elems_per_thread(_blocked(op.rhs.type), op.rhs.type.get_shape())
        wanted = 1 << max(0, (lhs + rhs - 1).bit_length())  # next power of two
        per_thread = list(layout.size_per_thread)
        per_thread[layout.order[0]] *= wanted // _elems_per_thread(layout, shape)
        layout = BlockedEncoding(tuple(per_thread), layout.threads_per_warp, layout.warps_per_cta,
                                 layout.order, layout.cga)
        self.retype(op.result, _with_layout(op.result.type, layout))

    def region_op(self, op: Operation) -> None:
        """scf.for/if/while: operands adapted, region arguments and results converted."""
        self.adapt_operands(op)
        for region in op.regions:
            for block in region.blocks:
                self.convert_block_args(block)
        for result in op.results:
            self.retype(result, self.convert_type(result.type))

    def func(self, op: tt.FuncOp) -> None:
        if op.body.blocks:
            self.convert_block_args(op.body.blocks.first)
        function_type = op.function_type
        op.function_type = FunctionType.from_lists([self.convert_type(t) for t in function_type.inputs.data],
                                                   [self.convert_type(t) for t in function_type.outputs.data])


def _location(value: SSAValue):
    """The location of a value: its defining op's, or the block argument's."""
    return value.location if isinstance(value, BlockArgument) else value.owner.location


def _cga(source: BlockedEncoding, rank: int, change) -> CGALayout:
    """``source``'s CGA layout for ``rank`` dims, each block basis (a tensor offset per dim)
    mapped by ``change``: a dim of one CTA inserted, appended, dropped, or dims permuted."""
    bases = () if source.cga is None else source.cga.bases
    return CGALayout(tuple(tuple(change(list(basis))) for basis in bases), rank)


_RULES = {
    "arith.constant": _Conversion.constant,
    "tt.broadcast": _Conversion.broadcast,
    "tt.expand_dims": _Conversion.expand_dims,
    "tt.dot": _Conversion.dot,
    "tt.reduce": _Conversion.reduce,
    "tt.scan": _Conversion.scan,
    "tt.trans": _Conversion.trans,
    "tt.join": _Conversion.join,
    "tt.split": _Conversion.split,
    "tt.cat": _Conversion.cat,
    "scf.for": _Conversion.region_op,
    "scf.if": _Conversion.region_op,
    "scf.while": _Conversion.region_op,
    "tt.func": _Conversion.func,
}
