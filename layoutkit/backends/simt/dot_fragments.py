"""Where a ``tt.dot``'s operands live, and how each warp multiplies what its lanes hold.

The operand encodings are checked as Triton's verifier and GPU lowering require
(:func:`check_dot_encodings`): the result is ``nvidia_mma`` v2, ``amd_mfma`` or ``blocked``
(FMA); A is ``#ttg.dot_op<{opIdx = 0, parent = <the result's encoding>}>`` and B the same
with ``opIdx = 1``; A and B share their element bit width and ``kWidth``, and ``kWidth``
fits the element type (mma v2: a 32-bit register or a pair of them per K run, so kWidth x
bit width is 32 or 64; MFMA: a multiple of the instruction's K per lane, ``instrK x M / 64``).

A warp computes the result elements its lanes hold from the operand elements its own lanes
hold (:func:`dot_plan`): for warp ``w`` with result rows ``R_w`` and columns ``C_w``, the plan
names, for every (row, k) of ``R_w x K``, a (thread slot of warp ``w``, register) of A holding
it, and likewise for B; the simulator gathers (blocks, warps, |R_w|, K) and
(blocks, warps, K, |C_w|), multiplies them in one ``np.matmul`` and scatters each result
register from its warp's product. An operand element no lane of the warp holds is an error.

Worked example: ``#mma = nvidia_mma v2, warpsPerCTA = [2, 2]`` on a 64x64 result, K = 32:
the warps tile 16x8 instruction tiles, so warp 3 holds rows 16..31 and 48..63 and columns
8..15, 24..31, 40..47, 56..63 (R_w, C_w of 32 each); it reads those 32 rows of A and 32
columns of B (all of K) from registers of its own lanes — the dot_op layouts replicate A
across the warps along N and B across the warps along M — and owns their 32x32 product.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutkit.errors import LayoutError


def _bits(element_type) -> int:
    width = getattr(element_type, "width", None)
    if width is not None:  # integer types
        return int(getattr(width, "data", width))
    name = str(element_type)
    for prefix, bits in (("f8", 8), ("f16", 16), ("bf16", 16), ("f32", 32), ("f64", 64), ("tf32", 32)):
        if name.startswith(prefix):
            return bits
    raise LayoutError(f"element type: {name} is not a dot element type")


def check_dot_encodings(a_type, b_type, d_type, warp_size: int) -> None:
    """Raise a LayoutError unless A, B and D of a ``tt.dot`` have encodings its GPU lowering
    accepts (see the module docstring)."""
    from layoutkit.layouts.triton.amd import AmdMfmaEncoding
    from layoutkit.layouts.triton.blocked import BlockedEncoding
    from layoutkit.layouts.triton.mma import DotOperandEncoding, NvidiaMmaEncoding

    layouts = [getattr(getattr(t, "encoding", None), "layout", None) for t in (a_type, b_type, d_type)]
    for name, layout, type_ in zip("abd", layouts, (a_type, b_type, d_type)):
        if layout is None:
            raise LayoutError(f"operand {name}: {type_} has no layout encoding")
    a, b, d = layouts
    if isinstance(d, NvidiaMmaEncoding) and d.is_hopper:
        raise LayoutError(f"result: a versionMajor = 3 (Hopper) accumulator {d} is computed by "
                          f"ttng.warp_group_dot, not tt.dot")
    if not isinstance(d, (NvidiaMmaEncoding, AmdMfmaEncoding, BlockedEncoding)):
        raise LayoutError(f"result: a tt.dot result must be #ttg.nvidia_mma (v2), #ttg.amd_mfma or "
                          f"#ttg.blocked (FMA), got {d}")
    for index, name, layout in ((0, "a", a), (1, "b", b)):
        if not isinstance(layout, DotOperandEncoding) or layout.op_idx != index or layout.parent != d:
            raise LayoutError(f"operand {name}: expected #ttg.dot_op<{{opIdx = {index}, parent = {d}"
                              f"{'' if isinstance(d, BlockedEncoding) else ', kWidth = ...'}}}>, got {layout}")
    a_bits, b_bits = _bits(a_type.element_type), _bits(b_type.element_type)
    if a_bits != b_bits:
        raise LayoutError(f"operands: element types of a ({a_type.element_type}) and b "
                          f"({b_type.element_type}) must have the same bit width")
    if a.k_width != b.k_width:
        raise LayoutError(f"kWidth: mismatching kWidth between a ({a.k_width}) and b ({b.k_width})")
    k_width = a.k_width
    if isinstance(d, NvidiaMmaEncoding) and k_width * a_bits not in (32, 64):
        raise LayoutError(f"kWidth: {k_width} with {a_type.element_type} elements: an nvidia_mma v2 operand "
                          f"holds 32 or 64 bits of K per register run (kWidth x bit width), so kWidth "
                          f"must be {32 // a_bits or 1} or {64 // a_bits or 1}")
    if isinstance(d, AmdMfmaEncoding) and len(d.instr_shape) == 3 and d.m_dim == d.n_dim:
        k_base = d.instr_shape[2] * d.m_dim // warp_size
        allowed = (32, 64) if a_bits == 32 else (64, 128)
        if k_base * a_bits not in allowed:
            raise LayoutError(f"instrShape: an MFMA {'x'.join(map(str, d.instr_shape))} instruction reads "
                              f"{k_base} x {a_bits} bits of K per lane, not an instruction for "
                              f"{a_type.element_type} operands")
        if k_width % k_base:
            raise LayoutError(f"kWidth: {k_width} is not a multiple of the MFMA "
                              f"{'x'.join(map(str, d.instr_shape))} instruction's K per lane ({k_base})")


@dataclass(frozen=True)
class DotPlan:
    """Per-warp gathers of a dot: ``a_index`` (warps, Mw, K) and ``b_index`` (warps, K, Nw)
    pick each operand element from a thread of that warp (as slot x registers + register
    in a block's flattened (slots, registers) value); ``d_index`` (slots, Rd) is each
    result register's position in the stacked products (warps*Mw*Nw)."""

    a_index: np.ndarray
    b_index: np.ndarray
    d_index: np.ndarray


def _unique_per_warp(ids: np.ndarray) -> np.ndarray:
    """(warps, n) sorted unique ids of each warp (padded with its largest, staying sorted)."""
    rows = [np.unique(r) for r in ids]
    width = max(len(r) for r in rows)
    return np.stack([np.concatenate([r, np.full(width - len(r), r[-1])]) for r in rows])


def _holders(dist, warp_size: int, wanted: np.ndarray, operand: str):
    """Flat (slot x registers + register) position of an element at row-major index
    ``wanted`` (warps, ...) held by a lane of the warp of axis 0; a LayoutError naming the
    first element no lane holds."""
    slots = dist.linear.shape[0]
    warp = np.arange(slots)[:, None] // warp_size
    keys = (warp * dist.size + dist.linear).ravel()
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    warps = wanted.shape[0]
    query = np.arange(warps).reshape((warps,) + (1,) * (wanted.ndim - 1)) * dist.size + wanted
    found = np.minimum(np.searchsorted(sorted_keys, query), sorted_keys.size - 1)
    hit = sorted_keys[found] == query
    if not hit.all():
        where = np.argwhere(~hit)[0]
        coord = np.unravel_index(int(wanted[tuple(where)]), dist.shape)
        raise LayoutError(f"operand {operand}: element {tuple(int(c) for c in coord)} needed by warp "
                          f"{int(where[0])} is held by none of its lanes")
    return order[found]


def dot_plan(a, b, d, warp_size: int) -> DotPlan:
    """The per-warp gathers of a dot whose A, B and D have the distributions ``a``, ``b``,
    ``d`` (:class:`~layoutkit.backends.simt.ttgir.Distribution`) on warps of ``warp_size``."""
    slots = d.linear.shape[0]
    warps = slots // warp_size
    *batch, m, n = d.shape
    k = a.shape[-1]
    coords = d.coords.reshape(warps, warp_size * d.registers, len(d.shape))
    lead = np.ravel_multi_index(tuple(np.moveaxis(coords[..., :-2], -1, 0)), batch) if batch else 0
    row_ids = lead * m + coords[..., -2]  # (batch, m) flattened
    col_ids = lead * n + coords[..., -1]  # (batch, n) flattened
    rows, cols = _unique_per_warp(row_ids), _unique_per_warp(col_ids)
    kk = np.arange(k)
    a_wanted = rows[:, :, None] * k + kk[None, None, :]  # A[(batch, m), k] row-major
    col_batch, col_n = cols // n, cols % n
    b_wanted = (col_batch[:, None, :] * k + kk[None, :, None]) * n + col_n[:, None, :]
    a_index = _holders(a, warp_size, a_wanted, "a")
    b_index = _holders(b, warp_size, b_wanted, "b")
    mw, nw = rows.shape[1], cols.shape[1]
    w = np.arange(warps)[:, None]
    pr = np.stack([np.searchsorted(rows[i], row_ids[i]) for i in range(warps)])
    pc = np.stack([np.searchsorted(cols[i], col_ids[i]) for i in range(warps)])
    d_index = (w * mw * nw + pr * nw + pc).reshape(slots, d.registers)
    return DotPlan(a_index, b_index, d_index)

