"""The error a kernel run can raise: out-of-bounds access, shared-memory race, bad barrier."""

from __future__ import annotations

from layoutkit.errors import LayoutError


class SimulationError(LayoutError):
    """A kernel did something a GPU would not do reliably; the message says where.

    Example: ``kernel @transpose: memref.load %in[%r, %c] : memref<64x64xf32> (line 12):
    block (1, 0, 0), thread (3, 7, 0): index (64, 3) out of bounds for shape (64, 64)``.
    """
