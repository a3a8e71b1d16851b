"""Named pass pipelines, and reading pass-pipeline text into passes.

A pipeline is a name for pass-pipeline text, as ``--pass-pipeline`` takes it (passes with
their options, ``,`` between them). Registering one is one line in :data:`PIPELINES`; it
then runs as ``layoutkit opt --NAME`` and may appear inside other pipelines' text.
"""

from __future__ import annotations

import dataclasses
import re

from layoutkit.errors import LayoutError, quote
from layoutkit.passes import PASSES, pass_class

#: pipeline name -> (pass-pipeline text, what it is for)
PIPELINES: dict[str, tuple[str, str]] = {
    "cleanup": ("canonicalize,cse", "fold and simplify, then merge equal pure ops (after a rewrite)"),
    "tile-and-distribute": ("linalg-fuse-elementwise,bufferize,tile-to-workgroups,promote-to-workgroup-memory,distribute-to-threads,gpu-outline-kernels,cse",
                            "linalg on tensors to GPU kernels and a host function (layoutkit compile)"),
    "pcf-resolve": ("convert-forall-to-pcf,pcf-distribute-run-clusters,pcf-resolve-clusters",
                    "PCF to per-worker form: workgroup scf.forall to pcf.loop, tensor run_cluster phases "
                    "distributed to subgroups and lanes, shared_executor clusters "
                    "resolved into scf.index_switch cases (the first stage of pcf-to-gpu)"),
    "pcf-to-gpu": ("pcf-resolve,pcf-resolve-tokens,pcf-convert-sref-to-memref,pcf-lower-structural,gpu-outline-kernels,cse",
                   "PCF (pcf.loop/pcf.generic on memrefs, shared_executor clusters resolved; workgroup "
                   "scf.forall first converted to pcf.loop) "
                   "to GPU kernels and a host function (layoutkit compile)"),
    "pcf-matmul": ("pcf-create-dispatch-config,pcf-apply-workgroup-tiling,pcf-wrap-workgroup-body,"
                   "pcf-form-run-cluster-flow,pcf-introduce-shared-memory-copies,"
                   "pcf-distribute-run-cluster-to-subgroups,pcf-distribute-run-cluster-to-lanes,"
                   "pcf-vectorize-lane-code,pcf-convert-sref-to-memref,"
                   "pcf-lower-structural{workgroup-size=128 subgroup-size=32},gpu-outline-kernels,cse",
                   "seed 002's reworked GPU pipeline: a dynamic f16 x f16 -> f32 linalg.matmul through "
                   "PCF run_cluster phases, subgroup and lane distribution to mma.sync kernels (layoutkit compile)"),
}

_ANCHOR = re.compile(r"builtin\.module\((?P<body>.*)\)", re.DOTALL)


def pipeline_text(name: str) -> str:
    """The pass-pipeline text of the pipeline ``name``."""
    if name not in PIPELINES:
        raise LayoutError(f"pipeline: no pipeline named {quote(name)} (pipelines: {', '.join(sorted(PIPELINES))})")
    return PIPELINES[name][0]


#: ``key=value`` in an option list whose bare value has a character xDSL's reader stops at
_BARE_VALUE = re.compile(r"([\w-]+)=((?=[^\s\"\[\]{},=]*[^\w\s.+\"\[\]{},=-])[^\s\"\[\]{},=]+)")


