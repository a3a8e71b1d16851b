"""MLIR's syntax of gpu.launch_func, gpu.func attributions, subgroup ids, cluster strides and
memref.atomic_rmw: parse, print back, verify; unsupported MLIR ops named as such."""

from __future__ import annotations

import pytest

from layoutkit.errors import LayoutError
from layoutkit.ir import parse_module

MODULE = """builtin.module attributes {gpu.container_module} {
  func.func @main(%a: memref<64xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%n, %c1, %c1) args(%a : memref<64xf32>, %n : index)
    func.return
  }
  gpu.module @m {
    gpu.func @k(%x: memref<64xf32>, %s: index) workgroup(%tile: memref<64xf32, #gpu.address_space<workgroup>>) private(%p: memref<2xf32, #gpu.address_space<private>>) kernel {
      %w = gpu.subgroup_id : index
      %c = gpu.num_subgroups : index
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32>
      %r = gpu.subgroup_reduce maxnumf %v cluster(size = 4, stride = 2) : (f32) -> f32
      %o = memref.atomic_rmw maxnumf %r, %tile[%t] : (f32, memref<64xf32, #gpu.address_space<workgroup>>) -> f32
      %q = memref.atomic_rmw assign %o, %p[%w] : (f32, memref<2xf32, #gpu.address_space<private>>) -> f32
      gpu.return
    }
  }
}"""


def test_round_trip_and_generic_fields():
    module = parse_module(MODULE)
    assert str(module) == MODULE
    func = next(op for op in module.walk() if op.name == "gpu.func")
    assert [a.name_hint for a in func.arguments] == ["x", "s"]
    assert [a.name_hint for a in func.workgroup_arguments] == ["tile"]
    assert [a.name_hint for a in func.private_arguments] == ["p"]
    atomic = next(op for op in module.walk() if op.name == "memref.atomic_rmw")
    assert atomic.kind.value.data == 13  # MLIR's AtomicRMWKind::maxnumf
    launch = next(op for op in module.walk() if op.name == "gpu.launch_func")
    assert launch.kernel_func() is func


@pytest.mark.parametrize("old, new, message", [
    ("@m::@k blocks", "@m::@nope blocks", "no gpu.func @m::@nope in a gpu.module"),
    ("args(%a : memref<64xf32>, %n : index)", "args(%a : memref<64xf32>)", "@m::@k takes (memref<64xf32>, index)"),
    ("#gpu.address_space<workgroup>", "#gpu.address_space<global>",  # every occurrence
     "workgroup attribution %tile must be a memref in #gpu.address_space<workgroup>"),
    ("stride = 2", "stride = 3", "cluster stride must be a power of two, got 3"),
    ("atomic_rmw maxnumf %r", "atomic_rmw maxs %r", "maxs needs an integer type"),
    ("atomic_rmw maxnumf %r", "atomic_rmw fancy %r", "kind must be one of addf, addi"),
    ("gpu.launch_func @m::@k", "gpu.launch_func async @m::@k", "'async' is not supported by layoutkit"),
])
def test_verifier_and_parser_errors(old, new, message):
    assert old in MODULE
    with pytest.raises(LayoutError) as err:
        parse_module(MODULE.replace(old, new))
    assert message in str(err.value)


@pytest.mark.parametrize("line_text, op", [
    ("gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) "
     "in (%p = %c1, %q = %c1, %r = %c1) {\n    gpu.terminator\n  }", "gpu.launch"),
    ("%m = memref.alloc() : memref<4xf32>\n  %s = memref.memory_space_cast %m : memref<4xf32> to "
     "memref<4xf32, 1>", "memref.memory_space_cast"),
])
def test_mlir_ops_layoutkit_does_not_read_are_named(line_text, op):
    text = f"func.func @f() {{\n  %c1 = arith.constant 1 : index\n  {line_text}\n  return\n}}"
    line = text.splitlines().index(next(t for t in text.splitlines() if op + " " in t)) + 1
    with pytest.raises(LayoutError) as err:
        parse_module(text)
    assert str(err.value) == f"'{op}' is not supported by layoutkit (line {line})"


def test_unknown_ops_keep_the_parser_message():
    with pytest.raises(LayoutError, match="Operation gpu.fancy is not registered"):
        parse_module("func.func @f() {\n  gpu.fancy\n  return\n}")
