"""tt.dot on the simulator: hand-written TTGIR kernels (blocked loads -> convert_layout to
dot_op -> tt.dot -> convert_layout -> store) for nvidia_mma v2, amd_mfma (gfx942, 64 lanes)
and FMA (blocked) parents, checked against numpy (tf32 truncation written out here); dots
whose operand encodings the GPU lowering would reject are reported with op and line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.backends.simt.dot_fragments import dot_plan
from layoutkit.backends.simt.ttgir import _distribution
from layoutkit.ir import parse_module
from layoutkit.layouts.parse import parse_layout

NUMPY = {"f16": np.float16, "f32": np.float32, "i8": np.int8, "i32": np.int32}


def _tile(name: str, ptr: str, rows: int, cols: int, elem: str, layout: str) -> list[str]:
    """TTGIR lines loading (or addressing) a row-major rows x cols tile at %ptr in ``layout``:
    %{name}_p are the pointers."""
    t2 = f"tensor<{rows}x{cols}xi32, {layout}>"
    return [
        f"%{name}_r = tt.make_range {{end = {rows} : i32, start = 0 : i32}} : "
        f"tensor<{rows}xi32, #ttg.slice<{{dim = 1, parent = {layout}}}>>",
        f"%{name}_c = tt.make_range {{end = {cols} : i32, start = 0 : i32}} : "
        f"tensor<{cols}xi32, #ttg.slice<{{dim = 0, parent = {layout}}}>>",
        f"%{name}_r2 = tt.expand_dims %{name}_r {{axis = 1 : i32}} : tensor<{rows}xi32, "
        f"#ttg.slice<{{dim = 1, parent = {layout}}}>> -> tensor<{rows}x1xi32, {layout}>",
        f"%{name}_c2 = tt.expand_dims %{name}_c {{axis = 0 : i32}} : tensor<{cols}xi32, "
        f"#ttg.slice<{{dim = 0, parent = {layout}}}>> -> tensor<1x{cols}xi32, {layout}>",
        f"%{name}_s = arith.constant dense<{cols}> : tensor<{rows}x1xi32, {layout}>",
        f"%{name}_rs = arith.muli %{name}_r2, %{name}_s : tensor<{rows}x1xi32, {layout}>",
        f"%{name}_rb = tt.broadcast %{name}_rs : tensor<{rows}x1xi32, {layout}> -> {t2}",
        f"%{name}_cb = tt.broadcast %{name}_c2 : tensor<1x{cols}xi32, {layout}> -> {t2}",
        f"%{name}_o = arith.addi %{name}_rb, %{name}_cb : {t2}",
        f"%{name}_base = tt.splat %{ptr} : !tt.ptr<{elem}> -> tensor<{rows}x{cols}x!tt.ptr<{elem}>, {layout}>",
        f"%{name}_p = tt.addptr %{name}_base, %{name}_o : tensor<{rows}x{cols}x!tt.ptr<{elem}>, {layout}>, {t2}",
    ]


def dot_kernel(m: int, n: int, k: int, parent: str, *, ab: str = "f16", acc: str = "f32",
               k_width: int | None = 2, warps: int = 4, lanes: int = 32, precision: str | None = None,
               a_op: str | None = None, b_op: str | None = None) -> str:
    """``@dot(a, b, c, d)``: program p computes d[p] = a[p] @ b[p] + c[p] (M x K, K x N, M x N
    row-major blocks of each array) with one tt.dot whose result has encoding ``parent``."""
    kw = f", kWidth = {k_width}" if k_width is not None else ""
    a_op = a_op or f"#ttg.dot_op<{{opIdx = 0, parent = #mma{kw}}}>"
    b_op = b_op or f"#ttg.dot_op<{{opIdx = 1, parent = #mma{kw}}}>"
    prec = f", inputPrecision = {precision}" if precision else ""
    lines = [
        "%pid = tt.get_program_id x : i32",
        *[f"%{x}_n = arith.constant {size} : i32" for x, size in (("a", m * k), ("b", k * n), ("c", m * n))],
        *[f"%{x}_off = arith.muli %pid, %{s}_n : i32" for x, s in (("a", "a"), ("b", "b"), ("c", "c"), ("d", "c"))],
        *[f"%{x}_ptr = tt.addptr %{x}0, %{x}_off : !tt.ptr<{e}>, i32"
          for x, e in (("a", ab), ("b", ab), ("c", acc), ("d", acc))],
        *_tile("a", "a_ptr", m, k, ab, "#blocked"),
        *_tile("b", "b_ptr", k, n, ab, "#blocked"),
        *_tile("c", "c_ptr", m, n, acc, "#blocked"),
        *_tile("d", "d_ptr", m, n, acc, "#blocked"),
        f"%a = tt.load %a_p : tensor<{m}x{k}x!tt.ptr<{ab}>, #blocked>",
        f"%b = tt.load %b_p : tensor<{k}x{n}x!tt.ptr<{ab}>, #blocked>",
        f"%c = tt.load %c_p : tensor<{m}x{n}x!tt.ptr<{acc}>, #blocked>",
        f"%ad = ttg.convert_layout %a : tensor<{m}x{k}x{ab}, #blocked> -> tensor<{m}x{k}x{ab}, {a_op}>",
        f"%bd = ttg.convert_layout %b : tensor<{k}x{n}x{ab}, #blocked> -> tensor<{k}x{n}x{ab}, {b_op}>",
        f"%cm = ttg.convert_layout %c : tensor<{m}x{n}x{acc}, #blocked> -> tensor<{m}x{n}x{acc}, #mma>",
        f"%dm = tt.dot %ad, %bd, %cm{prec} : tensor<{m}x{k}x{ab}, {a_op}> * tensor<{k}x{n}x{ab}, {b_op}> "
        f"-> tensor<{m}x{n}x{acc}, #mma>",
        f"%d = ttg.convert_layout %dm : tensor<{m}x{n}x{acc}, #mma> -> tensor<{m}x{n}x{acc}, #blocked>",
        f"tt.store %d_p, %d : tensor<{m}x{n}x!tt.ptr<{acc}>, #blocked>",
        "tt.return",
    ]
    body = "\n    ".join(lines)
    return f"""
