"""``layoutkit simulate``: runs an example, writes results, one ``error:`` line on failure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.cli import main
from layoutkit.cli.simulate import parse_arg, parse_dims
from layoutkit.errors import LayoutError

KERNELS = Path(__file__).parents[2] / "examples" / "kernels"


def test_simulate_transpose_writes_outputs(tmp_path, capsys):
    x = np.arange(64 * 96, dtype=np.float32).reshape(64, 96)
    np.save(tmp_path / "in.npy", x)
    np.save(tmp_path / "out.npy", np.zeros((96, 64), np.float32))
    code = main([
        "simulate", str(KERNELS / "transpose_swizzled.mlir"), "--kernel", "transpose_swizzled",
        "--grid", "3,2", "--block", "32,8", "--arg", f"in={tmp_path / 'in.npy'}",
        "--arg", f"out={tmp_path / 'out.npy'}", "--out", str(tmp_path / "res"),
    ])
    assert code == 0
    assert np.array_equal(np.load(tmp_path / "res" / "out.npy"), x.T)
    out = capsys.readouterr().out
    assert "kernel @transpose_swizzled:" in out and "thread-instructions" in out
    assert "out: float32[96, 64]" in out


def test_simulate_scalar_argument_and_warp_size(tmp_path, capsys):
    text = """module {
  gpu.module @m {
    gpu.func @fill(%o: memref<128xi32>, %v: i32) kernel {
      %t = gpu.thread_id x
      %n = gpu.subgroup_size : index
      %l = gpu.lane_id
      %s = arith.subi %n, %l : index
      %si = arith.index_cast %s : index to i32
      %r = arith.addi %si, %v : i32
      memref.store %r, %o[%t] : memref<128xi32>
      gpu.return
    }
  }
}
"""
    (tmp_path / "fill.mlir").write_text(text)
    np.save(tmp_path / "o.npy", np.zeros(128, np.int32))
    code = main(["simulate", str(tmp_path / "fill.mlir"), "--kernel", "fill", "--grid", "1",
                 "--block", "128", "--arg", f"o={tmp_path / 'o.npy'}", "--arg", "v=1000",
                 "--warp-size", "64", "--out", str(tmp_path)])
    assert code == 0
    assert np.load(tmp_path / "o.npy").tolist() == [64 - t % 64 + 1000 for t in range(128)]


def test_simulate_errors_are_one_line(tmp_path, capsys):
    np.save(tmp_path / "a.npy", np.zeros(10, np.float32))
    base = ["simulate", str(KERNELS / "vector_add.mlir"), "--kernel", "vector_add", "--grid", "1",
            "--block", "64"]
    cases = [
        (base + ["--arg", f"a={tmp_path / 'a.npy'}", "--arg", f"b={tmp_path / 'a.npy'}",
                 "--arg", "c=" + str(tmp_path / "a.npy").replace("a.npy", "missing.npy")], "no such file"),
        (base + ["--arg", "a=xyz"], "expected a .npy file or a number"),
        (["simulate", str(KERNELS / "vector_add.mlir"), "--kernel", "vector_add", "--grid", "0",
          "--block", "1"], "--grid"),
        (["simulate", str(tmp_path / "nothing.mlir"), "--kernel", "k", "--grid", "1", "--block", "1"], ""),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def test_simulate_bank_conflicts_flag(tmp_path, capsys):
    np.save(tmp_path / "in.npy", np.zeros((64, 64), np.float32))
    np.save(tmp_path / "out.npy", np.zeros((64, 64), np.float32))
    unpadded = (KERNELS / "transpose_padded.mlir").read_text().replace("32x33xf32", "32x32xf32")
    (tmp_path / "t.mlir").write_text(unpadded)
    code = main(["simulate", str(tmp_path / "t.mlir"), "--kernel", "transpose_padded", "--grid", "2,2",
                 "--block", "32,8", "--arg", f"in={tmp_path / 'in.npy'}", "--arg",
                 f"out={tmp_path / 'out.npy'}", "--bank-conflicts"])
    assert code == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("shared ")]
    # 4 blocks x 8 warps x 4 iterations = 128 warp accesses per op; the column read is 32-way
    assert lines[0].startswith("shared 128 wavefronts (ideal 128, 1.0x): line ")
    assert lines[1].startswith("shared 4096 wavefronts (ideal 128, 32.0x): line ")
    assert "memref.load %tile[%tx, %r]" in lines[1]


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet="0123456789,-x =.npy", max_size=12))
def test_cli_option_parsers_give_value_or_layout_error(text):
    for parse in (lambda t: parse_dims("grid", t), parse_arg):
        try:
            parse(text)
        except LayoutError:
            pass


FILL = """module {
  gpu.module @m {
    gpu.func @fill(%o: memref<8xi32>, %v: i32) kernel {
      %t = gpu.thread_id x
      memref.store %v, %o[%t] : memref<8xi32>
      gpu.return
    }
  }
}
"""


def _bad_input_cases(tmp: Path) -> list[tuple[list[str], str]]:
    np.save(tmp / "o.npy", np.zeros(8, np.int32))
    np.save(tmp / "f64.npy", np.zeros(8, np.float64))
    np.save(tmp / "rank2.npy", np.zeros((2, 4), np.int32))
    (tmp / "fill.mlir").write_text(FILL)
    (tmp / "text.npy").write_text("not an array")
    (tmp / "broken.mlir").write_text(FILL.replace("memref.store", "memref.stor"))
    (tmp / "latin1.mlir").write_bytes(FILL.encode() + b"// caf\xe9\n")
    (tmp / "a_file").write_text("")
    o = f"o={tmp / 'o.npy'}"

    def run(*extra: str, grid: str = "1", block: str = "8", file: str = "fill.mlir") -> list[str]:
        return ["simulate", str(tmp / file), "--kernel", "fill", "--grid", grid, "--block", block,
                *extra]

    return [
        (run("--arg", o, file="broken.mlir"), "broken.mlir:5:7: error: Operation memref.stor is not registered"),
        (run("--arg", o, file="latin1.mlir"), "FILE: '" + str(tmp / "latin1.mlir") + "' is not UTF-8 text"),
        (run("--arg", o, file="missing.mlir"), "FILE: cannot read '"),
        (run("--arg", o, "--arg", "v=1") + ["--kernel", "nope"], "kernel: no kernel named 'nope'"),
        (run("--arg", o, "--arg", "v=1", grid="0"), "--grid: expected 1 to 3 positive integers X[,Y[,Z]], got '0'"),
        (run("--arg", o, "--arg", "v=1", block="-8"), "--block: expected 1 to 3 positive integers X[,Y[,Z]], got '-8'"),
        (run("--arg", o, "--arg", "v=1", grid="1,1,1,1"), "got '1,1,1,1'"),
        (run("--arg", o, "--arg", "v=1", grid="2,x"), "--grid: expected 1 to 3 positive integers X[,Y[,Z]], got '2,x'"),
        (run("--arg", o, "--arg", "v=1", block="100000000"), "--block: x size 100000000 exceeds the GPU limit 1024"),
        (run("--arg", o, "--arg", "v=1", block="32,32,2"), "block: 2048 threads per block exceed the GPU limit 1024"),
        (run("--arg", f"o={tmp / 'nothing.npy'}", "--warp-size", "48"), "--warp-size: expected one of 8, 16, 32, 64, got '48'"),
        # the launch shape is checked before any --arg file is read (none of these exist)
        (run("--arg", f"o={tmp / 'nothing.npy'}", block="32,64"),
         "--block: 2048 threads per block exceed the GPU limit 1024, got '32,64'"),
        (run("--arg", o, "--arg", "v=1", grid="99999999999999999999"), "--grid: x size 99999999999999999999 exceeds"),
        (run("--arg", o, "--arg", "v=1", grid="100000000", block="1024"),
         "grid: 100000000 blocks of 1024 thread slots are 102400000000 threads, more than the simulator runs"),
        (run("--arg", f"o={tmp / 'nothing.npy'}", "--arg", "v=1"), "--arg o: no such file"),
        (run("--arg", f"o={tmp / 'text.npy'}", "--arg", "v=1"), "--arg o: cannot read '"),
        (run("--arg", f"o={tmp / 'f64.npy'}", "--arg", "v=1"), "args: argument 'o' has dtype float64"),
        (run("--arg", f"o={tmp / 'rank2.npy'}", "--arg", "v=1"), "args: argument 'o' has shape (2, 4)"),
        (run("--arg", o), "args: missing argument 'v' of kernel @fill"),
        (run("--arg", o, "--arg", "v=1", "--arg", "w=2"), "args: kernel @fill has no argument 'w'"),
        (run("--arg", o, "--arg", "v=1", "--arg", "v=2"), "--arg v: given twice (in 'v=2')"),
        (run("--arg", o, "--arg", "v=1.5"), "args: argument 'v' is an integer i32, got 1.5"),
        (run("--arg", o, "--arg", "v=4294967296"), "args: argument 'v' = 4294967296 does not fit in i32"),
        (run("--arg", o, "--arg", f"v={tmp / 'o.npy'}"), "args: argument 'v' is a scalar i32, got ndarray"),
        (run("--arg", o, "--arg", "v"), "--arg: expected name=file.npy or name=number, got 'v'"),
        (run("--arg", o, "--arg", "v=1", "--out", str(tmp / "a_file" / "sub")),
         "--out: cannot create directory '" + str(tmp / "a_file" / "sub") + "'"),
    ]


def test_simulate_bad_input_is_one_error_line(tmp_path, capsys):
    for argv, message in _bad_input_cases(tmp_path):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        # option errors: error: ...; IR errors: FILE:LINE:COL: error: ... (as mlir-opt)
        assert (err.startswith("error: ") or ".mlir:" in err.split(" error: ")[0]) and err.count("\n") == 1, err
        assert message in err, (message, err)
    # the same launch with good input runs and writes
    argv = ["simulate", str(tmp_path / "fill.mlir"), "--kernel", "fill", "--grid", "1", "--block", "8",
            "--arg", f"o={tmp_path / 'o.npy'}", "--arg", "v=-7", "--out", str(tmp_path / "res")]
    assert main(argv) == 0
    assert np.load(tmp_path / "res" / "o.npy").tolist() == [-7] * 8


def test_no_race_check_runs_a_racy_kernel_that_the_checked_run_refuses(tmp_path, capsys):
    racy = (KERNELS / "transpose_padded.mlir").read_text().replace("      gpu.barrier\n", "", 1)
    (tmp_path / "racy.mlir").write_text(racy)
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    np.save(tmp_path / "in.npy", x)
    np.save(tmp_path / "out.npy", np.zeros_like(x))
    run = ["simulate", str(tmp_path / "racy.mlir"), "--kernel", "transpose_padded", "--grid", "2,2",
           "--block", "32,8", "--arg", f"in={tmp_path / 'in.npy'}", "--arg", f"out={tmp_path / 'out.npy'}",
           "--out", str(tmp_path / "res")]
    assert main(run) == 2
    assert "data race" in capsys.readouterr().err
    assert main([*run, "--no-race-check"]) == 0
    assert np.array_equal(np.load(tmp_path / "res" / "out.npy"), x.T)
