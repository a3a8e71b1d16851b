"""Pictures of layouts (matplotlib, the optional ``plot`` extra).

A *distributed* layout (hardware dims ``register``, ``lane``, ``warp``, ``block``) is drawn
as the tensor's grid: each cell is colored by the thread that holds it -- one hue family
per warp (subgroup), a shade per lane -- and labelled ``T<tid>:<reg>``, the flat thread id
``tid = (block * warps + warp) * lanes + lane`` and the register. An element held by
several threads or registers shows its first holder and ``+k`` for the ``k`` others.

A *memory* layout (``offset``, ``block``) is drawn twice: the tensor grid labelled with each
element's offset, and the memory itself, offsets left to right in rows, labelled with the
element stored there -- padding slots (``#ttg.padded_shared``) are drawn as grey, hatched
cells. Both panels color an element the same way (a hue per tensor row, a shade per
column), so the memory panel shows where the rows went.

Tensors of rank > 2 are drawn with their leading dims flattened into rows; rank 1 is one
row. :func:`layout_figure` returns the figure and the :class:`Drawing` it was made from.

>>> from layoutkit.layouts.iree import NestedLayout
>>> fig, drawing = layout_figure(NestedLayout([1], [1], [1], [4], [2], [0], [1], subgroup_size=4))
>>> drawing.labels.tolist()
[['T0:0', 'T0:1', 'T1:0', 'T1:1', 'T2:0', 'T2:1', 'T3:0', 'T3:1']]
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from math import prod
from pathlib import Path
from typing import Any

import numpy as np

from layoutkit.core.indices import check_table_size
from layoutkit.errors import LayoutError, quote

#: cells above which the labels are left out of the figure (they stay in the Drawing)
MAX_LABELLED_CELLS = 64 * 64
#: largest tensor drawn (1024x1024 cells) and most hardware indices placed on it
MAX_DRAWN_CELLS = 1 << 20
MAX_DRAWN_HOLDERS = 1 << 22
PADDING_COLOR = (0.82, 0.82, 0.82, 1.0)
EMPTY_COLOR = (1.0, 1.0, 1.0, 1.0)


@dataclass(frozen=True, eq=False)
class Drawing:
    """What a picture shows, as arrays over the drawn grid (rows x cols).

    ``labels`` / ``colors`` (RGBA) / ``holders`` (how many hardware indices hold each
    element) / ``thread`` / ``register`` / ``warp`` (of the first holder, -1 if none) for the
    tensor grid; for a memory layout ``thread`` holds the offset, and ``memory_labels``,
    ``memory_colors`` and ``memory_padding`` describe the memory panel.
    """

    kind: str
    title: str
    tensor_shape: tuple[int, ...]
    labels: np.ndarray
    colors: np.ndarray
    holders: np.ndarray
    thread: np.ndarray
    register: np.ndarray
    warp: np.ndarray
    memory_labels: np.ndarray | None = None
    memory_colors: np.ndarray | None = None
    memory_padding: np.ndarray | None = None

    @property
    def grid_shape(self) -> tuple[int, int]:
        return self.labels.shape  # type: ignore[return-value]


# --------------------------------------------------------------------------------------
# colors
# --------------------------------------------------------------------------------------
def warp_hue(warp: Any, num_warps: int) -> Any:
    """The hue (0..1) of a warp's color family: evenly spread, starting at blue."""
    return (0.58 + np.asarray(warp) / max(num_warps, 1)) % 1.0


