"""The emitted CUDA computes the right numbers: each example kernel's CUDA C++, exactly as
emit_cuda prints it, runs on the CPU (host_harness.py: a thread per GPU thread, real barriers
and warp shuffles) and is compared with numpy and with the lockstep simulator."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from layoutkit.backends.cuda import compile_cuda, emit_cuda
from layoutkit.backends.cuda.prelude import PRELUDE
from layoutkit.ir import parse_module

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kernels"


def emitted(name: str) -> str:
    return emit_cuda(parse_module((EXAMPLES / f"{name}.mlir").read_text()))


def _kernel(name: str, arguments: str, body: str) -> str:
    """A gpu.module holding one kernel: ``body`` (indented lines) then gpu.return."""
    return (f"module {{\n  gpu.module @m {{\n    gpu.func @{name}({arguments}) kernel {{\n{body}\n"
            "      gpu.return\n    }\n  }\n}")


def test_vector_add(host):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    c = np.full(1000, np.nan, np.float32)
    host.run_on_host(emitted("vector_add"), PRELUDE, "vector_add", (4,), (256,), [a, b, c])
    np.testing.assert_array_equal(c, a + b)


@pytest.mark.parametrize("name", ["transpose_swizzled", "transpose_padded"])
def test_transposes(host, name):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 96)).astype(np.float32)
    out = np.zeros((96, 64), np.float32)
    host.run_on_host(emitted(name), PRELUDE, name, (3, 2), (32, 8), [x, out])
    np.testing.assert_array_equal(out, x.T)


def test_block_sum(host):
    rng = np.random.default_rng(3)
    x = rng.integers(-1000, 1000, 1000).astype(np.float32)  # integers: every order sums exactly
    out = np.zeros(4, np.float32)
    host.run_on_host(emitted("block_sum"), PRELUDE, "block_sum", (4,), (256,), [x, out])
    np.testing.assert_array_equal(out, np.pad(x, (0, 24)).reshape(4, 256).sum(axis=1))


def test_softmax(host):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 100)).astype(np.float32)
    out = np.zeros_like(x)
    host.run_on_host(emitted("softmax"), PRELUDE, "softmax", (2,), (32, 4), [x, out])
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-7)


def test_simulator_and_emitted_cuda_agree_on_the_examples(host):
    from layoutkit import simulate

    rng = np.random.default_rng(5)
    x = rng.standard_normal((64, 64)).astype(np.float32)
    for name in ("transpose_swizzled", "transpose_padded"):
        out_sim, out_host = np.zeros_like(x), np.zeros_like(x)
        simulate((EXAMPLES / f"{name}.mlir").read_text(), name, (2, 2), (32, 8), [x, out_sim])
        host.run_on_host(emitted(name), PRELUDE, name, (2, 2), (32, 8), [x, out_host])
        np.testing.assert_array_equal(out_host, out_sim)


def test_matmul_with_mma(host):
    # small integers: every product and partial sum is exact in f16 inputs / f32 accumulators
    rng = np.random.default_rng(6)
    a = rng.integers(-3, 4, (128, 128)).astype(np.float16)
    b = rng.integers(-3, 4, (128, 256)).astype(np.float16)
    c = np.full((128, 256), np.nan, np.float32)
    host.run_on_host(emitted("matmul_mma"), PRELUDE, "matmul", (2, 1), (128,), [a, b, c])
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


def test_f16_and_bf16_arithmetic_rounds_like_numpy(host):
    import ml_dtypes

    text = _kernel("k", "%x: memref<4096xf16>, %y: memref<4096xf16>, %h: memref<4096xf16>, %b: memref<4096xbf16>", """\
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %c256 = arith.constant 256 : index
      %base = arith.muli %bid, %c256 : index
      %i = arith.addi %base, %tid : index
      %u = memref.load %x[%i] : memref<4096xf16>
      %v = memref.load %y[%i] : memref<4096xf16>
      %p = arith.mulf %u, %v : f16
      %s = arith.addf %p, %v : f16
      memref.store %s, %h[%i] : memref<4096xf16>
      %uf = arith.extf %u : f16 to f32
      %vf = arith.extf %v : f16 to f32
      %q = arith.divf %uf, %vf : f32
      %qb = arith.truncf %q : f32 to bf16
      memref.store %qb, %b[%i] : memref<4096xbf16>""")
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(4096) * 30).astype(np.float16)
    y = (rng.standard_normal(4096) * 30).astype(np.float16)
    h, bf = np.zeros(4096, np.float16), np.zeros(4096, ml_dtypes.bfloat16)
    host.run_on_host(emit_cuda(parse_module(text)), PRELUDE, "k", (16,), (256,), [x, y, h, bf])
    np.testing.assert_array_equal(h, x * y + y)  # numpy rounds f16 after each op
    expected = (x.astype(np.float32) / y.astype(np.float32)).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(bf.view(np.uint16), expected.view(np.uint16))


INT_OPS = ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "floordivsi",
           "ceildivsi", "maxsi", "minsi", "maxui", "minui", "andi", "ori", "xori"]
PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
FLOAT_PREDICATES = ["oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
                    "ult", "ule", "une", "uno"]


def _arith_module() -> str:
    lines = ["      %t = gpu.thread_id x",
             "      %a = memref.load %xs[%t] : memref<64xi32>",
             "      %b = memref.load %ys[%t] : memref<64xi32>",
             "      %f = memref.load %fs[%t] : memref<64xf32>",
             "      %g = memref.load %gs[%t] : memref<64xf32>",
             "      %c31 = arith.constant 31 : i32",
             "      %sh = arith.andi %b, %c31 : i32"]
    column = 0
    for op in INT_OPS:
        lines.append(f"      %r{column} = arith.{op} %a, %b : i32")
        column += 1
    for op in ("shli", "shrsi", "shrui"):
        lines.append(f"      %r{column} = arith.{op} %a, %sh : i32")
        column += 1
    for predicate in PREDICATES:
        lines.append(f"      %p{column} = arith.cmpi {predicate}, %a, %b : i32")
        lines.append(f"      %r{column} = arith.extui %p{column} : i1 to i32")
        column += 1
    for predicate in FLOAT_PREDICATES:
        lines.append(f"      %p{column} = arith.cmpf {predicate}, %f, %g : f32")
        lines.append(f"      %r{column} = arith.select %p{column}, %a, %b : i32")
        column += 1
    lines += ["      %w = arith.extsi %a : i32 to i64", "      %w2 = arith.muli %w, %w : i64",
              f"      %r{column} = arith.trunci %w2 : i64 to i32",
              "      %n16 = arith.trunci %a : i32 to i16",
              f"      %r{column + 1} = arith.extui %n16 : i16 to i32",
              f"      %r{column + 2} = arith.extsi %n16 : i16 to i32"]
    column += 3
    float_lines = ["      %fo0 = arith.maximumf %f, %g : f32", "      %fo1 = arith.minimumf %f, %g : f32",
                   "      %fo2 = arith.maxnumf %f, %g : f32", "      %fo3 = arith.minnumf %f, %g : f32",
                   "      %fo4 = arith.sitofp %a : i32 to f32", "      %fo5 = arith.uitofp %a : i32 to f32",
                   "      %fo6 = arith.negf %f : f32", "      %ab = math.absf %f : f32",
                   "      %fo7 = math.sqrt %ab : f32", "      %fb = arith.bitcast %f : f32 to i32",
                   f"      %r{column} = arith.xori %fb, %a : i32",
                   "      %c100 = arith.constant 100.0 : f32", "      %fm = arith.minnumf %ab, %c100 : f32",
                   f"      %r{column + 1} = arith.fptosi %fm : f32 to i32"]
    column += 2
    lines += float_lines
    stores = [f"      %k{j} = arith.constant {j} : index\n"
              f"      memref.store %r{j}, %out[%t, %k{j}] : memref<64x{column}xi32>" for j in range(column)]
    stores += [f"      memref.store %fo{j}, %fout[%t, %k{j}] : memref<64x8xf32>" for j in range(8)]
    body = "\n".join(lines + stores)
    return (f"module {{\n  gpu.module @m {{\n    gpu.func @arith(%xs: memref<64xi32>, %ys: memref<64xi32>, "
            f"%fs: memref<64xf32>, %gs: memref<64xf32>, %out: memref<64x{column}xi32>, "
            f"%fout: memref<64x8xf32>) kernel {{\n{body}\n      gpu.return\n    }}\n  }}\n}}"), column


def test_arithmetic_agrees_with_the_simulator(host):
    from layoutkit import simulate

    text, columns = _arith_module()
    rng = np.random.default_rng(8)
    xs = rng.integers(-2**31, 2**31 - 1, 64, dtype=np.int64).astype(np.int32)
    xs[:8] = [0, 1, -1, 7, -7, 2**31 - 1, -2**31, 100]
    ys = rng.integers(-1000, 1000, 64).astype(np.int32)
    ys[ys == 0] = 3
    ys[:8] = [3, -3, 2, 2, -2, 5, 7, -9]
    fs = rng.standard_normal(64).astype(np.float32)
    gs = rng.standard_normal(64).astype(np.float32)
    fs[:6] = [np.nan, 1.0, np.nan, -0.0, np.inf, 2.0]
    gs[:6] = [1.0, np.nan, np.nan, 0.0, np.inf, 2.0]
    gs[10:14] = fs[10:14]
    results = {}
    for where in ("simulator", "host"):
        out, fout = np.zeros((64, columns), np.int32), np.zeros((64, 8), np.float32)
        if where == "simulator":
            simulate(text, "arith", 1, 64, [xs, ys, fs, gs, out, fout])
        else:
            host.run_on_host(emit_cuda(parse_module(text)), PRELUDE, "arith", (1,), (64,),
                             [xs, ys, fs, gs, out, fout])
        results[where] = (out, fout)
    sim, emitted_ = results["simulator"], results["host"]
    # integer ops against exact formulas on Python ints, written here
    expected = np.array([_int_reference(int(a), int(b), float(f)) for a, b, f in zip(xs, ys, fs)],
                        dtype=np.int64)
    integer_columns = list(range(len(INT_OPS) + 3)) + list(range(columns - 5, columns))
    for column in integer_columns:
        np.testing.assert_array_equal(emitted_[0][:, column], expected[:, column], err_msg=f"column {column}")
    # comparisons, selects and float ops (NaN, -0, inf included) against the simulator
    for column in range(len(INT_OPS) + 3, columns - 5):
        np.testing.assert_array_equal(emitted_[0][:, column], sim[0][:, column], err_msg=f"column {column}")
    np.testing.assert_array_equal(emitted_[1].view(np.int32), sim[1].view(np.int32))


def _wrap(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def _int_reference(a: int, b: int, f: float) -> list[int]:
    """The i32 results of INT_OPS, the shifts and the casts, by definition (None: not checked)."""
    ua, ub, shift = a % 2**32, b % 2**32, b & 31
    truncated = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    by_op = {"addi": a + b, "subi": a - b, "muli": a * b, "divsi": truncated, "divui": ua // ub,
             "remsi": a - b * truncated, "remui": ua % ub, "floordivsi": a // b,
             "ceildivsi": -((-a) // b), "maxsi": max(a, b), "minsi": min(a, b),
             "maxui": max(ua, ub), "minui": min(ua, ub), "andi": a & b, "ori": a | b, "xori": a ^ b}
    row = [_wrap(by_op[op]) for op in INT_OPS]
    row += [_wrap(a << shift), a >> shift, _wrap(ua >> shift)]
    row += [0] * (len(PREDICATES) + len(FLOAT_PREDICATES))  # compared with the simulator instead
    low = a & 0xFFFF
    row += [_wrap(a * a), low, (low ^ 0x8000) - 0x8000]
    bits = int(np.array(f, np.float32).view(np.int32))
    magnitude = min(abs(f), 100.0) if f == f else 100.0  # minnumf ignores a NaN
    row += [_wrap(bits ^ a), int(magnitude)]
    return row


def test_while_loop_with_thread_dependent_trip_counts(host):
    from layoutkit import simulate

    # Collatz steps of n = global thread id + 1, and the pair (a, b) -> (b, a + b) swapped
    # through the loop: Fibonacci numbers mod 2**32, all counted by a scf.while
    text = """module {
  gpu.module @m {
    gpu.func @collatz(%steps: memref<128xi32>, %fib: memref<128xi32>) kernel {
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c3 = arith.constant 3 : i32
      %n0 = arith.addi %ti, %c1 : i32
      %r:4 = scf.while (%n = %n0, %k = %c0, %a = %c0, %b = %c1) : (i32, i32, i32, i32) -> (i32, i32, i32, i32) {
        %more = arith.cmpi ne, %n, %c1 : i32
        scf.condition(%more) %n, %k, %a, %b : i32, i32, i32, i32
      } do {
      ^bb0(%n2: i32, %k2: i32, %a2: i32, %b2: i32):
        %half = arith.divui %n2, %c2 : i32
        %odd = arith.remui %n2, %c2 : i32
        %is_odd = arith.cmpi eq, %odd, %c1 : i32
        %triple = arith.muli %n2, %c3 : i32
        %up = arith.addi %triple, %c1 : i32
        %next = arith.select %is_odd, %up, %half : i32
        %k3 = arith.addi %k2, %c1 : i32
        %s = arith.addi %a2, %b2 : i32
        scf.yield %next, %k3, %b2, %s : i32, i32, i32, i32
      }
      memref.store %r#1, %steps[%t] : memref<128xi32>
      memref.store %r#2, %fib[%t] : memref<128xi32>
      gpu.return
    }
  }
}"""
    source = emit_cuda(parse_module(text))
    assert "while (true) {" in source and "break;" in source
    steps, fib = np.zeros(128, np.int32), np.zeros(128, np.int32)
    host.run_on_host(source, PRELUDE, "collatz", (1,), (128,), [steps, fib])
    expected_steps, expected_fib = [], []
    for n in range(1, 129):
        k, a, b = 0, 0, 1
        while n != 1:
            n = 3 * n + 1 if n % 2 else n // 2
            k, a, b = k + 1, b, (a + b) % 2**32
        expected_steps.append(k)
        expected_fib.append((a + 2**31) % 2**32 - 2**31)
    np.testing.assert_array_equal(steps, expected_steps)
    np.testing.assert_array_equal(fib, expected_fib)
    steps_sim, fib_sim = np.zeros(128, np.int32), np.zeros(128, np.int32)
    simulate(text, "collatz", 1, 128, [steps_sim, fib_sim])
    np.testing.assert_array_equal(steps, steps_sim)
    np.testing.assert_array_equal(fib, fib_sim)


def test_vector_accesses_of_every_width(host):
    # 3 x f32 (no wide type: element by element), a strided view (element by element with its
    # stride), and 16-byte accesses, all against numpy
    text = _kernel("k", "%x: memref<64x12xf32>, %y: memref<64x12xf32>, %z: memref<64x16xf16>, %w: memref<64x16xf16>", """\
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %c8 = arith.constant 8 : index
      %v3 = vector.load %x[%t, %c3] : memref<64x12xf32>, vector<3xf32>
      %two = arith.constant dense<2.0> : vector<3xf32>
      %d3 = arith.mulf %v3, %two : vector<3xf32>
      vector.store %d3, %y[%t, %c0] : memref<64x12xf32>, vector<3xf32>
      %col = memref.subview %x[0, 5] [64, 1] [1, 1] : memref<64x12xf32> to memref<64x1xf32, strided<[12, 1], offset: 5>>
      %row = memref.subview %x[0, 0] [1, 12] [1, 1] : memref<64x12xf32> to memref<1x12xf32, strided<[12, 1]>>
      %h = vector.load %z[%t, %c8] : memref<64x16xf16>, vector<8xf16>
      %h2 = arith.addf %h, %h : vector<8xf16>
      vector.store %h2, %w[%t, %c0] : memref<64x16xf16>, vector<8xf16>
      %e = memref.load %col[%t, %c0] : memref<64x1xf32, strided<[12, 1], offset: 5>>
      %f = memref.load %row[%c0, %c3] : memref<1x12xf32, strided<[12, 1]>>
      %g = arith.addf %e, %f : f32
      memref.store %g, %y[%t, %c8] : memref<64x12xf32>""")
    source = emit_cuda(parse_module(text))
    assert "load_vector<uint4, f16_t, 8>" in source and "load_vector<float" not in source
    rng = np.random.default_rng(9)
    x = rng.standard_normal((64, 12)).astype(np.float32)
    z = rng.standard_normal((64, 16)).astype(np.float16)
    y, w = np.zeros((64, 12), np.float32), np.zeros((64, 16), np.float16)
    host.run_on_host(source, PRELUDE, "k", (1,), (64,), [x, y, z, w])
    np.testing.assert_array_equal(y[:, 0:3], x[:, 3:6] * 2)
    np.testing.assert_array_equal(y[:, 8], x[:, 5] + x[0, 3])
    np.testing.assert_array_equal(w[:, 0:8], z[:, 8:16] + z[:, 8:16])


def test_two_dimensional_vector_accesses(host):
    # vector<2x3xf32> from rows t, t+1 of a 12-wide memref: not contiguous, element by element;
    # vector<2x4xf32> into a 2x4 private buffer: contiguous, two float4-sized halves of 32 bytes
    text = _kernel("k", "%x: memref<33x12xf32>, %y: memref<32x6xf32>", """\
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %v = vector.load %x[%t, %c3] : memref<33x12xf32>, vector<2x3xf32>
      %top = vector.extract %v[0] : vector<3xf32> from vector<2x3xf32>
      %bottom = vector.extract %v[1] : vector<3xf32> from vector<2x3xf32>
      %d = arith.subf %bottom, %top : vector<3xf32>
      vector.store %d, %y[%t, %c0] : memref<32x6xf32>, vector<3xf32>
      %buffer = memref.alloca() : memref<2x4xf32>
      %z = arith.constant dense<1.5> : vector<2x4xf32>
      vector.store %z, %buffer[%c0, %c0] : memref<2x4xf32>, vector<2x4xf32>
      %e = memref.load %buffer[%c1, %c3] : memref<2x4xf32>
      %s = vector.extract %top[2] : f32 from vector<3xf32>
      %f = arith.addf %e, %s : f32
      memref.store %f, %y[%t, %c3] : memref<32x6xf32>""")
    source = emit_cuda(parse_module(text))
    rng = np.random.default_rng(10)
    x = rng.standard_normal((33, 12)).astype(np.float32)
    y = np.zeros((32, 6), np.float32)
    host.run_on_host(source, PRELUDE, "k", (1,), (32,), [x, y])
    np.testing.assert_array_equal(y[:, 0:3], x[1:, 3:6] - x[:-1, 3:6])
    np.testing.assert_array_equal(y[:, 3], x[:-1, 5] + np.float32(1.5))


UNSIGNED_OPS = ["divui", "remui", "maxui", "minui", "ceildivui", "shrui"]


def _unsigned_module(element: str) -> str:
    lines = ["      %t = gpu.thread_id x",
             f"      %a = memref.load %xs[%t] : memref<32x{element}>",
             f"      %b = memref.load %ys[%t] : memref<32x{element}>",
             f"      %big = arith.constant -3 : {element}"]
    for column, op in enumerate(UNSIGNED_OPS):
        lines.append(f"      %r{column} = arith.{op} %a, %b : {element}")
        lines.append(f"      %k{column} = arith.constant {column} : index")
        lines.append(f"      memref.store %r{column}, %out[%t, %k{column}] : memref<32x8x{element}>")
    lines.append(f"      %m = arith.maxui %a, %big : {element}")  # a literal operand, as unsigned
    lines.append("      %k6 = arith.constant 6 : index")
    lines.append(f"      memref.store %m, %out[%t, %k6] : memref<32x8x{element}>")
    return _kernel("unsigned_ops", f"%xs: memref<32x{element}>, %ys: memref<32x{element}>, "
                   f"%out: memref<32x8x{element}>", "\n".join(lines))


@pytest.mark.parametrize(("element", "dtype"), [("i8", np.int8), ("i16", np.int16), ("i64", np.int64)])
def test_unsigned_ops_on_every_integer_width(host, element, dtype, cuda_compiler):
    """Multi-word C types (signed char, long long) are cast C style -- ``long long(x)`` does not
    parse -- and the results are the unsigned ones, by Python integers."""
    source = emit_cuda(parse_module(_unsigned_module(element)))
    assert not re.search(r"(?<![(\w])(signed char|long long|unsigned \w+)\(", source.split("end of prelude")[1])
    compile_cuda(source, "sm_80")
    bits = np.dtype(dtype).itemsize * 8
    rng = np.random.default_rng(11)
    info = np.iinfo(dtype)
    xs = rng.integers(info.min, info.max, 32, dtype=np.int64, endpoint=True).astype(dtype)
    ys = rng.integers(info.min, info.max, 32, dtype=np.int64, endpoint=True).astype(dtype)
    xs[:4], ys[:4] = [info.min, -1, 5, 7], [3, info.min, -1, 2]
    ys[4:] = np.where(ys[4:] == 0, 1, ys[4:])
    ys[4:12] = np.arange(8) % (bits - 1) + 1  # shift amounts below the width for some lanes
    out = np.zeros((32, 8), dtype)
    host.run_on_host(source, PRELUDE, "unsigned_ops", (1,), (32,), [xs, ys, out])
    modulus = 2**bits
    for lane in range(32):
        ua, ub = int(xs[lane]) % modulus, int(ys[lane]) % modulus
        expected = [ua // ub, ua % ub, max(ua, ub), min(ua, ub), -(-ua // ub),
                    ua >> ub if ub < bits else None, max(ua, (-3) % modulus)]
        for column, value in enumerate(expected):
            if value is not None:
                assert int(out[lane, column]) % modulus == value, (lane, column)


def test_extreme_integer_constants(host, cuda_compiler):
    """The most negative i64 and i32 have no C literal of their own (9223372036854775808ll
    does not fit); they are written as an expression and arrive exactly."""
    text = _kernel("extremes", "%wide: memref<2xi64>, %narrow: memref<2xi32>", """\
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %min64 = arith.constant -9223372036854775808 : i64
      %max64 = arith.constant 9223372036854775807 : i64
      %min32 = arith.constant -2147483648 : i32
      %max32 = arith.constant 2147483647 : i32
      memref.store %min64, %wide[%c0] : memref<2xi64>
      memref.store %max64, %wide[%c1] : memref<2xi64>
      memref.store %min32, %narrow[%c0] : memref<2xi32>
      memref.store %max32, %narrow[%c1] : memref<2xi32>""")
    source = emit_cuda(parse_module(text))
    assert "9223372036854775808" not in source and "2147483648" not in source
    compile_cuda(source, "sm_80")
    wide, narrow = np.zeros(2, np.int64), np.zeros(2, np.int32)
    host.run_on_host(source, PRELUDE, "extremes", (1,), (1,), [wide, narrow])
    assert wide.tolist() == [-2**63, 2**63 - 1] and narrow.tolist() == [-2**31, 2**31 - 1]


def _bf16_bits_rounded_once(value: float) -> int:
    """bf16 bits of an f64 (normal range), rounded to nearest even directly from its 52-bit
    significand: keep the top 7 bits, look at the 45 dropped ones."""
    bits = int(np.array(value, np.float64).view(np.uint64))
    kept, dropped = bits >> 45, bits & (2**45 - 1)
    if dropped > 2**44 or (dropped == 2**44 and kept & 1):
        kept += 1
    return int(np.array(kept << 45, np.uint64).view(np.float64).astype(np.float32).view(np.uint32)) >> 16


def test_f64_to_16_bit_floats_round_once(host, cuda_compiler):
    """arith.truncf f64 -> f16/bf16 rounds once. Through f32 it would round twice: 1 + 2^-11 +
    2^-40 is above the f16 tie 1 + 2^-11, so it rounds up, but f32 drops the 2^-40 first."""
    text = _kernel("narrow", "%x: memref<64xf64>, %h: memref<64xf16>, %b: memref<64xbf16>", """\
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf64>
      %vh = arith.truncf %v : f64 to f16
      %vb = arith.truncf %v : f64 to bf16
      memref.store %vh, %h[%t] : memref<64xf16>
      memref.store %vb, %b[%t] : memref<64xbf16>""")
    source = emit_cuda(parse_module(text))
    assert "double_to_f16(v)" in source and "double_to_bf16(v)" in source
    assert "float_to_f16((float)" not in source
    compile_cuda(source, "sm_80")
    rng = np.random.default_rng(12)
    x = rng.standard_normal(64) * 100
    ties = [1 + 2**-11, 1 + 2**-8, -(1 + 2**-11), 3 + 2**-9, 1 + 3 * 2**-11]
    for k, tie in enumerate(ties):  # just above and just below each (f16 or bf16) tie
        x[2 * k], x[2 * k + 1] = tie + 2**-40, tie - 2**-40
    h, b = np.zeros(64, np.uint16), np.zeros(64, np.uint16)
    host.run_on_host(source, PRELUDE, "narrow", (1,), (64,), [x, h, b])
    np.testing.assert_array_equal(h, x.astype(np.float16).view(np.uint16))  # numpy rounds f64 once
    np.testing.assert_array_equal(b, [_bf16_bits_rounded_once(float(v)) for v in x])


def test_vector_bitcast_keeps_the_bytes(host, cuda_compiler):
    """vector.bitcast goes through bit_cast (memcpy), not a reinterpret_cast of the address."""
    text = _kernel("bits", "%x: memref<64xf32>, %h: memref<64xf16>, %y: memref<64xi32>, %z: memref<32xi32>", """\
      %t = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %i = arith.muli %t, %c4 : index
      %v = vector.load %x[%i] : memref<64xf32>, vector<4xf32>
      %b = vector.bitcast %v : vector<4xf32> to vector<4xi32>
      vector.store %b, %y[%i] : memref<64xi32>, vector<4xi32>
      %hv = vector.load %h[%i] : memref<64xf16>, vector<4xf16>
      %hb = vector.bitcast %hv : vector<4xf16> to vector<2xi32>
      %j = arith.muli %t, %c2 : index
      vector.store %hb, %z[%j] : memref<32xi32>, vector<2xi32>""")
    source = emit_cuda(parse_module(text))
    assert "bit_cast<Vec<int, 4>>(v)" in source and "bit_cast<Vec<int, 2>>(hv)" in source
    assert "reinterpret_cast" not in source.split("end of prelude")[1]
    compile_cuda(source, "sm_80")
    rng = np.random.default_rng(13)
    x, h = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float16)
    y, z = np.zeros(64, np.int32), np.zeros(32, np.int32)
    host.run_on_host(source, PRELUDE, "bits", (1,), (16,), [x, h, y, z])
    np.testing.assert_array_equal(y, x.view(np.int32))
    bits = h.view(np.uint16).astype(np.int64)  # element 2k in the low half of word k
    np.testing.assert_array_equal(z, (bits[0::2] | bits[1::2] << 16).astype(np.uint32).view(np.int32))


WRAPPING_OPS = ["addi", "subi", "muli", "shli"]


def _wrapping_module(element: str) -> str:
    lines = ["      %t = gpu.thread_id x",
             f"      %a = memref.load %x[%t] : memref<32x{element}>",
             f"      %b = memref.load %y[%t] : memref<32x{element}>",
             f"      %seven = arith.constant 7 : {element}"]
    for column, op in enumerate(WRAPPING_OPS):
        operand = "%seven" if op == "shli" else "%b"
        lines += [f"      %r{column} = arith.{op} %a, {operand} : {element}",
                  f"      %k{column} = arith.constant {column} : index",
                  f"      memref.store %r{column}, %out[%t, %k{column}] : memref<32x4x{element}>"]
    return _kernel("wrapping", f"%x: memref<32x{element}>, %y: memref<32x{element}>, "
                   f"%out: memref<32x4x{element}>", "\n".join(lines))

_UNDER_SANITIZER = """
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import host_harness
source = open(sys.argv[2]).read()
prelude = open(sys.argv[3]).read()
x, y, out = (np.load(f"{sys.argv[4]}/{n}.npy") for n in ("x", "y", "out"))
host_harness.run_on_host(source, prelude, "wrapping", (1,), (32,), [x, y, out],
                         flags=("-fsanitize=undefined", "-fno-sanitize-recover=all"))
