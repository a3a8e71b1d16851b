"""The lockstep SIMT machine: every SSA value is a numpy array over all threads of a launch.

A value of per-thread type ``vector<4x2xf16>`` is an array of shape (threads, 4, 2); a value
every thread holds equally (a constant, a load at a uniform address) has leading extent 1 and
broadcasts. ``threads`` counts every thread of every block in the chunk of blocks being run,
block-major, each block padded to whole warps: thread ``t`` is lane ``t % warp_size`` of
warp ``t // warp_size``; its block is ``t // threads_per_block_padded``. Example: block
(48, 1, 1), warp size 32 -> 64 slots per block; slot 50 of block 2 is t = 178, inactive.

Divergence is a mask (a bool per thread): ``scf.if`` runs each branch under its mask and
merges results with ``np.where``; loops run while any active thread continues. Stores write
only active threads; loads read only for active threads.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith, math, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr

from layoutkit.analysis.banks import shared_wavefronts
from layoutkit.backends.simt import mma as mma_fragments
from layoutkit.backends.simt.dtypes import element_dtype, is_float, unsigned, vector_shape
from layoutkit.backends.simt.errors import SimulationError
from layoutkit.backends.simt.launch import Chunk
from layoutkit.backends.simt.memory import Buffer, RaceTracker
from layoutkit.backends.simt.numerics import (
    BINARY,
    CMPF,
    CMPI,
    DIVISIONS,
    UNARY,
    float_to_int,
    identity_of,
    on_i1,
    reduce_kind,
    signed_i1,
    to_float,
)
from layoutkit.backends.simt.numerics import (
    fma as fma_rounded_once,
)
from layoutkit.ir import gpu, nvgpu
from layoutkit.ir.context import op_line

# per-op data read once from the IR (operands, shapes, dtypes) for the hot handlers, kept on
# the kernel op so that it lives exactly as long as the kernel
_STATIC_ATTRIBUTE = "_layoutkit_simt_static"


class Stats:
    """Counts of executed ops and thread-instructions (ops times active threads), and
    when asked, shared-memory wavefronts per op: {op: [wavefronts, ideal wavefronts]}."""

    def __init__(self, count_banks: bool = False) -> None:
        self.ops = 0
        self.thread_instructions = 0
        self.banks: dict[Operation, list[int]] | None = {} if count_banks else None


MAX_SHARED_BYTES = 227 * 1024  # shared memory per block of the largest GPUs (sm_90)
MAX_PRIVATE_BYTES = 2**33  # one private allocation over all threads of a chunk (8 GiB)


def bank_wavefronts(slots: np.ndarray, addresses: np.ndarray, access_bytes: int,
                    warp_size: int = 32) -> tuple[int, int]:
    """(wavefronts, lower bound) summed over warps and instructions for one shared-memory op,
    counted by :func:`layoutkit.analysis.shared_wavefronts` (the one bank model: 32 four-byte
    banks; 64-bit accesses in 2 phases of 16 lanes, 128-bit in 4 phases of 8).

    ``slots[i]`` is the thread slot of access row i (lane ``slot % warp_size`` of warp
    ``slot // warp_size``), ``addresses[i, k]`` its byte address in the block's shared memory
    for the op's k-th warp instruction (one per thread for a wide access, one per vector
    element otherwise), each ``access_bytes`` wide. Example: 32 lanes reading column 0 of a
    float[32][32] tile (addresses 128 * lane, 4 bytes) hit bank 0 with 32 words: 32
    wavefronts, lower bound 1; a float4 per lane at 16 * lane is 4 phases of 128 bytes: 4, 4.
    """
    if slots.size == 0:
        return 0, 0
    addresses = addresses.reshape(slots.size, -1)
    warps, warp_index = np.unique(slots // warp_size, return_inverse=True)
    requests = np.full((addresses.shape[1], warps.size, warp_size), -1, np.int64)
    requests[:, warp_index, slots % warp_size] = addresses.T
    wavefronts, lower = shared_wavefronts(requests, access_bytes)
    return int(wavefronts.sum()), int(lower.sum())


_WIDE_ACCESS_BYTES = (2, 4, 8, 16)  # a vector moved by one access (the CUDA backend's rule)


def _access_width(pattern: np.ndarray, itemsize: int) -> int:
    """Bytes each thread moves per instruction for a vector access whose elements lie at
    element offsets ``pattern`` from the first: the whole vector when contiguous and 2, 4, 8
    or 16 bytes (one ``float4`` / ``uint4`` / ... access, as emit_cuda prints it), else one
    element per instruction. ``[0, 1, 2, 3]`` of f32 -> 16; ``[0, 33]`` of f32 -> 4."""
    if pattern.size * itemsize in _WIDE_ACCESS_BYTES and np.array_equal(pattern, np.arange(pattern.size)):
        return pattern.size * itemsize
    return itemsize


def _full(value: np.ndarray, threads: int) -> np.ndarray:
    """``value`` with leading extent ``threads`` (broadcast if uniform)."""
    if value.shape[0] == threads:
        return value
    return np.broadcast_to(value, (threads, *value.shape[1:]))


def _threads_first(x: np.ndarray) -> np.ndarray:
    """View (*vector, threads) as (threads, *vector)."""
    return x.transpose(x.ndim - 1, *range(x.ndim - 1))


def _threads_last(x: np.ndarray) -> np.ndarray:
    """View (threads, *vector) as (*vector, threads)."""
    return x.transpose(*range(1, x.ndim), 0)


def _expand(cond: np.ndarray, ndim: int) -> np.ndarray:
    """A per-thread condition (threads,) shaped to broadcast against ``ndim``-dim values."""
    return cond.reshape(cond.shape + (1,) * (ndim - cond.ndim))


def _releases(entry: Block) -> list[list[SSAValue]]:
    """For each op of the kernel's entry block, the values no later op needs once it ran:
    entry-block values whose last use (anywhere inside) is under that op, and every value
    defined inside the op's regions. Keeps the live set small on big launches."""
    ops = list(entry.ops)
    position = {op: i for i, op in enumerate(ops)}

    def top(op: Operation) -> int:
        while op.parent_op() is not None and op not in position:
            op = op.parent_op()
        return position.get(op, len(ops) - 1)

    last: dict[SSAValue, int] = {}
    defined = [(value, 0) for value in entry.args]
    defined += [(r, i) for i, op in enumerate(ops) for r in op.results]
    for value, born in defined:
        last[value] = max((top(use.operation) for use in value.uses), default=born)
    releases: list[list[SSAValue]] = [[] for _ in ops]
    for value, i in last.items():
        releases[i].append(value)
    for i, op in enumerate(ops):
        for inner in op.walk():  # op itself first, then everything nested in it
            if inner is not op:
                releases[i].extend(inner.results)
            for region in inner.regions:
                for block in region.blocks:
                    releases[i].extend(block.args)
    return releases


