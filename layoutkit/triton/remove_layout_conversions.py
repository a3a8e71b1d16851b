"""``tritongpu-remove-layout-conversions``: Triton 3.9's RemoveLayoutConversions, the
heuristic that takes the ``ttg.convert_layout`` ops coalesce and accelerate-matmul leave::

    layoutkit opt k.ttgir --tritongpu-remove-layout-conversions

The stages (RemoveLayoutConversions.cpp and Utility.cpp of Triton 3.9), per ``tt.func``:

1. *forward propagation* (``LayoutPropagation``): the anchors -- function arguments, the
   results of expensive global loads (a tensor of at least ``num_warps * 32`` pointers),
   dots, atomics, gathers with an efficient layout and reorder-allowed reshapes -- keep their
   encoding; every encoding is pushed to the users through element-wise ops, broadcast,
   reduce, expand_dims, trans, join, split, converts (a convert's result takes its source's
   encoding) and scf results/arguments. A value reached by several encodings keeps the first
   (the anchor's, in program order), unless one is an mma encoding (``#ttg.blocked`` when the
   value comes from a load or store): Triton's "hacky resolve, prefer block encoding". Ops
   are then cloned in their new encoding (in place) and converts inserted where a user wants
   another one;
2. the converts are canonicalised: ``convert(x : T -> T)`` is ``x``, ``convert(convert(x))``
   one convert, a convert of a ``tt.splat``, ``tt.make_range`` or splat ``arith.constant`` is
   that op rebuilt in the new encoding; dead pure ops go;
3. *backward rematerialization*: for each convert left, the backward slice of its source
   (through element-wise ops, stopping at values that already have the wanted encoding, at a
   ``tt.broadcast`` operand whose encoding is the wanted one as a function on its shape -- as
   Triton's outer3_reduce golden shows -- and at splat/make_range/constant/convert) is
   recomputed in the destination encoding when every op can be (not an expensive load, dot,
   atomic or while) and Triton's byte cost allows it: the convert costs ``0`` if it only moves
   registers (two encodings of the same function included), else ``32 * bytes`` (at least 32
   elements of 32 bits); recomputing costs, for each slice op whose result is still needed
   elsewhere, ``bytes`` per arith/math op (``8 * bytes`` for div, exp, log, sqrt, sin, ...),
   ``8 * bytes`` per load, and a reduction its intra-warp plus ``8 *`` inter-warp size;
4. converts above ``arith.ext*``/``tt.broadcast``/``tt.expand_dims``/widening ``tt.fp_to_fp``
   are hoisted over the one such op of their slice that cannot be rematerialized
   (``hoistConvertOnTopOfExtOrBroadcast``); a convert whose slice reaches an ``scf.if`` inside
   an ``scf.for`` with one rematerializable branch moves into the other branch
   (``hoistConvertIntoConditionals``); a convert an mma dot later in its region needs moves up
   to the loads of its slice, through element-wise ops, broadcasts and views such as
   ``tt.trans`` (whose source then takes a ``#ttg.linear`` layout) (``hoistConvertDotOperand``);
   then a final canonicalisation that also drops dead ``scf.for`` iteration arguments and
   unused ``scf.if`` results.

Worked example (vector_add after coalesce): the two loads of ``1024xf32`` (>= 128 pointers:
expensive) are anchors in ``blocked<[4], [32], [4]>``; forward propagation takes that layout
to ``arith.addf``, whose convert to the store's layout becomes ``T -> T`` and folds; backward
rematerialization recomputes the pointer and mask chains (``tt.splat``, ``tt.addptr``,
``arith.cmpi``, ``tt.make_range``) in ``[4]`` as they are used by nothing else: no convert is left.

Not modelled (documented deviations): scf.while values do not take part in propagation;
reshape inference beyond Triton's legacy blocked rule (its linear layout fallback).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.ir.dialects import ttg
from layoutkit.layouts.triton import BlockedEncoding
from layoutkit.triton.coalesce import require_ttgir
from layoutkit.triton.convert_canonicalization import canonicalize_converts
from layoutkit.triton.layout_rules import (
    after_value,
    ancestor_in,
    element_bits,
    encoding_of,
    erase_op,
    infer_dst,
    infer_src,
    insert_convert,
    int_property,
    is_anchor,
    is_encoded_tensor,
    is_expensive_load_or_store,
    is_mma,
    is_splat_constant,
    location_of,
    properly_dominates,
    same_encoding,
    set_encoding,
    with_layout,
)

#: ops whose result a convert folds into (canFoldIntoConversion; splat constants only)
_FOLDABLE = ("tt.splat", "tt.make_range", "arith.constant", "tt.histogram", "ttg.local_load", "ttg.convert_layout")
#: arith/math ops Triton prices at 8 (isExpensiveMathOp)
_EXPENSIVE_MATH = frozenset("""arith.divf math.erfc math.sinh math.cosh math.tanh math.asinh math.acosh math.atanh
math.ctpop math.ctlz math.cttz math.exp math.exp2 math.expm1 math.log math.log2 math.log10 math.log1p math.sin
math.cos math.tan math.asin math.acos math.atan math.atan2 math.powf math.sqrt math.rsqrt math.erf
math.cbrt""".split())


# -- 1. forward propagation ---------------------------------------------------------------------

class LayoutPropagation:
    """Triton's LayoutPropagation for one ``tt.func``."""

    def __init__(self, func: Operation):
        self.func = func
        self.layouts: dict[SSAValue, list[Any]] = {}
        self.mapping: dict[tuple[SSAValue, Any], SSAValue] = {}
        self.to_delete: list[Operation] = []

    def run(self) -> None:
        self.init_anchors()
        self.propagate()
        self.resolve_conflicts()
        self.rewrite_region(self.func.body)

    def init_anchors(self) -> None:
        for arg in self.func.body.blocks.first.args:
            if is_encoded_tensor(arg):
                self.layouts.setdefault(arg, [encoding_of(arg)])
        for op in self.func.walk():
            if is_anchor(op):
                for r in op.results:
                    if is_encoded_tensor(r):
                        self.layouts.setdefault(r, [encoding_of(r)])

    def set_encoding(self, values, info: list[Any], changed: list, op: Operation) -> None:
        for value in values:
            if not is_encoded_tensor(value):
                continue
            grew = False
            for layout in info:
                dst = layout if op.name == "ttg.convert_layout" else infer_dst(op, layout)
                if dst is None:
                    continue
                known = self.layouts.setdefault(value, [])
                if dst not in known:
                    known.append(dst)
                    grew = True
            if grew:
                changed.append(value)

    def to_users(self, value: SSAValue, info: list[Any]) -> list:
        changed: list = []
        for use in list(value.uses):
            user, index = use.operation, use.index
            if isinstance(user, scf.ForOp):
                k = index - 3
                if k >= 0:
                    self.set_encoding([user.body.blocks.first.args[k + 1], user.results[k]], info, changed, user)
                continue
            if isinstance(user, scf.WhileOp):
                continue  # not modelled
            if isinstance(user, scf.YieldOp):
                parent = user.parent_op()
                if isinstance(parent, scf.ForOp):
                    self.set_encoding([parent.results[index], parent.body.blocks.first.args[index + 1]],
                                      info, changed, user)
                elif isinstance(parent, scf.IfOp):
                    self.set_encoding([parent.results[index]], info, changed, user)
                continue
            if user.name == "tt.gather":
                if not is_anchor(user) and index == 1:
                    self.set_encoding(user.results, info, changed, user)
                continue
            if same_encoding(user) or user.name in ("tt.reduce", "tt.expand_dims", "tt.reshape", "tt.trans",
                                                     "tt.join", "tt.split", "ttg.convert_layout"):
                self.set_encoding(user.results, info, changed, user)
        return changed

    def propagate(self) -> None:
        queue = list(self.layouts)
        while queue:
            value = queue.pop()
            queue.extend(self.to_users(value, list(self.layouts[value])))

    def resolve_conflicts(self) -> None:
        for value, info in self.layouts.items():
            if len(info) <= 1:
                continue
            op = value.owner if isinstance(value.owner, Operation) else None
            memory = op is not None and op.name in ("tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas")
            chosen = info[0]
            for layout in info:
                if (memory and isinstance(layout, BlockedEncoding)) or (not memory and is_mma(layout)):
                    chosen = layout
                    break
            info[:] = [chosen]

    # -- rewrite -----------------------------------------------------------------------------
    def value_as(self, value: SSAValue, layout: Any) -> SSAValue:
        if not is_encoded_tensor(value):
            return value
        info = self.layouts.get(value)
        if info is None or info[0] == encoding_of(value):
            current = value
        else:
            current = self.mapping[(value, info[0])]
        if encoding_of(current) == layout:
            return current
        return insert_convert(current, layout, after_value(current), location_of(value))

    def map(self, old: SSAValue, new: SSAValue) -> None:
        self.mapping[(old, encoding_of(new))] = new

    def rewrite_region(self, region: Region) -> None:
        queue = [region]
        while queue:
            current = queue.pop(0)
            for block in current.blocks:
                for op in list(block.ops):
                    need = any(r in self.layouts and self.layouts[r][0] != encoding_of(r) for r in op.results)
                    if need:
                        new = self.rewrite_op(op)
                        queue.extend(new.regions)
                    elif isinstance(op, scf.YieldOp):
                        self.rewrite_yield(op)
                    elif op.name == "tt.reduce" and not any(isinstance(r.type, TensorType) for r in op.results):
                        self.rewrite_reduce_to_scalar(op)
                    elif op.name == "tt.assert":
                        if op.operands and op.operands[0] in self.layouts:
                            v = op.operands[0]
                            op.operands[0] = self.value_as(v, self.layouts[v][0])
                    else:
                        for i, operand in enumerate(op.operands):
                            if operand in self.layouts and is_encoded_tensor(operand):
                                op.operands[i] = self.value_as(operand, encoding_of(operand))
                        queue.extend(op.regions)
        for op in reversed(self.to_delete):
            erase_op(op)

    def rewrite_yield(self, op: Operation) -> None:
        parent = op.parent_op()
        for i, operand in enumerate(op.operands):
            t = operand.type
            if isinstance(parent, scf.ForOp | scf.IfOp):
                t = parent.results[i].type
            if isinstance(t, TensorType) and hasattr(t.encoding, "layout"):
                op.operands[i] = self.value_as(operand, t.encoding.layout)

    def rewrite_reduce_to_scalar(self, op: Operation) -> None:
        layout = next((self.layouts[v][0] for v in op.operands if v in self.layouts), None)
        if layout is None:
            return
        for i, operand in enumerate(op.operands):
            op.operands[i] = self.value_as(operand, layout)

    def rewrite_op(self, op: Operation) -> Operation:
        self.to_delete.append(op)
        if isinstance(op, scf.ForOp):
            return self.rewrite_for(op)
        if isinstance(op, scf.IfOp):
            return self.rewrite_if(op)
        layout = self.layouts[op.results[0]][0]
        where = InsertPoint.before(op)
        if op.name == "ttg.convert_layout":
            src = op.operands[0]
            src_layout = self.layouts[src][0] if src in self.layouts else encoding_of(src)
            value = self.value_as(src, src_layout)
            new = ttg.ConvertLayoutOp.build(operands=[value], result_types=[with_layout(op.results[0].type, layout)])
            new.location = op.location
            Rewriter.insert_op(new, where)
            self.map(op.results[0], new.results[0])
            return new
        if op.name in _FOLDABLE and (op.name != "arith.constant" or is_splat_constant(op)):
            clone = op.clone()
            Rewriter.insert_op(clone, where)
            new = ttg.ConvertLayoutOp.build(operands=[clone.results[0]],
                                            result_types=[with_layout(op.results[0].type, layout)])
            new.location = op.location
            Rewriter.insert_op(new, where)
            self.map(op.results[0], new.results[0])
            return new
        clone = op.clone()
        Rewriter.insert_op(clone, where)
        src = infer_src(op, layout) if op.operands else None
        for i, operand in enumerate(op.operands):
            clone.operands[i] = self.value_as(operand, src)
        for old, res in zip(op.results, clone.results):
            if is_encoded_tensor(old):
                set_encoding(res, layout)
            if res.type == old.type:
                old.replace_all_uses_with(res)
            else:
                self.map(old, res)
        return clone

    def rewrite_for(self, op: scf.ForOp) -> Operation:
        inits = []
        for operand, result in zip(op.iter_args, op.results):
            inits.append(self.value_as(operand, self.layouts[result][0]) if result in self.layouts else operand)
        old_block = op.body.blocks.first
        block = Block(arg_types=[old_block.args[0].type, *(v.type for v in inits)])
        for inner in list(old_block.ops):
            inner.detach()
            block.add_op(inner)
        new = scf.ForOp(op.lb, op.ub, op.step, inits, Region([block]))
        new.attributes.update(op.attributes)
        new.location = op.location
        Rewriter.insert_op(new, InsertPoint.before(op))
        self._remap(op.results, new.results)
        self._remap(old_block.args, block.args)
        return new

    def rewrite_if(self, op: scf.IfOp) -> Operation:
        types = [(with_layout(r.type, self.layouts[r][0]) if r in self.layouts else r.type) for r in op.results]
        then_region, else_region = op.true_region, op.false_region
        op.detach_region(then_region)
        op.detach_region(else_region)
        new = scf.IfOp(op.cond, types, then_region, else_region)
        new.attributes.update(op.attributes)
        new.location = op.location
        Rewriter.insert_op(new, InsertPoint.before(op))
        self._remap(op.results, new.results)
        return new

    def _remap(self, olds, news) -> None:
        for old, new in zip(olds, news):
            if old.type == new.type:
                old.replace_all_uses_with(new)
            else:
                self.map(old, new)


