"""``pcf-introduce-shared-memory-copies``: stage 5 of pcf-matmul: shared-memory panels and each K step split into a copy then a compute cluster.

Seed 002, GPUIntroduceSharedMemoryCopiesPass: ``pcf.alloc`` at subgroup scope of a
``TM x TK`` panel for A and a ``TK x TN`` panel for B (workgroup memory once lowered); each K
step is a copy run_cluster (global slices, zero-padded, into the panels) followed by the
compute run_cluster reading the panels. As in the seed, the synchronisation between the two
is not yet explicit: distribution to subgroups adds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from layoutkit.passes.pcf_matmul import rebuild, stage_flow

NAME = "pcf-introduce-shared-memory-copies"


@dataclass(frozen=True)
class PcfIntroduceSharedMemoryCopiesPass(ModulePass):
    """Stage 5 of pcf-matmul: shared-memory panels and each K step split into a copy then a compute cluster."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rebuild(op, 5, NAME, lambda name, names, cfg: stage_flow(name, names, cfg, with_copies=True))


__all__ = ["PcfIntroduceSharedMemoryCopiesPass"]
