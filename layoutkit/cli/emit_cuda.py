"""``layoutkit emit-cuda FILE [--arch sm_90] [--compile]``: CUDA C++ for a kernel module.

Prints the CUDA C++ of every kernel in FILE (MLIR text with a ``gpu.module``). With
``--compile`` it also compiles the source (NVRTC, else nvcc on PATH) and appends ptxas's
report -- registers, spills, shared bytes per kernel -- as ``//`` comment lines.
"""

from __future__ import annotations

import click

from layoutkit.errors import LayoutError, quote


@click.command("emit-cuda")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--arch", default="sm_90", show_default=True,
              help="Target GPU architecture for --compile (sm_80, sm_86, sm_89, sm_90).")
@click.option("--compile", "do_compile", is_flag=True,
              help="Compile with NVRTC (or nvcc) and print the ptxas resource report.")
@click.option("--compiler", type=click.Choice(["auto", "nvrtc", "nvcc"]), default="auto",
              show_default=True, help="Which CUDA compiler --compile uses.")
@click.option("--no-prelude", is_flag=True,
              help="Leave out the helper definitions at the top (the kernels only, for reading).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the CUDA source to this file instead of stdout.")
def command(file: str, arch: str, do_compile: bool, compiler: str, no_prelude: bool,
            output: str | None) -> None:
    """Print readable CUDA C++ for the kernels of FILE (and, with --compile, ptxas's report)."""
    from layoutkit.backends.cuda.compile import SUPPORTED_ARCHES, compile_cuda
    from layoutkit.backends.cuda.emit import emit_cuda, without_prelude
    from layoutkit.ir import parse_module

    if arch not in SUPPORTED_ARCHES:
        raise LayoutError(f"--arch: expected one of {', '.join(SUPPORTED_ARCHES)}, got {quote(arch)}")
    try:
        with open(file, encoding="utf-8") as handle:
            text = handle.read()
    except UnicodeDecodeError as err:
        raise LayoutError(f"FILE: {quote(file)} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise LayoutError(f"FILE: cannot read {quote(file)}: {err.strerror}") from None
    source = emit_cuda(parse_module(text))
    report = compile_cuda(source, arch, compiler=compiler).report() if do_compile else None
    if no_prelude:
        source = without_prelude(source)
    if output is not None:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(source)
        except OSError as err:
            raise LayoutError(f"--output: cannot write {quote(output)}: {err.strerror}") from None
    else:
        click.echo(source, nl=False)
    if report is not None:
        click.echo(report)
