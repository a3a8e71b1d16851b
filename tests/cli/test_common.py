"""What every command shares (layoutkit/cli/common.py): triton-tensor-layout's single-dash
spellings, one spelling of each option (old ones hidden), `-` as stdin / stdout, `-o` for
every command, bare `layoutkit`, and missing optional packages as one error line."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from layoutkit.cli import main
from layoutkit.cli.show import render_show

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
MMA = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
T16 = "tensor<16x16xf16>"
MAP = ("#rock.transform_map<affine_map<(d0, d1) -> (d1, d0)> by [<PassThrough [\"a\"] at [0] -> [\"a\"] at [1]>, "
       "<PassThrough [\"b\"] at [1] -> [\"b\"] at [0]>] bounds = [4, 8] -> [8, 4]>")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kernels"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def ttgir(tmp_path) -> Path:
    path = tmp_path / "layouts.mlir"
    path.write_text(f"#blocked = {BLOCKED}\n#mma = {MMA}\n")
    return path


def stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


# ------------------------------------------------------------------------------------------
# item 6: triton-tensor-layout's spellings, one spelling of each option
# ------------------------------------------------------------------------------------------
def test_triton_tensor_layout_lit_run_lines_run_unchanged(capsys, ttgir):
    """The RUN lines of Triton's test/Tools/tensor_layout_print.mlir, after the shell."""
    blocked = render_show(None, T16, input_text=ttgir.read_text(), alias_names=["blocked"])
    hardware = render_show(None, T16, input_text=ttgir.read_text(), alias_names=["mma"], hardware=True)
    assert run(capsys, "show", "-i", str(ttgir), "-alias-names=blocked", "-t", T16) == (0, blocked, "")
    assert run(capsys, "show", "-i", str(ttgir), "-alias-names=mma", "-t", T16, "-use-hw-view") == (0, hardware, "")
    both = render_show(None, T16, input_text=ttgir.read_text(), alias_names=["blocked", "mma"])
    assert blocked in both and both != blocked
    for spelling in (["-alias-names=blocked,mma"], ["-alias-names=blocked", "-alias-names=mma"],
                     ["--alias-names", "blocked,mma"], ["-alias-names", "blocked,mma"],
                     ["--alias-name", "blocked,mma"]):
        assert run(capsys, "show", "-i", str(ttgir), *spelling, "-t", T16) == (0, both, ""), spelling


def test_llvm_style_values_and_flags(capsys, ttgir, tmp_path):
    expected = render_show(BLOCKED, T16)
    assert run(capsys, "show", f"-l={BLOCKED}", f"-t={T16}") == (0, expected, "")
    assert run(capsys, "show", "-l", BLOCKED, "--tensor", T16) == (0, expected, "")  # the old spelling
    assert run(capsys, "show", "-l", BLOCKED, "-t", T16, "-use-hw-view=false") == (0, expected, "")
    hardware = render_show(BLOCKED, T16, hardware=True)
    assert run(capsys, "show", "-l", BLOCKED, "-t", T16, "-use-hw-view=true") == (0, hardware, "")
    out = tmp_path / "view.txt"
    assert run(capsys, "show", "-l", BLOCKED, "-t", T16, f"-o={out}") == (0, "", "")
    assert out.read_text() == expected
    # a value that looks like an option stays a value
    code, _, err = run(capsys, "show", "-l", "-use-hw-view", "-t", T16)
    assert code == 2 and err.startswith("error: ") and "'-use-hw-view'" in err


def test_one_spelling_of_each_option_in_every_help(capsys):
    helps = {}
    for name in ("show", "render", "convert"):
        assert main([name, "--help"]) == 0
        helps[name] = capsys.readouterr().out
    for name, text in helps.items():
        assert "-t, --tensor-type TYPE" in text, name
        assert "--tensor " not in text and "--alias-name " not in text, name  # old spellings hidden
        assert "-o, --output FILE" in text and "-l, --layout ATTR" in text, name
    for name in ("show", "render"):
        assert "--alias-names NAME,..." in helps[name] and "--subgroup-size N" in helps[name]


# ------------------------------------------------------------------------------------------
# item 16: bare layoutkit, '-' for stdin and stdout, -o for every command
# ------------------------------------------------------------------------------------------
def test_bare_layoutkit_prints_its_help(capsys):
    code, out, err = run(capsys)
    assert code == 0 and err == ""
    assert out.startswith("Usage: layoutkit ") and "\\n" not in out
    assert main(["--help"]) == 0
    assert capsys.readouterr().out == out
    for command in ("show", "render", "convert", "transform", "simulate", "emit-cuda"):
        assert f"  {command} " in out


