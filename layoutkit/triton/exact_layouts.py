"""``cost-model=exact``: one layout per tensor value of a TTGIR function, chosen for the whole
function by exact cost, and the ``ttg.convert_layout`` ops that remain.

Input: TTGIR as ``convert-triton-to-tritongpu`` leaves it (or any TTGIR). Its converts are
taken out (a convert is the identity on values); index math gets one copy per use and takes
whatever layout its one user wants (recomputed there, as Triton rematerializes it, priced at
:data:`INDEX_WEIGHT`); every other tensor value becomes a *variable* (the results and
iteration arguments of an ``scf.for`` share one), every ``tt.store`` too, and every use of a
value becomes a *requirement*: the layout the user wants as a function of the user's own
layout --

========================  ==================================================================
user                      wants for its operand, given its result layout ``L``
========================  ==================================================================
element-wise, load,       ``L`` (a store: its access layout)
store, broadcast, scan,
yield
``tt.expand_dims``        ``#ttg.slice<{dim = axis, parent = L}>``
``tt.reduce``             ``L.parent`` (``L`` is a slice on the reduced axis)
``tt.trans``              ``L`` permuted back (blocked ``L`` only)
``tt.dot``                ``#ttg.dot_op<{opIdx = 0/1, parent = L}>`` for a/b, ``L`` for c
``tt.join`` / ``split``   ``L`` without / with a last dim of 2 registers (:func:`join_blocked`)
``tt.cat``                ``L`` with half the registers (``cat`` may reorder)
``tt.reshape``            ``L`` read on the operand's shape (:func:`reshape_layout`)
``tt.histogram``          nothing (it counts every element)
any other op              what it wanted in the input (its layouts stay)
========================  ==================================================================

Candidates per variable: its input layout; the anchors -- each global load/store's coalesced
blocked layouts from the pointers' axis info (Triton's rule: ``sizePerThread`` the vector
width along the most contiguous dim, order by contiguity; a half-vector variant; a per-thread
2-D tile that serves a transposed access too; the rule with lanes moved off the contiguous
dim, :func:`_lanes_moved`), each ``tt.dot``'s ``#ttg.nvidia_mma`` v2 layouts (every warp
split that fits; on cuda:90 also Triton's v3 choice, operands as :class:`SharedOperand`; on
hip:gfx942 Triton's ``#ttg.amd_mfma`` choice and its other warp splits instead), a reduction's
operand with the reduced axis in registers
(:func:`lift_blocked`) -- and whatever the requirements carry between neighbours, at most
:data:`MAX_CANDIDATES` each; a store's variable also gets, from each non-blocked candidate,
the layouts one register exchange away (:func:`drop_replicas`, :func:`widen_vector`).

Costs, in SM issue cycles per warp-instruction (the weights and their sources are at
:data:`ELEMENTWISE_WEIGHT`): a requirement its producer does not meet costs its conversion
(:func:`convert_cost`: instructions + shared wavefronts, ``layoutkit analyze``'s measure, or
Triton's ``local_alloc`` + ``local_load`` route to a dot operand when cheaper); a global
access of a tensor with an element per thread or more is a constraint -- only the candidates
with the fewest instructions and excess sectors stay (:meth:`ExactLayouts.constrain_accesses`)
-- and a smaller (replicated) one costs :data:`BROADCAST_ACCESS_WEIGHT` per instruction and
excess sector; an element-wise op costs :func:`op_weight` per register of its result (a
layout that replicates a value makes every thread holding it compute it: triton issue
10987); a dot costs its instructions (FMA per element and k, or one ``mma.sync`` per 16x8x16
tile). :mod:`layoutkit.convert.assignment` finds the cheapest assignment (HiGHS ILP; exact DP
on chains/trees; a documented descent fallback).

Example::

    layoutkit opt k.ttir --triton-gpu-pipeline="target=cuda:80 num-warps=4 cost-model=exact" --explain
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from layoutkit.analysis import axis_info as ax
from layoutkit.analysis.access import registers_per_thread
from layoutkit.analysis.hardware import element_bytes
from layoutkit.convert import conversion_cost
from layoutkit.convert.assignment import AssignmentProblem, solve
from layoutkit.errors import LayoutError
from layoutkit.ir.dialects import ttg
from layoutkit.ir.dialects.layouts import LayoutAttr
from layoutkit.layouts.triton import BlockedEncoding, DotOperandEncoding, SliceEncoding
from layoutkit.layouts.triton.amd import AmdMfmaEncoding
from layoutkit.layouts.triton.default import default_blocked_encoding
from layoutkit.layouts.triton.linear import LinearEncoding
from layoutkit.layouts.triton.mma import NvidiaMmaEncoding

#: the origin of a value's own layout in the input
INPUT = "the input's layout"
#: candidates kept per variable
MAX_CANDIDATES = 12
#: candidates per variable that are the same map under different names (an equal name on
#: both sides of a use saves a no-op convert)
SAME_MAP = 3
#: what any convert op costs beyond its planner cost (one op more; keeps equal layouts equal)
CONVERT_OP = 0.01
#: Relative weights, in SM issue cycles per warp-instruction on sm_80 (CUDA C++ Programming
#: Guide, "Arithmetic Instructions" throughput table for compute capability 8.0: 64 results
#: per clock per SM for 32-bit float add/mul/fma and integer add/compare/logic, 16 for the
#: special-function unit -- reciprocal, exp2, log2, sin, cos, rsqrt; 32 for warp shuffles;
#: shared memory serves one 32-bank wavefront per clock). A conversion's instructions
#: (shuffles, shared stores and loads) and wavefronts cost 1 each -- ``layoutkit analyze``'s
#: measure -- so an ordinary element-wise instruction costs half of that per register of its
#: result, a special-function one 2. Global accesses are not weighed against these at all:
#: their widths and sectors are a constraint (:meth:`ExactLayouts.constrain_accesses`).
ELEMENTWISE_WEIGHT = 0.5
#: a global access of a tensor smaller than the block (replicated whatever its layout: its
#: lanes read the same sectors), per instruction and sector above the minimum: one issue
#: through the load/store unit (a warp-instruction per clock per SM, like a shuffle) and one
#: L1 wavefront serving the broadcast
BROADCAST_ACCESS_WEIGHT = 2.0
#: index math (offsets, pointers, masks recomputed per use) costs this fraction of other
#: element-wise work: registers of one thread differ by constants there, which LLVM folds
#: into the immediate offsets of the memory instructions or computes once per thread
INDEX_WEIGHT = 0.1
#: special-function (MUFU) ops: 16 results per clock per SM; ``arith.divf`` lowers to
#: ``div.full.f32`` (a reciprocal and a multiply)
SPECIAL_WEIGHT = 2.0
_SPECIAL = {"math.exp": SPECIAL_WEIGHT, "math.exp2": SPECIAL_WEIGHT, "math.log": SPECIAL_WEIGHT,
            "math.log2": SPECIAL_WEIGHT, "math.sin": SPECIAL_WEIGHT, "math.cos": SPECIAL_WEIGHT,
            "math.rsqrt": SPECIAL_WEIGHT, "math.sqrt": SPECIAL_WEIGHT, "tt.approx_divf": SPECIAL_WEIGHT,
            "arith.divf": SPECIAL_WEIGHT + ELEMENTWISE_WEIGHT, "tt.precise_divf": SPECIAL_WEIGHT + 4 * ELEMENTWISE_WEIGHT,
            "tt.precise_sqrt": SPECIAL_WEIGHT + 4 * ELEMENTWISE_WEIGHT}


def op_weight(op: Any) -> float:
    """The issue cost of one element-wise instruction of ``op`` per register (see above)."""
    return _SPECIAL.get(getattr(op, "name", ""), ELEMENTWISE_WEIGHT)


#: the cost of a requirement no candidate can meet
IMPOSSIBLE = 1e9

#: ops computing each result element from the operands' same element
_ELEMENTWISE_TT = frozenset("""tt.splat tt.make_range tt.addptr tt.bitcast tt.fp_to_fp tt.int_to_ptr
tt.ptr_to_int tt.clampf tt.precise_sqrt tt.precise_divf tt.mulhiui tt.extern_elementwise tt.approx_divf
""".split())
_FREE_OPS = ("tt.splat", "tt.make_range", "arith.constant")  # results of no tensor operand


def _is_elementwise(op: Operation) -> bool:
    if op.name in _ELEMENTWISE_TT or op.name.startswith("math."):
        return True
    return op.name.startswith("arith.") and op.name not in ("arith.constant",)


def _tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and hasattr(value.type.encoding, "layout")


def _layout_of(value: SSAValue) -> Any:
    return value.type.encoding.layout


def _shape(value: SSAValue) -> tuple[int, ...]:
    return tuple(int(d) for d in value.type.get_shape())


#: bytes of a global memory sector, and of a cache line
SECTOR_BYTES, LINE_BYTES = 32, 128


def _lanes_moved(layout: BlockedEncoding, shape: tuple[int, ...], elem: int) -> list[tuple[BlockedEncoding, int]]:
    """Variants of a coalesced blocked layout with lanes moved from the contiguous dim
    ``order[0]`` to the next one while each row segment a warp reads stays a whole cache line,
    half a line, then a whole sector (the same global instructions and sectors): fewer lanes share a
    row, so a reduction along the contiguous dim leaves a less replicated slice (triton issue
    10987). Worked example: 64x64xf32 ``[1, 4], lanes [2, 16]`` gives lanes ``[4, 8]`` (128-byte
    rows), ``[8, 4]`` (64-byte rows) and ``[16, 2]`` (32-byte rows); the row sums then sit on 4 and 1 registers per
    thread instead of 8."""
    fast, slow = layout.order[0], layout.order[1]
    lanes = list(layout.threads_per_warp)
    row = layout.size_per_thread[fast] * elem
    found = []
    for target in (LINE_BYTES, LINE_BYTES // 2, SECTOR_BYTES):
        keep = max(1, -(-target // row))
        if keep >= lanes[fast]:
            continue
        split = lanes[fast] // keep
        moved = list(lanes)
        moved[fast], moved[slow] = keep, lanes[slow] * split
        room = shape[slow] // (layout.size_per_thread[slow] * layout.warps_per_cta[slow])
        if moved[slow] > max(1, room):
            continue
        found.append((BlockedEncoding(layout.size_per_thread, tuple(moved), layout.warps_per_cta, layout.order,
                                      layout.cga), split))
    return found


#: the origin of a candidate cost-model=triton gives the value
TRITON_SEED = "cost-model=triton's layout"
#: ops the Triton passes add or rename that have no counterpart in exact's input
_SEED_SKIP = frozenset(("ttg.convert_layout", "ttg.local_alloc", "ttg.local_load", "ttg.local_dealloc",
                        "ttg.memdesc_trans"))
_SEED_NAMES = {"ttng.warp_group_dot": "tt.dot"}
#: Triton copies of one op kept as seeds at most (its rematerialized copies may differ)
MAX_SEEDS = 4


def _seed_key(op: Operation) -> tuple[str, str]:
    return _SEED_NAMES.get(op.name, op.name), str(op.location)


def triton_seeds(module: Operation) -> dict[Operation, list[list[Any]]]:
    """What ``cost-model=triton`` gives each op of the TTGIR ``module``: op -> alternatives, each
    the layouts of its tensor results (of its pointer operand, for a ``tt.store``). Triton's
    passes run on a copy; ops are matched by name and location, in program order (Triton's
    rematerialized copies of an op make counts differ: then every copy's layouts are offered,
    at most :data:`MAX_SEEDS`). Empty when the passes do not apply to the module."""
    from layoutkit.ir import make_context
    from layoutkit.passes import PASSES, pass_class
    from layoutkit.triton.gpu_pipeline import TRITON_HIP_LAYOUT_PASSES, TRITON_LAYOUT_PASSES

    target = module.attributes.get("ttg.target")
    names = TRITON_HIP_LAYOUT_PASSES if target is not None and "hip:" in str(target) else TRITON_LAYOUT_PASSES
    if any(name not in PASSES for name in names):
        return {}
    copy = module.clone()
    try:
        ctx = make_context()
        for name in names:
            pass_class(name)().apply(ctx, copy)
    except (LayoutError, ValueError, NotImplementedError, TypeError, AttributeError, KeyError):
        return {}

    def layouts(op: Operation) -> list[Any]:
        values = [op.operands[0]] if op.name == "tt.store" else list(op.results)
        return [_layout_of(v) if _tensor(v) else None for v in values]

    def functions(root: Operation) -> dict[str, dict[tuple[str, str], list[Operation]]]:
        found: dict[str, dict[tuple[str, str], list[Operation]]] = {}
        for func in root.walk():
            if func.name == "tt.func" and func.body.blocks:
                groups = found.setdefault(func.sym_name.data, {})
                for op in func.walk():
                    if op is not func and op.name not in _SEED_SKIP:
                        groups.setdefault(_seed_key(op), []).append(op)
        return found

    ours, theirs = functions(module), functions(copy)
    seeds: dict[Operation, list[list[Any]]] = {}
    for name, groups in ours.items():
        other = theirs.get(name, {})
        for key, ops in groups.items():
            found = other.get(key, [])
            for i, op in enumerate(ops):
                picked = [found[i]] if len(found) == len(ops) else found[:MAX_SEEDS]
                seeds[op] = [layouts(o) for o in picked]
    return seeds


# -- requirements: what a user wants for an operand, given the user's layout ------------------

@dataclass(frozen=True)
class Want:
    """A requirement's rule: ``same``, ``slice`` (expand_dims' axis), ``parent`` (reduce's
    axis), ``dot`` (operand index, kWidth), or ``fixed`` (the layout)."""

    kind: str
    param: Any = None

    def of(self, layout: Any) -> Any | None:
        """The layout wanted for the operand when the user has ``layout`` (None: impossible)."""
        if self.kind == "same":
            return layout
        if self.kind == "fixed":
            return self.param
        if self.kind == "slice":
            return SliceEncoding(self.param, layout) if isinstance(layout, BlockedEncoding | NvidiaMmaEncoding
                                                                   | AmdMfmaEncoding | SliceEncoding
                                                                   | LinearEncoding) else None
        if self.kind == "parent":
            return layout.parent if isinstance(layout, SliceEncoding) and layout.dim == self.param else None
        if self.kind == "trans":
            return permute_blocked(layout, _inverse(self.param))
        if self.kind == "cat":
            return _scale_registers(layout, 0.5)
        if self.kind == "join":
            return drop_last_blocked(layout)
        if self.kind == "split":
            return join_blocked(layout)
        if self.kind == "reshape":
            return reshape_layout(layout, self.param[1], self.param[0])
        index, k_width, a_shared, allow_transpose, mfma_k_width = self.param  # dot
        if isinstance(layout, AmdMfmaEncoding):
            return DotOperandEncoding(index, layout, mfma_k_width) if mfma_k_width else None
        if isinstance(layout, NvidiaMmaEncoding) and layout.version_major == 3:
            if index == 1 or a_shared:
                return SharedOperand(index, allow_transpose)
            return DotOperandEncoding(index, layout, k_width)
        if isinstance(layout, NvidiaMmaEncoding):
            return DotOperandEncoding(index, layout, k_width)
        return DotOperandEncoding(index, layout) if isinstance(layout, BlockedEncoding) else None

    def inverse(self, layout: Any) -> Any | None:
        """The user's layout under which ``layout`` is what it wants (None: none or many)."""
        if self.kind == "same":
            return layout
        if self.kind == "slice":
            return layout.parent if isinstance(layout, SliceEncoding) and layout.dim == self.param else None
        if self.kind == "parent":
            return SliceEncoding(self.param, layout)
        if self.kind == "trans":
            return permute_blocked(layout, self.param)
        if self.kind == "cat":
            return _scale_registers(layout, 2)
        if self.kind == "join":
            return join_blocked(layout)
        if self.kind == "split":
            return drop_last_blocked(layout)
        if self.kind == "reshape":
            return reshape_layout(layout, self.param[0], self.param[1])
        if self.kind == "dot":
            return layout.parent if isinstance(layout, DotOperandEncoding) and layout.op_idx == self.param[0] else None
        return None