def thread_colors(lane: Any, warp: Any, num_lanes: int, num_warps: int) -> np.ndarray:
    """RGBA per thread (vectorized): its warp's hue with a small shift per lane, and a
    brightness / saturation step per lane so that neighbouring lanes differ."""
    from matplotlib.colors import hsv_to_rgb

    lane, warp = np.broadcast_arrays(np.asarray(lane, dtype=float), np.asarray(warp, dtype=float))
    width = (0.3 / num_warps) if num_warps > 1 else 0.16
    position = lane / max(num_lanes - 1, 1)
    hue = (warp_hue(warp, num_warps) + (position - 0.5) * width) % 1.0
    step = lane % 4
    saturation = 0.35 + 0.5 * (1 - step / 3)
    value = 0.98 - 0.30 * ((lane // 4) % 2) - 0.05 * step
    rgb = hsv_to_rgb(np.stack([hue, saturation, value], axis=-1))
    return np.concatenate([rgb, np.ones(rgb.shape[:-1] + (1,))], axis=-1)


def element_colors(rows_index: Any, cols_index: Any, rows: int, cols: int) -> np.ndarray:
    """RGBA per tensor element in memory pictures: a hue per row, a shade per column."""
    from matplotlib.colors import hsv_to_rgb

    r = np.asarray(rows_index, dtype=float)
    c = np.asarray(cols_index, dtype=float)
    hue = (0.58 + r / max(rows, 1)) % 1.0
    saturation = 0.25 + 0.6 * (c / max(cols - 1, 1))
    value = np.full_like(hue, 0.92)
    rgb = hsv_to_rgb(np.stack([hue, saturation, value], axis=-1))
    return np.concatenate([rgb, np.ones(rgb.shape[:-1] + (1,))], axis=-1)


# --------------------------------------------------------------------------------------
# drawing data
# --------------------------------------------------------------------------------------
def _grid_of(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) == 1:
        return 1, shape[0]
    return prod(shape[:-1]), shape[-1]


def drawing_of(layout: Any, shape: Any = None) -> Drawing:
    """The :class:`Drawing` of a layout in the common protocol (no matplotlib needed)."""
    if not hasattr(layout, "table") or not hasattr(layout, "hardware_dims"):
        hint = ""
        if type(layout).__module__ == "layoutkit.core.cute":
            hint = (" (a CuTe layout is drawn as a thread-value layout over a tensor: write "
                    "'LAYOUT over MxN' or give the tensor type with -t)")
        raise LayoutError(f"layout: cannot draw {quote(str(layout))}, a {type(layout).__name__}{hint}")
    tensor_shape = layout.tensor_shape(shape)
    cells = prod(tensor_shape)
    if cells > MAX_DRAWN_CELLS:
        raise LayoutError(
            f"shape: a picture of {quote(list(tensor_shape))} would draw {cells} cells, at most "
            f"{MAX_DRAWN_CELLS} (2**{MAX_DRAWN_CELLS.bit_length() - 1}) are supported"
        )
    hw = layout.hardware_dims(tensor_shape)
    check_table_size(hw, str(layout), MAX_DRAWN_HOLDERS, "a picture")
    table = layout.table(tensor_shape)
    kind = getattr(layout, "kind", "distributed")
    if "offset" in hw:
        kind = "memory"
    title = str(layout)
    if kind == "memory":
        return _memory_drawing(title, tensor_shape, hw, table)
    return _distributed_drawing(title, tensor_shape, hw, table)


def _flat_inputs(hw: dict[str, int]) -> dict[str, np.ndarray]:
    grids = np.indices(tuple(hw.values()), dtype=np.int64).reshape(len(hw), -1)
    return {name: grids[i] for i, name in enumerate(hw)}


def _cell_index(table: np.ndarray, tensor_shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Flat cell index of every table entry and whether it is a real element (not padding)."""
    coords = table.reshape(-1, len(tensor_shape))
    valid = np.all((coords >= 0) & (coords < np.asarray(tensor_shape)), axis=1)
    cells = np.zeros(len(coords), dtype=np.int64)
    if valid.any():
        cells[valid] = np.ravel_multi_index(tuple(coords[valid].T), tensor_shape)
    return cells, valid


def _first_holder(cells: np.ndarray, valid: np.ndarray, key: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per cell: the index (into the flat entries) of the holder with the smallest key, and
    how many entries hold the cell."""
    holders = np.bincount(cells[valid], minlength=size)
    first = np.full(size, -1, dtype=np.int64)
    entries = np.nonzero(valid)[0]
    order = entries[np.lexsort((key[entries], cells[entries]))]
    sorted_cells = cells[order]
    starts = np.r_[True, sorted_cells[1:] != sorted_cells[:-1]] if len(order) else np.zeros(0, bool)
    first[sorted_cells[starts]] = order[starts]
    return first, holders


def _distributed_drawing(title: str, tensor_shape: tuple[int, ...], hw: dict[str, int],
                         table: np.ndarray) -> Drawing:
    inputs = _flat_inputs(hw)
    n = table[..., 0].size
    zeros = np.zeros(n, dtype=np.int64)
    register = inputs.get("register", zeros)
    lane, warp, block = inputs.get("lane", zeros), inputs.get("warp", zeros), inputs.get("block", zeros)
    lanes, warps = hw.get("lane", 1), hw.get("warp", 1)
    tid = (block * warps + warp) * lanes + lane
    size = prod(tensor_shape)
    cells, valid = _cell_index(table, tensor_shape)
    first, holders = _first_holder(cells, valid, tid * hw.get("register", 1) + register, size)
    has = first >= 0
    pick = np.where(has, first, 0)
    thread = np.where(has, tid[pick], -1)
    reg = np.where(has, register[pick], -1)
    warp_of = np.where(has, warp[pick], -1)
    lane_of = np.where(has, lane[pick], -1)
    colors = np.tile(np.asarray(EMPTY_COLOR), (size, 1))
    colors[has] = thread_colors(lane_of[has], warp_of[has], lanes, warps)
    extra = holders - 1
    labels = np.char.add(np.char.add("T", thread.astype(str)), np.char.add(":", reg.astype(str)))
    labels = np.where(extra > 0, np.char.add(labels, np.char.add(" +", extra.astype(str))), labels)
    labels = np.where(has, labels, "")
    grid = _grid_of(tensor_shape)
    return Drawing(
        kind="distributed", title=title, tensor_shape=tensor_shape,
        labels=labels.reshape(grid), colors=colors.reshape(grid + (4,)),
        holders=holders.reshape(grid), thread=thread.reshape(grid), register=reg.reshape(grid),
        warp=warp_of.reshape(grid),
    )


def _memory_drawing(title: str, tensor_shape: tuple[int, ...], hw: dict[str, int], table: np.ndarray) -> Drawing:
    inputs = _flat_inputs(hw)
    n = table[..., 0].size
    offset = inputs.get("offset", np.zeros(n, dtype=np.int64))
    block = inputs.get("block", np.zeros(n, dtype=np.int64))
    offsets_per_block = hw.get("offset", 1)
    address = block * offsets_per_block + offset
    size = prod(tensor_shape)
    cells, valid = _cell_index(table, tensor_shape)
    first, holders = _first_holder(cells, valid, address, size)
    has = first >= 0
    pick = np.where(has, first, 0)
    element_offset = np.where(has, address[pick], -1)
    grid = _grid_of(tensor_shape)
    rows, cols = grid
    cell_rows, cell_cols = np.divmod(np.arange(size), cols)
    colors = element_colors(cell_rows, cell_cols, rows, cols)
    colors[~has] = EMPTY_COLOR
    extra = holders - 1
    labels = np.where(has, element_offset.astype(str), "")
    labels = np.where(extra > 0, np.char.add(labels, np.char.add(" +", extra.astype(str))), labels)
    # the memory panel: addresses left to right, in rows of the padded row length
    total = int(address.max()) + 1 if n else 0
    width = _memory_row_length(title, total, cols)
    mem_rows = -(-total // width) if total else 0
    mem_labels = np.full(mem_rows * width, "", dtype=object)
    mem_colors = np.tile(np.asarray(EMPTY_COLOR), (mem_rows * width, 1))
    mem_padding = np.zeros(mem_rows * width, dtype=bool)
    at = np.full(mem_rows * width, -1, dtype=np.int64)
    order = np.argsort(address, kind="stable")
    at[address[order]] = np.where(valid[order], cells[order], -1)
    mem_padding[:total] = at[:total] < 0
    stored = np.nonzero(at >= 0)[0]
    mem_colors[stored] = colors[at[stored]]
    stored_rows, stored_cols = np.divmod(at[stored], cols)
    if len(tensor_shape) > 1:
        mem_labels[stored] = np.char.add(np.char.add(stored_rows.astype(str), ","), stored_cols.astype(str))
    else:
        mem_labels[stored] = stored_cols.astype(str)
    mem_colors[mem_padding] = PADDING_COLOR
    mem_labels[mem_padding] = "pad"
    return Drawing(
        kind="memory", title=title, tensor_shape=tensor_shape,
        labels=labels.reshape(grid), colors=colors.reshape(grid + (4,)),
        holders=holders.reshape(grid), thread=element_offset.reshape(grid),
        register=np.full(grid, -1), warp=np.full(grid, -1),
        memory_labels=mem_labels.reshape(mem_rows, width).astype(str),
        memory_colors=mem_colors.reshape(mem_rows, width, 4),
        memory_padding=mem_padding.reshape(mem_rows, width),
    )


def _memory_row_length(title: str, total: int, cols: int) -> int:
    """Row length of the memory panel: a tensor row plus the padding inserted after it
    (read from a padded_shared title), so padding lines up as columns."""
    import re

    m = re.search(r"padded_shared<\[(\d+):\+(\d+)", title)
    if m:
        interval, pad = int(m.group(1)), int(m.group(2))
        if interval % cols == 0 or cols % interval == 0:
            return max(interval, cols) + pad * max(1, cols // interval)
    return max(1, min(cols, total))


# --------------------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------------------
def layout_figure(layout: Any, shape: Any = None) -> tuple[Any, Drawing]:
    """A matplotlib Figure of ``layout`` (module doc) and the :class:`Drawing` behind it."""
    from matplotlib.figure import Figure

    drawing = drawing_of(layout, shape)
    rows, cols = drawing.grid_shape
    panels = [(drawing.labels, drawing.colors, None, "tensor")]
    if drawing.kind == "memory" and drawing.memory_labels is not None:
        panels = [(drawing.labels, drawing.colors, None, "tensor: offset of each element"),
                  (drawing.memory_labels, drawing.memory_colors, drawing.memory_padding,
                   "memory: element at each offset")]
    widest = max(p[0].shape[1] for p in panels)
    tallest = sum(max(p[0].shape[0], 1) for p in panels)
    cell = float(np.clip(14.0 / max(widest, tallest, 1), 0.16, 0.75))
    fig_w = max(4.0, widest * cell + 1.0)
    title = _wrap(drawing.title, int(fig_w * 13))
    title_h = 0.2 + 0.14 * (title.count("\n") + 1)
    header = title_h + 0.35 + (0.2 if len(panels) > 1 else 0.0)  # title, tick labels, subtitle
    fig_h = max(2.5, tallest * cell + 0.4 + header + 0.45 * (len(panels) - 1))
    fig = Figure(figsize=(fig_w, fig_h))
    # fixed margins (a layout engine would measure thousands of labels on every save)
    fig.subplots_adjust(left=0.6 / fig_w, right=1 - 0.2 / fig_w, bottom=0.2 / fig_h,
                        top=1 - header / fig_h,
                        hspace=0.6 / max(tallest * cell / len(panels), 0.5))
    heights = [max(p[0].shape[0], 1) for p in panels]
    axes = fig.subplots(len(panels), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, (labels, colors, padding, subtitle) in zip(axes, panels):
        is_tensor = subtitle.startswith("tensor")
        owner = drawing.thread if is_tensor and drawing.kind == "distributed" else None
        _draw_grid(ax, labels, colors, padding, cell, drawing.tensor_shape if is_tensor else None, owner)
        if len(panels) > 1:
            ax.set_title(subtitle, fontsize=9, loc="left")
    fig.suptitle(title, fontsize=8, family="monospace", y=1 - 0.1 / fig_h, va="top")
    return fig, drawing


def _draw_grid(ax: Any, labels: np.ndarray, colors: np.ndarray, padding: np.ndarray | None,
               cell: float, tensor_shape: tuple[int, ...] | None, owner: np.ndarray | None = None) -> None:
    """One panel: the cell colors as one image, the cell borders, thread boundaries and
    padding hatches as one collection each, and every label through one :class:`CellLabels`
    artist (a matplotlib Text per cell would cost a layout pass each: seconds at 64x64)."""
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.patches import Rectangle

    rows, cols = labels.shape
    ax.imshow(colors, interpolation="nearest", aspect="equal", extent=(-0.5, cols - 0.5, rows - 0.5, -0.5))
    step = max(1, cols // 16)
    ax.set_xticks(range(0, cols, step))
    ax.set_yticks(range(0, rows, max(1, rows // 16)))
    ax.tick_params(labelsize=7, top=True, labeltop=True, bottom=False, labelbottom=False)
    if tensor_shape is not None and len(tensor_shape) > 2:
        ax.set_ylabel(f"dims 0..{len(tensor_shape) - 2} flattened", fontsize=7)
    # white lines between all cells
    xs, ys = np.arange(cols + 1) - 0.5, np.arange(rows + 1) - 0.5
    borders = [[(x, -0.5), (x, rows - 0.5)] for x in xs] + [[(-0.5, y), (cols - 0.5, y)] for y in ys]
    ax.add_collection(LineCollection(borders, colors="white", linewidths=0.6))
    if owner is not None:  # dark lines where the holding thread changes
        rs, cs = np.nonzero(owner[:, 1:] != owner[:, :-1])
        vertical = np.stack([np.stack([cs + 0.5, rs - 0.5], -1), np.stack([cs + 0.5, rs + 0.5], -1)], 1)
        rs, cs = np.nonzero(owner[1:, :] != owner[:-1, :])
        horizontal = np.stack([np.stack([cs - 0.5, rs + 0.5], -1), np.stack([cs + 0.5, rs + 0.5], -1)], 1)
        segments = np.concatenate([vertical, horizontal])
        if len(segments):
            ax.add_collection(LineCollection(segments, colors="#333333",
                                             linewidths=max(0.4, min(1.2, cell * 2))))
    if padding is not None and padding.any():
        hatched = [Rectangle((c - 0.5, r - 0.5), 1, 1) for r, c in zip(*np.nonzero(padding))]
        ax.add_collection(PatchCollection(hatched, facecolor="none", hatch="////",
                                          edgecolor=(0.55, 0.55, 0.55), linewidth=0))
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    if rows * cols <= MAX_LABELLED_CELLS:
        longest = max((len(s) for s in labels.ravel()), default=1) or 1
        fontsize = float(np.clip(cell * 72 * 1.5 / max(longest, 3), 1.0, 9.0))
        ax.add_artist(cell_labels_artist(labels, colors, fontsize))


def cell_labels_artist(labels: np.ndarray, colors: np.ndarray, fontsize: float) -> Any:
    """A :class:`CellLabels` artist: ``labels[r, c]`` centered on cell ``(c, r)``, black on
    light cells and white on dark ones (by the luminance of ``colors``)."""
    return _cell_labels_class()(labels, colors, fontsize)


def _cell_labels_class() -> type:
    global _CELL_LABELS
    if _CELL_LABELS is None:
        from matplotlib.artist import Artist
        from matplotlib.font_manager import FontProperties

        class CellLabels(Artist):
            """Every cell label of a grid in one artist: one font measurement, then one
            ``renderer.draw_text`` per label at its baseline (labels are monospaced, so a
            label's width is its length times one character's)."""

            zorder = 3

            def __init__(self, labels: np.ndarray, colors: np.ndarray, fontsize: float) -> None:
                super().__init__()
                self.labels = labels
                luminance = colors[..., :3] @ np.array([0.299, 0.587, 0.114])
                self.dark = luminance <= 0.55
                self.prop = FontProperties(family="DejaVu Sans Mono", size=fontsize)
                self.set_in_layout(False)

            def get_texts(self) -> list[str]:
                """The labels drawn, row by row (empty cells left out)."""
                return [text for text in self.labels.ravel().tolist() if text]

            def draw(self, renderer: Any) -> None:
                if not self.get_visible():
                    return
                rows, cols = np.nonzero(self.labels != "")
                if not len(rows):
                    return
                texts = self.labels[rows, cols]
                centers = self.axes.transData.transform(np.stack([cols, rows], -1).astype(float))
                width, height, descent = renderer.get_text_width_height_descent("0" * 8, self.prop, ismath=False)
                char_width = width / 8
                lengths = np.char.str_len(texts.astype(str))
                xs = centers[:, 0] - lengths * char_width / 2
                ys = centers[:, 1] - height / 2 + descent  # baselines, y up
                if renderer.flipy():  # as Text.draw: such renderers take y down from the top
                    ys = renderer.get_canvas_width_height()[1] - ys
                dark = self.dark[rows, cols]
                renderer.open_group("cell_labels", gid=self.get_gid())
                gc = renderer.new_gc()
                if _is_raster(renderer):
                    _stamp_labels(renderer, gc, texts, xs, ys, dark, char_width, self.prop)
                else:  # vector output keeps every label as text
                    for is_dark, color in ((False, (0, 0, 0, 1)), (True, (1, 1, 1, 1))):
                        gc.set_foreground(color)
                        for i in np.nonzero(dark == is_dark)[0].tolist():
                            renderer.draw_text(gc, xs[i], ys[i], str(texts[i]), self.prop, 0.0, ismath=False)
                gc.restore()
                renderer.close_group("cell_labels")
                self.stale = False

        _CELL_LABELS = CellLabels
    return _CELL_LABELS


_CELL_LABELS: type | None = None


def _is_raster(renderer: Any) -> bool:
    from matplotlib.backends.backend_agg import RendererAgg

    return type(renderer) is RendererAgg


def _stamp_labels(renderer: Any, gc: Any, texts: np.ndarray, xs: np.ndarray, ys: np.ndarray,
                  dark: np.ndarray, char_width: float, prop: Any) -> None:
    """Raster output: each character is rendered once by Agg into a small bitmap, and the
    labels are stamped from those bitmaps into one RGBA layer (numpy, per character kind)
    drawn as one image -- the same glyphs ``draw_text`` would give, at rounded positions.
    ``ys`` are baselines in pixel rows from the top (Agg flips y)."""
    from matplotlib.backends.backend_agg import RendererAgg

    height_px = int(renderer.height)
    width_px = int(renderer.width)
    size = int(np.ceil(prop.get_size_in_points() * renderer.dpi / 72 * 2.5)) + 4
    origin_x, origin_y = 2, size // 3  # the glyph pen position inside its small canvas
    coverage = np.zeros((2, height_px, width_px), dtype=np.float32)  # light, dark text
    longest = max(int(np.char.str_len(texts.astype(str)).max()), 1)
    chars = texts.astype(f"<U{longest}").view("<U1").reshape(len(texts), longest)
    for char in np.unique(chars).tolist():
        if char in ("", " "):
            continue
        canvas = RendererAgg(size, size, renderer.dpi)
        canvas_gc = canvas.new_gc()
        canvas.draw_text(canvas_gc, origin_x, origin_y, char, prop, 0.0, ismath=False)
        canvas_gc.restore()
        glyph = np.asarray(canvas.buffer_rgba())[..., 3].astype(np.float32) / 255
        glyph_rows, glyph_cols = np.nonzero(glyph)
        weights = glyph[glyph_rows, glyph_cols]
        label_index, position = np.nonzero(chars == char)  # every occurrence of the character
        left = np.round(xs[label_index] + position * char_width).astype(np.int64) - origin_x
        top = np.round(ys[label_index]).astype(np.int64) - origin_y
        r = top[:, None] + glyph_rows[None, :]
        c = left[:, None] + glyph_cols[None, :]
        inside = (r >= 0) & (r < height_px) & (c >= 0) & (c < width_px)
        layer = np.broadcast_to(dark[label_index][:, None].astype(np.int64), r.shape)
        np.maximum.at(coverage, (layer[inside], r[inside], c[inside]),
                      np.broadcast_to(weights[None, :], r.shape)[inside])
    image = np.zeros((height_px, width_px, 4), dtype=np.float32)
    image[..., :3] = (coverage[1] > 0)[..., None]  # white text on dark cells, else black
    image[..., 3] = np.maximum(coverage[0], coverage[1])
    renderer.draw_image(gc, 0, 0, (image * 255).astype(np.uint8)[::-1])


def _wrap(text: str, width: int) -> str:
    import textwrap

    return textwrap.fill(text, width=max(width, 40), break_long_words=True, break_on_hyphens=False)


def picture_format(path: str) -> str:
    """``svg``, ``png`` or ``pdf`` from a file name's suffix, else a LayoutError."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in ("svg", "png", "pdf"):
        raise LayoutError(f"output: expected a .svg, .png or .pdf file name, got {quote(path)}")
    return suffix


def save_figure(fig: Any, path: Any, suffix: str | None = None) -> None:
    """Write a figure to ``path`` (a file name or a file object); the format follows the
    suffix (svg, png, pdf) unless given."""
    if suffix is None:
        suffix = picture_format(str(path))
    from matplotlib import rc_context

    # svg keeps text as text: thousands of labels stay small and fast to write
    with rc_context({"svg.fonttype": "none"}):
        fig.savefig(path, format=suffix, dpi=150)


def layout_svg(layout: Any, shape: Any = None) -> str:
    """The picture as SVG text (``LayoutBase._repr_svg_`` shows it in Jupyter)."""
    fig, _ = layout_figure(layout, shape)
    buffer = io.StringIO()
    save_figure(fig, buffer, "svg")
    return buffer.getvalue()
