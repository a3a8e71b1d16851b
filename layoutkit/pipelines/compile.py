"""Compiling a module with a named pipeline and the tile/workgroup options of
``layoutkit compile``: ``tile_sizes`` sets ``tile-to-workgroups{tile-sizes=...}`` and
``workgroup_size`` sets ``distribute-to-threads{workgroup-size=...}`` in the pipeline text.

Example: ``pipeline_with_options("tile-and-distribute", "16,4", "2,4")`` is
``bufferize,tile-to-workgroups{tile-sizes=16,4},distribute-to-threads{workgroup-size=2,4},gpu-outline-kernels,cse``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from layoutkit.errors import LayoutError, quote
from layoutkit.pipelines import parse_pass_pipeline, pipeline_text

_SIZES = re.compile(r"\d+(,\d+)*")

DEFAULT_PIPELINE = "tile-and-distribute"


def sizes_text(flag: str, value: str | Sequence[int]) -> str:
    """``"8,8"`` from ``"8, 8"`` or ``(8, 8)`` (LayoutError naming ``flag`` otherwise)."""
    if not isinstance(value, str):
        if any(isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise LayoutError(f"{flag}: expected integers such as (8, 8), got {value!r}")
        value = ",".join(map(str, value))
    if not _SIZES.fullmatch(value.replace(" ", "")):
        raise LayoutError(f"{flag}: expected comma-separated integers such as 8,8, got {quote(value)}")
    return value.replace(" ", "")


def pipeline_with_options(pipeline: str, tile_sizes=None, workgroup_size=None, subgroup_size=None) -> str:
    """The pass-pipeline text of ``pipeline`` with ``--tile-sizes``/``--workgroup-size``/
    ``--subgroup-size`` set (the last two also set ``pcf-lower-structural``'s options)."""
    passes = pipeline_text(pipeline).split(",")
    options: dict[str, list[str]] = {}
    for flag, value, pass_names, option in (
            ("--tile-sizes", tile_sizes, ("tile-to-workgroups", "pcf-create-dispatch-config"), "tile-sizes"),
            ("--workgroup-size", workgroup_size, ("distribute-to-threads", "promote-to-workgroup-memory",
                                                  "pcf-lower-structural"), "workgroup-size"),
            ("--subgroup-size", subgroup_size, ("pcf-lower-structural",), "subgroup-size")):
        if value is None:
            continue
        value = sizes_text(flag, value)
        if flag != "--tile-sizes" and any(int(v) == 0 for v in value.split(",")):  # a 0 tile: untiled
            raise LayoutError(f"{flag}: expected positive integers, got {quote(value)}")
        if not any(p in passes for p in pass_names):
            fixed = next((p for p in passes if p.split("{")[0] in pass_names), None)
            if fixed is not None:
                raise LayoutError(f"{flag}: pipeline {quote(pipeline)} fixes it: {quote(fixed)}")
            raise LayoutError(f"{flag}: pipeline {quote(pipeline)} has no {pass_names[0]} pass")
        if "," in value and "pcf-lower-structural" in pass_names and "pcf-lower-structural" in passes:
            raise LayoutError(f"{flag}: pipeline {quote(pipeline)} takes one number, "
                              f"got {quote(value)}")
        for name in pass_names:
            options.setdefault(name, []).append(f"{option}={value}")
    text = ",".join(f"{p}{{{' '.join(options[p])}}}" if p in options else p for p in passes)
    return text


def compile_module(module, pipeline: str = DEFAULT_PIPELINE, tile_sizes=None, workgroup_size=None,
                   after_pass=None, subgroup_size=None):
    """Run ``pipeline`` over parsed ``module`` in place; ``after_pass(pass, module)`` after each."""
    from xdsl.passes import PassPipeline

    from layoutkit.ir import make_context

    passes = parse_pass_pipeline(pipeline_with_options(pipeline, tile_sizes, workgroup_size, subgroup_size), "--pipeline")

    def callback(done, module, _next) -> None:
        if done is not None:
            module.verify()
            if after_pass is not None:
                after_pass(done, module)

    PassPipeline(passes, callback).apply(make_context(), module)
    return module


def needs_compiling(module) -> bool:
    """Whether ``module`` is a source program (tensors or linalg ops in a host function)
    rather than compiled kernels and host code."""
    from xdsl.dialects.builtin import TensorType

    from layoutkit.passes.linalg_structure import is_structured

    for op in module.walk():
        if is_structured(op) or any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
            return True
    return False


def dump_header(done) -> str:
    """The line MLIR's ``--mlir-print-ir-after-all`` prints before the IR after pass ``done``."""
    return f"// -----// IR Dump After {type(done).__name__} ({done.name}) //----- //"


_DUMP = re.compile(r"^// -----// IR Dump After (?P<cls>\w+) \((?P<name>[\w-]+)\) //----- //$", re.MULTILINE)


def split_ir_dumps(text: str) -> list[tuple[str, str]]:
    """``(pass name, IR text)`` for each dump of ``--print-ir-after-all`` output, in order.

    Example: ``"// -----// IR Dump After CSE (cse) //----- //\\nbuiltin.module {...}\\n\\n\\n"``
    is ``[("cse", "builtin.module {...}\\n")]``.
    """
    heads = list(_DUMP.finditer(text))
    ends = [h.start() for h in heads[1:]] + [len(text)]
    return [(h.group("name"), text[h.end() + 1:end].rstrip("\n") + "\n") for h, end in zip(heads, ends)]
