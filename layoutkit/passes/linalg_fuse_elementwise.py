"""``linalg-fuse-elementwise``: producer/consumer fusion of elementwise linalg ops on tensors,
through use-def chains, into one ``linalg.generic`` with composed indexing maps.

A *producer* is an op whose loops are all parallel, with one result whose indexing map is a
permutation and whose body does not read its ``outs``: ``linalg.generic``, the named
elementwise ops (``linalg.add``, ``linalg.mul``, ``linalg.exp``...), ``linalg.broadcast``,
``linalg.transpose``, ``linalg.fill``. It is fused into each op that reads its result as an
input (``ins``): the consumer then reads the producer's inputs and computes the producer's
body in its own. A consumer may be any of these ops or a ``linalg.generic`` with reduction
loops (then the reduction reads each producer element once per iteration, as before, and
the temporary between them disappears); reductions and contractions themselves are never
producers (fusing them would recompute a whole reduction per element read).

The map of a producer input seen from the consumer's loops is composed as
``producer_input_map ∘ inverse(producer_output_map) ∘ consumer_operand_map``. Example
(seed 001's second dispatch)::

    %s = linalg.add ins(%x, %y) outs(%e0)                      // (d0, d1) -> (d0, d1)
    %b = linalg.broadcast ins(%v : tensor<15xf32>) outs(%e1) dimensions = [0]
    %r = linalg.mul ins(%s, %b) outs(%e2)

becomes one ``linalg.generic`` with ``ins(%x, %y, %v)``, maps
``(d0, d1) -> (d0, d1)``, ``(d0, d1) -> (d0, d1)``, ``(d0, d1) -> (d1)`` (the broadcast's
``(d0, d1) -> (d1)`` composed with the mul's identity) and body ``addf`` then ``mulf``.
A transpose producer with ``permutation = [1, 0]`` read through ``(d0, d1) -> (d0, d1)``
gives its input the map ``(d0, d1) -> (d1, d0)``.

A producer with several consumers is fused into each of them (its body is recomputed,
which is cheap for elementwise work and saves a temporary buffer) and erased when no use is
left; the ``tensor.empty`` it wrote into goes with it. A ``linalg.broadcast`` left unfused
is written as the ``linalg.generic`` it means (later passes read indexing maps). Last, an
elementwise consumer of a reduction (a matmul's bias + ReLU epilogue) writes in place over
the reduction's result instead of a new buffer (:func:`write_in_place`): with ``bufferize``
that needs no temporary, and the two run as two kernels. Inputs a fused op reads twice with
the same map are merged, inputs its body does not use are dropped. Fusing stops for a
consumer whose body would exceed :data:`MAX_BODY_OPS` ops.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, tensor
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, ModuleOp, ShapedType, TensorType
from xdsl.dialects.linalg import ops as linalg_ops
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from layoutkit.passes.linalg_structure import is_structured, loop_kinds

#: the largest body (in ops, the yield included) fusion builds for one consumer
MAX_BODY_OPS = 512


@dataclass
class _Generic:
    """A structured op read as a ``linalg.generic``: its operands, maps, loops and body."""

    inputs: list[SSAValue]
    outputs: list[SSAValue]
    maps: list[AffineMap]
    kinds: list[str]
    body: Block


def _element_type(value: SSAValue):
    return value.type.element_type if isinstance(value.type, ShapedType) else value.type


def as_generic(op: Operation) -> _Generic | None:
    """``op`` as a linalg.generic on tensors (None for an op fusion does not read).

    ``linalg.broadcast`` (no indexing maps in xDSL) reads its input through the map that
    drops the broadcast ``dimensions``: ``dimensions = [0]`` of a 10x15 output is
    ``(d0, d1) -> (d1)``.
    """
    if isinstance(op, linalg_ops.BroadcastOp):
        rank = len(op.init.type.get_shape())
        added = set(op.dimensions.get_values())
        kept = tuple(AffineDimExpr(d) for d in range(rank) if d not in added)
        body = Block(arg_types=[_element_type(op.input), _element_type(op.init)])
        body.add_op(linalg_ops.YieldOp(body.args[0]))
        return _Generic([op.input], [op.init], [AffineMap(rank, 0, kept), AffineMap.identity(rank)],
                        ["parallel"] * rank, body)
    if not is_structured(op) or not op.regions or not op.regions[0].blocks:
        return None
    if not all(isinstance(v.type, TensorType) for v in op.outputs):
        return None
    return _Generic(list(op.inputs), list(op.outputs), [m.data for m in op.get_indexing_maps()],
                    loop_kinds(op), op.regions[0].block)


def _is_permutation(amap: AffineMap) -> bool:
    return (len(amap.results) == amap.num_dims and amap.num_symbols == 0
            and sorted(e.position for e in amap.results if isinstance(e, AffineDimExpr))
            == list(range(amap.num_dims)))


def as_producer(op: Operation) -> _Generic | None:
    """``op`` as a fusable producer: all loops parallel, one output through a permutation
    map, its ``outs`` value not read by the body (None otherwise)."""
    generic = as_generic(op)
    if generic is None or len(generic.outputs) != 1 or "reduction" in generic.kinds:
        return None
    if not _is_permutation(generic.maps[-1]) or generic.body.args[-1].uses:
        return None
    return generic


def _fuse(consumer: _Generic, position: int, producer: _Generic) -> _Generic:
    """``consumer`` with its input ``position`` computed by ``producer``'s body."""
    through = producer.maps[-1].inverse_permutation().compose(consumer.maps[position])
    n_in = len(producer.inputs)
    inputs = [*consumer.inputs[:position], *producer.inputs, *consumer.inputs[position + 1:]]
    maps = [*consumer.maps[:position], *(m.compose(through) for m in producer.maps[:n_in]),
            *consumer.maps[position + 1:]]
    c_args = consumer.body.args
    p_args = producer.body.args
    body = Block(arg_types=[*(a.type for a in c_args[:position]), *(a.type for a in p_args[:n_in]),
                            *(a.type for a in c_args[position + 1:])])
    new = list(body.args)
    mapper: dict = dict(zip(p_args[:n_in], new[position:position + n_in]))
    mapper.update(zip(c_args[:position], new[:position]))
    mapper.update(zip(c_args[position + 1:], new[position + n_in:]))
    for op in producer.body.ops:
        if isinstance(op, linalg_ops.YieldOp):
            mapper[c_args[position]] = mapper.get(op.operands[0], op.operands[0])
        else:
            body.add_op(op.clone(value_mapper=mapper))
    for op in consumer.body.ops:
        body.add_op(op.clone(value_mapper=mapper))
    return _simplify(_Generic(inputs, consumer.outputs, maps, consumer.kinds, body))


