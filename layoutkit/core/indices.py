"""Index arrays handed to a layout by a user: checked once, here.

``apply(register=..., lane=..., warp=...)`` and CuTe's ``evaluate`` take ints, lists or
numpy arrays. :func:`index_array` turns any of them into int64 or raises a
:class:`~layoutkit.errors.LayoutError` naming the argument -- ``1.5`` is not truncated to
1, ``"3"`` is not parsed, ``2**70`` does not wrap around. :func:`hardware_indices` checks a
whole ``apply`` call against the layout's hardware dims, and :func:`check_table_size`
refuses a table too large to build before numpy tries to allocate it.

:func:`unravel` splits flat indices into row-major coordinates; layoutkit uses it instead of
``np.unravel_index``, which returns wrong coordinates for large ``(N, 1)``-shaped index
arrays in numpy 2.4 (numpy issue 31980).

>>> hardware_indices({"lane": [0, 31]}, {"register": 4, "lane": 32})["lane"].tolist()
[0, 31]
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np

from layoutkit.errors import LayoutError, quote

#: most hardware indices a table is built for: a table of 2**24 rows of rank 2 is 256 MiB
MAX_TABLE_ENTRIES = 1 << 24


def index_array(values: Any, field: str) -> np.ndarray:
    """``values`` (an int, a list or an array of integers; integral floats allowed) as an
    int64 array, or a LayoutError naming ``field``."""
    try:
        array = np.asarray(values)
    except (ValueError, TypeError):
        array = np.asarray(None)
    kind = array.dtype.kind
    if kind == "u" and array.size and array.max() >= 1 << 63:
        kind = "O"
    if kind == "f" and array.size and not np.all(
            np.isfinite(array) & (array == np.round(array)) & (np.abs(array) < 2.0**62)):
        kind = "O"
    if kind not in "iuf":
        raise LayoutError(f"{field}: expected integers (within int64), got {quote(repr(values))}")
    return array.astype(np.int64, copy=False)


def hardware_indices(given: dict[str, Any], dims: dict[str, int]) -> dict[str, np.ndarray]:
    """Every hardware dim of ``dims`` as an int64 array (missing ones 0), checked: the
    names are known and the values inside ``[0, size)``."""
    unknown = [name for name in given if name not in dims]
    if unknown:
        raise LayoutError(f"apply: unknown hardware dim {quote(unknown[0])} (dims: {', '.join(dims)})")
    out = {}
    for name, size in dims.items():
        value = index_array(given.get(name, 0), f"apply: {name}")
        if value.size and (value.min() < 0 or value.max() >= size):
            bad = value.min() if value.min() < 0 else value.max()
            raise LayoutError(f"apply: {name} values must be in [0, {size}), got {quote(int(bad))}")
        out[name] = value
    return out


def check_table_size(dims: dict[str, int], what: Any, limit: int = MAX_TABLE_ENTRIES,
                     purpose: str = "a table") -> None:
    """LayoutError when ``purpose`` (a table, a picture) over ``dims`` would take more than
    ``limit`` hardware indices; ``what`` is the layout, for the message."""
    total = prod(dims.values())
    if total > limit:
        sizes = ", ".join(f"{name}={size}" for name, size in dims.items())
        raise LayoutError(
            f"hardware dims: {purpose} of {quote(what, 120)} over {sizes} would have {total} entries, "
            f"at most {limit} (2**{limit.bit_length() - 1}) are supported"
        )


def unravel(flat: Any, shape: Any) -> tuple[np.ndarray, ...]:
    """Row-major coordinates of flat indices into ``shape``, one int64 array per dim (of the
    shape of ``flat``), as ``np.unravel_index`` gives them -- the last dim fastest:

    >>> [c.tolist() for c in unravel([5, 11], (3, 4))]
    [[1, 2], [1, 3]]

    Indices outside ``[0, prod(shape))`` are a LayoutError."""
    sizes = tuple(int(s) for s in shape)
    rest = index_array(flat, "flat index")
    if rest.size and (rest.min() < 0 or rest.max() >= prod(sizes)):
        bad = rest.min() if rest.min() < 0 else rest.max()
        raise LayoutError(f"flat index: {int(bad)} is outside a tensor of shape {quote(list(sizes))}")
    digits = []
    for size in reversed(sizes):
        digits.append(rest % size)
        rest = rest // size
    return tuple(reversed(digits))
