"""TTGIR shared memory on the simulator: memdesc views placed by the shared encodings, async
copies completing at their wait (races reported), Hopper warp_group_dot; the sm_90 matmul and
attention goldens equal numpy with masked tails; measured bank wavefronts equal analyze."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.backends.simt.dot_inputs import to_tf32
from layoutkit.backends.simt.memdesc import tile_offsets
from layoutkit.layouts.parse import parse_layout
from layoutkit.triton import analyze

GOLDENS = Path(__file__).parents[1] / "frontend" / "goldens"


def golden(kernel: str, target: str = "cuda-90") -> str:
    return (GOLDENS / kernel / f"full.{target}.ttgir").read_text()


@pytest.fixture
def rng():
    return np.random.default_rng(7)


# ----------------------------------------------------------------------- goldens (sm_90)


@pytest.mark.parametrize("kernel, m, n, k", [("matmul_64x64x32", 80, 112, 48),
                                             ("matmul_128x128x64", 144, 208, 80),
                                             ("matmul_64x64x32", 64, 64, 32)])
def test_hopper_matmul_equals_numpy(kernel, m, n, k, rng):
    """Tails in M, N and K (not multiples of the block): masked copies fill zeros."""
    bm = int(re.search(r"(\d+)x", kernel).group(1))
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), 5, np.float16)
    grid = -(-m // bm) * -(-n // bm)
    layoutkit.simulate(golden(kernel), "matmul", grid=grid, args=[a, b, c, m, n, k, k, n, n])
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), expected.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_hopper_attention_equals_numpy(rng):
    seq, head, scale = 100, 64, 0.125  # 2 query blocks, 2 key blocks: the second masked
    q, k, v = (rng.standard_normal((seq, head)).astype(np.float16) for _ in range(3))
    out = np.zeros((seq, head), np.float16)
    layoutkit.simulate(golden("attention_fwd"), "attention_fwd", grid=2, args=[q, k, v, out, seq, head, scale])
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    expected = (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(out.astype(np.float32), expected, rtol=1e-2, atol=3e-3)


def test_missing_async_wait_in_the_pipelined_loop_is_a_race():
    """The loop's wait leaves 3 groups in flight instead of 2: of the prologue's groups
    (A0, B0, A1, B1, one copy each) only A0 lands, so the wgmma's B operand is a race."""
    text = golden("matmul_64x64x32").replace("{num = 2 : i32}", "{num = 3 : i32}")
    assert text != golden("matmul_64x64x32")
    a, b, c = np.ones((64, 32), np.float16), np.ones((32, 64), np.float16), np.zeros((64, 64), np.float16)
    with pytest.raises(LayoutError) as err:
        layoutkit.simulate(text, "matmul", grid=1, args=[a, b, c, 64, 64, 32, 32, 64, 64])
    message = str(err.value)
    assert "ttng.warp_group_dot" in message and "race: reads shared memory '%b'" in message
    assert "'%b' at scripts/triton_kernels.py:94 while" in message  # the dot's source line
    assert "ttg.async_copy_global_to_local at line" in message and "triton_kernels.py:93" in message
    assert "block (0, 0, 0), thread (0, 0, 0)" in message


# ----------------------------------------------------------------------- hand-written kernels

HEADER = """
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#half = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#shared = SHARED
#sharedT = SHARED_T
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
"""


def pointers(name: str, base: str, layout: str, rows: int, cols: int, stride: int) -> str:
    """SSA lines making %name: row-major pointers base + stride * i + j of a rows x cols tensor."""
    r = f"tensor<{rows}xi32, #ttg.slice<{{dim = 1, parent = {layout}}}>>"
    c = f"tensor<{cols}xi32, #ttg.slice<{{dim = 0, parent = {layout}}}>>"
    t = f"tensor<{rows}x{cols}xi32, {layout}>"
    return f"""
    %{name}_r = tt.make_range {{end = {rows} : i32, start = 0 : i32}} : {r}
    %{name}_re = tt.expand_dims %{name}_r {{axis = 1 : i32}} : {r} -> tensor<{rows}x1xi32, {layout}>
    %{name}_s = arith.constant dense<{stride}> : tensor<{rows}x1xi32, {layout}>
    %{name}_rm = arith.muli %{name}_re, %{name}_s : tensor<{rows}x1xi32, {layout}>
    %{name}_c = tt.make_range {{end = {cols} : i32, start = 0 : i32}} : {c}
    %{name}_ce = tt.expand_dims %{name}_c {{axis = 0 : i32}} : {c} -> tensor<1x{cols}xi32, {layout}>
    %{name}_rb = tt.broadcast %{name}_rm : tensor<{rows}x1xi32, {layout}> -> {t}
    %{name}_cb = tt.broadcast %{name}_ce : tensor<1x{cols}xi32, {layout}> -> {t}
    %{name}_o = arith.addi %{name}_rb, %{name}_cb : {t}
    %{name}_b = tt.splat %{base} : !tt.ptr<f16> -> tensor<{rows}x{cols}x!tt.ptr<f16>, {layout}>
    %{name} = tt.addptr %{name}_b, %{name}_o : tensor<{rows}x{cols}x!tt.ptr<f16>, {layout}>, {t}
"""


