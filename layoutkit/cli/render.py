"""``layoutkit render``: draw a layout as a picture (svg, png or pdf by the file suffix).

    layoutkit render -l "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>" -t "tensor<16x32xf16>" -o blocked.png
    layoutkit render -l "#iree_vector_ext.nested_layout<...>" -o nested.svg --subgroup-size 64
    layoutkit render -i kernel.ttgir --alias-name shared -t "tensor<32x32xf16>" -o shared.pdf

``-t`` may be left out for layouts that carry their shape (IREE nested layouts, padded shared
layouts with a ``shape``, CuTe ``LAYOUT over MxN``).
Needs the ``plot`` extra (matplotlib).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import click

from layoutkit.cli.files import read_text
from layoutkit.core.text import parse_aliases
from layoutkit.errors import LayoutError, quote


def render_file(layout_text: str | None, tensor_type: str | None, output: str, *,
                input_text: str | None = None, alias_name: str | None = None, **options: Any) -> Any:
    """Parse the layout, draw it, write ``output``; returns the Drawing (CLI logic, no I/O
    besides the picture)."""
    from layoutkit.layouts.parse import parse_layout, parse_tensor_type, tensor_type_encoding
    from layoutkit.render.picture import layout_figure, picture_format, save_figure

    suffix = picture_format(output)
    _check_writable(output)
    if importlib.util.find_spec("matplotlib") is None:
        raise LayoutError("render: pictures need the optional package 'matplotlib': pip install 'layoutkit[plot]'")
    shape = None
    if tensor_type is not None:
        shape, _element = parse_tensor_type(tensor_type)
        options.setdefault("tensor_shape", shape)
    aliases = parse_aliases(input_text) if input_text is not None else {}
    if layout_text is None and input_text is None and tensor_type is not None:
        layout_text = tensor_type_encoding(tensor_type)  # tensor<16x16xf16, #ttg.blocked<...>>
    if layout_text is None:
        if input_text is None:
            raise LayoutError("layout: give a layout with -l/--layout, or a file with -i/--input")
        if alias_name is None:
            if len(aliases) != 1:
                known = ", ".join(aliases) or "none"
                raise LayoutError(f"alias-name: the input file defines {len(aliases)} layouts ({known}); pick one with --alias-name")
            alias_name = next(iter(aliases))
        if alias_name not in aliases:
            known = ", ".join(aliases) or "none"
            raise LayoutError(f"alias-name: no layout alias {quote('#' + alias_name)} in the input file (defined: {known})")
        layout_text = aliases[alias_name].text
    layout = parse_layout(layout_text, aliases=aliases, **options)
    if shape is None and hasattr(layout, "tensor_shape"):
        try:
            layout.tensor_shape(None)
        except LayoutError:
            raise LayoutError(f"tensor-type: {quote(layout_text)} does not carry its tensor shape; "
                              "give one with -t, e.g. -t 'tensor<16x16xf16>'") from None
    fig, drawing = layout_figure(layout, shape)
    try:
        save_figure(fig, output, suffix)
    except OSError as err:
        raise LayoutError(f"output: cannot write {quote(output)}: {err.strerror or err}") from None
    return drawing


def _check_writable(output: str) -> None:
    """LayoutError, before any drawing, when ``output`` cannot be written."""
    path = Path(output)
    folder = path.parent
    if path.is_dir():
        raise LayoutError(f"output: {quote(output)} is a directory")
    if not folder.is_dir():
        raise LayoutError(f"output: cannot write {quote(output)}: no directory {quote(str(folder))}")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise LayoutError(f"output: cannot write {quote(output)}: permission denied")


@click.command(name="render")
@click.option("-l", "--layout", "layout_text", help="Layout attribute text (any supported family).")
@click.option("-t", "--tensor-type", help="Tensor type, e.g. 'tensor<16x16xf16>' (optional for layouts that carry a shape).")
@click.option("-o", "--output", required=True, help="Output picture: a .svg, .png or .pdf file.")
@click.option("-i", "--input", "input_path", type=click.Path(dir_okay=False), help="A file of '#alias = #attr<...>' lines.")
@click.option("--alias-name", help="Which alias of the input file to draw.")
@click.option("--subgroup-size", type=int, help="Lanes per subgroup for layouts that do not carry it (IREE nested).")
@click.option("--num-subgroups", type=int, help="Subgroups for layouts that do not carry it (IREE nested).")
def command(layout_text: str | None, tensor_type: str | None, output: str, input_path: str | None,
            alias_name: str | None, subgroup_size: int | None, num_subgroups: int | None) -> None:
    """Draw a layout: the tensor grid colored by thread (one hue family per warp),
    cells labelled T<tid>:<reg>; memory layouts show offsets and their padding."""
    options: dict[str, Any] = {}
    if subgroup_size is not None:
        options["subgroup_size"] = subgroup_size
    if num_subgroups is not None:
        options["num_subgroups"] = num_subgroups
    input_text = read_text(input_path, "input") if input_path else None
    drawing = render_file(layout_text, tensor_type, output, input_text=input_text,
                          alias_name=alias_name, **options)
    rows, cols = drawing.grid_shape
    click.echo(f"wrote {output} ({drawing.kind} layout, {rows}x{cols} cells)")
