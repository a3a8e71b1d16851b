"""Simulator handlers of ``tt`` (Triton): tensors distributed by their encodings, pointers as
buffer + byte offset (see :mod:`layoutkit.backends.simt.ttgir`). One numpy op per IR op."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType

from layoutkit.backends.simt.dtypes import element_dtype
from layoutkit.backends.simt.machine import full
from layoutkit.backends.simt.registry import handles, terminates
from layoutkit.ir.dialects import tt

terminates(tt.ReturnOp, tt.ReduceReturnOp, tt.ScanReturnOp)


def _int(attr) -> int:
    value = getattr(attr, "value", attr)
    return int(getattr(value, "data", value))


@handles(tt.GetProgramIdOp)
def program_id(m, op, mask) -> None:
    axis = _int(op.axis)
    m.env[op.result] = m.chunk.block_xyz[axis].astype(np.int32)


@handles(tt.GetNumProgramsOp)
def num_programs(m, op, mask) -> None:
    m.env[op.result] = np.array([m.geometry.grid[_int(op.axis)]], np.int32)


@handles(tt.MakeRangeOp)
def make_range(m, op, mask) -> None:
    """Register r of a thread holds start + its element's index."""
    dist = m.distribution(op, op.result.type)
    values = (dist.coords[..., 0] + _int(op.start)).astype(np.int32)
    m.env[op.result] = m.per_thread(values)


@handles(tt.SplatOp)
def splat(m, op, mask) -> None:
    """Every register of a thread holds the thread's scalar."""
    value = m.value(op.src)
    dist = m.distribution(op, op.result.type)
    m.env[op.result] = np.repeat(value.reshape(-1, 1), dist.registers, axis=1) if value.shape[0] > 1 \
        else value.reshape(1, 1)


@handles(tt.BroadcastOp)
def broadcast(m, op, mask) -> None:
    """Element c reads c with every broadcast (size-1) dim at 0, from the same thread."""
    src = tuple(op.src.type.get_shape())
    keep = np.array([s != 1 for s in src])
    m.env[op.result] = m.in_thread(op, m.value(op.src), op.src.type, op.result.type,
                                   lambda c: c * keep)


@handles(tt.ExpandDimsOp)
def expand_dims(m, op, mask) -> None:
    axis = _int(op.axis)
    m.env[op.result] = m.in_thread(op, m.value(op.src), op.src.type, op.result.type,
                                   lambda c: np.delete(c, axis, axis=-1))


@handles(tt.ReshapeOp)
def reshape(m, op, mask) -> None:
    """Row-major order kept: element c reads the element of the same row-major index."""
    src, dst = tuple(op.src.type.get_shape()), tuple(op.result.type.get_shape())

    def source_of(c):
        flat = np.ravel_multi_index(tuple(np.moveaxis(c, -1, 0)), dst)
        return np.stack(np.unravel_index(flat, src), axis=-1)

    m.env[op.result] = m.in_thread(op, m.value(op.src), op.src.type, op.result.type, source_of)


@handles(tt.TransOp)
def trans(m, op, mask) -> None:
    """Result dim i is operand dim order[i]."""
    order = [int(v) for v in op.order.get_values()]
    inverse = np.argsort(order)
    m.env[op.result] = m.in_thread(op, m.value(op.src), op.src.type, op.result.type,
                                   lambda c: c[..., inverse])


@handles(tt.JoinOp)
def join(m, op, mask) -> None:
    """Result[..., k] is lhs (k = 0) or rhs (k = 1): both operands' registers side by side,
    read as one tensor with a trailing dim of 2."""
    lhs, rhs = m.value(op.lhs), m.value(op.rhs)
    src = op.lhs.type
    shape = tuple(src.get_shape())
    stacked_type = TensorType(src.element_type, (2, *shape), src.encoding)
    both = np.concatenate([full(lhs, max(lhs.shape[0], rhs.shape[0])),
                           full(rhs, max(lhs.shape[0], rhs.shape[0]))], axis=1)
    m.env[op.result] = m.in_thread(op, both, _Stacked(stacked_type, src), op.result.type,
                                   lambda c: np.concatenate([c[..., -1:], c[..., :-1]], axis=-1))


