"""The canonicalisation Triton's layout passes run between their stages, as MLIR's greedy
driver applies it to TritonGPU (Ops.cpp): ``convert_layout`` folds (``convert(x : T -> T)`` is
``x``; ``convert(convert(x))`` one convert; a convert of ``tt.splat``, ``tt.make_range``, a splat
constant, ``tt.cat`` or ``tt.histogram`` is that op rebuilt in the new encoding), converts folded
into their users (reshape, trans, histogram, gather, split, local_alloc, local_store), constants
unique and hoisted as MLIR's OperationFolder places them, dead pure ops erased, and -- for the
final cleanup -- dead ``scf.for`` iteration arguments and unused ``scf.if`` results dropped.

Example: ``%c = arith.constant dense<2.0> : tensor<1024xf32, #A>`` and ``%d = ttg.convert_layout
%c : #A -> #B`` become ``%d = arith.constant dense<2.0> : tensor<1024xf32, #B>`` at the front of
the function (or where it stands, right after another known constant).
"""


from __future__ import annotations

from typing import Any

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.ir.dialects import ttg
from layoutkit.triton.layout_rules import (
    encoding_of,
    insert_convert,
    is_anchor,
    is_encoded_tensor,
    is_pure,
    is_splat_constant,
    set_encoding,
    split_layout,
    trans_order,
)


class _Constants:
    """MLIR's OperationFolder as the greedy driver uses it: constants are unique per (value,
    type) and live at the front of the function's entry block (a constant not at the front
    and not right after another known constant moves to the very front)."""

    def __init__(self, func: Operation):
        self.block = func.body.blocks.first
        self.known: dict[tuple[str, Any], Operation] = {}
        self.owned: set[int] = set()

    def insert(self, op: Operation) -> bool:
        """Register ``op``; False when it was replaced by an equal constant (and erased)."""
        key = (str(op.value), op.results[0].type)
        found = self.known.get(key)
        if found is not None and found is not op:
            op.results[0].replace_all_uses_with(found.results[0])
            op.detach()
            op.erase()
            return False
        first = self.block.first_op
        if op.parent_block() is not self.block or (first is not op and id(op.prev_op) not in self.owned):
            op.detach()
            self.block.insert_op_before(op, self.block.first_op)
        self.known[key] = op
        self.owned.add(id(op))
        return True


def _inside(value: SSAValue, loop: Operation) -> bool:
    op = value.owner if isinstance(value.owner, Operation) else value.block.parent_op()
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op()
    return False


def _for_dead_args(loop: scf.ForOp) -> bool:
    """Triton's ForOpDeadArgElimination: a loop-carried value nothing live needs yields its
    own argument (the arg and its computation then go as dead code)."""
    block = loop.body.blocks.first
    yield_op = block.last_op
    live: set[SSAValue] = set()
    queue: list[SSAValue] = []

    def mark(value: SSAValue) -> None:
        if _inside(value, loop) and value not in live:
            live.add(value)
            queue.append(value)

    for k, result in enumerate(loop.results):
        if result.uses:
            mark(yield_op.operands[k])
    if len(live) == len(loop.results):
        return False
    for op in block.walk():
        if not isinstance(op, scf.YieldOp | scf.ForOp) and not (is_pure(op) and op.results):
            for operand in op.operands:
                mark(operand)
    while queue:
        value = queue.pop()
        definer = value.owner
        if isinstance(definer, scf.ForOp):
            k = value.index
            mark(definer.iter_args[k])
            mark(definer.body.blocks.first.last_op.operands[k])
        elif isinstance(definer, scf.IfOp):
            mark(definer.cond)
            for region in (definer.true_region, definer.false_region):
                if region.blocks:
                    mark(region.blocks.first.last_op.operands[value.index])
        elif isinstance(definer, scf.WhileOp):
            return False
        elif isinstance(definer, Operation):
            for operand in definer.operands:
                mark(operand)
        else:
            owner = value.block.parent_op()
            if isinstance(owner, scf.ForOp) and value.index > 0:
                mark(value.block.last_op.operands[value.index - 1])
                mark(owner.iter_args[value.index - 1])
    changed = False
    for k, operand in enumerate(yield_op.operands):
        arg = block.args[k + 1]
        if operand in live or operand is arg:
            continue
        if not _inside(operand, loop) and operand is not loop.iter_args[k]:
            continue
        yield_op.operands[k] = arg
        changed = True
    return changed


