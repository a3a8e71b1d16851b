"""CuTe's published results (01_layout.md, 02_layout_algebra.md) and the cases where
pycute silently returns a wrong layout."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from cute_reference import ref

from layoutkit import LayoutError
from layoutkit.cute import (
    ComposedLayout,
    Layout,
    Swizzle,
    blocked_product,
    coalesce,
    complement,
    composition,
    left_inverse,
    logical_divide,
    logical_product,
    parse,
    raked_product,
    right_inverse,
    zipped_divide,
)


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (lambda: composition(Layout.parse("(6,2):(8,2)"), Layout.parse("(4,3):(3,1)")), "((2,2),3):((24,2),8)"),
        (lambda: complement(Layout.parse("(2,2):(1,6)"), 24), "(3,2):(2,12)"),
        (
            lambda: logical_divide(Layout.parse("(9,(4,8)):(59,(13,1))"), parse("<3:3, (2,4):(1,8)>")),
            "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))",
        ),
        (lambda: blocked_product(Layout.parse("(2,5):(5,1)"), (3, 4)), "((2,3),(5,4)):((5,10),(1,30))"),
        (lambda: raked_product(Layout.parse("(2,5):(5,1)"), (3, 4)), "((3,2),(4,5)):((10,5),(30,1))"),
        # 02_layout_algebra.md: coalesce and complement examples
        (lambda: coalesce(Layout.parse("(2,(1,6)):(1,(6,2))")), "12:1"),
        (lambda: complement(Layout.parse("4:1"), 24), "6:4"),
        (lambda: complement(Layout.parse("6:4"), 24), "4:1"),
        (lambda: complement(Layout.parse("(4,6):(1,4)"), 24), "1:0"),
        (lambda: complement(Layout.parse("(2,2):(1,6)"), 24), "(3,2):(2,12)"),
    ],
)
def test_published(result, expected):
    assert str(result()) == expected


def test_published_composition_as_function():
    a, b = Layout.parse("(6,2):(8,2)"), Layout.parse("(4,3):(3,1)")
    r = composition(a, b)
    assert [r(i) for i in range(b.size)] == [ref(a, ref(b, i)) for i in range(b.size)]


def test_layout_evaluation_examples():
    layout = Layout.parse("((2,3),(5,4)):((5,10),(1,30))")
    assert layout.size == 120 and layout.rank == 2 and layout.depth == 2
    for (i0, i1), (j0, j1) in itertools.product(itertools.product(range(2), range(3)), itertools.product(range(5), range(4))):
        offset = 5 * i0 + 10 * i1 + 1 * j0 + 30 * j1
        assert layout(((i0, i1), (j0, j1))) == offset
        assert layout((i0 + 2 * i1, j0 + 5 * j1)) == offset
        assert layout(i0 + 2 * i1 + 6 * (j0 + 5 * j1)) == offset
    assert layout.offsets.tolist() == [ref(layout, i) for i in range(layout.size)]
    with pytest.raises(LayoutError, match="outside"):
        layout(120)
    with pytest.raises(LayoutError, match="does not match"):
        layout((1, 2, 3))


def test_default_stride_is_column_major():
    assert Layout((2, (3, 4))) == Layout.parse("(2,(3,4)):(1,(2,6))")
    assert str(Layout.parse("(2,3)")) == "(2,3):(1,2)"


@pytest.mark.parametrize("text", ["4:-1", "(2,3):(-3,1)", "(3,(2,2)):(2,(-7,5))", "(4,2):(0,-2)"])
def test_cosize_with_negative_strides(text):
    layout = Layout.parse(text)
    values = [ref(layout, i) for i in range(layout.size)]
    assert layout.cosize == max(values) - min(values) + 1
    assert layout.min_offset == min(values) and layout.max_offset == max(values)


def test_cosize_positive_is_cute_definition():
    layout = Layout.parse("((2,3),(5,4)):((5,10),(1,30))")
    assert layout.cosize == layout(layout.size - 1) + 1


# -- where pycute is silently wrong ----------------------------------------------------------

def test_composition_without_divisibility_raises():
    # A(B(i)) = 0,1,2,3,8,9: no layout of size 6 has these offsets; pycute gives 4:1 (size 4).
    with pytest.raises(LayoutError, match="not a layout"):
        composition(Layout.parse("(4,6):(1,8)"), Layout.parse("6:1"))


def test_composition_without_divisibility_finds_a_layout_when_one_exists():
    a = Layout.parse("(3,4):(1,10)")
    for b in ("2:4", "3:4", "(2,2):(4,1)"):
        b = Layout.parse(b)
        r = composition(a, b)
        assert r.size == b.size
        assert [r(i) for i in range(b.size)] == [ref(a, ref(b, i)) for i in range(b.size)]
    # a(b(i)) = 0, 2, 11, 20 on shape (2,2): the second mode would need two strides
    with pytest.raises(LayoutError, match="do not add up"):
        composition(a, Layout.parse("(2,2):(2,4)"))


def test_composition_by_modes_checks_non_injective_right_operands():
    # each mode meets CuTe's divisibility conditions, but B(1,3) = 5 crosses A's first mode:
    # A(5) = 11 while A(2) + A(3) = 5 (pycute returns (2,4):(2,1) silently)
    with pytest.raises(LayoutError, match="do not add up"):
        composition(Layout.parse("(4,3):(1,10)"), Layout.parse("(2,4):(2,1)"))


@pytest.mark.parametrize("text", ["(2,2):(1,1)", "(4,2):(1,2)", "(2,3):(0,1)", "(3,2):(1,2)"])
def test_complement_of_non_injective_layout_raises(text):
    layout = Layout.parse(text)
    if "0" in text.split(":")[1]:
        # a stride-0 mode is dropped (CuTe filters it): complement of the rest is defined
        r = complement(layout, 12)
        image = {ref(layout, i) + ref(r, j) for i in range(layout.size) for j in range(r.size)}
        assert set(range(12)) <= image
        return
    assert len({ref(layout, i) for i in range(layout.size)}) < layout.size
    with pytest.raises(LayoutError, match="complement"):
        complement(layout, 24)


def test_complement_of_interleaved_layout_raises():
    layout = Layout.parse("(2,2):(2,3)")  # image 0,2,3,5: injective but no gap-filling layout
    with pytest.raises(LayoutError, match="interleave"):
        complement(layout, 12)


def test_right_inverse_skips_stride_zero_modes():
    layout = Layout.parse("(2,4):(0,1)")
    r = right_inverse(layout)  # pycute stops at the stride-0 mode and returns a size-1 layout
    assert r.size == 4
    assert [ref(layout, ref(r, i)) for i in range(r.size)] == list(range(4))
    layout = Layout.parse("((2,3),4,(2,2)):((0,1),0,(3,6))")
    r = right_inverse(layout)
    assert r.size == 12
    assert [ref(layout, ref(r, i)) for i in range(r.size)] == list(range(12))


def test_left_inverse():
    layout = Layout.parse("((2,3),4):((3,1),6)")
    r = left_inverse(layout)
    assert [ref(r, ref(layout, i)) for i in range(layout.size)] == list(range(layout.size))
    with pytest.raises(LayoutError, match="not injective"):
        left_inverse(Layout.parse("(2,2):(1,1)"))


# -- swizzles ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("bits", "base", "shift"), [(3, 4, 3), (2, 3, 3), (3, 3, -3), (1, 0, 5), (0, 4, 0)])
def test_swizzle_bits(bits, base, shift):
    sw = Swizzle(bits, base, shift)
    xs = np.arange(1 << 12)
    for x in range(1 << 12):
        if shift >= 0:
            z = (x >> (base + shift)) & ((1 << bits) - 1)
        else:
            z = (x >> base) & ((1 << bits) - 1)
            z = z << -shift
            z = (x >> base) & ((1 << bits) - 1)
        # XOR the yyy bits into the zzz bits
        y_lo = base + max(0, shift)
        z_lo = base - min(0, shift)
        yyy = (x >> y_lo) & ((1 << bits) - 1)
        expected = x ^ (yyy << z_lo)
        assert sw(x) == expected
    assert np.array_equal(sw(xs), [sw(int(x)) for x in xs])


def test_swizzle_is_a_bijection_on_its_domain():
    sw = Swizzle(3, 4, 3)
    image = sw(np.arange(sw.size))
    assert sorted(image.tolist()) == list(range(sw.size))


def test_swizzle_validation():
    with pytest.raises(LayoutError, match="shift"):
        Swizzle(3, 4, 2)
    with pytest.raises(LayoutError):
        Swizzle(-1, 0, 0)


def test_composed_layout_in_the_algebra():
    sw = Swizzle(3, 3, 3)
    inner = Layout.parse("(8,64):(64,1)")
    swizzled = composition(sw, inner)
    assert isinstance(swizzled, ComposedLayout)
    assert str(swizzled) == "Sw<3,3,3> o 0 o (8,64):(64,1)"
    assert parse(str(swizzled)) == swizzled
    assert swizzled.offsets.tolist() == [sw(ref(inner, i)) for i in range(inner.size)]
    tile = logical_divide(swizzled, (4, 8))
    assert isinstance(tile, ComposedLayout)
    plain = logical_divide(inner, (4, 8))
    assert tile.offsets.tolist() == [sw(ref(plain, i)) for i in range(plain.size)]
    b = Layout.parse("(4,2):(2,128)")
    r = composition(swizzled, b)
    assert r.offsets.tolist() == [sw(ref(inner, ref(b, i))) for i in range(b.size)]
    product = blocked_product(swizzled, (2, 1))
    assert product.size == 2 * inner.size
    with pytest.raises(LayoutError, match="swizzled"):
        complement(swizzled)


def test_zipped_divide_published_shapes():
    # 02_layout_algebra.md: logical_divide has shape ((3,3),(8,4)), zipped_divide ((3,8),(3,4))
    a = Layout.parse("(9,(4,8)):(59,(13,1))")
    tiler = parse("<3:3, (2,4):(1,8)>")
    ld, zd = logical_divide(a, tiler), zipped_divide(a, tiler)
    assert [[m.size for m in mode.modes()] for mode in ld.modes()] == [[3, 3], [8, 4]]
    assert [[m.size for m in mode.modes()] for mode in zd.modes()] == [[3, 8], [3, 4]]


def test_logical_product_published():
    # 02_layout_algebra.md, "Logical Product 1-D Example"
    a, b = Layout.parse("(2,2):(4,1)"), Layout.parse("6:1")
    assert str(complement(a, 24)) == "(2,3):(2,8)"
    assert str(logical_product(a, b)) == "((2,2),(2,3)):((4,1),(2,8))"


def test_swizzled_algebra_random():
    rng = np.random.default_rng(7)
    for _ in range(40):
        bits, base = int(rng.integers(0, 3)), int(rng.integers(0, 3))
        sw = Swizzle(bits, base, int(rng.integers(bits, 4)) if bits else 0)
        inner = Layout((int(rng.choice([4, 8])), int(rng.choice([4, 8]))), (int(rng.choice([1, 8])), int(rng.choice([4, 16]))))
        composed = ComposedLayout(sw, int(rng.integers(0, 4)), inner)
        tiler = (int(rng.choice([1, 2, 4])), int(rng.choice([1, 2, 4])))
        plain = logical_divide(inner, tiler)
        divided = logical_divide(composed, tiler)
        assert divided.offsets.tolist() == [sw(composed.offset + ref(plain, i)) for i in range(plain.size)]
        assert [composed(i) for i in range(inner.size)] == [sw(composed.offset + ref(inner, i)) for i in range(inner.size)]
