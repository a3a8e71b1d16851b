"""Scheduling a conversion inside each warp as rounds of warp shuffles.

In one round every lane offers one 32-bit *word* -- ``pack`` source registers of elements
narrower than 32 bits packed together (``pack = 32 // bits``), or one register -- and reads the
word of one lane of its choice (``shfl.sync.idx``). A destination register is served by the
first round in which the lane it belongs to reads a word holding its element.

The schedule is greedy and vectorized over every warp and lane: each round, every source lane
offers the word most demanded by the still-missing destination registers (counting each
missing element at its first owner), and every destination lane reads the lane whose word
serves most of its missing registers. Elements a thread already holds are taken from its own
registers without a shuffle.

Worked example: a transpose of a 2x2 tile inside 2 lanes (lane ``l`` holds row ``l`` before,
column ``l`` after) needs one round: lane 0 offers register 1 (element (0, 1)) and lane 1
register 0 (element (1, 0)); each lane reads the other.
"""

from __future__ import annotations

import numpy as np

from layoutkit.convert.plan import Shuffle


def locate(src: np.ndarray, dst: np.ndarray, numel: int) -> np.ndarray:
    """For ``src[g, i]`` and ``dst[g, j]`` (flat elements per group ``g``): the index ``i``
    of a source slot of the same group holding ``dst[g, j]``'s element (the first), or -1."""
    groups = src.shape[0]
    src_keys = (np.arange(groups)[:, None] * numel + src).ravel()
    order = np.argsort(src_keys, kind="stable")
    sorted_keys = src_keys[order]
    dst_keys = (np.arange(groups)[:, None] * numel + dst).ravel()
    pos = np.searchsorted(sorted_keys, dst_keys)
    pos_c = np.minimum(pos, len(sorted_keys) - 1)
    found = sorted_keys[pos_c] == dst_keys
    index = np.where(found, order[pos_c] % src.shape[1], -1)
    return index.reshape(dst.shape)


def schedule_shuffles(src: np.ndarray, dst: np.ndarray, numel: int, elem_bits: int
                      ) -> tuple[list[Shuffle], np.ndarray]:
    """Rounds of shuffles moving ``src[b, w, l, r]`` to ``dst[b, w, l, r']`` (flat elements),
    every destination element present in the same warp. Returns the rounds and ``gather``
    (destination register -> pool index, see :mod:`layoutkit.convert.plan`)."""
    blocks, warps, lanes, src_regs = src.shape
    dst_regs = dst.shape[-1]
    pack = max(1, 32 // elem_bits) if elem_bits <= 32 else 1
    words = max(1, -(-elem_bits // 32))
    units = -(-src_regs // pack)
    groups = blocks * warps
    src_g = src.reshape(groups, lanes, src_regs)
    dst_g = dst.reshape(groups, lanes, dst_regs)
    # elements the thread holds itself
    local = locate(src_g.reshape(groups * lanes, src_regs), dst_g.reshape(groups * lanes, dst_regs), numel)
    gather = local.reshape(groups, lanes, dst_regs).copy()
    pending = gather < 0
    owner = locate(src_g.reshape(groups, lanes * src_regs), dst_g.reshape(groups, lanes * dst_regs), numel)
    owner = owner.reshape(groups, lanes, dst_regs)
    if (pending & (owner < 0)).any():
        raise ValueError("schedule_shuffles: an element is not held inside the warp")
    owner_lane, owner_reg = owner // src_regs, owner % src_regs
    g_index = np.broadcast_to(np.arange(groups)[:, None, None], pending.shape)
    rounds: list[Shuffle] = []
    base = src_regs
    slot = np.arange(pack)
    while pending.any():
        # every source lane offers its most demanded word
        demand = np.zeros((groups, lanes, units), np.int64)
        np.add.at(demand, (g_index[pending], owner_lane[pending], owner_reg[pending] // pack), 1)
        unit = demand.argmax(axis=-1)  # (G, L)
        offered = unit[..., None] * pack + slot
        offered = np.where(offered < src_regs, offered, -1)
        offered_el = np.where(offered >= 0, np.take_along_axis(src_g, np.maximum(offered, 0), axis=-1), -1)
        # where each element is offered this round: (group, element) -> lane * pack + slot
        keys = (np.arange(groups)[:, None, None] * numel + offered_el)
        keys = np.where(offered_el >= 0, keys, -1).reshape(groups, -1)
        flat_keys = keys.ravel()
        order = np.argsort(flat_keys, kind="stable")
        sorted_keys = flat_keys[order]
        want = (np.arange(groups)[:, None, None] * numel + dst_g).ravel()
        pos = np.minimum(np.searchsorted(sorted_keys, want), len(sorted_keys) - 1)
        hit = (sorted_keys[pos] == want).reshape(pending.shape) & pending
        where = (order[pos] % (lanes * pack)).reshape(pending.shape)
        hit_lane = where // pack
        # every destination lane reads the lane serving most of its missing registers
        votes = np.zeros((groups, lanes, lanes), np.int64)
        np.add.at(votes, (g_index[hit], np.nonzero(hit)[1], hit_lane[hit]), 1)
        best = votes.argmax(axis=-1)
        reads = votes.max(axis=-1) > 0
        source_lane = np.where(reads, best, np.arange(lanes)[None, :])
        served = hit & (hit_lane == source_lane[..., None])
        gather[served] = base + (where % pack)[served]
        pending &= ~served
        rounds.append(Shuffle(offered=offered.reshape(blocks, warps, lanes, pack),
                              source_lane=source_lane.reshape(blocks, warps, lanes), words=words))
        base += pack
    return rounds, gather.reshape(blocks, warps, lanes, dst_regs)
