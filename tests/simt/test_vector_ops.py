"""The vector ops layoutkit adds, simulated: each kernel of vector_cases.py equals its numpy
formula; bad positions and gathers fail naming the op and thread."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit

from .kernels import kernel_module
from .vector_cases import CASES, T, module_text


@pytest.mark.parametrize("name", sorted(CASES))
def test_vector_case_equals_numpy(name):
    signature, body, args, expected = CASES[name]()
    layoutkit.simulate(module_text(signature, body), "k", grid=1, block=T, args=args)
    for key, want in expected.items():
        np.testing.assert_array_equal(args[key], want, err_msg=key)


def test_dynamic_position_out_of_range_fails():
    module = kernel_module("%X: memref<8x4xf32>, %P: memref<8xi32>, %O: memref<8xf32>", """\
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %x = vector.load %X[%t, %c0] : memref<8x4xf32>, vector<4xf32>
      %p32 = memref.load %P[%t] : memref<8xi32>
      %p = arith.index_cast %p32 : i32 to index
      %e = vector.extract %x[%p] : f32 from vector<4xf32>
      memref.store %e, %O[%t] : memref<8xf32>""")
    p = np.array([0, 1, 2, 3, 0, 1, 9, 2], np.int32)
    with pytest.raises(layoutkit.LayoutError, match=r"vector.extract.*line 10.*thread \(6.*position 9"):
        layoutkit.simulate(module, "k", 1, T, {"X": np.zeros((T, 4), np.float32), "P": p,
                                               "O": np.zeros(T, np.float32)})


def test_gather_outside_memref_fails_unless_masked_off():
    module = kernel_module("%X: memref<16xf32>, %I: memref<8x2xi32>, %O: memref<8x2xf32>", """\
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %i = vector.load %I[%t, %c0] : memref<8x2xi32>, vector<2xi32>
      %m = vector.constant_mask [1] : vector<2xi1>
      %z = arith.constant dense<0.0> : vector<2xf32>
      %g = vector.gather %X[%c0] [%i], %m, %z : memref<16xf32>, vector<2xi32>, vector<2xi1>, vector<2xf32> into vector<2xf32>
      vector.store %g, %O[%t, %c0] : memref<8x2xf32>, vector<2xf32>""")
    x = np.arange(16, dtype=np.float32)
    i = np.zeros((T, 2), np.int32)
    i[:, 1] = 99  # masked off: never read
    o = np.zeros((T, 2), np.float32)
    layoutkit.simulate(module, "k", 1, T, {"X": x, "I": i, "O": o})
    i[5, 0] = 16
    with pytest.raises(layoutkit.LayoutError, match=r"vector.gather.*line 10.*thread \(5.*outside"):
        layoutkit.simulate(module, "k", 1, T, {"X": x, "I": i, "O": o})
