"""IREE's nested layouts: ``#iree_vector_ext.nested_layout<...>`` (seed 000).

A nested layout splits every tensor dim ``d`` into five levels, outermost first::

    size[d] = subgroup_tile[d] * batch_tile[d] * outer_tile[d] * thread_tile[d] * element_tile[d]

Subgroups (warps) and threads (lanes) pick their tile along dim ``d`` through *virtual ids*::

    virtual_subgroup_id[d] = (subgroup_id // subgroup_strides[d]) % subgroup_tile[d]
    virtual_thread_id[d]   = (thread_id   // thread_strides[d])   % thread_tile[d]

(a stride of 0 means "not distributed on that level": the virtual id is 0).

``thread_id`` is the thread's flat id in the *workgroup*, ``subgroup_id * subgroup_size +
lane``, not the lane, exactly as in IREE: ``NestedLayoutAttr::computeThreadIds``
(``VectorExtAttrs.cpp``) receives the workgroup's linearized thread id (LLVMGPU vector
distribution linearizes ``gpu.thread_id`` z, y, x by the workgroup size) and delinearizes that
one value twice -- by the thread level's mixed-radix basis (its tiles sorted by stride, gaps
filled in, the part above the outermost tile left unbounded and unused, so every dim takes
``% thread_tile``) and by the subgroup level's basis followed by ``subgroup_size`` (so
``subgroup_id = thread_id // subgroup_size``). No modulo by the subgroup size is taken: the
flat id is just the lane while the thread strides and tiles stay inside one subgroup (the
usual case), and a thread tile reaching past the subgroup reads the subgroup bits. A tile > 1
with stride 0 is read as IREE reads it (virtual id 0: every thread holds the first tile, the
others have no owner), as in IREE's ``gpu_vector_alloc`` test (``thread_tile = [4, 16],
thread_strides = [0, 0]``), and so is a rank-0 layout (all seven fields ``[]``, the layout of a
0-d ``vector<f16>``). One difference from IREE, on layouts IREE cannot lower: strides whose id
ranges overlap (IREE's verifier accepts them, its ``basisFromSizesStrides`` fails) are refused.

Each thread keeps a vector of the *distributed shape* ``[batch..., outer..., element...]``;
register ``r`` is the row-major index into it. The element at register ``(b, o, e)`` (one index per
dim and level) of thread ``t`` in subgroup ``s`` has, along dim ``d``, the coordinate::

    ((((vsg[d] * batch[d] + b[d]) * outer[d] + o[d]) * thread[d] + vt[d]) * element[d] + e[d])

Worked example (seed 000): ``thread_tile = [16, 4], thread_strides = [1, 16],
element_tile = [1, 4]`` -- thread 16 has virtual thread id ``(16 % 16, 16 // 16 % 4) =
(0, 1)``, so its element registers cover columns ``1 * 4 + e = 4..7`` of each row it holds.

Hardware sizes are not part of the attribute: ``subgroup_size`` (lanes per subgroup, default
64) and ``num_subgroups`` (default: the number of subgroups the strides and tiles span) are
bound when a layout is read. Extra lanes or subgroups wrap around (the ``% tile`` above) and
hold the same elements as their counterparts; with fewer subgroups than the layout spans,
the virtual ids above ``num_subgroups`` are never reached (that is what IREE's code
computes), and part of the tensor has no owner.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from math import prod
from typing import Any

import numpy as np

from layoutkit._lazy import lazy_exports, load
from layoutkit.core.bits import is_pow2
from layoutkit.core.coords.affine import Dim, parse_affine_map
from layoutkit.core.indices import check_table_size, hardware_indices, unravel
from layoutkit.core.protocol import LayoutBase, check_shape, out_dim_names
from layoutkit.core.text import Attribute, parse_attribute
from layoutkit.errors import LayoutError, quote

ATTR_NAME = "iree_vector_ext.nested_layout"
#: the five levels of a nested layout, outermost first
LEVELS = ("subgroup", "batch", "outer", "thread", "element")
TILE_FIELDS = ("subgroup_tile", "batch_tile", "outer_tile", "thread_tile", "element_tile")
STRIDE_FIELDS = ("subgroup_strides", "thread_strides")
ATTR_FIELDS = TILE_FIELDS + STRIDE_FIELDS
#: bound on every size, id and coordinate, so that they stay inside int64
MAX_ID = 1 << 62


def _ints(value: Any, name: str, minimum: int) -> tuple[int, ...]:
    """A field as a tuple of ints ``>= minimum``, or a LayoutError naming it."""
    items = _items(value, name)
    for v in items:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum:
            kind = "positive integers" if minimum > 0 else "non-negative integers"
            raise LayoutError(f"{name}: expected a list of {kind}, got {quote(_list_text(items))}")
        if v > MAX_ID:
            raise LayoutError(f"{name}: {v} is too large (at most 2**62), in {quote(_list_text(items))}")
    return tuple(int(v) for v in items)


def _items(value: Any, name: str) -> list[Any]:
    """A list argument's items, or a LayoutError naming it when it is not a list."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise LayoutError(f"{name}: expected a list, got {quote(repr(value))}")
    return list(value)


