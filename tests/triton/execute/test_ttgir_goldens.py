"""TTGIR goldens (Triton 3.9's full sm_80 / sm_90 pipelines) run on the simulator with their
layouts: every output equals numpy on random inputs, with masked tails where the kernel
masks (sizes not a multiple of the block)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.ir import parse_module

GOLDENS = Path(__file__).parents[1] / "frontend" / "goldens"
TARGETS = ("cuda-80", "cuda-90", "hip-gfx942")


def module(kernel: str, target: str):
    return parse_module((GOLDENS / kernel / f"full.{target}.ttgir").read_text())


@pytest.fixture
def rng():
    return np.random.default_rng(12)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [1024, 3000, 1])
def test_vector_add(target, n, rng):
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(n, 7, np.float32)
    layoutkit.simulate(module("vector_add", target), "vector_add", grid=-(-n // 1024), args=[x, y, out, n])
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("target", TARGETS)
def test_softmax_rows_masked_tail(target, rng):
    rows, cols, stride = 10, 200, 256  # 3 programs of 4 rows: the last has 2 rows masked
    x = rng.standard_normal((rows, stride)).astype(np.float16)
    out = np.full_like(x, 9)
    layoutkit.simulate(module("softmax_rows", target), "softmax_rows", grid=3,
                       args=[x, out, rows, cols, stride])
    xf = x[:, :cols].astype(np.float32)
    e = np.exp(xf - xf.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out[:, :cols].astype(np.float32), (e / e.sum(axis=1, keepdims=True)),
                               rtol=2e-3, atol=1e-4)
    assert (out[:, cols:] == 9).all()  # masked columns never stored


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("axis", [0, 1])
def test_reduce_sum(target, axis, rng):
    tiles, r, c = 3, 32, 64
    x = rng.integers(-50, 50, (tiles * r, c)).astype(np.float32)  # exact sums in any order
    out = np.zeros(tiles * (c if axis == 0 else r), np.float32)
    layoutkit.simulate(module(f"reduce_sum_axis{axis}", target), "reduce_sum_2d", grid=tiles,
                       args={"in_ptr": x, "out_ptr": out, "stride_row": c})
    np.testing.assert_array_equal(out, x.reshape(tiles, r, c).sum(axis=axis + 1).reshape(-1))


@pytest.mark.parametrize("target", TARGETS)
def test_layer_norm_masked_tail(target, rng):
    rows, cols = 5, 300  # BLOCK 512: 212 columns masked
    x = rng.standard_normal((rows, cols)).astype(np.float16)
    w, b = rng.standard_normal(cols).astype(np.float32), rng.standard_normal(cols).astype(np.float32)
    y = np.zeros_like(x)
    mean, rstd = np.zeros(rows, np.float32), np.zeros(rows, np.float32)
    layoutkit.simulate(module("layer_norm_fwd", target), "layer_norm_fwd", grid=rows,
                       args=[x, w, b, y, mean, rstd, cols, cols, 1e-5])
    xf = x.astype(np.float64)
    mu = xf.mean(axis=1)
    rs = 1 / np.sqrt(((xf - mu[:, None]) ** 2).mean(axis=1) + 1e-5)
    np.testing.assert_allclose(mean, mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, rs, rtol=1e-5)
    expected = ((xf - mu[:, None]) * rs[:, None] * w + b).astype(np.float16)
    np.testing.assert_allclose(y.astype(np.float32), expected.astype(np.float32), rtol=4e-3, atol=4e-3)


def test_out_of_bounds_load_names_block_thread_and_element(rng):
    n = 3000
    x = np.zeros(n - 8, np.float32)  # 8 elements short of what the kernel reads
    y = np.zeros(n, np.float32)
    with pytest.raises(LayoutError) as err:
        layoutkit.simulate(module("vector_add", "cuda-80"), "vector_add", grid=3, args=[x, y, x.copy(), n])
    text = str(err.value)
    assert "@vector_add" in text and "tt.load" in text and "out of bounds" in text
    # element 2992 = program 2, offset 944; the layout tiles 512 elements (4 per thread, 128
    # threads) twice, so offset 944 = 512 + 4 * 108 is in thread 108's second repetition
    assert "block (2, 0, 0), thread (108, 0, 0)" in text and "element (944,)" in text


WRONG_TRANS = """
#a = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: !tt.ptr<f32>) {
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 1, parent = #a}>>
    %e = tt.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #ttg.slice<{dim = 1, parent = #a}>> -> tensor<16x1xi32, #a>
    %f = tt.broadcast %e : tensor<16x1xi32, #a> -> tensor<16x32xi32, #a>
    %t = tt.trans %f {order = array<i32: 1, 0>} : tensor<16x32xi32, #a> -> tensor<32x16xi32, #b>
    tt.return
  }
}
"""


def test_in_thread_op_with_a_wrong_result_encoding_is_reported():
    """tt.trans moves no data between threads: a result encoding (here the operand's
    blocked layout, not its transpose) whose elements other threads hold is an error."""
    with pytest.raises(LayoutError, match=r"tt.trans.*not held by that thread"):
        layoutkit.simulate(parse_module(WRONG_TRANS), "k", grid=1, args=[np.zeros(4, np.float32)])


@pytest.mark.parametrize("target", TARGETS)
def test_cumsum_rows(target, rng):
    x = rng.integers(-9, 9, (32, 128)).astype(np.float32)
    out = np.zeros_like(x)
    layoutkit.simulate(module("cumsum_rows", target), "cumsum_rows", grid=4, args=[x, out])
    np.testing.assert_array_equal(out, np.cumsum(x, axis=1))


@pytest.mark.parametrize("target", TARGETS)
def test_argmax_rows_first_index_on_ties(target, rng):
    cols = 100  # C = 128: 28 columns masked to -inf
    x = rng.standard_normal((32, cols)).astype(np.float32)
    x[3, 5] = x[3, 70] = 50  # a tie: the lower index wins
    idx, val = np.zeros(32, np.int32), np.zeros(32, np.float32)
    layoutkit.simulate(module("argmax_rows", target), "argmax_rows", grid=2, args=[x, idx, val, cols])
    np.testing.assert_array_equal(idx, x.argmax(axis=1))
    np.testing.assert_array_equal(val, x.max(axis=1))


@pytest.mark.parametrize("target", TARGETS)
def test_transpose_permute(target, rng):
    tile = rng.standard_normal((64, 32)).astype(np.float16)
    cube = rng.standard_normal((4, 8, 16)).astype(np.float32)
    tile_out, cube_out = np.zeros((32, 64), np.float16), np.zeros((16, 4, 8), np.float32)
    layoutkit.simulate(module("transpose_permute", target), "transpose_permute", grid=1,
                       args=[tile, tile_out, cube, cube_out])
    np.testing.assert_array_equal(tile_out, tile.T)
    np.testing.assert_array_equal(cube_out, cube.transpose(2, 0, 1))


@pytest.mark.parametrize("target", TARGETS)
def test_reshape_tile(target, rng):
    x = rng.standard_normal((16, 64)).astype(np.float32)
    out = np.zeros_like(x)
    layoutkit.simulate(module("reshape_tile", target), "reshape_tile", grid=1, args=[x, out])
    flat = x.reshape(-1, 16)
    np.testing.assert_array_equal(out, (flat - flat.max(axis=1, keepdims=True)).reshape(16, 64))


@pytest.mark.parametrize("target", TARGETS)
def test_outer3_reduce(target, rng):
    a, b, c = (rng.integers(-5, 5, n).astype(np.float32) for n in (8, 16, 32))
    out = np.zeros((8, 32), np.float32)
    layoutkit.simulate(module("outer3_reduce", target), "outer3_reduce", grid=1, args=[a, b, c, out])
    np.testing.assert_array_equal(out, (a[:, None, None] * b[None, :, None] + c[None, None, :]).sum(axis=1))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [1, -1])
def test_branch_and_while(target, n, rng):
    x = rng.standard_normal(128).astype(np.float32)
    out = np.zeros_like(x)
    layoutkit.simulate(module("branch_and_while", target), "branch_and_while", grid=1, args=[x, out, n, 6.0])
    y, steps = (x * 2 if n > 0 else x - 1), 0
    while y.max() < 6.0:
        y, steps = y + np.float32(1.5), steps + 1
    np.testing.assert_array_equal(out, y + steps)


def test_many_blocks_run_chunk_by_chunk(rng):
    n = 600 * 1024 - 17  # more blocks than one chunk holds (ttgir.MAX_THREADS_PER_CHUNK)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    layoutkit.simulate(module("vector_add", "cuda-80"), "vector_add", grid=600, args=[x, y, out, n])
    np.testing.assert_array_equal(out, x + y)


CONVERT = """
#a = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #ttg.blocked<{sizePerThread = [2, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: !tt.ptr<i32>) {
    %c64 = arith.constant dense<64> : tensor<32x1xi32, #a>
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #a}>>
    %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #a}>>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #a}>> -> tensor<32x1xi32, #a>
    %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #a}>> -> tensor<1x64xi32, #a>
    %rs = arith.muli %r2, %c64 : tensor<32x1xi32, #a>
    %rb = tt.broadcast %rs : tensor<32x1xi32, #a> -> tensor<32x64xi32, #a>
    %cb = tt.broadcast %c2 : tensor<1x64xi32, #a> -> tensor<32x64xi32, #a>
    %v = arith.addi %rb, %cb : tensor<32x64xi32, #a>
    %w = ttg.convert_layout %v : tensor<32x64xi32, #a> -> tensor<32x64xi32, #b>
    %bc = arith.constant dense<64> : tensor<32x1xi32, #b>
    %br = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #b}>>
    %bk = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #b}>>
    %br2 = tt.expand_dims %br {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #b}>> -> tensor<32x1xi32, #b>
    %bk2 = tt.expand_dims %bk {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #b}>> -> tensor<1x64xi32, #b>
    %brs = arith.muli %br2, %bc : tensor<32x1xi32, #b>
    %brb = tt.broadcast %brs : tensor<32x1xi32, #b> -> tensor<32x64xi32, #b>
    %bkb = tt.broadcast %bk2 : tensor<1x64xi32, #b> -> tensor<32x64xi32, #b>
    %off = arith.addi %brb, %bkb : tensor<32x64xi32, #b>
    %ps = tt.splat %p : !tt.ptr<i32> -> tensor<32x64x!tt.ptr<i32>, #b>
    %pp = tt.addptr %ps, %off : tensor<32x64x!tt.ptr<i32>, #b>, tensor<32x64xi32, #b>
    %pid = tt.get_program_id x : i32
    %pids = tt.splat %pid : i32 -> tensor<32x64xi32, #b>
    %big = arith.constant dense<2048> : tensor<32x64xi32, #b>
    %shift = arith.muli %pids, %big : tensor<32x64xi32, #b>
    %pq = tt.addptr %pp, %shift : tensor<32x64x!tt.ptr<i32>, #b>, tensor<32x64xi32, #b>
    %vv = arith.addi %w, %shift : tensor<32x64xi32, #b>
    tt.store %pq, %vv : tensor<32x64x!tt.ptr<i32>, #b>
    tt.return
  }
}
"""


def test_convert_layout_moves_every_element_to_its_destination_owner():
    """Values i*64+j built in #a, converted to #b, stored through pointers formed in #b
    from #b's own coordinates: every element lands at its index, in every block."""
    out = np.full(3 * 2048, -1, np.int32)
    layoutkit.simulate(parse_module(CONVERT), "k", grid=3, args=[out])
    np.testing.assert_array_equal(out, np.arange(3 * 2048))


