"""Kernels using the vector ops layoutkit adds (contract, multi_reduction, transpose, ...), each
with inputs and the expected outputs written as numpy formulas here (not the backends' code).
Thread t of one block of T = 8 works on row t of every argument. Each body starts after
PROLOGUE (see module_text). Used by the simulator's
tests and by the CUDA tests (emitted code compiled and run on the host)."""

from __future__ import annotations

import numpy as np

T = 8

MATMUL_MAPS = ("[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
               "affine_map<(d0, d1, d2) -> (d0, d1)>]")
TRANSPOSED_MAPS = ("[affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
                   "affine_map<(d0, d1, d2) -> (d0, d1)>]")
DOT_MAPS = "[affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>]"


PROLOGUE = "      %t = gpu.thread_id x\n      %c0 = arith.constant 0 : index\n"


def module_text(signature: str, body: str) -> str:
    """The module of kernel ``@k(signature)``: %t (the thread) and %c0 defined, then ``body``."""
    return (f"module {{\n  gpu.module @m {{\n    gpu.func @k({signature}) kernel {{\n{PROLOGUE}{body}\n"
            "      gpu.return\n    }\n  }\n}\n")


def _ints(rng, shape, low=-4, high=5, dtype=np.float32):
    """Small integers: every sum and product is exact whatever the order."""
    return rng.integers(low, high, shape).astype(dtype)


def contract():
    signature = ("%A: memref<8x4x3xf32>, %B: memref<8x3x5xf32>, %C: memref<8x4x5xf32>, "
                 "%AT: memref<8x3x4xf32>, %U: memref<8x8xf32>, %V: memref<8x8xf32>, "
                 "%D: memref<8x4x5xf32>, %E: memref<8x4x5xf32>, %S: memref<8xf32>")
    body = f"""\
      %a = vector.load %A[%t, %c0, %c0] : memref<8x4x3xf32>, vector<4x3xf32>
      %b = vector.load %B[%t, %c0, %c0] : memref<8x3x5xf32>, vector<3x5xf32>
      %c = vector.load %C[%t, %c0, %c0] : memref<8x4x5xf32>, vector<4x5xf32>
      %at = vector.load %AT[%t, %c0, %c0] : memref<8x3x4xf32>, vector<3x4xf32>
      %u = vector.load %U[%t, %c0] : memref<8x8xf32>, vector<8xf32>
      %v = vector.load %V[%t, %c0] : memref<8x8xf32>, vector<8xf32>
      %d = vector.contract {{indexing_maps = {MATMUL_MAPS}, iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}} %a, %b, %c : vector<4x3xf32>, vector<3x5xf32> into vector<4x5xf32>
      %e = vector.contract {{indexing_maps = {TRANSPOSED_MAPS}, iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<maxnumf>}} %at, %b, %c : vector<3x4xf32>, vector<3x5xf32> into vector<4x5xf32>
      %s0 = memref.load %S[%t] : memref<8xf32>
      %s = vector.contract {{indexing_maps = {DOT_MAPS}, iterator_types = ["reduction"], kind = #vector.kind<add>}} %u, %v, %s0 : vector<8xf32>, vector<8xf32> into f32
      vector.store %d, %D[%t, %c0, %c0] : memref<8x4x5xf32>, vector<4x5xf32>
      vector.store %e, %E[%t, %c0, %c0] : memref<8x4x5xf32>, vector<4x5xf32>
      memref.store %s, %S[%t] : memref<8xf32>"""
    rng = np.random.default_rng(11)
    a, b, c = _ints(rng, (T, 4, 3)), _ints(rng, (T, 3, 5)), _ints(rng, (T, 4, 5))
    at, u, v, s = _ints(rng, (T, 3, 4)), _ints(rng, (T, 8)), _ints(rng, (T, 8)), _ints(rng, T)
    args = {"A": a, "B": b, "C": c, "AT": at, "U": u, "V": v, "D": np.zeros((T, 4, 5), np.float32),
            "E": np.zeros((T, 4, 5), np.float32), "S": s.copy()}
    expected = {"D": c + np.einsum("tik,tkj->tij", a, b),
                "E": np.maximum(c, (at[:, :, :, None] * b[:, :, None, :]).max(axis=1)),
                "S": s + (u * v).sum(axis=1)}
    return signature, body, args, expected


