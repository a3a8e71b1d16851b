"""Reading and writing the files named on the command line, every failure a LayoutError
that names the option and quotes the path (the CLI turns it into one ``error:`` line)."""

from __future__ import annotations

from pathlib import Path

from layoutkit.errors import LayoutError, quote


def read_text(path: str, field: str) -> str:
    """The UTF-8 text of ``path``; ``field`` names the option in the error message."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise LayoutError(f"{field}: cannot read {quote(path)}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise LayoutError(
            f"{field}: {quote(path)} is not UTF-8 text (byte 0x{err.object[err.start]:02x} at position {err.start})"
        ) from None


def write_text(path: str, text: str, field: str) -> None:
    """Write ``text`` to ``path`` as UTF-8; ``field`` names the option in the error message."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as err:
        raise LayoutError(f"{field}: cannot write {quote(path)}: {err.strerror or err}") from None
