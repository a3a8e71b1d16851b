"""Elements no thread holds (an IREE layout given fewer subgroups than it spans) print as '-'."""

from __future__ import annotations

import re

import numpy as np

from layoutkit import parse_layout
from layoutkit.cli import main

TEXT = ("#iree_vector_ext.nested_layout<subgroup_tile = [2, 1], batch_tile = [1, 1], outer_tile = [1, 1], "
        "thread_tile = [4, 2], element_tile = [1, 2], subgroup_strides = [1, 0], thread_strides = [2, 1]>")


def test_unowned_elements_are_dashes(capsys):
    assert main(["show", "-l", TEXT, "-t", "tensor<8x4xf16>", "--subgroup-size", "8", "--num-subgroups", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    cells = [[c.strip() for c in re.sub(r"[\[\]]", "", row).split(",")] for row in rows]
    layout = parse_layout(TEXT, subgroup_size=8, num_subgroups=1)
    held = np.zeros((8, 4), bool)
    for reg in range(2):
        for lane in range(8):
            coords = layout.apply(register=np.array(reg), lane=np.array(lane), warp=np.array(0))
            held[int(coords["dim0"]), int(coords["dim1"])] = True
    assert held.sum() == 16  # one subgroup of 8 threads x 2 registers: half the tensor
    for i in range(8):
        for j in range(4):
            assert (cells[i][j] == "-") == (not held[i, j]), (i, j, cells[i][j])
