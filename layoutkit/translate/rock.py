"""Other families' layouts as rocMLIR transform chains (:class:`~layoutkit.core.coords.TransformChain`):
Triton's swizzled and padded shared memory, IREE's nested layouts, CuTe's shape:stride layouts.

Each chain is built from the family's fields with the coordinate-transform builders; the tests
check it against the family's own table (``equivalent``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutkit.core.bits import log2
from layoutkit.core.coords.builders import TopDownBuilder
from layoutkit.core.coords.transform_map import TransformChain
from layoutkit.core.cute import Layout
from layoutkit.errors import LayoutError, quote
from layoutkit.layouts.iree import NestedLayout
from layoutkit.layouts.triton.shared import PaddedSharedEncoding, SwizzledSharedEncoding


def swizzled_shared_chain(encoding: Any, shape: Any) -> TransformChain:
    """Triton's ``#ttg.swizzled_shared`` on ``shape`` as a chain from tensor coordinates
    (``dim0, dim1, ...``) to the shared-memory ``offset``: the column ``order[0]`` is split
    into groups of ``vec`` (Merge), the group is XOR-ed with the row's phase
    ``(row >> log2(perPhase)) & (maxPhase - 1)`` (Xor; bits past the number of groups drop,
    as Triton's ``% cols``), and everything unmerges into one offset, ``order[0]`` fastest.

    The Triton layout maps offsets to coordinates; ``chain.invert()`` is that direction, and
    ``equivalent(chain.invert(), encoding, shape)`` holds."""
    if type(encoding) is not SwizzledSharedEncoding:
        raise LayoutError(f"swizzled_shared_chain: expected a #ttg.swizzled_shared encoding, got {quote(encoding)}")
    shape = encoding.tensor_shape(shape)
    if not encoding.cga.is_default:
        raise LayoutError(f"swizzled_shared_chain: only single-CTA layouts, got {quote(encoding)}")
    names = [f"dim{d}" for d in range(len(shape))]
    order = encoding.order
    if len(shape) == 1:
        b = TopDownBuilder(names, shape)
        b.unmerge("offset", 0, names, shape)
        return TransformChain((b.get(),))
    col, row = order[0], order[1]
    cols = shape[col]
    vec = min(encoding.vec, cols)
    groups = cols // vec
    others = [names[d] for d in order[2:]]
    b = TopDownBuilder(names, shape)
    b.merge(["colgrp", "colvec"], [0, 1], names[col], [groups, vec])
    b.pass_through(["row", *others], list(range(2, 3 + len(others))), [names[row], *others])
    split = b.get()
    b = TopDownBuilder.below(split)
    mask = (encoding.max_phase - 1) & (groups - 1)
    b.xor(["colgrp", "row"], mask, log2(encoding.per_phase), at=[0, 1])
    b.take_remainder()
    swizzle = b.get()
    b = TopDownBuilder.below(swizzle)
    slow_first = list(reversed(others)) + ["row", "colgrp", "colvec"]
    sizes = [swizzle.lower_space[n] for n in slow_first]
    b.unmerge("offset", 0, slow_first, sizes)
    return TransformChain((split, swizzle, b.get()))


def padded_shared_chain(encoding: Any, shape: Any = None) -> TransformChain:
    """Triton's ``#ttg.padded_shared<[I:+P, ...] {order, shape}>`` as a chain from tensor
    coordinates to the padded ``offset``: the coordinates unmerge into the unpadded index
    ``i`` (``order[0]`` fastest), ``i`` merges into its digits at the interval boundaries, and
    an Embed adds ``P`` per ``I`` passed: ``offset = i + sum_k (i floordiv I_k) * P_k``.
    Only order-based (identity) linear components are expressible."""
    if not isinstance(encoding, PaddedSharedEncoding):
        raise LayoutError(f"padded_shared_chain: expected a #ttg.padded_shared encoding, got {quote(encoding)}")
    shape = encoding.tensor_shape(shape)
    names = [f"dim{d}" for d in range(len(shape))]
    slow_first = [names[d] for d in reversed(encoding.order)]
    b = TopDownBuilder(names, shape)
    b.unmerge("index", 0, slow_first, [shape[names.index(n)] for n in slow_first])
    flatten = b.get()
    n = flatten.lower_bounds[0]
    pads = sorted((i, p) for i, p in zip(encoding.intervals, encoding.paddings) if i < n)
    boundaries = [1] + [i for i, _ in pads]
    lengths = [boundaries[k + 1] // boundaries[k] for k in range(len(pads))] + [n // boundaries[-1]]
    digit_names = [f"digit{k}" for k in range(len(lengths))]  # digit0 fastest
    b = TopDownBuilder.below(flatten)
    b.merge(list(reversed(digit_names)), list(range(len(lengths))), "index", list(reversed(lengths)))
    digits = b.get()
    coefficients = []
    for stride in reversed(boundaries):  # slowest digit first
        coefficients.append(stride + sum(p * stride // i for i, p in pads if i <= stride))
    b = TopDownBuilder.below(digits)
    b.embed("offset", 0, encoding.hardware_dims(shape)["offset"], list(reversed(digit_names)), coefficients)
    chain = TransformChain((flatten, digits, b.get()))
    grid = np.indices(shape).reshape(len(shape), -1)
    (offsets,) = chain.apply(*list(grid))
    back = encoding.apply(shape, offset=offsets)
    if not all(np.array_equal(back[f"dim{d}"], grid[d]) for d in range(len(shape))):
        raise LayoutError(f"padded_shared_chain: only order-based padded_shared layouts are expressible, got {quote(encoding)}")
    return chain


def nested_layout_chain(layout: Any) -> TransformChain:
    """IREE's nested layout as a chain from ``(register, lane, warp)`` to the tensor
    coordinates: the register merges into its ``[batch..., outer..., element...]`` digits,
    ``warp`` and ``lane`` unmerge into the thread id ``warp * subgroup_size + lane``, which
    merges into the virtual thread and subgroup ids (digits at the strides; unused digits
    are dropped), and each tensor dim embeds its five levels. ``equivalent(chain, layout)``.

    Ids that overlap (two dims reading the same thread-id bits) are not a Merge: LayoutError."""
    if not isinstance(layout, NestedLayout):
        raise LayoutError(f"nested_layout_chain: expected a NestedLayout, got {quote(layout)}")
    rank, ss, ns = layout.rank, layout.subgroup_size, layout.num_subgroups
    total = ss * ns
    b = TopDownBuilder(["register", "lane", "warp"], [layout.num_registers, ss, ns])
    reg_names = [f"{level}{d}" for level in ("batch", "outer", "element") for d in range(rank)]
    b.merge(reg_names, list(range(len(reg_names))), "register", list(layout.distributed_shape))
    b.unmerge("tid", len(reg_names), ["warp", "lane"], [ns, ss])
    ids = b.get()
    # the virtual ids as digits of tid: (position, length, name)
    fields = []
    for d in range(rank):
        if layout.thread_strides[d]:
            fields.append((layout.thread_strides[d], layout.thread_tile[d], f"thread{d}"))
        if layout.subgroup_strides[d]:
            fields.append((ss * layout.subgroup_strides[d], layout.subgroup_tile[d], f"subgroup{d}"))
    digits, cur = [], 1  # (name, length), fastest first
    for position, length, name in sorted(fields):
        if position < cur or position % cur or total % position:
            raise LayoutError(f"nested_layout_chain: the virtual ids overlap or do not nest as one Merge of the "
                              f"thread id ({name} at stride {position}) in {quote(layout)}")
        if position > cur:
            digits.append((f"gap{len(digits)}", position // cur))
        length = min(length, total // position)
        digits.append((name, length))
        cur = position * length
    if cur < total:
        if total % cur:
            raise LayoutError(f"nested_layout_chain: the virtual ids do not divide the thread id in {quote(layout)}")
        digits.append((f"gap{len(digits)}", total // cur))
    b = TopDownBuilder.below(ids)
    b.pass_through(reg_names)
    slow_first = list(reversed(digits))
    b.merge([n for n, _ in slow_first], list(range(len(reg_names), len(reg_names) + len(digits))), "tid",
            [length for _, length in slow_first])
    split = b.get()
    b = TopDownBuilder.below(split)
    for d in range(rank):
        tiles = layout.packed_shape(d)  # subgroup, batch, outer, thread, element
        parts = [f"subgroup{d}", f"batch{d}", f"outer{d}", f"thread{d}", f"element{d}"]
        coefs = [int(np.prod(tiles[k + 1:])) for k in range(5)]
        present = [(p, c) for p, c in zip(parts, coefs) if p in split.lower_space]
        b.embed(f"dim{d}", d, layout.undistributed_shape[d], [p for p, _ in present], [c for _, c in present])
    for name, _ in digits:
        if name.startswith("gap"):
            b.ignore(name)
    return TransformChain((ids, split, b.get()))


def cute_chain(layout: Any) -> TransformChain:
    """A CuTe ``shape:stride`` layout as a chain from its ``index`` to the ``offset``: the
    index merges colexicographically into the flat modes (leftmost fastest) and an Embed
    applies the strides. The offset space is ``[0, max_offset]`` (negative strides reach
    below 0: out of bounds on the left)."""
    if not isinstance(layout, Layout):
        raise LayoutError(f"cute_chain: expected a CuTe Layout, got {quote(layout)}")
    shapes, strides = list(layout.flat_shape), list(layout.flat_stride)
    names = [f"mode{k}" for k in range(len(shapes))]
    b = TopDownBuilder(["index"], [layout.size])
    b.merge(list(reversed(names)), list(range(len(names))), "index", list(reversed(shapes)))
    split = b.get()
    b = TopDownBuilder.below(split)
    b.embed("offset", 0, max(layout.max_offset + 1, 1), list(reversed(names)), list(reversed(strides)))
    return TransformChain((split, b.get()))
