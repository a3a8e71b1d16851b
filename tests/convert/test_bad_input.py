"""Bad input gives a LayoutError naming the problem; the CLI prints one ``error:`` line, exit 2;
and the CLI prints what the plan says."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError, LinearLayout, parse_layout
from layoutkit.cli import main
from layoutkit.convert import plan_conversion

BLOCKED = ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
           "warpsPerCTA = [4, 1], order = [1, 0]}>")
BLOCKED_8_WARPS = ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
                   "warpsPerCTA = [8, 1], order = [1, 0]}>")
TRANSPOSED = ("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], "
              "warpsPerCTA = [1, 4], order = [0, 1]}>")
SWIZZLED = "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>"


def test_different_hardware_sizes():
    with pytest.raises(LayoutError, match="4 warp.*8"):
        plan_conversion(parse_layout(BLOCKED), parse_layout(BLOCKED_8_WARPS), (64, 64), "f16")


def test_layouts_over_different_shapes():
    linear = LinearLayout({"register": [[0, 1]], "lane": [], "warp": []}, {"dim0": 1, "dim1": 2})
    with pytest.raises(LayoutError, match="shape"):
        plan_conversion(linear, parse_layout(BLOCKED), (64, 64), "f16")


def test_memory_layout_is_not_distributed():
    with pytest.raises(LayoutError, match="memory layout"):
        plan_conversion(parse_layout(SWIZZLED), parse_layout(BLOCKED), (16, 16), "f16")
    with pytest.raises(LayoutError, match="dst.*memory layout"):
        plan_conversion(parse_layout(BLOCKED), parse_layout(SWIZZLED), (16, 16), "f16")


@pytest.mark.parametrize("dtype", ["f17", "float", 0, None])
def test_unknown_element_type(dtype):
    with pytest.raises(LayoutError, match="element type"):
        plan_conversion(parse_layout(BLOCKED), parse_layout(BLOCKED), (16, 16), dtype)


def test_source_missing_elements_the_destination_needs():
    partial = LinearLayout({"register": [[0, 1]], "lane": [], "warp": []}, {"dim0": 2, "dim1": 2})
    full = LinearLayout({"register": [[0, 1], [1, 0]], "lane": [], "warp": []}, {"dim0": 2, "dim1": 2})
    with pytest.raises(LayoutError, match="does not hold element"):
        plan_conversion(partial, full, (2, 2), "f32")


@pytest.mark.parametrize("scratch", [0, -4, 1, True])
def test_bad_scratch_budget(scratch):
    with pytest.raises(LayoutError, match="scratch_bytes"):
        plan_conversion(parse_layout(BLOCKED), parse_layout(TRANSPOSED), (64, 64), "f32", scratch_bytes=scratch)


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args,needle", [
    (("-l", BLOCKED, "-t", "tensor<64x64xf16>"), "exactly two layouts"),
    (("-l", BLOCKED, "-l", BLOCKED_8_WARPS, "-t", "tensor<64x64xf16>"), "hardware"),
    (("-l", BLOCKED, "-l", BLOCKED, "-t", "tensor<64x64xf17>"), "element type"),
    (("-l", SWIZZLED, "-l", BLOCKED, "-t", "tensor<16x16xf16>"), "memory layout"),
    (("-l", "#ttg.blocked<{sizePerThread = [1, x]}>", "-l", BLOCKED, "-t", "tensor<16x16xf16>"), "sizePerThread"),
    (("-l", BLOCKED, "-l", TRANSPOSED, "-t", "tensor<64x64xf32>", "--scratch-bytes", "2"), "scratch_bytes"),
])
def test_cli_errors_are_one_line(capsys, args, needle):
    code, out, err = run(capsys, "convert", *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and needle in err


def test_cli_prints_kind_layout_and_cost(capsys):
    code, out, _ = run(capsys, "convert", "-l", BLOCKED, "-l", TRANSPOSED, "-t", "tensor<64x64xf32>")
    assert code == 0
    assert "conversion:   shared" in out
    shared_line = next(line for line in out.splitlines() if line.startswith("shared layout: "))
    scratch = parse_layout(shared_line.removeprefix("shared layout: "))
    assert scratch.kind == "memory"
    assert "store wavefronts" in out and "scratch bytes         16384" in out


def test_cli_explain_and_json_agree_with_the_plan(capsys):
    code, out, _ = run(capsys, "convert", "-l", BLOCKED, "-l", TRANSPOSED, "-t", "tensor<64x64xf32>", "--explain")
    assert code == 0 and "st.shared" in out and "bar.sync" in out and "ld.shared" in out
    code, out, _ = run(capsys, "convert", "-l", BLOCKED, "-l", TRANSPOSED, "-t", "tensor<64x64xf32>", "--json")
    data = json.loads(out)
    plan = plan_conversion(parse_layout(BLOCKED), parse_layout(TRANSPOSED), (64, 64), "f32")
    assert data["kind"] == "shared"
    assert data["cost"] == plan.cost.to_dict()
    assert data["shared_layout"] == plan.scratch_text


def test_cli_nested_layouts_take_subgroup_options(capsys):
    nested = ("#iree_vector_ext.nested_layout<subgroup_tile = [1, 1], batch_tile = [2, 1], outer_tile = [1, 1], "
              "thread_tile = [4, 8], element_tile = [1, 4], subgroup_strides = [0, 0], thread_strides = [8, 1]>")
    nested_b = nested.replace("batch_tile = [2, 1]", "batch_tile = [1, 1]").replace("outer_tile = [1, 1]", "outer_tile = [2, 1]")
    code, out, err = run(capsys, "convert", "-l", nested, "-l", nested_b, "-t", "tensor<8x32xf16>",
                         "--subgroup-size", "32", "--num-subgroups", "1")
    assert code == 0, err
    assert "conversion:   no-op" in out or "conversion:   registers" in out


def test_conversion_across_blocks_is_refused():
    a = parse_layout(BLOCKED.replace("order = [1, 0]", "order = [1, 0], CGALayout = [[1, 0]]"))
    b = parse_layout(TRANSPOSED.replace("order = [0, 1]", "order = [0, 1], CGALayout = [[0, 1]]"))
    with pytest.raises(LayoutError, match="between blocks"):
        plan_conversion(a, b, (64, 64), "f16")


PIECES = [BLOCKED, TRANSPOSED, SWIZZLED, "#ttg.", "#ttg.blocked<{", "sizePerThread = [1, 4]", "}>", "[", "]",
          "tensor<", "64x64x", "f16", "f17", ">", "x", "#mma", "0", "-1"]


@given(src=st.lists(st.sampled_from(PIECES), max_size=4).map("".join),
       dst=st.lists(st.sampled_from(PIECES), max_size=4).map("".join),
       tensor=st.lists(st.sampled_from(PIECES + ["tensor<64x64xf16>"]), max_size=3).map("".join))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_cli_never_shows_a_traceback(capsys, src, dst, tensor):
    code = main(["convert", "-l", src, "-l", dst, "-t", tensor])
    out, err = capsys.readouterr()
    assert code in (0, 2)
    if code == 2:
        assert err.startswith("error: ") and err.count("\n") == 1


def test_cli_reads_aliases_from_a_file(capsys, tmp_path):
    path = tmp_path / "kernel.ttgir"
    path.write_text(f"#blocked = {BLOCKED}\n#transposed = {TRANSPOSED}\n", encoding="utf-8")
    code, out, err = run(capsys, "convert", "-i", str(path), "-l", "#blocked", "-l", "#transposed",
                         "-t", "tensor<64x64xf32>", "--json")
    assert code == 0, err
    assert json.loads(out)["kind"] == "shared"
    code, out, err = run(capsys, "convert", "-i", str(tmp_path / "missing.ttgir"), "-l", "#blocked", "-l", "#blocked",
                         "-t", "tensor<64x64xf32>")
    assert code == 2 and err.startswith("error: input: cannot read")


# -- hostile input: quick, one line naming the field and quoting the text ---------------------

def test_huge_tensor_is_a_quick_clear_error():
    start = time.perf_counter()
    with pytest.raises(LayoutError, match=r"shape: '\(1048576, 1048576\)' has 1099511627776 elements"):
        plan_conversion(parse_layout(BLOCKED), parse_layout(TRANSPOSED), (1 << 20, 1 << 20), "f16")
    assert time.perf_counter() - start < 2


def test_layout_with_too_many_hardware_slots_is_refused_before_tabulating():
    # 2**21 registers all holding element (0, 0) or (0, 1) of a 1x2 tensor
    wide = LinearLayout({"register": [[0, 1]] + [[0, 0]] * 20, "lane": [], "warp": []}, {"dim0": 1, "dim1": 2})
    narrow = LinearLayout({"register": [[0, 1]], "lane": [], "warp": []}, {"dim0": 1, "dim1": 2})
    with pytest.raises(LayoutError, match=r"(?s)src: .* has 2097152 hardware slots"):
        plan_conversion(wide, narrow, (1, 2), "f32")


@pytest.mark.parametrize("src", [BLOCKED, None, 42, np.zeros((2, 2))])
def test_things_that_are_not_layouts(src):
    with pytest.raises(LayoutError, match="src: expected a layout, got"):
        plan_conversion(src, parse_layout(BLOCKED), (64, 64), "f16")


@pytest.mark.parametrize("bits", [256, 1 << 70, -8])
def test_element_bit_widths_beyond_one_vector_access(bits):
    with pytest.raises(LayoutError, match=f"element type: bit width must be 1 to 128.*'{bits}'"):
        plan_conversion(parse_layout(BLOCKED), parse_layout(TRANSPOSED), (64, 64), bits)


HOSTILE = [
    (("-l", BLOCKED, "-l", BLOCKED, "-t", "tensor<1048576x1048576xf16>"),
     "tensor: 'tensor<1048576x1048576xf16>' has 1099511627776 elements"),
    (("-l", BLOCKED, "-l", BLOCKED, "-t", "tensor<" + "8x" * 40 + "f16>"), "tensor: 'tensor<8x8x8x"),
    (("-l", "garbage", "-l", BLOCKED, "-t", "tensor<64x64xf16>"), "src: "),
    (("-l", BLOCKED, "-l", "#ttg.blocked<{", "-t", "tensor<64x64xf16>"), "dst: "),
    (("-l", BLOCKED, "-l", BLOCKED, "-t", "tensor<64x64xbogus>"), "'bogus'"),
    (("-l", BLOCKED, "-l", BLOCKED, "-t", "garbage"), "tensor type: expected 'tensor<DxDx...xTYPE>' or 'vector<DxDx...xTYPE>', got 'garbage'"),
    (("-l", BLOCKED, "-l", BLOCKED_8_WARPS, "-t", "tensor<64x64xf16>"), "hardware: the source layout has 4 warp(s)"),
    (("-l", BLOCKED, "-l", SWIZZLED, "-t", "tensor<16x16xf16>"), "dst: '#ttg.swizzled_shared<"),
    (("-l", BLOCKED.replace("threadsPerWarp = [4, 8]", "threadsPerWarp = [8, 8]"), "-l", BLOCKED,
      "-t", "tensor<64x64xf16>"), "hardware: the source layout has 64 lane(s) and the destination 32"),
    (("-l", BLOCKED, "-l", TRANSPOSED, "-t", "tensor<64x64xf32>", "--scratch-bytes", "-5"),
     "scratch_bytes: expected a positive integer, got '-5'"),
    (("-l", BLOCKED, "-l", TRANSPOSED, "-t", "tensor<64x64xf32>", "--scratch-bytes", "1e9"), "'1e9'"),
    (("-l", BLOCKED, "-l", TRANSPOSED, "-t", "tensor<64x64xf32>", "--scratch-bytes", "3"),
     "scratch_bytes: 3 bytes cannot hold one"),
]


@pytest.mark.parametrize("args,needle", HOSTILE)
def test_cli_hostile_input_is_one_error_line(capsys, args, needle):
    start = time.perf_counter()
    code, out, err = run(capsys, "convert", *args)
    assert time.perf_counter() - start < 5
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and needle in err, err


def test_cli_huge_scratch_budget_is_no_budget(capsys):
    code, out, err = run(capsys, "convert", "-l", BLOCKED, "-l", TRANSPOSED, "-t", "tensor<64x64xf32>",
                         "--scratch-bytes", str(10 ** 30))
    assert code == 0, err
    assert "repetitions           1" in out


def test_cli_binary_input_file(capsys, tmp_path):
    path = tmp_path / "kernel.bin"
    path.write_bytes(b"\xd0\xff\x00#blocked")
    code, out, err = run(capsys, "convert", "-i", str(path), "-l", "#blocked", "-l", "#blocked",
                         "-t", "tensor<64x64xf32>")
    assert code == 2 and err == f"error: input: '{path}' is not UTF-8 text (byte 0xd0 at position 0)\n"


@pytest.mark.parametrize("args,needle", [HOSTILE[0], HOSTILE[2], HOSTILE[8]])
def test_subprocess_shows_no_traceback(args, needle):
    result = subprocess.run([sys.executable, "-m", "layoutkit", "convert", *args], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ") and needle in result.stderr


def test_mlir_integer_and_triton_pointer_element_types():
    from layoutkit.layouts.parse import element_bits, parse_tensor_type

    assert parse_tensor_type("tensor<4x8x!tt.ptr<f16>, #blocked>") == ((4, 8), "!tt.ptr<f16>")
    assert [element_bits(t) for t in ("!tt.ptr<f16>", "i24", "ui4", "si16", "i128")] == [64, 24, 4, 16, 128]
    for bad in ("i0", "i01", "q8", "!tt.ptr"):
        with pytest.raises(LayoutError, match="element type"):
            element_bits(bad)
    src, dst = parse_layout(BLOCKED), parse_layout(TRANSPOSED)
    # a pointer is 8 bytes: the whole 64x64 tile is 64 * 64 * 8 bytes of scratch, as for i64
    pointer = plan_conversion(src, dst, (64, 64), "!tt.ptr<f16>")
    assert pointer.cost.scratch_bytes == 64 * 64 * 8 == plan_conversion(src, dst, (64, 64), "i64").cost.scratch_bytes
    assert plan_conversion(src, dst, (64, 64), "i3").cost.scratch_bytes == 64 * 64  # sub-byte: a byte each
    for bits in ("i24", 24, "i96"):
        with pytest.raises(LayoutError, match="element type: a (24|96)-bit element is no power-of-two number of bytes"):
            plan_conversion(src, dst, (64, 64), bits)
    with pytest.raises(LayoutError, match="element type: bit width must be 1 to 128.*'i256'"):
        plan_conversion(src, dst, (64, 64), "i256")
