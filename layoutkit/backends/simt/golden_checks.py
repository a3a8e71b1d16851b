"""Run a committed golden Triton kernel (``tests/triton/frontend/goldens/<kernel>``) in the TTGIR
executor on random inputs and compare its outputs with numpy: what ``layoutkit
compare-pipelines`` reports as ``ran``.

Each golden kernel that has a reference here is launched with fixed sizes (masked tails where
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


#: golden kernel -> check(run, rng); ``run(function, grid, args)`` launches the module's kernel
CHECKS: dict[str, Callable] = {
    "vector_add": _vector_add, "softmax_rows": _softmax_rows, "reduce_sum_axis0": _reduce_sum(0),
    "reduce_sum_axis1": _reduce_sum(1), "layer_norm_fwd": _layer_norm_fwd, "matmul_64x64x32": _matmul(64),
    "matmul_128x128x64": _matmul(128), "attention_fwd": _attention_fwd, "cumsum_rows": _cumsum_rows,
    "transpose_permute": _transpose_permute, "transpose_tile": _transpose_tile,
    "replicated_chain": _replicated_chain,
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
