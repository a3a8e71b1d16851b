"""Distribution of collective PCF code: the interface through which a region's ops are
distributed, and the seed's equivalence analysis over threadgroup-carried values.

*Threadgroup-carried values* are SSA values of type ``!pcf.threadgroup`` or ``!pcf.cluster``:
their payloads (the accumulator of a matmul, a tile a loading cluster hands to a computing
one) live on a group of workers. Distributing the ops that produce and consume such a value
decides how its payload is laid out over the workers, so every op touching one carried value
must be distributed *together*, with one layout for the value. Control flow only forwards
values: a carried value passed through a loop's ``iter_args`` or a branch's operands is the
same distributed value on both sides of the edge (the seed: the type "must be consistent
before and after the branch").

:func:`carried_equivalence` computes those classes by union-find over values along
control-flow edges -- ``scf.for`` (init, iteration argument, yielded value, result),
``scf.while``, ``scf.if`` / ``scf.index_switch`` (each region's yield and the result),
``cf.br`` / ``cf.cond_br`` (successor operands and block arguments) -- and groups the
:class:`Distributable` ops whose consumed or produced carried values fall into one class.
Example (the matmul's K loop, the accumulator carried as a shared payload)::

    %a0 = run_cluster %tg : TG -> TG_acc {...}                       // produces %a0
    %aK = scf.for ... iter_args(%cur = %a0) -> (TG_acc) {
      %nx = run_cluster %tg ins(%cur : TG_acc) : TG -> TG_acc {...}  // consumes %cur
      scf.yield %nx
    }
    run_cluster %tg ins(%aK : TG_acc) : TG {...}                      // consumes %aK

has one class ``{%a0, %cur, %nx, %aK}`` and one group of all three ``run_cluster`` ops:
the same control-flow graph as three regions chained directly.

A distribution implementation takes one group at a time (its ops and the carried values
between them) and rewrites its ops; it never walks control flow itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from xdsl.dialects import cf, scf
from xdsl.ir import Operation, SSAValue

from layoutkit.ir.dialects import pcf_ext


def is_carried(value: SSAValue) -> bool:
    """Whether ``value`` is threadgroup-carried (``!pcf.threadgroup`` or ``!pcf.cluster``)."""
    return isinstance(value.type, (pcf_ext.ThreadgroupType, pcf_ext.ClusterType))


@runtime_checkable
class Distributable(Protocol):
    """What distribution needs from an op holding collective code: the carried values its
    region consumes (payloads it reads) and produces (payloads it yields)."""

    op: Operation

    def consumed(self) -> Sequence[SSAValue]: ...

    def produced(self) -> Sequence[SSAValue]: ...


@dataclass(frozen=True)
class RunInterface:
    """:class:`Distributable` for ``run_cluster`` / ``run_thread``: consumes its ``ins``,
    produces its result (the ``on`` group only names the workers; it carries no data read)."""

    op: Operation

    def consumed(self) -> Sequence[SSAValue]:
        return [v for v in self.op.ins if is_carried(v)]

    def produced(self) -> Sequence[SSAValue]:
        return [self.op.result] if self.op.result is not None else []


#: op class -> its Distributable adapter (one line per distributable op)
DISTRIBUTABLE: dict[type, type] = {
    pcf_ext.RunClusterOp: RunInterface,
    pcf_ext.RunThreadOp: RunInterface,
}


def distributable(op: Operation) -> Distributable | None:
    """The :class:`Distributable` view of ``op``, or None if it holds no collective code."""
    adapter = DISTRIBUTABLE.get(type(op))
    return adapter(op) if adapter is not None else None


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[SSAValue, SSAValue] = {}

    def find(self, v: SSAValue) -> SSAValue:
        self.parent.setdefault(v, v)
        root = v
        while self.parent[root] is not root:
            root = self.parent[root]
        while self.parent[v] is not root:  # path compression
            self.parent[v], v = root, self.parent[v]
        return root

    def union(self, a: SSAValue, b: SSAValue) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra


def _pairs(op: Operation) -> list[tuple[SSAValue, SSAValue]]:
    """The (source, destination) value pairs of the control-flow edges ``op`` defines."""
    pairs: list[tuple[SSAValue, SSAValue]] = []
    if isinstance(op, scf.ForOp):
        body = op.body.block
        pairs += zip(op.iter_args, body.args[1:])
        pairs += zip(op.results, body.args[1:])
        if isinstance(body.last_op, scf.YieldOp):
            pairs += zip(body.last_op.operands, body.args[1:])
    elif isinstance(op, scf.WhileOp):
        before, after = op.before_region.block, op.after_region.block
        pairs += zip(op.arguments, before.args)
        if isinstance(before.last_op, scf.ConditionOp):
            pairs += zip(before.last_op.args, after.args)
            pairs += zip(before.last_op.args, op.results)
        if isinstance(after.last_op, scf.YieldOp):
            pairs += zip(after.last_op.operands, before.args)
    elif isinstance(op, (scf.IfOp, scf.IndexSwitchOp)):
        for region in op.regions:
            for block in region.blocks:
                if isinstance(block.last_op, scf.YieldOp):
                    pairs += zip(block.last_op.operands, op.results)
    elif isinstance(op, cf.BranchOp):
        pairs += zip(op.arguments, op.successor.args)
    elif isinstance(op, cf.ConditionalBranchOp):
        pairs += zip(op.then_arguments, op.then_block.args)
        pairs += zip(op.else_arguments, op.else_block.args)
    return pairs


@dataclass
class DistributionGroup:
    """Ops that must be distributed together and the carried values between them."""

    ops: list[Operation] = field(default_factory=list)
    values: list[SSAValue] = field(default_factory=list)


@dataclass
class CarriedEquivalence:
    """The classes of equivalent carried values in a region, and the distribution groups."""

    classes: list[list[SSAValue]]
    groups: list[DistributionGroup]
    _class_index: dict[SSAValue, int]

    def same(self, a: SSAValue, b: SSAValue) -> bool:
        """Whether carried values ``a`` and ``b`` must be distributed with one layout."""
        ia, ib = self._class_index.get(a), self._class_index.get(b)
        return ia is not None and ia == ib

    def class_of(self, value: SSAValue) -> list[SSAValue]:
        return self.classes[self._class_index[value]] if value in self._class_index else [value]

    def group_of(self, op: Operation) -> DistributionGroup | None:
        return next((g for g in self.groups if op in g.ops), None)


def carried_equivalence(root: Operation) -> CarriedEquivalence:
    """Union-find over the carried values under ``root`` along control-flow edges, then the
    :class:`Distributable` ops grouped by the classes they consume or produce (an op
    touching no carried value is a group of its own). Classes and groups in program order."""
    uf = _UnionFind()
    order: list[SSAValue] = []
    seen: set[SSAValue] = set()
    ops: list[Distributable] = []

    def see(v: SSAValue) -> None:
        if is_carried(v) and v not in seen:
            seen.add(v)
            order.append(v)

    for op in root.walk():
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    see(arg)
        for v in (*op.operands, *op.results):
            see(v)
        for a, b in _pairs(op):
            if is_carried(a) and is_carried(b):
                see(a)
                see(b)
                uf.union(a, b)
        view = distributable(op)
        if view is not None:
            ops.append(view)
    roots: dict[SSAValue, int] = {}
    classes: list[list[SSAValue]] = []
    index: dict[SSAValue, int] = {}
    for v in order:
        k = roots.setdefault(uf.find(v), len(classes))
        if k == len(classes):
            classes.append([])
        classes[k].append(v)
        index[v] = k
    # ops joined by a shared class: a second union-find over class indices
    owner: dict[int, int] = {}
    group_parent = list(range(len(ops)))

    def gfind(i: int) -> int:
        while group_parent[i] != i:
            group_parent[i] = group_parent[group_parent[i]]
            i = group_parent[i]
        return i

    for i, view in enumerate(ops):
        for v in (*view.consumed(), *view.produced()):
            k = index[v]
            if k in owner:
                group_parent[gfind(i)] = gfind(owner[k])
            else:
                owner[k] = i
    groups: dict[int, DistributionGroup] = {}
    for i, view in enumerate(ops):
        group = groups.setdefault(gfind(i), DistributionGroup())
        group.ops.append(view.op)
        for v in (*view.consumed(), *view.produced()):
            for w in classes[index[v]]:
                if w not in group.values:
                    group.values.append(w)
    return CarriedEquivalence(classes, list(groups.values()), index)


__all__ = ["DISTRIBUTABLE", "CarriedEquivalence", "Distributable", "DistributionGroup",
           "RunInterface", "carried_equivalence", "distributable", "is_carried"]
