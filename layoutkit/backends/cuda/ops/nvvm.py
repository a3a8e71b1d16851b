"""CUDA emitters of ``nvvm``'s named barriers: PTX ``bar.sync`` / ``bar.arrive`` as inline asm."""

from __future__ import annotations

from typing import Any

from layoutkit.backends.cuda.emit import FunctionEmitter
from layoutkit.backends.cuda.registry import emits
from layoutkit.ir.dialects.upstream import nvvm


@emits(nvvm.BarrierOp, nvvm.BarrierArriveOp)
def named_barrier(self: FunctionEmitter, op: Any) -> None:
    """``bar.sync id, n;`` / ``bar.arrive id, n;`` (id 0 and the whole block when absent:
    ``nvvm.barrier`` alone is ``__syncthreads()``)."""
    verb = "sync" if isinstance(op, nvvm.BarrierOp) else "arrive"
    if op.barrier_id is None and op.number_of_threads is None:
        self.emit("__syncthreads();")
        return
    bid = self.expr(op.barrier_id) if op.barrier_id is not None else "0"
    if op.number_of_threads is None:
        self.emit(f'asm volatile("bar.{verb} %0;" :: "r"(int({bid})) : "memory");')
        return
    count = self.expr(op.number_of_threads)
    self.emit(f'asm volatile("bar.{verb} %0, %1;" :: "r"(int({bid})), "r"(int({count})) : "memory");')
