"""arith numerics at every integer width i1..i64 and every float type, each against an
exact Python formula written here (Python integers and Fractions, no numpy arithmetic)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt import SimulationError

from .kernels import kernel_module
from .reference import BINARY, DIVISION, unsigned, wrap

WIDTHS = [1, 8, 16, 32, 64]
DTYPES = {1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def edge_values(bits: int) -> list[int]:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return sorted({lo, lo + 1, -7, -2, -1, 0, 1, 2, 7, hi - 1, hi} & set(range(lo, hi + 1))
                  if bits < 16 else {lo, lo + 1, -7, -2, -1, 0, 1, 2, 7, hi - 1, hi})


def to_numpy(values: list[int], bits: int) -> np.ndarray:
    if bits == 1:
        return np.array([v == -1 for v in values], np.bool_)
    return np.array(values, DTYPES[bits])


def from_numpy(array: np.ndarray) -> list[int]:
    if array.dtype == np.bool_:
        return [-int(v) for v in array.tolist()]
    return [int(v) for v in array.tolist()]


def run(signature: str, body: str, args: dict, threads: int) -> None:
    layoutkit.simulate(kernel_module(signature, body), "k", grid=1, block=threads, args=args)


def run_binary(op: str, bits: int, xs: list[int], ys: list[int], out_bits: int | None = None):
    n, t, o = len(xs), f"i{bits}", f"i{out_bits or bits}"
    out = to_numpy([0] * n, out_bits or bits)
    run(f"%x: memref<{n}x{t}>, %y: memref<{n}x{t}>, %o: memref<{n}x{o}>",
        f"""      %t = gpu.thread_id x
      %a = memref.load %x[%t] : memref<{n}x{t}>
      %b = memref.load %y[%t] : memref<{n}x{t}>
      %r = {op} %a, %b : {t}
      memref.store %r, %o[%t] : memref<{n}x{o}>""",
        {"x": to_numpy(xs, bits), "y": to_numpy(ys, bits), "o": out}, n)
    return from_numpy(out)


def convert(op: str, source: str, target: str, values: np.ndarray, out: np.ndarray) -> None:
    """out[i] = ``op`` of values[i] from type ``source`` to ``target``, one thread each."""
    n = values.size
    run(f"%x: memref<{n}x{source}>, %o: memref<{n}x{target}>",
        f"""      %i = gpu.thread_id x
      %a = memref.load %x[%i] : memref<{n}x{source}>
      %r = {op} %a : {source} to {target}
      memref.store %r, %o[%i] : memref<{n}x{target}>""", {"x": values, "o": out}, n)


@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("op", sorted(BINARY) + sorted(DIVISION))
def test_integer_op_at_every_width(op, bits):
    values = edge_values(bits)
    pairs = [(a, b) for a, b in itertools.product(values, repeat=2)
             if op not in DIVISION or b != 0]
    if op in ("arith.shli", "arith.shrsi", "arith.shrui") and bits > 1:
        pairs += [(a, s) for a in values for s in (bits - 1, bits, bits + 1, 3)]
    xs, ys = [a for a, _ in pairs], [b for _, b in pairs]
    formula = {**BINARY, **DIVISION}[op]
    assert run_binary(op, bits, xs, ys) == [wrap(formula(a, b, bits), bits) for a, b in pairs]


def test_ceildivsi_of_the_minimum_does_not_overflow():
    assert run_binary("arith.ceildivsi", 32, [-2**31], [7]) == [-306783378]


@pytest.mark.parametrize("bits", WIDTHS)
def test_cmpi_every_predicate(bits):
    values = edge_values(bits)
    pairs = list(itertools.product(values, repeat=2))
    xs, ys = [a for a, _ in pairs], [b for _, b in pairs]
    reference = {
        "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
        "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b,
        "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
        "ult": lambda a, b: unsigned(a, bits) < unsigned(b, bits), "ule": lambda a, b: unsigned(a, bits) <= unsigned(b, bits),
        "ugt": lambda a, b: unsigned(a, bits) > unsigned(b, bits), "uge": lambda a, b: unsigned(a, bits) >= unsigned(b, bits),
    }
    for predicate, formula in reference.items():
        out = run_binary(f"arith.cmpi {predicate},", bits, xs, ys, out_bits=1)
        assert out == [-int(formula(a, b)) for a, b in pairs], predicate


@pytest.mark.parametrize("op", ["arith.divsi", "arith.remui", "arith.ceildivui", "arith.floordivsi"])
def test_division_by_zero_is_reported(op):
    with pytest.raises(SimulationError, match=r"kernel @k: .*block \(0, 0, 0\), thread \(2, 0, 0\): "
                                              r"integer division by zero"):
        run_binary(op, 32, [5, 6, 7, 8], [1, 2, 0, 0])


def test_division_by_zero_of_inactive_threads_is_not_reported():
    out = np.zeros(4, np.int32)
    run("%y: memref<4xi32>, %o: memref<4xi32>",
        """      %t = gpu.thread_id x
      %b = memref.load %y[%t] : memref<4xi32>
      %z = arith.constant 0 : i32
      %c = arith.cmpi ne, %b, %z : i32
      scf.if %c {
        %c12 = arith.constant 12 : i32
        %q = arith.divsi %c12, %b : i32
        memref.store %q, %o[%t] : memref<4xi32>
      }""", {"y": np.array([3, 0, -4, 0], np.int32), "o": out}, 4)
    assert out.tolist() == [4, 0, -3, 0]


@pytest.mark.parametrize("source, target", [(s, t) for s in WIDTHS for t in WIDTHS if s != t])
def test_integer_extensions_and_truncations(source, target):
    values = edge_values(source)
    n, s, t = len(values), f"i{source}", f"i{target}"
    ops = ["arith.extsi", "arith.extui"] if target > source else ["arith.trunci"]
    for op in ops:
        out = to_numpy([0] * n, target)
        convert(op, s, t, to_numpy(values, source), out)
        formula = {"arith.extsi": lambda v: v, "arith.extui": lambda v: unsigned(v, source),
                   "arith.trunci": lambda v: wrap(v, target)}[op]
        assert from_numpy(out) == [wrap(formula(v), target) for v in values], op


# (significand bits with the implicit one, exponent of the smallest normal, of the largest)
FORMATS = {"f16": (11, -14, 15), "bf16": (8, -126, 127), "f32": (24, -126, 127), "f64": (53, -1022, 1023)}
FLOAT_DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}


def round_exact(x: Fraction, type_: str) -> float:
    """``x`` rounded to nearest even in ``type_`` (subnormals, overflow to infinity)."""
    p, emin, emax = FORMATS[type_]
    if x == 0:
        return 0.0
    magnitude = abs(x)
    e = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    while Fraction(2) ** e > magnitude:
        e -= 1
    while Fraction(2) ** (e + 1) <= magnitude:
        e += 1
    ulp = Fraction(2) ** (max(e, emin) - p + 1)
    q, r = divmod(magnitude, ulp)
    if 2 * r > ulp or (2 * r == ulp and q % 2 == 1):
        q += 1
    y = q * ulp
    largest = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    value = math.inf if y > largest else float(y)
    return value if x > 0 else -value


def check_rounded(out: np.ndarray, exact: list[Fraction], type_: str) -> None:
    got = [float(v) for v in out.astype(np.float64).tolist()]
    assert got == [round_exact(x, type_) for x in exact]


# integers whose rounding to a short float is a tie or just above one, where rounding
# twice (through float64 or float32) goes wrong
INT_VALUES = [0, 1, -1, 7, 2**24 + 1, 2**24 + 2**16 + 1, -(2**24 + 2**16 + 1), 2**24 + 2**16,
              65519, 65520, -65520, 2**31 - 1, -2**31, 2**53 + 1, 2**62 + 2**38 + 1,
              2**62 + 2**38, 2**63 - 1, -2**63, 2**40 + 2**32 + 1]


@pytest.mark.parametrize("type_", sorted(FORMATS))
@pytest.mark.parametrize("bits", [8, 16, 32, 64])
def test_sitofp_and_uitofp_round_once(bits, type_):
    values = [wrap(v, bits) for v in INT_VALUES]
    n, t = len(values), f"i{bits}"
    for op, exact in (("arith.sitofp", values), ("arith.uitofp", [unsigned(v, bits) for v in values])):
        out = np.zeros(n, FLOAT_DTYPES[type_])
        convert(op, t, type_, to_numpy(values, bits), out)
        check_rounded(out, [Fraction(v) for v in exact], type_)


def test_i1_converts_signed_and_unsigned():
    out = np.zeros(4, np.float32)
    run("%x: memref<2xi1>, %o: memref<4xf32>",
        """      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %a = memref.load %x[%c0] : memref<2xi1>
      %s = arith.sitofp %a : i1 to f32
      %u = arith.uitofp %a : i1 to f32
      %w = arith.extui %a : i1 to i32
      %i = arith.index_cast %a : i1 to index
      %wf = arith.sitofp %w : i32 to f32
      %ii = arith.index_cast %i : index to i32
      %if = arith.sitofp %ii : i32 to f32
      memref.store %s, %o[%c0] : memref<4xf32>
      memref.store %u, %o[%c1] : memref<4xf32>
      memref.store %wf, %o[%c2] : memref<4xf32>
      memref.store %if, %o[%c3] : memref<4xf32>""", {"x": np.array([True, False]), "o": out}, 1)
    assert out.tolist() == [-1.0, 1.0, 1.0, -1.0]


FLOAT_VALUES = [0.0, -0.0, 1.5, -2.7, 65504.0, 65520.0, 1 + 2**-9, 1 + 2**-8 + 2**-30,
                2.0**24 + 2**16 + 1, 3.4e38, 1e300, -1e300, 2.0**-140, 2.0**-25, 5.9604644775390625e-08,
                1e-310, math.inf, -math.inf]


@pytest.mark.parametrize("source, target", [("f64", "f32"), ("f64", "f16"), ("f64", "bf16"),
                                            ("f32", "f16"), ("f32", "bf16"), ("bf16", "f16"),
                                            ("f16", "bf16"), ("f16", "f64")])
def test_float_conversions_round_once(source, target):
    with np.errstate(over="ignore"):  # inputs: the values representable in the source type
        values = np.array(FLOAT_VALUES, np.float64).astype(FLOAT_DTYPES[source])
    n = len(values)
    wider = FORMATS[target][0] > FORMATS[source][0]
    op = "arith.extf" if wider else "arith.truncf"
    out = np.zeros(n, FLOAT_DTYPES[target])
    convert(op, source, target, values, out)
    exact = [float(v) for v in values.astype(np.float64).tolist()]
    got = [float(v) for v in out.astype(np.float64).tolist()]
    assert got == [round_exact(Fraction(v), target) if math.isfinite(v) else v for v in exact]
    assert [math.copysign(1, v) for v in got] == [math.copysign(1, v) for v in exact]


@pytest.mark.parametrize("type_", ["f16", "bf16", "f32", "f64"])
@pytest.mark.parametrize("bits", WIDTHS)
def test_fptosi_and_fptoui_truncate_and_saturate(bits, type_):
    with np.errstate(over="ignore"):
        values = np.array([0.0, 0.9, -0.9, 1.5, -1.5, 2.5, -7.99, 100.7, -129.5, 255.5, 1e4, -4e4,
                           3e9, -3e9, 1e19, -1e19, 1e30, math.inf, -math.inf, math.nan],
                          np.float64).astype(FLOAT_DTYPES[type_])
    n, t = len(values), f"i{bits}"
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    for op, low, high in (("arith.fptosi", lo, hi), ("arith.fptoui", 0, (1 << bits) - 1)):
        out = to_numpy([0] * n, bits)
        convert(op, type_, t, values, out)
        exact = [float(v) for v in values.astype(np.float64).tolist()]
        expected = [0 if math.isnan(v) else high if v >= high + 1 else low if v <= low - 1
                    else math.trunc(v) for v in exact]
        assert from_numpy(out) == [wrap(v, bits) for v in expected], op


@pytest.mark.parametrize("type_", ["f16", "bf16", "f32", "f64"])
def test_fma_rounds_once(type_):
    rng = np.random.default_rng(3)
    dtype = FLOAT_DTYPES[type_]
    # the last case: long double (64-bit significand) rounds its exact value wrong in f64
    a = np.r_[24929.0, 1 + 2.0**-7, 1 + 2.0**-52, -1.7916457433662756, rng.uniform(-4, 4, 40)].astype(dtype)
    b = np.r_[673.0, 1 + 2.0**-7, 1 + 2.0**-52, -1.565801055559572, rng.uniform(-4, 4, 40)].astype(dtype)
    # tiny addends below the product's last bit decide ties that rounding twice gets wrong
    c = np.r_[2.0**-30, 2.0**-60, -1.0, -4.848287367392345e-09, rng.uniform(-4, 4, 20),
              rng.uniform(-1, 1, 20) * 2.0**-40].astype(dtype)
    n = a.size
    out = np.zeros(n, dtype)
    run(f"%a: memref<{n}x{type_}>, %b: memref<{n}x{type_}>, %c: memref<{n}x{type_}>, "
        f"%o: memref<{n}x{type_}>",
        f"""      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<{n}x{type_}>
      %y = memref.load %b[%i] : memref<{n}x{type_}>
      %z = memref.load %c[%i] : memref<{n}x{type_}>
      %r = math.fma %x, %y, %z : {type_}
      memref.store %r, %o[%i] : memref<{n}x{type_}>""", {"a": a, "b": b, "c": c, "o": out}, n)
    exact = [Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
             for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())]
    check_rounded(out, exact, type_)


def test_i1_reductions_are_signed_and_wrap():
    """subgroup_reduce over clusters of 4 lanes (32 threads) and vector.reduction over 4
    elements (8 threads) of i1, against Python on -1/0, wrapped to one bit."""
    kinds = {"add": sum, "mul": math.prod, "and": max, "or": min, "xor": sum,  # -1 & 0 == 0
             "minsi": min, "maxsi": max,
             "minui": lambda v: -min(unsigned(x, 1) for x in v),
             "maxui": lambda v: -max(unsigned(x, 1) for x in v)}
    bits = [-((t * 7 // 3 + t // 5) % 2) for t in range(32)]
    reduce_ = {"subgroup": ("%v = memref.load %x[%t] : memref<32xi1>", 32,
                            "gpu.subgroup_reduce {kind} %v cluster(size = 4) : (i1) -> i1"),
               "vector": ("%v = vector.load %x[%base] : memref<32xi1>, vector<4xi1>", 8,
                          "vector.reduction <{kind}>, %v : vector<4xi1> into i1")}
    for load, threads, reduction in reduce_.values():
        lines = ["      %t = gpu.thread_id x", "      %four = arith.constant 4 : index",
                 "      %base = arith.muli %t, %four : index", f"      {load}"]
        for k, kind in enumerate(kinds):
            lines += [f"      %c{k} = arith.constant {k} : index",
                      f"      %r{k} = {reduction.format(kind=kind)}",
                      f"      memref.store %r{k}, %o[%c{k}, %t] : memref<9x{threads}xi1>"]
        out = np.zeros((len(kinds), threads), np.bool_)
        run(f"%x: memref<32xi1>, %o: memref<9x{threads}xi1>", "\n".join(lines),
            {"x": to_numpy(bits, 1), "o": out}, threads)
        for k, formula in enumerate(kinds.values()):
            groups = [bits[4 * (t // 4): 4 * (t // 4) + 4] if threads == 32 else bits[4 * t: 4 * t + 4]
                      for t in range(threads)]
            assert from_numpy(out[k]) == [wrap(formula(g), 1) for g in groups], list(kinds)[k]


@pytest.mark.parametrize("type_", ["f16", "bf16", "f32", "f64"])
def test_round_ties_away_from_zero_on_the_exact_value(type_):
    """math.round: the largest value below 0.5 rounds to 0 (floor(|x| + 0.5) gave 1 in f32:
    the sum rounds up), ties go away from zero."""
    dtype = FLOAT_DTYPES[type_]
    below_half = float(np.nextafter(dtype(0.5), dtype(0)))  # 0.49999997 in f32
    x = np.array([below_half, -below_half, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -0.0, 1e4 + 0.5, math.inf,
                  math.nan], np.float64).astype(dtype)
    n = x.size
    out = np.zeros(n, dtype)
    run(f"%x: memref<{n}x{type_}>, %o: memref<{n}x{type_}>",
        f"""      %i = gpu.thread_id x
      %a = memref.load %x[%i] : memref<{n}x{type_}>
      %r = math.round %a : {type_}
      memref.store %r, %o[%i] : memref<{n}x{type_}>""", {"x": x, "o": out}, n)

    def rounded(v: float) -> tuple:
        if not math.isfinite(v):
            return ("nan",) if math.isnan(v) else (v,)
        r = math.copysign(math.floor(abs(Fraction(v)) + Fraction(1, 2)), v)
        return (r, math.copysign(1, r))

    def got(v: float) -> tuple:
        return ("nan",) if math.isnan(v) else (v,) if math.isinf(v) else (v, math.copysign(1, v))

    assert [got(v) for v in out.astype(np.float64).tolist()] == \
           [rounded(v) for v in x.astype(np.float64).tolist()]


# ---- minimumf / maximumf (IEEE 754-2019) and minnumf / maxnumf (IEEE minNum / maxNum) ----

FLOAT_DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}
SPECIALS = [0.0, -0.0, math.nan, math.inf, -math.inf, 1.5, -2.0, 0.25]


def minmax_kernel_text(t: str) -> str:
    """64 threads: out[k, t] = minimumf, maximumf, minnumf, maxnumf of (a[t], b[t]);
    red[k, t] = vector.reduction minimumf, maximumf of rows[t, :] and gpu.subgroup_reduce
    minimumf, maximumf of rows[t, 0] over clusters of 4 lanes."""
    lines = ["      %t = gpu.thread_id x", "      %c0 = arith.constant 0 : index",
             f"      %x = memref.load %a[%t] : memref<64x{t}>", f"      %y = memref.load %b[%t] : memref<64x{t}>",
             f"      %v = vector.load %rows[%t, %c0] : memref<64x4x{t}>, vector<4x{t}>",
             f"      %w = memref.load %rows[%t, %c0] : memref<64x4x{t}>"]
    results = ([("out", f"arith.{op} %x, %y : {t}") for op in ("minimumf", "maximumf", "minnumf", "maxnumf")]
               + [("red", f"vector.reduction <{kind}>, %v : vector<4x{t}> into {t}") for kind in ("minimumf", "maximumf")]
               + [("red", f"gpu.subgroup_reduce {kind} %w cluster(size = 4) : ({t}) -> {t}")
                  for kind in ("minimumf", "maximumf")])
    for j, (target, op) in enumerate(results):
        k = j if target == "out" else j - 4
        lines += [f"      %r{j} = {op}", f"      %k{j} = arith.constant {k} : index",
                  f"      memref.store %r{j}, %{target}[%k{j}, %t] : memref<4x64x{t}>"]
    return ("module {\n  gpu.module @m {\n    gpu.func @minmax("
            f"%a: memref<64x{t}>, %b: memref<64x{t}>, %rows: memref<64x4x{t}>, %out: memref<4x64x{t}>, "
            f"%red: memref<4x64x{t}>) kernel {{\n" + "\n".join(lines) + "\n      gpu.return\n    }\n  }\n}")


def minmax_inputs(t: str) -> list[np.ndarray]:
    """Every ordered pair of SPECIALS (so (+0, -0), (-0, +0), NaN on either side, +-inf),
    rows of specials for the reductions with signed zeros in the first clusters, outputs."""
    dtype = FLOAT_DTYPES[t]
    a = np.array([x for x in SPECIALS for _ in SPECIALS], dtype)
    b = np.array([y for _ in SPECIALS for y in SPECIALS], dtype)
    rows = np.random.default_rng(9).choice(np.array(SPECIALS), (64, 4))
    rows[:12] = [[0.0, -0.0, 0.0, 0.0], [-0.0, -0.0, -0.0, -0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 1.0, -0.0, 2.0],
                 [-0.0, -0.0, 0.0, -0.0], [1.0, 2.0, 3.0, 0.0], [0.0, -0.0, -1.0, math.inf], [-0.0, 0.0, 1.0, 1.0],
                 [math.nan, 0.0, -0.0, 1.0], [0.0, 0.0, 0.0, math.nan], [-0.0, 1.0, 2.0, 3.0], [5.0, -0.0, 0.0, -0.0]]
    return [a, b, rows.astype(dtype), np.zeros((4, 64), dtype), np.zeros((4, 64), dtype)]


def ieee_extremum(values: list[float], pick) -> float:
    """IEEE minimum (pick=min) / maximum (pick=max): NaN if any is NaN; -0.0 orders below +0.0."""
    if any(math.isnan(v) for v in values):
        return math.nan
    return pick(values, key=lambda v: (v, math.copysign(1.0, v)))


def ieee_num_extremum(values: list[float], pick) -> float:
    """IEEE minNum / maxNum: the extremum of the non-NaN operands, NaN only if all are NaN."""
    numbers = [v for v in values if not math.isnan(v)]
    return pick(numbers) if numbers else math.nan


def check_minmax(arrays: list[np.ndarray], where: str) -> None:
    """Check a run's outputs against the formulas above, element by element: NaN where NaN is
    due; otherwise minimumf / maximumf to the bit (the sign of a zero), minNum / maxNum by value
    (their sign of zero is unspecified)."""
    a, b, rows, out, red = ([float(v) for v in np.asarray(x, np.float64).ravel()] for x in arrays)
    rows2 = [rows[4 * i:4 * i + 4] for i in range(64)]
    firsts = [r[0] for r in rows2]
    expected = [[ieee_extremum([x, y], min) for x, y in zip(a, b)],
                [ieee_extremum([x, y], max) for x, y in zip(a, b)],
                [ieee_num_extremum([x, y], min) for x, y in zip(a, b)],
                [ieee_num_extremum([x, y], max) for x, y in zip(a, b)],
                [ieee_extremum(r, min) for r in rows2], [ieee_extremum(r, max) for r in rows2],
                [ieee_extremum(firsts[i // 4 * 4:i // 4 * 4 + 4], min) for i in range(64)],
                [ieee_extremum(firsts[i // 4 * 4:i // 4 * 4 + 4], max) for i in range(64)]]
    got = [out[64 * k:64 * k + 64] for k in range(4)] + [red[64 * k:64 * k + 64] for k in range(4)]
    for k, (want, have) in enumerate(zip(expected, got)):
        for i, (w, h) in enumerate(zip(want, have)):
            context = f"{where}: result {k}, thread {i}: expected {w!r}, got {h!r}"
            assert math.isnan(w) == math.isnan(h), context
            if not math.isnan(w):
                assert w == h, context
                if k not in (2, 3):
                    assert math.copysign(1.0, w) == math.copysign(1.0, h), context


@pytest.mark.parametrize("t", list(FLOAT_DTYPES))
def test_minimumf_maximumf_order_signed_zeros_and_propagate_nan(t):
    arrays = minmax_inputs(t)
    layoutkit.simulate(minmax_kernel_text(t), "minmax", 1, 64, arrays)
    check_minmax(arrays, f"simulator {t}")
