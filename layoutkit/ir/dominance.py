"""SSA dominance of parsed IR: every operand is defined before its use, as MLIR's verifier
requires ("operand #1 does not dominate this use").

xDSL's parser resolves a name used before its definition to the later definition, and a name
defined inside a region (a loop's induction variable) is still found after the region ends;
the simulator would then read a value that was never computed or is stale. MLIR rejects
both. Example::

    %x = arith.addi %y, %c1 : index      // line 3: uses %y ...
    %y = arith.muli %a, %c2 : index      // ... defined on line 4

is ``line 3: arith.addi: operand #0 '%y' does not dominate this use: it is defined later
(line 4)``. Regions with several blocks (``cf`` branches) are checked only within a block, and
graph regions (``builtin.module``, ``gpu.module``) not at all.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Block, BlockArgument, Operation, OpResult

from layoutkit.errors import LayoutError, quote

#: ops whose regions are graph regions: their ops may be in any order
GRAPH_REGION_OPS = frozenset({"builtin.module", "gpu.module"})


def verify_dominance(root: Operation, line_of: Callable[[Operation], int | None]) -> None:
    """LayoutError (``line L: OP: operand #i '%v' ...``) at the first operand of an op in
    ``root`` that is used before its definition or outside the region defining it."""
    positions: dict[Block, dict[Operation, int]] = {}
    for op in root.walk():
        for index, operand in enumerate(op.operands):
            problem = _problem(op, operand, positions, line_of)
            if problem is not None:
                line = line_of(op)
                where = f"line {line}: " if line else ""
                name = quote(f"%{operand.name_hint}") if operand.name_hint else "(unnamed)"
                raise LayoutError(f"{where}{op.name}: operand #{index} {name} {problem}")


def _problem(op: Operation, value, positions: dict, line_of) -> str | None:
    """Why ``value`` may not be used by ``op`` (None when it may)."""
    if isinstance(value, OpResult):
        block = value.op.parent_block()
    elif isinstance(value, BlockArgument):
        block = value.block
    else:
        return None
    if block is None:
        return None
    owner = block.parent_op()
    if owner is not None and owner.name in GRAPH_REGION_OPS:
        return None
    ancestor = op
    while ancestor is not None and ancestor.parent_block() is not block:
        ancestor = ancestor.parent_op()
    if ancestor is None:  # the use is outside the block defining the value
        region = block.parent
        user = op
        while user is not None:
            user_block = user.parent_block()
            if user_block is not None and user_block.parent is region:
                return None  # another block of the same region: a CFG edge decides, not checked
            user = user.parent_op()
        line = line_of(owner) if owner is not None else None
        at = f" (line {line})" if line else ""
        return (f"does not dominate this use: it is defined inside a region of "
                f"{owner.name if owner is not None else 'another op'}{at} and is not visible here")
    if isinstance(value, BlockArgument):
        return None
    order = positions.get(block)
    if order is None:
        order = positions[block] = {o: i for i, o in enumerate(block.ops)}
    if order[value.op] < order[ancestor]:
        return None
    line = line_of(value.op)
    at = f" (line {line})" if line else ""
    if value.op is ancestor:
        return f"does not dominate this use: it is the result of this op or of an op enclosing it{at}"
    return f"does not dominate this use: it is defined later{at}"