# -- 3. backward rematerialization -----------------------------------------------------------

def _bytes(value: SSAValue, min_elements: int = 0, min_bits: int = 0) -> int:
    t = value.type
    elements, bits = 0, 0
    if isinstance(t, TensorType):
        elements = 1
        for d in t.get_shape():
            elements *= int(d)
        element = t.element_type
        if hasattr(element, "width") or hasattr(element, "bitwidth"):
            bits = element_bits(element)
    return (max(elements, min_elements) * max(bits, min_bits)) >> 3


def reorders_registers(src: Any, dst: Any, shape: tuple[int, ...]) -> bool:
    """Triton's cvtReordersRegisters: the conversion only moves values between registers.

    Two encodings that are the same function on ``shape`` move nothing, also when lanes or
    warps hold copies (Triton's invertAndCompose maps the broadcast bases both sides share to
    themselves; a plain pseudo-inverse would send them to zero and see a warp exchange)."""
    if src == dst or _equal_functions(src, dst, shape):
        return True
    try:
        a, b = src.to_linear_layout(shape), dst.to_linear_layout(shape)
        comp = b.invert_and_compose(a)
    except Exception:  # noqa: BLE001 - a layout without a linear form: priced as shared memory
        return False
    for dim in ("block", "warp", "lane", "register"):
        if not (a.has_in_dim(dim) and b.has_in_dim(dim)):
            continue
        q = comp.quotient([dim])
        if q is None:
            break
        comp = q
    return all(d == "register" for d in comp.out_dim_names)


