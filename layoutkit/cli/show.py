"""``layoutkit show``: print a layout's tensor or hardware view, like ``triton-tensor-layout``.

    layoutkit show -l "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>" -t "tensor<16x16xf16>"
    layoutkit show -i kernel.ttgir --alias-names blocked,mma -t "tensor<128x128xf16>" --hw-view
    layoutkit show -l "#iree_vector_ext.nested_layout<...>" -t "tensor<64x64xf16>" --subgroup-size 64

Every layout is introduced by ``Print layout attribute: <layout>`` (``#<alias> = <layout>``
for layouts read from a file). With ``-i`` and neither ``-l`` nor ``--alias-names`` every
alias of the file is printed; with ``--alias-names`` each named one, followed by an empty
line; with ``-l`` alone the file only defines the aliases ``-l`` may use.
"""

from __future__ import annotations

import re
from typing import Any

import click

from layoutkit.cli import common
from layoutkit.core.text import parse_aliases
from layoutkit.errors import LayoutError, quote

# a message that already starts with the field it is about, e.g. "sizePerThread: ..."
_NAMES_A_FIELD = re.compile(r"^[\w.\-/ ]+: ")


def render_show(
    layout_text: str | None,
    tensor_type: str,
    *,
    input_text: str | None = None,
    alias_names: list[str] | None = None,
    hardware: bool = False,
    **options: Any,
) -> str:
    """What ``layoutkit show`` prints, as a string (the CLI's logic without I/O)."""
    from layoutkit.layouts.parse import parse_tensor_type, tensor_type_encoding
    from layoutkit.render.text import layout_view

    shape, _element = parse_tensor_type(tensor_type)
    # CuTe thread-value layouts take their tensor shape from -t (other families ignore it)
    options.setdefault("tensor_shape", shape)
    layout_field = "layout"
    encoding = tensor_type_encoding(tensor_type)
    if layout_text is None and not alias_names and (input_text is None or encoding is not None):
        # the encoding written in -t ('tensor<..., #mma>' names an alias of the -i file)
        layout_text, layout_field = encoding, "tensor type encoding"
    if layout_text is None and input_text is None:
        raise LayoutError("layout: give a layout with -l/--layout or a file of '#alias = ...' lines with -i/--input")
    if alias_names and input_text is None:
        raise LayoutError(f"alias-names: {quote(','.join(alias_names))} needs a file of '#alias = ...' lines (-i/--input)")
    out: list[str] = []
    if input_text is not None:
        aliases = _aliases(input_text)
        if alias_names:
            for name in alias_names:
                if name not in aliases:
                    known = ", ".join(aliases) or "none"
                    raise LayoutError(f"alias-names: no layout alias {quote('#' + name)} in the input file (defined: {known})")
            chosen = alias_names
        elif layout_text is not None:
            chosen = []  # -l names the layout; the file only defines its aliases
        else:
            if not aliases:
                raise LayoutError("input: the file defines no '#alias = #attr<...>' layouts")
            chosen = list(aliases)
        for name in chosen:
            layout = _parse(aliases[name].text, f"layout #{name}", aliases, options)
            out.append(f"Print layout attribute: #{name} = {layout}\n")
            out.append(layout_view(layout, shape, hardware=hardware))
            if alias_names:
                out.append("\n")
        if layout_text is not None:
            layout_text = layout_text.strip()
    if layout_text is not None:
        aliases = _aliases(input_text) if input_text is not None else {}
        layout = _parse(layout_text, layout_field, aliases, options)
        out.append(f"Print layout attribute: {layout}\n")
        out.append(layout_view(layout, shape, hardware=hardware))
    return "".join(out)


def _parse(text: str, field: str, aliases: dict, options: dict[str, Any]) -> Any:
    """``parse_layout``, its error message prefixed with ``field`` unless it names one."""
    from layoutkit.layouts.parse import parse_layout

    try:
        return parse_layout(text, aliases=aliases, **options)
    except LayoutError as err:
        if _NAMES_A_FIELD.match(str(err)):
            raise
        raise LayoutError(f"{field}: {err}") from None


def _aliases(text: str) -> dict:
    """The layouts among the ``#name = ...`` definitions of an input file (aliases that are
    no layout -- ``#smem = #ttg.shared_memory``, ``#tmem = #ttng.tensor_memory_encoding<...>``
    -- are skipped, as ``triton-tensor-layout`` skips them; ``#loc`` lines are no attributes)."""
    from layoutkit.layouts.parse import is_layout_attribute

    return {name: attr for name, attr in parse_aliases(text).items() if is_layout_attribute(attr)}


@common.command("show")
@common.layout_option()
@common.tensor_type_option(required=True)
@common.input_option()
@common.alias_names_option(help="Show only these layouts of the -i file, comma-separated (default: all).")
@click.option("--hw-view", "--use-hw-view", "hardware", is_flag=True,
              help="Show the hardware view: per warp and register, the coordinate each lane holds "
                   "(per offset for shared-memory layouts).")
@common.output_option()
@common.hardware_size_options
def command(
    layout_text: str | None,
    tensor_type: str,
    input_file: str | None,
    alias_names: tuple[str, ...],
    hardware: bool,
    output_file: str | None,
    subgroup_size: int | None,
    num_subgroups: int | None,
) -> None:
    """Print who holds each element of a tensor (the tensor view: every owner as
    T<thread>:<register>) or, with --hw-view, what each warp, lane and register holds -- the
    views of triton-tensor-layout, for any layout family.

    \b
    Examples:
      layoutkit show -t 'tensor<16x16xf16>' -l '#ttg.blocked<{sizePerThread = [1, 4],
          threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>'
      layoutkit show -t 'tensor<128x128xf16>' -i kernel.ttgir --alias-names mma --hw-view
      layoutkit show -t 'tensor<16x8xf16>' -l '((4,8),(2,2)):((32,1),(16,8))'
    """
    if output_file is not None:
        common.check_writable(output_file)
    text = render_show(
        layout_text,
        tensor_type,
        input_text=common.read_optional_input(input_file),
        alias_names=common.alias_list(alias_names),
        hardware=hardware,
        **common.hardware_options(subgroup_size, num_subgroups),
    )
    common.write_output(output_file, text)
