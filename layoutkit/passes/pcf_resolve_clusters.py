"""``pcf-resolve-clusters``: fully distributed cluster code becomes ordinary per-worker control
flow (seed 002, "Cluster Resolution"; docs/pcf-extension.md).

A ``pcf.shared_executor scope(S)`` whose collective work is already per worker (``run_thread``
bodies, ``run_cluster`` bodies every worker of the cluster runs) becomes a ``pcf.generic
sync true scope(S)`` with the worker's id ``%w`` and count ``%n``, and every
``tile_group`` in it becomes::

    lo_k = affine.apply (bounds of cluster k, result 2 r)(splits)[%n]   // and hi_k
    %c = cluster index: k where lo_k <= %w < hi_k
    scf.index_switch %c  case 0 {...} case 1 {...} ... default {}

where case ``k`` is a clone of the tile_group region converted for cluster ``k`` active:

- a ``run_thread`` / ``run_cluster`` on the active cluster (or on the threadgroup) is inlined;
  its tile-relative id is ``%w - lo_k`` (worker 5 of ``[3, 8)`` is thread 2), its block
  arguments are the payload values of its ``ins``, and what it yields becomes its result's
  payload values;
- one on another cluster is dropped, its payload converts away (no values);
- control flow is cloned and converted like any other op: an ``scf.for`` / ``scf.if`` /
  ``scf.yield`` carrying a cluster value carries the active cluster's payload values (shared
  then private fields) or nothing for another cluster.

Example: a loop carrying ``tg.left``'s ``private(f32)`` payload keeps one ``f32`` iter_arg
in the ``tg.left`` case and none in the ``tg.right`` case. A ``tile_group`` splitting
``tg.left`` is resolved inside ``tg.left``'s case with ids relative to it (a nested switch).
A rank-r grid's worker is in cluster ``k`` when ``lo_d <= w_d < hi_d`` in every dimension
(ids 1.. are 0 of 1, as IREE's subgroup and lane scopes give several ids). Read-only
``<-`` operands become tied refs whose results are unused; ``initialize`` is inlined per
worker. A ``run_cluster`` reading another cluster's shared payload
(scalars and vectors) gets it through a workgroup buffer and two named barriers
(:class:`_Handoff`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError
from layoutkit.ir.context import at_op
from layoutkit.ir.dialects import pcf
from layoutkit.ir.dialects.pcf_ext import (
    ClusterType,
    RunClusterOp,
    RunThreadOp,
    SharedExecutorOp,
    ThreadgroupType,
    TileGroupOp,
)
from layoutkit.ir.dialects.upstream import gpu as lk_gpu
from layoutkit.ir.dialects.upstream import nvvm
from layoutkit.ir.dialects.upstream.affine import ApplyOp
from layoutkit.passes.linalg_structure import parse_attribute

NAME = "pcf-resolve-clusters"
HANDOFF = "layoutkit.handoff"  # on a run_cluster while its tile_group is resolved: its hand-offs
FIRST_HANDOFF_BARRIER = 15  # hand-off k uses barriers 15 - 2k (full) and 14 - 2k (consumed)


@dataclass
class _Handoff:
    """A shared payload one cluster's run_cluster yields and another cluster's reads, moved
    through workgroup buffers: the producer's worker 0, lane 0 stores it and every producer
    warp arrives at ``full`` then waits at ``consumed``; the consumer's warps wait at ``full``,
    load it and arrive at ``consumed`` (``count`` threads: both clusters' workers x lanes)."""

    buffers: list
    full: object
    consumed: object
    count: object


def _is_group(type_) -> bool:
    return isinstance(type_, (ThreadgroupType, ClusterType))


def _const(n: int):
    return arith.ConstantOp(IntegerAttr(n, IndexType()))


def _move_ops(source: Block, dest: Block, keep_terminator: bool = True) -> None:
    for op in list(source.ops):
        if not keep_terminator and op is source.last_op:
            break
        op.detach()
        dest.add_op(op)


class _Case:
    """Converts (in place) code for one active cluster; ``fields`` maps each cluster-typed
    value to its payload values (empty for another cluster's)."""

    def __init__(self, active: str, worker: list, low: list, handoffs: tuple = (), parent: _Case | None = None,
                 high: list | None = None, counts: list | None = None) -> None:
        self.active, self.worker, self.low, self.high = active, worker, low, high  # one per grid dim
        self.counts = counts  # the worker counts (root case only)
        self.handoffs = handoffs
        self.parent = parent  # the case of the enclosing cluster (a nested tile_group's cases)
        self.fields: dict = {}
        self.dead: list = []  # replaced ops, detached; their cluster results are still keys of fields

    def drop(self, op) -> None:
        op.detach()
        self.dead.append(op)

    def finish(self) -> None:
        """Erase the replaced ops (after every use of their cluster results was converted)."""
        for op in reversed(self.dead):
            op.erase(safe_erase=False)
        self.dead.clear()

    def chain(self):
        case = self
        while case is not None:
            yield case
            case = case.parent

    def owner(self, type_) -> _Case | None:
        """The case (this one or an enclosing one) whose active cluster is ``type_``'s."""
        return next((c for c in self.chain() if c.active == type_.id), None)

    def is_active(self, type_) -> bool:
        return isinstance(type_, ThreadgroupType) or self.owner(type_) is not None

    def tile_id(self, type_, before, dim: int = 0) -> object:
        """The worker's id in grid dimension ``dim`` relative to ``type_``'s cluster; for the
        threadgroup its linear id (id 0 fastest: ``w0 + n0 * w1`` on a 2-d grid)."""
        case = self.owner(type_)
        if case is None or case.active == "tg":
            root = list(self.chain())[-1]
            linear, made = root.worker[-1], []
            for w, n in zip(reversed(root.worker[:-1]), reversed(root.counts[:-1])):
                scaled = arith.MuliOp(linear, n)
                linear = arith.AddiOp(scaled, w)
                made += [scaled, linear]
                linear = linear.result
            before.parent_block().insert_ops_before(made, before)
            return linear
        tile = arith.SubiOp(case.worker[dim], case.low[dim])
        before.parent_block().insert_op_before(tile, before)
        return tile.result

    def field_types(self, type_) -> list:
        return [*type_.shared_types, *type_.private_types] if self.is_active(type_) else []

    def flat(self, values) -> list:
        out = []
        for v in values:
            if _is_group(v.type):
                case = next((c for c in self.chain() if v in c.fields), None)
                if case is None:
                    raise LayoutError(f"{NAME}: a {v.type.name} value of {v.type.id} is used where it was "
                                      "not resolved (define it in the tile_group's region)")
                out += case.fields[v]
            else:
                out.append(v)
        return out

    def convert_block(self, block: Block) -> None:
        for op in list(block.ops):
            self.convert(op)

    def convert(self, op) -> None:
        if isinstance(op, (RunThreadOp, RunClusterOp)):
            self._run(op)
        elif isinstance(op, TileGroupOp):
            self._nested(op)
        elif isinstance(op, scf.ForOp) and any(_is_group(v.type) for v in op.iter_args):
            self._for(op)
        elif isinstance(op, scf.IfOp) and any(_is_group(r.type) for r in op.results):
            self._if(op)
        elif isinstance(op, scf.YieldOp) and any(_is_group(v.type) for v in op.operands):
            op.parent_block().insert_op_before(scf.YieldOp(*self.flat(op.operands)), op)
            self.drop(op)
        else:
            for value in op.operands:
                if _is_group(value.type):
                    raise LayoutError(f"{NAME}: {op.name} takes the cluster value of {value.type.id}; "
                                      "only run_thread, run_cluster, scf.for, scf.if and scf.yield can")
            for region in op.regions:
                for block in region.blocks:
                    self.convert_block(block)

    def _run(self, op) -> None:
        on = op.on.type
        block = op.parent_block()
        if not self.is_active(on):  # another cluster's phase: converts away
            if op.result is not None:
                self.fields[op.result] = []
            self.drop(op)
            return
        body = op.region.blocks.first
        args = list(body.args)
        if isinstance(op, RunThreadOp):
            rank = on.rank if isinstance(on, ClusterType) else 1
            for dim, arg in enumerate(args[:rank]):
                if arg.uses:
                    tile = self.tile_id(on, op, dim)
                    if isinstance(tile.owner, (arith.SubiOp, arith.AddiOp)):
                        tile.name_hint = arg.name_hint
                    arg.replace_all_uses_with(tile)
            args = args[rank:]
            values = self.flat(op.ins)
        else:
            values = self._received(op, block)
        for arg, value in zip(args, values, strict=True):
            arg.replace_all_uses_with(value)
        self.convert_block(body)
        yielded = list(body.last_op.operands)
        for inner in list(body.ops)[:-1]:
            inner.detach()
            block.insert_op_before(inner, op)
        if op.result is not None:
            self.fields[op.result] = yielded
        role = op.attributes.get(HANDOFF)
        if role is not None and role.data[0].data >= 0:
            self._publish(self.handoffs[role.data[0].data], yielded, block, op)
        self.drop(op)

    def _nested(self, op: TileGroupOp) -> None:
        """A tile_group splitting a cluster: resolved inside this case when the worker is in
        that cluster (ids relative to it, its size as the worker count), else dropped."""
        source = op.source.type
        if isinstance(source, ThreadgroupType):
            raise LayoutError(f"{NAME}: a tile_group of the threadgroup inside cluster {self.active} "
                              "is not resolved yet")
        case = self.owner(source)
        if case is None:
            self.drop(op)
            return
        rank = len(case.worker)
        relatives, sizes = [], []
        for dim in range(rank):
            relative = arith.SubiOp(case.worker[dim], case.low[dim])
            size = arith.SubiOp(case.high[dim], case.low[dim])
            suffix = str(dim) if rank > 1 else ""
            relative.result.name_hint = f"{source.id.replace('.', '_')}_worker{suffix}"
            size.result.name_hint = f"{source.id.replace('.', '_')}_workers{suffix}"
            op.parent_block().insert_ops_before([relative, size], op)
            relatives.append(relative.result)
            sizes.append(size.result)
        resolve_tile_group(op, relatives, sizes, parent=self)

    def _received(self, op, block) -> list:
        """The shared payload values ``op`` (a run_cluster) reads: its own cluster's, or
        another cluster's loaded from the hand-off buffers after waiting at ``full``."""
        role = op.attributes.get(HANDOFF)
        sources = [a.data for a in role.data[1:]] if role is not None else [-1] * len(op.ins)
        values = []
        for value, source in zip(op.ins, sources):
            if source < 0:
                values += self.flat([value])
                continue
            handoff = self.handoffs[source]
            made = [nvvm.BarrierOp.build(operands=[[handoff.full], [handoff.count]])]
            for buffer, type_ in zip(handoff.buffers, value.type.shared_types):
                zero = _const(0)
                indices = [zero.result] * buffer.type.get_num_dims()
                load = (vector.LoadOp(buffer, indices, type_) if isinstance(type_, VectorType)
                        else memref.LoadOp.get(buffer, indices))
                made += [zero, load]
                values.append(load.results[0])
            made.append(nvvm.BarrierArriveOp.build(operands=[[handoff.consumed], [handoff.count]]))
            block.insert_ops_before(made, op)
        return values

    def _publish(self, handoff: _Handoff, yielded: list, block, op) -> None:
        """After the producer's phase: worker 0, lane 0 stores the payload, every producer warp
        arrives at ``full`` and waits until the consumer read it (``consumed``)."""
        zero = _const(0)
        lane = lk_gpu.LaneIdOp()
        tiles = [arith.SubiOp(w, lo) for w, lo in zip(self.worker, self.low)]
        checks = [arith.CmpiOp(tile, zero, "eq") for tile in tiles]  # tile id 0 in every grid dim
        made = [zero, tiles[0], lane, checks[0]]
        first_worker = checks[0]
        for tile, check in zip(tiles[1:], checks[1:]):
            first_worker = arith.AndIOp(first_worker, check)
            made += [tile, check, first_worker]
        first_lane = arith.CmpiOp(lane, zero, "eq")
        first = arith.AndIOp(first_worker, first_lane)
        stores = Block()
        for buffer, value in zip(handoff.buffers, yielded):
            indices = [zero.result] * buffer.type.get_num_dims()
            stores.add_op(vector.StoreOp(value, buffer, indices) if isinstance(value.type, VectorType)
                          else memref.StoreOp.get(value, buffer, indices))
        stores.add_op(scf.YieldOp())
        block.insert_ops_before([*made, first_lane, first,
                                 scf.IfOp(first, [], Region(stores)),
                                 nvvm.BarrierArriveOp.build(operands=[[handoff.full], [handoff.count]]),
                                 nvvm.BarrierOp.build(operands=[[handoff.consumed], [handoff.count]])], op)

    def _rebuild_args(self, old_values, new_values) -> None:
        """Map old (block argument or result) values onto the flat new ones."""
        new_values = iter(new_values)
        for old in old_values:
            if _is_group(old.type):
                self.fields[old] = [next(new_values) for _ in self.field_types(old.type)]
            else:
                new = next(new_values)
                old.replace_all_uses_with(new)

    def _flat_types(self, values) -> list:
        out = []
        for v in values:
            out += self.field_types(v.type) if _is_group(v.type) else [v.type]
        return out

    def _for(self, op: scf.ForOp) -> None:
        old = op.body.blocks.first
        inits = self.flat(op.iter_args)
        new = Block(arg_types=[IndexType(), *self._flat_types(old.args[1:])])
        for a, b in zip(old.args, new.args):
            b.name_hint = a.name_hint
        old.args[0].replace_all_uses_with(new.args[0])
        self._rebuild_args(old.args[1:], new.args[1:])
        _move_ops(old, new)
        loop = scf.ForOp(op.lb, op.ub, op.step, inits, Region(new))
        op.parent_block().insert_op_before(loop, op)
        self.convert_block(new)
        self._rebuild_args(op.results, loop.results)
        self.drop(op)

    def _if(self, op: scf.IfOp) -> None:
        true_region, false_region = op.true_region, op.false_region
        regions = [op.detach_region(true_region), op.detach_region(false_region)]
        new = scf.IfOp(op.cond, self._flat_types(op.results), *regions)
        op.parent_block().insert_op_before(new, op)
        for region in new.regions:
            for block in region.blocks:
                self.convert_block(block)
        self._rebuild_args(op.results, new.results)
        self.drop(op)


def _bound(cluster: ClusterType, result: int, splits, counts: list) -> ApplyOp:
    amap = cluster.bounds.data
    one = AffineMap(amap.num_dims, amap.num_symbols, (amap.results[result],))
    return ApplyOp([*splits, *counts], AffineMapAttr(one))


def _workers_in(low: list, high: list, made: list):
    """The number of workers of the box ``[low, high)`` (ops into ``made``)."""
    size = None
    for lo, hi in zip(low, high):
        extent = arith.SubiOp(hi, lo)
        made.append(extent)
        if size is not None:
            extent = arith.MuliOp(size, extent)
            made.append(extent)
        size = extent
    return size


def _buffer_type(type_, cluster: str) -> MemRefType:
    space = parse_attribute("#gpu.address_space<workgroup>")
    if isinstance(type_, VectorType):
        return MemRefType(type_.element_type, type_.get_shape(), memory_space=space)
    if isinstance(type_, (IndexType,)) or hasattr(type_, "bitwidth") or hasattr(type_, "width"):
        return MemRefType(type_, [1], memory_space=space)
    raise LayoutError(f"{NAME}: the shared payload {type_} of {cluster} is read by another cluster: only "
                      "scalars and vectors are moved through workgroup memory")


def _plan_handoffs(op: TileGroupOp, clusters, lows, highs, made: list) -> tuple:
    """Mark every run_cluster reading another cluster's shared payload (and its producer) with
    HANDOFF and make the hand-offs' buffers, barrier ids and thread counts (ops into ``made``)."""
    bounds = {c.id: k for k, c in enumerate(clusters)}
    handoffs: list[_Handoff] = []
    subgroup = None
    for consumer in [o for o in op.region.walk() if isinstance(o, RunClusterOp)]:
        sources = []
        for k, value in enumerate(consumer.ins):
            if value.type.id == consumer.on.type.id:
                sources.append(-1)
                continue
            producer = value.owner
            where = f"run_cluster on {consumer.on.type.id} reads the shared payload of {value.type.id} (ins #{k})"
            if not isinstance(producer, RunClusterOp) or value.type.id not in bounds \
                    or consumer.on.type.id not in bounds:
                raise LayoutError(f"{NAME}: {where}: only a payload a run_cluster of a sibling cluster "
                                  "yields is moved through workgroup memory")
            if HANDOFF in producer.attributes and producer.attributes[HANDOFF].data[0].data >= 0:
                raise LayoutError(f"{NAME}: {where}: a payload read by several run_clusters is not moved yet")
            if not isinstance(consumer.on.type.scope, pcf.SubgroupScopeAttr):
                raise LayoutError(f"{NAME}: {where}: hand-offs between clusters need subgroup scope "
                                  f"(named barriers count warps), got {consumer.on.type.scope}")
            index = len(handoffs)
            if FIRST_HANDOFF_BARRIER - 2 * index - 1 < 1:
                raise LayoutError(f"{NAME}: {where}: more than 7 hand-offs in one tile_group")
            if subgroup is None:
                subgroup = lk_gpu.SubgroupSizeOp()
                made.append(subgroup)
            a, b = bounds[value.type.id], bounds[consumer.on.type.id]
            sizes: list = []
            producers = _workers_in(lows[a], highs[a], sizes)
            consumers = _workers_in(lows[b], highs[b], sizes)
            workers = arith.AddiOp(producers, consumers)
            threads = arith.MuliOp(workers, subgroup)
            threads32 = arith.IndexCastOp(threads, i32)
            full = arith.ConstantOp(IntegerAttr(FIRST_HANDOFF_BARRIER - 2 * index, i32))
            consumed = arith.ConstantOp(IntegerAttr(FIRST_HANDOFF_BARRIER - 2 * index - 1, i32))
            buffers = [memref.AllocOp([], [], _buffer_type(t, value.type.id)) for t in value.type.shared_types]
            name = f"handoff{index}"
            threads32.result.name_hint, full.result.name_hint = f"{name}_threads", f"{name}_full"
            consumed.result.name_hint = f"{name}_consumed"
            for k_, buffer in enumerate(buffers):
                buffer.results[0].name_hint = f"{name}_{k_}"
            made += [*sizes, workers, threads, threads32, full, consumed, *buffers]
            handoffs.append(_Handoff([buf.results[0] for buf in buffers], full.result, consumed.result,
                                     threads32.result))
            role = producer.attributes.get(HANDOFF)  # [as producer, source per ins...]
            tail = list(role.data[1:]) if role is not None else [IntAttr(-1)] * len(producer.ins)
            producer.attributes[HANDOFF] = ArrayAttr([IntAttr(index), *tail])
            sources.append(index)
        if any(source >= 0 for source in sources):
            role = consumer.attributes.get(HANDOFF)
            head = role.data[0] if role is not None else IntAttr(-1)
            consumer.attributes[HANDOFF] = ArrayAttr([head, *map(IntAttr, sources)])
    return tuple(handoffs)


def resolve_tile_group(op: TileGroupOp, worker: list, count: list, parent: _Case | None = None) -> None:
    """Replace ``op`` by the cluster index of the worker (``worker``: its id per grid dimension,
    ``count``: the worker counts) and an ``scf.index_switch`` of cases (``parent``: the case of
    the cluster a nested tile_group splits). On a 2-d grid the worker is in cluster ``k`` when
    ``lo0 <= w0 < hi0`` and ``lo1 <= w1 < hi1``."""
    clusters = [arg.type for arg in op.clusters]
    if isinstance(op.source.type, ClusterType) and parent is None:
        raise LayoutError(at_op(op, f"{NAME}: a tile_group of cluster {op.source.type.id} outside that cluster's region"))
    rank = len(worker)
    if any(c.rank != rank for c in clusters):
        raise LayoutError(at_op(op, f"{NAME}: clusters of rank {clusters[0].rank} over a rank-{rank} worker grid"))
    made: list = []
    lows, highs = [], []
    index = _const(0)
    made.append(index)
    current = index.result
    for k, cluster in enumerate(clusters):
        name = cluster.id.replace(".", "_")
        low, high, inside = [], [], None
        for dim in range(rank):
            lo, hi = _bound(cluster, 2 * dim, op.splits, count), _bound(cluster, 2 * dim + 1, op.splits, count)
            suffix = str(dim) if rank > 1 else ""
            lo.result.name_hint, hi.result.name_hint = f"{name}_lo{suffix}", f"{name}_hi{suffix}"
            made += [lo, hi]
            low.append(lo.result)
            high.append(hi.result)
        lows.append(low)
        highs.append(high)
        if k:
            for dim in range(rank):
                above = arith.CmpiOp(low[dim], worker[dim], "ule")
                below = arith.CmpiOp(worker[dim], high[dim], "ult")
                both = arith.AndIOp(above, below)
                made += [above, below, both]
                if inside is not None:
                    both = arith.AndIOp(inside, both)
                    made.append(both)
                inside = both
            kth = _const(k)
            pick = arith.SelectOp(inside, kth, current)
            made += [kth, pick]
            current = pick.result
    current.name_hint = "cluster"
    handoffs = _plan_handoffs(op, clusters, lows, highs, made)
    cases = []
    for cluster, low, high in zip(clusters, lows, highs):
        region = op.region.clone()
        block = region.blocks.first
        case = _Case(cluster.id, worker, low, handoffs, parent=parent, high=high)
        for arg in block.args:
            case.fields[arg] = []
        case.convert_block(block)
        case.finish()
        body = Block()
        _move_ops(block, body, keep_terminator=False)
        body.add_op(scf.YieldOp())
        cases.append(Region(body))
    switch = scf.IndexSwitchOp(current, DenseArrayBase.from_list(i64, list(range(len(clusters)))),
                               Region(Block([scf.YieldOp()])), cases, [])
    block = op.parent_block()
    block.insert_ops_before([*made, switch], op)
    block.erase_op(op)


def _inside_tile_group(op) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, SharedExecutorOp):
        if isinstance(parent, TileGroupOp):
            return True
        parent = parent.parent_op()
    return False


