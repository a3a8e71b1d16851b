"""The CUDA C++ backend: emit readable CUDA from the kernel IR, compile it, run it.

- :func:`emit_cuda` -- a ``gpu.module`` (from :func:`layoutkit.ir.parse_module`) as CUDA C++:
  one ``extern "C" __global__`` function per kernel.
- :func:`compile_cuda` -- NVRTC (pip) or ``nvcc`` on PATH to PTX + cubin with ptxas's
  registers, spills and shared bytes.
- :func:`run_cuda` -- launch a kernel on a real GPU with the arguments ``simulate`` takes.

Only the submodule that is used gets imported: emitting needs xDSL, compiling needs NVRTC or
nvcc, running needs a GPU.
"""

from __future__ import annotations

from layoutkit._lazy import lazy_exports

_EXPORTS = {
    "emit_cuda": "layoutkit.backends.cuda.emit",
    "compile_cuda": "layoutkit.backends.cuda.compile",
    "CudaCompileResult": "layoutkit.backends.cuda.compile",
    "CudaCompileError": "layoutkit.backends.cuda.compile",
    "KernelResources": "layoutkit.backends.cuda.compile",
    "available_compilers": "layoutkit.backends.cuda.compile",
    "run_cuda": "layoutkit.backends.cuda.run",
    "gpu_available": "layoutkit.backends.cuda.run",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
