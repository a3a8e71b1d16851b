"""layoutkit against Triton 3.9 itself: random encodings of every kind, their text as Triton
prints it and their linear layouts as Triton computes them.

The goldens (``goldens/triton39.json``) are written by ``scripts/generate_triton_goldens.py``
with ``triton==3.9.0`` (see that script and the README's contributor section); nothing here
runs Triton. Per case:

- ``text`` -- the attribute exactly as Triton 3.9 prints it: layoutkit reads it and prints it
  back character for character (so Triton's parser reads what layoutkit prints);
- ``bases`` -- Triton's ``toLinearLayout`` on ``shape``: layoutkit's ``to_linear_layout``
  gives the same bases, in-dim by in-dim, basis by basis;
- ``legacy_text`` -- the same encoding with its CGA layout in the legacy
  ``CTAsPerCGA / CTASplitNum / CTAOrder`` fields (converted by Triton's own
  ``make_cga_layout``): it reads to the same value;
- ``linear_component`` (``padded_shared``, which has no linear layout): the unpadded map.

``amd_rotating_shared`` cases pin the text only: Triton 3.9's Python bindings can parse the
attribute but cannot hand it to ``toLinearLayout`` (no builder for it, and
``get_gluon_layout_from_memdesc`` reports it as unhandled); its map is checked against a
formula in ``test_shared_amd_rotating.py``.

Known differences, each marked ``xfail`` below with its reason:

- ``partitioned_shared`` (new in Triton 3.9) is not implemented in layoutkit yet; besides,
  the bindings return its layout without the in-dim that numbers the partitions, so its
  goldens are incomplete.
- ``nvmma_shared`` with ``swizzlingByteWidth = 0, transposed = true`` on rank >= 3:
  Triton 3.9 gives offset bases that broadcast (zero bases) and skip elements, e.g. at
  [8, 2, 4] ``[[0, 1, 0], [0, 0, 0], [0, 0, 0], [1, 0, 0], ...]`` -- 256 offsets for 64
  elements, which no shared-memory layout should do; Triton is arguably wrong there.
  layoutkit stores such a tensor as its TMA box (dim 0 innermost, then the last dim down),
  as it does for rank 2, where it agrees with Triton.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from layoutkit import parse_layout

GOLDENS = json.loads((Path(__file__).parent / "goldens" / "triton39.json").read_text())
CASES = GOLDENS["cases"]


def case_id(index: int) -> str:
    return f"{index}-{CASES[index]['encoding']}"


def known_difference(case: dict, text_only: bool) -> str | None:
    if case["encoding"] == "partitioned_shared":
        return "partitioned_shared is not implemented in layoutkit"
    if (not text_only and case["encoding"] == "nvmma_shared" and "swizzlingByteWidth = 0, transposed = true" in case["text"]
            and len(case["shape"]) >= 3):
        return "Triton 3.9's rank >= 3 transposed unswizzled nvmma_shared broadcasts offsets (see module doc)"
    return None


def cases(indices=None, text_only=False):
    """Parameters for the case indices, the known differences marked xfail."""
    params = []
    for index in range(len(CASES)) if indices is None else indices:
        reason = known_difference(CASES[index], text_only)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        params.append(pytest.param(index, id=case_id(index), marks=marks))
    return params


def test_goldens_cover_every_encoding():
    """Every TritonGPU encoding of Triton 3.9, and both CGA spellings."""
    encodings = {case["encoding"] for case in CASES}
    assert encodings == {
        "blocked", "slice", "nvidia_mma", "dot_op", "amd_mfma", "amd_wmma", "linear",
        "generic_linear", "swizzled_shared", "amd_rotating_shared", "nvmma_shared",
        "shared_linear", "padded_shared", "partitioned_shared",
    }
    assert GOLDENS["triton"] == "3.9.0"
    assert sum("CGALayout" in case["text"] for case in CASES) >= 50
    assert sum("legacy_text" in case for case in CASES) >= 100
    parents = {c["text"].split("parent = #ttg.")[1].split("<")[0] for c in CASES if c["encoding"] == "dot_op"}
    assert parents == {"nvidia_mma", "blocked", "amd_mfma", "amd_wmma"}


@pytest.mark.parametrize("index", cases(text_only=True))
def test_text_prints_as_triton_prints(index):
    case = CASES[index]
    assert str(parse_layout(case["text"])) == case["text"]


@pytest.mark.parametrize("index", cases())
def test_linear_layout_equals_triton(index):
    case = CASES[index]
    layout = parse_layout(case["text"])
    if "bases" in case:
        ll = layout.to_linear_layout(tuple(case["shape"]))
        assert ll.bases == case["bases"]
        assert list(ll.out_dims.values()) == case["shape"]
    elif "linear_component" in case:
        assert layout.linear_component.bases == case["linear_component"]
    else:
        assert case["encoding"] == "amd_rotating_shared"


LEGACY = [i for i, case in enumerate(CASES) if "legacy_text" in case]


@pytest.mark.parametrize("index", cases(LEGACY))
def test_legacy_cga_fields_read_to_the_same_layout(index):
    case = CASES[index]
    legacy = parse_layout(case["legacy_text"])
    assert str(legacy) == case["text"]
    assert legacy.to_linear_layout(tuple(case["shape"])).bases == case["bases"]


@pytest.mark.parametrize("text", [
    # issue 10 item 3, each printed back exactly so by Triton 3.9 (checked with triton==3.9.0)
    "#ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {warp = [[0, 1], [1, 0]]}}>",
    "#ttg.generic_linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0]], warp = [[4, 2]], block = []}>",
    "#ttg.padded_shared<[128:+8] {offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], "
    "[8, 0], [16, 0]], block = [[0, 0]]}>",
])
def test_upstream_syntax_reads_and_prints_back(text):
    layout = parse_layout(text)
    assert str(layout) == text
    assert parse_layout(str(layout)) == layout


def test_generic_linear_must_reach_every_element():
    """Triton 3.9 rejects this one too ('Layout is expected to be surjective')."""
    from layoutkit import LayoutError

    with pytest.raises(LayoutError, match="^warp: the bases must reach every element"):
        parse_layout("#ttg.generic_linear<{register = [[0, 1]], lane = [[1, 0], [2, 0]], warp = [[4, 2]], block = []}>")
