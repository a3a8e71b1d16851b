"""Simulator handlers of ``ttg`` (TritonGPU): layout conversions executed by the conversion
planner's plan (:meth:`~layoutkit.convert.plan.ConversionPlan.apply`); shared memory
(``local_alloc``/``load``/``store``, ``memdesc_*`` views) and async copies on the model of
:mod:`layoutkit.backends.simt.memdesc`."""

from __future__ import annotations

import numpy as np

from layoutkit.backends.simt.dtypes import element_dtype
from layoutkit.backends.simt.machine import full
from layoutkit.backends.simt.memdesc import (
    MAX_SHARED_ELEMENTS,
    Allocation,
    AsyncCopies,
    Copy,
    MemDesc,
    tile_offsets,
)
from layoutkit.backends.simt.registry import handles
from layoutkit.errors import LayoutError
from layoutkit.ir.context import op_line
from layoutkit.ir.dialects import tt, ttg
from layoutkit.ir.locations import op_source


def dtype_name(type_) -> str:
    """The planner's element type name of a tensor type: ``f16``, ``i1``; pointers ``i64``."""
    element = tt.element_type(type_)
    return "i64" if isinstance(element, tt.PointerType) else str(element)


@handles(ttg.ConvertLayoutOp)
def convert_layout(m, op, mask) -> None:
    """Run the plan on every block at once: each (block, warp, lane, register) value of the
    chunk's blocks is packed into one opaque element of ``blocks`` values (a numpy void
    dtype), so the plan's gathers, shuffles and scratch stores move all blocks together.
    Example: 3 blocks of f32 -> elements of 12 bytes; the plan sees one block."""
    from layoutkit.convert import plan_conversion

    value = m.value(op.src)
    src_type, dst_type = op.src.type, op.result.type
    if value.shape == (1, 1):  # uniform: the same in every layout
        m.env[op.result] = value
        return
    plan = m.cache.get(op)
    if plan is None:
        try:
            plan = m.cache[op] = plan_conversion(src_type.encoding.layout, dst_type.encoding.layout,
                                                 tuple(src_type.get_shape()), dtype_name(src_type))
        except LayoutError as err:
            m.fail(op, str(err))
    blocks = m.chunk.blocks
    _, warps, lanes = plan.hardware
    registers = plan.registers[0]
    packed = np.ascontiguousarray(m.blocks_view(value, registers).transpose(1, 2, 0))
    packed = packed.view(np.dtype((np.void, blocks * value.dtype.itemsize)))
    moved = plan.apply(packed.reshape(1, warps, lanes, registers))
    out = np.ascontiguousarray(moved).view(value.dtype).reshape(warps * lanes, plan.registers[1], blocks)
    m.env[op.result] = np.ascontiguousarray(out.transpose(2, 0, 1)).reshape(-1, plan.registers[1])


# ----------------------------------------------------------------------- shared memory
# The model: layoutkit.backends.simt.memdesc (allocations, views, async copies).

_TOKEN = np.zeros(1, np.int32)  # an !ttg.async.token: ordering only, no data


def _async(m) -> AsyncCopies:
    copies = m.cache.get(AsyncCopies)
    if copies is None:
        copies = m.cache[AsyncCopies] = AsyncCopies()
    return copies


def _desc(m, op, value) -> MemDesc:
    desc = m.value(value)
    if desc.allocation.freed:
        m.fail(op, f"accesses shared memory '{desc.allocation.name}' after its ttg.local_dealloc")
    return desc


def _encoding(m, op, type_):
    layout = getattr(getattr(type_, "encoding", None), "layout", None)
    if layout is None:
        m.fail(op, f"{type_} has no layout encoding")
    return layout


