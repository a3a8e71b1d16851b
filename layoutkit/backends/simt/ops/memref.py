"""Simulator handlers of ``memref`` (and ``vector.load``/``store``, the same access):
allocations in private, shared and global memory, loads and stores through
:meth:`Machine.addresses <layoutkit.backends.simt.machine.Machine.addresses>`."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import memref, vector

from layoutkit.backends.simt.atomics import atomic_update
from layoutkit.backends.simt.dtypes import vector_shape
from layoutkit.backends.simt.machine import (
    expand,
    full,
    rows_to_threads,
    threads_first,
    threads_last,
    threads_to_rows,
)
from layoutkit.backends.simt.memory import Buffer
from layoutkit.backends.simt.observers import count_global_sectors
from layoutkit.backends.simt.registry import handles
from layoutkit.ir.dialects.upstream import gpu
from layoutkit.ir.dialects.upstream.memref import AtomicRMWOp


@handles(memref.DeallocOp)
def dealloc(m, op, mask) -> None:
    """Nothing to do: buffers live until the kernel returns."""


@handles(memref.AllocOp, memref.AllocaOp)
def alloc(m, op, mask) -> None:
    type_ = op.memref.type
    if op.dynamic_sizes:
        m.fail(op, "dynamic allocation sizes are not simulated")
    if gpu.is_workgroup(type_.memory_space) and isinstance(op, memref.AllocOp):
        buffer = m.shared_buffer(op, op.memref.name_hint or "shared", type_)
    else:
        buffer = m.private_buffer(op, op.memref.name_hint or "local", type_)
    m.env[op.memref] = buffer


@handles(memref.GetGlobalOp)
def get_global(m, op, mask) -> None:
    """``memref.get_global @name`` of a workgroup ``memref.global``: the block's copy of
    it, the same buffer for every get_global of that name."""
    type_ = op.memref.type
    if not gpu.is_workgroup(type_.memory_space):
        m.fail(op, "only memref.global in #gpu.address_space<workgroup> is simulated")
    name = op.name_.root_reference.data
    buffer = m.globals.get(name)
    if buffer is None:
        buffer = m.globals[name] = m.shared_buffer(op, name, type_)
    m.env[op.memref] = buffer


@handles(memref.CastOp)
def alias(m, op, mask) -> None:
    m.env[op.results[0]] = m.env[op.operands[0]]


@handles(memref.DimOp)
def dim(m, op, mask) -> None:
    buffer: Buffer = m.env[op.source]
    index = m.value(op.index)
    if np.any((index < 0) | (index >= len(buffer.shape))):
        m.fail(op, f"dimension {index.ravel()[0]} out of range for rank {len(buffer.shape)}")
    m.env[op.result] = np.asarray(buffer.shape, np.int64)[index]


@handles(memref.LoadOp, vector.LoadOp)
def load(m, op, mask) -> None:
    info = m.static.get(op)
    if info is None:
        info = m.static[op] = (op.operands[0], tuple(op.indices), op.results[0],
                              vector_shape(op.results[0].type))
    memref_value, index_values, result, vshape = info
    env = m.env
    buffer: Buffer = env[memref_value]
    space = buffer.space
    indices = [env[v] for v in index_values]
    if space == "private":
        start = m.uniform_offset(op, buffer, indices, vshape, mask)
        view = m.row_view(op, buffer, indices, vshape) if m.full and start is None else None
        if view is not None:  # a store waiting for this view: its value (Machine.stored_rows)
            stored = m.rows_stored(buffer, view[2], vshape)
            if stored is not None:
                env[result] = stored
                return
        m.settle_rows(buffer)
        if start is not None and m.contiguous(buffer, vshape):
            # the elements' rows of (elements, threads) data, one copy to (threads, *vshape)
            size = 1
            for n in vshape:
                size *= n
            rows = buffer.data[start:start + size]
            if rows.shape[1] != m.chunk.threads:  # thread slots repeated (loop batching)
                rows = rows[:, m.chunk.column]
            env[result] = rows.T.copy().reshape((rows.shape[1], *vshape)) if vshape else rows[0].copy()
            return
        if view is not None:  # groups of slots indexed alike (a batched loop's iterations)
            env[result] = rows_to_threads(view[0]).reshape(m.chunk.threads, *vshape)
            return
        starts = m.addresses(op, buffer, indices, vshape, mask, starts=True)
        if starts.shape[0] != 1:
            rows = m.private_rows(buffer, starts, vshape) if m.full else None
            if rows is not None:  # (groups, size, columns) -> (groups * columns, *vshape)
                env[result] = rows_to_threads(buffer.data[rows]).reshape(starts.shape[0], *vshape)
                return
            if not m.full:  # (inactive threads may be out of bounds: read element 0)
                starts = np.where(mask, starts, 0)
            env[result] = np.take(buffer.data.reshape(-1), m.private_locations(buffer, starts, vshape))
            return
    elif vshape and vshape[-1] >= ROW_ACCESS:
        _load_rows(m, op, buffer, indices, vshape, mask, result)
        return
    flat = m.addresses(op, buffer, indices, vshape, mask)
    if flat.shape[0] == 1:  # a uniform address: every thread reads the same elements
        if space == "private":
            # private data is (elements, threads): the elements' rows, threads last
            rows = buffer.data[flat[0]]  # a vector index copies; a scalar one is a view
            if rows.shape[-1] != m.chunk.threads:  # thread slots repeated (loop batching)
                rows = rows[..., m.chunk.column]
            env[result] = threads_first(rows) if vshape else rows.copy()
            return
        if space == "global":
            env[result] = buffer.data[flat]
            if m.stats.sectors is not None:
                count_global_sectors(m, op, buffer, None if m.full else np.flatnonzero(mask), flat)
            return
    ids = None if m.full else np.flatnonzero(mask)
    if ids is not None and flat.shape[0] != 1:
        flat = np.where(expand(mask, flat.ndim), flat, 0)
    if space == "global":
        env[result] = buffer.data[flat]
        if m.stats.sectors is not None:
            count_global_sectors(m, op, buffer, ids, flat)
        return
    loc = m.shared_location(buffer, flat)
    env[result] = buffer.data.reshape(-1)[loc]
    if m.observers:
        full_flat = full(flat, m.chunk.threads)
        full_loc = full(loc, m.chunk.threads)
        m.shared_access(op, buffer, "load", ids, full_flat if ids is None else full_flat[ids],
                        full_loc if ids is None else full_loc[ids])


ROW_ACCESS = 2  # vectors whose rows are at least this long load row by row (a vector<2xf16>
# fragment load: one start per thread instead of an address per element)


def _load_rows(m, op, buffer: Buffer, indices, vshape, mask, result) -> None:
    """A vector load from global or shared memory as whole rows (vshape[-1] consecutive
    elements each): one row start per row, one copy per row (:meth:`Machine.gather_rows`)."""
    starts = m.addresses(op, buffer, indices, vshape, mask, rows=True)
    ids = None if m.full else np.flatnonzero(mask)
    if ids is not None and starts.shape[0] != 1:
        starts = np.where(expand(mask, starts.ndim), starts, 0)
    if buffer.space == "shared":
        # (not in place: addresses' answer may be kept for operands seen again)
        starts = m.shared_location(buffer, starts)
    m.env[result] = m.gather_rows(buffer, starts, vshape[-1])
    if buffer.space == "shared":
        m.shared_rows_access(op, buffer, "load", ids, starts, vshape[-1])


@handles(memref.StoreOp, vector.StoreOp)
def store(m, op, mask) -> None:
    info = m.static.get(op)
    if info is None:
        info = m.static[op] = (op.operands[0], op.operands[1], tuple(op.indices),
                              vector_shape(op.operands[0].type))
    stored, memref_value, index_values, vshape = info
    env = m.env
    value = env[stored]
    buffer: Buffer = env[memref_value]
    indices = [env[v] for v in index_values]
    space = buffer.space
    if space == "private" and m.full:
        start = m.uniform_offset(op, buffer, indices, vshape, mask)
        view = m.row_view(op, buffer, indices, vshape) if start is None else None
        if (view is not None and view[1] and value.shape[0] == m.chunk.threads
                and value.dtype == buffer.data.dtype and m.forwards(memref_value)):
            m.stored_rows(buffer, view[2], value)  # (written when another access needs it)
            return
        m.settle_rows(buffer)
        if start is not None and m.contiguous(buffer, vshape):
            # (threads or 1, *vshape) -> rows of (elements, threads) data
            size = 1
            for n in vshape:
                size *= n
            buffer.data[start:start + size] = value.reshape(value.shape[0], size).T
            return
        if view is not None and view[1]:  # disjoint rows of groups of slots
            threads_to_rows(value, view[0])
            return
    elif space == "private":
        m.settle_rows(buffer)
    threads = m.chunk.threads
    ids = None if m.full else np.flatnonzero(mask)
    if space == "private":
        starts = m.addresses(op, buffer, indices, vshape, mask, starts=True)
        if starts.shape[0] != 1:
            value = full(value, threads)
            rows = m.private_rows(buffer, starts, vshape) if ids is None else None
            if rows is not None:  # (groups * columns, *vshape) -> (groups, size, columns)
                buffer.data[rows] = value.reshape(rows.shape[0], -1, rows.shape[1]).transpose(0, 2, 1)
                return
            if ids is not None:
                starts, value = starts[ids], value[ids]
            buffer.data.reshape(-1)[m.private_locations(buffer, starts, vshape, ids)] = value
            return
    flat = m.addresses(op, buffer, indices, vshape, mask)
    if space == "private" and flat.shape[0] == 1:
        if ids is None:  # (a uniform value broadcasts over the threads)
            buffer.data[flat[0]] = threads_last(value)
        else:
            buffer.data[flat[0][..., None], ids] = threads_last(full(value, threads)[ids])
        return
    if ids is None:
        flat = full(flat, threads)
        value = full(value, threads)
    else:
        flat = full(flat, threads)[ids]
        value = full(value, threads)[ids]
    if space == "global":
        if m.ordered:
            written, value = m.latest_stores(buffer, ids, flat, value)
            buffer.data[written] = value
        else:
            buffer.data[flat] = value
        if m.stats.sectors is not None:
            count_global_sectors(m, op, buffer, ids, flat)
        return
    loc = m.shared_location(buffer, flat, ids, keep=True)
    m.shared_access(op, buffer, "store", ids, flat, loc)
    if m.ordered:
        loc, value = m.latest_stores(buffer, ids, loc, value)
    buffer.data.reshape(-1)[loc] = value


@handles(AtomicRMWOp)
def atomic_rmw(m, op, mask) -> None:
    """Sequentially consistent: colliding threads update in thread order (see
    :mod:`~layoutkit.backends.simt.atomics`). On shared memory the access is checked as a
    read (uninitialized memory, a race with a plain store) and then counts as stored."""
    buffer: Buffer = m.env[op.memref]
    indices = [m.env[v] for v in op.indices]
    flat = full(m.addresses(op, buffer, indices, (), mask), m.chunk.threads)
    ids = np.flatnonzero(mask)
    values = full(m.value(op.value), m.chunk.threads)[ids]
    loc = flat[ids]
    data = buffer.data.reshape(-1)  # a view: every buffer's data is C-contiguous
    if buffer.space == "private":  # element-major (elements, threads)
        m.settle_rows(buffer)
        loc = loc * m.chunk.threads + ids
    elif buffer.space == "shared":
        loc = m.shared_base(buffer, ())[ids] + loc
        m.shared_access(op, buffer, "load", ids, flat[ids].reshape(-1, 1), loc.reshape(-1, 1))
        if buffer.races is not None:
            buffer.races.mark_written(loc)
    old = np.zeros(m.chunk.threads, buffer.data.dtype)
    old[ids] = atomic_update(op.kind_name, data, loc, values)
    m.env[op.result] = old
