"""``layoutkit opt FILE|- [--PASS[="k=v ..."] ...]``: run passes over MLIR text, as ``mlir-opt``.

Every registered pass and pipeline is a flag, run in the order given: ``--cse``,
``--canonicalize``, ``--my-pass="some-option=4 flag=true"``; or all at once as
``--pass-pipeline='builtin.module(canonicalize,my-pass{some-option=4})'``. ``-`` reads
stdin (the default) and ``-o -`` writes stdout (the default). An error in the input is one
line ``FILE:LINE:COL: error: ...`` (``<stdin>`` for ``-``) and exit status 2.
"""

from __future__ import annotations

import io
import re

import click

from layoutkit.cli import SourceError, common
from layoutkit.errors import LayoutError

_PASS_FLAGS = "layoutkit.opt.pass_flags"


def split_pass_flags(args: list[str], names: set[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """``(flags, rest)``: the ``--NAME`` / ``--NAME=OPTIONS`` arguments naming one of
    ``names``, in order, as ``(flag, pipeline text)`` -- ``--cse`` is ``('--cse', 'cse')``,
    ``--p="a=1 b"`` is ``('--p', 'p{a=1 b}')`` -- and the other arguments (all after ``--``)."""
    flags, rest = [], []
    for index, arg in enumerate(args):
        if arg == "--":
            rest.extend(args[index:])
            break
        name, equals, options = arg[2:].partition("=")
        if arg.startswith("--") and name in names:
            flags.append((f"--{name}", f"{name}{{{options}}}" if equals else name))
        else:
            rest.append(arg)
    return flags, rest


class _OptCommand(click.Command):
    """Takes the pass flags out of the arguments before click reads the fixed options."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        from layoutkit.passes import PASSES
        from layoutkit.pipelines import PIPELINES

        ctx.meta[_PASS_FLAGS], rest = split_pass_flags(args, set(PASSES) | set(PIPELINES))
        return super().parse_args(ctx, rest)


@click.command("opt", cls=_OptCommand, epilog="Passes and pipelines: layoutkit opt --list-passes")
@click.argument("file", default="-")
@click.option("--pass-pipeline", default=None, metavar="PIPELINE",
              help="The passes as text: 'builtin.module(p1{k=v},p2)' (not with pass flags).")
@click.option("--list-passes", is_flag=True, help="List the passes and pipelines with their options.")
@click.option("--print-ir-after-all", "--mlir-print-ir-after-all", "print_after_all", is_flag=True,
              help="Print the IR after every pass on stderr.")
@click.option("--mlir-print-op-generic", "generic", is_flag=True,
              help="Print ops in MLIR's generic form.")
@click.option("--mlir-print-debuginfo", "debuginfo", is_flag=True,
              help="Print source locations (loc(...)).")
@click.option("--strip-debuginfo", "strip", is_flag=True,
              help="Forget every source location (loc(unknown)), as mlir-opt --strip-debuginfo.")
@click.option("--explain", is_flag=True,
              help="Passes that can say why (explain option) print their reasons on stderr.")
@click.option("-o", "--output", default="-", metavar="FILE", help="Output file ('-': stdout).")
@click.pass_context
def command(ctx: click.Context, file: str, pass_pipeline: str | None, list_passes: bool,
            print_after_all: bool, generic: bool, debuginfo: bool, strip: bool, explain: bool,
            output: str) -> None:
    """Parse FILE ('-': stdin), run the passes given as flags in order, print the IR."""
    from xdsl.passes import PassPipeline
    from xdsl.utils.exceptions import DiagnosticException

    from layoutkit.ir import make_context
    from layoutkit.ir.context import set_source
    from layoutkit.pipelines import parse_pass_pipeline

    if list_passes:
        click.echo(passes_help(), nl=False)
        return
    flags = ctx.meta[_PASS_FLAGS]
    if flags and pass_pipeline is not None:
        raise LayoutError(f"--pass-pipeline: cannot be combined with pass flags ({', '.join(f for f, _ in flags)})")
    if pass_pipeline is not None:
        passes = parse_pass_pipeline(pass_pipeline)
    else:
        passes = tuple(p for flag, text in flags for p in parse_pass_pipeline(text, flag))
    if explain:
        import dataclasses

        passes = tuple(dataclasses.replace(p, explain=True) if "explain" in {f.name for f in dataclasses.fields(p)}
                       else p for p in passes)

    source, text, module = read_module(file)
    set_source(source, text)
    if strip:
        from layoutkit.ir.locations import strip_debuginfo

        strip_debuginfo(module)

    def after_pass(done, module, _next) -> None:
        if done is None:
            return
        try:
            module.verify()
        except DiagnosticException as err:
            raise SourceError(source, f"after pass {done.name}: the IR does not verify: {err}") from None
        if print_after_all:
            click.echo(f"// -----// IR Dump After {type(done).__name__} ({done.name}) //----- //", err=True)
            click.echo(print_ir(module, generic, debuginfo), err=True)

    try:
        PassPipeline(passes, after_pass).apply(make_context(), module)
    except LayoutError as err:
        raise source_error(source, text, str(err)) from None
    result = print_ir(module, generic, debuginfo)
    common.write_output(output, result, "--output")


def print_ir(module, generic: bool = False, debuginfo: bool = False) -> str:
    """The module as MLIR text ending in a newline: custom or generic form, with or
    without ``loc(...)``."""
    from layoutkit.ir.locations import printer_class

    stream = io.StringIO()
    printer_class()(stream=stream, print_generic_format=generic, print_debuginfo=debuginfo).print_op(module)
    return stream.getvalue() + "\n"


def passes_help() -> str:
    """The text of ``--list-passes``: every pass with its options, every pipeline."""
    from layoutkit.passes import PASSES, pass_options, pass_summary
    from layoutkit.pipelines import PIPELINES

    lines = ["Passes (--NAME or --NAME=\"option=value ...\"):"]
    for name in PASSES:  # in registration order: xDSL's first, then layoutkit's as added
        lines.append(f"  --{name:<24} {pass_summary(name)}".rstrip())
        for option, type_text, default in pass_options(name):
            shown = " (required)" if default in (None, "") else f" = {default}"
            lines.append(f"      {option}: {type_text}{shown}")
    lines.append("Pipelines (--NAME):")
    for name, (pipeline, purpose) in sorted(PIPELINES.items()):
        lines.append(f"  --{name:<24} {pipeline}: {purpose}")
    return "\n".join(lines) + "\n"


_AT_LINE_COLUMN = re.compile(r"line (\d+), column (\d+): (.*)", re.DOTALL)
_AT_LINE = re.compile(r"line (\d+): (.*)", re.DOTALL)


def read_module(file: str):
    """``(source, text, module)`` of the MLIR file ``file`` (``-``: stdin); a parse or verify
    error is a :class:`SourceError` at ``SOURCE:LINE:COL``."""
    from layoutkit.ir import parse_module

    source = "<stdin>" if file == "-" else file
    text = common.read_input(file, "FILE")
    try:
        return source, text, parse_module(text)
    except LayoutError as err:
        raise source_error(source, text, str(err)) from None


def source_error(source: str, text: str, message: str) -> SourceError:
    """A layoutkit message about ``text`` as an error at ``SOURCE:LINE:COL``.

    layoutkit's messages start with ``line L, column C: `` or ``line L: `` (then the column
    is that of the op name the message goes on with, else of the line's first character);
    a message without a line is an error at ``SOURCE``."""
    if match := _AT_LINE_COLUMN.match(message):
        return SourceError(f"{source}:{match[1]}:{match[2]}", match[3])
    if match := _AT_LINE.match(message):
        line, rest = int(match[1]), match[2]
        lines = text.split("\n")
        source_line = lines[line - 1] if 0 < line <= len(lines) else ""
        op_name = rest.split(":", 1)[0]
        column = source_line.find(op_name) if op_name and " " not in op_name else -1
        if column < 0:
            column = len(source_line) - len(source_line.lstrip())
        return SourceError(f"{source}:{line}:{column + 1}", rest)
    return SourceError(source, message)
