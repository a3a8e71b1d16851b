"""Shared memory declared as a workgroup ``memref.global`` and read with ``memref.get_global``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt import SimulationError
from layoutkit.ir import parse_module

from .kernels import kernel_module

KERNELS = Path(__file__).parents[2] / "examples" / "kernels"
TILE = "memref<32x33xf32, #gpu.address_space<workgroup>>"


def padded_transpose_with_global() -> str:
    """examples/kernels/transpose_padded.mlir with its tile a module-level global."""
    text = (KERNELS / "transpose_padded.mlir").read_text()
    alloc = f"%tile = memref.alloc() : {TILE}"
    assert alloc in text
    text = text.replace(alloc, f"%tile = memref.get_global @tile : {TILE}")
    return text.replace("gpu.module @kernels {",
                        f'gpu.module @kernels {{\n    memref.global "private" @tile : {TILE}')


def test_transpose_through_a_workgroup_global_matches_numpy_and_the_alloc_version():
    x = np.random.default_rng(5).standard_normal((96, 160)).astype(np.float32)
    out = np.zeros((160, 96), np.float32)
    report = layoutkit.simulate(padded_transpose_with_global(), "transpose_padded", grid=(5, 3),
                                block=(32, 8), args={"in": x, "out": out}, bank_conflicts=True)
    assert np.array_equal(out, x.T)  # one tile per block: blocks would clobber a shared one
    reference = layoutkit.simulate(parse_module((KERNELS / "transpose_padded.mlir").read_text()),
                                   "transpose_padded", grid=(5, 3), block=(32, 8),
                                   args={"in": x, "out": np.zeros_like(out)}, bank_conflicts=True)
    assert list(report.shared_wavefronts.values()) == list(reference.shared_wavefronts.values())


def test_two_get_globals_of_one_name_are_the_same_memory():
    """Thread t stores through one get_global, thread 63 - t reads through another: without
    the barrier that is a race (so they alias), with it each reads what the other stored."""
    global_ = 'memref.global "private" @buf : memref<64xi32, #gpu.address_space<workgroup>>'
    body = """      %t = gpu.thread_id x
      %a = memref.get_global @buf : memref<64xi32, #gpu.address_space<workgroup>>
      %b = memref.get_global @buf : memref<64xi32, #gpu.address_space<workgroup>>
      %v = arith.index_cast %t : index to i32
      memref.store %v, %a[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      BARRIER
      %c63 = arith.constant 63 : index
      %m = arith.subi %c63, %t : index
      %r = memref.load %b[%m] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %r, %o[%t] : memref<64xi32>"""

    def module(barrier: str):
        return kernel_module("%o: memref<64xi32>", body.replace("BARRIER", barrier), declarations=global_)

    out = np.zeros(64, np.int32)
    layoutkit.simulate(module("gpu.barrier"), "k", grid=1, block=64, args={"o": out})
    assert out.tolist() == [63 - t for t in range(64)]
    with pytest.raises(SimulationError, match="data race on shared memref 'buf'"):
        layoutkit.simulate(module(""), "k", grid=1, block=64, args={"o": out})


def test_a_global_outside_workgroup_memory_is_reported():
    text = kernel_module("%o: memref<4xf32>", """      %g = memref.get_global @g : memref<4xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %g[%c0] : memref<4xf32>""", declarations='memref.global "private" @g : memref<4xf32>')
    with pytest.raises(SimulationError, match=r"kernel @k: %g = memref.get_global @g .*line \d+.*"
                                              r"only memref.global in #gpu.address_space<workgroup>"):
        layoutkit.simulate(text, "k", grid=1, block=4, args={"o": np.zeros(4, np.float32)})
