"""Blocked and slice encodings against an independent per-element formula and against the
bases pinned in Triton's unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutkit
from layoutkit import LayoutError
from layoutkit.layouts.triton.blocked import BlockedEncoding, SliceEncoding
from layoutkit.layouts.triton.cga import CGALayout


def bases(encoding, shape):
    return encoding.to_linear_layout(shape).bases


def blocked(spt, tpw, wpc, cpg, split, order, cta_order):
    """The helper of Triton's test fixture: legacy CTA fields."""
    return BlockedEncoding(spt, tpw, wpc, order, CGALayout.from_split_params(cpg, split, cta_order))


# ---------------------------------------------------------------------------------------
# the formula: who holds element (i0, i1, ...)
# ---------------------------------------------------------------------------------------
def mixed_radix(index, sizes, order):
    """Split ``index`` into per-dim digits, ``order[0]`` the fastest digit."""
    digits = [0] * len(sizes)
    for d in order:
        digits[d] = index % sizes[d]
        index //= sizes[d]
    return digits


def blocked_reference(spt, tpw, wpc, order, shape, cpg=None, split=None, cta_order=None):
    """Hardware sizes and ``coords[reg, lane, warp, block]`` straight from the definition:
    a CTA tile of spt*tpw*wpc repeated over registers (order[0] first) across a CTA's share
    of the tensor, wrapped modulo the tensor (broadcast) where the tensor is smaller; CTA c
    holds piece ``c mod CTASplitNum`` of the tensor. Registers past a CTA's share are not
    there at all (Triton 3.9): a thread holds ``min(sizePerThread, share)`` per dim."""
    rank = len(shape)
    cpg = cpg or [1] * rank
    split = split or [1] * rank
    cta_order = cta_order or list(range(rank))
    cta_shape = [max(1, s // p) for s, p in zip(shape, split)]
    tile = [spt[d] * tpw[d] * wpc[d] for d in range(rank)]
    reps = [max(1, cta_shape[d] // tile[d]) for d in range(rank)]
    own = [min(spt[d], cta_shape[d]) for d in range(rank)]
    n_reg = int(np.prod(own)) * int(np.prod(reps))
    n_lane, n_warp, n_block = int(np.prod(tpw)), int(np.prod(wpc)), int(np.prod(cpg))
    coords = np.zeros((n_reg, n_lane, n_warp, n_block, rank), dtype=np.int64)
    for r, lane, w, b in itertools.product(range(n_reg), range(n_lane), range(n_warp), range(n_block)):
        s = mixed_radix(r % int(np.prod(own)), own, order)
        rep = mixed_radix(r // int(np.prod(own)), reps, order)
        lc = mixed_radix(lane, tpw, order)
        wc = mixed_radix(w, wpc, order)
        bc = mixed_radix(b, cpg, cta_order)
        for d in range(rank):
            within = (rep[d] * tile[d] + wc[d] * spt[d] * tpw[d] + lc[d] * spt[d] + s[d]) % cta_shape[d]
            coords[r, lane, w, b, d] = ((bc[d] % split[d]) * cta_shape[d] + within) % shape[d]
    return coords


def assert_matches_reference(encoding, shape, reference):
    table = encoding.table(shape)
    assert table.shape == reference.shape
    assert np.array_equal(table, reference)


# ---------------------------------------------------------------------------------------
# pinned values
# ---------------------------------------------------------------------------------------
def test_seed_004_blocked_16x16():
    """The issue's pin: seed 004's layout at 16x16."""
    enc = layoutkit.parse_layout(
        "#triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
        "warpsPerCTA = [4, 1], order = [1, 0]}>"
    )
    layout = enc.to_linear_layout((16, 16))
    assert layout.bases == {
        "register": [[0, 1], [0, 2]],
        "lane": [[0, 4], [0, 8], [0, 0], [1, 0], [2, 0]],
        "warp": [[4, 0], [8, 0]],
        "block": [],
    }
    assert layout.out_dims == {"dim0": 16, "dim1": 16}
    assert list(enc.hardware_dims((16, 16))) == ["register", "lane", "warp", "block"]


def test_seed_004_views():
    """Seed 004's printed grids: element -> 'T<lane + 32*warp>:<reg>' owners."""
    enc = BlockedEncoding((1, 4), (4, 8), (1, 1), (1, 0))
    # tensor<4x32>: row 1 = T8..T15, 4 registers each
    table = enc.table((4, 32))  # (reg, lane, warp, block, 2)
    assert tuple(table[3, 9, 0, 0]) == (1, 7)  # T9:3 at row 1, column 7
    # tensor<8x32>: T0:4 at (4, 0) -- the layout repeats down the rows
    table = enc.table((8, 32))
    assert tuple(table[4, 0, 0, 0]) == (4, 0)
    # 16x16 with 4 warps: T0 and T4 both hold (0, 0..3); T127 holds (15, 12..15)
    enc = BlockedEncoding((1, 4), (4, 8), (4, 1), (1, 0))
    owners = enc.owners((0, 2), (16, 16))
    assert sorted((o["lane"] + 32 * o["warp"], o["register"]) for o in owners) == [(0, 2), (4, 2)]
    assert tuple(enc.table((16, 16))[3, 31, 3, 0]) == (15, 15)


@pytest.mark.parametrize(
    "name, shape, encoding, expected",
    [
        ("SimpleBlocked", (16,), blocked([1], [4], [4], [1], [1], [0], [0]),
         {"register": [], "lane": [[1], [2]], "warp": [[4], [8]], "block": []}),
        ("CTADuplication", (32,), blocked([1], [4], [4], [4], [2], [0], [0]),
         {"register": [], "lane": [[1], [2]], "warp": [[4], [8]], "block": [[16], [0]]}),
        ("CTABroadcast", (64, 128), blocked([8, 1], [8, 4], [1, 4], [1, 2], [1, 2], [0, 1], [1, 0]),
         {"register": [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]],
          "lane": [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]], "warp": [[0, 4], [0, 8]], "block": [[0, 64]]}),
        ("ShapeLargerThanLayout", (128,), blocked([1], [4], [4], [1], [1], [0], [0]),
         {"register": [[16], [32], [64]], "lane": [[1], [2]], "warp": [[4], [8]], "block": []}),
        ("ShapeLargerThanLayout2DDegenerate", (128, 1), blocked([1, 1], [4, 1], [4, 1], [1, 1], [1, 1], [0, 1], [1, 0]),
         {"register": [[16, 0], [32, 0], [64, 0]], "lane": [[1, 0], [2, 0]], "warp": [[4, 0], [8, 0]], "block": []}),
        ("ShapeSmallerThanLayout", (8,), blocked([4], [4], [4], [1], [1], [0], [0]),
         {"register": [[1], [2]], "lane": [[4], [0]], "warp": [[0], [0]], "block": []}),
        ("ReversedOrder", (1, 64), blocked([1, 1], [32, 1], [1, 8], [1, 1], [1, 1], [0, 1], [1, 0]),
         {"register": [[0, 8], [0, 16], [0, 32]], "lane": [[0, 0]] * 5, "warp": [[0, 1], [0, 2], [0, 4]], "block": []}),
        ("ReplicateInRegisterDim", (32,), blocked([2], [4], [1], [1], [1], [0], [0]),
         {"register": [[1], [8], [16]], "lane": [[2], [4]], "warp": [], "block": []}),
        ("OneDimTooLargeAnotherTooSmall", (128, 16), blocked([1, 4], [8, 4], [4, 1], [2, 2], [2, 1], [1, 0], [1, 0]),
         {"register": [[0, 1], [0, 2], [32, 0]], "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
          "warp": [[8, 0], [16, 0]], "block": [[0, 0], [64, 0]]}),
        ("RepeatInCTGDimFirst", (4,), blocked([1], [1], [4], [2], [2], [0], [0]),
         {"register": [], "lane": [], "warp": [[1], [0]], "block": [[2]]}),
        ("SmallerThanCTALayout", (2,), blocked([1], [1], [1], [4], [4], [0], [0]),
         {"register": [], "lane": [], "warp": [], "block": [[1], [0]]}),
        ("Skinny", (64, 1), blocked([8, 1], [8, 4], [1, 4], [1, 2], [1, 2], [0, 1], [0, 1]),
         {"register": [[1, 0], [2, 0], [4, 0]], "lane": [[8, 0], [16, 0], [32, 0], [0, 0], [0, 0]],
          "warp": [[0, 0], [0, 0]], "block": [[0, 0]]}),
        ("BlockedOrder", (1024, 128), blocked([2, 2], [4, 8], [2, 2], [2, 2], [2, 2], [1, 0], [1, 0]),
         {"register": [[0, 1], [1, 0], [0, 32], [16, 0], [32, 0], [64, 0], [128, 0], [256, 0]],
          "lane": [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]], "warp": [[0, 16], [8, 0]], "block": [[0, 64], [512, 0]]}),
        ("Blocked4D", (2, 1, 1, 1), blocked([1, 1, 1, 4], [2, 1, 1, 16], [1, 2, 4, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                                            [3, 0, 1, 2], [3, 2, 1, 0]),
         # Triton 3.9 drops the registers past the tensor (the C++ test of older Triton
         # had two zero register bases here)
         {"register": [], "lane": [[0, 0, 0, 0]] * 4 + [[1, 0, 0, 0]],
          "warp": [[0, 0, 0, 0]] * 3, "block": []}),
    ],
)
def test_triton_unit_test_bases(name, shape, encoding, expected):
    """LinearLayoutConversionsTest.<name> (Triton's C++ unit test)."""
    assert bases(encoding, shape) == expected


@pytest.mark.parametrize(
    "shape, dim, expected",
    [
        # LinearLayoutConversionsTest.SliceOfBlocked
        ((128,), 0, {"register": [[1], [2], [16], [32]], "lane": [[4], [0], [0]], "warp": [[8], [0]],
                     "block": [[64], [0]]}),
        ((128,), 1, {"register": [[1], [16], [32]], "lane": [[0], [2], [4]], "warp": [[0], [8]],
                     "block": [[0], [64]]}),
    ],
)
def test_slice_of_blocked(shape, dim, expected):
    parent = blocked([2, 4], [4, 2], [2, 2], [2, 2], [2, 2], [1, 0], [1, 0])
    assert bases(SliceEncoding(dim, parent), shape) == expected


def test_slice_with_shape_1_and_4d():
    # LinearLayoutConversionsTest.SliceWithShape1 (the version whose slice drops all-zero
    # register bases, as SliceEncodingAttr::toLinearLayout does today)
    parent = blocked([1, 4], [8, 4], [2, 2], [1, 1], [1, 1], [0, 1], [1, 0])
    assert bases(SliceEncoding(0, parent), (1,)) == {
        "register": [], "lane": [[0]] * 5, "warp": [[0], [0]], "block": []}
    # LinearLayoutConversionsTest.Slice4D
    parent = blocked([1, 1, 1, 4], [2, 1, 1, 16], [1, 2, 4, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                     [3, 0, 1, 2], [3, 2, 1, 0])
    assert bases(SliceEncoding(3, parent), (2, 1, 1)) == {
        "register": [], "lane": [[0, 0, 0]] * 4 + [[1, 0, 0]], "warp": [[0, 0, 0]] * 3, "block": []}


def test_registers_past_a_small_tensor_are_dropped():
    """Issue 10 item 1, as Triton 3.9 computes it: registers past the tensor are removed,
    lanes and warps past it stay as zero (broadcast) bases."""
    enc = BlockedEncoding([4, 4], [8, 4], [1, 1], [0, 1])
    ll = enc.to_linear_layout((4, 2))
    assert ll.bases["register"] == [[1, 0], [2, 0], [0, 1]]
    assert ll.bases["lane"] == [[0, 0]] * 5
    enc = BlockedEncoding([1, 8, 8], [4, 8, 1], [1, 1, 4], [2, 1, 0])
    assert enc.to_linear_layout((4, 1, 128)).bases["register"] == [
        [0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 32], [0, 0, 64]]


# ---------------------------------------------------------------------------------------
# the formula, on chosen and on random encodings
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spt, tpw, wpc, order, shape",
    [
        ([1, 4], [4, 8], [4, 1], [1, 0], (16, 16)),
        ([1, 4], [4, 8], [1, 1], [1, 0], (8, 32)),
        ([2, 2], [8, 4], [2, 2], [0, 1], (64, 8)),
        ([1, 1, 2], [2, 4, 4], [1, 2, 1], [2, 0, 1], (4, 16, 8)),
        ([4], [32], [4], [0], (64,)),
    ],
)
def test_blocked_matches_formula(spt, tpw, wpc, order, shape):
    enc = BlockedEncoding(spt, tpw, wpc, order)
    assert_matches_reference(enc, shape, blocked_reference(spt, tpw, wpc, order, shape))


def test_blocked_with_cga_matches_formula():
    cpg, split, cta_order = [2, 2], [2, 1], [1, 0]
    enc = blocked([1, 2], [4, 8], [2, 1], cpg, split, [1, 0], cta_order)
    for shape in [(32, 32), (64, 16), (2, 8)]:
        ref = blocked_reference([1, 2], [4, 8], [2, 1], [1, 0], shape, cpg, split, cta_order)
        assert_matches_reference(enc, shape, ref)


pow2 = st.sampled_from([1, 2, 4])


@settings(max_examples=40, deadline=None)
@given(
    rank=st.integers(1, 3), data=st.data(),
)
def test_random_blocked_matches_formula(rank, data):
    spt = data.draw(st.lists(pow2, min_size=rank, max_size=rank))
    tpw = data.draw(st.lists(pow2, min_size=rank, max_size=rank))
    wpc = data.draw(st.lists(st.sampled_from([1, 2]), min_size=rank, max_size=rank))
    order = data.draw(st.permutations(list(range(rank))))
    shape = tuple(data.draw(st.lists(st.sampled_from([1, 2, 4, 8, 16]), min_size=rank, max_size=rank)))
    enc = BlockedEncoding(spt, tpw, wpc, order)
    assert_matches_reference(enc, shape, blocked_reference(spt, tpw, wpc, order, shape))


def test_slice_matches_parent_projection():
    """Each (lane, warp) of a slice holds exactly the parent's elements with dim d dropped."""
    spt, tpw, wpc, order = [2, 2], [4, 8], [2, 2], [1, 0]
    parent = BlockedEncoding(spt, tpw, wpc, order)
    for dim, shape in [(0, (32,)), (1, (16,)), (1, (64,))]:
        parent_shape = shape[:dim] + (1,) + shape[dim:]
        ref = blocked_reference(spt, tpw, wpc, order, parent_shape)
        table = SliceEncoding(dim, parent).table(shape)
        for lane, warp in itertools.product(range(32), range(4)):
            expected = {tuple(np.delete(c, dim)) for c in ref[:, lane, warp, 0]}
            got = {tuple(c) for c in table[:, lane, warp, 0]}
            assert got == expected


# ---------------------------------------------------------------------------------------
# text, errors
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
        "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1], "
        "CGALayout = [[0, 1]]}>",
        "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], "
        "warpsPerCTA = [4, 1], order = [0, 1]}>}>",
    ],
)
def test_print_is_triton_text(text):
    enc = layoutkit.parse_layout(text)
    assert str(enc) == text
    assert layoutkit.parse_layout(str(enc)) == enc


def test_legacy_cta_fields_read_as_cga_layout():
    legacy = layoutkit.parse_layout(
        "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1], "
        "CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>"
    )
    assert legacy.cga.bases == ((0, 1),)
    assert str(legacy).endswith("CGALayout = [[0, 1]]}>")
    assert legacy.cga.ctas_per_cga == (1, 2) and legacy.cga.cta_split_num == (1, 2)


def test_slice_parent_alias():
    aliases = "#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    enc = layoutkit.parse_layout("#ttg.slice<{dim = 0, parent = #blocked}>", aliases=aliases)
    assert enc.parent == BlockedEncoding((1, 4), (4, 8), (4, 1), (1, 0))


@pytest.mark.parametrize(
    "text, field",
    [
        ("#ttg.blocked<{sizePerThread = [1, 3], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
         "sizePerThread"),
        ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8, 1], warpsPerCTA = [4, 1], order = [1, 0]}>",
         "threadsPerWarp"),
        ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 1]}>",
         "order"),
        ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], order = [1, 0]}>", "warpsPerCTA"),
        ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], "
         "foo = 1}>", "foo"),
        ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], "
         "CTAsPerCGA = [2, 1]}>", "CTASplitNum"),
        ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], "
         "CGALayout = [[0, 2]]}>", "CGALayout"),
        ("#ttg.slice<{dim = 2, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
         "warpsPerCTA = [4, 1], order = [1, 0]}>}>", "dim"),
        ("#ttg.slice<{dim = 0, parent = #missing}>", "alias"),
    ],
)
def test_bad_text_names_the_field(text, field):
    with pytest.raises(LayoutError) as info:
        layoutkit.parse_layout(text)
    assert field in str(info.value)


