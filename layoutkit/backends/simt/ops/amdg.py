"""Simulator handlers of ``amdg`` (TritonAMDGPU): buffer loads and stores, and the
in-thread transpose, on tensors distributed by their encodings (:mod:`~layoutkit.backends.simt.ttgir`).

A buffer op addresses ``base + offsets[i]`` elements through an AMD buffer resource
(``make.buffer.rsrc``) whose range is ``num_records = 2**31 - 2`` bytes, as Triton 3.9
builds it. The byte offset is ``offsets[i] * element size`` in 32-bit arithmetic, read
unsigned by the hardware; an access whose bytes do not fit in the range (a negative
offset, or 2 GiB and beyond) is dropped by the hardware's range check: a load reads 0,
a store writes nothing. A masked-off element is given the offset 2**31 (so it is out of
range: read as 0, never stored) and a load then takes ``other`` for it where given.
Example: f32, offsets [0, 5, -1], mask [1, 1, 1] -> bytes [0, 20, 4294967292]: the third
reads 0. An offset in range but past the end of the argument's array would read another
allocation on the GPU: it is reported, as ``tt.load`` reports it. ``stride`` only sets
the resource's swizzle stride and leaves raw addresses unchanged.
"""

from __future__ import annotations

import numpy as np

from layoutkit.backends.simt import atomics
from layoutkit.backends.simt.machine import full
from layoutkit.backends.simt.registry import handles
from layoutkit.backends.simt.ttgir import pointee_dtype
from layoutkit.ir.dialects import amdg
from layoutkit.ir.dialects.tt import with_element

NUM_RECORDS = 2**31 - 2  # bytes of the buffer resource Triton builds (INT_MAX - 1)


def _addresses(m, op, mask, value_type):
    """(pointers, their type, in range, selected) of a buffer op's elements: selected =
    active thread and the op's mask; in range = the bytes fit the buffer resource."""
    threads = mask.shape[0]
    offsets = full(m.value(op.offsets), threads).astype(np.int64)
    pointer_type = with_element(value_type, op.ptr.type)
    itemsize = pointee_dtype(pointer_type).itemsize
    byte = (offsets * itemsize) & 0xFFFFFFFF  # i32 multiply, read unsigned
    in_range = byte + itemsize <= NUM_RECORDS
    selected = mask[:, None] & (full(m.value(op.mask), threads) if op.mask is not None else True)
    base = full(m.value(op.ptr), threads).reshape(-1, 1)
    return base + np.where(in_range, byte, 0), pointer_type, in_range, selected


def _access(m, op, mask, value_type):
    """(data, element indices, accessed, selected) of a buffer load or store."""
    pointers, pointer_type, in_range, selected = _addresses(m, op, mask, value_type)
    active = np.broadcast_to(selected & in_range, pointers.shape)
    buffer, index = m.element_index(op, pointers, active, pointer_type)
    return m.pointee_data(buffer, pointer_type), index, active, selected


@handles(amdg.BufferLoadOp)
def buffer_load(m, op, mask) -> None:
    """Active in-range elements read memory; out-of-range ones 0; masked ones ``other``
    (else 0)."""
    data, index, active, selected = _access(m, op, mask, op.result.type)
    out = np.where(active, data[index], np.zeros((), data.dtype))
    if op.other is not None:
        out = np.where(selected, out, m.value(op.other))
    m.env[op.result] = out


@handles(amdg.BufferStoreOp)
def buffer_store(m, op, mask) -> None:
    """Active in-range elements write their value; the rest write nothing."""
    data, index, active, _ = _access(m, op, mask, op.value.type)
    values = np.broadcast_to(full(m.value(op.value), mask.shape[0]), active.shape)
    data[index[active]] = values[active]


@handles(amdg.BufferAtomicRMWOp)
def buffer_atomic_rmw(m, op, mask) -> None:
    """``tt.atomic_rmw`` through a buffer resource: the performing elements (one holder per
    element, mask, in range) update memory in (block, thread, register) order and return
    the old value; out-of-range and masked elements do nothing and return 0."""
    kind = atomics.triton_rmw_kind(op.atomic_rmw_op)
    pointers, pointer_type, in_range, selected = _addresses(m, op, mask, op.result.type)
    active = selected & in_range & m.performers(op, mask, op.result.type)
    m.env[op.result] = m.atomic(op, pointers, active, pointer_type, op.result.type,
                                lambda data, at, picked: atomics.atomic_update(kind, data, at,
                                                                                picked(m.value(op.value))))


@handles(amdg.InThreadTransposeOp)
def in_thread_transpose(m, op, mask) -> None:
    """The same elements in new registers of the same thread (the result's encoding only
    reorders registers): element c of the result is element c of the operand."""
    m.env[op.result] = m.in_thread(op, m.value(op.src), op.src.type, op.result.type, lambda c: c)


@handles(amdg.ExtractSliceOp)
def extract_slice(m, op, mask) -> None:
    """The sub-tensor at ``static_offsets``, each element read from the same thread:
    result element c is operand element c + offsets."""
    offsets = np.array([int(v) for v in op.static_offsets.get_values()])
    m.env[op.result] = m.in_thread(op, m.value(op.source), op.source.type, op.result.type,
                                   lambda c: c + offsets)
