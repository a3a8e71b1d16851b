"""Text in and out, affine maps, composition and inversion, against evaluation."""

from __future__ import annotations

import numpy as np
import pytest
from coords_support import grid, random_chain, ref_chain_spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError, parse_layout
from layoutkit.coords import (
    BottomUpBuilder,
    TopDownBuilder,
    TransformChain,
    TransformMap,
    compose,
    parse_affine_map,
    parse_transform_map,
)
from layoutkit.core.coords.transform_map import parse_transform_maps

SEED_TEXT = (
    '#rock.transform_map<affine_map<(d0, d1, d2) -> (d0, d2, d1 floordiv 9, (d1 mod 9) floordiv 3, d1 mod 3)> '
    'by [<PassThrough ["gemmG"] at [0] -> ["g"] at [0]>, <Merge{2, 3, 3} ["gemmK"] at [1] -> ["c", "y", "x"] at [2, 3, 4]>, '
    '<PassThrough ["gemmM"] at [2] -> ["k"] at [1]>] bounds = [1, 18, 128] -> [1, 128, 2, 3, 3]>'
)


def test_seed_text_round_trips_through_parse_layout():
    m = parse_layout(SEED_TEXT)
    assert isinstance(m, TransformMap)
    assert str(m) == SEED_TEXT
    assert m.upper_space == {"gemmG": 1, "gemmK": 18, "gemmM": 128}
    assert m.lower_space == {"g": 1, "k": 128, "c": 2, "y": 3, "x": 3}
    for g, k, mm in grid((1, 18, 128)):
        assert m.apply(g, k, mm) == (g, mm, k // 9, (k % 9) // 3, k % 3)


def test_seed_multiline_syntax_and_aliases():
    text = """#transform_map1 = #rock.transform_map<
    affine_map<(d0, d1, d2) ->
        (d0, d2, d1 floordiv 9, (d1 mod 9) floordiv 3, d1 mod 3)>
    by [<PassThrough ["gemmG"] at [0] -> ["g"] at [0]>,
        <Merge{2, 3, 3} ["gemmK"] at [1]
            -> ["c", "y", "x"] at [2, 3, 4]>,
        <PassThrough ["gemmM"] at [2] -> ["k"] at [1]>]
    bounds = [1, 18, 128] -> [1, 128, 2, 3, 3]>"""
    (m,) = parse_transform_maps(text)
    assert str(m) == SEED_TEXT
    from layoutkit.core.text import Attribute

    alias = Attribute("rock.transform_map", None, SEED_TEXT)
    assert parse_layout("#transform_map1", aliases={"transform_map1": alias}) == m


def test_written_map_that_disagrees_is_an_error():
    bad = SEED_TEXT.replace("(d1 mod 9) floordiv 3", "(d1 mod 9) floordiv 2")
    with pytest.raises(LayoutError, match="disagrees with the transforms on lower dim 3 .'y'."):
        parse_layout(bad)
    with pytest.raises(LayoutError, match="affine_map has 2 dims"):
        parse_layout(SEED_TEXT.replace("(d0, d1, d2) ->", "(d0, d1) ->").replace("d2, d1 floordiv", "d0, d1 floordiv"))


def test_map_without_affine_text_and_xor_maps():
    b = TopDownBuilder(["row", "col"], [4, 8])
    b.xor(["col", "row"], 3, 0, at=[1, 0], source=["col", "row"])
    m = b.get()
    text = str(m)
    assert "affine_map" not in text and "<Xor{3, 0}" in text
    assert parse_transform_map(text) == m
    no_map = SEED_TEXT.split("> by ", 1)[1]
    assert parse_transform_map("#rock.transform_map<by " + no_map) == parse_layout(SEED_TEXT)


@pytest.mark.parametrize("text", [
    "affine_map<(d0, d1) -> (d0 * 256 + d1)>",
    "affine_map<(d0, d1) -> (d0, d1 floordiv 9, (d1 mod 9) floordiv 3, d1 mod 3)>",
    "affine_map<(d0, d1) -> (d1 - d0 * 2 - 3, -d0, d0 + 5)>",
    "affine_map<(d0) -> (d0 floordiv 15, (d0 mod 15) floordiv 5, d0 mod 5)>",
    "affine_map<(d0, d1) -> (((d0 + d1) mod 4) * 3, (d0 * 2 + 1) floordiv 3)>",
    "affine_map<() -> (7)>",
])
def test_affine_map_text_round_trips(text):
    assert str(parse_affine_map(text)) == text


def test_affine_parse_evaluates_like_python():
    m = parse_affine_map("affine_map<(d0, d1) -> (d0 ceildiv 3, d1-3, (d0 - d1) floordiv 4, (d0 - d1) mod 4, 2 * d0)>")
    for a, b in grid((9, 9)):
        assert m.apply(a, b) == (-((-a) // 3), b - 3, (a - b) // 4, (a - b) % 4, 2 * a)


@pytest.mark.parametrize("text, needle", [
    ("affine_map<(d0, d1) -> (d0 * d1)>", "constant side"),
    ("affine_map<(d0) -> (d0 floordiv 0)>", "positive constant"),
    ("affine_map<(d0) -> (d1)>", "unknown dim"),
    ("affine_map<(d0)[s0] -> (d0)>", "symbols"),
    # hostile: Python's stack and numpy's int64 stay safe
    ("affine_map<(d0) -> (" + "(" * 2000 + "d0" + ")" * 2000 + ")>", "nested deeper than 64"),
    ("affine_map<(d0) -> (" + "- " * 2000 + "d0)>", "nested deeper than 64"),
    ("affine_map<(d0) -> (d0" + " mod 7 floordiv 2" * 2000 + ")>", "divisions nested deeper than 64"),
    ("affine_map<(d0) -> (d0 floordiv 99999999999999999999999999999)>", r"below 2\*\*62"),
    (f"affine_map<(d0) -> (d0 * {2**62})>", r"below 2\*\*62"),
])
def test_affine_errors(text, needle):
    with pytest.raises(LayoutError, match=needle):
        parse_affine_map(text)


def test_merge_then_unmerge_simplifies_to_identity():
    b = TopDownBuilder(["k"], [18])
    b.merge(["c", "y", "x"], [0, 1, 2], "k", [2, 3, 3])
    m1 = b.get()
    b = TopDownBuilder.below(m1)
    b.unmerge("k2", 0, ["c", "y", "x"], [2, 3, 3])
    chain = TransformChain((m1, b.get()))
    assert chain.to_affine_map() == "affine_map<(d0) -> (d0)>"
    assert compose(chain).transforms[0].kind == "PassThrough"


@pytest.mark.parametrize("seed", range(60))
def test_composition_equals_applying_maps_one_after_another(seed):
    maps = random_chain(seed)
    chain = TransformChain(tuple(maps))
    points = grid(chain.upper_bounds)
    want = [ref_chain_spaces(maps, p)[-1] for p in points]
    idx = np.indices(chain.upper_bounds).reshape(len(chain.upper_bounds), -1)
    if chain.is_affine:
        amap = chain.affine_map
        got = amap.apply(*list(idx))
        assert [tuple(int(np.broadcast_to(g, idx.shape[1:])[n]) for g in got) for n in range(len(points))] == want
        # the printed text parses back to the same function
        again = parse_affine_map(str(amap)).apply(*list(idx))
        assert all(np.array_equal(np.broadcast_to(a, idx.shape[1:]), np.broadcast_to(g, idx.shape[1:])) for a, g in zip(again, got))
    try:
        single = compose(chain)
    except LayoutError:
        return
    assert [single.apply(*p) for p in points] == want


def test_compose_recognizes_one_map_and_rejects_pad_over_merge(seed_filter_chain):
    b = TopDownBuilder(["k", "j"], [24, 6])
    b.merge(["a", "b"], [0, 1], "k", [2, 12])
    b.pass_through("j", 2, "j")
    m1 = b.get()
    b = TopDownBuilder.below(m1)
    b.pass_through("a")
    b.merge(["b0", "b1"], [1, 2], "b", [3, 4])
    b.pad("jp", [1, 1], at=3, source="j")
    single = compose([m1, b.get()])
    assert sorted(t.kind for t in single.transforms) == ["Merge", "Pad"]
    assert single.lower_names == ("a", "b0", "b1", "jp")
    for k, j in grid((24, 6)):
        assert single.apply(k, j) == (k // 12, (k // 4) % 3, k % 4, j - 1)
    b = TopDownBuilder(["i", "j"], [4, 6])
    b.merge(["i0", "i1"], [0, 1], "i", [2, 2])
    b.pass_through("j", 2, "j")
    m1 = b.get()
    b = TopDownBuilder.below(m1)
    b.unmerge("ii", 0, ["i0", "i1"], [2, 2])
    b.embed("jj", 1, 20, ["j"], [3])
    single = compose([m1, b.get()])
    assert [t.kind for t in single.transforms] == ["PassThrough", "Embed"]
    with pytest.raises(LayoutError, match="not one transform"):
        b = TopDownBuilder(["i", "j"], [4, 6])
        b.unmerge("flat", 0, ["i", "j"], [4, 6])
        m1 = b.get()
        b = TopDownBuilder.below(m1)
        b.merge(["a", "b"], [0, 1], "flat", [2, 12])
        compose([m1, b.get()])
    with pytest.raises(LayoutError, match="not one transform|not expressible|neither"):
        compose(seed_filter_chain)


def test_invert():
    b = BottomUpBuilder(["O", "I", "H", "W"], [4, 2, 3, 3])
    b.pass_through("M", 0, "O")
    b.merge("K", 1, ["I", "H", "W"])
    m = b.get()
    inv = m.invert()
    assert inv.upper_names == ("O", "I", "H", "W") and inv.lower_names == ("M", "K")
    for point in grid(m.upper_bounds):
        assert inv.apply(*m.apply(*point)) == point
    assert [t.kind for t in inv.transforms] == ["PassThrough", "Unmerge"]
    e = TopDownBuilder(["i", "j"], [4, 8])
    e.embed("off", 0, 32, ["i", "j"], [1, 4])
    em = e.get()
    for point in grid((4, 8)):
        assert em.invert().apply(*em.apply(*point)) == point
    a = BottomUpBuilder(["x"], [5])
    a.add_dim("one", 0, 1)
    a.pass_through("x", 1, "x")
    am = a.get()
    assert [t.kind for t in am.invert().transforms] == ["ConstDim", "PassThrough"]
    assert am.invert().invert() == am
    p = BottomUpBuilder(["x"], [5])
    p.pad("xp", [0, 3], source="x")
    with pytest.raises(LayoutError, match="Pad.*not invertible"):
        p.get().invert()


def test_chain_invert(seed_filter_chain):
    b = TopDownBuilder(["a", "b"], [6, 4])
    b.merge(["a0", "a1"], [0, 1], "a", [2, 3])
    b.pass_through("b", 2, "b")
    m1 = b.get()
    b = TopDownBuilder.below(m1)
    b.unmerge("flat", 0, ["a0", "a1", "b"], [2, 3, 4])
    chain = TransformChain((m1, b.get()))
    inv = chain.invert()
    for point in grid(chain.upper_bounds):
        assert inv.apply(*chain.apply(*point)) == point
    with pytest.raises(LayoutError):
        TransformChain(tuple(seed_filter_chain)).invert()


def test_transform_map_follows_the_layout_protocol():
    from layoutkit.core.protocol import equivalent

    m = parse_layout(SEED_TEXT)
    table = m.table()
    assert table.shape == (1, 18, 128, 5)
    assert tuple(table[0, 13, 7]) == (0, 7, 1, 1, 1)
    assert m.hardware_dims() == {"gemmG": 1, "gemmK": 18, "gemmM": 128}
    assert equivalent(m, TransformChain((m,)))
    assert m.apply(None, gemmK=13, gemmM=7)["dim1"] == 7


_names = st.sampled_from(['"a"', '"b"', '"k"', "x", '""', "1"])
_ints = st.lists(st.integers(-3, 20), max_size=4).map(lambda v: "[" + ", ".join(map(str, v)) + "]")
_kinds = st.sampled_from(["PassThrough", "Merge", "Pad", "Embed", "Unmerge", "AddDim", "ConstDim", "Broadcast", "Slice", "Xor", "Bogus"])
_transform = st.builds(
    lambda k, p, un, ud, ln, ld: f"<{k}{p} [{un}] at {ud} -> [{ln}] at {ld}>",
    _kinds, st.one_of(st.just(""), _ints.map(lambda s: "{" + s[1:-1] + "}")), _names, _ints, _names, _ints)


@settings(max_examples=300, deadline=None)
@given(st.lists(_transform, max_size=3), _ints, _ints, st.booleans())
def test_fuzz_parser_gives_a_map_or_a_layout_error(transforms, upper, lower, with_map):
    head = "affine_map<(d0) -> (d0)> " if with_map else ""
    text = f"#rock.transform_map<{head}by [{', '.join(transforms)}] bounds = {upper} -> {lower}>"
    try:
        m = parse_transform_map(text)
    except LayoutError:
        return
    assert parse_transform_map(str(m)) == m


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="d0123 ()+-*,<>floordivmceilaf_p", max_size=40))
def test_fuzz_affine_parser(text):
    try:
        m = parse_affine_map(text)
    except LayoutError:
        return
    assert str(parse_affine_map(str(m))) == str(m)