class Machine:
    """Runs one kernel over one chunk of blocks."""

    def __init__(self, kernel: gpu.FuncOp, chunk: Chunk, globals_: list, stats: Stats):
        self.kernel = kernel
        self.chunk = chunk
        self.geometry = chunk.geometry
        self.stats = stats
        self.env: dict[SSAValue, object] = {}
        for arg, value in zip(kernel.body.blocks[0].args, globals_):
            self.env[arg] = value
        self.shared: list[Buffer] = []
        self._globals: dict[str, Buffer] = {}  # workgroup memref.global by symbol name
        self._shared_bytes = 0  # per block, all shared buffers so far
        self.full = False  # every thread slot active in the block being run
        self._offsets: dict = {}
        self._steps: dict[Block, list] = {}
        self._static: dict[Operation, tuple] = kernel.__dict__.setdefault(_STATIC_ATTRIBUTE, {})
        self._bases: dict[tuple, np.ndarray] = {}  # (id of a shared buffer, vector shape)
        self._mma_a = None  # (A fragments, shape, their matrices): reused while A is
        self.handlers: dict[type, Callable] = self._handlers()

    # ----------------------------------------------------------------- error reports
    def fail(self, op: Operation, message: str, thread: int | None = None) -> None:
        text = str(op).strip().splitlines()[0]
        line = op_line(op)
        where = f" (line {line})" if line else ""
        who = f": {self.chunk.where(thread)}" if thread is not None else ""
        raise SimulationError(f"kernel @{self.kernel.sym_name.data}: {text}{where}{who}: {message}")

    # ----------------------------------------------------------------- execution
    def run(self) -> None:
        """Run the kernel's body op by op, freeing each value after its last use there."""
        entry = self.kernel.body.blocks[0]
        steps = self._steps.get(entry)
        if steps is None:
            steps = self._steps[entry] = self._plan(entry)
        releases = self._static.get(entry)
        if releases is None:
            releases = self._static[entry] = _releases(entry)
        mask = self.chunk.valid.copy()
        count = int(mask.sum())
        self.full = count == self.chunk.threads
        env = self.env
        with np.errstate(all="ignore"):
            for (handler, op), dead in zip(steps, releases):
                self.stats.ops += 1
                self.stats.thread_instructions += count
                if handler is None:
                    break
                handler(op, mask)
                for value in dead:
                    env.pop(value, None)

    def run_block(self, block: Block, mask: np.ndarray) -> list | None:
        """Run ``block``'s ops under ``mask``; return the operands of its terminator, if any."""
        count = int(mask.sum())
        steps = self._steps.get(block)
        if steps is None:
            steps = self._steps[block] = self._plan(block)
        stats = self.stats
        outer_full = self.full
        self.full = count == self.chunk.threads
        try:
            for handler, op in steps:
                stats.ops += 1
                stats.thread_instructions += count
                if handler is None:
                    # terminators: yielded values; scf.condition gives [condition, *args]
                    return [self.env[v] for v in op.operands]
                handler(op, mask)
            return None
        finally:
            self.full = outer_full

    def _plan(self, block: Block) -> list:
        """(handler, op) per op of ``block``; handler None for its terminator."""
        steps = []
        for op in block.ops:
            if isinstance(op, (scf.YieldOp, scf.ConditionOp)):
                steps.append((None, op))
                break
            handler = self.handlers.get(type(op))
            if handler is None:
                self.fail(op, "operation not supported by the simulator")
            steps.append((handler, op))
        return steps

    def value(self, v: SSAValue) -> np.ndarray:
        return self.env[v]

    def _handlers(self) -> dict[type, Callable]:
        h: dict[type, Callable] = {}
        for cls in BINARY:
            h[cls] = self.division if cls in DIVISIONS else self.binary
        for cls in UNARY:
            h[cls] = self.unary
        h.update({
            arith.ConstantOp: self.constant, arith.CmpiOp: self.cmpi, arith.CmpfOp: self.cmpf,
            arith.SelectOp: self.select, arith.IndexCastOp: self.cast, arith.ExtSIOp: self.cast,
            arith.TruncIOp: self.cast, arith.ExtUIOp: self.extui, arith.SIToFPOp: self.cast,
            arith.UIToFPOp: self.extui, arith.FPToSIOp: self.fptoi, arith.FPToUIOp: self.fptoi,
            arith.ExtFOp: self.cast, arith.TruncFOp: self.cast, arith.BitcastOp: self.bitcast,
            math.FmaOp: self.fma, vector.FMAOp: self.fma,
            memref.LoadOp: self.load, memref.StoreOp: self.store, vector.LoadOp: self.load,
            vector.StoreOp: self.store, memref.AllocOp: self.alloc, memref.AllocaOp: self.alloc,
            memref.DeallocOp: lambda op, mask: None, memref.DimOp: self.dim,
            memref.GetGlobalOp: self.get_global,
            memref.CastOp: self.alias,
            vector.BroadcastOp: self.broadcast, vector.ExtractOp: self.extract,
            vector.InsertOp: self.insert, vector.ReductionOp: self.reduction,
            vector.BitcastOp: self.bitcast, vector.TransferReadOp: self.transfer_read,
            vector.TransferWriteOp: self.transfer_write,
            scf.ForOp: self.for_, scf.IfOp: self.if_, scf.WhileOp: self.while_,
            gpu.ThreadIdOp: self.thread_id, gpu.BlockIdOp: self.block_id,
            gpu.BlockDimOp: self.block_dim, gpu.GridDimOp: self.grid_dim,
            gpu.GlobalIdOp: self.global_id, gpu.LaneIdOp: self.lane_id,
            gpu.SubgroupSizeOp: self.subgroup_size, gpu.BarrierOp: self.barrier,
            gpu.ShuffleOp: self.shuffle, gpu.SubgroupReduceOp: self.subgroup_reduce,
            gpu.ReturnOp: lambda op, mask: None, nvgpu.MmaSyncOp: self.mma,
        })
        return h

    # ----------------------------------------------------------------- arith / math
    def constant(self, op, mask) -> None:
        attr = op.value
        dtype = element_dtype(op.result.type)
        if isinstance(attr, (IntegerAttr, FloatAttr)):
            data = attr.value.data
            if dtype == np.bool_:
                data = bool(data & 1)
            out = np.array([data]).astype(dtype) if not is_float(dtype) else np.array([data], dtype)
        elif isinstance(attr, DenseIntOrFPElementsAttr):
            shape = vector_shape(op.result.type)
            values = np.array(attr.get_values())
            if dtype == np.bool_:
                values = values.astype(np.int64) & 1
            values = values.astype(np.float64).astype(dtype) if is_float(dtype) else values.astype(dtype)
            out = np.broadcast_to(values, shape).copy()[None] if values.size == 1 else values.reshape((1, *shape))
        else:
            self.fail(op, f"constant attribute {attr} not supported")
        self.env[op.result] = out

    def binary(self, op, mask) -> None:
        lhs, rhs, result, function, dtype = self._binary_info(op)
        env = self.env
        out = function(env[lhs], env[rhs])
        env[result] = np.asarray(out).astype(dtype, copy=False)

    def _binary_info(self, op) -> tuple:
        """(lhs, rhs, result, function, result dtype) of a binary op, read once."""
        info = self._static.get(op)
        if info is None:
            dtype = element_dtype(op.results[0].type)
            function = BINARY[type(op)]
            if dtype == np.bool_:
                function = on_i1(function)
            info = self._static[op] = (op.operands[0], op.operands[1], op.results[0], function, dtype)
        return info

    def division(self, op, mask) -> None:
        """An integer division or remainder; a zero divisor of an active thread (undefined
        behaviour in MLIR, a garbage value on GPUs) is reported."""
        lhs, rhs, result, function, dtype = self._binary_info(op)
        divisor = self.env[rhs]
        zero = divisor == 0
        if zero.ndim > 1:
            zero = zero.reshape(zero.shape[0], -1).any(axis=1)
        zero = zero & mask if zero.shape[0] == mask.shape[0] else (mask & zero[0])
        if zero.any():
            self.fail(op, "integer division by zero", int(np.flatnonzero(zero)[0]))
        self.env[result] = np.asarray(function(self.env[lhs], divisor)).astype(dtype, copy=False)

    def unary(self, op, mask) -> None:
        a = self.value(op.operands[0])
        self.env[op.results[0]] = np.asarray(UNARY[type(op)](a)).astype(a.dtype, copy=False)

    def fma(self, op, mask) -> None:
        a, b, c = (self.value(v) for v in op.operands)
        self.env[op.results[0]] = fma_rounded_once(a, b, c)

    def cmpi(self, op, mask) -> None:
        a, b = signed_i1(self.value(op.lhs)), signed_i1(self.value(op.rhs))
        name = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        if name.startswith("u"):
            a, b = a.view(unsigned(a.dtype)), b.view(unsigned(b.dtype))
            name = "s" + name[1:]
        self.env[op.result] = CMPI[name](a, b)

    def cmpf(self, op, mask) -> None:
        a, b = self.value(op.lhs), self.value(op.rhs)
        name = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        nan = np.isnan(a) | np.isnan(b)
        if name in ("false", "true"):
            out = np.full(np.broadcast_shapes(a.shape, b.shape), name == "true")
        elif name == "ord":
            out = ~nan
        elif name == "uno":
            out = nan
        elif name == "one":
            out = (a != b) & ~nan
        elif name == "une":
            out = a != b
        elif name.startswith("o"):
            out = CMPF[name](a, b)
        else:
            out = CMPF["o" + name[1:]](a, b) | nan
        self.env[op.result] = out

    def select(self, op, mask) -> None:
        cond = self.value(op.cond)
        a, b = self.value(op.lhs), self.value(op.rhs)
        ndim = max(a.ndim, b.ndim)
        self.env[op.result] = np.where(_expand(cond, ndim) if cond.ndim < ndim else cond, a, b)

    def cast(self, op, mask) -> None:
        """index_cast, extsi, trunci: numpy's integer conversions wrap; i1 is signed (true
        extends to -1, truncation to i1 keeps the low bit). sitofp, extf, truncf: rounded
        once to nearest even (:func:`to_float`)."""
        a = self.value(op.operands[0])
        dtype = element_dtype(op.results[0].type)
        if is_float(dtype):
            out = to_float(a, dtype)
        elif dtype == np.bool_:
            out = (a & 1).astype(np.bool_) if a.dtype != np.bool_ else a
        else:
            out = signed_i1(a).astype(dtype)
        self.env[op.results[0]] = out

    def extui(self, op, mask) -> None:
        """extui, index_castui and uitofp: the operand's bits read as unsigned (i1 true -> 1)."""
        a = self.value(op.operands[0])
        dtype = element_dtype(op.results[0].type)
        bits = a.view(unsigned(a.dtype)) if a.dtype != np.bool_ else a.astype(np.uint8)
        self.env[op.results[0]] = to_float(bits, dtype) if is_float(dtype) else bits.astype(dtype)

    def fptoi(self, op, mask) -> None:
        a = self.value(op.operands[0])
        dtype = element_dtype(op.results[0].type)
        self.env[op.results[0]] = float_to_int(a, dtype, signed=isinstance(op, arith.FPToSIOp))

    def bitcast(self, op, mask) -> None:
        a = self.value(op.operands[0])
        dtype = element_dtype(op.results[0].type)
        shape = vector_shape(op.results[0].type)
        self.env[op.results[0]] = np.ascontiguousarray(a).view(dtype).reshape((a.shape[0], *shape))

    # ----------------------------------------------------------------- gpu ids
    def _id(self, op, arrays) -> None:
        dim = "xyz".index(op.dimension.data)
        self.env[op.result] = arrays[dim]

    def thread_id(self, op, mask) -> None:
        self._id(op, self.chunk.thread_xyz)

    def block_id(self, op, mask) -> None:
        self._id(op, self.chunk.block_xyz)

    def block_dim(self, op, mask) -> None:
        self._id(op, [np.array([d], np.int64) for d in self.geometry.block])

    def grid_dim(self, op, mask) -> None:
        self._id(op, [np.array([d], np.int64) for d in self.geometry.grid])

    def global_id(self, op, mask) -> None:
        dim = "xyz".index(op.dimension.data)
        c = self.chunk
        self.env[op.result] = c.block_xyz[dim] * self.geometry.block[dim] + c.thread_xyz[dim]

    def lane_id(self, op, mask) -> None:
        self.env[op.result] = self.chunk.lane

    def subgroup_size(self, op, mask) -> None:
        self.env[op.result] = np.array([self.geometry.warp_size], np.int64)

    # ----------------------------------------------------------------- memory
    def alloc(self, op, mask) -> None:
        type_ = op.memref.type
        if op.dynamic_sizes:
            self.fail(op, "dynamic allocation sizes are not simulated")
        if gpu.is_workgroup(type_.memory_space) and isinstance(op, memref.AllocOp):
            buffer = self._shared_buffer(op, op.memref.name_hint or "shared", type_)
        else:
            size = int(np.prod(type_.get_shape(), dtype=np.int64))
            dtype = element_dtype(type_)
            total = size * dtype.itemsize * self.chunk.threads
            if total > MAX_PRIVATE_BYTES:
                self.fail(op, f"private memory of {size * dtype.itemsize} bytes per thread for "
                              f"{self.chunk.threads} threads needs {total} bytes; the simulator "
                              f"holds at most {MAX_PRIVATE_BYTES} per allocation")
            data = np.zeros((size, self.chunk.threads), dtype)  # element-major: see load()
            buffer = Buffer(op.memref.name_hint or "local", "private", tuple(type_.get_shape()), data,
                            str(type_))
        self.env[op.memref] = buffer

    def get_global(self, op, mask) -> None:
        """``memref.get_global @name`` of a workgroup ``memref.global``: the block's copy of
        it, the same buffer for every get_global of that name."""
        type_ = op.memref.type
        if not gpu.is_workgroup(type_.memory_space):
            self.fail(op, "only memref.global in #gpu.address_space<workgroup> is simulated")
        name = op.name_.root_reference.data
        buffer = self._globals.get(name)
        if buffer is None:
            buffer = self._globals[name] = self._shared_buffer(op, name, type_)
        self.env[op.memref] = buffer

    def _shared_buffer(self, op, name: str, type_) -> Buffer:
        """Shared memory of memref type ``type_``: one copy per block of the chunk."""
        shape = tuple(type_.get_shape())
        size = int(np.prod(shape, dtype=np.int64))
        dtype = element_dtype(type_)
        self._shared_bytes += size * dtype.itemsize
        if self._shared_bytes > MAX_SHARED_BYTES:
            self.fail(op, f"shared memory of {self._shared_bytes} bytes per block exceeds the GPU "
                          f"limit of {MAX_SHARED_BYTES} (227 KiB, sm_90)")
        blocks = self.chunk.blocks
        data = np.zeros((blocks, size), dtype)
        buffer = Buffer(name, "shared", shape, data, str(type_), RaceTracker(blocks, size))
        self.shared.append(buffer)
        return buffer

    def alias(self, op, mask) -> None:
        self.env[op.results[0]] = self.env[op.operands[0]]

    def dim(self, op, mask) -> None:
        buffer: Buffer = self.env[op.source]
        index = self.value(op.index)
        if np.any((index < 0) | (index >= len(buffer.shape))):
            self.fail(op, f"dimension {index.ravel()[0]} out of range for rank {len(buffer.shape)}")
        self.env[op.result] = np.asarray(buffer.shape, np.int64)[index]

    def _addresses(self, op, buffer: Buffer, indices, vshape, mask) -> np.ndarray:
        """Flat element offsets, shape (threads or 1, *vshape), of an access.

        Checks bounds for active threads: each index within its dimension, and a vector
        access of shape (..., n) starting at index i in the last dims within them too.
        Example: memref<4x8xf32>, indices (1, 6), vector<2xf32>: offsets [14, 15].
        """
        shape = buffer.shape
        strides = buffer.strides
        rank = len(shape)
        if len(indices) != rank:
            self.fail(op, f"expected {rank} indices, got {len(indices)}")
        lead = rank - len(vshape)
        flat = None
        suspect = False
        for d in range(rank):
            index = indices[d]
            limit = shape[d] - (vshape[d - lead] if d >= lead else 1)  # largest valid start
            if index.shape[0] == 1:
                start = int(index[0])
                suspect = suspect or start < 0 or start > limit
            elif not suspect:
                # one unsigned compare catches negative indices too
                suspect = limit < 0 or bool((index.view(np.uint64) > limit).any())
            stride = strides[d]
            term = index if stride == 1 else index * stride
            flat = term if flat is None else flat + term
        if suspect:
            self._check_bounds(op, buffer, indices, vshape, mask)
        if flat is None:  # rank 0
            flat = np.zeros(1, np.int64)
        if vshape:
            offsets = self._vector_offsets(buffer, vshape, flat.shape[0])
            if flat.shape[0] == 1:
                flat = flat.reshape((1,) + (1,) * len(vshape)) + offsets
            else:
                # repeat + add on equal shapes: numpy's broadcast over a short inner axis is slow
                flat = np.repeat(flat, offsets[0].size).reshape(offsets.shape) + offsets
        return flat

    def _check_bounds(self, op, buffer: Buffer, indices, vshape, mask) -> None:
        """Report the first active thread whose access leaves ``buffer`` (inactive ones may)."""
        shape = buffer.shape
        lead = len(shape) - len(vshape)
        bad = np.zeros(mask.shape, bool)
        for d, index in enumerate(indices):
            extent = vshape[d - lead] if d >= lead else 1
            bad |= (index < 0) | (index + extent > shape[d])
        hits = np.flatnonzero(bad & mask)
        if hits.size:
            t = int(hits[0])
            idx = tuple(int(np.broadcast_to(i, mask.shape)[t]) for i in indices)
            what = f"index {idx}" + (f" with vector {list(vshape)}" if vshape else "")
            self.fail(op, f"{what} out of bounds for {buffer.space} memref "
                          f"'{buffer.name}' of shape {shape}", t)

    def _vector_offsets(self, buffer: Buffer, vshape: tuple[int, ...], rows: int) -> np.ndarray:
        """Offsets (rows, *vshape) of a vector's elements from its first one in ``buffer``."""
        key = (buffer.strides, vshape, rows)
        cached = self._offsets.get(key)
        if cached is None:
            offsets = np.zeros((), np.int64)
            strides = buffer.strides[len(buffer.shape) - len(vshape):]
            for n, stride in zip(vshape, strides):
                offsets = np.add.outer(offsets, np.arange(n, dtype=np.int64) * stride)
            cached = self._offsets[key] = np.ascontiguousarray(np.broadcast_to(offsets, (rows, *vshape)))
        return cached

    def _active_ids(self, mask: np.ndarray) -> np.ndarray | None:
        """Indices of active threads, or None when every thread slot is active."""
        return None if self._is_full(mask) else np.flatnonzero(mask)

    def _is_full(self, mask: np.ndarray) -> bool:
        """Whether ``mask`` (the mask of the block being run) has every thread slot active."""
        return self.full

    def load(self, op, mask) -> None:
        info = self._static.get(op)
        if info is None:
            info = self._static[op] = (op.operands[0], tuple(op.indices), op.results[0],
                                  vector_shape(op.results[0].type))
        memref_value, index_values, result, vshape = info
        buffer: Buffer = self.env[memref_value]
        indices = [self.env[v] for v in index_values]
        flat = self._addresses(op, buffer, indices, vshape, mask)
        ids = self._active_ids(mask)
        if ids is not None and flat.shape[0] != 1:
            flat = np.where(_expand(mask, flat.ndim), flat, 0)
        if buffer.space == "global":
            self.env[result] = buffer.data[flat]
            return
        if buffer.space == "private":
            # private data is (elements, threads): a thread-uniform index reads one row
            if flat.shape[0] == 1:
                rows = buffer.data[flat[0]]  # a vector index copies; a scalar one is a view
                self.env[result] = _threads_first(rows) if vshape else rows.copy()
            else:
                threads = np.arange(self.chunk.threads).reshape((-1,) + (1,) * (flat.ndim - 1))
                self.env[result] = buffer.data[flat, threads]
            return
        loc = self._shared_base(buffer, flat.shape[1:]) + flat
        self.env[result] = buffer.data.reshape(-1)[loc]
        if self.stats.banks is not None:
            full_flat = _full(flat, self.chunk.threads)
            self._count_banks(op, buffer, ids, full_flat if ids is None else full_flat[ids])
        if buffer.races is not None:
            self._check_race(op, buffer, ids, loc if ids is None else loc[ids], "load")

    def store(self, op, mask) -> None:
        info = self._static.get(op)
        if info is None:
            info = self._static[op] = (op.operands[0], op.operands[1], tuple(op.indices),
                                  vector_shape(op.operands[0].type))
        stored, memref_value, index_values, vshape = info
        value = self.env[stored]
        buffer: Buffer = self.env[memref_value]
        indices = [self.env[v] for v in index_values]
        flat = self._addresses(op, buffer, indices, vshape, mask)
        threads = self.chunk.threads
        ids = self._active_ids(mask)
        sel = slice(None) if ids is None else ids
        if buffer.space == "private" and flat.shape[0] == 1:
            moved = _threads_last(_full(value, threads)[sel])
            if ids is None:
                buffer.data[flat[0]] = moved
            else:
                buffer.data[flat[0][..., None], ids] = moved
            return
        flat = _full(flat, threads)[sel]
        value = _full(value, threads)[sel]
        if buffer.space == "global":
            buffer.data[flat] = value
            return
        if buffer.space == "private":
            columns = np.arange(threads)[sel].reshape((-1,) + (1,) * (flat.ndim - 1))
            buffer.data[flat, columns] = value
            return
        loc = self._shared_base(buffer, flat.shape[1:])[sel] + flat
        if buffer.races is not None:
            self._check_race(op, buffer, ids, loc, "store")
        buffer.data.reshape(-1)[loc] = value
        if self.stats.banks is not None:
            self._count_banks(op, buffer, ids, flat)

    def _count_banks(self, op, buffer: Buffer, ids, flat) -> None:
        """Add this access's wavefronts (see :func:`bank_wavefronts`) to the op's count;
        ``flat`` holds the element offsets (threads, *vector) of the active threads ``ids``
        (None: all)."""
        if ids is None:
            ids = np.arange(self.chunk.threads)
        itemsize = buffer.data.itemsize
        rows = flat.reshape(flat.shape[0], -1)
        width = itemsize if rows.shape[1] == 1 else _access_width(rows[0] - rows[0, 0], itemsize)
        if width != itemsize:
            rows = rows[:, :1]  # one wide access per thread, from its first element
        self._add_wavefronts(op, ids, rows * itemsize, width)

    def _count_bank_elements(self, op, buffer: Buffer, slots, offsets, elements) -> None:
        """Wavefronts of a transfer: element ``elements[i]`` of thread slot ``slots[i]`` at
        block offset ``offsets[i]``; each vector element is its own warp instruction."""
        itemsize = buffer.data.itemsize
        count = int(elements.max()) + 1 if elements.size else 1
        threads, row = np.unique(slots, return_inverse=True)
        addresses = np.full((threads.size, count), -1, np.int64)  # -1: element not accessed
        addresses[row, elements] = offsets * itemsize
        self._add_wavefronts(op, threads, addresses, itemsize)

    def _add_wavefronts(self, op, slots, addresses, access_bytes: int) -> None:
        counts = self.stats.banks.setdefault(op, [0, 0])
        wavefronts, ideal = bank_wavefronts(slots, addresses, access_bytes, self.geometry.warp_size)
        counts[0] += wavefronts
        counts[1] += ideal

    def _shared_base(self, buffer: Buffer, vshape: tuple[int, ...]) -> np.ndarray:
        """Offset of each thread's block copy in ``buffer.data``, shaped (threads, *vshape)."""
        key = (id(buffer), vshape)
        base = self._bases.get(key)
        if base is None:
            size = int(np.prod(vshape, dtype=np.int64))
            base = np.repeat(self.chunk.block_local * buffer.size, size)
            base = self._bases[key] = base.reshape((self.chunk.threads, *vshape))
        return base

    def _check_race(self, op, buffer: Buffer, ids, loc, kind: str) -> None:
        """Record the access of active threads ``ids`` (None: all) at flat locations ``loc``
        (threads, *vector) of the block-major shared data, and report a race."""
        per_thread = int(np.prod(loc.shape[1:], dtype=np.int64))
        local = self.chunk.local if ids is None else self.chunk.local[ids]
        loc = loc.ravel()
        thread_ids = np.repeat(local, per_thread) if per_thread > 1 else local

        def slot(position: int) -> int:
            row = position // per_thread
            return int(row if ids is None else ids[row])

        self._track(op, buffer, loc, thread_ids, slot, kind)

    def _track(self, op, buffer: Buffer, loc, thread_ids, slot, kind: str) -> None:
        """Race and initialization checks of one shared access: element ``i`` at flat
        location ``loc[i]`` by local thread ``thread_ids[i]`` (thread slot ``slot(i)``)."""
        tracker = buffer.races
        if kind == "load":
            fresh = tracker.first_unwritten(loc)
            if fresh is not None:
                coords = tuple(int(c) for c in np.unravel_index(int(loc[fresh] % buffer.size), buffer.shape))
                self.fail(op, f"reads shared memref '{buffer.name}' at {coords} before any thread "
                              "of the block stored there (uninitialized shared memory)", slot(fresh))
        found = tracker.load(loc, thread_ids) if kind == "load" else tracker.store(loc, thread_ids)
        if found is None:
            return
        position, other = found[0], found[1]
        t = slot(position)
        offset = int(loc[position] % buffer.size)
        coords = tuple(int(c) for c in np.unravel_index(offset, buffer.shape))
        b = int(self.chunk.block_local[t])
        if other >= 0:
            other_slot = b * self.geometry.slots_per_block + other
            who = f"thread {tuple(int(a[other_slot]) for a in self.chunk.thread_xyz)}"
        else:
            who = "more than one thread"
        verb = "reads" if kind == "load" else "writes"
        done = "written" if kind == "load" else found[2]
        self.fail(op, f"data race on shared memref '{buffer.name}': this thread {verb} "
                      f"{coords}, {done} by {who} with no gpu.barrier between", t)

    # ----------------------------------------------------------------- transfers
    def _transfer_elements(self, op, buffer: Buffer, vshape, mask):
        """Memref coordinates of a transfer's elements and which of them are accessed.

        Vector dim k walks memref dim ``permutation_map`` result k from the op's index
        (a constant-0 result broadcasts); an element outside the memref along a dim whose
        ``in_bounds`` is false is skipped (read as the padding), along any other dim it is
        an error; masked-off elements are skipped.
        Example: memref<5x6xf32>, indices (4, 4), vector<2x3xf32> with the transposing map
        (d0, d1) -> (d1, d0): element (i, j) is memref[4 + j][4 + i]; (0, 1) is outside.
        """
        static = self._static.get(op)
        if static is None:
            results = op.permutation_map.data.results
            dims = [r.position if isinstance(r, AffineDimExpr) else None for r in results]
            in_bounds = [bool(v.value.data) for v in op.in_bounds.data]
            static = self._static[op] = (tuple(op.indices), tuple(dims), tuple(in_bounds))
        index_values, dims, in_bounds = static
        threads = self.chunk.threads
        shape, strides = buffer.shape, buffer.strides
        full_shape = (threads, *vshape)
        flat = np.zeros((1,) * (len(vshape) + 1), np.int64)
        accessed = np.broadcast_to(_expand(mask, len(full_shape)), full_shape)
        must = np.zeros(full_shape, bool)
        for d, value in enumerate(index_values):
            coord = self.env[value].reshape((-1,) + (1,) * len(vshape))
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
            accessed = accessed & self.env[op.mask].reshape((-1, *vshape)).astype(bool)
        bad = must & _expand(mask, len(full_shape))
        if bad.any():
            t = int(np.argwhere(bad)[0][0])
            idx = tuple(int(np.broadcast_to(self.env[v], mask.shape)[t]) for v in index_values)
            self.fail(op, f"transfer at index {idx} with vector {list(vshape)} leaves {buffer.space} "
                          f"memref '{buffer.name}' of shape {shape} along an in-bounds dim", t)
        return np.broadcast_to(flat, full_shape), accessed

    def _transfer_owner(self, buffer: Buffer, flat: np.ndarray):
        threads = self.chunk.threads
        if buffer.space == "global":
            return buffer.data, flat
        if buffer.space == "private":
            return buffer.data, (flat, np.arange(threads).reshape((-1,) + (1,) * (flat.ndim - 1)))
        return buffer.data.reshape(-1), self._shared_base(buffer, flat.shape[1:]) + flat

    def transfer_read(self, op, mask) -> None:
        buffer: Buffer = self.env[op.source]
        vshape = vector_shape(op.result.type)
        flat, accessed = self._transfer_elements(op, buffer, vshape, mask)
        data, where = self._transfer_owner(buffer, np.where(accessed, flat, 0))
        values = data[where]
        if buffer.space == "shared":
            self._track_transfer(op, buffer, where, accessed, "load")
        pad = self.env[op.padding].reshape((-1,) + (1,) * len(vshape))
        self.env[op.result] = np.where(accessed, values, pad).astype(values.dtype, copy=False)

    def transfer_write(self, op, mask) -> None:
        buffer: Buffer = self.env[op.source]
        vshape = vector_shape(op.vector.type)
        flat, accessed = self._transfer_elements(op, buffer, vshape, mask)
        value = np.broadcast_to(self.env[op.vector], (self.chunk.threads, *vshape))
        data, where = self._transfer_owner(buffer, flat)
        if buffer.space == "shared":
            self._track_transfer(op, buffer, where, accessed, "store")
        if isinstance(where, tuple):
            rows, cols = np.broadcast_arrays(*where)
            data[rows[accessed], cols[accessed]] = value[accessed]
        else:
            data[where[accessed]] = value[accessed]

    def _track_transfer(self, op, buffer: Buffer, loc, accessed, kind: str) -> None:
        positions = np.flatnonzero(accessed)
        per_thread = int(np.prod(accessed.shape[1:], dtype=np.int64))
        slots = positions // per_thread
        if buffer.races is not None:
            self._track(op, buffer, loc.ravel()[positions], self.chunk.local[slots],
                        lambda i: int(slots[i]), kind)
        if self.stats.banks is not None:
            offsets = loc.ravel()[positions] - self.chunk.block_local[slots] * buffer.size
            self._count_bank_elements(op, buffer, slots, offsets, positions % per_thread)

    # ----------------------------------------------------------------- vector
    def broadcast(self, op, mask) -> None:
        src = self.value(op.source)
        shape = vector_shape(op.vector.type)
        srank = src.ndim - 1
        expanded = src.reshape((src.shape[0],) + (1,) * (len(shape) - srank) + src.shape[1:])
        self.env[op.vector] = np.broadcast_to(expanded, (src.shape[0], *shape)).copy()

    def _positions(self, op) -> tuple:
        static = self._static.get(op)
        if static is not None:
            return static
        if not op.dynamic_position:
            static = self._static[op] = tuple(int(p) for p in op.static_position.get_values())
            return static
        dynamic = iter(op.dynamic_position)
        position = []
        for p in op.static_position.get_values():
            if p == DYNAMIC_INDEX:
                index = self.value(next(dynamic))
                if index.shape[0] != 1:
                    self.fail(op, "per-thread dynamic vector positions are not simulated")
                position.append(int(index[0]))
            else:
                position.append(int(p))
        return tuple(position)

    def extract(self, op, mask) -> None:
        src = self.value(op.vector)
        position = self._positions(op)
        self.env[op.result] = src[(slice(None), *position)]

    def insert(self, op, mask) -> None:
        src = self.value(op.source)
        dest = self.value(op.dest)
        position = self._positions(op)
        threads = max(src.shape[0], dest.shape[0])
        out = np.array(_full(dest, threads))
        out[(slice(None), *position)] = src
        self.env[op.result] = out

    def reduction(self, op, mask) -> None:
        src = self.value(op.vector)
        kind = op.kind.data.value if hasattr(op.kind.data, "value") else str(op.kind.data)
        out = reduce_kind(kind, src, tuple(range(1, src.ndim)))
        if op.acc is not None:
            acc = self.value(op.acc)
            out = reduce_kind(kind, np.stack(np.broadcast_arrays(out, acc)), 0)
        self.env[op.dest] = np.asarray(out).astype(src.dtype, copy=False)

    # ----------------------------------------------------------------- control flow
    def if_(self, op, mask) -> None:
        cond = self.value(op.cond)
        results = list(op.output)
        if cond.shape[0] == 1:
            region = op.true_region if bool(cond[0]) else op.false_region
            values = self.run_block(region.blocks[0], mask) if region.blocks else None
            for r, v in zip(results, values or []):
                self.env[r] = v
            return
        then_mask = mask & cond
        else_mask = mask & ~cond
        then_values = else_values = None
        if then_mask.any():
            then_values = self.run_block(op.true_region.blocks[0], then_mask)
        if op.false_region.blocks and else_mask.any():
            else_values = self.run_block(op.false_region.blocks[0], else_mask)
        for i, r in enumerate(results):
            if then_values is None:
                self.env[r] = else_values[i]
            elif else_values is None:
                self.env[r] = then_values[i]
            else:
                a, b = then_values[i], else_values[i]
                ndim = max(a.ndim, b.ndim)
                self.env[r] = np.where(_expand(cond, ndim), a, b)

    def for_(self, op, mask) -> None:
        lb, ub, step = self.value(op.lb), self.value(op.ub), self.value(op.step)
        body = op.body.blocks[0]
        iv_arg, carried_args = body.args[0], body.args[1:]
        carried = [self.value(v) for v in op.iter_args]
        if lb.shape[0] == 1 and ub.shape[0] == 1 and step.shape[0] == 1:
            if step[0] <= 0:
                self.fail(op, f"step must be positive, got {step[0]}")
            for i in range(int(lb[0]), int(ub[0]), int(step[0])):
                self.env[iv_arg] = np.array([i], lb.dtype)
                for arg, v in zip(carried_args, carried):
                    self.env[arg] = v
                carried = self.run_block(body, mask) or []
        else:
            threads = self.chunk.threads
            iv = np.array(_full(lb, threads))
            step_full = _full(step, threads)
            if np.any(mask & (step_full <= 0)):
                self.fail(op, "step must be positive", int(np.flatnonzero(mask & (step_full <= 0))[0]))
            while True:
                running = mask & (iv < ub)
                if not running.any():
                    break
                self.env[iv_arg] = iv
                for arg, v in zip(carried_args, carried):
                    self.env[arg] = v
                new = self.run_block(body, running) or []
                carried = [np.where(_expand(running, max(n.ndim, o.ndim)), n, o)
                           for n, o in zip(new, carried)]
                iv = np.where(running, iv + step_full, iv)
        for r, v in zip(op.res, carried):
            self.env[r] = v

    def while_(self, op, mask) -> None:
        before, after = op.before_region.blocks[0], op.after_region.blocks[0]
        values = [self.value(v) for v in op.arguments]
        running = mask.copy()
        final = list(values)
        while True:
            for arg, v in zip(before.args, values):
                self.env[arg] = v
            cond_value, *forwarded = self.run_block(before, running)
            cond_full = _full(cond_value, self.chunk.threads)
            leaving = running & ~cond_full
            final = [np.where(_expand(leaving, max(f.ndim, n.ndim)), n, f) if f is not None else n
                     for f, n in zip(final, forwarded)] if final else forwarded
            running = running & cond_full
            if not running.any():
                break
            for arg, v in zip(after.args, forwarded):
                self.env[arg] = v
            values = self.run_block(after, running) or []
        for r, v in zip(op.res, final):
            self.env[r] = v

    # ----------------------------------------------------------------- synchronization
    def barrier(self, op, mask) -> None:
        chunk = self.chunk
        slots = self.geometry.slots_per_block
        arrived = (mask & chunk.valid).reshape(chunk.blocks, slots).sum(axis=1)
        expected = self.geometry.threads_per_block
        partial = np.flatnonzero((arrived > 0) & (arrived < expected))
        if partial.size:
            b = int(partial[0])
            block_mask = (~mask & chunk.valid).reshape(chunk.blocks, slots)[b]
            missing = b * slots + int(np.flatnonzero(block_mask)[0])
            first = b * slots + int(np.flatnonzero((mask & chunk.valid).reshape(chunk.blocks, slots)[b])[0])
            missing_xyz = tuple(int(a[missing]) for a in chunk.thread_xyz)
            self.fail(op, f"barrier reached by {int(arrived[b])} of {expected} threads of the block; "
                          f"thread {missing_xyz} does not reach it (divergent gpu.barrier)", first)
        reached = arrived == expected
        everyone = bool(reached.all())
        for buffer in self.shared:
            buffer.races.reset(None if everyone else np.flatnonzero(reached))

    # ----------------------------------------------------------------- warps
    def _warp_check(self, op, mask, need_full: bool) -> None:
        ws = self.geometry.warp_size
        active = mask.reshape(-1, ws)
        partial = active.any(axis=1) & ~active.all(axis=1)
        if need_full and partial.any():
            w = int(np.flatnonzero(partial)[0])
            t = w * ws + int(np.flatnonzero(~active[w])[0])
            self.fail(op, "needs all lanes of the warp active; this lane is inactive "
                          "(divergent or partial warp)", t)

    def shuffle(self, op, mask) -> None:
        threads = self.chunk.threads
        value = _full(self.value(op.value), threads)
        offset = _full(self.value(op.offset).astype(np.int64), threads)
        width = _full(self.value(op.width).astype(np.int64), threads)
        ws = self.geometry.warp_size
        bad_width = mask & ((width < 1) | (width > ws) | ((width & (width - 1)) != 0))
        if bad_width.any():
            t = int(np.flatnonzero(bad_width)[0])
            self.fail(op, f"width {int(width[t])} must be a power of two from 1 to {ws}", t)
        width = np.where(mask, width, ws)  # inactive lanes: any valid width
        lane = self.chunk.lane
        position = lane % width
        mode = op.mode.data
        if mode == "xor":
            source = position ^ offset
        elif mode == "up":
            source = position - offset
        elif mode == "down":
            source = position + offset
        else:
            source = offset
        valid = (source >= 0) & (source < width)
        t = np.arange(threads)
        source_thread = np.where(valid, t - position + source, t)
        reads_inactive = mask & valid & ~mask[source_thread]
        if reads_inactive.any():
            t0 = int(np.flatnonzero(reads_inactive)[0])
            self.fail(op, f"lane {int(lane[t0])} reads inactive lane "
                          f"{int(lane[source_thread[t0]])} (undefined value)", t0)
        self.env[op.result] = value[source_thread]
        self.env[op.valid] = valid

    def subgroup_reduce(self, op, mask) -> None:
        threads = self.chunk.threads
        value = _full(self.value(op.value), threads)
        ws = self.geometry.warp_size
        cluster = op.cluster_size.value.data if op.cluster_size is not None else ws
        if cluster > ws:
            self.fail(op, f"cluster size {cluster} exceeds the warp size {ws}")
        kind = op.op.data
        if op.uniform is not None:
            self._warp_check(op, mask, need_full=True)
        filled = np.where(_expand(mask, value.ndim), value,
                          np.array(identity_of(kind, value.dtype)).astype(value.dtype))
        grouped = filled.reshape(threads // cluster, cluster, *value.shape[1:])
        reduced = reduce_kind(kind, grouped, 1)
        out = np.repeat(reduced, cluster, axis=0)
        self.env[op.result] = out.astype(value.dtype, copy=False)

    def mma(self, op, mask) -> None:
        if self.geometry.warp_size != 32:
            self.fail(op, "nvgpu.mma.sync needs 32-lane warps")
        self._warp_check(op, mask, need_full=True)
        threads = self.chunk.threads
        a = _full(self.value(op.matrix_a), threads)
        b = _full(self.value(op.matrix_b), threads)
        c = _full(self.value(op.matrix_c), threads)
        shape = op.shape
        cached = self._mma_a
        if cached is None or cached[0] is not a or cached[1] != shape:
            cached = self._mma_a = (a, shape, mma_fragments.gather_matrices(a, shape, "a"))
        self.env[op.res] = mma_fragments.mma(a, b, c, shape, a_matrices=cached[2])
