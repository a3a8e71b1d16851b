"""TTGIR on the lockstep machine: Triton kernels (``tt.func``) run with their layouts.

A tensor value of type ``tensor<4x256xf32, #blocked>`` lives distributed as its encoding
says: a numpy array of shape (threads, registers), thread ``t`` being lane ``t % 32`` of
warp ``(t % slots) // 32`` of block ``t // slots`` (as every value of
:mod:`~layoutkit.backends.simt.machine`), and register ``r`` of that thread holding the
element at ``layout.table(shape)[r, lane, warp, 0]``. A tensor every thread holds equally
(a splat constant) has shape (1, 1). Scalars are as in the machine: (threads,) or (1,).

Worked example: ``#blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]}>``
on ``tensor<1024xi32>``: 4 registers per thread; thread 37 of block 1 (slot 37: warp 1, lane
5) holds elements 148..151 in registers 0..3, at row 128 + 37 of the value array.

Pointers are int64: ``(buffer index + 1) << 40`` plus a byte offset into that argument's
array (``POINTER_SHIFT``), so that ``tt.addptr`` is an add and pointers flow through
``scf.for``/``select`` like any integer. Ops that only move data inside threads
(``broadcast``, ``expand_dims``, ``reshape``, ``trans``, ``join``, ``split``) are gathers
along the register axis (:func:`in_thread`), an error when the result's encoding asks for
an element its thread does not hold (as on the GPU, where such IR fails to lower).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from layoutkit.backends.simt.dtypes import element_dtype
from layoutkit.backends.simt.launch import Chunk, Geometry, _scalar, launch_dims, order_arguments
from layoutkit.backends.simt.machine import Machine, Stats, full
from layoutkit.backends.simt.memory import Buffer
from layoutkit.errors import LayoutError

POINTER_SHIFT = 40  # a pointer is (buffer + 1) << 40 | byte offset (offsets up to 512 GiB)
_HALF = 1 << (POINTER_SHIFT - 1)
MAX_THREADS_PER_CHUNK = 1 << 16  # thread slots of one chunk (tensors are (threads, registers))


@dataclass(frozen=True)
class Distribution:
    """Where a tensor's elements live: for each thread slot of a block and register, the
    element's coordinates ``coords`` (slots, registers, rank) and its row-major index
    ``linear`` (slots, registers); ``holder[e]``: the first (slot x registers + register)
    holding element e, so that gathers replace scatters both ways."""

    shape: tuple[int, ...]
    coords: np.ndarray
    linear: np.ndarray
    holder: np.ndarray

    @property
    def registers(self) -> int:
        return self.linear.shape[1]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


@lru_cache(maxsize=512)
def _distribution(layout, shape: tuple[int, ...], slots: int) -> Distribution:
    table = layout.table(shape)  # (register, lane, warp, block, rank)
    if table.ndim != 5 or table.shape[3] != 1:
        raise LayoutError(f"encoding: {layout} is not a one-CTA distributed layout of {shape}")
    registers, lanes, warps = table.shape[:3]
    if lanes * warps != slots:
        raise LayoutError(f"encoding: {layout} spreads over {warps} warps of {lanes} lanes, the launch "
                          f"has {slots} threads per block (ttg.num-warps x ttg.threads-per-warp)")
    coords = table[..., 0, :].transpose(2, 1, 0, 3).reshape(slots, registers, len(shape))
    linear = np.ravel_multi_index(tuple(np.moveaxis(coords, -1, 0)), shape) if shape else np.zeros(
        (slots, registers), np.int64)
    holder = np.full(int(np.prod(shape, dtype=np.int64)), -1, np.int64)
    flat = linear.reshape(-1)
    holder[flat[::-1]] = np.arange(flat.size - 1, -1, -1)  # the lowest position wins
    if (holder < 0).any():
        raise LayoutError(f"encoding: {layout} does not hold every element of {shape}")
    linear = np.ascontiguousarray(linear)
    for array in (coords, linear, holder):
        array.setflags(write=False)
    return Distribution(shape, coords, linear, holder)


def tensor_type(type_: Attribute) -> TensorType | None:
    return type_ if isinstance(type_, TensorType) else None


class TritonMachine(Machine):
    """The machine running a ``tt.func``: pointer arguments are ``buffers``."""

    batches_loops = False  # its tensors are distributed values: loops run one iteration at a time

    def __init__(self, kernel, chunk: Chunk, values: list, stats: Stats, buffers: list[Buffer]):
        super().__init__(kernel, chunk, values, stats)
        self.buffers = buffers
        self._distributions: dict[int, tuple] = {}  # id of a tensor type -> (type, distribution)

    def _plan(self, block) -> list:
        """The machine's steps; with a cost recorder, each handler wrapped to count its op."""
        steps = super()._plan(block)
        recorder = self.stats.recorder
        if recorder is None:
            return steps
        return [(handler if handler is None else recorder.wrap(handler, op, block), op) for handler, op in steps]

    # ----------------------------------------------------------------- distributions
    def distribution(self, op, type_: Attribute) -> Distribution:
        """The distribution of tensor type ``type_`` (an error naming ``op`` if it has none),
        kept per type object for the run (the IR's types live as long as it)."""
        hit = self._distributions.get(id(type_))
        if hit is not None and hit[0] is type_:
            return hit[1]
        layout = getattr(getattr(type_, "encoding", None), "layout", None)
        if layout is None:
            self.fail(op, f"tensor type {type_} has no layout encoding")
        try:
            dist = _distribution(layout, tuple(type_.get_shape()), self.geometry.slots_per_block)
        except LayoutError as err:
            self.fail(op, str(err))
        self._distributions[id(type_)] = (type_, dist)
        return dist

    def per_thread(self, per_slot: np.ndarray) -> np.ndarray:
        """An array over the slots of one block, repeated for every block of the chunk."""
        return np.tile(per_slot, (self.chunk.blocks,) + (1,) * (per_slot.ndim - 1))

    def blocks_view(self, value: np.ndarray, registers: int) -> np.ndarray:
        """A tensor value as (blocks, slots, registers) (a uniform one broadcast)."""
        shape = (self.chunk.blocks, self.geometry.slots_per_block, registers)
        if value.shape[0] == 1:
            return np.broadcast_to(value.reshape(1, 1, -1), shape)
        return value.reshape(shape)

    def dense(self, op, value: np.ndarray, type_: Attribute) -> np.ndarray:
        """The whole tensor of each block, (blocks, *shape), from its distributed value."""
        dist = self.distribution(op, type_)
        if value.shape == (1, 1):
            return np.broadcast_to(value.reshape((1,) * (1 + len(dist.shape))),
                                   (self.chunk.blocks, *dist.shape))
        per_block = self.blocks_view(value, dist.registers).reshape(self.chunk.blocks, -1)
        return np.take(per_block, dist.holder, axis=1).reshape((self.chunk.blocks, *dist.shape))

    def distribute(self, op, dense: np.ndarray, type_: Attribute) -> np.ndarray:
        """Each block's tensor ``dense`` (blocks, *shape) spread over threads by ``type_``."""
        dist = self.distribution(op, type_)
        flat = dense.reshape(dense.shape[0], -1)
        return np.take(flat, dist.linear.reshape(-1), axis=1).reshape(-1, dist.registers)

    def in_thread(self, op, value: np.ndarray, src_type: Attribute, dst_type: Attribute,
                  source_of, key=None) -> np.ndarray:
        """The value of ``dst_type`` whose element at coordinates c is the element at
        ``source_of(c)`` of ``value`` (``src_type``), each read from a register of the
        same thread. ``source_of`` maps coordinates (..., dst rank) to (..., src rank).
        Example: broadcast 4x1 -> 4x8 in one blocked layout: c = (i, j) reads (i, 0).
        The gather is computed once per ``key`` (default: the op and ``dst_type``) and kept
        for the kernel; one that keeps every register in place returns ``value`` itself."""
        cache_key = ("in_thread", op, dst_type) if key is None else ("in_thread", key)
        gather = self.static.get(cache_key)
        if gather is None:
            gather = self.static[cache_key] = self._gather(op, src_type, dst_type, source_of)
        if value.shape == (1, 1) or gather is True:
            return value
        flat, src_registers, dst_registers = gather
        blocks = self.blocks_view(value, src_registers)
        return np.take(blocks.reshape(blocks.shape[0], -1), flat, axis=1).reshape(-1, dst_registers)

    def _gather(self, op, src_type, dst_type, source_of):
        """True when every destination register is its own source register; else (flat
        source index (slots, dst registers) into a block's (slots x src registers), src
        registers, dst registers)."""
        src = self.distribution(op, src_type)
        dst = self.distribution(op, dst_type)
        index = _gather_index(src, dst, source_of)
        if isinstance(index, tuple):
            slot, coord = index
            lane, warp = slot % self.geometry.warp_size, slot // self.geometry.warp_size
            self.fail(op, f"result element {coord} of warp {warp}, lane {lane} is not held by that "
                          f"thread in the operand's encoding (the op cannot move data between threads)")
        if src.registers == dst.registers and (index == np.arange(dst.registers)).all():
            return True
        flat = np.arange(index.shape[0])[:, None] * src.registers + index
        return flat, src.registers, dst.registers

    # ----------------------------------------------------------------- atomics
    def performers(self, op, mask: np.ndarray, type_: Attribute) -> np.ndarray:
        """Which elements of a value of ``type_`` perform an atomic among the active threads
        ``mask``: the first holder of each tensor element (copies held by other threads do
        not repeat it, as Triton predicates them off), the first active thread of each
        program for a scalar. Example: tensor<64xi32> over 128 threads x 2 registers: each
        element is held 4 times, performed once."""
        if isinstance(type_, TensorType):
            return mask[:, None] & self.per_thread(self._owners(op, type_))
        per_block = mask.reshape(-1, self.geometry.slots_per_block)
        first = np.zeros_like(per_block)
        first[np.arange(per_block.shape[0]), per_block.argmax(axis=1)] = True
        return (first & per_block).reshape(-1)

    def holders(self, op, old: np.ndarray, active: np.ndarray, type_: Attribute) -> np.ndarray:
        """An atomic's old values (one per ``active`` element, in order) as every thread
        holds them: each copy of a tensor element, and every thread of a program for a
        scalar, gets what its performer read."""
        values = np.zeros(active.shape, old.dtype)
        values[active] = old
        slots = self.geometry.slots_per_block
        if not isinstance(type_, TensorType):
            per_block = values.reshape(-1, slots)
            first = active.reshape(per_block.shape).argmax(axis=1)
            return np.repeat(per_block[np.arange(per_block.shape[0]), first], slots)
        dist = self.distribution(op, type_)
        owner = self._owners(op, type_)
        dense = np.zeros((self.chunk.blocks, dist.size), old.dtype)
        dense[:, dist.linear[owner]] = self.blocks_view(values, dist.registers)[:, owner]
        return dense[:, dist.linear].reshape(-1, dist.registers)

    def atomic(self, op, pointers, active, pointer_type: Attribute, type_: Attribute, apply) -> np.ndarray:
        """Run an atomic on the ``active`` elements of ``pointers`` (of ``pointer_type``) in
        (block, thread, register) order: ``apply(data, addresses, picked)`` updates memory and
        returns the old values (:mod:`~layoutkit.backends.simt.atomics`), ``picked(v)``
        selecting an operand's active elements. Returns the old values as every thread holds
        them (:meth:`holders`)."""
        shape = np.broadcast_shapes(pointers.shape, active.shape)
        pointers, active = np.broadcast_to(pointers, shape), np.broadcast_to(active, shape)
        buffer, index = self.element_index(op, pointers, active, pointer_type)
        data = self.pointee_data(buffer, pointer_type)

        def picked(value):
            return np.broadcast_to(full(value, shape[0]), shape)[active].astype(data.dtype)

        return self.holders(op, apply(data, index[active], picked), active, type_)

    def _owners(self, op, type_: Attribute) -> np.ndarray:
        """(slots, registers): True at the first holder of each element of a block's tensor."""
        owner = self.cache.get((op, "owner"))
        if owner is None:
            linear = self.distribution(op, type_).linear
            owner = np.zeros(linear.size, bool)
            owner[np.unique(linear.reshape(-1), return_index=True)[1]] = True
            owner = self.cache[(op, "owner")] = owner.reshape(linear.shape)
        return owner

    # ----------------------------------------------------------------- pointers
    def decode(self, op, pointers: np.ndarray) -> tuple[int, np.ndarray]:
        """(buffer index, byte offsets) of a pointer array into one argument's buffer."""
        which, offsets, _, _ = self._decode(op, pointers)
        return which, offsets

    def _decode(self, op, pointers: np.ndarray) -> tuple[int, np.ndarray, int, int]:
        """:meth:`decode` and the smallest and largest byte offset."""
        low, high = (int(pointers.min()), int(pointers.max())) if pointers.size > 1 else (int(pointers.flat[0]),) * 2
        first = (low + _HALF) >> POINTER_SHIFT
        if (high + _HALF) >> POINTER_SHIFT != first:  # tags grow with the pointer: equal ends, equal all
            self.fail(op, "a tensor of pointers into several arguments is not supported")
        if not 1 <= first <= len(self.buffers):
            self.fail(op, f"pointer {int(pointers.flat[0])} does not point into a kernel argument")
        base = first << POINTER_SHIFT
        return first - 1, pointers - base, low - base, high - base

    def element_index(self, op, pointers: np.ndarray, active: np.ndarray, type_: Attribute,
                      ) -> tuple[Buffer, np.ndarray]:
        """The buffer and element indices of an access through ``pointers`` (threads or 1,
        ...) by the ``active`` elements: out-of-bounds or misaligned accesses are reported
        with block, thread and element."""
        which, offsets, low, high = self._decode(op, pointers)
        buffer = self.buffers[which]
        itemsize = pointee_dtype(type_).itemsize  # a bitcast pointer reads its own type
        index = offsets >> (itemsize.bit_length() - 1) if itemsize & (itemsize - 1) == 0 else offsets // itemsize
        size = buffer.data.nbytes // itemsize
        if active.all() and low >= 0 and high < size * itemsize and (
                itemsize == 1 or not (offsets & (itemsize - 1)).any()):
            return buffer, index  # every element active, in bounds and aligned: nothing to report
        bad = ((offsets % itemsize != 0) | (index < 0) | (index >= size)) & active
        if bad.any():
            where = np.argwhere(np.broadcast_to(bad, np.broadcast_shapes(bad.shape, active.shape)))[0]
            thread = int(where[0])
            element = ""
            tensor = tensor_type(type_)
            if tensor is not None and len(where) > 1:
                dist = self.distribution(op, tensor)
                coord = tuple(int(c) for c in dist.coords[thread % self.geometry.slots_per_block, where[1]])
                element = f", element {coord}"
            offset = int(np.broadcast_to(offsets, bad.shape)[tuple(where)])
            self.fail(op, f"address {offset} bytes from '{buffer.name}' is "
                          f"{'misaligned' if offset % itemsize else 'out of bounds'} "
                          f"({size} elements of {itemsize} bytes){element}", thread)
        return buffer, np.where(active, index, 0)

    def pointee_data(self, buffer: Buffer, type_: Attribute) -> np.ndarray:
        """``buffer``'s elements as the pointee type of pointer type ``type_`` (a pointer
        bitcast from ``!tt.ptr<f32>`` to ``!tt.ptr<i32>`` reads the same bytes as i32)."""
        dtype = pointee_dtype(type_)
        return buffer.data if buffer.data.dtype == dtype else buffer.data.view(dtype)


