"""``layoutkit compile FILE.mlir [--pipeline tile-and-distribute|pcf-to-gpu] [--tile-sizes 8,8]
[--workgroup-size 8,8] [--subgroup-size 64] [--print-ir-after-all] [-o out.mlir]``: linalg on tensors (or PCF) to GPU
kernels in a ``gpu.module`` and the host function that launches them. The output runs with
``layoutkit simulate out.mlir --function NAME`` and prints as CUDA with ``layoutkit emit-cuda``.
"""

from __future__ import annotations

import click

from layoutkit.cli import SourceError, common
from layoutkit.errors import LayoutError
from layoutkit.pipelines.compile import compile_module, dump_header, pipeline_with_options

__all__ = ["command", "compile_module", "pipeline_with_options"]


@click.command("compile")
@click.argument("file", default="-")
@click.option("--pipeline", default="tile-and-distribute", show_default=True, help="The pipeline to run.")
@click.option("--tile-sizes", default=None, metavar="N,N", help="Tile of the parallel loops per workgroup.")
@click.option("--workgroup-size", default=None, metavar="X,Y,Z", help="Threads per workgroup.")
@click.option("--subgroup-size", default=None, metavar="N", help="Threads per subgroup (pcf-to-gpu).")
@click.option("--print-ir-after-all", "print_after_all", is_flag=True, help="Print the IR after every pass on stderr.")
@click.option("-o", "--output", default="-", metavar="FILE", help="Output file ('-': stdout).")
def command(file: str, pipeline: str, tile_sizes: str | None, workgroup_size: str | None,
            subgroup_size: str | None, print_after_all: bool, output: str) -> None:
    """Compile FILE (linalg on tensors) to GPU kernels and a host function."""
    from xdsl.utils.exceptions import DiagnosticException

    from layoutkit.cli.opt import print_ir, read_module, source_error

    source, text, module = read_module(file)

    def after_pass(done, module) -> None:
        if print_after_all:
            click.echo(dump_header(done), err=True)
            click.echo(print_ir(module) + "\n", err=True)  # MLIR leaves two blank lines after each dump

    try:
        compile_module(module, pipeline, tile_sizes, workgroup_size, after_pass, subgroup_size)
    except DiagnosticException as err:
        raise SourceError(source, f"the compiled IR does not verify: {err}") from None
    except LayoutError as err:
        raise source_error(source, text, str(err)) from None
    common.write_output(output, print_ir(module), "--output")
