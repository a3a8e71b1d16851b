"""affine index arithmetic, scf.index_switch, scf.forall and per-thread tensors in the
simulator, each checked against a per-element formula written here (Python ints)."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit

from .kernels import kernel_module

THREADS = 64


def run_index_kernel(body: str, results: list[str], threads: int = THREADS) -> np.ndarray:
    """out[t, k] = value ``results[k]`` of thread t; ``%t`` is the thread id, ``%s = t - 3``."""
    n = len(results)
    stores = "\n".join(
        f"      %col{k} = arith.constant {k} : index\n"
        f"      memref.store {r}, %o[%t, %col{k}] : memref<{threads}x{n}xindex>"
        for k, r in enumerate(results))
    module = kernel_module(f"%o: memref<{threads}x{n}xindex>", f"""      %t = gpu.thread_id x
      %c3 = arith.constant 3 : index
      %s = arith.subi %t, %c3 : index
{body}
{stores}""")
    out = np.full((threads, n), -999, np.int64)
    layoutkit.simulate(module, "k", grid=1, block=threads, args={"o": out})
    return out


def floordiv(a: int, b: int) -> int:
    return a // b


def ceildiv(a: int, b: int) -> int:
    return -((-a) // b)


def test_affine_apply_min_max_with_negative_operands():
    out = run_index_kernel("""
      %a = affine.apply affine_map<(d0)[s0] -> (d0 floordiv 4 + s0 * 2 - d0 mod 5)>(%s)[%t]
      %b = affine.min affine_map<(d0)[s0] -> (d0 ceildiv 3, s0 - 20, 7)>(%s)[%t]
      %c = affine.max affine_map<(d0) -> (d0 - 50, d0 mod 7, (d0 * 3) floordiv -2)>(%s)""",
                           ["%a", "%b", "%c"])
    for t in range(THREADS):
        s = t - 3
        assert out[t, 0] == floordiv(s, 4) + 2 * t - (s - 5 * floordiv(s, 5)), t
        assert out[t, 1] == min(ceildiv(s, 3), t - 20, 7), t
        assert out[t, 2] == max(s - 50, s - 7 * floordiv(s, 7), floordiv(3 * s, -2)), t


def test_delinearize_and_linearize():
    out = run_index_kernel("""
      %d:3 = affine.delinearize_index %t into (2, 4, 8) : index, index, index
      %e:2 = affine.delinearize_index %s into (%c3) : index, index
      %l = affine.linearize_index [%d#2, %d#0, %t] by (%c3, 5) : index
      %m = affine.linearize_index disjoint [%d#0, %d#1, %d#2] by (2, 4, 8) : index""",
                           ["%d#0", "%d#1", "%d#2", "%e#0", "%e#1", "%l", "%m"])
    for t in range(THREADS):
        s = t - 3
        expected = [(t // 32) % 2, (t // 8) % 4, t % 8, s // 3, s % 3,
                    (t % 8) * 15 + ((t // 32) % 2) * 5 + t, t]
        assert out[t].tolist() == expected, t


def test_delinearize_outer_bound_is_not_applied():
    # with as many basis elements as results the first one only bounds: 29 into (2, 8) -> (3, 5)
    out = run_index_kernel("""
      %c29 = arith.constant 29 : index
      %d:2 = affine.delinearize_index %c29 into (2, 8) : index, index""", ["%d#0", "%d#1"], 32)
    assert out[0].tolist() == [3, 5]


def test_nonpositive_dynamic_basis_names_the_op():
    with pytest.raises(layoutkit.LayoutError, match="delinearize_index.*basis elements must be positive"):
        run_index_kernel("""
      %z = arith.subi %c3, %c3 : index
      %d:2 = affine.delinearize_index %t into (2, %z) : index, index""", ["%d#0"])


def test_index_switch_divergent_and_uniform():
    out = run_index_kernel("""
      %r = scf.index_switch %t -> index
      case 2 {
        %x = arith.addi %t, %t : index
        scf.yield %x : index
      }
      case 7 {
        scf.yield %c3 : index
      }
      default {
        %y = arith.muli %t, %c3 : index
        scf.yield %y : index
      }
      %u = scf.index_switch %c3 -> index
      case 3 {
        scf.yield %t : index
      }
      default {
        scf.yield %c3 : index
      }""", ["%r", "%u"])
    expected = [[{2: 2 * t, 7: 3}.get(t, 3 * t), t] for t in range(THREADS)]
    assert out.tolist() == expected


def test_forall_on_memrefs_runs_every_iteration_in_each_thread():
    # each thread t writes o[t, i * 3 + j] = 10 * i + j + t for the box (2, 3), and over its own
    # range i = t % 4 .. 6 step 2 writes p[t, i] = i (others keep -1)
    module = kernel_module("%o: memref<32x6xindex>, %p: memref<32x6xindex>", """      %t = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %lb = arith.remui %t, %c4 : index
      scf.forall (%i, %j) in (2, 3) {
        %k = affine.apply affine_map<(d0, d1) -> (d0 * 3 + d1)>(%i, %j)
        %v = affine.apply affine_map<(d0, d1)[s0] -> (d0 * 10 + d1 + s0)>(%i, %j)[%t]
        memref.store %v, %o[%t, %k] : memref<32x6xindex>
      } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
      scf.forall (%i) = (%lb) to (6) step (2) {
        memref.store %i, %p[%t, %i] : memref<32x6xindex>
      }""")
    o, p = np.full((32, 6), -1, np.int64), np.full((32, 6), -1, np.int64)
    layoutkit.simulate(module, "k", grid=1, block=32, args={"o": o, "p": p})
    for t in range(32):
        assert o[t].tolist() == [10 * i + j + t for i in range(2) for j in range(3)]
        assert p[t].tolist() == [i if i in range(t % 4, 6, 2) else -1 for i in range(6)]


def test_forall_shared_outs_and_tensor_slices():
    # thread t: r = forall i in (4): r[i, 0:2] = [i + t, 2 * i]; then read back r[t % 4, 1],
    # an extract_slice's element, and an insert_slice into an empty tensor
    module = kernel_module("%o: memref<32x4xindex>", """      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %init = tensor.empty() : tensor<4x3xindex>
      %r = scf.forall (%i) in (4) shared_outs(%out = %init) -> (tensor<4x3xindex>) {
        %a = arith.addi %i, %t : index
        %b = arith.muli %i, %c2 : index
        %row0 = tensor.empty() : tensor<2xindex>
        %row1 = tensor.insert %a into %row0[%c0] : tensor<2xindex>
        %row = tensor.insert %b into %row1[%c1] : tensor<2xindex>
        scf.forall.in_parallel {
          tensor.parallel_insert_slice %row into %out[%i, 0] [1, 2] [1, 1] : tensor<2xindex> into tensor<4x3xindex>
        }
      }
      %q = arith.remui %t, %c4 : index
      %x = tensor.extract %r[%q, %c1] : tensor<4x3xindex>
      %col = tensor.extract_slice %r[0, 0] [4, 1] [1, 1] : tensor<4x3xindex> to tensor<4xindex>
      %y = tensor.extract %col[%q] : tensor<4xindex>
      %big = tensor.empty() : tensor<8x8xindex>
      %ins = tensor.insert_slice %r into %big[%q, 1] [4, 3] [1, 2] : tensor<4x3xindex> into tensor<8x8xindex>
      %row_q = arith.addi %q, %c1 : index
      %z = tensor.extract %ins[%row_q, %c1] : tensor<8x8xindex>
      %w = tensor.extract %r[%q, %c2] : tensor<4x3xindex>
      memref.store %x, %o[%t, %c0] : memref<32x4xindex>
      memref.store %y, %o[%t, %c1] : memref<32x4xindex>
      memref.store %z, %o[%t, %c2] : memref<32x4xindex>
      memref.store %w, %o[%t, %c3] : memref<32x4xindex>""")
    out = np.full((32, 4), -1, np.int64)
    layoutkit.simulate(module, "k", grid=1, block=32, args={"o": out})
    for t in range(32):
        q = t % 4
        table = [[i + t, 2 * i, 0] for i in range(4)]  # column 2 keeps tensor.empty's zeros
        assert out[t].tolist() == [table[q][1], table[q][0], table[1][0], table[q][2]], t


def test_slice_out_of_bounds_names_the_op():
    with pytest.raises(layoutkit.LayoutError, match="tensor.extract_slice.*dimension 0"):
        run_index_kernel("""
      %e = tensor.empty() : tensor<8xindex>
      %x = tensor.extract_slice %e[%t] [2] [1] : tensor<8xindex> to tensor<2xindex>
      %c0 = arith.constant 0 : index
      %v = tensor.extract %x[%c0] : tensor<2xindex>""", ["%v"])
