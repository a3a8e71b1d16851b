"""CUDA for subgroup ids, cluster strides, gpu.func attributions and every memref.atomic_rmw
kind, compiled by NVRTC; host functions are left out with a note."""

from __future__ import annotations

import pytest

from layoutkit.backends.cuda import compile_cuda, emit_cuda
from layoutkit.ir.dialects.upstream.memref import ATOMIC_KINDS

FLOAT_KINDS = {"addf", "maximumf", "minimumf", "mulf", "maxnumf", "minnumf"}


def atomic_module(kinds_types: list[tuple[str, str]]) -> str:
    lines = []
    for n, (kind, type_) in enumerate(kinds_types):
        lines.append(f"""      %v{n} = memref.load %src_{type_}[%t] : memref<64x{type_}>
      %o{n} = memref.atomic_rmw {kind} %v{n}, %dst_{type_}[%t] : ({type_}, memref<64x{type_}>) -> {type_}
      memref.store %o{n}, %src_{type_}[%t] : memref<64x{type_}>""")
    types = ("f32", "f64", "i32", "i64")
    args = ", ".join(f"%src_{t}: memref<64x{t}>, %dst_{t}: memref<64x{t}>" for t in types)
    body = "\n".join(lines)
    return f"""module attributes {{gpu.container_module}} {{
  func.func @host(%a: memref<64xf32>) {{
    return
  }}
  gpu.module @m {{
    gpu.func @atomics({args}) workgroup(%tile: memref<64xf32, #gpu.address_space<workgroup>>) private(%p: memref<2xi32, #gpu.address_space<private>>) kernel {{
      %t = gpu.thread_id x
      %w = gpu.subgroup_id : index
      %n = gpu.num_subgroups : index
      %f = memref.load %src_f32[%t] : memref<64xf32>
      %r = gpu.subgroup_reduce add %f cluster(size = 4, stride = 8) : (f32) -> f32
      %s = memref.atomic_rmw addf %r, %tile[%w] : (f32, memref<64xf32, #gpu.address_space<workgroup>>) -> f32
      %c0 = arith.constant 0 : index
      %i = arith.index_cast %n : index to i32
      memref.store %i, %p[%c0] : memref<2xi32, #gpu.address_space<private>>
{body}
      gpu.return
    }}
  }}
}}"""


CASES = [(k, t) for k in ATOMIC_KINDS for t in (("f32", "f64") if k in FLOAT_KINDS else ("i32", "i64"))]
CASES += [("assign", "f32"), ("assign", "f64")]


def test_emitted_text():
    source = emit_cuda(atomic_module([("addf", "f32"), ("mulf", "f32"), ("maxu", "i32")]), prelude=False)
    assert "host function(s) @host not emitted" in source
    assert "__shared__ __align__(16) float tile[64];" in source
    assert "__align__(16) int p[2];" in source
    assert "int(linear_thread_id() / warpSize)" in source
    assert "for (int offset = 16; offset >= 8; offset /= 2)" in source  # lanes i, i+8, i+16, i+24
    assert "atomicAdd(&dst_f32[t], v0)" in source
    assert "atomicCAS((unsigned*)&dst_f32[t]" in source
    assert "atomicMax((unsigned*)&dst_i32[t], bit_cast<unsigned>(v2))" in source


def test_every_atomic_kind_compiles(cuda_compiler):
    result = compile_cuda(emit_cuda(atomic_module(CASES)), "sm_90")
    assert [k.name for k in result.kernels] == ["atomics"]


@pytest.mark.parametrize("type_", ["f16", "i8"])
def test_narrow_atomics_are_a_clear_error(type_):
    from layoutkit.errors import LayoutError

    text = f"""module {{
  gpu.module @m {{
    gpu.func @k(%x: memref<4x{type_}>, %v: {type_}) kernel {{
      %c0 = arith.constant 0 : index
      %o = memref.atomic_rmw assign %v, %x[%c0] : ({type_}, memref<4x{type_}>) -> {type_}
      gpu.return
    }}
  }}
}}"""
    with pytest.raises(LayoutError, match=r"line 5: kernel @k: memref.atomic_rmw: atomics on .*not supported"):
        emit_cuda(text)