@pytest.mark.parametrize("target", TARGETS)
def test_atomic_accumulate_masked_tail(target, rng):
    """fadd of every element into its bin (duplicate bins within one op and across
    programs accumulate), and the float atomic_max Triton builds from an int max (values
    >= 0) and a uint min (values < 0), per program."""
    n, block = 1000, 256  # 4 programs; the last has 24 elements masked (loaded as 0.0)
    vals = rng.integers(-40, 40, n).astype(np.float32)  # exact sums in any order
    bins = rng.integers(0, 16, n).astype(np.int32)
    total = np.full(16, 0.5, np.float32)
    best = np.full(4, -np.inf, np.float32)
    layoutkit.simulate(module("atomic_accumulate", target), "atomic_accumulate", grid=4,
                       args=[vals, bins, total, best, n])
    np.testing.assert_array_equal(total, 0.5 + np.bincount(bins, weights=vals, minlength=16))
    padded = np.zeros(4 * block, np.float32)
    padded[:n] = vals  # masked lanes take other = 0.0 and join the tl.max
    np.testing.assert_array_equal(best, padded.reshape(4, block).max(axis=1))


@pytest.mark.parametrize("target", TARGETS)
def test_elementwise_mix_masked_tail(target, rng):
    n = 1300  # BLOCK 512: 3 programs, 236 masked elements never stored
    x = rng.standard_normal(n).astype(np.float32) * 3
    h = rng.standard_normal(n).astype(np.float16) * 3
    i = rng.integers(-100, 100, n).astype(np.int32)
    out, iout = np.full(n + 5, 7, np.float32), np.full(n + 5, 7, np.int32)
    layoutkit.simulate(module("elementwise_mix", target), "elementwise_mix", grid=3,
                       args=[x, i, h, out[:n], iout[:n], n])
    y = np.maximum(x, h.astype(np.float32)) - np.minimum(x, np.float32(0))
    y = np.where(i > 3, np.sqrt(np.abs(y)), y / np.float32(3))
    y = np.clip(y, np.float32(-2), np.float32(2)) + i.astype(np.float32)
    np.testing.assert_array_equal(out[:n], y.astype(np.float16).astype(np.float32))
    j = ((i << 2) ^ (i >> 1)) & 255
    quotient = np.sign(i) * (np.abs(i) // 3)  # arith.divsi truncates toward zero
    j = j % 7 + quotient * np.abs(i)
    np.testing.assert_array_equal(iout[:n], j.astype(np.int16).astype(np.int32))
    assert (out[n:] == 7).all() and (iout[n:] == 7).all()


@pytest.mark.parametrize("target", TARGETS)
def test_join_split_cat(target, rng):
    """tt.cat (can_reorder) keeps each thread's registers, lhs then rhs: with T threads
    and k = 256 / T registers (1-D blocked, sizePerThread 1: register r of thread t holds
    t + r*T), thread t stores a[t], a[t+T], ..., b[t], b[t+T], ... at 2k t .. 2k t + 2k - 1."""
    a, b = rng.standard_normal(256).astype(np.float32), rng.standard_normal(256).astype(np.float32)
    pair, total, both = np.zeros(512, np.float32), np.zeros(256, np.float32), np.zeros(512, np.float32)
    layoutkit.simulate(module("join_split_cat", target), "join_split_cat", grid=1,
                       args=[a, b, pair, total, both])
    np.testing.assert_array_equal(pair, np.stack([a, b], axis=1).reshape(-1))
    np.testing.assert_array_equal(total, a * 2 + b * 2)
    threads = 256 if target == "hip-gfx942" else 128
    k = 256 // threads
    expected = np.concatenate([a.reshape(k, threads).T, b.reshape(k, threads).T], axis=1).reshape(-1)
    np.testing.assert_array_equal(both, expected)
    assert sorted(both) == sorted(np.concatenate([a, b]))


@pytest.mark.parametrize("target", TARGETS)
def test_gather_rows_by_warp_shuffles(target, rng):
    from layoutkit.backends.simt.machine import Stats
    from layoutkit.backends.simt.ttgir import run_triton

    src = rng.standard_normal((32, 32)).astype(np.float32)
    idx = rng.integers(0, 32, (32, 32)).astype(np.int32)
    out = np.zeros_like(src)
    stats = Stats()
    run_triton(module("gather_rows", target), "gather_rows", 1, [src, idx, out], stats)
    np.testing.assert_array_equal(out, np.take_along_axis(src, idx, axis=1))
    # each row lies in one warp with one element per lane (threadsPerWarp [1|2, 32]): every
    # index register is one shfl.idx + one select, 32 * 32 of them per program
    (counts,) = [c for op, c in stats.counts.items() if op.name == "tt.gather"]
    assert counts == {"shfl": 32 * 32, "select": 32 * 32}
    report = layoutkit.simulate(module("gather_rows", target), "gather_rows", grid=2,
                                args=[np.tile(src, (2, 1)), np.tile(idx, (2, 1)), np.zeros((64, 32), np.float32)],
                                report=True).report
    (row,) = [r for r in report.rows if r["op"] == "tt.gather"]
    assert row["thread_instructions"] == {"shfl": 2 * 32 * 32, "select": 2 * 32 * 32}


@pytest.mark.parametrize("target", TARGETS)
def test_histogram_bins_wraps_like_the_gpu(target, rng):
    """Bins are the value's low bits (64 bins >= the warp size): in-range values count as
    np.histogram; 70 lands in bin 6 and -1 in bin 63, as the GPU's ballot algorithm puts them."""
    x = rng.integers(0, 64, 1024).astype(np.int32)
    out = np.zeros(64, np.int32)
    layoutkit.simulate(module("histogram_bins", target), "histogram_bins", grid=1, args=[x, out])
    np.testing.assert_array_equal(out, np.histogram(x, bins=64, range=(0, 64))[0])
    x[:3] = [70, -1, 127]
    layoutkit.simulate(module("histogram_bins", target), "histogram_bins", grid=1, args=[x, out])
    np.testing.assert_array_equal(out, np.bincount(x & 63, minlength=64))


@pytest.mark.parametrize("target", TARGETS)
def test_a_loop_past_the_step_limit_stops_naming_the_loop(target, rng):
    x = rng.standard_normal(128).astype(np.float32)
    with pytest.raises(LayoutError, match=r"scf.while.*step limit 3000"):  # y never reaches inf
        layoutkit.simulate(module("branch_and_while", target), "branch_and_while", grid=1,
                           args=[x, np.zeros_like(x), 1, np.inf], max_steps=3000)


@pytest.mark.parametrize("target", TARGETS)
def test_transpose_tile(target, rng):
    x = rng.standard_normal((64, 64)).astype(np.float16)
    out = np.zeros_like(x)
    layoutkit.simulate(module("transpose_tile", target), "transpose_tile", grid=1, args=[x, out])
    np.testing.assert_array_equal(out, x.T)


@pytest.mark.parametrize("target", TARGETS)
def test_replicated_chain(target, rng):
    x = rng.integers(1, 50, (64, 64)).astype(np.float32)  # exact row sums, never 0
    out, row = np.zeros_like(x), np.zeros(64, np.float32)
    layoutkit.simulate(module("replicated_chain", target), "replicated_chain", grid=1, args=[x, out, row])
    scale = x.sum(axis=1)
    for d in (3, 5, 7, 11):
        if target.startswith("cuda"):  # NVIDIA's pipeline multiplies by tt.approx_divf(1, d)
            scale = scale * (np.float32(1) / np.float32(d))
        else:
            scale = scale / np.float32(d)
    np.testing.assert_array_equal(row, scale)
    np.testing.assert_array_equal(out, x / scale[:, None])


@pytest.mark.parametrize("target, threads, registers, owned", [("cuda-80", 128, 8, 2), ("hip-gfx942", 256, 4, 1)])
def test_histogram_instructions_as_triton_lowers_it(target, threads, registers, owned, rng):
    """1024 values, 64 bins: per source register 6 ballots (bits of the bin) and a popc per
    bin the lane owns (64 / warp); 64 shared counters zeroed (1 store per thread), 2
    barriers, an atomic add per owned bin, one load per result register (64 bins over the
    block: 1)."""
    from layoutkit.backends.simt.machine import Stats
    from layoutkit.backends.simt.ttgir import run_triton

    stats = Stats()
    run_triton(module("histogram_bins", target), "histogram_bins", 1,
               [rng.integers(0, 64, 1024).astype(np.int32), np.zeros(64, np.int32)], stats)
    (counts,) = [c for op, c in stats.counts.items() if op.name == "tt.histogram"]
    per_thread = {"vote.ballot": 6 * registers, "popc": owned * registers, "st.shared": 1, "bar.sync": 2,
                  "atom.shared": owned, "ld.shared": 1}
    assert counts == {k: v * threads for k, v in per_thread.items()}
