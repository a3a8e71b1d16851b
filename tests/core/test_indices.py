"""``layoutkit.core.indices.unravel``: row-major coordinates of flat indices, checked against
the formula ``coordinate[d] = flat // prod(shape[d+1:]) % shape[d]`` written here, on the large
``(N, 1)`` index arrays where numpy 2.4's ``np.unravel_index`` goes wrong (numpy issue 31980)."""

from __future__ import annotations

from math import prod
from pathlib import Path

import numpy as np
import pytest

from layoutkit import LayoutError
from layoutkit.core.indices import unravel


def formula(flat: np.ndarray, shape: tuple[int, ...]) -> list[np.ndarray]:
    return [flat // prod(shape[d + 1:]) % shape[d] for d in range(len(shape))]


@pytest.mark.parametrize("layout", [(-1, 1), (-1,), (1, -1), (-1, 2), (-1, 1, 1)])
@pytest.mark.parametrize("shape", [(100000, 4, 4), (1600000, 2), (3, 5, 7, 12)])
def test_unravel_matches_the_formula(layout, shape):
    count = min(prod(shape), 1600000) // 2 * 2
    flat = np.arange(count, dtype=np.int64)[::-1].reshape(layout)
    coords = unravel(flat, shape)
    assert len(coords) == len(shape)
    for got, want in zip(coords, formula(flat, shape)):
        assert got.shape == flat.shape
        assert np.array_equal(got, want)


def test_unravel_scalars_and_lists():
    assert [int(c) for c in unravel(23, (2, 3, 4))] == [1, 2, 3]
    assert [c.tolist() for c in unravel([0, 7], (4, 2))] == [[0, 3], [0, 1]]
    assert unravel(np.zeros((0, 1), np.int64), (4, 2))[0].shape == (0, 1)


@pytest.mark.parametrize("flat", [-1, 8, [0, 9], 1.5, "3"])
def test_unravel_bad_indices(flat):
    with pytest.raises(LayoutError, match="flat index"):
        unravel(flat, (4, 2))


def test_no_np_unravel_index_left_in_layoutkit():
    root = Path(__file__).resolve().parents[2] / "layoutkit"
    users = [str(p.relative_to(root)) for p in root.rglob("*.py") if "np.unravel_index(" in p.read_text()]
    # render and backends belong to other work; everything else uses core.indices.unravel
    assert [u for u in users if not u.startswith(("render", "backends"))] == []
