"""Simulator handler of ``nvgpu.mma.sync``: the warp's fragments gathered into matrices,
multiplied with the hardware's rounding (:mod:`layoutkit.backends.simt.mma`)."""

from __future__ import annotations

from layoutkit.backends.simt import mma as mma_fragments
from layoutkit.backends.simt.machine import full
from layoutkit.backends.simt.registry import handles
from layoutkit.ir.dialects.upstream import nvgpu


@handles(nvgpu.MmaSyncOp)
def mma(m, op, mask) -> None:
    if m.geometry.warp_size != 32:
        m.fail(op, "nvgpu.mma.sync needs 32-lane warps")
    static = m.static.get(op)
    if static is None:
        static = m.static[op] = (op.matrix_a, op.matrix_b, op.matrix_c, op.res, op.shape)
    a_value, b_value, c_value, result, shape = static
    if not m.full:
        m.warp_check(op, mask, need_full=True)
    threads = m.chunk.threads
    env = m.env
    a = full(env[a_value], threads)
    b = full(env[b_value], threads)
    c = env[c_value]  # (one C for all slots stays one: mma adds it as such)
    if c.shape[0] != 1:
        c = full(c, threads)
    env[result] = mma_fragments.mma(a, b, c, shape, a_matrices=_a_matrices(m, a, shape))


def _a_matrices(m, a, shape):
    """The per-warp A matrices of fragments ``a``, kept while the same A is used (an A
    fragment is typically reused by several instructions); of a value repeated for a
    batched loop, its original's matrices (``mma`` uses them for every repeat)."""
    cached = m.cache.get("mma_a")  # (A fragments, shape, their matrices)
    if cached is not None and cached[0] is a and cached[1] == shape:
        return cached[2]
    source = m.repeated.get(id(a))
    if source is not None and source[0] is a:
        # the original's matrices: mma broadcasts them over the repeats
        base, times = source[1], source[2]
        matrices = _a_matrices(m, full(base, a.shape[0] // times), shape)
    else:
        matrices = mma_fragments.to_matrices(a, shape, "a")
    m.cache["mma_a"] = (a, shape, matrices)
    return matrices
