"""``layoutkit emit-cuda FILE [--arch sm_90] [--compile]``: CUDA C++ for a kernel module.

Prints the CUDA C++ of every kernel in FILE (MLIR text with a ``gpu.module``). With
``--compile`` it also compiles the source (NVRTC, else nvcc on PATH) and appends ptxas's
report -- registers, spills, shared bytes per kernel -- as ``//`` comment lines.
"""

from __future__ import annotations

import click

from layoutkit.cli import common
from layoutkit.errors import LayoutError, quote


@common.command("emit-cuda")
@click.argument("file", metavar="FILE")
@click.option("--arch", default="sm_90", show_default=True,
              help="Target GPU architecture for --compile (sm_80, sm_86, sm_89, sm_90).")
@click.option("--compile", "do_compile", is_flag=True,
              help="Compile with NVRTC (or nvcc) and print the ptxas resource report.")
@click.option("--compiler", type=click.Choice(["auto", "nvrtc", "nvcc"]), default="auto",
              show_default=True, help="Which CUDA compiler --compile uses.")
@click.option("--no-prelude", is_flag=True,
              help="Leave out the helper definitions at the top (the kernels only, for reading).")
@common.output_option(help="Write the CUDA source to FILE instead of stdout ('-' is stdout).")
def command(file: str, arch: str, do_compile: bool, compiler: str, no_prelude: bool,
            output_file: str | None) -> None:
    """Print readable CUDA C++ for the kernels of FILE ('-': stdin) and, with --compile,
    ptxas's report."""
    from layoutkit.backends.cuda.compile import SUPPORTED_ARCHES, compile_cuda
    from layoutkit.backends.cuda.emit import emit_cuda, without_prelude
    from layoutkit.ir import parse_module

    if arch not in SUPPORTED_ARCHES:
        raise LayoutError(f"--arch: expected one of {', '.join(SUPPORTED_ARCHES)}, got {quote(arch)}")
    if output_file is not None:
        common.check_writable(output_file)
    from layoutkit.cli.opt import source_error

    text = common.read_input(file, "FILE")
    try:  # an IR error, in parsing or in emitting an op: FILE:LINE:COL: error: ...
        source = emit_cuda(parse_module(text))
    except LayoutError as err:
        raise source_error("<stdin>" if file == "-" else file, text, str(err)) from None
    report = compile_cuda(source, arch, compiler=compiler).report() if do_compile else None
    if no_prelude:
        source = without_prelude(source)
    common.write_output(output_file, source)
    if report is not None:
        click.echo(report)
