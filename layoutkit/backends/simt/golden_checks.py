"""Run a committed golden Triton kernel (``tests/triton/frontend/goldens/<kernel>``) in the TTGIR
executor on random inputs and compare its outputs with numpy: what ``layoutkit
compare-pipelines`` reports as ``ran``.

Every golden kernel has a reference here; each is launched with fixed sizes (masked tails where
the kernel masks) and the numpy result of the same inputs; floats are compared with the
tolerances of the rounding the kernel does (f16 outputs ~2e-3), integer-valued data exactly::

    >>> check_with_numpy("vector_add", module)               # doctest: +SKIP
    'equal'

Worked example (``matmul``, 64x64 tiles): ``m, n, k = 80, 112, 48`` needs ``ceil(80/64) *
ceil(112/64) = 4`` programs; ``c = a @ b`` in f64, rounded to f16.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: the verdicts
EQUAL, DIFFERS, NO_REFERENCE = "equal", "differs", "no reference"


def _close(got, want, rtol: float, atol: float) -> bool:
    return bool(np.allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol))


def _vector_add(run, rng) -> bool:
    n = 3000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    run("vector_add", -(-n // 1024), [x, y, out, n])
    return bool((out == x + y).all())


def _softmax_rows(run, rng) -> bool:
    rows, cols, stride = 10, 200, 256
    x = rng.standard_normal((rows, stride)).astype(np.float16)
    out = np.full_like(x, 9)
    run("softmax_rows", 3, [x, out, rows, cols, stride])
    xf = x[:, :cols].astype(np.float64)
    e = np.exp(xf - xf.max(axis=1, keepdims=True))
    return _close(out[:, :cols], e / e.sum(axis=1, keepdims=True), 2e-3, 1e-4) and bool((out[:, cols:] == 9).all())


def _reduce_sum(axis: int):
    def check(run, rng) -> bool:
        tiles, r, c = 3, 32, 64
        x = rng.integers(-50, 50, (tiles * r, c)).astype(np.float32)
        out = np.zeros(tiles * (c if axis == 0 else r), np.float32)
        run("reduce_sum_2d", tiles, [x, out, c])
        return bool((out == x.reshape(tiles, r, c).sum(axis=axis + 1).reshape(-1)).all())
    return check


def _layer_norm_fwd(run, rng) -> bool:
    rows, cols = 5, 300
    x = rng.standard_normal((rows, cols)).astype(np.float16)
    w, b = rng.standard_normal(cols).astype(np.float32), rng.standard_normal(cols).astype(np.float32)
    y, mean, rstd = np.zeros_like(x), np.zeros(rows, np.float32), np.zeros(rows, np.float32)
    run("layer_norm_fwd", rows, [x, w, b, y, mean, rstd, cols, cols, 1e-5])
    xf = x.astype(np.float64)
    mu = xf.mean(axis=1)
    rs = 1 / np.sqrt(((xf - mu[:, None]) ** 2).mean(axis=1) + 1e-5)
    return (_close(mean, mu, 1e-5, 1e-6) and _close(rstd, rs, 1e-5, 0)
            and _close(y, (xf - mu[:, None]) * rs[:, None] * w + b, 4e-3, 4e-3))


def _matmul(tile: int):
    def check(run, rng) -> bool:
        m, n, k = tile + 16, tile + 48, 48
        a, b = rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)
        c = np.full((m, n), 5, np.float16)
        run("matmul", -(-m // tile) * -(-n // tile), [a, b, c, m, n, k, k, n, n])
        return _close(c, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16), 2e-3, 2e-3)
    return check


def _attention_fwd(run, rng) -> bool:
    seq, head, scale = 100, 64, 0.125
    q, k, v = (rng.standard_normal((seq, head)).astype(np.float16) for _ in range(3))
    out = np.zeros((seq, head), np.float16)
    run("attention_fwd", 2, [q, k, v, out, seq, head, scale])
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return _close(out, (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64), 1e-2, 3e-3)


def _cumsum_rows(run, rng) -> bool:
    x = rng.integers(-9, 9, (32, 128)).astype(np.float32)
    out = np.zeros_like(x)
    run("cumsum_rows", 4, [x, out])
    return bool((out == np.cumsum(x, axis=1)).all())


def _transpose_permute(run, rng) -> bool:
    tile, cube = rng.standard_normal((64, 32)).astype(np.float16), rng.standard_normal((4, 8, 16)).astype(np.float32)
    tile_out, cube_out = np.zeros((32, 64), np.float16), np.zeros((16, 4, 8), np.float32)
    run("transpose_permute", 1, [tile, tile_out, cube, cube_out])
    return bool((tile_out == tile.T).all() and (cube_out == cube.transpose(2, 0, 1)).all())


def _transpose_tile(run, rng) -> bool:
    x = rng.standard_normal((64, 64)).astype(np.float16)
    out = np.zeros_like(x)
    run("transpose_tile", 1, [x, out])
    return bool((out == x.T).all())


def _replicated_chain(run, rng) -> bool:
    x = rng.integers(1, 50, (64, 64)).astype(np.float32)
    out, rows = np.zeros_like(x), np.zeros(64, np.float32)
    run("replicated_chain", 1, [x, out, rows])
    scale = x.astype(np.float64).sum(axis=1) / 3 / 5 / 7 / 11
    return _close(rows, scale, 1e-5, 0) and _close(out, x / scale[:, None], 1e-5, 0)


def _argmax_rows(run, rng) -> bool:
    cols = 100
    x = rng.standard_normal((32, cols)).astype(np.float32)
    x[3, 5] = x[3, 70] = 50  # a tie: the lower index wins
    idx, val = np.zeros(32, np.int32), np.zeros(32, np.float32)
    run("argmax_rows", 2, [x, idx, val, cols])
    return bool((idx == x.argmax(axis=1)).all() and (val == x.max(axis=1)).all())


def _reshape_tile(run, rng) -> bool:
    x = rng.standard_normal((16, 64)).astype(np.float32)
    out = np.zeros_like(x)
    run("reshape_tile", 1, [x, out])
    flat = x.reshape(-1, 16)
    return bool((out == (flat - flat.max(axis=1, keepdims=True)).reshape(16, 64)).all())


def _outer3_reduce(run, rng) -> bool:
    a, b, c = (rng.integers(-5, 5, n).astype(np.float32) for n in (8, 16, 32))
    out = np.zeros((8, 32), np.float32)
    run("outer3_reduce", 1, [a, b, c, out])
    return bool((out == (a[:, None, None] * b[None, :, None] + c[None, None, :]).sum(axis=1)).all())


def _branch_and_while(run, rng) -> bool:
    ok = True
    for n in (1, -1):
        x = rng.standard_normal(128).astype(np.float32)
        out = np.zeros_like(x)
        run("branch_and_while", 1, [x, out, n, 6.0])
        y, steps = (x * 2 if n > 0 else x - 1), 0
        while y.max() < 6.0:
            y, steps = y + np.float32(1.5), steps + 1
        ok = ok and bool((out == y + steps).all())
    return ok


def _atomic_accumulate(run, rng) -> bool:
    n, block = 1000, 256
    vals = rng.integers(-40, 40, n).astype(np.float32)  # exact sums in any order
    bins = rng.integers(0, 16, n).astype(np.int32)
    total, best = np.full(16, 0.5, np.float32), np.full(4, -np.inf, np.float32)
    run("atomic_accumulate", 4, [vals, bins, total, best, n])
    padded = np.zeros(4 * block, np.float32)
    padded[:n] = vals  # masked lanes load 0.0 and join the max
    return bool((total == 0.5 + np.bincount(bins, weights=vals, minlength=16)).all()
                and (best == padded.reshape(4, block).max(axis=1)).all())


def _elementwise_mix(run, rng) -> bool:
    n = 1300
    x, h = rng.standard_normal(n).astype(np.float32) * 3, rng.standard_normal(n).astype(np.float16) * 3
    i = rng.integers(-100, 100, n).astype(np.int32)
    out, iout = np.full(n + 5, 7, np.float32), np.full(n + 5, 7, np.int32)
    run("elementwise_mix", 3, [x, i, h, out[:n], iout[:n], n])
    y = np.maximum(x, h.astype(np.float32)) - np.minimum(x, np.float32(0))
    y = np.where(i > 3, np.sqrt(np.abs(y)), y / np.float32(3))
    y = np.clip(y, np.float32(-2), np.float32(2)) + i.astype(np.float32)
    j = ((i << 2) ^ (i >> 1)) & 255
    j = j % 7 + np.sign(i) * (np.abs(i) // 3) * np.abs(i)  # arith.divsi truncates toward zero
    return bool((out[:n] == y.astype(np.float16).astype(np.float32)).all()
                and (iout[:n] == j.astype(np.int16).astype(np.int32)).all() and (out[n:] == 7).all())


def _join_split_cat(run, rng) -> bool:
    """``tt.cat`` may reorder (``can_reorder``): its output is checked as a permutation."""
    a, b = rng.standard_normal(256).astype(np.float32), rng.standard_normal(256).astype(np.float32)
    pair, total, both = np.zeros(512, np.float32), np.zeros(256, np.float32), np.zeros(512, np.float32)
    run("join_split_cat", 1, [a, b, pair, total, both])
    return bool((pair == np.stack([a, b], axis=1).reshape(-1)).all() and (total == a * 2 + b * 2).all()
                and (np.sort(both) == np.sort(np.concatenate([a, b]))).all())


def _gather_rows(run, rng) -> bool:
    src = rng.standard_normal((32, 32)).astype(np.float32)
    idx = rng.integers(0, 32, (32, 32)).astype(np.int32)
    out = np.zeros_like(src)
    run("gather_rows", 1, [src, idx, out])
    return bool((out == np.take_along_axis(src, idx, axis=1)).all())


def _histogram_bins(run, rng) -> bool:
    x = rng.integers(0, 64, 1024).astype(np.int32)
    out = np.zeros(64, np.int32)
    run("histogram_bins", 1, [x, out])
    return bool((out == np.histogram(x, bins=64, range=(0, 64))[0]).all())


def _dot_tf32_epilogue(run, rng) -> bool:
    """tf32 operands (10 mantissa bits) or f32 FMA: relu(a @ b + bias) within tf32's error."""
    a, b = rng.standard_normal((32, 32)).astype(np.float32), rng.standard_normal((32, 64)).astype(np.float32)
    bias = rng.standard_normal(64).astype(np.float32)
    c = np.zeros((32, 64), np.float32)
    run("dot_tf32_epilogue", 1, [a, b, bias, c])
    return _close(c, np.maximum(a.astype(np.float64) @ b + bias, 0), 1e-2, 2e-2)


