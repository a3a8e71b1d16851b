"""The default configuration: the cost model's choice against the docstring table computed
here by brute force, all-parallel ops over the global id with a bounds check, overrides."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from layoutkit.backends.simt.host import run_function
from layoutkit.cli.compile import compile_module
from layoutkit.cli.opt import print_ir
from layoutkit.ir import parse_module
from layoutkit.passes.bufferize import BufferizePass
from layoutkit.passes.linalg_structure import is_structured
from layoutkit.passes.tile_config import default_tile_sizes

MATMUL = (Path(__file__).parents[2] / "examples" / "linalg" / "matmul.mlir").read_text()


def matmul_text(m: int, k: int, n: int) -> str:
    return MATMUL.replace("32x24", f"{m}x{k}").replace("24x16", f"{k}x{n}").replace("32x16", f"{m}x{n}")


def _matmul_op(m, k, n):
    module = parse_module(matmul_text(m, k, n))
    BufferizePass().apply(None, module)
    return [op for op in module.walk() if is_structured(op) and op.name == "linalg.matmul"][0]


def _table_time(m, k, n, tm, tn):
    """The docstring's table for a matmul, written out: (time, threads, K tile)."""
    threads = tm * tn
    blocks = math.ceil(m / tm) * math.ceil(n / tn)
    traffic = tm * k + k * tn + tm * tn  # A tile, B tile over the whole K, C tile
    whole = (tm * k + k * tn) * 4
    k_tile = None
    if whole > 16 * 1024:
        k_tile = next((c for c in (32, 16, 8, 4) if c < k and (tm * c + c * tn) * 4 <= 16 * 1024), 4)
    shared = (tm * (k_tile or k) + (k_tile or k) * tn) * 4
    resident = min(2048 // threads, 32, 228 * 1024 // shared, math.ceil(blocks / 132))
    share = min(1.0, resident * math.ceil(threads / 32) / 32)
    waves = math.ceil(blocks / (132 * resident))
    return waves * resident * traffic / share, threads, k_tile


@pytest.mark.parametrize("shape", [(32, 24, 16), (256, 256, 256), (30, 7, 13), (1024, 64, 1024)])
def test_model_choice_is_the_tables_minimum(shape):
    m, k, n = shape
    best = None
    for tm, tn in itertools.product(*({min(c, s) for c in (1, 2, 4, 8, 16, 32, 64)} for s in (m, n))):
        if tm * tn > 1024 or tm * tn < min(32, m * n):
            continue
        time, threads, k_tile = _table_time(m, k, n, tm, tn)
        key = (time, threads)
        if best is None or key < best[0]:
            best = (key, (tm, tn) + ((k_tile,) if k_tile else ()))
    assert default_tile_sizes(_matmul_op(m, k, n)) == best[1]


def test_seed_matmul_default_is_one_32x16_tile():
    assert default_tile_sizes(_matmul_op(32, 24, 16)) == (32, 16)  # the docstring's worked example
    out = print_ir(compile_module(parse_module(MATMUL)))
    # the fill: 512 elements over the global id in 4 blocks of 128; the matmul: 1 block of 16x32
    assert "@matmul_kernel0 blocks in (%0, %1, %1) threads in (%2, %1, %1)" in out
    assert "@matmul_kernel1 blocks in (%1, %1, %1) threads in (%3, %4, %1)" in out
    assert "%0 = arith.constant 4 : index" in out and "%2 = arith.constant 128 : index" in out
    assert "%3 = arith.constant 16 : index" in out and "%4 = arith.constant 32 : index" in out


ELEMENTWISE = """
func.func @f(%x: tensor<{m}x{n}xf32>, %v: tensor<{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                       affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %v : tensor<{m}x{n}xf32>, tensor<{n}xf32>) outs(%e : tensor<{m}x{n}xf32>) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  }} -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


@pytest.mark.parametrize(("m", "n", "workgroup", "blocks"), [(10, 15, None, 2), (3, 5, None, 1), (33, 31, "64", 16),
                                                              (7, 9, "4,4", 4)])
def test_untiled_elementwise_runs_over_the_global_id(m, n, workgroup, blocks):
    out = print_ir(compile_module(parse_module(ELEMENTWISE.format(m=m, n=n)), workgroup_size=workgroup))
    assert "arith.cmpi ult" in out and "scf.forall" not in out
    grid = [line for line in out.splitlines() if "gpu.launch_func" in line]
    assert len(grid) == 1
    constants = dict(line.strip().split(" = arith.constant ") for line in out.split("gpu.module")[0].splitlines()
                     if "arith.constant" in line)
    first = grid[0].split("blocks in (")[1].split(",")[0]
    assert constants[first] == f"{blocks} : index"
    rng = np.random.default_rng(m * n)
    x, v = rng.standard_normal((m, n)).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    (r,) = run_function(out, "f", [x, v])
    np.testing.assert_array_equal(r, x - v[None, :])


def test_tile_sizes_override_the_model():
    default = print_ir(compile_module(parse_module(matmul_text(64, 32, 64))))
    forced = print_ir(compile_module(parse_module(matmul_text(64, 32, 64)), tile_sizes="8,8,4"))
    assert default != forced and "memref<8x4xf32, #gpu.address_space<workgroup>>" in forced
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((64, 32)).astype(np.float32), rng.standard_normal((32, 64)).astype(np.float32)
    for out in (default, forced):
        (c,) = run_function(out, "matmul", [a, b])
        np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
