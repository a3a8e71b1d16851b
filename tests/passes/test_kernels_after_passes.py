"""A pass is right when its output runs: every example kernel, after canonicalize, cse and
dce, computes in the simulator exactly what the kernel computes before them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.passes import PassPipeline

import layoutkit
from layoutkit.ir import make_context, parse_module
from layoutkit.pipelines import parse_pass_pipeline

KERNELS = Path(__file__).parents[2] / "examples" / "kernels"
RNG = np.random.default_rng(7)


def vector_add():
    a, b = (RNG.standard_normal(1000).astype(np.float32) for _ in range(2))
    return "vector_add", 4, 256, {"a": a, "b": b, "c": np.zeros(1000, np.float32)}


def transpose(name):
    x = RNG.standard_normal((96, 160)).astype(np.float32)
    return name, (5, 3), (32, 8), {"in": x, "out": np.zeros((160, 96), np.float32)}


def block_sum():
    return "block_sum", 20, 256, {"in": RNG.random(5000).astype(np.float32), "out": np.zeros(20, np.float32)}


def softmax():
    x = (RNG.standard_normal((37, 100)) * 4).astype(np.float32)
    return "softmax", 10, (32, 4), {"in": x, "out": np.zeros_like(x)}


def matmul():
    a, b = (RNG.standard_normal((128, 64)).astype(np.float16), RNG.standard_normal((64, 128)).astype(np.float16))
    return "matmul", (1, 1), 128, {"a": a, "b": b, "c": np.zeros((128, 128), np.float32)}


def matmul_tiled():
    a, b = (RNG.standard_normal((128, 64)).astype(np.float16), RNG.standard_normal((64, 256)).astype(np.float16))
    return "matmul", (2, 1), 256, {"a": a, "b": b, "c": np.zeros((128, 256), np.float32)}


def tile_matmul():
    a, bt = (RNG.integers(-3, 4, (64, 64)).astype(np.float32) for _ in range(2))
    return "tile_matmul", 1, (16, 16), {"a": a, "bt": bt, "c": np.zeros((64, 64), np.float32),
                                        "rowmax": np.zeros((16, 64), np.float32)}


def tile_select():
    x = RNG.standard_normal((21, 32)).astype(np.float32)
    return "tile_select", 3, 256, {"in": x, "out": np.zeros_like(x)}


def producer_consumer():
    return "pc", 1, 128, {"src": RNG.random(256).astype(np.float32), "dst": np.zeros(256, np.float32)}


CASES = {
    "producer_consumer": producer_consumer,
    "tile_matmul": tile_matmul, "tile_select": tile_select,
    "vector_add": vector_add, "block_sum": block_sum, "softmax": softmax, "matmul_mma": matmul,
    "matmul_tiled": matmul_tiled,
    "transpose_padded": lambda: transpose("transpose_padded"),
    "transpose_swizzled": lambda: transpose("transpose_swizzled"),
}


HOST_FUNCTIONS = {"scale_then_reduce": "main"}  # run with run_function, below


def test_every_example_kernel_is_covered():
    assert {path.stem for path in KERNELS.glob("*.mlir")} == set(CASES) | set(HOST_FUNCTIONS)


def test_passes_keep_what_a_host_function_computes():
    from layoutkit.backends.simt import run_function

    text = (KERNELS / "scale_then_reduce.mlir").read_text()
    optimized = parse_module(text)
    PassPipeline(parse_pass_pipeline("builtin.module(canonicalize,cse,dce)")).apply(make_context(), optimized)
    optimized = parse_module(str(optimized))
    x = RNG.standard_normal(256).astype(np.float32)
    before = run_function(text, "main", {"x": x.copy(), "alpha": 0.5})
    after = run_function(optimized, "main", {"x": x.copy(), "alpha": 0.5})
    for b, a in zip(before, after):
        assert np.array_equal(b, a)


@pytest.mark.parametrize("example", sorted(CASES))
def test_passes_keep_what_the_kernel_computes(example):
    kernel, grid, block, args = CASES[example]()
    text = (KERNELS / f"{example}.mlir").read_text()
    optimized = parse_module(text)
    PassPipeline(parse_pass_pipeline("builtin.module(canonicalize,cse,dce)")).apply(make_context(), optimized)
    optimized = parse_module(str(optimized))  # what layoutkit opt prints reads back
    before = {name: value.copy() for name, value in args.items()}
    after = {name: value.copy() for name, value in args.items()}
    layoutkit.simulate(parse_module(text), kernel, grid=grid, block=block, args=before)
    layoutkit.simulate(optimized, kernel, grid=grid, block=block, args=after)
    for name in args:
        assert np.array_equal(before[name], after[name]), name
    assert any(not np.array_equal(before[name], args[name]) for name in args)  # the kernel wrote
