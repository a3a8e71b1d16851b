"""Malformed and hostile input to `layoutkit render`, and nested / CuTe layout text through
`render` and `show`: every case prints one `error: ...` line naming the field and quoting the
text, exits 2, writes no picture, and fails fast (bad output paths are refused before
anything is drawn) -- through `main([...])`, a subprocess, and for random layout text
(hypothesis)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError
from layoutkit.cli import main
from layoutkit.render.picture import drawing_of

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
NESTED = ("#iree_vector_ext.nested_layout<subgroup_tile = [2, 1], batch_tile = [2, 4], outer_tile = [1, 1], "
          "thread_tile = [16, 4], element_tile = [1, 4], subgroup_strides = [1, 0], thread_strides = [1, 16]>")
SMALL = ("#iree_vector_ext.nested_layout<subgroup_tile = [1], batch_tile = [1], outer_tile = [1], "
         "thread_tile = [4], element_tile = [2], subgroup_strides = [0], thread_strides = [1]>")
T16 = "tensor<16x32xf16>"


def assert_one_error_line(code: int, out: str, err: str, fragments=()) -> None:
    assert code == 2, (code, err)
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


@pytest.fixture
def place(tmp_path, monkeypatch):
    """Work in a fresh directory holding a text file, a binary file and a folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file.txt").write_text("not a folder")
    (tmp_path / "binary.mlir").write_bytes(b"\xff\xfe\x00#a = ")
    (tmp_path / "aliases.mlir").write_text(f"#a = {BLOCKED}\n#b = {SMALL}\n")
    (tmp_path / "folder.png").mkdir()
    return tmp_path


CASES = [
    (["-l", SMALL, "-o", "out.txt"], ["output: ", "'out.txt'", ".svg, .png or .pdf"]),
    (["-l", SMALL, "-o", "out"], ["output: ", "'out'"]),
    (["-l", SMALL, "-o", "out.png.gif"], ["output: ", "'out.png.gif'"]),
    (["-l", SMALL, "-o", "no/such/folder/out.png"], ["output: ", "'no/such/folder/out.png'", "no directory"]),
    (["-l", SMALL, "-o", "file.txt/out.png"], ["output: ", "'file.txt/out.png'"]),
    (["-l", SMALL, "-o", "folder.png"], ["output: ", "'folder.png'", "directory"]),
    (["-l", NESTED, "-o", "no/such/out.svg"], ["output: ", "'no/such/out.svg'"]),
    (["-l", "garbage ☃", "-o", "out.png"], ["layout text: ", "'☃'"]),
    (["-l", "", "-o", "out.png"], ["layout text: empty"]),
    (["-l", "\x00", "-o", "out.png"], ["layout text: "]),
    (["-o", "out.png"], ["layout: ", "-l/--layout"]),
    (["-l", BLOCKED, "-o", "out.png"], ["tensor-type: ", "'#ttg.blocked<", "give one with -t"]),
    (["-l", "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>", "-o", "out.png"],
     ["tensor-type: ", "'#ttg.swizzled_shared<", "give one with -t"]),
    (["-l", "#ttg.linear<{register = [[0, 1]], lane = [[1, 0]], warp = [], block = []}>", "-o", "out.png"],
     ["tensor-type: ", "'#ttg.linear<", "give one with -t"]),
    (["-l", BLOCKED, "-t", "tensor<16x32xföö>", "-o", "out.png"], ["tensor type: ", "'föö'"]),
    (["-l", BLOCKED, "-t", "tensor<1048576x1048576xf16>", "-o", "out.png"],
     ["shape: ", "'[1048576, 1048576]'", "at most 1048576"]),
    (["-l", BLOCKED, "-t", "tensor<2048x1024xf16>", "-o", "out.png"], ["shape: ", "'[2048, 1024]'"]),
    (["-l", NESTED, "-o", "out.png", "--num-subgroups", "99999999999"], ["hardware dims: ", "warp=99999999999"]),
    (["-l", NESTED, "-o", "out.png", "--subgroup-size", "-3"], ["'--subgroup-size'", "-3 is not in the range"]),
    (["-l", NESTED, "-o", "out.png", "--subgroup-size", "x"], ["'--subgroup-size'", "'x'"]),
    (["-l", "(32,4):(1,32)", "-o", "out.png"], ["layout: ", "'(32,4):(1,32)'", "over MxN"]),
    (["-i", "missing.mlir", "-o", "out.png"], ["input: ", "'missing.mlir'"]),
    (["-i", "binary.mlir", "-o", "out.png"], ["input: ", "'binary.mlir'", "not UTF-8"]),
    (["-i", "file.txt", "-o", "out.png"], ["alias-names: ", "0 layouts"]),
    (["-i", "aliases.mlir", "-o", "out.png"], ["alias-names: ", "2 layouts"]),
    (["-i", "aliases.mlir", "--alias-names", "zz", "-o", "out.png"], ["alias-names: ", "'#zz'"]),
    (["-i", "aliases.mlir", "--alias-names", "a,b", "-o", "out.png"], ["alias-names: ", "one layout", "'a,b'"]),
    (["-l", SMALL, "--zoom", "0:1,0:9", "-o", "out.png"], ["zoom: ", "cols 0:9", "'0:1,0:9'"]),
    (["-l", SMALL, "--zoom", "a:b", "-o", "out.png"], ["zoom: ", "'a:b'"]),
    (["-l", SMALL], ["Missing option", "'-o'"]),
]