@handles(tt.SplitOp)
def split(m, op, mask) -> None:
    value = m.value(op.src)
    for k, result in enumerate((op.outLHS, op.outRHS)):
        m.env[result] = m.in_thread(op, value, op.src.type, result.type,
                                    lambda c, k=k: np.concatenate([c, np.full(c.shape[:-1] + (1,), k)], axis=-1),
                                    key=(op, k))


class _Stacked:
    """The type of two tensors of type ``of`` held side by side in registers (for join):
    its distribution is the operand's twice, the second copy at index 1 of a new dim 0."""

    def __init__(self, type_, of) -> None:
        self.shape = tuple(type_.get_shape())
        self.of = of
        self.encoding = _StackedEncoding(of)

    def get_shape(self):
        return self.shape


class _StackedEncoding:
    def __init__(self, of) -> None:
        self.layout = _StackedLayout(of.encoding.layout)


class _StackedLayout:
    def __init__(self, layout) -> None:
        self.inner = layout

    def __hash__(self) -> int:
        return hash(("stacked", self.inner))

    def __eq__(self, other) -> bool:
        return isinstance(other, _StackedLayout) and other.inner == self.inner

    def table(self, shape):
        inner = self.inner.table(shape[1:])
        first = np.concatenate([np.zeros(inner.shape[:-1] + (1,), np.int64), inner], axis=-1)
        second = first.copy()
        second[..., 0] = 1
        return np.concatenate([first, second], axis=0)


# ----------------------------------------------------------------------- pointers


@handles(tt.AddPtrOp)
def addptr(m, op, mask) -> None:
    """The pointers moved by offset x pointee size bytes."""
    element = tt.element_type(op.ptr.type).pointee
    size = element_dtype(element).itemsize
    pointers = m.value(op.ptr)
    moved = np.multiply(m.value(op.offset), size, dtype=np.int64)  # one pass: widen and scale
    if moved.shape == np.broadcast_shapes(moved.shape, pointers.shape):
        m.env[op.result] = np.add(moved, pointers, out=moved)
    else:
        m.env[op.result] = pointers + moved


def _active(m, op, mask, tensor_mask) -> np.ndarray:
    """Which elements of the access run: active threads and, for tensors, the op's mask."""
    if tensor_mask is None:
        return mask if not isinstance(op.ptr.type, TensorType) else mask[:, None]
    value = m.value(tensor_mask)
    if not isinstance(op.ptr.type, TensorType):
        return mask & full(value, mask.shape[0])
    return mask[:, None] & full(value, mask.shape[0])


@handles(tt.LoadOp)
def load(m, op, mask) -> None:
    """Active elements read their buffer; masked ones take ``other`` (else 0)."""
    pointers = full(m.value(op.ptr), mask.shape[0])
    active = _active(m, op, mask, op.mask)
    pointers = np.broadcast_to(pointers, np.broadcast_shapes(pointers.shape, active.shape))
    buffer, index = m.element_index(op, pointers, active, op.ptr.type)
    out = buffer.data[index]
    if op.other is not None or not active.all():
        other = m.value(op.other) if op.other is not None else np.zeros((1,) * out.ndim, out.dtype)
        out = np.where(active, out, other)
    m.env[op.result] = out


@handles(tt.StoreOp)
def store(m, op, mask) -> None:
    """Active elements write their value (threads holding the same element write it alike)."""
    pointers = full(m.value(op.ptr), mask.shape[0])
    active = _active(m, op, mask, op.mask)
    pointers = np.broadcast_to(pointers, np.broadcast_shapes(pointers.shape, active.shape))
    active = np.broadcast_to(active, pointers.shape)
    buffer, index = m.element_index(op, pointers, active, op.ptr.type)
    values = np.broadcast_to(full(m.value(op.value), mask.shape[0]), pointers.shape)
    buffer.data[index[active]] = values[active]


# ----------------------------------------------------------------------- reductions


