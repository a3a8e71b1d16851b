"""The swizzle construction is conflict-free whenever a conflict-free layout exists.

For layouts that are bijective over F2 (no broadcast), with the vector made of register
directions common to both layouts, each side's phase lanes span at most as many directions as
a wavefront has bank slots and meet the vector only in 0; two such subspaces always have a
common complement, so a scratch layout without bank conflicts on both sides exists. The
construction must find it: the stores and loads, simulated lane by lane here, hit distinct
banks in every request.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LinearLayout
from layoutkit.analysis import hardware_map
from layoutkit.convert.scratch import evaluate, linear_bases, linear_scratch, swizzle_bases
from layoutkit.core import gf2


@st.composite
def bijective_layout(draw, nbits, lanes_bits=5, warp_bits=2):
    while True:
        columns = draw(st.permutations([1 << i for i in range(nbits)]))
        # mix the columns with a random invertible upper-triangular transform
        mixed = list(columns)
        for i in range(nbits):
            for j in range(i + 1, nbits):
                if draw(st.booleans()) and draw(st.booleans()):
                    mixed[j] ^= mixed[i]
        if gf2.rank(mixed) == nbits:
            break
    regs = nbits - lanes_bits - warp_bits
    shape = (64, 64)

    def coord(v):
        return [v >> 6, v & 63]

    bases = {"register": [coord(v) for v in mixed[:regs]],
             "lane": [coord(v) for v in mixed[regs:regs + lanes_bits]],
             "warp": [coord(v) for v in mixed[regs + lanes_bits:]], "block": []}
    return LinearLayout(bases, {"dim0": shape[0], "dim1": shape[1]})


def brute_conflicts(offsets_of_requests, elem_bytes, vector):
    """Requests whose phase has two distinct words in one bank (lane by lane)."""
    access = vector * elem_bytes
    per_phase = 128 // max(access, 4)
    bad = 0
    for lanes in offsets_of_requests:
        for start in range(0, len(lanes), per_phase):
            banks = {}
            for o in lanes[start:start + per_phase]:
                if o < 0:
                    continue
                for w in range(o * elem_bytes // 4, o * elem_bytes // 4 + max(1, access // 4)):
                    banks.setdefault(w % 32, set()).add(w)
            bad += any(len(words) > 1 for words in banks.values())
    return bad


@given(data=st.data(), elem_bytes=st.sampled_from([1, 2, 4, 8]))
@settings(max_examples=60, deadline=None)
def test_common_vector_construction_is_conflict_free(data, elem_bytes):
    src = data.draw(bijective_layout(12))
    dst = data.draw(bijective_layout(12))
    shape = (64, 64)
    src_map = hardware_map(src, shape).elements
    dst_map = hardware_map(dst, shape).elements
    directions, vectors = swizzle_bases(linear_bases(src_map, 4096), linear_bases(dst_map, 4096), 12, elem_bytes,
                                        "none")
    candidate = evaluate(linear_scratch(directions, shape, vectors=vectors), src_map, dst_map, elem_bytes)
    for access in (candidate.store, candidate.load):
        requests = [access.offsets[0, w, :, i] for w in range(access.offsets.shape[1])
                    for i in range(access.offsets.shape[-1])]
        assert brute_conflicts(requests, elem_bytes, access.vector) == 0
