"""TTGIR ops beyond the goldens' paths, on small hand-written kernels: atomics whose
results are used (sequential consistency within one op, one performer per element and
per program), gather through shared memory, AMD buffer ops' range check, device print,
float conversions. Expected values come from numpy or from the rule in each docstring."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.backends.simt.machine import Stats
from layoutkit.backends.simt.ttgir import run_triton
from layoutkit.ir import parse_module

HEADER = """
#b = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
"""

ATOMICS = HEADER + """
  tt.func public @k(%cnt: !tt.ptr<i32>, %old: !tt.ptr<i32>, %flag: !tt.ptr<i32>, %won: !tt.ptr<i32>,
                    %progs: !tt.ptr<i32>, %each: !tt.ptr<i32>) {
    %one = arith.constant dense<1> : tensor<256xi32, #b>
    %zero = arith.constant dense<0> : tensor<256xi32, #b>
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b>
    %pid = tt.get_program_id x : i32
    %c256 = arith.constant 256 : i32
    %base = arith.muli %pid, %c256 : i32
    %bs = tt.splat %base : i32 -> tensor<256xi32, #b>
    %gi = arith.addi %bs, %r : tensor<256xi32, #b>
    %cp = tt.splat %cnt : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>, #b>
    %o = tt.atomic_rmw add, acq_rel, gpu, %cp, %one : (tensor<256x!tt.ptr<i32>, #b>, tensor<256xi32, #b>) -> tensor<256xi32, #b>
    %op = tt.splat %old : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>, #b>
    %opp = tt.addptr %op, %gi : tensor<256x!tt.ptr<i32>, #b>, tensor<256xi32, #b>
    tt.store %opp, %o : tensor<256x!tt.ptr<i32>, #b>
    %fp = tt.splat %flag : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>, #b>
    %gi1 = arith.addi %gi, %one : tensor<256xi32, #b>
    %w = tt.atomic_cas acq_rel, gpu, %fp, %zero, %gi1 : (tensor<256x!tt.ptr<i32>, #b>, tensor<256xi32, #b>, tensor<256xi32, #b>) -> tensor<256xi32, #b>
    %wp = tt.splat %won : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>, #b>
    %wpp = tt.addptr %wp, %gi : tensor<256x!tt.ptr<i32>, #b>, tensor<256xi32, #b>
    tt.store %wpp, %w : tensor<256x!tt.ptr<i32>, #b>
    %c1 = arith.constant 1 : i32
    %s = tt.atomic_rmw add, acq_rel, gpu, %progs, %c1 : (!tt.ptr<i32>, i32) -> i32
    %pid1 = arith.addi %pid, %c1 : i32
    %sp = tt.addptr %progs, %pid1 : !tt.ptr<i32>, i32
    tt.store %sp, %s : !tt.ptr<i32>
    %r64 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #b>
    %ep = tt.splat %each : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #b>
    %epp = tt.addptr %ep, %r64 : tensor<64x!tt.ptr<i32>, #b>, tensor<64xi32, #b>
    %one64 = arith.constant dense<1> : tensor<64xi32, #b>
    %c32 = arith.constant dense<32> : tensor<64xi32, #b>
    %low = arith.cmpi slt, %r64, %c32 : tensor<64xi32, #b>
    %e = tt.atomic_rmw add, acq_rel, gpu, %epp, %one64, %low : (tensor<64x!tt.ptr<i32>, #b>, tensor<64xi32, #b>, tensor<64xi1, #b>) -> tensor<64xi32, #b>
    tt.return
  }
}
"""


def test_atomics_are_sequentially_consistent_with_one_performer_per_element():
    """3 programs of 256 elements add 1 to one counter: the old values are 0..767 in
    (block, thread, register) order; a CAS 0 -> i + 1 on one flag is won by element 0
    alone; a scalar atomic runs once per program; a 64-element tensor held 4 times over
    (256 slots) adds once per element, and its mask keeps elements 32.. out."""
    cnt, old, flag, won = np.zeros(1, np.int32), np.zeros(768, np.int32), np.zeros(1, np.int32), np.zeros(768, np.int32)
    progs, each = np.zeros(4, np.int32), np.zeros(64, np.int32)
    layoutkit.simulate(parse_module(ATOMICS), "k", grid=3, args=[cnt, old, flag, won, progs, each])
    assert cnt[0] == 768
    np.testing.assert_array_equal(np.sort(old), np.arange(768))  # every old value seen once
    np.testing.assert_array_equal(old, np.arange(768))  # and in the documented order
    assert flag[0] == 1 and won[0] == 0 and (won[1:] == 1).all()
    np.testing.assert_array_equal(progs, [3, 0, 1, 2])
    np.testing.assert_array_equal(each, np.r_[np.full(32, 3), np.zeros(32)])


RMW_KINDS = HEADER + """
  tt.func public @k(%mem: !tt.ptr<$T>, %val: !tt.ptr<$T>, %old: !tt.ptr<$T>, %addr: !tt.ptr<i32>) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b>
    %vp = tt.splat %val : !tt.ptr<$T> -> tensor<256x!tt.ptr<$T>, #b>
    %vpp = tt.addptr %vp, %r : tensor<256x!tt.ptr<$T>, #b>, tensor<256xi32, #b>
    %v = tt.load %vpp : tensor<256x!tt.ptr<$T>, #b>
    %ap = tt.splat %addr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>, #b>
    %app = tt.addptr %ap, %r : tensor<256x!tt.ptr<i32>, #b>, tensor<256xi32, #b>
    %a = tt.load %app : tensor<256x!tt.ptr<i32>, #b>
    %mp = tt.splat %mem : !tt.ptr<$T> -> tensor<256x!tt.ptr<$T>, #b>
    %mpp = tt.addptr %mp, %a : tensor<256x!tt.ptr<$T>, #b>, tensor<256xi32, #b>
    %o = tt.atomic_rmw $KIND, acq_rel, gpu, %mpp, %v : (tensor<256x!tt.ptr<$T>, #b>, tensor<256x$T, #b>) -> tensor<256x$T, #b>
    %op = tt.splat %old : !tt.ptr<$T> -> tensor<256x!tt.ptr<$T>, #b>
    %opp = tt.addptr %op, %r : tensor<256x!tt.ptr<$T>, #b>, tensor<256xi32, #b>
    tt.store %opp, %o : tensor<256x!tt.ptr<$T>, #b>
    tt.return
  }
}
"""

SEQUENTIAL = {"add": lambda a, b: a + b, "fadd": lambda a, b: a + b, "max": max, "min": min,
              "umax": lambda a, b: max(a & 0xFFFFFFFF, b & 0xFFFFFFFF), "umin": lambda a, b: min(a & 0xFFFFFFFF, b & 0xFFFFFFFF),
              "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b, "exch": lambda a, b: b}


@pytest.mark.parametrize("kind", list(SEQUENTIAL))
def test_every_rmw_kind_against_a_sequential_loop(kind):
    """256 elements on 8 addresses, in element order (the thread order of this layout:
    thread t holds 2t, 2t + 1), checked against a plain Python loop doing them one by one."""
    rng = np.random.default_rng(5)
    t = "f32" if kind == "fadd" else "i32"
    dtype = np.float32 if kind == "fadd" else np.int32
    val = (rng.standard_normal(256) * 1e3).astype(dtype) if kind == "fadd" else rng.integers(-1000, 1000, 256).astype(dtype)
    addr = rng.integers(0, 8, 256).astype(np.int32)
    mem = rng.integers(-50, 50, 8).astype(dtype)
    expected_mem, expected_old = mem.copy(), np.zeros(256, dtype)
    for i in range(256):
        before = expected_mem[addr[i]]
        expected_old[i] = before
        new = SEQUENTIAL[kind](before.item(), val[i].item())
        expected_mem[addr[i]] = np.array(new).astype(np.int64).astype(np.int32) if t == "i32" else np.float32(
            np.float32(before) + val[i])
    old = np.zeros(256, dtype)
    layoutkit.simulate(parse_module(RMW_KINDS.replace("$T", t).replace("$KIND", kind)), "k", grid=1, args=[mem, val, old, addr])
    np.testing.assert_array_equal(mem, expected_mem)
    np.testing.assert_array_equal(old, expected_old)


GATHER_SHARED = """
#c = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @g(%src: !tt.ptr<f32>, %idx: !tt.ptr<i32>, %out: !tt.ptr<f32>) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #c>
    %sp = tt.splat %src : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #c>
    %spp = tt.addptr %sp, %r : tensor<128x!tt.ptr<f32>, #c>, tensor<128xi32, #c>
    %s = tt.load %spp : tensor<128x!tt.ptr<f32>, #c>
    %ip = tt.splat %idx : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>, #c>
    %ipp = tt.addptr %ip, %r : tensor<128x!tt.ptr<i32>, #c>, tensor<128xi32, #c>
    %i = tt.load %ipp : tensor<128x!tt.ptr<i32>, #c>
    %g = tt.gather %s[%i] {axis = 0 : i32} : (tensor<128xf32, #c>, tensor<128xi32, #c>) -> tensor<128xf32, #c>
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #c>
    %opp = tt.addptr %op, %r : tensor<128x!tt.ptr<f32>, #c>, tensor<128xi32, #c>
    tt.store %opp, %g : tensor<128x!tt.ptr<f32>, #c>
    tt.return
  }
}
"""


def test_gather_across_warps_goes_through_shared_memory():
    """The axis spans 4 warps: every thread stores its 1 source register, a barrier, and
    loads its 1 index register (128 threads)."""
    rng = np.random.default_rng(3)
    src, idx = rng.standard_normal(128).astype(np.float32), rng.integers(0, 128, 128).astype(np.int32)
    out = np.zeros_like(src)
    stats = Stats()
    run_triton(parse_module(GATHER_SHARED), "g", 1, [src, idx, out], stats)
    np.testing.assert_array_equal(out, src[idx])
    (counts,) = [c for op, c in stats.counts.items() if op.name == "tt.gather"]
    assert counts == {"st.shared": 128, "bar.sync": 128, "ld.shared": 128}


def test_gather_index_out_of_range_is_reported():
    idx = np.zeros(128, np.int32)
    idx[77] = 128
    with pytest.raises(LayoutError, match=r"tt.gather.*index 128 at element \(77,\) of block 0 is outside \[0, 128\)"):
        layoutkit.simulate(parse_module(GATHER_SHARED), "g", grid=1,
                           args=[np.zeros(128, np.float32), idx, np.zeros(128, np.float32)])


BUFFER = """
#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @b(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32, %shift: i32) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #a>
    %s = tt.splat %shift : i32 -> tensor<64xi32, #a>
    %o = arith.subi %r, %s : tensor<64xi32, #a>
    %ns = tt.splat %n : i32 -> tensor<64xi32, #a>
    %m = arith.cmpi slt, %r, %ns : tensor<64xi32, #a>
    %other = arith.constant dense<-7.0> : tensor<64xf32, #a>
    %v = amdg.buffer_load %x[%o], %m, %other : !tt.ptr<f32> -> tensor<64xf32, #a>
    %c40 = arith.constant dense<40> : tensor<64xi32, #a>
    %keep = arith.cmpi slt, %r, %c40 : tensor<64xi32, #a>
    amdg.buffer_store %v, %out[%o], %keep : !tt.ptr<f32> -> tensor<64xf32, #a>
    tt.return
  }
}
"""


def test_buffer_ops_drop_out_of_range_offsets_and_take_other_for_masked_elements():
    """Offsets r - 3: the 3 negative ones are beyond the 2 GiB range (read 0, stored
    nowhere); elements >= n are masked (other = -7); stores only for r < 40."""
    x = np.arange(1, 65, dtype=np.float32)
    out = np.full(64, 9, np.float32)
    layoutkit.simulate(parse_module(BUFFER), "b", grid=1, args=[x, out, 50, 3])
    r = np.arange(64)
    loaded = np.where(r < 3, 0, np.where(r < 50, x[np.maximum(r - 3, 0)], -7))
    expected = np.full(64, 9, np.float32)
    expected[(r - 3)[(r >= 3) & (r < 40)]] = loaded[(r >= 3) & (r < 40)]
    np.testing.assert_array_equal(out, expected)


def test_buffer_offset_in_range_but_past_the_array_is_reported():
    x = np.zeros(64, np.float32)
    with pytest.raises(LayoutError, match=r"amdg.buffer_load.*out of bounds.*element \(44,\)"):
        layoutkit.simulate(parse_module(BUFFER), "b", grid=1, args=[x, np.zeros(64, np.float32), 50, -20])


PRINT = """
#p = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [8], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 8 : i32} {
  tt.func public @p(%x: !tt.ptr<i32>) {
    %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #p>
    %xp = tt.splat %x : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>, #p>
    %xpp = tt.addptr %xp, %r : tensor<8x!tt.ptr<i32>, #p>, tensor<8xi32, #p>
    %v = tt.load %xpp : tensor<8x!tt.ptr<i32>, #p>
    tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %v : tensor<8xi32, #p>
    %pid = tt.get_program_id x : i32
    tt.print " pid: " {hex = false, isSigned = array<i32: 1>} : %pid : i32
    tt.print " done" {hex = false, isSigned = array<i32>}
    tt.return
  }
}
"""


def test_print_writes_lines_as_the_device_print(capsys):
    values = [5, -6, 7, 8, 0, 1, -2, 3]
    layoutkit.simulate(parse_module(PRINT), "p", grid=2, args=[np.array(values, np.int32)])
    lines = capsys.readouterr().out.splitlines()
    expected = [f"pid ({b}, 0, 0) idx ({i}) x: {values[i]}" for b in range(2) for i in range(8)]
    expected += [f"pid ({b}, 0, 0) idx () pid: {b}" for b in range(2) for _ in range(8)]
    expected += [f"pid ({b}, 0, 0) done" for b in range(2) for _ in range(8)]
    assert sorted(lines) == sorted(expected)


CONVERT = """
#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @f(%x: !tt.ptr<f32>, %rz: !tt.ptr<f16>, %rn: !tt.ptr<f16>, %e4: !tt.ptr<f8E4M3FN>,
                    %e5: !tt.ptr<f8E5M2>, %bits: !tt.ptr<i32>, %cl: !tt.ptr<f32>, %hi: !tt.ptr<i32>) {
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #a>
    %xp = tt.splat %x : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>, #a>
    %xpp = tt.addptr %xp, %r : tensor<32x!tt.ptr<f32>, #a>, tensor<32xi32, #a>
    %v = tt.load %xpp : tensor<32x!tt.ptr<f32>, #a>
    %a = tt.fp_to_fp %v, rounding = rtz : tensor<32xf32, #a> -> tensor<32xf16, #a>
    %ap = tt.splat %rz : !tt.ptr<f16> -> tensor<32x!tt.ptr<f16>, #a>
    %app = tt.addptr %ap, %r : tensor<32x!tt.ptr<f16>, #a>, tensor<32xi32, #a>
    tt.store %app, %a : tensor<32x!tt.ptr<f16>, #a>
    %b = tt.fp_to_fp %v, rounding = rtne : tensor<32xf32, #a> -> tensor<32xf16, #a>
    %bp = tt.splat %rn : !tt.ptr<f16> -> tensor<32x!tt.ptr<f16>, #a>
    %bpp = tt.addptr %bp, %r : tensor<32x!tt.ptr<f16>, #a>, tensor<32xi32, #a>
    tt.store %bpp, %b : tensor<32x!tt.ptr<f16>, #a>
    %c = tt.fp_to_fp %v, rounding = rtne : tensor<32xf32, #a> -> tensor<32xf8E4M3FN, #a>
    %cp = tt.splat %e4 : !tt.ptr<f8E4M3FN> -> tensor<32x!tt.ptr<f8E4M3FN>, #a>
    %cpp = tt.addptr %cp, %r : tensor<32x!tt.ptr<f8E4M3FN>, #a>, tensor<32xi32, #a>
    tt.store %cpp, %c : tensor<32x!tt.ptr<f8E4M3FN>, #a>
    %d = tt.fp_to_fp %v, rounding = rtne : tensor<32xf32, #a> -> tensor<32xf8E5M2, #a>
    %dp = tt.splat %e5 : !tt.ptr<f8E5M2> -> tensor<32x!tt.ptr<f8E5M2>, #a>
    %dpp = tt.addptr %dp, %r : tensor<32x!tt.ptr<f8E5M2>, #a>, tensor<32xi32, #a>
    tt.store %dpp, %d : tensor<32x!tt.ptr<f8E5M2>, #a>
    %i = tt.bitcast %v : tensor<32xf32, #a> -> tensor<32xi32, #a>
    %ip = tt.splat %bits : !tt.ptr<i32> -> tensor<32x!tt.ptr<i32>, #a>
    %ipp = tt.addptr %ip, %r : tensor<32x!tt.ptr<i32>, #a>, tensor<32xi32, #a>
    tt.store %ipp, %i : tensor<32x!tt.ptr<i32>, #a>
    %lo = arith.constant dense<-1.0> : tensor<32xf32, #a>
    %up = arith.constant dense<1.0> : tensor<32xf32, #a>
    %k = tt.clampf %v, %lo, %up, propagateNan = all : tensor<32xf32, #a>
    %kp = tt.splat %cl : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>, #a>
    %kpp = tt.addptr %kp, %r : tensor<32x!tt.ptr<f32>, #a>, tensor<32xi32, #a>
    tt.store %kpp, %k : tensor<32x!tt.ptr<f32>, #a>
    %h = tt.mulhiui %i, %i : tensor<32xi32, #a>
    %hp = tt.splat %hi : !tt.ptr<i32> -> tensor<32x!tt.ptr<i32>, #a>
    %hpp = tt.addptr %hp, %r : tensor<32x!tt.ptr<i32>, #a>, tensor<32xi32, #a>
    tt.store %hpp, %h : tensor<32x!tt.ptr<i32>, #a>
    tt.return
  }
}
"""


def test_float_conversions_bitcast_clamp_and_mulhi():
    rng = np.random.default_rng(8)
    x = (rng.standard_normal(32) * 100).astype(np.float32)
    x[:6] = [1e6, -1e6, np.inf, np.nan, 1 + 2**-11 + 2**-13, -(1 + 2**-11 + 2**-13)]
    rz, rn = np.zeros(32, np.float16), np.zeros(32, np.float16)
    e4, e5 = np.zeros(32, ml_dtypes.float8_e4m3fn), np.zeros(32, ml_dtypes.float8_e5m2)
    bits, cl, hi = np.zeros(32, np.int32), np.zeros(32, np.float32), np.zeros(32, np.int32)
    layoutkit.simulate(parse_module(CONVERT), "f", grid=1, args=[x, rz, rn, e4, e5, bits, cl, hi])
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(rn, x.astype(np.float16))
    # toward zero: the f16 of largest magnitude not beyond x (65504 for 1e6; inf stays inf)
    grid = np.sort(np.r_[np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64), np.inf])
    finite = np.isfinite(x) | np.isinf(x)
    magnitude = grid[np.searchsorted(grid, np.abs(x[finite].astype(np.float64)), side="right") - 1]
    np.testing.assert_array_equal(rz[finite].astype(np.float64), np.sign(x[finite]) * magnitude)
    assert np.isnan(rz[3])
    assert rz[4] == np.float16(1) and rn[4] == np.float16(1 + 2**-10)  # ties/above half: rtne rounds up
    # fp8 saturates (satfinite): 1e6 and inf -> 448 (e4m3) / 57344 (e5m2)
    np.testing.assert_array_equal(e4[[0, 1, 2]].astype(np.float32), [448, -448, 448])
    np.testing.assert_array_equal(e5[[0, 1, 2]].astype(np.float32), [57344, -57344, 57344])
    np.testing.assert_array_equal(e4[6:], x[6:].astype(ml_dtypes.float8_e4m3fn))
    np.testing.assert_array_equal(bits, x.view(np.int32))
    np.testing.assert_array_equal(cl[np.arange(32) != 3], np.clip(x, -1, 1)[np.arange(32) != 3])
    assert np.isnan(cl[3])  # propagateNan = all
    u = x.view(np.uint32).astype(np.uint64)
    np.testing.assert_array_equal(hi, ((u * u) >> np.uint64(32)).astype(np.uint32).view(np.int32))


BUFFER_ATOMIC = """
#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%mem: !tt.ptr<i32>, %out: !tt.ptr<i32>) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #a>
    %c4 = arith.constant dense<4> : tensor<64xi32, #a>
    %c5 = arith.constant dense<5> : tensor<64xi32, #a>
    %c60 = arith.constant dense<60> : tensor<64xi32, #a>
    %neg = arith.constant dense<-1> : tensor<64xi32, #a>
    %q = arith.remsi %r, %c4 : tensor<64xi32, #a>
    %low = arith.cmpi slt, %r, %c60 : tensor<64xi32, #a>
    %o = arith.select %low, %q, %neg : tensor<64xi1, #a>, tensor<64xi32, #a>
    %m = arith.cmpi ne, %r, %c5 : tensor<64xi32, #a>
    %old = amdg.buffer_atomic_rmw add, acq_rel, gpu, %r, %mem[%o], %m : !tt.ptr<i32> -> tensor<64xi32, #a>
    amdg.buffer_store %old, %out[%r] : !tt.ptr<i32> -> tensor<64xi32, #a>
    tt.return
  }
}
"""


def test_buffer_atomic_rmw_in_order_with_mask_and_range_check():
    mem, out = np.full(4, 100, np.int32), np.full(64, -9, np.int32)
    layoutkit.simulate(parse_module(BUFFER_ATOMIC), "k", grid=1, args=[mem, out])
    expected_mem, expected_old = [100] * 4, [0] * 64
    for r in range(64):
        if r >= 60 or r == 5:  # offset -1 is beyond the 2 GiB range; element 5 is masked
            continue
        expected_old[r] = expected_mem[r % 4]
        expected_mem[r % 4] += r
    np.testing.assert_array_equal(mem, expected_mem)
    np.testing.assert_array_equal(out, expected_old)


EXTERN = """
#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @e(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #a>
    %xp = tt.splat %x : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>, #a>
    %xpp = tt.addptr %xp, %r : tensor<32x!tt.ptr<f32>, #a>, tensor<32xi32, #a>
    %v = tt.load %xpp : tensor<32x!tt.ptr<f32>, #a>
    %yp = tt.splat %y : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>, #a>
    %ypp = tt.addptr %yp, %r : tensor<32x!tt.ptr<f32>, #a>, tensor<32xi32, #a>
    %w = tt.load %ypp : tensor<32x!tt.ptr<f32>, #a>
    %e = tt.extern_elementwise %v {libname = "", libpath = "", pure = true, symbol = "SYMBOL_A"} : (tensor<32xf32, #a>) -> tensor<32xf32, #a>
    %p = tt.extern_elementwise %e, %w {libname = "", libpath = "", pure = true, symbol = "SYMBOL_B"} : (tensor<32xf32, #a>, tensor<32xf32, #a>) -> tensor<32xf32, #a>
    %op = tt.splat %out : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>, #a>
    %opp = tt.addptr %op, %r : tensor<32x!tt.ptr<f32>, #a>, tensor<32xi32, #a>
    tt.store %opp, %p : tensor<32x!tt.ptr<f32>, #a>
    tt.return
  }
}
"""


@pytest.mark.parametrize("first, second", [("__nv_expf", "__nv_fmodf"), ("__ocml_exp_f32", "__ocml_fmod_f32")])
def test_extern_elementwise_libdevice_and_ocml(first, second):
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(32).astype(np.float32), rng.uniform(0.5, 2, 32).astype(np.float32)
    out = np.zeros(32, np.float32)
    text = EXTERN.replace("SYMBOL_A", first).replace("SYMBOL_B", second)
    layoutkit.simulate(parse_module(text), "e", grid=1, args=[x, y, out])
    e = np.exp(x.astype(np.float64)).astype(np.float32)  # within an ulp of any f32 exp
    np.testing.assert_allclose(out, np.fmod(e, y), rtol=0, atol=2 * np.spacing(e.max()))


def test_unknown_extern_function_is_reported():
    text = EXTERN.replace("SYMBOL_A", "__nv_mystery").replace("SYMBOL_B", "__nv_fmodf")
    with pytest.raises(LayoutError, match="extern function '__nv_mystery' is not known"):
        layoutkit.simulate(parse_module(text), "e", grid=1, args=[np.zeros(32, np.float32)] * 3)


MULHI64 = """
#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @h(%x: !tt.ptr<i64>, %y: !tt.ptr<i64>, %out: !tt.ptr<i64>) {
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #a>
    %xp = tt.splat %x : !tt.ptr<i64> -> tensor<32x!tt.ptr<i64>, #a>
    %xpp = tt.addptr %xp, %r : tensor<32x!tt.ptr<i64>, #a>, tensor<32xi32, #a>
    %v = tt.load %xpp : tensor<32x!tt.ptr<i64>, #a>
    %yp = tt.splat %y : !tt.ptr<i64> -> tensor<32x!tt.ptr<i64>, #a>
    %ypp = tt.addptr %yp, %r : tensor<32x!tt.ptr<i64>, #a>, tensor<32xi32, #a>
    %w = tt.load %ypp : tensor<32x!tt.ptr<i64>, #a>
    %h = tt.mulhiui %v, %w : tensor<32xi64, #a>
    %op = tt.splat %out : !tt.ptr<i64> -> tensor<32x!tt.ptr<i64>, #a>
    %opp = tt.addptr %op, %r : tensor<32x!tt.ptr<i64>, #a>, tensor<32xi32, #a>
    tt.store %opp, %h : tensor<32x!tt.ptr<i64>, #a>
    tt.return
  }
}
"""


def test_mulhiui_64_bits_against_python_integers():
    rng = np.random.default_rng(4)
    x = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 32, dtype=np.int64)
    y = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 32, dtype=np.int64)
    x[0], y[0] = -1, -1  # (2**64 - 1)**2 >> 64 = 2**64 - 2
    out = np.zeros(32, np.int64)
    layoutkit.simulate(parse_module(MULHI64), "h", grid=1, args=[x, y, out])
    expected = [((int(a) % 2**64) * (int(b) % 2**64)) >> 64 for a, b in zip(x, y)]
    np.testing.assert_array_equal(out.view(np.uint64), np.array(expected, np.uint64))


HISTOGRAM_MASKED = """
#a = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#h = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @h(%x: !tt.ptr<i32>, %out: !tt.ptr<i32>, %n: i32) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #a>
    %xp = tt.splat %x : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>, #a>
    %xpp = tt.addptr %xp, %r : tensor<128x!tt.ptr<i32>, #a>, tensor<128xi32, #a>
    %v = tt.load %xpp : tensor<128x!tt.ptr<i32>, #a>
    %ns = tt.splat %n : i32 -> tensor<128xi32, #a>
    %m = arith.cmpi slt, %r, %ns : tensor<128xi32, #a>
    %c = tt.histogram %v, %m : tensor<128xi32, #a> -> tensor<16xi32, #h>
    %b = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #h>
    %op = tt.splat %out : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>, #h>
    %opp = tt.addptr %op, %b : tensor<16x!tt.ptr<i32>, #h>, tensor<16xi32, #h>
    tt.store %opp, %c : tensor<16x!tt.ptr<i32>, #h>
    tt.return
  }
}
"""


def test_histogram_with_a_mask_and_fewer_bins_than_lanes():
    """16 bins padded to the warp's 32: values 16..31 land in padded bins and are dropped,
    32.. wrap (value & 31); masked-off elements (index >= 100) are not counted."""
    x = np.random.default_rng(6).integers(0, 80, 128).astype(np.int32)
    out = np.zeros(16, np.int32)
    layoutkit.simulate(parse_module(HISTOGRAM_MASKED), "h", grid=1, args=[x, out, 100])
    bins = x[:100] & 31
    np.testing.assert_array_equal(out, np.bincount(bins[bins < 16], minlength=16))
