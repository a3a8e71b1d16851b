"""#ttg.linear: the map is the XOR of the bases of the set bits (checked by explicit loops),
repeated over registers on larger tensors and cut (register bits dropped, others zeroed) on
smaller ones, as Triton's LinearEncodingAttr::toLinearLayout does."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.layouts.triton.blocked import BlockedEncoding
from layoutkit.layouts.triton.linear import LinearEncoding
from layoutkit.layouts.triton.mma import NvidiaMmaEncoding

TEXT = ("#ttg.linear<{register = [[0, 1], [8, 0], [0, 8], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], "
        "[2, 0], [4, 0]], warp = [[16, 0], [32, 0]], block = []}>")


def xor_of_bases(enc, register, lane, warp, block):
    coord = [0] * enc.rank
    for value, bases in ((register, enc.register), (lane, enc.lane), (warp, enc.warp), (block, enc.block)):
        for bit, basis in enumerate(bases):
            if value >> bit & 1:
                coord = [c ^ b for c, b in zip(coord, basis)]
    return coord


def reference(enc, shape):
    """Fit to ``shape``: extra registers repeat the layout along ``enc.order`` (fastest
    first); register bits leaving the tensor are dropped, other bits wrap (mod)."""
    own = enc.layout_shape
    rank = enc.rank
    kept = [i for i, b in enumerate(enc.register) if all(v < s for v, s in zip(b, shape))]
    reps = [max(1, shape[d] // own[d]) for d in range(rank)]
    n_rep = int(np.prod(reps))
    sizes = (len(kept) and 2 ** len(kept)) or 1, 2 ** len(enc.lane), 2 ** len(enc.warp), 2 ** len(enc.block)
    out = np.zeros((sizes[0] * n_rep, *sizes[1:], rank), dtype=np.int64)
    for r, lane, warp, block in itertools.product(range(sizes[0] * n_rep), *map(range, sizes[1:])):
        low, rep = r % sizes[0], r // sizes[0]
        register = sum(1 << kept[i] for i in range(len(kept)) if low >> i & 1)
        coord = xor_of_bases(enc, register, lane, warp, block)
        digits = [0] * rank
        for d in enc.order:
            digits[d], rep = rep % reps[d], rep // reps[d]
        out[r, lane, warp, block] = [(coord[d] + digits[d] * own[d]) % shape[d] for d in range(rank)]
    return out


def test_print_round_trip():
    enc = layoutkit.parse_layout(TEXT)
    assert str(enc) == TEXT
    assert layoutkit.parse_layout(str(enc)) == enc
    assert enc.layout_shape == (128, 16) and enc.order == (1, 0)


@pytest.mark.parametrize("shape", [(128, 16), (256, 64), (128, 32), (64, 16), (16, 16), (32, 4)])
def test_matches_xor_of_bases(shape):
    enc = layoutkit.parse_layout(TEXT)
    assert np.array_equal(enc.table(shape), reference(enc, shape))


def test_pinned_fits():
    enc = layoutkit.parse_layout(TEXT)
    # drops the register basis [64, 0] and zeroes the warp bases that leave a 16x16 tensor
    assert enc.to_linear_layout((16, 16)).bases == {
        "register": [[0, 1], [8, 0], [0, 8]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
        "warp": [[0, 0], [0, 0]], "block": []}
    # the Triton MMA layout it spells (LinearLayoutConversionsTest.MMAv3_128x16)
    mma = NvidiaMmaEncoding(3, 0, (4, 1), (16, 16, 8))
    assert enc.to_linear_layout((128, 16)) == mma.to_linear_layout((128, 16))


def test_from_linear_layout_round_trip():
    blocked = BlockedEncoding((2, 2), (4, 8), (2, 2), (0, 1))
    layout = blocked.to_linear_layout((32, 64))
    enc = LinearEncoding.from_linear_layout(layout)
    assert enc.to_linear_layout((32, 64)) == layout
    assert layoutkit.parse_layout(str(enc)) == enc


@pytest.mark.parametrize(
    "text, field",
    [
        ("#ttg.linear<{register = [[0, 2]], lane = [], warp = [], block = []}>", "register"),
        ("#ttg.linear<{register = [[1, 1]], lane = [], warp = [], block = []}>", "register"),
        ("#ttg.linear<{register = [[1, 0]], lane = [[0, 1, 0]], warp = [], block = []}>", "lane"),
        ("#ttg.linear<{register = [[1, 0]], lane = [], warp = []}>", "block"),
        ("#ttg.linear<{register = [], lane = [], warp = [], block = []}>", "register"),
        ("#ttg.linear<{register = [[1, 0]], lane = [], warp = [], block = [], offset = []}>", "offset"),
        ("#ttg.linear<{register = [1, 0], lane = [], warp = [], block = []}>", "register"),
    ],
)
def test_bad_text_names_the_field(text, field):
    with pytest.raises(LayoutError) as info:
        layoutkit.parse_layout(text)
    assert field in str(info.value)


def test_cga_of_a_linear_layout_is_the_blocked_one():
    blocked = layoutkit.parse_layout(
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], "
        "CTAsPerCGA = [2, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>")
    enc = LinearEncoding.from_linear_layout(blocked.to_linear_layout((64, 32)))
    assert enc.cga == blocked.cga
    assert enc.to_linear_layout((64, 32)) == blocked.to_linear_layout((64, 32))
