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

This module is the machine's core: the run loop, values, and the one path of memory
accesses (addresses, bounds, and the observers of shared memory in
:mod:`~layoutkit.backends.simt.observers`). What each op does lives in one module per
dialect under :mod:`layoutkit.backends.simt.ops`, registered by op class
(:mod:`~layoutkit.backends.simt.registry`).
"""

from __future__ import annotations

import math
import weakref
from collections import OrderedDict
from collections.abc import Callable

import numpy as np
from xdsl.dialects import memref, vector
from xdsl.ir import Block, Operation, SSAValue

from layoutkit.backends.simt.allocator import keep_freed_memory
from layoutkit.backends.simt.dtypes import element_dtype
from layoutkit.backends.simt.errors import SimulationError
from layoutkit.backends.simt.launch import Chunk
from layoutkit.backends.simt.memory import Buffer, RaceTracker
from layoutkit.backends.simt.observers import BankCounter, RaceChecker
from layoutkit.backends.simt.registry import TERMINATORS, handlers
from layoutkit.ir.context import op_line
from layoutkit.ir.dialects.upstream import gpu, nvvm

# per-op data read once from the IR (operands, shapes, dtypes) for the hot handlers, kept on
# the kernel op so that it lives exactly as long as the kernel
_STATIC_ATTRIBUTE = "_layoutkit_simt_static"


_LOOPS = ("scf.for", "scf.while", "scf.parallel", "scf.forall", "affine.for", "affine.parallel")
DEFAULT_MAX_STEPS = 10**8  # executed IR ops of one run before it is stopped (a runaway loop)


class Stats:
    """Counts of executed ops and thread-instructions (ops times active threads), and
    when asked, shared-memory wavefronts per op: {op: [wavefronts, ideal wavefronts]}, and
    global-memory 32-byte sectors per op: {op: [sectors, minimum sectors]}.
    A run stops with an error naming the loop once more than ``max_steps`` ops executed."""

    def __init__(self, count_banks: bool = False, check_races: bool = True,
                 max_steps: int = DEFAULT_MAX_STEPS, count_sectors: bool = False,
                 batch_loops: bool = True) -> None:
        self.max_steps = max_steps
        self.batch_loops = batch_loops  # run independent loop iterations side by side
        self.ops = 0
        self.thread_instructions = 0
        self.banks: dict[Operation, list[int]] | None = {} if count_banks else None
        self.check_races = check_races
        self.counts: dict[Operation, dict[str, int]] = {}  # per op: thread-instructions by kind
        self.recorder = None  # a TTGIR run's cost recorder (backends.simt.cost_report), if asked
        self.sectors: dict[Operation, list[int]] | None = {} if count_sectors else None
        self.barrier_arrivals = 0  # warps that executed a barrier (gpu.barrier, nvvm.barrier...)
        self.critical_path = 0  # kernels with named barriers: see Machine.clocks

    def count(self, op: Operation, kind: str, thread_instructions: int) -> None:
        """Add ``thread_instructions`` of ``kind`` (e.g. ``gather shuffle``) to ``op``'s counts."""
        per_op = self.counts.setdefault(op, {})
        per_op[kind] = per_op.get(kind, 0) + int(thread_instructions)


MAX_SHARED_BYTES = 227 * 1024  # shared memory per block of the largest GPUs (sm_90)
MAX_PRIVATE_BYTES = 2**33  # one private allocation over all threads of a chunk (8 GiB)

_WIDE_ACCESS_BYTES = (2, 4, 8, 16)  # a vector moved by one access (the CUDA backend's rule)


def access_width(pattern: np.ndarray, itemsize: int) -> int:
    """Bytes each thread moves per instruction for a vector access whose elements lie at
    element offsets ``pattern`` from the first: the whole vector when contiguous and 2, 4, 8
    or 16 bytes (one ``float4`` / ``uint4`` / ... access, as emit_cuda prints it), else one
    element per instruction. ``[0, 1, 2, 3]`` of f32 -> 16; ``[0, 33]`` of f32 -> 4."""
    if pattern.size * itemsize in _WIDE_ACCESS_BYTES and np.array_equal(pattern, np.arange(pattern.size)):
        return pattern.size * itemsize
    return itemsize


_LARGEST_CACHE_ENTRIES = 256  # per-thread index arrays whose largest value is kept (Machine._largest)
_SMALL_REPEAT = 1 << 18  # elements: see Machine.addresses (numpy 2.x adds a (n, 1) array to a
# short (v,) row 4-5x slower than np.repeat plus an add of equal shapes, up to ~2**19)
_SMALL_COPY = 1 << 15  # elements: below, repeating a uniform value beats numpy's broadcast_to


def full(value: np.ndarray, threads: int) -> np.ndarray:
    """``value`` with leading extent ``threads`` (broadcast if uniform; a small one is
    repeated instead, which costs less than building a broadcast view)."""
    if value.shape[0] == threads:
        return value
    if value.size * threads <= _SMALL_COPY:
        return value.repeat(threads, 0)
    return np.broadcast_to(value, (threads, *value.shape[1:]))


