"""The C allocator's thresholds for the simulator's short-lived arrays.

A simulated op allocates and frees arrays of 0.1-10 MB (a value over all thread slots).
glibc's malloc gives such blocks back to the kernel when they are freed at the top of the
heap (trim threshold 2x the mmap threshold, 256 KiB after a 128 KiB block) and the next
op's array faults every page in again: on a 128x128x64 mma matmul that is a third of
the run (a 512 KiB ``np.repeat`` plus add: 230 us, 48 us with the pages kept).
:func:`keep_freed_memory` raises both thresholds once per process, so freed blocks up to
32 MiB are reused; memory the process no longer needs stays mapped up to 256 MiB above
its peak use. Not glibc (macOS, musl): nothing to do.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3
TRIM_THRESHOLD = 256 << 20  # free memory kept at the top of the heap
MMAP_THRESHOLD = 32 << 20  # blocks from here up are mapped and unmapped each time (glibc's maximum)

_set: bool | None = None  # the answer, once asked


def keep_freed_memory() -> bool:
    """Raise glibc's trim and mmap thresholds once; whether they are set (False elsewhere)."""
    global _set
    if _set is None:
        _set = sys.platform.startswith("linux") and _mallopt()
    return _set


def _mallopt() -> bool:
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    return bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
