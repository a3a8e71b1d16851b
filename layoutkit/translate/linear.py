"""Any layout that is linear over F2 -> Triton's ``#ttg.linear`` encoding.

IREE nested layouts of power-of-two tiles, CuTe thread-value layouts, every Triton
distributed encoding on a shape and a bare :class:`~layoutkit.core.linear.LinearLayout` have
an F2 linear form (``to_linear_layout``); Triton writes such a map as ``#ttg.linear<{register
= ..., lane = ..., warp = ..., block = ...}>`` when it reaches every tensor element.
"""

from __future__ import annotations

from typing import Any

from layoutkit.core.linear import LinearLayout
from layoutkit.errors import LayoutError, quote
from layoutkit.layouts.iree import NestedLayout
from layoutkit.layouts.triton.linear import LinearEncoding


def to_linear_encoding(layout: Any, shape: Any = None) -> LinearEncoding:
    """The ``#ttg.linear`` encoding of the same map as ``layout`` on ``shape`` (layouts that
    carry their shape need none): ``str()`` of it is Triton's text, which ``parse_layout``
    reads back. A LayoutError when the map is not linear over F2, has hardware dims other than
    ``register/lane/warp/block``, or leaves an element without an owner.

    >>> from layoutkit import parse_layout
    >>> nested = parse_layout("#iree_vector_ext.nested_layout<subgroup_tile = [1], batch_tile = [1], "
    ...     "outer_tile = [1], thread_tile = [4], element_tile = [2], subgroup_strides = [0], "
    ...     "thread_strides = [1]>", subgroup_size=4)
    >>> print(to_linear_encoding(nested))
    #ttg.linear<{register = [[1]], lane = [[2], [4]], warp = [], block = []}>
    """
    linear = layout if isinstance(layout, LinearLayout) else layout.to_linear_layout(shape)
    if not linear.is_surjective():
        raise LayoutError(_unowned(layout, linear))
    return LinearEncoding.from_linear_layout(linear)


def _unowned(layout: Any, linear: LinearLayout) -> str:
    shape = list(linear.out_dims.values())
    if isinstance(layout, NestedLayout):
        for tiles, strides in (("thread_tile", "thread_strides"), ("subgroup_tile", "subgroup_strides")):
            dims = [d for d, (t, s) in enumerate(zip(getattr(layout, tiles), getattr(layout, strides)))
                    if t > 1 and s == 0]
            if dims:
                return (f"{strides}: dim {dims[0]} has {tiles} {getattr(layout, tiles)[dims[0]]} but stride 0, "
                        f"so only its first tile is held: part of {quote(shape)} has no owner, and a "
                        f"#ttg.linear layout must reach every element")
        return (f"num_subgroups: {layout.num_subgroups} subgroups of {layout.subgroup_size} threads leave "
                f"part of {quote(shape)} without an owner (the layout spans {layout.subgroup_span} "
                f"subgroups); a #ttg.linear layout must reach every element")
    return f"layout: {quote(str(layout), 200)} leaves part of {quote(shape)} without an owner; a #ttg.linear layout must reach every element"
