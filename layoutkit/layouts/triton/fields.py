"""Each TritonGPU encoding declares its fields once; the reader, the printer and the
validator are generated from that declaration.

An encoding lists its fields in Triton's print order as a ``FIELDS`` tuple of :class:`Field`
(one per ``key = value`` of the text, and :data:`CGA` where the CGA layout is printed)::

    FIELDS = (
        Field("sizePerThread", "size_per_thread", "ints", minimum=1, pow2=True),
        Field("order", "order", "ints"),
        CGA,
    )

and gets, from :class:`DeclaredFields`:

- ``from_attribute`` -- reads every field (absent optional fields take their default, unknown
  keys are errors). The values are passed to the class as they are when every key is
  declared (the constructor checks each once); only when that fails are they read again
  with :class:`~layoutkit.layouts.triton.common.Fields`, whose messages name the field and
  quote the text;
- ``field_text`` -- prints them (a field equal to its default is left out, as Triton does);
- ``check_declared_fields()`` -- called from ``__post_init__``: each value checked by kind
  (an int is not a bool; lists become tuples; ``minimum``, powers of two), errors naming
  Triton's key.

An encoding then only checks what ties fields together (ranks, permutations, instruction
shapes) in its ``__post_init__``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from layoutkit.core.bits import is_int, is_pow2
from layoutkit.core.text import Attribute
from layoutkit.errors import LayoutError, quote
from layoutkit.layouts import triton
from layoutkit.layouts.triton.common import (
    Fields,
    bases_text,
    bool_text,
    check_bases,
    check_ints,
    ints_text,
)

_REQUIRED = object()
_ABSENT = object()
KINDS = ("int", "ints", "bool", "bases", "cga", "encoding")

# a value as Triton prints it (ASCII digits, no leading zeros; ', ' between entries); a nested
# encoding is any '#a.b<{...}>', read again by the same reader (the greedy '.*' gives back
# characters until the rest of the text matches -- a few for a parent written last -- and the
# nested text must then read as one encoding)
_CANONICAL_INT = "0|-?[1-9][0-9]*"
_CANONICAL_VALUE = {
    "int": f"({_CANONICAL_INT})",
    "ints": rf"(\[(?:(?:{_CANONICAL_INT})(?:, (?:{_CANONICAL_INT}))*)?\])",
    "bool": "(true|false)",
    "encoding": r"(#[A-Za-z_][A-Za-z0-9_.]*<\{.*\}>)",
    # lists of non-negative int lists (what the general reader passes on as written)
    "bases": r"(\[(?:\[(?:(?:0|[1-9][0-9]*)(?:, (?:0|[1-9][0-9]*))*)?\](?:, \[(?:(?:0|[1-9][0-9]*)(?:, (?:0|[1-9][0-9]*))*)?\])*)?\])",
}
_CANONICAL_VALUE["cga"] = _CANONICAL_VALUE["bases"]


@dataclass(frozen=True)
class Field:
    """One field: Triton's ``key``, the dataclass attribute ``attr``, its ``kind`` (one of
    ``int, ints, bool, bases``, or ``encoding``: a nested ``#ttg.`` attribute), the smallest allowed value, whether values are powers of
    two, the ``default`` an absent key reads as (required when not given), and when it is
    printed (by default: unless it equals its default)."""

    key: str
    attr: str
    kind: str
    minimum: int = 0
    pow2: bool = False
    default: Any = _REQUIRED
    #: printed when this says so (default: when required or not the default)
    printed: Callable[[Any], bool] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Field {self.key}: kind must be one of {KINDS}, got {self.kind!r}")

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    # -- reading ---------------------------------------------------------------------
    def read(self, fields: Fields) -> Any:
        """The value in the text (an absent optional field reads as its default)."""
        if self.kind == "encoding":
            from layoutkit.layouts.triton import from_attribute

            return from_attribute(fields.attribute(self.key), fields.aliases)
        reader = {"int": fields.int, "ints": fields.ints, "bool": fields.bool, "bases": fields.bases}[self.kind]
        default = () if self.required else (self.default,)
        minimum = {"minimum": self.minimum} if self.kind in ("int", "ints") else {}
        return reader(self.key, *default, **minimum)

    # -- checking --------------------------------------------------------------------
    def check(self, value: Any) -> Any:
        """``value`` normalised (tuples for lists), or a LayoutError naming the key."""
        kind = self.kind
        # the common case first: plain ints (what the text reader gives), checked in one pass
        if kind == "ints" and value.__class__ in (tuple, list):
            minimum = self.minimum
            if (all(v.__class__ is int and v >= minimum and not v & (v - 1) for v in value) if self.pow2
                    else all(v.__class__ is int and v >= minimum for v in value)):
                return value if value.__class__ is tuple else tuple(value)
        elif kind == "int" and value.__class__ is int and value >= self.minimum and (
                not self.pow2 or not value & (value - 1)):
            return value
        if not self.required and value == self.default:
            return self.default
        if self.kind == "encoding":
            if not isinstance(getattr(value, "ATTR_NAME", None), str):
                raise LayoutError(f"{self.key}: expected a TritonGPU encoding, got {quote(value)}")
            return value
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise LayoutError(f"{self.key}: expected true or false, got {quote(value)}")
            return value
        if self.kind == "int":
            if not is_int(value) or value < self.minimum:
                raise LayoutError(f"{self.key}: expected an integer >= {self.minimum}, got {quote(value)}")
            value = int(value)
            values: tuple[int, ...] = (value,)
        elif self.kind == "ints":
            value = values = check_ints(self.key, value, minimum=self.minimum)
        else:
            value = check_bases(self.key, value)
            values = tuple(v for b in value for v in b if v)
        if self.pow2 and not all(is_pow2(v) for v in values):
            shown = value if self.kind == "int" else ints_text(values)
            raise LayoutError(f"{self.key}: every entry must be a power of two, got {quote(shown)}")
        return value

    # -- printing --------------------------------------------------------------------
    def text(self, value: Any) -> str:
        if self.kind == "bool":
            return f"{self.key} = {bool_text(value)}"
        if self.kind == "int":
            return f"{self.key} = {value}"
        if self.kind == "ints":
            return f"{self.key} = {ints_text(value)}"
        if self.kind == "encoding":
            return f"{self.key} = {value}"
        return f"{self.key} = {bases_text(value)}"


#: where an encoding prints its CGA layout (``CGALayout = [[...]]``, nothing when default)
CGA = Field("CGALayout", "cga", "cga", default=None)


class DeclaredFields:
    """Mixin for an encoding dataclass with a ``FIELDS`` declaration (see the module doc).

    ``RANK_FIELD`` names the field whose length is the encoding's rank (for reading the CGA
    layout); ``from_attribute`` passes the fields as keyword arguments to the class.
    """

    FIELDS: ClassVar[tuple[Field, ...]] = ()
    RANK_FIELD: ClassVar[str] = ""
    _DECLARED_KEYS: ClassVar[frozenset[str] | None] = None
    ATTR_NAME: ClassVar[str] = ""

    @classmethod
    def from_attribute(cls, attr: Attribute, aliases: dict[str, Attribute] | None = None):
        values = cls._values_as_written(attr, aliases)
        if values is not None:
            try:
                return cls(**values)
            except LayoutError:
                pass  # read again below, field by field, for the message that quotes the text
        f = Fields(attr, attr.name.rsplit(".", 1)[-1], aliases)
        values = cls.read_declared_fields(f)
        return f.build(lambda: cls(**values))

    @classmethod
    def read_canonical_body(cls, text: str, start: int, depth: int = 0) -> Any:
        """The encoding whose text ``text[start:]`` (after ``#ttg.<name><{``) is written
        exactly as Triton prints it -- the declared keys in order, ``key = value`` joined by
        ``, `` -- read with one regex match (the pattern is made from
        ``FIELDS``); None for any other text, or values the constructor refuses: the general
        reader then reads it (and words the error). ``sizePerThread = [1, 4], threadsPerWarp
        = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>`` gives the four tuples as they
        are; a nested ``parent = #ttg.blocked<{...}>`` is read by the same path."""
        reader = cls.__dict__.get("_CANONICAL")
        if reader is None:
            reader = cls._canonical_reader()
            cls._CANONICAL = reader  # one per class, as _DECLARED_KEYS
        if not reader:
            return None
        pattern, fields = reader
        match = pattern.fullmatch(text, start)
        if match is None:
            return None
        values = {}
        try:
            for (attr, kind, default), value in zip(fields, match.groups()):
                if value is None:
                    values[attr] = default
                elif kind == "ints":  # "[1, 4]"
                    values[attr] = tuple(map(int, value[1:-1].split(", "))) if len(value) > 2 else ()
                elif kind == "int":
                    values[attr] = int(value)
                elif kind == "bool":
                    values[attr] = value == "true"
                elif kind != "encoding":  # bases, cga: "[[0, 1], [1, 0]]" -> ((0, 1), (1, 0))
                    values[attr] = tuple(tuple(map(int, b.split(", "))) if b else ()
                                         for b in value[2:-2].split("], [")) if len(value) > 2 else ()
                else:
                    values[attr] = triton.read_canonical(value, depth + 1)
                    if values[attr] is None:
                        return None
            return cls(**values)
        except (LayoutError, ValueError):  # ValueError: an int of more digits than Python reads
            return None

    #: a class whose own ``from_attribute`` reads canonical text as DeclaredFields does sets this
    CANONICAL_READ: ClassVar[bool] = False
    _CANONICAL: ClassVar[Any] = None

    @classmethod
    def _canonical_reader(cls) -> tuple[Any, tuple] | bool:
        """(pattern, (attr, kind, default) per group), or False when this class's text is
        read only by the general reader (fields of other kinds, a first field that is
        optional, or a ``from_attribute`` of its own)."""
        own = cls.from_attribute.__func__ is DeclaredFields.from_attribute.__func__  # type: ignore[attr-defined]
        fields = list(cls.FIELDS)
        if (not (own or cls.__dict__.get("CANONICAL_READ")) or not fields or not fields[0].required
                or any(f.kind not in _CANONICAL_VALUE for f in fields)):
            return False
        parts = []
        for i, f in enumerate(fields):
            entry = f"{', ' if i else ''}{f.key} = {_CANONICAL_VALUE[f.kind]}"
            parts.append(entry if f.required else f"(?:{entry})?")
        pattern = re.compile("".join(parts) + r"\}>", re.ASCII)
        return pattern, tuple((f.attr, f.kind, None if f.required else f.default) for f in fields)

    @classmethod
    def _values_as_written(cls, attr: Attribute, aliases: dict[str, Attribute] | None) -> dict[str, Any] | None:
        """The constructor's keyword arguments taken from the text as they are (the
        constructor checks them), or None when a key is not declared, a nested encoding is
        wrong or the CGA layout is written in the legacy fields: then the reader runs."""
        params = attr.params
        keys = cls.__dict__.get("_DECLARED_KEYS")
        if keys is None:
            keys = frozenset(f.key for f in cls.FIELDS)
            cls._DECLARED_KEYS = keys  # one per class (a subclass declares its own FIELDS)
        if params.__class__ is not dict or not keys.issuperset(params):
            return None
        values = {}
        for field in cls.FIELDS:
            value = params.get(field.key, _ABSENT)
            if value is _ABSENT:
                if field.required:
                    return None
                if field.kind != "cga":
                    values[field.attr] = field.default
                continue
            if field.kind == "encoding":
                if value.__class__ is not Attribute:
                    return None
                try:
                    value = triton.from_attribute(value, aliases)
                except LayoutError:
                    return None
            elif field.kind in ("cga", "bases") and not (value.__class__ is list and all(
                    b.__class__ is list and all(v.__class__ is int and v >= 0 for v in b) for b in value)):
                return None
            values[field.attr] = value
        return values

    @classmethod
    def read_declared_fields(cls, f: Fields) -> dict[str, Any]:
        """Every declared field read from ``f`` (the CGA layout once the rank is known)."""
        from layoutkit.layouts.triton.cga import CGALayout

        values = {field.attr: field.read(f) for field in cls.FIELDS if field.kind != "cga"}
        if any(field.kind == "cga" for field in cls.FIELDS):
            rank = len(values[cls.RANK_FIELD]) or CGALayout.rank_of_fields(f) or 1
            values["cga"] = CGALayout.from_fields(f, rank)
        return values

    def field_text(self) -> str:
        parts = []
        for field in self.FIELDS:
            value = getattr(self, field.attr)
            if field.kind == "cga":
                parts.append(value.field_text().removeprefix(", "))
            elif field.printed(value) if field.printed else (field.required or value != field.default):
                parts.append(field.text(value))
        return ", ".join(p for p in parts if p)

    def check_declared_fields(self) -> None:
        """Check and normalise every declared field (call first in ``__post_init__``)."""
        fields = self.__dict__  # a frozen dataclass: written as object.__setattr__ would
        for field in self.FIELDS:
            if field.kind != "cga":
                fields[field.attr] = field.check(fields[field.attr])
