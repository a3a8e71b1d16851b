"""``layoutkit.triton.simulate``: a ``@triton.jit`` kernel compiled by the real Triton on the
CPU (:func:`layoutkit.triton.jit.compile_ttgir`) and run here with its layouts, with the
measured cost report.

    import numpy as np, layoutkit.triton
    a, b = np.random.rand(256, 256).astype(np.float16), np.random.rand(256, 256).astype(np.float16)
    c = np.zeros((256, 256), np.float16)
    result = layoutkit.triton.simulate(matmul, (4, 4), a, b, c, 256, 256, 256, 256, 1, 256, 1, 256, 1,
                                       BM=64, BN=64, BK=32, target="cuda:80")
    print(result.report.text())      # c now holds a @ b
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from layoutkit.backends.simt import SimulationReport
from layoutkit.backends.simt import simulate as simulate_module
from layoutkit.backends.simt.machine import DEFAULT_MAX_STEPS
from layoutkit.backends.simt.ttgir import find_triton_kernel
from layoutkit.errors import LayoutError
from layoutkit.triton.jit import compile_ttgir, kernel_arguments


def run_compiled(text: str, name: str, grid, bound: Mapping[str, Any],
                 max_steps: int = DEFAULT_MAX_STEPS) -> SimulationReport:
    """Run ``tt.func @name`` of the TTGIR ``text`` with the launch's ``bound`` arguments by
    name (every parameter of the Python kernel, constexprs included: those the compiled
    kernel does not take are dropped), with the cost report. Arrays are written in place."""
    module = _parsed(text)
    func = find_triton_kernel(module, name)
    if func is None:
        raise LayoutError(f"kernel: the compiled module has no tt.func named '{name}'")
    args = kernel_arguments(func, bound)
    return simulate_module(module, name, grid=grid, args=args, max_steps=max_steps, report=True)


@lru_cache(maxsize=16)
def _parsed(text: str):
    """The module of a compiled kernel's TTGIR, parsed once (runs do not change it)."""
    from layoutkit.ir import parse_module

    return parse_module(text)


def simulate(kernel: Any, grid, *args: Any, num_warps: int = 4, target: str = "cuda:80", num_stages: int = 3,
             max_steps: int = DEFAULT_MAX_STEPS, **constexprs: Any) -> SimulationReport:
    """Compile ``kernel`` (a ``@triton.jit`` function) with Triton for ``target`` as a launch
    ``kernel[grid](*args, num_warps=..., **constexprs)`` would (numpy arrays stand for its
    pointer arguments), run the TTGIR here over ``grid`` and write the results into the
    arrays. Returns the run's summary, its ``.report`` the measured cost per op
    (:class:`~layoutkit.backends.simt.cost_report.RunReport`)."""
    text, bound = compile_ttgir(kernel, args, constexprs, num_warps=num_warps, target=target,
                                num_stages=num_stages)
    return run_compiled(text, kernel.fn.__name__, grid, bound, max_steps)


__all__ = ["run_compiled", "simulate"]
