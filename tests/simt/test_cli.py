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