def _list_text(values: Iterable[Any]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _check_level(tiles: tuple[int, ...], strides: tuple[int, ...], tile_name: str,
                 stride_name: str) -> None:
    """Strides of one level (subgroup or thread) must give every distributed dim its own id
    range. A dim of stride 0 is not distributed on the level (its virtual id is 0, as IREE's
    ``basisFromSizesStrides`` makes it), whatever its tile: only its first tile is held."""
    ranges = sorted((s, s * t, d) for d, (t, s) in enumerate(zip(tiles, strides)) if t > 1 and s > 0)
    for lo, hi, d in ranges:
        if hi > MAX_ID:
            raise LayoutError(
                f"{stride_name}: dim {d} reaches id {hi} (stride {lo} x {tile_name} {hi // lo}), "
                f"more than 2**62, in {quote(_list_text(strides))}"
            )
    for (lo_a, hi_a, da), (lo_b, _, db) in zip(ranges, ranges[1:]):
        if lo_b < hi_a:
            raise LayoutError(
                f"{stride_name}: dims {da} and {db} overlap: ids [{lo_a}, {hi_a}) of dim {da} "
                f"collide with dim {db}'s stride {lo_b}, in {quote(_list_text(strides))} "
                f"with {tile_name} {quote(_list_text(tiles))}"
            )


def _level_span(tiles: Sequence[int], strides: Sequence[int]) -> int:
    """How many consecutive ids one level's strides and tiles use (1 if undistributed)."""
    return max([s * t for t, s in zip(tiles, strides) if t > 1], default=1)


@dataclass(frozen=True)
class NestedLayout(LayoutBase):
    """IREE's ``#iree_vector_ext.nested_layout`` bound to hardware sizes (module doc).

    >>> layout = NestedLayout(subgroup_tile=[2, 1], batch_tile=[2, 4], outer_tile=[1, 1],
    ...                       thread_tile=[16, 4], element_tile=[1, 4],
    ...                       subgroup_strides=[1, 0], thread_strides=[1, 16])
    >>> layout.undistributed_shape, layout.distributed_unpacked_shape
    ((64, 64), (2, 16))
    """

    subgroup_tile: tuple[int, ...]
    batch_tile: tuple[int, ...]
    outer_tile: tuple[int, ...]
    thread_tile: tuple[int, ...]
    element_tile: tuple[int, ...]
    subgroup_strides: tuple[int, ...]
    thread_strides: tuple[int, ...]
    subgroup_size: int = 64
    num_subgroups: int | None = field(default=None)

    def __post_init__(self) -> None:
        values = {name: _ints(getattr(self, name), name, 1) for name in TILE_FIELDS}
        values.update({name: _ints(getattr(self, name), name, 0) for name in STRIDE_FIELDS})
        ranks = {name: len(v) for name, v in values.items()}
        rank = ranks["subgroup_tile"]  # 0 too: IREE's layout of a 0-d vector, subgroup_tile = []
        for name, r in ranks.items():
            if r != rank:
                raise LayoutError(
                    f"{name}: all seven fields must have one rank; subgroup_tile has {rank} "
                    f"entries, {name} has {r}: {quote(_list_text(values[name]))}"
                )
        # a stride is meaningless where its tile is 1: normalize it to 0 (as IREE does)
        for tile_name, stride_name in (("subgroup_tile", "subgroup_strides"),
                                       ("thread_tile", "thread_strides")):
            values[stride_name] = tuple(0 if t == 1 else s
                                        for t, s in zip(values[tile_name], values[stride_name]))
            _check_level(values[tile_name], values[stride_name], tile_name, stride_name)
        for name, v in values.items():
            object.__setattr__(self, name, v)
        elements = prod(prod(values[name]) for name in TILE_FIELDS)
        if elements > MAX_ID:
            shape = [prod(tiles) for tiles in zip(*(values[name] for name in TILE_FIELDS))]
            raise LayoutError(
                f"element_tile: the tiles cover a tensor of {quote(_list_text(shape))} = {elements} "
                f"elements, more than 2**62"
            )
        for name in ("subgroup_size", "num_subgroups"):
            v = getattr(self, name)
            if v is None and name == "num_subgroups":
                v = self._default_num_subgroups(values)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
                raise LayoutError(f"{name}: expected a positive integer, got {quote(v)}")
            object.__setattr__(self, name, int(v))
        if self.subgroup_size * self.num_subgroups > MAX_ID:
            raise LayoutError(
                f"num_subgroups: {self.num_subgroups} subgroups of {self.subgroup_size} threads are "
                f"more than 2**62 threads"
            )

    def _default_num_subgroups(self, values: dict[str, tuple[int, ...]]) -> int:
        thread_span = _level_span(values["thread_tile"], values["thread_strides"])
        return max(_level_span(values["subgroup_tile"], values["subgroup_strides"]),
                   -(-thread_span // self.subgroup_size))

    # -- text ---------------------------------------------------------------------------
    def __str__(self) -> str:
        body = ", ".join(f"{name} = {_list_text(getattr(self, name))}" for name in ATTR_FIELDS)
        return f"#{ATTR_NAME}<{body}>"

    @classmethod
    def from_attribute(cls, attr: Attribute, subgroup_size: int = 64,
                       num_subgroups: int | None = None) -> NestedLayout:
        """The layout an ``#iree_vector_ext.nested_layout<k = [...], ...>`` attribute denotes."""
        if attr.name != ATTR_NAME:
            raise LayoutError(f"layout text: expected '#{ATTR_NAME}<...>', got {quote(attr.text or attr.name)}")
        params = attr.params
        if not isinstance(params, dict):
            raise LayoutError(f"nested_layout: expected 'key = [...]' parameters, got {quote(attr.text)}")
        unknown = [k for k in params if k not in ATTR_FIELDS]
        if unknown:
            raise LayoutError(
                f"{unknown[0]}: unknown nested_layout parameter (known: {', '.join(ATTR_FIELDS)}) "
                f"in {quote(attr.text)}"
            )
        missing = [k for k in ATTR_FIELDS if k not in params]
        if missing:
            raise LayoutError(f"{missing[0]}: missing from {quote(attr.text)}")
        for name in ATTR_FIELDS:
            if not isinstance(params[name], list):
                raise LayoutError(f"{name}: expected a list of integers, got {quote(params[name])}")
        return cls(**{name: params[name] for name in ATTR_FIELDS},
                   subgroup_size=subgroup_size, num_subgroups=num_subgroups)

    # -- shapes (IREE's getUndistributedShape, getDistributedShape, ...) ----------------
    @property
    def rank(self) -> int:  # type: ignore[override]
        return len(self.batch_tile)

    @cached_property
    def undistributed_shape(self) -> tuple[int, ...]:
        """The tensor shape: per dim, the product of its five tiles."""
        return tuple(prod(self.packed_shape(d)) for d in range(self.rank))

    @property
    def distributed_shape(self) -> tuple[int, ...]:
        """Each thread's vector as ``batch_tile + outer_tile + element_tile``."""
        return self.batch_tile + self.outer_tile + self.element_tile

    @property
    def distributed_unpacked_shape(self) -> tuple[int, ...]:
        """Each thread's vector per dim: ``batch * outer * element``."""
        return tuple(b * o * e for b, o, e in zip(self.batch_tile, self.outer_tile, self.element_tile))

    def packed_shape(self, dim: int) -> tuple[int, ...]:
        """``(subgroup, batch, outer, thread, element)`` tiles of one dim."""
        dim = self._dim(dim, "dim")
        return tuple(getattr(self, name)[dim] for name in TILE_FIELDS)

    @property
    def num_registers(self) -> int:
        return prod(self.distributed_shape)

    @property
    def subgroup_span(self) -> int:
        """Subgroups the strides and tiles use: ``max(stride * tile)``."""
        return _level_span(self.subgroup_tile, self.subgroup_strides)

    @property
    def thread_span(self) -> int:
        """Lanes the thread strides and tiles use: ``max(stride * tile)``."""
        return _level_span(self.thread_tile, self.thread_strides)

    def subgroup_ids(self, num_subgroups: int | None = None) -> list[int]:
        """The subgroup of each virtual subgroup id, virtual ids in row-major order (seed
        000's inverse map ``sum(stride * vsg) % prod(tile)``, then ``% num_subgroups``).

        >>> NestedLayout([4, 2], [1, 1], [1, 1], [1, 1], [1, 1], [1, 4], [0, 0]).subgroup_ids(4)
        [0, 0, 1, 1, 2, 2, 3, 3]
        """
        return self._inverse_ids(self.subgroup_tile, self.subgroup_strides, num_subgroups)

    def thread_ids(self, subgroup_size: int | None = None) -> list[int]:
        """Like :meth:`subgroup_ids` for the thread level."""
        return self._inverse_ids(self.thread_tile, self.thread_strides, subgroup_size)

    @staticmethod
    def _inverse_ids(tiles: tuple[int, ...], strides: tuple[int, ...], modulus: int | None) -> list[int]:
        if modulus is not None and (isinstance(modulus, bool) or not isinstance(modulus, (int, np.integer))
                                    or modulus <= 0):
            raise LayoutError(f"modulus: expected a positive number of subgroups or lanes, got {quote(modulus)}")
        check_table_size(dict(zip(out_dim_names(len(tiles)), tiles)), _list_text(tiles))
        virtual = np.indices(tiles).reshape(len(tiles), -1)
        ids = (np.asarray(strides)[:, None] * virtual).sum(axis=0) % prod(tiles)
        if modulus is not None:
            ids = ids % modulus
        return [int(i) for i in ids]

    # -- the map --------------------------------------------------------------------------
    def hardware_dims(self, shape: Any = None) -> dict[str, int]:
        self.tensor_shape(shape)
        return {"register": self.num_registers, "lane": self.subgroup_size, "warp": self.num_subgroups}

    def tensor_shape(self, shape: Any = None) -> tuple[int, ...]:
        own = self.undistributed_shape
        if shape is not None and (own or tuple(shape)) and check_shape(shape) != own:
            raise LayoutError(f"shape: this nested layout covers {quote(list(own))}, not {quote(list(shape))}")
        return own

    def apply(self, shape: Any = None, **hw: Any) -> dict[str, Any]:
        """Hardware indices (``register``, ``lane``, ``warp``; numpy arrays broadcast, missing
        ones are 0) -> ``{"dim0": ..., ...}`` tensor coordinates."""
        self.tensor_shape(shape)
        index = hardware_indices(hw, self.hardware_dims())
        arrays = any(isinstance(v, np.ndarray) for v in hw.values()) or any(v.ndim for v in index.values())
        register, lane, warp = index["register"], index["lane"], index["warp"]
        out = self._coordinates(register, lane, warp)
        full = np.broadcast_shapes(register.shape, lane.shape, warp.shape)
        if not arrays:
            return {name: int(c) for name, c in out.items()}
        return {name: np.array(np.broadcast_to(c, full), dtype=np.int64) for name, c in out.items()}

    def _coordinates(self, register: np.ndarray, lane: np.ndarray, warp: np.ndarray) -> dict[str, Any]:
        """The coordinates, as a register part plus a thread part (they broadcast together):

        ``coord = vsg*(B*O*T*E) + b*(O*T*E) + o*(T*E) + vt*E + e`` -- the nested formula
        ``((((vsg*B + b)*O + o)*T + vt)*E + e)`` multiplied out.
        """
        # register digits, row-major over [batch..., outer..., element...]
        digits = unravel(register, self.distributed_shape)
        rank = self.rank
        thread_id = warp * self.subgroup_size + lane
        out = {}
        for d, name in enumerate(out_dim_names(rank)):
            sg, batch, outer, thread, element = self.packed_shape(d)
            b, o, e = digits[d], digits[rank + d], digits[2 * rank + d]
            register_part = (b * outer + o) * (thread * element) + e
            thread_part = 0
            if self.subgroup_strides[d]:
                thread_part = ((warp // self.subgroup_strides[d]) % sg) * (batch * outer * thread * element)
            if self.thread_strides[d]:
                thread_part = thread_part + ((thread_id // self.thread_strides[d]) % thread) * element
            out[name] = register_part + thread_part
        return out

    def table(self, shape: Any = None) -> np.ndarray:
        """``table()[register, lane, warp] = (dim0, dim1, ...)``, built from a register part
        and a thread part that broadcast together (one full-size add per dim)."""
        dims = self.hardware_dims(shape)
        check_table_size(dims, self)
        sizes = tuple(dims.values())
        register = np.arange(sizes[0], dtype=np.int64)[:, None, None]
        lane = np.arange(sizes[1], dtype=np.int64)[None, :, None]
        warp = np.arange(sizes[2], dtype=np.int64)[None, None, :]
        coords = self._coordinates(register, lane, warp)
        table = np.empty(sizes + (self.rank,), dtype=np.int64)
        for d, name in enumerate(out_dim_names(self.rank)):
            table[..., d] = coords[name]
        return table

    def thread_elements(self, lane: int, warp: int = 0) -> np.ndarray:
        """The coordinates a thread holds, one row per register: shape ``(registers, rank)``;
        lanes and subgroups past the hardware sizes wrap around."""
        for name, value in (("lane", lane), ("warp", warp)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise LayoutError(f"{name}: expected a non-negative integer, got {quote(repr(value))}")
        coords = self.apply(register=np.arange(self.num_registers), lane=lane % self.subgroup_size,
                            warp=warp % self.num_subgroups)
        return np.stack(list(coords.values()), axis=-1)

    def to_linear_layout(self, shape: Any = None):
        """The :class:`~layoutkit.core.linear.LinearLayout` (in dims register, lane, warp),
        when every tile, stride and hardware size is a power of two."""
        from layoutkit.core.linear import LinearLayout

        shape = self.tensor_shape(shape)
        for name in ATTR_FIELDS:
            for d, v in enumerate(getattr(self, name)):
                if not (is_pow2(v) or (v == 0 and name in STRIDE_FIELDS)):
                    raise LayoutError(
                        f"{name}: entry {d} is {v}, not a power of two, so the layout is not "
                        f"linear over F2 (to_linear_layout needs powers of two) in {quote(str(self), 200)}"
                    )
        for name in ("subgroup_size", "num_subgroups"):
            if not is_pow2(getattr(self, name)):
                raise LayoutError(f"{name}: {getattr(self, name)} is not a power of two, so the layout is not linear over F2")
        bases = {}
        for name, size in self.hardware_dims().items():
            bits = np.int64(1) << np.arange(size.bit_length() - 1, dtype=np.int64)
            coords = self.apply(**{name: bits})
            bases[name] = [[int(coords[o][i]) for o in coords] for i in range(len(bits))]
        return LinearLayout(bases, dict(zip(out_dim_names(len(shape)), shape)))

    def to_linear_encoding(self):
        """Triton's ``#ttg.linear`` encoding of the same map: :func:`layoutkit.translate.to_linear_encoding`."""
        return load("layoutkit.translate", "to_linear_encoding")(self)

    def to_linear_text(self) -> str:
        """``#ttg.linear<{register = ..., lane = ..., warp = ..., block = []}>``: the text of
        :meth:`to_linear_encoding`, which ``parse_layout`` reads back."""
        return str(self.to_linear_encoding())

    # -- transformations (IREE's VectorLayoutInterface) -----------------------------------
    def _dim(self, dim: Any, name: str) -> int:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or not 0 <= dim < self.rank:
            raise LayoutError(f"{name}: expected a dim in [0, {self.rank}), got {quote(dim)}")
        return int(dim)

    def _with_dims(self, sources: Sequence[int | None]) -> NestedLayout:
        """A layout whose dim ``i`` copies dim ``sources[i]`` (None: a unit, undistributed dim)."""
        new = {}
        for name in ATTR_FIELDS:
            filler = 1 if name in TILE_FIELDS else 0
            old = getattr(self, name)
            new[name] = tuple(filler if s is None else old[s] for s in sources)
        return replace(self, **new)

    def permute(self, perm: Sequence[int]) -> NestedLayout:
        """New dim ``i`` is old dim ``perm[i]`` (IREE's ``permute``)."""
        perm_t = _ints(perm, "perm", 0)
        if sorted(perm_t) != list(range(self.rank)):
            raise LayoutError(f"perm: expected a permutation of 0..{self.rank - 1}, got {quote(_list_text(perm_t))}")
        return self._with_dims(perm_t)

    def project(self, dropped_dims: Sequence[Any]) -> NestedLayout:
        """Drop dims: a mask of ``rank`` bools (IREE's form) or a list of dim numbers."""
        items = _items(dropped_dims, "dropped_dims")
        if items and all(isinstance(v, (bool, np.bool_)) for v in items):
            if len(items) != self.rank:
                raise LayoutError(f"dropped_dims: a mask needs {self.rank} entries, got {quote(items)}")
            dropped = {d for d, flag in enumerate(items) if flag}
        else:
            dropped = {self._dim(d, "dropped_dims") for d in items}
        kept = [d for d in range(self.rank) if d not in dropped]
        if not kept:
            raise LayoutError(f"dropped_dims: cannot drop every dim of a rank-{self.rank} layout")
        return self._with_dims(kept)

    def apply_map(self, affine_map: str | AffineMap) -> NestedLayout:
        """The layout after a permutation / projection / broadcast given as an affine map
        over this layout's dims, e.g. ``affine_map<(d0, d1, d2) -> (d2, 0, d0)>``: result
        ``i`` copies dim ``d_k`` for a dim result and is a unit dim for a constant."""
        amap = AffineMap.of(affine_map, "affine_map")
        if amap.num_dims != self.rank:
            raise LayoutError(f"affine_map: has {amap.num_dims} dims, the layout has rank {self.rank}: {quote(amap)}")
        return self._with_dims(amap.results)

    def reshape(self, new_shape: Sequence[int]) -> NestedLayout:
        """The same distribution viewed with another shape (``vector.shape_cast``).

        Every dim is a mixed-radix number of its non-unit levels; the digits of all dims in
        row-major order are regrouped from the innermost into the new dims, splitting a
        digit where a new dim boundary falls inside it. A new dim must list its levels in
        order (subgroup ... element); two thread (or subgroup) digits merge only when the
        outer one's stride is the inner one's stride times its tile. Otherwise LayoutError.
        Threads keep the same elements in the same register order.
        """
        shape = check_shape(new_shape, "new_shape")
        total = prod(self.undistributed_shape)
        if prod(shape) != total:
            raise LayoutError(
                f"new_shape: {quote(list(shape))} has {prod(shape)} elements, the layout "
                f"covers {quote(list(self.undistributed_shape))} = {total}"
            )
        # digits major -> minor: [level index, size, stride]
        digits = []
        for d in range(self.rank):
            strides = (self.subgroup_strides[d], 0, 0, self.thread_strides[d], 0)
            for level, (size, stride) in enumerate(zip(self.packed_shape(d), strides)):
                if size > 1:
                    digits.append([level, size, stride])
        groups: list[list[list[int]]] = []
        for want in reversed(shape):
            group: list[list[int]] = []
            need = want
            while need > 1:
                level, size, stride = digits[-1]
                if size <= need:
                    if need % size:
                        raise LayoutError(
                            f"new_shape: dim of size {want} cannot be cut from the layout's "
                            f"{LEVELS[level]} tile {size} (no level boundary at {want}); "
                            f"layout {quote(str(self), 200)}"
                        )
                    group.insert(0, digits.pop())
                    need //= size
                else:
                    if size % need:
                        raise LayoutError(
                            f"new_shape: dim of size {want} would split the layout's "
                            f"{LEVELS[level]} tile {size} unevenly; layout {quote(str(self), 200)}"
                        )
                    group.insert(0, [level, need, stride])
                    digits[-1] = [level, size // need, stride * need if stride else 0]
                    need = 1
            groups.insert(0, group)
        new: dict[str, list[int]] = {name: [] for name in ATTR_FIELDS}
        for i, group in enumerate(groups):
            tiles = [1] * 5
            strides = [0] * 5
            last_level = -1
            for level, size, stride in group:  # major -> minor
                if level < last_level:
                    raise LayoutError(
                        f"new_shape: new dim {i} ({shape[i]}) would put a {LEVELS[level]} tile "
                        f"inside a {LEVELS[last_level]} tile; layout {quote(str(self), 200)}"
                    )
                if level == last_level and level in (0, 3):
                    # merging a major digit (tiles[level], strides[level]) above (size, stride)
                    if strides[level] != stride * size:
                        field_name = STRIDE_FIELDS[0 if level == 0 else 1]
                        raise LayoutError(
                            f"{field_name}: new dim {i} ({shape[i]}) would merge {LEVELS[level]} "
                            f"tiles whose strides {strides[level]} and {stride} do not nest; "
                            f"layout {quote(str(self), 200)}"
                        )
                tiles[level] *= size
                strides[level] = stride
                last_level = level
            for name, value in zip(TILE_FIELDS, tiles):
                new[name].append(value)
            new["subgroup_strides"].append(strides[0])
            new["thread_strides"].append(strides[3])
        return replace(self, **{k: tuple(v) for k, v in new.items()})

    @staticmethod
    def recombine(layouts: Sequence[NestedLayout], maps: Sequence[str | AffineMap],
                  result_map: str | AffineMap) -> NestedLayout:
        """IREE's ``getRecombinedLayout``: layouts of several operands, each indexed by an
        affine map from a common iteration space, give the layout of a result indexed by
        ``result_map``. Every result dim takes the tiles and strides of the operand dims
        that map to it; a disagreement or a result dim no operand covers is a LayoutError.
        The result runs on the largest ``num_subgroups`` of the operands.
        """
        layouts = _items(layouts, "layouts")
        maps_p = [AffineMap.of(m, f"maps[{i}]") for i, m in enumerate(_items(maps, "maps"))]
        rmap = AffineMap.of(result_map, "result_map")
        if not layouts or len(layouts) != len(maps_p):
            raise LayoutError(f"maps: expected one map per layout ({len(layouts)}), got {len(maps_p)}")
        for i, layout in enumerate(layouts):
            if not isinstance(layout, NestedLayout):
                raise LayoutError(f"layouts[{i}]: expected a NestedLayout, got {quote(type(layout).__name__)}")
            if maps_p[i].num_results != layout.rank:
                raise LayoutError(f"maps[{i}]: has {maps_p[i].num_results} results, layout {i} has rank {layout.rank}")
        if len({la.subgroup_size for la in layouts}) != 1:
            raise LayoutError("layouts: the layouts are bound to different subgroup sizes")
        result: list[dict[str, int] | None] = [None] * rmap.num_results
        for i, (layout, amap) in enumerate(zip(layouts, maps_p)):
            for k, iter_dim in enumerate(amap.results):
                if iter_dim is None or iter_dim not in rmap.results:
                    continue
                pos = rmap.results.index(iter_dim)
                entry = {name: getattr(layout, name)[k] for name in ATTR_FIELDS}
                if result[pos] is None:
                    result[pos] = entry
                elif result[pos] != entry:
                    raise LayoutError(
                        f"maps[{i}]: result {k} (d{iter_dim}) conflicts with an earlier layout on "
                        f"result dim {pos}: {entry} vs {result[pos]}"
                    )
        missing = [p for p, e in enumerate(result) if e is None]
        if missing:
            raise LayoutError(f"result_map: result dim {missing[0]} is not covered by any layout's map")
        return NestedLayout(**{name: [e[name] for e in result] for name in ATTR_FIELDS},  # type: ignore[index]
                            subgroup_size=layouts[0].subgroup_size,
                            num_subgroups=max(la.num_subgroups for la in layouts))

    def needs_shared_memory_for_conversion(self, other: Any) -> bool:
        """True unless every (lane, subgroup) of ``other`` already holds, in this layout, all
        the elements it must hold in ``other`` (so the change only moves registers).

        ``other`` may be any distributed layout of the same shape in the common protocol.
        """
        shape = self.undistributed_shape
        if not all(hasattr(other, name) for name in ("tensor_shape", "hardware_dims", "table")):
            raise LayoutError(f"other: expected a layout, got {quote(type(other).__name__)}")
        try:
            other_shape = other.tensor_shape(shape)
            other_hw = other.hardware_dims(other_shape)
        except LayoutError:
            return True
        if other_hw.get("lane", 1) != self.subgroup_size or other_hw.get("warp", 1) != self.num_subgroups:
            return True
        if other_hw.get("block", 1) != 1:
            return True
        src = _ownership(self.table(), self.hardware_dims(), shape)
        dst = _ownership(other.table(shape), other_hw, shape)
        return bool(np.setdiff1d(dst, src, assume_unique=True).size)


def _ownership(table: np.ndarray, hw: dict[str, int], shape: tuple[int, ...]) -> np.ndarray:
    """The sorted, unique ``thread * elements + element`` of every (thread, element) held,
    with ``thread = lane * warps + warp`` -- as large as the table, not threads x elements."""
    names = list(hw)
    lanes, warps = hw.get("lane", 1), hw.get("warp", 1)
    # axes: bring (lane, warp) to the front, everything else (registers) after
    order = [names.index(n) for n in ("lane", "warp") if n in names]
    rest = [i for i in range(len(names)) if i not in order]
    tab = np.transpose(table, order + rest + [table.ndim - 1]).reshape(lanes * warps, -1, len(shape))
    flat = np.ravel_multi_index(tuple(np.moveaxis(tab, -1, 0)), shape)
    thread = np.arange(lanes * warps, dtype=np.int64)[:, None]
    return np.unique(thread * prod(shape) + flat)


@dataclass(frozen=True)
class AffineMap:
    """A pure permutation / projection / broadcast affine map: ``results[i]`` is the input
    dim of result ``i``, or None for a constant result.

    >>> AffineMap.parse("affine_map<(d0, d1, d2) -> (d2, 0, d0)>").results
    (2, None, 0)
    """

    num_dims: int
    results: tuple[int | None, ...]

    @property
    def num_results(self) -> int:
        return len(self.results)

    @classmethod
    def of(cls, value: Any, field: str) -> AffineMap:
        """An AffineMap given as one or as text; ``field`` names the argument in errors."""
        if isinstance(value, AffineMap):
            return value
        if not isinstance(value, str):
            raise LayoutError(f"{field}: expected an affine map or its text, got {quote(repr(value))}")
        try:
            return cls.parse(value)
        except LayoutError as err:
            if field == "affine_map":
                raise
            raise LayoutError(f"{field}: {err}") from None

    @classmethod
    def parse(cls, text: str) -> AffineMap:
        """Read ``affine_map<(d0, d1) -> (d1, d0)>`` (or just ``(d0, d1) -> (d1, d0)``)."""
        if not isinstance(text, str):
            raise LayoutError(f"affine_map: expected text, got {quote(repr(text))}")
        try:
            general = parse_affine_map(text)
        except LayoutError as err:
            if str(err).startswith("affine_map:"):
                raise
            raise LayoutError(f"affine_map: {err}") from None
        results: list[int | None] = []
        for expr in general.results:
            atom = expr.single_atom()
            if isinstance(atom, Dim):
                results.append(atom.index)
            elif expr.is_const:
                results.append(None)
            else:
                raise LayoutError(
                    f"affine_map: result {quote(expr)} is neither a dim nor a constant (only "
                    f"permutations, projections and broadcasts), in {quote(text)}"
                )
        return cls(general.num_dims, tuple(results))

    def __str__(self) -> str:
        dims = ", ".join(f"d{i}" for i in range(self.num_dims))
        res = ", ".join("0" if r is None else f"d{r}" for r in self.results)
        return f"affine_map<({dims}) -> ({res})>"


def parse_text(text: str, aliases: dict[str, Attribute] | None = None, subgroup_size: int = 64,
               num_subgroups: int | None = None, **ignored: Any) -> NestedLayout:
    """``parse_layout``'s entry for ``#iree_vector_ext.`` text."""
    attr = parse_attribute(text, aliases)
    return NestedLayout.from_attribute(attr, subgroup_size=subgroup_size, num_subgroups=num_subgroups)


# Translations to and from other families live in layoutkit.translate; the names users import
# from here are re-exported on first use.
__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(("to_nested", "to_blocked"), "layoutkit.translate"))
