"""vector.transfer_read / transfer_write in the emitted CUDA (what pcf-convert-sref-to-memref
produces): run on the CPU by host_harness.py and compared with numpy (an independent
computation) and with the simulator. Elements outside the memref along a dim not marked in
bounds read the padding and are not written."""

from __future__ import annotations

import numpy as np

from layoutkit.backends.cuda import emit_cuda
from layoutkit.backends.cuda.prelude import PRELUDE
from layoutkit.backends.simt import simulate
from layoutkit.ir import parse_module

# each of 3x3 threads moves a 2x4 block from (2 ty, 4 tx): 6x12 positions over the memrefs
KERNEL = """
module {
  gpu.module @m {
    gpu.func @move(%src: memref<?x?xf32>, %dst: memref<?x?xf32>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %r = arith.muli %ty, %c2 : index
      %c = arith.muli %tx, %c4 : index
      %pad = arith.constant -1.0 : f32
      %v = vector.transfer_read %src[%r, %c], %pad {in_bounds = [READ]} : memref<?x?xf32>, vector<2x4xf32>
      vector.transfer_write %v, %dst[%r, %c] {in_bounds = [WRITE]} : vector<2x4xf32>, memref<?x?xf32>
      gpu.return
    }
  }
}
"""


def kernel(read: str, write: str) -> str:
    return KERNEL.replace("READ", read).replace("WRITE", write)


def run_both(host, text: str, src: np.ndarray, dst_shape: tuple[int, int]):
    on_host = np.full(dst_shape, np.nan, np.float32)
    host.run_on_host(emit_cuda(parse_module(text)), PRELUDE, "move", (1,), (3, 3), [src.copy(), on_host])
    simulated = np.full(dst_shape, np.nan, np.float32)
    simulate(text, "move", grid=(1,), block=(3, 3), args={"src": src.copy(), "dst": simulated})
    return on_host, simulated


def test_read_past_the_edge_gives_the_padding(host):
    src = np.arange(35, dtype=np.float32).reshape(5, 7)
    on_host, simulated = run_both(host, kernel("false, false", "true, true"), src, (6, 12))
    expected = np.full((6, 12), -1.0, np.float32)
    expected[:5, :7] = src
    np.testing.assert_array_equal(on_host, expected)
    np.testing.assert_array_equal(simulated, expected)


def test_write_past_the_edge_is_dropped(host):
    src = np.arange(72, dtype=np.float32).reshape(6, 12)
    on_host, simulated = run_both(host, kernel("true, true", "false, false"), src, (5, 7))
    np.testing.assert_array_equal(on_host, src[:5, :7])
    np.testing.assert_array_equal(simulated, src[:5, :7])
