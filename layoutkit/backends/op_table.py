"""A backend's table of what it does for each op class, filled by the modules of one package
(one module per dialect) that register into it when imported — as xDSL's interpreter
registers ``@impl(Op)``. The simulator's and the CUDA emitter's registries are both one::

    HANDLERS = OpTable("layoutkit.backends.simt.ops")

    @HANDLERS.register(arith.AddfOp, arith.MulfOp)
    def binary(m, op, mask) -> None: ...
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable


class OpTable:
    """Op class -> function, registered by the dialect modules of ``package``."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.entries: dict[type, Callable] = {}
        self._loaded = False

    def register(self, *op_classes: type) -> Callable[[Callable], Callable]:
        """Register the decorated function for ``op_classes``."""
        def register(function: Callable) -> Callable:
            for op_class in op_classes:
                self.entries[op_class] = function
            return function
        return register

    def all(self) -> dict[type, Callable]:
        """Every entry, after importing each module of the package once."""
        if not self._loaded:
            package = importlib.import_module(self.package)
            for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
                importlib.import_module(info.name)
            self._loaded = True
        return self.entries
