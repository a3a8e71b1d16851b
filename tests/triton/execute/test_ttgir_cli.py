"""``layoutkit simulate kernel.ttgir --kernel NAME --grid X --arg ...``: no --block (the
module's ttg.num-warps x ttg.threads-per-warp), pointer arguments as .npy files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from layoutkit.cli import main

GOLDENS = Path(__file__).parents[1] / "frontend" / "goldens"


def test_simulate_ttgir_vector_add(tmp_path, capsys):
    n = 2500
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    for name, array in (("x", x), ("y", y), ("o", np.zeros(n, np.float32))):
        np.save(tmp_path / f"{name}.npy", array)
    code = main(["simulate", str(GOLDENS / "vector_add" / "full.cuda-80.ttgir"), "--kernel", "vector_add",
                 "--grid", "3", "--arg", f"x_ptr={tmp_path / 'x.npy'}", "--arg", f"y_ptr={tmp_path / 'y.npy'}",
                 "--arg", f"out_ptr={tmp_path / 'o.npy'}", "--arg", f"n={n}", "--out", str(tmp_path / "res")])
    assert code == 0
    np.testing.assert_array_equal(np.load(tmp_path / "res" / "out_ptr.npy"), x + y)
    assert "kernel @vector_add:" in capsys.readouterr().out


def test_simulate_ttgir_bad_argument_is_one_error_line(tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.zeros(8, np.float64))
    code = main(["simulate", str(GOLDENS / "vector_add" / "full.cuda-80.ttgir"), "--kernel", "vector_add",
                 "--grid", "1", "--arg", f"x_ptr={tmp_path / 'x.npy'}", "--arg", f"y_ptr={tmp_path / 'x.npy'}",
                 "--arg", f"out_ptr={tmp_path / 'x.npy'}", "--arg", "n=8"])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: args: argument 'x_ptr' has dtype float64, !tt.ptr<f32> needs float32"]


def test_simulate_gfx942_gather_with_a_bad_index_is_one_error_line(tmp_path, capsys):
    """gather_rows on gfx942 (buffer loads, warp shuffles): an index outside the row is
    reported with op, line, element and block, as one line and exit code 2."""
    idx = np.zeros((32, 32), np.int32)
    idx[3, 4] = 40
    for name, array in (("s", np.zeros((32, 32), np.float32)), ("i", idx), ("o", np.zeros((32, 32), np.float32))):
        np.save(tmp_path / f"{name}.npy", array)
    code = main(["simulate", str(GOLDENS / "gather_rows" / "full.hip-gfx942.ttgir"), "--kernel", "gather_rows",
                 "--grid", "1", "--arg", f"src_ptr={tmp_path / 's.npy'}", "--arg", f"idx_ptr={tmp_path / 'i.npy'}",
                 "--arg", f"out_ptr={tmp_path / 'o.npy'}"])
    assert code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: kernel @gather_rows: ") and "tt.gather" in line and "(line 22)" in line
    assert "index 40 at element (3, 4) of block 0 is outside [0, 32) along axis 1" in line
