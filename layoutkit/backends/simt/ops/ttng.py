"""Simulator handlers of ``ttng`` (TritonNvidiaGPU): Hopper's ``warp_group_dot`` (wgmma) with
operands in shared memory, its wait, and ``fence_async_shared``.

``warp_group_dot`` runs synchronously: its result is final when it runs, so
``warp_group_dot_wait {pendings = N}`` passes its operands through. The shared operands are
read (and checked against async copies in flight) when the dot runs.
``fence_async_shared`` orders the generic proxy's shared-memory writes before the async
proxy (wgmma, TMA) reads them; the simulator has one memory order, so it is a no-op.
"""

from __future__ import annotations

import numpy as np

from layoutkit.backends.simt.dot_inputs import dot, input_precision
from layoutkit.backends.simt.memdesc import MemDesc
from layoutkit.backends.simt.ops.ttg import _desc, read_dense
from layoutkit.backends.simt.registry import handles
from layoutkit.ir.dialects import ttng


def _operand(m, op, value) -> np.ndarray:
    """Each block's operand (blocks, rows, cols): from its memdesc or its registers."""
    held = m.value(value)
    if isinstance(held, MemDesc):
        return read_dense(m, op, _desc(m, op, value))
    return np.asarray(m.dense(op, held, value.type))


@handles(ttng.WarpGroupDotOp)
def warp_group_dot(m, op, mask) -> None:
    """D = A @ B + C (C left out when ``useC`` is false), inputs rounded as the tensor
    cores take them (:mod:`layoutkit.backends.simt.dot_inputs`), f32 accumulation."""
    a, b = _operand(m, op, op.a), _operand(m, op, op.b)
    if a.shape[-1] != b.shape[-2]:
        m.fail(op, f"A's {a.shape[-1]} columns do not match B's {b.shape[-2]} rows")
    c = np.asarray(m.dense(op, m.value(op.c), op.c.type))
    if op.useC is not None:  # per block: the same in its threads
        use = m.value(op.useC).reshape(-1, m.geometry.slots_per_block)[:, 0] if m.value(op.useC).shape[0] > 1 \
            else m.value(op.useC)
        c = np.where(use.reshape(-1, *(1,) * (c.ndim - 1)).astype(bool), c, np.zeros((), c.dtype))
    d = dot(a, b, c, input_precision(op.inputPrecision))
    m.env[op.d] = m.distribute(op, d.astype(c.dtype), op.d.type)


@handles(ttng.WarpGroupDotWaitOp)
def warp_group_dot_wait(m, op, mask) -> None:
    for out, value in zip(op.outputs, op.inputs):
        m.env[out] = m.value(value)


@handles(ttng.FenceAsyncSharedOp)
def fence_async_shared(m, op, mask) -> None:
    return None
