"""Other families' layouts as transform chains, checked equal to the layouts by tables."""

from __future__ import annotations

import numpy as np
import pytest

from layoutkit import LayoutError
from layoutkit.coords import out_of_bounds
from layoutkit.core.cute import Layout
from layoutkit.core.protocol import equivalent
from layoutkit.layouts.iree import NestedLayout
from layoutkit.layouts.rock import (
    cute_chain,
    nested_layout_chain,
    padded_shared_chain,
    swizzled_shared_chain,
)
from layoutkit.layouts.triton.shared import PaddedSharedEncoding, SwizzledSharedEncoding


@pytest.mark.parametrize("vec, per_phase, max_phase, order, shape", [
    (2, 1, 4, (1, 0), (4, 8)),      # seed 004's example
    (8, 2, 8, (1, 0), (64, 64)),
    (4, 1, 8, (0, 1), (16, 32)),
    (1, 4, 2, (1, 0), (32, 16)),
    (16, 1, 8, (1, 0), (16, 32)),   # more phases than column groups: high bits drop
    (4, 2, 4, (2, 1, 0), (2, 8, 16)),
    (2, 1, 1, (0,), (8,)),
])
def test_swizzled_shared_as_chain(vec, per_phase, max_phase, order, shape):
    enc = SwizzledSharedEncoding(vec=vec, per_phase=per_phase, max_phase=max_phase, order=order)
    chain = swizzled_shared_chain(enc, shape)
    assert equivalent(chain.invert(), enc, shape)
    # the chain itself against the swizzle written out for 2-d row-major tensors
    if shape == (4, 8):
        for r in range(4):
            for c in range(8):
                assert chain.apply(r, c) == (8 * r + ((c // 2) ^ r) * 2 + c % 2,)
    assert not out_of_bounds(chain).left and not out_of_bounds(chain).right


@pytest.mark.parametrize("pairs, order, shape", [
    ([(4, 1)], (1, 0), (2, 4)),
    ([(32, 4)], (1, 0), (16, 32)),
    ([(16, 2), (64, 4)], (0, 1), (32, 8)),
    ([(8, 1), (128, 8)], (1, 0), (4, 16)),  # the 128 interval is past the tensor
])
def test_padded_shared_as_chain(pairs, order, shape):
    enc = PaddedSharedEncoding.from_order(pairs, order, shape)
    chain = padded_shared_chain(enc)
    grid = np.indices(shape).reshape(len(shape), -1)
    (offsets,) = chain.apply(*list(grid))
    # offset = i + sum (i // I) * P with i the unpadded index, order[0] fastest
    strides = [int(np.prod([shape[d] for d in order[:k]])) for k in range(len(order))]
    index = sum(grid[d] * strides[k] for k, d in enumerate(order))
    assert np.array_equal(offsets, index + sum((index // i) * p for i, p in pairs))
    back = enc.apply(shape, offset=offsets)
    assert all(np.array_equal(back[f"dim{d}"], grid[d]) for d in range(len(shape)))
    table = enc.table(shape)
    used = np.zeros(table.shape[0], dtype=bool)
    used[offsets] = True
    assert np.all(table[~used] == -1)  # every offset the chain skips is padding


NESTED = [
    dict(subgroup_tile=[2, 1], batch_tile=[2, 4], outer_tile=[1, 1], thread_tile=[16, 4], element_tile=[1, 4],
         subgroup_strides=[1, 0], thread_strides=[1, 16]),  # seed 000
    dict(subgroup_tile=[1, 2], batch_tile=[1, 2], outer_tile=[2, 1], thread_tile=[8, 4], element_tile=[2, 2],
         subgroup_strides=[0, 1], thread_strides=[4, 1], subgroup_size=32),
    dict(subgroup_tile=[2, 2], batch_tile=[1, 1], outer_tile=[1, 1], thread_tile=[4, 8], element_tile=[1, 1],
         subgroup_strides=[2, 1], thread_strides=[8, 1], subgroup_size=32, num_subgroups=4),
    dict(subgroup_tile=[1], batch_tile=[3], outer_tile=[1], thread_tile=[16], element_tile=[3],
         subgroup_strides=[0], thread_strides=[1], subgroup_size=64),  # lanes past 16 repeat
]


@pytest.mark.parametrize("fields", NESTED)
def test_nested_layout_as_chain(fields):
    layout = NestedLayout(**fields)
    chain = nested_layout_chain(layout)
    assert equivalent(chain, layout)
    assert np.array_equal(chain.table(), layout.table())


def test_nested_layout_with_overlapping_ids_is_an_error():
    # the thread tile reaches into the subgroup bits that subgroup1 also reads
    layout = NestedLayout(subgroup_tile=[1, 2], batch_tile=[1, 1], outer_tile=[1, 1], thread_tile=[128, 1],
                          element_tile=[1, 1], subgroup_strides=[0, 1], thread_strides=[1, 0], subgroup_size=64)
    with pytest.raises(LayoutError, match="overlap"):
        nested_layout_chain(layout)


@pytest.mark.parametrize("text", [
    "((2,3),(5,4)):((5,10),(1,30))", "(4,8):(8,1)", "(2,2,2):(4,1,2)", "(3,4):(0,1)", "8:2", "(4,1,2):(1,7,4)",
])
def test_cute_layout_as_chain(text):
    layout = Layout.parse(text)
    chain = cute_chain(layout)
    index = np.arange(layout.size)
    (offsets,) = chain.apply(index)
    assert np.array_equal(offsets, layout.evaluate(index))
    assert [chain.apply(i)[0] for i in range(layout.size)] == [layout(i) for i in range(layout.size)]


def test_chain_to_linear_layout_matches_seed_004_bases():
    enc = SwizzledSharedEncoding(vec=2, per_phase=1, max_phase=4, order=(1, 0))
    layout = swizzled_shared_chain(enc, (4, 8)).invert().to_linear_layout()
    assert layout.bases["offset"] == [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]]  # seed 004
    padded = padded_shared_chain(PaddedSharedEncoding.from_order([(4, 1)], (1, 0), (2, 4)))
    with pytest.raises(LayoutError, match="not linear over F2"):
        padded.to_linear_layout()
