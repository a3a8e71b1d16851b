"""The tests' own reading of a layout, independent of the planner's tabulation
(``layoutkit.analysis.hardware_map``): through the layout's ``apply``."""

from __future__ import annotations

import numpy as np

AXES = ("block", "warp", "lane", "register")


def distribute(layout, shape, tensor):
    """``values[block, warp, lane, register]`` = tensor element each hardware slot holds."""
    hw = layout.hardware_dims(shape)
    sizes = {name: hw.get(name, 1) for name in AXES}
    grids = np.indices(tuple(sizes.values()))
    coords = layout.apply(shape, **{name: grids[i] for i, name in enumerate(sizes) if name in hw})
    index = tuple(np.broadcast_to(np.asarray(coords[f"dim{d}"]), grids.shape[1:]) for d in range(len(shape)))
    return np.asarray(tensor)[index]


def thread_elements(layout, shape):
    """{(block, warp, lane): set of row-major flat elements the thread holds}."""
    flat = distribute(layout, shape, np.arange(int(np.prod(shape))).reshape(shape))
    return {index: {int(e) for e in flat[index]} for index in np.ndindex(*flat.shape[:3])}


def blocked(spt, tpw, wpc, order):
    return (f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, "
            f"warpsPerCTA = {wpc}, order = {order}}}>")


def dot(op, parent, k_width):
    return f"#ttg.dot_op<{{opIdx = {op}, parent = {parent}, kWidth = {k_width}}}>"


def slice_of(dim, parent):
    return f"#ttg.slice<{{dim = {dim}, parent = {parent}}}>"