def _check_tensor(m, op, desc: MemDesc, tensor_type, mem_type) -> None:
    """A register tensor moved to or from a memdesc has its shape and element type."""
    shape = tuple(tensor_type.get_shape())
    if shape != desc.shape:
        m.fail(op, f"the tensor's shape {list(shape)} is not the memdesc's {list(desc.shape)}")
    if tensor_type.element_type != mem_type.element_type:
        m.fail(op, f"the tensor's element type {tensor_type.element_type} is not the memdesc's "
                   f"{mem_type.element_type}")


def _cached_view(m, key: tuple, source: MemDesc):
    """The entry of ``m.cache`` under ``key`` made from the view ``source``, or None: views
    are immutable, so an op given the same view object (a pipelined loop cycling through
    its buffers) reuses what it derived from it. The entry keeps ``source`` alive, so its
    id is not reused while the entry exists."""
    hit = m.cache.get(key)
    return hit[1] if hit is not None and hit[0] is source else None


def _locations(m, op, desc: MemDesc, tensor_type) -> tuple[np.ndarray, object]:
    """(flat locations (blocks, slots, registers) in the allocation's data, distribution)
    of each register of each thread of a tensor of ``tensor_type`` in ``desc`` (read-only:
    cached per op and view)."""
    key = ("locations", op, id(desc))
    hit = _cached_view(m, key, desc)
    if hit is not None:
        return hit
    dist = m.distribution(op, tensor_type)
    span = desc.allocation.data.shape[1]
    blocks = m.chunk.blocks
    per_block = desc.offsets[:, dist.linear]  # (1 or blocks, slots, registers)
    base = (np.arange(blocks, dtype=np.int64) * span)[:, None, None]
    locations = per_block + base
    locations.flags.writeable = False
    m.cache[key] = (desc, (locations, dist))
    return locations, dist


def _bounds(m, desc: MemDesc) -> tuple[int, int]:
    """(smallest, largest) offset of the view ``desc`` in a block's copy of its allocation."""
    key = ("bounds", id(desc))
    hit = _cached_view(m, key, desc)
    if hit is None:
        hit = (int(desc.offsets.min()), int(desc.offsets.max()))
        m.cache[key] = (desc, hit)
    return hit


def check_pending(m, op, desc: MemDesc, locations: np.ndarray, verb: str, coords=None) -> None:
    """Fail when an async copy not yet waited for writes any of ``locations`` (blocks,
    slots, registers), naming the copy, the block and thread, and the element."""
    pending = _async(m).pending(desc.allocation, locations, _bounds(m, desc))
    if pending is None:
        return
    first = np.argwhere(pending)[0]
    block, slot = int(first[0]), int(first[1]) if len(first) > 1 else 0
    copy = _async(m).writer_of(desc.allocation, int(locations[tuple(first)]))
    line = op_line(copy.op) if copy is not None else None
    source = op_source(copy.op) if copy is not None else None
    by = (f"{copy.op.name} at line {line}" + (f" ({source[0]}:{source[1]})" if source else "")
          if copy is not None else "an async copy")
    element = f" element {tuple(int(c) for c in coords[slot, first[2]])}" if coords is not None else ""
    here = op_source(op)
    at = f" at {here[0]}:{here[1]}" if here else ""
    m.fail(op, f"race: {verb} shared memory '{desc.allocation.name}'{element}{at} while {by} is still "
               f"writing it (no ttg.async_wait covers that copy's group)",
           block * m.geometry.slots_per_block + slot)


def read_dense(m, op, desc: MemDesc) -> np.ndarray:
    """Each block's whole view (blocks, *shape), checked against copies in flight."""
    span = desc.allocation.data.shape[1]
    locations = desc.offsets + (np.arange(m.chunk.blocks, dtype=np.int64) * span)[:, None]
    check_pending(m, op, desc, locations[:, None, :], "reads")
    return desc.allocation.data.reshape(-1)[locations].reshape(m.chunk.blocks, *desc.shape)


