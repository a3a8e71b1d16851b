"""The one protocol every layout follows, whatever its family.

A *distributed* layout maps hardware indices (``register``, ``lane``, ``warp``, ``block``)
to tensor coordinates (``dim0``, ``dim1``, ...); a *memory* layout maps ``offset`` (and
``block``) to tensor coordinates. Every layout answers:

- ``hardware_dims(shape)``: ordered ``{name: size}`` of its input dims for a tensor shape;
- ``tensor_shape(shape)``: the tensor shape it covers (checks ``shape`` against the layout);
- ``apply(shape=None, **hw)``: hardware index arrays -> ``{"dim0": array, ...}``, vectorized;
- ``table(shape)``: the whole map as one integer array of shape ``(*hw sizes, rank)``;
- ``owners(coord, shape)``: every hardware index that holds a tensor element;
- ``to_linear_layout(shape)``: the :class:`~layoutkit.core.linear.LinearLayout`, or a
  :class:`~layoutkit.errors.LayoutError` saying why the map is not linear over F2.

A family implements ``hardware_dims``, ``tensor_shape`` and ``apply`` (or
``to_linear_layout``, from which ``apply`` follows); :class:`LayoutBase` derives the rest.

Worked example of ``table``: for a layout with ``hardware_dims == {"register": 2, "lane": 4}``
on a 2-d tensor, ``table(shape)[r, l]`` is the ``(dim0, dim1)`` coordinate held by register
``r`` of lane ``l``; ``table(shape).shape == (2, 4, 2)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutkit.errors import LayoutError, quote

DISTRIBUTED_DIMS = ("register", "lane", "warp", "block")
MEMORY_DIMS = ("offset", "block")


def out_dim_names(rank: int) -> list[str]:
    """``['dim0', 'dim1', ...]``: the tensor out-dim names for a rank."""
    return [f"dim{i}" for i in range(rank)]


def check_shape(shape: Any, field: str = "shape") -> tuple[int, ...]:
    """A tensor shape as a tuple of positive ints, or a LayoutError naming ``field``."""
    try:
        dims = tuple(shape)
    except TypeError:
        raise LayoutError(f"{field}: expected a sequence of positive integers, got {quote(shape)}") from None
    if not dims or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d > 0 for d in dims):
        raise LayoutError(f"{field}: expected a sequence of positive integers, got {quote(list(shape))}")
    return tuple(int(d) for d in dims)


class LayoutBase:
    """Mixin deriving ``table``, ``owners``, ``equivalent`` and notebook display from
    ``hardware_dims``, ``tensor_shape`` and ``apply`` (or ``to_linear_layout``)."""

    #: "distributed" (register/lane/warp/block) or "memory" (offset/block)
    kind: str = "distributed"

    # -- to implement ----------------------------------------------------------------
    def hardware_dims(self, shape: Any = None) -> dict[str, int]:
        return dict(self.to_linear_layout(shape).in_dims)

    def tensor_shape(self, shape: Any = None) -> tuple[int, ...]:
        if shape is None:
            raise LayoutError(f"shape: {type(self).__name__} needs a tensor shape")
        return check_shape(shape)

    def apply(self, shape: Any = None, **hw: Any) -> dict[str, Any]:
        return self.to_linear_layout(shape).apply(**hw)

    def to_linear_layout(self, shape: Any = None):  # pragma: no cover - overridden
        raise LayoutError(f"{type(self).__name__}: not linear over F2")

    # -- derived ----------------------------------------------------------------------
    @property
    def rank(self) -> int:
        return len(self.tensor_shape(getattr(self, "shape", None)))

    def table(self, shape: Any = None) -> np.ndarray:
        """The whole map: ``table(shape)[i0, i1, ...]`` = coordinates, one axis per
        hardware dim in ``hardware_dims`` order, the last axis the tensor dims."""
        tensor_shape = self.tensor_shape(shape)
        hw = self.hardware_dims(tensor_shape)
        grids = np.indices(tuple(hw.values()), dtype=np.int64) if hw else np.zeros((0,), np.int64)
        inputs = {name: grids[i] for i, name in enumerate(hw)}
        coords = self.apply(tensor_shape, **inputs)
        columns = [np.broadcast_to(np.asarray(coords[n], dtype=np.int64), tuple(hw.values()))
                   for n in out_dim_names(len(tensor_shape))]
        return np.stack(columns, axis=-1)

    def owners(self, coord: Any, shape: Any = None) -> list[dict[str, int]]:
        """Every hardware index ``{name: i}`` that holds the element at ``coord``."""
        tensor_shape = self.tensor_shape(shape)
        from layoutkit.core.indices import index_array

        coord_array = index_array(coord, "coord")
        if coord_array.ndim > 1:
            raise LayoutError(f"coord: expected one coordinate per tensor dim, got {quote(coord)}")
        coord_t = tuple(int(c) for c in np.atleast_1d(coord_array))
        if len(coord_t) != len(tensor_shape) or not all(0 <= c < s for c, s in zip(coord_t, tensor_shape)):
            raise LayoutError(f"coord: {quote(coord_t)} is not inside the tensor shape {quote(tensor_shape)}")
        hw = self.hardware_dims(tensor_shape)
        tab = self.table(tensor_shape)
        hits = np.argwhere(np.all(tab == np.asarray(coord_t), axis=-1))
        return [dict(zip(hw, map(int, row))) for row in hits]

    def _repr_svg_(self) -> str | None:  # Jupyter display, needs the plot extra
        """The picture of :func:`layoutkit.render.picture.layout_svg` (fewer cells on a
        side, so that a notebook shows it within a second); without matplotlib one
        ``error:`` line naming the extra, and Jupyter falls back to the text."""
        import sys

        from layoutkit.errors import require_extra

        try:
            require_extra("matplotlib", "drawing a layout")
        except LayoutError as err:
            print(f"error: {err}", file=sys.stderr)
            return None
        from layoutkit.render.picture import NOTEBOOK_MAX_SIDE, layout_svg

        shape = None
        try:
            self.tensor_shape(None)
        except LayoutError:  # a shape-free encoding: draw it on its natural shape, if it has one
            natural_shape = getattr(self, "natural_shape", None)
            if natural_shape is None:
                return None
            shape = natural_shape()
        try:
            return layout_svg(self, shape, max_side=NOTEBOOK_MAX_SIDE)
        except LayoutError:
            return None


def aligned_tables(a: Any, b: Any, shape: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Tables of ``a`` and ``b`` over the union of their hardware dims (a dim one layout
    lacks counts as size 1 there and is broadcast), in one dim order."""
    for layout in (a, b):
        if not all(hasattr(layout, m) for m in ("tensor_shape", "hardware_dims", "table")):
            hint = ("; a CuTe 'shape:stride' layout compares as a thread-value layout: write "
                    "'LAYOUT over MxN' or pass tensor_shape=(M, N) to parse_layout"
                    if "cute" in type(layout).__module__ else "")
            raise LayoutError(f"layout: {quote(str(layout))}, a {type(layout).__name__}, does not map "
                              f"hardware indices to tensor coordinates{hint}")
    shape_a = a.tensor_shape(shape)
    shape_b = b.tensor_shape(shape_a if shape is None else shape)
    if shape_a != shape_b:
        raise LayoutError(f"shape: the layouts cover different shapes {quote(shape_a)} and {quote(shape_b)}")
    hw_a, hw_b = a.hardware_dims(shape_a), b.hardware_dims(shape_b)
    names = list(hw_a) + [n for n in hw_b if n not in hw_a]
    tabs = []
    for layout, hw in ((a, hw_a), (b, hw_b)):
        tab = layout.table(shape_a)
        # reorder axes to `names`, inserting size-1 axes for missing dims
        order = [list(hw).index(n) for n in names if n in hw]
        tab = np.transpose(tab, order + [tab.ndim - 1])
        full_shape = [hw.get(n, 1) for n in names] + [tab.shape[-1]]
        tabs.append(tab.reshape(full_shape))
    sizes_a = [hw_a.get(n, 1) for n in names]
    sizes_b = [hw_b.get(n, 1) for n in names]
    for name, sa, sb in zip(names, sizes_a, sizes_b):
        if sa != sb and 1 not in (sa, sb):
            raise LayoutError(
                f"hardware_dims: {quote(name)} has size {sa} in one layout and {sb} in the other"
            )
    target = [max(sa, sb) for sa, sb in zip(sizes_a, sizes_b)] + [len(shape_a)]
    return np.broadcast_to(tabs[0], target), np.broadcast_to(tabs[1], target)


def equivalent(a: Any, b: Any, shape: Any = None) -> bool:
    """True when ``a`` and ``b`` are the same function from hardware indices to tensor
    coordinates on ``shape``, whatever their families."""
    try:
        ta, tb = aligned_tables(a, b, shape)
    except LayoutError as err:
        if str(err).startswith(("hardware_dims:", "shape:")):
            return False
        raise
    return bool(np.array_equal(ta, tb))
