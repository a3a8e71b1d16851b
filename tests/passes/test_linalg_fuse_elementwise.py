"""linalg-fuse-elementwise: fused programs compiled (tile-and-distribute), run in the
simulator and compared with numpy evaluating the unfused program op by op."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.backends.simt.host import run_function
from layoutkit.cli.compile import compile_module
from layoutkit.cli.opt import print_ir
from layoutkit.ir import parse_module
from layoutkit.passes.linalg_fuse_elementwise import MAX_BODY_OPS, LinalgFuseElementwisePass

SEED_DISPATCH = """
func.func @dispatch(%x: tensor<10x15xf32>, %y: tensor<10x15xf32>, %v: tensor<15xf32>) -> tensor<10x15xf32> {
  %e0 = tensor.empty() : tensor<10x15xf32>
  %s = linalg.add ins(%x, %y : tensor<10x15xf32>, tensor<10x15xf32>) outs(%e0 : tensor<10x15xf32>) -> tensor<10x15xf32>
  %e1 = tensor.empty() : tensor<10x15xf32>
  %b = linalg.broadcast ins(%v : tensor<15xf32>) outs(%e1 : tensor<10x15xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<10x15xf32>
  %r = linalg.mul ins(%s, %b : tensor<10x15xf32>, tensor<10x15xf32>) outs(%e2 : tensor<10x15xf32>) -> tensor<10x15xf32>
  return %r : tensor<10x15xf32>
}
"""


def fused(text: str) -> str:
    module = parse_module(text)
    LinalgFuseElementwisePass().apply(None, module)
    module.verify()
    return print_ir(module)


def compiled(text: str, **options) -> str:
    return print_ir(compile_module(parse_module(text), **options))


def rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("tiles", [None, "4,8", "16,16"])
def test_seed_dispatch_is_one_kernel_equal_to_numpy(tiles):
    out = compiled(SEED_DISPATCH, tile_sizes=tiles)
    assert out.count("gpu.launch_func") == 1
    assert out.count("memref.alloc") == 1  # the result only: no temporaries
    rng = np.random.default_rng(0)
    x, y, v = rand(rng, 10, 15), rand(rng, 10, 15), rand(rng, 15)
    (r,) = run_function(out, "dispatch", [x, y, v])
    np.testing.assert_allclose(r, (x + y) * v[None, :], rtol=1e-6)


def test_seed_dispatch_example_in_current_mlir_is_one_kernel():
    from pathlib import Path

    text = (Path(__file__).parents[2] / "examples" / "linalg" / "add_broadcast_multiply.mlir").read_text()
    ir = fused(text)
    assert ir.count("linalg.generic") == 1 and "affine_map<(d0, d1) -> (d1)>" in ir and "linalg.broadcast" not in ir
    out = compiled(text)
    assert out.count("gpu.launch_func") == 1
    rng = np.random.default_rng(7)
    x, y, v = rand(rng, 10, 15), rand(rng, 10, 15), rand(rng, 15)
    (r,) = run_function(out, "add_broadcast_multiply", [x, y, v])
    np.testing.assert_allclose(r, (x + y) * v[None, :], rtol=1e-6)


def test_transpose_exp_into_reduction_consumer():
    """exp(transpose(a)) summed over rows, then b * that: the elementwise producers fuse into
    the reduction (its consumer); the reduction is not fused further (it stays an op)."""
    text = """
func.func @f(%a: tensor<7x5xf32>) -> tensor<5xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<5x7xf32>
  %t = linalg.transpose ins(%a : tensor<7x5xf32>) outs(%e0 : tensor<5x7xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<5x7xf32>
  %x = linalg.exp ins(%t : tensor<5x7xf32>) outs(%e1 : tensor<5x7xf32>) -> tensor<5x7xf32>
  %e2 = tensor.empty() : tensor<5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<5xf32>) -> tensor<5xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x7xf32>) outs(%f : tensor<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %n = arith.addf %in, %acc : f32
    linalg.yield %n : f32
  } -> tensor<5xf32>
  return %sum : tensor<5xf32>
}
"""
    ir = fused(text)
    assert "linalg.transpose" not in ir and "linalg.exp" not in ir
    assert "affine_map<(d0, d1) -> (d1, d0)>" in ir  # the transpose composed into the read
    out = compiled(text, tile_sizes="4")
    a = rand(np.random.default_rng(1), 7, 5)
    (s,) = run_function(out, "f", [a])
    np.testing.assert_allclose(s, np.exp(a.astype(np.float64)).sum(axis=0), rtol=1e-5)


def test_producer_used_twice_is_fused_into_both_and_erased():
    text = """