def _inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(range(len(perm)), key=lambda d: perm[d]))


def permute_blocked(layout: Any, perm: tuple[int, ...]) -> Any | None:
    """``tt.trans``'s result layout for an operand in blocked ``layout`` (Triton's rule, as in
    convert-triton-to-tritongpu): result dim ``i`` is operand dim ``perm[i]``; None for a
    layout that is not blocked. ``blocked<[1, 8], [4, 8], [4, 1], order [1, 0]>`` with
    ``perm (1, 0)`` is ``blocked<[8, 1], [8, 4], [1, 4], order [0, 1]>``."""
    if not isinstance(layout, BlockedEncoding) or len(perm) != layout.rank:
        return None
    from layoutkit.layouts.triton.cga import CGALayout

    new_position = {old: new for new, old in enumerate(perm)}
    bases = () if layout.cga is None else layout.cga.bases
    return BlockedEncoding(tuple(layout.size_per_thread[d] for d in perm),
                           tuple(layout.threads_per_warp[d] for d in perm),
                           tuple(layout.warps_per_cta[d] for d in perm),
                           tuple(new_position[d] for d in layout.order),
                           CGALayout(tuple(tuple(b[d] for d in perm) for b in bases), layout.rank))


def _scale_registers(layout: Any, factor: float) -> Any | None:
    """A 1-D blocked layout with ``factor`` times the registers per thread (``tt.cat`` may
    reorder: each thread's result registers are its lhs registers then its rhs registers, so
    operands of ``[2]`` per thread make a result of ``[4]``); None for other layouts."""
    if not isinstance(layout, BlockedEncoding) or layout.rank != 1:
        return None
    size = layout.size_per_thread[0] * factor
    if size < 1 or size != int(size):
        return None
    return BlockedEncoding((int(size),), layout.threads_per_warp, layout.warps_per_cta, layout.order, layout.cga)


def join_blocked(layout: Any) -> Any | None:
    """``tt.join``'s result layout for operands in blocked ``layout`` (Triton's rule, as in
    convert-triton-to-tritongpu): a new last dim of 2 in each thread's registers, fastest.
    ``blocked<[2], [32], [4]>`` gives ``blocked<[2, 2], [32, 1], [4, 1], order [1, 0]>``."""
    if not isinstance(layout, BlockedEncoding) or (layout.cga is not None and layout.cga.bases):
        return None
    from layoutkit.layouts.triton.cga import CGALayout

    return BlockedEncoding(layout.size_per_thread + (2,), layout.threads_per_warp + (1,), layout.warps_per_cta + (1,),
                           (layout.rank,) + tuple(layout.order), CGALayout((), layout.rank + 1))


