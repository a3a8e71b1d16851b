"""emit_cuda on hand-written kernels: the emitted CUDA compiles for sm_80 and sm_90, carries the
constructs the IR asks for (checked in the compiled PTX too), and bad input is a LayoutError."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from layoutkit import LayoutError
from layoutkit.backends.cuda import compile_cuda, emit_cuda
from layoutkit.ir import kernels, parse_module

KERNELS = Path(__file__).parent / "kernels"


def kernel_body(source: str, name: str) -> str:
    """The text of one emitted kernel, from its signature to its closing brace."""
    start = source.index(f"void {name}(")
    end = source.index("\n}\n", start)
    return source[start:end]


@pytest.fixture(scope="module")
def features():
    text = (KERNELS / "features.mlir").read_text()
    module = parse_module(text)
    return text, module, emit_cuda(module)


def test_one_global_function_per_kernel(features):
    _, module, source = features
    declared = re.findall(r'extern "C" __global__ void (\w+)\(', source)
    assert sorted(declared) == sorted(kernels(module))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_features_compile_and_keep_their_constructs(features, arch, cuda_compiler, elf):
    text, module, source = features
    result = compile_cuda(source, arch)
    assert elf.kernel_names(result.cubin) == set(kernels(module))
    assert elf.register_counts(result.cubin) == {k.name: k.registers for k in result.kernels}
    ptx_entries = dict(re.findall(r"\.entry (\w+)\(([\s\S]*?)\n\)", result.ptx))
    assert set(ptx_entries) == set(kernels(module))
    # shuffles and subgroup reductions become shfl.sync; the mma the m16n8k16 instruction
    assert "shfl.sync.bfly.b32" in result.ptx and "shfl.sync.down.b32" in result.ptx
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in result.ptx
    assert "bar.sync" in result.ptx
    # shared bytes: the one workgroup buffer of shared_transpose, 32 x 32 f32, by hand
    assert result.by_name["shared_transpose"].shared_bytes == 32 * 32 * 4
    assert result.by_name["warp_ops"].shared_bytes == 0
    assert result.spills == 0


def test_readable_structure(features):
    _, _, source = features
    warp = kernel_body(source, "warp_ops")
    assert "const int tid = int(threadIdx.x);" in warp  # the IR's names survive
    assert "__shfl_xor_sync(0xffffffffu, v, 16)" in warp
    assert "__shfl_down_sync(0xffffffffu, v, 16)" in warp
    assert re.search(r"for \(int k = 0; k < 4; \+\+k\) \{", warp)  # scf.for, iter_args carried
    assert re.search(r"float r;\n\s+if \(ok\) \{[\s\S]*\} else \{", warp)  # scf.if with a result
    mma = kernel_body(source, "mma_tile")
    assert "const Vec<float, 4> d = mma_m16n8k16_f16(fa3, fb, zc);" in mma
    assert 'asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' in source  # its PTX
    assert "load_vector<unsigned, f16_t, 2>(&a[group * 16 + col])" in mma  # 4-byte vector load
    assert "store_vector<float2>(&c[group * 8 + col], d0)" in mma
    transpose = kernel_body(source, "shared_transpose")
    assert "__shared__ __align__(16) float tile[32][32];" in transpose
    assert "tile[ty][sw] = v;" in transpose and "__syncthreads();" in transpose
    # the barrier sits between the shared store and the shared load, as in the IR
    assert transpose.index("tile[ty][sw] = v;") < transpose.index("__syncthreads();") < transpose.index("tile[tx][sw2]")


def _module(body: str, args: str = "%x: memref<256xf32>") -> str:
    return f"""module {{
  gpu.module @m {{
    gpu.func @k({args}) kernel {{
{body}
      gpu.return
    }}
  }}
}}"""


VECTOR_LOADS = [
    ("f32", 4, "float4"), ("f32", 2, "float2"), ("f16", 8, "uint4"), ("f16", 4, "uint2"),
    ("bf16", 8, "uint4"), ("i32", 4, "int4"), ("f64", 2, "uint4"), ("i8", 16, "uint4"),
]


@pytest.mark.parametrize(("element", "count", "wide"), VECTOR_LOADS)
def test_vector_loads_are_one_wide_access(element, count, wide, cuda_compiler):
    body = f"""      %t = gpu.thread_id x
      %c = arith.constant {count} : index
      %i = arith.muli %t, %c : index
      %v = vector.load %x[%i] : memref<1024x{element}>, vector<{count}x{element}>
      vector.store %v, %y[%i] : memref<1024x{element}>, vector<{count}x{element}>"""
    source = emit_cuda(parse_module(_module(body, f"%x: memref<1024x{element}>, %y: memref<1024x{element}>")))
    assert f"load_vector<{wide}," in source and f"store_vector<{wide}>" in source
    ptx = compile_cuda(source, "sm_80").ptx
    bytes_per_access = np.dtype({"f32": np.float32, "f16": np.float16, "bf16": np.uint16,
                                 "i32": np.int32, "f64": np.float64, "i8": np.int8}[element]).itemsize * count
    lanes = {16: "v4", 8: "v2"}.get(bytes_per_access)
    if lanes:  # one vectorized global load and store, e.g. ld.global.v4.f32
        assert re.search(rf"ld\.global\.{lanes}\.\w+", ptx) and re.search(rf"st\.global\.{lanes}\.\w+", ptx)


ARITH_BODY = """      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %a = memref.load %ints[%t] : memref<64xi32>
      %c3 = arith.constant 3 : i32
      %c7 = arith.constant -7 : i32
      %d1 = arith.divsi %a, %c3 : i32
      %d2 = arith.divui %a, %c3 : i32
      %d3 = arith.floordivsi %c7, %a : i32
      %d4 = arith.ceildivsi %a, %c3 : i32
      %r1 = arith.remsi %a, %c3 : i32
      %r2 = arith.remui %a, %c3 : i32
      %s1 = arith.shrsi %a, %ti : i32
      %s2 = arith.shrui %a, %ti : i32
      %s3 = arith.shli %a, %ti : i32
      %m1 = arith.maxsi %d1, %d2 : i32
      %m2 = arith.minui %d3, %d4 : i32
      %x1 = arith.xori %r1, %r2 : i32
      %o1 = arith.ori %s1, %s2 : i32
      %n1 = arith.andi %s3, %x1 : i32
      %sum1 = arith.addi %m1, %m2 : i32
      %sum2 = arith.addi %sum1, %o1 : i32
      %sum3 = arith.subi %sum2, %n1 : i32
      %lt = arith.cmpi slt, %sum3, %a : i32
      %ge = arith.cmpi uge, %sum3, %a : i32
      %both = arith.andi %lt, %ge : i1
      %pick = arith.select %both, %sum3, %a : i32
      %wide = arith.extsi %pick : i32 to i64
      %narrow = arith.trunci %wide : i64 to i16
      %back = arith.extui %narrow : i16 to i32
      %f = arith.sitofp %back : i32 to f64
      %g = memref.load %dbl[%t] : memref<64xf64>
      %h = arith.divf %f, %g : f64
      %q = math.sqrt %h : f64
      %mx = arith.maximumf %q, %g : f64
      %une = arith.cmpf une, %mx, %g : f64
      %uno = arith.cmpf uno, %mx, %g : f64
      %any = arith.ori %une, %uno : i1
      %fl = arith.truncf %mx : f64 to f32
      %bits = arith.bitcast %fl : f32 to i32
      %out = arith.select %any, %bits, %pick : i32
      memref.store %out, %ints[%t] : memref<64xi32>
      %bf = arith.truncf %fl : f32 to bf16
      %bf2 = arith.addf %bf, %bf : bf16
      %bff = arith.extf %bf2 : bf16 to f32
      %e = math.tanh %bff : f32
      %u = arith.fptoui %e : f32 to i32
      %fin = arith.uitofp %u : i32 to f32
      memref.store %fin, %fl32[%t] : memref<64xf32>"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_integer_and_float_arithmetic_compiles(arch, cuda_compiler):
    text = _module(ARITH_BODY, "%ints: memref<64xi32>, %dbl: memref<64xf64>, %fl32: memref<64xf32>")
    source = emit_cuda(parse_module(text))
    body = kernel_body(source, "k")
    assert "floordiv(-7, a)" in body and "ceildiv(a, 3)" in body
    assert "(int)((unsigned)a / 3u)" in body and "(int)((unsigned)a >> (unsigned)ti)" in body
    assert "float_to_bf16(bf16_to_float(bf) + bf16_to_float(bf))" in body
    assert "__float_as_int(fl)" in body
    assert compile_cuda(source, arch).by_name["k"].registers > 0