def _simplify(generic: _Generic) -> _Generic:
    """Merge inputs read twice through the same map; drop inputs the body does not use."""
    n_in = len(generic.inputs)
    first: dict = {}
    keep = []
    for i, (value, amap) in enumerate(zip(generic.inputs, generic.maps)):
        arg = generic.body.args[i]
        key = (value, amap)
        if key in first:
            arg.replace_all_uses_with(generic.body.args[first[key]])
        elif arg.uses:
            first[key] = i
            keep.append(i)
    for i in reversed(range(n_in)):
        if i not in keep:
            generic.body.erase_arg(generic.body.args[i])
    return _Generic([generic.inputs[i] for i in keep], generic.outputs,
                    [generic.maps[i] for i in keep] + generic.maps[n_in:], generic.kinds, generic.body)


def build_generic(generic: _Generic) -> linalg_ops.GenericOp:
    """The ``linalg.generic`` op of ``generic`` (results: its tensor outputs)."""
    return linalg_ops.GenericOp(
        generic.inputs, generic.outputs, Region(generic.body),
        [AffineMapAttr(m) for m in generic.maps],
        ArrayAttr([IteratorTypeAttr.parallel() if k == "parallel" else IteratorTypeAttr.reduction()
                   for k in generic.kinds]),
        [v.type for v in generic.outputs])


def _fusable_input(op: Operation):
    """The first ``(consumer, position, producer)`` fusion at ``op``, or None."""
    consumer = as_generic(op)
    if consumer is None:
        return None
    for position, value in enumerate(consumer.inputs):
        producer_op = value.owner
        if not isinstance(producer_op, Operation) or producer_op.parent_block() is not op.parent_block():
            continue
        producer = as_producer(producer_op)
        if producer is None:
            continue
        if len(list(consumer.body.ops)) + len(list(producer.body.ops)) > MAX_BODY_OPS:
            continue
        return consumer, position, producer
    return None


def _erase_dead(block: Block) -> None:
    """Erase producers and ``tensor.empty`` ops whose results are no longer used."""
    changed = True
    while changed:
        changed = False
        for op in reversed(list(block.ops)):
            if (as_generic(op) is not None or isinstance(op, tensor.EmptyOp)) and op.results \
                    and not any(r.uses for r in op.results):
                block.erase_op(op)
                changed = True


