"""What every ``layoutkit`` command shares: one spelling of each option, reading and writing
the files named on the command line (``-`` is stdin or stdout), and the hardware options of
layouts whose text does not carry them.

Every failure is a :class:`~layoutkit.errors.LayoutError` that names the option and quotes the
path; the CLI turns it into one ``error:`` line.

Options are spelled once, here, and each command takes the ones it needs:

==========================  ==============================================================
``-l, --layout ATTR``        layout text in any family's syntax, or ``#name`` of an alias
``-t, --tensor-type TYPE``   ``tensor<16x16xf16>`` (``--tensor`` still works, hidden)
``-i, --input FILE``         a file of ``#name = #attr<...>`` lines; ``-`` reads stdin
``--alias-names A,B``        aliases of ``-i`` to use (``--alias-name`` still works, hidden)
``-o, --output FILE``        where the result goes; ``-`` (or none) is stdout
``--subgroup-size N``        lanes per subgroup, for layouts that do not carry it
``--num-subgroups N``        subgroups, for layouts that do not carry it
==========================  ==============================================================

:class:`Command` also reads the single-dash long options of LLVM's command lines, as
``triton-tensor-layout``'s lit tests write them: ``-alias-names=blocked``, ``-use-hw-view``,
``-i=file.mlir``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from layoutkit.errors import LayoutError, quote

#: the file name that means stdin (as an input) or stdout (as an output)
STDIO = "-"

#: old spellings that still work, hidden from ``--help``
HIDDEN_ALIASES = {"--tensor": "--tensor-type", "--alias-name": "--alias-names"}

_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


# ------------------------------------------------------------------------------------------
# files
# ------------------------------------------------------------------------------------------
def display_name(path: str) -> str:
    return "<stdin>" if path == STDIO else path


def read_input(path: str, field: str) -> str:
    """The UTF-8 text of ``path`` (``-``: stdin); ``field`` names the option in errors."""
    try:
        if path == STDIO:
            data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
            return data.decode("utf-8") if isinstance(data, bytes) else data
        return Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise LayoutError(f"{field}: cannot read {quote(display_name(path))}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise LayoutError(
            f"{field}: {quote(display_name(path))} is not UTF-8 text "
            f"(byte 0x{err.object[err.start]:02x} at position {err.start})"
        ) from None


def check_writable(path: str, field: str = "output") -> None:
    """A LayoutError, before any work is done, when ``path`` cannot be written (``-`` can)."""
    if path == STDIO:
        return
    import os

    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise LayoutError(f"{field}: cannot write {quote(path)}: it is a directory")
    if not folder.is_dir():
        raise LayoutError(f"{field}: cannot write {quote(path)}: no directory {quote(str(folder))}")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise LayoutError(f"{field}: cannot write {quote(path)}: permission denied")


def write_output(path: str | None, data: str | bytes, field: str = "output") -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path``; ``None`` or ``-`` is stdout."""
    if path is None or path == STDIO:
        if isinstance(data, bytes):
            stream = click.get_binary_stream("stdout")
            stream.write(data)
            stream.flush()
        else:
            click.echo(data, nl=False)
        return
    try:
        if isinstance(data, bytes):
            Path(path).write_bytes(data)
        else:
            Path(path).write_text(data, encoding="utf-8")
    except OSError as err:
        raise LayoutError(f"{field}: cannot write {quote(path)}: {err.strerror or err}") from None


# ------------------------------------------------------------------------------------------
# values of options
# ------------------------------------------------------------------------------------------
def hardware_options(subgroup_size: int | None = None, num_subgroups: int | None = None) -> dict[str, int]:
    """``parse_layout``'s keyword options from ``--subgroup-size`` / ``--num-subgroups``
    (only those given)."""
    options: dict[str, int] = {}
    for name, value in (("subgroup_size", subgroup_size), ("num_subgroups", num_subgroups)):
        if value is not None:
            options[name] = value
    return options


def alias_list(values: tuple[str, ...] | str | None) -> list[str] | None:
    """``--alias-names a,b --alias-names c`` -> ``['a', 'b', 'c']`` (a leading ``#`` is
    dropped); ``None`` when the option is not given."""
    if not values:
        return None
    text = values if isinstance(values, str) else ",".join(values)
    names = [name.strip().lstrip("#") for name in text.split(",")]
    if not all(names):
        raise LayoutError(f"alias-names: expected 'name1,name2,...', got {quote(text)}")
    return names


