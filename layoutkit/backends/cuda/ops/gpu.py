"""CUDA emitters of ``gpu``: ids, barriers, warp shuffles and subgroup reductions."""

from __future__ import annotations

import re
from typing import Any

from layoutkit.backends.cuda.c_text import cast, enum_text, paren, prop, unsigned
from layoutkit.backends.cuda.emit import FunctionEmitter
from layoutkit.backends.cuda.registry import emits
from layoutkit.backends.types import Scalar, VectorT, value_type
from layoutkit.errors import LayoutError, quote
from layoutkit.ir.dialects.upstream import gpu

FULL_MASK = "0xffffffffu"
WARP_SIZE = 32


def _dimension(what: str):
    def emit(self: FunctionEmitter, op: Any) -> None:
        dim = enum_text(op.dimension)
        if what == "global_id":
            rhs = f"int(blockIdx.{dim} * blockDim.{dim} + threadIdx.{dim})"
        else:
            rhs = f"int({what}.{dim})"
        self.define(op.results[0], rhs)
    return emit


def _value(rhs: str):
    def emit(self: FunctionEmitter, op: Any) -> None:
        self.define(op.results[0], rhs)
    return emit


emits(gpu.ThreadIdOp)(_dimension("threadIdx"))
emits(gpu.BlockIdOp)(_dimension("blockIdx"))
emits(gpu.BlockDimOp)(_dimension("blockDim"))
emits(gpu.GridDimOp)(_dimension("gridDim"))
emits(gpu.GlobalIdOp)(_dimension("global_id"))
emits(gpu.LaneIdOp)(_value("int(lane_id())"))
emits(gpu.SubgroupSizeOp)(_value("warpSize"))
emits(gpu.SubgroupIdOp)(_value("int(linear_thread_id() / warpSize)"))
emits(gpu.NumSubgroupsOp)(_value("int((blockDim.x * blockDim.y * blockDim.z + warpSize - 1) / warpSize)"))


@emits(gpu.BarrierOp)
def barrier(self: FunctionEmitter, op: Any) -> None:
    self.emit("__syncthreads();")


@emits(gpu.ReturnOp)
def return_(self: FunctionEmitter, op: Any) -> None:
    parent = op.parent_op()
    if parent is not self.func:
        self.emit("return;")


def combine(kind: str, a: str, b: str, t: Scalar) -> str:
    """``a <kind> b`` for a reduction kind (add, mul, maxnumf, ...), in t's own rounding."""
    if t.is_16bit_float:
        to = f"{'f16' if t.bits == 16 else 'bf16'}_to_float"
        back = f"float_to_{'f16' if t.bits == 16 else 'bf16'}"
        return f"{back}({combine(kind, f'{to}({a})', f'{to}({b})', Scalar('float', 32))})"
    suffix = "" if t.bits == 64 else "f"
    table = {"add": f"{a} + {b}", "mul": f"{a} * {b}", "and": f"{a} & {b}", "or": f"{a} | {b}",
             "xor": f"{a} ^ {b}", "maxsi": f"max({a}, {b})", "minsi": f"min({a}, {b})",
             "maxui": cast(t.c, f"max({unsigned(a, t)}, {unsigned(b, t)})"),
             "minui": cast(t.c, f"min({unsigned(a, t)}, {unsigned(b, t)})"),
             "maxnumf": f"fmax{suffix}({a}, {b})", "minnumf": f"fmin{suffix}({a}, {b})",
             "maximumf": f"maximumf({a}, {b})", "minimumf": f"minimumf({a}, {b})"}
    if kind not in table:
        raise LayoutError(f"reduction kind: not supported by the CUDA backend: {quote(kind)}")
    return table[kind]


def _shuffle_call(kind: str, value: str, t: Scalar, lane: str, width: str) -> str:
    """``__shfl_<kind>_sync`` of a value of type t (16-bit and bool values go as 32 bits)."""
    function = {"xor": "__shfl_xor_sync", "idx": "__shfl_sync", "up": "__shfl_up_sync",
                "down": "__shfl_down_sync"}[kind]
    width_arg = "" if width in ("32", str(WARP_SIZE)) else f", {width}"
    if t.bits in (1, 8, 16, 17):
        call = f"{function}({FULL_MASK}, (unsigned){paren(value)}, {lane}{width_arg})"
        return f"({t.c}){call}" if t.bits != 1 else f"bool({call})"
    return f"{function}({FULL_MASK}, {value}, {lane}{width_arg})"


