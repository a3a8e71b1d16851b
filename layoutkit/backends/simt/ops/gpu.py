"""Simulator handlers of ``gpu``: ids, barriers, shuffles and subgroup reductions."""

from __future__ import annotations

import numpy as np

from layoutkit.backends.simt.machine import expand, full
from layoutkit.backends.simt.numerics import identity_of, reduce_kind
from layoutkit.backends.simt.registry import handles, terminates
from layoutkit.ir.dialects.upstream import gpu

terminates(gpu.ReturnOp)


def _id(m, op, arrays) -> None:
    """The ids of dimension ``op.dimension`` (a kept chunk's last from run to run:
    :meth:`Machine.note_chunk`)."""
    m.env[op.result] = arrays["xyz".index(op.dimension.data)]


@handles(gpu.ThreadIdOp)
def thread_id(m, op, mask) -> None:
    _id(m, op, m.chunk.thread_xyz)


@handles(gpu.BlockIdOp)
def block_id(m, op, mask) -> None:
    _id(m, op, m.chunk.block_xyz)


def _extent(m, op, extents) -> None:
    """Extent ``op.dimension`` of ``extents``: the uniform array of its value, the same one
    from run to run (:meth:`Machine.uniform`), so that index math on it is kept with the
    kernel (a new array per run would be noted lasting, and its work kept, for nothing)."""
    m.env[op.result] = m.uniform(extents["xyz".index(op.dimension.data)], np.dtype(np.int64))


@handles(gpu.BlockDimOp)
def block_dim(m, op, mask) -> None:
    _extent(m, op, m.geometry.block)


@handles(gpu.GridDimOp)
def grid_dim(m, op, mask) -> None:
    _extent(m, op, m.geometry.grid)


@handles(gpu.GlobalIdOp)
def global_id(m, op, mask) -> None:
    dim = "xyz".index(op.dimension.data)
    c = m.chunk
    m.env[op.result] = c.block_xyz[dim] * m.geometry.block[dim] + c.thread_xyz[dim]


@handles(gpu.LaneIdOp)
def lane_id(m, op, mask) -> None:
    m.env[op.result] = m.chunk.lane


@handles(gpu.SubgroupSizeOp)
def subgroup_size(m, op, mask) -> None:
    m.env[op.result] = m.uniform(m.geometry.warp_size, np.dtype(np.int64))  # (see _extent)


@handles(gpu.SubgroupIdOp)
def subgroup_id(m, op, mask) -> None:
    m.env[op.result] = m.chunk.local.astype(np.int64) // m.geometry.warp_size


@handles(gpu.NumSubgroupsOp)
def num_subgroups(m, op, mask) -> None:
    m.env[op.result] = m.uniform(m.geometry.slots_per_block // m.geometry.warp_size, np.dtype(np.int64))


@handles(gpu.BarrierOp)
def barrier(m, op, mask) -> None:
    m.stats.barrier_arrivals += int(mask.reshape(-1, m.geometry.warp_size).any(axis=1).sum())
    if m.clocks is not None:  # the warps leave together, at the latest one's clock
        arrived = m.active_warps(mask).astype(bool)
        m.clocks[arrived] = m.clocks[arrived].max(initial=0)
    if m.full:  # every thread slot runs: every block arrives whole
        for buffer in m.shared:
            buffer.races.reset(None)
        return
    chunk = m.chunk
    slots = m.geometry.slots_per_block
    arrived = (mask & chunk.valid).reshape(chunk.blocks, slots).sum(axis=1)
    expected = m.geometry.threads_per_block
    partial = np.flatnonzero((arrived > 0) & (arrived < expected))
    if partial.size:
        b = int(partial[0])
        block_mask = (~mask & chunk.valid).reshape(chunk.blocks, slots)[b]
        missing = b * slots + int(np.flatnonzero(block_mask)[0])
        first = b * slots + int(np.flatnonzero((mask & chunk.valid).reshape(chunk.blocks, slots)[b])[0])
        missing_xyz = tuple(int(a[missing]) for a in chunk.thread_xyz)
        m.fail(op, f"barrier reached by {int(arrived[b])} of {expected} threads of the block; "
                      f"thread {missing_xyz} does not reach it (divergent gpu.barrier)", first)
    reached = arrived == expected
    everyone = bool(reached.all())
    for buffer in m.shared:
        buffer.races.reset(None if everyone else np.flatnonzero(reached))


@handles(gpu.ShuffleOp)
def shuffle(m, op, mask) -> None:
    threads = m.chunk.threads
    value = full(m.value(op.value), threads)
    offset = full(m.value(op.offset).astype(np.int64), threads)
    width = full(m.value(op.width).astype(np.int64), threads)
    ws = m.geometry.warp_size
    bad_width = mask & ((width < 1) | (width > ws) | ((width & (width - 1)) != 0))
    if bad_width.any():
        t = int(np.flatnonzero(bad_width)[0])
        m.fail(op, f"width {int(width[t])} must be a power of two from 1 to {ws}", t)
    width = np.where(mask, width, ws)  # inactive lanes: any valid width
    lane = m.chunk.lane
    position = lane % width
    mode = op.mode.data
    if mode == "xor":
        source = position ^ offset
    elif mode == "up":
        source = position - offset
    elif mode == "down":
        source = position + offset
    else:
        source = offset
    valid = (source >= 0) & (source < width)
    t = np.arange(threads)
    source_thread = np.where(valid, t - position + source, t)
    reads_inactive = mask & valid & ~mask[source_thread]
    if reads_inactive.any():
        t0 = int(np.flatnonzero(reads_inactive)[0])
        m.fail(op, f"lane {int(lane[t0])} reads inactive lane "
                      f"{int(lane[source_thread[t0]])} (undefined value)", t0)
    m.env[op.result] = value[source_thread]
    m.env[op.valid] = valid


@handles(gpu.SubgroupReduceOp)
def subgroup_reduce(m, op, mask) -> None:
    """Each cluster of ``size`` lanes ``i, i + stride, ...`` gets its reduction (the whole
    warp without a cluster): the warp's lanes viewed as (groups, size, stride)."""
    threads = m.chunk.threads
    value = full(m.value(op.value), threads)
    ws = m.geometry.warp_size
    cluster = op.cluster_size.value.data if op.cluster_size is not None else ws
    stride = op.cluster_stride.value.data if op.cluster_stride is not None else 1
    if cluster * stride > ws:
        m.fail(op, f"cluster size {cluster} times stride {stride} exceeds the warp size {ws}")
    kind = op.op.data
    if op.uniform is not None:
        m.warp_check(op, mask, need_full=True)
    filled = np.where(expand(mask, value.ndim), value,
                      np.array(identity_of(kind, value.dtype)).astype(value.dtype))
    rest = value.shape[1:]
    grouped = filled.reshape(threads // (cluster * stride), cluster, stride, *rest)
    reduced = reduce_kind(kind, grouped, 1)[:, None]
    out = np.broadcast_to(reduced, grouped.shape).reshape(threads, *rest)
    m.env[op.result] = out.astype(value.dtype, copy=False)


@handles(gpu.LaunchFuncOp)
def launch_func(m, op, mask) -> None:
    """A kernel launch from a host function (:mod:`~layoutkit.backends.simt.host`)."""
    from layoutkit.backends.simt.host import launch

    launch(m, op)