def test_bf16_m16n8k8_mma(cuda_compiler):
    body = """      %a = arith.constant dense<1.0> : vector<2x2xbf16>
      %b = arith.constant dense<2.0> : vector<1x2xbf16>
      %c = arith.constant dense<0.0> : vector<2x2xf32>
      %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xbf16>, vector<1x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
      %t = gpu.thread_id x
      %row = vector.extract %d[1] : vector<2xf32> from vector<2x2xf32>
      vector.store %row, %x[%t] : memref<256xf32>, vector<2xf32>"""
    text = _module(body)
    source = emit_cuda(parse_module(text))
    ptx = compile_cuda(source, "sm_80").ptx
    assert "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32" in ptx
    # bf16 1.0 and 2.0 as bits, computed here by hand from the f32 bit patterns
    assert f"bf16_t(0x{np.float32(1.0).view(np.uint32) >> 16:04x})" in source
    assert f"bf16_t(0x{np.float32(2.0).view(np.uint32) >> 16:04x})" in source


def test_dynamic_sizes_become_parameters(cuda_compiler):
    body = """      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = memref.dim %x, %c1 : memref<?x?xf32>
      %t = gpu.thread_id x
      %inside = arith.cmpi ult, %t, %n : index
      scf.if %inside {
        %v = memref.load %x[%c1, %t] : memref<?x?xf32>
        memref.store %v, %x[%c0, %t] : memref<?x?xf32>
      }"""
    source = emit_cuda(parse_module(_module(body, "%x: memref<?x?xf32>")))
    assert "void k(float* x, int x_size0, int x_size1)" in source
    assert "x[x_size1 + t]" in source and "x[t] = v;" in source
    assert "(unsigned)t < (unsigned)x_size1" in source
    compile_cuda(source, "sm_90")