WRITES = ("pcf.write_slice", "memref.store", "vector.store", "vector.transfer_write", "memref.copy")


def _grid_rank(op: SharedExecutorOp, block: Block) -> int:
    """The rank of the executor's worker grid: its outermost tile_groups' (1 without any)."""
    ranks = {arg.type.rank for t in block.walk() if isinstance(t, TileGroupOp) and not _inside_tile_group(t)
             and isinstance(t.source.type, ThreadgroupType) for arg in t.clusters}
    if len(ranks) > 1:
        raise LayoutError(at_op(op, f"{NAME}: pcf.shared_executor: tile_groups of ranks {sorted(ranks)} split one threadgroup"))
    return ranks.pop() if ranks else 1


def _inline_initializer(op: SharedExecutorOp, new: Block) -> None:
    """The ``initialize`` region, replicated at the start of every worker's code: its values are
    the same for every worker (it sees no ids) and a ``pcf.alloc`` in it is one buffer of the
    scope's shared memory per allocation site, so running it per worker equals running it once.
    It must not write memory (every worker would repeat the write)."""
    init = op.initializer.blocks.first
    for inner in init.walk():
        if inner.name in WRITES:
            raise LayoutError(at_op(inner, f"{NAME}: pcf.shared_executor: the initialize region writes memory "
                              f"({inner.name}); only values and allocations are replicated per worker"))
    yielded = list(init.last_op.operands)
    for arg, value in zip(op.region.blocks.first.args[:op.num_leading], yielded, strict=True):
        arg.replace_all_uses_with(value)
    first = new.first_op
    for inner in list(init.ops)[:-1]:
        inner.detach()
        if first is None:
            new.add_op(inner)
        else:
            new.insert_op_before(inner, first)


