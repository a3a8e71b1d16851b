"""Which function emits each op as CUDA C++, keyed by op class. Each module of
:mod:`layoutkit.backends.cuda.ops` registers the emitters of one dialect when imported::

    @emits(gpu.BarrierOp)
    def barrier(f: FunctionEmitter, op) -> None:
        f.emit("__syncthreads();")

An emitter writes C++ lines with ``f.emit``, names results with ``f.define`` (or records an
expression in ``f.exprs``) and reads operands with ``f.expr``.
"""

from __future__ import annotations

from collections.abc import Callable

from layoutkit.backends.op_table import OpTable

_TABLE = OpTable("layoutkit.backends.cuda.ops")

#: ``@emits(OpClass, ...)`` registers the decorated function as the ops' CUDA emitter
emits = _TABLE.register


def emitters() -> dict[type, Callable]:
    """Every emitter, after importing each dialect module of ``cuda.ops`` once."""
    return _TABLE.all()


def supports(op_class: type) -> bool:
    """Whether the CUDA emitter writes ``op_class``."""
    return op_class in emitters()