def test_shared_memory_sizes_follow_the_ir(cuda_compiler):
    shapes = [(16, 17, "f32", 4), (8, 64, "f16", 2), (4, 4, "f64", 8)]
    allocs, uses = [], []
    for n, (rows, cols, element, _) in enumerate(shapes):
        allocs.append(f"      %s{n} = memref.alloc() : memref<{rows}x{cols}x{element}, #gpu.address_space<workgroup>>")
        uses.append(f"      %v{n} = memref.load %s{n}[%t, %t] : memref<{rows}x{cols}x{element}, #gpu.address_space<workgroup>>\n"
                    f"      memref.store %v{n}, %s{n}[%t, %c1] : memref<{rows}x{cols}x{element}, #gpu.address_space<workgroup>>")
    body = "      %t = gpu.thread_id x\n      %c1 = arith.constant 1 : index\n" + "\n".join(allocs) + "\n      gpu.barrier\n" + "\n".join(uses)
    source = emit_cuda(parse_module(_module(body)))
    result = compile_cuda(source, "sm_80")
    # each array starts 16-byte aligned
    expected = 0
    for rows, cols, _, size in shapes:
        expected = math.ceil(expected / 16) * 16 + rows * cols * size
    assert result.by_name["k"].shared_bytes == expected


@pytest.mark.parametrize(("body", "message"), [
    ("      %t = gpu.thread_id x\n      %s = memref.alloc(%t) : memref<?xf32, #gpu.address_space<workgroup>>",
     "static sizes"),
    ("      %v = arith.constant 1.0 : f32\n      %o = arith.constant 1 : i32\n      %w = arith.constant 64 : i32\n"
     "      %r, %ok = gpu.shuffle xor %v, %o, %w : f32", "gpu.shuffle: width must be from 1 to 32 lanes, got 64"),
    ("      %v = arith.constant 1.0 : f32\n      %o = arith.constant 1 : i32\n      %w = arith.constant 0 : i32\n"
     "      %r, %ok = gpu.shuffle idx %v, %o, %w : f32", "width must be from 1 to 32 lanes, got 0"),
    ("      %t = gpu.thread_id x\n      %i = arith.index_cast %t : index to i32\n"
     "      %r = math.ctpop %i : i32", "math.ctpop: not supported"),
])
def test_unsupported_input_is_a_layout_error_with_the_line(body, message):
    with pytest.raises(LayoutError, match=message) as caught:
        emit_cuda(parse_module(_module(body)))
    assert "kernel @k" in str(caught.value)


