"""One helper for lazy re-exports: a package names what it offers and where each name is
defined, and the defining module is imported on first use.

``import layoutkit`` stays light this way (the IR, plotting and CUDA load only when used),
and a family module can re-export a name defined in a layer below it
(``layoutkit.layouts.iree.to_blocked`` is :func:`layoutkit.translate.to_blocked`) without
importing that layer when it is itself imported::

    __getattr__, __dir__ = lazy_exports(__name__, {"to_blocked": "layoutkit.translate.iree_triton"})

A module's ``__getattr__`` runs only for names its namespace lacks; the first lookup stores
the value there, so later ones cost nothing.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Any


def load(module: str, name: str) -> Any:
    """``module.name``, importing ``module`` now: a call into a layer a module may not import
    at its top (a family's method that delegates to :mod:`layoutkit.translate`)."""
    return getattr(importlib.import_module(module), name)


def lazy_exports(module_name: str, exports: Mapping[str, str] | None = None, *,
                 search: Iterable[str] = ()) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the module ``module_name``.

    ``exports`` maps a public name to the module that defines it; ``search`` lists modules
    looked through, in order, for any other name (a module that is not installed is skipped).
    An unknown name is an ``AttributeError``, as for any module.
    """
    exports = dict(exports or {})
    search = tuple(search)

    def __getattr__(name: str) -> Any:
        source = exports.get(name)
        if source is not None:
            value = load(source, name)
        else:
            value = _search(search, name, module_name)
        sys.modules[module_name].__dict__[name] = value
        return value

    def __dir__() -> list[str]:
        namespace = sys.modules[module_name].__dict__
        names = namespace.get("__all__") or [n for n in namespace if not n.startswith("_")]
        return sorted({*names, *exports})

    return __getattr__, __dir__


def import_present(module: str) -> ModuleType | None:
    """``module`` imported, or None when it is absent (an import error inside it is raised)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name == module:
            return None
        raise


def _search(modules: tuple[str, ...], name: str, module_name: str) -> Any:
    if not name.startswith("__"):
        for source in modules:
            module = import_present(source)
            if module is not None and hasattr(module, name):
                return getattr(module, name)
    raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
