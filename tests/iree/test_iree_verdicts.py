"""What IREE 3.13 accepts, layoutkit reads (issue 10, item 8).

``goldens/iree_verdicts.json`` holds ``iree-opt``'s verdict on ``iree_vector_ext.to_layout``
ops carrying nested layouts on vector and tensor types (written by
``scripts/iree_verdicts.py``): element types (``index``, the f8/f6/f4 floats), rank-0 layouts,
zero strides, shape and rank mismatches. layoutkit must give the same verdict, except where a
layout cannot be tabulated (dynamic and scalable dims) or IREE accepts the attribute but cannot
lower it (overlapping strides): those are refused with a LayoutError naming why. Accepted
layouts are checked against IREE's formula for virtual ids, written here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from layoutkit import LayoutError, parse_layout, parse_tensor_type
from layoutkit.cli import main
from layoutkit.layouts.parse import element_bits

GOLDENS = json.loads((Path(__file__).parent / "goldens" / "iree_verdicts.json").read_text())
CASES = {case["name"]: case for case in GOLDENS["cases"]}
#: IREE accepts these; layoutkit refuses them on purpose, with this in the message
DELIBERATE = {
    "dynamic tensor": "dynamic dim '?' has no fixed size",
    "scalable vector": "scalable dim '[16]' has no fixed size",
    "overlapping thread strides": "thread_strides: dims 0 and 1 overlap",
}


def test_goldens_come_from_iree_3_13():
    assert "IREE compiler version 3.13" in GOLDENS["iree_version"]
    assert len(CASES) >= 35


def layoutkit_verdict(case: dict) -> str | None:
    """None when layoutkit reads the layout on the type, else its error message."""
    try:
        shape, _element = parse_tensor_type(case["type"])
        layout = parse_layout(case["layout"], subgroup_size=64)
        layout.tensor_shape(shape)
        layout.table()
    except LayoutError as err:
        return str(err)
    return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_layoutkit_agrees_with_iree(name):
    case = CASES[name]
    error = layoutkit_verdict(case)
    if name in DELIBERATE:
        assert case["accepted"] and error is not None and DELIBERATE[name] in error
    else:
        assert (error is None) == case["accepted"], (case, error)


def test_every_element_type_iree_accepts_is_known_with_its_width():
    widths = {t: element_bits(parse_tensor_type(c["type"])[1])
              for t, c in ((n.split(" ", 1)[1], c) for n, c in CASES.items() if n.startswith("element "))
              if c["accepted"]}
    assert widths["index"] == 64
    assert widths["f6E2M3FN"] == widths["f6E3M2FN"] == 6
    assert widths["f4E2M1FN"] == 4
    assert all(widths[t] == 8 for t in ("f8E4M3FN", "f8E5M2", "f8E4M3B11FNUZ", "f8E8M0FNU", "f8E3M4"))


def test_vector_and_rank_0_types():
    assert parse_tensor_type("vector<16x16xf16>") == ((16, 16), "f16")
    assert parse_tensor_type("vector<f16>") == ((), "f16")
    assert parse_tensor_type("tensor<index>") == ((), "index")
    with pytest.raises(LayoutError, match="expected 'tensor<DxDx...xTYPE>' or 'vector<DxDx...xTYPE>'"):
        parse_tensor_type("vector<16x16xf16, #ttg.blocked<{}>>")  # vectors carry no encoding


def iree_table(fields: dict, subgroup_size: int, num_subgroups: int) -> dict:
    """IREE's formula, element by element: (register, lane, warp) -> coordinates, with a
    virtual id of 0 on a stride-0 dim."""
    rank = len(fields["batch_tile"])
    per_thread = fields["batch_tile"] + fields["outer_tile"] + fields["element_tile"]
    out = {}
    for warp in range(num_subgroups):
        for lane in range(subgroup_size):
            tid = warp * subgroup_size + lane
            for register, digits in enumerate(np.ndindex(*per_thread)):
                coord = []
                for d in range(rank):
                    b, o, e = digits[d], digits[rank + d], digits[2 * rank + d]
                    s_stride, t_stride = fields["subgroup_strides"][d], fields["thread_strides"][d]
                    vsg = (tid // subgroup_size // s_stride) % fields["subgroup_tile"][d] if s_stride else 0
                    vt = (tid // t_stride) % fields["thread_tile"][d] if t_stride else 0
                    c = vsg
                    for level, digit in ((fields["batch_tile"], b), (fields["outer_tile"], o),
                                         (fields["thread_tile"], vt), (fields["element_tile"], e)):
                        c = c * level[d] + digit
                    coord.append(c)
                out[register, lane, warp] = tuple(coord)
    return out


@pytest.mark.parametrize("name", ["zero thread strides (gpu_vector_alloc)", "zero subgroup stride",
                                  "non-power-of-two tiles", "element f16"])
def test_accepted_layouts_follow_iree_formula(name):
    layout = parse_layout(CASES[name]["layout"], subgroup_size=16, num_subgroups=2)
    fields = {f: list(getattr(layout, f)) for f in ("subgroup_tile", "batch_tile", "outer_tile", "thread_tile",
                                                    "element_tile", "subgroup_strides", "thread_strides")}
    want = iree_table(fields, 16, 2)
    table = layout.table()
    assert {k: tuple(table[k]) for k in np.ndindex(*table.shape[:-1])} == want


def test_zero_strides_leave_tiles_unowned():
    layout = parse_layout(CASES["zero thread strides (gpu_vector_alloc)"]["layout"])
    held = {tuple(c) for c in layout.table().reshape(-1, 2).tolist()}
    assert held == {(0, 0), (1, 0), (2, 0), (3, 0)}  # every thread holds the first tile
    assert layout.owners((5, 0)) == []
    with pytest.raises(LayoutError, match="thread_strides: dim 0 is not distributed"):
        from layoutkit.translate import to_blocked
        to_blocked(layout)
    with pytest.raises(LayoutError, match="thread_strides: dim 0 has thread_tile 4 but stride 0"):
        layout.to_linear_text()


def test_rank_0_layout():
    text = CASES["rank 0 vector"]["layout"]
    layout = parse_layout(text)
    assert str(layout) == text and parse_layout(str(layout)) == layout
    assert layout.undistributed_shape == () and layout.tensor_shape(()) == ()
    assert layout.hardware_dims() == {"register": 1, "lane": 64, "warp": 1}
    assert layout.table().shape == (1, 64, 1, 0)
    assert layout.apply(lane=3) == {}
    with pytest.raises(LayoutError, match="covers"):
        layout.tensor_shape((1,))


def test_show_reads_vector_types(capsys):
    text = CASES["element f16"]["layout"]
    assert main(["show", "-l", text, "-t", "vector<16x16xf8E4M3B11FNUZ>", "--subgroup-size", "64"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("[[ T0:0,") and len(out) == 17
