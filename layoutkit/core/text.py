"""One reader for MLIR-style attribute text, shared by every layout family.

Every family's native syntax is an MLIR attribute: Triton's ``#ttg.blocked<{k = v, ...}>``,
IREE's ``#iree_vector_ext.nested_layout<k = [...], ...>``, rocMLIR's
``#rock.transform_map<affine_map<...> by [...] bounds = [...] -> [...]>``. This module
tokenizes such text and reads the generic value grammar::

    value   := INT | 'true' | 'false' | STRING | IDENT | list | dict | attr
    list    := '[' (value (',' value)*)? ']'
    dict    := '{' entries? '}'
    attr    := '#' NAME ('<' body '>')?          -- NAME may be dotted: ttg.blocked
    body    := '{' entries '}' (',' entries)? | entries | values ('{' entries '}')?
    entries := IDENT '=' value (',' IDENT '=' value)*

Two body forms exist for Triton's shared encodings: ``#ttg.shared_linear<{offset = ...},
alignment = 16>`` (the entries after the braces join the dict) and
``#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [16, 32]}>`` (a list of values ending
with the dict; inside a list ``INT ':' '+' INT`` reads as the pair ``(32, 4)``).

Families with a grammar of their own (rocMLIR's ``by [...]`` lists) use the
:class:`Cursor` directly. Errors are :class:`~layoutkit.errors.LayoutError` that quote the
text around the offending position.

Example::

    >>> attr = parse_attribute("#ttg.slice<{dim = 1, parent = #ttg.blocked<{order = [1, 0]}>}>")
    >>> attr.name, attr.params["dim"], attr.params["parent"].params["order"]
    ('ttg.slice', 1, [1, 0])
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from layoutkit.errors import LayoutError, quote

#: longest attribute text read (characters): a layout attribute is a few kilobytes at most,
#: and longer text is refused before any work, with this limit in the message
MAX_TEXT = 1 << 20

# one pass of one regex: each match is the whitespace before a token and the token; anything
# that is no token is the ``bad`` group. Numbers are ASCII, as in MLIR: a digit is 0-9
# (Arabic-Indic or full-width digits are no numbers); an identifier starts [A-Za-z_].
_TOKEN = re.compile(
    r"""\s*(?:
    (?P<arrow>->)
  | (?P<int>-?[0-9]+)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<hash>\#[A-Za-z_][\w.$]*)
  | (?P<ident>[A-Za-z_][\w.$]*)
  | (?P<punct>[<>{}\[\](),=:*+?!@^|-])
  | (?P<bad>\S)
    )""",
    re.VERBOSE,
)


class Token(NamedTuple):
    kind: str  # int, string, hash, ident, punct, arrow, end
    text: str
    pos: int


def check_text_size(text: str, what: str = "layout text") -> None:
    """LayoutError when ``text`` is longer than :data:`MAX_TEXT` characters."""
    if len(text) > MAX_TEXT:
        raise LayoutError(f"{what}: {len(text)} characters is more than the {MAX_TEXT} (1 MiB) layoutkit reads "
                          f"as one attribute; text begins {quote(text[:60])}")


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens in one regex pass; an unknown character (a non-ASCII digit
    among them) is a :class:`LayoutError`, and so is text longer than :data:`MAX_TEXT`."""
    if not isinstance(text, str):
        raise LayoutError(f"layout text: expected a string, got {quote(repr(text))}")
    check_text_size(text)
    new = tuple.__new__
    tokens = [new(Token, (m.lastgroup, m.group(m.lastgroup), m.start(m.lastgroup))) for m in _TOKEN.finditer(text)]
    for tok in tokens:
        if tok.kind == "bad":
            raise LayoutError(
                f"layout text: unexpected character {quote(tok.text)} at column {tok.pos + 1} "
                f"in {quote(text)}"
            )
    tokens.append(Token("end", "", len(text)))
    return tokens


