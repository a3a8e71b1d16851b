"""Fragment-style accesses against numpy: vector<2xf16> row loads from shared memory at
aligned, odd and mixed offsets over several blocks (the offsets' array may be an index
itself, which must keep its value), and static vector.insert chains that write every
element (no copy of their first dest) or only some of them (the rest is dest's)."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt import SimulationError

from .kernels import kernel_module

THREADS = 64


@pytest.mark.parametrize("shift", [0, 1, "mixed"])
def test_row_loads_from_shared_memory(shift):
    # block b stages x[b] (130 f16) in shared memory; thread t loads s[i : i + 2] with
    # i = 2 * t + shift (mixed: 2 * t + t % 2) and writes it to o[b, t]; then o2[b, t] = i
    body = """\
      %t = gpu.thread_id x
      %bid = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c130 = arith.constant 130 : index
      %s = memref.alloc() : memref<130xf16, #gpu.address_space<workgroup>>
      %z = arith.cmpi eq, %t, %c0 : index
      scf.if %z {
        scf.for %j = %c0 to %c130 step %c1 {
          %v = memref.load %x[%bid, %j] : memref<2x130xf16>
          memref.store %v, %s[%j] : memref<130xf16, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %t2 = arith.muli %t, %c2 : index
      %i = SHIFT
      %r = vector.load %s[%i] : memref<130xf16, #gpu.address_space<workgroup>>, vector<2xf16>
      vector.store %r, %o[%bid, %t, %c0] : memref<2x64x2xf16>, vector<2xf16>
      memref.store %i, %o2[%bid, %t] : memref<2x64xindex>"""
    index = {0: "arith.addi %t2, %c0 : index", 1: "arith.addi %t2, %c1 : index",
             "mixed": "arith.addi %t2, %par : index"}[shift]
    if shift == "mixed":
        body = body.replace("      %i = SHIFT", "      %par = arith.remui %t, %c2 : index\n      %i = SHIFT")
    body = body.replace("SHIFT", index)
    module = kernel_module("%x: memref<2x130xf16>, %o: memref<2x64x2xf16>, %o2: memref<2x64xindex>", body)
    x = (np.arange(260, dtype=np.float32).reshape(2, 130) * 0.25).astype(np.float16)
    out = np.zeros((2, THREADS, 2), np.float16)
    out2 = np.zeros((2, THREADS), np.int64)
    layoutkit.simulate(module, "k", 2, THREADS, {"x": x, "o": out, "o2": out2})
    t = np.arange(THREADS)
    i = 2 * t + (t % 2 if shift == "mixed" else shift)
    np.testing.assert_array_equal(out2, np.stack([i, i]))
    want = np.stack([x[b][i[:, None] + np.arange(2)] for b in range(2)])
    np.testing.assert_array_equal(out, want)


def test_row_load_at_an_index_that_is_the_offset_itself():
    # s[%t] with a 1-D memref: the offsets are %t's own array, used again afterwards
    body = """\
      %t = gpu.thread_id x
      %bid = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c65 = arith.constant 65 : index
      %s = memref.alloc() : memref<66xf16, #gpu.address_space<workgroup>>
      %v = memref.load %x[%bid, %t] : memref<2x66xf16>
      memref.store %v, %s[%t] : memref<66xf16, #gpu.address_space<workgroup>>
      %z = arith.cmpi eq, %t, %c0 : index
      scf.if %z {
        %e = arith.constant 0.0 : f16
        memref.store %e, %s[%c64] : memref<66xf16, #gpu.address_space<workgroup>>
        memref.store %e, %s[%c65] : memref<66xf16, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %r = vector.load %s[%t] : memref<66xf16, #gpu.address_space<workgroup>>, vector<2xf16>
      vector.store %r, %o[%bid, %t, %c0] : memref<2x64x2xf16>, vector<2xf16>
      memref.store %t, %o2[%bid, %t] : memref<2x64xindex>"""
    module = kernel_module("%x: memref<2x66xf16>, %o: memref<2x64x2xf16>, %o2: memref<2x64xindex>", body)
    x = (np.arange(132, dtype=np.float32).reshape(2, 66) + 1).astype(np.float16)
    out = np.zeros((2, THREADS, 2), np.float16)
    out2 = np.zeros((2, THREADS), np.int64)
    layoutkit.simulate(module, "k", 2, THREADS, {"x": x, "o": out, "o2": out2})
    t = np.arange(THREADS)
    np.testing.assert_array_equal(out2, np.stack([t, t]))
    shared = np.concatenate([x[:, :64], np.zeros((2, 2), np.float16)], axis=1)
    np.testing.assert_array_equal(out, shared[:, t[:, None] + np.arange(2)])


INSERTS = """\
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %dest = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : vector<4x2xf32>
      %u = arith.constant dense<[9.0, 10.0]> : vector<2xf32>
      %a = vector.load %x[%t, %c0] : memref<64x4xf32>, vector<2xf32>
      %b = vector.load %x[%t, %c2] : memref<64x4xf32>, vector<2xf32>
CHAIN
      vector.store %f, %o[%t, %c0, %c0] : memref<64x4x2xf32>, vector<4x2xf32>"""


@pytest.mark.parametrize("chain,rows", [
    # every row written (the chain's first array is not a copy of %dest), a uniform first
    ([("u", 2), ("a", 0), ("b", 3), ("a", 1)], {2: "u", 0: "a", 3: "b", 1: "a"}),
    # rows 1 and 3 are %dest's
    ([("a", 2), ("b", 0)], {2: "a", 0: "b"}),
    # row 0 written twice, row 3 never
    ([("a", 0), ("b", 1), ("b", 0), ("u", 2)], {0: "b", 1: "b", 2: "u"}),
])
def test_static_insert_chains(chain, rows):
    lines, dest = [], "%dest"
    for k, (source, row) in enumerate(chain):
        name = "%f" if k == len(chain) - 1 else f"%f{k}"
        lines.append(f"      {name} = vector.insert %{source}, {dest} [{row}] : vector<2xf32> into vector<4x2xf32>")
        dest = name
    module = kernel_module("%x: memref<64x4xf32>, %o: memref<64x4x2xf32>", INSERTS.replace("CHAIN", "\n".join(lines)))
    x = np.arange(THREADS * 4, dtype=np.float32).reshape(THREADS, 4) + 0.5
    out = np.zeros((THREADS, 4, 2), np.float32)
    layoutkit.simulate(module, "k", 1, THREADS, {"x": x, "o": out})
    values = {"a": x[:, :2], "b": x[:, 2:], "u": np.broadcast_to(np.float32([9, 10]), (THREADS, 2))}
    want = np.broadcast_to(np.float32([[1, 2], [3, 4], [5, 6], [7, 8]]), (THREADS, 4, 2)).copy()
    for row, source in rows.items():
        want[:, row] = values[source]
    np.testing.assert_array_equal(out, want)


def test_static_insert_at_the_poison_position_runs():
    # position -1 is poison (MLIR: the result is poison, any value): it must not stop the
    # run; an insert at a real position next to it still writes its row
    body = """\
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %dest = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : vector<2x2xf32>
      %a = vector.load %x[%t, %c0] : memref<64x4xf32>, vector<2xf32>
      %p = vector.insert %a, %dest [-1] : vector<2xf32> into vector<2x2xf32>
      %f = vector.insert %a, %dest [0] : vector<2xf32> into vector<2x2xf32>
      vector.store %f, %o[%t, %c0, %c0] : memref<64x2x2xf32>, vector<2x2xf32>"""
    module = kernel_module("%x: memref<64x4xf32>, %o: memref<64x2x2xf32>", body)
    x = np.arange(THREADS * 4, dtype=np.float32).reshape(THREADS, 4)
    out = np.zeros((THREADS, 2, 2), np.float32)
    layoutkit.simulate(module, "k", 1, THREADS, {"x": x, "o": out})
    np.testing.assert_array_equal(out[:, 0], x[:, :2])
    np.testing.assert_array_equal(out[:, 1], np.broadcast_to(np.float32([3, 4]), (THREADS, 2)))


RACY = """\
      %t = gpu.thread_id x
      %bid = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %s = memref.alloc() : memref<65x2xf16, #gpu.address_space<workgroup>>
      %t2 = arith.muli %t, %c2 : index
      %v = memref.load %x[%bid, %t2] : memref<2x130xf16>
      memref.store %v, %s[%t, %c0] : memref<65x2xf16, #gpu.address_space<workgroup>>
      memref.store %v, %s[%t, %c1] : memref<65x2xf16, #gpu.address_space<workgroup>>
      %z = arith.cmpi eq, %t, %c0 : index
      scf.if %z {
        memref.store %v, %s[%c64, %c0] : memref<65x2xf16, #gpu.address_space<workgroup>>
        memref.store %v, %s[%c64, %c1] : memref<65x2xf16, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %r = vector.load %s[%t, %c0] : memref<65x2xf16, #gpu.address_space<workgroup>>, vector<2xf16>
      vector.store %r, %o[%bid, %t, %c0] : memref<2x64x2xf16>, vector<2xf16>
      %n = arith.addi %t, %c1 : index
      %e = arith.constant 1.0 : f16
      memref.store %e, %s[%n, %c1] : memref<65x2xf16, #gpu.address_space<workgroup>>"""


def test_a_store_after_row_loads_races_with_the_thread_that_read_there():
    # thread t reads row t (2 f16) of two blocks' shared memory, then writes row t + 1
    # without a barrier: thread 0's write of s[1][1] races with thread 1's read of row 1
    module = kernel_module("%x: memref<2x130xf16>, %o: memref<2x64x2xf16>", RACY)
    x = np.arange(260, dtype=np.float32).reshape(2, 130).astype(np.float16)
    out = np.zeros((2, THREADS, 2), np.float16)
    with pytest.raises(SimulationError, match=r"thread \(0, 0, 0\): data race on shared memref 's': "
                       r"this thread writes \(1, 1\), read by thread \(1, 0, 0\) with no gpu.barrier"):
        layoutkit.simulate(module, "k", 2, THREADS, {"x": x, "o": out})


def test_row_loads_counted_for_banks():
    # without the racy store: each warp reads 32 consecutive 4-byte words, one wavefront
    body = RACY[:RACY.index("      %n = arith.addi")]
    module = kernel_module("%x: memref<2x130xf16>, %o: memref<2x64x2xf16>", body)
    x = np.arange(260, dtype=np.float32).reshape(2, 130).astype(np.float16)
    out = np.zeros((2, THREADS, 2), np.float16)
    report = layoutkit.simulate(module, "k", 2, THREADS, {"x": x, "o": out}, bank_conflicts=True)
    loads = [v for k, v in report.shared_wavefronts.items() if "vector.load %s" in k]
    assert loads == [(4, 4)]  # 2 blocks x 2 warps, each one wavefront (and one ideally)
    np.testing.assert_array_equal(out, np.repeat(x[:, 0:128:2, None], 2, axis=2))