def fuse_block(block: Block) -> int:
    """Fuse elementwise producers into their consumers in ``block``; the number of fusions.

    Each fusion replaces an input by the producer's inputs, which are defined before the
    producer: the inputs only move up the block, so the loop ends.
    """
    fusions = 0
    while True:
        found = next(((op, f) for op in block.ops if (f := _fusable_input(op)) is not None), None)
        if found is None:
            return fusions
        consumer_op, (consumer, position, producer) = found
        fused = build_generic(_fuse(consumer, position, producer))
        block.insert_op_before(fused, consumer_op)
        for old, new in zip(consumer_op.results, fused.results):
            old.replace_all_uses_with(new)
            new.name_hint = old.name_hint
        block.erase_op(consumer_op)
        _erase_dead(block)
        fusions += 1


def _in_place_position(op: Operation) -> int | None:
    """The input of elementwise ``op`` it can overwrite: the result of another linalg op
    (a reduction: no producer), used only here, read through ``op``'s output map, of the
    output's type, while ``op`` writes a fresh ``tensor.empty`` it does not read."""
    generic = as_generic(op)
    if generic is None or len(generic.outputs) != 1 or "reduction" in generic.kinds:
        return None
    out = generic.outputs[0]
    if not isinstance(out.owner, tensor.EmptyOp) or generic.body.args[-1].uses:
        return None
    for position, value in enumerate(generic.inputs):
        if (isinstance(value.owner, Operation) and as_generic(value.owner) is not None
                and value.has_one_use() and value.type == out.type
                and generic.maps[position] == generic.maps[-1]):
            return position
    return None


def write_in_place(block: Block) -> int:
    """Let each elementwise op whose input is a reduction's result write over that result
    (its ``outs`` becomes the input; the body reads it from the output argument), so that a
    matmul's epilogue needs no buffer of its own. Example::

        %c = linalg.matmul ins(%a, %b) outs(%init)
        %r = linalg.generic ins(%c, %bias) outs(%empty) { max(%c_elem + %bias_elem, 0) }

    becomes ``linalg.generic ins(%bias) outs(%c)`` whose body reads ``%c`` from its output
    argument. The number of ops rewritten."""
    count = 0
    for op in list(block.ops):
        position = _in_place_position(op)
        if position is None:
            continue
        generic = as_generic(op)
        value = generic.inputs[position]
        old_args = generic.body.args
        body = Block(arg_types=[a.type for i, a in enumerate(old_args) if i != position])
        mapper = {a: b for a, b in zip([a for i, a in enumerate(old_args) if i != position], body.args)}
        mapper[old_args[position]] = body.args[-1]
        for inner in generic.body.ops:
            body.add_op(inner.clone(value_mapper=mapper))
        keep = [i for i in range(len(generic.inputs)) if i != position]
        rewritten = build_generic(_Generic([generic.inputs[i] for i in keep], [value],
                                           [generic.maps[i] for i in keep] + generic.maps[-1:],
                                           generic.kinds, body))
        block.insert_op_before(rewritten, op)
        for old, new in zip(op.results, rewritten.results):
            old.replace_all_uses_with(new)
            new.name_hint = old.name_hint
        block.erase_op(op)
        count += 1
    _erase_dead(block)
    return count


def generalize_broadcasts(block: Block) -> None:
    """Write each ``linalg.broadcast`` left in ``block`` as the ``linalg.generic`` it means
    (later passes read structured ops through their indexing maps; xDSL's broadcast has none)."""
    for op in list(block.ops):
        if isinstance(op, linalg_ops.BroadcastOp) and isinstance(op.init.type, TensorType):
            generic = build_generic(as_generic(op))
            block.insert_op_before(generic, op)
            for old, new in zip(op.results, generic.results):
                old.replace_all_uses_with(new)
                new.name_hint = old.name_hint
            block.erase_op(op)


@dataclass(frozen=True)
class LinalgFuseElementwisePass(ModulePass):
    """Fuse elementwise/broadcast/transpose linalg producers into their consumers (tensors)."""

    name = "linalg-fuse-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.body.block.ops:
            if isinstance(function, func.FuncOp) and function.body.blocks:
                fuse_block(function.body.blocks[0])
                generalize_broadcasts(function.body.blocks[0])
                write_in_place(function.body.blocks[0])


__all__ = ["LinalgFuseElementwisePass", "as_generic", "build_generic", "fuse_block"]
