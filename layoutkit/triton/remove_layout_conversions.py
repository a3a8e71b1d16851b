"""``tritongpu-remove-layout-conversions``: Triton 3.9's RemoveLayoutConversions, the
heuristic that takes the ``ttg.convert_layout`` ops coalesce and accelerate-matmul leave::

    layoutkit opt k.ttgir --tritongpu-remove-layout-conversions

The stages (RemoveLayoutConversions.cpp and Utility.cpp of Triton 3.9), per ``tt.func``:

1. *forward propagation* (``LayoutPropagation``): the anchors -- function arguments, the
   results of expensive global loads (a tensor of at least ``num_warps * 32`` pointers),
   dots, atomics, gathers with an efficient layout and reorder-allowed reshapes -- keep their
   encoding; every encoding is pushed to the users through element-wise ops, broadcast,
   reduce, expand_dims, trans, join, split, converts (a convert's result takes its source's
   encoding) and scf results/arguments. A value reached by several encodings keeps the first
   (the anchor's, in program order), unless one is an mma encoding (``#ttg.blocked`` when the
   value comes from a load or store): Triton's "hacky resolve, prefer block encoding". Ops
   are then cloned in their new encoding (in place) and converts inserted where a user wants
   another one;
2. the converts are canonicalised: ``convert(x : T -> T)`` is ``x``, ``convert(convert(x))``
   one convert, a convert of a ``tt.splat``, ``tt.make_range`` or splat ``arith.constant`` is
   that op rebuilt in the new encoding; dead pure ops go;
3. *backward rematerialization*: for each convert left, the backward slice of its source
   (through element-wise ops, stopping at values that already have the wanted encoding and at
   splat/make_range/constant/convert) is recomputed in the destination encoding when every
   op can be (not an expensive load, dot, atomic or while) and Triton's byte cost allows it:
   the convert costs ``0`` if it only moves registers, else ``32 * bytes`` (at least 32
   elements of 32 bits); recomputing costs, for each slice op whose result is still needed
   elsewhere, ``bytes`` per arith/math op (``8 * bytes`` for div, exp, log, sqrt, sin, ...),
   ``8 * bytes`` per load, and a reduction its intra-warp plus ``8 *`` inter-warp size;
4. converts above ``arith.ext*``/``tt.broadcast``/``tt.expand_dims``/widening ``tt.fp_to_fp``
   are hoisted over the one such op of their slice that cannot be rematerialized
   (``hoistConvertOnTopOfExtOrBroadcast``); a convert whose slice reaches an ``scf.if`` inside
   an ``scf.for`` with one rematerializable branch moves into the other branch
   (``hoistConvertIntoConditionals``); then a final canonicalisation that also drops dead
   ``scf.for`` iteration arguments and unused ``scf.if`` results.

Worked example (vector_add after coalesce): the two loads of ``1024xf32`` (>= 128 pointers:
expensive) are anchors in ``blocked<[4], [32], [4]>``; forward propagation takes that layout
to ``arith.addf``, whose convert to the store's layout becomes ``T -> T`` and folds; backward
rematerialization recomputes the pointer and mask chains (``tt.splat``, ``tt.addptr``,
``arith.cmpi``, ``tt.make_range``) in ``[4]`` as they are used by nothing else: no convert is left.

Not modelled (documented deviations): scf.while values do not take part in propagation;
``hoistConvertDotOperand``; reshape inference beyond Triton's legacy blocked rule (its linear
layout fallback).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.ir.dialects import ttg
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.layouts.triton import BlockedEncoding, SliceEncoding
from layoutkit.triton.coalesce import module_int, require_ttgir

#: ops with Triton's ``Elementwise`` or ``SameOperandsAndResultEncoding`` trait (besides arith/math)
_SAME_ENCODING_TT = frozenset("""tt.addptr tt.broadcast tt.bitcast tt.fp_to_fp tt.int_to_ptr tt.ptr_to_int
tt.clampf tt.precise_sqrt tt.precise_divf tt.mulhiui tt.extern_elementwise tt.elementwise_inline_asm
tt.scan""".split())
#: ops whose result a convert folds into (canFoldIntoConversion; splat constants only)
_FOLDABLE = ("tt.splat", "tt.make_range", "arith.constant", "tt.histogram", "ttg.local_load", "ttg.convert_layout")
#: side effects: never erased when unused
_EFFECTS = frozenset("""tt.store tt.atomic_rmw tt.atomic_cas tt.assert tt.print tt.return scf.yield scf.condition
tt.reduce.return tt.scan.return ttg.local_store ttg.local_dealloc tt.call scf.for scf.while scf.if
ttg.async_wait ttg.async_commit_group ttg.barrier""".split())
#: arith/math ops Triton prices at 8 (isExpensiveMathOp)
_EXPENSIVE_MATH = frozenset("""arith.divf math.erfc math.sinh math.cosh math.tanh math.asinh math.acosh math.atanh
math.ctpop math.ctlz math.cttz math.exp math.exp2 math.expm1 math.log math.log2 math.log10 math.log1p math.sin
math.cos math.tan math.asin math.acos math.atan math.atan2 math.powf math.sqrt math.rsqrt math.erf
math.cbrt""".split())


# -- small helpers ------------------------------------------------------------------------------

def _tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and hasattr(value.type.encoding, "layout")


def _enc(value: SSAValue) -> Any:
    return value.type.encoding.layout


def _with(t: TensorType, layout: Any) -> TensorType:
    return TensorType(t.element_type, t.get_shape(), LayoutAttr.of(layout))


def _set_type(value: SSAValue, layout: Any) -> None:
    """Give ``value`` (an op result) ``layout``; a dense constant's value follows."""
    new = _with(value.type, layout)
    value._type = new  # noqa: SLF001 - xDSL has no public setter
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "arith.constant" and \
            isinstance(owner.value, DenseIntOrFPElementsAttr):
        owner.value = DenseIntOrFPElementsAttr(new, owner.value.data)


def _int(op: Operation, name: str) -> int:
    attr = op.properties.get(name)
    if attr is None:
        attr = op.attributes[name]
    return int(attr.value.data)


def _same_encoding(op: Operation) -> bool:
    if op.name in _SAME_ENCODING_TT:
        return True
    return (op.name.startswith("arith.") and op.name != "arith.constant") or op.name.startswith("math.")


def _splat_constant(op: Operation) -> bool:
    return op.name == "arith.constant" and isinstance(op.value, DenseIntOrFPElementsAttr) and \
        _is_splat(op.value)


def _is_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    data = attr.get_values() if hasattr(attr, "get_values") else None
    return data is not None and len(set(data)) <= 1


def _convert(value: SSAValue, layout: Any, where: InsertPoint, location=None) -> SSAValue:
    cvt = ttg.ConvertLayoutOp.build(operands=[value], result_types=[_with(value.type, layout)])
    cvt.location = location
    Rewriter.insert_op(cvt, where)
    return cvt.results[0]


def _after(value: SSAValue) -> InsertPoint:
    """MLIR's setInsertionPointAfterValue."""
    if isinstance(value, BlockArgument):
        return InsertPoint.at_start(value.block)
    return InsertPoint.after(value.owner)


def _location(value: SSAValue):
    return value.owner.location if isinstance(value.owner, Operation) else None


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()
    return op


