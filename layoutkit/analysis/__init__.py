"""Memory-access analysis: bank conflicts, coalescing, vector width, duplication, registers.

The bank model
==============

Shared memory (NVIDIA, compute capability 5.0 and later; the CUDA C++ Programming Guide,
"Shared Memory" sections of the compute-capability appendix, and the Nsight Compute
"shared memory wavefronts" metrics) has **32 banks, each 4 bytes wide**: the 4-byte word at
byte address ``a`` lives in bank ``(a // 4) % 32``. One warp-wide shared-memory instruction
is a *request*; the hardware serves it in *wavefronts* (passes through the bank array):

- accesses of 4 bytes or less: the whole warp is one *phase*;
- 64-bit accesses are split into 2 phases of 16 consecutive lanes, 128-bit accesses into 4
  phases of 8 consecutive lanes (a phase never moves more than 128 bytes);
- inside a phase, a bank delivers one 4-byte word per wavefront: lanes reading the same word
  share it (broadcast; stores to one word likewise count once), so the phase takes as many
  wavefronts as the **largest number of distinct 4-byte words any bank must deliver**;
- the request takes the sum of its phases' wavefronts.

The **lower bound** is the bytes moved divided by 128 bytes per wavefront, taken per phase:
``sum over phases of ceil(distinct words of the phase / 32)``. A request reaches it exactly
when it has no bank conflict. Warps of 64 lanes (AMD) are split into the same 128-byte phases
(two phases of 32 lanes for 4-byte accesses); this is the NVIDIA model applied to AMD LDS as an
approximation. Sub-byte element types occupy one byte each.

Global memory is moved in **32-byte sectors** (CUDA C++ Best Practices Guide, "Coalesced
Access to Global Memory"): a warp request touches ``sectors`` distinct sectors where
``ceil(distinct bytes / 32)`` would do; their ratio is the coalescing efficiency.

Per thread, the **widest vector** is the largest power-of-two run of consecutive registers
(at most 16 bytes) that hold elements contiguous and aligned in memory, for every thread (a
conversion plan, which names its registers freely, may group any registers); registers per
thread and the **duplication factor** (how many hardware slots hold each tensor element)
come from the layout's table.

Entry points: :func:`shared_wavefronts` and :func:`global_sectors` count one or many warp
requests from raw byte addresses (:func:`access_wavefronts` counts vector instructions with
the same function, for the analysis, the scratch-layout search and a plan's cost alike); :func:`vectorize` groups a thread's registers into vector
instructions; :func:`shared_access`, :func:`global_access`, :func:`registers_per_thread` and
:func:`duplication_factor` answer the questions for a layout.
"""

from __future__ import annotations

from layoutkit.analysis.access import (
    AccessReport,
    CoalescingReport,
    access_wavefronts,
    duplication_factor,
    global_access,
    registers_per_thread,
    shared_access,
)
from layoutkit.analysis.banks import (
    BANK_BYTES,
    BANKS,
    SECTOR_BYTES,
    WAVEFRONT_BYTES,
    global_sectors,
    lanes_per_phase,
    shared_wavefronts,
)
from layoutkit.analysis.hardware import HardwareMap, element_bytes, element_type, hardware_map
from layoutkit.analysis.vectors import VectorAccess, vectorize

__all__ = [
    "BANKS", "BANK_BYTES", "WAVEFRONT_BYTES", "SECTOR_BYTES",
    "shared_wavefronts", "global_sectors", "lanes_per_phase",
    "HardwareMap", "hardware_map", "element_bytes", "element_type",
    "VectorAccess", "vectorize",
    "AccessReport", "CoalescingReport", "access_wavefronts", "shared_access", "global_access",
    "registers_per_thread", "duplication_factor",
]
