"""Every kernel of the golden manifest (tests/triton/frontend/goldens/manifest.json) on every
full pipeline (Triton 3.9's sm_80, sm_90 and gfx942) runs on the TTGIR executor and equals
numpy. The numpy references are the per-kernel checks of the sibling modules, called here
with the target; a manifest kernel without a check here fails `test_every_manifest_kernel_has_a_check`."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
MANIFEST = HERE.parent / "frontend" / "goldens" / "manifest.json"
TARGETS = ("cuda-80", "cuda-90", "hip-gfx942")


def _sibling(name: str):
    """The sibling test module `name` (pytest runs with --import-mode=importlib: no sys.path)."""
    spec = importlib.util.spec_from_file_location(f"_every_golden_{name}", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


g, d = _sibling("test_ttgir_goldens"), _sibling("test_ttgir_dot")


# kernel -> check(target, rng): sizes with masked tails where the kernel masks
CHECKS = {
    "vector_add": lambda t, rng: g.test_vector_add(t, 3000, rng),
    "softmax_rows": g.test_softmax_rows_masked_tail,
    "layer_norm_fwd": g.test_layer_norm_masked_tail,
    "matmul_64x64x32": lambda t, rng: d.test_golden_matmul_equals_numpy("matmul_64x64x32", 80, 112, 48, t, rng),
    "matmul_128x128x64": lambda t, rng: d.test_golden_matmul_equals_numpy("matmul_128x128x64", 144, 208, 80,
                                                                          t, rng),
    "attention_fwd": d.test_golden_attention,
    "reduce_sum_axis0": lambda t, rng: g.test_reduce_sum(t, 0, rng),
    "reduce_sum_axis1": lambda t, rng: g.test_reduce_sum(t, 1, rng),
    "argmax_rows": g.test_argmax_rows_first_index_on_ties,
    "cumsum_rows": g.test_cumsum_rows,
    "outer3_reduce": g.test_outer3_reduce,
    "transpose_permute": g.test_transpose_permute,
    "join_split_cat": g.test_join_split_cat,
    "reshape_tile": g.test_reshape_tile,
    "atomic_accumulate": g.test_atomic_accumulate_masked_tail,
    "elementwise_mix": g.test_elementwise_mix_masked_tail,
    "histogram_bins": g.test_histogram_bins_wraps_like_the_gpu,
    "gather_rows": g.test_gather_rows_by_warp_shuffles,
    "branch_and_while": lambda t, rng: [g.test_branch_and_while(t, n, rng) for n in (1, -1)],
    "dot_tf32_epilogue": d.test_golden_dot_tf32_epilogue,
    "transpose_tile": g.test_transpose_tile,
    "replicated_chain": g.test_replicated_chain,
}

KERNELS = sorted(json.loads(MANIFEST.read_text())["kernels"])


def test_every_manifest_kernel_has_a_check():
    assert sorted(CHECKS) == KERNELS


def test_every_manifest_kernel_has_every_full_pipeline():
    for kernel in KERNELS:
        for target in TARGETS:
            assert (MANIFEST.parent / kernel / f"full.{target}.ttgir").is_file(), (kernel, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel", KERNELS)
def test_golden_runs_and_equals_numpy(kernel, target):
    CHECKS[kernel](target, np.random.default_rng(2026))
