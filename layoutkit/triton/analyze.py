"""``analyze``: the cost of every layout-bearing op of a TTGIR module, one row per op, with
the user's source line, totals per kernel and the hot spots.

Rows by kind (costs per block of ``ttg.num-warps`` warps unless said per thread):

- ``convert_layout`` -- ``ttg.convert_layout``: :func:`layoutkit.convert.conversion_cost` of
  the pair on the tensor's shape and element type: the planner's kind (no-op, registers,
  shuffle, shared), instructions per thread by kind, scratch bytes, store and load wavefronts
  against their lower bounds, barriers;
- ``shared_memory`` -- ``ttg.local_alloc`` (with a value), ``local_store``, ``local_load``,
  ``async_copy_global_to_local``: :func:`layoutkit.analysis.shared_access` of the register
  layout on the memdesc's shared encoding (a view's offsets inside its allocation): vector
  width, instructions per thread, bank wavefronts against the lower bound, in total and per
  warp request; an async copy's vector is capped by its pointers' axis info;
  ``local_alloc`` also counts the bytes it allocates;
- ``shared_view`` -- ``ttg.local_alloc`` without a value and ``memdesc_index`` / ``_subslice``
  / ``_trans`` / ``_reshape`` / ``_reinterpret``: the encoding and bytes, no instructions;
- ``global_memory`` -- ``tt.load`` / ``tt.store`` / ``amdg.buffer_load`` / ``buffer_store``
  of tensors: the pointers' axis info (:mod:`layoutkit.triton.axis_walk`) gives the vector
  width (contiguity, divisibility, mask constancy) and the addresses
  (:func:`layoutkit.analysis.axis_info.model_offsets`) whose 32-byte sectors per warp request
  :func:`layoutkit.analysis.global_access` counts against the minimum;
- ``dot`` -- ``tt.dot`` / ``ttng.warp_group_dot``: the instruction (``mma.sync m16n8k16``,
  ``wgmma m64n128k16``, ``mfma 32x32x8``, ``fma``), operand and accumulator layouts, registers
  per thread.

Each row's ``transactions`` (shared wavefronts, global sectors and shuffles, per block) rank
the hot spots.

Example::

    >>> from layoutkit.triton import analyze
    >>> report = analyze(open("full.cuda-80.ttgir").read())         # doctest: +SKIP
    >>> report.totals["matmul"]["convert_layout"]["count"]          # doctest: +SKIP
    1
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from layoutkit.analysis import axis_info as ax
from layoutkit.analysis.access import (
    global_access,
    memory_offsets,
    registers_per_thread,
    shared_access,
)
from layoutkit.analysis.hardware import element_bytes
from layoutkit.analysis.matrix_access import matrix_access, supports
from layoutkit.convert import conversion_cost
from layoutkit.errors import LayoutError

#: op names per row kind
SHARED_ACCESS_OPS = ("ttg.local_alloc", "ttg.local_store", "ttg.local_load", "ttg.async_copy_global_to_local")
VIEW_OPS = ("ttg.memdesc_index", "ttg.memdesc_subslice", "ttg.memdesc_trans", "ttg.memdesc_reshape",
            "ttg.memdesc_reinterpret")
GLOBAL_OPS = ("tt.load", "tt.store", "amdg.buffer_load", "amdg.buffer_store")
DOT_OPS = ("tt.dot", "ttng.warp_group_dot")
#: every op that gets a row (a local_alloc without a value is a view row)
LAYOUT_OPS = ("ttg.convert_layout", *SHARED_ACCESS_OPS, *VIEW_OPS, *GLOBAL_OPS, *DOT_OPS)


@dataclass(frozen=True)
class Row:
    """One layout-bearing op: where it is, what kind of cost, and the cost."""

    kernel: str
    op: str
    kind: str
    file: str | None
    line: int | None
    column: int | None
    ir_line: int | None
    loop_depth: int
    cost: dict[str, Any]
    summary: str
    transactions: int = 0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {"kernel": self.kernel, "op": self.op, "kind": self.kind, "file": self.file,
                "line": self.line, "column": self.column, "ir_line": self.ir_line,
                "loop_depth": self.loop_depth, "transactions": self.transactions, "cost": self.cost,
                "summary": self.summary}
        if self.error is not None:
            data["error"] = self.error
        return data


@dataclass(frozen=True)
class Report:
    """Every row of every kernel, the totals per kernel and the module's attributes."""

    rows: tuple[Row, ...]
    totals: dict[str, dict[str, dict[str, int]]]
    target: str | None = None
    num_warps: int | None = None
    threads_per_warp: int | None = None
    source: str | None = field(default=None)

    def hot_spots(self, top: int = 5) -> list[Row]:
        """The ``top`` rows with the most transactions (shared wavefronts, global sectors,
        shuffles per block)."""
        ranked = sorted((r for r in self.rows if r.transactions > 0), key=lambda r: -r.transactions)
        return ranked[:max(0, int(top))]

    def to_dict(self, top: int = 5) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "num_warps": self.num_warps,
                "threads_per_warp": self.threads_per_warp, "rows": [r.to_dict() for r in self.rows],
                "totals": self.totals,
                "hot_spots": [{"op": r.op, "kernel": r.kernel, "line": r.line, "ir_line": r.ir_line,
                               "transactions": r.transactions, "summary": r.summary}
                              for r in self.hot_spots(top)]}

    def text(self, top: int = 5) -> str:
        """The report as aligned text: per kernel its rows, its totals; then the hot spots."""
        out = [f"layoutkit analyze: {self.source or '<module>'} (target {self.target}, "
               f"{self.num_warps} warps of {self.threads_per_warp} threads)"]
        for kernel, totals in self.totals.items():
            out.append("")
            out.append(f"kernel {kernel}")
            rows = [r for r in self.rows if r.kernel == kernel]
            for r in rows:
                where = f"{_short_file(r.file)}:{r.line}" if r.line is not None else f"ir:{r.ir_line}"
                loop = " [loop]" if r.loop_depth else ""
                out.append(f"  {where:<22} {r.op:<34} {r.summary}{loop}")
            cv, sm, gm, dt = (totals[k] for k in ("convert_layout", "shared_memory", "global_memory", "dot"))
            out.append(f"  totals: convert_layout {cv['count']} op(s), {cv['instructions']} instr/thread, "
                       f"{cv['shared_wavefronts']} wavefronts, {cv['shared_bytes']} B scratch, "
                       f"{cv['barriers']} barrier(s)")
            out.append(f"          shared_memory {sm['count']} op(s), {sm['instructions']} instr/thread, "
                       f"{sm['wavefronts']} wavefronts (lower bound {sm['lower_bound']}), {sm['bytes']} B allocated")
            out.append(f"          global_memory {gm['count']} op(s), {gm['instructions']} instr/thread, "
                       f"{gm['sectors']} sectors (minimum {gm['minimum_sectors']}); dot {dt['count']} op(s)")
        spots = self.hot_spots(top)
        if spots:
            out.append("")
            out.append(f"hot spots (top {len(spots)} by transactions per block):")
            for i, r in enumerate(spots, 1):
                where = f"{_short_file(r.file)}:{r.line}" if r.line is not None else f"ir:{r.ir_line}"
                out.append(f"  {i}. {where} {r.op} ({r.kernel}): {r.transactions} -- {r.summary}")
        return "\n".join(out) + "\n"


