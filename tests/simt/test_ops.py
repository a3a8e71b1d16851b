"""Numerics of single ops, each checked against a per-element formula written here."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import layoutkit

from .kernels import kernel_module
from .reference import c_div


def run_binary(op: str, type_: str, x: np.ndarray, y: np.ndarray, out_type: str | None = None,
               out_dtype=None) -> np.ndarray:
    """out[i] = op(x[i], y[i]) for one thread per element."""
    out_type = out_type or type_
    n = x.size
    module = kernel_module(
        f"%x: memref<{n}x{type_}>, %y: memref<{n}x{type_}>, %o: memref<{n}x{out_type}>",
        f"""      %t = gpu.thread_id x
      %a = memref.load %x[%t] : memref<{n}x{type_}>
      %b = memref.load %y[%t] : memref<{n}x{type_}>
      %r = {op} %a, %b : {type_}
      memref.store %r, %o[%t] : memref<{n}x{out_type}>""",
    )
    out = np.zeros(n, out_dtype or x.dtype)
    layoutkit.simulate(module, "k", grid=1, block=n, args={"x": x, "y": y, "o": out})
    return out


INTS = np.array([7, -7, 7, -7, 0, 100, -128, 127, 1, -1], np.int8)
DIVS = np.array([2, 2, -2, -2, 3, 7, -1, 127, 1, 3], np.int8)


@pytest.mark.parametrize("op, formula", [
    ("arith.divsi", lambda a, b: c_div(a, b)),
    ("arith.remsi", lambda a, b: a - b * c_div(a, b)),
    ("arith.floordivsi", lambda a, b: a // b),
    ("arith.ceildivsi", lambda a, b: -((-a) // b)),
    ("arith.addi", lambda a, b: a + b),
    ("arith.muli", lambda a, b: a * b),
    ("arith.divui", lambda a, b: (a % 256) // (b % 256)),
    ("arith.remui", lambda a, b: (a % 256) % (b % 256)),
    ("arith.maxui", lambda a, b: max(a % 256, b % 256)),
    ("arith.minsi", lambda a, b: min(a, b)),
])
def test_i8_integer_ops_wrap_like_hardware(op, formula):
    out = run_binary(op, "i8", INTS, DIVS)
    expected = [((formula(int(a), int(b)) + 128) % 256) - 128 for a, b in zip(INTS, DIVS)]
    assert out.tolist() == expected


def test_shifts_i32():
    x = np.array([1, -8, 0x7FFFFFFF, -1, 5], np.int32)
    s = np.array([3, 1, 31, 4, 0], np.int32)
    assert run_binary("arith.shli", "i32", x, s).tolist() == [
        ((int(a) << int(b)) + 2**31) % 2**32 - 2**31 for a, b in zip(x, s)]
    assert run_binary("arith.shrsi", "i32", x, s).tolist() == [int(a) >> int(b) for a, b in zip(x, s)]
    assert run_binary("arith.shrui", "i32", x, s).tolist() == [
        (((int(a) % 2**32) >> int(b)) + 2**31) % 2**32 - 2**31 for a, b in zip(x, s)]


@pytest.mark.parametrize("predicate, formula", [
    ("ult", lambda a, b: a % 2**32 < b % 2**32), ("slt", lambda a, b: a < b),
    ("uge", lambda a, b: a % 2**32 >= b % 2**32), ("ne", lambda a, b: a != b)])
def test_cmpi(predicate, formula):
    x = np.array([-1, 0, 5, -3, 7], np.int32)
    y = np.array([1, 0, -5, -2, 7], np.int32)
    out = run_binary(f"arith.cmpi {predicate},", "i32", x, y, out_type="i1", out_dtype=np.bool_)
    assert out.tolist() == [formula(int(a), int(b)) for a, b in zip(x, y)]


@pytest.mark.parametrize("type_, dtype", [("f16", np.float16), ("bf16", ml_dtypes.bfloat16)])
@pytest.mark.parametrize("op, formula", [("arith.addf", lambda a, b: a + b),
                                         ("arith.mulf", lambda a, b: a * b),
                                         ("arith.divf", lambda a, b: a / b)])
def test_low_precision_floats_round_once(type_, dtype, op, formula):
    rng = np.random.default_rng(7)
    x = rng.uniform(0.5, 4, 64).astype(dtype)
    y = rng.uniform(0.5, 4, 64).astype(dtype)
    out = run_binary(op, type_, x, y)
    # exact result in float64 (a sum/product of two short floats is exact; a quotient is
    # rounded far below the target precision), rounded once to the target type
    expected = formula(x.astype(np.float64), y.astype(np.float64)).astype(dtype)
    assert out.view(np.uint16).tolist() == expected.view(np.uint16).tolist()


def test_casts_and_select():
    n = 6
    module = kernel_module(
        f"%x: memref<{n}xf32>, %h: memref<{n}xbf16>, %i: memref<{n}xi32>, %s: memref<{n}xf32>",
        f"""      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<{n}xf32>
      %b = arith.truncf %v : f32 to bf16
      memref.store %b, %h[%t] : memref<{n}xbf16>
      %k = arith.fptosi %v : f32 to i32
      memref.store %k, %i[%t] : memref<{n}xi32>
      %z = arith.constant 0.0 : f32
      %neg = arith.cmpf olt, %v, %z : f32
      %m = arith.negf %v : f32
      %a = arith.select %neg, %m, %v : f32
      memref.store %a, %s[%t] : memref<{n}xf32>""",
    )
    x = np.array([1.00390625, -2.7, 3.5, -0.2, 1e6 + 0.5, 257.0], np.float32)
    h = np.zeros(n, ml_dtypes.bfloat16)
    i = np.zeros(n, np.int32)
    s = np.zeros(n, np.float32)
    layoutkit.simulate(module, "k", grid=1, block=n, args={"x": x, "h": h, "i": i, "s": s})
    assert i.tolist() == [int(v) for v in x.tolist()]  # truncation toward zero
    assert s.tolist() == [abs(v) for v in x.tolist()]
    # bf16 keeps 8 significant bits, rounding to nearest even
    def to_bf16(v: float) -> float:
        m, e = np.frexp(np.float64(v))
        return float(np.ldexp(np.round(m * 256), e - 8))
    assert h.astype(np.float64).tolist() == [to_bf16(v) for v in x.tolist()]


def test_shuffle_modes_and_widths():
    lanes = 64
    module = kernel_module(
        "%o: memref<4x64xi32>, %k: memref<4x64xi1>",
        """      %t = gpu.thread_id x
      %v = arith.index_cast %t : index to i32
      %w = arith.constant 16 : i32
      %c3 = arith.constant 3 : i32
      %c5 = arith.constant 5 : i32
      %x, %xo = gpu.shuffle xor %v, %c5, %w : i32
      %u, %uo = gpu.shuffle up %v, %c3, %w : i32
      %d, %do = gpu.shuffle down %v, %c3, %w : i32
      %c7 = arith.constant 7 : i32
      %i, %io = gpu.shuffle idx %v, %c7, %w : i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3i = arith.constant 3 : index
      memref.store %x, %o[%c0, %t] : memref<4x64xi32>
      memref.store %u, %o[%c1, %t] : memref<4x64xi32>
      memref.store %d, %o[%c2, %t] : memref<4x64xi32>
      memref.store %i, %o[%c3i, %t] : memref<4x64xi32>
      memref.store %xo, %k[%c0, %t] : memref<4x64xi1>
      memref.store %uo, %k[%c1, %t] : memref<4x64xi1>
      memref.store %do, %k[%c2, %t] : memref<4x64xi1>
      memref.store %io, %k[%c3i, %t] : memref<4x64xi1>""",
    )
    for warp_size in (32, 64):
        out = np.zeros((4, lanes), np.int32)
        ok = np.zeros((4, lanes), np.bool_)
        layoutkit.simulate(module, "k", grid=1, block=lanes, args={"o": out, "k": ok}, warp_size=warp_size)
        for t in range(lanes):
            seg, pos = t - t % 16, t % 16
            sources = [pos ^ 5, pos - 3, pos + 3, 7]
            for mode, src in enumerate(sources):
                valid = 0 <= src < 16
                assert ok[mode, t] == valid
                assert out[mode, t] == (seg + src if valid else t)


def test_subgroup_reduce_clusters_and_warp_size():
    module = kernel_module(
        "%o: memref<128xi32>, %m: memref<128xi32>",
        """      %t = gpu.thread_id x
      %v = arith.index_cast %t : index to i32
      %s = gpu.subgroup_reduce add %v : (i32) -> i32
      memref.store %s, %o[%t] : memref<128xi32>
      %q = gpu.subgroup_reduce maxsi %v cluster(size = 4) : (i32) -> i32
      memref.store %q, %m[%t] : memref<128xi32>""",
    )
    for warp_size in (32, 64):
        o = np.zeros(128, np.int32)
        m = np.zeros(128, np.int32)
        layoutkit.simulate(module, "k", grid=1, block=128, args={"o": o, "m": m}, warp_size=warp_size)
        for t in range(128):
            first = t - t % warp_size
            assert o[t] == sum(range(first, first + warp_size))
            assert m[t] == t - t % 4 + 3


def test_vector_ops():
    module = kernel_module(
        "%x: memref<8x8xf32>, %o: memref<8xf32>, %w: memref<8x8xf32>",
        """      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %v = vector.load %x[%t, %c0] : memref<8x8xf32>, vector<8xf32>
      %e = vector.extract %v[7] : f32 from vector<8xf32>
      %b = vector.broadcast %e : f32 to vector<8xf32>
      %p = arith.mulf %v, %b : vector<8xf32>
      %r = vector.reduction <add>, %p : vector<8xf32> into f32
      memref.store %r, %o[%t] : memref<8xf32>
      %q = vector.insert %r, %p [0] : f32 into vector<8xf32>
      vector.store %q, %w[%t, %c0] : memref<8x8xf32>, vector<8xf32>""",
    )
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    o = np.zeros(8, np.float32)
    w = np.zeros((8, 8), np.float32)
    layoutkit.simulate(module, "k", grid=1, block=8, args={"x": x, "o": o, "w": w})
    for t in range(8):
        products = [float(x[t, j]) * float(x[t, 7]) for j in range(8)]
        assert o[t] == sum(products)
        assert w[t].tolist() == [sum(products)] + products[1:]


def test_while_loop_with_thread_dependent_trip_count():
    module = kernel_module(
        "%c: memref<40xi32>, %r: memref<40xi32>",
        """      %t = gpu.thread_id x
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %zero = arith.constant 0 : i32
      %n = arith.index_cast %t : index to i32
      %out:2 = scf.while (%i = %n, %k = %zero) : (i32, i32) -> (i32, i32) {
        %go = arith.cmpi sgt, %i, %zero : i32
        scf.condition(%go) %i, %k : i32, i32
      } do {
      ^bb0(%i2: i32, %k2: i32):
        %i3 = arith.subi %i2, %two : i32
        %k3 = arith.addi %k2, %one : i32
        scf.yield %i3, %k3 : i32, i32
      }
      memref.store %out#1, %c[%t] : memref<40xi32>
      memref.store %out#0, %r[%t] : memref<40xi32>""",
    )
    c = np.zeros(40, np.int32)
    r = np.zeros(40, np.int32)
    layoutkit.simulate(module, "k", grid=1, block=40, args={"c": c, "r": r})
    assert c.tolist() == [-(-t // 2) for t in range(40)]
    assert r.tolist() == [t - 2 * (-(-t // 2)) for t in range(40)]


def test_divergent_loop_counts_per_thread():
    module = kernel_module(
        "%c: memref<40xi32>",
        """      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %n = scf.for %i = %c0 to %t step %c3 iter_args(%acc = %zero) -> (i32) {
        %a = arith.addi %acc, %one : i32
        scf.yield %a : i32
      }
      memref.store %n, %c[%t] : memref<40xi32>""",
    )
    c = np.zeros(40, np.int32)
    layoutkit.simulate(module, "k", grid=1, block=40, args={"c": c})
    assert c.tolist() == [len(range(0, t, 3)) for t in range(40)]


def test_i1_casts_are_signed():
    module = kernel_module(
        "%o: memref<4xi32>, %f: memref<4xf32>, %b: memref<4xi1>",
        """      %t = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %odd = arith.remui %t, %c2 : index
      %w = arith.index_cast %odd : index to i32
      %bit = arith.trunci %w : i32 to i1
      %s = arith.extsi %bit : i1 to i32
      memref.store %s, %o[%t] : memref<4xi32>
      %x = arith.sitofp %bit : i1 to f32
      memref.store %x, %f[%t] : memref<4xf32>
      %c3 = arith.constant 3 : i32
      %three = arith.trunci %c3 : i32 to i1
      memref.store %three, %b[%t] : memref<4xi1>""",
    )
    o = np.zeros(4, np.int32)
    f = np.zeros(4, np.float32)
    b = np.zeros(4, np.bool_)
    layoutkit.simulate(module, "k", grid=1, block=4, args={"o": o, "f": f, "b": b})
    assert o.tolist() == [0, -1, 0, -1] and f.tolist() == [0.0, -1.0, 0.0, -1.0]
    assert b.tolist() == [True] * 4  # 3 truncated to one bit
