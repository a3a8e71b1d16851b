"""Seed 002's reworked matmul pipeline (``--pipeline pcf-matmul``, layoutkit/passes/pcf_matmul.py):
the compiled kernel equals numpy on dynamic sizes (tile multiples and not), the stages appear in
order in ``--print-ir-after-all``, the kernel compiles with NVRTC, and misuse is a LayoutError."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.passes import PassPipeline

from layoutkit import LayoutError
from layoutkit.backends.simt.host import run_function
from layoutkit.cli.opt import print_ir
from layoutkit.ir import make_context, parse_module
from layoutkit.pipelines import parse_pass_pipeline
from layoutkit.pipelines.compile import compile_module, split_ir_dumps

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "pcf" / "matmul_f16.mlir"
STAGES = ["pcf-create-dispatch-config", "pcf-apply-workgroup-tiling", "pcf-wrap-workgroup-body",
          "pcf-form-run-cluster-flow", "pcf-introduce-shared-memory-copies",
          "pcf-distribute-run-cluster-to-subgroups", "pcf-distribute-run-cluster-to-lanes",
          "pcf-vectorize-lane-code"]


def operands(m: int, n: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = rng.standard_normal((m, n)).astype(np.float32)
    return a, b, c


def check(result, a, b, c0) -> None:
    """``c0 + a @ b`` in f64; f16 products are exact in f32, only the k + 1 f32 sums round."""
    a64, b64, c64 = a.astype(np.float64), b.astype(np.float64), c0.astype(np.float64)
    exact = c64 + a64 @ b64
    bound = (a.shape[1] + 1) * 2.0**-24 * (np.abs(c64) + np.abs(a64) @ np.abs(b64))
    assert result.shape == exact.shape
    assert np.all(np.abs(result - exact) <= bound + 1e-30)


def compiled(tile_sizes=None) -> str:
    return print_ir(compile_module(parse_module(EXAMPLE.read_text()), "pcf-matmul", tile_sizes=tile_sizes))


@pytest.mark.parametrize(("m", "n", "k"), [
    (64, 64, 32),    # whole tiles (32x32x16): 2x2 workgroup tiles, 2 K steps
    (40, 50, 20),    # partial tiles in every dimension
    (1, 3, 1),       # one partial tile, one partial K step
    (96, 33, 17),    # more tiles than one row of the grid, K one past a step
])
def test_small_tile_equals_numpy(m, n, k):
    out = compiled("32,32,16")
    a, b, c = operands(m, n, k)
    c0 = c.copy()
    (result,) = run_function(out, "matmul", [a, b, c])
    check(c, a, b, c0)
    np.testing.assert_array_equal(result, c)


def test_narrowest_tile_equals_numpy():
    """32x16x16: each subgroup one 16x8 mma tile, B panel rows of two 8-element chunks."""
    a, b, c = operands(50, 37, 40, seed=2)
    c0 = c.copy()
    run_function(compiled("32,16,16"), "matmul", [a, b, c])
    check(c, a, b, c0)


def test_seed_tile_equals_numpy_on_sizes_not_multiple_of_the_tile():
    out = compiled()  # 128x256x64, the seed's
    assert "memref<128x64xf16, #gpu.address_space<workgroup>>" in out and "memref<4x16x2x2xf32>" in out
    a, b, c = operands(130, 260, 70, seed=1)
    c0 = c.copy()
    run_function(out, "matmul", [a, b, c])
    check(c, a, b, c0)


def test_cli_prints_the_stages_in_order_and_the_result_simulates(tmp_path):
    out = tmp_path / "out.mlir"
    cli = [sys.executable, "-m", "layoutkit"]
    done = subprocess.run([*cli, "compile", str(EXAMPLE), "--pipeline", "pcf-matmul", "--tile-sizes", "32,32,16",
                           "--print-ir-after-all", "-o", str(out)], capture_output=True, text=True, check=True)
    dumps = split_ir_dumps(done.stderr)
    names = [name for name, _ in dumps]
    assert names[:8] == STAGES
    assert names[8:] == ["pcf-convert-sref-to-memref", "pcf-lower-structural", "gpu-outline-kernels", "cse"]
    ir = dict(dumps)
    assert "pcf.loop scope(#iree_codegen.workgroup_scope<linearize>)" in ir["pcf-apply-workgroup-tiling"]
    assert "pcf.shared_executor scope(#iree_gpu.subgroup_scope)" in ir["pcf-wrap-workgroup-body"]
    assert "shared(tensor<32x32xf32>)" in ir["pcf-form-run-cluster-flow"]
    assert "pcf.alloc()" in ir["pcf-introduce-shared-memory-copies"]
    assert "pcf.shared_executor scope(#iree_gpu.lane_scope)" in ir["pcf-distribute-run-cluster-to-subgroups"]
    assert "nvgpu.mma.sync" in ir["pcf-distribute-run-cluster-to-lanes"]
    assert "tensor<" not in ir["pcf-vectorize-lane-code"]
    a, b, c = operands(45, 70, 30, seed=3)
    for name, value in (("a", a), ("b", b), ("c", c)):
        np.save(tmp_path / f"{name}.npy", value)
    subprocess.run([*cli, "simulate", str(out), "--function", "matmul", "--arg", f"a={tmp_path}/a.npy",
                    "--arg", f"b={tmp_path}/b.npy", "--arg", f"c={tmp_path}/c.npy", "--out", str(tmp_path / "res")],
                   check=True, capture_output=True)
    check(np.load(tmp_path / "res" / "c.npy"), a, b, c)
    check(np.load(tmp_path / "res" / "result0.npy"), a, b, c)


def test_compiles_to_cuda_with_nvrtc():
    from layoutkit.backends.cuda import emit_cuda
    from layoutkit.backends.cuda.compile import compile_cuda, nvrtc_available

    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    module = compile_module(parse_module(EXAMPLE.read_text()), "pcf-matmul")
    result = compile_cuda(emit_cuda(module), "sm_90", compiler="nvrtc")
    assert [k.name for k in result.kernels] == ["matmul_kernel0"]


def run_passes(text: str, pipeline: str):
    module = parse_module(text)
    PassPipeline(parse_pass_pipeline(pipeline), lambda *a: None).apply(make_context(), module)
    return module


def test_a_stage_run_out_of_order_names_the_missing_pass():
    with pytest.raises(LayoutError, match="holds a configured linalg.matmul; run pcf-apply-workgroup-tiling first"):
        run_passes(EXAMPLE.read_text(), "pcf-create-dispatch-config,pcf-form-run-cluster-flow")


@pytest.mark.parametrize(("sizes", "message"), [
    ("30,32,16", "the M tile must be a positive multiple of 32"),
    ("32,24,16", "the N tile must be a positive multiple of 16"),
    ("32,32,8", "the K tile must be a positive multiple of 16"),
    ("32,32", "expected M,N,K"),
    ("256,256,128", "exceed 48 KiB of shared memory"),
])
def test_bad_tile_sizes_are_layout_errors(sizes, message):
    with pytest.raises(LayoutError, match=message):
        compile_module(parse_module(EXAMPLE.read_text()), "pcf-matmul", tile_sizes=sizes)


def test_a_phase_outside_the_accumulator_group_is_not_distributed():
    """The equivalence analysis finds a second carried payload (a phase whose value nothing
    consumes): the baseline subgroup distribution refuses it."""
    stage5 = print_ir(run_passes(EXAMPLE.read_text(), ",".join(STAGES[:5])))
    acc = "!pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<4xf32>)>"
    extra = (f"%stray = pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope> -> {acc} {{\n"
             "  %sv = arith.constant dense<0.0> : tensor<4xf32>\n  pcf.yield %sv : tensor<4xf32>\n}\n")
    anchor = stage5.index("%acc0 = pcf.shared_executor.run_cluster")
    broken = stage5[:anchor] + extra + stage5[anchor:]
    with pytest.raises(LayoutError, match=r"found groups of \[1, 3\] phases"):
        run_passes(broken, STAGES[5])


@pytest.mark.parametrize(("text", "message"), [
    (EXAMPLE.read_text().replace("f16", "f32"), r"got a matmul of \(tensor<\?x\?xf32>, tensor<\?x\?xf32>"),
    (EXAMPLE.read_text().replace("tensor<?x?xf16>", "tensor<8x8xf16>").replace("tensor<?x?xf32>", "tensor<8x8xf32>"),
     "the pipeline takes a function whose body is one linalg.matmul"),
])
def test_other_matmuls_are_layout_errors(text, message):
    with pytest.raises(LayoutError, match=message):
        compile_module(parse_module(text), "pcf-matmul")


def test_workgroup_size_is_fixed_by_the_pipeline():
    with pytest.raises(LayoutError, match=r"--workgroup-size: pipeline 'pcf-matmul' fixes it: "
                                          r"'pcf-lower-structural\{workgroup-size=128 subgroup-size=32\}'"):
        compile_module(parse_module(EXAMPLE.read_text()), "pcf-matmul", workgroup_size="256")


def test_cli_reports_bad_tile_sizes_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "layoutkit", "compile", str(EXAMPLE), "--pipeline", "pcf-matmul",
                           "--tile-sizes", "30,32,16"], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("error:") == 1 and "multiple of 32" in done.stderr


def test_fragment_reads_of_the_swizzled_panels_have_no_bank_conflicts():
    """At the seed's tile every mma fragment read from the panels takes the fewest shared
    wavefronts its bytes need (the simulator's count against its lower bound)."""
    a, b, c = operands(130, 260, 70, seed=4)
    reports: list = []
    run_function(compiled(), "matmul", [a, b, c], reports=reports, memory_counts=True)
    reads = {op: counts for op, counts in reports[0].shared_wavefronts.items() if "transfer_read %lds_" in op}
    assert len(reads) == 6  # four A fragment pieces, two B
    assert all(n == lower for n, lower in reads.values()), reads