def properly_dominates(value: SSAValue, op: Operation) -> bool:
    """``value`` is defined before ``op`` on every path (structured control flow)."""
    if isinstance(value, BlockArgument):
        return _ancestor_in(op, value.block) is not None
    definer = value.owner
    if definer is op:
        return False
    anchor = _ancestor_in(op, definer.parent_block())
    if anchor is None or anchor is definer:
        return False
    block = definer.parent_block()
    return block.get_operation_index(definer) < block.get_operation_index(anchor)


def _pointee_bits(element) -> int:
    width = getattr(element, "width", None) or getattr(element, "bitwidth", None)
    if width is not None:
        return int(getattr(width, "data", width))
    return 64  # pointers


# -- layout inference (Triton's inferDstEncoding / inferSrcEncoding) -------------------------

def _perm(op: Operation) -> tuple[int, ...]:
    order = op.order
    return tuple(order.get_values()) if hasattr(order, "get_values") else tuple(int(x) for x in order.data)


def _permuted(layout: Any, perm: tuple[int, ...]) -> Any | None:
    from layoutkit.triton.exact_layouts import permute_blocked

    return permute_blocked(layout, perm)


def _joined(layout: Any) -> Any | None:
    if not isinstance(layout, BlockedEncoding):
        return None
    from layoutkit.layouts.triton.cga import CGALayout

    rank = layout.rank
    bases = () if layout.cga is None else layout.cga.bases
    return BlockedEncoding(layout.size_per_thread + (2,), layout.threads_per_warp + (1,), layout.warps_per_cta + (1,),
                           (rank,) + tuple(layout.order), CGALayout(tuple(tuple(b) + (0,) for b in bases), rank + 1))


def _split(layout: Any) -> Any | None:
    if not isinstance(layout, BlockedEncoding):
        return None
    rank = layout.rank
    if layout.size_per_thread[-1] != 2 or layout.threads_per_warp[-1] != 1 or layout.warps_per_cta[-1] != 1 \
            or layout.order[0] != rank - 1:
        return None
    from layoutkit.layouts.triton.cga import CGALayout

    bases = () if layout.cga is None else layout.cga.bases
    return BlockedEncoding(layout.size_per_thread[:-1], layout.threads_per_warp[:-1], layout.warps_per_cta[:-1],
                           tuple(d for d in layout.order if d != rank - 1),
                           CGALayout(tuple(tuple(b)[:-1] for b in bases), rank - 1))


def reshape_decomposition(src: tuple[int, ...], dst: tuple[int, ...]) -> list[tuple[list[int], list[int]]]:
    """Triton's getReshapeDecomposition: groups of consecutive source and result dims with
    equal products (16x64 -> 64x16 is one group ([0, 1], [0, 1]))."""
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    n_src = n_dst = 1
    src_dims: list[int] = []
    dst_dims: list[int] = []
    while i < len(src) or j < len(dst):
        if (n_src < n_dst or (i < len(src) and n_src == 1) or (i < len(src) and src[i] == 1)) and i < len(src):
            n_src *= src[i]
            src_dims.append(i)
            i += 1
        elif j < len(dst):
            n_dst *= dst[j]
            dst_dims.append(j)
            j += 1
        else:
            return []
        if n_src == n_dst and src_dims and dst_dims:
            groups.append((src_dims, dst_dims))
            n_src = n_dst = 1
            src_dims, dst_dims = [], []
    return groups


def reshape_blocked(src_shape: tuple[int, ...], layout: Any, dst_shape: tuple[int, ...]) -> Any | None:
    """Triton's inferReshapeOpLegacyEncoding: the blocked layout of a reshape's result that keeps
    each thread's elements, or None. Each of sizePerThread, threadsPerWarp, warpsPerCTA fills
    the result's dims greedily from the most minor one of each group: 16x64 in
    ``[1, 4], [2, 16], [4, 1]`` -> 64x16 in ``[1, 4], [8, 4], [4, 1]``."""
    from math import prod

    from layoutkit.layouts.triton.cga import CGALayout
    from layoutkit.layouts.triton.default import default_blocked_encoding

    if not isinstance(layout, BlockedEncoding):
        return None
    if src_shape == dst_shape:
        return layout
    warps, threads = prod(layout.warps_per_cta), prod(layout.threads_per_warp)
    if layout.cga is not None and layout.cga.bases:
        return None
    if layout == default_blocked_encoding(src_shape, warps, threads, 1):
        return default_blocked_encoding(dst_shape, warps, threads, 1)
    fields = (layout.size_per_thread, layout.threads_per_warp, layout.warps_per_cta)
    for sub in fields:
        if any(src_shape[d] >= sub[d] and src_shape[d] % sub[d] for d in range(len(src_shape))):
            return None
    groups = reshape_decomposition(src_shape, dst_shape)
    if not groups:
        return None
    inv = {d: i for i, d in enumerate(layout.order)}  # 0: most minor
    for src_dims, _ in groups:
        ranks = [inv[d] for d in reversed(src_dims)]
        if ranks != list(range(ranks[0], ranks[0] + len(ranks))):
            return None
    for src_dims, _ in groups:
        remaining = [src_shape[d] for d in src_dims]
        for sub in fields:
            for i in range(len(src_dims) - 1, -1, -1):
                size = sub[src_dims[i]]
                if size == 1:
                    continue
                if any(remaining[k] != 1 for k in range(i + 1, len(src_dims))):
                    return None
                remaining[i] = remaining[i] // size if remaining[i] >= size else 0
                if remaining[i] == 0 and i != 0:
                    return None
    left = list(dst_shape)
    result = []
    for sub in fields:
        out = [1] * len(dst_shape)
        for src_dims, dst_dims in groups:
            rest = prod(sub[d] for d in src_dims)
            for i in range(len(dst_dims) - 1, -1, -1):
                d = dst_dims[i]
                out[d] = min(rest, left[d])
                left[d] //= out[d]
                rest //= out[d]
            if rest > 1:
                out[dst_dims[0]] *= rest
        result.append(tuple(out))
    groups.sort(key=lambda g: -inv[g[0][0]])
    dst_inv = [0] * len(dst_shape)
    k = len(dst_shape) - 1
    for _, dst_dims in groups:
        for d in dst_dims:
            dst_inv[d] = k
            k -= 1
    order = tuple(sorted(range(len(dst_shape)), key=lambda d: dst_inv[d]))
    return BlockedEncoding(*result, order, CGALayout((), len(dst_shape)))


def _reshape_shapes(op: Operation) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return (tuple(int(d) for d in op.operands[0].type.get_shape()),
            tuple(int(d) for d in op.results[0].type.get_shape()))


def infer_dst(op: Operation, layout: Any) -> Any | None:
    """The encoding of ``op``'s results when its operands have ``layout`` (None: unknown)."""
    if op.name in ("ttg.convert_layout", "tt.gather", "tt.load", "tt.store", "scf.for", "scf.yield", "scf.while",
                   "scf.condition") or _same_encoding(op):
        return layout
    if op.name == "tt.reduce":
        return SliceEncoding(_int(op, "axis"), layout)
    if op.name == "tt.expand_dims":
        axis = _int(op, "axis")
        return layout.parent if isinstance(layout, SliceEncoding) and layout.dim == axis else None
    if op.name == "tt.trans":
        return _permuted(layout, _perm(op))
    if op.name == "tt.join":
        return _joined(layout)
    if op.name == "tt.split":
        return _split(layout)
    if op.name == "tt.reshape" and op.properties.get("allow_reorder") is None:
        src, dst = _reshape_shapes(op)
        return reshape_blocked(src, layout, dst)
    return None