def resolve_executor(op: SharedExecutorOp) -> None:
    """``op`` becomes a ``pcf.generic sync true`` whose tile_groups are resolved. Its refs are
    all tied: a read-only ``%r <- %x`` becomes ``%r = %x`` whose result (a snapshot of an sref
    nobody writes, so ``%x`` itself) has no use. An ``initialize`` region is inlined at the
    start (:func:`_inline_initializer`). A rank-r worker grid is the scope's workers as IREE's
    subgroup and lane scopes give r ids: id 0 the worker (count: the workers), ids 1.. 0 (count 1)."""
    old = op.region.blocks.first
    refs = list(op.ref_args)
    rank = _grid_rank(op, old)
    new = Block(arg_types=[*(a.type for a in refs), IndexType(), IndexType()])
    for a, b in zip(refs, new.args):
        b.name_hint = a.name_hint
        a.replace_all_uses_with(b)
    worker, count = [new.args[-2]], [new.args[-1]]
    worker[0].name_hint, count[0].name_hint = "worker", "workers"
    if rank > 1:  # ids 1.. are 0 of 1, as IREE's subgroup and lane scopes give several ids
        zero, one = _const(0), _const(1)
        new.add_ops([zero, one])
        zero.result.name_hint, one.result.name_hint = "worker1", "workers1"
        worker += [zero.result] * (rank - 1)
        count += [one.result] * (rank - 1)
    _move_ops(old, new)
    if op.initializer.blocks:
        _inline_initializer(op, new)
    for tile_group in [t for t in new.walk() if isinstance(t, TileGroupOp) and not _inside_tile_group(t)]:
        resolve_tile_group(tile_group, worker, count)  # nested ones: by the cases of the outer ones
    zero = _const(0)
    new.insert_op_before(zero, new.first_op)
    case = _Case("tg", worker, [zero.result] * rank, counts=count)  # run_thread / run_cluster on the threadgroup
    case.fields[op.threadgroup] = []
    case.convert_block(new)
    case.finish()
    if not zero.result.uses:
        new.erase_op(zero)
    if op.threadgroup.uses:
        raise LayoutError(at_op(next(iter(op.threadgroup.uses)).operation, f"{NAME}: the threadgroup is used by {next(iter(op.threadgroup.uses)).operation.name}"))
    inits, reads = iter(op.inits), iter(op.reads)
    operands = [next(inits) if tied else next(reads) for tied in op.tied_flags]
    generic = pcf.GenericOp.build(
        operands=[operands, []], result_types=[[v.type for v in operands]], regions=[Region(), Region(new)],
        properties={"scope": op.scope, "is_tied": DenseArrayBase.from_list(i1, [True] * len(operands)),
                    "sync_on_return": BoolAttr.from_bool(True), "num_leading_args": IntAttr(0)},
        attributes=dict(op.attributes))
    op.parent_block().insert_op_before(generic, op)
    tied_results = [r for r, tied in zip(generic.results, op.tied_flags) if tied]
    for a, b in zip(op.results, tied_results, strict=True):
        a.replace_all_uses_with(b)
    op.parent_block().erase_op(op)


@dataclass(frozen=True)
class PcfResolveClustersPass(ModulePass):
    """pcf.shared_executor with per-worker clusters -> pcf.generic + scf.index_switch per tile_group."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        executors = [o for o in op.walk() if isinstance(o, SharedExecutorOp)]
        for executor in reversed(executors):  # inner ones first
            resolve_executor(executor)


__all__ = ["PcfResolveClustersPass", "resolve_executor", "resolve_tile_group"]
