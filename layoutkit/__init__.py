"""layoutkit: GPU tensor layouts under one algebra.

Triton's TritonGPU encodings and linear layouts, IREE's nested layouts, CuTe's shape:stride
layouts and rocMLIR's coordinate transformations, read in their own syntax, compared as
functions, converted with a cost, drawn, and executed on a lockstep SIMT simulator.

Names are imported lazily so that ``import layoutkit`` stays light: the IR (xDSL), plotting
(matplotlib) and CUDA code load only when used.
"""

from __future__ import annotations

from typing import Any

from layoutkit._lazy import lazy_exports
from layoutkit.core.display import set_svg_view
from layoutkit.errors import LayoutError

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    "LinearLayout": "layoutkit.core.linear",
    "equivalent": "layoutkit.core.protocol",
    "parse_layout": "layoutkit.layouts.parse",
    "parse_tensor_type": "layoutkit.layouts.parse",
    "default_blocked_encoding": "layoutkit.layouts.triton",
    "NestedLayout": "layoutkit.layouts.iree",
    "to_nested": "layoutkit.translate",
    "to_blocked": "layoutkit.translate",
    "to_linear_encoding": "layoutkit.translate",
    "plan_conversion": "layoutkit.convert",
    "simulate": "layoutkit.backends.simt",
    "emit_cuda": "layoutkit.backends.cuda",
    "compile_cuda": "layoutkit.backends.cuda",
    "run_cuda": "layoutkit.backends.cuda",
    "compile": "layoutkit.backends.compiled",
    "CompiledProgram": "layoutkit.backends.compiled",
}

__all__ = ["LayoutError", "__version__", *_EXPORTS]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


def _notebook_svg(layout: Any) -> str | None:
    # the views layer (and matplotlib) load on the first picture, not on import
    from layoutkit.render.notebook import layout_svg_or_none

    return layout_svg_or_none(layout)


set_svg_view(_notebook_svg)
