"""What the tile-and-distribute passes ask of a structured ``linalg`` op: its loops, the
size of each loop, and the mapping attributes of ``scf.forall``.

A structured op (``linalg.generic``, ``linalg.matmul``, ``linalg.fill``...) is a loop nest:
one loop per dimension of its indexing maps, each ``parallel`` or ``reduction``. Example:
``linalg.matmul`` of 32x24 by 24x16 has maps ``(d0, d1, d2) -> (d0, d2)``, ``(d2, d1)``,
``(d0, d1)`` and loops d0 < 32, d1 < 16 (parallel), d2 < 24 (reduction): the size of a
loop is the size of the first operand dimension its map sends that loop to.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ShapedType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr

from layoutkit.errors import LayoutError


def is_structured(op: Operation) -> bool:
    """Whether ``op`` is a structured linalg op (a loop nest with indexing maps)."""
    return isinstance(op, LinalgStructuredOperation)


def operands(op) -> list[SSAValue]:
    """The op's inputs then outputs, in the order of its indexing maps."""
    return [*op.inputs, *op.outputs]


def loop_kinds(op) -> list[str]:
    """``'parallel'`` or ``'reduction'`` for each loop of ``op``."""
    return ["parallel" if kind.data == IteratorType.PARALLEL else "reduction"
            for kind in op.get_iterator_types()]


def loop_sizes(op, size_of: Callable[[SSAValue, int], object]) -> list:
    """The size of each loop of ``op``: ``size_of(operand, dim)`` of the first operand
    dimension whose map result is exactly that loop (an int, or whatever ``size_of`` gives)."""
    maps = [m.data for m in op.get_indexing_maps()]
    sizes: list = [None] * maps[0].num_dims
    for value, amap in zip(operands(op), maps):
        for dim, expr in enumerate(amap.results):
            if isinstance(expr, AffineDimExpr) and sizes[expr.position] is None:
                sizes[expr.position] = size_of(value, dim)
    missing = [d for d, s in enumerate(sizes) if s is None]
    if missing:
        raise LayoutError(f"{op.name}: loop d{missing[0]} is no operand dimension; its size is unknown")
    return sizes


def reused_by_threads(amap, spread: list[int]) -> bool:
    """Whether threads spread over loops ``spread`` share the elements an operand read
    through ``amap`` (its map ignores one of them): a matmul's A ``(d0, d2)`` is read alike
    by every thread along d1; an elementwise input ``(d0, d1)`` by one thread each."""
    zero = amap.eval([0] * amap.num_dims, [])
    return any(amap.eval([int(i == d) for i in range(amap.num_dims)], []) == zero for d in spread)


def static_shape(value: SSAValue, what: str) -> tuple[int, ...]:
    """The static shape of a shaped ``value`` (LayoutError for a dynamic one)."""
    type_ = value.type
    if not isinstance(type_, ShapedType):
        return ()
    shape = tuple(type_.get_shape())
    if any(d < 0 for d in shape):
        raise LayoutError(f"{what}: dynamic shape {type_} is not supported yet")
    return shape


def strided_layout(type_) -> tuple[list[int], int | None]:
    """``(strides, offset)`` in elements of a memref type: its ``strided<[...], offset: n>``
    layout (offset None when ``?``), or row-major strides and offset 0 without one.
    Example: ``memref<10x15xf32, strided<[24, 1], offset: 52>>`` is ``([24, 1], 52)``."""
    from xdsl.dialects.builtin import IntAttr, StridedLayoutAttr

    layout = getattr(type_, "layout", None)
    if isinstance(layout, StridedLayoutAttr):
        strides = [s.data if isinstance(s, IntAttr) else None for s in layout.strides.data]
        if None in strides:
            raise LayoutError(f"dynamic strides in {type_} are not supported yet")
        offset = layout.offset.data if isinstance(layout.offset, IntAttr) else None
        return strides, offset
    strides, step = [], 1
    for size in reversed(type_.get_shape()):
        strides.insert(0, step)
        step *= size
    return strides, 0


def parse_attribute(text: str) -> Attribute:
    """An attribute from its MLIR text, e.g. ``[#gpu.block<y>, #gpu.block<x>]``."""
    from xdsl.parser import Parser

    from layoutkit.ir import make_context

    return Parser(make_context(), text).parse_attribute()


def mapping_kind(mapping) -> str | None:
    """``'block'``, ``'thread'``... of an ``scf.forall`` mapping (None when it has none)."""
    if mapping is None or not mapping.data:
        return None
    return str(mapping.data[0]).removeprefix("#gpu.").split("<")[0]


AXES = ("x", "y", "z")


def gpu_mapping(kind: str, rank: int):
    """``[#gpu.<kind><z>, #gpu.<kind><y>, #gpu.<kind><x>]`` for ``rank`` loops: the
    innermost loop is ``x``, as a row-major tile is walked."""
    if not 1 <= rank <= 3:
        raise LayoutError(f"{kind} mapping: {rank} loops; 1 to 3 can be mapped to GPU axes")
    axes = ", ".join(f"#gpu.{kind}<{AXES[rank - 1 - i]}>" for i in range(rank))
    return parse_attribute(f"[{axes}]")


def make_forall(upper: list[int], steps: list[int], mapping, block):
    """An ``scf.forall`` on buffers from 0 to ``upper`` by ``steps`` (static), ``block``
    its body (its arguments the induction variables; the implicit terminator is added)."""
    from xdsl.dialects.builtin import DenseArrayBase, i64
    from xdsl.ir import Block, Region

    from layoutkit.ir.dialects.upstream.scf import ForallOp, InParallelOp

    block.add_op(InParallelOp.build(regions=[Region(Block())]))
    return ForallOp(operands=[[], [], [], []], result_types=[[]],
                    properties={"static_lowerBound": DenseArrayBase.from_list(i64, [0] * len(upper)),
                                "static_upperBound": DenseArrayBase.from_list(i64, list(upper)),
                                "static_step": DenseArrayBase.from_list(i64, list(steps)),
                                "mapping": mapping},
                    regions=[Region(block)])
