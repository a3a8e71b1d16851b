"""``pcf-form-run-cluster-flow``: stage 4 of pcf-matmul: the executor body as run_cluster phases, the accumulator carried through K.

Seed 002, GPUFormRunClusterMatmulFlowPass: three phases on the threadgroup: a run_cluster
reading the C tile zero-padded to ``TM x TN`` and yielding it as the threadgroup's shared
payload (``!pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<TMxTNxf32>)>``); an
``scf.for`` over ``ceil(K/TK)`` steps carrying that payload, each step a run_cluster that
multiplies the zero-padded ``TM x TK`` and ``TK x TN`` slices into it; a run_cluster writing
the valid ``%ms x %ns`` part back.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from layoutkit.passes.pcf_matmul import rebuild, stage_flow

NAME = "pcf-form-run-cluster-flow"


@dataclass(frozen=True)
class PcfFormRunClusterFlowPass(ModulePass):
    """Stage 4 of pcf-matmul: the executor body as run_cluster phases, the accumulator carried through K."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rebuild(op, 4, NAME, stage_flow)


__all__ = ["PcfFormRunClusterFlowPass"]
