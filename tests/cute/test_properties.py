"""Property tests: every algebra result, as a function, against a direct evaluation of
CuTe's definitions (written here, independently of layoutkit's numpy evaluation)."""

from __future__ import annotations

import itertools

from cute_reference import ref, table
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError
from layoutkit.cute import (
    Layout,
    blocked_product,
    coalesce,
    complement,
    composition,
    filter,
    flat_divide,
    flat_product,
    left_inverse,
    logical_divide,
    logical_product,
    make_layout,
    parse,
    raked_product,
    right_inverse,
    tiled_divide,
    tiled_product,
    zipped_divide,
    zipped_product,
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- reference semantics --------------------------------------------------------------------



def colex(i: int, shape):
    """Index -> hierarchical coordinate congruent to ``shape`` (column-major)."""
    if not isinstance(shape, tuple):
        return i
    out = []
    for s in shape:
        n = Layout(s).size
        out.append(colex(i % n, s))
        i //= n
    return tuple(out)


def mode_sizes(layout: Layout) -> list[int]:
    return [m.size for m in layout.modes()]


# -- strategies -----------------------------------------------------------------------------

DEFAULT_STRIDES = st.integers(0, 24)


@st.composite
def layouts(draw, max_size=48, strides=DEFAULT_STRIDES, max_rank=3):
    rank = draw(st.integers(1, max_rank))
    shape, stride = [], []
    for _ in range(rank):
        if draw(st.booleans()):
            shape.append(draw(st.integers(1, 6)))
            stride.append(draw(strides))
        else:
            n = draw(st.integers(1, 3))
            shape.append(tuple(draw(st.integers(1, 4)) for _ in range(n)))
            stride.append(tuple(draw(strides) for _ in range(n)))
    if rank == 1 and draw(st.booleans()):
        layout = Layout(shape[0], stride[0])
    else:
        layout = Layout(tuple(shape), tuple(stride))
    assume(layout.size <= max_size)
    return layout


def compact_injective():
    """Injective layouts with holes: a random permutation of modes of a compact layout,
    strides scaled by a random gap per mode."""
    @st.composite
    def build(draw):
        sizes = draw(st.lists(st.integers(2, 4), min_size=1, max_size=3))
        gaps = draw(st.lists(st.integers(1, 3), min_size=len(sizes), max_size=len(sizes)))
        strides, current = [], 1
        for s, g in zip(sizes, gaps):
            current *= g
            strides.append(current)
            current *= s
        order = draw(st.permutations(range(len(sizes))))
        return Layout(tuple(sizes[k] for k in order), tuple(strides[k] for k in order))
    return build()


# -- evaluation, text -------------------------------------------------------------------------

@SETTINGS
@given(layouts(strides=st.integers(-12, 24)))
def test_evaluation_matches_definition(layout):
    expected = table(layout)
    assert layout.offsets.tolist() == expected
    assert layout.evaluate(range(layout.size)).tolist() == expected
    for i in range(layout.size):
        assert layout(i) == expected[i]
        assert layout(colex(i, layout.shape)) == expected[i]
    assert layout.cosize == max(expected) - min(expected) + 1
    assert parse(str(layout)) == layout


@SETTINGS
@given(layouts(strides=st.integers(-6, 24)))
def test_coalesce_and_filter(layout):
    merged = coalesce(layout)
    assert merged.size == layout.size and table(merged) == table(layout)
    assert merged.depth <= 1
    kept = filter(layout)
    assert set(table(kept)) == set(table(layout))
    assert 0 not in kept.flat_stride or kept.size == 1
    nonzero = [s for s, d in zip(layout.flat_shape, layout.flat_stride) if d != 0]
    assert kept.size == (eval("*".join(map(str, nonzero))) if nonzero else 1)


# -- composition ---------------------------------------------------------------------------

def fits_some_layout(values: list[int]) -> bool:
    """Whether some flat layout has these offsets: try every ordered factorization of n,
    its strides being forced by the values at the mode boundaries."""
    n = len(values)

    def factorizations(m):
        if m == 1:
            yield []
            return
        for f in range(2, m + 1):
            if m % f == 0:
                for rest in factorizations(m // f):
                    yield [f, *rest]

    for shape in factorizations(n):
        strides, p = [], 1
        for s in shape:
            strides.append(values[p] if p < n else 0)
            p *= s
        candidate = Layout(tuple(shape), tuple(strides)) if shape else Layout(1, 0)
        if table(candidate) == values:
            return True
    return False


def int_modes(layout: Layout):
    return list(zip(layout.flat_shape, layout.flat_stride))


@SETTINGS
@given(layouts(strides=st.integers(-4, 12)), layouts(max_size=24, strides=st.integers(0, 8)))
def test_composition_is_function_composition(a, b):
    direct = [ref(a, ref(b, i)) for i in range(b.size)]
    try:
        r = composition(a, b)
    except LayoutError as err:
        message = str(err)
        if "do not add up" in message:
            # the result would have to be the sum of a o b_k over b's int modes
            modes = int_modes(b)
            sizes = [s for s, _ in modes]
            found = False
            for coord in itertools.product(*[range(s) for s in sizes]):
                offset_b = sum(c * d for c, (_, d) in zip(coord, modes))
                if sum(ref(a, c * d) for c, (_, d) in zip(coord, modes)) != ref(a, offset_b):
                    found = True
                    break
            assert found, message
        else:
            assert "not a layout" in message, message
            assert any(not fits_some_layout([ref(a, i * d) for i in range(s)]) for s, d in int_modes(b))
        return
    assert r.size == b.size
    assert table(r) == direct
    if isinstance(b.shape, tuple):
        assert r.rank == b.rank and mode_sizes(r) == mode_sizes(b)


@SETTINGS
@given(layouts(strides=st.integers(0, 12)), st.lists(layouts(max_size=8, strides=st.integers(0, 4), max_rank=1), min_size=1, max_size=3))
def test_composition_by_mode_tiler(a, tiler):
    assume(len(tiler) <= a.rank)
    try:
        r = composition(a, tuple(tiler))
    except LayoutError:
        return
    modes = a.modes()
    for k, t in enumerate(tiler):
        assert table(r[k]) == [ref(modes[k], ref(t, i)) for i in range(t.size)]
    for k in range(len(tiler), a.rank):
        assert r[k] == modes[k]


# -- complement and inverses -----------------------------------------------------------------

def sorted_modes(layout):
    return sorted((d, s) for s, d in int_modes(layout) if s != 1 and d != 0)


@SETTINGS
@given(layouts(strides=st.integers(0, 16)), st.integers(1, 200))
def test_complement_properties(a, cotarget):
    image = set(table(a))
    nonzero_size = 1
    for s, d in int_modes(a):
        if d:
            nonzero_size *= s
    try:
        r = complement(a, cotarget)
    except LayoutError:
        modes = sorted_modes(a)
        extents = [1] + [s * d for d, s in modes]
        # CuTe's condition: each stride a multiple of the extent of the smaller modes
        assert any(d % e for (d, _), e in zip(modes, extents)) or len(image) < nonzero_size
        return
    assert len(image) == nonzero_size  # a was injective once stride-0 modes are dropped
    values = table(r)
    assert values[0] == 0 and all(x < y for x, y in zip(values, values[1:]))  # ordered
    sums = {x + y for x in image for y in values}
    assert len(sums) == len(image) * len(values)  # (a, r) injective
    assert set(range(cotarget)) <= sums  # fills every gap up to the cotarget


@SETTINGS
@given(compact_injective(), st.integers(1, 300))
def test_complement_of_injective_layouts_with_holes(a, cotarget):
    r = complement(a, cotarget)
    sums = {x + y for x in table(a) for y in table(r)}
    assert len(sums) == a.size * r.size and set(range(cotarget)) <= sums


@SETTINGS
@given(layouts(strides=st.integers(-4, 16)))
def test_right_inverse(a):
    r = right_inverse(a)
    assert [ref(a, ref(r, i)) for i in range(r.size)] == list(range(r.size))
    if a.min_offset >= 0 and a.is_injective():
        image = set(table(a))
        n = 0
        while n in image:
            n += 1
        assert r.size == n


@SETTINGS
@given(layouts(strides=st.integers(0, 16)))
def test_left_inverse(a):
    injective = len(set(table(a))) == a.size
    try:
        r = left_inverse(a)
    except LayoutError:
        if injective:
            modes = sorted_modes(a)
            extents = [1] + [s * d for d, s in modes]
            assert any(d % e for (d, _), e in zip(modes, extents))
        return
    assert injective
    assert [ref(r, ref(a, i)) for i in range(a.size)] == list(range(a.size))


@SETTINGS
@given(compact_injective())
def test_left_inverse_of_injective_layouts_with_holes(a):
    r = left_inverse(a)
    assert [ref(r, ref(a, i)) for i in range(a.size)] == list(range(a.size))


# -- divides -----------------------------------------------------------------------------------

@SETTINGS
@given(layouts(max_size=64, strides=st.integers(0, 12)), compact_injective())
def test_logical_divide_formula(a, tiler):
    try:
        rest = complement(tiler, a.size)
        r = logical_divide(a, tiler)
    except LayoutError:
        return
    assert r.rank == 2 and r[0].size == tiler.size and r[1].size == rest.size
    for i in range(tiler.size):
        for j in range(rest.size):
            assert r((i, j)) == ref(a, ref(tiler, i) + ref(rest, j))


@st.composite
def rank2_with_tiler(draw):
    m0, m1 = draw(st.sampled_from([4, 6, 8, 12])), draw(st.sampled_from([2, 4, 6, 8]))
    d0, d1 = draw(st.integers(1, 20)), draw(st.integers(1, 20))
    a = Layout((m0, m1), (d0, d1))
    t0 = draw(st.sampled_from([d for d in (1, 2, 3, 4) if m0 % d == 0]))
    t1 = draw(st.sampled_from([d for d in (1, 2, 4) if m1 % d == 0]))
    s0 = draw(st.sampled_from([s for s in (1, 2) if (m0 // t0) % s == 0]))
    return a, (Layout(t0, s0), Layout(t1, 1))


@SETTINGS
@given(rank2_with_tiler())
def test_divide_family_rearranges_logical_divide(case):
    a, tiler = case
    try:
        ld = logical_divide(a, tiler)
    except LayoutError:
        return
    z, t, f = zipped_divide(a, tiler), tiled_divide(a, tiler), flat_divide(a, tiler)
    (n0, r0), (n1, r1) = [(m[0].size, m[1].size) for m in ld.modes()]
    for i0, i1, j0, j1 in itertools.product(range(n0), range(n1), range(r0), range(r1)):
        expected = ref(a.modes()[0], ref(tiler[0], i0) + ref(complement(tiler[0], a[0].size), j0)) + \
            ref(a.modes()[1], ref(tiler[1], i1) + ref(complement(tiler[1], a[1].size), j1))
        assert ld(((i0, j0), (i1, j1))) == expected
        assert z(((i0, i1), (j0, j1))) == expected
        assert t(((i0, i1), j0, j1)) == expected
        assert f((i0, i1, j0, j1)) == expected


# -- products ----------------------------------------------------------------------------------

@SETTINGS
@given(compact_injective(), layouts(max_size=12, strides=st.integers(0, 6), max_rank=2))
def test_logical_product_formula(a, b):
    try:
        rest = complement(a, a.size * b.cosize)
        r = logical_product(a, b)
    except LayoutError:
        return
    assert r[0] == a and r[1].size == b.size
    for i in range(a.size):
        for j in range(b.size):
            assert r((i, j)) == ref(a, i) + ref(rest, ref(b, j))


@st.composite
def rank2_pairs(draw):
    a = draw(compact_injective().filter(lambda x: x.rank <= 2))
    if a.rank == 1:
        a = make_layout(a, Layout(1, 0))
    shape = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    return a, shape


@SETTINGS
@given(rank2_pairs())
def test_blocked_and_raked_products(case):
    a, shape = case
    b = Layout(shape)  # column-major, as blocked_product(a, shape) reads a shape
    rest = complement(a, a.size * b.cosize)
    try:
        blocked, raked = blocked_product(a, shape), raked_product(a, shape)
    except LayoutError:
        # only when the placement rest o b is no layout (checked in the composition test)
        try:
            composition(rest, b)
        except LayoutError:
            return
        raise
    assert blocked.size == raked.size == a.size * b.size
    (a0, a1), (b0, b1) = mode_sizes(a), shape
    for i0, i1, j0, j1 in itertools.product(range(a0), range(a1), range(b0), range(b1)):
        expected = ref(a, i0 + a0 * i1) + ref(rest, ref(b, j0 + b0 * j1))
        assert blocked(((i0, j0), (i1, j1))) == expected
        assert raked(((j0, i0), (j1, i1))) == expected


@st.composite
def int_mode_cases(draw):
    rank = draw(st.integers(1, 3))
    a = Layout(tuple(draw(st.integers(1, 16)) for _ in range(rank)), tuple(draw(st.integers(-5, 40)) for _ in range(rank)))
    n = draw(st.integers(1, rank))
    tiler = tuple(
        draw(st.one_of(st.integers(1, 8), st.builds(Layout, st.integers(1, 8), st.integers(0, 4))))
        for _ in range(n)
    )
    return a, tiler


@SETTINGS
@given(int_mode_cases())
def test_by_mode_tilers_equal_mode_by_mode_results(case):
    """The by-mode fast path gives exactly the layouts of the general one-mode path."""
    a, tiler = case
    modes = a.modes()
    for op in (composition, logical_divide):
        try:
            expected = make_layout(*[op(m, Layout(t) if isinstance(t, int) else t) for m, t in zip(modes, tiler)],
                                   *modes[len(tiler):])
        except LayoutError:
            continue
        assert op(a, tiler) == expected
        # and as functions, against the definition (the complement's stride is its size)
        if op is composition:
            for k, t in enumerate(tiler):
                t = Layout(t) if isinstance(t, int) else t
                assert table(op(a, tiler)[k]) == [ref(modes[k], ref(t, i)) for i in range(t.size)]


@SETTINGS
@given(rank2_with_tiler())
def test_zipped_divide_tile_is_the_composition(case):
    """02_layout_algebra.md: layout<0>(zipped_divide(a, b)) == composition(a, b)."""
    a, tiler = case
    try:
        z = zipped_divide(a, tiler)
    except LayoutError:
        return
    assert z[0] == composition(a, tiler)


@st.composite
def rank2_product_cases(draw):
    a = Layout((draw(st.integers(1, 3)), draw(st.integers(1, 3))), (1, draw(st.integers(3, 6))))
    tiler = (Layout(draw(st.integers(1, 3))), Layout(draw(st.integers(1, 3))))
    return a, tiler


@SETTINGS
@given(rank2_product_cases())
def test_product_family_rearranges_logical_product(case):
    a, tiler = case
    try:
        lp = logical_product(a, tiler)
    except LayoutError:
        return
    zp, tp, fp = zipped_product(a, tiler), tiled_product(a, tiler), flat_product(a, tiler)
    (m0, t0), (m1, t1) = [(m[0].size, m[1].size) for m in lp.modes()]
    modes = a.modes()
    for i0, i1, j0, j1 in itertools.product(range(m0), range(m1), range(t0), range(t1)):
        rest0 = complement(modes[0], modes[0].size * tiler[0].cosize)
        rest1 = complement(modes[1], modes[1].size * tiler[1].cosize)
        expected = ref(modes[0], i0) + ref(rest0, ref(tiler[0], j0)) + ref(modes[1], i1) + ref(rest1, ref(tiler[1], j1))
        assert lp(((i0, j0), (i1, j1))) == expected
        assert zp(((i0, i1), (j0, j1))) == expected
        assert tp(((i0, i1), j0, j1)) == expected
        assert fp((i0, i1, j0, j1)) == expected