def triton_convert_cost(src: SSAValue, layout: Any) -> int:
    """Triton's getConvertCost."""
    shape = tuple(int(d) for d in src.type.get_shape())
    if reorders_registers(encoding_of(src), layout, shape):
        return 0
    return 32 * _bytes(src, 32, 32)


def _reduce_cost(op: Operation) -> int:
    layout = encoding_of(op.operands[0])
    axis = int_property(op, "axis")
    shape = [int(d) for d in op.operands[0].type.get_shape()]
    if not isinstance(layout, BlockedEncoding):
        return 0
    per_lane = max(1, shape[axis] // layout.size_per_thread[axis])
    intra = min(per_lane, layout.threads_per_warp[axis])
    inter = min(max(1, per_lane // layout.threads_per_warp[axis]), layout.warps_per_cta[axis])
    return intra + 8 * inter


class Rematerialization:
    """Triton's LayoutRematerialization for one ``tt.func``."""

    def __init__(self, func: Operation):
        self.func = func
        self.remat: dict[tuple[SSAValue, Any], SSAValue] = {}
        self.to_delete: list[Operation] = []

    def add(self, old: SSAValue, layout: Any, new: SSAValue) -> None:
        self.remat[(old, layout)] = new

    def converts(self) -> list[Operation]:
        return [op for op in self.func.walk() if op.name == "ttg.convert_layout"]

    def cleanup(self) -> None:
        for op in reversed(self.to_delete):
            if op.parent is not None:
                erase_op(op)
        self.to_delete.clear()

    def backward_slice(self, value: SSAValue, user: Operation, layout: Any, stop=None):
        """Triton's getConvertBackwardSlice: (slice values in order, their layouts) or None."""
        seen: set = set()
        queue: list[tuple[SSAValue, Operation, Any]] = []
        order: list[SSAValue] = []
        layouts: dict[SSAValue, Any] = {}
        reused: dict[SSAValue, SSAValue] = {}

        def enqueue(v, u, enc):
            key = (v, id(u), enc)
            if key not in seen:
                seen.add(key)
                queue.append((v, u, enc))

        def update(v, enc) -> bool:
            if v not in layouts:
                order.append(v)
                layouts[v] = enc
                return True
            return layouts[v] == enc

        enqueue(value, user, layout)
        while queue:
            current, use_op, enc = queue.pop()
            if not isinstance(current.type, TensorType):
                continue
            if isinstance(current.owner, scf.ForOp):
                return None
            if not update(current, enc):
                return None
            existing = self.remat.get((current, enc))
            if existing is not None and properly_dominates(existing, use_op):
                reused.setdefault(current, existing)
                if not update(existing, enc):
                    return None
                current = existing
            definer = current.owner
            if isinstance(definer, scf.IfOp):
                if stop is not None and stop(definer):
                    continue
                for region in (definer.true_region, definer.false_region):
                    terminator = region.blocks.first.last_op
                    enqueue(terminator.operands[current.index], terminator, enc)
                continue
            if isinstance(definer, Operation):
                for r in definer.results:
                    if r is not current and isinstance(r.type, TensorType) and not update(r, enc):
                        return None
                if _free_convert(definer):
                    enqueue(definer.operands[0], definer, enc)
                    continue
                if _can_fold(definer, enc):
                    continue
                if stop is not None and stop(definer):
                    continue
                if definer.name == "tt.cat":
                    return None
                if definer.name == "tt.gather":
                    src = infer_src(definer, enc)
                    if src is None:
                        return None
                    enqueue(definer.operands[1], definer, src)
                    continue
                for operand in definer.operands:
                    src = infer_src(definer, enc)
                    if src is None:
                        return None
                    if is_encoded_tensor(operand) and (encoding_of(operand) == src or definer.name == "tt.broadcast"
                                                       and _same_on_shape(encoding_of(operand), src, operand)):
                        continue
                    enqueue(operand, definer, src)
                continue
            block = current.block
            parent = block.parent_op()
            if isinstance(parent, scf.ForOp) and current.index > 0:
                k = current.index - 1
                enqueue(parent.iter_args[k], parent, enc)
                yield_op = block.last_op
                enqueue(yield_op.operands[k], yield_op, enc)
                continue
            return None
        return order, layouts, reused

    def rematerializable(self, value, user, layout, stop=None):
        found = self.backward_slice(value, user, layout, stop)
        if found is None or not found[0]:
            return None
        for v in found[0]:
            if v not in found[2] and isinstance(v.owner, Operation) and not _can_be_remat(v.owner):
                return None
        return found

    def beneficial(self, cvt: Operation, values: list[SSAValue], new_cost: int) -> bool:
        ops = []
        for v in values:
            if isinstance(v.owner, Operation) and v.owner not in ops:
                ops.append(v.owner)
        outside: list[SSAValue] = []
        in_slice = set(values)
        for v in values:
            if any(u.operation is not cvt and u.operation not in ops for u in v.uses):
                outside.append(v)
        i = 0
        while i < len(outside):
            definer = outside[i].owner
            if isinstance(definer, Operation):
                for operand in definer.operands:
                    if operand in in_slice and operand not in outside:
                        outside.append(operand)
            i += 1
        outside_set = set(outside)
        convert = triton_convert_cost(cvt.operands[0], encoding_of(cvt.results[0]))
        remat = new_cost
        for op in ops:
            if not any(r in outside_set for r in op.results):
                continue
            if op.name == "arith.constant":
                continue
            if op.name in ("tt.load", "ttg.local_load"):
                remat += sum(8 * _bytes(r) for r in op.results)
            elif op.name.startswith(("arith.", "math.")):
                remat += sum((8 if op.name in _EXPENSIVE_MATH else 1) * _bytes(r) for r in op.results)
            elif op.name == "tt.reduce":
                remat += _reduce_cost(op)
        return convert >= remat

    def each_convert(self, rewrite) -> None:
        """``rewrite(cvt)`` on every convert in turn; one it leaves (False) is recorded as a
        layout its operand can take, for the rewrites after it."""
        for cvt in self.converts():
            if not rewrite(cvt):
                self.add(cvt.operands[0], encoding_of(cvt.results[0]), cvt.results[0])

    def backward(self) -> None:
        self.each_convert(self.backward_one)

    def backward_one(self, cvt: Operation) -> bool:
        from layoutkit.layouts.triton import DotOperandEncoding

        layout = encoding_of(cvt.results[0])
        if isinstance(layout, DotOperandEncoding) and _in_for(cvt):
            return False
        src = cvt.operands[0]
        existing = self.remat.get((src, layout))
        if existing is not None and properly_dominates(existing, cvt):
            cvt.results[0].replace_all_uses_with(existing)
            cvt.detach()
            cvt.erase()
            return True
        found = self.rematerializable(src, cvt, layout)
        if found is None or not self.beneficial(cvt, found[0], 0):
            return False
        self.rewrite_slice(found, cvt, {})
        return True

    def rewrite_slice(self, found, cvt: Operation, mapping: dict) -> None:
        """Triton's rewriteSlice: every op of the slice cloned (before itself) in its slice
        layout; a loop-carried value gets a new iteration argument (appended) and yield operand;
        the convert's uses take the rematerialized source."""
        values, layouts, reused = found
        ops: list[Operation] = []
        yields: dict[int, list[int]] = {}
        for v in values:
            if v in reused:
                mapping[v] = reused[v]
                continue
            if isinstance(v.owner, Operation):
                if v.owner not in ops:
                    ops.append(v.owner)
                if isinstance(v.owner, scf.IfOp):
                    for region in (v.owner.true_region, v.owner.false_region):
                        terminator = region.blocks.first.last_op
                        if terminator not in ops:
                            ops.append(terminator)
                        yields.setdefault(id(terminator), []).append(v.index)
                continue
            loop = v.block.parent_op()
            if loop not in ops:
                ops.append(loop)
            terminator = v.block.last_op
            if terminator not in ops:
                ops.append(terminator)
            yields.setdefault(id(terminator), []).append(v.index - 1)
        ops.sort(key=_position)
        replacements: list[tuple[SSAValue, SSAValue]] = []
        dead: list[Operation] = []
        in_slice = set(values)
        for op in ops:
            if isinstance(op, scf.ForOp):
                self._rewrite_for(op, in_slice, layouts, mapping, replacements, dead)
                continue
            if isinstance(op, scf.IfOp):
                self._rewrite_if(op, in_slice, layouts, mapping, replacements, dead)
                continue
            where = InsertPoint.before(op)
            if isinstance(op, scf.YieldOp):
                extra = [mapping.get(op.operands[k], op.operands[k]) for k in sorted(yields.get(id(op), []))]
                new = scf.YieldOp(*op.operands, *extra)
                Rewriter.insert_op(new, where)
                op.detach()
                op.erase()
                continue
            if op.name == "arith.constant":
                clone = op.clone()
                Rewriter.insert_op(clone, where)
                value = insert_convert(clone.results[0], layouts[op.results[0]], where, op.location)
                mapping[op.results[0]] = value
                self.add(op.results[0], layouts[op.results[0]], value)
                continue
            clone = op.clone()
            for i, operand in enumerate(op.operands):
                clone.operands[i] = mapping.get(operand, operand)
            Rewriter.insert_op(clone, where)
            for old, new in zip(op.results, clone.results):
                if old in layouts:
                    set_encoding(new, layouts[old])
                    self.add(old, layouts[old], new)
                mapping[old] = new
        cvt.results[0].replace_all_uses_with(mapping.get(cvt.operands[0], cvt.operands[0]))
        for old, new in replacements:  # updateRematMapping, then the delayed replaceAllUsesWith
            for key in [key for key in self.remat if key[0] is old]:
                self.remat[(new, key[1])] = self.remat.pop(key)
            old.replace_all_uses_with(new)
        self.to_delete.append(cvt)
        self.to_delete.extend(dead)

    def _rewrite_for(self, loop: scf.ForOp, in_slice: set, layouts: dict, mapping: dict,
                     replacements: list, dead: list) -> None:
        """replaceForOpWithNewSignature: the loop again, its body moved, one more iteration
        argument per loop-carried slice value (initialised with the rematerialized init)."""
        block = loop.body.blocks.first
        carried = [arg for arg in block.args[1:] if arg in in_slice]
        inits = [mapping.get(loop.iter_args[arg.index - 1], loop.iter_args[arg.index - 1]) for arg in carried]
        count = len(loop.iter_args)
        region = loop.detach_region(loop.body)
        new_args = [block.insert_arg(with_layout(arg.type, layouts[arg]), len(block.args)) for arg in carried]
        new = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *inits], region)
        new.attributes.update(loop.attributes)
        new.location = loop.location
        Rewriter.insert_op(new, InsertPoint.before(loop))
        for old, res in zip(loop.results, new.results):
            replacements.append((old, res))
        dead.append(loop)
        for i, (arg, new_arg) in enumerate(zip(carried, new_args)):
            k = arg.index - 1
            extra = new.results[count + i]
            mapping[loop.results[k]] = extra
            mapping[arg] = new_arg
            self.add(new.results[k], layouts[arg], extra)
            self.add(arg, layouts[arg], new_arg)

    def _rewrite_if(self, op: scf.IfOp, in_slice: set, layouts: dict, mapping: dict,
                    replacements: list, dead: list) -> None:
        """replaceIfOpWithNewSignature: the if again with one more result per slice result
        (its branches moved; their yields get the rematerialized values)."""
        extra = [r for r in op.results if r in in_slice]
        types = [*(r.type for r in op.results), *(with_layout(r.type, layouts[r]) for r in extra)]
        then_region, else_region = op.true_region, op.false_region
        op.detach_region(then_region)
        op.detach_region(else_region)
        new = scf.IfOp(op.cond, types, then_region, else_region)
        new.attributes.update(op.attributes)
        new.location = op.location
        Rewriter.insert_op(new, InsertPoint.before(op))
        for old, res in zip(op.results, new.results):
            replacements.append((old, res))
        for i, old in enumerate(extra):
            res = new.results[len(op.results) + i]
            mapping[old] = res
            self.add(old, layouts[old], res)
        dead.append(op)

    def hoist_into_conditionals(self) -> None:
        self.each_convert(self.hoist_into_conditional)

    def hoist_into_conditional(self, cvt: Operation) -> bool:
        """Triton's hoistConvertIntoConditionals: when the slice reaches an ``scf.if`` (inside an
        ``scf.for``) whose one branch can be rematerialized and the other not, the convert moves
        into the other branch (before its yield); an if neither branch of which can be is a
        terminal (the convert goes right after it)."""
        def is_if(op: Operation) -> bool:
            return isinstance(op, scf.IfOp)

        found = self.rematerializable(cvt.operands[0], cvt, encoding_of(cvt.results[0]), is_if)
        if found is None:
            return False
        values, layouts, reused = found
        hoist_above: list[tuple[SSAValue, Operation, int]] = []
        terminals: list[SSAValue] = []
        i = 0
        while i < len(values):
            v = values[i]
            i += 1
            if not isinstance(v.owner, scf.IfOp):
                continue
            branch = v.owner
            yields = [region.blocks.first.last_op for region in (branch.true_region, branch.false_region)]
            subs = [self.rematerializable(y.operands[v.index], y, layouts[v], is_if) for y in yields]
            if all(sub is not None for sub in subs) or (subs[0] is not None) != (subs[1] is not None) and \
                    isinstance(branch.parent_op(), scf.ForOp):
                for k, sub in enumerate(subs):
                    if sub is None:
                        hoist_above.append((v, yields[k], v.index))
                        continue
                    for w in sub[0]:
                        if w not in layouts:
                            values.append(w)
                            layouts[w] = sub[1][w]
                    for w, r in sub[2].items():
                        reused.setdefault(w, r)
                continue
            terminals.append(v)
        if not hoist_above:
            return False
        mapping: dict[SSAValue, SSAValue] = {}
        for v in terminals:
            mapping[v] = insert_convert(v, layouts[v], InsertPoint.after(v.owner), cvt.location)
            values.remove(v)
        for result, terminator, k in hoist_above:
            edge = terminator.operands[k]
            mapping[edge] = insert_convert(edge, layouts[result], InsertPoint.before(terminator), cvt.location)
            if edge in values:
                values.remove(edge)
        self.rewrite_slice((values, layouts, reused), cvt, mapping)
        return True

    def hoist_dot_operands(self) -> None:
        self.each_convert(self.hoist_dot_operand)

    def hoist_dot_operand(self, cvt: Operation) -> bool:
        """Triton's hoistConvertDotOperand: a convert an mma dot after it in its region depends
        on moves up to the loads of its slice, through ops that move no data between threads
        (element-wise, broadcast, views, converts): each load gets a convert after it and the
        rest is recomputed in the target's layouts (so the loads can be pipelined)."""
        if not _before_mma_dot(cvt):
            return False
        found = self.backward_slice(cvt.operands[0], cvt, encoding_of(cvt.results[0]),
                                    lambda op: not _no_data_movement(op))
        if found is None or not found[0]:
            return False
        values, layouts, reused = found
        mapping: dict[SSAValue, SSAValue] = {}
        inner: list[SSAValue] = []
        for v in values:
            definer = v.owner
            if not isinstance(definer, Operation):
                return False
            if definer.name != "tt.load":
                if definer.name == "arith.constant" or _no_data_movement(definer):
                    inner.append(v)
                    continue
                return False
            mapping[v] = insert_convert(v, layouts[v], InsertPoint.after(definer), cvt.location)
        if not inner:
            for value in mapping.values():
                erase_op(value.owner)
            return False
        self.rewrite_slice((inner, layouts, reused), cvt, mapping)
        return True

    def hoist_over_ext_or_broadcast(self) -> None:
        self.each_convert(self.hoist_one)

    def hoist_one(self, cvt: Operation) -> bool:
        from layoutkit.layouts.triton import DotOperandEncoding

        layout = encoding_of(cvt.results[0])
        if isinstance(layout, DotOperandEncoding):
            return False
        found = self.rematerializable(cvt.operands[0], cvt, layout, _is_ext_or_broadcast)
        if found is None:
            return False
        values, layouts, reused = found
        ext = None
        i = 0
        while i < len(values):
            v = values[i]
            op = v.owner
            i += 1
            if not isinstance(op, Operation) or not _is_ext_or_broadcast(op):
                continue
            src = infer_src(op, layouts[v])
            if src is None:
                return False
            sub = self.rematerializable(op.operands[0], op, src)
            if sub is not None:
                for w in sub[0]:
                    if w not in layouts:
                        values.append(w)
                        layouts[w] = sub[1][w]
                for w, r in sub[2].items():
                    reused.setdefault(w, r)
                continue
            if ext is not None:
                return False
            ext = op
        if ext is None:
            return False
        dst = layouts[ext.results[0]]
        src = infer_src(ext, dst)
        if src is None:
            return False
        where = InsertPoint.before(ext)
        moved = insert_convert(ext.operands[0], src, where, cvt.location)
        clone = ext.clone()
        clone.operands[0] = moved
        Rewriter.insert_op(clone, where)
        set_encoding(clone.results[0], dst)
        values.remove(ext.results[0])
        self.rewrite_slice((values, layouts, reused), cvt, {ext.results[0]: clone.results[0]})
        return True


def _position(op: Operation) -> tuple[int, ...]:
    path = []
    while op is not None and op.parent_block() is not None:
        path.append(op.parent_block().get_operation_index(op))
        op = op.parent_op()
    return tuple(reversed(path))


def _in_for(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            return True
        parent = parent.parent_op()
    return False


def _equal_functions(layout: Any, other: Any, shape: tuple[int, ...]) -> bool:
    """The two encodings are the same function on ``shape`` (Triton compares linear layouts)."""
    from layoutkit.core.protocol import equivalent

    if layout == other:
        return True
    try:
        return equivalent(layout, other, shape)
    except Exception:  # noqa: BLE001 - an encoding without a function form is compared as parameters
        return False


def _same_on_shape(layout: Any, other: Any, value: SSAValue) -> bool:
    return _equal_functions(layout, other, tuple(int(d) for d in value.type.get_shape()))


def _free_convert(op: Operation) -> bool:
    if op.name != "ttg.convert_layout":
        return False
    shape = tuple(int(d) for d in op.operands[0].type.get_shape())
    return reorders_registers(encoding_of(op.operands[0]), encoding_of(op.results[0]), shape)


def _can_fold(op: Operation, layout: Any) -> bool:
    """Triton's canFoldIntoConversion."""
    if op.name == "ttg.convert_layout":
        from layoutkit.layouts.triton.mma import NvidiaMmaEncoding

        return not (isinstance(layout, NvidiaMmaEncoding) and encoding_of(op.operands[0]) != layout)
    if op.name == "tt.reshape":
        return bool(op.properties.get("allow_reorder")) and not op.properties.get("efficient_layout")
    if op.name == "arith.constant":
        return is_splat_constant(op)
    return op.name in _FOLDABLE


def _can_be_remat(op: Operation) -> bool:
    if op.name in ("tt.load", "tt.store"):
        return not is_expensive_load_or_store(op)
    if op.name in ("tt.atomic_rmw", "tt.atomic_cas", "tt.dot"):
        return False
    if op.name == "tt.gather":
        return not is_anchor(op)
    return not isinstance(op, scf.WhileOp | scf.ConditionOp)


def _no_data_movement(op: Operation) -> bool:
    """Element-wise and memory-effect free, a broadcast, a convert, or a view."""
    return (same_encoding(op) and op.name not in ("tt.broadcast", "tt.scan")) or op.name in (
        "tt.broadcast", "ttg.fp4_to_fp", "ttg.convert_layout", "tt.expand_dims", "tt.reshape", "tt.trans", "tt.join",
        "tt.split")


def _before_mma_dot(cvt: Operation) -> bool:
    """An mma dot of ``cvt``'s parent op (operand A in a ``#ttg.dot_op`` of an mma) post-dominates it."""
    from layoutkit.layouts.triton import DotOperandEncoding

    parent = cvt.parent_op()
    if parent is None:
        return False
    for op in parent.walk():
        if op.name not in ("tt.dot", "tt.dot_scaled", "ttng.warp_group_dot") or not is_encoded_tensor(op.operands[0]):
            continue
        layout = encoding_of(op.operands[0])
        if not (isinstance(layout, DotOperandEncoding) and is_mma(layout.parent)):
            continue
        block = op.parent_block()
        anchor = ancestor_in(cvt, block)
        if anchor is not None and anchor is not op and \
                block.get_operation_index(anchor) < block.get_operation_index(op):
            return True
    return False


def _is_ext_or_broadcast(op: Operation) -> bool:
    if op.name in ("arith.extsi", "arith.extui", "arith.extf", "tt.broadcast", "tt.expand_dims"):
        return True
    if op.name == "tt.fp_to_fp":
        return element_bits(op.operands[0].type.element_type) < element_bits(op.results[0].type.element_type)
    return False


# -- the pass -----------------------------------------------------------------------------------

def remove_layout_conversions(module: ModuleOp) -> None:
    funcs = [op for op in module.walk() if op.name == "tt.func" and op.regions and op.body.blocks]
    for func in funcs:
        LayoutPropagation(func).run()
    for func in funcs:
        canonicalize_converts(func)
        remat = Rematerialization(func)
        remat.backward()
        remat.cleanup()
        canonicalize_converts(func)
        hoist = Rematerialization(func)
        hoist.hoist_over_ext_or_broadcast()
        hoist.cleanup()
        hoist = Rematerialization(func)
        hoist.hoist_into_conditionals()
        hoist.cleanup()
        hoist = Rematerialization(func)
        hoist.hoist_dot_operands()
        hoist.cleanup()
        canonicalize_converts(func, loops=True)


@dataclass(frozen=True)
class TritonGPURemoveLayoutConversionsPass(ModulePass):
    """Triton 3.9's ``tritongpu-remove-layout-conversions`` (cost-model=triton)."""

    name = "tritongpu-remove-layout-conversions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_ttgir(op, self.name)
        remove_layout_conversions(op)


__all__ = ["LayoutPropagation", "Rematerialization", "TritonGPURemoveLayoutConversionsPass", "triton_convert_cost",
           "remove_layout_conversions"]
