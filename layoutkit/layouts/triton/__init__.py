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

import re
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


_CANONICAL_HEAD = re.compile(r"#(?:ttg|triton_gpu)\.([A-Za-z_][A-Za-z0-9_]*)<\{", re.ASCII)


#: nested encodings (parents of parents) the canonical reader follows; deeper text is left
#: to the general reader, which bounds the nesting with a LayoutError
CANONICAL_DEPTH = 8


def read_canonical(text: str, depth: int = 0) -> Any:
    """The encoding of ``text`` when it is written exactly as Triton prints it (the fields
    in order, ``key = value, ...``; see ``DeclaredFields.read_canonical_body``), else None.

    >>> read_canonical("#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], "
    ...                "threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>").rank
    1
    >>> read_canonical("#ttg.blocked<{order = [1, 0], sizePerThread = [1, 4]}>") is None  # not Triton's order
    True
    """
    head = _CANONICAL_HEAD.match(text)
    if head is None or depth > CANONICAL_DEPTH:
        return None
    read = getattr(encoding_classes().get(head.group(1)), "read_canonical_body", None)
    return None if read is None else read(text, head.end(), depth)


def parse_text(text: str, aliases: dict[str, Attribute] | None = None, **options: Any) -> Any:
    """``parse_layout``'s entry for ``#ttg.`` / ``#triton_gpu.`` text: text as Triton prints
    it is read by :func:`read_canonical`; anything else (and every error) by the general
    attribute reader, which gives the same value."""
    if not aliases and text.__class__ is str:
        found = read_canonical(text)
        if found is not None:
            return found
    return from_attribute(parse_attribute(text, aliases), aliases)


# the encoding classes and helpers of the submodules, re-exported on first use
__getattr__, __dir__ = lazy_exports(__name__, search=(*_ENCODING_MODULES, "layoutkit.layouts.triton.default"))
