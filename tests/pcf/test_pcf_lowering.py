"""PCF lowered to kernels (pcf-convert-sref-to-memref, pcf-lower-structural, pcf-to-gpu) and
run in the simulator, compared with numpy (an independent computation). Covers the two
IREE 3.13 mistakes the lowering must not copy: <linearize> with several ids (IREE starts
the outer ids at 1, so those tiles are never computed) and a synced workgroup loop (IREE
fails with "failed to construct requested barrier")."""

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
from layoutkit.pipelines.compile import compile_module

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "pcf" / "tiled_scale.mlir"

# A workgroup loop over TMxTN tiles of 4x8; a subgroup generic splits a tile's rows among the
# subgroups, a lane generic its columns among the lanes: out = a * b + 3.
TILED = """
func.func @fma(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %out: memref<?x?xf32>, %tm: index, %tn: index) -> memref<?x?xf32> {
  %r = pcf.loop SYNC scope(SCOPE) count(COUNT)
    execute(%ref = %out)[%bi: index, %bj: index]
         : (!pcf.sref<?x?xf32, SREF_SCOPE>) -> (memref<?x?xf32>) {
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %row0 = arith.muli %bi, %c4 : index
    %col0 = arith.muli %bj, %c8 : index
    pcf.generic scope(#iree_gpu.subgroup_scope) execute[%sg: index, %nsg: index] {
      scf.for %i = %sg to %c4 step %nsg {
        %row = arith.addi %row0, %i : index
        pcf.generic scope(#iree_gpu.lane_scope) execute[%l: index, %nl: index] {
          %three = arith.constant 3.0 : f32
          scf.for %j = %l to %c8 step %nl {
            %col = arith.addi %col0, %j : index
            %x = memref.load %a[%row, %col] : memref<?x?xf32>
            %y = memref.load %b[%row, %col] : memref<?x?xf32>
            %p = arith.mulf %x, %y : f32
            %s = arith.addf %p, %three : f32
            %v = vector.broadcast %s : f32 to vector<1x1xf32>
            pcf.write_slice %v into %ref[%row, %col] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x?xf32, SREF_SCOPE>
          }
          pcf.return
        }
      }
      pcf.return
    }
    pcf.return
  }
  return %r : memref<?x?xf32>
}
"""


def tiled(count="%tm, %tn", sync="", scope="#iree_codegen.workgroup_scope<linearize>", synced_sref=True) -> str:
    sref_scope = f"sync({scope})" if synced_sref else scope
    return (TILED.replace("COUNT", count).replace("SYNC", sync).replace("SREF_SCOPE", sref_scope)
            .replace("SCOPE", scope))


def lower(text: str, options: str = "workgroup-size=16 subgroup-size=4") -> str:
    module = parse_module(text)
    passes = parse_pass_pipeline(f"pcf-convert-sref-to-memref,pcf-lower-structural{{{options}}},"
                                 "gpu-outline-kernels,cse")
    PassPipeline(passes, lambda *a: None).apply(make_context(), module)
    module.verify()
    return print_ir(module)


def run_fma(out_text: str, tm: int, tn: int):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4 * tm, 8 * tn)).astype(np.float32)
    b = rng.standard_normal((4 * tm, 8 * tn)).astype(np.float32)
    out = np.full((4 * tm, 8 * tn), np.nan, np.float32)
    (result,) = run_function(out_text, "fma", [a, b, out, tm, tn])
    expected = a * b + np.float32(3)  # float32 arithmetic, as the kernel does
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)    # written in place
    np.testing.assert_allclose(result, expected, rtol=1e-6, atol=1e-6)    # the loop's result is the buffer


@pytest.mark.parametrize(("tm", "tn", "options"), [
    (3, 5, "workgroup-size=16 subgroup-size=4 max-workgroups=4"),   # 15 tiles on 4 workgroups: looped
    (2, 3, "workgroup-size=16 subgroup-size=4"),                    # one workgroup per tile
    (1, 2, "workgroup-size=8 subgroup-size=8"),                     # one subgroup walks every row
    (4, 1, "workgroup-size=32 subgroup-size=16 max-workgroups=3"),  # a single column of tiles
])
def test_linearized_loop_with_several_ids_computes_every_tile(tm, tn, options):
    run_fma(lower(tiled(), options), tm, tn)


