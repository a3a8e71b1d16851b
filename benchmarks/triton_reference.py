"""Triton 3.9's own bindings as the reference the benchmarks measure against (CPU only).

``available()`` says whether ``triton`` imports; ``to_triton(linear)`` turns a layoutkit
:class:`~layoutkit.LinearLayout` into Triton's C++ ``LinearLayout`` (``from_bases``);
``gluon_builder()`` gives the builder whose ``to_linear_layout(spec._to_ir(builder), shape)``
computes an encoding's linear layout from a gluon spec object, as Triton's compiler does.
``quiet_exit()`` ends the process without nanobind's reference-leak report of Triton's
module (printed at interpreter exit, unrelated to the measurements).
"""

from __future__ import annotations

import os
import sys


def available() -> bool:
    try:
        import triton._C.libtriton.linear_layout  # noqa: F401
    except ImportError:
        return False
    return True


NOTE = "(Triton column skipped: `pip install triton==3.9.0`, in the bench extra, to compare)"


def to_triton(linear):
    from triton._C.libtriton.linear_layout import LinearLayout as TritonLinearLayout

    return TritonLinearLayout.from_bases(list(linear.bases.items()), list(linear.out_dims),
                                         list(linear.out_dims.values()), False)


def gluon_builder():
    from triton._C.libtriton import gluon_ir, ir

    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    builder._context = context  # keep the context alive with the builder
    return builder


def quiet_exit() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
