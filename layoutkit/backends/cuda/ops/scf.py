"""CUDA emitters of ``scf``: ``if``, ``for`` and ``while`` blocks with their carried values
as locals."""

from __future__ import annotations

import re
from typing import Any

from xdsl.dialects import scf

from layoutkit.backends.cuda.c_text import paren
from layoutkit.backends.cuda.emit import FunctionEmitter
from layoutkit.backends.cuda.registry import emits
from layoutkit.backends.types import c_type


@emits(scf.IfOp)
def if_(self: FunctionEmitter, op: Any) -> None:
    results = []
    for result in op.results:
        name = self.name_of(result)
        self.emit(f"{c_type(result.type)} {name};")
        self.exprs[result] = name
        results.append(name)
    then_region, else_region = op.regions[0], op.regions[1]
    self.emit(f"if ({self.expr(op.operands[0])}) {{")
    self.branch(then_region, results)
    if else_region.blocks and (list(else_region.blocks[0].ops) and
                               (results or len(list(else_region.blocks[0].ops)) > 1)):
        self.emit("} else {")
        self.branch(else_region, results)
    self.emit("}")


@emits(scf.ForOp)
def for_(self: FunctionEmitter, op: Any) -> None:
    lower, upper, step = (self.expr(v) for v in op.operands[:3])
    inits = op.operands[3:]
    block = op.regions[0].blocks[0]
    induction, carried_args = block.args[0], block.args[1:]
    carried = []
    for arg, init, result in zip(carried_args, inits, op.results):
        name = self.name_of(arg, "carried")
        self.emit(f"{c_type(arg.type)} {name} = {self.expr(init)};")
        self.exprs[arg] = name
        self.exprs[result] = name
        carried.append(name)
    index = self.name_of(induction, "i")
    self.exprs[induction] = index
    increment = f"++{index}" if re.fullmatch(r"1(ll)?", step) else f"{index} += {step}"
    self.emit(f"for ({c_type(induction.type)} {index} = {lower}; {index} < {upper}; {increment}) {{")
    self.depth += 1
    for inner in block.ops:
        if inner.name == "scf.yield":
            self.assign_carried(carried, list(carried_args), [self.expr(v) for v in inner.operands])
        else:
            self.op(inner)
    self.depth -= 1
    self.emit("}")


@emits(scf.WhileOp)
def while_(self: FunctionEmitter, op: Any) -> None:
    """``scf.while``: a ``while (true)`` loop that leaves when the condition is false.

    The before-region's arguments are loop-carried locals, the values ``scf.condition``
    forwards are the loop's results (and the after-region's arguments)."""
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    carried = []
    for arg, init in zip(before.args, op.operands):
        name = self.name_of(arg, "carried")
        self.emit(f"{c_type(arg.type)} {name} = {self.expr(init)};")
        self.exprs[arg] = name
        carried.append(name)
    results = []
    for result, arg in zip(op.results, after.args):
        name = self.name_of(arg if getattr(arg, "name_hint", None) else result)
        self.emit(f"{c_type(result.type)} {name};")
        self.exprs[result] = name
        self.exprs[arg] = name
        results.append(name)
    self.emit("while (true) {")
    self.depth += 1
    for inner in before.ops:
        if inner.name == "scf.condition":
            condition, *forwarded = (self.expr(v) for v in inner.operands)
            for name, value in zip(results, forwarded):
                if name != value:
                    self.emit(f"{name} = {value};")
            self.emit(f"if (!{paren(condition)}) break;")
        else:
            self.op(inner)
    for inner in after.ops:
        if inner.name == "scf.yield":
            self.assign_carried(carried, list(before.args), [self.expr(v) for v in inner.operands])
        else:
            self.op(inner)
    self.depth -= 1
    self.emit("}")
