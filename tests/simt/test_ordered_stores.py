"""Stores of a batched loop to a written-only memref keep the sequential order
(Machine.latest_stores): vector rows that collide within one store, across the stores of an
iteration and across the iterations of nested batched loops keep the value of the last store
in the order i, then j, then thread, as one iteration at a time and as a Python loop."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import scf

from layoutkit.backends.simt import batching
from layoutkit.backends.simt.machine import take_rows

from .kernels import kernel_module
from .test_batching import assert_same, both


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([np.float32, np.float16, np.int64, np.int8, np.bool_, np.float64]),
       st.sampled_from([(9, 2), (9, 3), (9, 2, 2), (9, 1), (9, 4, 3), (9,)]),
       st.sampled_from(["all", "first", "second", "every other", "broadcast"]),
       st.lists(st.integers(0, 8), max_size=20))
def test_take_rows_equals_fancy_indexing(dtype, shape, view, rows):
    """Strided views whose rows are contiguous are taken as wide elements; the result equals
    numpy's x[rows] and is a C-contiguous array of x's dtype."""
    base = (np.arange(int(np.prod(shape)) * 2) % 7).astype(dtype).reshape(shape[0], -1)
    x = base[:, : base.shape[1] // 2].reshape(shape)  # rows strided by twice their length
    if view == "first" and x.ndim > 1:
        x = x[:, 0]
    elif view == "second" and x.ndim > 2:
        x = x[:, :, 1]
    elif view == "every other" and x.ndim > 1:
        x = x[..., ::2]
    elif view == "broadcast":
        x = np.broadcast_to(x[:1], x.shape)
    index = np.array(rows, np.int64)
    taken = take_rows(x, index)
    assert taken.dtype == x.dtype and taken.flags.c_contiguous
    assert np.array_equal(taken, x[index])


def nested_vector_stores(outer: int, inner: int, a: int, b: int, c: int) -> str:
    """Iteration (i, j), thread t: stores src[i, j, 0] = (v, v) at o[s..s + 1] and
    src[i, j, 1] = (-v, -v) at o[s + 1..s + 2], v = 16 i + j, s = (a i + b j + c t) % 8 +
    10 (t % 3): rows extracted from a 2x2 vector (strided views), overlapping each other and
    other threads' and iterations' rows."""
    return f"""
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c8 = arith.constant 8 : index
      %c10 = arith.constant 10 : index
      %ca = arith.constant {a} : index
      %cb = arith.constant {b} : index
      %cc = arith.constant {c} : index
      %co = arith.constant {outer} : index
      %cn = arith.constant {inner} : index
      %t = gpu.thread_id x
      %tc = arith.muli %t, %cc : index
      %t3 = arith.remui %t, %c3 : index
      %row = arith.muli %t3, %c10 : index
      scf.for %i = %c0 to %co step %c1 {{
        %ia = arith.muli %i, %ca : index
        scf.for %j = %c0 to %cn step %c1 {{
          %jb = arith.muli %j, %cb : index
          %s = arith.addi %ia, %jb : index
          %st = arith.addi %s, %tc : index
          %sm = arith.remui %st, %c8 : index
          %at = arith.addi %row, %sm : index
          %at1 = arith.addi %at, %c1 : index
          %d1 = vector.load %src[%i, %j, %c0, %c0] : memref<4x4x2x2xf32>, vector<2x2xf32>
          %e0 = vector.extract %d1[0] : vector<2xf32> from vector<2x2xf32>
          %e1 = vector.extract %d1[1] : vector<2xf32> from vector<2x2xf32>
          vector.store %e0, %o[%at] : memref<32xf32>, vector<2xf32>
          vector.store %e1, %o[%at1] : memref<32xf32>, vector<2xf32>
        }}
      }}"""


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 4), st.integers(1, 4), st.integers(0, 7), st.integers(0, 7), st.integers(0, 3),
       st.sampled_from([32, 20]))
def test_colliding_vector_stores_in_nested_batched_loops(outer, inner, a, b, c, threads):
    module = kernel_module("%src: memref<4x4x2x2xf32>, %o: memref<32xf32>",
                           nested_vector_stores(outer, inner, a, b, c))
    outer_loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    assert batching.nested_plan(outer_loop) is not None
    v = 16 * np.arange(4)[:, None] + np.arange(4)
    src = np.stack([v, -v], axis=-1)[..., None].repeat(2, -1).astype(np.float32)
    runs = both(module, "k", 1, threads, {"src": src, "o": np.full(32, 0.5, np.float32)},
                global_sectors=True)
    assert_same(runs)
    want = np.full(32, 0.5, np.float32)
    for i in range(outer):
        for j in range(inner):
            k = 16 * i + j
            starts = [(a * i + b * j + c * t) % 8 + 10 * (t % 3) for t in range(threads)]
            for s in starts:
                want[s:s + 2] = k
            for s in starts:
                want[s + 1:s + 3] = -k
    assert np.array_equal(runs[1][0]["o"], want)