@emits(gpu.ShuffleOp)
def shuffle(self: FunctionEmitter, op: Any) -> None:
    """``gpu.shuffle``: lane k of a segment of ``width`` lanes reads lane ``k ^ offset``,
    ``offset`` (idx), ``k - offset`` (up) or ``k + offset`` (down) of its segment; when that
    is outside ``[0, width)``, ``valid`` is false and (as in the simulator) k keeps its own value.

    PTX's ``shfl.sync`` agrees only while the offset is in range: it wraps an idx offset to
    ``offset % width`` and reads offsets modulo 32. So a constant in-range offset with a
    power-of-two width is one ``__shfl_xor_sync(mask, x, 16)``; anything else computes the
    source lane and reads it with one ``__shfl_sync``, its own lane when out of range::

        const int y_position = int(lane_id()) % 16;
        const int y_source = o;
        const bool ok = y_source >= 0 && y_source < 16;
        const float y = __shfl_sync(0xffffffffu, x, ok ? int(lane_id()) - y_position + y_source : int(lane_id()));
    """
    mode = enum_text(prop(op, "mode"))
    if mode not in ("xor", "idx", "up", "down"):
        raise self.error(op, f"unknown shuffle mode {quote(mode)}")
    value, offset, width = (self.expr(v) for v in op.operands[:3])
    vtype = value_type(op.operands[0].type)
    if isinstance(vtype, VectorT):
        raise self.error(op, "shuffles of vectors are not supported; shuffle each element")
    if re.fullmatch(r"-?\d+", width) and not 1 <= int(width) <= WARP_SIZE:
        raise self.error(op, f"width must be from 1 to {WARP_SIZE} lanes, got {width}")
    wants_valid = len(op.results) > 1 and _has_uses(op.results[1])
    if _shuffle_stays_in_range(mode, offset, width):
        self.define(op.results[0], _shuffle_call(mode, value, vtype, offset, width))
        if wants_valid:  # always true for xor and idx here; up and down check their end
            position = "int(lane_id())" if width == "32" else f"int(lane_id()) % {width}"
            self.define(op.results[1], {"xor": "true", "idx": "true",
                                        "up": f"{position} >= {offset}",
                                        "down": f"{position} + {offset} < {width}"}[mode])
        return
    result_name = self.name_of(op.results[0])
    lane = "int(lane_id())"
    position = self.fresh(f"{result_name}_position")
    self.emit(f"const int {position} = {lane} % {paren(width)};")
    source = self.fresh(f"{result_name}_source")
    offset_ = paren(offset)
    self.emit(f"const int {source} = " + {"xor": f"{position} ^ {offset_}", "idx": offset,
                                          "up": f"{position} - {offset_}",
                                          "down": f"{position} + {offset_}"}[mode] + ";")
    valid = self.name_of(op.results[1], "valid") if wants_valid else self.fresh(f"{result_name}_valid")
    self.emit(f"const bool {valid} = {source} >= 0 && {source} < {paren(width)};")
    if wants_valid:
        self.exprs[op.results[1]] = valid
    absolute = f"{valid} ? {lane} - {position} + {source} : {lane}"
    self.emit(f"const {vtype.c} {result_name} = {_shuffle_call('idx', value, vtype, absolute, '32')};")
    self.exprs[op.results[0]] = result_name


def _shuffle_stays_in_range(mode: str, offset: str, width: str) -> bool:
    """True when PTX's own shuffle of ``mode`` gives gpu.shuffle's result on every lane: a
    constant power-of-two width and a constant offset below it (below 32 for up and down,
    whose out-of-range lanes PTX also leaves with their own value)."""
    if not (offset.isdigit() and width.isdigit()):
        return False
    w, o = int(width), int(offset)
    if not (1 <= w <= WARP_SIZE and w & (w - 1) == 0):
        return False
    return o < (w if mode in ("xor", "idx") else WARP_SIZE)


def _has_uses(value: Any) -> bool:
    uses = getattr(value, "uses", None)
    return True if uses is None else next(iter(uses), None) is not None


@emits(gpu.SubgroupReduceOp)
def subgroup_reduce(self: FunctionEmitter, op: Any) -> None:
    kind = enum_text(prop(op, "op"))
    rtype = value_type(op.results[0].type)
    if isinstance(rtype, VectorT):
        raise self.error(op, "vector subgroup reductions are not supported; reduce each element")
    cluster = prop(op, "cluster_size")
    stride_attr = prop(op, "cluster_stride")
    size = int(cluster.value.data) if cluster is not None and hasattr(cluster, "value") else WARP_SIZE
    stride = int(stride_attr.value.data) if stride_attr is not None and hasattr(stride_attr, "value") else 1
    name = self.name_of(op.results[0])
    self.emit(f"{rtype.c} {name} = {self.expr(op.operands[0])};  // {kind} over {size} lanes (butterfly)")
    offset = self.fresh("offset")
    self.emit("#pragma unroll")
    partner = _shuffle_call("xor", name, rtype, offset, "32")
    self.emit(f"for (int {offset} = {size // 2 * stride}; {offset} >= {stride}; {offset} /= 2) "
              f"{name} = {combine(kind, name, partner, rtype)};")
    self.exprs[op.results[0]] = name
