"""``layoutkit compare-pipelines``: every figure of both sides equals what ``layoutkit analyze
--json`` says of that side's output, recomputed here from the analyze report of the module made
separately (``layoutkit opt`` for a pipeline, the committed Triton golden for the fallback);
element-wise work from the layouts' hardware sizes; both results run equal to numpy; every user
error is one ``error:`` line and exit status 2."""

from __future__ import annotations

import json
from math import prod
from pathlib import Path

import pytest

from layoutkit.cli import main
from layoutkit.ir import parse_module

HERE = Path(__file__).parent
FRONTEND = HERE.parents[0] / "frontend" / "goldens"
LAYOUT_PASSES = HERE.parents[0] / "layout_passes" / "goldens"
REPO = HERE.parents[2]


def _run(capsys, args):
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _side_module_text(capsys, tmp_path, kernel: str, side: dict, cost_model: str) -> str:
    """The side's output made independently of compare-pipelines."""
    if side["how"].startswith("Triton 3.9's own output"):
        runs = json.loads((LAYOUT_PASSES / "manifest.json").read_text())["runs"]
        (run,) = [r for r in runs if r["kernel"] == kernel and r["target"] == "cuda:80"]
        path = LAYOUT_PASSES / run["steps"][-1]["output"]
        assert str(path.relative_to(REPO)) in side["how"]
        return path.read_text()
    assert side["how"].startswith(f"cost-model={cost_model}")
    out = tmp_path / f"{kernel}.{cost_model}.ttgir"
    status, _, err = _run(capsys, ["opt", str(FRONTEND / kernel / "kernel.ttir"), "-o", str(out),
                                   f"--triton-gpu-pipeline=target=cuda:80 num-warps=4 cost-model={cost_model}"])
    assert status == 0, err
    return out.read_text()


def _expected(capsys, tmp_path, text: str) -> dict:
    """The side's figures from ``layoutkit analyze --json`` of ``text``."""
    path = tmp_path / "side.ttgir"
    path.write_text(text)
    status, out, err = _run(capsys, ["analyze", str(path), "--json"])
    assert status == 0, err
    report = json.loads(out)
    (totals,) = report["totals"].values()
    cv, sm, gm = totals["convert_layout"], totals["shared_memory"], totals["global_memory"]
    rows = [r for r in report["rows"] if r["kind"] == "global_memory"]
    return {"converts": cv["count"],
            "conversion_cost": cv["instructions"] + cv["shared_wavefronts"] + sm["instructions"] + sm["wavefronts"],
            "instructions": cv["instructions"] + sm["instructions"],
            "wavefronts": cv["shared_wavefronts"] + sm["wavefronts"],
            "shared_bytes": cv["shared_bytes"] + sm["bytes"], "barriers": cv["barriers"],
            "global_instructions": gm["instructions"],
            "load_vectors": [r["cost"]["vector"] for r in rows if r["op"] == "tt.load"],
            "store_vectors": [r["cost"]["vector"] for r in rows if r["op"] == "tt.store"]}


def _elementwise(text: str) -> tuple[int, int]:
    """Slots of (register, lane, warp) of every arith/math tensor result, and those beyond one
    per element, from each layout's linear-layout input sizes."""
    from xdsl.dialects.builtin import TensorType

    work = extra = 0
    for op in parse_module(text).walk():
        if op.dialect_name() in ("arith", "math") and op.results and isinstance(op.results[0].type, TensorType):
            t = op.results[0].type
            shape = tuple(t.get_shape())
            linear = t.encoding.layout.to_linear_layout(shape)
            slots = prod(1 << len(linear.bases.get(d, [])) for d in ("register", "lane", "warp"))
            work += slots
            extra += max(slots - prod(shape), 0)
    return work, extra


@pytest.mark.parametrize("kernel", ["transpose_tile", "replicated_chain", "matmul_64x64x32"])
def test_figures_equal_analyze_totals_and_both_run_equal_to_numpy(capsys, tmp_path, kernel):
    status, out, err = _run(capsys, ["compare-pipelines", str(FRONTEND / kernel / "kernel.ttir"),
                                     "--target", "cuda:80", "--json"])
    assert status == 0, err
    data = json.loads(out)
    assert data["golden_kernel"] == kernel and data["target"] == "cuda:80" and data["num_warps"] == 4
    for name, cost_model in (("triton", "triton"), ("exact", "exact")):
        side = data["sides"][name]
        text = _side_module_text(capsys, tmp_path, kernel, side, cost_model)
        for key, value in _expected(capsys, tmp_path, text).items():
            assert side[key] == value, (name, key)
        assert (side["elementwise"], side["replicated_elementwise"]) == _elementwise(text), name
        assert side["ran"] == "equal", name
    if kernel == "matmul_64x64x32":  # Triton's side keeps shared-memory ops (local_alloc + local_load)
        assert data["sides"]["triton"]["shared_memory"]["count"] > 0
        return
    # the two weak cases of issue 13 (7815's transpose, 10987's replicated chain)
    assert data["sides"]["exact"]["conversion_cost"] < data["sides"]["triton"]["conversion_cost"]


