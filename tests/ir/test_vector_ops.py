"""The vector ops layoutkit adds: MLIR's text round-trips (parse -> print -> parse), and the
verifier's errors are LayoutErrors naming the op and the line."""

from __future__ import annotations

import pytest

from layoutkit.errors import LayoutError
from layoutkit.ir import parse_module, print_module
from layoutkit.ir.dialects.upstream.vector import ContractionOp, MultiDimReductionOp

MAPS = ("[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1)>]")

OPS = f"""\
      %a = vector.load %x[%c0] : memref<64xf32>, vector<16xf32>
      %a2 = vector.shape_cast %a : vector<16xf32> to vector<4x4xf32>
      %t = vector.transpose %a2, [1, 0] : vector<4x4xf32> to vector<4x4xf32>
      %d = vector.contract {{indexing_maps = {MAPS}, iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<maxnumf>}} %a2, %t, %a2 : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
      %z = arith.constant dense<0.000000e+00> : vector<4xf32>
      %r = vector.multi_reduction <add>, %d, %z [1] : vector<4x4xf32> to vector<4xf32>
      %e = vector.extract_strided_slice %d {{offsets = [1, 2], sizes = [2, 2], strides = [1, 1]}} : vector<4x4xf32> to vector<2x2xf32>
      %n = vector.insert_strided_slice %e, %d {{offsets = [0, 0], strides = [1, 1]}} : vector<2x2xf32> into vector<4x4xf32>
      %s = vector.step : vector<4xindex>
      %m = vector.constant_mask [3] : vector<4xi1>
      %m2 = vector.create_mask %i : vector<4xi1>
      %g = vector.gather %x[%c0] [%s], %m, %r : memref<64xf32>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
      %b = vector.broadcast %g : vector<4xf32> to vector<2x4xf32>
      %x1 = vector.extract %b[%i, 1] : f32 from vector<2x4xf32>
      %y1 = vector.insert %x1, %g [%i] : f32 into vector<4xf32>"""


def _module(body: str) -> str:
    return ("module {\n  gpu.module @m {\n    gpu.func @k(%x: memref<64xf32>, %i: index) kernel {\n"
            f"      %c0 = arith.constant 0 : index\n{body}\n      gpu.return\n    }}\n  }}\n}}\n")


def test_round_trip_prints_mlir_syntax():
    module = parse_module(_module(OPS))
    text = print_module(module)
    for line in OPS.splitlines():
        assert line.strip() in text
    again = parse_module(text)
    assert print_module(again) == text
    assert again.is_structurally_equivalent(module)


def test_contract_fields_and_trait_alias():
    text = _module(OPS).replace("module {", f"#trait = {{indexing_maps = {MAPS}, iterator_types = "
                                '["parallel", "parallel", "reduction"], kind = #vector.kind<maxnumf>}\nmodule {', 1)
    text = text.replace(f"{{indexing_maps = {MAPS}, iterator_types = [\"parallel\", \"parallel\", "
                        "\"reduction\"], kind = #vector.kind<maxnumf>} %a2", "#trait %a2")
    module = parse_module(text)
    contract = next(op for op in module.walk() if isinstance(op, ContractionOp))
    assert contract.operand_dims == ((0, 2), (2, 1), (0, 1))
    assert contract.iterators == ("parallel", "parallel", "reduction")
    assert contract.iteration_shape == (4, 4, 4)
    assert print_module(module) == print_module(parse_module(_module(OPS)))
    reduction = next(op for op in module.walk() if isinstance(op, MultiDimReductionOp))
    assert reduction.dims == (1,)


BAD = [
    ("%q = vector.transpose %a2, [0, 0] : vector<4x4xf32> to vector<4x4xf32>", "vector.transpose.*not a permutation"),
    ("%q = vector.shape_cast %a : vector<16xf32> to vector<3x5xf32>", "vector.shape_cast"),
    ("%q = vector.multi_reduction <add>, %a2, %a [1] : vector<4x4xf32> to vector<16xf32>", "kept dims"),
    ("%z = arith.constant dense<0.0> : vector<4xf32>\n      "
     "%q = vector.multi_reduction <xor>, %a2, %z [1] : vector<4x4xf32> to vector<4xf32>", "kind 'xor'"),
    ("%q = vector.extract_strided_slice %a2 {offsets = [3], sizes = [2], strides = [1]} : vector<4x4xf32> to vector<2x4xf32>",
     "offset 3 \\+ size 2 leaves"),
    ("%e = vector.extract_strided_slice %a2 {offsets = [0], sizes = [2], strides = [1]} : vector<4x4xf32> to vector<2x4xf32>\n"
     "      %q = vector.insert_strided_slice %e, %a2 {offsets = [3, 0], strides = [1, 1]} : vector<2x4xf32> into vector<4x4xf32>",
     "insert_strided_slice.*offset 3"),
    ("%q = vector.step : vector<4xf32>", "1-D vector of index"),
    ("%q = vector.constant_mask [5] : vector<4xi1>", "within"),
    ("%q = vector.broadcast %a : vector<16xf32> to vector<4x8xf32>", "does not broadcast"),
    ("%s = vector.step : vector<4xindex>\n      %m = vector.constant_mask [3] : vector<4xi1>\n      "
     "%q = vector.gather %x[%c0] [%s], %m, %a : memref<64xf32>, vector<4xindex>, vector<4xi1>, vector<16xf32> into vector<16xf32>",
     "vector.gather: indices"),
    (f"%q = vector.contract {{indexing_maps = {MAPS}, iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}} %a2, %a2, %a "
     ": vector<4x4xf32>, vector<4x4xf32> into vector<16xf32>", "acc of type vector<16xf32> has rank 1"),
    ("%q = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
     "affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = [\"parallel\", \"parallel\", \"reduction\"]} %a2, %a2, %a2 "
     ": vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>", "parallel dim d1 must be walked by acc"),
    ("%q = vector.contract {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
     "affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\", \"reduction\"]} %a2, %a2, %a2 "
     ": vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>", "must have 3 dims"),
    (f"%b = vector.load %x[%c0] : memref<64xf32>, vector<8xf32>\n      %b2 = vector.shape_cast %b : vector<8xf32> to vector<4x2xf32>\n"
     f"      %q = vector.contract {{indexing_maps = {MAPS}, iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}} %a2, %b2, %a2 "
     ": vector<4x4xf32>, vector<4x2xf32> into vector<4x4xf32>", "iteration dim d1 has size"),
]


@pytest.mark.parametrize("body, message", BAD, ids=[b[1][:24] for b in BAD])
def test_verifier_errors_name_op_and_line(body, message):
    text = _module("      %a = vector.load %x[%c0] : memref<64xf32>, vector<16xf32>\n"
                   "      %a2 = vector.shape_cast %a : vector<16xf32> to vector<4x4xf32>\n      " + body)
    line = 7 + body.count("\n")
    with pytest.raises(LayoutError, match=rf"line {line}\b.*{message}"):
        parse_module(text)
