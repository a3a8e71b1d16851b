"""The ``layoutkit`` command. Each subcommand lives in ``layoutkit.cli.<module>`` as a click
command named ``command`` and is imported only when run, so ``layoutkit show`` never loads
xDSL or matplotlib.

Every user-caused error (a :class:`~layoutkit.errors.LayoutError`, bad options, a missing
file, a missing optional package) prints one ``error: ...`` line on stderr and exits with
status 2; an error at a place in an input file (:class:`SourceError`) prints as a compiler
does, ``FILE:LINE:COL: error: ...``. Options, files and ``-`` for stdin / stdout are shared
by every command through :mod:`layoutkit.cli.common`. ``layoutkit`` alone prints its help.
"""

from __future__ import annotations

import importlib
import sys

import click

from layoutkit.errors import LayoutError, missing_extra

# subcommand name -> (module, one-line help)
SUBCOMMANDS = {
    "show": ("layoutkit.cli.show", "Print a layout's tensor or hardware view (like triton-tensor-layout)."),
    "render": ("layoutkit.cli.render", "Draw a layout as a picture (svg, png, pdf)."),
    "convert": ("layoutkit.cli.convert", "Plan a layout conversion and print its cost."),
    "transform": ("layoutkit.cli.transform", "Compose rocMLIR transform maps; bounds and index diffs."),
    "simulate": ("layoutkit.cli.simulate", "Run a GPU kernel on the CPU simulator."),
    "emit-cuda": ("layoutkit.cli.emit_cuda", "Print (and compile) CUDA C++ for a kernel module."),
    "opt": ("layoutkit.cli.opt", "Run passes over MLIR text, as mlir-opt does."),
    "compile": ("layoutkit.cli.compile", "Compile linalg on tensors to GPU kernels and a host function."),
    "analyze": ("layoutkit.cli.analyze", "The cost of every layout in a Triton kernel (TTGIR)."),
    "compare-pipelines": ("layoutkit.cli.compare_pipelines",
                          "Triton's layout passes vs cost-model=exact on a TTIR kernel, side by side."),
}


class SourceError(LayoutError):
    """A LayoutError at a place in an input file: ``where`` is ``FILE:LINE:COL`` (or ``FILE``)."""

    def __init__(self, where: str, message: str):
        super().__init__(message)
        self.where = where


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = SUBCOMMANDS.get(name)
        if entry is None:
            return None
        try:
            module = importlib.import_module(entry[0])
        except ModuleNotFoundError as err:
            if err.name and err.name.startswith("layoutkit"):
                raise click.UsageError(f"'{name}' is not available in this build") from None
            raise missing_extra(err, name) from None
        return module.command

    def invoke(self, ctx: click.Context) -> object:
        """Run the subcommand; an optional package it imports and lacks (xDSL for
        ``simulate``, matplotlib for ``render``) is a :func:`missing_extra` error."""
        try:
            return super().invoke(ctx)
        except ModuleNotFoundError as err:
            if err.name and err.name.startswith("layoutkit"):
                raise
            raise missing_extra(err, ctx.invoked_subcommand or "layoutkit") from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_text) for name, (_, help_text) in SUBCOMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup)
@click.version_option(package_name="layoutkit")
def cli() -> None:
    """layoutkit: GPU tensor layouts — inspect, compare, convert, draw, simulate."""


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning every user error into one ``error:`` line, exit 2."""
    where = None
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:  # bare `layoutkit`: the help, as `layoutkit --help` prints it
        with click.Context(cli, info_name="layoutkit") as ctx:
            click.echo(cli.get_help(ctx))
        return 0
    try:
        result = cli.main(args=args, prog_name="layoutkit", standalone_mode=False)
    except LayoutError as err:
        message = str(err)
        where = getattr(err, "where", None)
    except click.exceptions.Exit as err:
        return err.exit_code
    except click.Abort:
        message = "aborted"
    except click.ClickException as err:
        message = err.format_message()
    except (OSError, UnicodeDecodeError) as err:
        message = str(err)
    else:  # a command's ctx.exit(code) / click Exit(code) comes back as the result
        return result if isinstance(result, int) and not isinstance(result, bool) else 0
    click.echo(f"{one_line(where) + ': ' if where else ''}error: {one_line(message)}", err=True)
    return 2


def one_line(message: str) -> str:
    """``message`` with line breaks and other control characters escaped (``\\n``), so that
    quoted user text cannot split the ``error:`` line."""
    return "".join(repr(ch)[1:-1] if not ch.isprintable() and ch != " " else ch for ch in message)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
