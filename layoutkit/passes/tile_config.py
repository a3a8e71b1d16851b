"""The default configuration of ``tile-to-workgroups``: a small cost model picking the tile
sizes of an op with a reduction loop (``--tile-sizes``/``--workgroup-size`` override it).

An all-parallel op is not tiled: it runs one element per thread over the global id
(``distribute-to-threads``), as in seed 001. For an op with a reduction loop the model
tries tiles of its innermost two parallel loops (powers of two up to 64, capped by the
loop; a third parallel loop, if any, gets tiles of 1, outer ones stay whole), one thread
per output element (``distribute-to-threads``' default), and keeps the cheapest:

=========================  ===============================================================
term                       value (for one candidate tile)
=========================  ===============================================================
threads                    outputs of a full tile; 1..1024, at least a warp unless the
                           whole output is smaller
blocks                     tiles of the parallel loops; a partial tile costs a whole one
reuse (traffic/output)     (Σ input footprints of one tile over the whole reduction +
                           the output tile) / outputs of the tile; a footprint is the
                           product of the tile's extents along the operand's dimensions
                           (a window ``d1 + d4`` spans ``t1 + t4 - 1``)
K tile                     for inputs shared by threads (promoted to workgroup memory):
                           the whole reduction if those tiles fit in 16 KB, else the
                           largest of 32, 16, 8, 4 that fits
shared per block           Σ promoted input tiles at the K tile, bytes
resident blocks per SM     min(2048 // threads, 32, 228 KB // shared, ⌈blocks / 132⌉)
bandwidth share            min(1, resident blocks × warps per block / 32): an SM needs
                           about 32 warps in flight to saturate its memory bandwidth
time (minimized)           waves × resident × (outputs × traffic/output of a block) /
                           bandwidth share, waves = ⌈blocks / (132 × resident)⌉
=========================  ===============================================================

Ties go to fewer threads. The machine is an H100 (132 SMs, 2048 threads and 228 KB of shared
memory per SM). Example: the seed's 32x24 by 24x16 matmul: 8x8 tiles read
24 × (8 + 8) + 64 = 448 elements for 64 outputs (7 per output) with 2 warps on each of 8
SMs; 32x16 (one block of 16 warps) reads 24 × 48 + 512 = 1664 for 512 (3.25 per output) at
half bandwidth: 2 × 1664 = 3328 < 16 × 448 = 7168, so the model takes one 32x16 tile, K
whole (the 32x24 and 24x16 tiles take 4.5 KB).
"""

from __future__ import annotations

import itertools
import math

from layoutkit.passes.linalg_structure import (
    loop_kinds,
    loop_sizes,
    operands,
    reused_by_threads,
    static_shape,
)

SMS = 132
THREADS_PER_SM = 2048
BLOCKS_PER_SM = 32
SHARED_PER_SM = 228 * 1024
WARPS_TO_SATURATE = 32
PROMOTED_BYTES = 16 * 1024
TILE_CANDIDATES = (1, 2, 4, 8, 16, 32, 64)
K_CANDIDATES = (32, 16, 8, 4)


def _footprint(amap, extent: list[int], shape: tuple[int, ...]) -> int:
    """Elements of an operand a tile touches: per operand dimension, the span of its
    (linear) map result over loop extents ``extent``, at most the dimension's size; a
    convolution's ``d1 + d4`` over extents 4 and 3 spans 6."""
    n = amap.num_dims
    zero = amap.eval([0] * n, [])
    units = [amap.eval([int(i == d) for i in range(n)], []) for d in range(n)]
    total = 1
    for r, size in enumerate(shape):
        span = 1 + sum(abs(units[d][r] - zero[r]) * (extent[d] - 1) for d in range(n))
        total *= min(span, size)
    return total


def _k_tile(reduction: list[int], sizes: list[int], promoted_bytes) -> list[int]:
    """The reduction tile: whole if the promoted tiles fit in PROMOTED_BYTES, else the
    largest candidate that fits (the smallest one otherwise)."""
    if not reduction or promoted_bytes(None) <= PROMOTED_BYTES:
        return []
    for k in K_CANDIDATES:
        if k < sizes[reduction[0]] and promoted_bytes(k) <= PROMOTED_BYTES:
            return [k]
    return [K_CANDIDATES[-1]]


def default_tile_sizes(op) -> tuple[int, ...] | None:
    """Tile sizes for structured ``op`` on buffers (one per parallel loop, then the K tile);
    None for an all-parallel op (untiled: over the global id)."""
    kinds = loop_kinds(op)
    if "reduction" not in kinds:
        return None
    sizes = loop_sizes(op, lambda value, dim: static_shape(value, op.name)[dim])
    parallel = [d for d, kind in enumerate(kinds) if kind == "parallel"]
    reduction = [d for d, kind in enumerate(kinds) if kind == "reduction"]
    if not parallel:
        return None
    inner = parallel[-2:]
    third = parallel[-3] if len(parallel) >= 3 else None
    maps = [m.data for m in op.get_indexing_maps()]
    values = operands(op)
    n_in = len(op.inputs)
    outputs_total = math.prod(sizes[d] for d in parallel)
    element_bytes = [max(1, getattr(getattr(v.type, "element_type", None), "bitwidth", 32) // 8) for v in values]
    best = None
    for choice in _candidates([sizes[d] for d in inner]):
        tile = dict(zip(inner, choice))
        if third is not None:
            tile[third] = 1
        threads = math.prod(tile.values())
        if threads > 1024 or threads < min(32, outputs_total):
            continue
        extent = [tile.get(d, sizes[d]) for d in range(len(kinds))]
        blocks = math.prod(-(-sizes[d] // extent[d]) for d in parallel)
        spread = [d for d in tile]
        shared_inputs = [i for i in range(n_in) if reused_by_threads(maps[i], spread)
                         and static_shape(values[i], op.name)]

        def promoted_bytes(k, extent=extent, shared_inputs=shared_inputs):
            ext = list(extent)
            if k is not None:
                for d in reduction[:1]:
                    ext[d] = k
            return sum(_footprint(maps[i], ext, static_shape(values[i], op.name)) * element_bytes[i]
                       for i in shared_inputs)

        k_tile = _k_tile(reduction, sizes, promoted_bytes)
        shared = promoted_bytes(k_tile[0] if k_tile else None)
        traffic = sum(_footprint(maps[i], extent, static_shape(values[i], op.name) or (1,))
                      for i in range(len(values)))
        warps = -(-threads // 32)
        resident = min(THREADS_PER_SM // threads, BLOCKS_PER_SM,
                       SHARED_PER_SM // shared if shared else BLOCKS_PER_SM, -(-blocks // SMS))
        bandwidth = min(1.0, resident * warps / WARPS_TO_SATURATE)
        waves = -(-blocks // (SMS * resident))
        time = waves * resident * traffic / bandwidth
        key = (time, threads)
        if best is None or key < best[0]:
            best = (key, tuple(tile.get(d, 0) for d in parallel) + tuple(k_tile))
    return best[1] if best else None


def _candidates(sizes: list[int]):
    """Tile-size tuples for loops of ``sizes``: powers of two up to 64, each capped by its loop."""
    return itertools.product(*(sorted({min(c, s) for c in TILE_CANDIDATES}) for s in sizes))


__all__ = ["default_tile_sizes"]
