"""Launching an emitted kernel on a real GPU (CUDA driver API through ``cuda.bindings``).

``run_cuda`` takes the same arguments as ``layoutkit.simulate``: a module (or its MLIR text,
or ready CUDA C++ source), the kernel name, grid and block sizes, and the kernel's arguments
as numpy arrays (memrefs) and Python numbers (scalars), by position or by the kernel's
argument names. Arrays are copied to the device, the kernel runs, and every array is copied
back in place -- so the same arrays can be compared with a ``simulate`` run::

    c_gpu, c_sim = np.zeros(1024, np.float32), np.zeros(1024, np.float32)
    run_cuda(module, "vector_add", grid=4, block=256, args=[a, b, c_gpu])
    simulate(module, "vector_add", grid=4, block=256, args=[a, b, c_sim])
    assert np.array_equal(c_gpu, c_sim)

Needs an NVIDIA GPU and driver; raises ``LayoutError`` saying so when there is none.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from layoutkit.backends.cuda.compile import SUPPORTED_ARCHES, compile_cuda
from layoutkit.errors import LayoutError, quote

_C_SCALARS = {"int": np.int32, "long long": np.int64, "short": np.int16, "signed char": np.int8,
              "bool": np.bool_, "float": np.float32, "double": np.float64,
              "f16_t": np.uint16, "bf16_t": np.uint16}


def gpu_available() -> bool:
    """True when the CUDA driver initializes and reports at least one device."""
    try:
        from cuda.bindings import driver

        (err,) = driver.cuInit(0)
        if int(err) != 0:
            return False
        err, count = driver.cuDeviceGetCount()
        return int(err) == 0 and count > 0
    except Exception:  # noqa: BLE001 -- no bindings, no driver or no device: not available
        return False


def _check(result: Any, what: str) -> Any:
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        raise LayoutError(f"cuda driver: {what} failed with {err!r}")
    if isinstance(result, tuple):
        rest = result[1:]
        return rest[0] if len(rest) == 1 else rest
    return None


def _dims(value: int | Sequence[int], what: str) -> tuple[int, int, int]:
    dims = (value,) if isinstance(value, (int, np.integer)) else tuple(value)
    if not 1 <= len(dims) <= 3 or any(int(d) < 1 for d in dims):
        raise LayoutError(f"{what}: expected 1 to 3 positive sizes, got {quote(value)}")
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))  # type: ignore[return-value]


def _kernel_params(module: Any, kernel: str) -> list[tuple[str, Any]]:
    """(argument name, xDSL type) for each argument of the kernel."""
    for op in module.walk():
        if op.name == "gpu.func":
            from layoutkit.backends.cuda.emit import _symbol_name

            if _symbol_name(op) == kernel:
                return [(arg.name_hint or f"arg{i}", arg.type)
                        for i, arg in enumerate(op.body.blocks[0].args)]
    raise LayoutError(f"kernel: no gpu.func named {quote(kernel)} in the module")


def _ordered_args(params: list[tuple[str, Any]], args: Sequence[Any] | Mapping[str, Any]) -> list[Any]:
    if isinstance(args, Mapping):
        missing = [name for name, _ in params if name not in args]
        if missing:
            raise LayoutError(f"args: missing kernel argument(s) {', '.join(missing)}")
        return [args[name] for name, _ in params]
    if len(args) != len(params):
        raise LayoutError(f"args: the kernel takes {len(params)} arguments, got {len(args)}")
    return list(args)


def run_cuda(module_or_source: Any, kernel: str, grid: int | Sequence[int],
             block: int | Sequence[int], args: Sequence[Any] | Mapping[str, Any]) -> None:
    """Run ``kernel`` on the GPU with ``grid`` x ``block`` threads; write results into ``args``.

    ``module_or_source``: an xDSL module, its MLIR text, or CUDA C++ source (text holding
    ``__global__``); with CUDA source, ``args`` must be positional and arrays are passed as
    pointers, numpy scalars by value.
    """
    from cuda.bindings import driver

    grid3, block3 = _dims(grid, "grid"), _dims(block, "block")
    if isinstance(module_or_source, str) and "__global__" in module_or_source:
        source, params = module_or_source, None
        if isinstance(args, Mapping):
            raise LayoutError("args: pass CUDA-source kernel arguments by position")
        values = list(args)
    else:
        from layoutkit.backends.cuda.emit import emit_cuda

        module = module_or_source
        if isinstance(module, str):
            from layoutkit.ir import parse_module

            module = parse_module(module)
        source, params = emit_cuda(module), _kernel_params(module, kernel)
        values = _ordered_args(params, args)

    if not gpu_available():
        raise LayoutError("run_cuda: no CUDA GPU is available on this machine (use layoutkit.simulate)")
    device = _check(driver.cuDeviceGet(0), "cuDeviceGet")
    major = _check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "attribute")
    minor = _check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "attribute")
    arch = f"sm_{major}{minor}"
    if arch in SUPPORTED_ARCHES:
        image = compile_cuda(source, arch).cubin
    else:  # a newer GPU: let the driver JIT the sm_80 PTX
        image = compile_cuda(source, "sm_80").ptx.encode() + b"\0"
    context = _check(driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    _check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    loaded = _check(driver.cuModuleLoadData(image), "cuModuleLoadData")
    allocations: list[tuple[Any, np.ndarray]] = []
    try:
        function = _check(driver.cuModuleGetFunction(loaded, kernel.encode()), "cuModuleGetFunction")
        holders: list[Any] = []
        for index, value in enumerate(values):
            if isinstance(value, np.ndarray):
                array = np.ascontiguousarray(value)
                pointer = _check(driver.cuMemAlloc(max(array.nbytes, 1)), "cuMemAlloc")
                _check(driver.cuMemcpyHtoD(pointer, array.ctypes.data, array.nbytes), "cuMemcpyHtoD")
                allocations.append((pointer, value))
                holders.append(ctypes.c_void_p(int(pointer)))
                if params is not None:  # dynamic sizes follow the pointer as int parameters
                    shape = params[index][1].get_shape()
                    if len(shape) != value.ndim:
                        raise LayoutError(f"args: {params[index][0]} must have {len(shape)} dimensions, "
                                          f"got shape {value.shape}")
                    holders.extend(ctypes.c_int(value.shape[k]) for k, d in enumerate(shape) if d < 0)
            else:
                dtype = np.float32 if isinstance(value, float) else np.int32
                if params is not None:
                    from layoutkit.backends.cuda.emit import c_type

                    dtype = _C_SCALARS.get(c_type(params[index][1]), dtype)
                scalar = np.array(value, dtype=getattr(value, "dtype", dtype))
                holders.append(np.ctypeslib.as_ctypes(scalar.reshape(1))[0] if scalar.dtype != np.bool_
                               else ctypes.c_bool(bool(scalar)))
        pointers = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
        _check(driver.cuLaunchKernel(function, *grid3, *block3, 0, 0, ctypes.addressof(pointers), 0),
               "cuLaunchKernel")
        _check(driver.cuCtxSynchronize(), "kernel execution")
        for pointer, array in allocations:
            host = np.empty_like(np.ascontiguousarray(array))
            _check(driver.cuMemcpyDtoH(host.ctypes.data, pointer, host.nbytes), "cuMemcpyDtoH")
            array[...] = host
    finally:
        for pointer, _ in allocations:
            driver.cuMemFree(pointer)
        driver.cuModuleUnload(loaded)
