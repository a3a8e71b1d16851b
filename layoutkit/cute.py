"""CuTe layouts in layoutkit: the shape:stride algebra and thread-value layouts.

    >>> from layoutkit import cute
    >>> A = cute.Layout.parse("(6,2):(8,2)")
    >>> str(cute.composition(A, "(4,3):(3,1)"))
    '((2,2),3):((24,2),8)'
    >>> str(cute.logical_divide("(9,(4,8)):(59,(13,1))", "<3:3, (2,4):(1,8)>"))
    '((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))'

The algebra lives in :mod:`layoutkit.core.cute`; the thread-value layout (a CuTe
``(thread, value) -> index`` layout in layoutkit's common layout protocol) in
:mod:`layoutkit.layouts.cute`.
"""

from __future__ import annotations

from layoutkit.core.cute import (
    ComposedLayout,
    Layout,
    Swizzle,
    as_layout,
    blocked_product,
    coalesce,
    complement,
    composition,
    filter,
    fit_layout,
    flat_divide,
    flat_product,
    flatten,
    left_inverse,
    logical_divide,
    logical_product,
    make_layout,
    parse,
    parse_tiler,
    product,
    raked_product,
    right_inverse,
    tiled_divide,
    tiled_product,
    zipped_divide,
    zipped_product,
)
from layoutkit.layouts.cute import ThreadValueLayout, parse_text

__all__ = [
    "ComposedLayout", "Layout", "Swizzle", "ThreadValueLayout", "as_layout", "blocked_product",
    "coalesce", "complement", "composition", "filter", "fit_layout", "flat_divide", "flat_product", "flatten",
    "left_inverse", "logical_divide", "logical_product", "make_layout", "parse", "parse_text",
    "parse_tiler", "product", "raked_product", "right_inverse", "tiled_divide", "tiled_product",
    "zipped_divide", "zipped_product",
]
