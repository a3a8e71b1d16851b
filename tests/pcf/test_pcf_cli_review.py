"""A new user's review of the PCF commands: option errors name the option the user typed and
quote it, in one line with exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

from layoutkit.cli import main  # noqa: E402

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "pcf" / "tiled_scale.mlir")


def run(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("flag, value", [
    ("--workgroup-size", "0"), ("--subgroup-size", "0"), ("--workgroup-size", "64,0"),
])
def test_zero_sizes_name_the_flag(tmp_path, capsys, flag, value):
    code, err = run(capsys, "compile", EXAMPLE, "--pipeline", "pcf-to-gpu", flag, value, "-o", str(tmp_path / "o.mlir"))
    assert code == 2
    assert err == f"{EXAMPLE}: error: {flag}: expected positive integers, got '{value}'\n"


@pytest.mark.parametrize("flag", ["--workgroup-size", "--subgroup-size"])
def test_pcf_to_gpu_takes_one_size(tmp_path, capsys, flag):
    code, err = run(capsys, "compile", EXAMPLE, "--pipeline", "pcf-to-gpu", flag, "64,2", "-o", str(tmp_path / "o.mlir"))
    assert code == 2
    assert err == f"{EXAMPLE}: error: {flag}: pipeline 'pcf-to-gpu' takes one number, got '64,2'\n"


def test_a_pass_option_error_names_the_pass_once(capsys):
    code, err = run(capsys, "opt", EXAMPLE, "--pass-pipeline", "builtin.module(pcf-lower-structural{workgroup-size=0})")
    assert code == 2
    assert err.count("\n") == 1
    assert err.count("pcf-lower-structural") == 1, err
    assert "pcf-lower-structural: workgroup-size: expected a positive integer" in err