def _short_file(path: str | None) -> str:
    return path.rsplit("/", 1)[-1] if path else "?"


# -- the alias names a reader sees ---------------------------------------------------------------

_ALIAS = re.compile(r"^#([\w.$-]+)\s*=\s*(#\w+\.\w+<.*>)\s*$", re.MULTILINE)


def alias_names(text: str) -> dict[Any, str]:
    """Layout value -> ``#alias`` for the layout aliases defined in ``text``."""
    from layoutkit.layouts.parse import parse_layout

    names: dict[Any, str] = {}
    aliases: dict[str, str] = {}
    for match in _ALIAS.finditer(text or ""):
        aliases[match[1]] = match[2]
        try:
            names.setdefault(parse_layout(match[2], aliases=aliases), f"#{match[1]}")
        except (LayoutError, TypeError):
            continue
    return names


def layout_name(layout: Any, names: dict[Any, str]) -> str:
    try:
        found = names.get(layout)
    except TypeError:
        found = None
    if found:
        return found
    text = str(layout)
    for value, alias in sorted(names.items(), key=lambda item: -len(str(item[0]))):
        text = text.replace(str(value), alias)
    return text


# -- costs ---------------------------------------------------------------------------------------

def convert_cost(src: Any, dst: Any, shape: tuple[int, ...], dtype: str) -> dict[str, Any]:
    """A ``ttg.convert_layout`` row's cost: the planner's, plus its sums."""
    cost = conversion_cost(src, dst, shape, dtype)
    data = cost.to_dict()
    data["instructions_total"] = int(sum(cost.instructions.values()))
    data["shared_wavefronts"] = cost.store_wavefronts + cost.load_wavefronts
    data["shared_lower_bound"] = cost.store_lower_bound + cost.load_lower_bound
    data["shared_bytes"] = cost.scratch_bytes
    return data


