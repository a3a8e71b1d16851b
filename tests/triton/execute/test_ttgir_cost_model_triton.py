"""``--triton-gpu-pipeline="target=cuda:80 num-warps=4 cost-model=triton"`` (convert-triton-to-tritongpu,
then Triton 3.9's layout passes as layoutkit implements them) on every golden kernel's TTIR: the
result verifies, runs on the TTGIR executor and equals numpy -- the same numpy checks as the
Triton goldens (``test_ttgir_every_golden.CHECKS``), given our pipeline's output instead."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from layoutkit.ir import make_context, parse_module
from layoutkit.passes import pass_class

HERE = Path(__file__).parent
GOLDENS = HERE.parent / "frontend" / "goldens"
PIPELINE = "target=cuda:80 num-warps=4 cost-model=triton"


def _sibling(name: str):
    spec = importlib.util.spec_from_file_location(f"_cost_model_triton_{name}", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


EVERY = _sibling("test_ttgir_every_golden")


@functools.cache
def pipeline_text(kernel: str) -> str:
    module = parse_module((GOLDENS / kernel / "kernel.ttir").read_text())
    pass_class("triton-gpu-pipeline")(target="cuda:80", num_warps=4, cost_model="triton").apply(make_context(), module)
    module.verify()
    return str(module)


def ours(kernel: str, target: str):
    assert target == "cuda-80"
    return parse_module(pipeline_text(kernel))


def _gather_rows(target, rng):
    """gather_rows' numbers only: the golden check also counts the shuffles of the
    ``efficient_layout`` Triton's optimize-thread-locality gives the gather (not a pass here)."""
    from layoutkit.backends.simt.machine import Stats
    from layoutkit.backends.simt.ttgir import run_triton

    src = rng.standard_normal((32, 32)).astype(np.float32)
    idx = rng.integers(0, 32, (32, 32)).astype(np.int32)
    out = np.zeros_like(src)
    run_triton(ours("gather_rows", target), "gather_rows", 1, [src, idx, out], Stats())
    np.testing.assert_array_equal(out, np.take_along_axis(src, idx, axis=1))


CHECKS = {**EVERY.CHECKS, "gather_rows": _gather_rows}


@pytest.mark.parametrize("kernel", EVERY.KERNELS)
def test_cost_model_triton_runs_and_equals_numpy(kernel, monkeypatch):
    monkeypatch.setattr(EVERY.g, "module", ours)
    monkeypatch.setattr(EVERY.d, "golden", ours)
    CHECKS[kernel]("cuda-80", np.random.default_rng(2026))


def test_cost_model_triton_leaves_no_convert_on_elementwise_kernels():
    for kernel in ("vector_add", "elementwise_mix", "softmax_rows", "layer_norm_fwd"):
        assert "ttg.convert_layout" not in pipeline_text(kernel), kernel