def test_static_counts_set_the_grid_and_outer_ids_start_at_zero():
    out = lower(tiled(count="%c3, %c5").replace(
        "-> memref<?x?xf32> {\n", "-> memref<?x?xf32> {\n  %c3 = arith.constant 3 : index\n"
        "  %c5 = arith.constant 5 : index\n", 1), "workgroup-size=16 subgroup-size=4 max-workgroups=100")
    assert "blocks in (%c15" in out or "arith.constant 15 : index" in out
    run_fma(out, 3, 5)


@pytest.mark.parametrize("variant", [
    {"sync": "sync true"},                                          # pcf.loop sync true and a synced sref
    {"synced_sref": True, "scope": "#iree_codegen.workgroup_scope"},  # a sync_on_return sref, several ids
    {"sync": "sync true", "synced_sref": False},                    # only the loop synced
])
def test_synced_workgroup_loop_lowers_and_runs(variant):
    run_fma(lower(tiled(**variant)), 2, 2)


def test_synced_subgroup_generic_gets_a_barrier_all_threads_reach():
    text = tiled().replace("pcf.generic scope(#iree_gpu.subgroup_scope)",
                           "pcf.generic sync true scope(#iree_gpu.subgroup_scope)")
    out = lower(text)
    assert out.count("gpu.barrier") == 1
    run_fma(out, 2, 3)


def test_sequential_loop_runs_every_iteration_in_order():
    text = """
func.func @seq(%out: memref<3x4xf32>) -> memref<3x4xf32> {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %r = pcf.loop scope(#iree_codegen.workgroup_scope) count(%c3)
    execute(%ref = %out)[%i: index] : (!pcf.sref<3x4xf32, #iree_codegen.workgroup_scope>) -> (memref<3x4xf32>) {
    pcf.generic scope(#iree_gpu.subgroup_scope) execute[%s: index, %ns: index] {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      pcf.loop scope(#pcf.sequential) count(%c4) execute[%j: index] {
        %ii = arith.index_cast %i : index to i32
        %jj = arith.index_cast %j : index to i32
        %c10 = arith.constant 10 : i32
        %t = arith.muli %ii, %c10 : i32
        %u = arith.addi %t, %jj : i32
        %f = arith.sitofp %u : i32 to f32
        %v = vector.broadcast %f : f32 to vector<1x1xf32>
        %w = arith.cmpi eq, %s, %c0 : index
        scf.if %w {
          pcf.write_slice %v into %ref[%i, %j] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<3x4xf32, #iree_codegen.workgroup_scope>
        }
        pcf.return
      }
      pcf.return
    }
    pcf.return
  }
  return %r : memref<3x4xf32>
}
"""
    out = lower(text, "workgroup-size=4 subgroup-size=1")
    buf = np.zeros((3, 4), np.float32)
    run_function(out, "seq", [buf])
    i, j = np.indices((3, 4))
    np.testing.assert_array_equal(buf, 10 * i + j)