def infer_src(op: Operation, layout: Any) -> Any | None:
    """The encoding ``op``'s operands need for its results to have ``layout``."""
    if op.name == "ttg.convert_layout" or _same_encoding(op) or op.name in ("tt.gather", "tt.load", "tt.store"):
        return layout
    if op.name == "tt.reduce":
        axis = _int(op, "axis")
        return layout.parent if isinstance(layout, SliceEncoding) and layout.dim == axis else None
    if op.name == "tt.expand_dims":
        return SliceEncoding(_int(op, "axis"), layout)
    if op.name == "tt.trans":
        perm = _perm(op)
        return _permuted(layout, tuple(sorted(range(len(perm)), key=lambda d: perm[d])))
    if op.name == "tt.join":
        return _split(layout)
    if op.name == "tt.split":
        return _joined(layout)
    if op.name == "tt.reshape":
        src, dst = _reshape_shapes(op)
        return reshape_blocked(dst, layout, src)
    return None


def _threads(op: Operation) -> int:
    module = op
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    return module_int(module, "ttg.num-warps", 4) * module_int(module, "ttg.threads-per-warp", 32)


def is_expensive_load_or_store(op: Operation) -> bool:
    """Triton's isExpensiveLoadOrStore: a tensor of at least ``num_warps * threads`` pointers."""
    ptr = op.operands[0]
    if not isinstance(ptr.type, TensorType):
        return not isinstance(ptr.type, TensorType) and "tensordesc" not in str(ptr.type) and False
    elements = 1
    for d in ptr.type.get_shape():
        elements *= int(d)
    return elements >= _threads(op)


def is_anchor(op: Operation) -> bool:
    if op.name in ("tt.load", "tt.store"):
        return is_expensive_load_or_store(op)
    if op.name in ("tt.dot", "tt.dot_scaled", "ttng.warp_group_dot", "tt.atomic_rmw", "tt.atomic_cas",
                   "ttng.tmem_load"):
        return True
    if op.name == "tt.gather":
        return bool(op.properties.get("efficient_layout") or op.attributes.get("efficient_layout"))
    if op.name == "tt.reshape":
        return bool(op.properties.get("allow_reorder") or op.attributes.get("allow_reorder"))
    return False


def _is_mma(layout: Any) -> bool:
    from layoutkit.layouts.triton.amd import AmdMfmaEncoding
    from layoutkit.layouts.triton.mma import NvidiaMmaEncoding

    kinds = (NvidiaMmaEncoding, AmdMfmaEncoding)
    try:
        from layoutkit.layouts.triton.amd import AmdWmmaEncoding
        kinds = (*kinds, AmdWmmaEncoding)
    except ImportError:
        pass
    return isinstance(layout, kinds)


# -- 1. forward propagation ---------------------------------------------------------------------

class LayoutPropagation:
    """Triton's LayoutPropagation for one ``tt.func``."""

    def __init__(self, func: Operation):
        self.func = func
        self.layouts: dict[SSAValue, list[Any]] = {}
        self.mapping: dict[tuple[SSAValue, Any], SSAValue] = {}
        self.to_delete: list[Operation] = []

    def run(self) -> None:
        self.init_anchors()
        self.propagate()
        self.resolve_conflicts()
        self.rewrite_region(self.func.body)

    def init_anchors(self) -> None:
        for arg in self.func.body.blocks.first.args:
            if _tensor(arg):
                self.layouts.setdefault(arg, [_enc(arg)])
        for op in self.func.walk():
            if is_anchor(op):
                for r in op.results:
                    if _tensor(r):
                        self.layouts.setdefault(r, [_enc(r)])

    def set_encoding(self, values, info: list[Any], changed: list, op: Operation) -> None:
        for value in values:
            if not _tensor(value):
                continue
            grew = False
            for layout in info:
                dst = layout if op.name == "ttg.convert_layout" else infer_dst(op, layout)
                if dst is None:
                    continue
                known = self.layouts.setdefault(value, [])
                if dst not in known:
                    known.append(dst)
                    grew = True
            if grew:
                changed.append(value)

    def to_users(self, value: SSAValue, info: list[Any]) -> list:
        changed: list = []
        for use in list(value.uses):
            user, index = use.operation, use.index
            if isinstance(user, scf.ForOp):
                k = index - 3
                if k >= 0:
                    self.set_encoding([user.body.blocks.first.args[k + 1], user.results[k]], info, changed, user)
                continue
            if isinstance(user, scf.WhileOp):
                continue  # not modelled
            if isinstance(user, scf.YieldOp):
                parent = user.parent_op()
                if isinstance(parent, scf.ForOp):
                    self.set_encoding([parent.results[index], parent.body.blocks.first.args[index + 1]],
                                      info, changed, user)
                elif isinstance(parent, scf.IfOp):
                    self.set_encoding([parent.results[index]], info, changed, user)
                continue
            if user.name == "tt.gather":
                if not is_anchor(user) and index == 1:
                    self.set_encoding(user.results, info, changed, user)
                continue
            if _same_encoding(user) or user.name in ("tt.reduce", "tt.expand_dims", "tt.reshape", "tt.trans",
                                                     "tt.join", "tt.split", "ttg.convert_layout"):
                self.set_encoding(user.results, info, changed, user)
        return changed

    def propagate(self) -> None:
        queue = list(self.layouts)
        while queue:
            value = queue.pop()
            queue.extend(self.to_users(value, list(self.layouts[value])))

    def resolve_conflicts(self) -> None:
        for value, info in self.layouts.items():
            if len(info) <= 1:
                continue
            op = value.owner if isinstance(value.owner, Operation) else None
            memory = op is not None and op.name in ("tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas")
            chosen = info[0]
            for layout in info:
                if (memory and isinstance(layout, BlockedEncoding)) or (not memory and _is_mma(layout)):
                    chosen = layout
                    break
            info[:] = [chosen]

    # -- rewrite -----------------------------------------------------------------------------
    def value_as(self, value: SSAValue, layout: Any) -> SSAValue:
        if not _tensor(value):
            return value
        info = self.layouts.get(value)
        if info is None or info[0] == _enc(value):
            current = value
        else:
            current = self.mapping[(value, info[0])]
        if _enc(current) == layout:
            return current
        return _convert(current, layout, _after(current), _location(value))

    def map(self, old: SSAValue, new: SSAValue) -> None:
        self.mapping[(old, _enc(new))] = new

    def rewrite_region(self, region: Region) -> None:
        queue = [region]
        while queue:
            current = queue.pop(0)
            for block in current.blocks:
                for op in list(block.ops):
                    need = any(r in self.layouts and self.layouts[r][0] != _enc(r) for r in op.results)
                    if need:
                        new = self.rewrite_op(op)
                        queue.extend(new.regions)
                    elif isinstance(op, scf.YieldOp):
                        self.rewrite_yield(op)
                    elif op.name == "tt.reduce" and not any(isinstance(r.type, TensorType) for r in op.results):
                        self.rewrite_reduce_to_scalar(op)
                    elif op.name == "tt.assert":
                        if op.operands and op.operands[0] in self.layouts:
                            v = op.operands[0]
                            op.operands[0] = self.value_as(v, self.layouts[v][0])
                    else:
                        for i, operand in enumerate(op.operands):
                            if operand in self.layouts and _tensor(operand):
                                op.operands[i] = self.value_as(operand, _enc(operand))
                        queue.extend(op.regions)
        for op in reversed(self.to_delete):
            _erase(op)

    def rewrite_yield(self, op: Operation) -> None:
        parent = op.parent_op()
        for i, operand in enumerate(op.operands):
            t = operand.type
            if isinstance(parent, scf.ForOp | scf.IfOp):
                t = parent.results[i].type
            if isinstance(t, TensorType) and hasattr(t.encoding, "layout"):
                op.operands[i] = self.value_as(operand, t.encoding.layout)

    def rewrite_reduce_to_scalar(self, op: Operation) -> None:
        layout = next((self.layouts[v][0] for v in op.operands if v in self.layouts), None)
        if layout is None:
            return
        for i, operand in enumerate(op.operands):
            op.operands[i] = self.value_as(operand, layout)

    def rewrite_op(self, op: Operation) -> Operation:
        self.to_delete.append(op)
        if isinstance(op, scf.ForOp):
            return self.rewrite_for(op)
        if isinstance(op, scf.IfOp):
            return self.rewrite_if(op)
        layout = self.layouts[op.results[0]][0]
        where = InsertPoint.before(op)
        if op.name == "ttg.convert_layout":
            src = op.operands[0]
            src_layout = self.layouts[src][0] if src in self.layouts else _enc(src)
            value = self.value_as(src, src_layout)
            new = ttg.ConvertLayoutOp.build(operands=[value], result_types=[_with(op.results[0].type, layout)])
            new.location = op.location
            Rewriter.insert_op(new, where)
            self.map(op.results[0], new.results[0])
            return new
        if op.name in _FOLDABLE and (op.name != "arith.constant" or _splat_constant(op)):
            clone = op.clone()
            Rewriter.insert_op(clone, where)
            new = ttg.ConvertLayoutOp.build(operands=[clone.results[0]],
                                            result_types=[_with(op.results[0].type, layout)])
            new.location = op.location
            Rewriter.insert_op(new, where)
            self.map(op.results[0], new.results[0])
            return new
        clone = op.clone()
        Rewriter.insert_op(clone, where)
        src = infer_src(op, layout) if op.operands else None
        for i, operand in enumerate(op.operands):
            clone.operands[i] = self.value_as(operand, src)
        for old, res in zip(op.results, clone.results):
            if _tensor(old):
                _set_type(res, layout)
            if res.type == old.type:
                old.replace_all_uses_with(res)
            else:
                self.map(old, res)
        return clone

    def rewrite_for(self, op: scf.ForOp) -> Operation:
        inits = []
        for operand, result in zip(op.iter_args, op.results):
            inits.append(self.value_as(operand, self.layouts[result][0]) if result in self.layouts else operand)
        old_block = op.body.blocks.first
        block = Block(arg_types=[old_block.args[0].type, *(v.type for v in inits)])
        for inner in list(old_block.ops):
            inner.detach()
            block.add_op(inner)
        new = scf.ForOp(op.lb, op.ub, op.step, inits, Region([block]))
        new.attributes.update(op.attributes)
        new.location = op.location
        Rewriter.insert_op(new, InsertPoint.before(op))
        self._remap(op.results, new.results)
        self._remap(old_block.args, block.args)
        return new

    def rewrite_if(self, op: scf.IfOp) -> Operation:
        types = [(_with(r.type, self.layouts[r][0]) if r in self.layouts else r.type) for r in op.results]
        then_region, else_region = op.true_region, op.false_region
        op.detach_region(then_region)
        op.detach_region(else_region)
        new = scf.IfOp(op.cond, types, then_region, else_region)
        new.attributes.update(op.attributes)
        new.location = op.location
        Rewriter.insert_op(new, InsertPoint.before(op))
        self._remap(op.results, new.results)
        return new

    def _remap(self, olds, news) -> None:
        for old, new in zip(olds, news):
            if old.type == new.type:
                old.replace_all_uses_with(new)
            else:
                self.map(old, new)


