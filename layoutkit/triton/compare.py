"""Triton's layout passes against layoutkit's ``cost-model=exact`` on one kernel, by
``layoutkit analyze``'s measure (issue 13, section 3): the library half of
``layoutkit compare-pipelines`` and of ``benchmarks/bench_layout_opt.py``.

Per side (:class:`Measure`, from :func:`layoutkit.triton.analyze` totals summed over the
kernels of the module):

- ``converts``: ``ttg.convert_layout`` ops;
- the conversion cost: ``instructions`` per thread (convert_layout instructions + the
  shared_memory ops' instructions: Triton turns some conversions into ``local_alloc`` +
  ``local_load``, so both count), ``wavefronts`` (convert_layout shared wavefronts + the
  shared_memory ops' wavefronts), ``shared_bytes`` (convert scratch + bytes allocated),
  ``barriers``; ``cost = instructions + wavefronts``, the issue's measure;
- element-wise work: arith/math instructions per block (registers per thread x threads, summed
  over the tensor ops) and ``replicated`` -- the part of it above one instruction per element
  (a replicated layout computes an element several times: triton issue 10987);
- global accesses: instructions per thread, and the vector width (elements) of every
  load and store.

Worked example (replicated work): ``arith.divf`` on a ``64xf32`` slice layout of 4 warps x 32
lanes holding 16 registers per thread: ``16 x 128 = 2048`` instructions for 64 elements, 1984
of them replicated.

The Triton side runs :data:`~layoutkit.triton.gpu_pipeline.TRITON_LAYOUT_PASSES` (on hip the
AMD order) through ``triton-gpu-pipeline cost-model=triton``, which matches Triton 3.9's own
output of every layout-pass step of the committed goldens (``tests/triton/layout_passes``);
:func:`triton_golden_output` finds that output for the benchmarks and tests.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from layoutkit.errors import LayoutError

#: the committed goldens (a source checkout; absent from an installed wheel)
_TESTS = Path(__file__).resolve().parents[2] / "tests" / "triton"
FRONTEND_GOLDENS = _TESTS / "frontend" / "goldens"
LAYOUT_PASS_GOLDENS = _TESTS / "layout_passes" / "goldens"


@dataclass(frozen=True)
class Measure:
    """One pipeline's result by ``layoutkit analyze``'s measure (module doc)."""

    converts: int
    convert_instructions: int
    convert_wavefronts: int
    convert_bytes: int
    barriers: int
    shared_ops: int
    shared_instructions: int
    shared_wavefronts: int
    shared_bytes: int
    elementwise: int
    replicated: int
    global_instructions: int
    load_vectors: tuple[int, ...]
    store_vectors: tuple[int, ...]

    @property
    def instructions(self) -> int:
        return self.convert_instructions + self.shared_instructions

    @property
    def wavefronts(self) -> int:
        return self.convert_wavefronts + self.shared_wavefronts

    @property
    def cost(self) -> int:
        """The issue's conversion cost: instructions + wavefronts of converts and shared ops."""
        return self.instructions + self.wavefronts

    def to_dict(self) -> dict[str, Any]:
        return {"converts": self.converts, "conversion_cost": self.cost, "instructions": self.instructions,
                "wavefronts": self.wavefronts, "shared_bytes": self.convert_bytes + self.shared_bytes,
                "barriers": self.barriers,
                "convert_layout": {"instructions": self.convert_instructions, "shared_wavefronts":
                                   self.convert_wavefronts, "shared_bytes": self.convert_bytes},
                "shared_memory": {"count": self.shared_ops, "instructions": self.shared_instructions,
                                  "wavefronts": self.shared_wavefronts, "bytes": self.shared_bytes},
                "elementwise": self.elementwise, "replicated_elementwise": self.replicated,
                "global_instructions": self.global_instructions, "load_vectors": list(self.load_vectors),
                "store_vectors": list(self.store_vectors)}


