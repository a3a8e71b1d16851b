"""``tritonamdgpu-optimize-epilogue`` against Triton 3.9's own output of the optimize-epilogue step
of every hip:gfx942 run of ``goldens/manifest.json`` (compared as the other layout passes are)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from layoutkit.ir import make_context, parse_module
from layoutkit.passes import pass_class

sys.path.insert(0, str(Path(__file__).parent))
from test_layout_passes import compare  # noqa: E402

GOLDENS = Path(__file__).parent / "goldens"
MANIFEST = json.loads((GOLDENS / "manifest.json").read_text())
PASS = "tritonamdgpu-optimize-epilogue"
STEPS = [dict(step, kernel=run["kernel"]) for run in MANIFEST["runs"] for step in run["steps"]
         if step["pass"] == "optimize-epilogue"]


@pytest.mark.parametrize("step", STEPS, ids=[s["kernel"] for s in STEPS])
def test_optimize_epilogue_equals_triton(step):
    module = parse_module((GOLDENS / step["input"]).read_text())
    pass_class(PASS)().apply(make_context(), module)
    module.verify()
    compare(module, parse_module((GOLDENS / step["output"]).read_text()))


def test_every_hip_run_has_the_step_and_the_dot_kernels_change():
    assert len(STEPS) == len(MANIFEST["kernels"])
    changed = {s["kernel"] for s in STEPS if s["changed"]}
    assert changed == {"matmul_64x64x32", "matmul_128x128x64", "attention_fwd", "dot_tf32_epilogue"}


def test_hip_pipeline_follows_the_manifest_order():
    """cost-model=triton on hip runs Triton's AMD order of the passes layoutkit has."""
    from layoutkit.triton.gpu_pipeline import TRITON_HIP_LAYOUT_PASSES

    mine = {name.split("-", 1)[1] for name in TRITON_HIP_LAYOUT_PASSES}
    for run in MANIFEST["runs"]:
        if run["target"].startswith("hip"):
            order = tuple(s["pass"] for s in run["steps"] if s["pass"] in mine and s["pass"] != "optimize-dot-operands")
            assert order == tuple(name.split("-", 1)[1] for name in TRITON_HIP_LAYOUT_PASSES), run["kernel"]


CHAIN = """#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 1], order = [0, 1]}>
#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32, 8], isTransposed = false}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @chain(%arg0: !tt.ptr<f16>, %arg1: tensor<32x32xf32, #mma>) {
    %0 = ttg.convert_layout %arg1 : tensor<32x32xf32, #mma> -> tensor<32x32xf32, #blocked>
    %1 = math.exp %0 : tensor<32x32xf32, #blocked>
    %2 = arith.truncf %1 : tensor<32x32xf32, #blocked> to tensor<32x32xf16, #blocked>
    %3 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>, #blocked>
    tt.store %3, %2 : tensor<32x32x!tt.ptr<f16>, #blocked>
    tt.return
  }
}"""


def test_a_chain_of_one_operand_ops_takes_the_mma_layout():
    """Two element-wise ops between the convert and the store: both in #mma, in order, the
    value convert gone, the pointer converted."""
    module = parse_module(CHAIN)
    pass_class(PASS)().apply(make_context(), module)
    module.verify()
    ops = [op for op in module.walk() if op.name not in ("builtin.module", "tt.func", "tt.return")]
    assert [op.name for op in ops] == ["math.exp", "arith.truncf", "tt.splat", "ttg.convert_layout", "tt.store"]
    exp, trunc, _, cvt, store = ops
    func = next(op for op in module.walk() if op.name == "tt.func")
    assert exp.operands[0] is func.regions[0].blocks.first.args[1]  # the mma value itself
    for value in (exp.results[0], trunc.results[0], cvt.results[0], store.operands[0]):
        assert "amd_mfma" in str(value.type)
    assert store.operands[1] is trunc.results[0] and trunc.operands[0] is exp.results[0]


def test_a_value_used_twice_is_left_alone():
    module = parse_module(CHAIN.replace("tt.store %3, %2", "tt.store %3, %2 : tensor<32x32x!tt.ptr<f16>, #blocked>\n"
                                        "    %4 = arith.negf %1 : tensor<32x32xf32, #blocked>\n    tt.store %3, %2"))
    before = str(module)
    pass_class(PASS)().apply(make_context(), module)
    assert str(module) == before
