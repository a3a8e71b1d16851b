"""Triton 3.9's own bindings as the reference the benchmarks measure against (CPU only).

``available()`` says whether ``triton`` imports; ``to_triton(linear)`` turns a layoutkit
:class:`~layoutkit.LinearLayout` into Triton's C++ ``LinearLayout`` (``from_bases``);
``gluon_builder()`` gives the builder whose ``to_linear_layout(spec._to_ir(builder), shape)``
computes an encoding's linear layout from a gluon spec object, as Triton's compiler does.
``NumpyTensor(array)`` hands a numpy array to Triton's interpreter (``TRITON_INTERPRET=1``) as
the torch tensor it expects. ``quiet_exit()`` ends the process without nanobind's reference-leak report of Triton's
module (printed at interpreter exit, unrelated to the measurements).
"""

from __future__ import annotations

import os
import sys

import numpy as np


def available() -> bool:
    try:
        import triton._C.libtriton.linear_layout  # noqa: F401
    except ImportError:
        return False
    return True


NOTE = "(Triton column skipped: `pip install triton==3.9.0`, in the bench extra, to compare)"


# --------------------------------------------------------------------------- interpreter
class _Storage:
    def __init__(self, tensor):
        self.tensor = tensor

    def data_ptr(self) -> int:
        return self.tensor.data_ptr()

    def cpu(self):
        return self

    def copy_(self, other) -> None:
        """The interpreter copies results back to the device: here they are in place."""


class NumpyTensor:
    """A C-contiguous numpy array dressed as the few torch.Tensor methods Triton's
    interpreter calls on a kernel argument (its address, dtype, storage, strides); the
    interpreter reads and writes the array's memory in place (no torch needed)."""

    DTYPES = {"float16": "torch.float16", "float32": "torch.float32", "int32": "torch.int32"}

    def __init__(self, array: np.ndarray):
        assert array.flags.c_contiguous
        self.array = array
        self.dtype = self.DTYPES[array.dtype.name]

    def data_ptr(self) -> int:
        return self.array.ctypes.data

    def untyped_storage(self) -> _Storage:
        return _Storage(self)

    def new_empty(self, *args, **kwargs) -> NumpyTensor:
        return self

    def set_(self, *args) -> NumpyTensor:
        return self

    def storage_offset(self) -> int:
        return 0

    def size(self) -> tuple[int, ...]:
        return self.array.shape

    def stride(self, *args) -> tuple[int, ...]:
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def copy_(self, other) -> None:
        pass


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
