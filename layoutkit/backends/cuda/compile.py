"""Compiling CUDA C++ to PTX and cubin, with ptxas's resource report.

Two compilers, tried in this order:

1. NVRTC through ``cuda.bindings.nvrtc`` (PyPI: ``cuda-bindings`` + ``nvidia-cuda-nvrtc``,
   the ``cuda`` extra). No GPU and no CUDA toolkit needed.
2. ``nvcc`` on ``PATH`` (``nvcc -ptx``, then ``ptxas -v`` on the PTX for the cubin).

Both run ptxas verbosely; its report is parsed per kernel::

    ptxas info    : Function properties for transpose
    ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 12 registers, used 1 barriers, 4224 bytes smem, 368 bytes cmem[0]

gives ``KernelResources(name="transpose", registers=12, spill_store_bytes=0,
spill_load_bytes=0, stack_bytes=0, shared_bytes=4224, barriers=1)``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import cached_property

from layoutkit.errors import LayoutError, quote

SUPPORTED_ARCHES = ("sm_80", "sm_86", "sm_89", "sm_90")
COMPILERS = ("auto", "nvrtc", "nvcc")

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(
    r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads"
)
_USED = re.compile(r"Used (\d+) registers")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SMEM = re.compile(r"(\d+) bytes smem")


class CudaCompileError(LayoutError):
    """The CUDA compiler rejected the source; ``log`` holds its whole output."""

    def __init__(self, message: str, log: str) -> None:
        super().__init__(message)
        self.log = log


@dataclass(frozen=True)
class KernelResources:
    """ptxas's report for one ``__global__`` function."""

    name: str
    registers: int
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    stack_bytes: int = 0
    shared_bytes: int = 0
    barriers: int = 0

    def __post_init__(self) -> None:
        for name in ("registers", "spill_store_bytes", "spill_load_bytes", "stack_bytes",
                     "shared_bytes", "barriers"):
            if getattr(self, name) < 0:
                raise LayoutError(f"KernelResources.{name}: must be >= 0, got {getattr(self, name)}")

    @property
    def spill_bytes(self) -> int:
        return self.spill_store_bytes + self.spill_load_bytes

    def summary(self) -> str:
        """One line like ``transpose: 12 registers, 0 spill bytes, 4224 bytes shared, 1 barriers``."""
        return (f"{self.name}: {self.registers} registers, {self.spill_bytes} spill bytes "
                f"({self.spill_store_bytes} stores, {self.spill_load_bytes} loads), "
                f"{self.stack_bytes} bytes stack, {self.shared_bytes} bytes shared, "
                f"{self.barriers} barriers")


