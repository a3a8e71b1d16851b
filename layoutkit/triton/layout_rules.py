"""Triton 3.9's per-op layout rules, as RemoveLayoutConversions and its helpers use them
(Utility.cpp, Dialect.cpp): which encoding an op's result takes from its operand
(``infer_dst``, Triton's inferDstEncoding) and the reverse (``infer_src``), the layout
anchors, and the small IR helpers the layout passes share.

Worked example: ``tt.expand_dims`` on axis 1 of an operand in ``#ttg.slice<{dim = 1, parent =
#B}>`` gives ``#B``; ``tt.reduce`` on axis 1 of ``#B`` gives ``#ttg.slice<{dim = 1, parent = #B}>``;
a non-reordering ``tt.reshape`` keeps every thread's elements (:func:`reshape_blocked`).
"""


from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.ir.dialects import ttg
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.layouts.triton import BlockedEncoding, SliceEncoding
from layoutkit.triton.coalesce import module_int

#: ops with Triton's ``Elementwise`` or ``SameOperandsAndResultEncoding`` trait (besides arith/math)
_SAME_ENCODING_TT = frozenset("""tt.addptr tt.broadcast tt.bitcast tt.fp_to_fp tt.int_to_ptr tt.ptr_to_int
tt.clampf tt.precise_sqrt tt.precise_divf tt.mulhiui tt.extern_elementwise tt.elementwise_inline_asm
tt.scan""".split())
#: side effects: never erased when unused
_EFFECTS = frozenset("""tt.store tt.atomic_rmw tt.atomic_cas tt.assert tt.print tt.return scf.yield scf.condition
tt.reduce.return tt.scan.return ttg.local_store ttg.local_dealloc tt.call scf.for scf.while scf.if
ttg.async_wait ttg.async_commit_group ttg.barrier""".split())


# -- small helpers ------------------------------------------------------------------------------

def is_encoded_tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and hasattr(value.type.encoding, "layout")


def encoding_of(value: SSAValue) -> Any:
    return value.type.encoding.layout


def with_layout(t: TensorType, layout: Any) -> TensorType:
    return TensorType(t.element_type, t.get_shape(), LayoutAttr.of(layout))


def set_encoding(value: SSAValue, layout: Any) -> None:
    """Give ``value`` (an op result) ``layout``; a dense constant's value follows."""
    new = with_layout(value.type, layout)
    value._type = new  # noqa: SLF001 - xDSL has no public setter
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "arith.constant" and \
            isinstance(owner.value, DenseIntOrFPElementsAttr):
        owner.value = DenseIntOrFPElementsAttr(new, owner.value.data)


def int_property(op: Operation, name: str) -> int:
    attr = op.properties.get(name)
    if attr is None:
        attr = op.attributes[name]
    return int(attr.value.data)


def same_encoding(op: Operation) -> bool:
    if op.name in _SAME_ENCODING_TT:
        return True
    return (op.name.startswith("arith.") and op.name != "arith.constant") or op.name.startswith("math.")


def is_splat_constant(op: Operation) -> bool:
    return op.name == "arith.constant" and isinstance(op.value, DenseIntOrFPElementsAttr) and \
        is_splat(op.value)


def is_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    data = attr.get_values() if hasattr(attr, "get_values") else None
    return data is not None and len(set(data)) <= 1


def insert_convert(value: SSAValue, layout: Any, where: InsertPoint, location=None) -> SSAValue:
    cvt = ttg.ConvertLayoutOp.build(operands=[value], result_types=[with_layout(value.type, layout)])
    cvt.location = location
    Rewriter.insert_op(cvt, where)
    return cvt.results[0]


def after_value(value: SSAValue) -> InsertPoint:
    """MLIR's setInsertionPointAfterValue."""
    if isinstance(value, BlockArgument):
        return InsertPoint.at_start(value.block)
    return InsertPoint.after(value.owner)


def location_of(value: SSAValue):
    return value.owner.location if isinstance(value.owner, Operation) else None


def ancestor_in(op: Operation, block: Block) -> Operation | None:
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()
    return op


def properly_dominates(value: SSAValue, op: Operation) -> bool:
    """``value`` is defined before ``op`` on every path (structured control flow)."""
    if isinstance(value, BlockArgument):
        return ancestor_in(op, value.block) is not None
    definer = value.owner
    if definer is op:
        return False
    anchor = ancestor_in(op, definer.parent_block())
    if anchor is None or anchor is definer:
        return False
    block = definer.parent_block()
    return block.get_operation_index(definer) < block.get_operation_index(anchor)


def element_bits(element) -> int:
    width = getattr(element, "width", None) or getattr(element, "bitwidth", None)
    if width is not None:
        return int(getattr(width, "data", width))
    return 64  # pointers


# -- layout inference (Triton's inferDstEncoding / inferSrcEncoding) -------------------------

def trans_order(op: Operation) -> tuple[int, ...]:
    order = op.order
    return tuple(order.get_values()) if hasattr(order, "get_values") else tuple(int(x) for x in order.data)


