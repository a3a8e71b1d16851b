"""Simulator handlers of ``tensor``: small tensors as per-thread values.

A tensor value is a numpy array (threads or 1, *shape), like a vector: each thread holds its
own copy and ops copy (tensors are value-semantic; nothing is shared between threads).
``tensor.empty`` is zeros (its contents are undefined in MLIR). A slice's offsets and strides
may differ per thread; its sizes must be the same in every thread (they make the result's
shape). Example: ``tensor.extract_slice %t[%i, 0] [1, 4] [1, 1] : tensor<8x4xf32> to
tensor<4xf32>`` gives thread t row ``i[t]`` of its ``%t``.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import tensor as xdsl_tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX

from layoutkit.backends.simt.machine import full
from layoutkit.backends.simt.registry import handles
from layoutkit.backends.types import scalar_type
from layoutkit.ir.dialects.upstream import tensor


def _mixed(m, static, dynamic) -> list:
    operands = iter(dynamic)
    return [m.value(next(operands)) if v == DYNAMIC_INDEX else np.array([v], np.int64)
            for v in static.get_values()]


def _uniform(m, op, values, what: str) -> list[int]:
    out = []
    for v in values:
        if v.shape[0] != 1 and not (v == v[0]).all():
            m.fail(op, f"{what} must be the same in every thread (a tensor's shape is)")
        out.append(int(v[0]))
    return out


def slice_indices(m, op, big_shape: tuple, mask, *extents) -> tuple[tuple, list[int], int]:
    """Advanced-indexing tuple (thread axis first) of the slice in the big tensor, the
    slice's shape, and the leading extent (1 or threads) of values ``extents`` and the slice's
    offsets and strides. Active threads' indices are checked in bounds, others clipped."""
    offsets = _mixed(m, op.static_offsets, op.offsets)
    sizes = _uniform(m, op, _mixed(m, op.static_sizes, op.sizes), "slice sizes")
    strides = _mixed(m, op.static_strides, op.strides)
    rows = max(v.shape[0] for v in (*offsets, *strides, *extents))
    rank = len(sizes)
    threads = np.arange(rows).reshape((rows,) + (1,) * rank)
    index = [threads]
    for d, (offset, size, stride) in enumerate(zip(offsets, sizes, strides)):
        shape = [1] * (rank + 1)
        shape[0], shape[d + 1] = -1, size
        idx = (offset[:, None] + np.arange(size) * stride[:, None]).reshape(shape)
        bad = ((idx < 0) | (idx >= big_shape[d])).reshape(idx.shape[0], -1).any(axis=1)
        hits = np.flatnonzero(full(bad, mask.shape[0]) & mask) if bad.any() else ()
        if len(hits):
            m.fail(op, f"slice leaves dimension {d} (extent {big_shape[d]})", int(hits[0]))
        index.append(np.clip(idx, 0, big_shape[d] - 1))
    return tuple(index), sizes, rows


def _rows(value: np.ndarray, rows: int) -> np.ndarray:
    return value if value.shape[0] == rows else np.broadcast_to(value, (rows, *value.shape[1:]))


@handles(tensor.EmptyOp)
def empty(m, op, mask) -> None:
    sizes = iter(_uniform(m, op, [m.value(v) for v in op.dynamic_sizes], "tensor.empty sizes"))
    shape = [next(sizes) if d == DYNAMIC_INDEX else d for d in op.tensor.type.get_shape()]
    m.env[op.tensor] = np.zeros((1, *shape), scalar_type(op.tensor.type.element_type).numpy)


@handles(tensor.ExtractSliceOp)
def extract_slice(m, op, mask) -> None:
    source = m.value(op.source)
    index, sizes, rows = slice_indices(m, op, source.shape[1:], mask, source)
    picked = _rows(source, rows)[index]
    m.env[op.result] = picked.reshape((rows, *op.result.type.get_shape()))


def insert(m, op, source: np.ndarray, dest: np.ndarray, mask) -> np.ndarray:
    """``dest`` with ``source`` written into the slice of ``op`` (a copy; every row)."""
    index, sizes, rows = slice_indices(m, op, dest.shape[1:], mask, source, dest)
    out = np.array(_rows(dest, rows))
    out[index] = _rows(source, rows).reshape((rows, *sizes))
    return out


@handles(tensor.InsertSliceOp)
def insert_slice(m, op, mask) -> None:
    m.env[op.result] = insert(m, op, m.value(op.source), m.value(op.dest), mask)


def _element(m, op, source: np.ndarray, mask, *extents) -> tuple[int, tuple]:
    """Rows and advanced-indexing tuple of the element ``op.indices`` of each thread's tensor
    (active threads checked in bounds, others clipped)."""
    indices = [m.value(v) for v in op.indices]
    rows = max(v.shape[0] for v in (source, *indices, *extents))
    for d, index in enumerate(indices):
        hits = np.flatnonzero(full((index < 0) | (index >= source.shape[d + 1]), mask.shape[0]) & mask)
        if hits.size:
            m.fail(op, f"index out of bounds in dimension {d} (extent {source.shape[d + 1]})", int(hits[0]))
    clipped = [np.clip(full(i, rows), 0, source.shape[d + 1] - 1) for d, i in enumerate(indices)]
    return rows, (np.arange(rows), *clipped)


@handles(xdsl_tensor.ExtractOp)
def extract(m, op, mask) -> None:
    """``tensor.extract %t[%i, %j]``: each thread's element of its own tensor."""
    source = m.value(op.tensor)
    rows, index = _element(m, op, source, mask)
    m.env[op.result] = _rows(source, rows)[index]


@handles(xdsl_tensor.InsertOp)
def insert_element(m, op, mask) -> None:
    """``tensor.insert %x into %t[%i]``: a copy of each thread's tensor with one element set."""
    dest, scalar = m.value(op.dest), m.value(op.scalar)
    rows, index = _element(m, op, dest, mask, scalar)
    out = np.array(_rows(dest, rows))
    out[index] = full(scalar, rows)
    m.env[op.result] = out