def view_offsets(encoding: Any, shape: tuple[int, ...], alloc_shape: tuple[int, ...],
                 origin: tuple[int, ...]) -> np.ndarray:
    """Element offsets ``[flat element of the view]`` of a memdesc view of ``shape`` at
    ``origin`` inside an allocation of ``alloc_shape`` (its last ``len(shape)`` dims) laid out
    by ``encoding``. Worked example: a 128x16 view at [0, 16] of a 128x64 row-major buffer has
    element (i, j) at ``64 * i + 16 + j``."""
    inner = tuple(alloc_shape[-len(shape):]) if len(alloc_shape) >= len(shape) else tuple(shape)
    offsets = memory_offsets(encoding, inner).reshape(inner)
    index = tuple(slice(o, o + s) for o, s in zip(origin, shape))
    view = offsets[index]
    if view.shape != tuple(shape):
        raise LayoutError(f"memdesc: a {list(shape)} view at {list(origin)} does not fit its allocation {list(inner)}")
    return view.reshape(-1)


def shared_cost(layout: Any, offsets: np.ndarray, shape: tuple[int, ...], dtype: str,
                vector_cap: int | None = None) -> dict[str, Any]:
    """A shared-memory access row's cost: vector, instructions, wavefronts (total and per warp
    request) against the lower bound."""
    report = shared_access(layout, offsets, shape, dtype)
    if vector_cap is not None and report.vector > vector_cap:
        report = shared_access(layout, offsets, shape, dtype, vector=_pow2_floor(vector_cap))
    waves, lower = report.per_request
    requests = max(1, int(waves.size))
    return {"vector": report.vector, "vector_bytes": report.vector_bytes,
            "instructions": report.instructions, "wavefronts": report.wavefronts,
            "lower_bound": report.lower_bound, "requests": int(waves.size),
            "wavefronts_per_request": round(report.wavefronts / requests, 3),
            "lower_bound_per_request": round(report.lower_bound / requests, 3),
            "ratio": round(report.ratio, 3)}


def global_cost(layout: Any, info: ax.AxisInfo, mask: ax.AxisInfo | None, shape: tuple[int, ...],
                dtype: str) -> dict[str, Any]:
    """A global load or store row's cost from the pointers' axis info and the layout."""
    eb = element_bytes(dtype)
    offsets = ax.model_offsets(info, shape, eb)
    limit = ax.vector_limit(info, eb)
    if mask is not None:
        limit = min(limit, mask.constancy[ax.fastest_dim(info)])
    report = global_access(layout, shape, dtype, offsets=offsets)
    if report.vector > limit:
        report = global_access(layout, shape, dtype, offsets=offsets, vector=_pow2_floor(limit))
    sectors, minimum = report.per_request
    requests = max(1, int(sectors.size))
    return {"vector": report.vector, "vector_bytes": report.vector_bytes,
            "instructions": report.instructions, "sectors": report.sectors,
            "minimum_sectors": report.minimum_sectors, "requests": int(sectors.size),
            "sectors_per_request": round(report.sectors / requests, 3),
            "minimum_per_request": round(report.minimum_sectors / requests, 3),
            "efficiency": round(report.efficiency, 3), "axis_info": info.to_dict(),
            "mask_constancy": None if mask is None else list(mask.constancy)}


def _pow2_floor(value: int) -> int:
    return 1 << (max(1, int(value)).bit_length() - 1)


