"""``pcf-distribute-run-cluster-to-lanes``: stage 7 of pcf-matmul: lane-scope run_cluster phases distributed to lanes (copy chunks, mma.sync fragments).

Seed 002, PCFDistributeRunClusterToLanesPass. The lane executor becomes ``pcf.generic
scope(#iree_gpu.lane_scope)``; its accumulator group (one class by the equivalence analysis)
becomes a per-lane packed ``tensor<MI x NI x 2 x 2 x f32>`` of ``mma.sync m16n8k16`` C
fragments carried through the K loop (lane ``4*group + pair`` holds rows ``group``,
``group + 8`` and columns ``2*pair + {0, 1}`` of each 16x8 tile); the copy phase becomes
8-element chunks ``ch = lane, lane + 32, ...`` of the subgroup's panel quarter; the compute
phase reads A and B fragments from the panels and issues ``nvgpu.mma.sync``. Global reads are
zero-padded past M, N and K; writes past M and N land nowhere.
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
    stage_lanes,
)

NAME = "pcf-distribute-run-cluster-to-lanes"


@dataclass(frozen=True)
class PcfDistributeRunClusterToLanesPass(ModulePass):
    """Stage 7 of pcf-matmul: lane-scope run_cluster phases distributed to lanes (copy chunks, mma.sync fragments)."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in functions_at(op, 6, NAME):
            check_distribution_groups(function, NAME)
        rebuild(op, 7, NAME, stage_lanes)


__all__ = ["PcfDistributeRunClusterToLanesPass"]
