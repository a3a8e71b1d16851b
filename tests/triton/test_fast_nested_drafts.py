"""The one-pass drafts of nested encodings (a slice of a blocked layout, dot operands)
against the general path they short-cut -- the parent's draft made with the draft algebra,
then cut -- on random encodings and shapes. The goldens against Triton 3.9 pin both."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.layouts.triton.blocked import BlockedEncoding, SliceEncoding

POW2 = st.sampled_from([1, 2, 4, 8, 16])
SHAPES = st.sampled_from([1, 2, 4, 16, 64, 512])


def same_draft(fast, general) -> None:
    assert fast.bases == general.bases
    assert fast.sizes == general.sizes and fast.dims == general.dims
    assert fast.rank == general.rank
    assert fast.proven == general.proven


@given(data=st.data(), rank=st.integers(2, 4))
@settings(max_examples=300, deadline=None)
def test_slice_of_blocked_draft_equals_the_parents_draft_cut(data, rank):
    parent = BlockedEncoding(
        tuple(data.draw(POW2) for _ in range(rank)), tuple(data.draw(POW2) for _ in range(rank)),
        tuple(data.draw(POW2) for _ in range(rank)), tuple(data.draw(st.permutations(list(range(rank))))))
    encoding = SliceEncoding(data.draw(st.integers(0, rank - 1)), parent)
    shape = tuple(data.draw(SHAPES) for _ in range(rank - 1))
    same_draft(encoding.draft(shape), encoding._draft_of_parent(shape, encoding.parent_shape(shape)))
    layout = encoding.build_linear_layout(shape)
    # the built layout is the public constructor's on the same bases
    assert layout == type(layout)({k: [list(b) for b in v] for k, v in layout.bases.items()}, dict(layout.out_dims))


def by_algebra(module):
    """``fitted_draft`` switched off in ``module``: its encodings take the draft algebra."""
    from unittest import mock

    return mock.patch.object(module, "fitted_draft", lambda *args: None)


def normalized(draft):
    """Bases without empty in-dims (the algebra leaves out an in-dim no step made)."""
    return {k: v for k, v in draft.bases.items() if v}, draft.dims, draft.sizes, draft.rank, draft.proven


def check_against_algebra(module, encoding, shape) -> None:
    fast = encoding.draft(shape)
    with by_algebra(module):
        general = encoding.draft(shape)
    assert normalized(fast) == normalized(general)
    assert encoding.build_linear_layout(shape) == general.build(sizes=shape)


MMA_SHAPES = st.sampled_from([1, 2, 8, 16, 64, 256])


@given(data=st.data(), version=st.sampled_from([2, 3]), op=st.sampled_from([None, 0, 1]))
@settings(max_examples=300, deadline=None)
def test_nvidia_mma_and_dot_operand_drafts_equal_the_draft_algebra(data, version, op):
    from layoutkit.layouts.triton import mma
    from layoutkit.layouts.triton.mma import DotOperandEncoding, NvidiaMmaEncoding

    rank = 2 if version == 3 else data.draw(st.integers(2, 3))
    warps = tuple(data.draw(st.sampled_from([1, 2, 4, 8])) for _ in range(rank))
    if version == 2:
        instr = (1,) * (rank - 2) + (16, 8)
    else:
        instr = (16, data.draw(st.sampled_from([8, 16, 64, 128, 256])), 16)
    encoding = parent = NvidiaMmaEncoding(version, 0, warps, instr)
    if op is not None:
        if version == 3 and op == 1:
            op = 0
        encoding = DotOperandEncoding(op, parent, data.draw(st.sampled_from([1, 2, 4, 8, 16])))
    shape = tuple(data.draw(MMA_SHAPES) for _ in range(rank))
    check_against_algebra(mma, encoding, shape)


@given(data=st.data(), op=st.sampled_from([None, 0, 1]))
@settings(max_examples=300, deadline=None)
def test_amd_mfma_and_dot_operand_drafts_equal_the_draft_algebra(data, op):
    from layoutkit.layouts.triton import amd
    from layoutkit.layouts.triton.amd import AmdMfmaEncoding
    from layoutkit.layouts.triton.mma import DotOperandEncoding

    rank = data.draw(st.integers(2, 3))
    instr = data.draw(st.sampled_from([(32, 32, 8), (16, 16, 16), (64, 4, 4), (4, 64, 4)]))
    transposed = instr[:2] == (64, 4) or data.draw(st.booleans())
    encoding = parent = AmdMfmaEncoding(
        data.draw(st.integers(1, 4)), tuple(data.draw(st.sampled_from([1, 2, 4])) for _ in range(rank)), instr,
        transposed, tiles_per_warp=tuple(data.draw(st.sampled_from([1, 2])) for _ in range(rank)),
        element_bit_width=data.draw(st.sampled_from([32, 64])))
    if op is not None:
        encoding = DotOperandEncoding(op, parent, data.draw(st.sampled_from([1, 2, 4, 8, 16])))
    shape = tuple(data.draw(MMA_SHAPES) for _ in range(rank))
    check_against_algebra(amd, encoding, shape)
