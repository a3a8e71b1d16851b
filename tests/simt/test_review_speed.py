"""Review of the simulator speed work (issue 17): kernels aimed at the edges of loop
fission, private row views and waiting stores, kept results and the race tracker's pending
first store. Each runs with batch_loops=False and True and is checked against numpy (or
the expected error) computed here."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit

from .kernels import kernel_module
from .test_batching import assert_same, both


def runs_of(signature: str, body: str, grid, block, args: dict, **options):
    runs = both(kernel_module(signature, body), "k", grid, block, args, **options)
    assert_same(runs)
    return runs


def errors_of(signature: str, body: str, grid, block, args: dict, match: str, **options) -> str:
    """The message both modes raise (the same one)."""
    messages = []
    for batch in (False, True):
        copies = {k: v.copy() for k, v in args.items()}
        with pytest.raises(layoutkit.LayoutError, match=match) as caught:
            layoutkit.simulate(kernel_module(signature, body), "k", grid, block, copies,
                               batch_loops=batch, **options)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    return messages[0]


def test_wide_private_row_load_is_not_a_view_of_the_buffer():
    """A 32-wide load through a private row view (an index array equal in every slot) keeps
    its value after the buffer is stored again (it was a view of the data: o = 2 x)."""
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    body = """
      %c0 = arith.constant 0 : index
      %c4096 = arith.constant 4096 : index
      %t = gpu.thread_id x
      %z = arith.divui %t, %c4096 : index
      %buf = memref.alloca() : memref<32xf32>
      %v = vector.load %x[%t, %c0] : memref<64x32xf32>, vector<32xf32>
      vector.store %v, %buf[%c0] : memref<32xf32>, vector<32xf32>
      %a = vector.load %buf[%z] : memref<32xf32>, vector<32xf32>
      %w = arith.addf %v, %v : vector<32xf32>
      vector.store %w, %buf[%c0] : memref<32xf32>, vector<32xf32>
      vector.store %a, %o[%t, %c0] : memref<64x32xf32>, vector<32xf32>"""
    runs = runs_of("%x: memref<64x32xf32>, %o: memref<64x32xf32>", body, 1, 64,
                   {"x": x, "o": np.zeros_like(x)})
    assert np.array_equal(runs[1][0]["o"], x)
