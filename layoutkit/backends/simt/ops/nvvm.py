"""Simulator handlers of ``nvvm``'s named barriers (``bar.sync`` / ``bar.arrive``); the
scheduling of warps that wait on each other is :mod:`~layoutkit.backends.simt.fibers`."""

from __future__ import annotations

import numpy as np

from layoutkit.backends.simt.registry import handles
from layoutkit.ir.dialects.upstream import nvvm


def _uniform(m, op, value, mask, what: str, default: int) -> int:
    if value is None:
        return default
    data = np.broadcast_to(m.value(value), mask.shape)[mask]
    if data.size and (data != data[0]).any():
        t = int(np.flatnonzero(mask)[int(np.flatnonzero(data != data[0])[0])])
        m.fail(op, f"{what} must be the same for every thread, got {int(data[0])} and "
                   f"{int(np.broadcast_to(m.value(value), mask.shape)[t])}", t)
    return int(data[0]) if data.size else default


@handles(nvvm.BarrierOp, nvvm.BarrierArriveOp)
def named_barrier(m, op, mask) -> None:
    """Arrive at barrier ``id`` (0 when absent) of ``number_of_threads`` threads (the
    block's, rounded up to whole warps, when absent); ``nvvm.barrier`` also waits."""
    if not mask.any():
        return
    geometry = m.geometry
    block_threads = geometry.slots_per_block
    bid = _uniform(m, op, op.barrier_id, mask, "id", 0)
    count = _uniform(m, op, op.number_of_threads, mask, "number_of_threads", block_threads)
    first = int(np.flatnonzero(mask)[0])
    if not 0 <= bid < nvvm.NUM_BARRIERS:
        m.fail(op, f"id {bid} is not a barrier of the block (0 to {nvvm.NUM_BARRIERS - 1})", first)
    if count <= 0 or count % geometry.warp_size or count > block_threads:
        m.fail(op, f"number_of_threads {count} must be a positive multiple of the warp size "
                   f"{geometry.warp_size} and at most the block's {block_threads} threads", first)
    m.warp_check(op, mask, need_full=True)
    m.scheduler().arrive(op, mask, bid, count, wait=isinstance(op, nvvm.BarrierOp))
