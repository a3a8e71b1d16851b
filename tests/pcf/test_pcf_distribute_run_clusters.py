"""The generic baseline distribution (pcf-distribute-run-clusters, first in pcf-resolve): the
elementwise_chain example through pcf-to-gpu and the simulator against numpy, refusals, and
the loop-carried payload distributed the same on both sides of the loop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from layoutkit import LayoutError
from layoutkit.backends.simt import SimulationError
from layoutkit.backends.simt.host import run_function
from layoutkit.cli.opt import print_ir
from layoutkit.ir import parse_module
from layoutkit.ir.dialects import pcf, pcf_ext
from layoutkit.passes import pcf_distribution
from layoutkit.pipelines import parse_pass_pipeline
from layoutkit.pipelines.compile import compile_module

CHAIN = (Path(__file__).parents[2] / "examples" / "pcf" / "elementwise_chain.mlir").read_text()


def chain(rows: int) -> str:
    """The example with a ``rows x 16`` payload (the file has 10 rows)."""
    assert CHAIN.count("10x16") >= 10
    return CHAIN.replace("10x16", f"{rows}x16").replace("[10, 16]", f"[{rows}, 16]")


def simulate(text: str, rows: int, steps: int, workgroup_size: int = 128):
    lowered = print_ir(compile_module(parse_module(text), "pcf-to-gpu",
                                      workgroup_size=str(workgroup_size), subgroup_size="32"))
    x = np.random.default_rng(rows * 10 + steps).standard_normal((rows, 16)).astype(np.float32)
    y = np.full((rows, 16), np.nan, np.float32)
    (result,) = run_function(lowered, "chain", [x, y, steps])
    return x, result


@pytest.mark.parametrize("rows, workgroup_size", [(8, 128), (10, 128), (10, 96), (3, 128)])
@pytest.mark.parametrize("steps", [0, 3])
def test_elementwise_chain_equals_numpy(rows, workgroup_size, steps):
    """8 rows over 4 subgroups (2 each), 10 rows over 4 (blocks of 3, the last holds one) or
    over 3, 3 rows over 4 (the last subgroup idle): every element once, in numpy's value."""
    x, result = simulate(chain(rows), rows, steps, workgroup_size)
    np.testing.assert_array_equal(result, (x * x + np.float32(1)) * np.float32(2 ** steps))


