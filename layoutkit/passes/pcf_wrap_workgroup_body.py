"""``pcf-wrap-workgroup-body``: stage 3 of pcf-matmul: the tile's matmul nested in a subgroup-scope pcf.shared_executor.

Seed 002, GPUWrapWorkgroupBodyPass: the workgroup ``pcf.loop`` keeps the global tile; the
tile computation becomes collective code of all subgroups: ``pcf.shared_executor
scope(#iree_gpu.subgroup_scope) execute(%acc = %ct, %lhs <- %at, %rhs <- %bt)[%tg]`` (the C
tile read-write, A and B tiles read-only), without changing the schedule yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from layoutkit.passes.pcf_matmul import rebuild, stage_wrapped

NAME = "pcf-wrap-workgroup-body"


@dataclass(frozen=True)
class PcfWrapWorkgroupBodyPass(ModulePass):
    """Stage 3 of pcf-matmul: the tile's matmul nested in a subgroup-scope pcf.shared_executor."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rebuild(op, 3, NAME, stage_wrapped)


__all__ = ["PcfWrapWorkgroupBodyPass"]