def views_kernel(shared: str, shared_t: str) -> str:
    """x (64x64) stored into sub-buffer 1 of a 2x64x64 allocation; read back as a dot operand
    (ldmatrix), transposed (memdesc_trans, column-wise threads), and its right half
    (memdesc_subslice)."""
    mem = "!ttg.memdesc<64x64xf16, #shared, #smem, mutable, 2x64x64>"
    return HEADER.replace("SHARED_T", shared_t).replace("SHARED", shared) + f"""
  tt.func public @views(%x: !tt.ptr<f16>, %o1: !tt.ptr<f16>, %o2: !tt.ptr<f16>, %o3: !tt.ptr<f16>) {{
{pointers("px", "x", "#blocked", 64, 64, 64)}
{pointers("p1", "o1", "#blocked", 64, 64, 64)}
{pointers("p2", "o2", "#col", 64, 64, 64)}
{pointers("p3", "o3", "#half", 64, 32, 32)}
    %v = tt.load %px : tensor<64x64x!tt.ptr<f16>, #blocked>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %c1 = arith.constant 1 : i32
    %s = ttg.memdesc_index %buf[%c1] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> {mem}
    ttg.local_store %v, %s : tensor<64x64xf16, #blocked> -> {mem}
    %a = ttg.local_load %s : {mem} -> tensor<64x64xf16, #dot>
    %ab = ttg.convert_layout %a : tensor<64x64xf16, #dot> -> tensor<64x64xf16, #blocked>
    tt.store %p1, %ab : tensor<64x64x!tt.ptr<f16>, #blocked>
    %t = ttg.memdesc_trans %s {{order = array<i32: 1, 0>}} : {mem} -> !ttg.memdesc<64x64xf16, #sharedT, #smem, mutable, 2x64x64>
    %tl = ttg.local_load %t : !ttg.memdesc<64x64xf16, #sharedT, #smem, mutable, 2x64x64> -> tensor<64x64xf16, #col>
    tt.store %p2, %tl : tensor<64x64x!tt.ptr<f16>, #col>
    %h = ttg.memdesc_subslice %s[0, 32] : {mem} -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 2x64x64>
    %hl = ttg.local_load %h : !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 2x64x64> -> tensor<64x32xf16, #half>
    tt.store %p3, %hl : tensor<64x32x!tt.ptr<f16>, #half>
    tt.return
  }}
}}
"""


