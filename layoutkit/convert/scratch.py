"""Choosing the shared-memory (scratch) layout of a conversion.

A scratch layout gives every tensor element an offset (in elements) in shared memory. The
source layout stores its registers there, the destination loads them back, each side with
the widest vectors the layout allows; the choice decides the vector widths and the bank
conflicts of both sides.

Power-of-two layouts that are linear over F2 get the construction behind Triton's optimal
swizzling (``GenericSwizzling.cpp``), extended to unequal store and load vectors. Offset
bit ``i`` holds a tensor direction ``S[i]``; the bits are, from the lowest:

1. *vector* bits: directions held in registers of both layouts (one vector serves both
   sides), then optionally extra register directions of one side only (that side gets a
   wider vector, the other walks across it with its lanes);
2. *bank* bits, up to the end of a 128-byte line (bits below ``log2(4 / elem_bytes)`` stay
   inside a 4-byte word: two lanes differing there share the word, differing there *and*
   above the line they collide, so those bits count as outside the bank window);
3. *high* bits ``H``. A warp request is conflict-free when the lanes of a phase land in
   distinct bank slots, i.e. when the span of the lane directions of a phase (``P`` for the
   stores, ``Q`` for the loads) meets the span of the bits outside that side's bank window
   (its vector bits and ``H``) only in 0. ``H`` is grown one direction at a time, each
   independent of (vector bits + ``H`` + ``P``) and of (vector bits + ``H`` + ``Q``): first
   register directions common to both layouts (placed highest, so that splitting the
   scratch into repetitions splits every thread's work evenly), then ``p ^ q`` pairs (Triton's
   trick: both ``p`` and ``q = p ^ (p ^ q)`` then keep a bank component), then unit
   directions. The bank bits complete the basis.

Layouts that are not linear (non-power-of-two shapes, tables) get a search over row-major
orders with padding (``pad`` elements after every ``interval``). Every candidate is scored by
simulating its stores and loads (:func:`~layoutkit.analysis.vectorize`,
:func:`~layoutkit.analysis.access.access_wavefronts`): fewest instructions first (widest vectors),
then fewest bank-conflict wavefronts, then fewest wavefronts, then the smallest footprint.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from layoutkit.analysis.access import access_wavefronts, max_vector_elements
from layoutkit.analysis.banks import WAVEFRONT_BYTES, lanes_per_phase
from layoutkit.analysis.vectors import VectorAccess, vectorize
from layoutkit.core import gf2
from layoutkit.core.indices import unravel
from layoutkit.errors import LayoutError
from layoutkit.translate.shared import (
    padded_shared_encoding,
    shared_linear_encoding,
    swizzled_shared_encoding,
)

#: hardware slots above which table layouts are ranked on a sample of warps
LARGE_TABLE = 1 << 16


@dataclass(frozen=True, eq=False)
class ScratchLayout:
    """``offsets[flat element]``: where each tensor element sits in scratch (elements).

    ``bases``: offset bit -> tensor coordinate, when the layout is linear; ``padding``:
    ``(order, interval, pad)`` for a padded row-major layout.
    """

    offsets: np.ndarray
    shape: tuple[int, ...]
    bases: tuple[tuple[int, ...], ...] | None = None
    padding: tuple[tuple[int, ...], int, int] | None = None
    description: str | None = None
    block_bases: tuple[tuple[int, ...], ...] = ()
    vectors: tuple[int, int] | None = None  # widest (store, load) vectors it is designed for

    @cached_property
    def span(self) -> int:
        """Elements of scratch the layout occupies (its largest offset + 1)."""
        return int(self.offsets.max()) + 1

    @cached_property
    def text(self) -> str:
        """The layout in Triton's attribute syntax (swizzled_shared, shared_linear or padded_shared)."""
        if self.bases is not None:
            encoding = None if self.block_bases else swizzled_shared_encoding(self.offsets, self.shape, self.bases)
            return str(encoding or shared_linear_encoding(self.bases, self.block_bases))
        if self.padding is None:
            return self.description or "(a table: element -> offset)"
        order, interval, pad = self.padding
        encoding = padded_shared_encoding(self.shape, order, interval, pad)
        if encoding is not None:
            return str(encoding)
        order_text = ", ".join(map(str, order))
        padding = f", {pad} element(s) of padding after every {interval}" if pad else ""
        return f"(row-major along order [{order_text}]{padding}; no attribute form: Triton needs powers of two)"


