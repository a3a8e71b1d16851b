"""Pictures at any size (up to 2**20 elements): the picture's pixels are bounded, cells are
aggregated into register tiles, warp tiles or blocks (checked against owners computed here
from the blocked layout's definition), a zoomed region is drawn element by element, and a
picture reads without zooming: legend, axis titles, labels at 64x64, a tooltip per cell."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import layoutkit  # noqa: E402
from layoutkit.cli import main  # noqa: E402
from layoutkit.render.drawing import MAX_SIDE, drawing_of, view_of, warp_color  # noqa: E402
from layoutkit.render.picture import DPI, layout_figure, save_figure  # noqa: E402

SEED004 = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
TILED = "#ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>"


def seed004_owner(row: int, col: int, cols: int = 1024) -> tuple[int, int]:
    """(thread, register) of element (row, col) of SEED004 on a tensor of ``cols`` columns,
    from the blocked definition: 4 registers along a row, lanes 4 x 8 row-major, warps 4 x 1,
    the 16 x 32 tile repeated over the tensor (registers count column repetitions first)."""
    lane = (row % 4) * 8 + (col // 4) % 8
    warp = (row // 4) % 4
    register = col % 4 + 4 * (col // 32) + 4 * (cols // 32) * (row // 16)
    return warp * 32 + lane, register


def pixels(fig) -> tuple[float, float]:
    width, height = fig.get_size_inches()
    return width * DPI, height * DPI


def test_1024x1024_is_drawn_in_warp_tiles():
    layout = layoutkit.parse_layout(SEED004)
    drawing = drawing_of(layout, (1024, 1024))
    view = view_of(drawing)
    assert view.shape == (MAX_SIDE, MAX_SIDE) and view.tile == (4, 4) and view.level == "warp tile"
    assert view.note == "1 cell = 4x4 elements (a warp tile: all held by one warp)"
    for r, c in [(0, 0), (1, 9), (37, 200), (255, 255)]:
        warp = seed004_owner(4 * r, 4 * c)[0] // 32
        np.testing.assert_allclose(view.colors[r, c], warp_color(warp, 4))
        assert view.labels[r, c] == f"W{warp}"
        assert view.tooltips[r, c] == f"rows {4 * r}-{4 * r + 3}, cols {4 * c}-{4 * c + 3}: warp {warp}"
    fig, _ = layout_figure(layout, (1024, 1024))
    assert max(pixels(fig)) <= 3600


def test_register_tiles_name_their_thread_and_registers():
    layout = layoutkit.parse_layout(TILED)
    view = view_of(drawing_of(layout, (1024, 1024)))
    assert view.level == "register tile" and view.tile == (4, 4)
    for r, c in [(0, 0), (9, 3), (100, 201)]:
        lane = (r % 8) * 4 + c % 4          # 8 x 4 lanes, each a 4x4 register tile
        warp = ((r // 8) % 2) * 2 + (c // 4) % 2
        thread = warp * 32 + lane
        (owner,) = [o for o in layout.owners((4 * r, 4 * c), (1024, 1024))]
        assert owner["lane"] + 32 * owner["warp"] == thread  # the layout agrees with the formula
        first = owner["register"]
        assert view.labels[r, c] == f"T{thread}:{first}-{first + 15}"


def test_long_thin_tensors_are_aggregated_along_the_long_side():
    layout = layoutkit.parse_layout(SEED004)
    drawing = drawing_of(layout, (4096, 64))
    view = view_of(drawing)
    assert view.tile == (16, 1) and view.shape == (256, 64) and view.level == "block"
    # a block's color is the mean of its 16 elements' colors
    np.testing.assert_allclose(view.colors[3, 5], drawing.colors[48:64, 5].mean(axis=0))
    fig, _ = layout_figure(layout, (4096, 64))
    assert max(pixels(fig)) <= 3600


def test_zoom_answers_who_holds_an_element():
    layout = layoutkit.parse_layout(SEED004)
    fig, drawing = layout_figure(layout, (1024, 1024), zoom="96:112,32:48")
    ax = fig.axes[0]
    view = ax._layoutkit_view
    assert view.origin == (96, 32) and view.tile == (1, 1) and view.shape == (16, 16)
    thread, register = seed004_owner(100, 37)
    assert view.labels[4, 5] == f"T{thread}:{register}"
    assert view.tooltips[4, 5] == f"(100, 37): T{thread}:{register} (warp {thread // 32}, lane {thread % 32})"
    owners = layout.owners((100, 37), (1024, 1024))
    assert [o["lane"] + 32 * o["warp"] for o in owners] == [thread]
    assert [t.get_text() for t in ax.get_xticklabels()][:2] == ["32", "33"]
    assert any("zoom: rows 96-111, cols 32-47" in t.get_text() for t in fig.texts)
    labels = [a for a in ax.artists if hasattr(a, "get_texts")]
    assert labels and "T" + str(thread) + ":" + str(register) in labels[0].get_texts()


def test_legend_axis_titles_and_readable_labels_at_64x64():
    layout = layoutkit.parse_layout(SEED004)
    fig, drawing = layout_figure(layout, (64, 64))
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == ["warp 0", "warp 1", "warp 2", "warp 3"]
    for patch, warp in zip(legend.get_patches(), range(4)):
        np.testing.assert_allclose(patch.get_facecolor(), warp_color(warp, 4))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "dim1 →" and ax.get_ylabel() == "dim0 ↓"
    (labels,) = [a for a in ax.artists if hasattr(a, "get_texts")]
    assert len(labels.get_texts()) == 64 * 64
    assert labels.two_lines and labels.prop.get_size() >= 6  # 'T127' over ':15' at 6 points or more


def test_svg_has_a_tooltip_in_every_cell():
    layout = layoutkit.parse_layout(SEED004)
    fig, drawing = layout_figure(layout, (16, 32))
    svg = io.StringIO()
    save_figure(fig, svg, "svg")
    tips = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"><title>([^<]*)</title>',
                      svg.getvalue())
    assert len(tips) == 16 * 32
    ax = fig.axes[0]
    scale = 72 / fig.dpi
    height_pt = fig.get_figheight() * 72
    for x, y, w, h, text in tips[::37]:
        row, col = map(int, re.match(r"\((\d+), (\d+)\)", text).groups())
        thread, register = seed004_owner(row, col, 32)
        assert text == f"({row}, {col}): T{thread}:{register} (warp {thread // 32}, lane {thread % 32})"
        cx, cy = ax.transData.transform((col, row)) * scale  # the cell's center, in points
        assert float(x) < cx < float(x) + float(w) and float(y) < height_pt - cy < float(y) + float(h)


def test_memory_layouts_at_size():
    layout = layoutkit.parse_layout("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>")
    fig, drawing = layout_figure(layout, (1024, 1024))
    tensor, memory = (ax._layoutkit_view for ax in fig.axes)
    assert tensor.tile == memory.tile == (4, 4) and tensor.shape == memory.shape == (256, 256)
    assert memory.tooltips[0, 1] == "offsets 4-3079"  # memory rows 0-3 (1024 offsets each), columns 4-7
    assert max(pixels(fig)) <= 3600


def test_cli_renders_a_million_elements(tmp_path, capsys):
    out = tmp_path / "big.svg"
    assert main(["render", "-l", SEED004, "-t", "tensor<1024x1024xf16>", "-o", str(out)]) == 0
    text = out.read_text()
    assert text.count("<title>") == MAX_SIDE * MAX_SIDE
    assert "1 cell = 4x4 elements (a warp tile: all held by one warp)" in text
