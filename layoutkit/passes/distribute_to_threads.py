"""``distribute-to-threads{workgroup-size=8,8}``: each structured linalg op inside a block
tile (``scf.forall`` mapped to ``#gpu.block``) becomes scalar code spread over the threads
of the workgroup: an ``scf.forall`` mapped to ``#gpu.thread`` whose threads each walk their
elements with a stride of the workgroup, reductions as a thread-local ``scf.for`` whose
carried values are the outputs.

A structured op left untiled (outside any block tile) runs one element per thread over
the global id with a bounds check (:func:`distribute_global`). The innermost (up to 3)
parallel loops go to threads, the innermost on ``x``;
``workgroup-size`` is ``x,y,z`` as in MLIR (default: one thread per element of a full tile).
Partial tiles need no bounds check: a thread's loop stops at the tile's ``affine.min``
size. Example (matmul 8x8 tile, workgroup 8x8: one output element per thread)::

    scf.forall (%ty, %tx) in (8, 8) {
      scf.for %i = %ty to %c8 step %c8 {
        scf.for %j = %tx to %c8 step %c8 {
          %init = memref.load %c[%tile0 + %i, %tile1 + %j]
          %acc = scf.for %k = %c0 to %c24 step %c1 iter_args(%x = %init) -> (f32) { ... }
          memref.store %acc, %c[...]
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}

Indices are the op's indexing maps applied to the loop variables (``affine.apply`` for a
map result that is not one loop, as a convolution's ``d1 + d4``) plus the subview's offset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
)
from xdsl.dialects.linalg import ops as linalg_ops
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError
from layoutkit.ir.dialects.upstream import affine
from layoutkit.ir.dialects.upstream import arith as lk_arith  # cmpi as the simulator runs it
from layoutkit.ir.dialects.upstream.scf import ForallOp
from layoutkit.passes.linalg_structure import (
    gpu_mapping,
    is_structured,
    loop_kinds,
    loop_sizes,
    make_forall,
    mapping_kind,
    static_shape,
)

MAX_THREADS = 1024


def _size_of(value: SSAValue, dim: int):
    """The size of dimension ``dim`` of buffer ``value``: an int, or the SSA value of a
    subview's dynamic size."""
    view = value.owner
    if isinstance(view, memref.SubviewOp):
        static = view.static_sizes.get_values()
        if static[dim] != DYNAMIC_INDEX:
            return static[dim]
        return view.sizes[sum(1 for s in static[:dim] if s == DYNAMIC_INDEX)]
    return static_shape(value, "distribute-to-threads")[dim]


def _upper_bound(size) -> int:
    """The largest value ``size`` (an int or an SSA value) can take."""
    if isinstance(size, int):
        return size
    owner = size.owner
    if isinstance(owner, affine.MinOp):
        constants = [e.value for e in owner.map.data.results if hasattr(e, "value")]
        if constants:
            return min(constants)
    if isinstance(owner, arith.ConstantOp):
        return owner.value.value.data
    raise LayoutError(f"distribute-to-threads: no static bound for a loop size defined by {owner.name}")


def _base_and_offsets(value: SSAValue):
    """``(buffer, offsets)``: a subview is its source buffer at the subview's offsets."""
    view = value.owner
    if isinstance(view, memref.SubviewOp):
        dynamic = iter(view.offsets)
        return view.source, [next(dynamic) if o == DYNAMIC_INDEX else o
                             for o in view.static_offsets.get_values()]
    return value, [0] * len(value.type.get_shape())