def _combine(m, op, left: list, right: list, mask) -> list:
    """The op's combine region on pairs of arrays (any shape, flattened for the run)."""
    block = op.combineOp.blocks[0]
    shape = left[0].shape
    for arg, value in zip(block.args, [*left, *right]):
        m.env[arg] = np.ascontiguousarray(value).reshape(-1)
    active = np.ones(int(np.prod(shape)), bool)
    results = m.run_block(block, active)
    return [np.broadcast_to(r, (active.size,)).reshape(shape) for r in results]


@handles(tt.ReduceOp)
def reduce(m, op, mask) -> None:
    """Each operand's block tensor reduced along ``axis`` with the region, as a pairwise tree
    in index order: combine(x[2i], x[2i+1]) until one is left (sizes are powers of two; an
    odd count carries its last element up). Integer results are exact; float results are
    those of this order."""
    axis = _int(op.axis) + 1  # the dense arrays lead with the block
    values = [np.moveaxis(m.dense(op, m.value(v), v.type), axis, -1) for v in op.srcs]
    while values[0].shape[-1] > 1:
        n = values[0].shape[-1]
        even = n - n % 2
        left = [v[..., 0:even:2] for v in values]
        right = [v[..., 1:even:2] for v in values]
        merged = _combine(m, op, left, right, mask)
        values = [np.concatenate([c, v[..., even:]], axis=-1) if n % 2 else c for c, v in zip(merged, values)]
    for result, value in zip(op.result, values):
        value = value[..., 0]
        if isinstance(result.type, TensorType):
            m.env[result] = m.distribute(op, value, result.type)
        else:  # a scalar: each block's value in all its threads
            m.env[result] = np.repeat(value, m.geometry.slots_per_block)


@handles(tt.ScanOp)
def scan(m, op, mask) -> None:
    """An inclusive scan along ``axis`` (from the end when ``reverse``), by doubling
    steps: x[i] = combine(x[i - d], x[i]) for d = 1, 2, 4, ... (earlier element on the left)."""
    axis = _int(op.axis) + 1
    reverse = bool(_int(op.reverse))
    values = [np.moveaxis(m.dense(op, m.value(v), v.type), axis, -1) for v in op.srcs]
    if reverse:
        values = [v[..., ::-1] for v in values]
    n = values[0].shape[-1]
    d = 1
    while d < n:
        merged = _combine(m, op, [v[..., :-d] for v in values], [v[..., d:] for v in values], mask)
        values = [np.concatenate([v[..., :d], c], axis=-1) for v, c in zip(values, merged)]
        d *= 2
    for result, value in zip(op.result, values):
        if reverse:
            value = value[..., ::-1]
        m.env[result] = m.distribute(op, np.moveaxis(value, -1, axis), result.type)


# ----------------------------------------------------------------------- elementwise


@handles(tt.PreciseSqrtOp)
def precise_sqrt(m, op, mask) -> None:
    x = m.value(op.operands[0])
    m.env[op.results[0]] = np.sqrt(x).astype(x.dtype)


@handles(tt.PreciseDivFOp)
def precise_div(m, op, mask) -> None:
    x, y = (m.value(v) for v in op.operands)
    m.env[op.results[0]] = (x / y).astype(x.dtype)


@handles(tt.MulhiUIOp)
def mulhi(m, op, mask) -> None:
    x, y = (m.value(v) for v in op.operands)
    bits = x.dtype.itemsize * 8
    wide = x.astype(np.uint64) * y.astype(np.uint64) if bits <= 32 else None
    if wide is None:
        m.fail(op, "64-bit mulhiui is not supported")
    m.env[op.results[0]] = (wide >> bits).astype(x.dtype)


@handles(tt.AssertOp)
def assert_(m, op, mask) -> None:
    cond = m.value(op.condition)
    failed = ~np.broadcast_to(cond.reshape(cond.shape[0], -1).all(axis=1), mask.shape) & mask
    if failed.any():
        m.fail(op, f"assertion failed: {op.message.data}", int(np.flatnonzero(failed)[0]))
