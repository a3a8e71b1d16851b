"""A launch: grid and block shapes, the thread indices of a chunk of blocks, and the
kernel arguments checked against the signature."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import MemRefType, NoneAttr, VectorType

from layoutkit.backends.simt.dtypes import element_dtype
from layoutkit.backends.simt.memory import Buffer
from layoutkit.errors import LayoutError
from layoutkit.ir import gpu


@dataclass(frozen=True)
class Geometry:
    """Launch shape: grid and block sizes (x, y, z) and the warp size."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    warp_size: int = 32

    def __post_init__(self) -> None:
        for label, dims in (("grid", self.grid), ("block", self.block)):
            if len(dims) != 3 or any(int(d) < 1 for d in dims):
                raise LayoutError(f"{label}: expected 1-3 positive sizes, got {dims}")
        if self.warp_size not in (8, 16, 32, 64):
            raise LayoutError(f"warp_size: expected 8, 16, 32 or 64, got {self.warp_size}")

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
        t = np.arange(self.threads, dtype=np.int64)
        self.block_local = t // slots  # block index within the chunk
        self.local = (t % slots).astype(np.int32)  # linear thread index within its block
        self.valid = self.local < geometry.threads_per_block
        self.lane = t % geometry.warp_size
        self.thread_xyz = _split3(self.local.astype(np.int64), geometry.block)
        self.block_xyz = _split3(self.block_local + first_block, geometry.grid)

    def where(self, t: int) -> str:
        """'block (bx, by, bz), thread (tx, ty, tz)' of thread slot ``t``."""
        b = tuple(int(a[t]) for a in self.block_xyz)
        th = tuple(int(a[t]) for a in self.thread_xyz)
        return f"block {b}, thread {th}"


def bind_arguments(kernel: gpu.FuncOp, args) -> list:
    """Check the caller's arrays against the kernel signature; return per-argument values."""
    block = kernel.body.blocks[0]
    names = [a.name_hint or f"arg{i}" for i, a in enumerate(block.args)]
    if isinstance(args, dict):
        unknown = set(args) - set(names)
        if unknown:
            raise LayoutError(f"args: kernel @{kernel.sym_name.data} has no argument "
                              f"'{sorted(unknown)[0]}' (arguments: {', '.join(names)})")
        missing = [n for n in names if n not in args]
        if missing:
            raise LayoutError(f"args: missing argument '{missing[0]}' of kernel @{kernel.sym_name.data}")
        ordered = [args[n] for n in names]
    else:
        ordered = list(args)
        if len(ordered) != len(names):
            raise LayoutError(f"args: kernel @{kernel.sym_name.data} takes {len(names)} arguments "
                              f"({', '.join(names)}), got {len(ordered)}")
    values = []
    for name, arg, given in zip(names, block.args, ordered):
        type_ = arg.type
        if isinstance(type_, MemRefType):
            if not isinstance(given, np.ndarray):
                raise LayoutError(f"args: argument '{name}' must be a numpy array for {type_}")
            dtype = element_dtype(type_)
            if given.dtype != dtype:
                raise LayoutError(f"args: argument '{name}' has dtype {given.dtype}, {type_} needs {dtype}")
            shape = tuple(type_.get_shape())
            if len(shape) != given.ndim or any(s >= 0 and s != g for s, g in zip(shape, given.shape)):
                raise LayoutError(f"args: argument '{name}' has shape {given.shape}, kernel expects {type_}")
            if not isinstance(type_.layout, NoneAttr) and "strided" in str(type_.layout):
                raise LayoutError(f"args: argument '{name}': strided memref layouts are not simulated")
            if not given.flags.c_contiguous or not given.flags.writeable:
                raise LayoutError(f"args: argument '{name}' must be a writeable C-contiguous array")
            values.append(Buffer(name, "global", tuple(given.shape), given.reshape(-1), str(type_)))
        elif isinstance(type_, VectorType):
            raise LayoutError(f"args: vector argument '{name}' is not supported")
        else:
            dtype = element_dtype(type_)
            values.append(np.array([given]).astype(dtype))
    return values
