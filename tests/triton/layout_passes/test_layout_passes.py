"""Triton 3.9's layout passes, one at a time, against Triton's own output of each.

For every step of ``goldens/manifest.json`` (made by ``scripts/generate_triton_layout_goldens.py``
with Triton 3.9: kernel x target x pass) whose pass layoutkit has, our pass runs on Triton's
input of that step and the result is compared with Triton's output the way the front-end
goldens are compared: op names in pre-order, operand wiring, every type, and every encoding
both as parameters and as a function on the tensor's shape.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from layoutkit.ir import make_context, parse_module
from layoutkit.passes import pass_class

sys.path.insert(0, str(Path(__file__).parents[1] / "frontend"))
from test_convert_pass import check_type, describe  # noqa: E402

GOLDENS = Path(__file__).parent / "goldens"
MANIFEST = json.loads((GOLDENS / "manifest.json").read_text())
#: Triton's step name -> our pass
OURS = {"coalesce": "tritongpu-coalesce", "accelerate-matmul": "tritongpu-accelerate-matmul",
        "reduce-data-duplication": "tritongpu-reduce-data-duplication",
        "optimize-dot-operands": "tritongpu-optimize-dot-operands"}
ALL_STEPS = [dict(step, kernel=run["kernel"], target=run["target"]) for run in MANIFEST["runs"]
             for step in run["steps"] if step["pass"] in OURS]


def _v3(step) -> bool:
    """Triton chose mma v3 (``ttng.warp_group_dot``): compared by ``test_mma_v3_equals_triton``."""
    return "ttng.warp_group_dot" in (GOLDENS / step["output"]).read_text()


STEPS = [s for s in ALL_STEPS if not (s["pass"] == "accelerate-matmul" and _v3(s))]
V3 = [s for s in ALL_STEPS if s["pass"] == "accelerate-matmul" and s["target"].startswith("cuda") and _v3(s)]


def compare(ours, theirs) -> None:
    our_ops, our_types = describe(ours)
    their_ops, their_types = describe(theirs)
    assert [o[0] for o in our_ops] == [o[0] for o in their_ops], "op sequences differ"
    assert our_ops == their_ops, "operands are wired differently"
    for (number, name, kind, index, mine), (*_, triton) in zip(our_types, their_types, strict=True):
        check_type(mine, triton, f"op {number} ({name}) {kind} {index}")
    assert dict(ours.attributes) == dict(theirs.attributes)


@pytest.mark.parametrize("step", STEPS, ids=[f"{s['kernel']}-{s['target']}-{s['step']:02d}-{s['pass']}" for s in STEPS])
def test_pass_equals_triton(step):
    module = parse_module((GOLDENS / step["input"]).read_text())
    pass_class(OURS[step["pass"]])().apply(make_context(), module)
    module.verify()
    compare(module, parse_module((GOLDENS / step["output"]).read_text()))


def test_every_kernel_and_target_has_goldens():
    assert not MANIFEST["failures"]
    assert {(r["kernel"], r["target"]) for r in MANIFEST["runs"]} == \
        {(k, t) for k in MANIFEST["kernels"] for t in ("cuda:80", "cuda:90", "hip:gfx942")}
    assert len([s for s in STEPS if s["pass"] == "coalesce"]) == 3 * len(MANIFEST["kernels"])
    assert len([s for s in STEPS if s["pass"] == "accelerate-matmul"]) == 3 * len(MANIFEST["kernels"]) - len(V3)


@pytest.mark.parametrize("step", V3, ids=[f"{s['kernel']}-{s['target']}" for s in V3])
def test_mma_v3_equals_triton(step):
    """The cuda:90 steps where Triton chose mma v3: ttng.warp_group_dot, nvmma_shared operands."""
    module = parse_module((GOLDENS / step["input"]).read_text())
    pass_class("tritongpu-accelerate-matmul")().apply(make_context(), module)
    module.verify()
    compare(module, parse_module((GOLDENS / step["output"]).read_text()))


def test_mma_v3_steps_are_the_three_triton_made():
    assert sorted(s["kernel"] for s in V3) == ["attention_fwd", "matmul_128x128x64", "matmul_64x64x32"]


def test_accelerate_matmul_changes_the_dots_triton_changes():
    changed = {(s["kernel"], s["target"]) for s in STEPS if s["pass"] == "accelerate-matmul" and s["changed"]}
    assert ("matmul_64x64x32", "cuda:80") in changed and ("attention_fwd", "cuda:80") in changed
    assert ("attention_fwd", "hip:gfx942") in changed and ("dot_tf32_epilogue", "hip:gfx942") in changed


@pytest.mark.parametrize("name", sorted(set(OURS.values())))
def test_ttir_input_is_one_error_line(capsys, name):
    from layoutkit.cli import main

    kernel = str(Path(__file__).parents[1] / "frontend" / "goldens" / "matmul_64x64x32" / "kernel.ttir")
    status = main(["opt", kernel, f"--{name}"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert f"{name}: the module has no 'ttg.num-warps' attribute" in err, err


def test_triton_layout_passes_follow_the_manifest_order():
    from layoutkit.triton.gpu_pipeline import TRITON_LAYOUT_PASSES

    mine = {name.removeprefix("tritongpu-") for name in TRITON_LAYOUT_PASSES}
    for run in MANIFEST["runs"]:
        if run["target"].startswith("cuda"):
            order = tuple(f"tritongpu-{s['pass']}" for s in run["steps"] if s["pass"] in mine)
            assert order == TRITON_LAYOUT_PASSES, run["kernel"]


def test_reduce_data_duplication_runs_on_every_golden_and_rewrites_what_triton_rewrites():
    steps = [s for s in STEPS if s["pass"] == "reduce-data-duplication"]
    assert len(steps) == 3 * len(MANIFEST["kernels"])
    changed = {(s["kernel"], s["target"]) for s in steps if s["changed"]}
    assert ("attention_fwd", "hip:gfx942") in changed and ("dot_tf32_epilogue", "cuda:90") in changed
    for s in steps:
        text = (GOLDENS / s["output"]).read_text()
        assert ("ttg.local_alloc" in text) == (s["changed"] or "ttg.local_alloc" in (GOLDENS / s["input"]).read_text())
