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

import importlib
import pkgutil
from collections.abc import Callable
from functools import cache

HANDLERS: dict[type, Callable] = {}
TERMINATORS: set[type] = set()


def handles(*op_classes: type) -> Callable[[Callable], Callable]:
    """Register the decorated function as the handler of ``op_classes``."""
    def register(function: Callable) -> Callable:
        for op_class in op_classes:
            HANDLERS[op_class] = function
        return function
    return register


def terminates(*op_classes: type) -> None:
    """Register ``op_classes`` as block terminators that yield their operands."""
    TERMINATORS.update(op_classes)


@cache
def handlers() -> dict[type, Callable]:
    """Every handler, after importing each dialect module of ``simt.ops`` once."""
    package = importlib.import_module("layoutkit.backends.simt.ops")
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        importlib.import_module(info.name)
    return HANDLERS


def supports(op_class: type) -> bool:
    """Whether the simulator runs ``op_class``."""
    return op_class in handlers() or op_class in TERMINATORS