def reductions():
    signature = ("%X: memref<8x4x8xf32>, %ACC: memref<8x4xf32>, %Y: memref<8x2x3x4xi32>, "
                 "%YACC: memref<8x3xi32>, %R: memref<8x4xf32>, %RY: memref<8x3xi32>, %RS: memref<8xf32>")
    body = """\
      %x = vector.load %X[%t, %c0, %c0] : memref<8x4x8xf32>, vector<4x8xf32>
      %acc = vector.load %ACC[%t, %c0] : memref<8x4xf32>, vector<4xf32>
      %y = vector.load %Y[%t, %c0, %c0, %c0] : memref<8x2x3x4xi32>, vector<2x3x4xi32>
      %yacc = vector.load %YACC[%t, %c0] : memref<8x3xi32>, vector<3xi32>
      %r = vector.multi_reduction <add>, %x, %acc [1] : vector<4x8xf32> to vector<4xf32>
      %ry = vector.multi_reduction <maxsi>, %y, %yacc [0, 2] : vector<2x3x4xi32> to vector<3xi32>
      %one = arith.constant 1.0 : f32
      %rs = vector.multi_reduction <mul>, %r, %one [0] : vector<4xf32> to f32
      vector.store %r, %R[%t, %c0] : memref<8x4xf32>, vector<4xf32>
      vector.store %ry, %RY[%t, %c0] : memref<8x3xi32>, vector<3xi32>
      memref.store %rs, %RS[%t] : memref<8xf32>"""
    rng = np.random.default_rng(12)
    x, acc = _ints(rng, (T, 4, 8)), _ints(rng, (T, 4))
    y, yacc = _ints(rng, (T, 2, 3, 4), -50, 50, np.int32), _ints(rng, (T, 3), -50, 50, np.int32)
    args = {"X": x, "ACC": acc, "Y": y, "YACC": yacc, "R": np.zeros((T, 4), np.float32),
            "RY": np.zeros((T, 3), np.int32), "RS": np.zeros(T, np.float32)}
    r = acc + x.sum(axis=2)
    expected = {"R": r, "RY": np.maximum(yacc, y.max(axis=(1, 3))), "RS": r.prod(axis=1)}
    return signature, body, args, expected


