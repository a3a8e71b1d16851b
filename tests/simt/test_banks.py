"""Shared-memory bank accounting: the model against brute force, and the example kernels'
tiles (swizzled and padded conflict-free, unpadded 32-way)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutkit
from layoutkit.backends.simt.machine import bank_wavefronts
from layoutkit.ir import parse_module

KERNELS = Path(__file__).parents[2] / "examples" / "kernels"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 300)), min_size=1, max_size=200))
def test_wavefronts_match_brute_force(accesses):
    warp = np.array([w for w, _ in accesses])
    word = np.array([x for _, x in accesses])
    wavefronts = ideal = 0
    for w in set(warp.tolist()):
        words = {x for ww, x in accesses if ww == w}
        per_bank = {}
        for x in words:
            per_bank.setdefault(x % 32, set()).add(x)
        wavefronts += max(len(v) for v in per_bank.values())
        ideal += -(-len(words) // 32)
    assert bank_wavefronts(warp, word) == (wavefronts, ideal)


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