def test_vector_read_and_write_slices_become_transfers():
    text = """
func.func @copy(%src: memref<8x8xf32>, %dst: memref<8x8xf32>) -> memref<8x8xf32> {
  %c2 = arith.constant 2 : index
  %r:2 = pcf.loop scope(#iree_codegen.workgroup_scope) count(%c2, %c2)
    execute(%s = %src, %d = %dst)[%i: index, %j: index]
         : (!pcf.sref<8x8xf32, #iree_codegen.workgroup_scope>, !pcf.sref<8x8xf32, #iree_codegen.workgroup_scope>)
        -> (memref<8x8xf32>, memref<8x8xf32>) {
    pcf.generic scope(#iree_gpu.lane_scope) execute[%l: index, %nl: index] {
      %c4 = arith.constant 4 : index
      %c0 = arith.constant 0 : index
      %is0 = arith.cmpi eq, %l, %c0 : index
      scf.if %is0 {
        %r0 = arith.muli %i, %c4 : index
        %c0b = arith.muli %j, %c4 : index
        %t = pcf.read_slice %s[%r0, %c0b] [4, 4] [1, 1] : !pcf.sref<8x8xf32, #iree_codegen.workgroup_scope> to vector<4x4xf32>
        %u = vector.transpose %t, [1, 0] : vector<4x4xf32> to vector<4x4xf32>
        pcf.write_slice %u into %d[%c0b, %r0] [4, 4] [1, 1] : vector<4x4xf32> into !pcf.sref<8x8xf32, #iree_codegen.workgroup_scope>
      }
      pcf.return
    }
    pcf.return
  }
  return %r#1 : memref<8x8xf32>
}
"""
    out = lower(text, "workgroup-size=4 subgroup-size=4")
    assert "vector.transfer_read" in out and "vector.transfer_write" in out and "pcf." not in out
    src = np.arange(64, dtype=np.float32).reshape(8, 8)
    dst = np.zeros((8, 8), np.float32)
    (result,) = run_function(out, "copy", [src, dst])
    np.testing.assert_array_equal(result, src.T)


def test_example_runs_equal_to_numpy_through_the_cli(tmp_path):
    out = tmp_path / "out.mlir"
    cli = [sys.executable, "-m", "layoutkit"]
    subprocess.run([*cli, "compile", str(EXAMPLE), "--pipeline", "pcf-to-gpu", "--workgroup-size", "64",
                    "--subgroup-size", "16", "-o", str(out)], check=True, capture_output=True)
    rng = np.random.default_rng(2)
    src = rng.standard_normal((48, 32)).astype(np.float32)
    np.save(tmp_path / "src.npy", src)
    np.save(tmp_path / "dst.npy", np.zeros_like(src))
    subprocess.run([*cli, "simulate", str(out), "--function", "scale_tiles", "--arg", f"src={tmp_path}/src.npy",
                    "--arg", f"dst={tmp_path}/dst.npy", "--arg", "tm=3", "--arg", "tn=2",
                    "--out", str(tmp_path / "res")], check=True, capture_output=True)
    np.testing.assert_allclose(np.load(tmp_path / "res" / "dst.npy"), 2 * src.astype(np.float64) + 1, rtol=1e-6)
    np.testing.assert_allclose(np.load(tmp_path / "res" / "result0.npy"), 2 * src.astype(np.float64) + 1,
                               rtol=1e-6)


def test_compile_options_reach_pcf_lower_structural():
    module = compile_module(parse_module(tiled()), "pcf-to-gpu", workgroup_size="32", subgroup_size="8")
    text = print_ir(module)
    assert "threads in (%c32" in text or "arith.constant 32 : index" in text


@pytest.mark.parametrize(("text", "message"), [
    (tiled().replace("memref<?x?xf32>", "tensor<?x?xf32>").replace("memref.load", "tensor.extract"),
     "only memref inits are converted yet"),
    (tiled().replace("scope(#iree_gpu.subgroup_scope) execute[%sg: index, %nsg: index]",
                     "scope(#iree_gpu.subgroup_scope) execute[%sg: index, %sh: index, %nsg: index, %nsh: index]"),
     "2 ids at #iree_gpu.subgroup_scope"),
])
def test_unsupported_programs_are_layout_errors(text, message):
    with pytest.raises(LayoutError, match=message):
        lower(text)


@pytest.mark.parametrize(("options", "message"), [
    ("workgroup-size=12 subgroup-size=8", "12 is not a multiple of subgroup-size 8"),
    ("max-workgroups=0", "max-workgroups: expected a positive integer"),
])
def test_bad_options_are_layout_errors(options, message):
    with pytest.raises(LayoutError, match=message):
        lower(tiled(), options)


