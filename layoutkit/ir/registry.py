"""The dialect registry: the one list of what the IR parser knows.

Every module under :mod:`layoutkit.ir.dialects` registers what it defines when imported —
a dialect's ops and attributes, or a part of one — and :func:`dialects` merges the parts by
dialect name. A part may start from an xDSL dialect (``upstream=``) whose ops layoutkit
keeps; ops layoutkit defines again under the same name replace xDSL's (a syntax patch).
Example: xDSL's ``memref`` plus layoutkit's ``memref.global`` in MLIR's syntax::

    register("memref", ops=[GlobalOp], upstream=xdsl.dialects.memref.MemRef)

The modules are found by walking the package, so adding a dialect is adding a file.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from functools import cache

from xdsl.ir import Dialect


@dataclass
class _Parts:
    """What the modules registered for one dialect name, in registration order."""

    upstream: Dialect | None = None
    ops: list = field(default_factory=list)
    attributes: list = field(default_factory=list)


_PARTS: dict[str, _Parts] = {}


def register(name: str, ops=(), attributes=(), *, upstream: Dialect | None = None) -> None:
    """Add ``ops`` and ``attributes`` to dialect ``name`` (on top of xDSL's ``upstream``)."""
    parts = _PARTS.setdefault(name, _Parts())
    if upstream is not None:
        if parts.upstream is not None and parts.upstream is not upstream:
            raise ValueError(f"dialect {name}: two upstream dialects registered")
        parts.upstream = upstream
    parts.ops.extend(ops)
    parts.attributes.extend(attributes)


def _import_all() -> None:
    """Import every module of :mod:`layoutkit.ir.dialects` (each registers itself)."""
    package = importlib.import_module("layoutkit.ir.dialects")
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(info.name)


@cache
def dialects() -> tuple[Dialect, ...]:
    """Every registered dialect, merged: xDSL's ops with layoutkit's replacing or adding."""
    _import_all()
    merged = []
    for name, parts in sorted(_PARTS.items()):
        ops = {op.name: op for op in (parts.upstream.operations if parts.upstream else ())}
        ops.update({op.name: op for op in parts.ops})
        attrs = {a.name: a for a in (parts.upstream.attributes if parts.upstream else ())}
        attrs.update({a.name: a for a in parts.attributes})
        merged.append(Dialect(name, list(ops.values()), list(attrs.values())))
    return tuple(merged)


def op_classes() -> dict[str, type]:
    """Op name -> op class, over every registered dialect."""
    return {op.name: op for dialect in dialects() for op in dialect.operations}


def defined_by_layoutkit(op_class: type) -> bool:
    """Whether layoutkit defines ``op_class`` (its own op or a syntax patch), not xDSL."""
    return op_class.__module__.startswith("layoutkit.")
