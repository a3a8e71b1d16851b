"""CuTe thread-value layouts in the common protocol, against the PTX fragment formulas and
brute-force evaluation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import layoutkit
from layoutkit import LayoutError, parse_layout
from layoutkit.cute import Layout, ThreadValueLayout

# SM80_16x8x8_F16F16F16F16_TN's accumulator (CuTe's SM80_16x8_Row)
SM80_C = "((4,8),(2,2)):((32,1),(16,8)) over 16x8"


def test_sm80_accumulator_matches_ptx_fragment():
    tv = parse_layout(SM80_C)
    assert tv.hardware_dims() == {"register": 4, "lane": 32, "warp": 1}
    tab = tv.table()
    assert tab.shape == (4, 32, 1, 2)
    for reg, lane in itertools.product(range(4), range(32)):
        # PTX mma.m16n8 C/D fragment: groupID = lane / 4, c_i row = groupID + 8 * (i >= 2),
        # column = (lane % 4) * 2 + (i & 1)
        row = lane // 4 + 8 * (reg // 2)
        col = (lane % 4) * 2 + (reg & 1)
        assert tab[reg, lane, 0].tolist() == [row, col]


def test_apply_is_cute_evaluation_then_column_major_coordinates():
    tv = ThreadValueLayout(Layout.parse("((32,4),(4,2)):((1,128),(32,512))"), (32, 32))
    assert tv.hardware_dims() == {"register": 8, "lane": 32, "warp": 4}
    regs, lanes, warps = np.meshgrid(np.arange(8), np.arange(32), np.arange(4), indexing="ij")
    out = tv.apply(register=regs, lane=lanes, warp=warps)
    for r, ln, w in itertools.product(range(8), range(32), range(4)):
        thread, value = ln + 32 * w, r
        index = (thread % 32) + 128 * (thread // 32) + 32 * (value % 4) + 512 * (value // 4)
        assert (out["dim0"][r, ln, w], out["dim1"][r, ln, w]) == (index % 32, index // 32)


def test_owners_by_brute_force():
    tv = parse_layout("((2,4),(2,3)):((12,1),(0,4)) over 12x4")  # value bit 0 duplicates
    owners = tv.owners((5, 1))  # index 17 = 12 + 1 + 4
    tab = tv.table()
    expected = [
        {"register": r, "lane": ln, "warp": 0}
        for r in range(6) for ln in range(8) if tab[r, ln, 0].tolist() == [5, 1]
    ]
    assert owners == expected
    assert owners == [{"register": 2, "lane": 3, "warp": 0}, {"register": 3, "lane": 3, "warp": 0}]


def test_few_threads_and_non_power_of_two():
    tv = parse_layout("(4,3):(3,1) over 12")  # 4 threads, 3 values, a 1-d tensor of 12
    assert tv.hardware_dims() == {"register": 3, "lane": 4, "warp": 1}
    assert tv.table()[:, :, 0, 0].tolist() == [[3 * t + v for t in range(4)] for v in range(3)]
    with pytest.raises(LayoutError, match="register has size 3"):
        tv.to_linear_layout()


def test_to_linear_layout_matches_table():
    tv = parse_layout(SM80_C)
    linear = tv.to_linear_layout()
    assert list(linear.in_dims) == ["register", "lane", "warp"]
    assert linear.out_dims == {"dim0": 16, "dim1": 8}
    assert layoutkit.equivalent(tv, linear, (16, 8))
    # a power-of-two but not F2-linear layout: offsets add with carries
    with pytest.raises(LayoutError, match="not linear over F2"):
        parse_layout("(4,4):(1,3) over 16").to_linear_layout()


def test_equivalent_refuses_a_plain_layout_with_a_layout_error():
    mma = parse_layout("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>")
    with pytest.raises(LayoutError, match="layout: '\\(4,8\\):\\(1,4\\)', a Layout, .* 'LAYOUT over MxN'"):
        layoutkit.equivalent(mma, parse_layout("(4,8):(1,4)"), (16, 8))
    with pytest.raises(LayoutError, match="layout: 'x', a str"):
        layoutkit.equivalent("x", mma, (16, 8))


def test_equivalent_to_triton_mma_v2():
    mma = parse_layout(
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], "
        "CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0], instrShape = [16, 8]}>"
    )
    tv = parse_layout(SM80_C)
    assert layoutkit.equivalent(tv, mma, (16, 8))
    swapped = parse_layout("((4,8),(2,2)):((32,1),(8,16)) over 16x8")  # value modes swapped
    assert not layoutkit.equivalent(swapped, mma, (16, 8))


@pytest.mark.parametrize(
    ("layout", "shape", "message"),
    [
        ("(8,2):(1,8)", (8,), "outside"),
        ("(48,2):(1,48)", (96,), "multiple of the warp size"),
        ("(4,2,2):(1,4,8)", (16,), "two modes"),
        ("(4,2):(1,-4)", (8,), "outside"),
    ],
)
def test_validation(layout, shape, message):
    with pytest.raises(LayoutError, match=message):
        ThreadValueLayout(Layout.parse(layout), shape)


def test_apply_checks_inputs():
    tv = parse_layout(SM80_C)
    with pytest.raises(LayoutError, match="lane"):
        tv.apply(lane=32)
    with pytest.raises(LayoutError, match="unknown"):
        tv.apply(block=0)
    with pytest.raises(LayoutError, match="covers"):
        tv.table((8, 16))


@pytest.mark.parametrize(
    "text",
    ["((32,(2,4)),(4,64)):((4,(128,16384)),(1,256)) over 256x256",
     "((2,4),(2,3)):((12,1),(0,4)) over 3x4x2",
     "(4,3):(3,1) over 12"],
)
def test_table_agrees_with_apply(text):
    tv = parse_layout(text)
    dims = tv.hardware_dims()
    tab = tv.table()
    grids = np.indices(tuple(dims.values()))
    coords = tv.apply(**dict(zip(dims, grids)))
    for k in range(len(tv.shape)):
        assert np.array_equal(tab[..., k], coords[f"dim{k}"])
    # and against the definition, element by element for a sample
    layout, threads = tv.layout, tv.num_threads
    for reg, lane, warp in [(0, 0, 0), (dims["register"] - 1, dims["lane"] - 1, dims["warp"] - 1), (1, 2, 0)]:
        index = layout(lane + dims["lane"] * warp + threads * reg)
        expected = []
        for extent in tv.shape:
            expected.append(index % extent)
            index //= extent
        assert tab[reg, lane, warp].tolist() == expected


def test_equivalent_to_iree_nested_layout():
    # the same accumulator as an IREE nested layout: rows 0-7 / 8-15 are the batch, each
    # thread's two columns the element tile; register = row-major [batch0, element1]
    nested = parse_layout(
        "#iree_vector_ext.nested_layout<subgroup_tile = [1, 1], batch_tile = [2, 1], "
        "outer_tile = [1, 1], thread_tile = [8, 4], element_tile = [1, 2], "
        "subgroup_strides = [0, 0], thread_strides = [4, 1]>",
        subgroup_size=32,
    )
    assert layoutkit.equivalent(parse_layout(SM80_C), nested, (16, 8))
    raked = parse_layout("((4,8),(2,2)):((32,1),(8,16)) over 16x8")
    assert not layoutkit.equivalent(raked, nested, (16, 8))


@st.composite
def tv_layouts(draw):
    """A random (thread, value) split of a random column-major tensor index space."""
    sizes = draw(st.lists(st.sampled_from([2, 2, 4, 3]), min_size=2, max_size=5))
    strides, current = [], 1
    for s in sizes:
        strides.append(current)
        current *= s
    order = draw(st.permutations(range(len(sizes))))
    cut = draw(st.integers(1, len(sizes) - 1))
    thread = [order[k] for k in range(cut)]
    value = [order[k] for k in range(cut, len(sizes))]
    layout = Layout(
        (tuple(sizes[k] for k in thread), tuple(sizes[k] for k in value)),
        (tuple(strides[k] for k in thread), tuple(strides[k] for k in value)),
    )
    total = current
    rows = draw(st.sampled_from([d for d in range(1, total + 1) if total % d == 0]))
    return layout, (rows, total // rows)


@settings(max_examples=60, deadline=None)
@given(tv_layouts())
def test_random_thread_value_layouts(case):
    layout, shape = case
    threads = layout[0].size
    assume(threads <= 32 or threads % 32 == 0)
    tv = ThreadValueLayout(layout, shape)
    tab = tv.table()
    dims = tv.hardware_dims()
    for reg, lane, warp in itertools.product(*[range(n) for n in dims.values()]):
        thread = lane + dims["lane"] * warp
        index = layout((thread, reg))
        assert tab[reg, lane, warp].tolist() == [index % shape[0], index // shape[0]]
    powers = all(n & (n - 1) == 0 for n in [*dims.values(), *shape])
    try:
        linear = tv.to_linear_layout()
    except LayoutError as err:
        assert not powers or "not linear" in str(err)
        return
    assert powers
    assert np.array_equal(linear.table(), tab)