def pointee_dtype(type_: Attribute) -> np.dtype:
    """The numpy dtype of what a pointer (or tensor of pointers) type points to."""
    from layoutkit.ir.dialects import tt

    return element_dtype(tt.element_type(type_).pointee)


def _gather_index(src: Distribution, dst: Distribution, source_of):
    """(slots, dst registers) source register per destination register, or (slot, coord)
    of the first element whose thread does not hold it."""
    needed = source_of(dst.coords)  # (slots, Rd, src rank)
    wanted = np.ravel_multi_index(tuple(np.moveaxis(needed, -1, 0)), src.shape) if src.shape else np.zeros(
        dst.linear.shape, np.int64)
    slots = src.linear.shape[0]
    keys = np.arange(slots)[:, None] * src.size + src.linear
    order = np.argsort(keys, axis=None, kind="stable")
    sorted_keys = keys.reshape(-1)[order]
    query = np.arange(slots)[:, None] * src.size + wanted
    found = np.minimum(np.searchsorted(sorted_keys, query), sorted_keys.size - 1)
    hit = sorted_keys[found] == query
    if not hit.all():
        slot, reg = np.argwhere(~hit)[0]
        return int(slot), tuple(int(c) for c in dst.coords[slot, reg])
    return (order[found] % src.registers).astype(np.int64)