def _for_forwarded_args(loop: scf.ForOp) -> bool:
    """scf.for's ForOpIterArgsFolder: an iteration argument its body yields unchanged is its
    init value; the loop is rebuilt without it."""
    block = loop.body.blocks.first
    yield_op = block.last_op
    drop = [k for k, operand in enumerate(yield_op.operands) if operand is block.args[k + 1]]
    if not drop:
        return False
    for k in drop:
        block.args[k + 1].replace_all_uses_with(loop.iter_args[k])
        loop.results[k].replace_all_uses_with(loop.iter_args[k])
    keep = [k for k in range(len(loop.iter_args)) if k not in drop]
    new_yield = scf.YieldOp(*[yield_op.operands[k] for k in keep])
    Rewriter.insert_op(new_yield, InsertPoint.before(yield_op))
    yield_op.detach()
    yield_op.erase()
    for k in reversed(drop):
        block.erase_arg(block.args[k + 1])
    region = loop.detach_region(loop.body)
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [loop.iter_args[k] for k in keep], region)
    new.attributes.update(loop.attributes)
    new.location = loop.location
    Rewriter.insert_op(new, InsertPoint.before(loop))
    for k, res in zip(keep, new.results):
        loop.results[k].replace_all_uses_with(res)
    loop.detach()
    loop.erase()
    return True


def _if_unused_results(op: scf.IfOp) -> bool:
    """scf.if's RemoveUnusedResults: the if rebuilt without the results nothing uses."""
    keep = [k for k, r in enumerate(op.results) if r.uses]
    if len(keep) == len(op.results) or not op.false_region.blocks:
        return False
    for region in (op.true_region, op.false_region):
        terminator = region.blocks.first.last_op
        trimmed = scf.YieldOp(*[terminator.operands[k] for k in keep])
        Rewriter.insert_op(trimmed, InsertPoint.before(terminator))
        terminator.detach()
        terminator.erase()
    then_region, else_region = op.true_region, op.false_region
    op.detach_region(then_region)
    op.detach_region(else_region)
    new = scf.IfOp(op.cond, [op.results[k].type for k in keep], then_region, else_region)
    new.attributes.update(op.attributes)
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    for k, res in zip(keep, new.results):
        op.results[k].replace_all_uses_with(res)
    op.detach()
    op.erase()
    return True


def canonicalize_converts(func: Operation, loops: bool = False) -> None:
    """Triton's ConvertLayoutOp canonicalisation patterns, constant uniquing and dead-code
    removal, to a fixpoint (MLIR's greedy driver, which Triton's goldens show visiting ops
    top-down, a new op at once)."""
    constants = _Constants(func)
    for op in list(func.walk()):
        if op.name == "arith.constant" and op.parent is not None:
            constants.insert(op)
    for _ in range(10_000):
        changed = False
        for op in list(func.walk()):
            if op.parent is None:
                continue
            if op.results and is_pure(op) and all(not r.uses for r in op.results):
                op.detach()
                op.erase()
                changed = True
                continue
            if loops and isinstance(op, scf.ForOp):
                changed |= _for_dead_args(op) or _for_forwarded_args(op)
                continue
            if loops and isinstance(op, scf.IfOp):
                changed |= _if_unused_results(op)
                continue
            if op.name in _USER_PATTERNS:
                changed |= _USER_PATTERNS[op.name](op)
            elif op.name == "ttg.convert_layout":
                new = _canonicalize_convert(op)
                if new is not None:
                    changed = True
                    if new.name == "arith.constant":
                        constants.insert(new)
        if not changed:
            return


def _canonicalize_convert(op: Operation) -> Operation | None:
    """Rewrite one convert; the op that replaces it (its source's owner when folded), or None."""
    src, result = op.operands[0], op.results[0]
    if src.type == result.type:
        result.replace_all_uses_with(src)
        op.detach()
        op.erase()
        return src.owner if isinstance(src.owner, Operation) else src.block.parent_op()
    arg = src.owner if isinstance(src.owner, Operation) else None
    if arg is None:
        return None
    from layoutkit.layouts.triton import DotOperandEncoding
    from layoutkit.layouts.triton.mma import NvidiaMmaEncoding

    if isinstance(encoding_of(result), DotOperandEncoding) and isinstance(encoding_of(src), NvidiaMmaEncoding):
        return None
    layout = encoding_of(result)
    if arg.name == "ttg.convert_layout":
        new = ttg.ConvertLayoutOp.build(operands=[arg.operands[0]], result_types=[result.type])
    elif arg.name == "tt.cat":
        if not _cheap_cat(arg, layout):
            return None
        new = arg.clone()
        for i, operand in enumerate(arg.operands):
            new.operands[i] = operand
        set_encoding(new.results[0], layout)
    elif arg.name in ("tt.splat", "tt.make_range", "tt.histogram") or is_splat_constant(arg):
        new = arg.clone()
        for i, operand in enumerate(arg.operands):
            new.operands[i] = operand
        set_encoding(new.results[0], layout)
    else:
        return None
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    result.replace_all_uses_with(new.results[0])
    op.detach()
    op.erase()
    return new