@dataclass(frozen=True)
class CudaCompileResult:
    """PTX, cubin and the per-kernel ptxas report of one compilation."""

    arch: str
    compiler: str
    ptx: str
    cubin: bytes
    log: str
    kernels: tuple[KernelResources, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.arch not in SUPPORTED_ARCHES:
            raise LayoutError(f"arch: expected one of {', '.join(SUPPORTED_ARCHES)}, got {quote(self.arch)}")

    @cached_property
    def by_name(self) -> dict[str, KernelResources]:
        return {k.name: k for k in self.kernels}

    @property
    def registers(self) -> int:
        """Registers per thread of the hungriest kernel (one kernel: its own count)."""
        return max((k.registers for k in self.kernels), default=0)

    @property
    def spills(self) -> int:
        """Spill bytes (stores + loads) over all kernels; 0 means nothing spilled."""
        return sum(k.spill_bytes for k in self.kernels)

    @property
    def shared_bytes(self) -> int:
        """Static shared memory per block of the largest kernel."""
        return max((k.shared_bytes for k in self.kernels), default=0)

    def report(self) -> str:
        """The resource report as text, one kernel a line."""
        head = f"// {self.compiler}, {self.arch}: {len(self.ptx)} bytes PTX, {len(self.cubin)} bytes cubin"
        return "\n".join([head, *(f"//   {k.summary()}" for k in self.kernels)])


def parse_ptxas_report(log: str) -> tuple[KernelResources, ...]:
    """Per-kernel resources from ``ptxas -v`` output (entry functions only)."""
    entries: list[str] = []
    frames: dict[str, tuple[int, int, int]] = {}
    used: dict[str, tuple[int, int, int]] = {}
    current: str | None = None
    for line in log.splitlines():
        if m := _ENTRY.search(line):
            current = m.group(1)
            if current not in entries:
                entries.append(current)
        elif m := _PROPERTIES.search(line):
            current = m.group(1)
        elif (m := _FRAME.search(line)) and current is not None:
            frames[current] = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
        elif (m := _USED.search(line)) and current is not None:
            barriers = _BARRIERS.search(line)
            smem = _SMEM.search(line)
            used[current] = (int(m.group(1)), int(barriers.group(1)) if barriers else 0,
                             int(smem.group(1)) if smem else 0)
    result = []
    for name in entries:
        stack, stores, loads = frames.get(name, (0, 0, 0))
        registers, barriers, shared = used.get(name, (0, 0, 0))
        result.append(KernelResources(name, registers, stores, loads, stack, shared, barriers))
    return tuple(result)


def nvrtc_available() -> bool:
    """True when ``cuda.bindings.nvrtc`` imports and its shared library loads."""
    try:
        from cuda.bindings import nvrtc
        err, *_ = nvrtc.nvrtcVersion()
        return int(err) == 0
    except Exception:  # noqa: BLE001 -- a missing or broken install means "not available"
        return False


def nvcc_available() -> bool:
    return shutil.which("nvcc") is not None and shutil.which("ptxas") is not None


def available_compilers() -> list[str]:
    """The CUDA compilers this machine has, in the order ``compile_cuda`` tries them."""
    return [name for name, ok in (("nvrtc", nvrtc_available()), ("nvcc", nvcc_available())) if ok]


def compile_cuda(source: str, arch: str = "sm_90", *, compiler: str = "auto",
                 options: tuple[str, ...] = (), name: str = "kernel.cu") -> CudaCompileResult:
    """Compile CUDA C++ ``source`` for ``arch`` to PTX and cubin; report ptxas's resources.

    ``compiler`` is ``"nvrtc"``, ``"nvcc"`` or ``"auto"`` (NVRTC when installed, else nvcc on
    PATH). ``options`` are passed to the compiler as they are (e.g. ``("-lineinfo",)``).
    Raises :class:`CudaCompileError` (a ``LayoutError``) with the compiler's log when the source
    does not compile, and ``LayoutError`` when no compiler is available.

    >>> r = compile_cuda('extern "C" __global__ void k(float* a) { a[threadIdx.x] = 1.f; }')
    >>> r.by_name["k"].registers > 0, r.spills
    (True, 0)
    """
    if arch not in SUPPORTED_ARCHES:
        raise LayoutError(f"arch: expected one of {', '.join(SUPPORTED_ARCHES)}, got {quote(arch)}")
    if compiler not in COMPILERS:
        raise LayoutError(f"compiler: expected one of {', '.join(COMPILERS)}, got {quote(compiler)}")
    if not isinstance(source, str) or not source.strip():
        raise LayoutError(f"source: expected CUDA C++ text, got {quote(source)}")
    if isinstance(options, str) or not all(isinstance(o, str) for o in options):
        raise LayoutError(f"options: expected a tuple of option strings, got {quote(options)}")
    if not isinstance(name, str) or not name.strip():
        raise LayoutError(f"name: expected a file name such as 'kernel.cu', got {quote(name)}")
    if compiler in ("auto", "nvrtc") and nvrtc_available():
        return _compile_nvrtc(source, arch, tuple(options), name)
    if compiler in ("auto", "nvcc") and nvcc_available():
        return _compile_nvcc(source, arch, tuple(options), name)
    wanted = "NVRTC or nvcc" if compiler == "auto" else compiler
    raise LayoutError(
        f"compiler: no {wanted} found; install NVRTC with pip install 'layoutkit[cuda]' "
        "or put nvcc (CUDA >= 12) on PATH"
    )


def _compile_error(compiler: str, arch: str, log: str) -> CudaCompileError:
    """One line for the compiler's rejection: its first error line, how many more there are;
    the whole log stays on the exception's ``log``::

        source: nvrtc (sm_90) rejects it: kernel.cu(3): error: identifier "x" is undefined (and 1 more error)
    """
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if re.search(r"\b(error|fatal)\s*:", line)]
    first = errors[0] if errors else (lines[0] if lines else "no message")
    first = first.removeprefix(f"{compiler}: ")
    more = len(errors) - 1
    tail = f" (and {more} more error{'s' if more > 1 else ''})" if more > 0 else ""
    return CudaCompileError(f"source: {compiler} ({arch}) rejects it: {first}{tail}", log)


