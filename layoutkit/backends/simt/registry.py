"""Which function runs each op in the simulator, keyed by op class (as xDSL's
interpreter registers ``@impl(Op)``). Each module of :mod:`layoutkit.backends.simt.ops`
registers the handlers of one dialect when imported::

    @handles(arith.AddfOp, arith.MulfOp)
    def binary(m: Machine, op, mask) -> None: ...

A handler reads its operands from ``m.env`` and writes its results there; ``mask`` is the
bool array of the threads that execute the op. Terminators (``scf.yield``...) registered
with :func:`terminates` end a block: their operands are the block's results.
"""

from __future__ import annotations

from collections.abc import Callable

from layoutkit.backends.op_table import OpTable

_TABLE = OpTable("layoutkit.backends.simt.ops")
TERMINATORS: set[type] = set()

#: ``@handles(OpClass, ...)`` registers the decorated function as the ops' handler
handles = _TABLE.register


def terminates(*op_classes: type) -> None:
    """Register ``op_classes`` as block terminators that yield their operands."""
    TERMINATORS.update(op_classes)


def handlers() -> dict[type, Callable]:
    """Every handler, after importing each dialect module of ``simt.ops`` once."""
    return _TABLE.all()


def supports(op_class: type) -> bool:
    """Whether the simulator runs ``op_class``."""
    return op_class in handlers() or op_class in TERMINATORS