def dot_instruction(acc_layout: Any, a_dtype: str) -> str:
    """The hardware instruction a dot with accumulator layout ``acc_layout`` issues:
    ``mma.sync m16n8k16`` for f16 operands of an Ampere mma (``k = 256 / operand bits``),
    ``wgmma m64n128k16`` for Hopper (a warp group of 4 warps x 16 rows), ``mfma 32x32x8``."""
    text = str(acc_layout)
    shape = tuple(getattr(acc_layout, "instr_shape", None) or ())
    if text.startswith("#ttg.nvidia_mma"):
        if acc_layout.version_major == 2 and len(shape) == 2:
            k = 256 // (element_bytes(a_dtype) * 8)
            return f"mma.sync m{shape[0]}n{shape[1]}k{k}"
        if acc_layout.version_major == 3 and len(shape) == 3:
            return f"wgmma m{shape[0] * 4}n{shape[1]}k{shape[2]}"
        return f"mma v{acc_layout.version_major} {'x'.join(map(str, shape))}"
    if text.startswith("#ttg.amd_mfma"):
        return "mfma " + "x".join(map(str, shape))
    if text.startswith("#ttg.amd_wmma"):
        return "wmma " + "x".join(map(str, shape))
    return "fma"


# -- per-op rows ---------------------------------------------------------------------------------

def _bytes_of(shape: tuple[int, ...], dtype: str) -> int:
    return int(math.prod(shape)) * element_bytes(dtype)


# -- the walk over the IR --------------------------------------------------------------------------

def _module_attr(module: Any, name: str) -> Any:
    attr = module.attributes.get(name)
    if attr is None:
        return None
    value = getattr(attr, "value", None)
    if value is not None and hasattr(value, "data"):
        return int(value.data)
    return getattr(attr, "data", str(attr))


def _dtype(t: Any) -> str:
    return str(t.element_type if hasattr(t, "element_type") else t)


def _shape(t: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in t.get_shape())


def _layout(t: Any) -> Any:
    encoding = getattr(t, "encoding", None)
    layout = getattr(encoding, "layout", None)
    if layout is None:
        raise LayoutError(f"type: {t} has no layout encoding")
    return layout


