"""Simulator handlers of ``vector``: per-thread vectors are the trailing axes of a value."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from xdsl.dialects import vector
from xdsl.dialects.builtin import DYNAMIC_INDEX, VectorType
from xdsl.ir.affine import AffineDimExpr

from layoutkit.backends.simt.dtypes import element_dtype, vector_shape
from layoutkit.backends.simt.machine import expand, full
from layoutkit.backends.simt.memory import Buffer
from layoutkit.backends.simt.numerics import reduce_kind
from layoutkit.backends.simt.registry import handles
from layoutkit.ir.dialects.upstream import vector as vops


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


@handles(vops.BroadcastOp)
def broadcast(m, op, mask) -> None:
    """Leading dims added, size-1 dims stretched (MLIR's rule, checked by the verifier)."""
    src = m.value(op.source)
    shape = vector_shape(op.vector.type)
    srank = src.ndim - 1
    expanded = src.reshape((src.shape[0],) + (1,) * (len(shape) - srank) + src.shape[1:])
    m.env[op.vector] = np.broadcast_to(expanded, (src.shape[0], *shape)).copy()


def _positions(m, op, shape: tuple[int, ...], mask) -> tuple:
    """The index of each position: an int (static or uniform) or, for per-thread dynamic
    positions, an array (threads,) clipped into range (an active thread out of range fails:
    MLIR makes its result poison)."""
    static = m.static.get(op)
    if static is not None:
        return static
    if not op.dynamic_position:
        static = m.static[op] = tuple(int(p) for p in op.static_position.get_values())
        return static
    dynamic = iter(op.dynamic_position)
    position = []
    for d, p in enumerate(op.static_position.get_values()):
        if p != DYNAMIC_INDEX:
            position.append(int(p))
            continue
        index = m.value(next(dynamic))
        bad = ((index < 0) | (index >= shape[d])) & (mask if index.shape[0] != 1 else mask.any())
        if bad.any():
            t = int(np.flatnonzero(np.broadcast_to(bad, mask.shape))[0])
            value = int(index[t if index.shape[0] != 1 else 0])
            m.fail(op, f"dynamic position {value} out of range for dim {d} of size {shape[d]}", t)
        index = np.clip(index, 0, shape[d] - 1)
        position.append(int(index[0]) if index.shape[0] == 1 else index)
    return tuple(position)


def _per_thread(position: tuple, threads: int) -> tuple:
    """An index tuple selecting, for each thread, its positions (arrays index per thread)."""
    if not any(isinstance(p, np.ndarray) for p in position):
        return (slice(None), *position)
    return (np.arange(threads), *position)


@handles(vector.ExtractOp)
def extract(m, op, mask) -> None:
    src = m.value(op.vector)
    position = _positions(m, op, vector_shape(op.vector.type), mask)
    threads = max([src.shape[0]] + [p.shape[0] for p in position if isinstance(p, np.ndarray)])
    m.env[op.result] = full(src, threads)[_per_thread(position, threads)]


@handles(vector.InsertOp)
def insert(m, op, mask) -> None:
    static = m.static.get(("insert", op))
    if static is None:
        position = None if op.dynamic_position else (
            slice(None), *(int(p) for p in op.static_position.get_values()))
        reuse = position is not None and _reuses_dest(op)
        fills = position is not None and not reuse and _chain_fills_dest(op)
        static = m.static[("insert", op)] = (op.source, op.dest, op.result, position, reuse, fills)
    source, destination, result, index, reuse, fills = static
    env = m.env
    src = env[source]
    dest = env[destination]
    if index is not None:  # a static position: one copy of dest, one assignment
        threads = max(src.shape[0], dest.shape[0])
        if reuse and dest.shape[0] == threads:
            out = dest  # (the previous insert's array, read by nothing else: see _reuses_dest)
        elif fills:  # every element is written by this chain: dest's values are never read
            out = np.empty((threads, *dest.shape[1:]), dest.dtype)
        else:
            out = dest.copy() if dest.shape[0] == threads else dest.repeat(threads, 0)
        _assign(out, index, src)
        env[result] = out
        return
    position = _positions(m, op, vector_shape(op.dest.type), mask)
    threads = max([src.shape[0], dest.shape[0]] + [p.shape[0] for p in position if isinstance(p, np.ndarray)])
    out = np.array(full(dest, threads))
    out[_per_thread(position, threads)] = src
    m.env[op.result] = out


def _reuses_dest(op: vector.InsertOp) -> bool:
    """Whether ``op`` may write into its dest's array instead of a copy: the dest is the
    result of a static ``vector.insert`` just before it in the same block (an array that
    insert made, in no cache and not repeated by a batched loop) and ``op`` is its only use.
    A chain ``%f0 = insert %a, %zero [0]; %f1 = insert %b, %f0 [1]`` then copies ``%zero``
    once and fills that copy."""
    owner = op.dest.owner
    return (isinstance(owner, vector.InsertOp) and not owner.dynamic_position
            and owner.next_op is op and op.dest.has_one_use())


def _chain_fills_dest(op: vector.InsertOp) -> bool:
    """Whether the chain of static inserts starting at ``op`` (each next one inserting into
    its predecessor's result, its only use: see :func:`_reuses_dest`) writes every element
    of ``op``'s dest: then the chain's first array need not start as a copy of dest.
    Example: ``insert %a0, %zero [0]`` .. ``insert %a3, %fa2 [3]`` into vector<4x2xf16>."""
    shape = vector_shape(op.dest.type)
    written = np.zeros(shape, bool)
    while True:
        written[tuple(int(p) for p in op.static_position.get_values())] = True
        following = op.next_op
        if not (isinstance(following, vector.InsertOp) and not following.dynamic_position
                and following.dest is op.result and _reuses_dest(following)):
            return bool(written.all())
        op = following


_WORDS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _assign(out: np.ndarray, index: tuple, src: np.ndarray) -> None:
    """``out[index] = src`` for a static position ``index`` = (all threads, p0, ...) of a
    C-contiguous ``out`` (threads, *shape). A sub-vector of 2, 4 or 8 bytes is copied as one
    word per thread (numpy copies a short strided block per thread several times slower).
    Example: vector<2xf16> into row 1 of vector<4x2xf16>: word 1 of 4 uint32 per thread."""
    word = _word_of(out.shape[1:], out.itemsize, index[1:]) if out.shape[0] else None
    if word is None or src.dtype != out.dtype or not (out.flags.c_contiguous and src.flags.c_contiguous):
        out[index] = src
        return
    kind, size, position = word
    out.reshape(out.shape[0], -1).view(kind)[:, position] = src.reshape(src.shape[0], size).view(kind)[:, 0]


@lru_cache(maxsize=256)
def _word_of(shape: tuple[int, ...], itemsize: int, position: tuple[int, ...]) -> tuple | None:
    """(word dtype, elements per word, word index) of the sub-vector at ``position`` of a
    vector ``shape`` when it is one word of 2, 4 or 8 bytes, else None (also for a poison
    position -1). Kept per shape and position: an insert runs with the same ones each time."""
    if any(p < 0 for p in position):
        return None
    size = 1
    for n in shape[len(position):]:
        size *= n
    kind = _WORDS.get(size * itemsize)
    if kind is None:
        return None
    return kind, size, int(np.ravel_multi_index(position + (0,) * (len(shape) - len(position)), shape)) // size


def _combine(kind: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a <kind> b`` element by element (through the reduction of the two stacked)."""
    return reduce_kind(kind, np.stack(np.broadcast_arrays(a, b)), 0)


def _matmul_plan(op) -> tuple | None:
    """For an f32 or f64 ``add`` contraction with one reduction dim and two parallel dims, each
    operand holding the reduction dim and one parallel dim (a matmul, any operand
    orientation): (lhs axes, rhs axes, result axes) that turn lhs into (threads, m, k), rhs
    into (threads, k, n) and the product (threads, m, n) into acc's order; else None.
    Example: lhs (d0, d2), rhs (d1, d2), acc (d0, d1): rhs is transposed, (0, 2, 1).
    """
    iterators = op.iterators
    lhs_dims, rhs_dims, acc_dims = op.operand_dims
    if (vops.kind_name(op.kind) != "add" or sorted(iterators) != ["parallel", "parallel", "reduction"]
            or not isinstance(op.acc.type, VectorType)
            or element_dtype(op.acc.type) not in (np.float32, np.float64)):
        return None
    k = iterators.index("reduction")
    if len(lhs_dims) != 2 or len(rhs_dims) != 2 or k not in lhs_dims or k not in rhs_dims:
        return None
    m_dim = next(d for d in lhs_dims if d != k)
    n_dim = next(d for d in rhs_dims if d != k)
    if m_dim == n_dim or sorted(acc_dims) != sorted((m_dim, n_dim)):
        return None
    lhs_axes = (0, 1 + lhs_dims.index(m_dim), 1 + lhs_dims.index(k))
    rhs_axes = (0, 1 + rhs_dims.index(k), 1 + rhs_dims.index(n_dim))
    result_axes = (0, 1 + (m_dim, n_dim).index(acc_dims[0]), 1 + (m_dim, n_dim).index(acc_dims[1]))
    return lhs_axes, rhs_axes, result_axes


@handles(vops.ContractionOp)
def contract(m, op, mask) -> None:
    """Each operand laid over the iteration space (threads, d0, ..., dn-1) by its map; the
    products combined over the reduction dims, put in acc's dim order, combined with acc.

    A float matmul (see :func:`_matmul_plan`) runs as one batched ``np.matmul`` in acc's
    type instead (the order of a contraction's sum is not specified; products and sums in
    acc's type as on the general path)."""
    plan = m.static.get(("contract", op), False)
    if plan is False:
        plan = m.static[("contract", op)] = _matmul_plan(op)
    if plan is not None:
        lhs_axes, rhs_axes, result_axes = plan
        acc = m.value(op.acc)
        dtype = acc.dtype
        lhs = m.value(op.lhs).astype(dtype, copy=False).transpose(lhs_axes)
        rhs = m.value(op.rhs).astype(dtype, copy=False).transpose(rhs_axes)
        out = np.matmul(lhs, rhs).transpose(result_axes)
        m.env[op.result] = out + acc
        return
    shape = op.iteration_shape
    lhs_dims, rhs_dims, acc_dims = op.operand_dims
    acc = m.value(op.acc)
    dtype = acc.dtype

    def spread(value: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
        order = sorted(range(len(dims)), key=lambda a: dims[a])
        value = value.transpose(0, *(1 + a for a in order))
        return value.reshape((value.shape[0],) + tuple(n if d in dims else 1 for d, n in enumerate(shape)))

    products = spread(m.value(op.lhs).astype(dtype), lhs_dims) * spread(m.value(op.rhs).astype(dtype), rhs_dims)
    reduction = tuple(1 + d for d, kind in enumerate(op.iterators) if kind == "reduction")
    kind = vops.kind_name(op.kind)
    summed = reduce_kind(kind, products, reduction) if reduction else products
    summed = np.asarray(summed).reshape(products.shape[:1] + tuple(
        shape[d] for d in range(len(shape)) if d not in {r - 1 for r in reduction}))
    parallel = [d for d in range(len(shape)) if op.iterators[d] == "parallel"]
    summed = summed.transpose(0, *(1 + parallel.index(d) for d in acc_dims))
    m.env[op.result] = np.asarray(_combine(kind, summed, acc)).astype(dtype, copy=False)


@handles(vops.MultiDimReductionOp)
def multi_reduction(m, op, mask) -> None:
    src = m.value(op.source)
    kind = vops.kind_name(op.kind)
    out = reduce_kind(kind, src, tuple(1 + d for d in op.dims)) if op.dims else src
    m.env[op.dest] = np.asarray(_combine(kind, out, m.value(op.acc))).astype(src.dtype, copy=False)


@handles(vops.TransposeOp)
def transpose(m, op, mask) -> None:
    m.env[op.result] = m.value(op.vector).transpose(0, *(1 + p for p in op.perm)).copy()


@handles(vops.ShapeCastOp)
def shape_cast(m, op, mask) -> None:
    src = m.value(op.source)
    m.env[op.result] = src.reshape((src.shape[0], *vector_shape(op.result.type)))


@handles(vops.ExtractStridedSliceOp)
def extract_strided_slice(m, op, mask) -> None:
    offsets, sizes, strides = op.slice()
    window = tuple(slice(o, o + n * s, s) for o, n, s in zip(offsets, sizes, strides))
    m.env[op.result] = m.value(op.vector)[(slice(None), *window)].copy()


@handles(vops.InsertStridedSliceOp)
def insert_strided_slice(m, op, mask) -> None:
    src, dest = m.value(op.source), m.value(op.dest)
    offsets = op.offset_values
    lead = len(offsets) - (src.ndim - 1)
    window = tuple(offsets[:lead]) + tuple(slice(o, o + n) for o, n in zip(offsets[lead:], src.shape[1:]))
    out = np.array(full(dest, max(src.shape[0], dest.shape[0])))
    out[(slice(None), *window)] = src
    m.env[op.result] = out


@handles(vops.StepOp)
def step(m, op, mask) -> None:
    m.env[op.result] = np.arange(vector_shape(op.result.type)[0], dtype=np.int64)[None]


def _mask_below(shape: tuple[int, ...], sizes: list[np.ndarray]) -> np.ndarray:
    """(threads or 1, *shape) bools: index k of every dim below that dim's size (per thread)."""
    ndim = len(shape) + 1
    out = np.ones((1,) * ndim, bool)
    for d, size in enumerate(sizes):
        positions = np.arange(shape[d]).reshape((1,) * (d + 1) + (shape[d],) + (1,) * (ndim - d - 2))
        out = out & (positions < size.reshape((-1,) + (1,) * (ndim - 1)))
    return np.broadcast_to(out, (out.shape[0], *shape))


@handles(vops.ConstantMaskOp)
def constant_mask(m, op, mask) -> None:
    m.env[op.result] = _mask_below(vector_shape(op.result.type), [np.array([n]) for n in op.sizes])


@handles(vector.CreateMaskOp)
def create_mask(m, op, mask) -> None:
    sizes = [m.value(v) for v in op.mask_dim_sizes]
    m.env[op.mask_vector] = _mask_below(vector_shape(op.mask_vector.type), sizes)


@handles(vops.GatherOp)
def gather(m, op, mask) -> None:
    """``base[o0, ..., ok + indices[i]]`` where ``mask[i]`` (and the thread runs), else
    ``pass_thru[i]``; a gathered element outside the memref fails."""
    buffer: Buffer = m.env[op.base]
    vshape = vector_shape(op.result.type)
    threads = m.chunk.threads
    ndim = len(vshape) + 1
    start = np.zeros(1, np.int64)
    for value, stride in zip(op.offsets, buffer.strides):
        start = start + m.value(value) * stride
    indices = m.value(op.indices).astype(np.int64)
    flat = np.broadcast_to(start.reshape((-1,) + (1,) * (ndim - 1)) + indices * buffer.strides[-1],
                           (threads, *vshape))
    accessed = np.broadcast_to(expand(mask, ndim), flat.shape) & m.value(op.mask).astype(bool)
    size = int(np.prod(buffer.shape, dtype=np.int64))
    bad = accessed & ((flat < 0) | (flat >= size))
    if bad.any():
        t, *element = (int(i) for i in np.argwhere(bad)[0])
        m.fail(op, f"element {element} gathers flat offset {int(flat[(t, *element)])} outside "
                   f"{buffer.space} memref '{buffer.name}' of shape {buffer.shape}", t)
    data, where = m.transfer_owner(buffer, np.where(accessed, flat, 0))
    if buffer.space == "shared":
        m.shared_element_access(op, buffer, "load", where, accessed)
    m.env[op.result] = np.where(accessed, data[where], m.value(op.pass_thru))


@handles(vector.ReductionOp)
def reduction(m, op, mask) -> None:
    src = m.value(op.vector)
    kind = op.kind.data.value if hasattr(op.kind.data, "value") else str(op.kind.data)
    out = reduce_kind(kind, src, tuple(range(1, src.ndim)))
    if op.acc is not None:
        acc = m.value(op.acc)
        out = reduce_kind(kind, np.stack(np.broadcast_arrays(out, acc)), 0)
    m.env[op.dest] = np.asarray(out).astype(src.dtype, copy=False)