@pytest.mark.parametrize("shape", [(16,), (16, 16, 16), (16, 12), (0, 16), "16x16"])
def test_bad_shapes(shape):
    enc = BlockedEncoding((1, 4), (4, 8), (4, 1), (1, 0))
    with pytest.raises(LayoutError, match="shape"):
        enc.to_linear_layout(shape)


def test_cached_and_uncached_agree():
    enc = BlockedEncoding((2, 2), (4, 8), (2, 2), (0, 1))
    assert enc.to_linear_layout((64, 64)) == enc.build_linear_layout((64, 64))
    assert enc.to_linear_layout((64, 64)) is enc.to_linear_layout([64, 64])


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_random_blocked_with_cga_matches_formula(data):
    rank = data.draw(st.integers(1, 2))
    dims = st.lists(pow2, min_size=rank, max_size=rank)
    spt, tpw = data.draw(dims), data.draw(dims)
    wpc = data.draw(st.lists(st.sampled_from([1, 2]), min_size=rank, max_size=rank))
    order = data.draw(st.permutations(list(range(rank))))
    cpg = data.draw(st.lists(st.sampled_from([1, 2, 4]), min_size=rank, max_size=rank))
    split = [data.draw(st.sampled_from([c for c in (1, 2, 4) if c <= n])) for n in cpg]
    cta_order = data.draw(st.permutations(list(range(rank))))
    shape = tuple(data.draw(st.lists(st.sampled_from([1, 2, 4, 8, 32]), min_size=rank, max_size=rank)))
    enc = blocked(spt, tpw, wpc, cpg, split, order, cta_order)
    ref = blocked_reference(spt, tpw, wpc, order, shape, cpg, split, cta_order)
    assert_matches_reference(enc, shape, ref)