# ------------------------------------------------------------------------------------------
# the options, spelled once
# ------------------------------------------------------------------------------------------
def layout_option(multiple: bool = False, help: str | None = None) -> Callable:
    return click.option(
        "-l", "--layout", "layout_text", multiple=multiple, metavar="ATTR",
        help=help or "Layout text in any family's syntax (#ttg., #iree_vector_ext., #rock., CuTe "
                     "'shape:stride', 'Sw<B,M,S> o 0 o shape:stride'), or '#name' of a layout in the -i file.")


def tensor_type_option(required: bool, help: str | None = None) -> Callable:
    return click.option(
        "-t", "--tensor-type", "tensor_type", required=required, metavar="TYPE",
        help=help or "Tensor type, e.g. 'tensor<16x16xf16>'; without -l and -i, the encoding written "
                     "inside it ('tensor<16x16xf16, #ttg.blocked<{...}>>') is used.")


def input_option(help: str | None = None) -> Callable:
    return click.option(
        "-i", "--input", "input_file", metavar="FILE",
        help=help or "A file (e.g. a .ttgir) whose '#name = #attr<...>' lines define layouts; '-' reads stdin.")


def alias_names_option(help: str | None = None) -> Callable:
    return click.option(
        "--alias-names", "alias_names", multiple=True, metavar="NAME,...",
        help=help or "Layouts of the -i file to use, comma-separated (the option may repeat).")


def output_option(required: bool = False, help: str | None = None) -> Callable:
    return click.option(
        "-o", "--output", "output_file", required=required, metavar="FILE",
        help=help or "Write to FILE instead of stdout ('-' is stdout).")


def hardware_size_options(func: Callable) -> Callable:
    """``--subgroup-size N`` and ``--num-subgroups N``."""
    func = click.option("--num-subgroups", type=click.IntRange(min=1), default=None, metavar="N",
                        help="Subgroups (warps), for layouts that do not carry it (IREE nested layouts).")(func)
    return click.option("--subgroup-size", type=click.IntRange(min=1), default=None, metavar="N",
                        help="Lanes per subgroup, for layouts that do not carry it (IREE nested layouts).")(func)


def read_optional_input(path: str | None, field: str = "input") -> str | None:
    return read_input(path, field) if path is not None else None


# ------------------------------------------------------------------------------------------
# single-dash long options and hidden aliases
# ------------------------------------------------------------------------------------------
class Command(click.Command):
    """A click command that also reads LLVM's spellings: ``-name``, ``-name=value`` and
    ``-x=value`` for its options (``-use-hw-view=false`` leaves a flag off), and the
    :data:`HIDDEN_ALIASES` of renamed options."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, normalize_arguments(self, args))


def normalize_arguments(command: click.Command, args: list[str]) -> list[str]:
    """``args`` with single-dash long options and hidden aliases in click's spelling."""
    takes_value: dict[str, bool] = {}
    for param in command.get_params(click.Context(command)):
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                takes_value[name] = not param.is_flag
    for old, new in HIDDEN_ALIASES.items():
        if new in takes_value:
            takes_value[old] = takes_value[new]
    out: list[str] = []
    expect_value = False
    for i, arg in enumerate(args):
        if expect_value or arg == "--":
            expect_value = False
            if arg == "--":
                return out + args[i:]
            out.append(arg)
            continue
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 2:
            name, eq, value = arg[1:].partition("=")
            if f"--{name}" in takes_value:
                arg = f"--{arg[1:]}"
            elif eq and f"-{name}" in takes_value:  # -i=file.mlir
                if takes_value[f"-{name}"]:
                    out += [f"-{name}", value]
                    continue
                arg = f"-{name}={value}"
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            name = HIDDEN_ALIASES.get(name, name)
            if eq and takes_value.get(name) is False:  # -use-hw-view=true / =false
                if value.lower() in _FALSE:
                    continue
                if value.lower() in _TRUE:
                    eq, value = "", ""
            arg = name + eq + value
            expect_value = takes_value.get(name, False) and not eq
        elif arg.startswith("-") and len(arg) == 2:
            expect_value = takes_value.get(arg, False)
        out.append(arg)
    return out


def command(name: str, **kwargs: Any) -> Callable:
    """``click.command`` with :class:`Command`."""
    return click.command(name=name, cls=Command, **kwargs)
