"""``layoutkit.triton.simulate``: a ``@triton.jit`` kernel compiled by Triton on the CPU and run
with its layouts. The mapping of a launch's arguments onto the compiled ``tt.func``
(``run_compiled``) runs in CI on the committed goldens; the tests that compile with Triton
itself skip without it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from layoutkit import LayoutError
from layoutkit.backends.simt.triton_jit import run_compiled

ROOT = Path(__file__).parents[3]
GOLDENS = ROOT / "tests" / "triton" / "frontend" / "goldens"


def golden(kernel: str, target: str) -> str:
    return (GOLDENS / kernel / f"full.{target}.ttgir").read_text()


def matmul_bound(a, b, c, **constexprs) -> dict:
    """Every parameter of scripts/triton_kernels.py's matmul, as a launch binds them."""
    (m, k), n = a.shape, b.shape[1]
    return dict(a_ptr=a, b_ptr=b, c_ptr=c, M=m, N=n, K=k, stride_am=k, stride_ak=1, stride_bk=n, stride_bn=1,
                stride_cm=n, stride_cn=1, **constexprs)


@pytest.mark.parametrize("target", ["cuda-80", "cuda-90"])
def test_run_compiled_drops_constexprs_and_unit_strides(target):
    """vector_add as launched (BLOCK a constexpr) on the committed TTGIR: output = numpy."""
    n = 2900
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    result = run_compiled(golden("vector_add", target), "vector_add", (3,),
                          dict(x_ptr=x, y_ptr=y, out_ptr=out, n=n, BLOCK=1024))
    np.testing.assert_array_equal(out, x + y)
    assert result.report is not None and any(r["op"] == "tt.load" for r in result.report.rows)


@pytest.mark.parametrize("target, dot, per_step", [("cuda-80", "tt.dot", 2), ("cuda-90", "ttng.warp_group_dot", 1)])
def test_run_compiled_matmul_equals_numpy_with_report(target, dot, per_step):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((128, 64)).astype(np.float16)
    b = rng.standard_normal((64, 192)).astype(np.float16)
    c = np.zeros((128, 192), np.float16)
    result = run_compiled(golden("matmul_64x64x32", target), "matmul", 2 * 3,
                          matmul_bound(a, b, c, BM=64, BN=64, BK=32, GROUP_M=8))
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), expected.astype(np.float32), rtol=2e-3, atol=2e-3)
    dots = [r for r in result.report.rows if r["op"] == dot]
    # 6 programs x 2 K steps; on sm_80 Triton issues each step's dot as two k=16 halves
    assert sum(r["executions"] for r in dots) == 6 * (64 // 32) * per_step


def test_run_compiled_refuses_what_the_kernel_was_not_compiled_for():
    a = np.zeros((100, 64), np.float16)  # M = 100: the golden was compiled with M divisible by 16
    b, c = np.zeros((64, 64), np.float16), np.zeros((100, 64), np.float16)
    with pytest.raises(LayoutError, match=r"argument 'M' = 100 is not divisible by 16, which the kernel "
                                          r"was compiled assuming \(tt.divisibility = 16\)"):
        run_compiled(golden("matmul_64x64x32", "cuda-90"), "matmul", 2, matmul_bound(a, b, c))
    bound = matmul_bound(np.zeros((64, 64), np.float16), b, np.zeros((64, 64), np.float16))
    del bound["stride_cm"]
    with pytest.raises(LayoutError, match="takes 'stride_cm', which the launch does not give"):
        run_compiled(golden("matmul_64x64x32", "cuda-90"), "matmul", 1, bound)


def test_without_triton_a_clear_error(monkeypatch):
    import layoutkit.triton

    monkeypatch.setitem(sys.modules, "triton", None)  # import triton -> ImportError
    with pytest.raises(LayoutError, match=r"triton: layoutkit.triton.simulate compiles @triton.jit kernels "
                                          r"with Triton, which is not installed"):
        layoutkit.triton.simulate(object(), 1)


# ----------------------------------------------------------------------- with Triton


@pytest.fixture(scope="module")
def kernels():
    pytest.importorskip("triton.language")
    spec = importlib.util.spec_from_file_location("triton_kernels_for_tests", ROOT / "scripts" / "triton_kernels.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_jit_vector_add_masked_tail(kernels):
    import layoutkit.triton

    n = 3000
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    result = layoutkit.triton.simulate(kernels.vector_add, (3,), x, y, out, n, BLOCK=1024)
    np.testing.assert_array_equal(out, x + y)
    loads = [r for r in result.report.rows if r["op"] == "tt.load"]
    assert len(loads) == 2 and all(r["executions"] == 3 for r in loads)


def test_jit_softmax_equals_numpy(kernels):
    import layoutkit.triton

    rows, cols = 9, 200
    rng = np.random.default_rng(3)
    x = rng.standard_normal((rows, cols)).astype(np.float16)
    out = np.zeros_like(x)
    layoutkit.triton.simulate(kernels.softmax_rows, (3,), x, out, rows, cols, cols, ROWS=4, COLS=256, num_warps=4)
    xf = x.astype(np.float32)
    e = np.exp(xf - xf.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out.astype(np.float32), e / e.sum(axis=1, keepdims=True), rtol=2e-3, atol=1e-4)


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90"])
def test_jit_matmul_equals_numpy(kernels, target):
    """Unit strides are specialised to constants by Triton, as at a real launch."""
    import layoutkit.triton

    m, n, k = 128, 128, 96
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    result = layoutkit.triton.simulate(kernels.matmul, (4,), a, b, c, m, n, k, k, 1, n, 1, n, 1,
                                       BM=64, BN=64, BK=32, GROUP_M=8, target=target)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), expected.astype(np.float32), rtol=2e-3, atol=2e-3)
    assert result.report.hot_spots(1)


def test_jit_errors_are_layout_errors(kernels):
    import layoutkit.triton

    x = np.zeros(8, np.float32)
    with pytest.raises(LayoutError, match="target: expected cuda:<sm>"):
        layoutkit.triton.simulate(kernels.vector_add, 1, x, x, x, 8, BLOCK=8, target="sm80")
    with pytest.raises(LayoutError, match="constexprs: vector_add has no parameter 'BLOK'"):
        layoutkit.triton.simulate(kernels.vector_add, 1, x, x, x, 8, BLOK=8)


def test_readme_example_script_prints_what_the_readme_shows(kernels, capsys):
    """examples/triton/matmul_jit.py: the output equals numpy and every line the README
    shows of its report is printed."""
    import re
    import runpy

    runpy.run_path(str(ROOT / "examples" / "triton" / "matmul_jit.py"), run_name="__main__")
    printed = capsys.readouterr().out.splitlines()
    assert float(re.search(r"= ([\d.]+)", printed[0]).group(1)) < 0.1
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"\$ python examples/triton/matmul_jit.py.*?\n(.*?)```", readme, re.S).group(1)
    for line in block.splitlines():
        if line.strip() != "...":
            assert line in printed, line
