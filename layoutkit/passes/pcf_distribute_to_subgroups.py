"""``pcf-distribute-run-cluster-to-subgroups``: stage 6 of pcf-matmul: run_cluster phases distributed to a 2x2 grid of subgroups.

Seed 002, PCFDistributeRunClusterToSubgroupsPass. The equivalence analysis
(:mod:`layoutkit.passes.pcf_distribution`) must find the accumulator's phases (initialise,
compute, write back) as one group -- its payload is distributed once: subgroup
``sg = 2*sm + sn`` owns the ``TM/2 x TN/2`` block at ``(sm*TM/2, sn*TN/2)`` -- and each copy
phase as a group of its own: subgroup ``sg`` copies panel rows ``[sg*TM/4, (sg+1)*TM/4)`` of
A and ``[sg*TK/4, (sg+1)*TK/4)`` of B. The executor becomes ``pcf.generic
scope(#iree_gpu.subgroup_scope)`` holding the same phases at lane scope, with a
``gpu.barrier`` after the copy (panels are read by other subgroups) and after the compute
(before the next copy overwrites them).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from layoutkit.passes.pcf_matmul import (
    check_distribution_groups,
    functions_at,
    rebuild,
    stage_subgroups,
)

NAME = "pcf-distribute-run-cluster-to-subgroups"


@dataclass(frozen=True)
class PcfDistributeRunClusterToSubgroupsPass(ModulePass):
    """Stage 6 of pcf-matmul: run_cluster phases distributed to a 2x2 grid of subgroups."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in functions_at(op, 5, NAME):
            check_distribution_groups(function, NAME)
        rebuild(op, 6, NAME, stage_subgroups)


__all__ = ["PcfDistributeRunClusterToSubgroupsPass"]
