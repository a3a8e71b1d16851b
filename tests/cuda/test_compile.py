"""compile_cuda: PTX + cubin for sm_80 and sm_90, and ptxas's report checked against the cubin
itself (register counts read from its ELF) and against sizes computed here by hand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError
from layoutkit.backends.cuda.compile import (
    CudaCompileError,
    compile_cuda,
    nvcc_available,
    nvrtc_available,
    parse_ptxas_report,
)

TRANSPOSE_TILE = r"""
extern "C" __global__ void tile_transpose(const float* in, float* out) {
  __shared__ float tile[32][33];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
extern "C" __global__ void scale(double* x, int n) {
  __shared__ double cache[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cache[threadIdx.x % 64] = i < n ? x[i] : 0.0;
  __syncthreads();
  if (i < n) x[i] = 2.0 * cache[(threadIdx.x + 1) % 64];
}
"""

# a big private array indexed by a runtime value lives in local memory (stack)
LOCAL_ARRAY = r"""
extern "C" __global__ void local_array(float* out, int k) {
  float buffer[256];
  for (int i = 0; i < 256; ++i) buffer[i] = out[i] * i;
  out[threadIdx.x] = buffer[k & 255];
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_two_kernels_resources_match_the_cubin(arch, cuda_compiler, elf):
    result = compile_cuda(TRANSPOSE_TILE, arch)
    assert result.arch == arch
    assert f".target {arch}" in result.ptx
    assert ".entry tile_transpose" in result.ptx and ".entry scale" in result.ptx
    assert elf.kernel_names(result.cubin) == {"tile_transpose", "scale"}
    by_name = result.by_name
    assert set(by_name) == {"tile_transpose", "scale"}
    # registers: the ptxas text report equals the REGCOUNT attribute inside the cubin
    assert elf.register_counts(result.cubin) == {k: v.registers for k, v in by_name.items()}
    # shared bytes: 32 * 33 floats and 64 doubles, computed by hand
    assert by_name["tile_transpose"].shared_bytes == 32 * 33 * 4
    assert by_name["scale"].shared_bytes == 64 * 8
    assert result.shared_bytes == 32 * 33 * 4
    assert by_name["tile_transpose"].barriers == 1
    assert result.spills == 0


@pytest.mark.parametrize("compiler", ["nvrtc", "nvcc"])
def test_each_compiler_reports_the_same_shared_bytes(compiler, cuda_compiler):
    if compiler == "nvrtc" and not nvrtc_available():
        pytest.skip("NVRTC (pip install 'layoutkit[cuda]') is not installed")
    if compiler == "nvcc" and not nvcc_available():
        pytest.skip("no nvcc/ptxas on PATH")
    result = compile_cuda(TRANSPOSE_TILE, "sm_80", compiler=compiler)
    assert result.compiler.startswith(compiler)
    assert result.by_name["tile_transpose"].shared_bytes == 4224
    assert len(result.cubin) > 0 and result.cubin[:4] == b"\x7fELF"


def test_local_memory_is_reported_as_stack(cuda_compiler):
    result = compile_cuda(LOCAL_ARRAY, "sm_90")
    assert result.by_name["local_array"].stack_bytes >= 256 * 4


def test_register_limit_forces_spills(cuda_compiler):
    # 40 live accumulators under a 24-register cap cannot all stay in registers
    body = "\n".join(f"  float a{i} = x[{i}] * x[{i + 1}];" for i in range(40))
    total = " + ".join(f"a{i} * a{(i + 7) % 40}" for i in range(40))
    source = (f'extern "C" __global__ void pressure(float* x) {{\n{body}\n'
              f"  for (int r = 0; r < 8; ++r) x[r + 64] = {total} + x[r];\n}}\n")
    free = compile_cuda(source, "sm_80")
    capped = compile_cuda(source, "sm_80", options=("--maxrregcount=24",))
    assert capped.by_name["pressure"].registers <= 24 < free.by_name["pressure"].registers
    assert capped.spills > 0 and free.spills == 0


def test_compile_error_carries_the_log(cuda_compiler):
    with pytest.raises(CudaCompileError) as caught:
        compile_cuda('extern "C" __global__ void broken(float* a) { a[0] = undefined_name; }')
    assert "undefined_name" in caught.value.log
    assert "error" in str(caught.value)
    assert isinstance(caught.value, LayoutError)


@pytest.mark.parametrize("arch", ["sm_70", "sm_7", "sm90", "", "compute_90", None, 90])
def test_bad_arch_is_a_layout_error(arch):
    with pytest.raises(LayoutError, match="arch"):
        compile_cuda('extern "C" __global__ void k() {}', arch)


@pytest.mark.parametrize("compiler", ["nvrtc", "nvcc"])
def test_compile_error_is_one_line_with_the_first_error(compiler, cuda_compiler, nvcc_on_path):
    from layoutkit.backends.cuda.compile import available_compilers

    if compiler not in available_compilers():
        pytest.skip(f"{compiler} is not installed here")
    source = ('extern "C" __global__ void k(float* a) {\n  a[0] = first_missing;\n'
              '  a[1] = second_missing;\n  a[2] = third_missing;\n}\n')
    with pytest.raises(CudaCompileError) as caught:
        compile_cuda(source, "sm_90", compiler=compiler)
    message = str(caught.value)
    assert "\n" not in message
    assert message == ('source: ' + compiler + ' (sm_90) rejects it: kernel.cu(2): error: identifier '
                       '"first_missing" is undefined (and 2 more errors)')
    assert "third_missing" in caught.value.log


@pytest.mark.parametrize(("options", "name", "field"), [
    (("--bogus-option",), "kernel.cu", "rejects it"), ((3,), "kernel.cu", "options"),
    ("-lineinfo", "kernel.cu", "options"), ((), 5, "name"), ((), " ", "name"),
])
def test_bad_options_and_names(options, name, field, cuda_compiler):
    with pytest.raises(LayoutError, match=field):
        compile_cuda('extern "C" __global__ void k() {}', "sm_80", options=options, name=name)


def test_bad_compiler_and_empty_source():
    with pytest.raises(LayoutError, match="compiler"):
        compile_cuda('extern "C" __global__ void k() {}', compiler="clang")
    with pytest.raises(LayoutError, match="source"):
        compile_cuda("   ")


def test_parse_ptxas_report_by_hand():
    log = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'first' for 'sm_80'
ptxas info    : Function properties for first
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 360 bytes cmem[0]
ptxas info    : Compiling entry function 'second' for 'sm_80'
ptxas info    : Function properties for second
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, 360 bytes cmem[0]
"""
    first, second = parse_ptxas_report(log)
    assert (first.name, first.registers, first.stack_bytes, first.spill_store_bytes,
            first.spill_load_bytes, first.shared_bytes, first.barriers) == ("first", 40, 16, 8, 4, 2048, 1)
    assert (second.name, second.registers, second.shared_bytes, second.barriers) == ("second", 8, 0, 0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([
    "ptxas info    : Compiling entry function 'k' for 'sm_80'",
    "ptxas info    : Function properties for k",
    "ptxas info    : Function properties for helper",
    "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads",
    "ptxas info    : Used 32 registers, used 1 barriers, 128 bytes smem, 360 bytes cmem[0]",
    "ptxas info    : Used 7 registers",
    "ptxas info    : Compiling entry function 'other' for 'sm_90'",
    "garbage ' line with Used and bytes smem",
]) | st.text(max_size=40), max_size=12))
def test_parse_ptxas_report_never_fails(lines):
    kernels = parse_ptxas_report("\n".join(lines))
    names = [k.name for k in kernels]
    assert len(names) == len(set(names))
    assert set(names) <= {"k", "other"} | {line.split("'")[1] for line in lines
                                            if "Compiling entry function '" in line and line.count("'") >= 2}
    assert all(k.registers >= 0 and k.shared_bytes >= 0 for k in kernels)