def _cheap_cat(cat: Operation, layout: Any) -> bool:
    """Triton's cat legality for a new result encoding: no fewer registers per thread than
    its result has now (fewer would go through shared memory anyway)."""
    from layoutkit.analysis.access import registers_per_thread

    shape = tuple(int(d) for d in cat.results[0].type.get_shape())
    try:
        return registers_per_thread(layout, shape) >= registers_per_thread(encoding_of(cat.results[0]), shape)
    except Exception:  # noqa: BLE001 - not a distributed layout
        return False


def trivial_convert(op: Operation) -> bool:
    """Triton's isConvertTrivial: source and result encodings are the same function."""
    src, dst = encoding_of(op.operands[0]), encoding_of(op.results[0])
    if src == dst:
        return True
    shape = tuple(int(d) for d in op.operands[0].type.get_shape())
    try:
        return src.to_linear_layout(shape) == dst.to_linear_layout(shape)
    except Exception:  # noqa: BLE001 - no linear form: compared by name only
        return False


def _source_convert(op: Operation, index: int = 0) -> Operation | None:
    owner = op.operands[index].owner
    return owner if isinstance(owner, Operation) and owner.name == "ttg.convert_layout" else None


def _replace_operand(op: Operation, index: int, value: SSAValue) -> bool:
    """``op`` rebuilt (at its place) with operand ``index`` replaced -- replaceOpWithNewOp."""
    new = op.clone()
    for i, operand in enumerate(op.operands):
        new.operands[i] = value if i == index else operand
    Rewriter.insert_op(new, InsertPoint.before(op))
    for old, res in zip(op.results, new.results):
        old.replace_all_uses_with(res)
    op.detach()
    op.erase()
    return True


def _fold_into_reshape(op: Operation) -> bool:
    cvt = _source_convert(op)
    if cvt is None or not (trivial_convert(cvt) or op.properties.get("allow_reorder") is not None):
        return False
    return _replace_operand(op, 0, cvt.operands[0])


def _fold_into_trans(op: Operation) -> bool:
    perm = trans_order(op)
    if perm == tuple(range(len(perm))):
        new = ttg.ConvertLayoutOp.build(operands=[op.operands[0]], result_types=[op.results[0].type])
        new.location = op.location
        Rewriter.insert_op(new, InsertPoint.before(op))
        op.results[0].replace_all_uses_with(new.results[0])
        op.detach()
        op.erase()
        return True
    cvt = _source_convert(op)
    if cvt is None or not trivial_convert(cvt):
        return False
    return _replace_operand(op, 0, cvt.operands[0])


def _fold_into_histogram(op: Operation) -> bool:
    cvt = _source_convert(op)
    if cvt is None:
        return False
    if len(op.operands) > 1:  # the mask follows the new source layout
        mask = insert_convert(op.operands[1], encoding_of(cvt.operands[0]), InsertPoint.before(op), op.location)
        op.operands[1] = mask
    return _replace_operand(op, 0, cvt.operands[0])


def _fold_into_gather(op: Operation) -> bool:
    cvt = _source_convert(op)
    if cvt is None or is_anchor(op):
        return False
    return _replace_operand(op, 0, cvt.operands[0])


def _fold_into_memory(op: Operation) -> bool:
    if not op.operands or not is_encoded_tensor(op.operands[0]):
        return False
    cvt = _source_convert(op)
    return cvt is not None and _replace_operand(op, 0, cvt.operands[0])


def _fold_into_split(op: Operation) -> bool:
    cvt = _source_convert(op)
    if cvt is None or split_layout(encoding_of(cvt.operands[0])) != encoding_of(op.results[0]):
        return False
    return _replace_operand(op, 0, cvt.operands[0])


#: the patterns on a convert's user (Triton's reshape/trans/histogram/gather/alloc/local_store/split(cvt))
_USER_PATTERNS = {"tt.reshape": _fold_into_reshape, "tt.trans": _fold_into_trans, "tt.histogram": _fold_into_histogram,
                  "tt.gather": _fold_into_gather, "ttg.local_alloc": _fold_into_memory,
                  "ttg.local_store": _fold_into_memory, "tt.split": _fold_into_split}


__all__ = ["canonicalize_converts", "trivial_convert"]