def _count_banks(m, op, desc: MemDesc, tensor_type, dist, store: bool) -> None:
    """Add the op's wavefronts (and lower bound) over the chunk's blocks to ``stats.banks``:
    each block's per-thread element offsets, as executed, grouped into the vector
    instructions the compiler emits (runs of consecutive registers contiguous in memory, up
    to 16 bytes; ``ldmatrix``/``stmatrix`` where Triton uses them), counted by the
    simulator's bank model."""
    if m.stats.banks is None:
        return
    total = m.stats.banks.setdefault(op, [0, 0])
    key = ("banks", op, id(desc))  # the chunk's count for a view seen before
    hit = _cached_view(m, key, desc)
    if hit is not None:
        total[0] += hit[0]
        total[1] += hit[1]
        return
    before = tuple(total)
    from layoutkit.analysis.hardware import element_bytes
    from layoutkit.analysis.matrix_access import matrix_access, supports
    from layoutkit.analysis.vectors import vectorize
    from layoutkit.backends.simt.observers import bank_wavefronts

    dtype = str(tensor_type.element_type)
    itemsize = element_bytes(dtype)
    layout = _encoding(m, op, tensor_type)
    shape = tuple(tensor_type.get_shape())
    target = m.kernel.parent_op().attributes.get("ttg.target") if m.kernel.parent_op() else None
    target = getattr(target, "data", None)
    if desc.offsets.shape[0] > 1:
        rows, counts = np.unique(desc.offsets, axis=0, return_counts=True)
    else:  # one view for every block
        rows, counts = desc.offsets, [m.chunk.blocks]
    slots = m.geometry.slots_per_block
    for row, blocks in zip(rows, counts):
        key = ("banks", op, row.tobytes())  # a view's count, kept for the kernel (a few views per op)
        found = m.static.get(key)
        if found is not None:
            waves, lower = found
            total[0] += waves * int(blocks)
            total[1] += lower * int(blocks)
            continue
        matrix = matrix_access(layout, row, shape, dtype, store=store) if supports(target, store) else None
        if matrix is not None:
            waves, lower = matrix.wavefronts, matrix.lower_bound
        else:
            per_thread = row[dist.linear]  # (slots, registers)
            access = vectorize(per_thread, max(1, 16 // itemsize), contiguous_registers=True)
            first = access.offsets.reshape(slots, -1)  # (slots, instructions): first element's offset
            waves, lower = bank_wavefronts(np.arange(slots), first * itemsize, access.vector * itemsize,
                                           m.geometry.warp_size)
        m.static[key] = (int(waves), int(lower))
        total[0] += int(waves) * int(blocks)
        total[1] += int(lower) * int(blocks)
    m.cache[("banks", op, id(desc))] = (desc, (total[0] - before[0], total[1] - before[1]))


def _write(m, op, desc: MemDesc, value: np.ndarray, tensor_type, mask) -> None:
    locations, dist = _locations(m, op, desc, tensor_type)
    check_pending(m, op, desc, locations, "overwrites", dist.coords)
    values = m.blocks_view(full(value, m.chunk.threads) if value.shape != (1, 1) else value, dist.registers)
    active = np.broadcast_to(mask.reshape(m.chunk.blocks, -1, 1), locations.shape)
    desc.allocation.data.reshape(-1)[locations[active]] = np.broadcast_to(values, locations.shape)[active]
    _count_banks(m, op, desc, tensor_type, dist, store=True)


@handles(ttg.LocalAllocOp)
def local_alloc(m, op, mask) -> None:
    """A new allocation per block (zeros: reading it before a store is not checked), the
    encoding's offset map cached per op; with a value, stored as ``local_store`` does."""
    mem_type = op.result.type
    shape = tuple(mem_type.get_alloc_shape())
    placed = m.cache.get(op)
    if placed is None:
        try:
            placed = m.cache[op] = tile_offsets(_encoding(m, op, mem_type), shape)
        except LayoutError as err:
            m.fail(op, str(err))
    offsets, span = placed
    if span > MAX_SHARED_ELEMENTS:
        m.fail(op, f"allocates {span} elements per block, more than {MAX_SHARED_ELEMENTS}")
    dtype = element_dtype(mem_type.element_type)
    name = f"%{op.result.name_hint}" if op.result.name_hint else "local_alloc"
    allocation = Allocation(name, np.zeros((m.chunk.blocks, span), dtype))
    desc = MemDesc(allocation, shape, offsets[None, :])
    if tuple(mem_type.get_shape()) != shape:
        m.fail(op, f"result shape {list(mem_type.get_shape())} differs from its allocation shape {list(shape)}")
    if op.src is not None:
        _check_tensor(m, op, desc, op.src.type, mem_type)
        _write(m, op, desc, m.value(op.src), op.src.type, mask)
    m.env[op.result] = desc


@handles(ttg.LocalDeallocOp)
def local_dealloc(m, op, mask) -> None:
    m.value(op.src).allocation.freed = True


@handles(ttg.LocalStoreOp)
def local_store(m, op, mask) -> None:
    """Each active thread writes its registers at their elements' offsets."""
    desc = _desc(m, op, op.dst)
    _check_tensor(m, op, desc, op.src.type, op.dst.type)
    _write(m, op, desc, m.value(op.src), op.src.type, mask)


@handles(ttg.LocalLoadOp)
def local_load(m, op, mask) -> None:
    """Register r of each thread reads its element's offset (any distributed encoding of
    the memdesc's shape: the result's encoding decides who reads what)."""
    desc = _desc(m, op, op.src)
    _check_tensor(m, op, desc, op.result.type, op.src.type)
    locations, dist = _locations(m, op, desc, op.result.type)
    check_pending(m, op, desc, locations, "reads", dist.coords)
    m.env[op.result] = desc.allocation.data.reshape(-1)[locations].reshape(-1, dist.registers)
    _count_banks(m, op, desc, op.result.type, dist, store=False)


@handles(ttg.MemDescIndexOp)
def memdesc_index(m, op, mask) -> None:
    """Sub-buffer ``index`` along dim 0 (the same in every thread of a block)."""
    desc = _desc(m, op, op.src)
    grid = desc.grid().reshape(desc.offsets.shape[0], desc.shape[0], -1)
    index = m.value(op.index).astype(np.int64)
    if index.shape[0] > 1:
        per_block = index.reshape(m.chunk.blocks, -1)
        if (per_block != per_block[:, :1]).any():
            m.fail(op, "the index differs between threads of a block")
        index = per_block[:, 0]
    bad = (index < 0) | (index >= desc.shape[0])
    if bad.any():
        block = int(np.flatnonzero(bad)[0]) if index.size > 1 else 0
        m.fail(op, f"index {int(index[block])} out of bounds for {desc.shape[0]} sub-buffers",
               block * m.geometry.slots_per_block)
    if index.size == 1:
        key = ("memdesc_index", op, id(desc), int(index[0]))
        view = _cached_view(m, key, desc)
        if view is None:
            view = desc.view(desc.shape[1:], np.ascontiguousarray(grid[:, int(index[0])]))
            m.cache[key] = (desc, view)
        m.env[op.result] = view
        return
    else:
        grid = np.broadcast_to(grid, (m.chunk.blocks, *grid.shape[1:]))
        offsets = grid[np.arange(m.chunk.blocks), index]
    m.env[op.result] = desc.view(desc.shape[1:], np.ascontiguousarray(offsets))


@handles(ttg.MemDescSubsliceOp)
def memdesc_subslice(m, op, mask) -> None:
    """The box of the result's shape at ``offsets``."""
    desc = _desc(m, op, op.src)
    key = ("memdesc_subslice", op, id(desc))
    view = _cached_view(m, key, desc)
    if view is not None:
        m.env[op.result] = view
        return
    origin = [int(v) for v in op.offsets.get_values()]
    shape = tuple(op.result.type.get_shape())
    if len(origin) != len(desc.shape) or any(o < 0 or o + s > d for o, s, d in zip(origin, shape, desc.shape)):
        m.fail(op, f"a {list(shape)} box at {origin} does not fit the memdesc's {list(desc.shape)}")
    box = desc.grid()[(slice(None), *(slice(o, o + s) for o, s in zip(origin, shape)))]
    view = m.env[op.result] = desc.view(shape, box.reshape(box.shape[0], -1))
    m.cache[key] = (desc, view)


@handles(ttg.MemDescTransOp)
def memdesc_trans(m, op, mask) -> None:
    """Result dim i is operand dim order[i] (the same offsets, permuted)."""
    desc = _desc(m, op, op.src)
    order = [int(v) for v in op.order.get_values()]
    if sorted(order) != list(range(len(desc.shape))):
        m.fail(op, f"order {order} is not a permutation of {len(desc.shape)} dims")
    grid = desc.grid().transpose(0, *(o + 1 for o in order))
    m.env[op.result] = desc.view(grid.shape[1:], np.ascontiguousarray(grid).reshape(grid.shape[0], -1))


@handles(ttg.MemDescReshapeOp)
def memdesc_reshape(m, op, mask) -> None:
    """The same elements in row-major order, another shape."""
    desc = _desc(m, op, op.src)
    shape = tuple(op.result.type.get_shape())
    if int(np.prod(shape)) != desc.offsets.shape[1]:
        m.fail(op, f"reshape of {list(desc.shape)} to {list(shape)} changes the element count")
    m.env[op.result] = desc.view(shape, desc.offsets)


# ----------------------------------------------------------------------- async copies


@handles(ttg.AsyncCopyGlobalToLocalOp)
def async_copy(m, op, mask) -> None:
    """``cp.async``: the active threads read their pointers now (masked elements take
    ``other``, else 0) and the data lands in shared memory at the ``async_wait`` covering
    the group it is committed in; until then its destination is pending."""
    from layoutkit.backends.simt.ops.tt import _active

    desc = _desc(m, op, op.result)
    src_type = op.src.type
    pointers = full(m.value(op.src), m.chunk.threads)
    active = _active(m, _PointerOp(op.src), mask, op.mask)
    pointers = np.broadcast_to(pointers, np.broadcast_shapes(pointers.shape, active.shape))
    buffer, index = m.element_index(op, pointers, active, src_type)
    values = buffer.data[index]
    if not active.all():  # every element read: ``other`` is not taken
        other = m.value(op.other) if op.other is not None else np.zeros((1, 1), values.dtype)
        values = np.where(active, values, other)
    locations, dist = _locations(m, op, desc, src_type)
    check_pending(m, op, desc, locations, "overwrites", dist.coords)
    values = np.broadcast_to(values.reshape(m.chunk.blocks, -1, dist.registers), locations.shape)
    if m.full:  # every thread writes: no selection
        written = (locations.reshape(-1), np.ascontiguousarray(values).reshape(-1))
    else:
        writes = np.broadcast_to(mask.reshape(m.chunk.blocks, -1, 1), locations.shape)
        written = (locations[writes], values[writes])
    _async(m).issue(Copy(op, desc.allocation, *written, bounds=_bounds(m, desc)))
    m.env[op.token] = _TOKEN


class _PointerOp:
    """What ``tt`` handlers' ``_active`` reads of a load: its pointer operand."""

    def __init__(self, ptr) -> None:
        self.ptr = ptr


@handles(ttg.AsyncCommitGroupOp)
def async_commit_group(m, op, mask) -> None:
    _async(m).commit()
    m.env[op.result] = _TOKEN


@handles(ttg.AsyncWaitOp)
def async_wait(m, op, mask) -> None:
    """``cp.async.wait_group num``: every group but the ``num`` newest has landed."""
    num = op.num
    num = int(getattr(getattr(num, "value", num), "data", num))
    _async(m).wait(num)
    m.env[op.result] = _TOKEN
