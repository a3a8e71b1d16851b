"""The Triton layout pipeline as passes: ``tritongpu-exact-layouts`` (layoutkit's
``cost-model=exact``) and ``triton-gpu-pipeline`` (TTIR -> TTGIR, then the layout passes of
the chosen cost model)::

    layoutkit opt k.ttir --triton-gpu-pipeline="target=cuda:80 num-warps=4 cost-model=exact" --explain

They live in the ``layoutkit.triton`` layer, not ``layoutkit.passes``, because the exact cost
needs the Triton axis-info walk and access costs of this layer (the passes layer may not
import it); they are registered in :data:`layoutkit.passes.PASSES` like any pass.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError, quote

#: ``cost-model=triton``: Triton 3.9's layout passes, in the NVIDIA make_ttgir's order (the
#: golden manifest's cuda runs, keeping the passes of this list; hip runs one
#: remove-layout-conversions fewer before accelerate-matmul)
TRITON_LAYOUT_PASSES = ("tritongpu-coalesce", "tritongpu-remove-layout-conversions",
                        "tritongpu-remove-layout-conversions", "tritongpu-accelerate-matmul",
                        "tritongpu-remove-layout-conversions", "tritongpu-optimize-dot-operands",
                        "tritongpu-remove-layout-conversions", "tritongpu-reduce-data-duplication")
#: the same on AMD targets, in the AMD make_ttgir's order (the golden manifest's hip runs): its
#: optimize-epilogue after the second remove-layout-conversions; its optimize-dot-operands
#: (AMD's own pass) changed no golden kernel and hoist-layout-conversions only attention_fwd:
#: not modelled
TRITON_HIP_LAYOUT_PASSES = ("tritongpu-coalesce", "tritongpu-remove-layout-conversions", "tritongpu-accelerate-matmul",
                            "tritongpu-remove-layout-conversions", "tritonamdgpu-optimize-epilogue",
                            "tritongpu-remove-layout-conversions", "tritongpu-reduce-data-duplication")
COST_MODELS = ("exact", "triton")


def warp_size(target: str) -> int:
    """Threads per warp as Triton compiles for ``target``: 64 on AMD CDNA (``hip:gfx9*``), else 32."""
    return 64 if target.startswith("hip:gfx9") else 32

SOLVERS = ("auto", "ilp", "tree", "descent", "brute")


@dataclass(frozen=True)
class TritonGPUExactLayoutsPass(ModulePass):
    """Choose every tensor's layout for the whole kernel by exact conversion cost (cost-model=exact).

    ``solver``: ``auto`` (exact DP on chains/trees, else the HiGHS ILP, else descent),
    ``ilp``, ``tree``, ``descent``, ``brute``. ``explain``: print on stderr, for every
    ``ttg.convert_layout`` left, the two anchors that disagree, its cost and the alternatives.
    """

    name = "tritongpu-exact-layouts"

    solver: str = "auto"
    explain: bool = False

    def __post_init__(self) -> None:
        if self.solver not in SOLVERS:
            raise LayoutError(f"solver: expected one of {', '.join(SOLVERS)}, got {quote(self.solver)}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from layoutkit.triton.exact_layouts import assign_layouts

        text = assign_layouts(op, self.solver, self.explain)
        if self.explain:
            sys.stderr.write(text)


@dataclass(frozen=True)
class TritonGPUPipelinePass(ModulePass):
    """TTIR -> TTGIR (convert-triton-to-tritongpu), then the layout passes of ``cost-model``.

    ``cost-model=exact`` (default): ``tritongpu-exact-layouts``; ``cost-model=triton``:
    Triton 3.9's heuristics, the passes of :data:`TRITON_LAYOUT_PASSES` by name.
    """

    name = "triton-gpu-pipeline"

    target: str = ""
    num_warps: int = 4
    #: 0: the target's warp size, as Triton's backends pass it (64 on CDNA ``hip:gfx9*``, else 32)
    threads_per_warp: int = 0
    num_ctas: int = 1
    cost_model: str = "exact"
    solver: str = "auto"
    explain: bool = False

    def __post_init__(self) -> None:
        if self.cost_model not in COST_MODELS:
            raise LayoutError(f"cost-model: expected exact or triton, got {quote(self.cost_model)}")
        self.passes()  # the options are checked now, not after the conversion

    def lanes(self) -> int:
        """Threads per warp: the option, else the target's (``hip:gfx942`` -> 64)."""
        if self.threads_per_warp:
            return self.threads_per_warp
        return warp_size(self.target)

    def passes(self) -> list[ModulePass]:
        from layoutkit.passes import PASSES, pass_class
        from layoutkit.passes.convert_triton_to_tritongpu import ConvertTritonToTritonGPUPass

        first = ConvertTritonToTritonGPUPass(self.target, self.num_warps, self.lanes(), self.num_ctas)
        if self.cost_model == "exact":
            return [first, TritonGPUExactLayoutsPass(self.solver, self.explain)]
        names = TRITON_HIP_LAYOUT_PASSES if self.target.startswith("hip:") else TRITON_LAYOUT_PASSES
        missing = [name for name in names if name not in PASSES]
        if missing:
            raise LayoutError(f"cost-model: triton needs the passes {', '.join(dict.fromkeys(missing))}, "
                              f"not registered yet (use cost-model=exact)")
        return [first, *(pass_class(name)() for name in names)]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for p in self.passes():
            p.apply(ctx, op)


__all__ = ["COST_MODELS", "warp_size", "TRITON_HIP_LAYOUT_PASSES", "TRITON_LAYOUT_PASSES", "TritonGPUExactLayoutsPass", "TritonGPUPipelinePass"]