ENCODINGS = {
    "swizzled": ("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
                 "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>"),
    "unswizzled": ("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
                   "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>"),
    "nvmma": ("#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>",
              "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16}>"),
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_memdesc_views_round_trip(encoding, rng):
    x = rng.standard_normal((64, 64)).astype(np.float16)
    o1, o2, o3 = np.zeros_like(x), np.zeros_like(x), np.zeros((64, 32), np.float16)
    layoutkit.simulate(views_kernel(*ENCODINGS[encoding]), "views", grid=1, args=[x, o1, o2, o3])
    np.testing.assert_array_equal(o1, x)
    np.testing.assert_array_equal(o2, x.T)
    np.testing.assert_array_equal(o3, x[:, 32:])


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_measured_bank_wavefronts_equal_analyze(encoding):
    """Each local_store / local_load's wavefronts as executed (2 blocks) equal analyze's row
    for that op, times the blocks."""
    text = views_kernel(*ENCODINGS[encoding])
    x = np.zeros((64, 64), np.float16)
    report = layoutkit.simulate(text, "views", grid=2, bank_conflicts=True,
                                args=[x, x.copy(), x.copy(), np.zeros((64, 32), np.float16)])
    measured = {int(re.match(r"line (\d+)", label).group(1)): value
                for label, value in report.shared_wavefronts.items()}
    rows = {r.ir_line: r for r in analyze(text).rows if r.op in ("ttg.local_store", "ttg.local_load")}
    assert len(rows) == 4 and set(measured) == set(rows)
    for line, row in rows.items():
        assert measured[line] == (2 * row.cost["wavefronts"], 2 * row.cost["lower_bound"]), (line, row.summary)
    if encoding == "unswizzled":  # the transposed read hits one bank per column: conflicts
        assert any(w > ideal for w, ideal in measured.values())


def test_tile_offsets_follow_the_swizzle_formula():
    """Element (i, r, c) of 3x64x32 at 2048 i + 32 r + 8 ((c // 8) ^ (r // 2) % 4) + c % 8."""
    enc = parse_layout("#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>")
    offsets, span = tile_offsets(enc, (3, 64, 32))
    i, r, c = np.indices((3, 64, 32))
    expected = 2048 * i + 32 * r + 8 * ((c // 8) ^ ((r // 2) % 4)) + c % 8
    assert span == 3 * 2048
    np.testing.assert_array_equal(offsets, expected.reshape(-1))


def test_tile_offsets_of_a_padded_encoding_skip_the_padding():
    """[32:+4]: 4 unused elements after every 32, so element e sits at e + 4 (e // 32)."""
    enc = parse_layout("#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [16, 32]}>")
    offsets, span = tile_offsets(enc, (2, 16, 32))
    e = np.arange(512)
    tile = e + 4 * (e // 32)
    assert span == 2 * int(enc.hardware_dims((16, 32))["offset"])
    np.testing.assert_array_equal(offsets[:512], tile)
    np.testing.assert_array_equal(offsets[512:], tile + span // 2)


ASYNC = HEADER.replace("SHARED_T", "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>") \
    .replace("SHARED", "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>") + f"""
  tt.func public @copy(%x: !tt.ptr<f16>, %o: !tt.ptr<f16>, %n: i32) {{
{pointers("px", "x", "#blocked", 64, 64, 64)}
{pointers("po", "o", "#blocked", 64, 64, 64)}
    %nn = tt.splat %n : i32 -> tensor<64x64xi32, #blocked>
    %in = arith.cmpi slt, %px_o, %nn : tensor<64x64xi32, #blocked>
    %other = arith.constant dense<3.0> : tensor<64x64xf16, #blocked>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %c0 = arith.constant 0 : i32
    %s = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %t = ttg.async_copy_global_to_local %px, %s mask %in other %other : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    %g = ttg.async_commit_group tokens %t
    WAIT
    %v = ttg.local_load %s : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    tt.store %po, %v : tensor<64x64x!tt.ptr<f16>, #blocked>
    tt.return
  }}
}}
"""


def test_async_copy_lands_at_its_wait_with_masked_elements_other(rng):
    x = rng.standard_normal(64 * 64).astype(np.float16)
    out = np.zeros_like(x)
    n = 3000  # elements past n are masked: they take `other`
    layoutkit.simulate(ASYNC.replace("WAIT", "%w = ttg.async_wait %g {num = 0 : i32}"), "copy", grid=1,
                       args=[x, out, n])
    np.testing.assert_array_equal(out[:n], x[:n])
    assert (out[n:] == 3).all()


def test_local_load_before_the_async_wait_is_a_race():
    x = np.zeros(64 * 64, np.float16)
    with pytest.raises(LayoutError) as err:
        layoutkit.simulate(ASYNC.replace("WAIT", ""), "copy", grid=2, args=[x, x.copy(), 4096])
    message = str(err.value)
    assert "ttg.local_load" in message and "race: reads shared memory '%buf' element (0, 0)" in message
    assert "ttg.async_copy_global_to_local at line" in message and "block (0, 0, 0), thread (0, 0, 0)" in message


def test_a_wait_leaving_the_group_in_flight_is_still_a_race():
    x = np.zeros(64 * 64, np.float16)
    with pytest.raises(LayoutError, match="race: reads shared memory"):
        layoutkit.simulate(ASYNC.replace("WAIT", "%w = ttg.async_wait %g {num = 1 : i32}"), "copy", grid=1,
                           args=[x, x.copy(), 4096])


def test_local_load_with_an_impossible_result_encoding_is_reported():
    """The result's layout spreads over 8 warps; the kernel runs 4."""
    text = ASYNC.replace("WAIT", "%w = ttg.async_wait %g {num = 0 : i32}").replace(
        "%v = ttg.local_load %s : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>",
        "%v8 = ttg.local_load %s : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, "
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>>\n"
        "    %v = ttg.convert_layout %v8 : tensor<64x64xf16, #ttg.blocked<{sizePerThread = [1, 8], "
        "threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>> -> tensor<64x64xf16, #blocked>")
    x = np.zeros(64 * 64, np.float16)
    with pytest.raises(LayoutError, match=r"ttg.local_load.*spreads over 8 warps.*128 threads"):
        layoutkit.simulate(text, "copy", grid=1, args=[x, x.copy(), 4096])


def test_tf32_reads_drop_the_13_low_mantissa_bits():
    x = np.array([1 + 2.0**-11, 1 + 2.0**-10, -(1 + 2.0**-11 + 2.0**-10)], np.float32)
    np.testing.assert_array_equal(to_tf32(x), np.array([1.0, 1 + 2.0**-10, -(1 + 2.0**-10)], np.float32))
