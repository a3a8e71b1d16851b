"""Hypothesis strategies for distributed layouts of every family, shared by the conversion
tests (random linear layouts, Triton blocked / mma / mfma / dot operand texts, IREE nested
layouts)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from layoutkit import LinearLayout, parse_layout
from layoutkit.core import gf2
from layoutkit.layouts.iree import NestedLayout


def pow2_split(draw, total, parts):
    """``parts`` powers of two whose product is ``total`` (a power of two)."""
    bits = total.bit_length() - 1
    cuts = sorted(draw(st.lists(st.integers(0, bits), min_size=parts - 1, max_size=parts - 1)))
    edges = [0, *cuts, bits]
    return [1 << (edges[i + 1] - edges[i]) for i in range(parts)]


@st.composite
def blocked_text(draw, rank, lanes, warps):
    size = [draw(st.sampled_from([1, 2, 4, 8])) for _ in range(rank)]
    threads = pow2_split(draw, lanes, rank)
    warps_per = pow2_split(draw, warps, rank)
    order = draw(st.permutations(list(range(rank))))
    return (f"#ttg.blocked<{{sizePerThread = {size}, threadsPerWarp = {threads}, "
            f"warpsPerCTA = {warps_per}, order = {list(order)}}}>")


@st.composite
def linear_layout(draw, shape, lanes, warps, surjective, blocks=1):
    """A random linear layout (register, lane, warp, block) onto ``shape`` (powers of two)."""
    rank = len(shape)
    tensor_bits = [(d, 1 << b) for d in range(rank) for b in range(shape[d].bit_length() - 1)]
    n = len(tensor_bits)
    hw_bits = {"lane": lanes.bit_length() - 1, "warp": warps.bit_length() - 1, "block": blocks.bit_length() - 1}
    need = max(0, n - sum(hw_bits.values())) if surjective else 0
    hw_bits["register"] = draw(st.integers(need, need + 2))
    total = sum(hw_bits.values())
    # random columns; the first n columns of a random order form an invertible matrix when surjective
    rows = []
    if surjective:
        while True:
            matrix = np.array(draw(st.lists(st.integers(0, (1 << n) - 1), min_size=total, max_size=total)))
            if gf2.rank([int(v) for v in matrix]) == n:
                break
    else:
        matrix = np.array(draw(st.lists(st.integers(0, (1 << n) - 1), min_size=total, max_size=total)))
    for value in matrix:
        coord = [0] * rank
        for bit, (d, step) in enumerate(tensor_bits):
            if int(value) >> bit & 1:
                coord[d] += step
        rows.append(coord)
    bases, start = {}, 0
    for name in ("register", "lane", "warp", "block"):
        bases[name] = rows[start:start + hw_bits[name]]
        start += hw_bits[name]
    return LinearLayout(bases, {f"dim{d}": shape[d] for d in range(rank)})


def mma_texts(warps):
    out = []
    for w0 in (1, 2, 4):
        if warps % w0:
            continue
        mma = f"#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [{w0}, {warps // w0}], instrShape = [16, 8]}}>"
        out += [mma,
                f"#ttg.dot_op<{{opIdx = 0, parent = {mma}, kWidth = 2}}>",
                f"#ttg.dot_op<{{opIdx = 1, parent = {mma}, kWidth = 2}}>"]
    return out


def mfma_texts(warps):
    out = []
    for w0 in (1, 2, 4):
        if warps % w0:
            continue
        for instr, transposed in (("[32, 32, 8]", "false"), ("[16, 16, 16]", "true")):
            mfma = (f"#ttg.amd_mfma<{{version = 3, warpsPerCTA = [{w0}, {warps // w0}], "
                    f"instrShape = {instr}, isTransposed = {transposed}}}>")
            out += [mfma, f"#ttg.dot_op<{{opIdx = 0, parent = {mfma}, kWidth = 4}}>"]
    return out


@st.composite
def nested_layout(draw, shape, lanes, warps):
    """An IREE nested layout on ``shape`` (any sizes): per dim subgroup * batch * outer *
    thread * element = size, threads and subgroups laid out row- or column-major."""
    rank = len(shape)
    tiles = {k: [1] * rank for k in ("subgroup", "batch", "outer", "thread", "element")}
    budget = {"thread": lanes, "subgroup": warps}
    for d in range(rank):
        rest = shape[d]
        for level in ("subgroup", "thread", "element", "outer"):
            divisors = [f for f in range(1, rest + 1) if rest % f == 0
                        and (level not in budget or f <= budget[level] and budget[level] % f == 0)]
            f = draw(st.sampled_from(divisors))
            tiles[level][d] = f
            rest //= f
            if level in budget:
                budget[level] //= f
        tiles["batch"][d] = rest
    strides = {}
    for level in ("thread", "subgroup"):
        dims = draw(st.permutations(list(range(rank))))
        stride, out = 1, [0] * rank
        for d in dims:
            out[d] = stride if tiles[level][d] > 1 else 0
            stride *= tiles[level][d]
        strides[level] = out
    return NestedLayout(subgroup_tile=tiles["subgroup"], batch_tile=tiles["batch"], outer_tile=tiles["outer"],
                        thread_tile=tiles["thread"], element_tile=tiles["element"],
                        subgroup_strides=strides["subgroup"], thread_strides=strides["thread"],
                        subgroup_size=lanes, num_subgroups=warps)


@st.composite
def nvidia_family(draw, shape, warps, surjective):
    kind = draw(st.sampled_from(["blocked", "linear", "mma", "nested"]))
    if kind == "blocked":
        return parse_layout(draw(blocked_text(len(shape), 32, warps)))
    if kind == "linear":
        return draw(linear_layout(shape, 32, warps, surjective))
    if kind == "mma":
        return parse_layout(draw(st.sampled_from(mma_texts(warps))))
    return draw(nested_layout(shape, 32, warps))


