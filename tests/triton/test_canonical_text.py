"""``read_canonical``: Triton-printed encoding text read with one regex match per attribute,
against the general attribute reader (``from_attribute(parse_attribute(text))``), which must
give an equal value whenever the canonical reader gives one -- on every golden text of
Triton 3.9, on random encodings as printed, and on random edits of them (which the
canonical reader must leave to the general one, or read the same way)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import LayoutError
from layoutkit.core.text import parse_attribute
from layoutkit.layouts import triton
from layoutkit.layouts.triton.amd import AmdMfmaEncoding
from layoutkit.layouts.triton.blocked import BlockedEncoding, SliceEncoding
from layoutkit.layouts.triton.cga import CGALayout
from layoutkit.layouts.triton.linear import LinearEncoding
from layoutkit.layouts.triton.mma import DotOperandEncoding, NvidiaMmaEncoding

GOLDENS = json.loads((Path(__file__).parent / "goldens" / "triton39.json").read_text())["cases"]


def general(text):
    try:
        return triton.from_attribute(parse_attribute(text))
    except LayoutError as err:
        return err


def test_golden_texts_read_the_same_by_both_readers():
    texts = {case["text"] for case in GOLDENS}
    fast = 0
    for text in texts:
        found = triton.read_canonical(text)
        if found is not None:
            fast += 1
            assert found == general(text), text
    # the distributed encodings Triton prints are read by the canonical reader
    distributed = [t for t in texts if t.startswith(("#ttg.blocked", "#ttg.slice", "#ttg.nvidia_mma", "#ttg.dot_op<",
                                                     "#ttg.amd_mfma", "#ttg.linear"))]
    assert fast >= 0.9 * len(distributed)


POW2 = st.sampled_from([1, 2, 4, 8])


@st.composite
def encodings(draw, depth=0):
    kind = draw(st.sampled_from(["blocked", "mma", "mfma", "linear"] + (["slice", "dot_op"] if depth < 2 else [])))
    rank = draw(st.integers(2, 3))
    if kind == "blocked":
        cga = None
        if draw(st.booleans()):
            cga = CGALayout(((0,) * (rank - 1) + (1,), (1,) + (0,) * (rank - 1)), rank)
        return BlockedEncoding(tuple(draw(POW2) for _ in range(rank)), tuple(draw(POW2) for _ in range(rank)),
                               tuple(draw(POW2) for _ in range(rank)),
                               tuple(draw(st.permutations(list(range(rank))))), cga)
    if kind == "mma":
        return NvidiaMmaEncoding(2, draw(st.integers(0, 1)), tuple(draw(POW2) for _ in range(rank)),
                                 (1,) * (rank - 2) + (16, 8))
    if kind == "mfma":
        return AmdMfmaEncoding(draw(st.integers(1, 4)), tuple(draw(POW2) for _ in range(rank)),
                               draw(st.sampled_from([(32, 32, 8), (16, 16, 16)])), draw(st.booleans()),
                               tiles_per_warp=tuple(draw(st.sampled_from([1, 2])) for _ in range(rank)),
                               element_bit_width=draw(st.sampled_from([32, 64])))
    if kind == "linear":
        register, lane = [(0,) * (rank - 1) + (1,)], []
        for d in range(rank):  # per dim the values 1, 2, 4, ... (dim rank-1 has 1 already)
            for k in range(int(d == rank - 1), draw(st.integers(int(d == rank - 1), 3))):
                basis = tuple(1 << k if i == d else 0 for i in range(rank))
                (register if draw(st.booleans()) else lane).append(basis)
        return LinearEncoding(tuple(register), tuple(lane), (), ())
    if kind == "slice":
        parent = draw(encodings(depth + 1))
        return SliceEncoding(draw(st.integers(0, parent.rank - 1)), parent) if parent.rank >= 2 else parent
    parent = draw(st.sampled_from([NvidiaMmaEncoding(2, 0, (2,) * rank, (1,) * (rank - 2) + (16, 8)),
                                   AmdMfmaEncoding(3, (2,) * rank, (32, 32, 8), True)]))
    return DotOperandEncoding(draw(st.integers(0, 1)), parent, draw(st.sampled_from([1, 2, 8])))


@given(encodings())
@settings(max_examples=300, deadline=None)
def test_printed_encodings_are_read_canonically_and_equal(encoding):
    text = str(encoding)
    found = triton.read_canonical(text)
    assert found is not None, text
    assert found == encoding == general(text)


EDITS = st.sampled_from(["digit", "space", "drop", "zero", "minus", "bool", "dup", "brackets"])


@given(encodings(), st.lists(st.tuples(EDITS, st.integers(0, 10_000), st.integers(0, 9)), min_size=1, max_size=3))
@settings(max_examples=500, deadline=None)
def test_edited_texts_are_read_the_same_or_left_to_the_general_reader(encoding, edits):
    text = str(encoding)
    for edit, where, digit in edits:
        at = where % len(text)
        if edit == "digit":
            positions = [i for i, c in enumerate(text) if c.isdigit()]
            if positions:
                at = positions[where % len(positions)]
                text = text[:at] + str(digit) + text[at + 1:]
        elif edit == "space":
            text = text[:at] + " " + text[at:]
        elif edit == "drop":
            text = text[:at] + text[at + 1:]
        elif edit == "zero":
            text = text[:at] + "0" + text[at:]
        elif edit == "minus":  # a negative number
            starts = [i for i, c in enumerate(text) if c.isdigit() and text[i - 1] in " ["]
            if starts:
                at = starts[where % len(starts)]
            text = text[:at] + "-" + text[at:]
        elif edit == "bool":
            text = text.replace("true", "false") if digit % 2 else text.replace("false", "true")
        elif edit == "dup":  # a field written twice
            start = text.find("{") + 1
            end = text.find(", ", start)
            if end > 0:
                text = text[:start] + text[start:end] + ", " + text[start:]
        else:
            text = text[:at] + "[]" + text[at:]
    found = triton.read_canonical(text)
    if found is not None:
        assert found == general(text), text
