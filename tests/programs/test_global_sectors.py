"""Global 32-byte sectors per load/store counted by the simulator (simulate(...,
global_sectors=True), run_function(..., memory_counts=True)) against a brute-force count:
for every warp, the set of sectors its active lanes' addresses fall in."""

from __future__ import annotations

import numpy as np
import pytest

from layoutkit.backends.simt import simulate

KERNEL = """
gpu.module @k {
  gpu.func @copy(%a: memref<48x40xf32>, %b: memref<48x40xf32>) kernel {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %n = arith.constant NLIMIT : index
    %in = arith.cmpi ult, %tx, %n : index
    scf.if %in {
      %r = affine.apply affine_map<(d0, d1) -> (d0 * RSCALE + d1 * RTX)>(%ty, %tx)
      %c = affine.apply affine_map<(d0, d1) -> (d1 * CTX + d0 * CTY)>(%ty, %tx)
      %v = memref.load %a[%r, %c] : memref<48x40xf32>
      memref.store %v, %b[%c, %r] : memref<48x40xf32>
    }
    gpu.return
  }
}
"""


def brute_force(rows, cols, active, shape, warp=32):
    """Per access: (sectors, minimum) summed over warps, by enumerating lanes."""
    sectors = minimum = 0
    flat_ids = np.arange(rows.size)
    for w in range(0, rows.size, warp):
        lanes = [i for i in flat_ids[w:w + warp] if active[i]]
        addresses = {int(rows[i] * shape[1] + cols[i]) * 4 for i in lanes}
        sectors += len({a // 32 for a in addresses})
        minimum += -(-len(addresses) * 4 // 32)
    return sectors, minimum


@pytest.mark.parametrize(("block", "limit", "rscale", "rtx", "ctx", "cty"), [
    ((32, 1), 32, 1, 0, 1, 0),     # a row: 4 sectors per warp
    ((16, 2), 16, 1, 0, 1, 0),     # half-warps on two rows
    ((8, 4), 5, 2, 1, 3, 0),       # strided, lanes 5..7 masked off
    ((32, 2), 20, 3, 0, 2, 1),
])
def test_sectors_equal_brute_force(block, limit, rscale, rtx, ctx, cty):
    text = (KERNEL.replace("NLIMIT", str(limit)).replace("RSCALE", str(rscale)).replace("RTX", str(rtx))
            .replace("CTX", str(ctx)).replace("CTY", str(cty)))
    a = np.arange(48 * 40, dtype=np.float32).reshape(48, 40)
    b = np.zeros_like(a)
    report = simulate(text, "copy", (1, 1, 1), (*block, 1), [a, b], global_sectors=True)
    ty, tx = np.meshgrid(np.arange(block[1]), np.arange(block[0]), indexing="ij")
    ty, tx = ty.ravel(), tx.ravel()
    rows, cols, active = ty * rscale + tx * rtx, tx * ctx + ty * cty, tx < limit
    (load, store) = report.global_sectors.values()
    assert load == brute_force(rows, cols, active, (48, 40))
    assert store == brute_force(cols, rows, active, (48, 40))


def test_run_function_reports_counts_per_launch():
    from pathlib import Path

    import layoutkit

    source = (Path(__file__).parents[2] / "examples" / "linalg" / "transpose.mlir").read_text()
    program = layoutkit.compile(source, tile_sizes="8,32",
                                workgroup_size="32,8")
    reports: list = []
    x = np.arange(20 * 36, dtype=np.float32).reshape(20, 36)
    (t,) = program(x, reports=reports, memory_counts=True)
    np.testing.assert_array_equal(t, x.T)
    (report,) = reports
    (load, store) = report.global_sectors.values()
    assert load[0] > load[1] or store[0] > store[1]  # a naive transpose is uncoalesced on one side