class _Emitter:
    """Appends ops to the current block."""

    def __init__(self, block: Block):
        self.block = block

    def add(self, op):
        self.block.add_op(op)
        return op.results[0] if op.results else op

    def index(self, value) -> SSAValue:
        if isinstance(value, SSAValue):
            return value
        return self.add(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def address(self, value: SSAValue, amap: AffineMap, ivs: list) -> tuple:
        """``(buffer, indices)`` of the element of operand ``value`` at loop variables
        ``ivs``: the map's results, then through each subview down to the buffer it views
        (``offset + stride * index`` per dimension: a tile of a strided slice of a buffer)."""
        indices = []
        for expr in amap.results:
            if isinstance(expr, AffineDimExpr):
                indices.append(ivs[expr.position])
            else:
                single = AffineMap(amap.num_dims, 0, (expr,))
                indices.append(self.add(affine.ApplyOp(ivs, AffineMapAttr(single))))
        while isinstance(value.owner, memref.SubviewOp):
            view = value.owner
            value, offsets = _base_and_offsets(value)
            steps = view.static_strides.get_values()
            if DYNAMIC_INDEX in steps:
                raise LayoutError("distribute-to-threads: a memref.subview with dynamic strides is not supported yet")
            if len(offsets) != len(indices):
                raise LayoutError("distribute-to-threads: a rank-reducing memref.subview is not supported yet")
            for i, (offset, step) in enumerate(zip(offsets, steps)):
                if step != 1:
                    indices[i] = self.add(arith.MuliOp(self.index(step), indices[i]))
                if offset != 0:
                    indices[i] = self.add(arith.AddiOp(self.index(offset), indices[i]))
        return value, indices

    def loop_index(self, op, maps, ivs: list, d: int) -> SSAValue:
        """``linalg.index d`` of ``op`` on a tile: the tile's offset in loop ``d`` (the offset
        of an operand dimension indexed by ``d`` alone; 0 for an untiled loop) plus the
        tile-local loop variable. Example: rows tiled by 8, the tile at ``%tile0``, a
        thread's row ``%i`` of the tile: ``linalg.index 0`` is ``%tile0 + %i``."""
        for value, amap in zip([*op.inputs, *op.outputs], maps):
            for expr, offset in zip(amap.results, _base_and_offsets(value)[1]):
                if isinstance(expr, AffineDimExpr) and expr.position == d:
                    return ivs[d] if offset == 0 else self.add(arith.AddiOp(self.index(offset), ivs[d]))
        return ivs[d]

    def load(self, value, amap, ivs):
        if not isinstance(value.type, MemRefType):
            return value
        base, indices = self.address(value, amap, ivs)
        return self.add(memref.LoadOp.get(base, indices))

    def loop(self, lower, upper, step, carried=()):
        """Open an scf.for; the emitter moves into its body. Returns (op, body, parent)."""
        body = Block(arg_types=[IndexType(), *[v.type for v in carried]])
        op = scf.ForOp(self.index(lower), self.index(upper), self.index(step), list(carried), body)
        parent = self.block
        self.add(op)
        self.block = body
        return op, body, parent


def thread_counts(op, workgroup_size: tuple[int, ...]) -> dict[int, int]:
    """Threads along each loop of ``op`` spread over the workgroup: the innermost (up to 3)
    parallel loops, the innermost on ``x``; ``workgroup_size`` (x, y, z) or, when empty, one
    thread per element of a full tile. Example: an 8x8 matmul tile -> ``{0: 8, 1: 8}``."""
    kinds = loop_kinds(op)
    sizes = loop_sizes(op, _size_of)
    spread = [d for d, kind in enumerate(kinds) if kind == "parallel"][-3:]
    if not spread:
        raise LayoutError(f"distribute-to-threads: {op.name} has no parallel loop to spread over threads")
    counts = {}
    for axis, d in enumerate(reversed(spread)):
        if workgroup_size:
            counts[d] = workgroup_size[axis] if axis < len(workgroup_size) else 1
        else:
            counts[d] = _upper_bound(sizes[d])
    threads = math.prod(counts.values())
    if threads > MAX_THREADS:
        raise LayoutError(f"workgroup-size: {threads} threads per workgroup ({[counts[d] for d in reversed(spread)]}); "
                          f"at most {MAX_THREADS}")
    return dict(sorted(counts.items()))


def _compute(emit: _Emitter, op, maps, sizes, ivs: list) -> None:
    """Emit ``op``'s body at the parallel loop indices ``ivs`` (reductions as thread-local
    ``scf.for`` loops carrying the outputs), loading inputs and storing outputs."""
    kinds = loop_kinds(op)
    n_in = len(op.inputs)
    body_args = op.body.block.args
    reductions = [d for d, kind in enumerate(kinds) if kind == "reduction"]
    outs = list(zip(op.outputs, maps[n_in:], body_args[n_in:]))
    carried = [emit.load(v, m, ivs) if reductions or arg.uses else None for v, m, arg in outs]
    closing = []
    for d in reductions:
        loop_op, body, parent = emit.loop(0, sizes[d], 1, carried)
        ivs[d] = body.args[0]
        carried = list(body.args[1:])
        closing.append((loop_op, parent))
    mapper = {arg: emit.load(v, m, ivs) for v, m, arg in zip(op.inputs, maps, body_args)}
    mapper.update({arg: c for arg, c in zip(body_args[n_in:], carried) if c is not None})
    for inner in op.body.block.ops:
        if isinstance(inner, linalg_ops.YieldOp):
            results = [mapper.get(v, v) for v in inner.operands]
        elif isinstance(inner, linalg_ops.IndexOp):
            mapper[inner.result] = emit.loop_index(op, maps, ivs, inner.dim.value.data)
        else:
            emit.add(inner.clone(value_mapper=mapper))
    for loop_op, parent in reversed(closing):
        emit.add(scf.YieldOp(*results))
        emit.block = parent
        results = list(loop_op.results)
    for (value, amap, _), result in zip(outs, results):
        base, indices = emit.address(value, amap, ivs)
        emit.add(memref.StoreOp.get(result, base, indices))


def distribute_op(op, workgroup_size: tuple[int, ...]):
    """The scf.forall over threads that computes structured ``op`` (on buffers)."""
    kinds = loop_kinds(op)
    maps = [m.data for m in op.get_indexing_maps()]
    sizes = loop_sizes(op, _size_of)
    parallel = [d for d, kind in enumerate(kinds) if kind == "parallel"]
    counts = thread_counts(op, workgroup_size)
    spread = list(counts)
    thread_block = Block(arg_types=[IndexType()] * len(spread))
    emit = _Emitter(thread_block)
    ivs: list = [None] * len(kinds)
    nests = []
    for t, d in zip(thread_block.args, spread):
        t.name_hint = f"t{d}"
        _, body, _ = emit.loop(t, sizes[d], counts[d])
        ivs[d] = body.args[0]
        nests.append(body)
    for d in parallel:
        if d not in spread:
            _, body, _ = emit.loop(0, sizes[d], 1)
            ivs[d] = body.args[0]
            nests.append(body)
    _compute(emit, op, maps, sizes, ivs)
    for body in nests:
        body.add_op(scf.YieldOp())
    return make_forall([counts[d] for d in spread], [1] * len(spread), gpu_mapping("thread", len(spread)),
                       thread_block)


#: threads per workgroup of an untiled op (over the global id) when workgroup-size is unset
GLOBAL_WORKGROUP = 128


def distribute_global(op, workgroup_size: tuple[int, ...]):
    """The block forall whose threads compute untiled ``op`` one element each over the
    global id, with a bounds check (seed 001's untiled ops): ``g = block * W + thread``,
    ``if g < N`` the parallel loops' indices are ``g`` delinearized row-major. Example: a
    10x15 op, W = 128: 2 blocks, thread g < 150 computes ``(g floordiv 15, g mod 15)``."""
    from layoutkit.ir.dialects.upstream.arith import CmpiOp

    kinds = loop_kinds(op)
    maps = [m.data for m in op.get_indexing_maps()]
    sizes = loop_sizes(op, _size_of)
    parallel = [d for d, kind in enumerate(kinds) if kind == "parallel"]
    total = math.prod(sizes[d] for d in parallel)
    width = math.prod(workgroup_size) if workgroup_size else min(GLOBAL_WORKGROUP, -(-total // 32) * 32)
    if width > MAX_THREADS:
        raise LayoutError(f"workgroup-size: {width} threads per workgroup {list(workgroup_size)}; at most {MAX_THREADS}")
    blocks = -(-total // width)
    block_body = Block(arg_types=[IndexType()])
    block_body.args[0].name_hint = "block"
    thread_block = Block(arg_types=[IndexType()])
    thread_block.args[0].name_hint = "thread"
    emit = _Emitter(thread_block)
    g = emit.add(arith.AddiOp(block_body.args[0], thread_block.args[0]))
    inside = emit.add(CmpiOp(g, emit.index(total), "ult"))
    then = Block()
    emit.add(scf.IfOp(inside, [], [then]))
    emit.block = then
    ivs: list = [None] * len(kinds)
    inner = 1
    for d in reversed(parallel):
        expr = AffineDimExpr(0) if inner == 1 else AffineDimExpr(0) // inner
        if d != parallel[0]:
            expr = expr % sizes[d]
        ivs[d] = emit.add(affine.ApplyOp([g], AffineMapAttr(AffineMap(1, 0, (expr,)))))
        inner *= sizes[d]
    _compute(emit, op, maps, sizes, ivs)
    then.add_op(scf.YieldOp())
    threads = make_forall([width], [1], gpu_mapping("thread", 1), thread_block)
    block_body.add_op(threads)
    return make_forall([blocks * width], [width], gpu_mapping("block", 1), block_body)


def is_workgroup_copy(op) -> bool:
    """Whether ``op`` is a ``linalg.copy`` into workgroup memory (promote-to-workgroup-memory's)."""
    from layoutkit.ir.dialects.upstream import gpu

    return (isinstance(op, linalg_ops.CopyOp) and isinstance(op.outputs[0].type, MemRefType)
            and gpu.is_workgroup(op.outputs[0].type.memory_space))


def distribute_copy(op, counts: list[int]):
    """The scf.forall over ``counts`` threads (outermost first) in which all of them copy
    ``op``'s tile together (:class:`~layoutkit.passes.workgroup_copy.CopyPlan`): thread
    ``l`` moves vectors ``l, l + T, ...``; a partial tile's elements past its
    ``affine.min`` sizes are skipped (``scf.if``)."""
    from xdsl.dialects import vector
    from xdsl.dialects.builtin import VectorType

    from layoutkit.passes.workgroup_copy import CopyPlan, linear_thread_id, vector_width

    source, target = op.inputs[0], op.outputs[0]
    extents = [_size_of(source, d) for d in range(len(source.type.get_shape()))]
    shape = tuple(_upper_bound(e) for e in extents)
    width = vector_width(source, shape, _row_stride(target))
    plan = CopyPlan(shape, width, math.prod(counts))
    thread_block = Block(arg_types=[IndexType()] * len(counts))
    emit = _Emitter(thread_block)
    linear = linear_thread_id(thread_block, counts)
    _, body, _ = emit.loop(linear, plan.vectors, plan.threads)
    element = plan.element_map()
    coords = [emit.add(affine.ApplyOp([body.args[0]], AffineMapAttr(AffineMap(1, 0, (r,)))))
              for r in element.results]
    checks = [emit.add(lk_arith.CmpiOp(c, emit.index(e), "ult")) for c, e in zip(coords, extents)
              if not isinstance(e, int)]
    inner = body
    if checks:
        condition = checks[0]
        for check in checks[1:]:
            condition = emit.add(arith.AndIOp(condition, check))
        then = Block()
        emit.add(scf.IfOp(condition, [], [then]))
        emit.block = then
    identity = AffineMap.identity(len(shape))
    src_base, src_indices = emit.address(source, identity, coords)
    dst_base, dst_indices = emit.address(target, identity, coords)
    if width == 1:
        value = emit.add(memref.LoadOp.get(src_base, src_indices))
        emit.add(memref.StoreOp.get(value, dst_base, dst_indices))
    else:
        vtype = VectorType(source.type.element_type, [width])
        value = emit.add(vector.LoadOp(src_base, src_indices, vtype))
        emit.add(vector.StoreOp(value, dst_base, dst_indices))
    if checks:
        emit.block.add_op(scf.YieldOp())
    inner.add_op(scf.YieldOp())
    return make_forall(counts, [1] * len(counts), gpu_mapping("thread", len(counts)), thread_block)


def _row_stride(view) -> int | None:
    """The padded row stride of the workgroup buffer a subview ``view`` is of (None: rank 1)."""
    from layoutkit.passes.workgroup_copy import buffer_strides

    owner = view.owner
    base = owner.source if isinstance(owner, memref.SubviewOp) else view
    strides = buffer_strides(base.type)
    return strides[-2] if len(strides) > 1 else None


def _block_counts(forall, workgroup_size) -> list[int] | None:
    """Threads along each axis (outermost first) of block tile ``forall``: those of its first
    structured op that is no workgroup copy."""
    for op in forall.walk():
        if is_structured(op) and not is_workgroup_copy(op):
            return list(thread_counts(op, workgroup_size).values())
    return None


def check_workgroup_size(sizes: tuple[int, ...]) -> None:
    """The ``workgroup-size`` option: 1 to 3 positive integers (x, y, z), else a LayoutError."""
    if len(sizes) > 3 or any(isinstance(w, bool) or w < 1 for w in sizes):
        raise LayoutError(f"workgroup-size: expected 1 to 3 positive integers (x,y,z), got {list(sizes)}")


@dataclass(frozen=True)
class DistributeToThreadsPass(ModulePass):
    """Spread the linalg ops of each block tile over the workgroup's threads (scalar code)."""

    name = "distribute-to-threads"
    workgroup_size: tuple[int, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_workgroup_size(self.workgroup_size)
        for function in op.body.block.ops:
            if not isinstance(function, func.FuncOp):
                continue
            for inner in [o for o in function.body.ops if is_structured(o)] if function.body.blocks else []:
                if all(isinstance(v.type, MemRefType) for v in inner.outputs):
                    function.body.blocks[0].insert_op_before(distribute_global(inner, self.workgroup_size), inner)
                    function.body.blocks[0].erase_op(inner)
            for forall in [f for f in function.walk() if isinstance(f, ForallOp)]:
                if mapping_kind(forall.mapping) != "block":
                    continue
                counts = _block_counts(forall, self.workgroup_size)
                for inner in [o for o in forall.walk() if is_structured(o)]:
                    block = inner.parent_block()
                    if is_workgroup_copy(inner):
                        if counts is None:
                            raise LayoutError("distribute-to-threads: a copy into workgroup memory with no op "
                                              "reading it in its block tile")
                        threads = distribute_copy(inner, counts)
                    else:
                        threads = distribute_op(inner, self.workgroup_size)
                    block.insert_op_before(threads, inner)
                    block.erase_op(inner)
                for view in reversed([o for o in forall.walk() if isinstance(o, memref.SubviewOp)]):
                    if not view.result.uses:
                        view.parent_block().erase_op(view)
            for view in reversed([v for v in function.walk() if isinstance(v, memref.SubviewOp)]):
                if not view.result.uses:  # slices of the host's buffers, now read through their bases
                    view.parent_block().erase_op(view)
