"""The measured cost of a TTGIR run (``simulate --report``, ``result.report``): per op, with
its source line, what the run executed -- joined with the static cost
:func:`layoutkit.triton.analyze` gives the same op, so that both speak of one kernel.

Per op (a row):

- ``executions``: block-executions (each block that ran the op with an active thread counts
  once per time it ran: a loop body's op counts its trip count per block);
- ``thread_instructions``: by kind, active threads x instructions per thread of that kind.
  The instruction model: a ``tt.load``/``tt.store`` issues ``ld.global``/``st.global``
  vectors as analyze counts them (axis info caps the vector), a ``ttg.convert_layout`` the
  conversion plan's instructions (``shfl``, ``st.shared``, ``ld.shared``, ``bar.sync``, ...),
  a shared access its ``ld.shared``/``st.shared``/``ldmatrix``/``stmatrix``/``cp.async``
  instructions, a dot its ``mma``/``wgmma``/``mfma`` count (``fma``: one per multiply-add),
  any other op on a tensor one ``alu`` instruction per register, on scalars one;
- global memory (``tt.load``/``tt.store``/``async_copy_global_to_local``): 32-byte sectors
  of every warp request *as executed* -- the byte offsets the pointers really held, masked
  lanes left out -- against the minimum for the bytes touched; requests with no active
  lane are not issued;
- shared memory: bank wavefronts measured by the simulator (``stats.banks``) per access
  (an async copy's shared side, landing at its wait, as analyze counts it per execution);
- ``convert_layout``: the planner's kind, and per execution its instructions, wavefronts
  and barriers (the plan is what runs, so the numbers are the plan's).

``per_execution`` divides a measured total by ``executions``; on a launch where no lane is
masked it equals analyze's number for the op (tests check it on the goldens).

Worked example: ``vector_add`` (1024 elements per program, 4 f32 per thread, vector 1 because
``n`` is not known divisible by 16), grid 3 with n = 3000: each ``tt.load`` runs 3 times;
a request of 32 lanes reads one f32 every 16 bytes (16 sectors, minimum 4), so 3 x 512
sectors if nothing were masked; the last program's 72 masked elements (3072 - 3000) drop the
lanes that would read them: 1500 sectors in all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType

from layoutkit.errors import LayoutError

#: ops whose regions run per element (their ops are part of the op's own cost)
_ELEMENT_REGIONS = ("tt.reduce", "tt.scan", "tt.sort", "tt.map_elementwise")
#: kinds of the global-memory side
_GLOBAL_KIND = {"tt.load": "ld.global", "tt.store": "st.global"}
_SHARED_KIND = {"ttg.local_load": "ld.shared", "ttg.local_store": "st.shared", "ttg.local_alloc": "st.shared",
                "ttg.async_copy_global_to_local": "cp.async"}
_FREE = ("tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans", "tt.join", "tt.split",
         "ttg.memdesc_index", "ttg.memdesc_subslice", "ttg.memdesc_trans", "ttg.memdesc_reshape",
         "ttg.async_commit_group", "ttg.local_dealloc", "ttng.warp_group_dot_wait", "ttng.fence_async_shared")


@dataclass
class OpRecord:
    """What the run measured of one op (totals over the launch)."""

    op: Any
    static: Any = None  # analyze's Row of the op, if it has one
    executions: int = 0
    thread_instructions: dict[str, int] = field(default_factory=dict)
    per_thread: dict[str, int] | None = None  # instructions per thread by kind, set on first run
    sectors: int = 0
    minimum_sectors: int = 0
    requests: int = 0
    access: Any = None  # (vector, first register of each instruction per slot), for global ops
    last_full: Any = None  # (byte offsets, sectors, minimum, requests) of the last all-active run


_STATIC_ATTRIBUTE = "_layoutkit_cost_rows"


def _analyzed(func, num_warps: int, target, text: str | None):
    """(analyze's walk of ``func``, its rows by op)."""
    from layoutkit.triton.analyze import _Kernel, alias_names

    kernel = _Kernel(func, alias_names(text or ""), num_warps, target)
    kernel.walk(func.body.blocks.first)
    return kernel, dict(zip(kernel.ops, kernel.rows))


class Recorder:
    """Counts every op of a ``tt.func`` as it runs; handed to the machine through ``Stats``."""

    def __init__(self, func, module, text: str | None = None) -> None:
        from layoutkit.triton.analyze import _module_attr

        self.func = func
        self.num_warps = _module_attr(module, "ttg.num-warps") or 4
        self.target = _module_attr(module, "ttg.target")
        # analyze's rows, kept on the kernel op for later runs (as the machine keeps its plans)
        cached = func.__dict__.get(_STATIC_ATTRIBUTE)
        if cached is None:
            cached = func.__dict__[_STATIC_ATTRIBUTE] = (*_analyzed(func, self.num_warps, self.target, text), {})
        # the kernel's axis info gives the pointers' model offsets; accesses: global_instructions per op
        self.kernel, self.static, self.accesses = cached
        self.records: dict[Any, OpRecord] = {}

    def wrap(self, handler, op, block):
        """``handler`` counting each run of ``op`` (ops of per-element regions are not counted)."""
        parent = block.parent_op()
        if parent is not None and parent.name in _ELEMENT_REGIONS:
            return handler
        record = self.records.get(op)
        if record is None:
            record = self.records[op] = OpRecord(op, self.static.get(op))
        measure_global = op.name in (*_GLOBAL_KIND, "ttg.async_copy_global_to_local") and \
            isinstance(_pointer_operand(op).type, TensorType)

        def counted(m, op, mask, handler=handler, record=record):
            threads = int(np.count_nonzero(mask))
            if threads == mask.size:
                record.executions += m.chunk.blocks
            elif threads:
                record.executions += int(np.count_nonzero(mask.reshape(m.chunk.blocks, -1).any(axis=1)))
            if record.per_thread is None:
                record.per_thread = self.per_thread(m, op, record.static)
            for kind, count in record.per_thread.items():
                record.thread_instructions[kind] = record.thread_instructions.get(kind, 0) + count * threads
            if measure_global and threads:
                self.measure_global(m, op, mask, record)
            handler(m, op, mask)

        return counted

    # ------------------------------------------------------------------ instruction model
    def per_thread(self, m, op, row) -> dict[str, int]:
        """Instructions per thread by kind of one execution (see the module docstring)."""
        name = op.name
        cost = row.cost if row is not None and row.error is None else None
        if name == "ttg.convert_layout" and cost is not None:
            return {k: int(v) for k, v in cost["instructions"].items()}
        if name in _GLOBAL_KIND and cost is not None:
            return {_GLOBAL_KIND[name]: int(cost["instructions"])}
        if name == "ttg.local_alloc" and not op.operands:
            return {}
        if name in _SHARED_KIND and cost is not None:
            return {cost.get("instruction", _SHARED_KIND[name]).split(".x")[0]
                    if "matrix" in cost.get("instruction", "") else _SHARED_KIND[name]: int(cost["instructions"])}
        if name in ("tt.dot", "ttng.warp_group_dot") and cost is not None:
            return dot_instructions(cost, self.num_warps, m.geometry.warp_size)
        if name in ("tt.gather", "tt.histogram"):  # as the handler counts them (stats.counts)
            from layoutkit.backends.simt.ops.tt import gather_instructions, histogram_instructions

            return (gather_instructions if name == "tt.gather" else histogram_instructions)(m, op)
        if name in _FREE or name.startswith("scf."):
            return {}
        if name in ("tt.reduce", "tt.scan"):
            return reduction_instructions(m, op)
        result = op.results[0].type if op.results else None
        if isinstance(result, TensorType) and getattr(result, "encoding", None) is not None:
            return {"alu": m.distribution(op, result).registers}
        return {"alu": 1}

    # ------------------------------------------------------------------ global sectors
    def measure_global(self, m, op, mask, record: OpRecord) -> None:
        """Add this execution's sectors of every warp request (as executed) to ``record``."""
        from layoutkit.analysis.banks import SECTOR_BYTES, global_sectors

        ptr = _pointer_operand(op)
        if record.access is None:
            record.access = self.accesses.get(op)
            if record.access is None:
                record.access = self.accesses[op] = self.global_instructions(m, op, record.static)
        vector, first, itemsize = record.access  # first: (slots, instructions), -1 where none
        blocks, slots, lanes = m.chunk.blocks, m.geometry.slots_per_block, m.geometry.warp_size
        column = np.maximum(first, 0)
        rows = np.arange(slots)[:, None]
        pointers = m.value(ptr)
        if pointers.shape[0] == 1:  # the same pointers in every thread
            picked = np.broadcast_to(pointers[0], (max(pointers.shape[1], int(column.max()) + 1),))[column][None]
        else:
            picked = pointers.reshape(blocks, slots, -1)[:, rows, column]
        _, offsets = m.decode(op, picked)  # (blocks or 1, slots, instructions)
        active = _element_mask(m, op, mask)
        everyone = bool(active.all())
        if everyone and record.last_full is not None and record.last_full[0].shape == offsets.shape:
            # every address moved by the same multiple of the sector (and access) size since
            # the last all-active run (a loop stepping its pointers): the same counts
            before, *counts = record.last_full
            shift = int(offsets.flat[0]) - int(before.flat[0])
            if shift % max(SECTOR_BYTES, vector * itemsize) == 0 and \
                    np.array_equal(offsets, before + shift):
                record.sectors += counts[0]
                record.minimum_sectors += counts[1]
                record.requests += counts[2]
                return
        live = np.broadcast_to(first >= 0, (blocks, *first.shape))
        if not everyone:
            active = np.broadcast_to(active, (m.chunk.threads, max(active.shape[1], int(column.max()) + 1)))
            live = live & active.reshape(blocks, slots, -1)[:, rows, column]
        addresses = np.where(live, offsets, -1)
        # requests: (blocks, warps, instructions, lanes)
        requests = addresses.reshape(blocks, slots // lanes, lanes, -1).transpose(0, 1, 3, 2)
        sectors, minimum = global_sectors(requests, vector * itemsize)
        counts = (int(sectors.sum()), int(minimum.sum()),
                  int(np.count_nonzero(live.reshape(blocks, slots // lanes, lanes, -1).any(axis=2))))
        record.sectors += counts[0]
        record.minimum_sectors += counts[1]
        record.requests += counts[2]
        if everyone and (vector * itemsize) & (vector * itemsize - 1) == 0:
            record.last_full = (offsets, *counts)

    def global_instructions(self, m, op, row) -> tuple[int, np.ndarray, int]:
        """(vector, first register of each vector instruction per slot, element bytes) of a
        global access: analyze's vector (axis info) over runs of consecutive registers."""
        from layoutkit.analysis.axis_info import model_offsets
        from layoutkit.analysis.hardware import hardware_map
        from layoutkit.analysis.vectors import vectorize
        ptr = _pointer_operand(op)
        cost = row.cost.get("global", row.cost) if row is not None and row.error is None else None
        vector = int(cost["vector"]) if cost is not None else 1
        layout, shape = ptr.type.encoding.layout, tuple(ptr.type.get_shape())
        hmap = hardware_map(layout, shape)
        offsets = model_offsets(self.kernel.info(ptr), shape, _pointee_bytes(ptr))
        try:
            access = vectorize(offsets[hmap.elements], vector=vector, contiguous_registers=True)
        except LayoutError:
            vector, access = 1, vectorize(offsets[hmap.elements], vector=1, contiguous_registers=True)
        first = np.where(access.offsets >= 0, access.registers[..., 0], -1)  # (1, warps, lanes, instructions)
        return vector, first.reshape(m.geometry.slots_per_block, -1), _pointee_bytes(ptr)

    # ------------------------------------------------------------------ the report
    def report(self, kernel: str, seconds: float, banks: dict | None, counts: dict | None = None) -> RunReport:
        """The rows of every op that ran; ``counts`` (``Stats.counts``): thread-instructions
        by kind a handler counted itself (``tt.gather``'s shuffles), which replace the
        one-per-register model for that op."""
        from layoutkit.ir import op_line
        from layoutkit.ir.locations import op_source

        rows = []
        for op in self.func.walk():
            record = self.records.get(op)
            if record is None or record.executions == 0:
                continue
            source = op_source(op) or (None, None, None)
            kinds = dict(counts[op]) if counts and op in counts else dict(record.thread_instructions)
            row = {"op": op.name, "file": source[0], "line": source[1], "ir_line": op_line(op),
                   "executions": record.executions, "thread_instructions": kinds}
            static = record.static.cost if record.static is not None and record.static.error is None else None
            if record.requests or (op.name in (*_GLOBAL_KIND, "ttg.async_copy_global_to_local")
                                   and record.access is not None):
                row["global"] = {"vector": record.access[0], "requests": record.requests,
                                 "sectors": record.sectors, "minimum_sectors": record.minimum_sectors,
                                 "sectors_per_request": _ratio(record.sectors, record.requests),
                                 "minimum_per_request": _ratio(record.minimum_sectors, record.requests),
                                 "per_execution": _ratio(record.sectors, record.executions)}
                if static is not None:
                    g = static.get("global", static)
                    row["global"]["analyze"] = {"sectors": g["sectors"], "minimum_sectors": g["minimum_sectors"]}
            if banks is not None and op in banks:
                waves, lower = banks[op]
                row["shared"] = {"wavefronts": int(waves), "lower_bound": int(lower),
                                 "per_execution": _ratio(waves, record.executions), "measured": True}
            elif op.name == "ttg.async_copy_global_to_local" and static is not None:
                # the copy's shared side lands at its async_wait: per execution as analyzed
                row["shared"] = {"wavefronts": static["wavefronts"] * record.executions,
                                 "lower_bound": static["lower_bound"] * record.executions,
                                 "per_execution": static["wavefronts"], "measured": False}
                if static is not None and "wavefronts" in static:
                    row["shared"]["analyze"] = {"wavefronts": static["wavefronts"],
                                                "lower_bound": static["lower_bound"]}
            if op.name == "ttg.convert_layout" and static is not None:
                row["convert"] = {"kind": static["kind"], "instructions": dict(static["instructions"]),
                                  "wavefronts": static["shared_wavefronts"],
                                  "lower_bound": static["shared_lower_bound"], "barriers": static["barriers"]}
            rows.append(row)
        return RunReport(kernel, tuple(rows), seconds)


def reduction_instructions(m, op) -> dict[str, int]:
    """Per thread instructions of a ``tt.reduce``/``tt.scan`` as Triton lowers it: combines
    inside the thread (one per operand register), then one butterfly ``shfl`` round per lane
    bit that moves along the axis, then, when warps split the axis, one exchange through
    shared memory (``st.shared``, ``bar.sync``, ``ld.shared``), each per result register.
    Example: 4x256 f32 in #blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32],
    warpsPerCTA = [4, 1]}> reduced along axis 1: 8 combines, 5 shuffle rounds, no shared."""
    source = op.operands[0].type
    dist = m.distribution(op, source)
    axis = int(getattr(op.axis, "value", op.axis).data)
    coords = dist.coords  # (slots, registers, rank)
    lanes, slots = m.geometry.warp_size, coords.shape[0]
    moves = [bit for bit in _bits(slots) if (coords[bit, 0, axis] != coords[0, 0, axis])]
    lane_rounds = sum(1 for bit in moves if bit < lanes)
    across_warps = any(bit >= lanes for bit in moves)
    result = op.results[0].type
    held = m.distribution(op, result).registers if isinstance(result, TensorType) else 1
    counts = {"alu": dist.registers}
    if lane_rounds:
        counts["shfl"] = lane_rounds * held
    if across_warps:
        counts.update({"st.shared": held, "bar.sync": 1, "ld.shared": held})
    return counts


def _bits(n: int) -> list[int]:
    return [1 << k for k in range(max(0, n.bit_length() - 1))]


def dot_instructions(cost: dict, num_warps: int, warp_size: int) -> dict[str, int]:
    """Per thread instructions of a dot of ``cost`` (analyze's row): tensor-core instructions
    over the warps that share them (``wgmma``: warp groups of 4), or one ``fma`` per
    multiply-add. Example: ``mma.sync m16n8k16`` on 64x64x16 with 4 warps: 64*64*16 /
    (16*8*16) / 4 = 8 per thread."""
    m, n, k = cost["mnk"]
    name = cost["instruction"]
    found = re.search(r"m?(\d+)[xn](\d+)[xk](\d+)", name)
    if name == "fma" or found is None:
        return {"fma": max(1, m * n * k // (num_warps * warp_size))}
    size = int(found[1]) * int(found[2]) * int(found[3])
    share = max(1, num_warps // 4) if name.startswith("wgmma") else num_warps
    return {name.split()[0]: max(1, m * n * k // size // share)}


def _ratio(a: int, b: int) -> float:
    return round(a / b, 3) if b else 0.0


def _pointer_operand(op):
    return op.operands[0]


def _pointee_bytes(ptr) -> int:
    from layoutkit.backends.simt.dtypes import element_dtype
    from layoutkit.ir.dialects import tt

    return element_dtype(tt.element_type(ptr.type).pointee).itemsize


def _element_mask(m, op, mask) -> np.ndarray:
    """(threads, registers or 1) which elements of the access run: the thread mask and the
    op's mask operand (a store's value is not its mask)."""
    tensor_mask = getattr(op, "mask", None)
    if tensor_mask is None:
        return mask[:, None]
    value = m.value(tensor_mask)
    if value.shape[0] == 1:
        value = np.broadcast_to(value, (mask.shape[0], value.shape[1]))
    return mask[:, None] & value


@dataclass(frozen=True)
class RunReport:
    """The measured cost of one run: ``rows`` (dicts, IR order) and their totals."""

    kernel: str
    rows: tuple[dict, ...]
    seconds: float = 0.0

    @property
    def totals(self) -> dict[str, Any]:
        kinds: dict[str, int] = {}
        for r in self.rows:
            for kind, count in r["thread_instructions"].items():
                kinds[kind] = kinds.get(kind, 0) + count
        glob = [r["global"] for r in self.rows if "global" in r]
        shared = [r["shared"] for r in self.rows if "shared" in r]
        converts = [r for r in self.rows if "convert" in r]
        return {"thread_instructions": kinds,
                "global": {"requests": sum(g["requests"] for g in glob), "sectors": sum(g["sectors"] for g in glob),
                           "minimum_sectors": sum(g["minimum_sectors"] for g in glob)},
                "shared": {"wavefronts": sum(s["wavefronts"] for s in shared),
                           "lower_bound": sum(s["lower_bound"] for s in shared)},
                "convert_layout": {"count": len(converts),
                                   "executions": sum(r["executions"] for r in converts),
                                   "barriers": sum(r["convert"]["barriers"] * r["executions"] for r in converts),
                                   "wavefronts": sum(r["convert"]["wavefronts"] * r["executions"] for r in converts)}}

    def transactions(self, row: dict) -> int:
        """Global sectors + shared wavefronts (measured; a conversion's from its plan) of a row."""
        total = row.get("global", {}).get("sectors", 0) + row.get("shared", {}).get("wavefronts", 0)
        if "convert" in row:
            total += row["convert"]["wavefronts"] * row["executions"]
        return total

    def hot_spots(self, top: int = 5) -> list[dict]:
        ranked = sorted((r for r in self.rows if self.transactions(r)), key=lambda r: -self.transactions(r))
        return ranked[:max(0, int(top))]

    def to_dict(self, top: int = 5) -> dict[str, Any]:
        return {"kernel": self.kernel, "seconds": self.seconds, "rows": list(self.rows), "totals": self.totals,
                "hot_spots": [{"op": r["op"], "line": r["line"], "ir_line": r["ir_line"],
                               "transactions": self.transactions(r)} for r in self.hot_spots(top)]}

    def text(self, top: int = 5) -> str:
        out = [f"cost report of @{self.kernel} (measured over the run; xN: block-executions; "
               f"thread-instructions by kind)"]
        quiet = [r for r in self.rows if not self._cost_text(r) and set(r["thread_instructions"]) <= {"alu"}]
        for r in self.rows:
            if any(r is q for q in quiet):
                continue
            cost = self._cost_text(r)
            kinds = ", ".join(f"{v} {k}" for k, v in r["thread_instructions"].items())
            out.append(f"  {_where(r):<24} {r['op']:<32} x{r['executions']:<6} {kinds}{'; ' + cost if cost else ''}")
        if quiet:
            alu = sum(r["thread_instructions"].get("alu", 0) for r in quiet)
            out.append(f"  ({len(quiet)} more ops of plain arithmetic: {alu} alu thread-instructions; --json lists them)")
        t = self.totals
        out.append("  totals: " + ", ".join(f"{v} {k}" for k, v in t["thread_instructions"].items()))
        g, s, c = t["global"], t["shared"], t["convert_layout"]
        out.append(f"          global {g['sectors']} sectors (minimum {g['minimum_sectors']}) in {g['requests']} "
                   f"requests; shared {s['wavefronts']} wavefronts (lower bound {s['lower_bound']}); "
                   f"convert_layout {c['executions']} runs, {c['wavefronts']} wavefronts, {c['barriers']} barriers")
        spots = self.hot_spots(top)
        if spots:
            out.append(f"hot spots (top {len(spots)} by sectors + wavefronts over the run):")
            for i, r in enumerate(spots, 1):
                out.append(f"  {i}. {_where(r)} {r['op']}: {self.transactions(r)} -- {self._cost_text(r)}")
        return "\n".join(out) + "\n"

    @staticmethod
    def _cost_text(r: dict) -> str:
        parts = []
        if "convert" in r:
            c = r["convert"]
            parts.append(f"{c['kind']} per run: " + ", ".join(f"{v} {k}" for k, v in c["instructions"].items())
                         + f", {c['wavefronts']}/{c['lower_bound']} wavefronts, {c['barriers']} barrier(s)")
        if "global" in r:
            g = r["global"]
            parts.append(f"vec {g['vector']}, {g['sectors']}/{g['minimum_sectors']} sectors "
                         f"({g['sectors_per_request']}/{g['minimum_per_request']} per request)")
        if "shared" in r:
            s = r["shared"]
            parts.append(f"{s['wavefronts']}/{s['lower_bound']} wavefronts"
                         + ("" if s["measured"] else " (per run as analyzed)"))
        return "; ".join(parts)


def _where(r: dict) -> str:
    if r["line"] is not None:
        return f"{(r['file'] or '?').rsplit('/', 1)[-1]}:{r['line']}"
    return f"ir:{r['ir_line']}"