@dataclass(frozen=True)
class Attribute:
    """A parsed ``#name<...>`` attribute: its dotted name and its parameters.

    ``params`` is a dict for ``{k = v}`` / ``k = v`` bodies, a list for positional bodies,
    and None when the attribute has no ``<...>``.
    """

    name: str
    params: Any = None
    text: str = field(default="", compare=False)


class Cursor:
    """A position in a token list with the helpers every hand-written grammar needs."""

    #: how deep lists and attributes may nest; deeper text is a LayoutError, not a
    #: RecursionError (no layout nests more than a few levels)
    MAX_DEPTH = 64

    def __init__(self, text: str, aliases: dict[str, Attribute] | None = None):
        self.text = text
        self.tokens = tokenize(text)
        self.index = 0
        self.aliases = aliases or {}
        self.depth = 0

    def enter(self) -> None:
        """Count one level of nesting; past :attr:`MAX_DEPTH` fail (call :meth:`leave` after)."""
        self.depth += 1
        if self.depth > self.MAX_DEPTH:
            self.fail(f"text nested more than {self.MAX_DEPTH} levels deep")

    def leave(self) -> None:
        self.depth -= 1

    # -- looking -------------------------------------------------------------
    @property
    def peek(self) -> Token:
        return self.tokens[self.index]

    def at(self, text: str) -> bool:
        return self.peek.text == text and self.peek.kind != "string"

    def at_end(self) -> bool:
        return self.peek.kind == "end"

    # -- consuming -----------------------------------------------------------
    def next(self) -> Token:
        tok = self.tokens[self.index]
        if tok.kind != "end":
            self.index += 1
        return tok

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.index += 1
            return True
        return False

    def expect(self, text: str, what: str = "") -> Token:
        if not self.at(text):
            self.fail(f"expected {quote(text)}{' ' + what if what else ''}")
        return self.next()

    def expect_kind(self, kind: str, what: str) -> Token:
        if self.peek.kind != kind:
            self.fail(f"expected {what}")
        return self.next()

    def expect_end(self) -> None:
        if not self.at_end():
            self.fail("unexpected trailing text")

    def fail(self, message: str, token: Token | None = None) -> None:
        tok = token or self.peek
        found = "end of text" if tok.kind == "end" else quote(tok.text)
        raise LayoutError(
            f"{message}, found {found} at column {tok.pos + 1} in {quote(self.text, 200)}"
        )

    # -- the generic value grammar ---------------------------------------------
    def value(self) -> Any:
        tok = self.peek
        if tok.kind == "int":
            self.next()
            if self.at(":") and self.tokens[self.index + 1].text == "+":  # padded_shared's 32:+4
                self.index += 2
                return (int(tok.text), int(self.expect_kind("int", "a padding after ':+'").text))
            return int(tok.text)
        if tok.kind == "string":
            self.next()
            return bytes(tok.text[1:-1], "utf-8").decode("unicode_escape")
        if tok.kind == "ident":
            self.next()
            if tok.text == "true":
                return True
            if tok.text == "false":
                return False
            return tok.text
        if tok.kind == "hash":
            return self.attribute()
        if tok.text == "[":
            return self.list_value()
        if tok.text == "{":  # a dictionary value: amd_wmma's ctaLayout = {warp = [[0, 1]]}
            self.next()
            self.enter()
            entries = self.entries("}")
            self.expect("}", "to close a '{' dictionary")
            self.leave()
            return entries
        self.fail("expected a value")

    def list_value(self) -> list:
        self.expect("[")
        self.enter()
        items: list = []
        if not self.accept("]"):
            items.append(self.value())
            while self.accept(","):
                items.append(self.value())
            self.expect("]", "to close a list")
        self.leave()
        return items

    def attribute(self) -> Attribute:
        start = self.peek.pos
        tok = self.expect_kind("hash", "an attribute starting with '#'")
        name = tok.text[1:]
        if not self.at("<"):
            if name in self.aliases:
                return self.aliases[name]
            return Attribute(name, None, tok.text)
        self.expect("<")
        self.enter()
        params = self.body()
        end_tok = self.expect(">", f"to close {quote('#' + name + '<')}")
        self.leave()
        return Attribute(name, params, self.text[start : end_tok.pos + 1])

    def body(self) -> Any:
        if self.accept("{"):
            params = self.entries("}")
            self.expect("}", "to close the '{' of the parameters")
            if self.accept(","):  # shared_linear: <{...}, alignment = 16>
                key_tok = self.peek
                for key, value in self.entries(">").items():
                    if key in params:
                        self.fail(f"parameter {quote(key)} given twice", key_tok)
                    params[key] = value
            return params
        if self.at(">"):
            return {}
        if self.peek.kind == "ident" and self.tokens[self.index + 1].text == "=":
            return self.entries(">")
        items = [self.value()]
        while self.accept(","):
            items.append(self.value())
        if self.accept("{"):  # padded_shared: <[32:+4] {order = ..., shape = ...}>
            items.append(self.entries("}"))
            self.expect("}", "to close the '{' of the parameters")
        return items

    def entries(self, closer: str) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if self.at(closer):
            return params
        while True:
            key_tok = self.expect_kind("ident", "a parameter name")
            if key_tok.text in params:
                self.fail(f"parameter {quote(key_tok.text)} given twice", key_tok)
            self.expect("=", f"after {quote(key_tok.text)}")
            params[key_tok.text] = self.value()
            if not self.accept(","):
                return params


