"""The one error type a user of layoutkit can cause."""

from __future__ import annotations


class LayoutError(ValueError):
    """A user-caused error: bad layout text, an invalid field, a shape a layout cannot cover.

    The message names the offending field and quotes the offending text, e.g.
    ``sizePerThread: expected a list of positive integers, got '[1, x]'``.
    """


def quote(text: object, limit: int = 80) -> str:
    """``text`` as a short single-quoted excerpt for error messages."""
    s = str(text)
    if len(s) > limit:
        s = s[: limit - 3] + "..."
    return "'" + s + "'"
