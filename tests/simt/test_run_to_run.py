"""Work kept from one run of a kernel to the next (batched loops' induction variables and
their repeats, fissioned steps, the batching decision): later launches of the same parsed
module, with other data and other shapes in between, give the outputs and counts of a
fresh module run one iteration at a time, and the values a formula gives."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt import batching

from .test_batching import assert_same, both, example, matmul_args


def _want(args) -> np.ndarray:
    """matmul_mma's f32 sums: each 16-wide k step's product rounded, then added in order."""
    a, b = args["a"].astype(np.float64), args["b"].astype(np.float64)
    m, n = a.shape[0], b.shape[1]
    want = np.zeros((m, n), np.float32)
    for k0 in range(0, a.shape[1], 16):
        want += a[:, k0:k0 + 16] @ b[k0:k0 + 16]
    return want


def test_repeated_launches_of_one_module_stay_exact():
    """One module launched again and again (shapes alternating, so that kept arrays of one
    launch shape meet another's) against a fresh parse run one iteration at a time."""
    module = example("matmul_mma")
    # (with 8 blocks the kk loop's fissioned runs take 2 iterations at a time, else 4)
    shapes = [(128, 128, 64, 1), (256, 512, 64, 2), (128, 128, 64, 2), (256, 256, 128, 3),
              (256, 512, 64, 4), (128, 128, 64, 5)]
    for m, n, k, seed in shapes:
        args = matmul_args(m, n, k, seed=seed)
        kept = {name: v.copy() for name, v in args.items()}
        report = layoutkit.simulate(module, "matmul", (n // 128, m // 128), 128, kept)
        fresh = both(example("matmul_mma"), "matmul", (n // 128, m // 128), 128, args)
        assert_same(fresh)
        (seq, a), _ = fresh
        assert np.array_equal(kept["c"], seq["c"]), (m, n, k)
        assert (report.ops, report.thread_instructions) == (a.ops, a.thread_instructions)
        assert np.allclose(kept["c"], _want(args), rtol=1e-5, atol=1e-5)


def test_induction_repeats_last_from_run_to_run_and_are_read_only():
    """A batched loop nested in another reads the outer induction variable repeated: the
    second launch reuses the first one's repeat (the same array), which no op may write."""
    module = example("matmul_mma")
    seen = []
    repeat = batching._repeat

    def spy(m, value, times):
        wide = repeat(m, value, times)
        if m.lasting.get(id(value)) is value:
            seen.append((value, times, wide))
        return wide

    args = matmul_args(128, 128, 64)
    try:
        batching._repeat = spy
        for _ in range(2):
            layoutkit.simulate(module, "matmul", (1, 1), 128, {k: v.copy() for k, v in args.items()})
    finally:
        batching._repeat = repeat
    assert seen and len(seen) % 2 == 0
    half = len(seen) // 2
    for (v1, t1, w1), (v2, t2, w2) in zip(seen[:half], seen[half:]):
        assert v1 is v2 and t1 == t2 and w1 is w2
        # (a repeat is the value tiled: slot j * T + t holds value[t])
        assert np.array_equal(w1, np.tile(v1, t1))
    with pytest.raises(ValueError):
        seen[0][2][0] = 1