#: golden kernel -> check(run, rng); ``run(function, grid, args)`` launches the module's kernel
CHECKS: dict[str, Callable] = {
    "vector_add": _vector_add, "softmax_rows": _softmax_rows, "reduce_sum_axis0": _reduce_sum(0),
    "reduce_sum_axis1": _reduce_sum(1), "layer_norm_fwd": _layer_norm_fwd, "matmul_64x64x32": _matmul(64),
    "matmul_128x128x64": _matmul(128), "attention_fwd": _attention_fwd, "cumsum_rows": _cumsum_rows,
    "transpose_permute": _transpose_permute, "transpose_tile": _transpose_tile,
    "replicated_chain": _replicated_chain, "argmax_rows": _argmax_rows, "reshape_tile": _reshape_tile,
    "outer3_reduce": _outer3_reduce, "branch_and_while": _branch_and_while, "atomic_accumulate": _atomic_accumulate,
    "elementwise_mix": _elementwise_mix, "join_split_cat": _join_split_cat, "gather_rows": _gather_rows,
    "histogram_bins": _histogram_bins, "dot_tf32_epilogue": _dot_tf32_epilogue,
}


def check_with_numpy(kernel: str | None, module, seed: int = 0) -> str:
    """Run golden ``kernel``'s TTGIR ``module`` against numpy: ``equal``, ``differs`` or ``no
    reference`` (not a golden kernel, or one without a check here). Executor errors
    (:class:`~layoutkit.backends.simt.SimulationError`) propagate."""
    from layoutkit.backends.simt import simulate

    check = CHECKS.get(kernel) if kernel else None
    if check is None:
        return NO_REFERENCE

    def run(function: str, grid: int, args: list) -> None:
        simulate(module, function, grid=grid, args=args)

    return EQUAL if check(run, np.random.default_rng(seed)) else DIFFERS


__all__ = ["CHECKS", "DIFFERS", "EQUAL", "NO_REFERENCE", "check_with_numpy"]
