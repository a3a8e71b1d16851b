"""Bit helpers written once: integer checks (a ``bool`` is not an integer here, a numpy
integer is), powers of two and their logarithms.

    >>> is_int(3), is_int(True), is_int(np.int64(3))
    (True, False, True)
    >>> is_pow2(8), is_pow2(0), log2(8)
    (True, False, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np


def is_int(value: Any) -> bool:
    """An ``int`` or numpy integer, and not a ``bool``."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_pow2(value: int) -> bool:
    """``value`` is 1, 2, 4, ... (0 and negatives are not)."""
    return value > 0 and value & (value - 1) == 0


def log2(value: int) -> int:
    """The exponent of a power of two (``floor(log2)`` of any positive int)."""
    return int(value).bit_length() - 1
