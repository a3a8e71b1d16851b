"""A launch: grid and block shapes, the thread indices of a chunk of blocks, and the
kernel arguments checked against the signature."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import MemRefType, NoneAttr, VectorType

from layoutkit.backends.simt.dtypes import element_dtype, is_float, unsigned
from layoutkit.backends.simt.memory import Buffer
from layoutkit.errors import LayoutError, quote
from layoutkit.ir.dialects.upstream import gpu

# CUDA's launch limits (HIP's are the same or larger): per dimension and threads per block
LIMITS = {"grid": (2**31 - 1, 65535, 65535), "block": (1024, 1024, 64)}
MAX_THREADS_PER_BLOCK = 1024
WARP_SIZES = (8, 16, 32, 64)
# the simulator's own limit on the thread slots of one launch (each IR op costs about a
# second per 2**27 slots): beyond it a launch is refused rather than run for hours
MAX_LAUNCH_SLOTS = 2**28


def launch_dims(label: str, value, text: str | None = None) -> tuple[int, int, int]:
    """Grid or block sizes: 1-3 positive integers within CUDA's limits, padded with 1s.
    ``text`` is what the user wrote, quoted in errors. Example: (32, 8) -> (32, 8, 1)."""
    dims = (value,) if isinstance(value, (int, np.integer)) else tuple(value)

    def shown() -> str:  # (formatted only for an error: a repr costs as much as the checks)
        return quote(text) if text is not None else repr(value)

    if not 1 <= len(dims) <= 3 or not all(isinstance(d, (int, np.integer)) and d >= 1 for d in dims):
        raise LayoutError(f"{label}: expected 1 to 3 positive integers X[,Y[,Z]], got {shown()}")
    for axis, size, limit in zip("xyz", dims, LIMITS[label.lstrip("-")]):
        if size > limit:
            raise LayoutError(f"{label}: {axis} size {size} exceeds the GPU limit {limit}, got {shown()}")
    threads = math.prod(int(d) for d in dims)  # (Python ints: no overflow)
    if label.lstrip("-") == "block" and threads > MAX_THREADS_PER_BLOCK:
        raise LayoutError(f"{label}: {threads} threads per block exceed the GPU limit "
                          f"{MAX_THREADS_PER_BLOCK}, got {shown()}")
    return tuple(int(d) for d in (*dims, 1, 1)[:3])


@dataclass(frozen=True)
class Geometry:
    """Launch shape: grid and block sizes (x, y, z) and the warp size."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    warp_size: int = 32

    def __post_init__(self) -> None:
        for label, dims in (("grid", self.grid), ("block", self.block)):
            if len(dims) != 3 or launch_dims(label, dims) != dims:
                raise LayoutError(f"{label}: expected 3 sizes, got {dims}")
        if self.warp_size not in WARP_SIZES:
            raise LayoutError(f"warp_size: expected 8, 16, 32 or 64, got {self.warp_size}")
        if self.threads_per_block > MAX_THREADS_PER_BLOCK:
            raise LayoutError(f"block: {self.threads_per_block} threads per block exceed the GPU "
                              f"limit {MAX_THREADS_PER_BLOCK}, got {self.block}")
        slots = self.blocks * self.slots_per_block
        if slots > MAX_LAUNCH_SLOTS:
            raise LayoutError(f"grid: {self.blocks} blocks of {self.slots_per_block} thread slots are "
                              f"{slots} threads, more than the simulator runs in one launch "
                              f"({MAX_LAUNCH_SLOTS}); got grid {self.grid}")

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def slots_per_block(self) -> int:
        """Threads per block rounded up to whole warps."""
        ws = self.warp_size
        return -(-self.threads_per_block // ws) * ws

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]


