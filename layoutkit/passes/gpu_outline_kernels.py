"""``gpu-outline-kernels``: each ``scf.forall`` mapped to ``#gpu.block`` in a host function
becomes a ``gpu.func`` kernel in ``gpu.module @kernels`` and a ``gpu.launch_func`` in its
place; the host function keeps its allocations and returns its results.

Inside the kernel a block tile's offset is ``gpu.block_id`` times the tile step (``x`` for
the innermost loop), a thread forall's variables are ``gpu.thread_id``; the grid is the
block forall's trip counts, the block size the thread forall's bounds. Values the loop
uses from outside become kernel arguments (constants are copied in). Example: the 32x16
matmul with 8x8 tiles launches ``blocks in (2, 4, 1) threads in (8, 8, 1)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, gpu
from xdsl.dialects.builtin import (
    FunctionType,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError
from layoutkit.ir.dialects.upstream import gpu as lk_gpu
from layoutkit.ir.dialects.upstream.gpu import LaunchFuncOp
from layoutkit.ir.dialects.upstream.scf import ForallOp, InParallelOp
from layoutkit.passes.linalg_structure import AXES, mapping_kind

KERNEL_MODULE = "kernels"


def _captured(forall) -> list:
    """The values ``forall`` uses that are defined outside it, in order of first use."""
    inside = set()
    for op in forall.walk():
        inside.update(op.results)
        for region in op.regions:
            for block in region.blocks:
                inside.update(block.args)
    seen: dict = {}
    for op in forall.walk():
        for value in op.operands:
            if value not in inside:
                seen.setdefault(value, None)
    return list(seen)


def _trip_counts(forall) -> list[int]:
    lbs, ubs, steps = forall.bounds(lambda v: None)
    if any(b is None for b in (*lbs, *ubs, *steps)):
        raise LayoutError("gpu-outline-kernels: an scf.forall with dynamic bounds cannot be outlined yet")
    return [math.ceil((ub - lb) / step) for lb, ub, step in zip(lbs, ubs, steps)]


def _axis_ids(block: Block, op_class, rank: int) -> list:
    """``gpu.block_id``/``gpu.thread_id`` for each of ``rank`` mapped loops (innermost x)."""
    ids = []
    for i in range(rank):
        op = op_class(gpu.DimensionAttr(gpu.DimensionEnum(AXES[rank - 1 - i])))
        block.add_op(op)
        ids.append(op.result)
    return ids


def _inline_thread_foralls(kernel_block: Block) -> tuple[int, int, int]:
    """Replace each thread forall by its body on ``gpu.thread_id``; the block size (x, y, z)."""
    size = None
    for forall in [op for op in kernel_block.walk() if isinstance(op, ForallOp)]:
        if mapping_kind(forall.mapping) != "thread" or not forall.is_normalized():
            raise LayoutError("gpu-outline-kernels: only scf.forall over #gpu.thread from 0 by 1 "
                              "may be nested in a block tile (run distribute-to-threads)")
        counts = _trip_counts(forall)
        found = tuple(reversed(counts)) + (1,) * (3 - len(counts))
        if size is not None and size != found:
            raise LayoutError(f"gpu-outline-kernels: one kernel with two block sizes {size} and {found}")
        size = found
        ids_block = Block()
        ids = _axis_ids(ids_block, lk_gpu.ThreadIdOp, len(counts))
        parent = forall.parent_block()
        for op in list(ids_block.ops):
            op.detach()
            parent.insert_op_before(op, forall)
        for iv, tid in zip(forall.induction_vars, ids):
            iv.replace_all_uses_with(tid)
        for op in list(forall.body.block.ops):
            op.detach()
            if not isinstance(op, InParallelOp):
                parent.insert_op_before(op, forall)
        parent.erase_op(forall)
    if size is None:
        raise LayoutError("gpu-outline-kernels: a block tile has no thread forall; run distribute-to-threads first")
    return size


def outline(forall, kernel_name: str, kernels: Block) -> list:
    """Move block tile ``forall`` into kernel ``kernel_name``; the ops that launch it."""
    captured = _captured(forall)
    constants = [v for v in captured if isinstance(v.owner, arith.ConstantOp)]
    arguments = [v for v in captured if v not in constants]
    block = Block(arg_types=[v.type for v in arguments])
    mapper = dict(zip(arguments, block.args))
    for arg, value in zip(block.args, arguments):
        arg.name_hint = value.name_hint
    for value in constants:
        copy = value.owner.clone()
        block.add_op(copy)
        mapper[value] = copy.result
    counts = _trip_counts(forall)
    lbs, _, steps = forall.bounds(lambda v: None)
    for iv, bid, lb, step in zip(forall.induction_vars, _axis_ids(block, lk_gpu.BlockIdOp, len(counts)), lbs, steps):
        step_op = arith.ConstantOp(IntegerAttr(step, IndexType()))
        offset = arith.MuliOp(bid, step_op.result)
        block.add_ops([step_op, offset])
        if lb:
            lb_op = arith.ConstantOp(IntegerAttr(lb, IndexType()))
            offset = arith.AddiOp(offset.result, lb_op.result)
            block.add_ops([lb_op, offset])
        mapper[iv] = offset.result
    for op in forall.body.block.ops:
        if not isinstance(op, InParallelOp):
            block.add_op(op.clone(value_mapper=mapper))
    threads = _inline_thread_foralls(block)
    block.add_op(lk_gpu.ReturnOp())
    kernels.add_op(lk_gpu.FuncOp.create(
        attributes={"sym_name": StringAttr(kernel_name)},
        properties={"function_type": FunctionType.from_lists([v.type for v in arguments], []), "kernel": UnitAttr()},
        regions=[Region(block)]))
    grid = tuple(reversed(counts)) + (1,) * (3 - len(counts))
    launch_ops = [arith.ConstantOp(IntegerAttr(n, IndexType())) for n in (*grid, *threads)]
    launch = LaunchFuncOp(SymbolRefAttr(KERNEL_MODULE, [kernel_name]), launch_ops[:3], launch_ops[3:],
                          kernelOperands=arguments)
    return [*launch_ops, launch]


@dataclass(frozen=True)
class GpuOutlineKernelsPass(ModulePass):
    """Block tiles to gpu.func kernels in gpu.module @kernels, launched by the host function."""

    name = "gpu-outline-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels = Block()
        for function in list(op.body.block.ops):
            if not isinstance(function, func.FuncOp) or not function.body.blocks:
                continue
            tiles = [f for f in function.walk() if isinstance(f, ForallOp) and mapping_kind(f.mapping) == "block"]
            for number, forall in enumerate(tiles):
                launch = outline(forall, f"{function.sym_name.data}_kernel{number}", kernels)
                forall.parent_block().insert_ops_before(launch, forall)
                forall.parent_block().erase_op(forall)
        if kernels.ops:
            op.body.block.add_op(lk_gpu.ModuleOp.create(properties={"sym_name": StringAttr(KERNEL_MODULE)},
                                                     regions=[Region(kernels)]))
            op.attributes["gpu.container_module"] = UnitAttr()