def _erase(op: Operation) -> None:
    for r in op.results:
        for use in list(r.uses):
            use.operation.operands[use.index] = r  # keep; the user is erased too
    op.detach()
    op.erase(safe_erase=False)


# -- 2. canonicalisation of converts ------------------------------------------------------------

def _pure(op: Operation) -> bool:
    return op.name not in _EFFECTS and op.name != "tt.func" and not op.name.startswith("ttng.") and \
        op.parent_op() is not None


class _Constants:
    """MLIR's OperationFolder as the greedy driver uses it: constants are unique per (value,
    type) and live at the front of the function's entry block (a constant not at the front
    and not right after another known constant moves to the very front)."""

    def __init__(self, func: Operation):
        self.block = func.body.blocks.first
        self.known: dict[tuple[str, Any], Operation] = {}
        self.owned: set[int] = set()

    def insert(self, op: Operation) -> bool:
        """Register ``op``; False when it was replaced by an equal constant (and erased)."""
        key = (str(op.value), op.results[0].type)
        found = self.known.get(key)
        if found is not None and found is not op:
            op.results[0].replace_all_uses_with(found.results[0])
            op.detach()
            op.erase()
            return False
        first = self.block.first_op
        if op.parent_block() is not self.block or (first is not op and id(op.prev_op) not in self.owned):
            op.detach()
            self.block.insert_op_before(op, self.block.first_op)
        self.known[key] = op
        self.owned.add(id(op))
        return True


def _inside(value: SSAValue, loop: Operation) -> bool:
    op = value.owner if isinstance(value.owner, Operation) else value.block.parent_op()
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op()
    return False


def _for_dead_args(loop: scf.ForOp) -> bool:
    """Triton's ForOpDeadArgElimination: a loop-carried value nothing live needs yields its
    own argument (the arg and its computation then go as dead code)."""
    block = loop.body.blocks.first
    yield_op = block.last_op
    live: set[SSAValue] = set()
    queue: list[SSAValue] = []

    def mark(value: SSAValue) -> None:
        if _inside(value, loop) and value not in live:
            live.add(value)
            queue.append(value)

    for k, result in enumerate(loop.results):
        if result.uses:
            mark(yield_op.operands[k])
    if len(live) == len(loop.results):
        return False
    for op in block.walk():
        if not isinstance(op, scf.YieldOp | scf.ForOp) and not (_pure(op) and op.results):
            for operand in op.operands:
                mark(operand)
    while queue:
        value = queue.pop()
        definer = value.owner
        if isinstance(definer, scf.ForOp):
            k = value.index
            mark(definer.iter_args[k])
            mark(definer.body.blocks.first.last_op.operands[k])
        elif isinstance(definer, scf.IfOp):
            mark(definer.cond)
            for region in (definer.true_region, definer.false_region):
                if region.blocks:
                    mark(region.blocks.first.last_op.operands[value.index])
        elif isinstance(definer, scf.WhileOp):
            return False
        elif isinstance(definer, Operation):
            for operand in definer.operands:
                mark(operand)
        else:
            owner = value.block.parent_op()
            if isinstance(owner, scf.ForOp) and value.index > 0:
                mark(value.block.last_op.operands[value.index - 1])
                mark(owner.iter_args[value.index - 1])
    changed = False
    for k, operand in enumerate(yield_op.operands):
        arg = block.args[k + 1]
        if operand in live or operand is arg:
            continue
        if not _inside(operand, loop) and operand is not loop.iter_args[k]:
            continue
        yield_op.operands[k] = arg
        changed = True
    return changed