func.func @f(%a: tensor<6x6xf32>, %b: tensor<6x6xf32>) -> tensor<6x6xf32> {
  %e0 = tensor.empty() : tensor<6x6xf32>
  %s = linalg.sub ins(%a, %b : tensor<6x6xf32>, tensor<6x6xf32>) outs(%e0 : tensor<6x6xf32>) -> tensor<6x6xf32>
  %e1 = tensor.empty() : tensor<6x6xf32>
  %t = linalg.transpose ins(%s : tensor<6x6xf32>) outs(%e1 : tensor<6x6xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<6x6xf32>
  %m = linalg.mul ins(%s, %t : tensor<6x6xf32>, tensor<6x6xf32>) outs(%e2 : tensor<6x6xf32>) -> tensor<6x6xf32>
  %e3 = tensor.empty() : tensor<6x6xf32>
  %r = linalg.max ins(%m, %s : tensor<6x6xf32>, tensor<6x6xf32>) outs(%e3 : tensor<6x6xf32>) -> tensor<6x6xf32>
  return %r : tensor<6x6xf32>
}
"""
    ir = fused(text)
    assert ir.count("linalg.generic") == 1 and "tensor.empty" in ir and ir.count("tensor.empty") == 1
    out = compiled(text, tile_sizes="4,4")
    rng = np.random.default_rng(2)
    a, b = rand(rng, 6, 6), rand(rng, 6, 6)
    (r,) = run_function(out, "f", [a, b])
    s = a - b
    np.testing.assert_allclose(r, np.maximum(s * s.T, s), rtol=1e-6)


def test_matmul_bias_relu_epilogue_writes_in_place():
    text = """
func.func @mm(%a: tensor<30x20xf32>, %b: tensor<20x12xf32>, %bias: tensor<12xf32>) -> tensor<30x12xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<30x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<30x12xf32>) -> tensor<30x12xf32>
  %c = linalg.matmul ins(%a, %b : tensor<30x20xf32>, tensor<20x12xf32>) outs(%f : tensor<30x12xf32>) -> tensor<30x12xf32>
  %e1 = tensor.empty() : tensor<30x12xf32>
  %bb = linalg.broadcast ins(%bias : tensor<12xf32>) outs(%e1 : tensor<30x12xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<30x12xf32>
  %s = linalg.add ins(%c, %bb : tensor<30x12xf32>, tensor<30x12xf32>) outs(%e2 : tensor<30x12xf32>) -> tensor<30x12xf32>
  %e3 = tensor.empty() : tensor<30x12xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<30x12xf32>) outs(%e3 : tensor<30x12xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<30x12xf32>
  return %r : tensor<30x12xf32>
}
"""
    out = compiled(text)
    allocs = [line for line in out.splitlines() if "memref.alloc" in line and "workgroup" not in line]
    assert len(allocs) == 1  # the result: the epilogue needs no buffer of its own
    rng = np.random.default_rng(3)
    a, b, bias = rand(rng, 30, 20), rand(rng, 20, 12), rand(rng, 12)
    (r,) = run_function(out, "mm", [a, b, bias])
    np.testing.assert_allclose(r, np.maximum(a.astype(np.float64) @ b + bias, 0), rtol=1e-5, atol=1e-5)


def test_producer_reading_its_outs_is_not_fused():
    """A generic whose body reads its ``outs`` depends on the initial values: it stays."""
    text = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %two = arith.constant 2.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%two : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %r = linalg.exp ins(%p : tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
    ir = fused(text)
    assert "arith.mulf %{{" not in ir
    # the mulf generic stays, and exp writes in place over its result (it is used once)
    assert ir.count("linalg.generic") == 2 and "linalg.fill" in ir
    out = compiled(text, tile_sizes="4")
    a = rand(np.random.default_rng(4), 4)
    (r,) = run_function(out, "f", [a])
    np.testing.assert_allclose(r, np.exp(2 * a.astype(np.float64)), rtol=1e-6)


def test_fused_bodies_stay_bounded():
    """x_{i+1} = x_i + transpose(x_i), 14 times: fully fused, the body would double each
    level (2^14 additions); fusion stops at MAX_BODY_OPS per op."""
    lines = ["func.func @f(%x0: tensor<4x4xf32>) -> tensor<4x4xf32> {"]
    for i in range(14):
        lines += [f"  %et{i} = tensor.empty() : tensor<4x4xf32>",
                  f"  %t{i} = linalg.transpose ins(%x{i} : tensor<4x4xf32>) outs(%et{i} : tensor<4x4xf32>) "
                  "permutation = [1, 0]",
                  f"  %ea{i} = tensor.empty() : tensor<4x4xf32>",
                  f"  %x{i + 1} = linalg.add ins(%x{i}, %t{i} : tensor<4x4xf32>, tensor<4x4xf32>) "
                  f"outs(%ea{i} : tensor<4x4xf32>) -> tensor<4x4xf32>"]
    lines += ["  return %x14 : tensor<4x4xf32>", "}"]
    module = parse_module("\n".join(lines))
    LinalgFuseElementwisePass().apply(None, module)
    module.verify()
    bodies = [len(list(op.regions[0].block.ops)) for op in module.walk() if op.name == "linalg.generic"]
    assert bodies and max(bodies) <= 2 * MAX_BODY_OPS


_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum}
_UNARY = """  %{name} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}}
      ins(%{src} : tensor<{t}xf32>) outs(%e{i} : tensor<{t}xf32>) {{
  ^bb0(%in{i}: f32, %o{i}: f32):
    %n{i} = {op} %in{i} : f32
    linalg.yield %n{i} : f32
  }} -> tensor<{t}xf32>"""


def _t(shape) -> str:
    return "x".join(map(str, shape))


@st.composite
def programs(draw):
    """A random DAG of elementwise ops (named, generic, transpose, broadcast) over %a 4x6,
    %b 6x4 and %v 6; its text and the numpy steps evaluating it op by op."""
    values = {"a": (4, 6), "b": (6, 4), "v": (6,)}
    lines, steps = [], []
    count = draw(st.integers(2, 7))
    for i in range(count):
        kind = draw(st.sampled_from(["abs", "negf", "binary", "binary", "transpose", "broadcast"]))
        name = f"r{i}"
        mats = [n for n, s in values.items() if len(s) == 2]
        src = draw(st.sampled_from(mats))
        shape = values[src]
        if kind == "broadcast":
            shape = (4, 6)
            lines.append(f"  %{name} = linalg.broadcast ins(%v : tensor<6xf32>) outs(%e{i} : tensor<4x6xf32>) "
                         "dimensions = [0]")
            steps.append((name, lambda env: np.broadcast_to(env["v"], (4, 6))))
        elif kind == "transpose":
            shape = shape[::-1]
            lines.append(f"  %{name} = linalg.transpose ins(%{src} : tensor<{_t(values[src])}xf32>) "
                         f"outs(%e{i} : tensor<{_t(shape)}xf32>) permutation = [1, 0]")
            steps.append((name, lambda env, src=src: env[src].T))
        elif kind == "abs":
            lines.append(_UNARY.format(name=name, src=src, t=_t(shape), i=i, op="math.absf"))
            steps.append((name, lambda env, src=src: np.abs(env[src])))
        elif kind == "negf":
            lines.append(_UNARY.format(name=name, src=src, t=_t(shape), i=i, op="arith.negf"))
            steps.append((name, lambda env, src=src: -env[src]))
        else:
            other = draw(st.sampled_from([n for n in mats if values[n] == shape]))
            op = draw(st.sampled_from(sorted(_BINARY)))
            lines.append(f"  %{name} = linalg.{op} ins(%{src}, %{other} : tensor<{_t(shape)}xf32>, "
                         f"tensor<{_t(shape)}xf32>) outs(%e{i} : tensor<{_t(shape)}xf32>) -> tensor<{_t(shape)}xf32>")
            steps.append((name, lambda env, s=src, o=other, f=_BINARY[op]: f(env[s], env[o])))
        lines.insert(len(lines) - 1, f"  %e{i} = tensor.empty() : tensor<{_t(shape)}xf32>")
        values[name] = shape
    last = f"r{count - 1}"
    text = (f"func.func @f(%a: tensor<4x6xf32>, %b: tensor<6x4xf32>, %v: tensor<6xf32>) -> "
            f"tensor<{_t(values[last])}xf32> {{\n" + "\n".join(lines)
            + f"\n  return %{last} : tensor<{_t(values[last])}xf32>\n}}\n")

    def reference(a, b, v):
        env = {"a": a.astype(np.float64), "b": b.astype(np.float64), "v": v.astype(np.float64)}
        for name, step in steps:
            env[name] = step(env)
        return env[last]

    return text, reference


@settings(max_examples=30, deadline=None)
@given(programs(), st.sampled_from([None, "2,4", "3,5"]))
def test_random_elementwise_programs_fuse_into_one_kernel(program, tiles):
    text, reference = program
    out = compiled(text, tile_sizes=tiles)
    assert out.count("gpu.launch_func") == 1, text
    rng = np.random.default_rng(5)
    a, b, v = (rng.uniform(-1, 1, shape).astype(np.float32) for shape in ((4, 6), (6, 4), (6,)))
    (r,) = run_function(out, "f", [a, b, v])
    np.testing.assert_allclose(r, reference(a, b, v), rtol=1e-5, atol=1e-6)


def test_maps_compose_through_permuted_outputs_and_transposes():
    """A generic writing its output through (d0, d1) -> (d1, d0) (a transposing copy with a
    scale), read by a transpose, read by a broadcast-add: every read is a composition."""
    text = """
