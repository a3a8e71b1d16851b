"""affine index arithmetic, scf.index_switch and scf.forall in the emitted CUDA: the C++ runs
on the host (host_harness.py) and is compared with per-element formulas written here and with
the simulator; the example kernel compiles with NVRTC."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.cuda import compile_cuda, emit_cuda
from layoutkit.backends.cuda.prelude import PRELUDE
from layoutkit.ir import parse_module

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "kernels" / "tile_select.mlir"

INDEX_KERNEL = """module {
  gpu.module @m {
    gpu.func @k(%o: memref<64x9xindex>, %p: memref<64x6xindex>) kernel {
      %t = gpu.thread_id x
      %c3 = arith.constant 3 : index
      %s = arith.subi %t, %c3 : index
      %a = affine.apply affine_map<(d0)[s0] -> (d0 floordiv 4 + s0 * 2 - d0 mod 5)>(%s)[%t]
      %b = affine.min affine_map<(d0)[s0] -> (d0 ceildiv 3, s0 - 20, 7)>(%s)[%t]
      %c = affine.max affine_map<(d0) -> (d0 - 50, d0 mod 7, (d0 * 3) floordiv -2)>(%s)
      %d:3 = affine.delinearize_index %t into (2, 4, 8) : index, index, index
      %e:2 = affine.delinearize_index %s into (%c3) : index, index
      %l = affine.linearize_index [%d#2, %d#0, %t] by (%c3, 5) : index
      %r = scf.index_switch %t -> index
      case 2 {
        scf.yield %a : index
      }
      case 7 {
        scf.yield %c3 : index
      }
      default {
        %y = arith.muli %t, %c3 : index
        scf.yield %y : index
      }
      %values = arith.constant 0 : index
COLUMNS
      %c4 = arith.constant 4 : index
      %lb = arith.remui %t, %c4 : index
      scf.forall (%i) = (%lb) to (6) step (2) {
        memref.store %i, %p[%t, %i] : memref<64x6xindex>
      } {mapping = [#gpu.thread<x>]}
      gpu.return
    }
  }
}"""
RESULTS = ["%a", "%b", "%c", "%d#0", "%d#1", "%d#2", "%e#0", "%e#1", "%l"]
COLUMNS = "\n".join(f"      %k{k} = arith.constant {k} : index\n"
                    f"      memref.store {v}, %o[%t, %k{k}] : memref<64x9xindex>"
                    for k, v in enumerate(RESULTS))


def expected_index_columns(t: int) -> list[int]:
    s = t - 3
    return [s // 4 + 2 * t - (s - 5 * (s // 5)), min(-((-s) // 3), t - 20, 7),
            max(s - 50, s - 7 * (s // 7), (3 * s) // -2),
            (t // 32) % 2, (t // 8) % 4, t % 8, s // 3, s % 3, (t % 8) * 15 + ((t // 32) % 2) * 5 + t]


def test_affine_switch_forall_on_host_equal_formulas_and_simulator(host):
    module = parse_module(INDEX_KERNEL.replace("COLUMNS", COLUMNS))
    o, p = np.full((64, 9), -999, np.int32), np.full((64, 6), -1, np.int32)
    host.run_on_host(emit_cuda(module), PRELUDE, "k", (1,), (64,), [o, p])
    assert o.tolist() == [expected_index_columns(t) for t in range(64)]
    assert p.tolist() == [[i if i in range(t % 4, 6, 2) else -1 for i in range(6)] for t in range(64)]
    o_sim, p_sim = np.full((64, 9), -999, np.int64), np.full((64, 6), -1, np.int64)
    layoutkit.simulate(module, "k", grid=1, block=64, args={"o": o_sim, "p": p_sim})
    np.testing.assert_array_equal(o_sim, o)
    np.testing.assert_array_equal(p_sim, p)


def tile_select_reference(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        for j in range(32):
            out[i, j] = [x[i, j], 2 * x[i, j], -x[i, j], x[i, j] + 1][j // 8]
    return out


def test_example_tile_select_host_and_simulator_equal_numpy(host):
    x = np.random.default_rng(4).standard_normal((21, 32)).astype(np.float32)  # last block: 5 rows
    expected = tile_select_reference(x)
    out = np.full_like(x, np.nan)
    host.run_on_host(emit_cuda(EXAMPLE.read_text()), PRELUDE, "tile_select", (3,), (256,), [x, out])
    np.testing.assert_array_equal(out, expected)
    simulated = np.full_like(x, np.nan)
    layoutkit.simulate(EXAMPLE.read_text(), "tile_select", grid=3, block=256,
                       args={"in": x, "out": simulated})
    np.testing.assert_array_equal(simulated, expected)


def test_example_tile_select_compiles(cuda_compiler):
    result = compile_cuda(emit_cuda(EXAMPLE.read_text()))
    assert result.by_name["tile_select"].registers > 0 and result.spills == 0


def test_tensors_are_a_clear_cuda_error():
    # tensors are not emitted (a forall on tensors needs bufferizing first): the first tensor
    # op is named with its line and the backend
    module = parse_module("""module {
  gpu.module @m {
    gpu.func @k() kernel {
      %init = tensor.empty() : tensor<4xf32>
      %r = scf.forall (%i) in (4) shared_outs(%o = %init) -> (tensor<4xf32>) {
        scf.forall.in_parallel {
        }
      }
      gpu.return
    }
  }
}""")
    with pytest.raises(layoutkit.LayoutError, match="line 4: kernel @k: tensor.empty: not supported by the CUDA backend"):
        emit_cuda(module)
