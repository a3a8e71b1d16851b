"""The lockstep SIMT simulator: GPU kernels of the layoutkit IR run exactly on the CPU.

    import numpy as np, layoutkit
    from layoutkit.ir import parse_module
    module = parse_module(open("examples/kernels/vector_add.mlir").read())
    a = np.arange(4096, dtype=np.float32); b = np.ones_like(a); c = np.zeros_like(a)
    layoutkit.simulate(module, "vector_add", grid=16, block=256, args={"a": a, "b": b, "c": c})
    assert (c == a + 1).all()

Every SSA value is one numpy array over all threads of the launch, so each IR op is one
numpy operation (see :mod:`layoutkit.backends.simt.machine`). The run checks bounds of every
access, races on shared memory and reads of shared memory never stored to, and that barriers
are reached by whole blocks, raising
:class:`SimulationError` (a :class:`~layoutkit.LayoutError`) that names kernel, op, block,
thread and index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects import memref, scf, vector
from xdsl.dialects.builtin import MemRefType

from layoutkit.backends.simt.cost_report import RunReport
from layoutkit.backends.simt.errors import SimulationError
from layoutkit.backends.simt.host import check_max_steps, run_function, run_kernel
from layoutkit.backends.simt.launch import Geometry, bind_arguments, launch_dims
from layoutkit.backends.simt.machine import DEFAULT_MAX_STEPS, Stats
from layoutkit.backends.simt.ttgir import find_triton_kernel, run_triton
from layoutkit.errors import LayoutError


@dataclass(frozen=True)
class SimulationReport:
    """What a run executed: IR ops, thread-instructions (ops x active threads), seconds;
    with ``bank_conflicts=True``, per shared-memory op (``"line N: op text"``) the
    wavefronts its warps needed and the conflict-free ideal (see ``machine.bank_wavefronts``).
    """

    kernel: str
    ops: int
    thread_instructions: int
    seconds: float
    shared_wavefronts: dict[str, tuple[int, int]] | None = None
    report: RunReport | None = None  # a TTGIR run's measured cost per op (``report=True``)
    global_sectors: dict[str, tuple[int, int]] | None = None
    barrier_arrivals: int = 0  # warps that executed a barrier, summed over barriers
    # kernels with named barriers: IR ops on the slowest warp's path, waits for barriers
    # included (warps of different code overlap), the largest over blocks; else 0
    critical_path: int = 0

    @property
    def shared_wavefront_total(self) -> int | None:
        """Wavefronts of every shared access (None: not counted)."""
        if self.shared_wavefronts is None:
            return None
        return sum(w for w, _ in self.shared_wavefronts.values())

    @property
    def bank_conflicts(self) -> int | None:
        """Extra wavefronts over the ideal, summed over shared accesses (None: not counted)."""
        if self.shared_wavefronts is None:
            return None
        return sum(w - ideal for w, ideal in self.shared_wavefronts.values())

    def __str__(self) -> str:
        rate = self.thread_instructions / self.seconds if self.seconds > 0 else float("inf")
        return (f"kernel @{self.kernel}: {self.ops} ops, {self.thread_instructions} "
                f"thread-instructions in {self.seconds:.3f} s ({rate:.3g} per second)")


def simulate(module, kernel: str, grid, block=None, args: Mapping | Sequence = (),
             warp_size: int = 32, bank_conflicts: bool = False,
             max_steps: int = DEFAULT_MAX_STEPS, race_check: bool = True,
             report: bool = False, global_sectors: bool = False,
             batch_loops: bool = True) -> SimulationReport:
    """Run ``kernel`` of ``module`` (a parsed module or MLIR text) on ``grid`` x ``block``.

    ``args`` maps argument names (the kernel's ``%name``) to numpy arrays (memref
    arguments, written in place) or numbers (scalar arguments); a sequence gives them in
    order. Raises :class:`SimulationError` on out-of-bounds access, a shared-memory race or
    a barrier not reached by all threads of a block. ``bank_conflicts=True`` also counts
    shared-memory wavefronts per op with layoutkit.analysis's bank model (32 four-byte banks,
    64- and 128-bit accesses served in phases of 16 and 8 lanes; each buffer bank-aligned).
    A run that executes more than ``max_steps`` IR ops (a loop running away) stops with a
    :class:`SimulationError` naming the loop and its line. ``race_check=False`` leaves out
    the shared-memory race and initialization checks (for speed runs of checked kernels).
    ``report=True`` (TTGIR kernels) measures the cost of every op as it runs: the result's
    ``report`` (:class:`~layoutkit.backends.simt.cost_report.RunReport`).
    ``global_sectors=True`` counts, per global-memory load and store, the 32-byte sectors its
    warps touched against the minimum for the bytes they moved (``report.global_sectors``).
    ``batch_loops=False`` runs every ``scf.for`` one iteration at a time instead of running
    iterations that cannot see each other side by side (:mod:`~layoutkit.backends.simt.batching`;
    the same results and reports either way). When a batched run fails, the kernel runs again
    in order from its arguments as they were (kept before the run of a kernel with loops), so
    the error is the first fault in program order.

    A Triton kernel (``tt.func``, TTGIR) runs the same way without ``block``: its block is
    ``ttg.num-warps`` x ``ttg.threads-per-warp`` threads, pointer arguments are numpy arrays
    of the pointee's dtype, and every tensor is held as its encoding distributes it
    (:mod:`layoutkit.backends.simt.ttgir`).
    """
    from layoutkit.ir import find_kernel, parse_module

    text = module if isinstance(module, str) else None
    if isinstance(module, str):
        module = parse_module(module)
    check_max_steps(max_steps)
    if find_triton_kernel(module, kernel) is not None:
        if block is not None:
            raise LayoutError(f"block: a TTGIR kernel's block is ttg.num-warps x ttg.threads-per-warp; "
                              f"got block {block!r}")
        stats = Stats(count_banks=bank_conflicts or report, check_races=race_check, max_steps=max_steps)
        seconds = run_triton(module, kernel, grid, args, stats, report, text)
        measured = stats.recorder.report(kernel, seconds, stats.banks, stats.counts) if report else None
        return SimulationReport(kernel, stats.ops, stats.thread_instructions, seconds,
                                shared_wavefronts=_wavefronts(stats) if bank_conflicts else None, report=measured)
    if block is None:
        raise LayoutError(f"block: kernel @{kernel} needs a block size")
    func = find_kernel(module, kernel)
    geometry = Geometry(launch_dims("grid", grid), launch_dims("block", block), warp_size)
    values = bind_arguments(func, args)
    options = dict(count_banks=bank_conflicts, check_races=race_check, max_steps=max_steps,
                   count_sectors=global_sectors)
    stats = Stats(**options, batch_loops=batch_loops)
    # arguments a rerun in order needs as they were, should a batched run fail (_in_order)
    saved = [values[i].data.copy() for i in _to_restore(func)] if batch_loops else None
    try:
        seconds = run_kernel(func, geometry, values, stats)
    except SimulationError:
        if saved is None:
            raise
        _in_order(func, geometry, values, saved, args, Stats(**options, batch_loops=False))
        raise
    return SimulationReport(kernel, stats.ops, stats.thread_instructions, seconds,
                            shared_wavefronts=_wavefronts(stats), global_sectors=_sectors(stats),
                            barrier_arrivals=stats.barrier_arrivals, critical_path=stats.critical_path)


def _to_restore(func) -> tuple[int, ...]:
    """Positions of the memref arguments of kernel ``func`` a run in order must see as they
    were before a failed batched run wrote them: those both read and possibly written.
    An argument only loaded (or measured) is never changed, one only stored to is never
    read, so neither is copied (the matmuls and transposes copy nothing); a kernel without
    ``scf.for`` is never batched. Kept with ``func``."""
    found = func.__dict__.get(_RESTORE)
    if found is None:
        found = ()
        if any(isinstance(op, scf.ForOp) for op in func.walk()):
            found = tuple(i for i, arg in enumerate(func.body.blocks[0].args[:len(func.function_type.inputs)])
                          if isinstance(arg.type, MemRefType) and _read_and_written(arg))
        func.__dict__[_RESTORE] = found
    return found


def _read_and_written(arg) -> bool:
    """Whether memref ``arg`` may be both read and written: every use a load or ``memref.dim``
    (read only) or the memref of a store (written only) says no; any other use, yes."""
    reads = writes = False
    for use in arg.uses:
        op = use.operation
        if isinstance(op, (memref.LoadOp, vector.LoadOp, memref.DimOp)):
            reads = True
        elif isinstance(op, (memref.StoreOp, vector.StoreOp)) and use.index == 1:
            writes = True
        else:
            return True
    return reads and writes


_RESTORE = "_layoutkit_simt_restore"


def _in_order(func, geometry: Geometry, values: list, saved: list, args, stats: Stats) -> None:
    """After a failed run with loop batching: the arguments put back as they were and the
    kernel run again with every loop in order, so that its error -- raised from here -- is
    the first fault in program order (a batched or fissioned loop runs later iterations'
    ops before an earlier iteration's faulting one, and may meet another fault first).
    Returns when the run in order does not fail (the caller re-raises the first error)."""
    for i, data in zip(_to_restore(func), saved):
        values[i].data[...] = data
    run_kernel(func, geometry, bind_arguments(func, args), stats)


def _wavefronts(stats: Stats) -> dict[str, tuple[int, int]] | None:
    """Wavefronts and their ideal per op label (None when not counted)."""
    if stats.banks is None:
        return None
    return {_op_label(op): (w, ideal) for op, (w, ideal) in stats.banks.items()}


def _sectors(stats: Stats) -> dict[str, tuple[int, int]] | None:
    """Global sectors and their minimum per op label (None when not counted)."""
    if stats.sectors is None:
        return None
    return {_op_label(op): (n, least) for op, (n, least) in stats.sectors.items()}


def _op_label(op) -> str:
    from layoutkit.ir import op_line

    line = op_line(op)
    text = str(op).strip().splitlines()[0]
    return f"line {line}: {text}" if line else text


__all__ = ["RunReport", "SimulationError", "SimulationReport", "run_function", "simulate"]
