"""The vector ops layoutkit adds, emitted as CUDA: each kernel of tests/simt/vector_cases.py
compiles with NVRTC, and run on the host (host_harness.py) equals its numpy formula."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from layoutkit.backends.cuda import compile_cuda, emit_cuda
from layoutkit.backends.cuda.prelude import PRELUDE
from layoutkit.errors import LayoutError
from layoutkit.ir import parse_module

_SPEC = importlib.util.spec_from_file_location(
    "layoutkit_tests_vector_cases", Path(__file__).parents[1] / "simt" / "vector_cases.py")
cases = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(cases)


def _source(name: str) -> tuple[str, dict, dict]:
    signature, body, args, expected = cases.CASES[name]()
    return emit_cuda(parse_module(cases.module_text(signature, body))), args, expected


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_vector_case_compiles(cuda_compiler, name):
    source, _, _ = _source(name)
    assert "k" in compile_cuda(source).by_name


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_vector_case_on_host_equals_numpy(host, name):
    source, args, expected = _source(name)
    host.run_on_host(source, PRELUDE, "k", (1,), (cases.T,), list(args.values()))
    for key, want in expected.items():
        np.testing.assert_array_equal(args[key], want, err_msg=key)


def test_contract_kinds_in_f16_round_like_numpy(host):
    maps = cases.MATMUL_MAPS
    text = f"""module {{
  gpu.module @m {{
    gpu.func @k(%A: memref<8x2x2xf16>, %B: memref<8x2x2xf16>, %C: memref<8x2x2xf32>, %D: memref<8x2x2xf32>, %M: memref<8x2x2xf16>) kernel {{
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %a = vector.load %A[%t, %c0, %c0] : memref<8x2x2xf16>, vector<2x2xf16>
      %b = vector.load %B[%t, %c0, %c0] : memref<8x2x2xf16>, vector<2x2xf16>
      %c = vector.load %C[%t, %c0, %c0] : memref<8x2x2xf32>, vector<2x2xf32>
      %d = vector.contract {{indexing_maps = {maps}, iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}} %a, %b, %c : vector<2x2xf16>, vector<2x2xf16> into vector<2x2xf32>
      %m = vector.contract {{indexing_maps = {maps}, iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<mul>}} %a, %b, %a : vector<2x2xf16>, vector<2x2xf16> into vector<2x2xf16>
      vector.store %d, %D[%t, %c0, %c0] : memref<8x2x2xf32>, vector<2x2xf32>
      vector.store %m, %M[%t, %c0, %c0] : memref<8x2x2xf16>, vector<2x2xf16>
      gpu.return
    }}
  }}
}}"""
    rng = np.random.default_rng(3)
    a = rng.integers(-8, 9, (8, 2, 2)).astype(np.float16)
    b = rng.integers(-8, 9, (8, 2, 2)).astype(np.float16)
    c = rng.integers(-8, 9, (8, 2, 2)).astype(np.float32)
    d, m = np.zeros((8, 2, 2), np.float32), np.zeros((8, 2, 2), np.float16)
    host.run_on_host(emit_cuda(parse_module(text)), PRELUDE, "k", (1,), (8,), [a, b, c, d, m])
    np.testing.assert_array_equal(d, c + np.einsum("tik,tkj->tij", a.astype(np.float32), b.astype(np.float32)))
    # mul: acc * (a[i,0] b[0,j]) * (a[i,1] b[1,j]), each product rounded to f16 (small ints: exact)
    expected = a * (a[:, :, 0, None] * b[:, None, 0, :]) * (a[:, :, 1, None] * b[:, None, 1, :])
    np.testing.assert_array_equal(m, expected)


def test_unsupported_broadcast_is_now_emitted_and_bad_one_is_rejected():
    bad = """module {
  gpu.module @m {
    gpu.func @k(%x: memref<8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = vector.load %x[%c0] : memref<8xf32>, vector<2xf32>
      %b = vector.broadcast %v : vector<2xf32> to vector<2x3xf32>
      gpu.return
    }
  }
}"""
    with pytest.raises(LayoutError, match=r"line 6.*vector.broadcast.*does not broadcast"):
        parse_module(bad)


def test_tile_matmul_example_simulated_and_on_host_equal_numpy(host):
    from layoutkit import simulate

    text = (Path(__file__).parents[2] / "examples" / "kernels" / "tile_matmul.mlir").read_text()
    rng = np.random.default_rng(8)
    a = rng.integers(-3, 4, (64, 64)).astype(np.float32)
    bt = rng.integers(-3, 4, (64, 64)).astype(np.float32)
    c = a.astype(np.float64) @ bt.T.astype(np.float64)
    rowmax = c.reshape(64, 16, 4).max(axis=2).T  # rowmax[tx, r] = max_j c[r, 4 tx + j]
    for run in ("simulator", "host"):
        out, out_max = np.full((64, 64), np.nan, np.float32), np.full((16, 64), np.nan, np.float32)
        if run == "simulator":
            simulate(text, "tile_matmul", 1, (16, 16), {"a": a, "bt": bt, "c": out, "rowmax": out_max})
        else:
            host.run_on_host(emit_cuda(parse_module(text)), PRELUDE, "tile_matmul", (1,), (16, 16),
                             [a, bt, out, out_max])
        np.testing.assert_array_equal(out, c, err_msg=run)
        np.testing.assert_array_equal(out_max, rowmax, err_msg=run)
