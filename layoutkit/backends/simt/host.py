"""Host functions: a ``func.func`` beside the ``gpu.module`` that allocates device buffers
and launches kernels in order, as MLIR's host code does::

    func.func @main(%x: memref<256xf32>, %alpha: f32) -> memref<1xf32> {
      %sum = memref.alloc() : memref<1xf32>
      gpu.launch_func @m::@scale blocks in (%c2, %c1, %c1) threads in (%c128, %c1, %c1)
          args(%x : memref<256xf32>, %alpha : f32)
      gpu.launch_func @m::@total blocks in (...) threads in (...) args(%x : ..., %sum : ...)
      return %sum : memref<1xf32>
    }

:func:`run_function` runs it on the CPU: host values are uniform values of a one-thread
machine (arith, scf, memref.load/store work as in kernels), ``memref.alloc`` makes a device
buffer (a numpy array, zero-filled), ``gpu.launch_func`` runs the kernel with the simulator
(every check of :func:`~layoutkit.backends.simt.simulate` applies), and the results of
``func.return`` come back as numpy arrays and numbers.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects import func as func_dialect
from xdsl.dialects import memref

from layoutkit.backends.simt.dtypes import element_dtype
from layoutkit.backends.simt.launch import Chunk, Geometry, bind_arguments, launch_dims
from layoutkit.backends.simt.machine import DEFAULT_MAX_STEPS, Machine, Stats, uses_named_barriers
from layoutkit.backends.simt.memory import Buffer
from layoutkit.backends.simt.registry import handlers
from layoutkit.errors import LayoutError

# at most this many thread slots are simulated at once; more blocks run chunk by chunk
MAX_THREADS_PER_CHUNK = 1 << 20


def run_kernel(kernel, geometry: Geometry, values: list, stats: Stats) -> float:
    """Run ``kernel`` on ``geometry`` with bound argument ``values``, chunk by chunk of
    blocks; return the seconds it took."""
    start = time.perf_counter()
    per_chunk = max(1, MAX_THREADS_PER_CHUNK // geometry.slots_per_block)
    if uses_named_barriers(kernel):  # barrier state is per block
        per_chunk = 1
    for first in range(0, geometry.blocks, per_chunk):
        chunk = Chunk.of(geometry, first, min(per_chunk, geometry.blocks - first))
        Machine(kernel, chunk, values, stats).run()
    return time.perf_counter() - start


class HostMachine(Machine):
    """A one-thread machine for a host ``func.func``: its memref.alloc makes device
    (global) buffers and its gpu.launch_func runs kernels."""

    what = "function"

    def __init__(self, function, values: list, warp_size: int, max_steps: int, reports: list | None):
        geometry = Geometry((1, 1, 1), (1, 1, 1), warp_size)
        super().__init__(function, Chunk(geometry, 0, 1), values, Stats(max_steps=max_steps))
        self.handlers = {**handlers(), memref.AllocOp: _alloc, memref.CopyOp: _copy}
        self.warp_size = warp_size
        self.reports = reports
        self.count_memory = False  # count each launch's shared wavefronts and global sectors


def _alloc(m: HostMachine, op, mask) -> None:
    type_ = op.memref.type
    sizes = iter(int(np.asarray(m.value(v)).ravel()[0]) for v in op.dynamic_sizes)
    shape = tuple(next(sizes) if d < 0 else d for d in type_.get_shape())
    if any(d < 0 for d in shape):
        m.fail(op, f"negative allocation size {shape}")
    data = np.zeros(shape, element_dtype(type_))
    m.env[op.memref] = Buffer(op.memref.name_hint or "buffer", "global", shape, data.reshape(-1), type_)


def _copy(m: HostMachine, op, mask) -> None:
    source, target = m.env[op.source], m.env[op.destination]
    if source.shape != target.shape:
        m.fail(op, f"copies shape {source.shape} to shape {target.shape}")
    target.data[...] = source.data


def launch(m: Machine, op) -> None:
    """``gpu.launch_func`` from a host function: run the kernel to completion."""
    if not isinstance(m, HostMachine):
        m.fail(op, "gpu.launch_func runs only in a host function (layoutkit simulate --function)")
    kernel = op.kernel_func()
    sizes = [int(np.asarray(m.value(v)).ravel()[0]) for v in op.operands[len(op.asyncDependencies):][:6]]
    try:
        geometry = Geometry(launch_dims("grid", tuple(sizes[:3])), launch_dims("block", tuple(sizes[3:])),
                            m.warp_size)
    except LayoutError as err:
        m.fail(op, str(err))
    values = [m.env[v] if isinstance(m.env[v], Buffer) else np.asarray(m.env[v])[:1]
              for v in op.kernelOperands]
    stats = Stats(count_banks=m.count_memory, count_sectors=m.count_memory, max_steps=m.stats.max_steps)
    seconds = run_kernel(kernel, geometry, values, stats)
    if m.reports is not None:
        from layoutkit.backends.simt import SimulationReport, _sectors, _wavefronts

        m.reports.append(SimulationReport(kernel.sym_name.data, stats.ops, stats.thread_instructions, seconds,
                                          shared_wavefronts=_wavefronts(stats), global_sectors=_sectors(stats),
                                          barrier_arrivals=stats.barrier_arrivals,
                                          critical_path=stats.critical_path))


def host_functions(module) -> dict:
    """The host functions of ``module`` (``func.func`` outside every ``gpu.module``) by name."""
    return {op.sym_name.data: op for op in module.walk()
            if isinstance(op, func_dialect.FuncOp) and op.parent_op() is module and op.body.blocks}


def run_function(module, name: str, args: Mapping | Sequence = (), *, warp_size: int = 32,
                 max_steps: int = DEFAULT_MAX_STEPS, reports: list | None = None,
                 memory_counts: bool = False) -> tuple:
    """Run the host function ``name`` of ``module`` (parsed or MLIR text) on the simulator.

    ``args`` as for :func:`~layoutkit.backends.simt.simulate` (memref arguments are numpy
    arrays, written in place). Returns the values of its ``func.return``: numpy arrays for
    memrefs, numpy scalars otherwise. With ``reports`` (a list), a
    :class:`~layoutkit.backends.simt.SimulationReport` per kernel launch is appended; with
    ``memory_counts=True`` too, each report has its kernel's shared wavefronts and global
    32-byte sectors per op against their lower bounds.
    """
    from layoutkit.ir import parse_module

    if isinstance(module, str):
        module = parse_module(module)
    check_max_steps(max_steps)
    found = host_functions(module)
    if name not in found:
        raise LayoutError(f"function: no host func.func named '{name}' "
                          f"(module has: {', '.join(found) or 'none'})")
    function = found[name]
    values = bind_arguments(function, args)
    machine = HostMachine(function, values, warp_size, max_steps, reports)
    machine.count_memory = memory_counts
    with np.errstate(all="ignore"):
        returned = machine.run_block(function.body.blocks[0], machine.chunk.valid.copy()) or []
    return tuple(np.array(v.data.reshape(v.shape)) if isinstance(v, Buffer) else np.asarray(v).ravel()[0]
                 for v in returned)


def check_max_steps(max_steps) -> None:
    """``max_steps`` is a positive integer (LayoutError otherwise)."""
    if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
        raise LayoutError(f"max_steps: expected a positive integer, got {max_steps!r}")