class _Kernel:
    """The rows of one ``tt.func``."""

    def __init__(self, func: Any, names: dict[Any, str], num_warps: int, target: str | None = None) -> None:
        from layoutkit.triton.axis_walk import axis_infos

        self.func = func
        self.kernel = func.sym_name.data
        self.names = names
        self.num_warps = num_warps or 1
        self.target = target
        self.infos = axis_infos(func)
        self.rows: list[Row] = []
        self.ops: list[Any] = []  # the op of each row (the run report joins rows by op)
        self.origins: dict[Any, tuple[int, ...]] = {}

    def info(self, value: Any) -> ax.AxisInfo:
        from layoutkit.triton.axis_walk import _rank

        found = self.infos.get(value)
        return found if found is not None else ax.unknown(_rank(value))

    def walk(self, block: Any, depth: int = 0) -> None:
        for op in block.ops:
            if op.name in LAYOUT_OPS and not _scalar_access(op):
                self.rows.append(self.row(op, depth))
                self.ops.append(op)
            inner = depth + 1 if op.name in ("scf.for", "scf.while") else depth
            for region in op.regions:
                for child in region.blocks:
                    self.walk(child, inner)

    def name(self, layout: Any) -> str:
        return layout_name(layout, self.names)

    # -- one row ------------------------------------------------------------------------------
    def row(self, op: Any, depth: int) -> Row:
        from layoutkit.ir import op_line
        from layoutkit.ir.locations import op_source

        where = op_source(op) or (None, None, None)
        common = dict(kernel=self.kernel, op=op.name, file=where[0], line=where[1], column=where[2],
                      ir_line=op_line(op), loop_depth=depth)
        kind = _KIND.get(op.name, "shared_memory")
        try:
            kind, cost, summary, transactions = self.cost(op)
        except LayoutError as err:
            return Row(kind=kind, cost={}, summary=f"error: {err}", error=str(err), **common)
        return Row(kind=kind, cost=cost, summary=summary, transactions=int(transactions), **common)

    def cost(self, op: Any) -> tuple[str, dict[str, Any], str, int]:
        name = op.name
        if name == "ttg.convert_layout":
            src_t, dst_t = op.operands[0].type, op.results[0].type
            src, dst, shape, dtype = _layout(src_t), _layout(dst_t), _shape(src_t), _dtype(src_t)
            cost = convert_cost(src, dst, shape, dtype)
            cost.update(src=self.name(src), dst=self.name(dst), shape=list(shape), dtype=dtype)
            shuffles = cost["instructions"].get("shfl", 0) + cost["instructions"].get("select", 0)
            transactions = cost["shared_wavefronts"] + shuffles * self.num_warps
            text = f"{cost['kind']}: {cost['src']} -> {cost['dst']} {'x'.join(map(str, shape))}x{dtype}; " + \
                   ", ".join(f"{v} {k}" for k, v in cost["instructions"].items())
            if cost["kind"] == "shared":
                text += (f"; st {cost['store_wavefronts']}/{cost['store_lower_bound']} ld "
                         f"{cost['load_wavefronts']}/{cost['load_lower_bound']} wavefronts, "
                         f"{cost['scratch_bytes']} B, {cost['barriers']} barrier(s)")
            return "convert_layout", cost, text, transactions
        if name in VIEW_OPS or (name == "ttg.local_alloc" and not op.operands):
            mem_t = op.results[0].type
            if name == "ttg.memdesc_subslice":
                origin = self.origin(op.operands[0])
                offsets = [int(v) for v in op.offsets.get_values()]
                if len(origin) == len(offsets):
                    self.origins[op.results[0]] = tuple(a + b for a, b in zip(origin, offsets))
            shape, alloc = _shape(mem_t), tuple(int(d) for d in mem_t.get_alloc_shape())
            dtype = _dtype(mem_t)
            layout = _layout(mem_t)
            nbytes = _bytes_of(alloc if name == "ttg.local_alloc" else shape, dtype)
            cost = {"encoding": self.name(layout), "shape": list(shape), "alloc_shape": list(alloc),
                    "dtype": dtype, "bytes": nbytes, "instructions": 0, "wavefronts": 0, "lower_bound": 0}
            kind = "shared_memory" if name == "ttg.local_alloc" else "shared_view"
            verb = "allocates" if name == "ttg.local_alloc" else "views"
            return kind, cost, f"{verb} {'x'.join(map(str, shape))}x{dtype} {cost['encoding']} ({nbytes} B)", 0
        if name in SHARED_ACCESS_OPS:
            return self.shared(op)
        if name in GLOBAL_OPS:
            return self.global_(op)
        return self.dot(op)

    def origin(self, value: Any) -> tuple[int, ...]:
        found = self.origins.get(value)
        return found if found is not None else (0,) * len(_shape(value.type))

    def shared(self, op: Any) -> tuple[str, dict[str, Any], str, int]:
        name = op.name
        cap = None
        if name == "ttg.local_load":
            mem, tensor_t = op.operands[0], op.results[0].type
        elif name == "ttg.local_alloc":
            mem, tensor_t = op.results[0], op.operands[0].type
        elif name == "ttg.local_store":
            mem, tensor_t = op.operands[1], op.operands[0].type
        else:  # async copy: pointers -> memdesc
            mem, tensor_t = op.operands[1], op.operands[0].type
            ptrs = self.info(op.operands[0])
            elem = element_bytes(_dtype(mem.type))
            cap = ax.vector_limit(ptrs, elem)
            if op.mask is not None:
                cap = min(cap, self.info(op.mask).constancy[ax.fastest_dim(ptrs)])
        mem_t = mem.type
        shape, alloc = _shape(mem_t), tuple(int(d) for d in mem_t.get_alloc_shape())
        dtype = _dtype(mem_t)
        layout, encoding = _layout(tensor_t), _layout(mem_t)
        offsets = view_offsets(encoding, shape, alloc, self.origin(mem))
        cost = shared_cost(layout, offsets, shape, dtype, cap)
        matrix = None
        if name != "ttg.async_copy_global_to_local" and supports(self.target, name != "ttg.local_load"):
            matrix = matrix_access(layout, offsets, shape, dtype, store=name != "ttg.local_load")
        if matrix is not None:  # Triton's ldmatrix / stmatrix replace the vector accesses
            word_bytes = 4 * matrix.per_instruction  # one 32-bit word per matrix and thread
            cost.update(instruction=matrix.name, vector=word_bytes // element_bytes(dtype), vector_bytes=word_bytes,
                        instructions=matrix.instructions, wavefronts=matrix.wavefronts,
                        lower_bound=matrix.lower_bound,
                        ratio=round(matrix.wavefronts / matrix.lower_bound, 3) if matrix.lower_bound else 1.0)
        allocated = _bytes_of(alloc, dtype) if name == "ttg.local_alloc" else 0
        cost.update(layout=self.name(layout), encoding=self.name(encoding), shape=list(shape), dtype=dtype,
                    bytes=allocated)
        text = (f"{cost['layout']} {'->' if name != 'ttg.local_load' else '<-'} {cost['encoding']} "
                f"{'x'.join(map(str, shape))}x{dtype}: "
                f"{matrix.name if matrix else 'vec ' + str(cost['vector'])}, {cost['instructions']} instr/thread, "
                f"{cost['wavefronts']}/{cost['lower_bound']} wavefronts")
        if allocated:
            text += f", allocates {allocated} B"
        transactions = cost["wavefronts"]
        if name == "ttg.async_copy_global_to_local":
            mask = self.info(op.mask) if op.mask is not None else None
            cost["global"] = global_cost(layout, self.info(op.operands[0]), mask, shape, dtype)
            text += f"; global {cost['global']['sectors']}/{cost['global']['minimum_sectors']} sectors"
            transactions += cost["global"]["sectors"]
        return "shared_memory", cost, text, transactions

    def global_(self, op: Any) -> tuple[str, dict[str, Any], str, int]:
        from xdsl.dialects.builtin import TensorType

        from layoutkit.triton.axis_walk import pointee_bytes

        name = op.name
        if name in ("tt.load", "tt.store"):
            ptr_t = op.ptr.type
            if not isinstance(ptr_t, TensorType):
                raise LayoutError(f"{name}: a scalar pointer has no layout")
            value_t = op.results[0].type if name == "tt.load" else op.value.type
            info, layout = self.info(op.ptr), _layout(ptr_t)
        else:
            value_t = op.results[0].type if name == "amdg.buffer_load" else op.value.type
            base = self.info(op.ptr)
            offsets_info = self.info(op.offsets)
            info = ax.addptr(ax.splat(base, _shape(op.offsets.type)), offsets_info, pointee_bytes(op.ptr))
            layout = _layout(op.offsets.type)
        shape, dtype = _shape(value_t), _dtype(value_t)
        mask = self.info(op.mask) if op.mask is not None else None
        cost = global_cost(layout, info, mask, shape, dtype)
        cost.update(layout=self.name(layout), shape=list(shape), dtype=dtype)
        text = (f"{cost['layout']} {'x'.join(map(str, shape))}x{dtype}: vec {cost['vector']} "
                f"({cost['vector_bytes']} B), {cost['instructions']} instr/thread, "
                f"{cost['sectors']}/{cost['minimum_sectors']} sectors")
        return "global_memory", cost, text, cost["sectors"]

    def dot(self, op: Any) -> tuple[str, dict[str, Any], str, int]:
        from xdsl.dialects.builtin import TensorType

        a_t, b_t, d_t = op.a.type, op.b.type, op.d.type
        acc = _layout(d_t)
        a_dtype = _dtype(a_t)
        operands = {}
        for label, t in (("a", a_t), ("b", b_t)):
            layout = _layout(t)
            if isinstance(t, TensorType):
                operands[label] = {"layout": self.name(layout), "registers": registers_per_thread(layout, _shape(t)),
                                   "shape": list(_shape(t)), "dtype": _dtype(t)}
            else:
                operands[label] = {"layout": self.name(layout), "registers": 0, "shared": True,
                                   "shape": list(_shape(t)), "dtype": _dtype(t)}
        instruction = dot_instruction(acc, a_dtype)
        m, n = _shape(d_t)[-2:]
        k = _shape(a_t)[-1]
        cost = {"instruction": instruction, "a": operands["a"], "b": operands["b"],
                "accumulator": {"layout": self.name(acc), "registers": registers_per_thread(acc, _shape(d_t)),
                                "shape": list(_shape(d_t)), "dtype": _dtype(d_t)},
                "mnk": [m, n, k]}
        regs = "+".join(str(cost[x]["registers"]) if x == "accumulator" or cost[x]["registers"] else "smem"
                        for x in ("a", "b", "accumulator"))
        text = (f"{instruction} {m}x{n}x{k}: a {operands['a']['layout']}, b {operands['b']['layout']}, "
                f"acc {cost['accumulator']['layout']}; registers/thread a+b+acc {regs}")
        return "dot", cost, text, 0


