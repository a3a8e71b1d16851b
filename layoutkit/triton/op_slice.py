"""MLIR's ``multiRootGetSlice``: every op connected to a root through def-use steps, as Triton's
layout passes use it to find the loads of one access pattern or the dots of one chain.

From each op of the slice, the backward step adds the defining ops of its operands (block
arguments stop it) and, for an op with regions, of the values its regions use from above; the
forward step adds the users of its results and the ops nested in its regions. ``keep`` filters
the ops added (the root is always in). Example: in ``%c = addi %a, %b; store %p, %c`` the slice
of the store holds the ops defining ``%p``, ``%a``, ``%b``, the addi, and their own slices.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation


def multi_root_slice(root: Operation, keep: Callable[[Operation], bool] | None = None) -> list[Operation]:
    """The slice of ``root`` (``root`` first, the others in discovery order)."""
    seen = {root}
    order = [root]
    todo = [root]
    while todo:
        cur = todo.pop()
        step: list[Operation] = [v.owner for v in cur.operands if isinstance(v.owner, Operation)]
        for result in cur.results:
            step.extend(use.operation for use in result.uses)
        for region in cur.regions:
            for inner in region.walk():
                step.append(inner)
                step.extend(v.owner for v in inner.operands
                            if isinstance(v.owner, Operation) and not cur.is_ancestor(v.owner))
        for other in step:
            if other not in seen and (keep is None or keep(other)):
                seen.add(other)
                order.append(other)
                todo.append(other)
    return order


__all__ = ["multi_root_slice"]
