"""cost-model=exact: the solver against brute force; the pipeline's results verify, run equal
to numpy, and are never costlier than Triton 3.9's golden by ``layoutkit analyze``'s measure
(strictly cheaper on the transpose of triton issue 7815 and the replicated chain of 10987)."""

from __future__ import annotations

import functools
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


@functools.cache
def _exact_text(kernel: str) -> str:
    module = parse_module((GOLDENS / kernel / "kernel.ttir").read_text())
    pass_class("triton-gpu-pipeline")(target="cuda:80", num_warps=4).apply(make_context(), module)
    module.verify()
    return str(module)


def exact(kernel: str):
    """The kernel through --triton-gpu-pipeline (cost-model=exact), verified, printed and
    parsed back (what layoutkit prints, layoutkit reads)."""
    return parse_module(_exact_text(kernel))


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
                                    "layer_norm_fwd", "cumsum_rows", "outer3_reduce", "matmul_64x64x32",
                                    "attention_fwd"])
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


def test_cost_model_triton_runs_with_its_passes_registered(capsys):
    """Every pass of Triton's layout-pass list is registered: the pipeline runs (it once stopped
    with one error line naming the missing passes)."""
    code = main(["opt", str(GOLDENS / "vector_add" / "kernel.ttir"),
                 "--triton-gpu-pipeline=target=cuda:80 cost-model=triton"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "#ttg.blocked" in captured.out and "ttg.convert_layout" not in captured.out


def test_unknown_cost_model_is_an_error(capsys):
    code = main(["opt", str(GOLDENS / "vector_add" / "kernel.ttir"),
                 "--triton-gpu-pipeline=target=cuda:80 cost-model=fast"])
    assert code == 2 and "cost-model: expected exact or triton, got 'fast'" in capsys.readouterr().err


def test_opt_explain_flag_sets_the_pipeline_option(capsys):
    code = main(["opt", str(GOLDENS / "replicated_chain" / "kernel.ttir"), "--explain",
                 "--triton-gpu-pipeline=target=cuda:80 num-warps=4 cost-model=exact"])
    assert code == 0
    assert "// exact layouts @replicated_chain:" in capsys.readouterr().err


def test_cumsum_scan_takes_the_coalesced_layout_and_runs_equal_to_numpy():
    module = exact("cumsum_rows")
    totals = analyze(module).totals["cumsum_rows"]
    golden = analyze(parse_module((GOLDENS / "cumsum_rows" / "full.cuda-80.ttgir").read_text())).totals["cumsum_rows"]
    assert totals["global_memory"]["instructions"] <= golden["global_memory"]["instructions"]
    x = np.random.default_rng(4).integers(-9, 9, (32, 128)).astype(np.float32)
    out = np.zeros_like(x)
    layoutkit.simulate(module, "cumsum_rows", grid=4, args=[x, out])
    np.testing.assert_array_equal(out, np.cumsum(x, axis=1))


@pytest.mark.parametrize("kernel", ["softmax_rows", "reduce_sum_axis1", "transpose_tile", "replicated_chain"])
def test_no_more_converts_than_triton(kernel):
    """Equal maps under different names are offered on both sides of a use, so no no-op
    convert is left where one name serves both."""
    def count(module):
        return sum(t["convert_layout"]["count"] for t in analyze(module).totals.values())
    assert count(exact(kernel)) <= count(parse_module((GOLDENS / kernel / "full.cuda-80.ttgir").read_text()))


def test_matmul_with_mma_runs_equal_to_numpy():
    rng = np.random.default_rng(5)
    m, n, k = 80, 112, 48  # tails in M, N and K
    a, b = rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), 5, np.float16)
    module = exact("matmul_64x64x32")
    assert "#ttg.nvidia_mma" in str(module)
    layoutkit.simulate(module, "matmul", grid=4, args=[a, b, c, m, n, k, k, n, n])
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), expected.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_attention_runs_equal_to_numpy():
    rng = np.random.default_rng(6)
    seq, head, scale = 100, 64, 0.125
    q, k, v = (rng.standard_normal((seq, head)).astype(np.float16) for _ in range(3))
    out = np.zeros((seq, head), np.float16)
    layoutkit.simulate(exact("attention_fwd"), "attention_fwd", grid=2, args=[q, k, v, out, seq, head, scale])
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    expected = (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(out.astype(np.float32), expected, rtol=1e-2, atol=3e-3)


def test_trans_and_permute_follow_their_operands_and_run_equal_to_numpy():
    rng = np.random.default_rng(7)
    tile = rng.standard_normal((64, 32)).astype(np.float16)
    cube = rng.standard_normal((4, 8, 16)).astype(np.float32)
    tile_out, cube_out = np.zeros((32, 64), np.float16), np.zeros((16, 4, 8), np.float32)
    module = exact("transpose_permute")
    assert measure(module) <= triton("transpose_permute")
    layoutkit.simulate(module, "transpose_permute", grid=1, args=[tile, tile_out, cube, cube_out])
    np.testing.assert_array_equal(tile_out, tile.T)
    np.testing.assert_array_equal(cube_out, cube.transpose(2, 0, 1))


def test_permute_blocked_is_tritons_trans_rule_and_inverts():
    from layoutkit.layouts.parse import parse_layout
    from layoutkit.triton.exact_layouts import permute_blocked

    row = parse_layout("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>")
    col = permute_blocked(row, (1, 0))
    assert str(col) == ("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
                        "order = [0, 1]}>")
    # as functions: element (i, j) of the operand is element (j, i) of the result, same owner
    shape = (64, 32)
    np.testing.assert_array_equal(row.table(shape), col.table(shape[::-1])[..., ::-1])
    assert permute_blocked(col, (1, 0)) == row


@pytest.mark.parametrize("kernel", ["vector_add", "cumsum_rows", "transpose_tile"])
def test_index_math_copies_merge_back(kernel):
    """Index math is copied per use to choose layouts, then equal copies merge: no more
    arith/tt ops than Triton's own result where both pick one layout per value."""
    def ops(module):
        return sorted(op.name for op in module.walk() if op.dialect_name() in ("arith", "tt")
                      and op.name not in ("tt.func", "tt.return"))
    golden = parse_module((GOLDENS / kernel / "full.cuda-80.ttgir").read_text())
    assert len(ops(exact(kernel))) <= len(ops(golden))


def test_without_highspy_a_cyclic_problem_falls_back_to_descent(monkeypatch):
    import layoutkit.convert.assignment as assignment

    monkeypatch.setattr(assignment, "_has_highspy", lambda: False)
    for seed in range(10):
        problem = _random_problem(np.random.default_rng(200 + seed))
        found = assignment.solve(problem)
        best = solve_brute_force(problem).cost
        assert found.method in ("tree", "descent")
        assert found.cost == pytest.approx(problem.cost(found.choice)) and found.cost >= best - 1e-9
        if found.method == "tree":
            assert found.cost == pytest.approx(best)


def test_ilp_without_highspy_names_the_extra(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_highspy(name, *args, **kwargs):
        if name == "highspy":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_highspy)
    with pytest.raises(LayoutError, match=r"pip install 'layoutkit\[solver\]'"):
        solve_ilp(_random_problem(np.random.default_rng(1)))


def test_price_caches_stay_bounded(monkeypatch):
    """A full price cache starts over, and a conversion's shared route is forgotten with its cost."""
    from layoutkit.triton import exact_layouts as ex

    monkeypatch.setattr(ex, "CACHE_LIMIT", 3)
    costs, routes = {1: 1.0, 2: 2.0, 3: 3.0}, {"r": True}
    ex._room(costs, routes)
    assert costs == {} and routes == {}
    costs = {1: 1.0, 2: 2.0}
    ex._room(costs, routes := {"r": True})
    assert costs == {1: 1.0, 2: 2.0} and routes == {"r": True}
