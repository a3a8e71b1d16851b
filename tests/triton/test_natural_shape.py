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