def _for_forwarded_args(loop: scf.ForOp) -> bool:
    """scf.for's ForOpIterArgsFolder: an iteration argument its body yields unchanged is its
    init value; the loop is rebuilt without it."""
    block = loop.body.blocks.first
    yield_op = block.last_op
    drop = [k for k, operand in enumerate(yield_op.operands) if operand is block.args[k + 1]]
    if not drop:
        return False
    for k in drop:
        block.args[k + 1].replace_all_uses_with(loop.iter_args[k])
        loop.results[k].replace_all_uses_with(loop.iter_args[k])
    keep = [k for k in range(len(loop.iter_args)) if k not in drop]
    new_yield = scf.YieldOp(*[yield_op.operands[k] for k in keep])
    Rewriter.insert_op(new_yield, InsertPoint.before(yield_op))
    yield_op.detach()
    yield_op.erase()
    for k in reversed(drop):
        block.erase_arg(block.args[k + 1])
    region = loop.detach_region(loop.body)
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [loop.iter_args[k] for k in keep], region)
    new.attributes.update(loop.attributes)
    new.location = loop.location
    Rewriter.insert_op(new, InsertPoint.before(loop))
    for k, res in zip(keep, new.results):
        loop.results[k].replace_all_uses_with(res)
    loop.detach()
    loop.erase()
    return True


def _if_unused_results(op: scf.IfOp) -> bool:
    """scf.if's RemoveUnusedResults: the if rebuilt without the results nothing uses."""
    keep = [k for k, r in enumerate(op.results) if r.uses]
    if len(keep) == len(op.results) or not op.false_region.blocks:
        return False
    for region in (op.true_region, op.false_region):
        terminator = region.blocks.first.last_op
        trimmed = scf.YieldOp(*[terminator.operands[k] for k in keep])
        Rewriter.insert_op(trimmed, InsertPoint.before(terminator))
        terminator.detach()
        terminator.erase()
    then_region, else_region = op.true_region, op.false_region
    op.detach_region(then_region)
    op.detach_region(else_region)
    new = scf.IfOp(op.cond, [op.results[k].type for k in keep], then_region, else_region)
    new.attributes.update(op.attributes)
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    for k, res in zip(keep, new.results):
        op.results[k].replace_all_uses_with(res)
    op.detach()
    op.erase()
    return True


def canonicalize_converts(func: Operation, loops: bool = False) -> None:
    """Triton's ConvertLayoutOp canonicalisation patterns, constant uniquing and dead-code
    removal, to a fixpoint (MLIR's greedy driver, which Triton's goldens show visiting ops
    top-down, a new op at once)."""
    constants = _Constants(func)
    for op in list(func.walk()):
        if op.name == "arith.constant" and op.parent is not None:
            constants.insert(op)
    for _ in range(10_000):
        changed = False
        for op in list(func.walk()):
            if op.parent is None:
                continue
            if op.results and _pure(op) and all(not r.uses for r in op.results):
                op.detach()
                op.erase()
                changed = True
                continue
            if loops and isinstance(op, scf.ForOp):
                changed |= _for_dead_args(op) or _for_forwarded_args(op)
                continue
            if loops and isinstance(op, scf.IfOp):
                changed |= _if_unused_results(op)
                continue
            if op.name in _USER_PATTERNS:
                changed |= _USER_PATTERNS[op.name](op)
            elif op.name == "ttg.convert_layout":
                new = _canonicalize_convert(op)
                if new is not None:
                    changed = True
                    if new.name == "arith.constant":
                        constants.insert(new)
        if not changed:
            return


def _canonicalize_convert(op: Operation) -> Operation | None:
    """Rewrite one convert; the op that replaces it (its source's owner when folded), or None."""
    src, result = op.operands[0], op.results[0]
    if src.type == result.type:
        result.replace_all_uses_with(src)
        op.detach()
        op.erase()
        return src.owner if isinstance(src.owner, Operation) else src.block.parent_op()
    arg = src.owner if isinstance(src.owner, Operation) else None
    if arg is None:
        return None
    from layoutkit.layouts.triton import DotOperandEncoding
    from layoutkit.layouts.triton.mma import NvidiaMmaEncoding

    if isinstance(_enc(result), DotOperandEncoding) and isinstance(_enc(src), NvidiaMmaEncoding):
        return None
    layout = _enc(result)
    if arg.name == "ttg.convert_layout":
        new = ttg.ConvertLayoutOp.build(operands=[arg.operands[0]], result_types=[result.type])
    elif arg.name == "tt.cat":
        if not _cheap_cat(arg, layout):
            return None
        new = arg.clone()
        for i, operand in enumerate(arg.operands):
            new.operands[i] = operand
        _set_type(new.results[0], layout)
    elif arg.name in ("tt.splat", "tt.make_range", "tt.histogram") or _splat_constant(arg):
        new = arg.clone()
        for i, operand in enumerate(arg.operands):
            new.operands[i] = operand
        _set_type(new.results[0], layout)
    else:
        return None
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    result.replace_all_uses_with(new.results[0])
    op.detach()
    op.erase()
    return new


def _cheap_cat(cat: Operation, layout: Any) -> bool:
    """Triton's cat legality for a new result encoding: no fewer registers per thread than
    its result has now (fewer would go through shared memory anyway)."""
    from layoutkit.analysis.access import registers_per_thread

    shape = tuple(int(d) for d in cat.results[0].type.get_shape())
    try:
        return registers_per_thread(layout, shape) >= registers_per_thread(_enc(cat.results[0]), shape)
    except Exception:  # noqa: BLE001 - not a distributed layout
        return False


def trivial_convert(op: Operation) -> bool:
    """Triton's isConvertTrivial: source and result encodings are the same function."""
    src, dst = _enc(op.operands[0]), _enc(op.results[0])
    if src == dst:
        return True
    shape = tuple(int(d) for d in op.operands[0].type.get_shape())
    try:
        return src.to_linear_layout(shape) == dst.to_linear_layout(shape)
    except Exception:  # noqa: BLE001 - no linear form: compared by name only
        return False


def _source_convert(op: Operation, index: int = 0) -> Operation | None:
    owner = op.operands[index].owner
    return owner if isinstance(owner, Operation) and owner.name == "ttg.convert_layout" else None


def _replace_operand(op: Operation, index: int, value: SSAValue) -> bool:
    """``op`` rebuilt (at its place) with operand ``index`` replaced -- replaceOpWithNewOp."""
    new = op.clone()
    for i, operand in enumerate(op.operands):
        new.operands[i] = value if i == index else operand
    Rewriter.insert_op(new, InsertPoint.before(op))
    for old, res in zip(op.results, new.results):
        old.replace_all_uses_with(res)
    op.detach()
    op.erase()
    return True


def _fold_into_reshape(op: Operation) -> bool:
    cvt = _source_convert(op)
    if cvt is None or not (trivial_convert(cvt) or op.properties.get("allow_reorder") is not None):
        return False
    return _replace_operand(op, 0, cvt.operands[0])


