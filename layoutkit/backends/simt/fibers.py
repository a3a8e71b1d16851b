"""Warps that run different code at once, synchronised by named barriers.

The lockstep machine runs the branches of a divergent ``scf.if`` / ``scf.index_switch``
one after the other. That is exact as long as the branches do not wait for each other —
but a producer/consumer split does: the consumer's ``bar.sync 1, 256`` waits for the
producer's ``bar.arrive 1, 256``, which comes after the producer's loads, which in turn may
wait for the consumer. So when the branches of such an op contain a named barrier
(``nvvm.barrier`` / ``nvvm.barrier.arrive``), each branch with active threads runs as a
*fiber* (a Python thread that runs only while it holds the baton): it runs until it waits
at a barrier that has not completed, then hands the baton to the first runnable fiber. A
barrier completes when ``number_of_threads`` threads arrived (each arriving warp counts as
warp size threads, as on the GPU); its waiting fibers run next (before the fiber whose
arrival completed it). When no fiber can
run, the program is deadlocked: the report names every waiting warp, its op and line, and
the barrier's arrival count — the run never hangs.

Ordering of shared memory follows the barriers' completions (see
:mod:`~layoutkit.backends.simt.warp_order`): a consumer that reads a tile without waiting
on the producer's barrier is reported as a race whatever order the fibers ran in.
Kernels with named barriers run one block per chunk (barrier state is per block).

Limit: warps leave a branch op together. Warps waiting at a barrier inside one branch can be
released by warps in the op's other branches or in other fibers, not by warps of their own
fiber that skipped the op (an ``scf.if`` without ``else`` taken by some warps, whose others
would arrive after it): that is reported as a deadlock although a GPU would go on.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from layoutkit.backends.simt.errors import SimulationError
from layoutkit.backends.simt.warp_order import MAX_WARPS
from layoutkit.ir.context import op_line


class _Abort(BaseException):
    """Ends a fiber after another one stopped the run (the error is the scheduler's)."""


@dataclass(eq=False)
class Fiber:
    label: str
    parent: Fiber | None = None
    state: str = "run"  # run | barrier | children | done
    wake: threading.Event = field(default_factory=threading.Event)
    children: list = field(default_factory=list)
    waiting: tuple | None = None  # (op, barrier id, warps) while at a barrier
    full: bool = False


@dataclass
class _Barrier:
    count: int
    clock: int = 0  # the latest clock of an arriving warp (Machine.clocks)
    arrived: list = field(default_factory=list)  # warps, in arrival order
    waiters: list = field(default_factory=list)  # (fiber, warps)


def _warps(warps) -> str:
    warps = [int(w) for w in warps]
    if len(warps) > 2 and warps == list(range(warps[0], warps[-1] + 1)):
        return f"{warps[0]}-{warps[-1]}"
    return ", ".join(map(str, warps))


class Scheduler:
    """The fibers of one machine (one block) and its named barriers' state."""

    def __init__(self, machine) -> None:
        self.m = machine
        self.root = Fiber("root")
        self.current = self.root
        self.fibers = [self.root]
        self.barriers: dict[int, _Barrier] = {}
        self.error: BaseException | None = None

    # ------------------------------------------------------------ fibers
    def run_cases(self, cases: list) -> list:
        """Run ``(block, mask, label)`` cases as concurrent fibers; their yielded values."""
        parent = self.current
        results: list = [None] * len(cases)
        children = [Fiber(label, parent) for _, _, label in cases]
        parent.children, parent.state = children, "children"
        self.fibers.extend(children)
        threads = [threading.Thread(target=self._body, args=(f, block, mask, results, k), daemon=True)
                   for k, (f, (block, mask, _)) in enumerate(zip(children, cases))]
        for thread in threads:
            thread.start()
        try:
            self._switch(parent)
        except _Abort:
            pass
        for thread in threads:
            thread.join()
        self.fibers = [f for f in self.fibers if f not in children]
        if self.error is not None:
            if parent is self.root:
                error, self.error = self.error, None
                raise error
            raise _Abort()
        return results

    def _body(self, fiber: Fiber, block, mask, results: list, k: int) -> None:
        fiber.wake.wait()
        fiber.wake.clear()
        if self.error is not None:
            return
        try:
            with np.errstate(all="ignore"):
                results[k] = self.m.run_block(block, mask)
        except _Abort:
            return
        except BaseException as error:  # noqa: BLE001 - handed to the root fiber
            self._abort(error)
            return
        fiber.state = "done"
        parent = fiber.parent
        if all(c.state == "done" for c in parent.children):
            parent.state = "run"
        try:
            self._switch(fiber)
        except BaseException as error:  # noqa: BLE001 - a deadlock found on leaving
            self._abort(error)

    def _abort(self, error: BaseException) -> None:
        if self.error is None:
            self.error = error
        for fiber in self.fibers:
            fiber.wake.set()

    def _switch(self, me: Fiber) -> None:
        """``me`` cannot go on (waits or is done): run the next runnable fiber."""
        m = self.m
        me.full = m.full
        following = next((f for f in self.fibers if f.state == "run" and f is not me), None)
        if following is None:
            op = me.waiting[0] if me.waiting else None
            error = self._deadlock(op)
            if me is self.root:
                raise error
            self._abort(error)
            raise _Abort()
        self.current = following
        following.wake.set()
        if me.state == "done":
            return
        me.wake.wait()
        me.wake.clear()
        if self.error is not None:
            raise _Abort()
        self.current = me
        m.full = me.full

    def _deadlock(self, op):
        """The report of a program no fiber of which can go on."""
        parts = []
        for fiber in self.fibers:
            if fiber.state == "barrier":
                wop, bid, warps = fiber.waiting
                line = op_line(wop)
                barrier = self.barriers[bid]
                parts.append(f"warps {_warps(warps)} wait at {wop.name} (line {line}) on barrier {bid} "
                             f"({len(barrier.arrived) * self.m.geometry.warp_size} of {barrier.count} "
                             f"threads arrived)")
        try:
            self.m.fail(op or self.m.kernel, "deadlock: no warp can go on: " + "; ".join(parts))
        except SimulationError as error:
            return error
        return SimulationError("deadlock")

    # ------------------------------------------------------------ barriers
    def arrive(self, op, mask: np.ndarray, bid: int, count: int, wait: bool) -> None:
        """Warps active in ``mask`` arrive at barrier ``bid`` of ``count`` threads; with
        ``wait`` (bar.sync) the current fiber waits for its completion."""
        m = self.m
        ws = m.geometry.warp_size
        warps = np.unique(np.flatnonzero(mask) // ws)
        if warps.size == 0:
            return
        if int(warps[-1]) >= MAX_WARPS:
            m.fail(op, f"named barriers are simulated for at most {MAX_WARPS} warps per block")
        barrier = self.barriers.get(bid)
        if barrier is None:
            barrier = self.barriers[bid] = _Barrier(count)
        elif barrier.count != count:
            m.fail(op, f"barrier {bid} counts {count} threads here but {barrier.count} for the warps "
                       f"{_warps(barrier.arrived)} that arrived before", int(warps[0]) * ws)
        again = [int(w) for w in warps if int(w) in barrier.arrived]
        if again:
            m.fail(op, f"warp {again[0]} arrives at barrier {bid} again before it completed "
                       f"({len(barrier.arrived) * ws} of {count} threads arrived)", again[0] * ws)
        barrier.arrived += [int(w) for w in warps]
        m.stats.barrier_arrivals += int(warps.size)
        barrier.clock = max(barrier.clock, int(m.clocks[warps].max()))
        bits = sum(1 << int(w) for w in warps)
        for buffer in m.shared:
            buffer.races.arrive(bid, bits)
        if wait:
            barrier.waiters.append((self.current, warps))
        arrived = len(barrier.arrived) * ws
        if arrived > count:
            m.fail(op, f"{arrived} threads arrived at barrier {bid}, which counts {count}",
                   int(warps[0]) * ws)
        if arrived == count:
            del self.barriers[bid]
            waiting = sum(1 << int(w) for _, ws_ in barrier.waiters for w in ws_)
            for _, waiters in barrier.waiters:
                m.clocks[waiters] = np.maximum(m.clocks[waiters], barrier.clock)
            for buffer in m.shared:
                buffer.races.complete(bid, waiting)
            woken = [fiber for fiber, _ in barrier.waiters if fiber is not self.current]
            for fiber in woken:
                fiber.state, fiber.waiting = "run", None
            if woken:  # the warps that waited go first (the arriving fiber is still runnable)
                self.fibers.sort(key=lambda f: f not in woken)
                self._switch(self.current)
            return
        if wait:
            me = self.current
            me.state, me.waiting = "barrier", (op, bid, warps)
            self._switch(me)
