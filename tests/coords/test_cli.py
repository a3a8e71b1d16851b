"""``layoutkit transform``: composed map, bounds, diffs, and one-line errors."""

from __future__ import annotations

from layoutkit.cli import main

TMAP1 = ('#rock.transform_map<affine_map<(d0, d1) -> (d0, d1)> by [<PassThrough ["M"] at [0] -> ["M"] at [0]>, '
         '<Pad{0, 46} ["Kp"] at [1] -> ["K"] at [1]>] bounds = [128, 64] -> [128, 18]>')
TMAP2 = ('#rock.transform_map<affine_map<(d0, d1) -> (d0, d1 floordiv 9, (d1 mod 9) floordiv 3, d1 mod 3)> '
         'by [<PassThrough ["M"] at [0] -> ["O"] at [0]>, <Merge{2, 3, 3} ["K"] at [1] -> ["I", "H", "W"] at [1, 2, 3]>] '
         'bounds = [128, 18] -> [128, 2, 3, 3]>')


def test_transform_prints_map_bounds_and_diff(capsys):
    assert main(["transform", TMAP1, TMAP2, "--bounds", "--diff", "0,1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "upper: M=128, Kp=64"
    assert out[1] == "lower: O=128, I=2, H=3, W=3"
    assert out[2] == "map: affine_map<(d0, d1) -> (d0, d1 floordiv 9, (d1 mod 9) floordiv 3, d1 mod 3)>"
    assert out[3] == "out of bounds: left: none; right: I"
    assert out[4] == "checks: unsigned(I) < 2 (1 compare)"
    assert out[5].startswith("index diff by (0, 1): ") and "(0 div/mod) instead of 4 to re-evaluate" in out[5]
    assert "  W' = " in "\n".join(out) and "  O' = O" in out


def test_transform_reads_files(tmp_path, capsys):
    path = tmp_path / "maps.mlir"
    path.write_text(f"#tmap1 = {TMAP1}\n#tmap2 = {TMAP2}\n")
    assert main(["transform", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "lower: O=128, I=2, H=3, W=3"


def test_transform_errors_are_one_line(capsys):
    assert main(["transform", TMAP2, TMAP1]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: transform chain: map 0's lower space") and err.count("\n") == 1
    assert main(["transform", TMAP1, "--diff", "1"]) == 2
    assert capsys.readouterr().err == "error: --diff: the chain has 2 upper dims, got 1 deltas in '1'\n"
    assert main(["transform", TMAP1.replace("Pad{0, 46}", "Pad{0, 45}")]) == 2
    assert "upper dim 'Kp' has size 64, expected lower 18 + 0 + 45" in capsys.readouterr().err
