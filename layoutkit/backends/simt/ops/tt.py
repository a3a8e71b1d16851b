"""Simulator handlers of ``tt`` (Triton): tensors distributed by their encodings, pointers as
buffer + byte offset (see :mod:`layoutkit.backends.simt.ttgir`). One numpy op per IR op."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import TensorType

from layoutkit.backends.simt import atomics
from layoutkit.backends.simt.dtypes import element_dtype, fp8_dtype
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
    out = m.pointee_data(buffer, op.ptr.type)[index]
    if not active.all():  # every element read: ``other`` is not taken
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
    m.pointee_data(buffer, op.ptr.type)[index[active]] = values[active]


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


# ----------------------------------------------------------------------- dots


@handles(tt.DotOp)
def dot(m, op, mask) -> None:
    """D = A @ B + C from the distributed operands, each warp multiplying the fragments its
    own lanes hold (:mod:`layoutkit.backends.simt.dot_fragments`): one gather of A and B
    over all blocks into (blocks, warps, Mw, K) and (blocks, warps, K, Nw), one matmul with
    the inputs as the hardware takes them (:mod:`layoutkit.backends.simt.dot_inputs`), one
    scatter into the result's registers, plus C. Encodings the GPU lowering would reject
    are an error naming the op and its line."""
    from layoutkit.backends.simt import dot_inputs
    from layoutkit.backends.simt.dot_fragments import check_dot_encodings, dot_plan
    from layoutkit.errors import LayoutError
    from layoutkit.layouts.triton.blocked import BlockedEncoding

    geometry = m.geometry
    plan = m.static.get(op)
    if plan is None:
        try:
            check_dot_encodings(op.a.type, op.b.type, op.d.type, geometry.warp_size)
        except LayoutError as err:
            m.fail(op, str(err))
        distributions = [m.distribution(op, v.type) for v in (op.a, op.b, op.d)]
        try:
            plan = dot_plan(*distributions, geometry.warp_size)
        except LayoutError as err:
            m.fail(op, str(err))
        m.static[op] = plan
    precision = dot_inputs.IEEE if isinstance(op.d.type.encoding.layout, BlockedEncoding) \
        else dot_inputs.input_precision(op.inputPrecision)
    blocks = m.chunk.blocks
    a, b = (m.blocks_view(m.value(v), m.distribution(op, v.type).registers).reshape(blocks, -1)
            for v in (op.a, op.b))
    product = dot_inputs.dot(np.take(a, plan.a_index, axis=1), np.take(b, plan.b_index, axis=1), None, precision)
    registers = plan.d_index.shape[1]
    out = np.take(product.reshape(blocks, -1), plan.d_index, axis=1).reshape(-1, registers)
    c = m.value(op.c)
    if c.dtype == out.dtype:
        out += c
    else:
        out = out + c.astype(out.dtype)
    m.env[op.d] = out.astype(element_dtype(op.d.type.element_type), copy=False)


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
    if bits == 64:
        m.env[op.results[0]] = _widened_mulhi(x.astype(np.uint64), y.astype(np.uint64)).astype(x.dtype)
        return
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    wide = x.astype(unsigned).astype(np.uint64) * y.astype(unsigned).astype(np.uint64)
    m.env[op.results[0]] = (wide >> np.uint64(bits)).astype(unsigned).astype(x.dtype)


@handles(tt.AssertOp)
def assert_(m, op, mask) -> None:
    cond = m.value(op.condition)
    failed = ~np.broadcast_to(cond.reshape(cond.shape[0], -1).all(axis=1), mask.shape) & mask
    if failed.any():
        m.fail(op, f"assertion failed: {op.message.data}", int(np.flatnonzero(failed)[0]))


@handles(tt.ApproxDivFOp)
def approx_div(m, op, mask) -> None:
    """``div.full.f32`` on the GPU is within 2 ulp; here the correctly rounded quotient."""
    precise_div(m, op, mask)


@handles(tt.ClampFOp)
def clampf(m, op, mask) -> None:
    """min(max(x, lo), hi) as Triton lowers it: with ``propagateNan = none`` LLVM's
    maxnum/minnum (a NaN operand yields the other one: clamp(NaN) = lo); with ``all``
    maximum/minimum (NaN in, NaN out)."""
    x, lo, hi = (m.value(v) for v in (op.x, op.min, op.max))
    nan_all = _int(op.propagateNan) != 0
    top, bottom = (np.maximum, np.minimum) if nan_all else (np.fmax, np.fmin)
    m.env[op.result] = bottom(top(x, lo), hi).astype(x.dtype)


@handles(tt.BitcastOp)
def bitcast(m, op, mask) -> None:
    """The same bits read as the result type; a pointer keeps its address (and is then
    read through its new pointee type)."""
    value = m.value(op.src)
    if isinstance(tt.element_type(op.result.type), tt.PointerType):
        m.env[op.result] = value
        return
    m.env[op.result] = np.ascontiguousarray(value).view(element_dtype(op.result.type))


@handles(tt.FpToFpOp)
def fp_to_fp(m, op, mask) -> None:
    """A float conversion: widening is exact; narrowing rounds to nearest even (``rtne``,
    and the default) or toward zero (``rtz``: the nearest-even result stepped one ulp
    toward zero where it is farther from zero than the operand; an overflow to inf becomes
    the largest finite value). fp8 types are ml_dtypes' (``f8E4M3FN``, ``f8E5M2``, ...);
    conversions to fp8 saturate (PTX ``cvt.rn.satfinite``, as Triton emits them): values
    beyond the largest finite one, infinities included, become it, NaN stays NaN.
    Example: f32 1e6 -> f8E4M3FN 448."""
    x = m.value(op.src)
    dtype = element_dtype(op.result.type)
    if fp8_dtype(str(tt.element_type(op.result.type))) is not None:
        top = float(ml_dtypes.finfo(dtype).max)
        x = np.clip(x.astype(np.float64), -top, top)
    y = x.astype(dtype)
    rounding = None if op.rounding is None else _int(op.rounding)
    if rounding == 0 and dtype.itemsize < x.dtype.itemsize:  # rtz
        wide = x.astype(np.float64)
        back = y.astype(np.float64)
        away = (np.abs(back) > np.abs(wide)) & np.isfinite(wide)
        bits = np.ascontiguousarray(y).view(np.dtype(f"u{dtype.itemsize}"))
        y = np.where(away, (bits - 1).astype(bits.dtype), bits).view(dtype)
    m.env[op.result] = y


def _widened_mulhi(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The high 64 bits of the 128-bit product of uint64 arrays, by 32-bit halves."""
    mask = np.uint64(0xFFFFFFFF)
    shift = np.uint64(32)
    xl, xh, yl, yh = x & mask, x >> shift, y & mask, y >> shift
    low = xl * yl
    mid1 = xh * yl + (low >> shift)
    mid2 = xl * yh + (mid1 & mask)
    return xh * yh + (mid1 >> shift) + (mid2 >> shift)


