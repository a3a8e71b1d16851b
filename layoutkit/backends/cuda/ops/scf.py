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
from layoutkit.ir.dialects.upstream import scf as upstream_scf


def declare_results(self: FunctionEmitter, op: Any) -> list[str]:
    """Declare a local per result of ``op`` (assigned by its regions' ``scf.yield``)."""
    results = []
    for result in op.results:
        name = self.name_of(result)
        self.emit(f"{c_type(result.type)} {name};")
        self.exprs[result] = name
        results.append(name)
    return results


@emits(scf.IfOp)
def if_(self: FunctionEmitter, op: Any) -> None:
    results = declare_results(self, op)
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


@emits(scf.IndexSwitchOp)
def index_switch(self: FunctionEmitter, op: Any) -> None:
    """``scf.index_switch``: a C ``switch`` with one braced ``case`` per region, results as
    locals assigned by each region's ``scf.yield``."""
    results = declare_results(self, op)
    self.emit(f"switch ({self.expr(op.arg)}) {{")
    labels = [f"case {c}:" for c in op.cases.get_values()] + ["default:"]
    for label, region in zip(labels, [*op.case_regions, op.default_region]):
        self.emit(f"{label} {{")
        self.branch(region, results)
        self.depth += 1
        self.emit("break;")
        self.depth -= 1
        self.emit("}")
    self.emit("}")


@emits(upstream_scf.ForallOp)
def forall(self: FunctionEmitter, op: Any) -> None:
    """``scf.forall`` on memrefs: one ``for`` loop per induction variable, outermost first (each
    thread runs every iteration, as in the simulator; ``mapping`` is not applied)."""
    if op.outputs:
        raise self.error(op, "scf.forall with shared_outs (tensors) is not supported by the CUDA "
                             "backend; bufferize to memrefs first")
    lbs, ubs, steps = op.bounds(self.expr)
    for iv, lb, ub, step in zip(op.induction_vars, lbs, ubs, steps):
        index = self.name_of(iv, "i")
        self.exprs[iv] = index
        increment = f"++{index}" if str(step) == "1" else f"{index} += {step}"
        self.emit(f"for (int {index} = {lb}; {index} < {ub}; {increment}) {{")
        self.depth += 1
    for inner in op.body.block.ops:
        if not isinstance(inner, upstream_scf.InParallelOp):
            self.op(inner)
    for _ in op.induction_vars:
        self.depth -= 1
        self.emit("}")