def test_text_table_names_both_sides_and_how(capsys):
    status, out, err = _run(capsys, ["compare-pipelines", str(FRONTEND / "vector_add" / "kernel.ttir"),
                                     "--target", "cuda:80"])
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].endswith("vector_add/kernel.ttir (target cuda:80, 4 warps)")
    assert lines[1].startswith("  triton: ") and lines[2] == "  exact: cost-model=exact"
    assert lines[3].split() == ["triton", "exact"]
    assert lines[-1].split() == ["ran", "equal", "equal"]
    # the mask offsets < n: n has no tt.divisibility, so its constancy is 1 and no access is wider
    assert lines[-2].split() == ["store", "vectors", "1", "1"]
    assert lines[-3].split() == ["load", "vectors", "1,1", "1,1"]


def _ttir_not_golden(tmp_path) -> Path:
    text = (FRONTEND / "vector_add" / "kernel.ttir").read_text().replace("arith.addf", "arith.mulf")
    assert "arith.mulf" in text
    path = tmp_path / "mul.ttir"
    path.write_text(text)
    return path


def test_a_kernel_that_is_not_golden(capsys, tmp_path):
    status, out, err = _run(capsys, ["compare-pipelines", str(_ttir_not_golden(tmp_path)), "--target", "cuda:80"])
    assert status == 0, err
    assert out.splitlines()[-1].split() == ["ran", "no", "reference", "no", "reference"]


@pytest.mark.parametrize("args, message", [
    (["--target", "cuda:80", "--num-warps", "3"], "error: --num-warps: expected a power of two, got '3'"),
    (["--target", "cuda:80", "--num-warps", "x"], "error: --num-warps: expected a whole number from 1 to 32, got 'x'"),
    (["--target", "cuda:80", "--seed", "-1"], "error: --seed: expected a whole number from 0 to 4294967295, got '-1'"),
    (["--target", "nv:80"], "error: target: unknown target 'nv:80'"),
])
def test_bad_options_are_one_error_line(capsys, args, message):
    status, out, err = _run(capsys, ["compare-pipelines", str(FRONTEND / "vector_add" / "kernel.ttir"), *args])
    assert status == 2 and out == "" and err.count("\n") == 1 and err.startswith(message), err


def test_bad_files_are_one_error_line(capsys, tmp_path):
    ttgir = FRONTEND / "vector_add" / "full.cuda-80.ttgir"
    status, _, err = _run(capsys, ["compare-pipelines", str(ttgir), "--target", "cuda:80"])
    assert status == 2 and err == f"error: FILE: '{ttgir}' is TTGIR already (it has ttg.num-warps); expected TTIR\n"
    status, _, err = _run(capsys, ["compare-pipelines", str(tmp_path / "none.ttir"), "--target", "cuda:80"])
    assert status == 2 and err.startswith("error: FILE: cannot read") and err.count("\n") == 1
    empty = tmp_path / "empty.ttir"
    empty.write_text("module {\n}\n")
    status, _, err = _run(capsys, ["compare-pipelines", str(empty), "--target", "cuda:80"])
    assert status == 2 and err == f"error: FILE: '{empty}' has no tt.func (expected TTIR as Triton prints it)\n"
    bad = tmp_path / "bad.ttir"
    bad.write_text("module {\n  tt.func @f( {\n}\n")
    status, _, err = _run(capsys, ["compare-pipelines", str(bad), "--target", "cuda:80"])
    assert status == 2 and err.startswith(f"{bad}:") and ": error: " in err and err.count("\n") == 1
    status, _, err = _run(capsys, ["compare-pipelines", str(FRONTEND / "vector_add" / "kernel.ttir")])
    assert status == 2 and "--target" in err


def test_a_result_that_differs_from_numpy_exits_1(capsys, monkeypatch):
    """The verdict is the check's: a check that finds a difference makes the status 1."""
    from layoutkit.backends.simt import golden_checks

    monkeypatch.setitem(golden_checks.CHECKS, "vector_add", lambda run, rng: False)
    status, out, _ = _run(capsys, ["compare-pipelines", str(FRONTEND / "vector_add" / "kernel.ttir"),
                                   "--target", "cuda:80"])
    assert status == 1 and out.splitlines()[-1].split() == ["ran", "differs", "differs"]


def test_the_numpy_check_catches_a_wrong_kernel():
    """A check fails when the kernel computes something else: vector_add's module with its add
    turned into a multiply, through the same pipeline, differs from numpy's x + y."""
    from layoutkit.backends.simt.golden_checks import check_with_numpy
    from layoutkit.ir import make_context
    from layoutkit.passes import pass_class

    text = (FRONTEND / "vector_add" / "kernel.ttir").read_text()
    for body, verdict in ((text, "equal"), (text.replace("arith.addf", "arith.mulf"), "differs")):
        module = parse_module(body)
        pass_class("triton-gpu-pipeline")(target="cuda:80", num_warps=4).apply(make_context(), module)
        assert check_with_numpy("vector_add", module) == verdict


def test_every_golden_kernel_has_a_numpy_check():
    from layoutkit.backends.simt.golden_checks import CHECKS

    assert set(CHECKS) == set(json.loads((FRONTEND / "manifest.json").read_text())["kernels"])


@pytest.mark.parametrize("kernel", sorted(json.loads((FRONTEND / "manifest.json").read_text())["kernels"]))
def test_numpy_checks_pass_on_tritons_own_layout_pass_output(kernel):
    """The references agree with what Triton 3.9's layout passes made of each golden (cuda:90:
    mma v3 matmuls and attention included)."""
    from layoutkit.backends.simt.golden_checks import check_with_numpy
    from layoutkit.triton.compare import triton_golden_output

    path = triton_golden_output(kernel, "cuda:90", 4)
    assert check_with_numpy(kernel, parse_module(path.read_text()), seed=5) == "equal"
