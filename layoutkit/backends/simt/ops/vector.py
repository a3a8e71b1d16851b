"""Simulator handlers of ``vector``: per-thread vectors are the trailing axes of a value."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import vector
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir.affine import AffineDimExpr

from layoutkit.backends.simt.dtypes import vector_shape
from layoutkit.backends.simt.machine import expand, full
from layoutkit.backends.simt.memory import Buffer
from layoutkit.backends.simt.numerics import reduce_kind
from layoutkit.backends.simt.registry import handles


@handles(vector.TransferReadOp)
def transfer_read(m, op, mask) -> None:
    buffer: Buffer = m.env[op.source]
    vshape = vector_shape(op.result.type)
    flat, accessed = _transfer_elements(m, op, buffer, vshape, mask)
    data, where = m.transfer_owner(buffer, np.where(accessed, flat, 0))
    values = data[where]
    if buffer.space == "shared":
        m.shared_element_access(op, buffer, "load", where, accessed)
    pad = m.env[op.padding].reshape((-1,) + (1,) * len(vshape))
    m.env[op.result] = np.where(accessed, values, pad).astype(values.dtype, copy=False)


@handles(vector.TransferWriteOp)
def transfer_write(m, op, mask) -> None:
    buffer: Buffer = m.env[op.source]
    vshape = vector_shape(op.vector.type)
    flat, accessed = _transfer_elements(m, op, buffer, vshape, mask)
    value = np.broadcast_to(m.env[op.vector], (m.chunk.threads, *vshape))
    data, where = m.transfer_owner(buffer, flat)
    if buffer.space == "shared":
        m.shared_element_access(op, buffer, "store", where, accessed)
    if isinstance(where, tuple):
        rows, cols = np.broadcast_arrays(*where)
        data[rows[accessed], cols[accessed]] = value[accessed]
    else:
        data[where[accessed]] = value[accessed]


def _transfer_elements(m, op, buffer: Buffer, vshape, mask):
    """Memref coordinates of a transfer's elements and which of them are accessed.

    Vector dim k walks memref dim ``permutation_map`` result k from the op's index
    (a constant-0 result broadcasts); an element outside the memref along a dim whose
    ``in_bounds`` is false is skipped (read as the padding), along any other dim it is
    an error; masked-off elements are skipped.
    Example: memref<5x6xf32>, indices (4, 4), vector<2x3xf32> with the transposing map
    (d0, d1) -> (d1, d0): element (i, j) is memref[4 + j][4 + i]; (0, 1) is outside.
    """
    static = m.static.get(op)
    if static is None:
        results = op.permutation_map.data.results
        dims = [r.position if isinstance(r, AffineDimExpr) else None for r in results]
        in_bounds = [bool(v.value.data) for v in op.in_bounds.data]
        static = m.static[op] = (tuple(op.indices), tuple(dims), tuple(in_bounds))
    index_values, dims, in_bounds = static
    threads = m.chunk.threads
    shape, strides = buffer.shape, buffer.strides
    full_shape = (threads, *vshape)
    flat = np.zeros((1,) * (len(vshape) + 1), np.int64)
    accessed = np.broadcast_to(expand(mask, len(full_shape)), full_shape)
    must = np.zeros(full_shape, bool)
    for d, value in enumerate(index_values):
        coord = m.env[value].reshape((-1,) + (1,) * len(vshape))
        walked_by = [k for k, dim in enumerate(dims) if dim == d]
        for k in walked_by:
            step = np.arange(vshape[k]).reshape((1,) + tuple(vshape[k] if i == k else 1
                                                             for i in range(len(vshape))))
            coord = coord + step
        inside = (coord >= 0) & (coord < shape[d])
        if walked_by and not all(in_bounds[k] for k in walked_by):
            accessed = accessed & inside
        else:
            must = must | ~inside
        flat = flat + np.where(inside, coord, 0) * strides[d]
    if op.mask is not None:
        accessed = accessed & m.env[op.mask].reshape((-1, *vshape)).astype(bool)
    bad = must & expand(mask, len(full_shape))
    if bad.any():
        t = int(np.argwhere(bad)[0][0])
        idx = tuple(int(np.broadcast_to(m.env[v], mask.shape)[t]) for v in index_values)
        m.fail(op, f"transfer at index {idx} with vector {list(vshape)} leaves {buffer.space} "
                      f"memref '{buffer.name}' of shape {shape} along an in-bounds dim", t)
    return np.broadcast_to(flat, full_shape), accessed


@handles(vector.BroadcastOp)
def broadcast(m, op, mask) -> None:
    src = m.value(op.source)
    shape = vector_shape(op.vector.type)
    srank = src.ndim - 1
    expanded = src.reshape((src.shape[0],) + (1,) * (len(shape) - srank) + src.shape[1:])
    m.env[op.vector] = np.broadcast_to(expanded, (src.shape[0], *shape)).copy()


def _positions(m, op) -> tuple:
    static = m.static.get(op)
    if static is not None:
        return static
    if not op.dynamic_position:
        static = m.static[op] = tuple(int(p) for p in op.static_position.get_values())
        return static
    dynamic = iter(op.dynamic_position)
    position = []
    for p in op.static_position.get_values():
        if p == DYNAMIC_INDEX:
            index = m.value(next(dynamic))
            if index.shape[0] != 1:
                m.fail(op, "per-thread dynamic vector positions are not simulated")
            position.append(int(index[0]))
        else:
            position.append(int(p))
    return tuple(position)


@handles(vector.ExtractOp)
def extract(m, op, mask) -> None:
    src = m.value(op.vector)
    position = _positions(m, op)
    m.env[op.result] = src[(slice(None), *position)]


@handles(vector.InsertOp)
def insert(m, op, mask) -> None:
    src = m.value(op.source)
    dest = m.value(op.dest)
    position = _positions(m, op)
    threads = max(src.shape[0], dest.shape[0])
    out = np.array(full(dest, threads))
    out[(slice(None), *position)] = src
    m.env[op.result] = out


@handles(vector.ReductionOp)
def reduction(m, op, mask) -> None:
    src = m.value(op.vector)
    kind = op.kind.data.value if hasattr(op.kind.data, "value") else str(op.kind.data)
    out = reduce_kind(kind, src, tuple(range(1, src.ndim)))
    if op.acc is not None:
        acc = m.value(op.acc)
        out = reduce_kind(kind, np.stack(np.broadcast_arrays(out, acc)), 0)
    m.env[op.dest] = np.asarray(out).astype(src.dtype, copy=False)
