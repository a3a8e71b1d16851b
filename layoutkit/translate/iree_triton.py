"""Triton's ``#ttg.blocked`` layouts <-> IREE's ``#iree_vector_ext.nested_layout``.

Both directions build the other family's fields from the layout's own, then check the result
with :func:`~layoutkit.core.protocol.equivalent` (the same function on the tensor), so a
translation is exact or a :class:`~layoutkit.errors.LayoutError` saying why none exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations, product
from math import prod
from typing import Any

from layoutkit.core.protocol import check_shape, equivalent
from layoutkit.errors import LayoutError, quote
from layoutkit.layouts.iree import ATTR_FIELDS, TILE_FIELDS, NestedLayout
from layoutkit.layouts.triton.blocked import BlockedEncoding


def to_nested(layout: Any, shape: Any, **options: Any) -> NestedLayout:
    """The nested layout equal (as a function, checked) to a Triton ``#ttg.blocked`` layout
    on a tensor ``shape``; LayoutError when none is.

    Per dim, the blocked tile ``sizePerThread * threadsPerWarp * warpsPerCTA`` becomes
    ``element_tile``, ``thread_tile`` and ``subgroup_tile``; repetitions of the tile become
    ``batch_tile``; lanes and warps get strides from ``order``. A nested layout puts the
    subgroups outermost and orders registers row-major, so a dim repeated over several
    warps, or registers of several dims in a non-row-major ``order``, have no nested form.
    """
    return _blocked_to_nested(layout, shape, **options)


def _fields_of(layout: Any) -> tuple[tuple[int, ...], ...]:
    names = ("size_per_thread", "threads_per_warp", "warps_per_cta", "order")
    if not all(hasattr(layout, n) for n in names):
        raise LayoutError(f"layout: to_nested expects a Triton blocked layout, got {quote(type(layout).__name__)}")
    return tuple(tuple(int(v) for v in getattr(layout, n)) for n in names)


def _blocked_to_nested(layout: Any, shape: Any, **options: Any) -> NestedLayout:
    spt, tpw, wpc, order = _fields_of(layout)
    shape = check_shape(shape)
    rank = len(spt)
    if len(shape) != rank:
        raise LayoutError(f"shape: {quote(list(shape))} has rank {len(shape)}, the blocked layout has rank {rank}")
    hw = layout.hardware_dims(shape)
    if hw.get("block", 1) != 1:
        raise LayoutError("layout: a nested layout has no CTA (block) level; the blocked layout spans several CTAs")
    lane_strides = _order_strides(tpw, order)
    warp_strides = _order_strides(wpc, order)
    lanes = hw.get("lane", prod(tpw))
    tiles: dict[str, list[int]] = {name: [] for name in ATTR_FIELDS}
    for d in range(rank):
        remaining = shape[d]
        element = min(spt[d], remaining)
        remaining //= element
        thread = min(tpw[d], remaining)
        remaining //= thread
        subgroup = min(wpc[d], remaining)
        remaining //= subgroup
        thread_stride, subgroup_stride = lane_strides[d], warp_strides[d]
        if remaining > 1 and subgroup > 1:
            # the tile repeats above the warps: a nested layout keeps subgroups outermost,
            # but its thread level reads the flat thread id, so the warps of this dim can
            # join its lanes there when they continue the lane ids
            warp_flat_stride = lanes * warp_strides[d]
            if thread > 1 and warp_flat_stride != lane_strides[d] * thread:
                raise LayoutError(
                    f"layout: dim {d} repeats the blocked tile {remaining} times above its "
                    f"{subgroup} warps, whose ids do not continue its lane ids; a nested layout "
                    "keeps subgroups outermost"
                )
            thread_stride = lane_strides[d] if thread > 1 else warp_flat_stride
            thread, subgroup = thread * subgroup, 1
        for name, value in zip(TILE_FIELDS, (subgroup, remaining, 1, thread, element)):
            tiles[name].append(value)
        tiles["subgroup_strides"].append(subgroup_stride)
        tiles["thread_strides"].append(thread_stride)
    nested = NestedLayout(**tiles, subgroup_size=lanes,
                          num_subgroups=hw.get("warp", prod(wpc)))
    if hw.get("register", 1) != nested.num_registers:
        raise LayoutError(
            f"layout: the blocked layout holds {hw.get('register', 1)} registers per thread on "
            f"{quote(list(shape))}, repeating elements (sizePerThread exceeds the shape); a nested "
            f"layout's {nested.num_registers} registers never repeat"
        )
    if not equivalent(nested, layout, shape):
        raise LayoutError(
            f"layout: no nested layout equals this blocked layout on {quote(list(shape))}: its "
            f"registers follow order {quote(list(order))}, a nested layout numbers them row-major"
        )
    return nested


def _order_strides(counts: Sequence[int], order: Sequence[int]) -> list[int]:
    """Id strides of a level whose dims are laid out fastest-first in ``order``."""
    strides = [0] * len(counts)
    running = 1
    for d in order:
        strides[d] = running
        running *= counts[d]
    return strides


def to_blocked(nested: NestedLayout) -> Any:
    """The Triton ``#ttg.blocked`` layout equal to ``nested`` on its shape (checked with
    :func:`~layoutkit.core.protocol.equivalent`), or LayoutError when there is none.

    The thread and subgroup tiles become id fields of the flat thread id; ids a field
    skips (a stride gap) or leaves above the last field are given to the field below, as
    a blocked layout broadcasts the ids past a dim's extent. The fields below
    ``subgroup_size`` give ``threadsPerWarp``, the ones above ``warpsPerCTA``;
    ``element_tile`` gives ``sizePerThread``. The dim order is read from the fields, and
    the other orders are tried when that one is not equal.
    """
    if not isinstance(nested, NestedLayout):
        raise LayoutError(f"layout: to_blocked expects an IREE nested layout, got {quote(type(nested).__name__)}")
    rank = nested.rank
    for d in range(rank):
        for tiles, strides in (("thread_tile", "thread_strides"), ("subgroup_tile", "subgroup_strides")):
            tile, stride = getattr(nested, tiles)[d], getattr(nested, strides)[d]
            if tile > 1 and stride == 0:
                raise LayoutError(
                    f"{strides}: dim {d} is not distributed over its {tiles} {tile} (stride 0), so all but "
                    f"its first tile have no owner; a blocked layout owns every element"
                )
        if nested.outer_tile[d] > 1 and nested.batch_tile[d] > 1:
            raise LayoutError(
                f"outer_tile: dim {d} has both batch {nested.batch_tile[d]} and outer "
                f"{nested.outer_tile[d]} repetitions; a blocked layout has one repetition level"
            )
    lanes, total = nested.subgroup_size, nested.subgroup_size * nested.num_subgroups
    fields_ = sorted(
        [(nested.thread_strides[d], nested.thread_tile[d], d) for d in range(rank) if nested.thread_tile[d] > 1]
        + [(nested.subgroup_strides[d] * lanes, nested.subgroup_tile[d], d)
           for d in range(rank) if nested.subgroup_tile[d] > 1]
    )
    segments: list[list[int]] = []  # [start id, size, dim], consecutive
    position = 1
    for stride, tile, d in fields_:
        if stride < position or stride % position:
            raise LayoutError(
                f"thread_strides: the thread and subgroup ids of dim {d} (stride {stride}) overlap "
                f"or do not nest with the ids below {position}; no blocked layout has them"
            )
        if stride > position:
            if segments:
                segments[-1][1] *= stride // position
            else:  # the lowest ids broadcast: some dim's lanes run past its extent
                segments.append([1, stride, -1])
        segments.append([stride, tile, d])
        position = stride * tile
    if position < total:
        if total % position:
            raise LayoutError(f"subgroup_size: {total} thread ids are not a multiple of the {position} the layout uses")
        segments.append([position, total // position, -2])
    shape = nested.undistributed_shape
    # broadcast ids at the bottom (-1) or top (-2) belong to a dim the layout does not
    # say (one whose extent the blocked tile overshoots): try each
    unknown = sorted({seg[2] for seg in segments if seg[2] < 0})
    for owners in product(range(rank), repeat=len(unknown)):
        owner_of = dict(zip(unknown, owners))
        tpw, wpc = [1] * rank, [1] * rank
        for start, size, d in segments:
            d = owner_of.get(d, d)
            low = min(size, max(1, lanes // start)) if start < lanes else 1
            if start < lanes and (lanes % start or size % low):
                raise LayoutError(f"subgroup_size: {lanes} does not split dim {d}'s thread ids evenly")
            tpw[d] *= low
            wpc[d] *= size // low
        first = sorted(range(rank), key=lambda d: (
            next((i for i, seg in enumerate(segments) if seg[2] == d), len(segments)), -d))
        others = [list(p) for p in permutations(range(rank)) if list(p) != first] if rank <= 4 else []
        for order in [first, *others]:
            blocked = BlockedEncoding(size_per_thread=tuple(nested.element_tile), threads_per_warp=tuple(tpw),
                                      warps_per_cta=tuple(wpc), order=tuple(order))
            if equivalent(blocked, nested, shape):
                return blocked
    raise LayoutError(
        f"layout: no blocked layout equals {quote(str(nested), 200)} on {quote(list(shape))}: "
        "its registers, lanes and subgroups do not follow one dim order as a blocked layout's do"
    )
