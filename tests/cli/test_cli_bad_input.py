"""Malformed and hostile input to `layoutkit show` and `layoutkit transform`: each case prints
exactly one `error: ...` line that names the field and quotes the offending text, exits 2,
and never hangs, runs out of memory or shows a traceback -- through `main([...])`, through a
subprocess, and for random argument strings (hypothesis)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit.cli import main

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
MMA = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>"
SHARED = "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>"
T16 = "tensor<16x16xf16>"
TMAP = ('#rock.transform_map<affine_map<(d0, d1) -> (d0, d1)> by [<PassThrough ["M"] at [0] -> ["M"] at [0]>, '
        '<Pad{0, 46} ["Kp"] at [1] -> ["K"] at [1]>] bounds = [128, 64] -> [128, 18]>')
MERGE = ('#rock.transform_map<affine_map<(d0) -> (d0 floordiv 3, d0 mod 3)> by '
         '[<Merge{2, 3} ["K"] at [0] -> ["I", "W"] at [0, 1]>] bounds = [6] -> [2, 3]>')
HUGE = "99999999999"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_error_line(code: int, out: str, err: str, fragments: tuple[str, ...] | list[str] = ()) -> None:
    """Exit status 2, nothing on stdout, one ``error:`` line holding every fragment."""
    assert code == 2, (code, err)
    assert out == ""
    assert err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


@pytest.fixture
def files(tmp_path):
    """Paths of an alias file, an empty file, a binary file and a directory."""
    (tmp_path / "aliases.ttgir").write_text(f"#blocked = {BLOCKED}\n")
    (tmp_path / "empty.ttgir").write_text("")
    (tmp_path / "binary.ttgir").write_bytes(b"\xff\xfe\x00#blocked = ")
    (tmp_path / "dir").mkdir()
    return {name: str(tmp_path / name) for name in ("aliases.ttgir", "empty.ttgir", "binary.ttgir", "dir")}


# (arguments, fragments the message must hold: the field and the quoted text)
SHOW_CASES = [
    (["-l", "garbage", "-t", T16], ["layout text: ", "'garbage'", "is no layout"]),
    (["-l", "", "-t", T16], ["layout text: empty"]),
    (["-l", "   ", "-t", T16], ["layout text: empty"]),
    (["-l", BLOCKED, "-t", ""], ["tensor type: ", "''"]),
    (["-l", BLOCKED, "-t", "tensor<16xf16>"], ["shape: ", "'[16]'", "rank 2"]),
    (["-l", BLOCKED, "-t", "tensor<16x16x16xf16>"], ["shape: ", "'[16, 16, 16]'"]),
    (["-l", MMA, "-t", "tensor<16xf16>"], ["shape: ", "'[16]'"]),
    (["-l", BLOCKED.replace("[1, 4]", "[1, 3]"), "-t", T16], ["sizePerThread: ", "'[1, 3]'", "power of two"]),
    (["-l", BLOCKED.replace("[1, 4]", "[1, 4, 2]"), "-t", T16], ["sizePerThread: ", "'[1, 4, 2]'", "rank"]),
    (["-l", BLOCKED.replace("[1, 4]", f"[{HUGE}]"), "-t", T16], ["sizePerThread: ", f"'[{HUGE}]'"]),
    (["-l", BLOCKED.replace("[1, 4]", f"[1, {HUGE}]"), "-t", T16], ["sizePerThread: ", f"'[1, {HUGE}]'"]),
    (["-l", BLOCKED.replace("[1, 4]", "[1, 1099511627776]"), "-t", T16], ["sizePerThread: ", "1099511627776"]),
    (["-l", MMA.replace("[4, 1]", f"[{HUGE}, 1]"), "-t", T16], ["warpsPerCTA: ", HUGE]),
    (["-l", SHARED.replace("vec = 2", f"vec = {HUGE}"), "-t", T16], ["vec: ", f"'{HUGE}'"]),
    (["-l", BLOCKED, "-t", "tensor<1099511627776x2xf16>"], ["shape: ", "'[1099511627776, 2]'"]),
    (["-l", BLOCKED, "-t", "tensor<1099511627776x2xf16>", "--hw-view"], ["shape: ", "'[1099511627776, 2]'"]),
    (["-l", SHARED, "-t", "tensor<1099511627776x2xf16>"], ["shape: ", "'[1099511627776, 2]'"]),
    (["-l", SHARED, "-t", "tensor<1099511627776x2xf16>", "--hw-view"], ["shape: ", "'[1099511627776, 2]'"]),
    (["-l", BLOCKED, "-t", "tensor<1048576x2xf16>"], ["shape: ", "'[1048576, 2]'", "at most 1048576"]),
    (["-l", BLOCKED, "-t", "tensor<99999999999999999999999999x2xf16>"], ["shape: ", "99999999999999999999999999"]),
    (["-l", BLOCKED, "-t", "tensor<3x16xf16>"], ["shape: ", "'[3, 16]'", "power-of-two"]),
    (["-l", BLOCKED, "-t", "tensor<0x16xf16>"], ["tensor type: ", "'tensor<0x16xf16>'"]),
    (["-l", BLOCKED, "-t", "tensor<?x16xf16>"], ["tensor type: ", "'tensor<?x16xf16>'"]),
    (["-l", BLOCKED, "-t", "tensor<16x16xfoo>"], ["tensor type: ", "'foo'"]),
    (["-l", BLOCKED, "-t", "tensor<16x16xf16"], ["tensor type: ", "'tensor<16x16xf16'"]),
    (["-l", BLOCKED, "-t", "tensör<16x16xf16>"], ["tensor type: ", "'tensör<16x16xf16>'"]),
    (["-t", "tensor<16x16xf16, garbage>"], ["'garbage'"]),
    (["-l", "#ttg.blöcked<{}>", "-t", T16], ["encoding: ", "'blöcked'"]),
    (["-l", "#ttg.blocked<{sizePerThread = [1, 4]}>", "-t", T16], ["'#ttg.blocked<{sizePerThread = [1, 4]}>'"]),
    (["-l", BLOCKED + BLOCKED, "-t", T16], ["layout: ", "'#ttg.blocked"]),
    (["-l", "\x00", "-t", T16], ["layout text: "]),
    (["-l", "#ttg.slice<{dim = 5, parent = " + BLOCKED + "}>", "-t", "tensor<16xf16>"], ["dim: ", "5"]),
    (["-l", "#ttg.dot_op<{opIdx = 3, parent = " + MMA + ", kWidth = 2}>", "-t", T16], ["opIdx: ", "'3'"]),
    (["-l", "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [31, 32, 8], isTransposed = true}>",
      "-t", "tensor<64x64xf16>"], ["instrShape: ", "'[31, 32, 8]'"]),
    (["-l", "#ttg.nvmma_shared<{swizzlingByteWidth = 127, transposed = false, elementBitWidth = 16}>", "-t", T16],
     ["swizzlingByteWidth: ", "'127'"]),
    (["-l", BLOCKED, "-t", T16, "--subgroup-size", "-1"], ["'--subgroup-size'", "-1"]),
    (["-l", BLOCKED, "-t", T16, "--num-subgroups", "0"], ["'--num-subgroups'", "0"]),
    (["-l", BLOCKED, "-t", T16, "--subgroup-size", "x"], ["'--subgroup-size'", "'x'"]),
    (["-l", BLOCKED, "-t", T16, "--alias-names", "blocked"], ["alias-names: ", "'blocked'", "-i/--input"]),
    (["-t", T16], ["layout: ", "-l/--layout"]),
    (["-l", BLOCKED], ["Missing option", "'-t'"]),
    (["-l", BLOCKED, "-t", T16, "--no-such-option"], ["--no-such-option"]),
    # nesting deep enough to exhaust Python's stack
    (["-l", "#ttg.dot_op<{opIdx = 0, parent = " * 3000 + BLOCKED + "}>" * 3000, "-t", T16],
     ["nested more than 64 levels deep", "'#ttg.dot_op<{opIdx = 0, parent = "]),
    (["-l", "#ttg.linear<{register = " + "[" * 5000 + "]" * 5000 + "}>", "-t", T16],
     ["nested more than 64 levels deep", "'#ttg.linear<{register = [[["]),
    (["-l", "(" * 5000 + "4" + ")" * 5000 + ":1", "-t", T16], ["layout: ", "'(((("]),
]


@pytest.mark.parametrize("args, fragments", SHOW_CASES)
def test_show_bad_input_is_one_error_line(capsys, args, fragments):
    code, out, err = run(capsys, "show", *args)
    assert_one_error_line(code, out, err, fragments)


@pytest.mark.parametrize(
    "file, extra, fragments",
    [
        ("missing", [], ["input: cannot read ", "No such file"]),
        ("dir", [], ["input: cannot read ", "dir'"]),
        ("binary.ttgir", [], ["input: ", "binary.ttgir'", "not UTF-8"]),
        ("empty.ttgir", [], ["input: ", "defines no"]),
        ("aliases.ttgir", ["--alias-names", "mma"], ["alias-names: ", "'#mma'"]),
        ("aliases.ttgir", ["--alias-names", ","], ["alias-names: ", "','"]),
        ("aliases.ttgir", ["-o", "dir"], ["output: cannot write ", "dir'"]),
        ("aliases.ttgir", ["-o", "missing/view.txt"], ["output: cannot write ", "view.txt'"]),
    ],
)
def test_show_bad_files_are_one_error_line(capsys, files, tmp_path, file, extra, fragments):
    path = files.get(file, str(tmp_path / file))
    extra = [files.get(e, str(tmp_path / e)) if e in ("dir", "missing/view.txt") else e for e in extra]
    code, out, err = run(capsys, "show", "-i", path, "-t", T16, *extra)
    assert_one_error_line(code, out, err, fragments)


def transform_map(bounds_up: str, bounds_low: str, transform: str = '<PassThrough ["a"] at [0] -> ["b"] at [0]>') -> str:
    return f"#rock.transform_map<affine_map<(d0) -> (d0)> by [{transform}] bounds = [{bounds_up}] -> [{bounds_low}]>"


TRANSFORM_CASES = [
    ([], ["Missing argument"]),
    ([""], ["TEXT: ", "''"]),
    (["garbage"], ["TEXT: ", "'garbage'"]),
    (["/no/such/maps.mlir"], ["TEXT: ", "'/no/such/maps.mlir'"]),
    (["#rock.transform_map<"], ["transform_map: ", "'#rock.transform_map<'"]),
    ([transform_map("4", "5")], ["transform_map: ", "'a'", "size 5"]),
    ([transform_map("0", "0")], ["bounds: ", "'[0]'"]),
    ([transform_map("-4", "-4")], ["bounds: ", "'[-4]'"]),
    ([transform_map("4", "4", '<Frob ["a"] at [0] -> ["b"] at [0]>')], ["transform: ", "'Frob'"]),
    ([transform_map("4", "4", '<PassThrough ["a"] at [0] -> ["b"] at [7]>')], ["transform_map: ", "lower dim 7"]),
    ([transform_map("4", "4", '<Xor{3, 0} ["a"] at [0] -> ["b"] at [0]>')], ["Xor{3, 0}", "two upper dims"]),
    ([transform_map("4", "4", f'<Pad{{0, {HUGE}}} ["a"] at [0] -> ["b"] at [0]>')], [f"Pad{{0, {HUGE}}}", "'a'"]),
    ([MERGE.replace("Merge{2, 3}", f"Merge{{2, {HUGE}}}")], [f"Merge{{2, {HUGE}}}", "'W'"]),
    ([MERGE, TMAP], ["transform chain: ", "lower space"]),
    ([TMAP, "--diff", "1"], ["--diff: ", "'1'", "2 upper dims"]),
    ([TMAP, "--diff", "x,1"], ["--diff: ", "'x,1'"]),
    ([TMAP, "--diff", ""], ["--diff: ", "''"]),
    ([TMAP, "--diff", "0,-1"], ["--diff: ", "'0,-1'", ">= 0"]),
    ([TMAP, "--no-such-option"], ["--no-such-option"]),
    ([transform_map("4", "4").replace("-> (d0)", "-> (" + "(" * 5000 + "d0" + ")" * 5000 + ")")],
     ["affine_map: nested deeper than 64 levels", "'#rock.transform_map<affine_map<(d0) -> ((("]),
    ([transform_map("4", "4").replace("-> (d0)", "-> (d0" + " mod 7 floordiv 2" * 3000 + ")")],
     ["divisions nested deeper than 64 levels", "found 'mod'"]),
    ([transform_map("4", "4").replace("-> (d0)", "-> (d0 floordiv 99999999999999999999999999999)")],
     ["affine_map: constants must lie below 2**62", "'99999999999999999999999999999'"]),
    ([transform_map(str(10**30), str(10**30)), "--bounds", "--diff", "1"], ["bounds: ", f"'[{10**30}]'"]),
    ([transform_map("4", "4", f'<Embed{{{2**62}}} ["a"] at [0] -> ["b"] at [0]>')], ["Embed: ", f"'[{2**62}]'"]),
]


@pytest.mark.parametrize("args, fragments", TRANSFORM_CASES)
def test_transform_bad_input_is_one_error_line(capsys, args, fragments):
    code, out, err = run(capsys, "transform", *args)
    assert_one_error_line(code, out, err, fragments)


@pytest.mark.parametrize("file, fragments", [("dir", ["TEXT: cannot read ", "dir'"]),
                                             ("binary.ttgir", ["TEXT: ", "binary.ttgir'", "not UTF-8"]),
                                             ("aliases.ttgir", ["transform_map: ", "no '#rock.transform_map<...>'"])])
def test_transform_bad_files_are_one_error_line(capsys, files, file, fragments):
    code, out, err = run(capsys, "transform", files[file])
    assert_one_error_line(code, out, err, fragments)


def test_huge_but_valid_transform_sizes_are_fine(capsys):
    """Sizes far beyond memory are only numbers to the analysis: no enumeration, no error."""
    code, out, err = run(capsys, "transform", transform_map(HUGE, HUGE), "--bounds", "--diff", HUGE * 2)
    assert code == 0, err
    assert out.splitlines()[0] == f"upper: a={HUGE}"


@pytest.mark.parametrize(
    "args",
    [
        ["show", "-l", BLOCKED.replace("[1, 4]", f"[{HUGE}]"), "-t", T16],
        ["show", "-l", SHARED, "-t", "tensor<1099511627776x2xf16>"],
        ["show", "-l", "#ttg.blöcked<{}>", "-t", T16],
        ["show", "-l", BLOCKED, "-t", T16, "-i", "/no/such/file"],
        ["transform", "#rock.transform_map<"],
        ["transform", TMAP, "--diff", "1"],
    ],
)
def test_subprocess_prints_one_error_line(args):
    done = subprocess.run([sys.executable, "-m", "layoutkit", *args], capture_output=True, text=True, timeout=60)
    assert_one_error_line(done.returncode, done.stdout, done.stderr)


# ------------------------------------------------------------------------------------------
# random argument strings
# ------------------------------------------------------------------------------------------
GOOD_LAYOUTS = [
    BLOCKED, MMA, SHARED,
    "#ttg.dot_op<{opIdx = 0, parent = " + MMA + ", kWidth = 2}>",
    "#ttg.slice<{dim = 1, parent = " + BLOCKED + "}>",
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>",
    "((4,8),(2,2)):((32,1),(16,8))",
]
GOOD_TENSORS = ["tensor<16x16xf16>", "tensor<4x8xf16>", "tensor<32x32xf32>", "tensor<16xf16>", "tensor<2x4x8xi8>"]


@st.composite
def mutated(draw, texts: list[str]) -> str:
    """A known-good text after a few random edits: cut, insert, huge number, repeat."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 8)))
        edit = draw(st.sampled_from(["cut", "insert", "number", "repeat"]))
        if edit == "cut":
            text = text[:i] + text[j:]
        elif edit == "insert":
            text = text[:i] + draw(st.text(alphabet="[]{}<>(),:=#x0123456789 -.aé\"", max_size=4)) + text[i:]
        elif edit == "number":
            text = text[:i] + draw(st.sampled_from(["0", "3", "-1", "64", HUGE, "1099511627776"])) + text[j:]
        else:
            text = text[:i] + text[i:j] * 2 + text[j:]
    return text


