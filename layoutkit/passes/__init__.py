"""Compiler passes over the IR, registered by name.

A pass is one file here holding one xDSL :class:`~xdsl.passes.ModulePass`: a frozen
dataclass with ``name = "my-pass"`` (its flag in ``layoutkit opt``) and its options as
dataclass fields, which ``--my-pass="some-option=4 flag=true"`` or
``--pass-pipeline='builtin.module(my-pass{some-option=4})'`` set (``-`` in option names is
``_`` in field names)::

    @dataclass(frozen=True)
    class MyPass(ModulePass):
        name = "my-pass"
        some_option: int = 1

        def apply(self, ctx: Context, op: ModuleOp) -> None: ...

Registering it is one line in :data:`PASSES`: ``"my-pass": "layoutkit.passes.my_pass:MyPass"``.
The module is imported only when the pass is used, so listing passes loads none of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from layoutkit.errors import LayoutError, quote

#: pass name -> ``"module:Class"`` of its ModulePass; xDSL's own passes first.
PASSES: dict[str, str] = {
    "canonicalize": "xdsl.transforms.canonicalize:CanonicalizePass",
    "cse": "xdsl.transforms.common_subexpression_elimination:CommonSubexpressionElimination",
    "dce": "xdsl.transforms.dead_code_elimination:DeadCodeElimination",
    "strip-debuginfo": "layoutkit.passes.strip_debuginfo:StripDebugInfoPass",
    "iree-vector-layout-analysis": "layoutkit.passes.iree_vector_layout_analysis:IreeVectorLayoutAnalysisPass",
    "iree-vector-distribute": "layoutkit.passes.iree_vector_distribute:IreeVectorDistributePass",
    "convert-triton-to-tritongpu": "layoutkit.passes.convert_triton_to_tritongpu:ConvertTritonToTritonGPUPass",
    "bufferize": "layoutkit.passes.bufferize:BufferizePass",
    "tile-to-workgroups": "layoutkit.passes.tile_to_workgroups:TileToWorkgroupsPass",
    "distribute-to-threads": "layoutkit.passes.distribute_to_threads:DistributeToThreadsPass",
    "gpu-outline-kernels": "layoutkit.passes.gpu_outline_kernels:GpuOutlineKernelsPass",
    "tritongpu-exact-layouts": "layoutkit.triton.gpu_pipeline:TritonGPUExactLayoutsPass",
    "triton-gpu-pipeline": "layoutkit.triton.gpu_pipeline:TritonGPUPipelinePass",
    "linalg-fuse-elementwise": "layoutkit.passes.linalg_fuse_elementwise:LinalgFuseElementwisePass",
    "promote-to-workgroup-memory": "layoutkit.passes.promote_to_workgroup_memory:PromoteToWorkgroupMemoryPass",
    "tritongpu-coalesce": "layoutkit.triton.coalesce:TritonGPUCoalescePass",
    "tritongpu-accelerate-matmul": "layoutkit.triton.accelerate_matmul:TritonGPUAccelerateMatmulPass",
    "pcf-resolve-tokens": "layoutkit.passes.pcf_resolve_tokens:PcfResolveTokensPass",
    "pcf-convert-sref-to-memref": "layoutkit.passes.pcf_convert_sref_to_memref:PcfConvertSrefToMemrefPass",
    "pcf-lower-structural": "layoutkit.passes.pcf_lower_structural:PcfLowerStructuralPass",
    "convert-forall-to-pcf": "layoutkit.passes.convert_forall_to_pcf:ConvertForallToPcfPass",
    "tritongpu-reduce-data-duplication": "layoutkit.triton.reduce_data_duplication:TritonGPUReduceDataDuplicationPass",
    "tritongpu-optimize-dot-operands": "layoutkit.triton.optimize_dot_operands:TritonGPUOptimizeDotOperandsPass",
    "tritonamdgpu-optimize-epilogue": "layoutkit.triton.optimize_epilogue:TritonAMDGPUOptimizeEpiloguePass",
    "pcf-resolve-clusters": "layoutkit.passes.pcf_resolve_clusters:PcfResolveClustersPass",
    "pcf-create-dispatch-config": "layoutkit.passes.pcf_create_dispatch_config:PcfCreateDispatchConfigPass",
    "pcf-apply-workgroup-tiling": "layoutkit.passes.pcf_apply_workgroup_tiling:PcfApplyWorkgroupTilingPass",
    "pcf-wrap-workgroup-body": "layoutkit.passes.pcf_wrap_workgroup_body:PcfWrapWorkgroupBodyPass",
    "pcf-form-run-cluster-flow": "layoutkit.passes.pcf_form_run_cluster_flow:PcfFormRunClusterFlowPass",
    "pcf-introduce-shared-memory-copies": "layoutkit.passes.pcf_introduce_shared_memory_copies:PcfIntroduceSharedMemoryCopiesPass",
    "pcf-distribute-run-cluster-to-subgroups": "layoutkit.passes.pcf_distribute_to_subgroups:PcfDistributeRunClusterToSubgroupsPass",
    "pcf-distribute-run-cluster-to-lanes": "layoutkit.passes.pcf_distribute_to_lanes:PcfDistributeRunClusterToLanesPass",
    "pcf-vectorize-lane-code": "layoutkit.passes.pcf_vectorize_lane_code:PcfVectorizeLaneCodePass",
    "tritongpu-remove-layout-conversions":
        "layoutkit.triton.remove_layout_conversions:TritonGPURemoveLayoutConversionsPass",
    "pcf-distribute-run-clusters": "layoutkit.passes.pcf_distribute_run_clusters:PcfDistributeRunClustersPass",
}


#: what a pass does, for passes whose class has no docstring (xDSL's)
_SUMMARIES = {
    "cse": "Merge ops that compute the same value from the same operands (pure ops only).",
    "dce": "Erase ops whose results are unused and that have no side effects.",
}


def pass_summary(name: str) -> str:
    """One line saying what the pass ``name`` does (its docstring's first line)."""
    lines = [line.strip() for line in (pass_class(name).__doc__ or "").splitlines()]
    return next((line for line in lines if line), _SUMMARIES.get(name, ""))


def pass_options(name: str) -> list[tuple[str, str, str | None]]:
    """``(option, type, default)`` of each option of the pass ``name``, as its flag spells
    them: ``('max-iterations', 'int', '10')``; the default is None for a required option."""
    import dataclasses
    import typing

    from xdsl.utils.hints import type_repr

    cls = pass_class(name)
    hints = typing.get_type_hints(cls)
    return [(field.name.replace("_", "-"), type_repr(hints[field.name]),
             None if field.default is dataclasses.MISSING else str(field.default).lower())
            for field in dataclasses.fields(cls)]


def pass_class(name: str) -> type:
    """The ModulePass class registered as ``name``, or a LayoutError listing the passes."""
    from xdsl.passes import ModulePass

    target = PASSES.get(name)
    if target is None:
        raise LayoutError(f"pass: no pass named {quote(name)} (passes: {', '.join(sorted(PASSES))})")
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(cls, type) and issubclass(cls, ModulePass)) or cls.name != name:
        raise TypeError(f"PASSES[{name!r}] = {target!r} is not a ModulePass named {name!r}")
    return cls


def available_passes() -> dict[str, Callable[[], type]]:
    """Every registered pass as xDSL's ``xdsl.passes.PassPipeline.parse_spec`` takes them:
    name -> a function loading its class."""
    return {name: (lambda name=name: pass_class(name)) for name in PASSES}


__all__ = ["PASSES", "available_passes", "pass_class", "pass_options", "pass_summary"]
