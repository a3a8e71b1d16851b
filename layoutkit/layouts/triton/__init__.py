"""Triton's TritonGPU encodings, in Triton's own attribute syntax.

Every encoding is a frozen dataclass with ``ATTR_NAME`` (``"blocked"``, ``"nvidia_mma"``, ...),
``from_attribute(attr, aliases)`` (reads an :class:`~layoutkit.core.text.Attribute`),
``__str__`` (prints ``#ttg.<name><{...}>`` text that parses back to an equal value) and
``to_linear_layout(shape)`` returning exactly the linear layout Triton computes.

Encodings are registered by the modules listed in ``_ENCODING_MODULES``, each exporting an
``ENCODINGS`` tuple of classes. The legacy ``#triton_gpu.`` prefix of seed 004 reads like
``#ttg.``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from layoutkit._lazy import import_present, lazy_exports
from layoutkit.core.text import Attribute, parse_attribute
from layoutkit.errors import LayoutError, quote

_ENCODING_MODULES = (
    "layoutkit.layouts.triton.blocked",
    "layoutkit.layouts.triton.mma",
    "layoutkit.layouts.triton.amd",
    "layoutkit.layouts.triton.linear",
    "layoutkit.layouts.triton.shared",
)
PREFIXES = ("ttg.", "triton_gpu.")


@cache
def encoding_classes() -> dict[str, type]:
    """``ATTR_NAME`` -> encoding class, over every registered module that is present."""
    classes: dict[str, type] = {}
    for module_name in _ENCODING_MODULES:
        module = import_present(module_name)
        for cls in (module.ENCODINGS if module is not None else ()):
            names = (cls.ATTR_NAME, *getattr(cls, "LEGACY_ATTR_NAMES", ()))
            for name in names:
                classes[name] = cls
    return classes


def from_attribute(attr: Attribute, aliases: dict[str, Attribute] | None = None) -> Any:
    """The encoding an attribute denotes (used for nested ``parent = ...`` too)."""
    if not isinstance(attr, Attribute):
        raise LayoutError(f"encoding: expected a '#ttg.<name><{{...}}>' attribute, got {quote(attr)}")
    name = attr.name
    for prefix in PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix):]
            break
    else:
        if attr.params is None:
            raise LayoutError(f"encoding: unknown alias {quote('#' + attr.name)}")
        raise LayoutError(f"encoding: {quote('#' + attr.name)} is not a TritonGPU encoding")
    cls = encoding_classes().get(name)
    if cls is None:
        known = ", ".join(sorted(encoding_classes()))
        raise LayoutError(f"encoding: unknown TritonGPU encoding {quote(name)} (known: {known})")
    if not isinstance(attr.params, dict) and not getattr(cls, "POSITIONAL_PARAMS", False):
        raise LayoutError(f"{name}: expected '<{{key = value, ...}}>' parameters in {quote(attr.text)}")
    return cls.from_attribute(attr, aliases or {})


def parse_text(text: str, aliases: dict[str, Attribute] | None = None, **options: Any) -> Any:
    """``parse_layout``'s entry for ``#ttg.`` / ``#triton_gpu.`` text."""
    return from_attribute(parse_attribute(text, aliases), aliases)


# the encoding classes and helpers of the submodules, re-exported on first use
__getattr__, __dir__ = lazy_exports(__name__, search=(*_ENCODING_MODULES, "layoutkit.layouts.triton.default"))