def _fold_into_trans(op: Operation) -> bool:
    perm = _perm(op)
    if perm == tuple(range(len(perm))):
        new = ttg.ConvertLayoutOp.build(operands=[op.operands[0]], result_types=[op.results[0].type])
        new.location = op.location
        Rewriter.insert_op(new, InsertPoint.before(op))
        op.results[0].replace_all_uses_with(new.results[0])
        op.detach()
        op.erase()
        return True
    cvt = _source_convert(op)
    if cvt is None or not trivial_convert(cvt):
        return False
    return _replace_operand(op, 0, cvt.operands[0])


def _fold_into_histogram(op: Operation) -> bool:
    cvt = _source_convert(op)
    if cvt is None:
        return False
    if len(op.operands) > 1:  # the mask follows the new source layout
        mask = _convert(op.operands[1], _enc(cvt.operands[0]), InsertPoint.before(op), op.location)
        op.operands[1] = mask
    return _replace_operand(op, 0, cvt.operands[0])


def _fold_into_gather(op: Operation) -> bool:
    cvt = _source_convert(op)
    if cvt is None or is_anchor(op):
        return False
    return _replace_operand(op, 0, cvt.operands[0])


def _fold_into_memory(op: Operation) -> bool:
    if not op.operands or not _tensor(op.operands[0]):
        return False
    cvt = _source_convert(op)
    return cvt is not None and _replace_operand(op, 0, cvt.operands[0])


def _fold_into_split(op: Operation) -> bool:
    cvt = _source_convert(op)
    if cvt is None or _split(_enc(cvt.operands[0])) != _enc(op.results[0]):
        return False
    return _replace_operand(op, 0, cvt.operands[0])


#: the patterns on a convert's user (Triton's reshape/trans/histogram/gather/alloc/local_store/split(cvt))
_USER_PATTERNS = {"tt.reshape": _fold_into_reshape, "tt.trans": _fold_into_trans, "tt.histogram": _fold_into_histogram,
                  "tt.gather": _fold_into_gather, "ttg.local_alloc": _fold_into_memory,
                  "ttg.local_store": _fold_into_memory, "tt.split": _fold_into_split}


# -- 3. backward rematerialization -----------------------------------------------------------

def _bytes(value: SSAValue, min_elements: int = 0, min_bits: int = 0) -> int:
    t = value.type
    elements, bits = 0, 0
    if isinstance(t, TensorType):
        elements = 1
        for d in t.get_shape():
            elements *= int(d)
        element = t.element_type
        if hasattr(element, "width") or hasattr(element, "bitwidth"):
            bits = _pointee_bits(element)
    return (max(elements, min_elements) * max(bits, min_bits)) >> 3


def reorders_registers(src: Any, dst: Any, shape: tuple[int, ...]) -> bool:
    """Triton's cvtReordersRegisters: the conversion only moves values between registers."""
    try:
        a, b = src.to_linear_layout(shape), dst.to_linear_layout(shape)
        comp = b.invert_and_compose(a)
    except Exception:  # noqa: BLE001 - a layout without a linear form: priced as shared memory
        return False
    for dim in ("block", "warp", "lane", "register"):
        if not (a.has_in_dim(dim) and b.has_in_dim(dim)):
            continue
        q = comp.quotient([dim])
        if q is None:
            break
        comp = q
    return all(d == "register" for d in comp.out_dim_names)


def convert_cost(src: SSAValue, layout: Any) -> int:
    """Triton's getConvertCost."""
    shape = tuple(int(d) for d in src.type.get_shape())
    if reorders_registers(_enc(src), layout, shape):
        return 0
    return 32 * _bytes(src, 32, 32)


