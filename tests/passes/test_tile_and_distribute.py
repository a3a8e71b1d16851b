"""layoutkit compile: linalg on tensors -> kernels + host function; run in the simulator
and compared with numpy (an independent computation), CUDA compiled by NVRTC."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from layoutkit import LayoutError
from layoutkit.backends.simt.host import run_function
from layoutkit.cli.compile import compile_module
from layoutkit.cli.opt import print_ir
from layoutkit.ir import parse_module

MATMUL = (Path(__file__).parents[2] / "examples" / "linalg" / "matmul.mlir").read_text()


def matmul_text(m: int, k: int, n: int) -> str:
    return (MATMUL.replace("32x24", f"{m}x{k}").replace("24x16", f"{k}x{n}").replace("32x16", f"{m}x{n}"))


def compiled(text: str, **options) -> str:
    return print_ir(compile_module(parse_module(text), **options))


@pytest.mark.parametrize(("shape", "tiles", "workgroup"), [
    ((32, 24, 16), None, None),          # seed 001: 8x8 tiles, one element per thread
    ((30, 24, 13), "8,8", None),         # partial tiles in both parallel loops
    ((30, 7, 19), "16,4", "2,4"),        # threads walk several elements each
    ((5, 3, 40), "0,16", "16"),          # untiled rows
])
def test_matmul_runs_equal_to_numpy(shape, tiles, workgroup):
    m, k, n = shape
    out = compiled(matmul_text(m, k, n), tile_sizes=tiles, workgroup_size=workgroup)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    (c,) = run_function(out, "matmul", [a.copy(), b.copy()])
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_seed_matmul_grid_and_block():
    out = compiled(MATMUL)
    # 32x16 output in 8x8 tiles: x (columns) 2 blocks, y (rows) 4 blocks, 8x8 threads
    assert out.count("gpu.launch_func") == 2
    assert "gpu.module @kernels" in out and "memref.alloc() : memref<32x16xf32>" in out
    assert "tensor<" not in out and "linalg." not in out


def test_generic_elementwise_with_broadcast():
    text = """
func.func @addb(%x: tensor<10x15xf32>, %v: tensor<15xf32>) -> tensor<10x15xf32> {
  %e = tensor.empty() : tensor<10x15xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                         affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %v : tensor<10x15xf32>, tensor<15xf32>) outs(%e : tensor<10x15xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %p = arith.mulf %s, %a : f32
    linalg.yield %p : f32
  } -> tensor<10x15xf32>
  return %r : tensor<10x15xf32>
}
"""
    out = compiled(text, tile_sizes="4,8")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((10, 15)).astype(np.float32)
    v = rng.standard_normal(15).astype(np.float32)
    (r,) = run_function(out, "addb", [x, v])
    np.testing.assert_allclose(r, (x + v[None, :]) * x, rtol=1e-6)


def test_temporary_is_a_clear_error():
    text = """
func.func @t(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}
"""
    with pytest.raises(LayoutError, match="bufferize: .*function argument"):
        compiled(text)


def test_too_many_threads_is_a_clear_error():
    with pytest.raises(LayoutError, match="workgroup-size: 2048 threads"):
        compiled(matmul_text(64, 4, 64), tile_sizes="64,64", workgroup_size="64,32")


def test_cli_prints_each_stage_and_emits_cuda(tmp_path):
    path = tmp_path / "mm.mlir"
    path.write_text(MATMUL)
    out = tmp_path / "out.mlir"
    run = subprocess.run([sys.executable, "-m", "layoutkit", "compile", str(path), "--print-ir-after-all",
                          "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    stages = [line for line in run.stderr.splitlines() if line.startswith("// -----// IR Dump After")]
    # issue 15: linalg-fuse-elementwise runs first (on tensors), promote-to-workgroup-memory after tiling
    assert stages[:6] == [
        "// -----// IR Dump After LinalgFuseElementwisePass (linalg-fuse-elementwise) //----- //",
        "// -----// IR Dump After BufferizePass (bufferize) //----- //",
        "// -----// IR Dump After TileToWorkgroupsPass (tile-to-workgroups) //----- //",
        "// -----// IR Dump After PromoteToWorkgroupMemoryPass (promote-to-workgroup-memory) //----- //",
        "// -----// IR Dump After DistributeToThreadsPass (distribute-to-threads) //----- //",
        "// -----// IR Dump After GpuOutlineKernelsPass (gpu-outline-kernels) //----- //"]
    from layoutkit.backends.cuda.compile import compile_cuda, nvrtc_available

    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    from layoutkit.backends.cuda import emit_cuda

    compile_cuda(emit_cuda(parse_module(out.read_text())), "sm_90", compiler="nvrtc")
