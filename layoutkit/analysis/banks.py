"""Counting wavefronts (shared memory) and sectors (global memory) of warp requests.

Both functions take the byte address each lane accesses in one warp-wide instruction, as an
array ``(..., lanes)`` (any leading axes enumerate instructions), and count all instructions
at once. A negative address marks an inactive lane. See :mod:`layoutkit.analysis` for the
model and its sources.

Worked example: 32 lanes storing 4-byte words at byte addresses ``128 * lane`` (a column of a
row-major 32x32 f32 tile) all fall into bank 0 as 32 distinct words: 32 wavefronts, lower
bound 1. Padding each row by one word (addresses ``132 * lane``) spreads them over all 32
banks: 1 wavefront.
"""

from __future__ import annotations

import numpy as np

from layoutkit.errors import LayoutError, quote

BANKS = 32
BANK_BYTES = 4
WAVEFRONT_BYTES = BANKS * BANK_BYTES  # 128
SECTOR_BYTES = 32


def first_of_runs(ordered: np.ndarray) -> np.ndarray:
    """Mask of the first entry of every run of equal values along the last axis of sorted
    rows; negative entries (inactive lanes, padding) are never counted. Its row sums are the
    distinct values: ``[-1, 3, 3, 7]`` -> ``[False, True, False, True]``."""
    first = ordered >= 0
    first[..., 1:] &= ordered[..., 1:] != ordered[..., :-1]
    return first


def _check_access_bytes(access_bytes: int) -> int:
    if not isinstance(access_bytes, (int, np.integer)) or access_bytes <= 0 or access_bytes & (access_bytes - 1):
        raise LayoutError(f"access_bytes: expected a power of two, got {quote(access_bytes)}")
    if access_bytes > 16:
        raise LayoutError(f"access_bytes: at most 16 bytes (128 bits) per lane, got {quote(access_bytes)}")
    return int(access_bytes)


def lanes_per_phase(access_bytes: int) -> int:
    """Lanes served together in one phase: 32 for accesses up to 4 bytes, 16 for 8-byte and
    8 for 16-byte accesses (a phase moves at most 128 bytes)."""
    return WAVEFRONT_BYTES // max(_check_access_bytes(access_bytes), BANK_BYTES)


def _phase_words(addresses: np.ndarray, access_bytes: int) -> tuple[np.ndarray, int]:
    """Words each lane touches, grouped by phase: ``(..., phases, words per phase)``; -1 = none."""
    addresses = np.asarray(addresses, dtype=np.int64)
    if addresses.ndim == 0:
        raise LayoutError("addresses: expected an array whose last axis is the lanes of a warp")
    lanes = addresses.shape[-1]
    per_phase = lanes_per_phase(access_bytes)
    phases = -(-lanes // per_phase)
    pad = phases * per_phase - lanes
    if pad:
        addresses = np.concatenate(
            [addresses, np.full(addresses.shape[:-1] + (pad,), -1, np.int64)], axis=-1)
    words_per_lane = max(1, access_bytes // BANK_BYTES)
    first = np.where(addresses >= 0, addresses // BANK_BYTES, -1)
    words = first[..., None] + np.arange(words_per_lane)
    words = np.where(first[..., None] >= 0, words, -1)
    return words.reshape(addresses.shape[:-1] + (phases, per_phase * words_per_lane)), phases


def shared_wavefronts(addresses, access_bytes: int) -> tuple[np.ndarray, np.ndarray]:
    """``(wavefronts, lower_bound)`` of each warp request, arrays of shape ``addresses.shape[:-1]``.

    ``addresses[..., lane]`` is the first byte of the ``access_bytes``-wide access of that lane
    (aligned to ``access_bytes``), negative when the lane is inactive.
    """
    access_bytes = _check_access_bytes(access_bytes)
    words, _ = _phase_words(addresses, access_bytes)
    lead_shape = words.shape[:-2]
    flat = np.sort(words.reshape(-1, words.shape[-1]), axis=-1)  # (instruction*phase, words)
    distinct = first_of_runs(flat)
    rows = np.broadcast_to(np.arange(flat.shape[0])[:, None], flat.shape)
    banks = np.where(flat >= 0, flat % BANKS, 0)
    per_bank = np.zeros((flat.shape[0], BANKS), np.int64)
    np.add.at(per_bank, (rows[distinct], banks[distinct]), 1)
    wavefronts = per_bank.max(axis=1)
    lower = -(-distinct.sum(axis=1) // BANKS)
    shape = lead_shape + (-1,)
    return wavefronts.reshape(shape).sum(axis=-1), lower.reshape(shape).sum(axis=-1)


def global_sectors(addresses, access_bytes: int) -> tuple[np.ndarray, np.ndarray]:
    """``(sectors, minimum)`` of each warp request: distinct 32-byte sectors touched, and
    ``ceil(distinct bytes / 32)``; shapes ``addresses.shape[:-1]``, negative addresses inactive."""
    access_bytes = _check_access_bytes(access_bytes)
    addresses = np.asarray(addresses, dtype=np.int64)
    flat = addresses.reshape(-1, addresses.shape[-1])
    units = np.sort(np.where(flat >= 0, flat // access_bytes, -1), axis=-1)
    sector_of = np.where(units >= 0, units * access_bytes // SECTOR_BYTES, -1)  # sorted as units are
    sectors = first_of_runs(sector_of).sum(axis=1)
    minimum = -(-(first_of_runs(units).sum(axis=1) * access_bytes) // SECTOR_BYTES)
    shape = addresses.shape[:-1]
    return sectors.reshape(shape), minimum.reshape(shape)
