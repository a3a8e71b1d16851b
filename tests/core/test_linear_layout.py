"""LinearLayout algebra laws, each checked against brute-force evaluation over every input.

The brute force here never calls LinearLayout.apply: it XORs the bases read from the plain
``bases`` mapping, bit by bit, in a Python loop."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError, LinearLayout


def brute(layout: LinearLayout, **inputs: int) -> tuple[int, ...]:
    """Evaluate by XORing the bases of the set bits, straight from the definition."""
    out = [0] * len(layout.out_dims)
    for name, value in inputs.items():
        for i, basis in enumerate(layout.bases.get(name, [])):
            if value >> i & 1:
                out = [o ^ b for o, b in zip(out, basis)]
    return tuple(out)


def all_inputs(layout: LinearLayout):
    names = list(layout.in_dims)
    for values in itertools.product(*(range(s) for s in layout.in_dims.values())):
        yield dict(zip(names, values))


def as_tuple(result: dict, names) -> tuple[int, ...]:
    return tuple(int(result[n]) for n in names)


@st.composite
def layouts(draw, in_names=("register", "lane", "warp"), out_names=("dim0", "dim1"), max_bits=3,
            surjective=False):
    outs = {n: 1 << draw(st.integers(0, max_bits)) for n in out_names}
    ins = [n for n in in_names if draw(st.booleans())] or [in_names[0]]
    bases = {
        n: [[draw(st.integers(0, s - 1)) for s in outs.values()] for _ in range(draw(st.integers(0, max_bits)))]
        for n in ins
    }
    if surjective:  # append the identity bits of each out dim to the last in dim
        extra = ins[-1]
        for k, s in enumerate(outs.values()):
            for b in range(s.bit_length() - 1):
                bases[extra].append([(1 << b) if j == k else 0 for j in range(len(outs))])
    return LinearLayout(bases, outs)


SMALL = settings(max_examples=60, deadline=None)


def test_apply_worked_example_from_module_doc():
    layout = LinearLayout({"register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]},
                          {"dim0": 16, "dim1": 8})
    assert layout.apply(register=3, lane=5) == {"dim0": 0 ^ 8 ^ 0 ^ 1, "dim1": 1 ^ 0 ^ 2 ^ 0}


@SMALL
@given(layouts())
def test_apply_matches_brute_force_scalar_and_vectorized(layout):
    names = list(layout.out_dims)
    inputs = list(all_inputs(layout))
    for inp in inputs:
        assert as_tuple(layout.apply(**inp), names) == brute(layout, **inp)
    arrays = {n: np.array([inp[n] for inp in inputs]) for n in layout.in_dims}
    result = layout.apply(**arrays)
    for k, inp in enumerate(inputs):
        assert tuple(int(result[n][k]) for n in names) == brute(layout, **inp)


@SMALL
@given(layouts(), st.data())
def test_compose_is_applying_twice(inner, data):
    # outer: in dims = inner's out dims (same sizes), out dims x, y
    outer = data.draw(layouts(in_names=tuple(inner.out_dims), out_names=("x", "y")))
    outer = LinearLayout({n: outer.bases.get(n, []) for n in inner.out_dims}, outer.out_dims)
    outer = LinearLayout({n: (outer.bases[n] + [[0, 0]] * 8)[: inner.out_dim_size_log2(n)] for n in inner.out_dims},
                         outer.out_dims)
    composed = inner.compose(outer)
    for inp in all_inputs(inner):
        mid = dict(zip(inner.out_dims, brute(inner, **inp)))
        assert as_tuple(composed.apply(**inp), ["x", "y"]) == brute(outer, **mid)


@SMALL
@given(layouts(), st.data())
def test_invert_and_compose_solves_a_equals_b_of_c(a, data):
    b = data.draw(layouts(in_names=("offset", "block"), out_names=tuple(a.out_dims), surjective=True))
    b = LinearLayout(b.bases, {n: max(s, a.out_dim_size(n)) for n, s in b.out_dims.items()})
    if not b.is_surjective():
        b = LinearLayout({"offset": b.bases.get("offset", []) + [
            [1 << i if j == k else 0 for j in range(len(b.out_dims))]
            for k, s in enumerate(b.out_dims.values()) for i in range(s.bit_length() - 1)]},
            b.out_dims)
    c = a.invert_and_compose(b)
    assert list(c.out_dims) == list(b.in_dims)
    for inp in all_inputs(a):
        mid = as_tuple(c.apply(**inp), list(b.in_dims))
        assert brute(b, **dict(zip(b.in_dims, mid))) == brute(a, **inp)


@SMALL
@given(layouts(), layouts(in_names=("lane", "warp", "block"), out_names=("dim1", "dim2")))
def test_product_formula_and_divide_give_back_factors(a, b):
    p = a * b
    for inp in all_inputs(p):
        lo = {n: v & (a.in_dim_size(n) - 1) if n in a.in_dims else 0 for n, v in inp.items()}
        hi = {n: (v >> a.in_dim_size_log2(n) if n in a.in_dims else v) for n, v in inp.items() if n in b.in_dims}
        lo = {n: v for n, v in lo.items() if n in a.in_dims}
        av = dict(zip(a.out_dims, brute(a, **lo)))
        bv = dict(zip(b.out_dims, brute(b, **hi)))
        expected = tuple(av.get(n, 0) + bv.get(n, 0) * a.out_dims.get(n, 1) for n in p.out_dims)
        assert as_tuple(p.apply(**inp), list(p.out_dims)) == expected
    assert p.divide_left(a) is not None
    assert a * p.divide_left(a) == p
    right = p.divide_right(b)
    assert right is not None and right * b == p


def test_divide_returns_none_when_not_a_factor():
    a = LinearLayout.identity_1d(4, "lane", "dim0")
    b = LinearLayout.zeros_1d(4, "lane", "dim0", 4)
    assert (a * a).divide_left(b) is None


@SMALL
@given(layouts(max_bits=3))
def test_injective_surjective_against_counting(layout):
    outputs = {brute(layout, **inp) for inp in all_inputs(layout)}
    n_in = int(np.prod(list(layout.in_dims.values())))
    n_out = int(np.prod(list(layout.out_dims.values())))
    assert layout.is_injective() == (len(outputs) == n_in)
    assert layout.is_surjective() == (len(outputs) == n_out)
    assert layout.is_invertible() == (len(outputs) == n_in == n_out)


@SMALL
@given(layouts(surjective=True))
def test_pseudo_invert_is_a_right_inverse(layout):
    p = layout.pseudo_invert()
    for y in itertools.product(*(range(s) for s in layout.out_dims.values())):
        x = as_tuple(p.apply(**dict(zip(layout.out_dims, y))), list(layout.in_dims))
        assert brute(layout, **dict(zip(layout.in_dims, x))) == y
    if layout.is_invertible():
        inv = layout.invert()
        for inp in all_inputs(layout):
            back = inv.apply(**dict(zip(layout.out_dims, brute(layout, **inp))))
            assert as_tuple(back, list(layout.in_dims)) == tuple(inp.values())


def test_invert_rejects_non_invertible():
    with pytest.raises(LayoutError, match="not invertible"):
        LinearLayout.zeros_1d(4, "lane", "dim0").invert()


@SMALL
@given(layouts())
def test_free_variables_are_redundant_and_pivots_independent(layout):
    masks = layout.free_variable_masks()
    flat = [(n, i, b) for n, rows in layout.bases.items() for i, b in enumerate(rows)]
    seen: list[tuple[int, ...]] = []
    for name, i, basis in flat:
        span = {tuple([0] * len(basis))}
        for v in seen:
            span |= {tuple(a ^ b for a, b in zip(s, v)) for s in span}
        in_span = tuple(basis) in span
        assert bool(masks[name] >> i & 1) == in_span
        # a free bit never changes the output set: flipping it equals flipping earlier bits
        if not in_span:
            seen.append(tuple(basis))


def test_zero_bases_are_free_variables():
    layout = LinearLayout({"register": [[1], [0]], "lane": [[0], [2], [1]]}, {"dim0": 4})
    assert layout.free_variable_masks() == {"register": 0b10, "lane": 0b101}


@SMALL
@given(layouts())
def test_flatten_and_reshape_outs_first_dim_lowest(layout):
    flat = layout.flatten_outs()
    size0 = layout.out_dim_size("dim0")
    for inp in all_inputs(layout):
        d0, d1 = brute(layout, **inp)
        assert int(flat.apply(**inp)["dim0"]) == d0 + size0 * d1
    total = layout.total_out_dim_size
    if total >= 2:
        re = layout.reshape_outs([("a", 2), ("b", total // 2)])
        for inp in all_inputs(layout):
            d0, d1 = brute(layout, **inp)
            v = d0 + size0 * d1
            assert as_tuple(re.apply(**inp), ["a", "b"]) == (v % 2, v // 2)


@SMALL
@given(layouts(in_names=("register", "lane")))
def test_flatten_ins_and_transposes(layout):
    flat = layout.flatten_ins()
    names = list(layout.in_dims)
    for inp in all_inputs(layout):
        x, scale = 0, 1
        for n in names:
            x += inp[n] * scale
            scale *= layout.in_dim_size(n)
        assert as_tuple(flat.apply(**{names[0]: x}), ["dim0", "dim1"]) == brute(layout, **inp)
    t = layout.transpose_outs(["dim1", "dim0"])
    for inp in all_inputs(layout):
        assert as_tuple(t.apply(**inp), ["dim1", "dim0"]) == brute(layout, **inp)[::-1]
    ti = layout.transpose_ins(names[::-1])
    assert ti.in_dim_names == names[::-1]
    for inp in all_inputs(layout):
        assert as_tuple(ti.apply(**inp), ["dim0", "dim1"]) == brute(layout, **inp)


def test_resize_in_and_out_dims():
    layout = LinearLayout({"lane": [[1], [2]]}, {"dim0": 4})
    grown = layout.resize_in_dim("lane", 16)
    assert grown.bases["lane"] == [[1], [2], [0], [0]]
    assert grown.resize_in_dim("lane", 4) == layout
    wide = layout.resize_out_dim("dim0", 8)
    assert wide.out_dims == {"dim0": 8} and wide.apply(lane=3) == {"dim0": 3}
    narrow = layout.resize_out_dim("dim0", 2)
    assert [narrow.apply(lane=x)["dim0"] for x in range(4)] == [x % 2 for x in range(4)]


def test_sublayout_and_quotient():
    inner = LinearLayout.identity_1d(4, "register", "dim0") * LinearLayout.identity_1d(8, "lane", "dim1")
    block = LinearLayout.identity_1d(2, "block", "block")
    layout = inner * block
    assert layout.is_trivial_over(["block"])
    assert layout.quotient(["block"]) == inner
    assert layout.sublayout(["lane"], ["dim1"]) == LinearLayout.identity_1d(8, "lane", "dim1")
    mixed = LinearLayout({"register": [[1, 1]], "block": [[0, 1]]}, {"dim0": 2, "block": 2})
    assert mixed.quotient(["block"]) is None


def test_constructors_and_value_semantics():
    assert LinearLayout.identity_1d(8, "lane", "dim0").bases == {"lane": [[1], [2], [4]]}
    assert LinearLayout.zeros_1d(4, "lane", "dim0").bases == {"lane": [[0], [0]]}
    assert LinearLayout.strided_1d(4, 2, "lane", "dim0").bases == {"lane": [[2], [4]]}
    assert LinearLayout.strided_1d(4, 2, "lane", "dim0").out_dims == {"dim0": 8}
    assert LinearLayout.empty() * LinearLayout.identity_1d(2, "a", "b") == LinearLayout.identity_1d(2, "a", "b")
    a = LinearLayout({"lane": [[1]]}, {"dim0": 2})
    b = LinearLayout({"lane": [[1]]}, {"dim0": 2})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != LinearLayout({"lane": [[1]]}, {"dim0": 4})
    assert LinearLayout.from_bases({"lane": [[1], [2]]}, ["dim0"]).out_dims == {"dim0": 4}
    assert "lane" in repr(a) and "lane=1 -> (1)" in str(a)
    b2 = a.bases
    b2["lane"][0][0] = 0  # the mapping handed out is a copy
    assert a.bases == {"lane": [[1]]}


@pytest.mark.parametrize("bad", [
    lambda: LinearLayout({"lane": [[1]]}, {"dim0": 3}),
    lambda: LinearLayout({"lane": [[4]]}, {"dim0": 4}),
    lambda: LinearLayout({"lane": [[1, 0]]}, {"dim0": 4}),
    lambda: LinearLayout({"lane": [["x"]]}, {"dim0": 4}),
    lambda: LinearLayout.identity_1d(6, "lane", "dim0"),
    lambda: LinearLayout.from_bases({"lane": [[2]]}, ["dim0"]),
    lambda: LinearLayout({"lane": [[1]]}, {"dim0": 2}).apply(lane=2),
    lambda: LinearLayout({"lane": [[1]]}, {"dim0": 2}).apply(warp=0),
    lambda: LinearLayout({"lane": [[1]]}, {"dim0": 2}).transpose_outs(["x"]),
    lambda: LinearLayout({"lane": [[1]]}, {"dim0": 2}).reshape_ins([("a", 4)]),
])
def test_bad_input_raises_layout_error(bad):
    with pytest.raises(LayoutError):
        bad()


def test_protocol_table_and_owners():
    layout = LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [0, 0]]}, {"dim0": 2, "dim1": 2})
    table = layout.table()
    assert table.shape == (2, 4, 2)
    for r, lane in itertools.product(range(2), range(4)):
        assert tuple(table[r, lane]) == brute(layout, register=r, lane=lane)
    owners = layout.owners((1, 1))
    assert sorted((o["register"], o["lane"]) for o in owners) == [(1, 1), (1, 3)]


@pytest.mark.parametrize("coord", ["abc", (0.5, 0), (2, 0), [[0, 0]], (0,), None])
def test_owners_bad_coord_is_a_layout_error(coord):
    layout = LinearLayout({"lane": [[1, 0]]}, {"dim0": 2, "dim1": 1})
    with pytest.raises(LayoutError, match="coord"):
        layout.owners(coord)


def test_a_basis_of_the_wrong_length_names_the_out_dims():
    with pytest.raises(LayoutError) as err:
        LinearLayout({"register": [[0, 1], [8]]}, {"dim0": 16, "dim1": 8})
    assert str(err.value) == "bases['register'][1]: expected 2 values (one per out dim: dim0, dim1), got '[8]'"