# ----------------------------------------------------------------------- cat, gather, histogram


@handles(tt.CatOp)
def cat(m, op, mask) -> None:
    """Each thread's result registers are its lhs registers followed by its rhs registers
    (Triton lowers ``tt.cat`` so, ``can_reorder``: the result encoding says which element
    each register is). Example: lhs, rhs of 256 in 1 register/thread, result of 512 in
    #blocked<[2]...>: thread t holds result elements 2t (lhs[t]) and 2t + 1 (rhs[t])."""
    lhs, rhs = m.value(op.lhs), m.value(op.rhs)
    left = m.distribution(op, op.lhs.type).registers
    right = m.distribution(op, op.rhs.type).registers
    registers = m.distribution(op, op.result.type).registers
    if left + right != registers:
        m.fail(op, f"the result holds {registers} registers per thread, the operands {left} + {right}")
    threads = max(lhs.shape[0], rhs.shape[0], mask.shape[0])
    m.env[op.result] = np.concatenate([np.broadcast_to(full(lhs, threads), (threads, left)),
                                       np.broadcast_to(full(rhs, threads), (threads, right))], axis=1)


def _warp_local_gather(src, idx, axis: int, warp_size: int) -> bool:
    """Triton's GatherLoweringHelper::isWarpLocal on distributions: the gather axis does
    not change with the warp (for source and indices), and warps and lanes map to the
    other dims alike in both (each thread's column is the same in both)."""
    other = [d for d in range(src.coords.shape[-1]) if d != axis]
    warps = np.arange(0, src.coords.shape[0], warp_size)
    for dist in (src, idx):
        by_warp = dist.coords.reshape(len(warps), warp_size, -1, dist.coords.shape[-1])[..., axis]
        if not (by_warp == by_warp[:1]).all():
            return False
    return bool((src.coords[warps, 0][:, other] == idx.coords[warps, 0][:, other]).all()
                and (src.coords[:warp_size, 0][:, other] == idx.coords[:warp_size, 0][:, other]).all())


