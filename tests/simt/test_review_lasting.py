"""Review of lasting results (work on arrays that last from run to run, kept with the
kernel): one parsed module launched again and again, with other data, shapes, scalar
arguments and options in between, gives what a freshly parsed module gives each time
(outputs bit for bit, counts, the error and the thread it names) and what numpy gives;
and what it keeps with the kernel stays bounded."""

from __future__ import annotations

import numpy as np

import layoutkit
from layoutkit import LayoutError
from layoutkit.backends.simt import machine
from layoutkit.backends.simt.errors import SimulationError
from layoutkit.ir import parse_module


def module_text(signature: str, body: str) -> str:
    return (f"module {{\n  gpu.module @m {{\n    gpu.func @k({signature}) kernel {{\n{body}\n"
            f"      gpu.return\n    }}\n  }}\n}}\n")


def outcome(module, grid, block, args: dict, **options) -> tuple:
    """What a launch gives: its arrays' bytes and counts, or its error's type and text."""
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    try:
        r = layoutkit.simulate(module, "k", grid, block, args, **options)
    except (SimulationError, LayoutError) as e:
        return ("error", type(e).__name__, str(e))
    arrays = {k: v.tobytes() for k, v in args.items() if isinstance(v, np.ndarray)}
    return ("ok", arrays, r.ops, r.thread_instructions, r.shared_wavefronts, r.global_sectors,
            r.barrier_arrivals)


def assert_relaunches_match_fresh(text: str, launches) -> list:
    """Each (grid, block, args, options) launched on one parsed module equals a launch of a
    fresh parse; the outcomes, in order."""
    module = parse_module(text)
    seen = []
    for grid, block, args, options in launches:
        kept = outcome(module, grid, block, args, **options)
        fresh = outcome(parse_module(text), grid, block, args, **options)
        assert kept == fresh, (grid, block, options, kept[:1] + kept[2:], fresh[:1] + fresh[2:])
        seen.append(kept)
    return seen


def static_of(module) -> dict:
    (kernel,) = [op for op in module.walk() if machine._STATIC_ATTRIBUTE in op.__dict__]
    return kernel.__dict__[machine._STATIC_ATTRIBUTE]


# a loop carrying a value runs one iteration at a time: each value of %i is a new uniform
# array, lasting, and the constants inside the loop last too
LONG_LOOP = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %z = arith.constant 0 : i64
      %t = gpu.thread_id x
      %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
        %c3 = arith.constant 3 : index
        %c5 = arith.constant 5 : index
        %a = arith.muli %i, %c3 : index
        %b = arith.addi %a, %t : index
        %c = arith.xori %b, %i : index
        %d = arith.subi %c, %c5 : index
        %e = arith.index_cast %d : index to i64
        %acc2 = arith.addi %acc, %e : i64
        scf.yield %acc2 : i64
      }
      memref.store %s, %o[%t] : memref<?xi64>
"""


def test_a_long_sequential_loop_keeps_a_bounded_number_of_lasting_results():
    """20000 iterations of index math on the uniform induction value and constants: each
    result (8 bytes) lasts, and was kept with the kernel until 8 MiB of them, ~1M entries
    of some hundred bytes each (~450 MB with 300000 iterations); now at most a few
    thousand entries. The sums are numpy's."""
    n = 20000
    module = parse_module(module_text("%o: memref<?xi64>, %n: index", LONG_LOOP))
    o = np.zeros(4, np.int64)
    layoutkit.simulate(module, "k", 1, 4, {"o": o, "n": n}, max_steps=10**7)
    i, t = np.arange(n)[:, None], np.arange(4)[None]
    assert np.array_equal(o, (((i * 3 + t) ^ i) - 5).sum(axis=0))
    assert len(static_of(module)["lasting results"]) <= 4097