def test_unsupported_op_names_its_line():
    body = ("      %t = gpu.thread_id x\n      %i = arith.index_cast %t : index to i32\n"
            "      %r = math.ctpop %i : i32")
    text = _module(body)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "math.ctpop" in row)
    with pytest.raises(LayoutError, match=f"line {line}: "):
        emit_cuda(parse_module(text))


def test_module_without_kernels():
    text = "module {\n  gpu.module @m {\n    gpu.func @helper(%x: memref<4xf32>) {\n      gpu.return\n    }\n  }\n}"
    with pytest.raises(LayoutError, match="kernel attribute"):
        emit_cuda(parse_module(text))
    with pytest.raises(LayoutError, match="no gpu.func"):
        emit_cuda(parse_module("module {\n}"))
    with pytest.raises(LayoutError, match="module"):
        emit_cuda(42)


def test_values_named_like_the_functions_they_call_compile(cuda_compiler):
    """An IR name equal to a helper or math function (``%expf``) must not become a local that
    hides that function from the code after it."""
    body = """      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<256xf32>
      %maximumf = arith.maximumf %v, %v : f32
      %expf = math.exp %maximumf : f32
      %sqrtf = math.sqrt %expf : f32
      %lane_id = gpu.lane_id
      %i = arith.index_cast %lane_id : index to i32
      %floordiv = arith.floordivsi %i, %i : i32
      %again = arith.floordivsi %floordiv, %i : i32
      %f16_to_float = arith.truncf %sqrtf : f32 to f16
      %float_to_f16 = arith.extf %f16_to_float : f16 to f32
      %load_vector = vector.load %x[%t] : memref<256xf32>, vector<4xf32>
      %e = vector.extract %load_vector[0] : f32 from vector<4xf32>
      %m = arith.maximumf %float_to_f16, %e : f32
      %s = math.exp %m : f32
      %r = math.sqrt %s : f32
      memref.store %r, %x[%t] : memref<256xf32>
      %j = arith.index_cast %again : i32 to index
      memref.store %r, %x[%j] : memref<256xf32>"""
    source = emit_cuda(parse_module(_module(body)))
    kernel = kernel_body(source, "k")
    for name in ("maximumf", "expf", "sqrtf", "lane_id", "floordiv", "f16_to_float",
                 "float_to_f16", "load_vector"):
        assert not re.search(rf"\b{name} =", kernel), name  # renamed, e.g. expf_
    compile_cuda(source, "sm_80")