def gather_instructions(m, op) -> dict[str, int]:
    """Instructions per thread of one ``tt.gather`` as Triton lowers it: warp-local (the
    column along ``axis`` held by one warp: its ``isWarpLocal``) by one ``shfl`` (index
    shuffle) and one ``select`` per index register and source register of its column in the
    thread, else through shared memory (``st.shared`` of every source register, a
    ``bar.sync``, an ``ld.shared`` per index register). Example: gather_rows on sm_80,
    32x32 in threadsPerWarp [1, 32]: 8 index registers, 1 per column -> 8 shfl + 8 select."""
    cached = m.cache.get((op, "instructions"))
    if cached is not None:
        return cached
    axis = _int(op.axis)
    src = m.distribution(op, op.src.type)
    idx = m.distribution(op, op.indices.type)
    if not _warp_local_gather(src, idx, axis, m.geometry.warp_size):
        counts = {"st.shared": src.registers, "bar.sync": 1, "ld.shared": idx.registers}
        m.cache[(op, "instructions")] = counts
        return counts
    coords = src.coords[0]  # thread 0's registers: every thread's columns look alike
    _, column = np.unique(np.delete(coords, axis, axis=-1), axis=0, return_inverse=True)
    column = column.reshape(-1)
    per_column = max(len(np.unique(coords[column == k, axis])) for k in np.unique(column))
    counts = m.cache[(op, "instructions")] = {"shfl": idx.registers * per_column,
                                              "select": idx.registers * per_column}
    return counts


@handles(tt.GatherOp)
def gather(m, op, mask) -> None:
    """out[c] = src[c with c[axis] = indices[c]] (indices out of range are reported). The
    data moves as Triton's lowering decides from the layouts, whatever ``efficient_layout``
    says (:func:`gather_instructions`, counted per op in ``stats.counts``)."""
    axis = _int(op.axis)
    src = m.dense(op, m.value(op.src), op.src.type)
    index = m.dense(op, m.value(op.indices), op.indices.type).astype(np.int64)
    extent = src.shape[axis + 1]
    bad = (index < 0) | (index >= extent)
    if bad.any():
        where = tuple(int(c) for c in np.argwhere(bad)[0])
        m.fail(op, f"index {int(index[where])} at element {where[1:]} of block {where[0]} is outside "
                   f"[0, {extent}) along axis {axis}")
    out = np.take_along_axis(src, index, axis=axis + 1)
    m.env[op.result] = m.distribute(op, out, op.result.type)
    threads = int(mask.sum())
    for kind, count in gather_instructions(m, op).items():
        m.stats.count(op, kind, threads * count)


