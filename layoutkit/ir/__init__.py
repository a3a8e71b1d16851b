"""Kernel IR on xDSL (MLIR-compatible text).

A kernel module is MLIR text: ``module { gpu.module @m { gpu.func @k(...) kernel { ... } } }``
using xDSL's upstream dialects ``arith``, ``math``, ``memref``, ``vector``, ``scf``, ``func``
plus the ops layoutkit defines (xDSL's ``gpu`` ops parse only in generic form, so layoutkit
defines them again with the same fields and MLIR's custom syntax; the rest xDSL lacks):

gpu (layoutkit.ir.dialects.upstream.gpu)                     operands / properties
    gpu.module @name { ... }               sym_name; region body
    gpu.func @name(args) kernel { ... }    sym_name, function_type, kernel (UnitAttr); body
    gpu.return
    gpu.thread_id|block_id|block_dim|grid_dim|global_id x|y|z   dimension (DimensionAttr) -> index
    gpu.lane_id                            -> index
    gpu.subgroup_size : index              -> index
    gpu.barrier
    gpu.shuffle MODE %v, %off, %w : T      value, offset (i32), width (i32); mode (StringAttr
                                           xor|up|down|idx) -> result (T), valid (i1)
    gpu.subgroup_reduce KIND %v [uniform] [cluster(size = N)] : (T) -> T
                                           value; op (StringAttr), uniform, cluster_size -> result
    #gpu.address_space<workgroup>          AddressSpaceAttr(value: StringAttr); a memref in it
                                           (or in integer space 3) made by memref.alloc or
                                           declared by memref.global is shared memory, one
                                           copy per block
memref (layoutkit.ir.dialects.upstream.memref)
    memref.global "private" @tile : memref<32x33xf32, #gpu.address_space<workgroup>>
                                           xDSL's GlobalOp in MLIR's syntax (no initial value);
                                           read by memref.get_global @tile : memref<...>
nvgpu (layoutkit.ir.dialects.upstream.nvgpu)
    nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>,
        vector<2x2xf32>) -> vector<2x2xf32>
                                           matrix_a, matrix_b, matrix_c; mma_shape ("mmaShape",
                                           ArrayAttr of i64) -> res; also [16, 8, 8]

``parse_module(text)`` parses and verifies, raising :class:`layoutkit.LayoutError` with the
line; ``print_module(module)`` prints MLIR text that parses back; ``kernels(module)`` lists
the kernel ``gpu.func`` ops; ``op_line(op)`` gives an op's source line.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Operation

from layoutkit.errors import LayoutError
from layoutkit.ir.context import make_context, op_line, parse_module
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.ir.dialects.upstream.gpu import FuncOp
from layoutkit.ir.dialects.upstream.nvgpu import MmaSyncOp


def print_module(module) -> str:
    """The module as MLIR text (custom syntax), which :func:`parse_module` reads back."""
    return str(module)


def outline(module) -> Iterator[Operation]:
    """The ops of ``module`` in walk order (each op before the ops nested in it), without
    the insides of functions (``*.func`` ops): where kernels and functions are defined,
    found without walking every op of every body."""
    yield module
    if module.name.endswith(".func"):
        return
    for region in module.regions:
        for block in region.blocks:
            for op in block.ops:
                yield from outline(op)


def kernels(module) -> dict[str, FuncOp]:
    """The kernel functions of ``module`` by name: ``gpu.func ... kernel`` ops, and
    ``func.func`` ops with the ``gpu.kernel`` attribute (what ``--iree-vector-distribute``
    makes of a vector function: one workgroup per block)."""
    return {op.sym_name.data: op for op in outline(module)
            if (isinstance(op, FuncOp) and op.kernel is not None)
            or (op.name == "func.func" and "gpu.kernel" in op.attributes)}


def find_kernel(module, name: str) -> FuncOp:
    """The kernel called ``name``, or a LayoutError listing the kernels there are."""
    found = kernels(module)
    if name not in found:
        raise LayoutError(f"kernel: no kernel named '{name}' (module has: {', '.join(found) or 'none'})")
    return found[name]


__all__ = ["FuncOp", "LayoutAttr", "MmaSyncOp", "find_kernel", "kernels", "make_context", "op_line", "outline",
           "parse_module", "print_module"]
