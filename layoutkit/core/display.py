"""How a layout shows itself in a notebook, while the algebra knows no picture code.

Jupyter calls ``LayoutBase._repr_svg_``, which asks the view registered here. The views layer
draws (``layoutkit.render.notebook.layout_svg_or_none``) and ``import layoutkit`` registers it,
so the algebra never imports the views (the layers of DESIGN.md). With no view registered, or
none that can draw the layout, a notebook shows the layout's text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_svg_view: Callable[[Any], str | None] | None = None


def set_svg_view(view: Callable[[Any], str | None] | None) -> None:
    """Register ``view(layout) -> SVG text or None`` as the notebook picture of layouts."""
    global _svg_view
    _svg_view = view


def svg_view(layout: Any) -> str | None:
    """The notebook picture of ``layout`` as SVG text, or None (then its text is shown)."""
    return None if _svg_view is None else _svg_view(layout)
