"""``pcf-vectorize-lane-code``: stage 8 of pcf-matmul: the lane code on vectors and buffers (fragments in private memory).

Seed 002, GenericVectorizationPass (plus the bufferization the existing PCF lowering
needs): the function's tensors become memrefs (global vector transfers read and write them),
the packed accumulator tensor a private ``memref.alloca`` of ``vector<2x2xf32>`` fragments
updated with ``vector.load`` / ``vector.store``. The result is ready for
``pcf-convert-sref-to-memref`` and ``pcf-lower-structural``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from layoutkit.passes.pcf_matmul import rebuild, stage_lanes

NAME = "pcf-vectorize-lane-code"


@dataclass(frozen=True)
class PcfVectorizeLaneCodePass(ModulePass):
    """Stage 8 of pcf-matmul: the lane code on vectors and buffers (fragments in private memory)."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rebuild(op, 8, NAME, lambda name, names, cfg: stage_lanes(name, names, cfg, vectorized=True))


__all__ = ["PcfVectorizeLaneCodePass"]
