"""``pcf-lower-structural``: ``pcf.loop`` and ``pcf.generic`` (on memrefs: run
``pcf-convert-sref-to-memref`` first) become workgroup and thread loops that
``gpu-outline-kernels`` turns into a kernel (IREE's pass of the same name).

- workgroup scope: an ``scf.forall`` over ``#gpu.block<x>`` with a fixed grid of ``G``
  workgroups (the static trip count when known, at most ``max-workgroups``). A ``pcf.loop``
  walks its iterations ``lin = wg, wg + G, ...`` below the product of its counts (iterations
  beyond the grid are looped) and delinearizes ``lin`` into its ids, every id from 0 (also
  with ``<linearize>`` and several ids, which IREE 3.13 lowers with lower bound 1 on the outer
  ids). Example: ``count(%m, %n)`` -> ``i = lin / n``, ``j = lin mod n``. A ``pcf.generic``
  gets ``id = wg``, ``count = G``. ``sync`` on a workgroup-scope op is the kernel's end (IREE
  3.13 fails there with "failed to construct requested barrier").
- subgroup scope: an ``scf.forall`` over ``workgroup-size`` threads (``#gpu.thread<x>``),
  ``id = t / subgroup-size``, ``count = workgroup-size / subgroup-size``; lane scope:
  ``id = t mod subgroup-size``, ``count = subgroup-size``; nested in another subgroup or lane
  generic they reuse its thread. ``sync true`` adds a ``gpu.barrier`` after the body.
- sequential scope: ``scf.for`` loops from 0 by 1 (a generic has id 0 and count 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError
from layoutkit.ir.context import at_op
from layoutkit.ir.dialects import pcf
from layoutkit.ir.dialects.upstream import gpu as lk_gpu
from layoutkit.ir.dialects.upstream.scf import ForallOp
from layoutkit.passes.linalg_structure import gpu_mapping, make_forall, mapping_kind

NAME = "pcf-lower-structural"


def _const(ops: list, n: int):
    op = arith.ConstantOp(IntegerAttr(n, IndexType()))
    ops.append(op)
    return op.result


def _static(value) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _move_body(op, values: list, dest: Block) -> None:
    """Append ``op``'s body to ``dest`` with its index arguments replaced by ``values``."""
    if len(op.region.blocks) != 1:
        raise LayoutError(at_op(op, f"{NAME}: {op.name}: a body of several blocks (pcf.br.cond_return) is not lowered yet"))
    body = op.region.blocks.first
    if op.results or len(body.args) != len(values):
        raise LayoutError(at_op(op, f"{NAME}: {op.name}: has sref arguments; run pcf-convert-sref-to-memref first"))
    for arg, value in zip(body.args, values):
        arg.replace_all_uses_with(value)
    for inner in list(body.ops):
        inner.detach()
        if not isinstance(inner, pcf.ReturnOp):
            dest.add_op(inner)


def _enclosing(op, kind: str):
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, ForallOp) and mapping_kind(parent.mapping) == kind:
            return parent
        parent = parent.parent_op()
    return None