def reshapes():
    signature = ("%X: memref<8x2x3x4xf32>, %TR: memref<8x4x2x3xf32>, %SC: memref<8x6x4xf32>, "
                 "%EX: memref<8x1x2x4xf32>, %IN: memref<8x2x3x4xf32>")
    body = """\
      %x = vector.load %X[%t, %c0, %c0, %c0] : memref<8x2x3x4xf32>, vector<2x3x4xf32>
      %tr = vector.transpose %x, [2, 0, 1] : vector<2x3x4xf32> to vector<4x2x3xf32>
      %sc = vector.shape_cast %x : vector<2x3x4xf32> to vector<6x4xf32>
      %ex = vector.extract_strided_slice %x {offsets = [1, 1], sizes = [1, 2], strides = [1, 1]} : vector<2x3x4xf32> to vector<1x2x4xf32>
      %row = vector.extract_strided_slice %tr {offsets = [3, 0, 0], sizes = [1, 2, 3], strides = [1, 1, 1]} : vector<4x2x3xf32> to vector<1x2x3xf32>
      %row2 = vector.shape_cast %row : vector<1x2x3xf32> to vector<2x3xf32>
      %in1 = vector.insert_strided_slice %ex, %x {offsets = [0, 0, 0], strides = [1, 1, 1]} : vector<1x2x4xf32> into vector<2x3x4xf32>
      %in2 = vector.insert_strided_slice %row2, %in1 {offsets = [1, 1, 1], strides = [1, 1]} : vector<2x3xf32> into vector<2x3x4xf32>
      vector.store %tr, %TR[%t, %c0, %c0, %c0] : memref<8x4x2x3xf32>, vector<4x2x3xf32>
      vector.store %sc, %SC[%t, %c0, %c0] : memref<8x6x4xf32>, vector<6x4xf32>
      vector.store %ex, %EX[%t, %c0, %c0, %c0] : memref<8x1x2x4xf32>, vector<1x2x4xf32>
      vector.store %in2, %IN[%t, %c0, %c0, %c0] : memref<8x2x3x4xf32>, vector<2x3x4xf32>"""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((T, 2, 3, 4)).astype(np.float32)
    args = {"X": x, "TR": np.zeros((T, 4, 2, 3), np.float32), "SC": np.zeros((T, 6, 4), np.float32),
            "EX": np.zeros((T, 1, 2, 4), np.float32), "IN": np.zeros((T, 2, 3, 4), np.float32)}
    tr = np.stack([x[:, :, :, k] for k in range(4)], axis=1)  # tr[t, k, i, j] = x[t, i, j, k]
    inserted = x.copy()
    inserted[:, 0, 0:2, :] = x[:, 1, 1:3, :]
    inserted[:, 1, 1, 1:4] = x[:, :, :, 3].reshape(T, 6)[:, 0:3]  # row2[0] = tr[t, 3, 0, :]
    inserted[:, 1, 2, 1:4] = x[:, 1, :, 3]  # row2[1] = tr[t, 3, 1, :]
    expected = {"TR": tr, "SC": x.reshape(T, 6, 4), "EX": x[:, 1:2, 1:3, :], "IN": inserted}
    return signature, body, args, expected


def gathers():
    signature = ("%X: memref<64xf32>, %Y: memref<8x16xf32>, %IDX: memref<8x4xi32>, %N: memref<8xi32>, "
                 "%P: memref<8x4xf32>, %G: memref<8x4xf32>, %G2: memref<8x4xf32>, %M: memref<8x4x3xi1>")
    body = """\
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %n32 = memref.load %N[%t] : memref<8xi32>
      %n = arith.index_cast %n32 : i32 to index
      %idx = vector.load %IDX[%t, %c0] : memref<8x4xi32>, vector<4xi32>
      %pass = vector.load %P[%t, %c0] : memref<8x4xf32>, vector<4xf32>
      %mask = vector.create_mask %n : vector<4xi1>
      %o = arith.muli %t, %c3 : index
      %g = vector.gather %X[%o] [%idx], %mask, %pass : memref<64xf32>, vector<4xi32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
      %step = vector.step : vector<4xindex>
      %two = arith.constant dense<2> : vector<4xindex>
      %even = arith.muli %step, %two : vector<4xindex>
      %first3 = vector.constant_mask [3] : vector<4xi1>
      %g2 = vector.gather %Y[%t, %c2] [%even], %first3, %pass : memref<8x16xf32>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
      %m = vector.create_mask %n, %c2 : vector<4x3xi1>
      vector.store %g, %G[%t, %c0] : memref<8x4xf32>, vector<4xf32>
      vector.store %g2, %G2[%t, %c0] : memref<8x4xf32>, vector<4xf32>
      vector.store %m, %M[%t, %c0, %c0] : memref<8x4x3xi1>, vector<4x3xi1>"""
    rng = np.random.default_rng(14)
    x, y = rng.standard_normal(64).astype(np.float32), rng.standard_normal((T, 16)).astype(np.float32)
    idx = rng.integers(0, 40, (T, 4)).astype(np.int32)
    n = rng.integers(0, 5, T).astype(np.int32)
    p = rng.standard_normal((T, 4)).astype(np.float32)
    args = {"X": x, "Y": y, "IDX": idx, "N": n, "P": p, "G": np.zeros((T, 4), np.float32),
            "G2": np.zeros((T, 4), np.float32), "M": np.zeros((T, 4, 3), bool)}
    lane = np.arange(4)
    below = lane[None, :] < n[:, None]
    g = np.where(below, x[np.arange(T)[:, None] * 3 + idx], p)
    g2 = np.where(lane[None, :] < 3, y[:, 2 + 2 * lane], p)
    m = below[:, :, None] & (np.arange(3) < 2)[None, None, :]
    return signature, body, args, {"G": g, "G2": g2, "M": m}


