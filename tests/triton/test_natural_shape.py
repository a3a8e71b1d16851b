"""natural_shape: the smallest shape a distributed encoding covers without broadcast, the
shape Jupyter draws a shape-free encoding at."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import parse_layout


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_blocked_natural_shape_is_its_cta_tile(data):
    rank = data.draw(st.integers(1, 3))
    pow2 = st.sampled_from([1, 2, 4])
    spt = [data.draw(pow2) for _ in range(rank)]
    lanes = data.draw(st.permutations([1] * (rank - 1) + [32])) if rank > 1 else [32]
    warps = data.draw(st.permutations([1] * (rank - 1) + [4])) if rank > 1 else [4]
    order = data.draw(st.permutations(list(range(rank))))
    text = (f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {list(lanes)}, "
            f"warpsPerCTA = {list(warps)}, order = {list(order)}}}>")
    layout = parse_layout(text)
    # the CTA tile: sizePerThread * threadsPerWarp * warpsPerCTA, dim by dim
    assert layout.natural_shape() == tuple(s * t * w for s, t, w in zip(spt, lanes, warps))


def test_mma_natural_shape_and_jupyter_picture():
    mma = parse_layout("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>")
    assert mma.natural_shape() == (32, 16)  # one m16n8 tile per warp, 2x2 warps
    svg = mma._repr_svg_()
    assert svg is not None and svg.startswith("<?xml") and "T0:0" in svg


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_linear_natural_shape_is_the_span_of_its_bases(data):
    # a random surjective #ttg.linear on a 2-D power-of-two shape: every bit of every dim is
    # the basis of exactly one in-dim bit, spread over register / lane / warp
    log2 = [data.draw(st.integers(1, 3)), data.draw(st.integers(0, 3))]
    bits = [(d, 1 << k) for d in range(2) for k in range(log2[d])]
    bits = data.draw(st.permutations(bits))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(bits)), min_size=2, max_size=2)))
    as_basis = lambda dim, value: [value if d == dim else 0 for d in range(2)]  # noqa: E731
    groups = [bits[:cuts[0]], bits[cuts[0]:cuts[1]], bits[cuts[1]:]]
    register, lane, warp = ([as_basis(d, v) for d, v in group] for group in groups)
    text = f"#ttg.linear<{{register = {register}, lane = {lane}, warp = {warp}, block = []}}>"
    assert parse_layout(text).natural_shape() == (2 ** log2[0], 2 ** log2[1])


def test_linear_natural_shape_keeps_register_dims():
    linear = parse_layout("#ttg.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], "
                          "[0, 4]], warp = [], block = []}>")
    assert linear.natural_shape() == (16, 8)  # registers 1, 2 and lane 16 cover dim1's 8
