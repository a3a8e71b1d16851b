"""Every example kernel in examples/kernels emits CUDA that compiles for sm_80 and sm_90, with
registers that match the cubin, shared bytes that match the IR's workgroup buffers, and the
CUDA constructs its IR asks for (checked in the source and in the compiled PTX)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from layoutkit.backends.cuda import compile_cuda, emit_cuda
from layoutkit.ir import kernels, parse_module

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kernels"
FILES = sorted(EXAMPLES.glob("*.mlir"))
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8}
WORKGROUP_ALLOC = re.compile(
    r"memref\.alloc\(\)\s*:\s*memref<([\dx]+)x(\w+),\s*#gpu\.address_space<workgroup>>")


def workgroup_bytes(text: str) -> int:
    """Shared bytes of a one-kernel file, read from its text: each buffer 16-byte aligned."""
    total = 0
    for dims, element in WORKGROUP_ALLOC.findall(text):
        size = math.prod(int(d) for d in dims.split("x")) * ELEMENT_BYTES[element]
        total = math.ceil(total / 16) * 16 + size
    return total


@pytest.fixture(scope="module", params=FILES, ids=[f.stem for f in FILES])
def example(request):
    text = request.param.read_text()
    module = parse_module(text)
    return request.param.stem, text, module, emit_cuda(module)


def test_the_issue_examples_are_all_here():
    names = {f.stem for f in FILES}
    for wanted in ("vector_add", "transpose_swizzled", "transpose_padded", "block_sum",
                   "matmul_mma", "softmax"):
        assert wanted in names, f"examples/kernels/{wanted}.mlir is missing"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_example_compiles(example, arch, cuda_compiler, elf):
    name, text, module, source = example
    result = compile_cuda(source, arch)
    assert elf.kernel_names(result.cubin) == set(kernels(module))
    assert elf.register_counts(result.cubin) == {k.name: k.registers for k in result.kernels}
    for kernel in result.kernels:
        assert 0 < kernel.registers <= 255
    assert result.spills == 0
    if len(kernels(module)) == 1:
        assert result.shared_bytes == workgroup_bytes(text)
    if "gpu.barrier" in text:
        assert "bar.sync" in result.ptx or "barrier.sync" in result.ptx
    if re.search(r"gpu\.shuffle xor|gpu\.subgroup_reduce", text):
        assert "shfl.sync.bfly.b32" in result.ptx
    if "nvgpu.mma.sync" in text:
        assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in result.ptx


def test_example_source_follows_the_ir(example):
    name, text, module, source = example
    text = re.sub(r"//[^\n]*", "", text)  # ops only, not the comments that mention them
    assert len(re.findall(r'extern "C" __global__ void \w+\(', source)) == len(kernels(module))
    assert source.count("__syncthreads();") == text.count("gpu.barrier")
    assert ("__shared__" in source) == ("#gpu.address_space<workgroup>" in text)
    shuffles = re.findall(r"gpu\.shuffle (xor|down|up|idx)", text)
    for mode in set(shuffles):
        function = {"xor": "__shfl_xor_sync", "down": "__shfl_down_sync",
                    "up": "__shfl_up_sync", "idx": "__shfl_sync"}[mode]
        assert source.count(function + "(") >= shuffles.count(mode)
    assert len(re.findall(r"= mma_m16n8k(?:16|8)_b?f16\(", source)) == text.count("nvgpu.mma.sync")
    # every 16-byte vector access of the IR is one float4 / uint4 / int4 access
    accesses = re.findall(r"vector\.(?:load|store)[^\n]*:[^\n]*vector<([\dx]+)x(\w+)>", text)
    sixteen = sum(1 for dims, element in accesses
                  if math.prod(int(d) for d in dims.split("x")) * ELEMENT_BYTES[element] == 16)
    assert len(re.findall(r"(?:load|store)_vector<(?:float4|uint4|int4)", source)) == sixteen


def test_swizzled_transpose_uses_shared_memory_and_a_barrier():
    source = emit_cuda(parse_module((EXAMPLES / "transpose_swizzled.mlir").read_text()))
    assert "__shared__" in source and "__syncthreads();" in source
    body = source[source.index("void transpose_swizzled("):]
    assert re.search(r"const int \w+ = \w+ \^ \w+;", body)  # the XOR swizzle of the column
    assert body.index("__shared__") < body.index("__syncthreads();")


def test_padded_transpose_has_a_padded_tile():
    source = emit_cuda(parse_module((EXAMPLES / "transpose_padded.mlir").read_text()))
    match = re.search(r"__shared__ __align__\(16\) float \w+\[(\d+)\]\[(\d+)\];", source)
    assert match and int(match.group(2)) == int(match.group(1)) + 1


def test_block_sum_reduces_with_xor_shuffles():
    source = emit_cuda(parse_module((EXAMPLES / "block_sum.mlir").read_text()))
    assert "__shfl_xor_sync(0xffffffffu" in source and "__shared__" in source


def test_matmul_uses_mma_and_wide_shared_staging(cuda_compiler):
    source = emit_cuda(parse_module((EXAMPLES / "matmul_mma.mlir").read_text()))
    assert re.search(r"const Vec<float, 4> \w+ = mma_m16n8k16_f16\(\w+, \w+, \w+\);", source)
    assert 'asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' in source
    assert "load_vector<uint4, f16_t, 8>" in source  # 8 halves = 16 bytes per global load
    ptx = compile_cuda(source, "sm_80").ptx
    assert re.search(r"ld\.global\.v4\.(u32|b32)", ptx)


def test_softmax_uses_exp_and_shuffles():
    source = emit_cuda(parse_module((EXAMPLES / "softmax.mlir").read_text()))
    assert "expf(" in source and "__shfl_xor_sync" in source
    # constants of the IR are exact: -inf as its bit pattern
    assert np.isinf(-np.inf) and "__int_as_float(0x7f800000)" in source
