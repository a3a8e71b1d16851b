"""Triton's front end for users: ``analyze(ttgir_text)`` -- the cost of every layout-bearing op
of a Triton kernel (:mod:`layoutkit.triton.analyze`), with the axis-info analysis of its
pointers (:mod:`layoutkit.triton.axis_walk`).

Example::

    >>> from layoutkit.triton import analyze
    >>> report = analyze(open("matmul.ttgir").read())       # doctest: +SKIP
    >>> print(report.text(top=3))                           # doctest: +SKIP

``simulate(kernel, grid, *args, num_warps=4, target="cuda:80", **constexprs)`` compiles a
``@triton.jit`` kernel with Triton (optional) and runs it on the simulator with its cost
report (:mod:`layoutkit.backends.simt.triton_jit`).
"""

from __future__ import annotations

from layoutkit._lazy import lazy_exports
from layoutkit.triton.analyze import Report, Row, analyze
from layoutkit.triton.axis_walk import axis_infos

# simulate runs on the simulator (the backends layer): loaded on first use
__getattr__, __dir__ = lazy_exports(__name__, {"simulate": "layoutkit.backends.simt.triton_jit"})

__all__ = ["Report", "Row", "analyze", "axis_infos", "simulate"]
