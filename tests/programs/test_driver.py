"""The compile driver: layoutkit.compile and its callable, simulate --function on a source
program, and --print-ir-after-all in MLIR's dump format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.ir import parse_module
from layoutkit.pipelines.compile import split_ir_dumps

EXAMPLES = Path(__file__).parents[2] / "examples" / "linalg"


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "layoutkit", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_compile_returns_a_runnable_module():
    program = layoutkit.compile((EXAMPLES / "matmul.mlir").read_text(), tile_sizes=(16, 8), workgroup_size="4,4")
    assert isinstance(program, layoutkit.CompiledProgram)
    assert program.functions == ("matmul",)
    assert "gpu.launch_func" in program.text and "blocks in" in program.text
    rng = np.random.default_rng(3)
    a = rng.standard_normal((32, 24)).astype(np.float32)
    b = rng.standard_normal((24, 16)).astype(np.float32)
    (c,) = program(a, b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    # the same module again, by name: launches in order, fresh result buffers each call
    (again,) = program(a, b, function="matmul")
    np.testing.assert_array_equal(again, c)


def test_compile_softmax_returns_every_result():
    program = layoutkit.compile((EXAMPLES / "softmax.mlir").read_text())
    x = np.random.default_rng(4).standard_normal((6, 40)).astype(np.float32)
    y, top, total = program(x)
    np.testing.assert_allclose(top, x.max(axis=1), rtol=0)
    np.testing.assert_allclose(y.sum(axis=1), np.ones(6), rtol=1e-5)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(total, e.sum(axis=1), rtol=1e-5)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"tile_sizes": "8,x"}, r"--tile-sizes: expected comma-separated integers such as 8,8, got '8,x'"),
    ({"tile_sizes": (8, 2.5)}, r"--tile-sizes: expected integers"),
    ({"workgroup_size": (64, 32)}, r"workgroup-size: 2048 threads"),
])
def test_compile_option_errors(kwargs, message):
    with pytest.raises(LayoutError, match=message):
        layoutkit.compile((EXAMPLES / "matmul.mlir").read_text(), **kwargs)


def test_call_errors_name_the_function():
    program = layoutkit.compile((EXAMPLES / "transpose.mlir").read_text())
    with pytest.raises(LayoutError, match="no host func.func named 'nope'"):
        program(np.zeros((20, 36), np.float32), function="nope")
    with pytest.raises(LayoutError, match="compile: expected MLIR text"):
        layoutkit.compile(b"bytes")


def test_simulate_compiles_a_source_program_first(tmp_path):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 40)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    run = _run("simulate", EXAMPLES / "softmax.mlir", "--function", "softmax", "--arg", "x=x.npy",
               "--out", "res", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "compiled" in run.stdout and "tile-and-distribute" in run.stdout
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(np.load(tmp_path / "res" / "result0.npy"), e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.load(tmp_path / "res" / "result1.npy"), x.max(axis=1))
    np.testing.assert_array_equal(np.load(tmp_path / "res" / "x.npy"), x)  # inputs are not written


def test_print_ir_after_all_is_mlirs_dump_format(tmp_path):
    run = _run("compile", EXAMPLES / "matmul.mlir", "--print-ir-after-all", "-o", tmp_path / "out.mlir")
    assert run.returncode == 0, run.stderr
    err = run.stderr
    # MLIR: the header line, the IR, two blank lines; nothing else on stderr
    # issue 15: the pipeline starts with linalg-fuse-elementwise and promotes after tiling
    assert err.startswith("// -----// IR Dump After LinalgFuseElementwisePass (linalg-fuse-elementwise) //----- //\n")
    assert err.endswith("}\n\n\n")
    stages = split_ir_dumps(err)
    assert [name for name, _ in stages] == ["linalg-fuse-elementwise", "bufferize", "tile-to-workgroups",
                                           "promote-to-workgroup-memory", "distribute-to-threads",
                                           "gpu-outline-kernels", "cse"]
    assert sum(len(ir) + 2 for _, ir in stages) + sum(len(line) + 1 for line in err.splitlines()
                                                       if line.startswith("// -----//")) == len(err)
    for _, ir in stages:
        parse_module(ir).verify()
    assert stages[-1][1] == (tmp_path / "out.mlir").read_text()