def elementwise_work(module) -> tuple[int, int]:
    """``(work, replicated)``: arith/math instructions per block over the tensor ops, and the
    part above one per element (module doc)."""
    from xdsl.dialects.builtin import TensorType

    from layoutkit.analysis.access import registers_per_thread

    attrs = module.attributes
    warps = int(attrs["ttg.num-warps"].value.data) if "ttg.num-warps" in attrs else 4
    lanes = int(attrs["ttg.threads-per-warp"].value.data) if "ttg.threads-per-warp" in attrs else 32
    work = replicated = 0
    for op in module.walk():
        if op.dialect_name() not in ("arith", "math") or not op.results:
            continue
        t = op.results[0].type
        if isinstance(t, TensorType) and hasattr(t.encoding, "layout"):
            shape = tuple(t.get_shape())
            count = registers_per_thread(t.encoding.layout, shape) * lanes * warps
            elements = 1
            for size in shape:
                elements *= size
            work += count
            replicated += max(count - elements, 0)
    return work, replicated


def measure(module) -> Measure:
    """The :class:`Measure` of a TTGIR module (every ``tt.func``)."""
    from layoutkit.triton.analyze import analyze

    report = analyze(module)
    sums = dict.fromkeys(("n", "ci", "cw", "cb", "bar", "sn", "si", "sw", "sb", "gi"), 0)
    for totals in report.totals.values():
        cv, sm, gm = totals["convert_layout"], totals["shared_memory"], totals["global_memory"]
        for key, value in (("n", cv["count"]), ("ci", cv["instructions"]), ("cw", cv["shared_wavefronts"]),
                           ("cb", cv["shared_bytes"]), ("bar", cv["barriers"]), ("sn", sm["count"]),
                           ("si", sm["instructions"]), ("sw", sm["wavefronts"]), ("sb", sm["bytes"]),
                           ("gi", gm["instructions"])):
            sums[key] += value
    rows = [r for r in report.rows if r.kind == "global_memory" and r.error is None]
    loads = tuple(r.cost["vector"] for r in rows if "load" in r.op)
    stores = tuple(r.cost["vector"] for r in rows if "store" in r.op)
    work, replicated = elementwise_work(module)
    return Measure(sums["n"], sums["ci"], sums["cw"], sums["cb"], sums["bar"], sums["sn"], sums["si"], sums["sw"],
                   sums["sb"], work, replicated, sums["gi"], loads, stores)


def _printed(text: str) -> str:
    from layoutkit.ir import parse_module

    return str(parse_module(text))


@cache
def _golden_texts() -> dict[str, str]:
    """Golden kernel name -> its kernel.ttir as layoutkit prints it (parsed once)."""
    if not FRONTEND_GOLDENS.is_dir():
        return {}
    return {d.name: _printed((d / "kernel.ttir").read_text()) for d in sorted(FRONTEND_GOLDENS.iterdir())
            if (d / "kernel.ttir").is_file()}


def golden_kernel(module) -> str | None:
    """The name of the committed golden kernel whose TTIR prints as ``module`` does, if any."""
    printed = str(module)
    return next((name for name, text in _golden_texts().items() if text == printed), None)


def triton_golden_output(kernel: str, target: str, num_warps: int) -> Path | None:
    """Triton 3.9's output of its layout passes (the last step of the manifest run)."""
    manifest = LAYOUT_PASS_GOLDENS / "manifest.json"
    if not manifest.is_file():
        return None
    for run in json.loads(manifest.read_text())["runs"]:
        if run["kernel"] == kernel and run["target"] == target and run["num_warps"] == num_warps and run["steps"]:
            return LAYOUT_PASS_GOLDENS / run["steps"][-1]["output"]
    return None


@dataclass(frozen=True)
class Side:
    """One pipeline's result: its name, how it was obtained, the module, its measure, its run."""

    name: str
    how: str
    module: Any = field(repr=False)
    measure: Measure
    seconds: float
    ran: str = "not run"


def _run_pipeline(text: str, target: str, num_warps: int, cost_model: str):
    from layoutkit.ir import make_context, parse_module
    from layoutkit.passes import pass_class

    module = parse_module(text)
    start = time.perf_counter()
    pass_class("triton-gpu-pipeline")(target=target, num_warps=num_warps, threads_per_warp=_lanes(target),
                                      cost_model=cost_model).apply(make_context(), module)
    seconds = time.perf_counter() - start
    module.verify()
    return parse_module(str(module)), seconds  # what layoutkit prints, layoutkit reads back


