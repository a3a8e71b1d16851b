"""parse_module: the example kernels parse, print back to text that parses to the same
module, and bad input gives a LayoutError naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit.errors import LayoutError
from layoutkit.ir import MmaSyncOp, find_kernel, kernels, op_line, parse_module, print_module
from layoutkit.ir.dialects.upstream.gpu import ShuffleOp, SubgroupReduceOp, is_workgroup

EXAMPLES = sorted((Path(__file__).parents[2] / "examples" / "kernels").glob("*.mlir"))

SMALL = """\
module {
  gpu.module @m {
    gpu.func @k(%x: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %o = arith.constant 1 : i32
      %w = arith.constant 32 : i32
      %s, %ok = gpu.shuffle down %v, %o, %w : f32
      %r = gpu.subgroup_reduce maxnumf %s uniform cluster(size = 8) : (f32) -> f32
      %sh = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %r, %sh[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      gpu.return
    }
  }
}
"""


def test_examples_exist():
    names = {p.stem for p in EXAMPLES}
    assert {"vector_add", "transpose_padded", "transpose_swizzled", "block_sum", "matmul_mma",
            "softmax"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_round_trip(path):
    module = parse_module(path.read_text())
    text = print_module(module)
    again = parse_module(text)
    assert print_module(again) == text
    assert again.is_structurally_equivalent(module)
    assert path.stem.split("_")[0] in " ".join(kernels(module)) or kernels(module)


def test_small_module_fields_and_lines():
    module = parse_module(SMALL)
    kernel = find_kernel(module, "k")
    ops = list(kernel.walk())
    shuffle = next(op for op in ops if isinstance(op, ShuffleOp))
    assert shuffle.mode.data == "down"
    assert op_line(shuffle) == 8  # counted from the text above
    reduce = next(op for op in ops if isinstance(op, SubgroupReduceOp))
    assert reduce.op.data == "maxnumf" and reduce.uniform is not None
    assert reduce.cluster_size.value.data == 8
    alloc = next(op for op in ops if op.name == "memref.alloc")
    assert is_workgroup(alloc.memref.type.memory_space)
    assert "gpu.shuffle down %v, %o, %w : f32" in print_module(module)


def test_mma_shapes_parse():
    module = parse_module((Path(__file__).parents[2] / "examples/kernels/matmul_mma.mlir").read_text())
    mma = next(op for op in module.walk() if isinstance(op, MmaSyncOp))
    assert mma.shape == (16, 8, 16)


def test_unknown_kernel_lists_kernels():
    with pytest.raises(LayoutError, match="no kernel named 'q'.*k"):
        find_kernel(parse_module(SMALL), "q")


@pytest.mark.parametrize(
    "old, new, line, message",
    [
        ("shuffle down", "shuffle sideways", 8, "mode must be one of"),
        ("subgroup_reduce maxnumf", "subgroup_reduce average", 9, "kind must be one of"),
        ("cluster(size = 8)", "cluster(size = 6)", 9, "power of two"),
        ("gpu.thread_id x", "gpu.thread_id w", 4, "dimension must be x, y or z"),
        ("address_space<workgroup>>\n", "address_space<texture>>\n", 10, "address space"),
        ("gpu.barrier", "gpu.barier", 12, "gpu.barier is not registered"),
        ("gpu.barrier", "%n = gpu.subgroup_size : i32", 12, "i32 should be of base attribute index"),
        ("gpu.barrier", "%l = gpu.lane_id : index", 12, "column 24"),
        ("%v = memref.load %x[%t] : memref<64xf32>", "%v = memref.load %x[%t] : memref<64xf16>", 5, ""),
    ],
)
def test_errors_name_the_line(old, new, line, message):
    text = SMALL.replace(old, new, 1)
    assert text != SMALL
    with pytest.raises(LayoutError, match=f"line {line}") as err:
        parse_module(text)
    assert message in str(err.value)


def test_unclosed_string_fails_fast():
    """xDSL's string regex backtracks exponentially on an unclosed quote; parse_module
    rejects it first (this would take minutes otherwise)."""
    line = '      %v = memref.load %x[%t] : memref<64xf32>'
    text = SMALL.replace(line, '      %v = memref.lo"ad %x[%t] : memref<64xf32>' + " " * 40)
    with pytest.raises(LayoutError, match="line 5, column 21: string literal not closed"):
        parse_module(text)
    # quotes inside comments and closed strings are fine
    assert parse_module('// say "hi\n' + SMALL.replace("gpu.module @m", 'gpu.module @m attributes {note = "a \\" b"}'))


def test_mma_verifier_checks_fragment_types():
    text = """\
module {
  gpu.module @m {
    gpu.func @k() kernel {
      %a = arith.constant dense<0.0> : vector<2x2xf16>
      %b = arith.constant dense<0.0> : vector<2x2xf16>
      %c = arith.constant dense<0.0> : vector<2x2xf32>
      %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      gpu.return
    }
  }
}
"""
    with pytest.raises(LayoutError, match="line 7: nvgpu.mma.sync: operand A must be a vector<4x2"):
        parse_module(text)
    k8 = text.replace("[16, 8, 16]", "[16, 8, 8]")
    with pytest.raises(LayoutError, match="operand B must be a vector<1x2"):
        parse_module(k8)
    k8 = k8.replace("%b = arith.constant dense<0.0> : vector<2x2xf16>",
                    "%b = arith.constant dense<0.0> : vector<1x2xf16>")
    assert parse_module(k8.replace("(vector<2x2xf16>, vector<2x2xf16>,", "(vector<2x2xf16>, vector<1x2xf16>,"))
    with pytest.raises(LayoutError, match="mmaShape"):
        parse_module(text.replace("[16, 8, 16]", "[16, 16, 16]"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=st.integers(0, len(SMALL) - 1), junk=st.sampled_from(
    ["", "%", "}", "{", "x", ":", " foo ", "vector<", "0", "@", ",", "gpu.", "\n", '"', "(", "]"]),
    cut=st.integers(0, 6))
def test_fuzz_value_or_layout_error(position, junk, cut):
    text = SMALL[:position] + junk + SMALL[position + cut:]
    try:
        module = parse_module(text)
    except LayoutError:
        return
    assert print_module(module)


GLOBAL = """\
module {
  gpu.module @m {
    memref.global "private" @tile : memref<32x33xf32, #gpu.address_space<workgroup>>
    memref.global "public" constant @aligned : memref<8xi32, 3> = uninitialized {alignment = 16 : i64}
    gpu.func @k() kernel {
      %t = memref.get_global @tile : memref<32x33xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
"""


def test_memref_global_in_mlir_syntax():
    module = parse_module(GLOBAL)
    globals_ = {op.sym_name.data: op for op in module.walk() if op.name == "memref.global"}
    tile, aligned = globals_["tile"], globals_["aligned"]
    assert tile.sym_visibility.data == "private" and tile.constant is None
    assert is_workgroup(tile.type.memory_space) and tile.type.get_shape() == (32, 33)
    assert aligned.constant is not None and aligned.alignment.value.data == 16
    assert is_workgroup(aligned.type.memory_space)
    text = print_module(module)
    assert 'memref.global "private" @tile : memref<32x33xf32, #gpu.address_space<workgroup>> ' \
           "= uninitialized" in text
    assert print_module(parse_module(text)) == text


@pytest.mark.parametrize("old, new, line, message", [
    ("get_global @tile", "get_global @tyle", 6, "no memref.global @tyle"),
    ("memref<32x33xf32, #gpu.address_space<workgroup>>\n      gpu.return",
     "memref<32x32xf32, #gpu.address_space<workgroup>>\n      gpu.return", 6, "@tile has type"),
    ("= uninitialized", "= dense<1>", 4, "only '= uninitialized' is supported"),
    ("@tile :", "@tile", 3, "Expected ':'"),
])
def test_memref_global_errors_name_the_line(old, new, line, message):
    with pytest.raises(LayoutError, match=rf"line {line}\b.*{message}"):
        parse_module(GLOBAL.replace(old, new, 1))


def test_error_in_the_first_token_names_the_line():
    """xDSL lexes the first token when its parser is built: that error is a LayoutError too."""
    with pytest.raises(LayoutError, match=r"line 1, column 2: Expected three consecutive '\.'"):
        parse_module(" .. x\n")


def _constant_kernel(literal: str, element: str) -> str:
    return ("module {\n  gpu.module @m {\n    gpu.func @k(%o: memref<4x" + element + ">) kernel {\n"
            f"      %c = arith.constant {literal} : {element}\n"
            "      gpu.return\n    }\n  }\n}")


@pytest.mark.parametrize("literal, element, expected", [
    # MLIR converts the literal's double to the type rounding to nearest even: past the
    # largest finite value by half an ulp or more it is inf (f16: max 65504, ulp there 32)
    ("1.0e6", "f16", float("inf")), ("-1.0e6", "f16", float("-inf")),
    ("65520.0", "f16", float("inf")), ("65519.0", "f16", 65504.0),
    ("1.0e40", "f32", float("inf")), ("-1.0e39", "f32", float("-inf")),
    ("3.4e38", "bf16", float("inf")), ("1.0e6", "f32", 1.0e6),
])
def test_float_literals_out_of_range_round_to_inf_like_mlir(literal, element, expected):
    module = parse_module(_constant_kernel(literal, element))
    constants = [op for op in module.walk() if op.name == "arith.constant"]
    assert constants[0].value.value.data == expected


def test_dense_float_literal_out_of_range_names_the_line():
    text = _constant_kernel("dense<[1.0e6, 2.0]>", "f16").replace(": f16\n", ": vector<2xf16>\n")
    with pytest.raises(LayoutError, match=r"line 4.*out of range.*1\.0e6"):
        parse_module(text)
