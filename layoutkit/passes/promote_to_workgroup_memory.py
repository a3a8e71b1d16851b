"""``promote-to-workgroup-memory{workgroup-size=x,y,z}``: the input tiles of each tiled op
with a reduction loop that several threads read (a matmul's A and B; not a row sum's
input, which each thread reads alone) are copied into
``#gpu.address_space<workgroup>`` buffers, with ``gpu.barrier`` before the copies (the
previous K step's reads are done) and after them (the tile is complete), and the op reads
the copies.

Each buffer is allocated once per block tile at the tile's largest shape, its rows padded
by the number of elements that makes both of its accesses cheapest in shared-memory
wavefronts (:func:`~layoutkit.analysis.shared_wavefronts` on the exact addresses):

- the copy's stores, spread over all threads of the workgroup
  (:class:`~layoutkit.passes.workgroup_copy.CopyPlan`, ``distribute-to-threads`` emits it)
  with the widest vector the global tile and the padded row allow;
- the op's reads, one warp at a time, threads laid out as ``distribute-to-threads`` will
  (``workgroup-size``, default one thread per element of the tile).

Ties go to the wider vector, then the smaller padding. Example: a 32x32 A tile read as
``A[ty, k]`` by an 8x8 workgroup: a warp reads 4 rows at once, 32 words apart, all in
bank 0 (4 wavefronts where 1 would do); rows of 36 elements put them in banks 0, 4, 8, 12
(1 wavefront) and keep 16-byte copies (36 is a multiple of 4): padding 4. The seed's 8x8x4
tiles need no padding. A tile is left in global memory when the buffers of the block tile
would pass :data:`SHARED_BYTES`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import DenseArrayBase, MemRefType, ModuleOp, StridedLayoutAttr, i64
from xdsl.dialects.linalg import ops as linalg_ops
from xdsl.passes import ModulePass

from layoutkit.analysis import shared_wavefronts
from layoutkit.core.indices import unravel
from layoutkit.ir.dialects.upstream import gpu
from layoutkit.ir.dialects.upstream.scf import ForallOp
from layoutkit.passes.distribute_to_threads import (
    _size_of,
    _upper_bound,
    check_workgroup_size,
    thread_counts,
)
from layoutkit.passes.linalg_structure import (
    is_structured,
    loop_kinds,
    mapping_kind,
    parse_attribute,
    reused_by_threads,
)
from layoutkit.passes.workgroup_copy import CopyPlan, vector_width

#: shared memory one block tile may use for promoted tiles (the CUDA static limit)
SHARED_BYTES = 48 * 1024
#: paddings tried, in elements per row
MAX_PADDING = 32
WARP = 32


@dataclass(frozen=True)
class Padding:
    """A padding choice: elements added per row, the copy's vector width and the wavefronts
    of the copy's stores and of the op's reads (with their conflict-free lower bounds)."""

    padding: int
    vector: int
    store_wavefronts: tuple[int, int]
    read_wavefronts: tuple[int, int]

    @property
    def conflict_free(self) -> bool:
        return (self.store_wavefronts[0] == self.store_wavefronts[1]
                and self.read_wavefronts[0] == self.read_wavefronts[1])


def _warps(addresses: np.ndarray) -> np.ndarray:
    """``(..., threads)`` byte addresses to ``(..., warps, 32)`` (-1: no thread)."""
    threads = addresses.shape[-1]
    pad = -threads % WARP
    if pad:
        addresses = np.concatenate([addresses, np.full(addresses.shape[:-1] + (pad,), -1)], axis=-1)
    return addresses.reshape(addresses.shape[:-1] + (-1, WARP))


def _row_major(shape) -> np.ndarray:
    return np.array([math.prod(shape[i + 1:]) for i in range(len(shape))], np.int64)


def read_coordinates(op, position: int, counts: dict[int, int]) -> np.ndarray:
    """``(threads, rank)`` coordinates of operand ``position`` each thread of the workgroup
    reads first (thread ``l``'s loop indices: its thread coordinates on the spread loops, 0
    elsewhere; later iterations shift all threads alike)."""
    amap = op.get_indexing_maps().data[position].data
    threads = math.prod(counts.values())
    ivs = [np.zeros(threads, np.int64) for _ in range(amap.num_dims)]
    ids = unravel(np.arange(threads), list(counts.values()))
    for d, t in zip(counts, ids):
        ivs[d] = t.astype(np.int64)
    coords = amap.eval(ivs, [])
    return np.stack([np.broadcast_to(np.asarray(c, np.int64), (threads,)) for c in coords], axis=-1)


def choose_padding(view, shape: tuple[int, ...], reads: np.ndarray, threads: int) -> Padding:
    """The padding of a ``shape`` workgroup buffer copied from subview ``view`` and read at
    ``reads`` (``(threads, rank)``): fewest wavefronts, then widest vector, then least padding."""
    element_bytes = max(1, view.type.element_type.bitwidth // 8)
    best = None
    for padding in range(0, MAX_PADDING + 1) if len(shape) > 1 else [0]:
        padded = (*shape[:-1], shape[-1] + padding)
        strides = _row_major(padded)
        width = vector_width(view, shape, padded[-1] if len(shape) > 1 else None)
        plan = CopyPlan(shape, width, threads)
        stores = plan.coordinates()
        store_at = np.where(stores[..., 0] >= 0, (stores * strides).sum(-1) * element_bytes, -1)
        store = shared_wavefronts(_warps(store_at), width * element_bytes)
        read = shared_wavefronts(_warps((reads * strides).sum(-1) * element_bytes), element_bytes)
        choice = Padding(padding, width, (int(store[0].sum()), int(store[1].sum())),
                         (int(read[0].sum()), int(read[1].sum())))
        key = (choice.store_wavefronts[0] + choice.read_wavefronts[0], -width, padding)
        if best is None or key < best[0]:
            best = (key, choice)
    return best[1]


def _workgroup_type(element, shape, strides=None, dynamic=None) -> MemRefType:
    space = parse_attribute("#gpu.address_space<workgroup>")
    if strides is None:
        return MemRefType(element, list(shape), memory_space=space)
    return MemRefType(element, list(dynamic), StridedLayoutAttr(list(strides), 0), space)


def promote(forall, workgroup_size: tuple[int, ...]) -> int:
    """Promote the input tiles of each op with a reduction loop in block tile ``forall``."""
    used = 0
    count = 0
    entry = forall.body.block
    last_alloc = None
    for op in [o for o in forall.walk() if is_structured(o) and "reduction" in loop_kinds(o)]:
        counts = thread_counts(op, workgroup_size)
        threads = math.prod(counts.values())
        copies = []
        for position, value in enumerate(list(op.inputs)):
            view = value.owner
            if not isinstance(view, memref.SubviewOp) or gpu.is_workgroup(view.source.type.memory_space):
                continue
            if not reused_by_threads(op.get_indexing_maps().data[position].data, list(counts)):
                continue  # each element read by one thread: a copy would only add traffic
            shape = tuple(_upper_bound(_size_of(value, d)) for d in range(len(value.type.get_shape())))
            choice = choose_padding(value, shape, read_coordinates(op, position, counts), threads)
            padded = (*shape[:-1], shape[-1] + choice.padding)
            element = value.type.element_type
            size = math.prod(padded) * max(1, element.bitwidth // 8)
            if used + size > SHARED_BYTES:
                continue
            used += size
            alloc = memref.AllocOp.get(element, shape=padded, memory_space=parse_attribute(
                "#gpu.address_space<workgroup>"))
            alloc.memref.name_hint = f"shared{position}"
            if last_alloc is None:
                entry.insert_op_before(alloc, entry.first_op)
            else:
                entry.insert_op_after(alloc, last_alloc)
            last_alloc = alloc
            sizes = view.static_sizes.get_values()
            tile = memref.SubviewOp(alloc.memref, [], list(view.sizes), [],
                                    DenseArrayBase.from_list(i64, [0] * len(shape)),
                                    DenseArrayBase.from_list(i64, sizes),
                                    DenseArrayBase.from_list(i64, [1] * len(shape)),
                                    _workgroup_type(element, shape, _row_major(padded).tolist(), sizes))
            copy = linalg_ops.CopyOp([value], [tile.result], res=[])
            op.parent_block().insert_ops_before([tile, copy], op)
            op.operands[position] = tile.result
            copies.append(copy)
        if copies:
            block = op.parent_block()
            block.insert_op_before(gpu.BarrierOp(), copies[0])
            block.insert_op_before(gpu.BarrierOp(), op)
            count += len(copies)
    return count


@dataclass(frozen=True)
class PromoteToWorkgroupMemoryPass(ModulePass):
    """Copy matmul-like ops' operand tiles into workgroup memory (padded, barriers around)."""

    name = "promote-to-workgroup-memory"
    workgroup_size: tuple[int, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_workgroup_size(self.workgroup_size)
        for function in op.body.block.ops:
            if isinstance(function, func.FuncOp):
                for forall in [f for f in function.walk() if isinstance(f, ForallOp)]:
                    if mapping_kind(forall.mapping) == "block":
                        promote(forall, self.workgroup_size)