def _split3(linear: np.ndarray, dims: tuple[int, int, int]) -> tuple[np.ndarray, ...]:
    x = linear % dims[0]
    y = (linear // dims[0]) % dims[1]
    z = linear // (dims[0] * dims[1])
    return x, y, z


class Chunk:
    """Thread indices of a run of consecutive blocks ``first_block .. first_block+blocks-1``."""

    def __init__(self, geometry: Geometry, first_block: int, blocks: int):
        self.geometry = geometry
        self.first_block = first_block
        self.blocks = blocks
        slots = geometry.slots_per_block
        self.threads = blocks * slots
        t = self.slots = np.arange(self.threads, dtype=np.int64)  # every thread slot
        self.block_local = t // slots  # block index within the chunk
        self.local = (t % slots).astype(np.int32)  # linear thread index within its block
        self.valid = self.local < geometry.threads_per_block
        self.lane = t % geometry.warp_size
        self.thread_xyz = _split3(self.local.astype(np.int64), geometry.block)
        self.block_xyz = _split3(self.block_local + first_block, geometry.grid)
        self.column = t  # each slot's column of private memory (see repeated)
        self._repeats: dict[int, Chunk] = {}
        # each slot's thread id repeated k times, by k (race checks): built on first use and
        # kept with the chunk, so across runs of one launch shape (see of)
        self.thread_ids: dict[int, np.ndarray] = {}
        self.kept = False  # the same object for every run of its launch shape (of)

    @staticmethod
    def of(geometry: Geometry, first_block: int, blocks: int) -> Chunk:
        """The chunk of those blocks, the same object for the same launch shape while it is
        among the last ``KEPT_CHUNKS`` of at most ``KEPT_CHUNK_SLOTS`` slots (its index
        arrays, and the repeats batched loops made of them, are built once, not per run:
        they are never written in place)."""
        if blocks * geometry.slots_per_block > KEPT_CHUNK_SLOTS:
            return Chunk(geometry, first_block, blocks)
        return _kept_chunk(geometry, first_block, blocks)

    def repeated(self, times: int) -> Chunk:
        """This chunk's thread slots ``times`` over, as slots of one wider chunk: slot
        ``j * threads + t`` is thread slot t again (its block, ids, lane and column of
        private memory), the j-th time. Independent loop iterations run side by side this
        way (:mod:`~layoutkit.backends.simt.batching`). Example: 64 slots twice -> 128
        slots; slot 70 is slot 6 of the same block."""
        wide = self._repeats.get(times)
        if wide is not None:
            return wide
        wide = self._repeats[times] = object.__new__(Chunk)
        wide.geometry, wide.first_block, wide.blocks = self.geometry, self.first_block, self.blocks
        wide.threads = self.threads * times
        wide.slots = np.arange(wide.threads, dtype=np.int64)
        for name in ("block_local", "local", "valid", "lane", "column"):
            setattr(wide, name, np.tile(getattr(self, name), times))
        wide.thread_xyz = tuple(np.tile(a, times) for a in self.thread_xyz)
        wide.block_xyz = tuple(np.tile(a, times) for a in self.block_xyz)
        wide._repeats = {}
        wide.thread_ids = {}
        wide.kept = self.kept
        return wide

    def where(self, t: int) -> str:
        """'block (bx, by, bz), thread (tx, ty, tz)' of thread slot ``t``."""
        b = tuple(int(a[t]) for a in self.block_xyz)
        th = tuple(int(a[t]) for a in self.thread_xyz)
        return f"block {b}, thread {th}"


KEPT_CHUNKS = 8
KEPT_CHUNK_SLOTS = 1 << 14


@lru_cache(maxsize=KEPT_CHUNKS)
def _kept_chunk(geometry: Geometry, first_block: int, blocks: int) -> Chunk:
    chunk = Chunk(geometry, first_block, blocks)
    chunk.kept = True
    return chunk


def order_arguments(params, args, callee: str) -> tuple[list[str], list]:
    """``(names, values)`` of the block arguments ``params`` in order, from ``args``: a dict by
    name (``name_hint``, else ``arg<i>``) or a sequence by position. ``callee`` names the
    function in errors (``kernel @k``): an unknown or missing name, or a wrong count."""
    names = [a.name_hint or f"arg{i}" for i, a in enumerate(params)]
    if isinstance(args, Mapping):
        unknown = set(args) - set(names)
        if unknown:
            raise LayoutError(f"args: {callee} has no argument '{sorted(unknown)[0]}' "
                              f"(arguments: {', '.join(names)})")
        missing = [n for n in names if n not in args]
        if missing:
            raise LayoutError(f"args: missing argument '{missing[0]}' of {callee}")
        return names, [args[n] for n in names]
    ordered = list(args)
    if len(ordered) != len(names):
        raise LayoutError(f"args: {callee} takes {len(names)} arguments ({', '.join(names)}), "
                          f"got {len(ordered)}")
    return names, ordered


def bind_arguments(kernel, args) -> list:
    """Check the caller's arrays against the signature of ``kernel`` (a ``gpu.func``, or a
    host ``func.func``); return per-argument values."""
    params = getattr(kernel, "arguments", None)  # a kernel's, without its attributions
    if not isinstance(params, tuple):  # a host func.func
        params = tuple(kernel.body.blocks[0].args)
    what = "kernel" if isinstance(kernel, gpu.FuncOp) else "function"
    names, ordered = order_arguments(params, args, f"{what} @{kernel.sym_name.data}")
    values = []
    for name, arg, given in zip(names, params, ordered):
        type_ = arg.type
        if isinstance(type_, MemRefType):
            if not isinstance(given, np.ndarray):
                raise LayoutError(f"args: argument '{name}' must be a numpy array for {type_}")
            dtype = element_dtype(type_)
            if given.dtype != dtype:
                raise LayoutError(f"args: argument '{name}' has dtype {given.dtype}, {type_} needs {dtype}")
            shape = tuple(type_.get_shape())
            if len(shape) != given.ndim or any(s >= 0 and s != g for s, g in zip(shape, given.shape)):
                raise LayoutError(f"args: argument '{name}' has shape {given.shape}, {what} expects {type_}")
            if not isinstance(type_.layout, NoneAttr) and "strided" in str(type_.layout):
                raise LayoutError(f"args: argument '{name}': strided memref layouts are not simulated")
            if not given.flags.c_contiguous or not given.flags.writeable:
                raise LayoutError(f"args: argument '{name}' must be a writeable C-contiguous array")
            values.append(Buffer(name, "global", tuple(given.shape), given.reshape(-1), type_))
        elif isinstance(type_, VectorType):
            raise LayoutError(f"args: vector argument '{name}' is not supported")
        else:
            values.append(_scalar(name, type_, given))
    return values


def _scalar(name: str, type_, given) -> np.ndarray:
    """A scalar argument as a uniform value: a number of the type's kind and range (an
    integer of width w may be given signed or unsigned: -2**(w-1) .. 2**w - 1)."""
    dtype = element_dtype(type_)
    if isinstance(given, np.ndarray) or not isinstance(given, (int, float, np.number, np.bool_)):
        raise LayoutError(f"args: argument '{name}' is a scalar {type_}, got {type(given).__name__}")
    if is_float(dtype):
        number = float(given)
        with np.errstate(over="ignore"):
            value = np.array([number], np.float64).astype(dtype)
        if np.isfinite(number) and not np.isfinite(value[0]):
            raise LayoutError(f"args: argument '{name}' = {given!r} is out of range for {type_} "
                              f"(largest finite value {float(ml_dtypes.finfo(dtype).max):.6g})")
        return value
    number = float(given)
    if not np.isfinite(number) or number != int(number):
        raise LayoutError(f"args: argument '{name}' is an integer {type_}, got {given!r}")
    bits = 1 if dtype == np.bool_ else dtype.itemsize * 8
    value = int(given)
    if not -(2 ** (bits - 1)) <= value < 2**bits:
        raise LayoutError(f"args: argument '{name}' = {value} does not fit in {type_}")
    if dtype == np.bool_:
        return np.array([value & 1], np.bool_)
    return np.array([value % 2**bits], np.uint64).astype(unsigned(dtype)).view(dtype)
