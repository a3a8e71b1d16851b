"""``@triton.jit`` kernels in: compiled by the real Triton on the CPU to TTGIR, and their
launch arguments mapped to the compiled ``tt.func``'s.

:func:`compile_ttgir` runs Triton's own argument binder (the specialisation a GPU launch
would make: ``tl.constexpr`` parameters and integers equal to 1 become constants, integers
and pointers divisible by 16 get ``tt.divisibility = 16``) and Triton's full pipeline for an
explicit ``GPUTarget`` (no GPU needed). :func:`kernel_arguments` maps the bound arguments
to what the ``tt.func`` takes: the arguments Triton specialised away are dropped, and a
value contradicting what the kernel was compiled for (an integer argument marked divisible
by 16 that is not) is an error. Triton is optional: without it :func:`compile_ttgir` raises
a :class:`~layoutkit.LayoutError` saying what to install.

Worked example: ``vector_add(x, y, out, n, BLOCK=1024)`` with ``n = 4096`` binds
``x, y, out`` as ``*fp32`` (divisible by 16: numpy arrays stand for GPU allocations, which are
256-byte aligned), ``n`` as ``i32`` divisible by 16, ``BLOCK`` as a constant; the ``tt.func``
takes ``(x, y, out, n)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from layoutkit.errors import LayoutError, quote

#: the address a numpy array stands at for Triton's specialisation (GPU allocators align to 256)
_FAKE_ADDRESS = 1 << 32
_CACHE_SIZE = 64  # compiled kernels kept (TTGIR text by specialisation key)
_cache: dict[tuple, str] = {}


class _Pointer:
    """What Triton's binder reads of a tensor argument: ``data_ptr()`` and ``dtype``."""

    def __init__(self, array: np.ndarray, index: int) -> None:
        self.array = array
        self.dtype = array.dtype
        self.address = _FAKE_ADDRESS * (index + 1)

    def data_ptr(self) -> int:
        return self.address


def _triton():
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource, make_backend
        from triton.runtime.jit import create_function_from_signature
    except ImportError as err:
        raise LayoutError(f"triton: layoutkit.triton.simulate compiles @triton.jit kernels with Triton, which is "
                          f"not installed ({err}); pip install 'triton==3.9.0' (or layoutkit's 'bench' extra)"
                          ) from None
    return triton, GPUTarget, ASTSource, make_backend, create_function_from_signature


def gpu_target(target: str):
    """``"cuda:80"`` -> ``GPUTarget("cuda", 80, 32)``; ``"hip:gfx942"`` -> warps of 64."""
    _, GPUTarget, *_ = _triton()
    backend, _, arch = target.partition(":")
    if backend not in ("cuda", "hip") or not arch or (backend == "cuda" and not arch.isdigit()):
        raise LayoutError(f"target: expected cuda:<sm> (cuda:80, cuda:90) or hip:<arch> (hip:gfx942), "
                          f"got {quote(target)}")
    return GPUTarget(backend, int(arch) if backend == "cuda" else arch, 32 if backend == "cuda" else 64)