def _scalar_access(op: Any) -> bool:
    """A ``tt.load`` / ``tt.store`` of one scalar: no layout, no row."""
    from xdsl.dialects.builtin import TensorType

    return op.name in ("tt.load", "tt.store") and not isinstance(op.ptr.type, TensorType)


_KIND = {"ttg.convert_layout": "convert_layout", **{n: "global_memory" for n in GLOBAL_OPS},
         **{n: "dot" for n in DOT_OPS}, **{n: "shared_view" for n in VIEW_OPS}}


def _totals(rows: list[Row]) -> dict[str, dict[str, int]]:
    def of(kind: str) -> list[Row]:
        return [r for r in rows if r.kind == kind and r.error is None]

    cv, sm, gm = of("convert_layout"), of("shared_memory"), of("global_memory")
    kinds: dict[str, int] = {}
    for r in cv:
        kinds[r.cost["kind"]] = kinds.get(r.cost["kind"], 0) + 1
    return {
        "convert_layout": {"count": len(cv), "instructions": sum(r.cost["instructions_total"] for r in cv),
                           "shared_wavefronts": sum(r.cost["shared_wavefronts"] for r in cv),
                           "shared_lower_bound": sum(r.cost["shared_lower_bound"] for r in cv),
                           "shared_bytes": sum(r.cost["shared_bytes"] for r in cv),
                           "barriers": sum(r.cost["barriers"] for r in cv), "by_kind": kinds},
        "shared_memory": {"count": len(sm), "instructions": sum(r.cost["instructions"] for r in sm),
                          "wavefronts": sum(r.cost["wavefronts"] for r in sm),
                          "lower_bound": sum(r.cost["lower_bound"] for r in sm),
                          "bytes": sum(r.cost["bytes"] for r in sm)},
        "global_memory": {"count": len(gm), "instructions": sum(r.cost["instructions"] for r in gm),
                          "sectors": sum(r.cost["sectors"] for r in gm),
                          "minimum_sectors": sum(r.cost["minimum_sectors"] for r in gm)},
        "dot": {"count": len(of("dot"))},
        "views": {"count": len(of("shared_view"))},
        "errors": {"count": sum(1 for r in rows if r.error is not None)},
    }


