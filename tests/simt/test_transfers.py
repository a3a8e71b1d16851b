"""vector.transfer_read / transfer_write: padding, permutation and broadcast maps, masks,
in_bounds errors, in every memory space -- against per-element formulas."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt import SimulationError

from .kernels import kernel_module

SHARED = "memref<5x6xf32, #gpu.address_space<workgroup>>"


def read_kernel(map_text: str, in_bounds: str, vector: str, out_shape: str):
    return kernel_module(
        f"%a: memref<5x6xf32>, %o: memref<{out_shape}xf32>",
        f"""      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %i = arith.remui %t, %c2 : index
      %row = arith.addi %i, %c2 : index
      %col = arith.muli %t, %c2 : index
      %pad = arith.constant -1.0 : f32
      %v = vector.transfer_read %a[%row, %col], %pad {{permutation_map = {map_text}, in_bounds = {in_bounds}}} : memref<5x6xf32>, {vector}
      vector.store %v, %o[%t, %c0, %c0] : memref<{out_shape}xf32>, {vector}""",
    )


def expected_read(a, threads, vshape, element_coords):
    out = np.full((threads, *vshape), -1.0, np.float32)
    for t in range(threads):
        row, col = t % 2 + 2, 2 * t
        for index in np.ndindex(*vshape):
            r, c = element_coords(row, col, index)
            if 0 <= r < 5 and 0 <= c < 6:
                out[(t, *index)] = a[r, c]
    return out


@pytest.mark.parametrize("map_text, vshape, coords", [
    ("affine_map<(d0, d1) -> (d0, d1)>", (2, 3), lambda r, c, i: (r + i[0], c + i[1])),
    ("affine_map<(d0, d1) -> (d1, d0)>", (3, 2), lambda r, c, i: (r + i[1], c + i[0])),
    ("affine_map<(d0, d1) -> (0, d1)>", (2, 3), lambda r, c, i: (r, c + i[1])),
])
def test_transfer_read_maps_and_padding(map_text, vshape, coords):
    threads = 4  # columns 0, 2, 4, 6: the last ones run past the 6 columns and read padding
    vector = f"vector<{vshape[0]}x{vshape[1]}xf32>"
    out_shape = f"{threads}x{vshape[0]}x{vshape[1]}"
    module = read_kernel(map_text, "[false, false]", vector, out_shape)
    a = np.arange(30, dtype=np.float32).reshape(5, 6)
    out = np.zeros((threads, *vshape), np.float32)
    layoutkit.simulate(module, "k", grid=1, block=threads, args={"a": a, "o": out})
    np.testing.assert_array_equal(out, expected_read(a, threads, vshape, coords))


def test_transfer_read_in_bounds_violation_is_an_error():
    module = read_kernel("affine_map<(d0, d1) -> (d0, d1)>", "[true, true]", "vector<2x3xf32>", "4x2x3")
    with pytest.raises(SimulationError, match=r"thread \(2, 0, 0\): transfer at index \(2, 4\) with vector \[2, 3\]"):
        layoutkit.simulate(module, "k", grid=1, block=4,
                           args={"a": np.zeros((5, 6), np.float32), "o": np.zeros((4, 2, 3), np.float32)})


@pytest.mark.parametrize("space", ["global", "shared", "private"])
def test_transfer_write_masked_and_clipped(space):
    """Thread t writes [10t, 10t+1, 10t+2, 10t+3] at row t, column 3t, mask [1, 1, 0, 1]."""
    memref = {"global": "memref<5x6xf32>", "shared": SHARED, "private": "memref<5x6xf32>"}[space]
    alloc = {"global": "", "shared": f"%m = memref.alloc() : {SHARED}",
             "private": "%m = memref.alloca() : memref<5x6xf32>"}[space]
    target = "%a" if space == "global" else "%m"
    copy_back = "" if space == "global" else f"""
      %zero = arith.constant 0 : index
      %row_all = vector.transfer_read {target}[%t, %zero], %pad {{in_bounds = [true]}} : {memref}, vector<6xf32>
      vector.transfer_write %row_all, %a[%t, %zero] {{in_bounds = [true]}} : vector<6xf32>, memref<5x6xf32>"""
    init = "" if space == "global" else f"""
      %init = arith.constant dense<-1.0> : vector<6xf32>
      %z0 = arith.constant 0 : index
      vector.transfer_write %init, {target}[%t, %z0] {{in_bounds = [true]}} : vector<6xf32>, {memref}
      {"gpu.barrier" if space == "shared" else ""}"""
    module = kernel_module(
        "%a: memref<5x6xf32>",
        f"""      %t = gpu.thread_id x
      {alloc}
      %pad = arith.constant 0.0 : f32{init}
      %c3 = arith.constant 3 : index
      %col = arith.muli %t, %c3 : index
      %ti = arith.index_cast %t : index to i32
      %tf = arith.sitofp %ti : i32 to f32
      %ten = arith.constant 10.0 : f32
      %base = arith.mulf %tf, %ten : f32
      %b = vector.broadcast %base : f32 to vector<4xf32>
      %steps = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : vector<4xf32>
      %v = arith.addf %b, %steps : vector<4xf32>
      %mask = arith.constant dense<[true, true, false, true]> : vector<4xi1>
      vector.transfer_write %v, {target}[%t, %col], %mask {{in_bounds = [false]}} : vector<4xf32>, {memref}
      {"gpu.barrier" if space == "shared" else ""}{copy_back}""",
    )
    a = np.full((5, 6), -1.0, np.float32)
    layoutkit.simulate(module, "k", grid=1, block=5, args={"a": a})
    expected = np.full((5, 6), -1.0, np.float32)
    for t in range(5):
        for j, on in enumerate([1, 1, 0, 1]):
            if on and 3 * t + j < 6:
                expected[t, 3 * t + j] = 10 * t + j
    np.testing.assert_array_equal(a, expected)