EXAMPLE_TEXTS = [p.read_text() for p in sorted((Path(__file__).resolve().parents[2] / "examples" / "kernels").glob("*.mlir"))]
TYPE_TOKENS = ["f32", "f16", "bf16", "f64", "i1", "i4", "i8", "i32", "i64", "index", "f8E4M3FN",
               "vector<4xf32>", "memref<4xf32>", "complex<f32>", "tensor<4xf32>"]


def _mutate(text: str, data) -> str:
    """One of: a type token swapped for another, a slice deleted, a slice duplicated."""
    from hypothesis import strategies as st

    kind = data.draw(st.sampled_from(["type", "delete", "duplicate"]))
    if kind == "type":
        spots = [m for m in re.finditer(r"\b(f32|f16|i32|index|xf32|xf16)\b", text)]
        spot = data.draw(st.sampled_from(spots))
        token = data.draw(st.sampled_from(TYPE_TOKENS))
        replacement = ("x" + token) if spot.group(0).startswith("x") else token
        return text[:spot.start()] + replacement + text[spot.end():]
    start = data.draw(st.integers(0, len(text) - 1))
    length = data.draw(st.integers(1, 40))
    if kind == "delete":
        return text[:start] + text[start + length:]
    return text[:start] + text[start:start + length] * 2 + text[start:]


def test_mutated_examples_emit_or_raise_a_layout_error():
    """Fuzz: every mutation of an example kernel that parses either emits CUDA or raises a
    LayoutError (never another exception)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from xdsl.utils.exceptions import ParseError

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.sampled_from(EXAMPLE_TEXTS), st.data())
    def check(text, data):
        mutated = _mutate(text, data)
        try:
            module = parse_module(mutated)
        except LayoutError:
            return
        except ParseError:  # the IR's to fix: see test_cli.py's lexer case
            return
        try:
            source = emit_cuda(module)
        except LayoutError:
            return
        assert 'extern "C" __global__ void' in source

    check()


# registers per lane of each mma.sync fragment, from the PTX ISA's tables (A, B, C/D)
MMA_REGISTERS = {16: (4, 2, 4), 8: (2, 1, 4)}


@pytest.mark.parametrize("k", [16, 8])
@pytest.mark.parametrize("element", ["f16", "bf16"])
def test_every_mma_variant_has_the_isa_operands_and_compiles(k, element, cuda_compiler):
    from layoutkit.backends.cuda.prelude import PRELUDE

    instruction = f"mma.sync.aligned.m16n8k{k}.row.col.f32.{element}.{element}.f32"
    asm = re.search(re.escape(instruction) + r" (\{[^}]*\}), (\{[^}]*\}), (\{[^}]*\}), (\{[^}]*\});", PRELUDE)
    assert asm, instruction
    groups = [re.findall(r"%(\d+)", group) for group in asm.groups()]
    a, b, c = MMA_REGISTERS[k]
    assert [len(g) for g in groups] == [4, a, b, c]  # D, A, B, C
    assert [int(n) for g in groups for n in g] == list(range(4 + a + b + c))
    a_shape, b_shape = f"{a}x2x{element}", f"{b}x2x{element}"
    body = f"""      %a = arith.constant dense<1.0> : vector<{a_shape}>
      %b = arith.constant dense<2.0> : vector<{b_shape}>
      %c = arith.constant dense<0.0> : vector<2x2xf32>
      %d = nvgpu.mma.sync (%a, %b, %c) {{mmaShape = [16, 8, {k}]}} : (vector<{a_shape}>, vector<{b_shape}>, vector<2x2xf32>) -> vector<2x2xf32>
      %t = gpu.thread_id x
      %row = vector.extract %d[1] : vector<2xf32> from vector<2x2xf32>
      vector.store %row, %x[%t] : memref<256xf32>, vector<2xf32>"""
    source = emit_cuda(parse_module(_module(body)))
    assert f"mma_m16n8k{k}_{element}(a, b, c)" in source
    assert instruction in compile_cuda(source, "sm_80").ptx

