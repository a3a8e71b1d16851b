"""``layoutkit compile FILE.mlir [--pipeline tile-and-distribute] [--tile-sizes 8,8]
[--workgroup-size 8,8] [--print-ir-after-all] [-o out.mlir]``: linalg on tensors to GPU
kernels in a ``gpu.module`` and the host function that launches them. The output runs with
``layoutkit simulate out.mlir --function NAME`` and prints as CUDA with ``layoutkit emit-cuda``.
"""

from __future__ import annotations

import re

import click

from layoutkit.cli import SourceError, common
from layoutkit.errors import LayoutError, quote

_SIZES = re.compile(r"\d+(,\d+)*")


def pipeline_with_options(pipeline: str, tile_sizes: str | None, workgroup_size: str | None) -> str:
    """The pass-pipeline text of ``pipeline`` with ``--tile-sizes``/``--workgroup-size`` set."""
    from layoutkit.pipelines import pipeline_text

    text = pipeline_text(pipeline)
    for flag, value, pass_names, option in (
            ("--tile-sizes", tile_sizes, ("tile-to-workgroups",), "tile-sizes"),
            ("--workgroup-size", workgroup_size, ("distribute-to-threads", "promote-to-workgroup-memory"),
             "workgroup-size")):
        if value is None:
            continue
        if not _SIZES.fullmatch(value.replace(" ", "")):
            raise LayoutError(f"{flag}: expected comma-separated integers such as 8,8, got {quote(value)}")
        if pass_names[0] not in text.split(","):
            raise LayoutError(f"{flag}: pipeline {quote(pipeline)} has no {pass_names[0]} pass")
        text = ",".join(f"{p}{{{option}={value.replace(' ', '')}}}" if p in pass_names else p
                        for p in text.split(","))
    return text


def compile_module(module, pipeline: str = "tile-and-distribute", tile_sizes: str | None = None,
                   workgroup_size: str | None = None, after_pass=None):
    """Run ``pipeline`` over parsed ``module`` in place; ``after_pass(pass, module)`` after each."""
    from xdsl.passes import PassPipeline

    from layoutkit.ir import make_context
    from layoutkit.pipelines import parse_pass_pipeline

    passes = parse_pass_pipeline(pipeline_with_options(pipeline, tile_sizes, workgroup_size), "--pipeline")

    def callback(done, module, _next) -> None:
        if done is not None:
            module.verify()
            if after_pass is not None:
                after_pass(done, module)

    PassPipeline(passes, callback).apply(make_context(), module)
    return module


@click.command("compile")
@click.argument("file", default="-")
@click.option("--pipeline", default="tile-and-distribute", show_default=True, help="The pipeline to run.")
@click.option("--tile-sizes", default=None, metavar="N,N", help="Tile of the parallel loops per workgroup.")
@click.option("--workgroup-size", default=None, metavar="X,Y,Z", help="Threads per workgroup.")
@click.option("--print-ir-after-all", "print_after_all", is_flag=True, help="Print the IR after every pass on stderr.")
@click.option("-o", "--output", default="-", metavar="FILE", help="Output file ('-': stdout).")
def command(file: str, pipeline: str, tile_sizes: str | None, workgroup_size: str | None,
            print_after_all: bool, output: str) -> None:
    """Compile FILE (linalg on tensors) to GPU kernels and a host function."""
    from xdsl.utils.exceptions import DiagnosticException

    from layoutkit.cli.opt import print_ir, read_module, source_error

    source, text, module = read_module(file)

    def after_pass(done, module) -> None:
        if print_after_all:
            click.echo(f"// -----// IR Dump After {type(done).__name__} ({done.name}) //----- //", err=True)
            click.echo(print_ir(module), err=True)

    try:
        compile_module(module, pipeline, tile_sizes, workgroup_size, after_pass)
    except DiagnosticException as err:
        raise SourceError(source, f"the compiled IR does not verify: {err}") from None
    except LayoutError as err:
        raise source_error(source, text, str(err)) from None
    common.write_output(output, print_ir(module), "--output")