_ALIAS_LINE = re.compile(r"^\s*#([A-Za-z_][\w.$]*)\s*=\s*(.+?)\s*$", re.ASCII)


def parse_aliases(text: str) -> dict[str, Attribute]:
    """Read ``#name = #attr<...>`` definition lines (as in a .ttgir file), in order.

    Lines that are not alias definitions are ignored; a definition may use earlier aliases.
    A definition outside the generic grammar (a ``#rock.transform_map`` with its
    ``affine_map<...>``) is kept as raw text, for its family's own parser to read when used.
    """
    aliases: dict[str, Attribute] = {}
    for line in text.splitlines():
        m = _ALIAS_LINE.match(line)
        if m is None or not m.group(2).startswith("#"):
            continue
        try:
            cursor = Cursor(m.group(2), aliases)
            value = cursor.attribute()
            cursor.expect_end()
        except LayoutError:
            name = re.match(r"#([\w.$]*)", m.group(2), re.ASCII).group(1)  # type: ignore[union-attr]
            value = Attribute(name, None, m.group(2))
        aliases[m.group(1)] = value
    return aliases


def parse_attribute(text: str, aliases: dict[str, Attribute] | None = None) -> Attribute:
    """Parse one whole attribute text; trailing text is an error.

    Without aliases the common form ``#name<{key = value, ...}>`` is read by
    :func:`scan_attribute` (a few C-level passes); anything it does not take -- and every
    error -- goes through the :class:`Cursor` grammar, which gives the same value."""
    if not aliases and text.__class__ is str and len(text) <= MAX_TEXT:
        scanned = scan_attribute(text.strip())
        if scanned is not None:
            return scanned
    cursor = Cursor(text.strip(), aliases)
    attr = cursor.attribute()
    cursor.expect_end()
    return attr


# -- the fast path ------------------------------------------------------------------------
# ``#name<{body}>`` with a body of ``key = value`` entries whose values are integers, true,
# false, (nested) integer lists and nested attributes of the same form: Triton's encodings.
_SCAN_HEAD = re.compile(r"#([A-Za-z_][\w.$]*)<\{", re.ASCII)
# the characters a plain body may hold (ASCII only: no non-ASCII digits or spaces to judge)
_SCAN_BODY = re.compile(r"[A-Za-z0-9_\[\], \t\r\n=\"@-]*\Z", re.ASCII)
# one entry's start: the key (after a comma, or first) and its '='; the values between
_SCAN_KEY = re.compile(r"(?:\A|,)\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*", re.ASCII)