@pytest.mark.parametrize("args, fragments", CASES)
def test_render_bad_input_is_one_error_line(capsys, place, args, fragments):
    start = time.perf_counter()
    code = main(["render", *args])
    captured = capsys.readouterr()
    assert time.perf_counter() - start < 5
    assert_one_error_line(code, captured.out, captured.err, fragments)
    assert sorted(p.name for p in place.iterdir()) == ["aliases.mlir", "binary.mlir", "file.txt", "folder.png"]


def test_a_bad_output_path_is_refused_before_drawing(capsys, place):
    """The 64x64 seed layout takes a while to draw: a bad path must not wait for it."""
    start = time.perf_counter()
    code = main(["render", "-l", NESTED, "-o", "missing/out.png"])
    assert time.perf_counter() - start < 0.5
    assert_one_error_line(code, *capsys.readouterr())


def test_without_matplotlib(capsys, place, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    code = main(["render", "-l", SMALL, "-o", "out.png"])
    assert_one_error_line(code, *capsys.readouterr(), ["render needs ", "'matplotlib'", "layoutkit[plot]"])


def test_drawing_of_non_layouts():
    for value, fragment in ((3, "'3', a int"), ("text", "'text', a str")):
        with pytest.raises(LayoutError, match="layout: cannot draw") as info:
            drawing_of(value)
        assert fragment in str(info.value)


# ------------------------------------------------------------------------------------------
# nested (IREE) and CuTe layout text through `show` and `render`
# ------------------------------------------------------------------------------------------
NESTED_FIELDS = dict(subgroup_tile=[2, 1], batch_tile=[2, 4], outer_tile=[1, 1], thread_tile=[16, 4],
                     element_tile=[1, 4], subgroup_strides=[1, 0], thread_strides=[1, 16])
HUGE = 99999999999
HUGE_CUTE = "(1000000000,1000000000):(1,1000000000)"


def text_of(**changes) -> str:
    """Seed 000's nested layout text with some fields changed."""
    body = ", ".join(f"{name} = {value}" for name, value in {**NESTED_FIELDS, **changes}.items())
    return f"#iree_vector_ext.nested_layout<{body}>"


NESTED_CLI_CASES = [
    (["show", "-l", text_of(thread_tile=[HUGE, 1]), "-t", "tensor<64x64xf16>"], ["shape: ", f"'[{4 * HUGE}, 16]'"]),
    (["show", "-l", text_of(thread_tile=[HUGE, 1]), "-t", f"tensor<{4 * HUGE}x16xf16>"], ["shape: ", str(4 * HUGE)]),
    (["show", "-l", text_of(thread_strides=[10**20, 16]), "-t", "tensor<64x64xf16>"],
     ["thread_strides: ", str(10**20)]),
    (["show", "-l", text_of(thread_tile=[0, 4]), "-t", "tensor<64x64xf16>"], ["thread_tile: ", "'[0, 4]'"]),
    (["show", "-l", text_of(thread_tile=[16]), "-t", "tensor<64x64xf16>"], ["thread_tile: ", "'[16]'"]),
    (["show", "-l", text_of(thread_tile="[1.5, 4]"), "-t", "tensor<64x64xf16>"], ["layout text: ", "'.'"]),
    (["show", "-l", "#iree_vector_ext.nested_layout<ü>", "-t", "tensor<64x64xf16>"], ["'ü'"]),
    (["show", "-l", text_of(), "-t", "tensor<64x64xf16>", "--num-subgroups", str(HUGE)], ["hardware dims: ", f"warp={HUGE}"]),
    (["render", "-l", text_of(thread_tile=[HUGE, 1]), "-o", "out.png"], ["shape: ", f"'[{4 * HUGE}, 16]'"]),
    (["render", "-l", text_of(), "-o", "out.png", "--subgroup-size", str(HUGE)], ["hardware dims: ", f"lane={HUGE}"]),
    (["render", "-l", text_of(), "-o", "out.png", "--subgroup-size", "0"], ["'--subgroup-size'", "0 is not in the range"]),
    (["render", "-l", text_of(subgroup_tile=[-1, 1]), "-o", "out.png"], ["subgroup_tile: ", "'[-1, 1]'"]),
]

CUTE_CLI_CASES = [
    (["render", "-l", HUGE_CUTE, "-o", "out.png"], ["layout: ", f"'{HUGE_CUTE}'", "over MxN"]),
    (["render", "-l", HUGE_CUTE + " over 1000000000x1000000000", "-o", "out.png"], ["shape: ", "'[1000000000, 1000000000]'"]),
    (["render", "-l", "(32,4):(1,32)", "-t", "tensor<1000000000x1000000000xf16>", "-o", "out.png"],
     ["shape: ", "'[1000000000, 1000000000]'"]),
    (["render", "-l", "Sw<3,4,3> o 0 o (8,64):(64,1)", "-t", "tensor<64x8xf16>", "-o", "out.svg"],
     ["tensor shape: ", "'Sw<3,4,3> o 0 o (8,64):(64,1)'", "'8x64'"]),
    (["render", "-l", "Sw<3,4,3> o 0 o (8,64):(0,1)", "-o", "out.svg"], ["shared memory layout: ", "not injective"]),
    (["show", "-l", "Sw<3,4,3> o 0 o (8,64):(64,-1)", "-t", "tensor<8x64xf16>"], ["shared memory layout: ", "negative"]),
    (["render", "-l", "Sw<99,99,99> o 0 o (8,64):(64,1)", "-o", "out.svg"], ["swizzle: ", "'Sw<99,99,99>'"]),
    (["render", "-l", "(0,4):(1,32)", "-o", "out.svg"], ["shape: ", "'0'"]),
    (["render", "-l", "(32,4):(1,-32) over 32x4", "-o", "out.svg"], ["thread-value layout: ", "'(32,4):(1,-32)'"]),
    (["show", "-l", HUGE_CUTE, "-t", "tensor<1000000000x1000000000xf16>"], ["shape: ", "'[1000000000, 1000000000]'"]),
    (["show", "-l", HUGE_CUTE, "-t", "tensor<64x64xf16>"], ["thread-value layout: ", f"'{HUGE_CUTE}'"]),
    (["show", "-l", "(" * 5000, "-t", "tensor<32x4xf16>"], ["layout: ", "nested deeper"]),
    (["show", "-l", "(32,4):(1,32) ☃", "-t", "tensor<32x4xf16>"], ["'☃'"]),
]


@pytest.mark.parametrize("args, fragments", NESTED_CLI_CASES + CUTE_CLI_CASES)
def test_nested_and_cute_text_is_one_error_line(capsys, tmp_path, monkeypatch, args, fragments):
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    code = main(args)
    captured = capsys.readouterr()
    assert time.perf_counter() - start < 5
    assert_one_error_line(code, captured.out, captured.err, fragments)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    ["render", "-l", NESTED, "-o", "out.gif"],
    ["render", "-l", NESTED, "-o", "missing/out.png"],
    ["render", "-l", BLOCKED, "-t", "tensor<1048576x1048576xf16>", "-o", "out.png"],
    ["render", "-l", "(1000000000,1000000000):(1,1000000000) over 1000000000x1000000000", "-o", "out.png"],
    NESTED_CLI_CASES[0][0], NESTED_CLI_CASES[8][0], CUTE_CLI_CASES[7][0],
])
def test_subprocess_prints_one_error_line(tmp_path, args):
    done = subprocess.run([sys.executable, "-m", "layoutkit", *args], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert_one_error_line(done.returncode, done.stdout, done.stderr)
    assert list(tmp_path.iterdir()) == []


def test_a_good_render_still_works(capsys, place):
    assert main(["render", "-l", SMALL, "-o", "small.svg"]) == 0
    assert capsys.readouterr().out == "wrote small.svg (distributed layout, 1x8 cells)\n"
    assert (place / "small.svg").read_text().lstrip().startswith("<?xml")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.text(max_size=30) | st.text(alphabet="#<>[]{}=,:() 0123456789xtgblocked_", max_size=40))
def test_random_layout_text(capsys, tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("fuzz")
    code = main(["render", "-l", text, "-t", T16, "-o", str(folder / "out.svg")])
    out, err = capsys.readouterr()
    if code == 0:
        assert (folder / "out.svg").exists()
    else:
        assert_one_error_line(code, out, err)
