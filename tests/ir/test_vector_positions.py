"""Static positions of vector.extract / vector.insert are verified as MLIR does: in
``[0, dim)`` or -1 (poison); out of range was an IndexError traceback in ``simulate``."""

from __future__ import annotations

import itertools

import pytest

pytest.importorskip("xdsl")

from layoutkit.errors import LayoutError  # noqa: E402
from layoutkit.ir import parse_module  # noqa: E402

SHAPE = (2, 3)


def extract(i: int, j: int) -> str:
    return (f"func.func @f(%v: vector<{SHAPE[0]}x{SHAPE[1]}xf32>) -> f32 {{\n"
            f"  %e = vector.extract %v[{i}, {j}] : f32 from vector<{SHAPE[0]}x{SHAPE[1]}xf32>\n"
            f"  return %e : f32\n}}\n")


def insert(i: int) -> str:
    return (f"func.func @f(%v: vector<{SHAPE[0]}x{SHAPE[1]}xf32>, %r: vector<{SHAPE[1]}xf32>) "
            f"-> vector<{SHAPE[0]}x{SHAPE[1]}xf32> {{\n"
            f"  %e = vector.insert %r, %v[{i}] : vector<{SHAPE[1]}xf32> into vector<{SHAPE[0]}x{SHAPE[1]}xf32>\n"
            f"  return %e : vector<{SHAPE[0]}x{SHAPE[1]}xf32>\n}}\n")


@pytest.mark.parametrize("i, j", list(itertools.product(range(-2, 4), range(-2, 5))))
def test_extract_positions_in_range_or_poison_only(i, j):
    ok = all(p == -1 or 0 <= p < n for p, n in zip((i, j), SHAPE))
    if ok:
        parse_module(extract(i, j))
        return
    with pytest.raises(LayoutError) as err:
        parse_module(extract(i, j))
    d = 0 if not (i == -1 or 0 <= i < SHAPE[0]) else 1
    bad = (i, j)[d]
    assert str(err.value).startswith(f"line 2: vector.extract: position #{d}: {bad} is out of range for "
                                     f"dimension {d} of size {SHAPE[d]}")


@pytest.mark.parametrize("i", range(-2, 4))
def test_insert_positions_in_range_or_poison_only(i):
    if i == -1 or 0 <= i < SHAPE[0]:
        parse_module(insert(i))
        return
    with pytest.raises(LayoutError, match=rf"^line 2: vector.insert: position #0: {i} is out of range"):
        parse_module(insert(i))