SHOW_OPTIONS = ["-l", "-t", "-i", "--alias-names", "--hw-view", "--subgroup-size", "--num-subgroups"]
SHOW_TOKENS = st.one_of(
    st.sampled_from(SHOW_OPTIONS), mutated(GOOD_LAYOUTS), mutated(GOOD_TENSORS), st.text(max_size=12)
)
TRANSFORM_TOKENS = st.one_of(st.sampled_from(["--bounds", "--diff"]), mutated([TMAP, MERGE, "0,1", "1"]),
                             st.text(max_size=12))


def assert_value_or_one_error_line(argv: list[str], capsys) -> None:
    # relative file names in random arguments resolve inside an empty directory
    with tempfile.TemporaryDirectory() as empty:
        cwd = os.getcwd()
        os.chdir(empty)
        try:
            code, out, err = run(capsys, *argv)
        finally:
            os.chdir(cwd)
    if code == 0:
        assert err == "" and (out.endswith("\n") or out == ""), err
    else:
        assert_one_error_line(code, out, err)
        assert re.match(r"error: \S", err), err


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(SHOW_TOKENS, max_size=6))
def test_random_show_arguments(capsys, tokens):
    assert_value_or_one_error_line(["show", *tokens], capsys)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(SHOW_TOKENS, max_size=2), mutated(GOOD_LAYOUTS), mutated(GOOD_TENSORS))
def test_random_show_layouts(capsys, extra, layout, tensor):
    assert_value_or_one_error_line(["show", "-l", layout, "-t", tensor, *extra], capsys)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(TRANSFORM_TOKENS, max_size=5))
def test_random_transform_arguments(capsys, tokens):
    assert_value_or_one_error_line(["transform", *tokens], capsys)
