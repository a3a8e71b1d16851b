"""``layoutkit convert``: plan a layout conversion and print its cost.

    layoutkit convert -l "#ttg.blocked<{...}>" -l "#ttg.dot_op<{...}>" -t "tensor<128x64xf16>"
    layoutkit convert -l SRC -l DST -t TYPE --explain        # the steps too
    layoutkit convert -l SRC -l DST -t TYPE --json           # the same as data
    layoutkit convert -i kernel.ttgir -l "#blocked" -l "#mma" -t TYPE --scratch-bytes 8192

Prints the kind of conversion (no-op, registers, shuffle, shared), the chosen shared-memory
layout as layout text, and the cost table; ``--explain`` adds the steps.
"""

from __future__ import annotations

import json
import math
from typing import Any

import click

from layoutkit.cli import common
from layoutkit.core.text import parse_aliases
from layoutkit.errors import LayoutError


def render_convert(
    layouts: tuple[str, ...] | list[str],
    tensor_type: str,
    *,
    input_text: str | None = None,
    explain: bool = False,
    as_json: bool = False,
    scratch_bytes: int | None = None,
    force_shared: bool = False,
    **options: Any,
) -> str:
    """What ``layoutkit convert`` prints, as a string (the CLI's logic without I/O)."""
    from layoutkit.analysis.hardware import check_tabulated
    from layoutkit.convert import plan_conversion
    from layoutkit.layouts.parse import parse_tensor_type

    if len(layouts) != 2:
        raise LayoutError(f"layout: give exactly two layouts, -l SRC -l DST (got {len(layouts)})")
    shape, element = parse_tensor_type(tensor_type)
    check_tabulated(math.prod(shape), "tensor", tensor_type.strip(), "elements")
    options.setdefault("tensor_shape", shape)
    aliases = parse_aliases(input_text) if input_text is not None else {}
    src, dst = (_parse_side(field, text, aliases, options) for field, text in zip(("src", "dst"), layouts))
    plan = plan_conversion(src, dst, shape, element, scratch_bytes=scratch_bytes, force_shared=force_shared)
    if as_json:
        return json.dumps(plan.to_dict(steps=explain), indent=2) + "\n"
    lines = [
        f"source:       {src}",
        f"destination:  {dst}",
        f"tensor:       {tensor_type.strip()}",
        f"conversion:   {plan.kind}",
    ]
    if plan.scratch_text is not None:
        lines.append(f"shared layout: {plan.scratch_text}")
    lines.append("")
    lines.append(plan.cost.table())
    if plan.notes and not explain:
        lines += [f"note: {note}" for note in plan.notes]
    if explain:
        lines.append("")
        lines.append(plan.explain())
    return "\n".join(lines) + "\n"


def _parse_side(field: str, text: str, aliases: dict[str, Any], options: dict[str, Any]) -> Any:
    """``parse_layout`` with errors saying which of the two layouts is wrong (``src: ...``)."""
    from layoutkit.layouts.parse import parse_layout

    try:
        return parse_layout(text, aliases=aliases, **options)
    except LayoutError as err:
        raise LayoutError(f"{field}: {err}") from None


@common.command("convert")
@common.layout_option(multiple=True, help="Source, then destination layout (any family, or an alias from -i).")
@common.tensor_type_option(required=True, help="Tensor type, e.g. 'tensor<128x128xf16>'.")
@common.input_option()
@click.option("--explain", is_flag=True, help="Print the plan's steps.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON (with --explain: with every step's arrays).")
@click.option("--scratch-bytes", type=int, default=None, help="Shared memory available per block; larger tiles go in repetitions.")
@click.option("--force-shared", is_flag=True, help="Go through shared memory (IREE's shared_memory_conversion).")
@common.output_option()
@common.hardware_size_options
def command(layout_text: tuple[str, ...], tensor_type: str, input_file: str | None, explain: bool, as_json: bool,
            scratch_bytes: int | None, force_shared: bool, output_file: str | None, subgroup_size: int | None,
            num_subgroups: int | None) -> None:
    """Plan the conversion of a tensor from one distributed layout to another: its kind, the
    chosen shared-memory layout, its cost and (--explain) its steps."""
    if output_file is not None:
        common.check_writable(output_file)
    text = render_convert(layout_text, tensor_type, input_text=common.read_optional_input(input_file),
                          explain=explain, as_json=as_json, scratch_bytes=scratch_bytes, force_shared=force_shared,
                          **common.hardware_options(subgroup_size, num_subgroups))
    common.write_output(output_file, text)
