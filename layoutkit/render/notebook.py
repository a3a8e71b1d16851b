"""Notebook display: a layout's picture as SVG, which ``import layoutkit`` registers as the
view of ``LayoutBase._repr_svg_`` (see ``layoutkit.core.display``)."""

from __future__ import annotations

import sys
from typing import Any

from layoutkit.errors import LayoutError, require_extra


def layout_svg_or_none(layout: Any) -> str | None:
    """The picture of ``layout`` as SVG text, with fewer cells on a side than a file's so
    that a notebook shows it within a second; None (Jupyter then shows the text) when the
    layout has no shape to draw on (neither its own nor a natural one), or when matplotlib
    is missing, which one ``error:`` line naming the ``plot`` extra says."""
    try:
        require_extra("matplotlib", "drawing a layout")
    except LayoutError as err:
        print(f"error: {err}", file=sys.stderr)
        return None
    from layoutkit.render.picture import NOTEBOOK_MAX_SIDE, layout_svg

    shape = None
    try:
        layout.tensor_shape(None)
    except LayoutError:  # a shape-free encoding: draw it on its natural shape, if it has one
        natural_shape = getattr(layout, "natural_shape", None)
        if natural_shape is None:
            return None
        shape = natural_shape()
    try:
        return layout_svg(layout, shape, max_side=NOTEBOOK_MAX_SIDE)
    except LayoutError:
        return None