def _no_float(text: str) -> Any:
    raise ValueError(text)


_VALUES = json.JSONDecoder(parse_float=_no_float, parse_constant=_no_float)
_PLACEHOLDER = "@{}"


def scan_attribute(text: str, depth: int = 0) -> Attribute | None:
    """``text`` (stripped) read as :func:`parse_attribute` reads it, when it has the plain
    form ``#name<{key = value, ...}>`` whose values are integers, ``true``/``false``, integer
    lists (nested or not) and nested attributes of the same form; else None (the general
    grammar then reads it, or names what is wrong).

    The body is cut at each ``, key =`` by one regex split and all values are read at once as
    one JSON array (integer lists and booleans are JSON). Nested attributes are scanned first
    and stand in the array as placeholders.

    >>> parent = scan_attribute("#ttg.slice<{dim = 0, parent = #ttg.blocked<{order = [1, 0]}>}>").params["parent"]
    >>> parent.name, parent.params, parent.text
    ('ttg.blocked', {'order': [1, 0]}, '#ttg.blocked<{order = [1, 0]}>')
    >>> scan_attribute("#ttg.blocked<{order = [1, x]}>") is None
    True
    """
    head = _SCAN_HEAD.match(text)
    if head is None or not text.endswith("}>") or depth > Cursor.MAX_DEPTH:
        return None
    body = text[head.end():-2]
    if '"' in body or "@" in body:  # strings (and the placeholders' '@'): the general grammar
        return None
    nested: list[Attribute] = []
    if "#" in body:
        body = _scan_nested(body, nested, depth)
        if body is None:
            return None
    if not _SCAN_BODY.match(body) or body.lstrip().startswith(","):  # '{, key = ...': an error
        return None
    parts = _SCAN_KEY.split(body)
    keys = parts[1::2]
    if parts[0] or not keys:
        return None if parts[0] or body.strip() else Attribute(head.group(1), {}, text)
    try:
        values = _VALUES.decode("[" + ",".join(parts[2::2]) + "]")
    except (ValueError, RecursionError):
        return None
    if len(values) != len(keys):
        return None
    params = dict(zip(keys, values))
    if len(params) != len(keys):  # a key given twice: the general grammar says so
        return None
    if nested:
        for key, value in params.items():
            if value.__class__ is str:
                params[key] = nested[int(value[1:])]
    if not all(_plain(v) for v in params.values()):
        return None
    return Attribute(head.group(1), params, text)


def _plain(value: Any) -> bool:
    """Whether a decoded value is one the general grammar gives the same way (no strings)."""
    if value.__class__ is list:
        return all(v.__class__ is int or (v.__class__ is list and all(x.__class__ is int for x in v))
                   for v in value)
    return value.__class__ in (int, bool, Attribute)


def _scan_nested(body: str, nested: list[Attribute], depth: int) -> str | None:
    """``body`` with each nested ``#name<{...}>`` replaced by a JSON placeholder string
    (the attribute appended to ``nested``); None when one is not of the plain form."""
    out = []
    start = 0
    while (at := body.find("#", start)) >= 0:
        open_brackets, i = 0, at
        while True:  # the matching '>': bodies of the plain form hold no other '<' or '>'
            opened, closed = body.find("<", i), body.find(">", i)
            if closed < 0:
                return None
            if 0 <= opened < closed:
                open_brackets, i = open_brackets + 1, opened + 1
            else:
                open_brackets, i = open_brackets - 1, closed + 1
                if open_brackets <= 0:
                    break
        attr = scan_attribute(body[at:i], depth + 1)
        if attr is None:
            return None
        out.append(body[start:at])
        out.append('"' + _PLACEHOLDER.format(len(nested)) + '"')
        nested.append(attr)
        start = i
    out.append(body[start:])
    return "".join(out)