#blocked = #ttg.blocked<{{sizePerThread = [1, 1], threadsPerWarp = [1, {lanes}], warpsPerCTA = [{warps}, 1], order = [1, 0]}}>
#mma = {parent}
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {warps} : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @dot(%a0: !tt.ptr<{ab}>, %b0: !tt.ptr<{ab}>, %c0: !tt.ptr<{acc}>, %d0: !tt.ptr<{acc}>) {{
    {body}
  }}
}}
"""


def run(text: str, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Run @dot over the leading (program) axis of a, b, c; returns d."""
    d = np.zeros_like(c)
    layoutkit.simulate(parse_module(text), "dot", grid=a.shape[0], args=[a, b, c, d])
    return d


def inputs(rng, programs, m, n, k, ab="f16", acc="f32"):
    if ab == "i8":
        a = rng.integers(-128, 128, (programs, m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (programs, k, n)).astype(np.int8)
        c = rng.integers(-(2**20), 2**20, (programs, m, n)).astype(np.int32)
        return a, b, c
    a = rng.standard_normal((programs, m, k)).astype(NUMPY.get(ab, np.float32))
    b = rng.standard_normal((programs, k, n)).astype(NUMPY.get(ab, np.float32))
    c = rng.standard_normal((programs, m, n)).astype(NUMPY[acc])
    return a, b, c


def tf32_truncated(x: np.ndarray) -> np.ndarray:
    """tf32 as the tensor core reads an f32: sign, 8 exponent bits, the 10 high mantissa
    bits; the 13 low bits cleared (toward zero)."""
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


@pytest.fixture
def rng():
    return np.random.default_rng(1212)


MMA_V2 = "#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = {warps}, instrShape = [16, 8]}}>"


# ----------------------------------------------------------------------- nvidia_mma v2


@pytest.mark.parametrize("warps_per_cta, warps", [("[2, 2]", 4), ("[4, 1]", 4), ("[1, 2]", 2)])
@pytest.mark.parametrize("k_width", [2, 4])
def test_mma_v2_f16_equals_numpy(warps_per_cta, warps, k_width, rng):
    m, n, k = 64, 32, 32
    a, b, c = inputs(rng, 3, m, n, k)
    d = run(dot_kernel(m, n, k, MMA_V2.format(warps=warps_per_cta), k_width=k_width, warps=warps), a, b, c)
    expected = a.astype(np.float64) @ b.astype(np.float64) + c
    np.testing.assert_allclose(d, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("k_width", [2, 4])
def test_mma_v2_bf16_equals_numpy(k_width, rng):
    import ml_dtypes

    m, n, k = 32, 32, 64
    a, b, c = inputs(rng, 2, m, n, k, ab="f32")
    a, b = a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16)
    d = run(dot_kernel(m, n, k, MMA_V2.format(warps="[2, 2]"), ab="bf16", k_width=k_width), a, b, c)
    expected = a.astype(np.float64) @ b.astype(np.float64) + c  # bf16 products exact
    np.testing.assert_allclose(d, expected, rtol=1e-5, atol=1e-5)


def test_mma_v2_f16_accumulator_rounds_once(rng):
    m, n, k = 32, 16, 32
    a, b, c = inputs(rng, 1, m, n, k, acc="f16")
    d = run(dot_kernel(m, n, k, MMA_V2.format(warps="[2, 1]"), acc="f16", warps=2), a, b, c)
    expected = (a.astype(np.float64) @ b.astype(np.float64) + c).astype(np.float16)
    np.testing.assert_allclose(d.astype(np.float32), expected.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_mma_v2_tf32_truncates_inputs(rng):
    m, n, k = 32, 32, 32
    a, b, c = inputs(rng, 2, m, n, k, ab="f32")
    d = run(dot_kernel(m, n, k, MMA_V2.format(warps="[2, 2]"), ab="f32", k_width=1, precision="tf32"), a, b, c)
    expected = tf32_truncated(a).astype(np.float64) @ tf32_truncated(b).astype(np.float64) + c
    np.testing.assert_allclose(d, expected, rtol=1e-5, atol=1e-5)
    full = a.astype(np.float64) @ b.astype(np.float64) + c
    assert np.abs(d - full).max() > 1e-3  # the rounding is visible: tf32 keeps ~3 decimal digits


@pytest.mark.parametrize("precision", ["ieee", None, "tf32x3", "bf16x3", "bf16x6"])
def test_mma_v2_f32_precise_modes_reach_f32_accuracy(precision, rng):
    """ieee (also when absent: Triton's default) and the split modes approach the f64
    product; tf32x3 / bf16x3 keep ~2^-21 of each term, bf16x6 ~2^-24."""
    m, n, k = 32, 32, 32
    a, b, c = inputs(rng, 1, m, n, k, ab="f32")
    d = run(dot_kernel(m, n, k, MMA_V2.format(warps="[2, 2]"), ab="f32", k_width=1, precision=precision), a, b, c)
    full = a.astype(np.float64) @ b.astype(np.float64) + c
    tolerance = {"bf16x3": 3e-4, "tf32x3": 5e-5}.get(precision, 2e-5)
    np.testing.assert_allclose(d, full, rtol=0, atol=tolerance)
    truncated = tf32_truncated(a).astype(np.float64) @ tf32_truncated(b).astype(np.float64) + c
    assert np.abs(d - full).max() < np.abs(truncated - full).max() / 4


@pytest.mark.parametrize("element, k_width", [("f8E4M3FN", 4), ("f8E5M2", 8)])
def test_mma_v2_fp8_products_are_exact_in_f32(element, k_width, rng):
    import ml_dtypes

    dtype = {"f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2}[element]
    m, n, k = 32, 32, 64
    a, b, c = inputs(rng, 2, m, n, k, ab="f32")
    a, b = a.astype(dtype), b.astype(dtype)
    d = run(dot_kernel(m, n, k, MMA_V2.format(warps="[2, 2]"), ab=element, k_width=k_width), a, b, c)
    np.testing.assert_allclose(d, a.astype(np.float64) @ b.astype(np.float64) + c, rtol=1e-5, atol=1e-5)


def test_mma_v2_i8_is_exact(rng):
    m, n, k = 32, 32, 64
    a, b, c = inputs(rng, 2, m, n, k, ab="i8", acc="i32")
    d = run(dot_kernel(m, n, k, MMA_V2.format(warps="[2, 2]"), ab="i8", acc="i32", k_width=4), a, b, c)
    np.testing.assert_array_equal(d, a.astype(np.int64) @ b.astype(np.int64) + c)


# ----------------------------------------------------------------------- amd_mfma (gfx942)

MFMA = "#ttg.amd_mfma<{{version = 3, warpsPerCTA = {warps}, instrShape = {instr}, isTransposed = {t}}}>"


@pytest.mark.parametrize("instr, k_width", [("[32, 32, 8]", 4), ("[32, 32, 8]", 8), ("[16, 16, 16]", 4)])
@pytest.mark.parametrize("transposed", ["true", "false"])
def test_mfma_f16_equals_numpy(instr, k_width, transposed, rng):
    m, n, k = 64, 64, 32
    a, b, c = inputs(rng, 2, m, n, k)
    parent = MFMA.format(warps="[2, 2]", instr=instr, t=transposed)
    d = run(dot_kernel(m, n, k, parent, k_width=k_width, lanes=64), a, b, c)
    np.testing.assert_allclose(d, a.astype(np.float64) @ b.astype(np.float64) + c, rtol=1e-5, atol=1e-5)


def test_mfma_xf32_truncates_like_tf32(rng):
    m, n, k = 32, 64, 32
    a, b, c = inputs(rng, 1, m, n, k, ab="f32")
    parent = MFMA.format(warps="[4, 1]", instr="[32, 32, 4]", t="true")
    d = run(dot_kernel(m, n, k, parent, ab="f32", k_width=2, lanes=64, precision="tf32"), a, b, c)
    expected = tf32_truncated(a).astype(np.float64) @ tf32_truncated(b).astype(np.float64) + c
    np.testing.assert_allclose(d, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("m, n, k, k_width, parent, warps, lanes", [
    (16, 8, 16, 4, MMA_V2.format(warps="[1, 1]"), 1, 32),   # one instruction tile, K padded by kWidth 4
    (16, 16, 16, 4, MMA_V2.format(warps="[2, 2]"), 4, 32),  # fewer rows than warps x 16: warps duplicate
    (32, 32, 8, 4, MFMA.format(warps="[1, 1]", instr="[32, 32, 8]", t="true"), 1, 64),
    (16, 16, 64, 8, MFMA.format(warps="[2, 2]", instr="[16, 16, 16]", t="false"), 4, 64),
])
def test_small_and_replicated_tiles_equal_numpy(m, n, k, k_width, parent, warps, lanes, rng):
    a, b, c = inputs(rng, 2, m, n, k)
    d = run(dot_kernel(m, n, k, parent, k_width=k_width, warps=warps, lanes=lanes), a, b, c)
    np.testing.assert_allclose(d, a.astype(np.float64) @ b.astype(np.float64) + c, rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------- FMA (blocked parent)

FMA_PARENT = "#ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>"


@pytest.mark.parametrize("ab", ["f16", "f32"])
def test_fma_dot_equals_numpy_and_ignores_tf32(ab, rng):
    """Integer-valued inputs: every partial sum is exact, whatever the order; tf32 (which
    Triton's FMA lowering ignores) would have changed the f32 values with low mantissa bits."""
    m, n, k = 32, 64, 16
    a = rng.integers(-8, 8, (2, m, k)).astype(NUMPY[ab])
    b = rng.integers(-8, 8, (2, k, n)).astype(NUMPY[ab])
    if ab == "f32":
        a = a + np.float32(2**-12)  # below tf32's precision: truncation would drop it
    c = rng.integers(-8, 8, (2, m, n)).astype(np.float32)
    d = run(dot_kernel(m, n, k, FMA_PARENT, ab=ab, k_width=None, precision="tf32"), a, b, c)
    np.testing.assert_allclose(d, a.astype(np.float64) @ b.astype(np.float64) + c, rtol=0, atol=1e-4)


# ----------------------------------------------------------------------- wrong encodings


def _fails(text: str, pattern: str, m: int = 32) -> None:
    a, b, c = inputs(np.random.default_rng(0), 1, m, 32, 32)
    with pytest.raises(LayoutError, match=pattern):
        run(text, a, b, c)


def test_kwidth_that_does_not_fit_the_element_type_is_reported_with_op_and_line():
    text = dot_kernel(32, 32, 32, MMA_V2.format(warps="[2, 2]"), k_width=1)  # f16 needs 2 or 4
    line = next(i for i, s in enumerate(text.splitlines(), 1) if "tt.dot" in s)
    _fails(text, rf"@dot: %dm = tt.dot .*\(line {line}\): kWidth: 1 with f16 elements")


def test_mismatched_kwidth_between_a_and_b_is_reported():
    text = dot_kernel(32, 32, 32, MMA_V2.format(warps="[2, 2]"),
                      b_op="#ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>")
    _fails(text, r"tt.dot .*kWidth: mismatching kWidth between a \(2\) and b \(4\)")


def test_mfma_kwidth_below_the_instruction_k_is_reported():
    parent = MFMA.format(warps="[2, 2]", instr="[32, 32, 8]", t="true")
    _fails(dot_kernel(32, 32, 32, parent, k_width=2, lanes=64), r"tt.dot .*not a multiple of the MFMA 32x32x8")


def test_swapped_opidx_is_rejected_at_its_line():
    text = dot_kernel(32, 32, 32, MMA_V2.format(warps="[2, 2]"),
                      a_op="#ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>")
    with pytest.raises(LayoutError, match=r"operand a must have the encoding"):
        parse_module(text)


def test_hopper_accumulator_needs_warp_group_dot():
    parent = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>"
    _fails(dot_kernel(64, 32, 32, parent, b_op="#blocked"), r"tt.dot .*ttng.warp_group_dot, not tt.dot", m=64)


def test_operand_not_in_a_dot_op_encoding_is_reported():
    _fails(dot_kernel(32, 32, 32, MMA_V2.format(warps="[2, 2]"), b_op="#blocked"),
           r"tt.dot .*operand b: expected #ttg.dot_op<\{opIdx = 1, parent = #ttg.nvidia_mma")


def test_operand_held_by_another_warp_is_an_error():
    """The plan reads each warp's operands from its own lanes only: A laid out for a parent
    with warps along M ([4, 1]: 16 rows per warp) does not give the warps of a [1, 4]
    result (each needing all 64 rows) their rows."""
    result = parse_layout(MMA_V2.format(warps="[1, 4]"))
    other = parse_layout(MMA_V2.format(warps="[4, 1]"))
    a = parse_layout(f"#ttg.dot_op<{{opIdx = 0, parent = {other}, kWidth = 2}}>")
    b = parse_layout(f"#ttg.dot_op<{{opIdx = 1, parent = {result}, kWidth = 2}}>")
    dists = [_distribution(layout, shape, 128) for layout, shape in
             ((a, (64, 32)), (b, (32, 32)), (result, (64, 32)))]
    with pytest.raises(LayoutError, match=r"operand a: element .* needed by warp \d is held by none of its lanes"):
        dot_plan(*dists, 32)
    good_a = parse_layout(f"#ttg.dot_op<{{opIdx = 0, parent = {result}, kWidth = 2}}>")
    plan = dot_plan(_distribution(good_a, (64, 32), 128), *dists[1:], 32)
    assert plan.a_index.shape == (4, 64, 32)  # each warp: all 64 rows of A, all of K


# ----------------------------------------------------------------------- goldens (sm_80, gfx942)

GOLDENS = Path(__file__).parents[1] / "frontend" / "goldens"


def golden(kernel: str, target: str):
    return parse_module((GOLDENS / kernel / f"full.{target}.ttgir").read_text())


@pytest.mark.parametrize("kernel, m, n, k, target", [
    ("matmul_64x64x32", 80, 112, 48, "cuda-80"),
    ("matmul_64x64x32", 64, 64, 32, "cuda-80"),
    ("matmul_128x128x64", 144, 208, 80, "cuda-80"),
    ("matmul_64x64x32", 80, 112, 48, "hip-gfx942"),
    ("matmul_128x128x64", 144, 208, 80, "hip-gfx942"),
])
def test_golden_matmul_equals_numpy(kernel, m, n, k, target, rng):
    """Triton's pipelined mma v2 / MFMA matmuls (kWidth 4 operands read from shared memory),
    tails in M, N and K: the output equals the f64 product rounded to f16."""
    bm = int(kernel.split("_")[1].split("x")[0])
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), 5, np.float16)
    grid = -(-m // bm) * -(-n // bm)
    layoutkit.simulate(golden(kernel, target), "matmul", grid=grid, args=[a, b, c, m, n, k, k, n, n])
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), expected.astype(np.float32), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("target", ["cuda-80", "hip-gfx942"])
def test_golden_dot_tf32_epilogue(target, rng):
    """f32 operands (sm_80: mma v2 kWidth 1; gfx942: MFMA xf32 32x32x4, kWidth 2) with
    inputPrecision = tf32: bias + relu of the product of the truncated inputs."""
    a, b = rng.standard_normal((32, 32)).astype(np.float32), rng.standard_normal((32, 64)).astype(np.float32)
    bias = rng.standard_normal(64).astype(np.float32)
    c = np.zeros((32, 64), np.float32)
    layoutkit.simulate(golden("dot_tf32_epilogue", target), "dot_tf32_epilogue", grid=1, args=[a, b, bias, c])
    expected = np.maximum(tf32_truncated(a).astype(np.float64) @ tf32_truncated(b).astype(np.float64) + bias, 0)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)
    assert np.abs(c - np.maximum(a.astype(np.float64) @ b + bias, 0)).max() > 1e-3


@pytest.mark.parametrize("target", ["cuda-80", "hip-gfx942"])
def test_golden_attention(target, rng):
    seq, head, scale = 100, 64, 0.125  # 2 query blocks, 2 key blocks: the second masked
    q, k, v = (rng.standard_normal((seq, head)).astype(np.float16) for _ in range(3))
    out = np.zeros((seq, head), np.float16)
    layoutkit.simulate(golden("attention_fwd", target), "attention_fwd", grid=2,
                       args=[q, k, v, out, seq, head, scale])
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    expected = (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(out.astype(np.float32), expected, rtol=1e-2, atol=3e-3)


@pytest.mark.parametrize("parent, k_width, shape, lanes, slots", [
    ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2, 1], instrShape = [1, 16, 8]}>",
     4, (4, 32, 16, 32), 32, 128),
    ("#ttg.blocked<{sizePerThread = [1, 2, 2], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 1, 2], order = [2, 1, 0]}>",
     None, (4, 16, 8, 32), 32, 128),
    ("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 1, 2], instrShape = [32, 32, 8], isTransposed = false}>",
     4, (2, 32, 16, 64), 64, 256),
])
def test_batched_dot_plan_equals_numpy(parent, k_width, shape, lanes, slots):
    """3-D (batched) dots: operands spread by their dot_op tables, multiplied warp by warp by
    the plan, equal numpy's batched matmul read through the result's table."""
    batch, m, k, n = shape
    kw = "" if k_width is None else f", kWidth = {k_width}"
    layouts = [parse_layout(f"#ttg.dot_op<{{opIdx = {i}, parent = {parent}{kw}}}>") for i in (0, 1)]
    layouts.append(parse_layout(parent))
    da, db, dd = (_distribution(layout, s, slots) for layout, s in
                  zip(layouts, ((batch, m, k), (batch, k, n), (batch, m, n))))
    plan = dot_plan(da, db, dd, lanes)
    rng = np.random.default_rng(3)
    a, b = rng.integers(-5, 5, (batch, m, k)), rng.integers(-5, 5, (batch, k, n))
    held_a, held_b = a.reshape(-1)[da.linear].reshape(-1), b.reshape(-1)[db.linear].reshape(-1)
    product = np.matmul(held_a[plan.a_index], held_b[plan.b_index])
    np.testing.assert_array_equal(product.reshape(-1)[plan.d_index], np.matmul(a, b).reshape(-1)[dd.linear])