def histogram_instructions(m, op) -> dict[str, int]:
    """Instructions per thread of one ``tt.histogram`` as Triton lowers it (bins B padded to
    P = max(B, warp)): per source register a ``vote.ballot`` per bit of the bin number (and
    one for the mask) and a ``popc`` per bin the lane owns (P / warp); then zeroing P shared
    counters, a ``bar.sync``, an ``atom.shared`` add per owned bin, a ``bar.sync``, and an
    ``ld.shared`` per result register."""
    bins = tuple(op.result.type.get_shape())[0]
    warp = m.geometry.warp_size
    padded = max(bins, warp)
    registers = m.distribution(op, op.src.type).registers
    owned = padded // warp
    return {"vote.ballot": registers * (padded.bit_length() - 1 + (op.mask is not None)),
            "popc": registers * owned, "st.shared": -(-padded // m.geometry.slots_per_block),
            "bar.sync": 2, "atom.shared": owned, "ld.shared": m.distribution(op, op.result.type).registers}


@handles(tt.HistogramOp)
def histogram(m, op, mask) -> None:
    """Counts of each value in bins 0..B-1 over each block's tensor (mask-off elements
    not counted). As the GPU computes it (a ballot per bit of the bin number, B padded to
    at least the warp size), a value lands in bin ``value & (max(B, warp) - 1)`` and is
    counted if that is below B: out-of-range values wrap (the Triton interpreter drops them).
    Example: B = 64, warp 64: value 70 counts in bin 6, -1 in bin 63."""
    bins = tuple(op.result.type.get_shape())[0]
    padded = max(bins, m.geometry.warp_size)
    if padded & (padded - 1):
        m.fail(op, f"the number of bins {bins} must be a power of two")
    values = m.dense(op, m.value(op.src), op.src.type).reshape(m.chunk.blocks, -1).astype(np.int64)
    keep = (values & (padded - 1)) < bins
    if op.mask is not None:
        keep &= m.dense(op, m.value(op.mask), op.mask.type).reshape(m.chunk.blocks, -1)
    block = np.broadcast_to(np.arange(m.chunk.blocks)[:, None], values.shape)
    flat = block[keep] * bins + (values[keep] & (padded - 1))
    counts = np.bincount(flat, minlength=m.chunk.blocks * bins).reshape(m.chunk.blocks, bins)
    m.env[op.result] = m.distribute(op, counts.astype(element_dtype(op.result.type)), op.result.type)
    threads = int(mask.sum())
    for kind, count in histogram_instructions(m, op).items():
        m.stats.count(op, kind, threads * count)


# ----------------------------------------------------------------------- atomics



def _targets(m, op, mask):
    """(pointers, performing elements) of a ``tt`` atomic (:meth:`TritonMachine.performers`)."""
    active = m.performers(op, mask, op.ptr.type)
    if getattr(op, "mask", None) is not None:
        active = active & full(m.value(op.mask), mask.shape[0])
    return full(m.value(op.ptr), mask.shape[0]), active


@handles(tt.AtomicRMWOp)
def atomic_rmw(m, op, mask) -> None:
    """``old = *p; *p = old <kind> v`` for each performing element, returning ``old``:
    add, fadd, max, min (signed, or float), umax, umin, and, or, xor, exch. Sequentially
    consistent: duplicate addresses within the op apply one after another in (block,
    thread, register) order (:func:`~layoutkit.backends.simt.atomics.atomic_update`); one
    thread performs each element and a scalar atomic runs once per program. Memory
    semantics and scope change nothing on the lockstep machine.
    Example: fadd of [1, 2, 4] at one address holding 10 -> returns [10, 11, 13], leaves 17."""
    kind = atomics.triton_rmw_kind(op.atomic_rmw_op)
    pointers, active = _targets(m, op, mask)
    m.env[op.result] = m.atomic(op, pointers, active, op.ptr.type, op.ptr.type,
                              lambda data, at, picked: atomics.atomic_update(kind, data, at,
                                                                              picked(m.value(op.val))))


@handles(tt.AtomicCASOp)
def atomic_cas(m, op, mask) -> None:
    """``old = *p; if old == cmp: *p = val`` (bits compared), returning ``old``, in order.
    Example: a flag at 0, every element CASes 0 -> its index + 1: element 0 gets 0, the rest 1."""
    pointers, active = _targets(m, op, mask)
    m.env[op.result] = m.atomic(op, pointers, active, op.ptr.type, op.ptr.type,
                              lambda data, at, picked: atomics.atomic_cas(
                                  data, at, picked(m.value(op.cmp)), picked(m.value(op.val))))


# ----------------------------------------------------------------------- printing


def _print_format(dtype: np.dtype, hex_: bool, signed: bool) -> tuple[str, object]:
    """Triton's printf conversion of an element type, and the cast giving its argument."""
    if hex_:
        bits = dtype.itemsize * 8
        return f"0x%0{bits // 4}x", lambda v: v.view(f"u{dtype.itemsize}").astype(np.uint64)
    if dtype.kind == "f" or dtype.name == "bfloat16":
        return "%f", lambda v: v.astype(np.float64)
    if signed or dtype == np.bool_:
        return "%i", lambda v: v.astype(np.int64)
    return "%u", lambda v: v.astype(f"u{dtype.itemsize}").astype(np.uint64)


@handles(tt.PrintOp)
def print_(m, op, mask) -> None:
    """Each active thread prints each element it holds, one line each, as Triton's device
    print: ``pid (x, y, z) idx (i, j)<prefix>(operand k) <value>`` (``(operand k) `` only
    with several operands; indices padded to the digits of their dim; floats ``%f``,
    integers ``%i``/``%u`` by ``isSigned``, ``hex`` as ``0x%08x``). Lines come in (block,
    thread, register) order; a GPU interleaves them in any order. Without operands:
    ``pid (x, y, z)<prefix>`` once per active thread."""
    prefix = op.prefix.data
    threads = np.flatnonzero(mask)
    pids = [m.chunk.block_xyz[axis] for axis in range(3)]

    def pid(t: int) -> str:
        return "pid (" + ", ".join(str(int(np.broadcast_to(p, mask.shape)[t])) for p in pids) + ")"

    lines: list[str] = []
    if not op.args:
        lines = [pid(t) + prefix for t in threads]
    signed = [int(v) for v in op.isSigned.get_values()] if op.isSigned is not None else []
    hex_ = op.hex is not None and bool(_int(op.hex))
    for k, arg in enumerate(op.args):
        value = full(m.value(arg), mask.shape[0])
        form, cast = _print_format(value.dtype, hex_, bool(signed[k]) if k < len(signed) else True)
        operand = f"(operand {k}) " if len(op.args) > 1 else ""
        if isinstance(arg.type, TensorType):
            dist = m.distribution(op, arg.type)
            widths = [len(str(d - 1)) if d > 1 else 1 for d in dist.shape]
            value = np.broadcast_to(value, (mask.shape[0], dist.registers))
            shown = cast(value)
            slots = m.geometry.slots_per_block
            for t in threads:
                for r in range(dist.registers):
                    idx = ", ".join(f"{int(c):>{w}}" for c, w in zip(dist.coords[t % slots, r], widths))
                    lines.append(f"{pid(t)} idx ({idx}){prefix}{operand}{form % shown[t, r]}")
        else:
            shown = cast(np.broadcast_to(value, mask.shape))
            lines.extend(f"{pid(t)} idx (){prefix}{operand}{form % shown[t]}" for t in threads)
    if lines:
        print("\n".join(lines))


# ----------------------------------------------------------------------- libdevice / ocml

_EXTERN = {
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(x.dtype.type(10), x), "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint,
    "round": lambda x: np.copysign(np.floor(np.abs(x) + x.dtype.type(0.5)), x), "fabs": np.abs,
    "pow": np.power, "fmod": np.fmod, "atan2": np.arctan2, "hypot": np.hypot, "fmax": np.fmax,
    "fmin": np.fmin, "copysign": np.copysign, "isnan": np.isnan, "isinf": np.isinf,
    "signbit": np.signbit, "fma": lambda x, y, z: x * y + z,
}


def extern_function(symbol: str):
    """The numpy function of a libdevice (``__nv_expf``, ``__nv_pow``) or ocml
    (``__ocml_exp_f32``) symbol, or None. Example: ``__nv_fmodf`` -> np.fmod."""
    for prefix in ("__nv_", "__ocml_"):
        if symbol.startswith(prefix):
            name = symbol[len(prefix):]
            for suffix in ("_f16", "_f32", "_f64"):
                name = name.removesuffix(suffix)
            if name in _EXTERN:
                return _EXTERN[name]
            if prefix == "__nv_" and name.endswith("f"):
                return _EXTERN.get(name[:-1])
    return None


@handles(tt.ExternElementwiseOp)
def extern_elementwise(m, op, mask) -> None:
    """A libdevice/ocml math function called per element, computed by numpy's function in
    the operands' type (within an ulp or so of the vendor library's result, not bit-equal);
    an unknown symbol is an error naming it."""
    symbol = op.symbol.data if op.symbol is not None else ""
    function = extern_function(symbol)
    if function is None:
        m.fail(op, f"extern function '{symbol}' is not known to the simulator "
                   f"(known: {', '.join(sorted(_EXTERN))}, as __nv_* or __ocml_*)")
    result = function(*(m.value(v) for v in op.srcs))
    m.env[op.result] = np.asarray(result).astype(element_dtype(op.result.type))