def _plain(value: Any, name: str) -> Any:
    """A launch argument as Triton's binder takes it: numpy scalars as Python numbers."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    raise LayoutError(f"args: argument '{name}' must be a numpy array or a number, got {type(value).__name__}")


def compile_ttgir(kernel: Any, args: tuple, kwargs: Mapping[str, Any], num_warps: int = 4,
                  target: str = "cuda:80", num_stages: int = 3) -> tuple[str, dict[str, Any]]:
    """``(TTGIR text, bound arguments by name)`` of ``kernel`` (a ``@triton.jit`` function)
    launched with ``args`` and ``kwargs`` (numpy arrays for pointers; constexprs by name),
    compiled by Triton's full pipeline for ``target``. Compilations are cached by Triton's
    specialisation key."""
    triton, _, ASTSource, make_backend, create_function_from_signature = _triton()
    if not hasattr(kernel, "params") or not hasattr(kernel, "fn"):
        raise LayoutError(f"kernel: expected a @triton.jit function, got {quote(repr(kernel))}")
    if not isinstance(num_warps, int) or num_warps < 1 or num_warps & (num_warps - 1):
        raise LayoutError(f"num_warps: expected a power of two, got {quote(num_warps)}")
    names = [p.name for p in kernel.params]
    unknown = [k for k in kwargs if k not in names]
    if unknown:
        raise LayoutError(f"constexprs: {kernel.fn.__name__} has no parameter '{unknown[0]}' "
                          f"(parameters: {', '.join(names)})")
    bound_in = [_plain(v, names[i] if i < len(names) else f"#{i}") for i, v in enumerate(args)]
    kw = {k: _plain(v, k) for k, v in kwargs.items()}
    pointers = 0
    for i, value in enumerate(bound_in):
        if isinstance(value, np.ndarray):
            bound_in[i] = _Pointer(value, pointers)
            pointers += 1
    gpu = gpu_target(target)
    backend = make_backend(gpu)
    binder = create_function_from_signature(kernel.signature, kernel.params, backend)
    try:
        bound, specialization, options = binder(*bound_in, **kw, num_warps=num_warps, num_stages=num_stages,
                                                num_ctas=1)
    except TypeError as err:
        raise LayoutError(f"args: {kernel.fn.__name__}{kernel.signature}: {err}") from None
    options, signature, constexprs, attrs = kernel._pack_args(backend, options, bound, specialization, options)
    key = (kernel.cache_key if hasattr(kernel, "cache_key") else id(kernel), target, str(specialization),
           num_warps, num_stages)
    text = _cache.get(key)
    if text is None:
        source = ASTSource(kernel, signature, constexprs=constexprs, attrs=attrs)
        try:
            compiled = triton.compile(source, target=gpu, options=options.__dict__)
        except Exception as err:  # Triton's compile errors carry the user's source line
            raise LayoutError(f"triton: compiling {kernel.fn.__name__} for {target} failed: "
                              f"{str(err).strip().splitlines()[-1] if str(err).strip() else type(err).__name__}"
                              ) from None
        if len(_cache) >= _CACHE_SIZE:  # forget the oldest compilation
            _cache.pop(next(iter(_cache)))
        text = _cache[key] = compiled.asm["ttgir"]
    values = {name: (v.array if isinstance(v, _Pointer) else v) for name, v in bound.items()}
    return text, values


def kernel_arguments(func: Any, bound: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of the compiled ``tt.func`` ``func`` from the launch's ``bound``
    arguments by name (all parameters, constexprs included): those Triton specialised away
    are dropped; an integer argument carrying ``tt.divisibility = 16`` must be divisible by 16
    (Triton compiled the kernel assuming it)."""
    out: dict[str, Any] = {}
    for arg in func.body.blocks[0].args:
        name = arg.name_hint
        if name is None or name not in bound:
            raise LayoutError(f"args: the compiled kernel @{func.sym_name.data} takes '{name}', "
                              f"which the launch does not give (given: {', '.join(bound)})")
        value = bound[name]
        divisibility = _arg_attribute(func, arg.index, "tt.divisibility")
        if divisibility and not isinstance(value, np.ndarray) and isinstance(value, (int, np.integer)) \
                and int(value) % divisibility:
            raise LayoutError(f"args: argument '{name}' = {value} is not divisible by {divisibility}, "
                              f"which the kernel was compiled assuming (tt.divisibility = {divisibility})")
        out[name] = value
    return out


def _arg_attribute(func: Any, index: int, key: str) -> int | None:
    from layoutkit.triton.axis_walk import _ints

    attrs = func.arg_attrs.data if getattr(func, "arg_attrs", None) is not None else ()
    found = _ints(attrs[index].data.get(key)) if index < len(attrs) else None
    return found[0] if found else None


__all__ = ["compile_ttgir", "gpu_target", "kernel_arguments"]
