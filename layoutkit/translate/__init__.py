"""Every map from one layout family to another, in one place.

:data:`TRANSLATIONS` is the table: ``(from, to) -> function``, each function a public name of
this package (defined in one of its modules, loaded on first use). Every translation is exact:
its result is the same function as its input (the tests check each with
:func:`~layoutkit.core.protocol.equivalent` or the family's table), or it raises
:class:`~layoutkit.errors.LayoutError` saying why the target family cannot express the layout.

>>> import layoutkit
>>> blocked = layoutkit.parse_layout("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
...                                  "warpsPerCTA = [4, 1], order = [1, 0]}>")
>>> nested = to_nested(blocked, (16, 32))
>>> to_blocked(nested) == blocked
True

Layering: this package sits below the families (``layoutkit.layouts``) and above the
analysis; the names users import from a family module (``layoutkit.layouts.iree.to_blocked``,
``layoutkit.layouts.rock.cute_chain``, ``layoutkit.coords.cute_chain``,
``layoutkit.to_nested``) are lazy re-exports of the functions here.
"""

from __future__ import annotations

from layoutkit._lazy import lazy_exports

#: (from family, to family) -> the function of ``layoutkit.translate`` that translates (the
#: family names as Markdown, for the README's table)
TRANSLATIONS: dict[tuple[str, str], str] = {
    ("`#ttg.blocked`", "`#iree_vector_ext.nested_layout`"): "to_nested",
    ("`#iree_vector_ext.nested_layout`", "`#ttg.blocked`"): "to_blocked",
    ("`#iree_vector_ext.nested_layout`", "`#ttg.linear`"): "to_linear_encoding",
    ("CuTe thread-value layout (`... over MxN`)", "`#ttg.linear`"): "to_linear_encoding",
    ("any TritonGPU distributed encoding, on a shape", "`#ttg.linear`"): "to_linear_encoding",
    ("`LinearLayout` (register/lane/warp/block)", "`#ttg.linear`"): "to_linear_encoding",
    ("`#ttg.swizzled_shared`", "`#rock.transform_map` chain"): "swizzled_shared_chain",
    ("`#ttg.padded_shared`", "`#rock.transform_map` chain"): "padded_shared_chain",
    ("`#iree_vector_ext.nested_layout`", "`#rock.transform_map` chain"): "nested_layout_chain",
    ("CuTe `shape:stride` layout", "`#rock.transform_map` chain"): "cute_chain",
    ("shared-memory offset bases (F2)", "`#ttg.shared_linear`"): "shared_linear_encoding",
    ("shared-memory offsets (linear)", "`#ttg.swizzled_shared`"): "swizzled_shared_encoding",
    ("row-major shared memory with padding", "`#ttg.padded_shared`"): "padded_shared_encoding",
}

#: public name -> the module of this package that defines it
_EXPORTS = {
    "to_nested": "layoutkit.translate.iree_triton",
    "to_blocked": "layoutkit.translate.iree_triton",
    "to_linear_encoding": "layoutkit.translate.linear",
    "swizzled_shared_chain": "layoutkit.translate.rock",
    "padded_shared_chain": "layoutkit.translate.rock",
    "nested_layout_chain": "layoutkit.translate.rock",
    "cute_chain": "layoutkit.translate.rock",
    "shared_linear_encoding": "layoutkit.translate.shared",
    "swizzled_shared_encoding": "layoutkit.translate.shared",
    "padded_shared_encoding": "layoutkit.translate.shared",
}

__all__ = ["TRANSLATIONS", *_EXPORTS]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


def table_markdown() -> str:
    """:data:`TRANSLATIONS` as the Markdown table the README prints."""
    rows = ["| from | to | function |", "| --- | --- | --- |"]
    for (source, target), name in TRANSLATIONS.items():
        rows.append(f"| {source} | {target} | `{name}` |")
    return "\n".join(rows)
