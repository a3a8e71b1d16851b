"""``pcf-apply-workgroup-tiling``: stage 2 of pcf-matmul: the matmul tiled into a workgroup pcf.loop over the tile grid.

Seed 002, GPUApplyWorkgroupTilingPass: workgroup tiling targets ``pcf.loop`` rather than
``scf.forall``, so the boundary between global and workgroup-local values is visible. The loop
runs over ``ceil(M/TM) x ceil(N/TN)`` tiles (``arith.ceildivui``); tile ``(i, j)`` has rows
``[i*TM, i*TM + min(TM, M - i*TM))`` (``%ms`` of them) and columns likewise (``%ns``); it
reads ``A[rows, :]``, ``B[:, cols]`` and the C tile from the loop's sref, multiplies and
writes the tile back. Example: M = 130, TM = 128 -> 2 row tiles of 128 and 2 rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from layoutkit.passes.pcf_matmul import rebuild, stage_tiled

NAME = "pcf-apply-workgroup-tiling"


@dataclass(frozen=True)
class PcfApplyWorkgroupTilingPass(ModulePass):
    """Stage 2 of pcf-matmul: the matmul tiled into a workgroup pcf.loop over the tile grid."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rebuild(op, 2, NAME, stage_tiled)


__all__ = ["PcfApplyWorkgroupTilingPass"]
