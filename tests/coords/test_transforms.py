"""Every transform kind and builder method against the transform's per-element definition."""

from __future__ import annotations

import numpy as np
import pytest
from coords_support import grid, random_chain, ref_chain_spaces, ref_map

from layoutkit.coords import (
    BottomUpBuilder,
    TopDownBuilder,
    Transform,
    TransformChain,
    TransformMap,
)
from layoutkit.errors import LayoutError


def single(kind, params, upper, lower, ub, lb):
    t = Transform(kind, params, tuple(f"u{i}" for i in range(len(upper))), upper,
                  tuple(f"l{i}" for i in range(len(lower))), lower)
    return TransformMap((t,), ub, lb)


CASES = [
    # kind, params, upper dims, lower dims, upper bounds, lower bounds, formula(u...) -> lower tuple
    ("PassThrough", (), (0, 1), (1, 0), (3, 4), (4, 3), lambda a, b: (b, a)),
    ("Pad", (1, 2), (0,), (0,), (8,), (5,), lambda a: (a - 1,)),
    ("Pad", (0, 1, 2, 0), (0, 1), (0, 1), (4, 5), (3, 3), lambda a, b: (a, b - 2)),
    ("Slice", (2, 6), (0,), (0,), (4,), (9,), lambda a: (a + 2,)),
    ("Embed", (256, 1), (0, 1), (0,), (4, 16), (1024,), lambda a, b: (256 * a + b,)),
    ("Embed", (-2, 3), (0, 1), (0,), (3, 4), (12,), lambda a, b: (3 * b - 2 * a,)),
    ("Unmerge", (2, 3, 4), (0, 1, 2), (0,), (2, 3, 4), (24,), lambda a, b, c: (a * 12 + b * 4 + c,)),
    ("Merge", (2, 3, 3), (0,), (0, 1, 2), (18,), (2, 3, 3), lambda k: (k // 9, (k % 9) // 3, k % 3)),
    ("Merge", (16, 4), (0,), (0, 1), (64,), (16, 4), lambda k: (k // 4, k % 4)),
    ("Broadcast", (3,), (0,), (0,), (7,), (3,), lambda a: (a % 3,)),
    ("Xor", (3, 1), (0, 1), (0, 1), (8, 8), (8, 8), lambda a, b: (a ^ ((b >> 1) & 3), b)),
]


@pytest.mark.parametrize("kind, params, up, low, ub, lb, formula", CASES, ids=[c[0] + str(c[1]) for c in CASES])
def test_transform_matches_formula(kind, params, up, low, ub, lb, formula):
    m = single(kind, params, up, low, ub, lb)
    for point in grid(ub):
        assert m.apply(*point) == formula(*point)
    # vectorized over the whole grid at once
    idx = np.indices(ub)
    got = m.apply(*list(idx))
    want = [np.vectorize(lambda *p, i=i: formula(*p)[i])(*idx) for i in range(len(lb))]
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_add_dim_and_const_dim():
    t1 = Transform("AddDim", (5,), ("x",), (1,), (), ())
    t2 = Transform("PassThrough", (), ("y",), (0,), ("y",), (1,))
    t3 = Transform("ConstDim", (2, 4), (), (), ("c",), (0,))
    m = TransformMap((t1, t2, t3), (3, 5), (4, 3))
    for y, x in grid((3, 5)):
        assert m.apply(y, x) == (2, y)
    got = m.apply(np.arange(3)[:, None], np.arange(5)[None, :])
    assert np.array_equal(got[0], np.full((3, 5), 2)) and np.array_equal(got[1], np.repeat(np.arange(3)[:, None], 5, 1))


def test_merge_overflow_lands_in_the_slowest_dim():
    m = single("Merge", (2, 3, 3), (0,), (0, 1, 2), (18,), (2, 3, 3))
    assert m.apply(20) == (2, 0, 2)
    assert m.apply(-1) == (-1, 2, 2)


def test_seed_builder_example():
    b = BottomUpBuilder(["O", "I", "H", "W"], [128, 2, 3, 3])
    b.pass_through("M", 0, "O")
    b.merge("K", 1, ["I", "H", "W"])
    m = b.get()
    assert m.to_affine_map() == "affine_map<(d0, d1) -> (d0, d1 floordiv 9, (d1 mod 9) floordiv 3, d1 mod 3)>"
    assert m.upper_space == {"M": 128, "K": 18}
    for o, k in grid((128, 18)):
        assert m.apply(o, k) == (o, k // 9, (k // 3) % 3, k % 3)


def test_rocmlir_merge_vector():
    # TopDownBuilder merge({"x", "y", "z"}, {0, 1, 2}, "top", {2, 3, 5}) in rocMLIR's tests
    b = TopDownBuilder(["top"], [30])
    b.merge(["x", "y", "z"], [0, 1, 2], "top", [2, 3, 5])
    assert b.get().to_affine_map() == "affine_map<(d0) -> (d0 floordiv 15, (d0 mod 15) floordiv 5, d0 mod 5)>"


def test_bottom_up_builder_methods():
    b2 = BottomUpBuilder(["a", "b", "c", "d", "e", "f"], [4, 6, 8, 5, 3, 7])
    b2.pad("ap", [1, 2], at=0, source="a")
    b2.slice("bs", "b", 2, 5, at=1)
    b2.unmerge(["c0", "c1"], [2, 3], "c", [2, 4])
    b2.embed(["d0", "d1"], [5, 6], [2, 2], "d", [2, 1])
    b2.broadcast(["e"], [6])
    b2.add_dim("extra", 7, 3)
    b2.pass_through("f", 8, "f")
    m = b2.get()
    assert m.upper_names == ("ap", "bs", "c0", "c1", "e", "d0", "d1", "extra", "f")
    assert m.upper_bounds == (7, 3, 2, 4, 6, 2, 2, 3, 7)
    for ap, bs, c0, c1, e, d0, d1, extra, f in grid(m.upper_bounds):
        assert m.apply(ap, bs, c0, c1, e, d0, d1, extra, f) == (ap - 1, bs + 2, c0 * 4 + c1, 2 * d0 + d1, e % 3, f)
    b3 = BottomUpBuilder(["x", "y", "z"], [2, 3, 4])
    b3.merge("yz", 0, ["y", "z"])
    b3.const_dim("x", 1)
    with pytest.raises(LayoutError, match="used by no transform|no dim defined"):
        BottomUpBuilder(["x", "y"], [2, 3]).get()
    m3 = b3.get()
    assert m3.upper_space == {"yz": 12}
    assert all(m3.apply(k) == (1, k // 4, k % 4) for k in range(12))
    b4 = BottomUpBuilder(["x", "y", "z"], [2, 3, 4])
    b4.merge("xz", 0, ["x", "z"])
    b4.take_remainder()
    m4 = b4.get()
    assert m4.upper_space == {"xz": 8, "y": 3}
    assert all(m4.apply(k, y) == (k // 4, y, k % 4) for k, y in grid((8, 3)))


def test_top_down_builder_methods():
    b = TopDownBuilder(["p", "q", "r", "s", "t", "w"], [6, 4, 12, 5, 4, 3])
    b.pad("pl", [1, 1], at=0, source="p")          # pl = p - 1, size 4
    b.slice("qs", 3, 10, at=1, source="q")         # qs = q + 3, size 10
    b.merge(["r0", "r1"], [2, 3], "r", [3, 4])     # r0 = r // 4, r1 = r % 4
    b.broadcast("sb", 2, at=4, source="s")         # sb = s mod 2
    b.ignore("t")
    b.const_dim("k", 5, 1, 3)
    b.take_remainder()                             # w -> position 6
    m = b.get()
    assert m.lower_names == ("pl", "qs", "r0", "r1", "sb", "k", "w")
    for p, q, r, s, t, w in grid(m.upper_bounds):
        assert m.apply(p, q, r, s, t, w) == (p - 1, q + 3, r // 4, r % 4, s % 2, 1, w)
    b = TopDownBuilder(["i", "j"], [4, 8])
    b.unmerge("flat", 0, ["i", "j"], [4, 8])
    assert all(b.get().apply(i, j) == (8 * i + j,) for i, j in grid((4, 8)))
    b = TopDownBuilder(["i", "j"], [4, 8])
    b.embed("off", 0, 64, ["i", "j"], [1, 4])
    assert all(b.get().apply(i, j) == (i + 4 * j,) for i, j in grid((4, 8)))
    b = TopDownBuilder(["row", "col"], [8, 8])
    b.xor(["colx", "rowx"], 7, 0, source=["col", "row"], at=[1, 0])
    assert all(b.get().apply(r, c) == (r, c ^ r) for r, c in grid((8, 8)))


@pytest.mark.parametrize("seed", range(40))
def test_random_chains_match_the_definitions(seed):
    maps = random_chain(seed)
    chain = TransformChain(tuple(maps))
    bounds = chain.upper_bounds
    points = grid(bounds)
    idx = np.indices(bounds).reshape(len(bounds), -1)
    got = chain.apply(*list(idx))
    for n, point in enumerate(points):
        spaces = ref_chain_spaces(maps, point)
        assert tuple(int(np.broadcast_to(g, idx.shape[1:])[n]) for g in got) == spaces[-1]
        assert maps[0].apply(*point) == ref_map(maps[0], point)


BAD = [
    (lambda: Transform("Merge", (2, 3), ("k",), (0,), ("a",), (0,)), "Merge"),
    (lambda: TransformMap((Transform("Merge", (2, 3), ("k",), (0,), ("a", "b"), (0, 1)),), (7,), (2, 3)), "multiply to 6"),
    (lambda: Transform("ConstDim", (3, 3), (), (), ("c",), (0,)), "constant 3"),
    (lambda: Transform("Pad", (-1, 0), ("a",), (0,), ("a",), (0,)), "padding"),
    (lambda: Transform("Frobnicate", (), ("a",), (0,), ("a",), (0,)), "unknown kind"),
    (lambda: BottomUpBuilder(["a", "b"], [0, 3]), "positive"),
    (lambda: BottomUpBuilder(["a", "a"], [2, 3]), "'a' used twice"),
    (lambda: TransformMap((Transform("PassThrough", (), ("a", "b"), (0, 1), ("x", "x"), (0, 1)),), (2, 2), (2, 2)), "'x' used twice"),
    (lambda: TransformMap((Transform("PassThrough", (), ("a",), (0,), ("x",), (0,)),), (2, 2), (2,)), "not covered"),
    (lambda: TransformMap((Transform("PassThrough", (), ("a",), (0,), ("x",), (0,)),), (3,), (2,)), "size 3"),
    (lambda: TransformChain((TransformMap((Transform("PassThrough", (), ("a",), (0,), ("x",), (0,)),), (3,), (3,)),
                             TransformMap((Transform("PassThrough", (), ("a",), (0,), ("x",), (0,)),), (4,), (4,)))),
     "does not match"),
    (lambda: Transform("Embed", (2**62,), ("a",), (0,), ("x",), (0,)), r"below 2\*\*62"),
    (lambda: TransformMap((Transform("PassThrough", (), ("a",), (0,), ("x",), (0,)),), (2**62,), (2**62,)),
     r"below 2\*\*62"),
]


@pytest.mark.parametrize("make, needle", BAD, ids=[b[1] for b in BAD])
def test_bad_input_is_a_layout_error(make, needle):
    with pytest.raises(LayoutError, match=needle):
        make()


def test_builder_errors_name_the_dim():
    b = BottomUpBuilder(["a", "b"], [2, 3])
    b.pass_through("a")
    with pytest.raises(LayoutError, match="'a' is already used"):
        b.merge("m", 1, ["a", "b"])
    with pytest.raises(LayoutError, match="no dim named 'zz'"):
        b.pass_through("q", 1, "zz")
    t = TopDownBuilder(["k"], [20])
    with pytest.raises(LayoutError, match="multiply to 18"):
        t.merge(["a", "b"], [0, 1], "k", [2, 9])
