"""``layoutkit emit-cuda``: readable CUDA on stdout, the ptxas report with --compile, and one
``error:`` line with exit status 2 for bad input."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from layoutkit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kernels"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_prints_the_kernel(capsys):
    status, out, err = run(capsys, "emit-cuda", str(EXAMPLES / "vector_add.mlir"))
    assert status == 0 and err == ""
    assert 'extern "C" __global__ void vector_add(float* a, int a_size0, float* b, int b_size0, float* c, int c_size0)' in out
    assert "c[i] = s;" in out
    assert not re.search(r"\d+ registers", out)  # no report without --compile


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_compile_appends_the_ptxas_report(capsys, arch, cuda_compiler):
    status, out, err = run(capsys, "emit-cuda", str(EXAMPLES / "transpose_padded.mlir"),
                           "--arch", arch, "--compile")
    assert status == 0, err
    report = re.search(rf"// (nvrtc|nvcc) [\d.]+, {arch}: .*\n//   transpose_padded: (\d+) registers, "
                       r"(\d+) spill bytes .* (\d+) bytes shared, (\d+) barriers", out)
    assert report, out[-400:]
    assert int(report.group(2)) > 0 and int(report.group(3)) == 0
    assert int(report.group(4)) == 32 * 33 * 4 and int(report.group(5)) == 1


def test_output_file(capsys, tmp_path):
    target = tmp_path / "block_sum.cu"
    status, out, _ = run(capsys, "emit-cuda", str(EXAMPLES / "block_sum.mlir"), "-o", str(target))
    assert status == 0 and out == ""
    assert "__shfl_xor_sync" in target.read_text()


BAD_INPUTS = {
    "not_mlir.mlir": "this is not MLIR",
    "unknown_op.mlir": "module {\n  gpu.module @m {\n    gpu.func @k() kernel {\n      gpu.frobnicate\n      gpu.return\n    }\n  }\n}\n",
    "no_kernel.mlir": "module {\n}\n",
    "dynamic_shared.mlir": ("module {\n  gpu.module @m {\n    gpu.func @k(%n: index) kernel {\n"
                            "      %s = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>\n"
                            "      gpu.return\n    }\n  }\n}\n"),
    "unsupported_argument_type.mlir": ("module {\n  gpu.module @m {\n    gpu.func @k(%x: memref<4xi4>) kernel {\n"
                                       "      gpu.return\n    }\n  }\n}\n"),
    "unsupported_value_type.mlir": ("module {\n  gpu.module @m {\n    gpu.func @k(%x: memref<4xf32>) kernel {\n"
                                    "      %c0 = arith.constant 0 : index\n"
                                    "      %v = memref.load %x[%c0] : memref<4xf32>\n"
                                    "      %h = arith.truncf %v : f32 to f8E4M3FN\n"
                                    "      gpu.return\n    }\n  }\n}\n"),
    "truncated.mlir": "module {\n  gpu.module @m {\n    gpu.func @k(%x: memref<4xf32>) kernel {\n",
}

# what the error line must say for some of them: the place and the offending text
BAD_INPUT_MESSAGES = {
    "unsupported_argument_type.mlir": "FILE:3:5: error: kernel @k: gpu.func: argument %x: type: no backend supports the element type 'i4' (i1, i8, i16, i32, i64, index, f16, bf16, f32, f64)",
    "unsupported_value_type.mlir": "FILE:6:7: error: kernel @k: arith.truncf: type: no backend supports the element type 'f8E4M3FN' (i1, i8, i16, i32, i64, index, f16, bf16, f32, f64)",
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_one_error_line(capsys, tmp_path, name):
    path = tmp_path / name
    path.write_text(BAD_INPUTS[name])
    status, out, err = run(capsys, "emit-cuda", str(path))
    assert status == 2 and out == ""
    # an IR error is FILE[:LINE:COL]: error: ..., as mlir-opt prints it
    assert re.match(re.escape(str(path)) + r"(:\d+:\d+)?: error: ", err) and err.count("\n") == 1, err
    if name in BAD_INPUT_MESSAGES:
        assert err.strip() == BAD_INPUT_MESSAGES[name].replace("FILE", str(path))


def test_unreadable_files_and_outputs_are_one_error_line(capsys, tmp_path):
    binary = tmp_path / "binary.mlir"
    binary.write_bytes(b"module {\xff\xfe}")
    cases = {
        (str(binary),): "error: FILE: '" + str(binary) + "' is not UTF-8 text (byte 0xff at position 8)",
        (str(tmp_path),): "Is a directory",
        (str(EXAMPLES / "vector_add.mlir"), "-o", str(tmp_path / "missing" / "out.cu")):
            "error: output: cannot write '" + str(tmp_path / "missing" / "out.cu") + "': no directory '"
            + str(tmp_path / "missing") + "'",
        (str(EXAMPLES / "vector_add.mlir"), "--arch", "sm_7"):
            "error: --arch: expected one of sm_80, sm_86, sm_89, sm_90, got 'sm_7'",
    }
    for argv, message in cases.items():
        status, out, err = run(capsys, "emit-cuda", *argv)
        assert status == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: "), (argv, err)
        assert message in err, (argv, err)


def test_a_compiler_rejection_is_one_error_line(capsys, monkeypatch, cuda_compiler):
    """Should the emitted source not compile, the compiler's first error is the error line
    (with how many more there are); CudaCompileError.log keeps the whole log for Python users."""
    import layoutkit.backends.cuda.emit as emit

    broken = 'extern "C" __global__ void k(float* a) { a[0] = undefined_name; a[1] = other_name; }\n'
    monkeypatch.setattr(emit, "emit_cuda", lambda module: broken)
    status, out, err = run(capsys, "emit-cuda", str(EXAMPLES / "vector_add.mlir"), "--compile", "--arch", "sm_80")
    assert status == 2 and err.count("\n") == 1, err
    assert re.fullmatch(r'error: source: (nvrtc|nvcc) \(sm_80\) rejects it: kernel\.cu\(1\): error: '
                        r'identifier "undefined_name" is undefined \(and 1 more error\)\n', err), err


def test_bad_options_are_one_error_line(capsys, tmp_path):
    for argv in (["emit-cuda", str(tmp_path / "missing.mlir")],
                 ["emit-cuda", str(EXAMPLES / "vector_add.mlir"), "--arch", "sm_75", "--compile"],
                 ["emit-cuda", str(EXAMPLES / "vector_add.mlir"), "--compiler", "clang"]):
        status, out, err = run(capsys, *argv)
        assert status == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, (argv, err)


@pytest.mark.parametrize("text", ["module { gpu.module @m { gpu.func @k( } }",
                                  pytest.param(" .. x\n", id="lexer-error")])
def test_the_installed_command(tmp_path, text):
    bad = tmp_path / "bad.mlir"
    bad.write_text(text)
    done = subprocess.run([sys.executable, "-m", "layoutkit", "emit-cuda", str(bad)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.startswith(f"{bad}:") and ": error: " in done.stderr
    assert "Traceback" not in done.stderr


def test_no_prelude_prints_the_kernels_only(capsys, cuda_compiler):
    status, out, _ = run(capsys, "emit-cuda", str(EXAMPLES / "block_sum.mlir"), "--no-prelude", "--compile")
    assert status == 0
    assert "struct Vec" not in out and "prelude left out" in out
    assert out.index("// CUDA C++ emitted") < out.index("void block_sum(") < out.index("registers")
    full = main(["emit-cuda", str(EXAMPLES / "block_sum.mlir")])
    with_prelude = capsys.readouterr().out
    assert full == 0 and "struct Vec" in with_prelude
    assert with_prelude[with_prelude.index('extern "C"'):] in out  # the same kernel text
