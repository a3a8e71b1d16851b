"""``pcf-resolve-tokens``: the synchronization an sref carries in its type moves onto the op
that owns it (IREE's pass of the same name). A ``pcf.loop``/``pcf.generic`` with a
``sync(S)`` sref argument (``S, #pcf.sync_on_return``: a fence when the scope returns)
becomes ``sync true`` and its srefs plain ``!pcf.sref<..., S>``. Example::

    pcf.loop scope(S) count(%n) execute(%r = %buf)[%i: index] : (!pcf.sref<?xf32, sync(S)>) -> ...

becomes ``pcf.loop sync true scope(S) count(%n) execute(%r = %buf)[%i: index] : (!pcf.sref<?xf32, S>)``.
Other sync scopes (a token type such as ``i32``) are not resolved yet: a LayoutError.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import BoolAttr, ModuleOp, NoneAttr
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError
from layoutkit.ir.context import at_op
from layoutkit.ir.dialects import pcf

NAME = "pcf-resolve-tokens"


def resolve(op) -> None:
    """Move ``sync(S)`` from ``op``'s sref arguments onto ``op``."""
    block = op.region.blocks.first
    for arg in list(op.ref_args):
        sref = arg.type
        if sref.syncs_on_return:
            plain = pcf.ShapedRefType(sref.get_shape(), sref.element_type, sref.scope)
            new = block.insert_arg(plain, arg.index)
            new.name_hint = arg.name_hint
            arg.replace_all_uses_with(new)
            block.erase_arg(arg)
            op.properties["sync_on_return"] = BoolAttr.from_bool(True)
        elif not isinstance(sref.sync_scope, NoneAttr):
            raise LayoutError(at_op(op, f"{NAME}: {op.name}: sync scope {sref.sync_scope} of {sref} is not resolved yet "
                              "(only sync(...), #pcf.sync_on_return)"))


@dataclass(frozen=True)
class PcfResolveTokensPass(ModulePass):
    """sync(S) on the srefs of pcf.loop/pcf.generic becomes `sync true` on the op."""

    name = NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for parallel in [o for o in op.walk() if isinstance(o, (pcf.LoopOp, pcf.GenericOp))]:
            if parallel.region.blocks:
                resolve(parallel)


__all__ = ["PcfResolveTokensPass", "resolve"]
