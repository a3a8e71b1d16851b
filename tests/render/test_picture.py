"""Pictures: the drawing data against owners computed by brute force here, the figure
against the drawing data, and the files the CLI writes."""

from __future__ import annotations

import io
import itertools
import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")  # the plot extra; part of the test extra

from matplotlib.colors import rgb_to_hsv  # noqa: E402

import layoutkit  # noqa: E402
from layoutkit import LayoutError  # noqa: E402
from layoutkit.cli import main  # noqa: E402
from layoutkit.layouts.iree import NestedLayout  # noqa: E402
from layoutkit.render.picture import drawing_of, layout_figure, layout_svg, save_figure  # noqa: E402

SEED000 = NestedLayout([2, 1], [2, 4], [1, 1], [16, 4], [1, 4], [1, 0], [1, 16], num_subgroups=4)
SEED004 = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"


def expected_labels_nested(layout: NestedLayout) -> np.ndarray:
    """Seed 000's formulas, element by element: the first holder (smallest thread id, then
    register) of each element, and how many hold it."""
    rows, cols = layout.undistributed_shape
    holders: dict[tuple[int, int], list[tuple[int, int]]] = {}
    regs = list(itertools.product(*(range(n) for n in layout.distributed_shape)))
    for warp in range(layout.num_subgroups):
        vsg = [(warp // s) % n if s else 0 for s, n in zip(layout.subgroup_strides, layout.subgroup_tile)]
        for lane in range(layout.subgroup_size):
            flat = warp * layout.subgroup_size + lane
            vt = [(flat // s) % n if s else 0 for s, n in zip(layout.thread_strides, layout.thread_tile)]
            for r, digits in enumerate(regs):
                coord = []
                for d in range(2):
                    b, o, e = digits[d], digits[2 + d], digits[4 + d]
                    coord.append((((vsg[d] * layout.batch_tile[d] + b) * layout.outer_tile[d] + o)
                                  * layout.thread_tile[d] + vt[d]) * layout.element_tile[d] + e)
                holders.setdefault(tuple(coord), []).append((flat, r))
    labels = np.empty((rows, cols), dtype=object)
    for (i, j), who in holders.items():
        tid, reg = min(who)
        labels[i, j] = f"T{tid}:{reg}" + (f" +{len(who) - 1}" if len(who) > 1 else "")
    return labels


def test_nested_labels_match_brute_force():
    small = NestedLayout([2, 1], [1, 2], [1, 1], [4, 2], [1, 2], [1, 0], [1, 4], subgroup_size=8, num_subgroups=4)
    drawing = drawing_of(small)
    assert drawing.labels.tolist() == expected_labels_nested(small).tolist()
    # subgroups 2, 3 wrap onto 0, 1: every element has two holders
    assert (drawing.holders == 2).all()


def test_seed000_picture_labels_and_colors():
    drawing = drawing_of(SEED000)
    assert drawing.labels.tolist() == expected_labels_nested(SEED000).tolist()
    # thread 16 (lane 16 of subgroup 0) holds row 0, columns 4..7 as registers 0..3
    assert drawing.labels[0, 4:8].tolist() == ["T16:0 +1", "T16:1 +1", "T16:2 +1", "T16:3 +1"]
    # one color per thread: cells of one thread share it, different threads differ
    colors = drawing.colors.reshape(-1, 4)
    threads = drawing.thread.ravel()
    for tid in np.unique(threads):
        assert np.ptp(colors[threads == tid], axis=0).max() == 0
    unique_threads = {tuple(colors[threads == t][0]) for t in np.unique(threads)}
    assert len(unique_threads) == len(np.unique(threads))


def hue_distance(a, b):
    d = abs(a - b) % 1.0
    return min(d, 1 - d)


def test_one_hue_family_per_warp():
    blocked = layoutkit.parse_layout(SEED004)
    drawing = drawing_of(blocked, (16, 32))
    hues = rgb_to_hsv(drawing.colors[..., :3])[..., 0]
    warps = drawing.warp
    centers = {}
    for w in range(4):
        h = hues[warps == w]
        center = h[0]
        # every thread of a warp stays close to its warp's hue ...
        assert max(hue_distance(x, center) for x in h) < 0.1
        centers[w] = center
    # ... and the warps' families are far apart
    for a, b in itertools.combinations(centers.values(), 2):
        assert hue_distance(a, b) > 0.12
    # seed 004 on 16x32: lanes l and l + 4 do not duplicate (the tensor is 32 wide)
    assert (drawing.holders == 1).all()
    assert drawing.labels[0, :5].tolist() == ["T0:0", "T0:1", "T0:2", "T0:3", "T1:0"]
    # element (i, j): lane 8 * (i % 4) + (j // 4) % 8, warp i // 4 (seed 004's rule)
    i, j = np.indices((16, 32))
    np.testing.assert_array_equal(drawing.thread, (i // 4) * 32 + 8 * (i % 4) + (j // 4) % 8)


def test_duplicates_are_shown():
    blocked = layoutkit.parse_layout(SEED004)
    drawing = drawing_of(blocked, (16, 16))
    assert (drawing.holders == 2).all()
    assert all(label.endswith(" +1") for label in drawing.labels.ravel())


def test_padded_shared_memory_picture():
    padded = layoutkit.parse_layout("#ttg.padded_shared<[8:+2] {order = [1, 0], shape = [8, 8]}>")
    drawing = drawing_of(padded)
    assert drawing.kind == "memory"
    i, j = np.indices((8, 8))
    # element (i, j) sits at i * 8 + j plus 2 padding slots after each full row of 8
    assert drawing.labels.tolist() == (i * 10 + j).astype(str).tolist()
    assert drawing.memory_padding.sum() == 2 * 7
    assert drawing.memory_labels[0].tolist() == [f"0,{c}" for c in range(8)] + ["pad", "pad"]
    np.testing.assert_array_equal(drawing.memory_colors[1, 3], drawing.colors[1, 3])


def test_swizzled_shared_memory_picture():
    shared = layoutkit.parse_layout("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>")
    drawing = drawing_of(shared, (4, 8))
    # Triton's swizzle: offset of (i, j) = i * 8 + ((j // vec) ^ (i % maxPhase)) * vec + j % vec
    i, j = np.indices((4, 8))
    expected = i * 8 + (((j // 2) ^ (i % 4)) * 2) + j % 2
    assert drawing.labels.tolist() == expected.astype(str).tolist()
    assert not drawing.memory_padding.any()


def test_figure_is_made_from_the_drawing(tmp_path):
    layout = NestedLayout([1, 1], [1, 1], [2, 1], [2, 5], [1, 1], [0, 0], [5, 1], subgroup_size=10)
    fig, drawing = layout_figure(layout)
    ax = fig.axes[0]
    (labels,) = [a for a in ax.artists if hasattr(a, "get_texts")]  # one artist, every label
    texts = sorted(labels.get_texts())
    assert texts == sorted(drawing.labels.ravel().tolist())
    # and the written file holds each label as text, inside its own cell
    svg = io.StringIO()
    save_figure(fig, svg, "svg")
    height_pt = fig.get_figheight() * 72
    group = re.search(r'<g id="cell_labels[^"]*">(.*?)</g>', svg.getvalue(), re.DOTALL).group(1)
    placed = re.findall(r'<text [^>]*transform="translate\(([-\d.]+) ([-\d.]+)\)">([^<]*)<', group)
    assert sorted(text for _, _, text in placed) == texts
    to_display = ax.transData.transform
    scale = 72 / fig.dpi  # svg units are points
    for x, y, text in placed:
        row, col = np.argwhere(drawing.labels == text)[0]
        left, top = to_display((col - 0.5, row - 0.5)) * scale
        right, bottom = to_display((col + 0.5, row + 0.5)) * scale
        assert left <= float(x) <= right and bottom <= height_pt - float(y) <= top, (text, x, y)
    image = ax.images[0].get_array()
    np.testing.assert_allclose(np.asarray(image), drawing.colors)
    # seed 000's outer example: the 2x5 thread grid twice
    assert drawing.labels[:, 0].tolist() == ["T0:0", "T5:0", "T0:1", "T5:1"]
    path = tmp_path / "outer.png"
    fig.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_repr_svg_for_notebooks():
    svg = NestedLayout([2, 1], [1, 2], [1, 1], [4, 2], [1, 2], [1, 0], [1, 4], subgroup_size=8)._repr_svg_()
    assert svg is not None and "<svg" in svg
    svg = layout_svg(layoutkit.parse_layout(SEED004), (16, 16))
    assert svg.lstrip().startswith("<?xml") and svg.count(">T0:0 +1<") == 1  # text stays text
    assert svg.count("<title>(0, 0): T0:0 +1 (warp 0, lane 0)</title>") == 1  # and a tooltip per cell


def test_cli_render(tmp_path, capsys):
    out = tmp_path / "nested.svg"
    text = str(SEED000)
    assert main(["render", "-l", text, "-t", "tensor<64x64xf16>", "-o", str(out), "--subgroup-size", "64"]) == 0
    assert "<svg" in out.read_text()
    pdf = tmp_path / "blocked.pdf"
    assert main(["render", "-l", SEED004, "-t", "tensor<16x16xf16>", "-o", str(pdf)]) == 0
    assert pdf.read_bytes()[:4] == b"%PDF"
    ttgir = tmp_path / "k.ttgir"
    ttgir.write_text(f"#blocked = {SEED004}\n#other = {SEED004}\n")
    png = tmp_path / "b.png"
    assert main(["render", "-i", str(ttgir), "--alias-name", "blocked", "-t", "tensor<8x8xf16>", "-o", str(png)]) == 0
    capsys.readouterr()
    for args, message in [
        (["-l", SEED004, "-t", "tensor<16x16xf16>", "-o", str(tmp_path / "x.gif")], "output"),
        (["-l", text, "-t", "tensor<64x32xf16>", "-o", str(out)], "shape"),
        (["-i", str(ttgir), "-t", "tensor<8x8xf16>", "-o", str(png)], "alias-name"),
        (["-l", "#iree_vector_ext.nested_layout<subgroup_tile = [2]>", "-o", str(out)], "batch_tile"),
    ]:
        assert main(["render", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_not_a_layout():
    with pytest.raises(LayoutError, match="layout"):
        drawing_of(object())


def test_raster_labels_are_the_glyphs_draw_text_gives(tmp_path, monkeypatch):
    """PNG labels are stamped from per-character bitmaps; the picture equals the one drawn
    with a draw_text call per label, up to a pixel of rounding on glyph edges."""
    from layoutkit.render import picture

    layout = NestedLayout([2, 1], [1, 2], [1, 1], [4, 2], [1, 2], [1, 0], [1, 4], subgroup_size=8)
    fig, _ = layout_figure(layout)
    fig.savefig(tmp_path / "stamped.png", dpi=150)
    monkeypatch.setattr(picture, "_is_raster", lambda renderer: False)
    fig, _ = layout_figure(layout)
    fig.savefig(tmp_path / "drawn.png", dpi=150)
    from matplotlib.image import imread

    stamped, drawn = imread(tmp_path / "stamped.png"), imread(tmp_path / "drawn.png")
    assert stamped.shape == drawn.shape

    def far(a, b):
        """Pixels of ``a`` unlike every pixel of ``b`` within one pixel of them."""
        nearest = np.full(a.shape[:2], np.inf)
        for dy, dx in itertools.product((-1, 0, 1), repeat=2):
            nearest = np.minimum(nearest, np.abs(a - np.roll(b, (dy, dx), axis=(0, 1))).max(axis=-1))
        return nearest > 0.25

    assert far(stamped, drawn).mean() < 0.001 and far(drawn, stamped).mean() < 0.004
    # without labels the picture is far from the drawn one wherever a glyph is
    fig, _ = layout_figure(layout, labels=False)
    fig.savefig(tmp_path / "bare.png", dpi=150)
    text_pixels = far(drawn, imread(tmp_path / "bare.png")).mean()
    assert text_pixels > 5 * far(drawn, stamped).mean(), text_pixels