def _reduce_cost(op: Operation) -> int:
    layout = _enc(op.operands[0])
    axis = _int(op, "axis")
    shape = [int(d) for d in op.operands[0].type.get_shape()]
    if not isinstance(layout, BlockedEncoding):
        return 0
    per_lane = max(1, shape[axis] // layout.size_per_thread[axis])
    intra = min(per_lane, layout.threads_per_warp[axis])
    inter = min(max(1, per_lane // layout.threads_per_warp[axis]), layout.warps_per_cta[axis])
    return intra + 8 * inter


class Rematerialization:
    """Triton's LayoutRematerialization for one ``tt.func``."""

    def __init__(self, func: Operation):
        self.func = func
        self.remat: dict[tuple[SSAValue, Any], SSAValue] = {}
        self.to_delete: list[Operation] = []

    def add(self, old: SSAValue, layout: Any, new: SSAValue) -> None:
        self.remat[(old, layout)] = new

    def converts(self) -> list[Operation]:
        return [op for op in self.func.walk() if op.name == "ttg.convert_layout"]

    def cleanup(self) -> None:
        for op in reversed(self.to_delete):
            if op.parent is not None:
                _erase(op)
        self.to_delete.clear()

    def backward_slice(self, value: SSAValue, user: Operation, layout: Any, stop=None):
        """Triton's getConvertBackwardSlice: (slice values in order, their layouts) or None."""
        seen: set = set()
        queue: list[tuple[SSAValue, Operation, Any]] = []
        order: list[SSAValue] = []
        layouts: dict[SSAValue, Any] = {}
        reused: dict[SSAValue, SSAValue] = {}

        def enqueue(v, u, enc):
            key = (v, id(u), enc)
            if key not in seen:
                seen.add(key)
                queue.append((v, u, enc))

        def update(v, enc) -> bool:
            if v not in layouts:
                order.append(v)
                layouts[v] = enc
                return True
            return layouts[v] == enc

        enqueue(value, user, layout)
        while queue:
            current, use_op, enc = queue.pop()
            if not isinstance(current.type, TensorType):
                continue
            if isinstance(current.owner, scf.ForOp):
                return None
            if not update(current, enc):
                return None
            existing = self.remat.get((current, enc))
            if existing is not None and properly_dominates(existing, use_op):
                reused.setdefault(current, existing)
                if not update(existing, enc):
                    return None
                current = existing
            definer = current.owner
            if isinstance(definer, scf.IfOp):
                if stop is not None and stop(definer):
                    continue
                for region in (definer.true_region, definer.false_region):
                    terminator = region.blocks.first.last_op
                    enqueue(terminator.operands[current.index], terminator, enc)
                continue
            if isinstance(definer, Operation):
                for r in definer.results:
                    if r is not current and isinstance(r.type, TensorType) and not update(r, enc):
                        return None
                if _free_convert(definer):
                    enqueue(definer.operands[0], definer, enc)
                    continue
                if _can_fold(definer, enc):
                    continue
                if stop is not None and stop(definer):
                    continue
                if definer.name == "tt.cat":
                    return None
                if definer.name == "tt.gather":
                    src = infer_src(definer, enc)
                    if src is None:
                        return None
                    enqueue(definer.operands[1], definer, src)
                    continue
                for operand in definer.operands:
                    src = infer_src(definer, enc)
                    if src is None:
                        return None
                    if _tensor(operand) and _enc(operand) == src:
                        continue
                    enqueue(operand, definer, src)
                continue
            block = current.block
            parent = block.parent_op()
            if isinstance(parent, scf.ForOp) and current.index > 0:
                k = current.index - 1
                enqueue(parent.iter_args[k], parent, enc)
                yield_op = block.last_op
                enqueue(yield_op.operands[k], yield_op, enc)
                continue
            return None
        return order, layouts, reused

    def rematerializable(self, value, user, layout, stop=None):
        found = self.backward_slice(value, user, layout, stop)
        if found is None or not found[0]:
            return None
        for v in found[0]:
            if v not in found[2] and isinstance(v.owner, Operation) and not _can_be_remat(v.owner):
                return None
        return found

    def beneficial(self, cvt: Operation, values: list[SSAValue], new_cost: int) -> bool:
        ops = []
        for v in values:
            if isinstance(v.owner, Operation) and v.owner not in ops:
                ops.append(v.owner)
        outside: list[SSAValue] = []
        in_slice = set(values)
        for v in values:
            if any(u.operation is not cvt and u.operation not in ops for u in v.uses):
                outside.append(v)
        i = 0
        while i < len(outside):
            definer = outside[i].owner
            if isinstance(definer, Operation):
                for operand in definer.operands:
                    if operand in in_slice and operand not in outside:
                        outside.append(operand)
            i += 1
        outside_set = set(outside)
        convert = convert_cost(cvt.operands[0], _enc(cvt.results[0]))
        remat = new_cost
        for op in ops:
            if not any(r in outside_set for r in op.results):
                continue
            if op.name == "arith.constant":
                continue
            if op.name in ("tt.load", "ttg.local_load"):
                remat += sum(8 * _bytes(r) for r in op.results)
            elif op.name.startswith(("arith.", "math.")):
                remat += sum((8 if op.name in _EXPENSIVE_MATH else 1) * _bytes(r) for r in op.results)
            elif op.name == "tt.reduce":
                remat += _reduce_cost(op)
        return convert >= remat

    def backward(self) -> None:
        for cvt in self.converts():
            if not self.backward_one(cvt):
                self.add(cvt.operands[0], _enc(cvt.results[0]), cvt.results[0])

    def backward_one(self, cvt: Operation) -> bool:
        from layoutkit.layouts.triton import DotOperandEncoding

        layout = _enc(cvt.results[0])
        if isinstance(layout, DotOperandEncoding) and _in_for(cvt):
            return False
        src = cvt.operands[0]
        existing = self.remat.get((src, layout))
        if existing is not None and properly_dominates(existing, cvt):
            cvt.results[0].replace_all_uses_with(existing)
            cvt.detach()
            cvt.erase()
            return True
        found = self.rematerializable(src, cvt, layout)
        if found is None or not self.beneficial(cvt, found[0], 0):
            return False
        self.rewrite_slice(found, cvt, {})
        return True

    def rewrite_slice(self, found, cvt: Operation, mapping: dict) -> None:
        """Triton's rewriteSlice: every op of the slice cloned (before itself) in its slice
        layout; a loop-carried value gets a new iteration argument (appended) and yield operand;
        the convert's uses take the rematerialized source."""
        values, layouts, reused = found
        ops: list[Operation] = []
        yields: dict[int, list[int]] = {}
        for v in values:
            if v in reused:
                mapping[v] = reused[v]
                continue
            if isinstance(v.owner, Operation):
                if v.owner not in ops:
                    ops.append(v.owner)
                if isinstance(v.owner, scf.IfOp):
                    for region in (v.owner.true_region, v.owner.false_region):
                        terminator = region.blocks.first.last_op
                        if terminator not in ops:
                            ops.append(terminator)
                        yields.setdefault(id(terminator), []).append(v.index)
                continue
            loop = v.block.parent_op()
            if loop not in ops:
                ops.append(loop)
            terminator = v.block.last_op
            if terminator not in ops:
                ops.append(terminator)
            yields.setdefault(id(terminator), []).append(v.index - 1)
        ops.sort(key=_position)
        replacements: list[tuple[SSAValue, SSAValue]] = []
        dead: list[Operation] = []
        in_slice = set(values)
        for op in ops:
            if isinstance(op, scf.ForOp):
                self._rewrite_for(op, in_slice, layouts, mapping, replacements, dead)
                continue
            if isinstance(op, scf.IfOp):
                self._rewrite_if(op, in_slice, layouts, mapping, replacements, dead)
                continue
            where = InsertPoint.before(op)
            if isinstance(op, scf.YieldOp):
                extra = [mapping.get(op.operands[k], op.operands[k]) for k in sorted(yields.get(id(op), []))]
                new = scf.YieldOp(*op.operands, *extra)
                Rewriter.insert_op(new, where)
                op.detach()
                op.erase()
                continue
            if op.name == "arith.constant":
                clone = op.clone()
                Rewriter.insert_op(clone, where)
                value = _convert(clone.results[0], layouts[op.results[0]], where, op.location)
                mapping[op.results[0]] = value
                self.add(op.results[0], layouts[op.results[0]], value)
                continue
            clone = op.clone()
            for i, operand in enumerate(op.operands):
                clone.operands[i] = mapping.get(operand, operand)
            Rewriter.insert_op(clone, where)
            for old, new in zip(op.results, clone.results):
                if old in layouts:
                    _set_type(new, layouts[old])
                    self.add(old, layouts[old], new)
                mapping[old] = new
        cvt.results[0].replace_all_uses_with(mapping.get(cvt.operands[0], cvt.operands[0]))
        for old, new in replacements:  # updateRematMapping, then the delayed replaceAllUsesWith
            for key in [key for key in self.remat if key[0] is old]:
                self.remat[(new, key[1])] = self.remat.pop(key)
            old.replace_all_uses_with(new)
        self.to_delete.append(cvt)
        self.to_delete.extend(dead)

    def _rewrite_for(self, loop: scf.ForOp, in_slice: set, layouts: dict, mapping: dict,
                     replacements: list, dead: list) -> None:
        """replaceForOpWithNewSignature: the loop again, its body moved, one more iteration
        argument per loop-carried slice value (initialised with the rematerialized init)."""
        block = loop.body.blocks.first
        carried = [arg for arg in block.args[1:] if arg in in_slice]
        inits = [mapping.get(loop.iter_args[arg.index - 1], loop.iter_args[arg.index - 1]) for arg in carried]
        count = len(loop.iter_args)
        region = loop.detach_region(loop.body)
        new_args = [block.insert_arg(_with(arg.type, layouts[arg]), len(block.args)) for arg in carried]
        new = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *inits], region)
        new.attributes.update(loop.attributes)
        new.location = loop.location
        Rewriter.insert_op(new, InsertPoint.before(loop))
        for old, res in zip(loop.results, new.results):
            replacements.append((old, res))
        dead.append(loop)
        for i, (arg, new_arg) in enumerate(zip(carried, new_args)):
            k = arg.index - 1
            extra = new.results[count + i]
            mapping[loop.results[k]] = extra
            mapping[arg] = new_arg
            self.add(new.results[k], layouts[arg], extra)
            self.add(arg, layouts[arg], new_arg)

    def _rewrite_if(self, op: scf.IfOp, in_slice: set, layouts: dict, mapping: dict,
                    replacements: list, dead: list) -> None:
        """replaceIfOpWithNewSignature: the if again with one more result per slice result
        (its branches moved; their yields get the rematerialized values)."""
        extra = [r for r in op.results if r in in_slice]
        types = [*(r.type for r in op.results), *(_with(r.type, layouts[r]) for r in extra)]
        then_region, else_region = op.true_region, op.false_region
        op.detach_region(then_region)
        op.detach_region(else_region)
        new = scf.IfOp(op.cond, types, then_region, else_region)
        new.attributes.update(op.attributes)
        new.location = op.location
        Rewriter.insert_op(new, InsertPoint.before(op))
        for old, res in zip(op.results, new.results):
            replacements.append((old, res))
        for i, old in enumerate(extra):
            res = new.results[len(op.results) + i]
            mapping[old] = res
            self.add(old, layouts[old], res)
        dead.append(op)

    def hoist_into_conditionals(self) -> None:
        for cvt in self.converts():
            if not self.hoist_into_conditional(cvt):
                self.add(cvt.operands[0], _enc(cvt.results[0]), cvt.results[0])

    def hoist_into_conditional(self, cvt: Operation) -> bool:
        """Triton's hoistConvertIntoConditionals: when the slice reaches an ``scf.if`` (inside an
        ``scf.for``) whose one branch can be rematerialized and the other not, the convert moves
        into the other branch (before its yield); an if neither branch of which can be is a
        terminal (the convert goes right after it)."""
        def is_if(op: Operation) -> bool:
            return isinstance(op, scf.IfOp)

        found = self.rematerializable(cvt.operands[0], cvt, _enc(cvt.results[0]), is_if)
        if found is None:
            return False
        values, layouts, reused = found
        hoist_above: list[tuple[SSAValue, Operation, int]] = []
        terminals: list[SSAValue] = []
        i = 0
        while i < len(values):
            v = values[i]
            i += 1
            if not isinstance(v.owner, scf.IfOp):
                continue
            branch = v.owner
            yields = [region.blocks.first.last_op for region in (branch.true_region, branch.false_region)]
            subs = [self.rematerializable(y.operands[v.index], y, layouts[v], is_if) for y in yields]
            if all(sub is not None for sub in subs) or (subs[0] is not None) != (subs[1] is not None) and \
                    isinstance(branch.parent_op(), scf.ForOp):
                for k, sub in enumerate(subs):
                    if sub is None:
                        hoist_above.append((v, yields[k], v.index))
                        continue
                    for w in sub[0]:
                        if w not in layouts:
                            values.append(w)
                            layouts[w] = sub[1][w]
                    for w, r in sub[2].items():
                        reused.setdefault(w, r)
                continue
            terminals.append(v)
        if not hoist_above:
            return False
        mapping: dict[SSAValue, SSAValue] = {}
        for v in terminals:
            mapping[v] = _convert(v, layouts[v], InsertPoint.after(v.owner), cvt.location)
            values.remove(v)
        for result, terminator, k in hoist_above:
            edge = terminator.operands[k]
            mapping[edge] = _convert(edge, layouts[result], InsertPoint.before(terminator), cvt.location)
            if edge in values:
                values.remove(edge)
        self.rewrite_slice((values, layouts, reused), cvt, mapping)
        return True

    def hoist_over_ext_or_broadcast(self) -> None:
        for cvt in self.converts():
            if not self.hoist_one(cvt):
                self.add(cvt.operands[0], _enc(cvt.results[0]), cvt.results[0])

    def hoist_one(self, cvt: Operation) -> bool:
        from layoutkit.layouts.triton import DotOperandEncoding

        layout = _enc(cvt.results[0])
        if isinstance(layout, DotOperandEncoding):
            return False
        found = self.rematerializable(cvt.operands[0], cvt, layout, _is_ext_or_broadcast)
        if found is None:
            return False
        values, layouts, reused = found
        ext = None
        i = 0
        while i < len(values):
            v = values[i]
            op = v.owner
            i += 1
            if not isinstance(op, Operation) or not _is_ext_or_broadcast(op):
                continue
            src = infer_src(op, layouts[v])
            if src is None:
                return False
            sub = self.rematerializable(op.operands[0], op, src)
            if sub is not None:
                for w in sub[0]:
                    if w not in layouts:
                        values.append(w)
                        layouts[w] = sub[1][w]
                for w, r in sub[2].items():
                    reused.setdefault(w, r)
                continue
            if ext is not None:
                return False
            ext = op
        if ext is None:
            return False
        dst = layouts[ext.results[0]]
        src = infer_src(ext, dst)
        if src is None:
            return False
        where = InsertPoint.before(ext)
        moved = _convert(ext.operands[0], src, where, cvt.location)
        clone = ext.clone()
        clone.operands[0] = moved
        Rewriter.insert_op(clone, where)
        _set_type(clone.results[0], dst)
        values.remove(ext.results[0])
        self.rewrite_slice((values, layouts, reused), cvt, {ext.results[0]: clone.results[0]})
        return True


def _position(op: Operation) -> tuple[int, ...]:
    path = []
    while op is not None and op.parent_block() is not None:
        path.append(op.parent_block().get_operation_index(op))
        op = op.parent_op()
    return tuple(reversed(path))


def _in_for(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            return True
        parent = parent.parent_op()
    return False


def _free_convert(op: Operation) -> bool:
    if op.name != "ttg.convert_layout":
        return False
    shape = tuple(int(d) for d in op.operands[0].type.get_shape())
    return reorders_registers(_enc(op.operands[0]), _enc(op.results[0]), shape)


def _can_fold(op: Operation, layout: Any) -> bool:
    """Triton's canFoldIntoConversion."""
    if op.name == "ttg.convert_layout":
        from layoutkit.layouts.triton.mma import NvidiaMmaEncoding

        return not (isinstance(layout, NvidiaMmaEncoding) and _enc(op.operands[0]) != layout)
    if op.name == "tt.reshape":
        return bool(op.properties.get("allow_reorder")) and not op.properties.get("efficient_layout")
    if op.name == "arith.constant":
        return _splat_constant(op)
    return op.name in _FOLDABLE


def _can_be_remat(op: Operation) -> bool:
    if op.name in ("tt.load", "tt.store"):
        return not is_expensive_load_or_store(op)
    if op.name in ("tt.atomic_rmw", "tt.atomic_cas", "tt.dot"):
        return False
    if op.name == "tt.gather":
        return not is_anchor(op)
    return not isinstance(op, scf.WhileOp | scf.ConditionOp)


def _is_ext_or_broadcast(op: Operation) -> bool:
    if op.name in ("arith.extsi", "arith.extui", "arith.extf", "tt.broadcast", "tt.expand_dims"):
        return True
    if op.name == "tt.fp_to_fp":
        return _pointee_bits(op.operands[0].type.element_type) < _pointee_bits(op.results[0].type.element_type)
    return False


# -- the pass -----------------------------------------------------------------------------------

def remove_layout_conversions(module: ModuleOp) -> None:
    funcs = [op for op in module.walk() if op.name == "tt.func" and op.regions and op.body.blocks]
    for func in funcs:
        LayoutPropagation(func).run()
    for func in funcs:
        canonicalize_converts(func)
        remat = Rematerialization(func)
        remat.backward()
        remat.cleanup()
        canonicalize_converts(func)
        hoist = Rematerialization(func)
        hoist.hoist_over_ext_or_broadcast()
        hoist.cleanup()
        hoist = Rematerialization(func)
        hoist.hoist_into_conditionals()
        hoist.cleanup()
        canonicalize_converts(func, loops=True)


@dataclass(frozen=True)
class TritonGPURemoveLayoutConversionsPass(ModulePass):
    """Triton 3.9's ``tritongpu-remove-layout-conversions`` (cost-model=triton)."""

    name = "tritongpu-remove-layout-conversions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_ttgir(op, self.name)
        remove_layout_conversions(op)


__all__ = ["LayoutPropagation", "Rematerialization", "TritonGPURemoveLayoutConversionsPass",
           "canonicalize_converts", "infer_dst", "infer_src", "remove_layout_conversions"]