_WIDE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def take_rows(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``x[rows]`` along the leading axis, a new C-contiguous array. In a strided view whose
    rows' elements are contiguous (e.g. ``d[:, 0]`` of a (n, 2, 2) array) a row is copied as
    one wide element: numpy's take copies such short rows one by one, 4-5x slower.
    Example: x of shape (4096, 2) f32, strides (16, 4): taken as 4096 uint64s."""
    n = x.shape[0]
    if x.ndim < 2 or not x.size or x.flags.c_contiguous:  # (np.take copies contiguous rows fast)
        return np.take(x, rows, axis=0)
    flat = x.reshape(n, -1)  # (a view when each row's elements are evenly spaced)
    if flat.shape[1] > 1 and flat.strides[1] != x.itemsize:
        return np.take(x, rows, axis=0)
    width = flat.shape[1] * x.itemsize
    wide = _WIDE.get(width) or np.dtype((np.void, width))
    taken = np.take(flat.view(wide).reshape(n), rows)
    return taken.view(x.dtype).reshape(rows.shape[0], *x.shape[1:])


def threads_first(x: np.ndarray) -> np.ndarray:
    """View (*vector, threads) as (threads, *vector)."""
    return x.transpose(x.ndim - 1, *range(x.ndim - 1))


def threads_last(x: np.ndarray) -> np.ndarray:
    """View (threads, *vector) as (*vector, threads)."""
    return x.transpose(*range(1, x.ndim), 0)


def rows_to_threads(x: np.ndarray) -> np.ndarray:
    """Private data rows (*groups, size, columns) as per-slot vectors (groups * columns, size),
    a new array. Small vectors are copied one element position at a time: numpy's transposing
    copy writes with a stride and is 2-3x slower."""
    *groups, size, columns = x.shape
    slots = columns
    for extent in groups:
        slots *= extent
    if size > 16:  # (copied: a reshape of the swapped view may be a view of the data)
        return np.swapaxes(x, -1, -2).copy().reshape(slots, size)
    out = np.empty((*groups, columns, size), x.dtype)
    for e in range(size):
        out[..., e] = x[..., e, :]
    return out.reshape(slots, size)


def threads_to_rows(value: np.ndarray, rows: np.ndarray) -> None:
    """Write per-slot vectors ``value`` (slots or 1, *vector) into private data rows ``rows``
    (*groups, size, columns), a view: the inverse of :func:`rows_to_threads`."""
    size, columns = rows.shape[-2:]
    if value.shape[0] == 1:  # one vector for every slot
        rows[...] = value.reshape(size, 1)
        return
    source = value.reshape(*rows.shape[:-2], columns, size)
    for e in range(size):
        rows[..., e, :] = source[..., e]


_ROW_VIEW_ENTRIES = 256  # private accesses whose view grids are kept (Machine.row_view)
_KEPT_OFFSET_BYTES = 1 << 23  # offsets tables kept with a kernel (Machine._keep_offsets)
_PLAIN_ACCESSES = (memref.LoadOp, memref.StoreOp, vector.LoadOp, vector.StoreOp)
_MEMREF_OPERAND = {memref.LoadOp: 0, vector.LoadOp: 0, memref.StoreOp: 1, vector.StoreOp: 1}
_ROW_VIEW_GROUPS = 1 << 10  # at most this many groups of slots (their starts are Python lists)
_ITERATION_ENTRIES = 256
_NEST_ORDER_SLOTS = 1 << 16  # nested ordered stores' key orders kept with the kernel up to this size
_NEST_ORDER_ENTRIES = 8  # ... and at most this many
# results of pure ops kept by their operands' identities (Machine.recall): bytes, entries and
# the largest result kept (a batched K step's index arrays are up to 64K slots: 512 KiB; with
# 2 MiB the LRU dropped them before the next K step reused them; see batching.KEPT_BYTES)
_KEPT_RESULT_BYTES = 1 << 23
_KEPT_RESULT_ENTRIES = 512
_KEPT_RESULT_LARGEST = 1 << 19
# only work over at least this many slots is kept: smaller costs about what keeping it does
# (at 512, matmul_mma 256^3 with batch_loops=False ran 25% slower: thousands of 512-slot ops,
# none reused), but a kept array keeps its identity, which later kept work is keyed by (at
# 4096 the batched 256^3 run reused half as much and ran 15% slower)
KEPT_SLOTS = 1 << 10
_UNIFORM_ENTRIES = 1024  # interned uniform loop induction values (Machine.uniform)
_INDUCTION_ENTRIES = 64  # batched loops' induction variables kept (Machine.induction)
_INDUCTION_BYTES = 1 << 20  # ... and their bytes at most
_LASTING_ENTRIES = 4096  # arrays lasting from run to run and work kept on them (note_lasting)
_LASTING_BYTES = 1 << 23  # ... and their bytes at most
_LASTING_RESULT_BYTES = 1 << 23  # results of work on lasting arrays kept with the kernel (remember)
# ... and their entries at most: a sequential loop's one-element results (8 bytes each, some
# hundreds with their keys and tuples) would otherwise hold ~1M entries, ~500 MB, per kernel
_LASTING_RESULT_ENTRIES = 4096
# sequential loops of at most this many iterations have induction values that last (work on
# them kept with the kernel): a longer one's work per iteration, kept, would fill the bounded
# kept results with entries used once a run (3000 iterations: relaunches 40% slower)
LASTING_TRIPS = 64


def keep_bounded(kept: dict, key, value, nbytes: int, max_bytes: int, max_entries: int | None = None) -> None:
    """``kept[key] = value`` in a cache that counts its bytes under the key ``"bytes"``: all
    is dropped first when ``nbytes`` more would pass ``max_bytes`` or it holds more than
    ``max_entries`` entries (data kept with a kernel from run to run stays bounded)."""
    total = kept.get("bytes", 0) + nbytes
    if total > max_bytes or (max_entries is not None and len(kept) > max_entries):
        kept.clear()
        total = nbytes
    kept["bytes"] = total
    kept[key] = value


def _grid_view(data: np.ndarray, grid: tuple) -> np.ndarray:
    """The view (*groups, size, columns) of private (elements, columns) ``data`` whose group
    g starts at row ``first + sum of g's steps`` (``grid``: see Machine._row_grid)."""
    first, levels, size, _ = grid
    row = data.strides[0]
    return np.ndarray((*(count for count, _ in levels), size, data.shape[1]), data.dtype, data,
                      first * row, (*(step * row for _, step in levels), row, data.strides[1]))


def progression(starts: list[int]) -> tuple[int, tuple[tuple[int, int], ...]] | None:
    """``starts`` as ``first`` plus a row-major grid of at most two levels of (count, step),
    or None. Example: [0, 32, 64, 96, 4, 36, 68, 100] -> (0, ((2, 4), (4, 32)))."""
    n = len(starts)
    first = starts[0]
    if n == 1:
        return first, ((1, 0),)
    inner = starts[1] - first
    run = n
    for i in range(2, n):
        if starts[i] != first + i * inner:
            run = i
            break
    if run == n:
        return first, ((n, inner),)
    if n % run:
        return None
    outer = starts[run] - first
    for i in range(run, n):
        if starts[i] != first + (i // run) * outer + (i % run) * inner:
            return None
    return first, ((n // run, outer), (run, inner))


def expand(cond: np.ndarray, ndim: int) -> np.ndarray:
    """A per-thread condition (threads,) shaped to broadcast against ``ndim``-dim values."""
    return cond.reshape(cond.shape + (1,) * (ndim - cond.ndim))


def uses_named_barriers(op: Operation) -> bool:
    """Whether ``op`` contains ``nvvm.barrier`` / ``nvvm.barrier.arrive`` (kept on the op)."""
    cached = op.__dict__.get("_layoutkit_named_barriers")
    if cached is None:
        cached = any(isinstance(inner, (nvvm.BarrierOp, nvvm.BarrierArriveOp)) for inner in op.walk())
        op.__dict__["_layoutkit_named_barriers"] = cached
    return cached


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

    what = "kernel"  # how errors name the function run
    batches_loops = True  # independent scf.for iterations may run side by side (batching)

    def __init__(self, kernel: gpu.FuncOp, chunk: Chunk, globals_: list, stats: Stats):
        keep_freed_memory()  # (once per process: freed arrays' pages stay mapped)
        self.kernel = kernel
        self.chunk = chunk
        self.geometry = chunk.geometry
        self.stats = stats
        self.env: dict[SSAValue, object] = {}
        for arg, value in zip(kernel.body.blocks[0].args, globals_):
            self.env[arg] = value
        self.shared: list[Buffer] = []
        self.globals: dict[str, Buffer] = {}  # workgroup memref.global by symbol name
        self._shared_bytes = 0  # per block, all shared buffers so far
        self.full = False  # every thread slot active in the block being run
        self.static: dict[Operation, tuple] = kernel.__dict__.setdefault(_STATIC_ATTRIBUTE, {})
        self._offsets: dict = self.static.setdefault("offsets", {})  # (shapes only: kept)
        # (handler, op) per block, kept with the kernel's static data by machine class (the
        # host machine has handlers of its own) unless a subclass plans its own (TTGIR runs
        # wrap handlers in their run's cost recorder)
        self._steps: dict[Block, list] = (self.static.setdefault(("steps", type(self)), {})
                                          if type(self)._plan is Machine._plan else {})
        self._bases: dict[tuple, np.ndarray] = {}  # (id of a shared buffer, vector shape)
        self._largest_cache: dict[int, tuple[weakref.ref, int]] = {}
        self._noted: tuple[np.ndarray, int] | None = None  # see note_largest
        # values equal within groups of slots (a batched loop's induction variables): see
        # note_iterations
        self._iterations: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}
        self._grouped: dict[tuple, tuple] = {}  # see grouped
        # (kept with the kernel's static data: the same arrays run after run)
        self._inductions: dict[tuple, tuple] = self.static.setdefault("inductions", {})
        # arrays that last from run to run, by id, and work kept on them (see note_lasting)
        self.lasting: dict = self.static.setdefault("lasting", {})
        self._results: OrderedDict[tuple, tuple] = OrderedDict()  # see recall
        self._lasting_results: dict = self.static.setdefault("lasting results", {})  # see remember
        self._stored: dict[int, tuple] = {}  # see stored_rows
        self._result_bytes = 0
        self._uniforms: dict[tuple, np.ndarray] = self.static.setdefault("uniforms", {})  # see uniform
        # bytes per access, contiguity: by strides, vector shape (kept with the kernel: shapes only)
        self._widths: dict[tuple, int] = self.static.setdefault("widths", {})
        self.note_chunk(chunk)
        self.thread_ids: dict[int, np.ndarray] = chunk.thread_ids  # (Chunk.thread_ids)
        # the two caches above for the chunk's slots repeated (repeated_slots), by chunk
        self._slot_caches: dict[Chunk, tuple[dict, dict]] = {}
        self.cache: dict = {}  # handlers' data kept for the run (e.g. mma's gathered A)
        self.weight = 1  # sequential iterations each op stands for (batching.run)
        self.ordered: dict[int, tuple] = {}  # buffers whose batched stores keep iteration order
        # values repeated for a batched loop: id -> (repeated value, original, times)
        self.repeated: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}
        self._epoch = 0  # order keys of one batched run: epoch + iteration (latest_stores)
        self.batch_loops = stats.batch_loops and self.batches_loops
        self.handlers: dict[type, Callable] = handlers()
        self.observers = ([RaceChecker()] if stats.check_races else []) + (
            [BankCounter(stats.banks)] if stats.banks is not None else [])
        self.races_only = stats.check_races and stats.banks is None
        self.named_barriers = uses_named_barriers(kernel)
        if self.named_barriers:  # (warps' shared-memory order is tracked by warp: no batching)
            self.batch_loops = False
        self._scheduler = None
        # with named barriers, each warp's clock: IR ops it executed, raised at a barrier it
        # waited on to the latest clock of the warps that arrived (its slowest block: the
        # critical path of warps that run different code at once)
        self.clocks = (np.zeros(chunk.threads // chunk.geometry.warp_size, np.int64)
                       if self.named_barriers else None)
        # gpu.func attributions: workgroup ones are shared buffers, private ones per thread
        for arg in getattr(kernel, "workgroup_arguments", ()):
            self.env[arg] = self.shared_buffer(kernel, arg.name_hint or "workgroup", arg.type)
        for arg in getattr(kernel, "private_arguments", ()):
            self.env[arg] = self.private_buffer(kernel, arg.name_hint or "private", arg.type)

    def scheduler(self):
        """The fibers and named barriers of this block (:mod:`~layoutkit.backends.simt.fibers`)."""
        if self._scheduler is None:
            from layoutkit.backends.simt.fibers import Scheduler

            if self.chunk.blocks != 1:
                raise SimulationError(f"{self.what} @{self.kernel.sym_name.data}: named barriers "
                                      "are simulated one block per chunk")
            self._scheduler = Scheduler(self)
        return self._scheduler

    # ----------------------------------------------------------------- error reports
    def fail(self, op: Operation, message: str, thread: int | None = None) -> None:
        text = str(op).strip().splitlines()[0]
        line = op_line(op)
        where = f" (line {line})" if line else ""
        who = f": {self.chunk.where(thread)}" if thread is not None else ""
        raise SimulationError(f"{self.what} @{self.kernel.sym_name.data}: {text}{where}{who}: {message}")

    # ----------------------------------------------------------------- execution
    def run(self) -> None:
        """Run the kernel's body op by op, freeing each value after its last use there."""
        entry = self.kernel.body.blocks[0]
        steps = self._steps.get(entry)
        if steps is None:
            steps = self._steps[entry] = self._plan(entry)
        releases = self.static.get(entry)
        if releases is None:
            releases = self.static[entry] = _releases(entry)
        mask = self.chunk.valid.copy()
        count = int(np.count_nonzero(mask))  # (several times faster than mask.sum())
        self.full = count == self.chunk.threads
        env = self.env
        clocks = self.clocks
        active = self.active_warps(mask) if clocks is not None else None
        stats = self.stats
        with np.errstate(all="ignore"):
            for (handler, op), dead in zip(steps, releases):
                stats.ops += 1
                stats.thread_instructions += count
                if clocks is not None:
                    clocks += active
                if handler is None:
                    break
                handler(self, op, mask)
                for value in dead:
                    env.pop(value, None)
        if clocks is not None:
            self.stats.critical_path = max(self.stats.critical_path, int(clocks.max()))

    def active_warps(self, mask: np.ndarray) -> np.ndarray:
        """Per warp of the chunk, 1 if a lane of it is active in ``mask``."""
        return mask.reshape(-1, self.geometry.warp_size).any(axis=1).astype(np.int64)

    def run_block(self, block: Block, mask: np.ndarray) -> list | None:
        """Run ``block``'s ops under ``mask``; return the operands of its terminator, if any."""
        count = int(np.count_nonzero(mask))  # (several times faster than mask.sum())
        steps = self._steps.get(block)
        if steps is None:
            steps = self._steps[block] = self._plan(block)
        stats = self.stats
        if stats.ops > stats.max_steps:
            self.step_limit(block)
        outer_full = self.full
        self.full = count == self.chunk.threads
        weight = self.weight
        clocks = self.clocks
        active = self.active_warps(mask) if clocks is not None else None
        try:
            for handler, op in steps:
                stats.ops += weight
                stats.thread_instructions += count
                if clocks is not None:
                    clocks += active
                if handler is None:
                    # terminators: yielded values; scf.condition gives [condition, *args]
                    return [self.env[v] for v in op.operands]
                handler(self, op, mask)
            return None
        finally:
            self.full = outer_full

    def enter_repeated(self, times: int, ordered: list[Buffer] = ()) -> tuple:
        """Run ops over this chunk's thread slots ``times`` over (:meth:`Chunk.repeated`),
        each op counting ``times`` executions: iterations side by side
        (:mod:`~layoutkit.backends.simt.batching`), until :meth:`leave_repeated` with the
        state returned. Caches shaped by the slots are kept per chunk. Stores to the
        ``ordered`` buffers keep the latest iteration's value (:meth:`latest_stores`)."""
        saved = self.chunk, self._bases, self.thread_ids, self.weight, self.full, self.ordered
        self._epoch += 1 << 32
        if ordered:
            self.ordered = {**self.ordered, **{id(b): (b, self._owners(b), self._epoch, self.chunk.threads, times)
                                               for b in ordered}}
        self.chunk = self.chunk.repeated(times)
        self.note_chunk(self.chunk)
        caches = self._slot_caches.get(self.chunk)
        if caches is None:
            caches = self._slot_caches[self.chunk] = ({}, self.chunk.thread_ids)
        self._bases, self.thread_ids = caches
        self.weight *= times
        return saved

    def leave_repeated(self, saved: tuple) -> None:
        """Back to the slots before :meth:`enter_repeated` (its returned state)."""
        self.chunk, self._bases, self.thread_ids, self.weight, self.full, self.ordered = saved

    def _owners(self, buffer: Buffer) -> tuple[np.ndarray, list[int]]:
        """Per element of ``buffer``'s data, the order key of the last batched store to it,
        and (in a one-element list) the largest key ever stored there."""
        key = ("owners", id(buffer))
        hit = self.cache.get(key)
        if hit is None or hit[0] is not buffer:
            hit = self.cache[key] = (buffer, np.zeros(buffer.data.size, np.int64), [0])
        return hit[1], hit[2]

    def latest_stores(self, buffer: Buffer, ids, loc: np.ndarray, value: np.ndarray):
        """(locations, values) of a store of rows ``value`` at data locations ``loc`` by
        slots ``ids`` (None: all) to keep, the order of a batched loop's iterations applied:
        an element takes the value of the latest iteration storing it (iteration j of a
        batch is slots j * T .. j * T + T - 1). Two stores of one iteration, the later wins;
        of iterations 3 and 1, iteration 3's whichever op stored last. Unchanged for other
        buffers. When this store's earliest iteration is no earlier than any key stored so
        far (the batch's first store to the buffer), every element is kept unread.

        A store in a loop nested in the batched one and batched too (its i-th iteration in
        slots i * base * times ..) orders by the batched loop's iteration j first, then by
        i: key ``j * inner + i``. Example: base 2, times 2, slots repeated 3 times: slot 7
        (i = 1, j = 1) has key 1 * 3 + 1 = 4."""
        entry = self.ordered.get(id(buffer))
        if entry is None or entry[0] is not buffer or not loc.size:
            return loc, value
        _, (owners, latest), epoch, base, times = entry
        per = loc[0].size if loc.ndim > 1 else 1
        inner = self.chunk.threads // (base * times)  # (batching.nested_plan)
        if inner > 1:  # (rows put in key order, so that numpy's last write is the latest)
            kept = self.static.setdefault("nest orders", {})  # (a few launch shapes)
            cached = (self.chunk.threads, base, times, per)
            hit = None if ids is not None else kept.get(cached)
            if hit is None:
                slots = self.chunk.slots if ids is None else ids
                order = slots // base % times * inner + slots // (base * times)
                rank = np.argsort(order, kind="stable")
                hit = rank, np.repeat(order[rank], per)
                if ids is None and self.chunk.threads <= _NEST_ORDER_SLOTS:
                    if len(kept) >= _NEST_ORDER_ENTRIES:
                        kept.clear()
                    kept[cached] = hit
            rank, steps = hit  # (take_rows: np.take of rows, each one wide element)
            value = take_rows(np.broadcast_to(value, loc.shape), rank)
            loc = take_rows(loc, rank)
            lowest, highest = epoch, epoch + times * inner - 1
            key = (steps + epoch).reshape(loc.shape)
        elif ids is None:
            threads = self.chunk.threads
            lowest, highest = epoch, epoch + (threads - 1) // base
            cached = ("iterations", threads, base, per)
            steps = self.cache.get(cached)
            if steps is None:  # (repeated per element: a broadcast (n, 1) column is slow)
                steps = self.cache[cached] = np.repeat(np.arange(threads, dtype=np.int64) // base, per)
            key = (steps + epoch).reshape(loc.shape)
        else:
            lowest, highest = epoch + int(ids[0]) // base, epoch + int(ids[-1]) // base
            key = np.repeat(epoch + ids // base, per).reshape(loc.shape)
        if lowest < latest[0]:
            keep = key >= owners[loc]
            if not keep.all():
                loc, value, key = loc[keep], np.broadcast_to(value, keep.shape)[keep], key[keep]
        owners[loc] = key
        latest[0] = max(latest[0], highest)
        return loc, value

    def recall(self, key: tuple, operands: tuple) -> np.ndarray | None:
        """The result kept under ``key`` for exactly these ``operands`` (the same arrays), or
        None. Values are never written in place, so a pure op (index arithmetic, an access's
        addresses) run again on the same arrays, as a loop-invariant one on each iteration,
        gives the kept result (:meth:`remember`); on arrays that last from run to run (a
        thread's ids, constants, induction variables), the result kept by an earlier run."""
        hit = self._results.get(key)
        recent = hit is not None  # (the run's own results are least-recently-used ordered)
        if not recent:
            hit = self._lasting_results.get(key)
            if hit is None:
                return None
        for kept, operand in zip(hit[0], operands):
            if kept is not operand:
                return None
        if recent:
            self._results.move_to_end(key)
        return hit[1]

    def lasts(self, arrays) -> bool:
        """Whether every one of ``arrays`` lasts from run to run (:meth:`note_lasting`)."""
        lasting = self.lasting
        for array in arrays:
            if lasting.get(id(array)) is not array:
                return False
        return True

    def remember(self, key: tuple, operands: tuple, result: np.ndarray) -> None:
        """Keep ``result`` for :meth:`recall` (holding the operands, so that their ids are
        not reused), the least recently used dropped beyond ``_KEPT_RESULT_BYTES``. Work on
        arrays that all last from run to run is kept with the kernel (bounded by
        ``_LASTING_RESULT_BYTES``) and its result lasts too: a kernel's index arithmetic on
        its thread ids and constants runs once, not once per run."""
        size = result.nbytes
        if size > _KEPT_RESULT_LARGEST:
            return
        result.flags.writeable = False  # (an in-place write to a kept array fails loudly)
        if self.lasts(operands):
            keep_bounded(self._lasting_results, key, (operands, result), size, _LASTING_RESULT_BYTES,
                         _LASTING_RESULT_ENTRIES)
            self.note_lasting(result)
            return
        results = self._results
        old = results.pop(key, None)
        if old is not None:
            self._result_bytes -= old[1].nbytes
        results[key] = (operands, result)
        self._result_bytes += size
        while self._result_bytes > _KEPT_RESULT_BYTES or len(results) > _KEPT_RESULT_ENTRIES:
            self._result_bytes -= results.popitem(last=False)[1][1].nbytes

    def uniform(self, value: int, dtype, lasting: bool = True) -> np.ndarray:
        """The uniform value ``[value]`` of ``dtype``, one array per value, kept with the
        kernel (a launch extent such as gpu.block_dim; a sequential loop's induction
        variable: work kept by operand identity (:meth:`recall`) carries over to the
        iterations of later runs of the loop with the same value). With ``lasting``, noted
        to last from run to run (:meth:`note_lasting`), so that work on it is kept with the
        kernel: not for a long loop's values (see ``LASTING_TRIPS``)."""
        key = (value, dtype)
        array = self._uniforms.get(key)
        if array is None:
            if len(self._uniforms) >= _UNIFORM_ENTRIES:
                self._uniforms.clear()
            array = self._uniforms[key] = np.array([value], dtype)
            array.flags.writeable = False  # (shared by every iteration with this value)
        if lasting:
            self.note_lasting(array)
        return array

    def step_limit(self, block: Block) -> None:
        """Stop the run: it executed more ops than ``max_steps`` (the op owning ``block``,
        usually a loop, is named with its line; a region inside a loop, such as a reduction's
        combiner, names the nearest loop around it)."""
        owner = block.parent_op()
        loop = owner
        while loop is not None and loop.name not in _LOOPS:
            loop = loop.parent_op()
        self.fail(loop or owner or self.kernel,
                  f"stopped after {self.stats.ops} executed ops, more than the step limit "
                  f"{self.stats.max_steps} (a loop that runs too long or forever? raise the "
                  f"limit with --max-steps / max_steps=)")

    def _plan(self, block: Block) -> list:
        """(handler, op) per op of ``block``; handler None for its terminator."""
        steps = []
        for op in block.ops:
            if type(op) in TERMINATORS:
                steps.append((None, op))
                break
            handler = self.handlers.get(type(op))
            if handler is None:
                self.fail(op, f"'{op.name}' is not supported by the simulator")
            steps.append((handler, op))
        return steps

    def value(self, v: SSAValue) -> np.ndarray:
        return self.env[v]

    # ----------------------------------------------------------------- memory
    def shared_buffer(self, op, name: str, type_) -> Buffer:
        """Shared memory of memref type ``type_``: one copy per block of the chunk."""
        shape = tuple(type_.get_shape())
        size = math.prod(shape)
        dtype = element_dtype(type_)
        self._shared_bytes += size * dtype.itemsize
        if self._shared_bytes > MAX_SHARED_BYTES:
            self.fail(op, f"shared memory of {self._shared_bytes} bytes per block exceeds the GPU "
                          f"limit of {MAX_SHARED_BYTES} (227 KiB, sm_90)")
        blocks = self.chunk.blocks
        data = np.zeros((blocks, size), dtype)
        buffer = Buffer(name, "shared", shape, data, type_, RaceTracker(blocks, size))
        if self.named_barriers:
            buffer.races.enable_order(self.geometry.warp_size)
        self.shared.append(buffer)
        return buffer

    def private_buffer(self, op, name: str, type_) -> Buffer:
        """Private memory of memref type ``type_``: one copy per thread, element-major."""
        shape = tuple(type_.get_shape())
        size = math.prod(shape)
        dtype = element_dtype(type_)
        total = size * dtype.itemsize * self.chunk.threads
        if total > MAX_PRIVATE_BYTES:
            self.fail(op, f"private memory of {size * dtype.itemsize} bytes per thread for "
                          f"{self.chunk.threads} threads needs {total} bytes; the simulator "
                          f"holds at most {MAX_PRIVATE_BYTES} per allocation")
        data = np.zeros((size, self.chunk.threads), dtype)  # element-major: see ops.memref.load
        return Buffer(name, "private", shape, data, type_)

    def addresses(self, op, buffer: Buffer, indices, vshape, mask, rows: bool = False,
                  starts: bool = False) -> np.ndarray:
        """Flat element offsets, shape (threads or 1, *vshape), of an access; with ``rows``,
        only the offsets of the vector's rows (its elements whose last index is 0), shape
        (threads or 1, *vshape[:-1]): each row is vshape[-1] consecutive elements; with
        ``starts``, only each thread's first element, shape (threads or 1,) (:meth:`spread`
        adds the rest).

        Checks bounds for active threads: each index within its dimension, and a vector
        access of shape (..., n) starting at index i in the last dims within them too.
        Example: memref<4x8xf32>, indices (1, 6), vector<2xf32>: offsets [14, 15]; with
        ``rows``, [14].

        Uniform indices (leading extent 1) are summed as Python integers and checked without
        numpy; a per-thread index costs one multiply-add and one ``max`` (its bits read as
        unsigned, so a negative index is huge) for the bounds.
        """
        keep = False
        for index in indices:
            if index.shape[0] >= KEPT_SLOTS:
                keep = True
                break
        if keep or self.lasts(indices):  # (the offsets are a function of the shape and indices)
            keep = True
            key = (op, buffer.shape, vshape, rows, starts, *map(id, indices))
            operands = tuple(indices)
            kept = self.recall(key, operands)
            if kept is not None:
                return kept
        shape = buffer.shape
        strides = buffer.strides
        rank = len(shape)
        if len(indices) != rank:
            self.fail(op, f"expected {rank} indices, got {len(indices)}")
        lead = rank - len(vshape)
        start = 0  # the uniform indices' part
        flat = None  # the per-thread indices' part
        suspect = False
        for d in range(rank):
            index = indices[d]
            limit = shape[d] - (vshape[d - lead] if d >= lead else 1)  # largest valid start
            stride = strides[d]
            if index.shape[0] == 1:
                first = int(index[0])
                suspect = suspect or first < 0 or first > limit
                start += first * stride
                continue
            if not suspect:
                suspect = limit < 0 or self._largest(index) > limit
            term = index if stride == 1 else index * stride
            flat = term if flat is None else flat + term
        if suspect:
            self._check_bounds(op, buffer, indices, vshape, mask)
        if flat is None:  # uniform: the vector's offsets (1, *vshape) moved to the start
            if starts:
                return np.array([start], np.int64)
            offsets = self._vector_offsets(buffer, vshape, 1)
            return (offsets[..., 0] if rows and vshape else offsets) + start
        if start:
            flat = flat + start
        if starts:
            pass
        elif rows and len(vshape) > 1:
            offsets = self._vector_offsets(buffer, vshape, 1)[..., 0]
            flat = flat.reshape((-1,) + (1,) * (len(vshape) - 1)) + offsets
        elif not rows:
            flat = self.spread(flat, buffer, vshape)
        if keep and not suspect:  # (in bounds for every slot: whatever the mask, the same answer)
            self.remember(key, operands, flat)
        return flat

    def spread(self, starts: np.ndarray, buffer: Buffer, vshape: tuple[int, ...], scale: int = 1) -> np.ndarray:
        """The locations (n, *vshape) of the vectors of ``buffer`` starting at ``starts``
        (n,), each element's offset from the start times ``scale`` (private memory's
        (elements, threads) data: the threads). Example: starts [0, 8] of memref<4x8xf32>,
        vector<2xf32> -> [[0, 1], [8, 9]].

        Each start repeated, plus the offsets repeated n times (kept): adds of equal shapes,
        as numpy's broadcast of (n, 1) over a short axis is several times slower.
        """
        if not vshape:
            return starts
        n = starts.shape[0]
        key = (buffer.strides, vshape, n, scale)
        offsets = self._offsets.get(key)
        if offsets is None:
            offsets = self._vector_offsets(buffer, vshape, 1)[0] * scale
            if n * offsets.size > _SMALL_REPEAT:  # (big ones are not kept)
                return starts.reshape((n,) + (1,) * len(vshape)) + offsets
            offsets = self._keep_offsets(key, np.ascontiguousarray(np.broadcast_to(offsets, (n, *vshape))))
        return np.repeat(starts, offsets[0].size).reshape(offsets.shape) + offsets

    def _largest(self, index: np.ndarray) -> int:
        """The largest of a per-thread index read as unsigned (a negative one is huge).

        An index array is typically used by several accesses (a loop's fragment loads, and
        with :meth:`recall` the same arrays on every iteration), and values are never
        written in place, so the answer is kept by the array's identity (with a weak
        reference, so that a reused id is told apart). A batched loop's values repeated
        from outside take their original's answer, and its induction variable the one it
        was given (:meth:`note_largest`).
        """
        key = id(index)
        hit = self._largest_cache.get(key)
        if hit is not None and hit[0]() is index:
            return hit[1]
        source = self.repeated.get(key)
        noted = self._noted
        if source is not None and source[0] is index:
            largest = self._largest(source[1])
        elif noted is not None and noted[0] is index:
            largest = noted[1]
        else:
            largest = int(index.view(np.uint64).max())
        cache = self._largest_cache
        if len(cache) >= _LARGEST_CACHE_ENTRIES:
            cache.clear()
        cache[key] = (weakref.ref(index), largest)
        return largest

    def note_largest(self, index: np.ndarray, largest: int) -> None:
        """Tell :meth:`_largest` the answer for ``index`` (kept for the latest array noted,
        whatever its size): a batched loop's induction variable, its values repeated."""
        self._noted = (index, largest)

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
            cached = self._keep_offsets(key, np.ascontiguousarray(np.broadcast_to(offsets, (rows, *vshape))))
        return cached

    def _keep_offsets(self, key: tuple, offsets: np.ndarray) -> np.ndarray:
        """Keep an offsets table (a function of shapes only) with the kernel's static data,
        for every run of the kernel; all are dropped beyond ``_KEPT_OFFSET_BYTES``."""
        keep_bounded(self._offsets, key, offsets, offsets.nbytes, _KEPT_OFFSET_BYTES)
        return offsets

    def active_ids(self, mask: np.ndarray) -> np.ndarray | None:
        """Indices of active threads, or None when every thread slot is active."""
        return None if self.full else np.flatnonzero(mask)

    def shared_base(self, buffer: Buffer, vshape: tuple[int, ...]) -> np.ndarray:
        """Offset of each thread's block copy in ``buffer.data``, shaped (threads, *vshape)."""
        key = (id(buffer), vshape)
        base = self._bases.get(key)
        if base is None:
            size = int(np.prod(vshape, dtype=np.int64))
            base = np.repeat(self.chunk.block_local * buffer.size, size)
            base = self._bases[key] = base.reshape((self.chunk.threads, *vshape))
        return base

    def shared_location(self, buffer: Buffer, flat: np.ndarray, ids: np.ndarray | None = None,
                        keep: bool = False) -> np.ndarray:
        """Locations in the block-major data of ``buffer`` of offsets ``flat`` (threads or 1,
        *vector), or of the rows ``ids`` (active threads) when given: the offsets themselves
        when the chunk is one block. With ``keep`` (a store's: see RaceTracker.store), kept
        for the same ``flat`` array (:meth:`recall`)."""
        if self.chunk.blocks == 1:
            return flat
        base = self.shared_base(buffer, flat.shape[1:])
        if ids is not None:
            return base[ids] + flat
        if not keep or flat.shape[0] < KEPT_SLOTS:
            return base + flat
        key = ("shared location", id(buffer), id(flat))  # (a loop-invariant access's: kept)
        loc = self.recall(key, (buffer, flat))
        if loc is None:
            loc = base + flat
            self.remember(key, (buffer, flat), loc)
        return loc

    def gather_rows(self, buffer: Buffer, starts: np.ndarray, length: int) -> np.ndarray:
        """The rows of ``length`` consecutive elements of ``buffer``'s flat data starting at
        ``starts`` (any shape): shape (*starts.shape, length).

        When every start has the same remainder r modulo ``length`` (aligned tiles), the
        data from r on is a contiguous (rows, length) array and ``np.take`` copies whole rows;
        else a strided view whose row i is elements i .. i+length-1 is indexed.
        Example: length 4, starts [[4, 12]]: rows 1 and 3 of data.reshape(-1, 4).
        """
        data = buffer.data.reshape(-1)
        remainder = int(starts.flat[0]) % length
        shifted = starts - remainder if remainder else starts
        if length & (length - 1):
            quotient, off = np.divmod(shifted, length)
            aligned = not off.any()
        else:  # a power of two: one OR over the starts tells, then a shift
            aligned = not int(np.bitwise_or.reduce(shifted, axis=None)) & (length - 1)
            if aligned:
                quotient = shifted >> (length.bit_length() - 1)
        if aligned:
            key = ("rows", id(buffer), length, remainder)
            chunks = self._bases.get(key)
            if chunks is None:
                count = (data.size - remainder) // length
                chunks = self._bases[key] = data[remainder:remainder + count * length].reshape(count, length)
            return np.take(chunks, quotient, axis=0)
        key = ("windows", id(buffer), length)
        view = self._bases.get(key)
        if view is None:
            view = self._bases[key] = np.lib.stride_tricks.as_strided(
                data, (data.size - length + 1, length), (data.itemsize, data.itemsize), writeable=False)
        return view[starts]

    def shared_rows_access(self, op, buffer: Buffer, kind: str, ids, starts: np.ndarray,
                           length: int) -> None:
        """Hand the observers an access of rows of ``length`` elements at locations
        ``starts`` (threads or 1, *rows) of the block-major data, by active threads ``ids``
        (None: all). The common load, when the race checker alone observes and every
        location was stored to with no store since the last barrier, is only recorded:
        its element locations are built if a later store needs them."""
        if not self.observers:
            return
        threads = self.chunk.threads
        starts = full(starts, threads)
        if ids is not None:
            starts = starts[ids]
        tracker = buffer.races
        per_thread = starts[0].size * length if starts.shape[0] else 0
        if (kind == "load" and self.races_only and not tracker.has_writes
                and tracker.fully_written(starts.shape[0] * per_thread)):
            local = self.chunk.local if ids is None else self.chunk.local[ids]

            def elements(starts=starts, local=local) -> tuple[np.ndarray, np.ndarray]:
                loc = (starts[..., None] + np.arange(length)).reshape(-1)
                return loc, np.broadcast_to(local[:, None], (local.size, per_thread)).ravel()

            tracker.defer_read(elements)
            return
        loc = starts[..., None] + np.arange(length)
        base = (self.chunk.block_local if ids is None else self.chunk.block_local[ids]) * buffer.size
        flat = loc - base.reshape((-1,) + (1,) * (loc.ndim - 1))
        self.shared_access(op, buffer, kind, ids, flat, loc)

    def uniform_offset(self, op, buffer: Buffer, indices, vshape, mask) -> int | None:
        """The flat offset of an access whose indices are all uniform (leading extent 1),
        bounds checked, or None when some index is per-thread."""
        for index in indices:
            if index.shape[0] != 1:
                return None
        shape = buffer.shape
        if len(indices) != len(shape):
            self.fail(op, f"expected {len(shape)} indices, got {len(indices)}")
        lead = len(shape) - len(vshape)
        start = 0
        for d, (index, stride) in enumerate(zip(indices, buffer.strides)):
            first = int(index[0])
            if first < 0 or first > shape[d] - (vshape[d - lead] if d >= lead else 1):
                self._check_bounds(op, buffer, indices, vshape, mask)
            start += first * stride
        return start

    def contiguous(self, buffer: Buffer, vshape: tuple[int, ...]) -> bool:
        """Whether a vector of shape ``vshape`` covers consecutive elements of ``buffer``
        (its dims after the first span whole memref dims). vector<2x2> of memref<4x8x2x2>:
        yes; vector<2x2> of memref<4x8>: no."""
        key = ("contiguous", buffer.strides, vshape)
        answer = self._widths.get(key)
        if answer is None:
            offsets = self._vector_offsets(buffer, vshape, 1).reshape(-1)
            answer = self._widths[key] = bool(np.array_equal(offsets, np.arange(offsets.size)))
        return answer

    def private_locations(self, buffer: Buffer, starts: np.ndarray, vshape: tuple[int, ...],
                          ids: np.ndarray | None = None) -> np.ndarray:
        """Flat locations (n, *vshape) in private ``buffer``'s (elements, columns) data of the
        vectors starting at element offsets ``starts`` (one per thread slot, or per slot of
        ``ids``): ``offset * columns + column``, formed per thread and then spread over the
        vector. Example: 128 columns, slot 3, vector<2xf32> at offset 5 -> [643, 771]."""
        width = buffer.data.shape[1]
        columns = self.chunk.column if ids is None else self.chunk.column[ids]
        return self.spread(starts * width + columns, buffer, vshape, width)

    def private_rows(self, buffer: Buffer, starts: np.ndarray, vshape: tuple[int, ...]) -> np.ndarray | None:
        """Rows (groups, size) of private ``buffer``'s (elements, columns) data read or written
        by a contiguous vector access whose starts (one per slot, every slot active) are equal
        across each group of ``columns`` consecutive slots, or None. In a batched loop slot
        ``j * columns + t`` is iteration j of thread t, and an access indexed by the loop's
        induction variables (``%acc[%mi, %ni, 0, 0]``) starts at one offset per iteration:
        the access then moves whole rows of the data. Example: 2 x 128 slots of
        memref<4x8x2x2xf32>, vector<2x2xf32>, starts 0 then 4 -> rows [[0, 1, 2, 3], [4, 5, 6, 7]].
        """
        width = buffer.data.shape[1]
        n = starts.shape[0]
        if n % width or not self.contiguous(buffer, vshape):
            return None
        grouped = starts.reshape(n // width, width)
        first = grouped[:, 0]
        if not (grouped == first[:, None]).all():
            return None
        size = 1
        for extent in vshape:
            size *= extent
        return first[:, None] + np.arange(size)

    def induction(self, values: range, threads: int, dtype) -> np.ndarray:
        """A batched loop's induction variable over iterations ``values`` run side by side:
        ``np.repeat(values, threads)`` (iteration j in slots j * threads .. + threads - 1),
        noted for :meth:`iterations` and, for an index, :meth:`_largest`. The same array
        for the same iterations (kept, bounded), so that work keyed by values' identities
        (:meth:`row_view`, batching's repeats) carries over to the loop's next run."""
        key = (values.start, values.stop, values.step, threads, dtype)
        hit = self._inductions.get(key)
        if hit is None:
            iv = np.asarray(values, dtype)
            wide = np.repeat(iv, threads)
            wide.flags.writeable = False  # (shared by every run over these iterations)
            largest = int(iv.view(np.uint64).max()) if iv.dtype.itemsize == 8 else None
            hit = (iv, wide, largest)
            if wide.nbytes <= _INDUCTION_BYTES:
                keep_bounded(self._inductions, key, hit, wide.nbytes, _INDUCTION_BYTES, _INDUCTION_ENTRIES)
        iv, wide, largest = hit
        if key in self._inductions:
            self.note_lasting(wide)
        self.note_iterations(wide, iv, threads)
        if largest is not None:  # (an index: its bounds checks need its largest)
            self.note_largest(wide, largest)
        return wide

    def note_lasting(self, value: np.ndarray) -> None:
        """Note that ``value`` lasts from run to run of the kernel (kept with its static data,
        as :meth:`induction`'s arrays are), so that work on it may be kept so too (batching's
        repeats). Kept by identity (holding it), at most ``_LASTING_BYTES`` of them (an
        array of more than an eighth of that is not noted: it would drop the others)."""
        if self.lasting.get(id(value)) is not value and value.nbytes <= _LASTING_BYTES // 8:
            keep_bounded(self.lasting, id(value), value, value.nbytes, _LASTING_BYTES, _LASTING_ENTRIES)

    def note_chunk(self, chunk: Chunk) -> None:
        """Note that a kept chunk's lanes, thread ids and block ids last from run to run
        (:meth:`note_lasting`: the same arrays in every run of its launch shape, Chunk.of),
        so that the gpu ops' handlers just read them."""
        if chunk.kept:
            self.note_lasting(chunk.lane)
            for ids in chunk.thread_xyz + chunk.block_xyz:
                self.note_lasting(ids)

    def note_iterations(self, wide: np.ndarray, values: np.ndarray, width: int) -> None:
        """Record that ``wide`` (n,) is ``np.repeat(values, width)``: equal within each group
        of ``width`` slots, as a batched loop's induction variable is within its iterations
        (:mod:`~layoutkit.backends.simt.batching`). Kept by the array's identity (holding it,
        so that its id is not reused) for at most a few hundred arrays; values are never
        written in place."""
        registry = self._iterations
        if len(registry) >= _ITERATION_ENTRIES:
            registry.clear()
        registry[id(wide)] = (wide, values, width)

    def iterations(self, value: np.ndarray) -> tuple[np.ndarray, int] | None:
        """(values, width) with ``value == np.repeat(values, width)`` as noted
        (:meth:`note_iterations`), also for a noted value repeated for a batched loop
        (``self.repeated``): k times over, its values tiled k times. None if not known."""
        hit = self._iterations.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1], hit[2]
        source = self.repeated.get(id(value))
        if source is None or source[0] is not value:
            return None
        inner = self.iterations(source[1])
        if inner is None:
            return None
        values = np.tile(inner[0], source[2])
        self.note_iterations(value, values, inner[1])
        return values, inner[1]

    def grouped(self, value: np.ndarray, width: int) -> tuple[np.ndarray, int] | None:
        """(values, width) when ``value`` (n,) is equal within each group of ``width`` slots
        though not noted so (:meth:`note_iterations`; e.g. a batched loop's index sliced to
        one iteration), found by one comparison and then noted; None if it is not (kept
        too, by weak reference). Example: [5, 5, 7, 7] in groups of 2 -> ([5, 7], 2)."""
        key = (id(value), width)
        hit = self._grouped.get(key)
        if hit is not None and hit[0]() is value:
            return hit[1]
        answer = None
        n = value.shape[0]
        if value.ndim == 1 and n % width == 0:
            groups = value.reshape(n // width, width)
            first = groups[:, 0]
            if (groups == first[:, None]).all():
                answer = (first.copy(), width)
                self.note_iterations(value, answer[0], width)
        if len(self._grouped) >= _ITERATION_ENTRIES:
            self._grouped.clear()
        self._grouped[key] = (weakref.ref(value), answer)
        return answer

    def row_view(self, op, buffer: Buffer, indices, vshape: tuple[int, ...]) -> tuple[np.ndarray, bool, tuple] | None:
        """A contiguous vector access of private ``buffer`` over every slot, by indices each
        uniform or equal within groups of the data's ``columns`` slots (:meth:`iterations`),
        as a strided view (*groups, size, columns) of its (elements, columns) data, and
        whether the groups' rows are disjoint (a store may write through the view), and the
        grid (:meth:`stored_rows`); or None.
        In a batched loop slot ``g * columns + t`` is group g of thread t. The groups'
        starts must form a grid (:func:`progression`) and lie in bounds (else the general
        path checks and reports). Example: memref<4x8x2x2xf32> over 128 columns indexed
        ``[%mi, %ni, 0, 0]`` with %mi = 0..3 in groups of 128 slots and %ni = 0..7 in
        groups of 512: starts ``32 * mi + 4 * ni``, a view (8, 4, 4, 128) with row steps
        (4, 32, 1). The grid is kept with the kernel's static data by the indices' values."""
        data = buffer.data
        slots = self.chunk.threads
        key = ["row view", op, slots, data.shape[1]]
        for index in indices:
            if index.shape[0] == 1:
                key.append(int(index[0]))
                continue
            found = None
            if index.shape[0] == slots:
                found = self.iterations(index) or self.grouped(index, data.shape[1])
            if found is None:
                return None
            key.append((found[0].tobytes(), found[0].dtype.str, found[1]))
        key = tuple(key)
        grid = self.static.get(key, False)
        if grid is False:
            grid = self._row_grid(buffer, indices, vshape)
            views = self.static.setdefault("row views", [])
            if len(views) >= _ROW_VIEW_ENTRIES:
                for old in views:
                    self.static.pop(old, None)
                views.clear()
            views.append(key)
            self.static[key] = grid
        if grid is None:
            return None
        return _grid_view(data, grid), grid[3], grid

    def forwards(self, ref: SSAValue) -> bool:
        """Whether stores to private memref ``ref`` may wait in :meth:`stored_rows`: it is
        the result of an allocation and every use of it is a load or a store, so no alias,
        call, loop argument or transfer reaches its buffer behind the load and store
        handlers' back. Kept with the kernel."""
        key = ("forwards", ref)
        answer = self.static.get(key)
        if answer is None:
            owner = ref.owner
            answer = self.static[key] = isinstance(owner, (memref.AllocaOp, memref.AllocOp)) and all(
                isinstance(use.operation, _PLAIN_ACCESSES) and use.index == _MEMREF_OPERAND[type(use.operation)]
                for use in ref.uses)
        return answer

    def stored_rows(self, buffer: Buffer, grid: tuple, value: np.ndarray) -> None:
        """Store ``value`` (slots, *vector) to private ``buffer`` through the view of ``grid``
        (:meth:`row_view`) later: a load through the same view reads ``value`` itself
        (:meth:`rows_stored`; values are never written in place), a store through it
        replaces it, and any other access to the buffer first writes it
        (:meth:`settle_rows`). An mma loop's accumulator then stays out of the data
        between K steps: each step loads what the previous one stored."""
        entry = self._stored.get(id(buffer))
        if entry is not None and (entry[1] != grid or entry[2] != self.chunk.threads):
            self.settle_rows(buffer)
        value.flags.writeable = False  # (loads hand it out: an in-place write fails loudly)
        self._stored[id(buffer)] = (buffer, grid, self.chunk.threads, value)

    def rows_stored(self, buffer: Buffer, grid: tuple, vshape: tuple[int, ...]) -> np.ndarray | None:
        """The value waiting to be stored to ``buffer`` through the view of ``grid`` by as
        many slots, if its vector shape is ``vshape``; else None."""
        entry = self._stored.get(id(buffer))
        if entry is None or entry[1] != grid or entry[2] != self.chunk.threads:
            return None
        value = entry[3]
        return value if value.shape[1:] == vshape else None

    def settle_rows(self, buffer: Buffer) -> None:
        """Write the store waiting for ``buffer`` (:meth:`stored_rows`), if any."""
        if self._stored:
            entry = self._stored.pop(id(buffer), None)
            if entry is not None:
                threads_to_rows(entry[3], _grid_view(buffer.data, entry[1]))

    def _row_grid(self, buffer: Buffer, indices, vshape: tuple[int, ...]) -> tuple | None:
        """(first row, ((count, step), ...), rows per vector, disjoint) of :meth:`row_view`."""
        columns = buffer.data.shape[1]
        slots = self.chunk.threads
        groups = slots // columns
        if slots % columns or groups > _ROW_VIEW_GROUPS or not self.contiguous(buffer, vshape):
            return None
        shape = buffer.shape
        lead = len(shape) - len(vshape)
        uniform = 0
        starts = None  # per group of columns slots (small: Python integers)
        for d, (index, stride) in enumerate(zip(indices, buffer.strides)):
            limit = shape[d] - (vshape[d - lead] if d >= lead else 1)
            if index.shape[0] == 1:
                first = int(index[0])
                if first < 0 or first > limit:
                    return None
                uniform += first * stride
                continue
            values, width = self.iterations(index) or self.grouped(index, columns)
            if width % columns:
                return None
            values = values.tolist()
            if min(values) < 0 or max(values) > limit:
                return None
            times = width // columns
            terms = [v * stride for v in values for _ in range(times)]
            starts = terms if starts is None else [a + b for a, b in zip(starts, terms)]
        if starts is None:
            return None
        grid = progression(starts)
        if grid is None:
            return None
        size = 1
        for extent in vshape:
            size *= extent
        ordered = sorted(starts)
        disjoint = all(b - a >= size for a, b in zip(ordered, ordered[1:]))
        return grid[0] + uniform, grid[1], size, disjoint

    def transfer_owner(self, buffer: Buffer, flat: np.ndarray):
        threads = self.chunk.threads
        if buffer.space == "global":
            return buffer.data, flat
        if buffer.space == "private":
            return buffer.data, (flat, np.arange(threads).reshape((-1,) + (1,) * (flat.ndim - 1)))
        return buffer.data.reshape(-1), self.shared_base(buffer, flat.shape[1:]) + flat

    def shared_access(self, op, buffer: Buffer, kind: str, ids, flat: np.ndarray,
                      loc: np.ndarray) -> None:
        """Hand one vector access of shared memory to the observers: active threads ``ids``
        (None: all) access element offsets ``flat`` (their rows, *vector) of the block's copy,
        at ``loc`` (the same shape) in the block-major data."""
        if not self.observers:
            return
        rows = flat.shape[0]
        if kind == "load" and self.races_only and not buffer.races.has_writes:
            tracker = buffer.races
            if tracker.fully_written(flat.size):  # nothing to check: only record the read
                per_thread = flat.size // rows if rows else 1
                if ids is None:
                    threads = self.thread_ids.get(per_thread)
                    if threads is None:
                        threads = self.thread_ids[per_thread] = np.broadcast_to(
                            self.chunk.local[:, None], (self.chunk.threads, per_thread)).ravel()
                else:
                    threads = np.broadcast_to(self.chunk.local[ids][:, None], (ids.size, per_thread)).ravel()
                tracker.defer_read((loc.reshape(-1), threads))
                return
        slots = self.chunk.slots if ids is None else ids
        offsets = flat.reshape(rows, flat.size // rows if rows else 1)
        width = self._widths.get((buffer.strides, flat.shape[1:], buffer.data.itemsize))
        if width is None:
            itemsize = buffer.data.itemsize
            pattern = offsets[0] - offsets[0, 0] if rows else offsets[:0]
            width = itemsize if offsets.shape[1] == 1 or not rows else access_width(pattern, itemsize)
            if rows:
                self._widths[(buffer.strides, flat.shape[1:], itemsize)] = width
        for observer in self.observers:
            observer.access(self, op, buffer, kind, slots, offsets, width, loc.reshape(offsets.shape))

    def shared_element_access(self, op, buffer: Buffer, kind: str, loc, accessed) -> None:
        """Hand one element-wise access (a transfer) to the observers: thread slot i accesses
        the elements at flat locations ``loc[i]`` of the block-major data where
        ``accessed[i]``; each vector element is its own warp instruction."""
        if not self.observers:
            return
        per_thread = int(np.prod(accessed.shape[1:], dtype=np.int64))
        rows = accessed.reshape(accessed.shape[0], per_thread)
        keep = np.flatnonzero(rows.any(axis=1))
        local = loc.reshape(loc.shape[0], per_thread)[keep] - (self.chunk.block_local[keep] * buffer.size)[:, None]
        offsets = np.where(rows[keep], local, -1)
        for observer in self.observers:
            observer.access(self, op, buffer, kind, keep, offsets, buffer.data.itemsize)

    # ----------------------------------------------------------------- warps
    def warp_check(self, op, mask, need_full: bool) -> None:
        ws = self.geometry.warp_size
        active = mask.reshape(-1, ws)
        partial = active.any(axis=1) & ~active.all(axis=1)
        if need_full and partial.any():
            w = int(np.flatnonzero(partial)[0])
            t = w * ws + int(np.flatnonzero(~active[w])[0])
            self.fail(op, "needs all lanes of the warp active; this lane is inactive "
                          "(divergent or partial warp)", t)
