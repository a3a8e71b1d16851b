"""``tile-to-workgroups{tile-sizes=8,8}``: each structured linalg op on buffers becomes an
``scf.forall`` over tiles of its parallel loops, mapped to block ids, with the op on
``memref.subview`` tiles inside.

``tile-sizes`` gives one size per parallel loop, outermost first (0 or missing: not
tiled); at most 3 loops are tiled, the innermost tiled loop on ``#gpu.block<x>``. Sizes
after the parallel loops' tile the reduction loops (a matmul's ``8,8,4``: K in steps of 4)
by an ``scf.for`` inside the block tile, each step the op on its K slice. Without
``tile-sizes`` the cost model of :mod:`layoutkit.passes.tile_config` picks them, and an
all-parallel op is left untiled (it runs over the global id). A loop
whose size the tile does not divide gets partial tiles: the tile's size is
``affine.min affine_map<(d0) -> (8, 30 - d0)>(%i)`` (8, or what is left of 30). Example
(the matmul's loops d0 < 32, d1 < 16, tiles 8x8: a 4x2 grid of blocks)::

    scf.forall (%i, %j) = (0, 0) to (32, 16) step (8, 8) {
      %sa = memref.subview %a[%i, 0] [8, 24] [1, 1] : memref<32x24xf32> to memref<8x24xf32, strided<[24, 1], offset: ?>>
      ...
      linalg.matmul ins(%sa, %sb : ...) outs(%sc : ...)
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    i64,
)
from xdsl.ir import Block
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError
from layoutkit.ir.dialects.upstream import affine
from layoutkit.passes.linalg_structure import (
    gpu_mapping,
    is_structured,
    loop_kinds,
    loop_sizes,
    make_forall,
    operands,
    static_shape,
    strided_layout,
)
from layoutkit.passes.tile_config import default_tile_sizes


def tile_op(op, tile_sizes: tuple[int, ...]):
    """Wrap ``op`` (a structured op on buffers) in an scf.forall over its tiles."""
    kinds = loop_kinds(op)
    sizes = loop_sizes(op, lambda value, dim: static_shape(value, op.name)[dim])
    parallel = [d for d, kind in enumerate(kinds) if kind == "parallel"]
    tiles = {d: min(t, sizes[d]) for d, t in zip(parallel, tile_sizes) if t}
    tiled = sorted(tiles)[:3]
    if not tiled:
        raise LayoutError(f"tile-sizes: {list(tile_sizes)} tiles no parallel loop of {op.name} "
                          f"(loops {sizes}); an untiled op cannot run on the GPU yet")
    block = Block(arg_types=[IndexType()] * len(tiled))
    for iv, d in zip(block.args, tiled):
        iv.name_hint = f"tile{d}"
    offset = dict(zip(tiled, block.args))
    extent: dict = {}
    for d in tiled:
        extent[d] = _tile_extent(block, offset[d], tiles[d], sizes[d])
    forall_block = block
    reduction = [d for d, kind in enumerate(kinds) if kind == "reduction"]
    for d, t in zip(reduction, tile_sizes[len(parallel):]):
        if t and t < sizes[d]:
            tiles[d] = t
            block = _reduction_loop(block, d, t, sizes[d], offset, extent)
    new_operands = []
    maps = [m.data for m in op.get_indexing_maps()]
    for value, amap in zip(operands(op), maps):
        if not isinstance(value.type, MemRefType):
            new_operands.append(value)
            continue
        shape = static_shape(value, op.name)
        offsets, tile_shape = [], []
        for dim, expr in enumerate(amap.results):
            d = expr.position if isinstance(expr, AffineDimExpr) else None
            if d in offset:
                offsets.append(offset[d])
                tile_shape.append(extent[d])
            elif _uses(expr, list(offset), amap.num_dims):
                start, size = _window(block, expr, amap.num_dims, offset, tiles, sizes, shape[dim], op.name)
                offsets.append(start)
                tile_shape.append(size)
            else:
                offsets.append(0)
                tile_shape.append(shape[dim])
        static_offsets = [DYNAMIC_INDEX if not isinstance(o, int) else o for o in offsets]
        static_sizes = [DYNAMIC_INDEX if not isinstance(s, int) else s for s in tile_shape]
        strides, base = strided_layout(value.type)
        # MLIR infers a static offset when every offset is static (the whole of an untiled operand)
        known = (base + sum(o * s for o, s in zip(offsets, strides))
                 if base is not None and all(isinstance(o, int) for o in offsets) else NoneAttr())
        result_type = MemRefType(value.type.element_type, static_sizes, StridedLayoutAttr(strides, known))
        view = memref.SubviewOp(value, [o for o in offsets if not isinstance(o, int)],
                                [s for s in tile_shape if not isinstance(s, int)], [],
                                DenseArrayBase.from_list(i64, static_offsets),
                                DenseArrayBase.from_list(i64, static_sizes),
                                DenseArrayBase.from_list(i64, [1] * len(shape)), result_type)
        block.add_op(view)
        new_operands.append(view.result)
    tile = type(op).create(operands=new_operands, result_types=[], properties=dict(op.properties),
                           attributes=dict(op.attributes), regions=[r.clone() for r in op.regions])
    block.add_op(tile)
    if block is not forall_block:
        block.add_op(scf.YieldOp())
    return make_forall([sizes[d] for d in tiled], [tiles[d] for d in tiled],
                       gpu_mapping("block", len(tiled)), forall_block)


def _tile_extent(block: Block, start, tile: int, size: int):
    """The extent of the tile at ``start``: ``tile``, or ``affine.min (tile, size - start)``
    when ``tile`` does not divide ``size``."""
    if size % tile == 0:
        return tile
    amap = AffineMap(1, 0, (AffineMap.constant_map(tile).results[0],
                            AffineMap.constant_map(size).results[0] - AffineDimExpr(0)))
    least = affine.MinOp([start], AffineMapAttr(amap))
    block.add_op(least)
    return least.results[0]


def _reduction_loop(block: Block, d: int, tile: int, size: int, offset: dict, extent: dict) -> Block:
    """Open ``scf.for %k = 0 to size step tile`` over reduction loop ``d`` in ``block``; its body."""
    bounds = [arith.ConstantOp(IntegerAttr(v, IndexType())) for v in (0, size, tile)]
    block.add_ops(bounds)
    body = Block(arg_types=[IndexType()])
    body.args[0].name_hint = f"tile{d}"
    block.add_op(scf.ForOp(*(b.result for b in bounds), [], body))
    offset[d] = body.args[0]
    extent[d] = _tile_extent(body, body.args[0], tile, size)
    return body


def _eval(expr, num_dims: int, point) -> int:
    return AffineMap(num_dims, 0, (expr,)).eval(list(point), [])[0]


def _uses(expr, dims, num_dims: int) -> bool:
    """Whether operand dimension ``expr`` depends on one of the loops ``dims``."""
    zero = [0] * num_dims
    return any(_eval(expr, num_dims, [int(i == d) for i in range(num_dims)]) != _eval(expr, num_dims, zero)
               for d in dims)


def _window(block, expr, num_dims: int, offset: dict, tiles: dict, sizes: list, extent: int, name: str):
    """Offset and size of the window a tile reads through operand dimension ``expr``, a
    sum of loops times non-negative constants (a convolution's ``d1 * stride + d4``).

    Example: ``d1 + d4`` with loop d1 tiled by 4 (of 8) and d4 < 3 untiled: the window of
    the tile at ``%tile1`` starts at ``%tile1`` and holds ``(4 - 1) + (3 - 1) + 1 = 6``
    rows (plus a constant term of ``expr``, e.g. a pad offset); inside the tile the index is ``d1 + d4`` on tile-local loops plus that start.
    Partial tiles clamp the size with ``affine.min`` to what is left of the dimension.
    """
    zero = [0] * num_dims
    base = _eval(expr, num_dims, zero)
    coefficients = [_eval(expr, num_dims, [int(i == d) for i in range(num_dims)]) - base for d in range(num_dims)]
    probe = [d + 2 for d in range(num_dims)]
    if (any(c < 0 for c in coefficients)
            or _eval(expr, num_dims, probe) != base + sum(c * p for c, p in zip(coefficients, probe))):
        raise LayoutError(f"tile-to-workgroups: {name}: operand dimension {expr} of a tiled loop is not a "
                          "sum of loops times non-negative constants; it cannot be tiled")
    used = [d for d in sorted(offset) if coefficients[d]]
    starts = AffineMap(len(used), 0, (sum((AffineDimExpr(i) * coefficients[d] for i, d in enumerate(used)),
                                          AffineMap.constant_map(0).results[0]),))
    if len(used) == 1 and coefficients[used[0]] == 1:
        start = offset[used[0]]  # the tile's own offset
    else:
        start = affine.ApplyOp([offset[d] for d in used], AffineMapAttr(starts))
        block.add_op(start)
        start = start.results[0]
    size = base + 1 + sum(c * ((tiles[d] if d in offset else sizes[d]) - 1) for d, c in enumerate(coefficients))
    size = min(size, extent)
    if all(sizes[d] % tiles[d] == 0 for d in used):
        return start, size
    left = AffineMap.constant_map(extent).results[0] - starts.results[0]
    least = affine.MinOp([offset[d] for d in used],
                         AffineMapAttr(AffineMap(len(used), 0, (AffineMap.constant_map(size).results[0], left))))
    block.add_op(least)
    return start, least.results[0]


@dataclass(frozen=True)
class TileToWorkgroupsPass(ModulePass):
    """Tile structured linalg ops on buffers into an scf.forall over blocks (affine.min tails)."""

    name = "tile-to-workgroups"
    tile_sizes: tuple[int, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if any(isinstance(t, bool) or t < 0 for t in self.tile_sizes):
            raise LayoutError(f"tile-sizes: expected non-negative integers, got {list(self.tile_sizes)}")
        for function in op.body.block.ops:
            if not isinstance(function, func.FuncOp) or not function.body.blocks:
                continue
            for inner in list(function.body.blocks[0].ops):
                if is_structured(inner):
                    if any(not isinstance(v.type, MemRefType) for v in inner.outputs):
                        raise LayoutError(f"tile-to-workgroups: {inner.name} works on tensors; run bufferize first")
                    sizes = self.tile_sizes or default_tile_sizes(inner)
                    if sizes is None:
                        continue  # all parallel: over the global id (distribute-to-threads)
                    forall = tile_op(inner, sizes)
                    function.body.blocks[0].insert_op_before(forall, inner)
                    function.body.blocks[0].erase_op(inner)
