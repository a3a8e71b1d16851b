"""cost-model=exact: the solver against brute force; the pipeline's results verify, run equal
to numpy, and are never costlier than Triton 3.9's golden by ``layoutkit analyze``'s measure
(strictly cheaper on the transpose of triton issue 7815 and the replicated chain of 10987)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.cli import main
from layoutkit.convert.assignment import (
    AssignmentProblem,
    solve,
    solve_brute_force,
    solve_ilp,
    solve_tree,
)
from layoutkit.ir import make_context, parse_module
from layoutkit.passes import pass_class
from layoutkit.triton import analyze

GOLDENS = Path(__file__).parents[1] / "frontend" / "goldens"


def _random_problem(rng, forest: bool = False) -> AssignmentProblem:
    n = int(rng.integers(2, 7))
    choices = tuple(int(k) for k in rng.integers(1, 4, n))
    unary = tuple(tuple(float(c) for c in rng.integers(0, 20, k)) for k in choices)
    pairs = []
    edges = [(int(v), int(rng.integers(0, v))) for v in range(1, n)] if forest else \
        [tuple(int(x) for x in rng.choice(n, 2, replace=False)) for _ in range(int(rng.integers(0, 10)))]
    for u, v in edges:
        pairs.append((u, v, tuple(tuple(float(c) for c in row) for row in rng.integers(0, 20, (choices[u], choices[v])))))
    return AssignmentProblem(choices, unary, tuple(pairs))


@pytest.mark.parametrize("seed", range(25))
def test_ilp_optimum_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    problem = _random_problem(rng)
    best = solve_brute_force(problem)
    found = solve_ilp(problem)
    assert found.cost == pytest.approx(best.cost)
    assert problem.cost(found.choice) == pytest.approx(found.cost)


@pytest.mark.parametrize("seed", range(15))
def test_tree_dp_equals_brute_force_on_trees(seed):
    problem = _random_problem(np.random.default_rng(100 + seed), forest=True)
    assert solve_tree(problem).cost == pytest.approx(solve_brute_force(problem).cost)
    assert solve(problem).method == "tree"


def test_tree_refuses_a_cycle_and_bad_shapes_are_errors():
    cycle = AssignmentProblem((2, 2, 2), ((0, 0),) * 3, tuple((u, v, ((0, 1), (1, 0))) for u, v in
                                                            ((0, 1), (1, 2), (2, 0))))
    with pytest.raises(LayoutError, match="cycle"):
        solve_tree(cycle)
    with pytest.raises(LayoutError, match="cost has shape"):
        AssignmentProblem((2, 2), ((0, 0), (0, 0)), ((0, 1, ((0, 1),)),))


def exact(kernel: str):
    module = parse_module((GOLDENS / kernel / "kernel.ttir").read_text())
    pass_class("triton-gpu-pipeline")(target="cuda:80", num_warps=4).apply(make_context(), module)
    module.verify()
    return module


def measure(module) -> float:
    total = 0
    for t in analyze(module).totals.values():
        cv, sm = t["convert_layout"], t["shared_memory"]
        total += cv["instructions"] + cv["shared_wavefronts"] + sm["instructions"] + sm["wavefronts"]
    return total


def triton(kernel: str) -> float:
    return measure(parse_module((GOLDENS / kernel / "full.cuda-80.ttgir").read_text()))


@pytest.mark.parametrize("kernel", ["transpose_tile", "replicated_chain"])
def test_strictly_cheaper_than_triton_on_the_weak_cases(kernel):
    assert measure(exact(kernel)) < triton(kernel)


@pytest.mark.parametrize("kernel", ["vector_add", "softmax_rows", "reduce_sum_axis0", "reduce_sum_axis1",
                                    "layer_norm_fwd", "cumsum_rows", "outer3_reduce"])
def test_never_costlier_than_triton(kernel):
    assert measure(exact(kernel)) <= triton(kernel)


def test_transpose_runs_equal_to_numpy():
    x = np.random.default_rng(1).standard_normal((64, 64)).astype(np.float16)
    out = np.zeros_like(x)
    layoutkit.simulate(exact("transpose_tile"), "transpose_tile", grid=1, args=[x, out])
    np.testing.assert_array_equal(out, x.T)


def test_replicated_chain_runs_equal_to_numpy():
    x = np.random.default_rng(2).standard_normal((64, 64)).astype(np.float32)
    out, rows = np.zeros_like(x), np.zeros(64, np.float32)
    layoutkit.simulate(exact("replicated_chain"), "replicated_chain", grid=1, args=[x, out, rows])
    scale = x.astype(np.float64).sum(axis=1) / 3 / 5 / 7 / 11
    np.testing.assert_allclose(rows, scale, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out, x / rows[:, None], rtol=1e-5)


def test_softmax_runs_equal_to_numpy():
    rng = np.random.default_rng(3)
    rows, cols = 8, 200
    x = rng.standard_normal((rows, cols)).astype(np.float16)
    out = np.zeros_like(x)
    layoutkit.simulate(exact("softmax_rows"), "softmax_rows", grid=2, args=[x, out, rows, cols, cols])
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out.astype(np.float32), e / e.sum(axis=1, keepdims=True), rtol=2e-3, atol=2e-3)


def test_explain_names_the_disagreeing_anchors(capsys):
    code = main(["opt", str(GOLDENS / "transpose_tile" / "kernel.ttir"),
                 "--triton-gpu-pipeline=target=cuda:80 num-warps=4 cost-model=exact explain=true"])
    assert code == 0
    captured = capsys.readouterr()
    assert "ttg.convert_layout" in captured.out
    assert "// exact layouts @transpose_tile" in captured.err
    assert "tt.load" in captured.err and "tt.store" in captured.err and "alternative" in captured.err


def test_cost_model_triton_without_its_passes_is_one_error_line(capsys):
    code = main(["opt", str(GOLDENS / "vector_add" / "kernel.ttir"),
                 "--triton-gpu-pipeline=target=cuda:80 cost-model=triton"])
    err = capsys.readouterr().err
    if "tritongpu-coalesce" in __import__("layoutkit.passes", fromlist=["PASSES"]).PASSES:
        pytest.skip("the cost-model=triton passes are registered")
    assert code == 2 and err.startswith("error: ") and "not registered yet" in err


def test_unknown_cost_model_is_an_error(capsys):
    code = main(["opt", str(GOLDENS / "vector_add" / "kernel.ttir"),
                 "--triton-gpu-pipeline=target=cuda:80 cost-model=fast"])
    assert code == 2 and "cost-model: expected exact or triton, got 'fast'" in capsys.readouterr().err


def test_opt_explain_flag_sets_the_pipeline_option(capsys):
    code = main(["opt", str(GOLDENS / "replicated_chain" / "kernel.ttir"), "--explain",
                 "--triton-gpu-pipeline=target=cuda:80 num-warps=4 cost-model=exact"])
    assert code == 0
    assert "// exact layouts @replicated_chain:" in capsys.readouterr().err
