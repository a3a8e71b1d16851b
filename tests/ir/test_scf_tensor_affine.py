"""scf.forall / index_switch, tensor slices and affine index ops: MLIR's text round-trips,
and each verifier rejects bad IR with a LayoutError naming the op and its line."""

from __future__ import annotations

import pytest

from layoutkit import LayoutError
from layoutkit.ir import parse_module

ROUND_TRIP = """builtin.module {
  func.func @f(%n : index, %init : tensor<4x64xf32>, %m : memref<64xf32>) -> tensor<4x64xf32> {
    %a = affine.apply affine_map<(d0)[s0] -> (((d0 floordiv 4) + (s0 * 2)))>(%n)[%n]
    %b = affine.min affine_map<(d0) -> (d0, 16)>(%a)
    %c = affine.max affine_map<(d0)[s0] -> ((d0 + (s0 * -1)), 0)>(%a)[%b]
    %l = affine.linearize_index disjoint [%a, %b] by (4, 8) : index
    %l2 = affine.linearize_index [%a, %b] by (%c) : index
    %d, %d_1, %d_2 = affine.delinearize_index %l into (%n, 8) : index, index, index
    %s = scf.index_switch %d -> index
    case 2 {
      scf.yield %a : index
    }
    default {
      scf.yield %b : index
    }
    %r = scf.forall (%i, %j) in (4, %n) shared_outs(%o = %init) -> (tensor<4x64xf32>) {
      %t = tensor.extract_slice %o[%i, %j] [1, 8] [1, 1] : tensor<4x64xf32> to tensor<8xf32>
      %e = tensor.empty() : tensor<2x8xf32>
      %u = tensor.insert_slice %t into %e[1, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<2x8xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %t into %o[%i, %j] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x64xf32>
      }
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    scf.forall (%k) = (1) to (%n) step (2) {
      %one = arith.constant 1.000000e+00 : f32
      memref.store %one, %m[%k] : memref<64xf32>
    } {mapping = [#gpu.thread<x>]}
    func.return %r : tensor<4x64xf32>
  }
}"""


def test_round_trip_prints_mlir_syntax():
    printed = str(parse_module(ROUND_TRIP))
    assert str(parse_module(printed)) == printed
    for text in ("affine_map<(d0) -> (d0, 16)>(%a)", "linearize_index disjoint [%a, %b] by (4, 8) : index",
                 "delinearize_index %l into (%n, 8) : index, index, index",
                 "scf.forall (%i, %j) in (4, %n) shared_outs(%o = %init) -> (tensor<4x64xf32>) {",
                 "} {mapping = [#gpu.block<y>, #gpu.block<x>]}", "scf.forall (%k) = (1) to (%n) step (2) {",
                 "tensor.parallel_insert_slice %t into %o[%i, %j] [1, 8] [1, 1]"):
        assert text in printed, text
    # without shared_outs the in_parallel terminator is implicit, as MLIR prints it
    assert printed.count("scf.forall.in_parallel") == 1


def _func(body: str) -> str:
    return ("func.func @f(%n: index, %t: tensor<4x64xf32>) {\n" + body + "\n  return\n}")


@pytest.mark.parametrize("body, message", [
    ("  %x:2 = affine.delinearize_index %n into (0, 8) : index, index",
     "line 2: affine.delinearize_index: basis elements must be positive"),
    ("  %x:3 = affine.delinearize_index %n into (8) : index, index, index",
     "line 2: affine.delinearize_index: 3 results need a basis of 3 or 2 elements"),
    ("  %x = affine.linearize_index [%n, %n, %n] by (8) : index",
     "line 2: affine.linearize_index: 3 indices need a basis"),
    ("  %x = affine.apply affine_map<(d0) -> (d0, d0)>(%n)",
     "line 2: affine.apply: the map must have one result"),
    ("  %x = affine.min affine_map<(d0, d1) -> (d0)>(%n)",
     "line 2: affine.min: the map .* takes 2 dims and 0 symbols, got 1"),
    ("  %x = tensor.extract_slice %t[0, 60] [1, 8] [1, 1] : tensor<4x64xf32> to tensor<8xf32>",
     "line 2: tensor.extract_slice: dimension 1: offset 60, size 8"),
    ("  %x = tensor.extract_slice %t[0, 0] [2, 8] [1, 1] : tensor<4x64xf32> to tensor<8xf32>",
     "line 2: tensor.extract_slice: the result tensor<8xf32> is not the slice's shape 2x8"),
    ("  %x = tensor.empty(%n) : tensor<4x8xf32>",
     "line 2: tensor.empty: .* 0 dynamic dimensions but 1 sizes"),
    ("  scf.forall (%i) in (4, 4) {\n  }",
     r"line 2: scf.forall: 2 bounds and 0 shared_outs need 2 block arguments .*got 1"),
    ("  scf.forall (%i) = (0) to (8) step (0) {\n  }",
     "line 2: scf.forall: constant step must be positive"),
    ("  scf.forall (%i) in (4) {\n  } {mapping = [#gpu.thread<x>, #gpu.thread<y>]}",
     "line 2: scf.forall: mapping has 2 entries for 1 induction variables"),
    ("  %e = tensor.empty() : tensor<8xf32>\n"
     "  %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<4x64xf32>) {\n"
     "    scf.forall.in_parallel {\n"
     "      tensor.parallel_insert_slice %e into %t[%i, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x64xf32>\n"
     "    }\n  }",
     "line 5: tensor.parallel_insert_slice: the destination must be a shared_outs argument"),
])
def test_verifiers_name_op_and_line(body, message):
    with pytest.raises(LayoutError, match=message):
        parse_module(_func(body))
