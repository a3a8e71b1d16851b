"""``layoutkit.compile``: a linalg program compiled to kernels and host code, runnable on
numpy arrays in the simulator::

    program = layoutkit.compile(text, tile_sizes=(8, 8))   # tile-and-distribute by default
    (c,) = program(a, b)           # runs the host function: its launches in the simulator
    print(program.text)            # the gpu.module and the host function as MLIR text
    program.module                 # the xDSL module (for emit_cuda, passes, ...)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from layoutkit.errors import LayoutError, quote


@dataclass(frozen=True)
class CompiledProgram:
    """A compiled module and a way to run its host functions on numpy arrays."""

    module: object

    def __post_init__(self) -> None:
        if not self.functions:
            raise LayoutError("compile: the compiled module has no host func.func to run")

    @cached_property
    def functions(self) -> tuple[str, ...]:
        """The names of the host functions, in module order."""
        from layoutkit.backends.simt.host import host_functions

        return tuple(host_functions(self.module))

    @cached_property
    def text(self) -> str:
        """The module as MLIR text."""
        import io

        from layoutkit.ir.locations import printer_class

        stream = io.StringIO()
        printer_class()(stream=stream).print_op(self.module)
        return stream.getvalue() + "\n"

    def __call__(self, *args, function: str | None = None, **options) -> tuple:
        """Run host function ``function`` (the only one when None) on ``args`` (numpy arrays
        and numbers, in the function's argument order); its results as a tuple of arrays.
        ``options`` go to :func:`~layoutkit.backends.simt.host.run_function` (``max_steps``,
        ``warp_size``, ``reports``)."""
        from layoutkit.backends.simt.host import run_function

        if function is None:
            if len(self.functions) != 1:
                raise LayoutError(f"function: the module has {len(self.functions)} host functions "
                                  f"({', '.join(self.functions)}); name one with function=")
            function = self.functions[0]
        elif function not in self.functions:
            raise LayoutError(f"function: no host func.func named {quote(function)} "
                              f"(module has: {', '.join(self.functions)})")
        return run_function(self.module, function, list(args), **options)


def compile(text: str, pipeline: str = "tile-and-distribute", *, tile_sizes=None,  # noqa: A001
            workgroup_size=None) -> CompiledProgram:
    """Compile MLIR ``text`` (linalg on tensors) with ``pipeline``; ``tile_sizes`` and
    ``workgroup_size`` (``"8,8"`` or ``(8, 8)``) override the pipeline's configuration.
    The IR's errors are LayoutErrors (``line:col`` of ``text``)."""
    from layoutkit.ir import parse_module
    from layoutkit.pipelines.compile import compile_module

    if not isinstance(text, str):
        raise LayoutError(f"compile: expected MLIR text, got {type(text).__name__}")
    return CompiledProgram(compile_module(parse_module(text), pipeline, tile_sizes, workgroup_size))