def drop_last_blocked(layout: Any) -> Any | None:
    """The inverse of :func:`join_blocked` (``tt.split``'s result layout); None unless the
    last dim is 2 registers of one thread, fastest in order."""
    if not isinstance(layout, BlockedEncoding) or layout.rank < 2 or (layout.cga is not None and layout.cga.bases):
        return None
    last = layout.rank - 1
    if (layout.size_per_thread[last], layout.threads_per_warp[last], layout.warps_per_cta[last],
            layout.order[0]) != (2, 1, 1, last):
        return None
    from layoutkit.layouts.triton.cga import CGALayout

    return BlockedEncoding(layout.size_per_thread[:-1], layout.threads_per_warp[:-1], layout.warps_per_cta[:-1],
                           tuple(layout.order[1:]), CGALayout((), last))


def reshape_layout(layout: Any, shape: tuple[int, ...], new_shape: tuple[int, ...]) -> Any | None:
    """``layout`` on ``shape`` read as a layout of ``new_shape`` with the row-major element
    order kept (``tt.reshape``; every element stays in its thread and register): each basis's
    coordinates are concatenated as bits of the row-major index and split again, giving a
    ``#ttg.linear``. Power-of-two shapes only (else None). Worked example: a 16x64 layout
    whose register basis is (0, 1) reads on 64x16 as the basis (0, 1) again; lane basis
    (1, 0) (row 1 = element 64) becomes (4, 0)."""
    if math.prod(shape) != math.prod(new_shape) or any(d & (d - 1) for d in (*shape, *new_shape)):
        return None
    try:
        linear = layout.to_linear_layout(tuple(shape))
    except (LayoutError, ValueError, TypeError, AttributeError, NotImplementedError):
        return None
    if linear.out_dim_names != [f"dim{d}" for d in range(len(shape))]:
        return None
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    new_strides = [math.prod(new_shape[d + 1:]) for d in range(len(new_shape))]

    def moved(basis) -> tuple[int, ...]:
        flat = 0
        for c, stride in zip(basis, strides):
            flat |= int(c) * stride  # non-overlapping bit ranges: the sum is the OR
        return tuple((flat // stride) % size for stride, size in zip(new_strides, new_shape))

    bases = {name: tuple(moved(b) for b in linear.bases.get(name, [])) for name in ("register", "lane", "warp", "block")}
    try:
        return LinearEncoding(bases["register"], bases["lane"], bases["warp"], bases["block"])
    except (LayoutError, ValueError):
        return None


def widen_vector(layout: Any, shape: tuple[int, ...], dim: int, width: int) -> Any | None:
    """``layout`` with lane bases along ``dim`` exchanged for register bases that are not, so
    each thread holds ``width`` consecutive elements along ``dim`` (its first registers): a
    layout a global access can use at full vector width, one lane/register exchange away from
    ``layout`` (shuffles, not shared memory). None when it already does or cannot. Worked
    example: ``amd_mfma [2, 2] 32x32`` transposed on 64x64 holds 4 consecutive columns (register
    bases (0, 1), (0, 2), (0, 8), (0, 16); lane 5 is (0, 4)); for 8: register (0, 8) and lane
    (0, 4) swap, registers (0, 1), (0, 2), (0, 4), (0, 16), lane 5 (0, 8)."""
    if width < 2 or width & (width - 1) or isinstance(layout, BlockedEncoding):
        return None
    try:
        linear = layout.to_linear_layout(tuple(shape))
    except (LayoutError, ValueError, TypeError, AttributeError, NotImplementedError):
        return None
    rank = len(shape)
    if linear.out_dim_names != [f"dim{d}" for d in range(rank)]:
        return None
    regs = [tuple(b) for b in linear.bases.get("register", [])]
    lanes = [tuple(b) for b in linear.bases.get("lane", [])]
    units = [tuple(1 << i if d == dim else 0 for d in range(rank)) for i in range(width.bit_length() - 1)]
    if regs[:len(units)] == units:
        return None
    for unit in units:
        if unit in regs:
            continue
        spare = [i for i, r in enumerate(regs) if r not in units]
        if unit not in lanes or not spare:
            return None
        lanes[lanes.index(unit)], regs[spare[0]] = regs[spare[0]], unit  # the lanes stay adjacent
    regs = units + [r for r in regs if r not in units]
    try:
        return LinearEncoding(tuple(regs), tuple(lanes), tuple(map(tuple, linear.bases.get("warp", []))),
                              tuple(map(tuple, linear.bases.get("block", []))))
    except (LayoutError, ValueError):
        return None


def drop_replicas(layout: Any, shape: tuple[int, ...]) -> Any | None:
    """``layout`` with its broadcast lane and warp bases (zero: threads holding the same
    elements) given the last register bases instead: every thread keeps a subset of its
    registers, so converting to it moves no data, and a global access of it issues no
    duplicate instructions. None for a blocked layout or one without replicas. Worked
    example: ``amd_mfma [4, 1] 32x32`` on 32x64 (every warp holds the whole tile; registers
    (0, 1), (0, 2), (0, 8), (0, 16), (0, 32)) gives warps (0, 32), (0, 16) and 8 registers."""
    if isinstance(layout, BlockedEncoding):
        return None
    try:
        linear = layout.to_linear_layout(tuple(shape))
    except (LayoutError, ValueError, TypeError, AttributeError, NotImplementedError):
        return None
    if linear.out_dim_names != [f"dim{d}" for d in range(len(shape))]:
        return None
    bases = {name: [tuple(b) for b in linear.bases.get(name, [])] for name in ("register", "lane", "warp", "block")}
    changed = False
    for name in ("lane", "warp"):
        for i, basis in enumerate(bases[name]):
            if not any(basis) and bases["register"]:
                bases[name][i] = bases["register"].pop()
                changed = True
    if not changed:
        return None
    try:
        return LinearEncoding(*(tuple(bases[n]) for n in ("register", "lane", "warp", "block")))
    except (LayoutError, ValueError):
        return None


def lift_blocked(layout: Any, axis: int) -> Any | None:
    """A blocked layout one dim larger whose ``#ttg.slice`` on ``axis`` is ``layout`` as a
    function: the new dim has one thread and one warp (each thread holds the whole axis in
    registers, slowest in order), so a reduction along it needs no shuffle and its result is
    already in ``layout``. ``blocked<[1, 2], [2, 16], [4, 1]>`` on axis 1 is
    ``blocked<[1, 1, 2], [2, 1, 16], [4, 1, 1], order [2, 0, 1]>``."""
    if not isinstance(layout, BlockedEncoding) or not 0 <= axis <= layout.rank or \
            (layout.cga is not None and layout.cga.bases):
        return None
    from layoutkit.layouts.triton.cga import CGALayout

    def insert(values: tuple[int, ...], value: int) -> tuple[int, ...]:
        return (*values[:axis], value, *values[axis:])

    order = tuple(d + (d >= axis) for d in layout.order) + (axis,)
    return BlockedEncoding(insert(layout.size_per_thread, 1), insert(layout.threads_per_warp, 1),
                           insert(layout.warps_per_cta, 1), order, CGALayout((), layout.rank + 1))


@dataclass
class Use:
    """Operand ``index`` of ``op`` (value ``value``) wants ``want.of(layout of variable user)``;
    ``user`` is None for a fixed want."""

    value: SSAValue
    op: Operation
    index: int
    want: Want
    user: int | None


@dataclass
class Variable:
    """Values sharing one layout (or a store's access), with candidates and their origins."""

    shape: tuple[int, ...]
    dtype: str
    values: list[SSAValue] = field(default_factory=list)
    candidates: list[Any] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    pinned: bool = False
    unary: list[Any] = field(default_factory=list)  # callables layout -> cost
    access: list[Any] = field(default_factory=list)  # a global access's cost: layout -> cost
    work: list[str] = field(default_factory=list)  # the element-wise ops computing it
    label: str = ""

    def add(self, layout: Any, origin: str) -> bool:
        if layout is None or layout in self.candidates or (self.pinned and self.candidates):
            return False
        if len(self.candidates) >= MAX_CANDIDATES or not _fits(layout, self.shape):
            return False
        key = _function(layout, self.shape)
        if sum(_function(c, self.shape) == key for c in self.candidates) >= SAME_MAP:
            return False  # the same map under other names: enough of them
        self.candidates.append(layout)
        self.origins.append(origin)
        return True


@lru_cache(maxsize=1 << 16)
def _fits(layout: Any, shape: tuple[int, ...]) -> bool:
    try:
        registers_per_thread(layout, shape)
    except (LayoutError, ValueError, TypeError, AttributeError, IndexError):
        return False
    return getattr(layout, "rank", len(shape)) == len(shape)


@lru_cache(maxsize=1 << 16)
def _function(layout: Any, shape: tuple[int, ...]) -> bytes:
    """The layout as a map on ``shape`` (its table), to tell equal maps apart from names."""
    try:
        table = layout.table(shape).tobytes()
    except (LayoutError, ValueError, TypeError, AttributeError, IndexError):
        table = repr(layout).encode()  # no table: the name is the map
    return type(layout).__name__.encode() + table


_COSTS: dict[tuple[bytes, bytes, tuple[int, ...], str, str], float] = {}
_ROUTES: dict[tuple[Any, Any, tuple[int, ...], str, str], bool] = {}
CACHE_LIMIT = 1 << 16  # prices kept per cache; a full cache starts over (memory stays bounded)


def _room(*caches: dict) -> None:
    """Empty ``caches`` together once the first holds :data:`CACHE_LIMIT` entries."""
    if len(caches[0]) >= CACHE_LIMIT:
        for cache in caches:
            cache.clear()


def convert_cost(src: Any, dst: Any, shape: tuple[int, ...], dtype: str, target: str = "cuda:80") -> float:
    """A conversion's cost in the measure: instructions per thread + shared wavefronts; to a
    ``#ttg.dot_op`` that needs shared memory, the cheaper of the planner's conversion and
    Triton's route (``local_alloc`` to its swizzled layout + ``local_load``, ``ldmatrix``
    where the target has it: :func:`shared_route_cost`)."""
    if src == dst:
        return 0.0
    if isinstance(dst, SharedOperand):  # the local_alloc a wgmma reads (it has no local_load)
        if isinstance(src, DotOperandEncoding):
            return IMPOSSIBLE
        try:
            return CONVERT_OP + _shared_side(src, dst.encoding(src, shape, dtype), shape, dtype, target, True)
        except (LayoutError, ValueError, NotImplementedError, TypeError, AttributeError, KeyError):
            return IMPOSSIBLE
    key = (_function(src, shape), _function(dst, shape), shape, dtype, target)  # equal maps, one price
    found = _COSTS.get(key)
    if found is None:
        try:
            cost = conversion_cost(src, dst, shape, dtype)
            found = CONVERT_OP + float(sum(cost.instructions.values()) + cost.store_wavefronts
                                       + cost.load_wavefronts)
        except (LayoutError, ValueError, NotImplementedError):
            found = IMPOSSIBLE
        # the route stores and loads every byte a thread holds, 16 bytes an instruction at best
        floor = 2 * math.ceil(_registers(dst, shape) * element_bytes(dtype) / 16) if found < IMPOSSIBLE else 0
        route = shared_route_cost(src, dst, shape, dtype, target) if found > floor else None
        _room(_COSTS, _ROUTES)  # a route is read only after its cost: both go together
        if route is not None and route < found:
            found = route
            _ROUTES[(src, dst, shape, dtype, target)] = True
        _COSTS[key] = found
    return found


_GATHERS: dict[tuple, float] = {}


def gather_cost(src: Any, idx: Any, src_shape: tuple[int, ...], idx_shape: tuple[int, ...], axis: int,
                warp_size: int) -> float:
    """Instructions per thread of a ``tt.gather`` with source layout ``src`` and index (and
    result) layout ``idx``, by Triton's lowering rule (``GatherLoweringHelper::isWarpLocal``,
    as the executor counts it): warp-local -- the ``axis`` coordinate does not change with the
    warp in either layout, and lanes and warps hold the same other coordinates in both -- is one
    ``shfl`` (1, as a conversion's shuffle) and one ``select`` (an element-wise instruction,
    :data:`ELEMENTWISE_WEIGHT`) per index register and source register of its column; else
    through shared memory: a store per source register, a barrier, a load per index register.
    Worked example: 32x32 on 4 warps, both ``threadsPerWarp [1, 32], warpsPerCTA [4, 1]``,
    axis 1: warp-local, 8 index registers x 1 source register per column -> 8 x 1.5 = 12."""
    key = (_function(src, src_shape), _function(idx, idx_shape), src_shape, idx_shape, axis, warp_size)
    found = _GATHERS.get(key)
    if found is None:
        found = IMPOSSIBLE
        _room(_GATHERS)
        try:
            s_table, i_table = src.table(src_shape), idx.table(idx_shape)
        except (LayoutError, ValueError, TypeError, AttributeError, IndexError):
            _GATHERS[key] = found
            return found
        if s_table.shape[1:4] == i_table.shape[1:4] and s_table.shape[1] == warp_size:
            s_regs, i_regs = _registers(src, src_shape), _registers(idx, idx_shape)
            other = [d for d in range(s_table.shape[-1]) if d != axis]
            local = all((t[..., axis] == t[:, :, :1, :, axis]).all() for t in (s_table, i_table)) and \
                (s_table[0, 0, :, :, other] == i_table[0, 0, :, :, other]).all() and \
                (s_table[0, :, 0, :, other] == i_table[0, :, 0, :, other]).all()
            if local:
                coords = s_table[:, 0, 0, 0].reshape(-1, s_table.shape[-1])  # thread 0's registers
                _, column = np.unique(np.delete(coords, axis, axis=-1), axis=0, return_inverse=True)
                column = column.reshape(-1)
                per_column = max(len(np.unique(coords[column == k, axis])) for k in np.unique(column))
                found = float((1 + ELEMENTWISE_WEIGHT) * i_regs * per_column)
            else:
                found = float(s_regs + 1 + i_regs)
        _GATHERS[key] = found
    return found


@dataclass(frozen=True)
class SharedOperand:
    """What an mma v3 (``wgmma``) operand read from shared memory wants: a ``local_alloc`` of
    the value in ``#ttg.nvmma_shared`` (Triton's ``getSharedMemoryMMAOperand``: the value's
    memory order when ``allow_transpose``, else ``[1, 0]`` for A and ``[0, 1]`` for B)."""

    op_idx: int
    allow_transpose: bool

    def encoding(self, src: Any, shape: tuple[int, ...], dtype: str) -> Any:
        from layoutkit.triton.optimize_dot_operands import nvmma_shared
        from layoutkit.triton.reduce_data_duplication import order_for_memory

        order = order_for_memory(src, shape) if self.allow_transpose else ((0, 1) if self.op_idx == 1 else (1, 0))
        return nvmma_shared(shape, order, 8 * element_bytes(dtype))


def uses_shared_route(src: Any, dst: Any, shape: tuple[int, ...], dtype: str, target: str) -> bool:
    """Whether :func:`convert_cost` priced ``src -> dst`` by Triton's shared-memory route."""
    convert_cost(src, dst, shape, dtype, target)
    return _ROUTES.get((src, dst, shape, dtype, target), False)


def shared_route_cost(src: Any, dst: Any, shape: tuple[int, ...], dtype: str, target: str) -> float | None:
    """The cost of ``local_alloc`` + ``local_load`` (Triton's ReduceDataDuplication route)
    for a conversion to a dot operand that needs shared memory, as ``layoutkit analyze``
    prices those two ops (instructions per thread + wavefronts each); None when it does not
    apply, and for an FMA dot's operand (a blocked parent: its (1, 1, 1) swizzle rarely beats
    the planner, and pricing it was most of the attention kernel's optimisation time). Worked example: 64x32xf16 blocked ``[1, 8]`` to operand A of an mma v2 goes
    through ``swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4}>`` and ``ldmatrix``."""
    from layoutkit.triton.reduce_data_duplication import (
        needs_shared_memory,
        operand_swizzle,
        order_for_memory,
    )

    if not isinstance(dst, DotOperandEncoding) or isinstance(src, DotOperandEncoding) \
            or not isinstance(dst.parent, NvidiaMmaEncoding | AmdMfmaEncoding):
        return None  # an FMA dot's operand (blocked parent): the planner's conversion only
    try:
        if not needs_shared_memory(src, dst, shape):
            return None
        encoding = operand_swizzle(dst, shape, order_for_memory(src, shape), 8 * element_bytes(dtype))
        total = CONVERT_OP + _shared_side(src, encoding, shape, dtype, target, True) \
            + _shared_side(dst, encoding, shape, dtype, target, False)
        return float(total)
    except (LayoutError, ValueError, NotImplementedError, TypeError, AttributeError, KeyError):
        return None


_SIDES: dict[tuple[bytes, Any, tuple[int, ...], str, str, bool], float] = {}


def _shared_side(layout: Any, encoding: Any, shape: tuple[int, ...], dtype: str, target: str, store: bool) -> float:
    """One side of the shared route (instructions + wavefronts, ``ldmatrix``/``stmatrix``
    where the target has them), cached by the layout's map and the shared encoding."""
    from layoutkit.analysis.access import memory_offsets
    from layoutkit.analysis.matrix_access import matrix_access, supports
    from layoutkit.triton.analyze import shared_cost

    key = (_function(layout, shape), encoding, shape, dtype, target, store)
    found = _SIDES.get(key)
    if found is None:
        offsets = memory_offsets(encoding, shape).reshape(-1)
        matrix = matrix_access(layout, offsets, shape, dtype, store=store) if supports(target, store) else None
        if matrix is not None:  # ldmatrix / stmatrix, as analyze prices it
            found = float(matrix.instructions + matrix.wavefronts)
        else:
            cost = shared_cost(layout, offsets, shape, dtype)
            found = float(cost["instructions"] + cost["wavefronts"])
        _room(_SIDES)
        _SIDES[key] = found
    return found


@lru_cache(maxsize=1 << 16)
def _registers(layout: Any, shape: tuple[int, ...]) -> int:
    return registers_per_thread(layout, shape)


def _is_work(op: Any) -> bool:
    """An op of index math that executes instructions (``splat``, ``expand_dims`` and
    ``broadcast`` only rename registers)."""
    return isinstance(op, Operation) and op.name != "tt.splat" and (
        _is_elementwise(op) or op.name in ("arith.constant", "tt.make_range"))


def _where(op: Operation) -> str:
    """``op`` for ``--explain``: its name and the user's source line (``tt.load at
    kernel.py:298``), else its place in the input text, else the name alone."""
    from layoutkit.ir.context import op_line, op_location
    from layoutkit.ir.locations import op_source

    source = op_source(op)
    if source and source[1] is not None:
        return f"{op.name} at {source[0]}:{source[1]}"
    return f"{op.name} at {op_location(op)}" if op_line(op) is not None else op.name


def _short(layout: Any) -> str:
    return str(layout)


# -- the kernel as a problem ------------------------------------------------------------------

@dataclass
class Converted:
    """One convert left in the result, and why."""

    value: SSAValue
    src: Any
    dst: Any
    producer: str
    users: list[str]
    src_origin: str
    dst_origin: str
    cost: float
    alternatives: list[tuple[str, float]]
    route: str = "convert_layout"


class ExactLayouts:
    """The exact assignment of one ``tt.func``: :meth:`run` rewrites it, :attr:`converts`
    says why each remaining convert is there."""

    def __init__(self, func: Operation, target: str, num_warps: int, threads_per_warp: int, method: str = "auto",
                 seeds: dict[Operation, list[list[Any]]] | None = None):
        from layoutkit.triton.axis_walk import axis_infos

        self.seeds = seeds or {}  # cost-model=triton's layouts (:func:`triton_seeds`)

        self.func = func
        self.target = target or "cuda:80"
        self.num_warps = num_warps
        self.threads = num_warps * threads_per_warp
        self.threads_per_warp = threads_per_warp
        self.method = method
        self.infos = axis_infos(func)
        self.variables: list[Variable] = []
        self.var_of: dict[SSAValue, int] = {}
        self.uses: list[Use] = []
        self.converts: list[Converted] = []
        self.total = 0.0
        self.solver = ""
        self.replicated: list[str] = []
        self.vectors: dict[int, tuple[int, int]] = {}  # a store's variable -> (dim, vector width)
        self.gathers: list[tuple[int, int, int]] = []  # tt.gather: (source variable, result variable, axis)

    # -- building ---------------------------------------------------------------------------
    def variable(self, value: SSAValue, pinned: bool = False) -> int:
        if value in self.var_of:
            return self.var_of[value]
        v = Variable(_shape(value), str(value.type.element_type), pinned=pinned)
        self.variables.append(v)
        index = len(self.variables) - 1
        self.join(value, index)
        v.add(_layout_of(value), INPUT)
        self.seed(value, index)
        return index

    def seed(self, value: SSAValue, index: int, owner: Operation | None = None, position: int | None = None) -> None:
        """Offer variable ``index`` the layouts cost-model=triton gives ``value`` (result
        ``position`` of ``owner``), so the solver can always choose Triton's answer."""
        owner = owner if owner is not None else value.owner
        if not isinstance(owner, Operation):
            return
        if position is None:
            position = next((i for i, r in enumerate(owner.results) if r is value), None)
        for layouts in self.seeds.get(owner, ()):
            if position is not None and position < len(layouts):
                self.variables[index].add(layouts[position], TRITON_SEED)

    def join(self, value: SSAValue, index: int) -> None:
        self.var_of[value] = index
        self.variables[index].values.append(value)
        if self.variables[index].candidates:
            self.seed(value, index)
        if not self.variables[index].label:
            self.variables[index].label = value.name_hint or ""

    def use(self, op: Operation, index: int, want: Want, user: int | None) -> None:
        value = op.operands[index]
        if _tensor(value):
            self.uses.append(Use(value, op, index, want, user))

    def strip_converts(self, block: Block) -> None:
        """Every use of a convert's result uses the convert's source (the layout the use
        wanted is kept as the use's type in ``self.wanted``); the converts are erased."""
        converts = [op for op in block.walk() if isinstance(op, ttg.ConvertLayoutOp)]
        for op in block.walk():
            for index, value in enumerate(op.operands):
                if _tensor(value):
                    self.wanted[(op, index)] = _layout_of(value)
                root = value
                while isinstance(root.owner, ttg.ConvertLayoutOp):
                    root = root.owner.operands[0]
                if root is not value:
                    op.operands[index] = root
        for op in reversed(converts):
            op.detach()
            op.erase()

    def rematerialize(self, block: Block) -> None:
        """Index computations (make_range, splat, constants, expand_dims, broadcast and
        element-wise ops on them) get one copy per use, as Triton rematerializes them, so
        that each use can take its own layout; CSE merges the copies that end up equal."""
        memo: dict[SSAValue, bool] = {}

        def cheap(value: SSAValue) -> bool:
            if not _tensor(value):
                return True  # a scalar operand: shared by the copies, never copied
            if value not in memo:
                op = value.owner
                memo[value] = isinstance(op, Operation) and len(op.results) == 1 and not op.regions and (
                    op.name in _FREE_OPS or op.name in ("tt.expand_dims", "tt.broadcast") or _is_elementwise(op)) \
                    and all(cheap(v) for v in op.operands)
            return memo[value]

        for _ in range(64):
            changed = False
            for op in reversed(list(block.walk())):
                if len(op.results) != 1 or not _tensor(op.results[0]) or not cheap(op.results[0]):
                    continue
                uses = list(op.results[0].uses)
                for use in uses[1:]:
                    clone = op.clone()
                    Rewriter.insert_op(clone, InsertPoint.after(op))
                    use.operation.operands[use.index] = clone.results[0]
                    memo[clone.results[0]] = True
                    changed = True
            if not changed:
                break
        for _ in range(64):  # dead copies (and dead index math) go
            dead = [op for op in block.walk() if len(op.results) == 1 and _tensor(op.results[0])
                    and memo.get(op.results[0]) and not op.results[0].uses]
            for op in dead:
                op.detach()
                op.erase()
            if not dead:
                break
        self.followers = {op.results[0] for op in block.walk() if len(op.results) == 1 and _tensor(op.results[0])
                          and memo.get(op.results[0]) and sum(1 for _ in op.results[0].uses) == 1}

    def settle(self, value: SSAValue, layout: Any, plan: list, leaves: list) -> bool:
        """Index math follows its one user: ``value`` (a follower) in ``layout``, its follower
        operands in what its rule wants of that (added to ``plan``), its other operands
        wanting it (``leaves``: value, op, index, layout); False when a rule cannot."""
        if layout is None or not _fits(layout, _shape(value)):
            return False
        plan.append((value, layout))
        op = value.owner
        for index, want in self.follow_rules.get(op, ()):
            operand = op.operands[index]
            wanted = want.of(layout)
            if operand in self.followers:
                if not self.settle(operand, wanted, plan, leaves):
                    return False
            elif wanted is None:
                return False
            else:
                leaves.append((operand, op, index, wanted))
        return True

    def build(self) -> None:
        block = self.func.body.blocks.first
        self.wanted: dict[tuple[Operation, int], Any] = {}
        self.follow_rules: dict[Operation, list[tuple[int, Want]]] = {}
        self.strip_converts(block)
        self.rematerialize(block)
        from layoutkit.triton.axis_walk import axis_infos

        self.infos = axis_infos(self.func)  # the copies' pointers too
        self.original = {v: _layout_of(v) for v in self.followers}
        self._follower_costs: dict[tuple[SSAValue, Any], float] = {}
        for op in block.walk():
            self.visit(op)

    def fixed_uses(self, op: Operation) -> None:
        for index, value in enumerate(op.operands):
            if _tensor(value):
                self.uses.append(Use(value, op, index, Want("fixed", self.wanted.get((op, index), _layout_of(value))), None))

    def visit(self, op: Operation) -> None:
        name = op.name
        results = [r for r in op.results if _tensor(r)]
        if len(results) == 1 and results[0] in self.followers:  # index math: follows its user
            want = Want("slice", op.axis.value.data) if name == "tt.expand_dims" else Want("same")
            self.follow_rules[op] = [(i, want) for i, v in enumerate(op.operands) if _tensor(v)]
            return
        if name in ("tt.func", "tt.return", "tt.reduce.return", "tt.scan.return") or op.parent_op() is not None \
                and op.parent_op().name in ("tt.reduce", "tt.scan") :
            return
        if name == "scf.for":
            body = op.body.blocks.first
            for i, result in enumerate(op.results):
                if _tensor(result):
                    index = self.variable(result)
                    self.join(body.args[i + 1], index)
                    self.use(op, 3 + i, Want("same"), index)
            return
        if name == "scf.if":
            for result in results:
                self.variable(result)
            return
        if name == "scf.yield" and op.parent_op() is not None and op.parent_op().name in ("scf.for", "scf.if"):
            parent = op.parent_op()
            for i, value in enumerate(op.operands):
                if _tensor(value):
                    self.use(op, i, Want("same"), self.var_of.get(parent.results[i]))
            return
        if name == "tt.store":
            ptr = op.operands[0]
            if not _tensor(ptr):
                return
            v = Variable(_shape(ptr), str(op.operands[1].type.element_type), label=_where(op))
            self.variables.append(v)
            index = len(self.variables) - 1
            v.add(self.wanted[(op, 0)], INPUT)
            self.seed(ptr, index, op, 0)
            for layout, origin in self.coalesced(op, ptr):
                v.add(layout, origin)
            v.access.append(self.global_cost(op, ptr, op.operands[2] if len(op.operands) > 2 else None,
                                             _shape(ptr), v.dtype))
            self.vectors[index] = self.vector(ptr)
            for i in range(len(op.operands)):
                self.use(op, i, Want("same"), index)
            return
        if name == "tt.histogram" and results:  # counts every element: any operand layout serves, and
            self.variable(results[0])  # each thread's bins are reduced into any result layout
            return
        if name == "tt.gather" and results and op.operands[0] in self.var_of:
            index = self.variable(results[0])  # the result takes the indices' layout (Triton's rule)
            self.use(op, 1, Want("same"), index)
            self.gathers.append((self.var_of[op.operands[0]], index, op.axis.value.data))
            return
        if name in ("tt.join", "tt.split", "tt.reshape", "tt.cat") and results:
            index = self.variable(results[0])
            for r in results[1:]:
                self.join(r, index)
            if name == "tt.reshape":
                want = Want("reshape", (_shape(op.operands[0]), _shape(results[0])))
            else:
                want = Want(name.removeprefix("tt."))
            for i in range(len(op.operands)):
                self.use(op, i, want, index)
            return
        simple = _is_elementwise(op) or name in ("arith.constant", "tt.load", "tt.broadcast", "tt.scan")
        if results and (simple or name in ("tt.expand_dims", "tt.reduce", "tt.dot", "tt.trans")) \
                and all(_shape(r) == _shape(results[0]) for r in results):
            index = self.variable(results[0])
            for r in results[1:]:
                self.join(r, index)
            v = self.variables[index]
            if name == "tt.load":
                ptr = op.operands[0]
                for layout, origin in self.coalesced(op, ptr):
                    v.add(layout, origin)
                mask = op.operands[1] if len(op.operands) > 1 and _tensor(op.operands[1]) else None
                v.access.append(self.global_cost(op, ptr, mask, v.shape, v.dtype))
                want = Want("same")
            elif name == "tt.trans":
                want = Want("trans", tuple(int(d) for d in op.order.get_values()))
            elif name == "tt.expand_dims":
                want = Want("slice", op.axis.value.data)
            elif name == "tt.reduce":
                want = Want("parent", op.axis.value.data)
            elif name == "tt.dot":
                self.dot_candidates(op, v)
                from layoutkit.triton.accelerate_matmul import comes_from_load_or_block_arg

                element = str(op.operands[0].type.element_type)
                k_width = max(1, 4 // element_bytes(element))
                dot_want = (k_width, comes_from_load_or_block_arg(op.operands[0]), element in ("f16", "bf16"),
                            self.mfma_k_width(op))
                for i in range(len(op.operands)):
                    self.use(op, i, Want("dot", (i, *dot_want)) if i < 2 else Want("same"), index)
                return
            else:
                want = Want("same")
                if _is_elementwise(op) or name == "arith.constant":
                    weight = op_weight(op)
                    v.work.append(name)
                    v.unary.append(lambda layout, shape=v.shape, w=weight: w * _registers(layout, shape))
            for i, value in enumerate(op.operands):
                if _tensor(value) and (name in ("tt.broadcast", "tt.expand_dims", "tt.reduce", "tt.trans")
                                       or _shape(value) == v.shape):
                    self.use(op, i, want, index)
                elif _tensor(value):
                    self.uses.append(Use(value, op, i, Want("fixed", self.wanted.get((op, i), _layout_of(value))), None))
            return
        for result in results:  # any other op: its layouts stay
            self.variable(result, pinned=True)
        self.fixed_uses(op)

    # -- anchors ----------------------------------------------------------------------------
    def vector(self, ptr: SSAValue) -> tuple[int, int]:
        """(the most contiguous dim, Triton's vector width there) of an access through ``ptr``."""
        from layoutkit.triton.axis_walk import pointee_bytes

        info, shape = self.infos.get(ptr), _shape(ptr)
        if info is None or not shape:
            return 0, 1
        dim = min(range(len(shape)), key=lambda d: (-info.contiguity[d], -d))
        per_thread = max(1, math.prod(shape) // self.threads)
        return dim, max(1, min(ax.vector_limit(info, pointee_bytes(ptr)), per_thread))

    def coalesced(self, op: Operation, ptr: SSAValue) -> list[tuple[Any, str]]:
        """Triton's coalesced blocked layout for the access (vector along the most contiguous
        dim, order by contiguity), a half-vector variant, and 2-D per-thread tiles."""
        from layoutkit.triton.axis_walk import pointee_bytes

        info = self.infos.get(ptr)
        shape = _shape(ptr)
        if info is None or not shape:
            return []
        rank = len(shape)
        elem = pointee_bytes(ptr)
        order = tuple(sorted(range(rank), key=lambda d: (-info.contiguity[d], -d)))
        per_thread = max(1, math.prod(shape) // self.threads)
        vec = max(1, min(ax.vector_limit(info, elem), per_thread))
        where = _where(op)
        found = []
        for width in (vec, max(1, vec // 2)):
            spt = [1] * rank
            spt[order[0]] = width
            base = default_blocked_encoding(shape, self.num_warps, self.threads_per_warp,
                                            size_per_thread=spt, order=order)
            found.append((base, f"coalesced {where}"))
            if width == vec and rank >= 2:
                found.extend((layout, f"coalesced {where}, {base.threads_per_warp[order[0]] // split}x fewer "
                                      f"lanes along dim {order[0]}")
                             for layout, split in _lanes_moved(base, shape, elem))
            if rank == 2:
                other = order[1]
                depth = min(8, max(1, per_thread // width), shape[other])
                if depth > 1:
                    spt[other] = depth
                    found.append((default_blocked_encoding(shape, self.num_warps, self.threads_per_warp,
                                                           size_per_thread=spt, order=order),
                                  f"{'x'.join(map(str, spt))} tile per thread for {where}"))
        return found

    def mfma_choice(self, op: Operation) -> tuple[AmdMfmaEncoding, int] | None:
        """On ``hip:gfx942``, the ``amd_mfma`` layout and operand ``kWidth`` Triton's
        accelerate-matmul gives ``op`` (None: not that target, an FMA dot, or an MFMA type
        not implemented)."""
        if self.target != "hip:gfx942" or op.name != "tt.dot" or len(_shape(op.results[0])) != 2:
            return None
        from layoutkit.triton.accelerate_matmul import mfma_choice

        try:
            return mfma_choice(op, self.num_warps)
        except LayoutError:
            return None

    def mfma_k_width(self, op: Operation) -> int:
        choice = self.mfma_choice(op)
        return 0 if choice is None else choice[1]

    def dot_candidates(self, op: Operation, v: Variable) -> None:
        """``#ttg.nvidia_mma`` v2 (m16n8) with every warp split that fits the tile; on cuda:90
        also the v3 layout Triton's accelerate-matmul picks where ``supportMMA(3)`` holds; on
        hip:gfx942 Triton's ``amd_mfma`` choice (:func:`mfma_choice`: instruction, warps,
        ``isTransposed``), then its instruction with every other warp split that fits."""
        if len(v.shape) == 2 and self.mfma_choice(op) is not None:
            self.mfma_candidates(op, v)
            return
        if not self.target.startswith("cuda:") or len(v.shape) != 2:
            return
        if int(self.target[5:]) < 75:  # Volta: Triton's mma v1, not modelled; an FMA dot, not v2
            return
        m, n = v.shape
        warps_m = 1
        while warps_m <= self.num_warps:
            warps_n = self.num_warps // warps_m
            if warps_m * 16 <= m and warps_n * 8 <= n:
                v.add(NvidiaMmaEncoding(2, 0, (warps_m, warps_n), (16, 8)), f"mma v2 for {_where(op)}")
            warps_m *= 2
        if op.name == "tt.dot" and not any(isinstance(c, NvidiaMmaEncoding) for c in v.candidates):
            # a tile smaller than the warps (16x16 on 4 warps): Triton's split, warps replicated
            from layoutkit.triton.accelerate_matmul import warps_per_tile_v2

            v.add(NvidiaMmaEncoding(2, 0, warps_per_tile_v2(op, (m, n), self.num_warps), (16, 8)),
                  f"mma v2 for {_where(op)} (Triton's split, warps replicated)")

        k = _shape(op.operands[0])[-1]
        instr = None
        if self.target.startswith("cuda:9") and op.name == "tt.dot":
            from layoutkit.triton.accelerate_matmul import (
                instr_shape_v3,
                supports_v3,
                warps_per_tile_v3,
            )

            if supports_v3(op, self.num_warps):
                instr = instr_shape_v3((m, n), op.operands[0].type.element_type, self.num_warps)
                v.add(NvidiaMmaEncoding(3, 0, warps_per_tile_v3(op, (m, n), self.num_warps), instr),
                      f"mma v3 for {_where(op)}")

        def dot_cost(layout, m=m, n=n, k=k) -> float:
            if isinstance(layout, NvidiaMmaEncoding) and layout.version_major == 3 and instr is not None:
                return m * n * k / (64 * instr[1] * instr[2]) / (self.num_warps / 4)  # wgmma per warp group
            if isinstance(layout, NvidiaMmaEncoding):  # m16n8k16 tiles per warp (replicated warps: 1 each)
                wm, wn = layout.warps_per_cta
                return max(m, 16 * wm) * max(n, 8 * wn) * k / (16 * 8 * 16) / (wm * wn)
            return m * n * k / self.threads

        v.unary.append(dot_cost)

    def mfma_candidates(self, op: Operation, v: Variable) -> None:
        """gfx942: Triton's ``amd_mfma`` layout first, then the same instruction with every
        warp split that fits the tile; priced one MFMA issue per ``mDim x nDim x kDim`` block
        per warp (an FMA dot: one per element and k per thread)."""
        mfma, _ = self.mfma_choice(op)
        where = _where(op)
        v.add(mfma, f"amd_mfma for {where} (Triton's choice)")
        m, n = v.shape
        m_dim, n_dim, k_dim = mfma.instr_shape
        warps_m = 1
        while warps_m <= self.num_warps:
            warps_n = self.num_warps // warps_m
            if warps_m * m_dim <= m and warps_n * n_dim <= n:
                v.add(AmdMfmaEncoding(3, (warps_m, warps_n), mfma.instr_shape, mfma.is_transposed, mfma.cga),
                      f"amd_mfma for {where}")
            warps_m *= 2
        k = _shape(op.operands[0])[-1]

        def dot_cost(layout) -> float:
            if isinstance(layout, AmdMfmaEncoding):
                return m * n * k / (m_dim * n_dim * k_dim) / self.num_warps
            return m * n * k / self.threads

        v.unary.append(dot_cost)

    def global_cost(self, op: Operation, ptr: SSAValue, mask: SSAValue | None, shape, dtype):
        from layoutkit.triton.analyze import global_cost

        info = self.infos.get(ptr) or ax.unknown(len(shape))
        mask_info = self.infos.get(mask) if mask is not None else None

        def cost(layout) -> float:
            if isinstance(layout, DotOperandEncoding):
                return IMPOSSIBLE
            try:
                data = global_cost(layout, info, mask_info, tuple(shape), dtype)
            except (LayoutError, ValueError):
                return IMPOSSIBLE
            return float(data["instructions"] + max(0, data["sectors"] - data["minimum_sectors"]))

        return cost

    # -- candidates -------------------------------------------------------------------------
    def propagate(self) -> None:
        """Anchor candidates flow along the requirements both ways until none is added; an op
        whose layouts stay (``fixed``) offers its operand's layout to the producer."""
        for use in self.uses:
            if use.user is None and use.value in self.var_of:
                self.variables[self.var_of[use.value]].add(use.want.param, f"what {_where(use.op)} keeps")
        for _ in range(4 * MAX_CANDIDATES):
            changed = False
            for use in self.uses:
                if use.user is None or use.value not in self.var_of:
                    continue
                source = self.variables[self.var_of[use.value]]
                user = self.variables[use.user]
                for layout, origin in list(zip(user.candidates, user.origins)):
                    if use.want.kind == "parent" and isinstance(layout, BlockedEncoding):
                        lifted = lift_blocked(layout, use.want.param)  # the reduced axis in registers
                        if lifted is not None:
                            changed |= user.add(SliceEncoding(use.want.param, lifted), f"{origin}, reduced in registers")
                    changed |= source.add(use.want.of(layout), origin)
                for layout, origin in list(zip(source.candidates, source.origins)):
                    changed |= user.add(use.want.inverse(layout), origin)
            if not changed:
                break

    def constrain_accesses(self) -> None:
        """Coalesced global widths are a constraint, not a price: a load's or store's variable
        keeps only the candidates whose global cost (instructions per thread + sectors above
        the minimum) is the least any candidate reaches, so no conversion or element-wise
        saving can buy a narrower or less coalesced access (a global instruction waits
        hundreds of cycles and an extra sector moves 32 bytes of DRAM; a shared wavefront or
        shuffle is a few cycles of on-chip bandwidth). A tensor with fewer elements than the
        block has threads is replicated whatever its layout; its lanes read the same sectors
        (one L1 wavefront per instruction, a broadcast), so its accesses are priced like any
        instruction instead: loading 16 floats into every thread (4 vector loads) is cheaper
        than 15 shuffles spreading them from 16 lanes (``outer3_reduce``)."""
        for index, (dim, width) in self.vectors.items():  # one exchange or none from a candidate
            v = self.variables[index]
            for layout, origin in list(zip(v.candidates, v.origins)):
                single = drop_replicas(layout, v.shape)
                found = [(single, f"{origin}, replicas dropped"),
                         (widen_vector(layout, v.shape, dim, width), f"{origin}, {width}-wide vectors")]
                if single is not None:
                    found.append((widen_vector(single, v.shape, dim, width),
                                  f"{origin}, replicas dropped, {width}-wide vectors"))
                for wide, label in found:
                    if wide is not None and wide not in v.candidates and _fits(wide, v.shape):
                        v.candidates.append(wide)
                        v.origins.append(label)
        for v in self.variables:
            if v.access and math.prod(v.shape) < self.threads:  # replicated in any layout: see above
                v.access = [lambda c, f=f: BROADCAST_ACCESS_WEIGHT * f(c) for f in v.access]
                continue
            if not v.access or len(v.candidates) < 2:
                continue
            costs = [sum(f(c) for f in v.access) for c in v.candidates]
            best = min(costs)
            keep = [i for i, c in enumerate(costs) if c <= best + 1e-9]
            v.candidates = [v.candidates[i] for i in keep]
            v.origins = [v.origins[i] for i in keep]

    # -- the problem ------------------------------------------------------------------------
    def problem(self, forced: dict[int, int] | None = None) -> AssignmentProblem:
        unary = []
        for index, v in enumerate(self.variables):
            row = [sum(f(c) for f in v.unary) + sum(f(c) for f in v.access) for c in v.candidates]
            if forced and index in forced:
                row = [r if i == forced[index] else IMPOSSIBLE for i, r in enumerate(row)]
            unary.append(row)
        pairs = []
        for use in self.uses:
            u = self.var_of.get(use.value)
            if u is None:
                if use.value in self.followers and use.user is not None:
                    user = self.variables[use.user]
                    for b, layout in enumerate(user.candidates):
                        unary[use.user][b] += self.follower_cost(use.value, use.want.of(layout))
                continue
            src = self.variables[u]
            shape, dtype = _shape(use.value), str(use.value.type.element_type)
            if use.user is None:
                for a, layout in enumerate(src.candidates):
                    unary[u][a] += convert_cost(layout, use.want.param, shape, dtype, self.target)
                continue
            dst = self.variables[use.user]
            wants = [use.want.of(b) for b in dst.candidates]
            matrix = [[IMPOSSIBLE if w is None else convert_cost(a, w, shape, dtype, self.target) for w in wants]
                      for a in src.candidates]
            if use.user == u:
                for a in range(len(src.candidates)):
                    unary[u][a] += matrix[a][a]
            else:
                pairs.append((u, use.user, tuple(map(tuple, matrix))))
        for u, r, axis in self.gathers:  # the gather's own data movement, as Triton's lowering picks it
            src, res = self.variables[u], self.variables[r]
            pairs.append((u, r, tuple(tuple(gather_cost(a, b, src.shape, res.shape, axis, self.threads_per_warp)
                                            for b in res.candidates) for a in src.candidates)))
        return AssignmentProblem(tuple(len(v.candidates) for v in self.variables),
                                 tuple(map(tuple, unary)), tuple(pairs))

    def follower_cost(self, value: SSAValue, layout: Any) -> float:
        """What recomputing the index math of ``value`` in ``layout`` costs: its element-wise
        instructions (registers per thread each, as the work is priced everywhere), or, when
        it cannot follow, its input layout's work plus the convert at the use."""
        key = (value, layout)
        found = self._follower_costs.get(key)
        if found is None:
            plan: list = []
            if layout is not None and self.settle(value, layout, plan, []):
                extra = 0.0
            else:
                plan = []
                self.settle(value, self.original[value], plan, [])
                extra = IMPOSSIBLE if layout is None else convert_cost(
                    self.original[value], layout, _shape(value), str(value.type.element_type), self.target)
            found = extra + sum(INDEX_WEIGHT * op_weight(v.owner) * _registers(held, _shape(v)) for v, held in plan
                                if _is_work(v.owner))
            self._follower_costs[key] = found
        return found

    # -- the rewrite ------------------------------------------------------------------------
    def run(self, explain: bool = False) -> None:
        self.build()
        self.propagate()
        self.constrain_accesses()
        problem = self.problem()
        solution = solve(problem, self.method)
        self.total, self.solver = solution.cost, solution.method
        choice = solution.choice
        for index, v in enumerate(self.variables):
            layout = v.candidates[choice[index]]
            for value in v.values:
                _retype(value, layout)
        made: dict[tuple[SSAValue, Any], SSAValue] = {}
        records: dict[tuple[SSAValue, Any], Converted] = {}
        uses = list(self.uses)
        for use in self.uses:  # index math settles into what its user wants
            if use.value not in self.followers:
                continue
            wanted = use.want.param if use.user is None else \
                use.want.of(self.variables[use.user].candidates[choice[use.user]])
            plan: list = []
            leaves: list = []
            if not self.settle(use.value, wanted, plan, leaves):
                plan, leaves = [], []  # its own input layout, and a convert at the use
                self.settle(use.value, self.original[use.value], plan, leaves)
            for value, layout in plan:
                _retype(value, layout)
            uses.extend(Use(v, op, i, Want("fixed", w), None) for v, op, i, w in leaves)
        for use in uses:
            wanted = use.want.param if use.user is None else \
                use.want.of(self.variables[use.user].candidates[choice[use.user]])
            value = use.value
            if wanted is None or _layout_of(value) == wanted:
                continue
            if isinstance(wanted, SharedOperand):
                continue  # the wgmma rewrite below allocates it
            key = (value, wanted)
            if key not in made:
                made[key] = _insert_convert(value, wanted)
                records[key] = self.record(use, wanted, choice, problem, solution.cost, explain)
            else:
                records[key].users.append(_where(use.op))
            use.op.operands[use.index] = made[key]
        self.converts = list(records.values())
        self.replicated = self.replicated_work(problem, solution) if explain else []
        for op in [o for o in self.func.walk() if o.name == "tt.dot"]:
            layout = _layout_of(op.results[0])
            if isinstance(layout, NvidiaMmaEncoding) and layout.version_major == 3:
                _to_warp_group_dot(op)
        from layoutkit.triton.reduce_data_duplication import _rewrite as through_shared

        for (value, wanted), result in made.items():  # Triton's route where it is the cheaper
            if uses_shared_route(_layout_of(value), wanted, _shape(value), str(value.type.element_type), self.target):
                records[(value, wanted)].route = "local_alloc + local_load"
                through_shared(result.owner)

    def replicated_work(self, problem: AssignmentProblem, solution) -> list[str]:
        """``--explain`` lines for every chain of element-wise values (joined by same-layout
        uses) that some candidate would compute more replicated than the chosen layout: its
        work per thread as chosen, in the layout Triton's coalescing rule gives it (else the
        most replicated candidate) and that whole-kernel cost, the work avoided, and the
        conversions paid around the chain."""
        choice = solution.choice
        parent = {i: i for i, v in enumerate(self.variables) if v.work}

        def find(a: int) -> int:
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        for use in self.uses:
            u = self.var_of.get(use.value)
            if use.want.kind == "same" and u in parent and use.user in parent:
                parent[find(u)] = find(use.user)
        groups: dict[int, list[int]] = {}
        for i in parent:
            groups.setdefault(find(i), []).append(i)
        lines = []
        for members in groups.values():
            first = self.variables[members[0]]
            if any(self.variables[m].candidates[choice[m]] != first.candidates[choice[members[0]]] for m in members):
                continue  # not one layout along the chain
            chosen = first.candidates[choice[members[0]]]

            def work(layout, members=members) -> float:
                return sum(len(self.variables[m].work) * _registers(layout, self.variables[m].shape) for m in members)

            shared = [c for c in first.candidates if all(c in self.variables[m].candidates for m in members)]
            # the reference: Triton's coalescing rule carried to the chain, else the most replicated
            rule = next((c for c, o in zip(first.candidates, first.origins) if c in shared and o == TRITON_SEED),
                        None)  # Triton's own layout, else its coalescing rule
            rule = rule if rule is not None else next((c for c, o in zip(first.candidates, first.origins) if c in shared
                                                       and o.startswith("coalesced") and "fewer lanes" not in o), None)
            worst = rule if rule is not None else max(shared, key=work)
            label = "Triton's rule" if rule is not None else "the most replicated candidate"
            if work(worst) <= work(chosen):
                continue
            forced = {m: self.variables[m].candidates.index(worst) for m in members}
            alternative = solve(self.problem(forced), self.method).cost
            ops = sorted({name for m in members for name in self.variables[m].work})
            shape = "x".join(map(str, first.shape))
            copies = _registers(chosen, first.shape) * self.threads // max(1, math.prod(first.shape))
            inside = {_where(value.owner) for m in members for value in self.variables[m].values
                      if isinstance(value.owner, Operation)}
            paid = [c for c in self.converts if self.var_of.get(c.value) in members  # out of the chain
                    or any(user in inside for user in c.users)]  # into it
            lines.append(f"//   replicated element-wise work: {sum(len(self.variables[m].work) for m in members)} "
                         f"op(s) ({', '.join(ops)}) on {shape} in {chosen}: {work(chosen):g} instructions per "
                         f"thread (each element on {copies} thread(s)); in {worst} ({label}) they would be {work(worst):g} "
                         f"(kernel cost {alternative:g} against {solution.cost:g}): avoided "
                         f"{work(worst) - work(chosen):g} per thread, paid "
                         f"{sum(c.cost for c in paid):g} in {len(paid)} conversion(s)")
        return lines

    def record(self, use: Use, wanted: Any, choice, problem: AssignmentProblem, total: float,
               explain: bool) -> Converted:
        u = self.var_of[use.value]
        src = _layout_of(use.value)
        source = self.variables[u]
        shape, dtype = _shape(use.value), str(use.value.type.element_type)
        dst_origin = "its fixed operand layout" if use.user is None else \
            self.variables[use.user].origins[choice[use.user]]
        producer = _where(use.value.owner) if isinstance(use.value, SSAValue) and \
            not isinstance(use.value, BlockArgument) else "a block argument"
        alternatives: list[tuple[str, float]] = []
        if explain:
            alternatives.append(("as chosen (whole kernel)", total))
            if wanted in source.candidates:
                forced = self.problem({u: source.candidates.index(wanted)})
                alt = solve(forced, self.method)
                alternatives.append((f"producer in {_short(wanted)}", alt.cost))
            if use.user is not None:
                dst = self.variables[use.user]
                for b, layout in enumerate(dst.candidates):
                    if use.want.of(layout) == src and b != choice[use.user]:
                        alt = solve(self.problem({use.user: b}), self.method)
                        alternatives.append((f"user in {_short(layout)}", alt.cost))
                        break
        return Converted(use.value, src, wanted, producer, [_where(use.op)], source.origins[choice[u]],
                         dst_origin, convert_cost(src, wanted, shape, dtype, self.target), alternatives)


def _to_warp_group_dot(dot: Operation) -> None:
    """A ``tt.dot`` whose result exact put in mma v3 becomes a ``ttng.warp_group_dot``:
    B (and A unless it is already a ``#ttg.dot_op`` in registers) ``local_alloc``-ed as
    :class:`SharedOperand` priced it (Triton's own helper builds the allocation)."""
    from layoutkit.ir.dialects import ttng
    from layoutkit.triton.accelerate_matmul import _shared_operand

    element = str(dot.operands[0].type.element_type)
    allow = element in ("f16", "bf16")
    a, b, c = dot.operands[:3]
    if not isinstance(_layout_of(a), DotOperandEncoding):
        a = _shared_operand(a, 0, allow)
    b = _shared_operand(b, 1, allow)
    properties = {k: v for k, v in dot.properties.items() if k in ("inputPrecision", "maxNumImpreciseAcc")}
    new = ttng.WarpGroupDotOp.build(operands=[a, b, c, []], result_types=[dot.results[0].type],
                                    properties=properties)
    new.location = dot.location
    Rewriter.insert_op(new, InsertPoint.before(dot))
    dot.results[0].replace_all_uses_with(new.results[0])
    dot.detach()
    dot.erase()


def _retype(value: SSAValue, layout: Any) -> None:
    t = value.type
    new = TensorType(t.element_type, t.get_shape(), LayoutAttr.of(layout))
    if new == t:
        return
    value._type = new  # noqa: SLF001 - xDSL has no public setter; the users stay
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "arith.constant" and \
            isinstance(owner.value, DenseIntOrFPElementsAttr):
        owner.value = DenseIntOrFPElementsAttr(new, owner.value.data)


def _insert_convert(value: SSAValue, layout: Any) -> SSAValue:
    t = value.type
    new = ttg.ConvertLayoutOp.build(operands=[value],
                                    result_types=[TensorType(t.element_type, t.get_shape(), LayoutAttr.of(layout))])
    if isinstance(value, BlockArgument):
        new.location = value.block.parent_op().location if value.block.parent_op() else None
        Rewriter.insert_op(new, InsertPoint.at_start(value.block))
    else:
        new.location = value.owner.location
        Rewriter.insert_op(new, InsertPoint.after(value.owner))
    return new.results[0]


def _own(origin: str, op: str) -> str:
    """A candidate's origin said of ``op`` itself without naming it twice: ``coalesced
    tt.load at k.py:3`` of that load is ``its own coalesced access``."""
    if not op:
        return origin
    return origin.replace(f"coalesced {op}", "its own coalesced access").replace(f" for {op}", " (its own)")


def explain_text(kernel: str, layouts: ExactLayouts) -> str:
    """``--explain``: every convert left, the two anchors that disagree, its cost, and the
    whole-kernel cost of the alternatives."""
    lines = [f"// exact layouts @{kernel}: {len(layouts.converts)} convert_layout(s) left, "
             f"total cost {layouts.total:g} ({layouts.solver})"]
    for c in layouts.converts:
        shape = "x".join(map(str, _shape(c.value)))
        lines.append(f"//   convert {shape}x{c.value.type.element_type}: {c.src} -> {c.dst}, cost {c.cost:g}")
        lines.append(f"//     producer {c.producer} has its layout from {_own(c.src_origin, c.producer)}; "
                     f"{', '.join(c.users)} wants {_own(c.dst_origin, c.users[0] if len(c.users) == 1 else '')}")
        for label, cost in c.alternatives:
            lines.append(f"//     alternative: {label}: kernel cost {cost:g}")
        if len(c.alternatives) == 1:
            lines.append("//     no other alternative: the producer has no candidate in the wanted layout "
                         "and the user none that takes the producer's")
    lines.extend(getattr(layouts, "replicated", []))
    return "\n".join(lines) + "\n"


def assign_layouts(module: Operation, method: str = "auto", explain: bool = False) -> str:
    """Rewrite every ``tt.func`` of ``module`` with its exact layouts; the ``--explain`` text."""
    def attr(name: str, default: Any) -> Any:
        found = module.attributes.get(name)
        if found is None:
            return default
        value = getattr(found, "value", None)
        return int(value.data) if value is not None else getattr(found, "data", default)

    out = []
    seeds = triton_seeds(module)
    for op in list(module.walk()):
        if op.name == "tt.func" and op.body.blocks:
            layouts = ExactLayouts(op, attr("ttg.target", "cuda:80"), attr("ttg.num-warps", 4),
                                   attr("ttg.threads-per-warp", 32), method, seeds)
            layouts.run(explain)
            out.append(explain_text(op.sym_name.data, layouts))
            merge_copies(op.body.blocks.first)
    return "".join(out)


def merge_copies(block: Block) -> int:
    """Merge the copies :meth:`ExactLayouts.rematerialize` made that ended up equal (same op,
    operands, properties and result types), in program order so chains merge whole; the
    number of ops erased. Only index-math ops (pure by construction) are merged."""
    seen: dict[tuple, Operation] = {}
    erased = 0
    for op in list(block.walk()):
        if len(op.results) != 1 or op.regions or not _tensor(op.results[0]) or not (
                op.name in _FREE_OPS or op.name in ("tt.expand_dims", "tt.broadcast") or _is_elementwise(op)):
            continue
        key = (op.name, tuple(id(v) for v in op.operands), op.results[0].type,
               tuple(sorted((k, str(v)) for k, v in op.properties.items())),
               tuple(sorted((k, str(v)) for k, v in op.attributes.items())), id(op.parent_block()))
        first = seen.get(key)
        if first is None:
            seen[key] = op
            continue
        op.results[0].replace_all_uses_with(first.results[0])
        op.detach()
        op.erase()
        erased += 1
    return erased


__all__ = ["ExactLayouts", "MAX_CANDIDATES", "Want", "assign_layouts", "convert_cost", "explain_text"]