def _nvrtc_check(result: object, what: str) -> None:
    code = result[0] if isinstance(result, tuple) else result
    if int(code) != 0:
        raise LayoutError(f"nvrtc: {what} failed with {code}")


def _compile_nvrtc(source: str, arch: str, options: tuple[str, ...], name: str) -> CudaCompileResult:
    from cuda.bindings import nvrtc

    err, program = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    _nvrtc_check(err, "nvrtcCreateProgram")
    try:
        flags = [f"--gpu-architecture={arch}", "--ptxas-options=-v", "--std=c++17", *options]
        encoded = [f.encode() for f in flags]
        (status,) = nvrtc.nvrtcCompileProgram(program, len(encoded), encoded)
        err, size = nvrtc.nvrtcGetProgramLogSize(program)
        _nvrtc_check(err, "nvrtcGetProgramLogSize")
        buffer = b" " * size
        _nvrtc_check(nvrtc.nvrtcGetProgramLog(program, buffer), "nvrtcGetProgramLog")
        log = buffer.rstrip(b"\x00 ").decode(errors="replace")
        if int(status) != 0:
            raise _compile_error("nvrtc", arch, log)
        err, size = nvrtc.nvrtcGetPTXSize(program)
        _nvrtc_check(err, "nvrtcGetPTXSize")
        ptx = b" " * size
        _nvrtc_check(nvrtc.nvrtcGetPTX(program, ptx), "nvrtcGetPTX")
        err, size = nvrtc.nvrtcGetCUBINSize(program)
        _nvrtc_check(err, "nvrtcGetCUBINSize")
        cubin = b" " * size
        _nvrtc_check(nvrtc.nvrtcGetCUBIN(program, cubin), "nvrtcGetCUBIN")
        _, major, minor = nvrtc.nvrtcVersion()
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    return CudaCompileResult(arch, f"nvrtc {major}.{minor}", ptx.rstrip(b"\x00").decode(),
                             bytes(cubin), log, parse_ptxas_report(log))


def _run(command: list[str], arch: str, directory: str) -> str:
    """Run one compiler step; its log names files relative to ``directory`` (``kernel.cu(3)``)."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    log = (done.stdout + done.stderr).replace(directory + os.sep, "")
    if done.returncode != 0:
        raise _compile_error(command[0], arch, log)
    return log


def _compile_nvcc(source: str, arch: str, options: tuple[str, ...], name: str) -> CudaCompileResult:
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, check=False).stdout
    release = re.search(r"release (\d+\.\d+)", version)
    with tempfile.TemporaryDirectory(prefix="layoutkit-cuda-") as tmp:
        cu = os.path.join(tmp, os.path.basename(name) or "kernel.cu")
        ptx_path, cubin_path = cu + ".ptx", cu + ".cubin"
        with open(cu, "w") as handle:
            handle.write(source)
        log = _run(["nvcc", f"-arch={arch}", "-std=c++17", "-ptx", *options, "-o", ptx_path, cu], arch, tmp)
        log += _run(["ptxas", f"-arch={arch}", "-v", "-o", cubin_path, ptx_path], arch, tmp)
        with open(ptx_path) as handle:
            ptx = handle.read()
        with open(cubin_path, "rb") as handle:
            cubin = handle.read()
    label = f"nvcc {release.group(1)}" if release else "nvcc"
    return CudaCompileResult(arch, label, ptx, cubin, log, parse_ptxas_report(log))