# ----------------------------------------------------------------------- launch


def find_triton_kernel(module, name: str):
    """The ``tt.func`` called ``name`` of ``module``, or None."""
    from layoutkit.ir import outline
    from layoutkit.ir.dialects import tt

    for op in outline(module):
        if isinstance(op, tt.FuncOp) and op.sym_name.data == name:
            return op
    return None


def module_geometry(module, grid) -> Geometry:
    """Grid ``grid``; block of ``ttg.num-warps`` x ``ttg.threads-per-warp`` threads."""
    def attr(name: str, default: int) -> int:
        value = module.attributes.get(name)
        return default if value is None else int(value.value.data)

    warps, lanes = attr("ttg.num-warps", 4), attr("ttg.threads-per-warp", 32)
    if attr("ttg.num-ctas", 1) != 1:
        raise LayoutError(f"ttg.num-ctas: only one CTA per program is simulated, got {attr('ttg.num-ctas', 1)}")
    return Geometry(launch_dims("grid", grid), (warps * lanes, 1, 1), lanes)


def bind_triton_arguments(func, args: Mapping | Sequence) -> tuple[list, list[Buffer]]:
    """Values of the ``tt.func`` arguments: a pointer argument is a numpy array of the
    pointee's dtype (written in place), a scalar a number. Returns (values, buffers)."""
    from layoutkit.ir.dialects import tt

    params = list(func.body.blocks[0].args)
    names, ordered = order_arguments(params, args, f"kernel @{func.sym_name.data}")
    values: list = []
    buffers: list[Buffer] = []
    for name, arg, given in zip(names, params, ordered):
        if isinstance(arg.type, tt.PointerType):
            dtype = element_dtype(arg.type.pointee)
            if not isinstance(given, np.ndarray):
                raise LayoutError(f"args: argument '{name}' must be a numpy array for {arg.type}")
            if given.dtype != dtype:
                raise LayoutError(f"args: argument '{name}' has dtype {given.dtype}, {arg.type} needs {dtype}")
            if not given.flags.c_contiguous or not given.flags.writeable:
                raise LayoutError(f"args: argument '{name}' must be a writeable C-contiguous array")
            buffers.append(Buffer(name, "global", (given.size,), given.reshape(-1), arg.type))
            values.append(np.array([len(buffers) << POINTER_SHIFT], np.int64))
        else:
            values.append(_scalar(name, arg.type, given))
    return values, buffers


def run_triton(module, name: str, grid, args, stats: Stats, report: bool = False,
               text: str | None = None) -> float:
    """Run ``tt.func @name`` of ``module`` over ``grid``, chunk by chunk of blocks; with
    ``report``, ``stats.recorder`` counts every op (``text`` names the layout aliases)."""
    func = find_triton_kernel(module, name)
    if func is None:
        raise LayoutError(f"kernel: no tt.func named '{name}'")
    if report:
        from layoutkit.backends.simt.cost_report import Recorder

        stats.recorder = Recorder(func, module, text)
    geometry = module_geometry(module, grid)
    values, buffers = bind_triton_arguments(func, args)
    start = time.perf_counter()
    per_chunk = max(1, MAX_THREADS_PER_CHUNK // geometry.slots_per_block)
    for first in range(0, geometry.blocks, per_chunk):
        chunk = Chunk.of(geometry, first, min(per_chunk, geometry.blocks - first))
        TritonMachine(func, chunk, values, stats, buffers).run()
    return time.perf_counter() - start
