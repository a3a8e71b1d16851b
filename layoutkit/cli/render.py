"""``layoutkit render``: draw a layout as a picture (svg, png or pdf by the file suffix).

    layoutkit render -l "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>" -t "tensor<16x32xf16>" -o blocked.png
    layoutkit render -l "#iree_vector_ext.nested_layout<...>" -o nested.svg --subgroup-size 64
    layoutkit render -i kernel.ttgir --alias-names shared -t "tensor<32x32xf16>" -o shared.pdf
    layoutkit render -l "Sw<3,3,3> o 0 o (8,64):(64,1)" -o swizzle.png
    layoutkit render -l "#ttg.blocked<{...}>" -t "tensor<1024x1024xf16>" --zoom 96:112,32:48 -o who.png

``-t`` may be left out for layouts that carry their shape (IREE nested layouts, padded shared
layouts with a ``shape``, CuTe ``LAYOUT over MxN`` and swizzled layouts). ``-o -`` writes
the picture to stdout (``--format``, default svg). Needs the ``plot`` extra (matplotlib).
"""

from __future__ import annotations

from typing import Any

import click

from layoutkit.cli import common
from layoutkit.core.text import parse_aliases
from layoutkit.errors import LayoutError, quote, require_extra


def render_file(layout_text: str | None, tensor_type: str | None, output: str, *,
                input_text: str | None = None, alias_names: list[str] | None = None,
                zoom: str | None = None, picture_format: str | None = None, **options: Any) -> Any:
    """Parse the layout, draw it, write ``output`` (``-``: stdout); returns the Drawing (the
    CLI's logic)."""
    from layoutkit.layouts.parse import parse_layout, parse_tensor_type, tensor_type_encoding

    suffix = _format(output, picture_format)
    common.check_writable(output)
    require_extra("matplotlib", "render")
    from layoutkit.render.picture import picture_bytes

    shape = None
    if tensor_type is not None:
        shape, _element = parse_tensor_type(tensor_type)
        options.setdefault("tensor_shape", shape)
    aliases = parse_aliases(input_text) if input_text is not None else {}
    if layout_text is None and input_text is None and tensor_type is not None:
        layout_text = tensor_type_encoding(tensor_type)  # tensor<16x16xf16, #ttg.blocked<...>>
    if layout_text is None:
        layout_text = _alias_text(input_text, aliases, alias_names)
    layout = parse_layout(layout_text, aliases=aliases, **options)
    if shape is None and hasattr(layout, "tensor_shape"):
        try:
            layout.tensor_shape(None)
        except LayoutError:
            raise LayoutError(f"tensor-type: {quote(layout_text)} does not carry its tensor shape; "
                              "give one with -t, e.g. -t 'tensor<16x16xf16>'") from None
    data, drawing = picture_bytes(layout, shape, suffix, zoom=zoom)
    common.write_output(output, data)
    return drawing


def _alias_text(input_text: str | None, aliases: dict, alias_names: list[str] | None) -> str:
    """The text of the one alias of the input file to draw."""
    if input_text is None:
        raise LayoutError("layout: give a layout with -l/--layout, or a file with -i/--input")
    known = ", ".join(aliases) or "none"
    if not alias_names:
        if len(aliases) != 1:
            raise LayoutError(f"alias-names: the input file defines {len(aliases)} layouts ({known}); "
                              "pick one with --alias-names")
        alias_names = list(aliases)
    if len(alias_names) != 1:
        raise LayoutError(f"alias-names: a picture draws one layout, got {quote(','.join(alias_names))}")
    (name,) = alias_names
    if name not in aliases:
        raise LayoutError(f"alias-names: no layout alias {quote('#' + name)} in the input file (defined: {known})")
    return aliases[name].text


def _format(output: str, given: str | None) -> str:
    from layoutkit.render.picture import picture_format

    if given is not None:
        return given
    return "svg" if output == common.STDIO else picture_format(output)


@common.command("render")
@common.layout_option()
@common.tensor_type_option(required=False, help="Tensor type, e.g. 'tensor<16x16xf16>' (optional for layouts "
                                                "that carry a shape); may carry the encoding.")
@common.output_option(required=True, help="Output picture: a .svg, .png or .pdf file; '-' writes to stdout.")
@common.input_option()
@common.alias_names_option(help="Which alias of the -i file to draw.")
@click.option("--zoom", metavar="R0:R1,C0:C1",
              help="Draw only this region of the tensor (half-open element ranges, e.g. 96:112,32:48), "
                   "each element labelled.")
@click.option("--format", "picture_format", type=click.Choice(["svg", "png", "pdf"]), default=None,
              help="Picture format (default: the -o suffix; svg for -o -).")
@common.hardware_size_options
def command(layout_text: str | None, tensor_type: str | None, output_file: str, input_file: str | None,
            alias_names: tuple[str, ...], zoom: str | None, picture_format: str | None,
            subgroup_size: int | None, num_subgroups: int | None) -> None:
    """Draw a layout: the tensor grid colored by thread (one hue family per warp, legend
    below), cells labelled T<tid>:<reg>; memory layouts show offsets, the memory and its
    padding. Large tensors are drawn in tiles (said on the picture); --zoom draws a region
    element by element, and every cell of an svg has a tooltip naming its holder."""
    drawing = render_file(layout_text, tensor_type, output_file,
                          input_text=common.read_optional_input(input_file),
                          alias_names=common.alias_list(alias_names), zoom=zoom,
                          picture_format=picture_format,
                          **common.hardware_options(subgroup_size, num_subgroups))
    if output_file != common.STDIO:
        rows, cols = drawing.grid_shape
        click.echo(f"wrote {output_file} ({drawing.kind} layout, {rows}x{cols} cells)")
