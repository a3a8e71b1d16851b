"""Notebook display: a layout's picture as SVG, which ``import layoutkit`` registers as the
view of ``LayoutBase._repr_svg_`` (see ``layoutkit.core.display``)."""

from __future__ import annotations

from typing import Any

from layoutkit.errors import LayoutError


def layout_svg_or_none(layout: Any) -> str | None:
    """The picture of ``layout`` as SVG text; None when matplotlib (the ``plot`` extra) is
    missing or the layout has no shape to draw on (neither its own nor a natural one)."""
    try:
        from layoutkit.render.picture import layout_svg
    except ImportError:
        return None
    shape = None
    try:
        layout.tensor_shape(None)
    except LayoutError:  # a shape-free encoding: draw it on its natural shape, if it has one
        natural_shape = getattr(layout, "natural_shape", None)
        if natural_shape is None:
            return None
        shape = natural_shape()
    try:
        return layout_svg(layout, shape)
    except LayoutError:
        return None
