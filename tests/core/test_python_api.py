"""Python API papercuts (issue 10, item 18): a layout's repr is its native text (what MLIR,
Triton and CuTe print), numpy dtypes are element types, tables too large to build and
``np.asarray`` of a shape-free layout are LayoutErrors, ``LinearLayout ==`` is structural."""

from __future__ import annotations

import numpy as np
import pytest

from layoutkit import LayoutError, LinearLayout, cute, equivalent, parse_layout, plan_conversion

TEXTS = [
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>",
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>",
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
    "#ttg.linear<{register = [[0, 1]], lane = [[1, 0]], warp = [], block = []}>",
    "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
    "#ttg.padded_shared<[8:+2] {order = [1, 0], shape = [8, 8]}>",
    "#iree_vector_ext.nested_layout<subgroup_tile = [2, 1], batch_tile = [1, 1], outer_tile = [1, 1], thread_tile = [4, 2], element_tile = [1, 2], subgroup_strides = [1, 0], thread_strides = [2, 1]>",
    "((4,8),(2,2)):((32,1),(16,8)) over 16x8",
    '#rock.transform_map<affine_map<(d0) -> (d0 floordiv 3, d0 mod 3)> by [<Merge{2, 3} ["k"] at [0] -> ["a", "b"] at [0, 1]>] bounds = [6] -> [2, 3]>',
]


@pytest.mark.parametrize("text", TEXTS, ids=lambda t: t.split("<")[0][:20])
def test_repr_is_the_native_text(text):
    layout = parse_layout(text)
    assert repr(layout) == text
    assert parse_layout(repr(layout)) == layout


def test_repr_of_cute_and_linear_layouts():
    assert repr(cute.Layout.parse("(2,3):(3,1)")) == "(2,3):(3,1)"
    assert repr(cute.Swizzle(3, 4, 3)) == "Sw<3,4,3>"
    assert repr(cute.composition(cute.Swizzle(3, 3, 3), "(8,64):(64,1)")) == "Sw<3,3,3> o 0 o (8,64):(64,1)"
    ll = LinearLayout({"register": [[1], [2]], "lane": []}, {"dim0": 4})
    # Triton's LinearLayout::toString, which its Python binding's repr prints too
    assert repr(ll) == " - register=1 -> (1)\n   register=2 -> (2)\n - lane is a size 1 dimension\nwhere out dims are: [dim0 (size 4)]"


SRC = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
DST = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"


@pytest.mark.parametrize("dtype, name", [(np.float16, "f16"), (np.dtype("float32"), "f32"), (np.int8, "i8"),
                                         (np.uint16, "ui16"), (np.bool_, "i1")])
def test_plan_conversion_takes_numpy_dtypes(dtype, name):
    src, dst = parse_layout(SRC), parse_layout(DST)
    by_dtype = plan_conversion(src, dst, (64, 64), dtype)
    by_name = plan_conversion(src, dst, (64, 64), name)
    assert by_dtype.cost.table() == by_name.cost.table()
    assert [s.kind for s in by_dtype.steps] == [s.kind for s in by_name.steps]


def test_ml_dtypes_and_unknown_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    from layoutkit.analysis import element_type

    assert element_type(ml_dtypes.bfloat16) == ("bf16", 16)
    assert element_type(ml_dtypes.float8_e4m3fn) == ("f8E4M3FN", 8)
    assert element_type(ml_dtypes.int4) == ("i4", 4)
    with pytest.raises(LayoutError, match="element type: the numpy dtype 'complex64'"):
        element_type(np.complex64)


@pytest.mark.parametrize("layout, shape", [
    (parse_layout(SRC), (1 << 20, 1 << 20)),
    (parse_layout("#ttg.linear<{register = [[0, 1]], lane = [[1, 0]], warp = [], block = []}>"), (1 << 20, 1 << 20)),
    (parse_layout("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>"), (1 << 16, 1 << 16)),
    (LinearLayout({"register": [[1]] * 40}, {"dim0": 2}), None),
    (parse_layout('#rock.transform_map<by [<Merge{1000000, 3000000} ["k"] at [0] -> ["a", "b"] at [0, 1]>] '
                  'bounds = [3000000000000] -> [1000000, 3000000]>'), None),
])
def test_table_of_a_huge_shape_is_a_layout_error(layout, shape):
    with pytest.raises(LayoutError, match="hardware dims: a table of .* would have .* entries"):
        layout.table(shape)


def test_np_asarray_gives_the_table_or_a_clear_error():
    nested = parse_layout(TEXTS[7])
    assert np.array_equal(np.asarray(nested), nested.table())
    assert np.asarray(nested, dtype=np.int32).dtype == np.int32
    tv = parse_layout(TEXTS[8])
    assert np.array_equal(np.asarray(tv), tv.table())
    layout = cute.Layout.parse("(2,3):(3,1)")
    assert np.asarray(layout).tolist() == [0, 3, 1, 4, 2, 5]  # L(i), i column-major
    with pytest.raises(LayoutError, match=r"np.asarray: .* does not carry its tensor shape; use layout.table\(shape\)"):
        np.asarray(parse_layout(SRC))


def test_linear_layout_equality_is_structural_equivalent_is_functional():
    a = LinearLayout({"register": [[1]], "lane": [[2]]}, {"dim0": 4})
    b = LinearLayout({"lane": [[2]], "register": [[1]]}, {"dim0": 4})
    assert a != b  # in-dims in another order, as Triton's operator==
    assert equivalent(a, b)  # the same function