func.func @f(%a: tensor<4x6xf32>, %v: tensor<4xf32>) -> tensor<6x4xf32> {
  %three = arith.constant 3.000000e+00 : f32
  %e0 = tensor.empty() : tensor<6x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>],
                       iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x6xf32>) outs(%e0 : tensor<6x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %three : f32
    linalg.yield %m : f32
  } -> tensor<6x4xf32>
  %e1 = tensor.empty() : tensor<4x6xf32>
  %t = linalg.transpose ins(%p : tensor<6x4xf32>) outs(%e1 : tensor<4x6xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<6x4xf32>
  %tt = linalg.transpose ins(%t : tensor<4x6xf32>) outs(%e2 : tensor<6x4xf32>) permutation = [1, 0]
  %e3 = tensor.empty() : tensor<6x4xf32>
  %b = linalg.broadcast ins(%v : tensor<4xf32>) outs(%e3 : tensor<6x4xf32>) dimensions = [0]
  %e4 = tensor.empty() : tensor<6x4xf32>
  %r = linalg.sub ins(%tt, %b : tensor<6x4xf32>, tensor<6x4xf32>) outs(%e4 : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
"""
    ir = fused(text)
    assert ir.count("linalg.generic") == 1 and "linalg.transpose" not in ir
    out = compiled(text, tile_sizes="4,2")
    rng = np.random.default_rng(6)
    a, v = rand(rng, 4, 6), rand(rng, 4)
    (r,) = run_function(out, "f", [a, v])
    np.testing.assert_allclose(r, 3 * a.T - v[None, :], rtol=1e-6)
