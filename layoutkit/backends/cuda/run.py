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
              "bool": np.bool_, "float": np.float32, "double": np.float64}


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
    """``4`` -> ``(4, 1, 1)``, ``(32, 8)`` -> ``(32, 8, 1)``; sizes are integers from 1 to 2**31 - 1."""
    def is_size(d: Any) -> bool:
        return isinstance(d, (int, np.integer)) and not isinstance(d, bool) and 1 <= d < 2**31

    dims = (value,) if isinstance(value, (int, np.integer)) else value
    if not isinstance(dims, (tuple, list)) or not 1 <= len(dims) <= 3 or not all(map(is_size, dims)):
        raise LayoutError(f"{what}: expected 1 to 3 sizes from 1 to 2**31 - 1, got {quote(value)}")
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))  # type: ignore[return-value]


def _kernel_params(module: Any, kernel: str) -> list[tuple[str, Any]]:
    """(argument name, xDSL type) for each argument of the kernel."""
    for op in module.walk():
        if op.name == "gpu.func":
            from layoutkit.backends.cuda.emit import symbol_name as _symbol_name

            if _symbol_name(op) == kernel:
                return [(arg.name_hint or f"arg{i}", arg.type)
                        for i, arg in enumerate(getattr(op, "arguments", op.body.blocks[0].args))]
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


def _check_arguments(params: list[tuple[str, Any]], values: list[Any]) -> None:
    """Arrays for memrefs (rank, static sizes and element size as declared), numbers for scalars."""
    from layoutkit.backends.cuda.memrefs import memref_info

    for (name, type_), value in zip(params, values):
        if type(type_).__name__ != "MemRefType":
            if isinstance(value, np.ndarray) and value.ndim > 0:
                raise LayoutError(f"args: {name} is a scalar of type {type_}, got an array")
            continue
        if not isinstance(value, np.ndarray):
            raise LayoutError(f"args: {name} is a {type_}, expected a numpy array, got {quote(value)}")
        shape = [int(d) for d in type_.get_shape()]
        if value.ndim != len(shape) or any(d >= 0 and d != n for d, n in zip(shape, value.shape)):
            raise LayoutError(f"args: {name} must have shape {quote(type_)}, got {value.shape}")
        element = memref_info(type_, f"args: {name}", size_prefix=name).element
        if value.itemsize != element.size:
            raise LayoutError(f"args: {name} has {element.c} elements ({element.size} bytes), "
                              f"got dtype {value.dtype}")


def _scalar_holder(value: Any, c_name: str | None) -> ctypes.Array:
    """The bytes of a scalar kernel argument, as the emitted C parameter type holds them."""
    if c_name == "f16_t":
        raw = np.array(value, dtype=np.float16).view(np.uint16)
    elif c_name == "bf16_t":
        import ml_dtypes

        raw = np.array(value, dtype=ml_dtypes.bfloat16).view(np.uint16)
    elif c_name is not None:
        raw = np.array(value, dtype=_C_SCALARS[c_name])
    elif isinstance(value, np.generic):
        raw = np.array(value)
    else:
        raw = np.array(value, dtype=np.float32 if isinstance(value, float) else np.int32)
    data = raw.tobytes()
    return (ctypes.c_char * len(data)).from_buffer_copy(data)


def run_cuda(module_or_source: Any, kernel: str, grid: int | Sequence[int],
             block: int | Sequence[int], args: Sequence[Any] | Mapping[str, Any]) -> None:
    """Run ``kernel`` on the GPU with ``grid`` x ``block`` threads; write results into ``args``.

    ``module_or_source``: an xDSL module, its MLIR text, or CUDA C++ source (text holding
    ``__global__``); with CUDA source, ``args`` must be positional and arrays are passed as
    pointers, numpy scalars by value.
    """
    if not isinstance(kernel, str):
        raise LayoutError(f"kernel: expected the kernel's name, got {quote(kernel)}")
    if not isinstance(args, (Sequence, Mapping)) or isinstance(args, str):
        raise LayoutError(f"args: expected a list or a dict of the kernel's arguments, got {quote(args)}")
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
        _check_arguments(params, values)

    if not gpu_available():
        raise LayoutError("run_cuda: no CUDA GPU is available on this machine (use layoutkit.simulate)")
    from cuda.bindings import driver  # importable: gpu_available() just used it

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
                    holders.extend(ctypes.c_int(value.shape[k]) for k, d in enumerate(shape) if d < 0)
            else:
                c_name = None
                if params is not None:
                    from layoutkit.backends.types import c_type

                    c_name = c_type(params[index][1])
                holders.append(_scalar_holder(value, c_name))
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
