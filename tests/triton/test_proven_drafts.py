"""``Draft.proven``: a draft that says its values lie below its sizes must be right, since
``Draft.build`` then hands its bases to ``LinearLayout._trusted`` without looking at them.

- every distributed encoding of the Triton 3.9 goldens, on its golden shape: each proven
  draft's bases are checked value by value here, and the built layout equals the public
  constructor's on the same bases (and Triton's bases, already pinned elsewhere);
- random sequences of the draft operations (walks, broadcasts, products, cuts) keep the
  invariant whenever they claim it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LinearLayout, parse_layout
from layoutkit.layouts.triton.common import DistributedEncoding, Draft, combine_cta_cga

GOLDENS = json.loads((Path(__file__).parent / "goldens" / "triton39.json").read_text())["cases"]


def invariant_holds(draft: Draft) -> bool:
    """The claim, checked by brute force: tuples of ``rank`` non-negative ints below ``sizes``."""
    for rows in draft.bases.values():
        for basis in rows:
            if type(basis) is not tuple or len(basis) != draft.rank:
                return False
            for value, size in zip(basis, draft.sizes):
                if type(value) is not int or not 0 <= value < size:
                    return False
    return True


def distributed_cases():
    for case in GOLDENS:
        if "bases" not in case or "padded" in case["encoding"]:
            continue
        encoding = parse_layout(case["text"])
        if isinstance(encoding, DistributedEncoding):
            yield pytest.param(case["text"], tuple(case["shape"]), case["bases"], id=f"{case['encoding']}-{case['shape']}")


@pytest.mark.parametrize("text,shape,golden", list(distributed_cases()))
def test_proven_drafts_of_the_goldens(text, shape, golden):
    encoding = parse_layout(text)
    draft = encoding.draft(shape)
    if draft.proven:
        assert invariant_holds(draft)
    built = encoding.build_linear_layout(shape)
    public = LinearLayout({k: [list(b) for b in v] for k, v in built.bases.items()}, dict(built.out_dims))
    assert built == public
    assert {k: [list(b) for b in v] for k, v in built.bases.items()} == golden


def test_most_golden_drafts_are_proven():
    """The fast path is the common path (else the benchmark measures the fallback)."""
    drafts = [parse_layout(text).draft(shape) for text, shape, _ in (p.values for p in distributed_cases())]
    assert sum(d.proven for d in drafts) >= 0.9 * len(drafts)


SIZES = st.sampled_from([1, 2, 4, 8, 3, 6])


@st.composite
def drafts(draw, depth=0):
    rank = draw(st.integers(1, 3))
    draft = Draft.empty(rank)
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(["walk", "broadcast", "cut", "grow", "mul", "bases"]))
        in_dim = draw(st.sampled_from(["register", "lane", "warp"]))
        if op == "walk":
            order = draw(st.permutations(list(range(rank))))
            draft = draft.times_walk(in_dim, [draw(SIZES) for _ in range(rank)], order)
        elif op == "broadcast":
            draft = draft.times_zeros(draw(SIZES), in_dim, draw(st.integers(0, rank - 1)))
        elif op == "cut":
            draft = draft.not_larger_than([draw(SIZES) for _ in range(rank)], draw(st.booleans()))
        elif op == "grow":
            draft = draft.not_smaller_than([draw(st.sampled_from([1, 2, 16])) for _ in range(rank)], in_dim)
        elif op == "mul":
            other = Draft.identity_nd(in_dim, [draw(SIZES) for _ in range(rank)], list(range(rank)))
            draft = draft * other
        else:
            values = st.integers(-1, 9)
            bases = [tuple(draw(values) for _ in range(draw(st.sampled_from([rank, rank, rank + 1]))))
                     for _ in range(draw(st.integers(0, 2)))]
            draft = draft * Draft.from_bases(rank, {"block": bases}, range(rank))
    return draft


@given(drafts())
@settings(max_examples=300, deadline=None)
def test_random_draft_operations_keep_the_claim(draft):
    if draft.proven:
        assert invariant_holds(draft)


@given(drafts(), st.lists(st.sampled_from([1, 2, 4, 8, 16]), min_size=1, max_size=3))
@settings(max_examples=200, deadline=None)
def test_combining_keeps_the_claim(draft, shape):
    shape = (shape * 3)[: draft.rank]
    combined = combine_cta_cga(draft, [], shape)
    if combined.proven:
        assert invariant_holds(combined)


@given(data=st.data(), rank=st.integers(1, 3))
@settings(max_examples=300, deadline=None)
def test_one_cta_blocked_draft_equals_the_draft_algebra(data, rank):
    """``BlockedEncoding._one_cta_draft`` against Triton's construction written with the
    draft algebra (``cta_tile`` fitted by ``combine_cta_cga``), on random encodings and shapes."""
    from layoutkit.layouts.triton.blocked import BlockedEncoding

    pow2 = st.sampled_from([1, 2, 4, 8, 16])
    encoding = BlockedEncoding(
        tuple(data.draw(pow2) for _ in range(rank)), tuple(data.draw(pow2) for _ in range(rank)),
        tuple(data.draw(pow2) for _ in range(rank)), tuple(data.draw(st.permutations(list(range(rank))))))
    shape = tuple(data.draw(st.sampled_from([1, 2, 4, 16, 64, 512])) for _ in range(rank))
    fast = encoding._one_cta_draft(shape)
    general = combine_cta_cga(encoding.cta_tile(), (), shape, drop_registers=True)
    assert fast.bases == general.bases
    assert fast.sizes == general.sizes and fast.dims == general.dims
    assert fast.proven and invariant_holds(fast)


@given(data=st.data(), rank=st.integers(1, 3))
@settings(max_examples=200, deadline=None)
def test_blocked_draft_with_a_cga_layout_equals_the_draft_algebra(data, rank):
    """The same with several CTAs: ``draft`` (the CTA part made in one pass) against
    ``combine_cta_cga`` of ``cta_tile``."""
    from layoutkit.layouts.triton.blocked import BlockedEncoding
    from layoutkit.layouts.triton.cga import CGALayout

    pow2 = st.sampled_from([1, 2, 4, 8])
    unit = st.integers(0, rank - 1).map(lambda d: tuple(1 if i == d else 0 for i in range(rank)))
    cga_bases = []
    for _ in range(data.draw(st.integers(1, 3))):
        basis = data.draw(st.one_of(unit, st.just((0,) * rank)))
        if any(basis):  # the next power of two along that dim
            d = basis.index(1)
            basis = tuple(2 * max([b[d] for b in cga_bases if b[d]], default=0) or 1 if i == d else 0
                          for i in range(rank))
        cga_bases.append(basis)
    encoding = BlockedEncoding(
        tuple(data.draw(pow2) for _ in range(rank)), tuple(data.draw(pow2) for _ in range(rank)),
        tuple(data.draw(pow2) for _ in range(rank)), tuple(data.draw(st.permutations(list(range(rank))))),
        CGALayout(tuple(cga_bases), rank))
    shape = tuple(data.draw(st.sampled_from([1, 2, 4, 16, 64, 512])) for _ in range(rank))
    fast = encoding.draft(shape)
    general = combine_cta_cga(encoding.cta_tile(), encoding.cga.bases, shape, drop_registers=True)
    assert fast.bases == general.bases
    assert fast.sizes == general.sizes and fast.dims == general.dims
    if fast.proven:
        assert invariant_holds(fast)
