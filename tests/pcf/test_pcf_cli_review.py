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


def _where(text: str, needle: str) -> str:
    """``LINE:COL`` of the op on the first line holding ``needle``, as MLIR reports an op: the
    column where its text (results first) starts."""
    line = next(i for i, s in enumerate(text.split("\n"), 1) if needle in s)
    source = text.split("\n")[line - 1]
    return f"{line}:{len(source) - len(source.lstrip()) + 1}"


def test_a_pass_error_about_a_parsed_op_is_located(capsys):
    text = Path(EXAMPLE).read_text()
    code, err = run(capsys, "opt", EXAMPLE, "--pcf-lower-structural")
    assert code == 2
    assert err == (f"{EXAMPLE}:{_where(text, 'pcf.loop')}: error: pcf-lower-structural: pcf.loop: has sref "
                   "arguments; run pcf-convert-sref-to-memref first\n")


def test_a_token_sync_scope_is_located(tmp_path, capsys):
    text = ("func.func @f(%d: memref<4xf32>) -> memref<4xf32> {\n"
            "  %r = pcf.generic scope(#iree_gpu.subgroup_scope)\n"
            "    execute(%ref = %d)[%id: index, %n: index]\n"
            "         : (!pcf.sref<4xf32, #iree_gpu.subgroup_scope, i32>) -> (memref<4xf32>) {\n"
            "    pcf.return\n  }\n  return %r : memref<4xf32>\n}\n")
    path = tmp_path / "tok.mlir"
    path.write_text(text)
    code, err = run(capsys, "opt", str(path), "--pcf-resolve-tokens")
    assert code == 2
    assert err.startswith(f"{path}:{_where(text, 'pcf.generic')}: error: pcf-resolve-tokens: pcf.generic: "
                          "sync scope i32 of")


def test_an_unbufferized_program_is_located_at_its_loop(tmp_path, capsys):
    text = Path(EXAMPLE).read_text().replace("memref<?x?xf32>", "tensor<?x?xf32>").replace("memref.load", "tensor.extract")
    path = tmp_path / "t.mlir"
    path.write_text(text)
    code, err = run(capsys, "compile", str(path), "--pipeline", "pcf-to-gpu", "-o", str(tmp_path / "o.mlir"))
    assert code == 2
    assert err.startswith(f"{path}:{_where(text, 'pcf.loop')}: error: pcf-convert-sref-to-memref: pcf.loop: "
                          "init 0: only memref inits are converted yet")


def test_simulating_unlowered_pcf_says_how_to_lower_it(capsys):
    text = Path(EXAMPLE).read_text()
    line = _where(text, "pcf.loop").split(":")[0]
    code, err = run(capsys, "simulate", EXAMPLE, "--function", "scale_tiles", "--arg", "tm=1", "--arg", "tn=1")
    assert code == 2
    assert err == (f"error: --function scale_tiles: {EXAMPLE} holds PCF ops (pcf.loop on line {line}), which run "
                   f"once lowered: layoutkit compile {EXAMPLE} --pipeline pcf-to-gpu -o out.mlir, then simulate out.mlir\n")


def test_an_initialize_region_writing_memory_is_located_at_the_write(tmp_path, capsys):
    source = (Path(EXAMPLE).parent / "clusters_readonly.mlir").read_text()
    marker = "      %hundred = arith.constant 100.0 : f32\n"
    assert marker in source
    text = source.replace(marker, marker + "      %z = arith.constant 0 : index\n"
                          "      memref.store %two, %x[%z] : memref<32xf32>\n")
    path = tmp_path / "ro.mlir"
    path.write_text(text)
    code, err = run(capsys, "compile", str(path), "--pipeline", "pcf-to-gpu", "--workgroup-size", "128",
                    "--subgroup-size", "32", "-o", str(tmp_path / "o.mlir"))
    assert code == 2
    assert err.startswith(f"{path}:{_where(text, 'memref.store')}: error: pcf-resolve-clusters: "
                          "pcf.shared_executor: the initialize region writes memory (memref.store)")


def test_an_op_distribution_refuses_is_located(capsys):
    path = Path(__file__).resolve().parents[1] / "filecheck" / "pcf" / "distribute-run-clusters-errors.mlir"
    text = path.read_text()
    code, err = run(capsys, "opt", str(path), "--pcf-distribute-run-clusters")
    assert code == 2
    assert err.startswith(f"{path}:{_where(text, '= linalg.transpose')}: error: pcf-distribute-run-clusters: "
                          "linalg.transpose: cannot distribute")