def permuted_layout(layout: Any, perm: tuple[int, ...], shape: tuple[int, ...] | None = None) -> Any | None:
    """``tt.trans``'s result layout for an operand of ``shape`` in ``layout`` (result dim ``i``
    is operand dim ``perm[i]``): a blocked layout permuted; any other as a ``#ttg.linear`` whose
    bases have their coordinates permuted (Triton's transposeOuts), e.g. a ``dot_op`` basis
    ``[1, 0]`` becomes ``[0, 1]`` under ``perm (1, 0)``."""
    from layoutkit.triton.exact_layouts import permute_blocked

    blocked = permute_blocked(layout, perm)
    if blocked is not None or shape is None or isinstance(layout, BlockedEncoding):
        return blocked
    from layoutkit.layouts.triton.linear import LinearEncoding

    try:
        linear = layout.to_linear_layout(shape)
        bases = {dim: tuple(tuple(basis[d] for d in perm) for basis in rows) for dim, rows in linear.bases.items()}
        return LinearEncoding(bases.get("register", ()), bases.get("lane", ()), bases.get("warp", ()),
                              bases.get("block", ()))
    except Exception:  # noqa: BLE001 - no linear form: no inference
        return None


def joined_layout(layout: Any) -> Any | None:
    if not isinstance(layout, BlockedEncoding):
        return None
    from layoutkit.layouts.triton.cga import CGALayout

    rank = layout.rank
    bases = () if layout.cga is None else layout.cga.bases
    return BlockedEncoding(layout.size_per_thread + (2,), layout.threads_per_warp + (1,), layout.warps_per_cta + (1,),
                           (rank,) + tuple(layout.order), CGALayout(tuple(tuple(b) + (0,) for b in bases), rank + 1))


def split_layout(layout: Any) -> Any | None:
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


def reshape_shapes(op: Operation) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return (tuple(int(d) for d in op.operands[0].type.get_shape()),
            tuple(int(d) for d in op.results[0].type.get_shape()))


def infer_dst(op: Operation, layout: Any) -> Any | None:
    """The encoding of ``op``'s results when its operands have ``layout`` (None: unknown)."""
    if op.name in ("ttg.convert_layout", "tt.gather", "tt.load", "tt.store", "scf.for", "scf.yield", "scf.while",
                   "scf.condition") or same_encoding(op):
        return layout
    if op.name == "tt.reduce":
        return SliceEncoding(int_property(op, "axis"), layout)
    if op.name == "tt.expand_dims":
        axis = int_property(op, "axis")
        return layout.parent if isinstance(layout, SliceEncoding) and layout.dim == axis else None
    if op.name == "tt.trans":
        return permuted_layout(layout, trans_order(op), tuple(int(d) for d in op.operands[0].type.get_shape()))
    if op.name == "tt.join":
        return joined_layout(layout)
    if op.name == "tt.split":
        return split_layout(layout)
    if op.name == "tt.reshape" and op.properties.get("allow_reorder") is None:
        src, dst = reshape_shapes(op)
        return reshape_blocked(src, layout, dst)
    return None


def infer_src(op: Operation, layout: Any) -> Any | None:
    """The encoding ``op``'s operands need for its results to have ``layout``."""
    if op.name == "ttg.convert_layout" or same_encoding(op) or op.name in ("tt.gather", "tt.load", "tt.store"):
        return layout
    if op.name == "tt.reduce":
        axis = int_property(op, "axis")
        return layout.parent if isinstance(layout, SliceEncoding) and layout.dim == axis else None
    if op.name == "tt.expand_dims":
        return SliceEncoding(int_property(op, "axis"), layout)
    if op.name == "tt.trans":
        perm = trans_order(op)
        return permuted_layout(layout, tuple(sorted(range(len(perm)), key=lambda d: perm[d])),
                               tuple(int(d) for d in op.results[0].type.get_shape()))
    if op.name == "tt.join":
        return split_layout(layout)
    if op.name == "tt.split":
        return joined_layout(layout)
    if op.name == "tt.reshape":
        src, dst = reshape_shapes(op)
        return reshape_blocked(dst, layout, src)
    return None


def threads_of(op: Operation) -> int:
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
    return elements >= threads_of(op)


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


def is_mma(layout: Any) -> bool:
    from layoutkit.layouts.triton.amd import AmdMfmaEncoding
    from layoutkit.layouts.triton.mma import NvidiaMmaEncoding

    kinds = (NvidiaMmaEncoding, AmdMfmaEncoding)
    try:
        from layoutkit.layouts.triton.amd import AmdWmmaEncoding
        kinds = (*kinds, AmdWmmaEncoding)
    except ImportError:
        pass
    return isinstance(layout, kinds)


def erase_op(op: Operation) -> None:
    for r in op.results:
        for use in list(r.uses):
            use.operation.operands[use.index] = r  # keep; the user is erased too
    op.detach()
    op.erase(safe_erase=False)


def is_pure(op: Operation) -> bool:
    """Erased when unused (no side effects; not the function)."""
    return op.name not in _EFFECTS and op.name != "tt.func" and not op.name.startswith("ttng.") and \
        op.parent_op() is not None


__all__ = ["infer_dst", "infer_src", "is_anchor", "is_expensive_load_or_store", "properly_dominates",
           "reshape_blocked", "reshape_decomposition"]