def _lanes(target: str) -> int:
    """Threads per warp as Triton compiles for ``target`` (:func:`~layoutkit.triton.gpu_pipeline.warp_size`)."""
    from layoutkit.triton.gpu_pipeline import warp_size

    return warp_size(target)


def triton_side(text: str, target: str, num_warps: int) -> Side:
    """Triton's layout passes as layoutkit models them (``cost-model=triton``)."""
    module, seconds = _run_pipeline(text, target, num_warps, "triton")
    return Side("triton", "cost-model=triton (layoutkit's model of Triton 3.9's layout passes)", module,
                measure(module), seconds)


def exact_side(text: str, target: str, num_warps: int) -> Side:
    module, seconds = _run_pipeline(text, target, num_warps, "exact")
    return Side("exact", "cost-model=exact", module, measure(module), seconds)


@dataclass(frozen=True)
class Comparison:
    """Both sides on one kernel (:func:`compare_pipelines`)."""

    source: str
    kernel: str | None
    target: str
    num_warps: int
    sides: tuple[Side, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "golden_kernel": self.kernel, "target": self.target,
                "num_warps": self.num_warps,
                "sides": {s.name: {"how": s.how, **s.measure.to_dict(), "seconds": round(s.seconds, 3),
                                   "ran": s.ran} for s in self.sides}}

    def text(self) -> str:
        rows = [("converts", lambda m: m.converts), ("conversion cost", lambda m: m.cost),
                ("  instructions/thread", lambda m: m.instructions), ("  shared wavefronts", lambda m: m.wavefronts),
                ("  shared bytes", lambda m: m.convert_bytes + m.shared_bytes), ("  barriers", lambda m: m.barriers),
                ("elementwise work", lambda m: m.elementwise), ("  replicated", lambda m: m.replicated),
                ("global instr/thread", lambda m: m.global_instructions),
                ("load vectors", lambda m: _vectors(m.load_vectors)),
                ("store vectors", lambda m: _vectors(m.store_vectors))]
        names = [s.name for s in self.sides]
        out = [f"compare-pipelines: {self.source} (target {self.target}, {self.num_warps} warps)"]
        out += [f"  {s.name}: {s.how}" for s in self.sides]
        out.append(f"{'':<22}" + "".join(f"{n:>14}" for n in names))
        for label, get in rows:
            out.append(f"{label:<22}" + "".join(f"{get(s.measure)!s:>14}" for s in self.sides))
        out.append(f"{'ran':<22}" + "".join(f"{s.ran:>14}" for s in self.sides))
        return "\n".join(out) + "\n"


def _vectors(widths: tuple[int, ...]) -> str:
    return ",".join(str(w) for w in widths) or "-"


def compare_pipelines(text: str, target: str, num_warps: int = 4, source: str = "<module>",
                      run: Callable[[str | None, Any], str] | None = None) -> Comparison:
    """Both pipelines on the TTIR ``text``; ``run(golden kernel or None, module)`` (the
    executor, from the CLI: this layer does not import the backends) gives each side's
    ``ran`` status."""
    from layoutkit.ir import parse_module
    from layoutkit.passes import pass_class

    pass_class("triton-gpu-pipeline")(target=target, num_warps=num_warps, threads_per_warp=_lanes(target))
    kernel = golden_kernel(parse_module(text))
    sides = [triton_side(text, target, num_warps), exact_side(text, target, num_warps)]
    if run is not None:
        ran = []
        for s in sides:
            try:
                ran.append(Side(s.name, s.how, s.module, s.measure, s.seconds, run(kernel, s.module)))
            except LayoutError as err:
                raise LayoutError(f"ran: the {s.name} side's result failed in the executor: {err}") from None
        sides = ran
    return Comparison(source, kernel, target, num_warps, tuple(sides))


__all__ = ["Comparison", "Measure", "Side", "compare_pipelines", "elementwise_work", "exact_side", "golden_kernel",
           "measure", "triton_golden_output", "triton_side"]
