"""Helpers for small test kernels written inline."""

from __future__ import annotations

from layoutkit.ir import parse_module


def kernel_module(signature: str, body: str, name: str = "k", declarations: str = ""):
    """A module with one kernel ``@name(signature)`` whose body is ``body`` (+ gpu.return),
    after ``declarations`` (e.g. ``memref.global`` lines) in its gpu.module."""
    return parse_module(
        f"module {{\n  gpu.module @m {{\n{declarations}\n"
        f"    gpu.func @{name}({signature}) kernel {{\n{body}\n      gpu.return\n    }}\n  }}\n}}\n"
    )


def chain_module(type_: str, threads: int, ops: list[str]):
    """Kernel ``@k(%x, %y, %o)``: thread t computes v = x[t], then v = op_k(v, y[k][t]) for
    each op in turn, and stores o[t] = v (all of element type ``type_``)."""
    lines = ["      %t = gpu.thread_id x", f"      %v0 = memref.load %x[%t] : memref<{threads}x{type_}>"]
    for k, op in enumerate(ops):
        lines.append(f"      %c{k} = arith.constant {k} : index")
        lines.append(f"      %y{k} = memref.load %y[%c{k}, %t] : memref<{len(ops)}x{threads}x{type_}>")
        lines.append(f"      %v{k + 1} = {op} %v{k}, %y{k} : {type_}")
    lines.append(f"      memref.store %v{len(ops)}, %o[%t] : memref<{threads}x{type_}>")
    return kernel_module(f"%x: memref<{threads}x{type_}>, %y: memref<{len(ops)}x{threads}x{type_}>, "
                         f"%o: memref<{threads}x{type_}>", "\n".join(lines))