def broadcasts_and_positions():
    signature = ("%V: memref<8x4xf32>, %COL: memref<8x3x1xf32>, %MAT: memref<8x3x4xf32>, "
                 "%PQ: memref<8x2xi32>, %B1: memref<8x3x4xf32>, %B2: memref<8x2x3x4xf32>, "
                 "%ROW: memref<8x4xf32>, %EL: memref<8xf32>, %INS: memref<8x3x4xf32>")
    body = """\
      %c1 = arith.constant 1 : index
      %v = vector.load %V[%t, %c0] : memref<8x4xf32>, vector<4xf32>
      %col = vector.load %COL[%t, %c0, %c0] : memref<8x3x1xf32>, vector<3x1xf32>
      %mat = vector.load %MAT[%t, %c0, %c0] : memref<8x3x4xf32>, vector<3x4xf32>
      %p32 = memref.load %PQ[%t, %c0] : memref<8x2xi32>
      %q32 = memref.load %PQ[%t, %c1] : memref<8x2xi32>
      %p = arith.index_cast %p32 : i32 to index
      %q = arith.index_cast %q32 : i32 to index
      %b1 = vector.broadcast %v : vector<4xf32> to vector<3x4xf32>
      %b2 = vector.broadcast %col : vector<3x1xf32> to vector<2x3x4xf32>
      %row = vector.extract %mat[%p] : vector<4xf32> from vector<3x4xf32>
      %el = vector.extract %mat[%p, %q] : f32 from vector<3x4xf32>
      %neg = arith.negf %el : f32
      %ins1 = vector.insert %neg, %mat [%p, %q] : f32 into vector<3x4xf32>
      %ins = vector.insert %v, %ins1 [%q] : vector<4xf32> into vector<3x4xf32>
      vector.store %b1, %B1[%t, %c0, %c0] : memref<8x3x4xf32>, vector<3x4xf32>
      vector.store %b2, %B2[%t, %c0, %c0, %c0] : memref<8x2x3x4xf32>, vector<2x3x4xf32>
      vector.store %row, %ROW[%t, %c0] : memref<8x4xf32>, vector<4xf32>
      memref.store %el, %EL[%t] : memref<8xf32>
      vector.store %ins, %INS[%t, %c0, %c0] : memref<8x3x4xf32>, vector<3x4xf32>"""
    rng = np.random.default_rng(15)
    v, col = rng.standard_normal((T, 4)).astype(np.float32), rng.standard_normal((T, 3, 1)).astype(np.float32)
    mat = rng.standard_normal((T, 3, 4)).astype(np.float32)
    p, q = rng.integers(0, 3, T), rng.integers(0, 3, T)  # q < 3: also a row position of %ins
    args = {"V": v, "COL": col, "MAT": mat, "PQ": np.stack([p, q], axis=1).astype(np.int32),
            "B1": np.zeros((T, 3, 4), np.float32), "B2": np.zeros((T, 2, 3, 4), np.float32),
            "ROW": np.zeros((T, 4), np.float32), "EL": np.zeros(T, np.float32),
            "INS": np.zeros((T, 3, 4), np.float32)}
    rows = np.arange(T)
    ins = mat.copy()
    ins[rows, p, q] = -mat[rows, p, q]
    ins[rows, q, :] = v
    expected = {"B1": np.repeat(v[:, None, :], 3, axis=1),
                "B2": np.tile(col, (1, 1, 4))[:, None].repeat(2, axis=1),
                "ROW": mat[rows, p], "EL": mat[rows, p, q], "INS": ins}
    return signature, body, args, expected


CASES = {f.__name__: f for f in (contract, reductions, reshapes, gathers, broadcasts_and_positions)}