def parse_pass_pipeline(text: str, field: str = "--pass-pipeline") -> tuple:
    """The ModulePass instances of pass-pipeline ``text``, in order, pipelines expanded.

    ``text`` is mlir-opt's ``builtin.module(p1{opt=1 flag=true},p2)`` or just its body
    ``p1{opt=1},p2``; options are read by xDSL into the pass's dataclass fields. Errors
    are LayoutErrors naming ``field``, e.g. ``--pass-pipeline: column 4: ...``.
    """
    from xdsl.utils.arg_spec import parse_pipeline
    from xdsl.utils.exceptions import ArgSpecParseError

    # spaces only matter inside an option list: 'builtin.module(cse, dce)' is 'cse,dce'
    # a bare option value such as cuda:80 (mlir-opt takes it) is quoted for xDSL's reader
    text = "".join(_BARE_VALUE.sub(r'\1="\2"', part) if part.startswith("{") else re.sub(r"\s+", "", part)
                   for part in re.split(r"(\{[^{}]*\})", text))
    anchored = _ANCHOR.fullmatch(text)
    body = anchored.group("body") if anchored else text
    if "(" in body:
        raise LayoutError(f"{field}: nested pipelines are not supported (the passes run on the whole "
                          f"module; write 'builtin.module(p1,p2)'), got {quote(text)}")
    try:
        specs = list(parse_pipeline(body))
    except ArgSpecParseError as err:  # a BaseException: its message has the column and a caret
        lines = str(err).strip().splitlines()
        column = re.search(r":\d+:(\d+)", str(err))
        where = f"column {int(column.group(1)) + (anchored.start('body') if anchored else 0)}: " if column else ""
        raise LayoutError(f"{field}: {where}{lines[-1].strip()} (in {quote(text)})") from None
    passes = []
    for spec in specs:
        if spec.name in PIPELINES:
            if spec.parameters:
                raise LayoutError(f"{field}: pipeline {quote(spec.name)} takes no options, got {quote(spec)}")
            passes.extend(parse_pass_pipeline(pipeline_text(spec.name), f"{field}: pipeline {spec.name}"))
        elif spec.name in PASSES:
            where = field if field == f"--{spec.name}" else f"{field}: {spec.name}"
            cls = pass_class(spec.name)
            if spec.parameters and not dataclasses.fields(cls):
                raise LayoutError(f"{where}: takes no options, got {quote(spec)}")
            try:
                passes.append(cls.from_spec(spec))
            except ValueError as err:  # xDSL's text first (tests grep it), then the option and value
                message = str(err)
                if message.startswith(f"{spec.name}: ") and where.endswith(spec.name):
                    message = message[len(spec.name) + 2:]  # the pass named itself: once is enough
                raise LayoutError(f"{where}: {message}{_diagnosis(cls, spec)}") from None
        else:
            raise LayoutError(f"{field}: no pass or pipeline named {quote(spec.name)} "
                              f"(see layoutkit opt --list-passes)")
    return tuple(passes)


#: what an option of each scalar type takes, for the error naming the option
_EXPECTED = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def _diagnosis(cls, spec) -> str:
    """Why xDSL refused the options of ``spec`` for the pass ``cls``, naming the option as
    written (``num-warps``) and quoting the value -- xDSL's own message names neither
    (``Incompatible types: given ('abc',), expected <class 'int'>``): ``" (num-warps: expected
    an integer, got 'abc')"``, ``" (unknown option 'bogus'; options: ...)"``, else ``""``."""
    from typing import get_type_hints

    hints = get_type_hints(cls)
    options = [f.name for f in dataclasses.fields(cls) if f.init and f.name != "name"]
    for key, values in spec.normalize_parameter_names().parameters.items():
        option = key.replace("_", "-")
        if key not in options:
            return f" (unknown option {quote(option)}; options: {', '.join(o.replace('_', '-') for o in options)})"
        kind = hints.get(key)
        if kind not in _EXPECTED:
            continue  # a tuple or another type: xDSL's check
        text = ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values)
        ok = len(values) == 1 and (isinstance(values[0], bool) if kind is bool else
                                   isinstance(values[0], (int, float)) and not isinstance(values[0], bool)
                                   if kind is float else
                                   isinstance(values[0], kind) and not isinstance(values[0], bool))
        if not ok:
            return f" ({option}: expected {_EXPECTED[kind]}, got {quote(text)})"
    return ""


__all__ = ["PIPELINES", "parse_pass_pipeline", "pipeline_text"]