def test_cli_reports_an_unlowered_program_in_one_line(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(tiled().replace("memref<?x?xf32>", "tensor<?x?xf32>").replace("memref.load", "tensor.extract"))
    done = subprocess.run([sys.executable, "-m", "layoutkit", "compile", str(bad), "--pipeline", "pcf-to-gpu"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("error:") == 1 and "only memref inits" in done.stderr


@pytest.mark.parametrize(("m", "k", "n", "sizes"), [
    (32, 20, 48, ("64", "16")),
    (16, 1, 16, ("32", "32")),     # K = 1, one subgroup
    (48, 33, 16, ("16", "4")),     # four subgroups of four lanes
])
def test_matmul_example_equals_numpy(m, k, n, sizes):
    text = (ROOT / "examples" / "pcf" / "matmul.mlir").read_text()
    out = print_ir(compile_module(parse_module(text), "pcf-to-gpu", workgroup_size=sizes[0],
                                  subgroup_size=sizes[1]))
    rng = np.random.default_rng(4)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    (result,) = run_function(out, "matmul", [a, b, c, m // 16, n // 16])
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(result, c)


@pytest.mark.parametrize("name", ["tiled_scale", "matmul"])
def test_examples_compile_to_cuda_with_nvrtc(name):
    from layoutkit.backends.cuda import emit_cuda
    from layoutkit.backends.cuda.compile import compile_cuda, nvrtc_available

    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    text = (ROOT / "examples" / "pcf" / f"{name}.mlir").read_text()
    module = compile_module(parse_module(text), "pcf-to-gpu", workgroup_size="64", subgroup_size="16")
    result = compile_cuda(emit_cuda(module), "sm_90", compiler="nvrtc")
    assert [k.name for k in result.kernels] == [f"{'scale_tiles' if name == 'tiled_scale' else name}_kernel0"]


IREE_GOLDENS = Path(__file__).parent / "goldens" / "lowering"


def _structure(module) -> list:
    """What pcf-convert-sref-to-memref decides, comparable across IREE's print and ours: each
    pcf op (name, scope, index arguments, srefs left), each transfer_write's buffer (the
    function argument position, through a subview) and each return's argument positions."""
    from xdsl.dialects import func, memref, vector
    from xdsl.ir import BlockArgument

    from layoutkit.ir.dialects import pcf

    def position(value):
        while isinstance(value.owner, memref.SubviewOp):
            value = value.owner.source
        return value.index if isinstance(value, BlockArgument) else None

    found = []
    for op in module.walk():
        if isinstance(op, (pcf.LoopOp, pcf.GenericOp)):
            found.append((op.name, str(op.scope), len(op.index_args), len(op.results)))
        elif isinstance(op, vector.TransferWriteOp):
            found.append(("write", position(op.source)))
        elif isinstance(op, func.ReturnOp):
            found.append(("return", *map(position, op.operands)))
    return found


@pytest.mark.parametrize("name", ["tiled_scale", "matmul"])
def test_sref_to_memref_matches_iree(name):
    """IREE 3.13's pcf-convert-sref-to-memref of the example (a golden made by
    scripts/generate_pcf_lowering_goldens.py) and ours: same ops, same buffers written, the
    result replaced by the init. (IREE writes through a 1x1 subview; ours writes at the offsets.)"""
    iree = parse_module((IREE_GOLDENS / f"{name}.sref_to_memref.mlir").read_text())
    ours = parse_module((ROOT / "examples" / "pcf" / f"{name}.mlir").read_text())
    PassPipeline(parse_pass_pipeline("pcf-convert-sref-to-memref"), lambda *a: None).apply(make_context(), ours)
    assert _structure(ours) == _structure(iree)
    assert ("return", 1) in _structure(iree) or ("return", 2) in _structure(iree)


def test_iree_lower_structural_golden_records_the_outer_id_starting_at_one():
    """What IREE 3.13 does with <linearize> and two ids (the mistake layoutkit does not copy:
    test_linearized_loop_with_several_ids_computes_every_tile): its forall's lower bounds are
    (1, linearized workgroup id), so the tiles with id 0 on that dim are never computed."""
    import re

    text = (IREE_GOLDENS / "tiled_scale.lower_structural.mlir").read_text()
    forall = re.search(r"scf\.forall \((%\w+), (%\w+)\) = \((%\w+), (%\w+)\)", text)
    assert forall is not None
    assert re.search(rf"{re.escape(forall.group(3))} = arith\.constant 1 : index", text)


def test_workgroup_generic_strides_over_rows_by_the_grid():
    text = """
func.func @rows(%x: memref<?x?xf32>, %out: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %r = pcf.generic scope(#iree_codegen.workgroup_scope)
    execute(%ref = %out)[%wg: index, %nwg: index]
         : (!pcf.sref<?x?xf32, #iree_codegen.workgroup_scope>) -> (memref<?x?xf32>) {
    scf.for %i = %wg to %m step %nwg {
      pcf.generic sync true scope(#iree_gpu.lane_scope) execute[%l: index, %nl: index] {
        scf.for %j = %l to %n step %nl {
          %v = memref.load %x[%i, %j] : memref<?x?xf32>
          %w = arith.negf %v : f32
          %b = vector.broadcast %w : f32 to vector<1x1xf32>
          pcf.write_slice %b into %ref[%i, %j] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x?xf32, #iree_codegen.workgroup_scope>
        }
        pcf.return
      }
    }
    pcf.return
  }
  return %r : memref<?x?xf32>
}
"""
    out = lower(text, "workgroup-size=8 subgroup-size=8 max-workgroups=3")
    assert "blocks in (%c3" in out or "arith.constant 3 : index" in out
    x = np.random.default_rng(6).standard_normal((7, 13)).astype(np.float32)
    dst = np.full_like(x, np.nan)
    (result,) = run_function(out, "rows", [x, dst])
    np.testing.assert_array_equal(dst, -x)
    np.testing.assert_array_equal(result, -x)


FORALL = """
func.func @f(%out: memref<?x?xf32>, %m: index, %n: index) {
  scf.forall (%i, %j) = (1, 0) to (%m, %n) step (2, 3) {
    scf.forall (%t) in (4) {
      %f = arith.index_cast %i : index to i32
      %g = arith.index_cast %j : index to i32
      %c100 = arith.constant 100 : i32
      %h = arith.muli %f, %c100 : i32
      %k = arith.addi %h, %g : i32
      %x = arith.sitofp %k : i32 to f32
      %c0 = arith.constant 0 : index
      %is0 = arith.cmpi eq, %t, %c0 : index
      scf.if %is0 {
        memref.store %x, %out[%i, %j] : memref<?x?xf32>
      }
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [MAPPING]}
  return
}
"""


@pytest.mark.parametrize("mapping", ["#iree_codegen.workgroup_mapping<y>, #iree_codegen.workgroup_mapping<x>",
                                     "#gpu.block<y>, #gpu.block<x>"])
@pytest.mark.parametrize(("m", "n"), [(7, 8), (1, 5), (0, 3), (2, 1), (12, 13)])
def test_workgroup_forall_through_pcf_runs_every_iteration(mapping, m, n):
    module = compile_module(parse_module(FORALL.replace("MAPPING", mapping)), "pcf-to-gpu",
                            workgroup_size="4", subgroup_size="4")
    out_text = print_ir(module)
    assert "pcf." not in out_text
    out = np.full((max(m, 1), max(n, 1)), np.nan, np.float32)
    run_function(out_text, "f", [out, m, n])
    expected = np.full_like(out, np.nan)
    i, j = np.meshgrid(np.arange(1, m, 2), np.arange(0, n, 3), indexing="ij")
    expected[i, j] = 100 * i + j
    np.testing.assert_array_equal(out, expected)


def test_forall_with_shared_outs_is_a_layout_error():
    text = """
func.func @g(%init: tensor<8xf32>) -> tensor<8xf32> {
  %r = scf.forall (%i) in (2) shared_outs(%o = %init) -> (tensor<8xf32>) {
    scf.forall.in_parallel {
    }
  } {mapping = [#gpu.block<x>]}
  return %r : tensor<8xf32>
}
"""
    with pytest.raises(LayoutError, match="convert-forall-to-pcf: an scf.forall with shared_outs"):
        compile_module(parse_module(text), "pcf-to-gpu")


def _syncs(module) -> list:
    """Each pcf op's sync flag and sref argument types, comparable across IREE's print and ours."""
    from layoutkit.ir.dialects import pcf

    return [(op.name, op.sync_on_return.value.data, [str(a.type) for a in op.ref_args])
            for op in module.walk() if isinstance(op, (pcf.LoopOp, pcf.GenericOp))]


@pytest.mark.parametrize("name", ["tiled_scale", "matmul"])
def test_resolve_tokens_matches_iree(name):
    iree = parse_module((IREE_GOLDENS / f"{name}.resolve_tokens.mlir").read_text())
    ours = parse_module((ROOT / "examples" / "pcf" / f"{name}.mlir").read_text())
    before = _syncs(ours)
    PassPipeline(parse_pass_pipeline("pcf-resolve-tokens"), lambda *a: None).apply(make_context(), ours)
    assert _syncs(ours) == _syncs(iree) != before


def test_a_synced_subgroup_sref_fences_with_a_barrier_in_either_order():
    """sync(#iree_gpu.subgroup_scope) on a generic's sref is a fence at its return: a
    gpu.barrier, whether pcf-resolve-tokens runs first or pcf-convert-sref-to-memref meets it."""
    text = """
func.func @f(%buf: memref<64xf32>, %n: index) -> memref<64xf32> {
  pcf.loop scope(#iree_codegen.workgroup_scope) count(%n) execute[%i: index] {
    %r = pcf.generic scope(#iree_gpu.subgroup_scope) execute(%ref = %buf)[%sg: index, %nsg: index]
         : (!pcf.sref<64xf32, sync(#iree_gpu.subgroup_scope)>) -> (memref<64xf32>) {
      %v = arith.constant dense<1.0> : vector<1xf32>
      pcf.write_slice %v into %ref[%sg] [1] [1] : vector<1xf32> into !pcf.sref<64xf32, sync(#iree_gpu.subgroup_scope)>
      pcf.return
    }
    pcf.return
  }
  return %buf : memref<64xf32>
}
"""
    with_tokens = print_ir(compile_module(parse_module(text), "pcf-to-gpu", workgroup_size="8", subgroup_size="4"))
    assert with_tokens.count("gpu.barrier") == 1
    assert lower(text, "workgroup-size=8 subgroup-size=4").count("gpu.barrier") == 1  # no pcf-resolve-tokens


def test_token_sync_scopes_are_layout_errors():
    text = """
func.func @f(%buf: memref<4xf32>, %n: index) {
  pcf.loop scope(#iree_codegen.workgroup_scope) count(%n) execute(%ref = %buf)[%i: index]
       : (!pcf.sref<4xf32, #iree_codegen.workgroup_scope, i32>) -> (memref<4xf32>) {
    pcf.return
  }
  return
}
"""
    with pytest.raises(LayoutError, match="pcf-resolve-tokens: pcf.loop: sync scope i32 of"):
        compile_module(parse_module(text), "pcf-to-gpu")


def test_subgroup_size_needs_a_pipeline_with_pcf_lower_structural():
    from layoutkit.pipelines.compile import pipeline_with_options

    assert pipeline_with_options("pcf-to-gpu", workgroup_size="128", subgroup_size="32").split(",")[3] == \
        "pcf-lower-structural{workgroup-size=128 subgroup-size=32}"
    with pytest.raises(LayoutError, match="--subgroup-size: pipeline 'tile-and-distribute' has no "
                                          "pcf-lower-structural pass"):
        pipeline_with_options("tile-and-distribute", subgroup_size="32")
