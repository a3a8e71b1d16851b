"""``pcf-distribute-run-clusters{level=subgroup|lane}``: the generic baseline distribution of
collective tensor code (seed 002, "Distribution"). Every ``run_cluster`` over a
``pcf.shared_executor``'s whole threadgroup whose region holds tensor code on shared payloads
becomes a ``run_thread``: per-worker code on the worker's slice.

Groups come from :func:`~layoutkit.passes.pcf_distribution.carried_equivalence`: the shared
payload of one class of carried values (a producer's result, the ``iter_args`` and results of
the ``scf.for`` loops it flows through, the consumers' ``ins``) is stored in ONE
``pcf.alloc`` at the executor's scope (workgroup memory), and every op of the group
reads and writes it with ONE distribution: the outermost dim of the ``N x M`` payload is
split in blocks of ``b = ceil(N / W)`` rows over the ``W = gpu.num_subgroups`` subgroups (``w`` owns rows
``[w*b, min(w*b + b, N))``: the remainder is a bound, not a padded tile); with
``level=lane`` (the default) the ``M`` columns of each row go cyclically to the lanes of a
``pcf.generic scope(#iree_gpu.lane_scope)`` (lane ``l`` takes columns ``l, l + L, ...``).
Example: ``N = 10`` rows over ``W = 4`` subgroups gives ``b = 3``: rows 0-2, 3-5, 6-8, 9.

The tensor code becomes scalar code per element ``(r, c)``: a payload block argument or a
``pcf.read_slice %s[o0, o1] [N, M] [1, 1]`` reads element ``(o0 + r, o1 + c)``, elementwise
``arith``/``math`` ops and splat constants act on the element type, an elementwise
``linalg.generic`` (identity maps, parallel; ``tensor.empty`` outputs) inlines its body, ``pcf.write_slice`` and
``pcf.yield`` write the element back. The carried values convert away (a loop's payload
``iter_args`` are dropped: the alloc carries the data). Phases keep their order; a
``gpu.barrier`` follows a phase when a phase that may run after it (later, or in the next
iteration of a loop around both) reads what it writes or writes what it reads or writes (payload allocs, srefs); a phase writing an sref it reads at
another offset is refused (its workers would race within the phase).
Anything else in a tensor body (a reduction, a transpose, a matmul, a payload carried by
``scf.if``) is refused with a LayoutError naming the op. ``run_cluster`` regions without
tensors (already per-worker code) are left to ``pcf-resolve-clusters``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
    VectorType,
    i1,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError, quote
from layoutkit.ir.context import at_op
from layoutkit.ir.dialects import pcf, pcf_ext
from layoutkit.ir.dialects.upstream import gpu as lk_gpu
from layoutkit.passes.pcf_distribution import carried_equivalence, is_carried

NAME = "pcf-distribute-run-clusters"
LEVELS = ("subgroup", "lane")
_ELEMENTWISE_DIALECTS = ("arith.", "math.")
_UNDEFINED = object()  # the element of a tensor.empty (an output a generic only writes)


def _has_tensor(op: Operation) -> bool:
    for inner in op.walk():
        types = [*(v.type for v in (*inner.operands, *inner.results))]
        for region in inner.regions:
            for block in region.blocks:
                types += block.arg_types
        types += [t for v in (*inner.operands, *inner.results) if is_carried(v) for t in v.type.shared_types]
        if any(isinstance(t, TensorType) for t in types):
            return True
    return False


def _index(ops: list, n: int) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(n, IndexType()))
    ops.append(op)
    return op.result


def _slice_props(offsets: list[int | None]) -> dict:
    static = [pcf.DYNAMIC if o is None else o for o in offsets]
    ones = [1] * len(offsets)
    return {"static_offsets": DenseArrayBase.from_list(i64, static),
            "static_sizes": DenseArrayBase.from_list(i64, ones),
            "static_strides": DenseArrayBase.from_list(i64, ones)}


def _read(ops: list, sref: SSAValue, at: list[SSAValue]) -> SSAValue:
    """The element ``sref[at]`` (a 1x1 vector slice, extracted)."""
    elem = sref.type.element_type
    vtype = VectorType(elem, [1] * len(at))
    read = pcf.ReadSliceOp.build(operands=[sref, at, [], []], result_types=[vtype], properties=_slice_props([None] * len(at)))
    get = vector.ExtractOp(read.result, [0] * len(at), elem)
    ops += [read, get]
    return get.result


def _write(ops: list, value: SSAValue, sref: SSAValue, at: list[SSAValue]) -> None:
    vtype = VectorType(sref.type.element_type, [1] * len(at))
    splat = vector.BroadcastOp(value, vtype)
    ops += [splat, pcf.WriteSliceOp.build(operands=[splat.results[0], sref, at, [], []],
                                          properties=_slice_props([None] * len(at)))]


def _refuse(op: Operation, why: str) -> LayoutError:
    return LayoutError(at_op(op, f"{NAME}: {op.name}: {why}"))


@dataclass(frozen=True)
class PcfDistributeRunClustersPass(ModulePass):
    """Distribute tensor run_cluster phases of a shared_executor to subgroups (then lanes)."""

    name = "pcf-distribute-run-clusters"
    level: str = "lane"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.level not in LEVELS:
            raise LayoutError(f"{NAME}: level: expected one of {', '.join(LEVELS)}, got {quote(self.level)}")
        for executor in [o for o in op.walk() if isinstance(o, pcf_ext.SharedExecutorOp)]:
            self._executor(executor)

    # ------------------------------------------------------------ one shared_executor
    def _executor(self, executor: pcf_ext.SharedExecutorOp) -> None:
        tg = executor.region.blocks.first.args[-1]
        eq = carried_equivalence(executor)
        plans = []
        for group in eq.groups:
            tensor_ops = [o for o in group.ops if _has_tensor(o)]
            if not tensor_ops:
                continue
            for o in group.ops:
                if not isinstance(o, pcf_ext.RunClusterOp):
                    raise _refuse(o, "per-worker code in a group of tensor run_cluster phases is not distributed")
                if o.on is not tg:
                    raise _refuse(o, f"tensor code on cluster {o.on.type.id}: only run_cluster on the "
                                     "shared_executor's threadgroup is distributed yet")
            if not isinstance(executor.scope, pcf.SubgroupScopeAttr):
                raise _refuse(group.ops[0], f"tensor code at scope {executor.scope}: only "
                                            "#iree_gpu.subgroup_scope executors are distributed")
            plans.append(group)
        if not plans:
            return
        allocs: dict[tuple[int, int], SSAValue] = {}  # (class, payload field) -> sref
        for group in plans:
            self._check_uses(group)
            for value in group.values:
                for k, t in enumerate(value.type.shared_types):
                    key = (eq._class_index[value], k)
                    if key in allocs:
                        continue
                    if not isinstance(t, TensorType) or len(t.get_shape()) != 2 or min(t.get_shape()) < 0:
                        raise _refuse(value.owner if isinstance(value.owner, Operation) else executor,
                                      f"payload {t}: only static 2-d tensors are distributed")
                    alloc = pcf.AllocOp.build(operands=[[]], result_types=[
                        pcf.ShapedRefType(t.get_shape(), t.element_type, executor.scope)])
                    executor.parent_block().insert_op_before(alloc, executor)
                    allocs[key] = alloc.result
        phases = [o for g in plans for o in g.ops]
        written = {o: self._writes(o, eq, allocs) for o in phases}
        read = {o: self._reads(o, eq, allocs) for o in phases}
        for o in phases:
            self._check_in_place(o)
            # a barrier after o when a phase that may run after it (later, or in the next
            # iteration of a loop around both) reads what o writes or writes what o reads or writes
            sync = any(written[o] & (read[p] | written[p]) or read[o] & written[p]
                       for p in phases if self._may_follow(p, o, executor))
            self._phase(o, tg, eq, allocs, sync)
        self._drop_carried(executor, {v for g in plans for v in g.values}, tg)
        for o in phases:
            o.detach()
            o.erase(safe_erase=False)

    @staticmethod
    def _check_uses(group) -> None:
        for value in group.values:
            for use in value.uses:
                user = use.operation
                ok = (isinstance(user, pcf_ext.RunClusterOp) and user in group.ops
                      or isinstance(user, scf.ForOp)
                      or isinstance(user, scf.YieldOp) and isinstance(user.parent_op(), scf.ForOp))
                if not ok:
                    raise _refuse(user, "carries a distributed tensor payload; only scf.for loops are converted yet")

    @staticmethod
    def _may_follow(p: Operation, o: Operation, executor: Operation) -> bool:
        """Whether phase ``p`` may run after phase ``o`` ends."""
        order = {op: k for k, op in enumerate(executor.walk())}
        if order[p] > order[o]:
            return True
        loop = o.parent_op()
        while loop is not executor:
            if isinstance(loop, (scf.ForOp, scf.WhileOp)) and loop.is_ancestor(p):
                return True
            loop = loop.parent_op()
        return False

    @staticmethod
    def _check_in_place(o) -> None:
        """A phase may update an sref in place only at the slice it reads: element ``(r, c)``
        then touches one element, its own (another offset is another worker's element)."""
        reads = {(r.source, tuple(r.static_offsets.get_values()), tuple(r.offsets))
                 for r in o.walk() if isinstance(r, pcf.ReadSliceOp)}
        for w in o.walk():
            if not isinstance(w, pcf.WriteSliceOp):
                continue
            where = (w.dest, tuple(w.static_offsets.get_values()), tuple(w.offsets))
            if any(src is w.dest and (offs, dyn) != where[1:] for src, offs, dyn in reads):
                raise _refuse(w, "writes the sref it reads at another offset in one phase: other workers' "
                                 "elements (split it into two phases)")

    @staticmethod
    def _writes(o, eq, allocs) -> set:
        out = {allocs[(eq._class_index[o.result], k)] for k in range(len(o.region.block.last_op.values))} \
            if o.result is not None else set()
        return out | {w.dest for w in o.walk() if isinstance(w, pcf.WriteSliceOp)}

    @staticmethod
    def _reads(o, eq, allocs) -> set:
        out = {allocs[(eq._class_index[v], k)] for v in o.ins for k in range(len(v.type.shared_types))}
        return out | {r.source for r in o.walk() if isinstance(r, pcf.ReadSliceOp)}

    # ------------------------------------------------------------ one phase
    def _phase(self, o: pcf_ext.RunClusterOp, tg, eq, allocs, sync: bool) -> None:
        body = o.region.block
        shapes = {tuple(t.get_shape()) for inner in body.walk()
                  for t in (*(v.type for v in inner.results), *(v.type for v in inner.operands))
                  if isinstance(t, TensorType)} | {tuple(t.get_shape()) for t in body.arg_types
                                                   if isinstance(t, TensorType)}
        if len(shapes) != 1:
            raise _refuse(o, f"tensors of shapes {sorted(shapes)} in one phase: one elementwise shape is distributed")
        n, m = next(iter(shapes))
        thread = Block(arg_types=[IndexType()])
        w = thread.args[0]
        w.name_hint = "sg"
        head: list = []
        n_v, m_v, one = (_index(head, k) for k in (n, m, 1))
        n_v.name_hint, m_v.name_hint = "rows", "cols"
        subgroups = lk_gpu.NumSubgroupsOp()
        up = arith.AddiOp(n_v, subgroups.result)
        up1 = arith.SubiOp(up, one)
        b = arith.DivUIOp(up1, subgroups.result)  # ceil(N / W)
        lo = arith.MuliOp(w, b)
        end = arith.AddiOp(lo, b)
        hi = arith.MinUIOp(end, n_v)
        head += [subgroups, up, up1, b, lo, end, hi]
        lo.result.name_hint, hi.result.name_hint = "row_lo", "row_hi"
        subgroups.result.name_hint, b.result.name_hint = "subgroups", "block"
        col = Block(arg_types=[IndexType()])
        row = Block(arg_types=[IndexType()])
        row.args[0].name_hint, col.args[0].name_hint = "r", "c"
        elem = self._elements(o, eq, allocs, row.args[0], col.args[0])
        col.add_ops([*elem, scf.YieldOp()])
        if self.level == "lane":
            lanes = pcf.GenericOp.build(operands=[[], []], result_types=[[]], regions=[Region(), Region()],
                                        properties={"scope": pcf.LaneScopeAttr(), "is_tied": DenseArrayBase.from_list(
                                            i1, []), "sync_on_return": BoolAttr.from_bool(False),
                                            "num_leading_args": IntAttr(0)})
            lane_block = Block(arg_types=[IndexType(), IndexType()])
            lane_block.args[0].name_hint, lane_block.args[1].name_hint = "lane", "lanes"
            row.add_ops([scf.ForOp(lane_block.args[0], m_v, lane_block.args[1], [], Region(col)), scf.YieldOp()])
            lane_block.add_ops([scf.ForOp(lo.result, hi.result, one, [], Region(row)), pcf.ReturnOp()])
            lanes.region.add_block(lane_block)
            head.append(lanes)
        else:
            row.add_ops([scf.ForOp(_index(head, 0), m_v, one, [], Region(col)), scf.YieldOp()])
            head.append(scf.ForOp(lo.result, hi.result, one, [], Region(row)))
        if sync:
            head.append(lk_gpu.BarrierOp())
        thread.add_ops([*head, pcf.YieldOp.build(operands=[[]])])
        new = pcf_ext.RunThreadOp.build(operands=[tg, []], result_types=[[]], regions=[Region(thread)])
        o.parent_block().insert_op_before(new, o)

    def _elements(self, o, eq, allocs, r: SSAValue, c: SSAValue) -> list:
        """Scalar code of element ``(r, c)`` of the phase ``o``."""
        ops: list = []
        env: dict[SSAValue, SSAValue] = {}
        body = o.region.block
        args = iter(body.args)
        for v in o.ins:
            for k in range(len(v.type.shared_types)):
                env[next(args)] = _read(ops, allocs[(eq._class_index[v], k)], [r, c])

        def at(slice_op) -> list[SSAValue]:
            if any(s != 1 for s in slice_op.static_strides.get_values()):
                raise _refuse(slice_op, "a strided slice is not distributed yet")
            dynamic = iter(slice_op.offsets)
            where = []
            for off, base in zip(slice_op.static_offsets.get_values(), (r, c)):
                if off == 0:
                    where.append(base)
                    continue
                value = next(dynamic) if off == pcf.DYNAMIC else _index(ops, off)
                add = arith.AddiOp(env.get(value, value), base)
                ops.append(add)
                where.append(add.result)
            return where

        for inner in body.ops:
            supported = (isinstance(inner, (pcf.YieldOp, pcf.WriteSliceOp))
                          or not inner.regions and inner.name.startswith(_ELEMENTWISE_DIALECTS))
            if supported and any(env.get(v) is _UNDEFINED for v in inner.operands):
                raise _refuse(inner, "reads the undefined contents of a tensor.empty")
            if isinstance(inner, pcf.YieldOp):
                for k, value in enumerate(inner.values):
                    _write(ops, env[value], allocs[(eq._class_index[o.result], k)], [r, c])
            elif isinstance(inner, pcf.ReadSliceOp) and isinstance(inner.result.type, TensorType):
                if inner.source.type.rank != 2:
                    raise _refuse(inner, f"reads the rank-{inner.source.type.rank} {inner.source.type}: "
                                         "2-d srefs are distributed")
                env[inner.result] = _read(ops, inner.source, at(inner))
            elif isinstance(inner, pcf.WriteSliceOp) and isinstance(inner.source.type, TensorType):
                if inner.dest.type.rank != 2:
                    raise _refuse(inner, f"writes the rank-{inner.dest.type.rank} {inner.dest.type}: "
                                         "2-d srefs are distributed")
                _write(ops, env[inner.source], inner.dest, at(inner))
            elif isinstance(inner, arith.ConstantOp) and isinstance(inner.result.type, TensorType):
                value = inner.value
                if not (isinstance(value, DenseIntOrFPElementsAttr) and value.is_splat()):
                    raise _refuse(inner, "only splat tensor constants are distributed")
                const = arith.ConstantOp(next(iter(value.iter_attrs())))
                ops.append(const)
                env[inner.result] = const.result
            elif inner.name == "tensor.empty":
                env[inner.results[0]] = _UNDEFINED
            elif inner.name == "linalg.generic":
                self._generic(inner, env, ops)
            elif inner.regions or not inner.name.startswith(_ELEMENTWISE_DIALECTS):
                if _has_tensor(inner):
                    raise _refuse(inner, "cannot distribute this op of a tensor run_cluster region "
                                         "(elementwise arith/math and linalg.generic, splat constants, "
                                         "pcf.read_slice/write_slice of the payload shape are)")
                clone = inner.clone()
                for k, operand in enumerate(clone.operands):
                    clone.operands[k] = env.get(operand, operand)
                ops.append(clone)
                env.update(zip(inner.results, clone.results))
            else:
                types = [t.element_type if isinstance(t, TensorType) else t for t in inner.result_types]
                new = type(inner).create(operands=[env.get(v, v) for v in inner.operands], result_types=types,
                                         properties=dict(inner.properties), attributes=dict(inner.attributes))
                ops.append(new)
                env.update(zip(inner.results, new.results))
        return ops

    @staticmethod
    def _generic(op: Operation, env: dict, ops: list) -> None:
        """An elementwise ``linalg.generic`` (identity maps, parallel iterators) on element
        ``(r, c)``: its body inlined on the elements of its operands."""
        maps = [m.data for m in op.indexing_maps]
        rank = maps[0].num_dims if maps else 0
        if (any(m != AffineMap.identity(rank) for m in maps)
                or any(str(t.data) != "parallel" for t in op.iterator_types)):
            raise _refuse(op, "only elementwise linalg.generic (identity maps, parallel iterators) is distributed")
        body = op.body.block
        local: dict[SSAValue, SSAValue] = {}
        for arg, operand in zip(body.args, (*op.inputs, *op.outputs)):
            if operand not in env:
                raise _refuse(op, f"operand {operand.type} is not a tensor of the phase")
            local[arg] = env[operand]
        for inner in body.ops:
            if inner.name == "linalg.yield":
                env.update(zip(op.results, (local.get(v, v) for v in inner.operands)))
                continue
            if inner.regions or any(local.get(v) is _UNDEFINED for v in inner.operands):
                raise _refuse(inner, "in a linalg.generic body: regions and reads of a tensor.empty output "
                                     "are not distributed")
            clone = inner.clone()
            for k, operand in enumerate(clone.operands):
                clone.operands[k] = local.get(operand, env.get(operand, operand))
            ops.append(clone)
            local.update(zip(inner.results, clone.results))

    # ------------------------------------------------------------ carried values convert away
    @staticmethod
    def _drop_carried(executor, carried: set, tg) -> None:
        loops = [o for o in executor.walk() if isinstance(o, scf.ForOp)
                 and any(v in carried for v in o.iter_args)]
        for loop in reversed(loops):  # inner loops first
            body = loop.body.block
            drop = [k for k, v in enumerate(loop.iter_args) if v in carried]
            keep = [k for k in range(len(loop.iter_args)) if k not in drop]
            last = body.last_op
            new_yield = scf.YieldOp(*[last.operands[k] for k in keep])
            body.insert_op_before(new_yield, last)
            last.detach()
            last.erase(safe_erase=False)
            for k in reversed(drop):
                arg = body.args[1 + k]
                arg.replace_all_uses_with(tg)
                body.erase_arg(arg)
            region = loop.detach_region(loop.body)
            new = scf.ForOp(loop.lb, loop.ub, loop.step, [loop.iter_args[k] for k in keep], region)
            loop.parent_block().insert_op_before(new, loop)
            for j, k in enumerate(keep):
                loop.results[k].replace_all_uses_with(new.results[j])
            for k in drop:
                loop.results[k].replace_all_uses_with(tg)
            loop.detach()
            loop.erase(safe_erase=False)


__all__ = ["PcfDistributeRunClustersPass"]
