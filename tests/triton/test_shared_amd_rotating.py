"""amd_rotating_shared against the three tables of Triton's AMDRotatingSharedEncodingAttr
description (a 8x4 matrix filled with 0..31; each row lists the elements in memory order)."""

from __future__ import annotations

import pytest

from layoutkit import LayoutError, parse_layout
from layoutkit.layouts.triton.shared import AMDRotatingSharedEncoding, SwizzledSharedEncoding

DOC_TABLES = {
    (1, 1, 2): [[0, 1, 2, 3], [5, 4, 7, 6], [9, 8, 11, 10], [12, 13, 14, 15],
                [16, 17, 18, 19], [21, 20, 23, 22], [25, 24, 27, 26], [28, 29, 30, 31]],
    (1, 2, 2): [[0, 1, 2, 3], [4, 5, 6, 7], [9, 8, 11, 10], [13, 12, 15, 14],
                [17, 16, 19, 18], [21, 20, 23, 22], [24, 25, 26, 27], [28, 29, 30, 31]],
    (1, 1, 4): [[0, 1, 2, 3], [5, 4, 7, 6], [10, 11, 8, 9], [15, 14, 13, 12],
                [17, 16, 19, 18], [20, 21, 22, 23], [27, 26, 25, 24], [30, 31, 28, 29]],
}


@pytest.mark.parametrize("params", list(DOC_TABLES))
def test_documented_tables(params):
    vec, per_phase, max_phase = params
    enc = parse_layout(
        f"#ttg.amd_rotating_shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, order = [1, 0]}}>"
    )
    table = enc.table((8, 4))
    memory = [[int(table[4 * r + c, 0, 0]) * 4 + int(table[4 * r + c, 0, 1]) for c in range(4)] for r in range(8)]
    assert memory == DOC_TABLES[params]


def test_prints_back_and_differs_from_swizzled():
    text = "#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1]}>"
    enc = parse_layout(text)
    assert isinstance(enc, AMDRotatingSharedEncoding) and str(enc) == text
    assert enc != SwizzledSharedEncoding(4, 1, 8, (0, 1))


def test_bad_field():
    with pytest.raises(LayoutError, match="^maxPhase:"):
        parse_layout("#ttg.amd_rotating_shared<{vec = 1, perPhase = 1, maxPhase = 5, order = [1, 0]}>")