@dataclass(frozen=True, eq=False)
class Candidate:
    """A scratch layout with its simulated stores and loads."""

    layout: ScratchLayout
    store: VectorAccess
    load: VectorAccess
    store_waves: tuple[np.ndarray, np.ndarray]
    load_waves: tuple[np.ndarray, np.ndarray]
    rep_span: int
    instructions: int  # per thread, stores plus loads, after the split into repetitions

    @cached_property
    def repetitions(self) -> int:
        return -(-self.layout.span // self.rep_span)

    @cached_property
    def score(self) -> tuple[int, ...]:
        instructions = self.instructions
        waves = int(self.store_waves[0].sum() + self.load_waves[0].sum())
        lower = int(self.store_waves[1].sum() + self.load_waves[1].sum())
        return (instructions, waves - lower, waves, self.layout.span)


def repetition_span(span: int, vectors: tuple[int, int], elem_bytes: int, scratch_bytes: int | None) -> int:
    """Scratch elements per repetition: the whole ``span`` when it fits in ``scratch_bytes``,
    else the most whole 128-byte lines (or whole vectors) that fit; LayoutError when not one
    vector fits."""
    if scratch_bytes is None or span * elem_bytes <= scratch_bytes:
        return span
    align = max(vectors)
    line = max(align, WAVEFRONT_BYTES // elem_bytes)
    capacity = scratch_bytes // elem_bytes
    rep_span = (capacity // line) * line or (capacity // align) * align
    if rep_span == 0:
        raise LayoutError(f"scratch_bytes: {scratch_bytes} bytes cannot hold one {align * elem_bytes}-byte vector")
    return rep_span


def split_instructions(offsets: np.ndarray, vector: int, rep_span: int, reps: int) -> int:
    """Instructions per thread when ``offsets[..., register]`` are moved ``vector`` elements at
    a time through ``reps`` repetitions of ``rep_span`` scratch elements: per repetition, the
    most vectors any thread moves in it."""
    flat = offsets.reshape(-1, offsets.shape[-1]) // vector
    threads = flat.shape[0]
    keys = np.unique(np.arange(threads)[:, None] * (flat.max() + 1) + flat)
    thread, chunk = keys // (flat.max() + 1), keys % (flat.max() + 1)
    counts = np.zeros((threads, reps), np.int64)
    np.add.at(counts, (thread, chunk * vector // rep_span), 1)
    return int(counts.max(axis=0).sum())


def evaluate(layout: ScratchLayout, src_elements: np.ndarray, dst_elements: np.ndarray,
             elem_bytes: int, scratch_bytes: int | None = None, warps: slice = slice(None)) -> Candidate:
    """Simulate the stores of ``src_elements`` and the loads of ``dst_elements`` (both
    ``[block, warp, lane, register]`` flat indices) into ``layout``; ``warps`` selects the
    warps whose requests are simulated (the split into repetitions counts every thread)."""
    max_vec = max_vector_elements(elem_bytes)
    store_max, load_max = layout.vectors or (max_vec, max_vec)
    src_offsets, dst_offsets = layout.offsets[src_elements], layout.offsets[dst_elements]
    store = vectorize(src_offsets[:, warps], min(max_vec, store_max))
    load = vectorize(dst_offsets[:, warps], min(max_vec, load_max))
    store_waves, load_waves = access_wavefronts(store, elem_bytes), access_wavefronts(load, elem_bytes)
    rep_span = repetition_span(layout.span, (store.vector, load.vector), elem_bytes, scratch_bytes)
    reps = -(-layout.span // rep_span)
    if reps == 1:
        instructions = store.instructions + load.instructions
    else:
        instructions = (split_instructions(src_offsets, store.vector, rep_span, reps)
                        + split_instructions(dst_offsets, load.vector, rep_span, reps))
    return Candidate(layout, store, load, store_waves, load_waves, rep_span, instructions)


# -- linear (F2) layouts ----------------------------------------------------------------------

def linear_bases(elements: np.ndarray, numel: int) -> list[list[int]] | None:
    """Per axis of ``elements[block, warp, lane, register]``, the flat tensor index of each
    power-of-two basis index -- when the map is linear over F2 (XOR of the bases), else None."""
    if numel & (numel - 1) or any(s & (s - 1) for s in elements.shape):
        return None
    if elements.reshape(-1)[0] != 0:
        return None
    bases: list[list[int]] = []
    rebuilt = np.zeros(elements.shape, np.int64)
    for axis, size in enumerate(elements.shape):
        axis_bases = []
        along = np.zeros(size, np.int64)
        for bit in range(size.bit_length() - 1):
            index = [0] * elements.ndim
            index[axis] = 1 << bit
            basis = int(elements[tuple(index)])
            axis_bases.append(basis)
            along ^= ((np.arange(size) >> bit) & 1) * basis
        shape = [1] * elements.ndim
        shape[axis] = size
        rebuilt = rebuilt ^ along.reshape(shape)
        bases.append(axis_bases)
    return bases if np.array_equal(rebuilt, elements) else None


def _basis(vectors) -> list[int]:
    vectors = [v for v in vectors if v]
    return [vectors[j] for j in gf2.pivot_columns(vectors)]


def _intersection(first, second) -> list[int]:
    first, second = _basis(first), _basis(second)
    common = []
    for mask in gf2.null_space(first + second):
        vector = 0
        for j, v in enumerate(first):
            if mask >> j & 1:
                vector ^= v
        common.append(vector)
    return _basis(common)


def _complement(sub, space) -> list[int]:
    """Vectors of ``space`` extending a basis of ``sub`` to one of ``sub + space``."""
    span = gf2.Span(sub)
    return [v for v in space if v and span.add(v)]


def _log2(n: int) -> int:
    return n.bit_length() - 1


def block_directions(src_bases) -> list[int]:
    """The source's block directions outside the span of its register, lane and warp bases:
    the directions that tell one block's elements from another's (a block basis inside that
    span broadcasts the same elements to several blocks, each needing all of them)."""
    blocks, warps, lanes, regs = src_bases
    return _complement(list(regs) + list(lanes) + list(warps), blocks)


def swizzle_bases(src_bases, dst_bases, nbits: int, elem_bytes: int, extra: str, reserve: int = 0
                  ) -> tuple[list[int], tuple[int, int]]:
    """Offset bit -> tensor direction (flat-index bit vector) by the construction in the
    module docstring. ``src_bases`` / ``dst_bases``: per axis (block, warp, lane, register)
    flat-index bases. ``extra``: ``"none"``, ``"store"`` or ``"load"`` -- which side's own
    register directions widen its vector beyond the common ones. ``reserve``: common register
    directions kept out of the vector for the top bits (repetitions). Returns the directions
    and the (store, load) vector widths the bank bits were chosen for.

    Offset bits below ``line = log2(128 / elem_bytes)`` fall inside one 128-byte line; for a
    side whose vector has ``v`` bits, the bits below ``max(v, log2(4 / elem_bytes))`` select
    within its vector or its 4-byte word and the rest of the line selects the bank. Lanes of
    a phase differing by a direction outside that bank window would hit one bank in different
    words, so each side's phase lanes must meet the span of the directions outside its bank
    window only in 0.
    """
    _, _, lanes_a, regs_a = src_bases
    _, _, lanes_b, regs_b = dst_bases
    block_dirs = block_directions(src_bases)  # each block has its own scratch: block directions go on top
    nbits -= len(block_dirs)
    vmax = _log2(max_vector_elements(elem_bytes))
    common = _intersection(regs_a, regs_b)
    reserved = common[:reserve]
    common = common[reserve:] + reserved
    vector = common[: min(vmax, len(common) - len(reserved))]
    own = {"store": regs_a, "load": regs_b}.get(extra, [])
    widened = vector + _complement(vector, own)[: vmax - len(vector)] if own else vector
    bits_a = len(widened) if extra == "store" else len(vector)
    bits_b = len(widened) if extra == "load" else len(vector)
    phase_a = _basis(lanes_a[: _log2(lanes_per_phase((1 << bits_a) * elem_bytes))])
    phase_b = _basis(lanes_b[: _log2(lanes_per_phase((1 << bits_b) * elem_bytes))])
    line = min(nbits, _log2(WAVEFRONT_BYTES // elem_bytes)) if elem_bytes <= WAVEFRONT_BYTES else 0
    word_bits = _log2(4 // elem_bytes) if elem_bytes < 4 else 0
    fill_count = max(0, min(word_bits, line) - len(widened))
    high_count = max(0, nbits - line)
    below_a = widened[: max(bits_a, word_bits)]
    below_b = widened[: max(bits_b, word_bits)]
    side_a, side_b = gf2.Span(), gf2.Span()
    for v in block_dirs + below_a + phase_a:
        side_a.add(v)
    for v in block_dirs + below_b + phase_b:
        side_b.add(v)
    basis = gf2.Span()
    for v in block_dirs:
        basis.add(v)
    low = [v for v in widened if basis.add(v)]
    units = [1 << j for j in range(nbits + len(block_dirs))]
    rest_common = reserved + [v for v in _complement(widened, common) if v not in reserved]
    pool = itertools.chain(rest_common, (p ^ q for p in phase_a for q in phase_b), units,
                           (u ^ p for u in units for p in phase_a + phase_b))
    # directions outside both bank windows: H (above the line) and word fill (below it)
    outside: list[int] = []
    tried: set[int] = set()
    for h in pool:
        if len(outside) == high_count + fill_count:
            break
        if h in tried:
            continue
        tried.add(h)
        if h and not basis.contains(h) and not side_a.contains(h) and not side_b.contains(h):
            side_a.add(h)
            side_b.add(h)
            basis.add(h)
            outside.append(h)
    fill = outside[len(outside) - fill_count:] if fill_count and len(outside) >= fill_count else []
    high = outside[: len(outside) - len(fill)]
    low += fill
    bank: list[int] = []
    for u in units:
        if len(low) + len(bank) >= line:
            break
        if basis.add(u):
            bank.append(u)
    # a short H (no conflict-free choice) is completed by units; evaluation scores the result
    high += [u for u in units if basis.add(u)]
    return low + bank + high[::-1] + block_dirs, (1 << bits_a, 1 << bits_b)


def linear_scratch(directions: list[int], shape: tuple[int, ...], block_bits: int = 0,
                   vectors: tuple[int, int] | None = None) -> ScratchLayout:
    """The scratch layout whose offset bit ``i`` moves along tensor direction ``directions[i]``;
    the last ``block_bits`` directions select the block, each block using its own scratch."""
    nbits = len(directions)
    offsets_all = np.arange(1 << nbits, dtype=np.int64)
    element = np.zeros(1 << nbits, np.int64)
    for i, d in enumerate(directions):
        element ^= ((offsets_all >> i) & 1) * d
    offsets = np.empty(1 << nbits, np.int64)
    offsets[element] = offsets_all & ((1 << (nbits - block_bits)) - 1)
    coords = tuple(zip(*(c.tolist() for c in unravel(directions, shape))))
    local = nbits - block_bits
    return ScratchLayout(offsets=offsets, shape=shape, bases=coords[:local], block_bases=coords[local:],
                         vectors=vectors)


# -- padded row-major layouts -----------------------------------------------------------------

def padded_scratch(shape: tuple[int, ...], order: tuple[int, ...], interval: int, pad: int) -> ScratchLayout:
    """Row-major along ``order`` (``order[0]`` fastest), ``pad`` elements after every
    ``interval`` elements."""
    rank = len(shape)
    grids = np.indices(shape, dtype=np.int64).reshape(rank, -1)
    linear = np.zeros(grids.shape[1], np.int64)
    stride = 1
    for dim in order:
        linear += grids[dim] * stride
        stride *= shape[dim]
    offsets = linear + (linear // interval) * pad if pad else linear
    return ScratchLayout(offsets=offsets, shape=shape, padding=(tuple(order), interval, pad))


def _contiguous_order(elements: np.ndarray, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Dims ordered by how fast they change along a thread's registers, then along lanes."""
    rank = len(shape)
    coords = np.stack(unravel(elements.reshape(-1, elements.shape[-1]), shape))
    score = []
    for dim in range(rank):
        c = coords[dim]
        reg_moves = np.count_nonzero(np.diff(c, axis=-1)) if c.shape[-1] > 1 else 0
        score.append(-reg_moves)
    ranked = sorted(range(rank), key=lambda d: (score[d], -d))
    return tuple(ranked)


def padded_candidates(src_elements, dst_elements, shape, elem_bytes) -> list[ScratchLayout]:
    """Padded row-major candidates in the orders the two layouts favour."""
    orders = {_contiguous_order(src_elements, shape), _contiguous_order(dst_elements, shape),
              tuple(reversed(range(len(shape))))}
    layouts = []
    line = max(1, WAVEFRONT_BYTES // elem_bytes)
    vmax = max_vector_elements(elem_bytes)
    pads = sorted({0, 1, 2, vmax // 2, vmax, 2 * vmax} - {0} | {0})
    for order in sorted(orders):
        row = shape[order[0]]
        intervals = {row, line} if row != line else {row}
        for interval, pad in itertools.product(sorted(intervals), pads):
            if pad and interval >= int(np.prod(shape)):
                continue
            layouts.append(padded_scratch(shape, order, interval, pad))
    return layouts


def colored_scratch(src_elements: np.ndarray, dst_elements: np.ndarray, shape: tuple[int, ...],
                    elem_bytes: int) -> ScratchLayout | None:
    """A conflict-free scratch layout for element-wide accesses (no vectors), when every
    element belongs to one store request and one load request: elements are the edges of a
    bipartite graph between store and load requests (a request = one phase of 32 lanes, so no
    vertex has more than 32 edges), coloured with 32 colours (König); colour = bank. The
    elements of one colour fill the words of that bank in turn. None when not applicable."""
    if elem_bytes > 4:
        return None
    sides = []
    for elements in (src_elements, dst_elements):
        access = vectorize(elements, 1)  # one instruction per distinct element, in register order
        blocks, warps, lanes, count = access.offsets.shape
        phase = np.arange(lanes) // 32
        request = ((np.arange(blocks)[:, None, None, None] * warps + np.arange(warps)[None, :, None, None])
                   * count + np.arange(count)[None, None, None, :]) * (-(-lanes // 32)) + phase[None, None, :, None]
        request = np.broadcast_to(request, access.offsets.shape)
        held = access.offsets >= 0
        pairs = np.unique(np.stack([access.offsets[held], request[held]], axis=1), axis=0)
        if len(pairs) != int(np.prod(shape)) or len(np.unique(pairs[:, 0])) != len(pairs):
            return None  # an element in two requests (broadcast across threads) or missing
        sides.append(pairs[np.argsort(pairs[:, 0]), 1])
    store_req, load_req = np.unique(sides[0], return_inverse=True)[1], np.unique(sides[1], return_inverse=True)[1]
    from layoutkit.convert.shuffle import color_edges

    colors = np.asarray(color_edges(list(zip(store_req.tolist(), load_req.tolist())),
                                    int(store_req.max()) + 1, int(load_req.max()) + 1), np.int64)
    if colors.max() >= 32:
        return None
    per_word = 4 // elem_bytes
    order = np.argsort(colors, kind="stable")
    position = np.empty_like(order)
    starts = np.searchsorted(colors[order], colors[order])
    position[order] = np.arange(len(order)) - starts
    word = (position // per_word) * 32 + colors
    offsets = word * per_word + position % per_word
    return ScratchLayout(offsets=offsets, shape=shape,
                         description="(a table: elements coloured by bank, 32 banks; no attribute form)")


def linear_candidates(src_bases, dst_bases, numel: int, elem_bytes: int, scratch_bytes: int | None
                      ) -> list[tuple[list[int], int, tuple[int, int] | None]]:
    """The linear scratch layouts worth scoring, as ``(directions, block bits, vectors)``: the
    swizzle construction for every reserve and extra-vector choice, and the unswizzled
    layout (single block)."""
    nbits = _log2(numel)
    rep_bits = 0
    if scratch_bytes is not None and numel * elem_bytes > scratch_bytes:
        rep_bits = max(0, _log2(-(-numel * elem_bytes // scratch_bytes) - 1) + 1)
    seen = set()
    block_bits = len(block_directions(src_bases))
    out: list[tuple[list[int], int, tuple[int, int] | None]] = []
    for reserve, extra in itertools.product(sorted({0, rep_bits}), ("none", "store", "load")):
        directions, vectors = swizzle_bases(src_bases, dst_bases, nbits, elem_bytes, extra, reserve)
        if len(directions) == nbits and (tuple(directions), vectors) not in seen:
            seen.add((tuple(directions), vectors))
            out.append((directions, block_bits, vectors))
    if block_bits == 0:
        out.append(([1 << j for j in range(nbits)], 0, None))
    return out


def choose_scratch(src_elements: np.ndarray, dst_elements: np.ndarray, shape: tuple[int, ...],
                   elem_bytes: int, scratch_bytes: int | None = None) -> Candidate:
    """The best scratch layout for storing ``src_elements`` and loading ``dst_elements``
    (instructions counted after splitting into repetitions when ``scratch_bytes`` is short)."""
    numel = int(np.prod(shape))
    layouts: list[ScratchLayout] = []
    src_bases = linear_bases(src_elements, numel)
    dst_bases = linear_bases(dst_elements, numel) if src_bases is not None else None
    if src_bases is not None and dst_bases is not None:
        layouts = [linear_scratch(directions, shape, block_bits, vectors) for directions, block_bits, vectors
                   in linear_candidates(src_bases, dst_bases, numel, elem_bytes, scratch_bytes)]
        # linear maps: every warp's offsets are warp 0's XOR a constant, which keeps vectors,
        # banks and words alike -- warp 0 ranks the candidates, the winner is simulated in full
        ranked = [evaluate(layout, src_elements[:1], dst_elements[:1], elem_bytes, scratch_bytes, slice(0, 1))
                  for layout in layouts]
        best = min(ranked, key=lambda c: c.score).layout
        return evaluate(best, src_elements, dst_elements, elem_bytes, scratch_bytes)
    layouts.extend(padded_candidates(src_elements, dst_elements, shape, elem_bytes))
    # big tables: rank on the first two warps, simulate the winner in full
    sample = slice(0, 2) if src_elements.size + dst_elements.size > LARGE_TABLE else slice(None)
    candidates = [evaluate(layout, src_elements, dst_elements, elem_bytes, scratch_bytes, sample) for layout in layouts]
    best = min(candidates, key=lambda c: c.score)
    if sample != slice(None):
        best = evaluate(best.layout, src_elements, dst_elements, elem_bytes, scratch_bytes)
    if best.score[1] > 0 and best.store.vector == best.load.vector == 1 and numel <= LARGE_TABLE:
        colored = colored_scratch(src_elements, dst_elements, shape, elem_bytes)
        if colored is not None:
            best = min(best, evaluate(colored, src_elements, dst_elements, elem_bytes, scratch_bytes),
                       key=lambda c: c.score)
    return best
