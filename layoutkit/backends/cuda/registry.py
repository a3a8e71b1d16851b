"""Which function emits each op as CUDA C++, keyed by op class. Each module of
:mod:`layoutkit.backends.cuda.ops` registers the emitters of one dialect when imported::

    @emits(gpu.BarrierOp)
    def barrier(f: FunctionEmitter, op) -> None:
        f.emit("__syncthreads();")

An emitter writes C++ lines with ``f.emit``, names results with ``f.define`` (or records an
expression in ``f.exprs``) and reads operands with ``f.expr``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from functools import cache

EMITTERS: dict[type, Callable] = {}


def emits(*op_classes: type) -> Callable[[Callable], Callable]:
    """Register the decorated function as the CUDA emitter of ``op_classes``."""
    def register(function: Callable) -> Callable:
        for op_class in op_classes:
            EMITTERS[op_class] = function
        return function
    return register


@cache
def emitters() -> dict[type, Callable]:
    """Every emitter, after importing each dialect module of ``cuda.ops`` once."""
    package = importlib.import_module("layoutkit.backends.cuda.ops")
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        importlib.import_module(info.name)
    return EMITTERS


def supports(op_class: type) -> bool:
    """Whether the CUDA emitter writes ``op_class``."""
    return op_class in emitters()