def test_example_through_the_cli(tmp_path):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((10, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", np.zeros((10, 16), np.float32))
    cli = [sys.executable, "-m", "layoutkit"]
    out = tmp_path / "chain.mlir"
    subprocess.run([*cli, "compile", "-", "--pipeline", "pcf-to-gpu", "--workgroup-size", "128",
                    "--subgroup-size", "32", "-o", str(out)], input=CHAIN, text=True, check=True)
    subprocess.run([*cli, "simulate", str(out), "--function", "chain", f"--arg=x={tmp_path / 'x.npy'}",
                    f"--arg=y={tmp_path / 'y.npy'}", "--arg=steps=2", "--out", str(tmp_path / "res")],
                   check=True, capture_output=True)
    np.testing.assert_array_equal(np.load(tmp_path / "res" / "result0.npy"), (x * x + 1) * 4)


def distribute(text: str, level: str = "lane"):
    module = parse_module(text)
    for p in parse_pass_pipeline(f"pcf-distribute-run-clusters{{level={level}}}"):
        p.apply(None, module)
    module.verify()
    return module


def test_loop_carried_payload_is_one_buffer_on_both_sides_of_the_loop():
    """The producer before the loop, the step inside it (reading its iter_arg, writing its
    yield) and the sink after it (reading the loop's result) all use ONE alloc, and the loop
    no longer carries the payload."""
    module = distribute(CHAIN)
    allocs = [o for o in module.walk() if isinstance(o, pcf.AllocOp)]
    assert len(allocs) == 1
    buffer = allocs[0].result
    threads = [o for o in module.walk() if isinstance(o, pcf_ext.RunThreadOp)]
    assert len(threads) == 3
    writes = [{w.dest for w in t.walk() if isinstance(w, pcf.WriteSliceOp)} for t in threads]
    reads = [{r.source for r in t.walk() if isinstance(r, pcf.ReadSliceOp)} for t in threads]
    assert buffer in writes[0] and buffer not in reads[0]
    assert writes[1] == {buffer} and reads[1] == {buffer}
    assert buffer in reads[2] and buffer not in writes[2]
    assert not any(pcf_distribution.is_carried(v) for o in module.walk() for v in o.results
                   if not isinstance(o, pcf_ext.SharedExecutorOp))


def test_breaking_the_loop_equivalence_breaks_the_result(monkeypatch):
    """The analysis is what ties the two sides of the loop: without its scf.for edges the
    step reads a buffer nobody wrote, and the result is no longer numpy's."""
    monkeypatch.setattr(pcf_distribution, "_pairs", lambda op: [])
    with pytest.raises(SimulationError, match=r"reads shared memref .* before any thread of the block stored there"):
        simulate(chain(8), 8, 2)


SG = "#iree_gpu.subgroup_scope"
TG = f"!pcf.threadgroup<{SG}>"
P = f"!pcf.threadgroup<{SG}, shared(tensor<8x8xf32>)>"


def program(body: str) -> str:
    return (f"func.func @f(%p: i1) {{\n  pcf.shared_executor scope({SG}) execute[%tg: {TG}] {{\n"
            f"    %a = pcf.shared_executor.run_cluster %tg : {TG} -> {P} {{\n"
            f"      %z = arith.constant dense<0.0> : tensor<8x8xf32>\n      pcf.yield %z : tensor<8x8xf32>\n    }}\n"
            f"{body}\n    pcf.return\n  }}\n  return\n}}\n")


@pytest.mark.parametrize("body, message", [
    (f"    pcf.shared_executor.run_cluster %tg ins(%a : {P}) : {TG} {{\n    ^bb0(%v: tensor<8x8xf32>):\n"
     f"      %e = tensor.empty() : tensor<8x8xf32>\n"
     f"      %t = linalg.transpose ins(%v : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]\n"
     f"      pcf.yield\n    }}",
     "pcf-distribute-run-clusters: linalg.transpose: cannot distribute this op"),
    (f"    %b = scf.if %p -> ({P}) {{\n      scf.yield %a : {P}\n    }} else {{\n      scf.yield %a : {P}\n    }}",
     "pcf-distribute-run-clusters: scf.yield: carries a distributed tensor payload"),
])
def test_refuses_what_it_cannot_distribute(body, message):
    with pytest.raises(LayoutError, match=message):
        distribute(program(body))


def test_run_clusters_without_tensors_are_left_alone():
    text = (f"func.func @f(%o: memref<4xf32>) {{\n  pcf.shared_executor scope({SG}) execute[%tg: {TG}] {{\n"
            f"    pcf.shared_executor.run_cluster %tg : {TG} {{\n      %c0 = arith.constant 0 : index\n"
            f"      %v = arith.constant 1.0 : f32\n      memref.store %v, %o[%c0] : memref<4xf32>\n"
            f"      pcf.yield\n    }}\n    pcf.return\n  }}\n  return\n}}\n")
    assert print_ir(distribute(text)) == print_ir(parse_module(text))


PHASE1 = """        %sq = arith.mulf %t, %t : tensor<10x16xf32>
        %ones = arith.constant dense<1.0> : tensor<10x16xf32>
        %s = arith.addf %sq, %ones : tensor<10x16xf32>
"""
GENERIC = """        %e = tensor.empty() : tensor<10x16xf32>
        %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                             iterator_types = ["parallel", "parallel"]}
            ins(%t : tensor<10x16xf32>) outs(%e : tensor<10x16xf32>) {
        ^bb0(%a: f32, %o: f32):
          %uno = arith.constant 1.0 : f32
          %q = arith.mulf %a, %a : f32
          %w = arith.addf %q, %uno : f32
          linalg.yield %w : f32
        } -> tensor<10x16xf32>
"""


def test_elementwise_linalg_generic_phase_equals_numpy():
    """The producing phase written as one linalg.generic over a tensor.empty output."""
    assert CHAIN.count(PHASE1) == 1
    x, result = simulate(CHAIN.replace(PHASE1, GENERIC), 10, 2)
    np.testing.assert_array_equal(result, (x * x + np.float32(1)) * np.float32(4))


def test_refuses_a_transposing_generic_and_reading_an_empty_tensor():
    transposed = GENERIC.replace("affine_map<(i, j) -> (i, j)>]", "affine_map<(i, j) -> (j, i)>]")
    with pytest.raises(LayoutError, match="linalg.generic: only elementwise linalg.generic"):
        distribute(CHAIN.replace(PHASE1, transposed).replace("10x16", "16x16").replace("[10, 16]", "[16, 16]"))
    reads_out = GENERIC.replace("%q = arith.mulf %a, %a", "%q = arith.mulf %a, %o")
    with pytest.raises(LayoutError, match="reads of a tensor.empty output"):
        distribute(CHAIN.replace(PHASE1, reads_out))


SHIFT = """func.func @shift(%x: memref<9x16xf32>, %y: memref<8x16xf32>) -> memref<8x16xf32> {
  %one = arith.constant 1 : index
  %r:2 = pcf.loop scope(#iree_codegen.workgroup_scope) count(%one) execute(%xs = %x, %ys = %y)[%wg: index]
      : (!pcf.sref<9x16xf32, #iree_codegen.workgroup_scope>, !pcf.sref<8x16xf32, sync(#iree_codegen.workgroup_scope)>)
     -> (memref<9x16xf32>, memref<8x16xf32>) {
    %buf = pcf.alloc() : !pcf.sref<9x16xf32, #iree_gpu.subgroup_scope>
    pcf.shared_executor scope(#iree_gpu.subgroup_scope) execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
      pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
        %h = pcf.read_slice %xs[0, 0] [1, 16] [1, 1] : !pcf.sref<9x16xf32, #iree_codegen.workgroup_scope> to tensor<1x16xf32>
        pcf.write_slice %h into %buf[0, 0] [1, 16] [1, 1] : tensor<1x16xf32> into !pcf.sref<9x16xf32, #iree_gpu.subgroup_scope>
        pcf.yield
      }
      pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
        %t = pcf.read_slice %xs[1, 0] [8, 16] [1, 1] : !pcf.sref<9x16xf32, #iree_codegen.workgroup_scope> to tensor<8x16xf32>
        pcf.write_slice %t into %buf[1, 0] [8, 16] [1, 1] : tensor<8x16xf32> into !pcf.sref<9x16xf32, #iree_gpu.subgroup_scope>
        pcf.yield
      }
      pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
        %u = pcf.read_slice %buf[0, 0] [8, 16] [1, 1] : !pcf.sref<9x16xf32, #iree_gpu.subgroup_scope> to tensor<8x16xf32>
        pcf.write_slice %u into %ys[0, 0] [8, 16] [1, 1] : tensor<8x16xf32> into !pcf.sref<8x16xf32, sync(#iree_codegen.workgroup_scope)>
        pcf.yield
      }
      pcf.return
    }
    pcf.return
  }
  return %r#1 : memref<8x16xf32>
}
"""


def run_shift(text: str):
    lowered = print_ir(compile_module(parse_module(text), "pcf-to-gpu", workgroup_size="128", subgroup_size="32"))
    x = np.random.default_rng(3).standard_normal((9, 16)).astype(np.float32)
    (result,) = run_function(lowered, "shift", [x, np.full((8, 16), np.nan, np.float32)])
    return x, result


def test_barriers_after_phases_whose_writes_another_phase_reads():
    """Subgroup w reads rows 2w, 2w+1 of %buf in the last phase; row 2w was written by
    subgroup w - 1 in the second: the barriers the pass puts after the first two phases make
    it exact, and without them the simulator reports the race."""
    distributed = print_ir(distribute(SHIFT))
    assert distributed.count("gpu.barrier") == 2
    x, result = run_shift(distributed)
    np.testing.assert_array_equal(result, x[:8])
    with pytest.raises(SimulationError, match="data race on shared memref"):
        run_shift(distributed.replace("gpu.barrier\n", ""))


def two_phases(first: str, second: str) -> str:
    ref = "!pcf.sref<9x4xf32, #iree_codegen.workgroup_scope>"
    phase = ("      pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope> {{\n"
             "        %{n} = pcf.read_slice %{src}[{ro}, 0] [8, 4] [1, 1] : {ref} to tensor<8x4xf32>\n"
             "        pcf.write_slice %{n} into %{dst}[{wo}, 0] [8, 4] [1, 1] : tensor<8x4xf32> into {ref}\n"
             "        pcf.yield\n      }}\n")
    body = "".join(phase.format(n=f"t{k}", ref=ref, **dict(zip(("src", "ro", "dst", "wo"), spec.split())))
                   for k, spec in enumerate((first, second)))
    return (f"func.func @f(%one: index, %a: memref<9x4xf32>, %b: memref<9x4xf32>, %c: memref<9x4xf32>) {{\n"
            f"  pcf.loop scope(#iree_codegen.workgroup_scope) count(%one) execute(%xs = %a, %ys = %b, %zs = %c)[%wg: index]\n"
            f"      : ({ref}, {ref}, {ref}) -> (memref<9x4xf32>, memref<9x4xf32>, memref<9x4xf32>) {{\n"
            f"    pcf.shared_executor scope(#iree_gpu.subgroup_scope) execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {{\n"
            f"{body}      pcf.return\n    }}\n    pcf.return\n  }}\n  return\n}}\n")


@pytest.mark.parametrize("first, second, barriers", [
    ("xs 0 ys 0", "zs 0 zs 0", 0),  # nothing shared: no barrier
    ("xs 0 ys 0", "ys 1 zs 0", 1),  # read after write: a barrier after the first
    ("xs 1 ys 0", "zs 0 xs 0", 1),  # write after read (rows of xs another subgroup still reads)
    ("xs 0 ys 0", "zs 0 ys 1", 1),  # write after write
])
def test_barrier_only_between_dependent_phases(first, second, barriers):
    text = print_ir(distribute(two_phases(first, second)))
    assert text.count("gpu.barrier") == barriers
    if barriers:  # after the first phase, not the second
        first_end = text.index("pcf.shared_executor.run_thread", text.index("pcf.shared_executor.run_thread") + 1)
        assert text[:first_end].count("gpu.barrier") == 1


def test_refuses_an_in_place_update_at_another_offset():
    with pytest.raises(LayoutError, match="pcf.write_slice: writes the sref it reads at another offset"):
        distribute(two_phases("xs 1 xs 0", "zs 0 zs 0"))


def test_level_option_is_checked():
    with pytest.raises(LayoutError, match="pcf-distribute-run-clusters: level: expected one of subgroup, lane, got 'warp'"):
        distribute(CHAIN, level="warp")