def analyze(module_or_text: Any, source: str | None = None, text: str | None = None) -> Report:
    """The report of every ``tt.func`` of a TTGIR module (an xDSL module or its text;
    ``text``, when a module is given, names its layout aliases as the file does)."""
    from layoutkit.ir import parse_module

    if isinstance(module_or_text, str):
        text = module_or_text
    module = parse_module(module_or_text) if isinstance(module_or_text, str) else module_or_text
    names = alias_names(text or "")
    num_warps = _module_attr(module, "ttg.num-warps")
    rows: list[Row] = []
    totals: dict[str, dict[str, dict[str, int]]] = {}
    for op in module.walk():
        if op.name != "tt.func" or not op.body.blocks:
            continue
        kernel = _Kernel(op, names, num_warps, _module_attr(module, "ttg.target"))
        kernel.walk(op.body.blocks.first)
        rows.extend(kernel.rows)
        totals[kernel.kernel] = _totals(kernel.rows)
    return Report(rows=tuple(rows), totals=totals, target=_module_attr(module, "ttg.target"),
                  num_warps=num_warps, threads_per_warp=_module_attr(module, "ttg.threads-per-warp"),
                  source=source)


__all__ = ["DOT_OPS", "analyze", "GLOBAL_OPS", "LAYOUT_OPS", "Report", "Row", "SHARED_ACCESS_OPS", "VIEW_OPS",
           "alias_names", "convert_cost", "dot_instruction", "global_cost", "layout_name", "shared_cost",
           "view_offsets"]