@dataclass(frozen=True)
class PcfLowerStructuralPass(ModulePass):
    """pcf.loop/pcf.generic to workgroup and thread loops (scf.forall on #gpu.block/#gpu.thread, scf.for)."""

    name = NAME
    workgroup_size: int = 256
    subgroup_size: int = 64
    max_workgroups: int = 64

    def __post_init__(self) -> None:
        for field in ("workgroup_size", "subgroup_size", "max_workgroups"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise LayoutError(f"{NAME}: {field.replace('_', '-')}: expected a positive integer, got {value!r}")
        if self.workgroup_size % self.subgroup_size:
            raise LayoutError(f"{NAME}: workgroup-size: {self.workgroup_size} is not a multiple of "
                              f"subgroup-size {self.subgroup_size}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for parallel in [o for o in op.walk() if isinstance(o, (pcf.LoopOp, pcf.GenericOp))]:
            scope = parallel.scope
            if isinstance(scope, pcf.WorkgroupScopeAttr):
                new = self._workgroup(parallel)
            elif isinstance(scope, pcf.SequentialScopeAttr):
                new = self._sequential(parallel)
            elif isinstance(parallel, pcf.GenericOp):
                new = self._threads(parallel)
            else:
                raise LayoutError(at_op(parallel, f"{NAME}: pcf.loop at {scope} is not lowered yet (only workgroup and "
                                  "sequential scope loops)"))
            block = parallel.parent_block()
            block.insert_ops_before(new, parallel)
            block.erase_op(parallel)

    # ------------------------------------------------------------ workgroup scope
    def _workgroup(self, op) -> list:
        if _enclosing(op, "block") is not None:
            raise LayoutError(at_op(op, f"{NAME}: {op.name}: a workgroup-scope op inside another one"))
        before: list = []
        body = Block(arg_types=[IndexType()])
        wg = body.args[0]
        if isinstance(op, pcf.GenericOp):
            if len(op.ids) != 1:
                raise LayoutError(at_op(op, f"{NAME}: pcf.generic: {len(op.ids)} workgroup ids; one is lowered yet"))
            grid = self.max_workgroups
            ops: list = []
            count = _const(ops, grid)
            body.add_ops(ops)
            _move_body(op, [wg, count], body)
        else:
            counts = list(op.count)
            static = [_static(c) for c in counts]
            grid = self.max_workgroups
            if None not in static:
                grid = max(1, min(math.prod(static), grid))
            ops = []
            total = counts[0]
            for c in counts[1:]:
                mul = arith.MuliOp(total, c)
                ops.append(mul)
                total = mul.result
            step = _const(ops, grid)
            body.add_ops(ops)
            loop_body = Block(arg_types=[IndexType()])
            rest, ids, delin = loop_body.args[0], [], []
            for c in reversed(counts[1:]):  # innermost id first; every id from 0
                rem, div = arith.RemUIOp(rest, c), arith.DivUIOp(rest, c)
                delin += [rem, div]
                ids.insert(0, rem.result)
                rest = div.result
            ids.insert(0, rest)
            loop_body.add_ops(delin)
            _move_body(op, ids, loop_body)
            loop_body.add_op(scf.YieldOp())
            body.add_op(scf.ForOp(wg, total, step, [], Region(loop_body)))
        return [*before, make_forall([grid], [1], gpu_mapping("block", 1), body)]

    # ------------------------------------------------------------ subgroup and lane scope
    def _threads(self, op: pcf.GenericOp) -> list:
        if len(op.ids) != 1:
            raise LayoutError(at_op(op, f"{NAME}: pcf.generic: {len(op.ids)} ids at {op.scope}; one is lowered yet"))
        enclosing = _enclosing(op, "thread")
        if enclosing is None and _enclosing(op, "block") is None:
            raise LayoutError(at_op(op, f"{NAME}: pcf.generic at {op.scope} must be inside a workgroup-scope "
                              "pcf.loop or pcf.generic"))
        body = Block(arg_types=[IndexType()]) if enclosing is None else Block()
        thread = body.args[0] if enclosing is None else enclosing.body.block.args[0]
        ops: list = []
        size = _const(ops, self.subgroup_size)
        if isinstance(op.scope, pcf.SubgroupScopeAttr):
            worker = arith.DivUIOp(thread, size)
            count = self.workgroup_size // self.subgroup_size
        else:
            worker = arith.RemUIOp(thread, size)
            count = self.subgroup_size
        ops.append(worker)
        count_value = _const(ops, count)
        body.add_ops(ops)
        _move_body(op, [worker.result, count_value], body)
        if enclosing is None:
            new = [make_forall([self.workgroup_size], [1], gpu_mapping("thread", 1), body)]
        else:
            new = list(body.ops)
            for inner in new:
                inner.detach()
        if op.sync_on_return.value.data:
            new.append(lk_gpu.BarrierOp())
        return new

    # ------------------------------------------------------------ sequential scope
    def _sequential(self, op) -> list:
        ops: list = []
        if isinstance(op, pcf.GenericOp):
            zero, one = _const(ops, 0), _const(ops, 1)
            body = Block()
            _move_body(op, [zero] * len(op.ids) + [one] * len(op.ids), body)
            for inner in list(body.ops):
                inner.detach()
                ops.append(inner)
            return ops
        zero, one = _const(ops, 0), _const(ops, 1)
        inner_block = Block(arg_types=[IndexType()] * len(op.count))
        _move_body(op, list(inner_block.args), inner_block)
        # nest: for i0 { for i1 { ... } } with the block arguments as the induction variables
        loops_ops = list(inner_block.ops)
        for inner in loops_ops:
            inner.detach()
        current = loops_ops
        for k in reversed(range(len(op.count))):
            block = Block(arg_types=[IndexType()])
            block.args[0].name_hint = inner_block.args[k].name_hint
            inner_block.args[k].replace_all_uses_with(block.args[0])
            block.add_ops(current)
            block.add_op(scf.YieldOp())
            current = [scf.ForOp(zero, op.count[k], one, [], Region(block))]
        return [*ops, *current]


__all__ = ["PcfLowerStructuralPass"]