def test_dash_is_stdin(capsys, monkeypatch, ttgir):
    expected = render_show(None, T16, input_text=ttgir.read_text(), alias_names=["mma"])
    stdin(monkeypatch, ttgir.read_text())
    assert run(capsys, "show", "-i", "-", "--alias-names", "mma", "-t", T16) == (0, expected, "")
    convert = run(capsys, "convert", "-i", str(ttgir), "-l", "#blocked", "-l", "#mma", "-t", "tensor<64x64xf16>")
    stdin(monkeypatch, ttgir.read_text())
    assert run(capsys, "convert", "-i", "-", "-l", "#blocked", "-l", "#mma", "-t", "tensor<64x64xf16>") == convert
    transform = run(capsys, "transform", MAP)
    assert transform[0] == 0 and transform[1].startswith("upper: a=4, b=8")
    stdin(monkeypatch, f"#map = {MAP}\n")
    assert run(capsys, "transform", "-") == transform
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff#blocked")))
    code, _, err = run(capsys, "show", "-i", "-", "-t", T16)
    assert code == 2 and err == "error: input: '<stdin>' is not UTF-8 text (byte 0xff at position 0)\n"


def test_dash_is_stdin_for_kernels(capsys, monkeypatch):
    pytest.importorskip("xdsl")
    source = (EXAMPLES / "vector_add.mlir").read_text()
    from_file = run(capsys, "emit-cuda", str(EXAMPLES / "vector_add.mlir"), "--no-prelude")
    assert from_file[0] == 0 and "__global__" in from_file[1]
    stdin(monkeypatch, source)
    assert run(capsys, "emit-cuda", "-", "--no-prelude", "-o", "-") == from_file
    stdin(monkeypatch, source)
    code, _, err = run(capsys, "simulate", "-", "--kernel", "nope", "--grid", "1", "--block", "32")
    assert code == 2 and "nope" in err  # the kernel was read from stdin, then looked up


def test_every_text_command_writes_to_o(capsys, ttgir, tmp_path):
    for args in (["show", "-l", BLOCKED, "-t", T16],
                 ["convert", "-i", str(ttgir), "-l", "#blocked", "-l", "#mma", "-t", "tensor<64x64xf16>", "--json"],
                 ["transform", MAP, "--bounds"]):
        code, printed, _ = run(capsys, *args)
        assert code == 0 and printed
        assert run(capsys, *args, "-o", "-") == (0, printed, "")
        out = tmp_path / f"{args[0]}.txt"
        assert run(capsys, *args, "-o", str(out)) == (0, "", "")
        assert out.read_text() == printed
        code, _, err = run(capsys, *args, "-o", str(tmp_path / "no" / "such.txt"))
        assert code == 2 and err.startswith("error: output: cannot write ") and "no directory" in err


def test_render_to_stdout():
    pytest.importorskip("matplotlib")
    done = subprocess.run([sys.executable, "-m", "layoutkit", "render", "-l", BLOCKED, "-t", T16, "-o", "-",
                           "--format", "png"], capture_output=True, check=False)
    assert done.returncode == 0 and done.stderr == b"" and done.stdout[:8] == b"\x89PNG\r\n\x1a\n"
    done = subprocess.run([sys.executable, "-m", "layoutkit", "render", "-l", BLOCKED, "-t", T16, "-o", "-"],
                          capture_output=True, check=False)
    assert done.returncode == 0 and done.stdout.lstrip().startswith(b"<?xml") and b"<title>(3, 5): " in done.stdout


# ------------------------------------------------------------------------------------------
# item 13: without an extra, one error line naming it
# ------------------------------------------------------------------------------------------
WITHOUT = """
import sys
for name in {blocked!r}:
    sys.modules[name] = None          # 'import name' raises ModuleNotFoundError
from layoutkit.cli import main
sys.exit(main({argv!r}))
"""


@pytest.mark.parametrize("blocked, argv, message", [
    (["xdsl"], ["simulate", str(EXAMPLES / "vector_add.mlir"), "--kernel", "vector_add", "--grid", "1",
                "--block", "32"], "error: simulate needs the optional package 'xdsl': pip install 'layoutkit[ir]'"),
    (["xdsl"], ["emit-cuda", str(EXAMPLES / "vector_add.mlir")],
     "error: emit-cuda needs the optional package 'xdsl': pip install 'layoutkit[ir]'"),
    (["ml_dtypes"], ["simulate", str(EXAMPLES / "vector_add.mlir"), "--kernel", "vector_add", "--grid", "1",
                     "--block", "32"], "error: simulate needs the optional package 'ml_dtypes': pip install 'layoutkit[ir]'"),
    (["matplotlib"], ["render", "-l", BLOCKED, "-t", T16, "-o", "out.png"],
     "error: render needs the optional package 'matplotlib': pip install 'layoutkit[plot]'"),
])
def test_missing_extras_are_one_error_line(tmp_path, blocked, argv, message):
    done = subprocess.run([sys.executable, "-c", WITHOUT.format(blocked=blocked, argv=argv)], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")
    assert list(tmp_path.iterdir()) == []


def test_notebook_display_without_matplotlib():
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "import layoutkit\n"
            f"layout = layoutkit.parse_layout({BLOCKED!r})\n"
            "print(layout._repr_svg_())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == "None\n"
    assert done.stderr == ("error: drawing a layout needs the optional package 'matplotlib': "
                           "pip install 'layoutkit[plot]'\n")
