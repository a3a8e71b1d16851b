"""``layoutkit.translate``: one package and one table for every cross-family map.

The table and the package agree, the README prints the table, the names users imported from
the families before still work (as the same functions), the families do not import the
translation layer, and the translations added with the package (any linear layout ->
``#ttg.linear``, shared offsets -> Triton shared encodings) are checked against tables and
formulas written here."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError, LinearLayout, equivalent, parse_layout, translate
from layoutkit.translate import TRANSLATIONS, table_markdown

ROOT = Path(__file__).resolve().parents[2]


def test_every_function_of_the_table_is_exported_and_every_export_is_in_the_table():
    names = set(TRANSLATIONS.values())
    assert names == set(translate._EXPORTS)
    for name in names:
        assert callable(getattr(translate, name))


def test_readme_prints_the_table():
    assert table_markdown() in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("module, name", [
    ("layoutkit", "to_nested"), ("layoutkit", "to_blocked"), ("layoutkit", "to_linear_encoding"),
    ("layoutkit.layouts.iree", "to_nested"), ("layoutkit.layouts.iree", "to_blocked"),
    ("layoutkit.layouts.rock", "swizzled_shared_chain"), ("layoutkit.layouts.rock", "padded_shared_chain"),
    ("layoutkit.layouts.rock", "nested_layout_chain"), ("layoutkit.layouts.rock", "cute_chain"),
    ("layoutkit.coords", "swizzled_shared_chain"), ("layoutkit.coords", "cute_chain"),
])
def test_old_import_paths_give_the_translate_functions(module, name):
    import importlib

    assert getattr(importlib.import_module(module), name) is getattr(translate, name)
    assert name in dir(importlib.import_module(module))


def test_unknown_names_are_attribute_errors():
    import layoutkit.layouts.iree as iree
    import layoutkit.layouts.triton as triton

    for module in (layoutkit, iree, triton, translate):
        with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
            module.no_such_name  # noqa: B018


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_algebra_and_families_do_not_import_the_translation_layer():
    for folder in ("core", "layouts"):
        for path in (ROOT / "layoutkit" / folder).rglob("*.py"):
            assert not any(m.startswith("layoutkit.translate") for m in _imports(path)), path


def test_translate_imports_only_algebra_and_families():
    allowed = ("layoutkit.core", "layoutkit.layouts", "layoutkit.errors", "layoutkit._lazy", "layoutkit.translate")
    for path in (ROOT / "layoutkit" / "translate").rglob("*.py"):
        for module in _imports(path):
            if module.startswith("layoutkit"):
                assert module.startswith(allowed), (path, module)


def test_translation_functions_live_only_in_translate():
    """No family module defines a cross-family function any more."""
    moved = set(TRANSLATIONS.values())
    for path in (ROOT / "layoutkit").rglob("*.py"):
        if "translate" in path.parts:
            continue
        defined = {n.name for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef)}
        assert not defined & moved, (path, defined & moved)


# -- any linear layout -> #ttg.linear -------------------------------------------------------------
BLOCKED = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [0, 1]}>"


@pytest.mark.parametrize("text, shape", [
    (BLOCKED, (32, 32)),
    ("((4,8),(2,2)):((32,1),(16,8)) over 16x8", None),
    ("#iree_vector_ext.nested_layout<subgroup_tile = [2, 1], batch_tile = [2, 4], outer_tile = [1, 1], "
     "thread_tile = [16, 4], element_tile = [1, 4], subgroup_strides = [1, 0], thread_strides = [1, 16]>", None),
])
def test_to_linear_encoding_is_the_same_function(text, shape):
    layout = parse_layout(text)
    encoding = layoutkit.to_linear_encoding(layout, shape)
    back = parse_layout(str(encoding))
    tensor_shape = layout.tensor_shape(shape)
    assert equivalent(back, layout, tensor_shape)
    # element by element: every hardware index of the layout holds what the encoding says
    table = layout.table(tensor_shape).reshape(-1, len(tensor_shape))
    assert np.array_equal(np.unique(table, axis=0).shape[0], np.prod(tensor_shape))


def test_to_linear_encoding_of_a_linear_layout_and_refusals():
    ll = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
    assert str(layoutkit.to_linear_encoding(ll)) == "#ttg.linear<{register = [[1]], lane = [[2], [4]], warp = [], block = []}>"
    with pytest.raises(LayoutError, match="without an owner"):
        layoutkit.to_linear_encoding(LinearLayout({"register": [[1]], "lane": [[0]]}, {"dim0": 4}))
    with pytest.raises(LayoutError, match="in dims"):
        layoutkit.to_linear_encoding(parse_layout("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"), (4, 4))


# -- shared offsets -> Triton shared encodings ---------------------------------------------------
def _offsets_of(encoding, shape):
    """offset_of[flat element], inverted by brute force from the encoding's table."""
    table = encoding.table(shape).reshape(-1, len(shape))
    offsets = np.full(int(np.prod(shape)), -1)
    for offset, coord in enumerate(table.tolist()):
        flat = 0
        for c, s in zip(coord, shape):
            flat = flat * s + c
        offsets[flat] = offset
    return offsets


@pytest.mark.parametrize("vec, per_phase, max_phase, order, shape", [
    (2, 1, 4, (1, 0), (4, 8)), (4, 2, 8, (1, 0), (16, 32)), (1, 1, 8, (0, 1), (8, 8)),
    (8, 1, 8, (1, 0), (64, 64)), (1, 1, 1, (2, 1, 0), (2, 4, 8)),
])
def test_swizzled_shared_encoding_recovers_the_encoding(vec, per_phase, max_phase, order, shape):
    enc = parse_layout(f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, "
                       f"order = [{', '.join(map(str, order))}]}}>")
    offsets = _offsets_of(enc, shape)
    bases = [list(b) for b in enc.to_linear_layout(shape).bases["offset"]]
    found = translate.swizzled_shared_encoding(offsets, shape, bases)
    assert found is not None
    assert np.array_equal(_offsets_of(found, shape), offsets)
    assert equivalent(found, enc, shape)
    # and a shared_linear encoding of the same bases is the same function
    assert equivalent(translate.shared_linear_encoding(bases), enc, shape)


def test_swizzled_shared_encoding_is_none_for_other_offsets():
    rng = np.random.default_rng(0)
    offsets = rng.permutation(64)
    bases = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]
    assert translate.swizzled_shared_encoding(offsets, (8, 8), bases) is None


@pytest.mark.parametrize("shape, order, interval, pad", [((8, 16), (1, 0), 16, 4), ((4, 8), (0, 1), 8, 1),
                                                         ((16, 8), (1, 0), 32, 0)])
def test_padded_shared_encoding_is_row_major_with_padding(shape, order, interval, pad):
    enc = translate.padded_shared_encoding(shape, order, interval, pad)
    table = enc.table(shape).reshape(-1, len(shape))
    for offset, coord in enumerate(table.tolist()):
        if coord[0] < 0:  # a padding slot
            continue
        linear, stride = 0, 1
        for d in order:
            linear += coord[d] * stride
            stride *= shape[d]
        assert offset == linear + (linear // interval) * pad


def test_padded_shared_encoding_has_no_form_off_powers_of_two():
    assert translate.padded_shared_encoding((6, 8), (1, 0), 8, 2) is None
    assert translate.padded_shared_encoding((8, 8), (1, 0), 6, 2) is None