np.save(f"{sys.argv[4]}/out.npy", out)
"""


@pytest.mark.parametrize(("element", "dtype"), [("i8", np.int8), ("i32", np.int32), ("i64", np.int64)])
def test_integer_arithmetic_wraps_without_undefined_behaviour(host, tmp_path, element, dtype):
    """arith.addi/subi/muli/shli wrap around; the emitted C++ must too, without signed overflow
    or left shifts of negative numbers (undefined in C++17). Run under g++'s UB sanitizer, in a
    child process (the sanitizer aborts), and compared with Python integers."""
    import subprocess
    import sys

    source = emit_cuda(parse_module(_wrapping_module(element)))
    info, bits = np.iinfo(dtype), np.dtype(dtype).itemsize * 8
    x = np.array([info.max, info.min, -1, info.max // 2 + 1] * 8, dtype)
    y = np.array([1, 1, info.min, 3] * 8, dtype)
    out = np.zeros((32, 4), dtype)
    for name, array in (("x", x), ("y", y), ("out", out)):
        np.save(tmp_path / f"{name}.npy", array)
    (tmp_path / "kernel.cu").write_text(source)
    (tmp_path / "prelude.cu").write_text(PRELUDE)
    done = subprocess.run([sys.executable, "-c", _UNDER_SANITIZER, str(Path(__file__).parent),
                           str(tmp_path / "kernel.cu"), str(tmp_path / "prelude.cu"), str(tmp_path)],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = np.load(tmp_path / "out.npy")

    def wrap(value: int) -> int:
        return (value + 2**(bits - 1)) % 2**bits - 2**(bits - 1)

    for lane in range(32):
        a, b = int(x[lane]), int(y[lane])
        assert [int(v) for v in out[lane]] == [wrap(a + b), wrap(a - b), wrap(a * b), wrap(a << 7)]


# (mode, width, offset): an int offset is a constant, None reads this lane's offset from %offs
SHUFFLES = [("idx", 16, 20), ("idx", 32, 40), ("idx", 8, 3), ("idx", 16, None), ("idx", 32, None),
            ("xor", 16, 16), ("xor", 8, None), ("xor", 32, 4), ("up", 16, 5), ("up", 8, None),
            ("down", 16, 12), ("down", 32, 33), ("down", 16, None), ("up", 32, -1)]


def _shuffle_module() -> str:
    lines = ["      %t = gpu.thread_id x",
             "      %v = memref.load %values[%t] : memref<64xi32>",
             "      %o = memref.load %offs[%t] : memref<64xi32>",
             "      %yes = arith.constant 1 : i32",
             "      %no = arith.constant 0 : i32"]
    for n, (mode, width, offset) in enumerate(SHUFFLES):
        if offset is not None:
            lines.append(f"      %o{n} = arith.constant {offset} : i32")
        lines.append(f"      %w{n} = arith.constant {width} : i32")
        lines.append(f"      %r{n}, %ok{n} = gpu.shuffle {mode} %v, {'%o' if offset is None else f'%o{n}'}, %w{n} : i32")
        lines.append(f"      %f{n} = arith.select %ok{n}, %yes, %no : i32")
        lines.append(f"      %k{n} = arith.constant {n} : index")
        lines.append(f"      memref.store %r{n}, %out[%t, %k{n}] : memref<64x{len(SHUFFLES)}xi32>")
        lines.append(f"      memref.store %f{n}, %valid[%t, %k{n}] : memref<64x{len(SHUFFLES)}xi32>")
    columns = len(SHUFFLES)
    return _kernel("shuffles", f"%values: memref<64xi32>, %offs: memref<64xi32>, "
                   f"%out: memref<64x{columns}xi32>, %valid: memref<64x{columns}xi32>", "\n".join(lines))


def test_shuffles_out_of_range_keep_their_own_value(host, cuda_compiler):
    """gpu.shuffle's source lane outside [0, width) of the lane's segment gives valid = false
    and (as in the simulator) the lane's own value -- where PTX would wrap an idx offset to
    offset % width, or read offsets modulo 32. Checked against a per-lane formula of the IR
    semantics and against the simulator; constant in-range shuffles stay one shfl of their mode."""
    from layoutkit import simulate
    text = _shuffle_module()
    source = emit_cuda(parse_module(text))
    kernel = source.split("end of prelude")[1]
    assert "__shfl_xor_sync(0xffffffffu, v, 4)" in kernel  # in range: PTX's own xor
    assert "__shfl_sync(0xffffffffu, v, 3, 8)" in kernel  # in-range idx, width 8
    assert "__shfl_sync(0xffffffffu, v, 20, 16)" not in kernel  # would read lane 4
    compile_cuda(source, "sm_80")
    values = (np.arange(64) * 10 + 7).astype(np.int32)
    offsets = np.random.default_rng(14).integers(-3, 40, 64).astype(np.int32)
    results = {}
    for where in ("host", "simulator"):
        out, valid = np.zeros((64, len(SHUFFLES)), np.int32), np.zeros((64, len(SHUFFLES)), np.int32)
        if where == "host":
            host.run_on_host(source, PRELUDE, "shuffles", (1,), (64,), [values, offsets, out, valid])
        else:
            simulate(text, "shuffles", 1, 64, [values, offsets, out, valid])
        results[where] = (out, valid)
    for n, (mode, width, offset) in enumerate(SHUFFLES):
        for thread in range(64):
            lane = thread % 32
            position = lane % width
            o = int(offsets[thread]) if offset is None else offset
            source_position = {"idx": o, "xor": position ^ o, "up": position - o, "down": position + o}[mode]
            in_range = 0 <= source_position < width
            expected = values[thread - position + source_position] if in_range else values[thread]
            case = (mode, width, offset, thread)
            assert results["host"][0][thread, n] == expected, case
            assert results["host"][1][thread, n] == int(in_range), case
    np.testing.assert_array_equal(results["host"][0], results["simulator"][0])
    np.testing.assert_array_equal(results["host"][1], results["simulator"][1])


LITERALS = {  # values each type can hold (an f16 constant past 65504 is refused by the parser)
    "f32": [0.1, 1e6, 1e30, 1e-45, 3.4028235e38, -0.0, 2.5, 1 + 2**-24 + 2**-40, -1e-3, 16777217.0],
    "f16": [0.1, 1e-7, 65504.0, -0.0, 2.5, 1 + 2**-11 + 2**-40, 1 + 2**-11 - 2**-40, -1e-3, 1000.3],
    "bf16": [0.1, 1e6, 1e30, -0.0, 2.5, 1 + 2**-8 + 2**-40, 1 + 2**-8 - 2**-40, -1e-3, 3e38],
}


def test_float_constants_arrive_rounded_once(host):
    """arith.constant of every float type reaches memory as the value rounded once to the type
    (f32 and f16: numpy, which rounds an f64 once; bf16: by hand from the f64 bits), and f32
    literals are short (0.1f, not 0.10000000149011612f)."""
    lines = ["      %t = gpu.thread_id x"]
    for element, values in LITERALS.items():
        for n, value in enumerate(values):
            lines += [f"      %k_{element}_{n} = arith.constant {n} : index",
                      f"      %{element}_{n} = arith.constant {value:.17e} : {element}",
                      f"      memref.store %{element}_{n}, %{element}s[%k_{element}_{n}] : memref<{len(values)}x{element}>"]
    text = _kernel("literals", ", ".join(f"%{element}s: memref<{len(values)}x{element}>"
                                         for element, values in LITERALS.items()), "\n".join(lines))
    source = emit_cuda(parse_module(text))
    assert re.search(r"= 0\.1f;", source) and "= 1000000.0f;" in source
    f32s = np.zeros(len(LITERALS["f32"]), np.float32)
    f16s, bf16s = np.zeros(len(LITERALS["f16"]), np.uint16), np.zeros(len(LITERALS["bf16"]), np.uint16)
    host.run_on_host(source, PRELUDE, "literals", (1,), (1,), [f32s, f16s, bf16s])
    np.testing.assert_array_equal(f32s.view(np.uint32), np.array(LITERALS["f32"]).astype(np.float32).view(np.uint32))
    np.testing.assert_array_equal(f16s, np.array(LITERALS["f16"]).astype(np.float16).view(np.uint16))
    np.testing.assert_array_equal(bf16s, [_bf16_bits_rounded_once(v) for v in LITERALS["bf16"]])


def test_loops_over_i64_keep_their_type(host):
    """scf.for over i64 counts in a long long (an int counter would wrap past 2**31)."""
    text = _kernel("long_loop", "%out: memref<1xi64>", """\
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i64
      %lower = arith.constant 4294967296 : i64
      %upper = arith.constant 4294967300 : i64
      %one = arith.constant 1 : i64
      %sum = scf.for %i = %lower to %upper step %one iter_args(%acc = %zero) -> (i64) : i64 {
        %next = arith.addi %acc, %i : i64
        scf.yield %next : i64
      }
      memref.store %sum, %out[%c0] : memref<1xi64>""")
    source = emit_cuda(parse_module(text))
    assert "for (long long i = 4294967296ll; i < 4294967300ll; ++i) {" in source
    out = np.zeros(1, np.int64)
    host.run_on_host(source, PRELUDE, "long_loop", (1,), (1,), [out])
    assert int(out[0]) == sum(range(2**32, 2**32 + 4))


def test_i1_extends_signed_as_minus_one(host):
    """An i1 is signed in arith: extsi, index_cast and sitofp make true -1; extui and uitofp
    make it 1. Against the formula and, for the ext and fp ops, the simulator."""
    from layoutkit import simulate

    text = _kernel("bools", "%x: memref<32xi32>, %ints: memref<32x3xi32>, %floats: memref<32x2xf32>", """\
      %t = gpu.thread_id x
      %a = memref.load %x[%t] : memref<32xi32>
      %zero = arith.constant 0 : i32
      %b = arith.cmpi sgt, %a, %zero : i32
      %signed = arith.extsi %b : i1 to i32
      %unsigned = arith.extui %b : i1 to i32
      %as_index = arith.index_cast %b : i1 to index
      %as_i32 = arith.index_cast %as_index : index to i32
      %fs = arith.sitofp %b : i1 to f32
      %fu = arith.uitofp %b : i1 to f32
      %k0 = arith.constant 0 : index
      %k1 = arith.constant 1 : index
      %k2 = arith.constant 2 : index
      memref.store %signed, %ints[%t, %k0] : memref<32x3xi32>
      memref.store %unsigned, %ints[%t, %k1] : memref<32x3xi32>
      memref.store %as_i32, %ints[%t, %k2] : memref<32x3xi32>
      memref.store %fs, %floats[%t, %k0] : memref<32x2xf32>
      memref.store %fu, %floats[%t, %k1] : memref<32x2xf32>""")
    x = np.arange(-16, 16, dtype=np.int32)
    ints, floats = np.zeros((32, 3), np.int32), np.zeros((32, 2), np.float32)
    host.run_on_host(emit_cuda(parse_module(text)), PRELUDE, "bools", (1,), (32,), [x, ints, floats])
    truth = (x > 0).astype(np.int32)
    np.testing.assert_array_equal(ints, np.stack([-truth, truth, -truth], axis=1))
    np.testing.assert_array_equal(floats, np.stack([-truth, truth], axis=1).astype(np.float32))
    ints_sim, floats_sim = np.zeros((32, 3), np.int32), np.zeros((32, 2), np.float32)
    simulate(text, "bools", 1, 32, [x, ints_sim, floats_sim])
    np.testing.assert_array_equal(ints[:, :2], ints_sim[:, :2])
    np.testing.assert_array_equal(floats, floats_sim)


# ---- minimumf / maximumf: IEEE minimum / maximum in the emitted CUDA ----------------

MINMAX_SPECIALS = [0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1.5, -2.0, 0.25]


def _minmax_kernel(t: str) -> str:
    """64 threads: out[k, t] = minimumf, maximumf, minnumf, maxnumf of (a[t], b[t]);
    red[k, t] = vector.reduction minimumf / maximumf of rows[t, :], then gpu.subgroup_reduce
    minimumf / maximumf of rows[t, 0] over clusters of 4 lanes."""
    ops = [f"arith.{op} %x, %y : {t}" for op in ("minimumf", "maximumf", "minnumf", "maxnumf")]
    ops += [f"vector.reduction <{kind}>, %v : vector<4x{t}> into {t}" for kind in ("minimumf", "maximumf")]
    ops += [f"gpu.subgroup_reduce {kind} %w cluster(size = 4) : ({t}) -> {t}" for kind in ("minimumf", "maximumf")]
    body = ["      %t = gpu.thread_id x", "      %c0 = arith.constant 0 : index",
            f"      %x = memref.load %a[%t] : memref<64x{t}>", f"      %y = memref.load %b[%t] : memref<64x{t}>",
            f"      %v = vector.load %rows[%t, %c0] : memref<64x4x{t}>, vector<4x{t}>",
            f"      %w = memref.load %rows[%t, %c0] : memref<64x4x{t}>"]
    for j, op in enumerate(ops):
        target = "out" if j < 4 else "red"
        body += [f"      %r{j} = {op}", f"      %k{j} = arith.constant {j % 4} : index",
                 f"      memref.store %r{j}, %{target}[%k{j}, %t] : memref<4x64x{t}>"]
    return _kernel("minmax", f"%a: memref<64x{t}>, %b: memref<64x{t}>, %rows: memref<64x4x{t}>, "
                   f"%out: memref<4x64x{t}>, %red: memref<4x64x{t}>", "\n".join(body))


def _ieee(values: list[float], pick, numbers_only: bool) -> float:
    """IEEE minimum / maximum (NaN if any operand is NaN, -0.0 orders below +0.0), or with
    ``numbers_only`` minNum / maxNum (the extremum of the non-NaN operands)."""
    if numbers_only:
        values = [v for v in values if v == v]
    if not values or any(v != v for v in values):
        return float("nan")
    return pick(values, key=lambda v: (v, math.copysign(1.0, v)))


@pytest.mark.parametrize("t", ["f16", "bf16", "f32", "f64"])
def test_minimumf_maximumf_order_signed_zeros_and_propagate_nan(host, t):
    import ml_dtypes

    dtype = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}[t]
    pairs = [(x, y) for x in MINMAX_SPECIALS for y in MINMAX_SPECIALS]  # (+0,-0), NaN each side, inf
    a, b = (np.array([p[i] for p in pairs], dtype) for i in (0, 1))
    rows = np.random.default_rng(5).choice(np.array(MINMAX_SPECIALS), (64, 4))
    rows[:8] = [[0.0, -0.0, 0.0, 0.0], [-0.0, -0.0, -0.0, -0.0], [0.0, 1.0, -0.0, 2.0], [-0.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, -0.0, 0.0], [1.0, 2.0, 3.0, 0.0], [float("nan"), 0.0, -0.0, 1.0], [-0.0, 1.0, 2.0, 3.0]]
    rows = rows.astype(dtype)
    out, red = np.zeros((4, 64), dtype), np.zeros((4, 64), dtype)
    host.run_on_host(emit_cuda(parse_module(_minmax_kernel(t))), PRELUDE, "minmax", (1,), (64,),
                     [a, b, rows, out, red])
    as_float = [[float(v) for v in np.asarray(x, np.float64)] for x in (a, b)]
    lanes = [[float(v) for v in np.asarray(r, np.float64)] for r in rows]
    clusters = [[lanes[4 * (i // 4) + j][0] for j in range(4)] for i in range(64)]
    expected = [[_ieee(list(p), pick, numbers) for p in zip(*as_float)]
                for numbers in (False, True) for pick in (min, max)]
    expected += [[_ieee(r, pick, False) for r in lanes] for pick in (min, max)]
    expected += [[_ieee(c, pick, False) for c in clusters] for pick in (min, max)]
    got = [np.asarray(row, np.float64).tolist() for row in (*out, *red)]
    for k, (want, have) in enumerate(zip(expected, got)):
        for i, (w, h) in enumerate(zip(want, have)):
            context = f"{t}: result {k}, thread {i}: expected {w!r}, got {h!r}"
            assert (w != w) == (h != h), context
            if w == w:  # minNum / maxNum may give either zero; the others must order -0 < +0
                assert w == h and (k in (2, 3) or math.copysign(1, w) == math.copysign(1, h)), context


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_minimumf_maximumf_compile_with_nvrtc(arch, cuda_compiler):
    """The helpers compile for f16, bf16, f32 and f64 kernels (one prelude, four kernels)."""
    kernels = [emit_cuda(parse_module(_minmax_kernel(t).replace("@minmax", f"@minmax_{t}")), prelude=t == "f16")
               for t in ("f16", "bf16", "f32", "f64")]
    source = "\n".join(kernels)
    result = compile_cuda(source, arch=arch)
    assert {f"minmax_{t}" for t in ("f16", "bf16", "f32", "f64")} <= set(result.by_name)
