"""Shared-memory bank accounting: the simulator's counts (layoutkit.analysis's model, 64- and
128-bit accesses split into phases) against brute force, and the example kernels' tiles
(swizzled and padded conflict-free, unpadded 32-way)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutkit
from layoutkit.analysis import shared_wavefronts
from layoutkit.backends.simt.observers import bank_wavefronts
from layoutkit.ir import parse_module

KERNELS = Path(__file__).parents[2] / "examples" / "kernels"


def brute_force_wavefronts(lanes: dict[int, list[int]], access_bytes: int, warp_size: int = 32):
    """(wavefronts, lower bound) by definition: ``lanes[slot][k]`` is the byte address of
    thread slot ``slot`` in instruction k (-1: not accessing). Each warp instruction is split
    into phases of 128 // max(access_bytes, 4) consecutive lanes; a phase takes the largest
    number of distinct 4-byte words any bank (word % 32) holds, at best ceil(words / 32)."""
    per_phase = 128 // max(access_bytes, 4)
    instructions = max(len(v) for v in lanes.values())
    wavefronts = lower = 0
    for k in range(instructions):
        phases: dict[tuple[int, int], set[int]] = {}
        for slot, addresses in lanes.items():
            if k < len(addresses) and addresses[k] >= 0:
                words = phases.setdefault((slot // warp_size, slot % warp_size // per_phase), set())
                words.update(addresses[k] // 4 + j for j in range(max(1, access_bytes // 4)))
        for words in phases.values():
            banks = [sum(1 for x in words if x % 32 == bank) for bank in range(32)]
            wavefronts += max(banks)
            lower += -(-len(words) // 32)
    return wavefronts, lower


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([1, 2, 4, 8, 16]), st.sampled_from([32, 64]),
       st.dictionaries(st.integers(0, 127), st.lists(st.integers(-1, 200), min_size=2, max_size=2),
                       min_size=1, max_size=100))
def test_wavefronts_match_brute_force(access_bytes, warp_size, accesses):
    lanes = {slot: [a * access_bytes if a >= 0 else -1 for a in v] for slot, v in accesses.items()}
    slots = np.array(sorted(lanes))
    addresses = np.array([lanes[s] for s in sorted(lanes)])
    expected = brute_force_wavefronts(lanes, access_bytes, warp_size)
    assert bank_wavefronts(slots, addresses, access_bytes, warp_size) == expected


WIDE_LOAD = """\
module {{
  gpu.module @m {{
    gpu.func @k(%starts: memref<64xindex>, %active: memref<64xi1>, %out: memref<64x{n}x{t}>) kernel {{
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %sh = memref.alloc() : memref<2048x{t}, #gpu.address_space<workgroup>>
      %c64 = arith.constant 64 : index
      %c2048 = arith.constant 2048 : index
      %zero = arith.constant 0.0 : {t}
      scf.for %j = %t to %c2048 step %c64 {{
        memref.store %zero, %sh[%j] : memref<2048x{t}, #gpu.address_space<workgroup>>
      }}
      gpu.barrier
      %on = memref.load %active[%t] : memref<64xi1>
      %i = memref.load %starts[%t] : memref<64xindex>
      scf.if %on {{
        %v = vector.load %sh[%i] : memref<2048x{t}, #gpu.address_space<workgroup>>, vector<{n}x{t}>
        vector.store %v, %out[%t, %c0] : memref<64x{n}x{t}>, vector<{n}x{t}>
      }}
      gpu.return
    }}
  }}
}}
"""


@pytest.mark.parametrize("t, n, dtype", [("f32", 4, np.float32), ("f16", 8, np.float16), ("f32", 2, np.float32)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wide_shared_loads_count_like_the_analysis(t, n, dtype, seed):
    """128-bit (and 64-bit) shared loads: the simulator's report, layoutkit.analysis on the
    same byte addresses and the brute-force phase count agree."""
    rng = np.random.default_rng(seed)
    access_bytes = n * np.dtype(dtype).itemsize
    # each thread's vector starts at a random aligned slot; some threads sit out
    starts = rng.integers(0, 2048 // n, 64) * n if seed else np.arange(64) * n * (1 + 4 * (np.arange(64) % 2))
    starts = starts % 2048
    active = rng.random(64) < 0.8 if seed else np.ones(64, bool)
    report = layoutkit.simulate(WIDE_LOAD.format(t=t, n=n), "k", grid=1, block=64,
                                args=[starts.astype(np.int64), active, np.zeros((64, n), dtype)],
                                bank_conflicts=True)
    simulated = [v for k, v in report.shared_wavefronts.items() if "vector.load" in k]
    byte_addresses = np.where(active, starts * np.dtype(dtype).itemsize, -1)
    lanes = {slot: [int(byte_addresses[slot])] for slot in range(64)}
    expected = brute_force_wavefronts(lanes, access_bytes)
    analysis = shared_wavefronts(byte_addresses.reshape(2, 32), access_bytes)
    assert (int(analysis[0].sum()), int(analysis[1].sum())) == expected
    assert simulated == [expected]


def test_wide_loads_are_split_into_phases():
    """Every 8-lane phase reads the same 128 bytes as float4s (lane l at 16 * (l % 8)): a
    whole-warp count would see 32 distinct words, 1 wavefront; the hardware serves each of the
    4 phases in its own wavefront: 4 per warp, also its lower bound (no conflict)."""
    starts = 4 * (np.arange(64) % 8)
    report = layoutkit.simulate(WIDE_LOAD.format(t="f32", n=4), "k", grid=1, block=64,
                                args=[starts, np.ones(64, bool), np.zeros((64, 4), np.float32)],
                                bank_conflicts=True)
    assert [v for k, v in report.shared_wavefronts.items() if "vector.load" in k] == [(8, 8)]


def run_transpose(text: str, name: str, size: int = 64):
    x = np.random.default_rng(0).random((size, size)).astype(np.float32)
    out = np.zeros_like(x)
    report = layoutkit.simulate(parse_module(text), name, grid=(size // 32, size // 32), block=(32, 8),
                                args={"in": x, "out": out}, bank_conflicts=True)
    assert np.array_equal(out, x.T)
    return report


def test_transpose_tiles():
    blocks, warps, iterations = 4, 8, 4  # 64x64: 2x2 blocks of 32x8 threads, 4 rows each
    accesses = blocks * warps * iterations
    for name in ("transpose_swizzled", "transpose_padded"):
        report = run_transpose((KERNELS / f"{name}.mlir").read_text(), name)
        assert report.bank_conflicts == 0
        assert sorted(report.shared_wavefronts.values()) == [(accesses, accesses)] * 2
    # without the padding column a warp reads tile[tx][r]: 32 words 32 apart, one bank
    unpadded = (KERNELS / "transpose_padded.mlir").read_text().replace("32x33xf32", "32x32xf32")
    report = run_transpose(unpadded, "transpose_padded")
    waves = sorted(report.shared_wavefronts.values())
    assert waves == [(accesses, accesses), (32 * accesses, accesses)]
    assert report.bank_conflicts == 31 * accesses


def test_matmul_fragment_loads_are_conflict_free():
    rng = np.random.default_rng(1)
    a = rng.random((128, 64)).astype(np.float16)
    b = rng.random((64, 128)).astype(np.float16)
    c = np.zeros((128, 128), np.float32)
    report = layoutkit.simulate(parse_module((KERNELS / "matmul_mma.mlir").read_text()), "matmul",
                                grid=1, block=128, args={"a": a, "b": b, "c": c}, bank_conflicts=True)
    loads = {k: v for k, v in report.shared_wavefronts.items() if "vector.load" in k}
    assert len(loads) == 6 and all(w == ideal for w, ideal in loads.values())
    assert report.bank_conflicts > 0  # the transposing B staging stores are 4-way
    assert report.shared_wavefronts is not None
    plain = layoutkit.simulate(parse_module((KERNELS / "matmul_mma.mlir").read_text()), "matmul",
                               grid=1, block=128, args={"a": a, "b": b, "c": c})
    assert plain.shared_wavefronts is None and plain.bank_conflicts is None
