"""Fuzzing the TritonGPU attribute parser: arbitrary and mutated attribute strings give an
encoding or a LayoutError, never another exception; whatever parses prints back to an
equal value and converts to a linear layout or raises a LayoutError."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutkit
from layoutkit import LayoutError

SEEDS = [
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "#triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], "
    "CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
    "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1], "
    "CGALayout = [[0, 1]]}>",
    "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], "
    "warpsPerCTA = [4, 1], order = [0, 1]}>}>",
    "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>",
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>",
    "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>, kWidth = 2}>",
    "#ttg.dot_op<{opIdx = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
    "warpsPerCTA = [4, 1], order = [1, 0]}>}>",
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
    "#ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2], instrShape = [16, 16, 32]}>",
    "#ttg.dot_op<{opIdx = 1, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], "
    "isTransposed = false}>, kWidth = 8}>",
    "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [], "
    "block = []}>",
]
FRAGMENTS = ["[", "]", "{", "}", "<", ">", ",", "=", "#ttg.", "0", "1", "2", "3", "-1", "64", "4294967296",
             "[[0, 1]]", "true", "false", "#mma", "parent", "kWidth", "order", "CGALayout", " ", "\"s\"", "x"]


def parse(text: str):
    try:
        return layoutkit.parse_layout(text)
    except LayoutError:
        return None


def check(text: str) -> None:
    enc = parse(text)
    if enc is None:
        return
    again = layoutkit.parse_layout(str(enc))
    assert again == enc, (text, str(enc))
    for size in (1, 16, 64):
        try:
            layout = enc.to_linear_layout((size,) * enc.rank)
        except LayoutError:
            continue
        assert layout.out_dims == {f"dim{d}": size for d in range(enc.rank)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["#ttg.", "#triton_gpu.", "#ttg.blocked", "#ttg.dot_op<{"]), st.text(max_size=80))
def test_arbitrary_text(prefix, tail):
    check(prefix + tail)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "replace", "duplicate"]))
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(FRAGMENTS)) + text[i:]
        elif kind == "replace":
            text = text[:i] + draw(st.sampled_from(FRAGMENTS)) + text[j:]
        else:
            text = text[:i] + text[i:j] * 2 + text[j:]
    if not text.startswith("#"):
        text = "#ttg." + text  # stay in the Triton family
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_attributes(text):
    check(text)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-2, 70), min_size=2, max_size=3),
    st.lists(st.integers(-2, 70), min_size=2, max_size=3),
    st.lists(st.integers(-2, 9), min_size=2, max_size=3),
    st.lists(st.integers(-1, 3), min_size=2, max_size=3),
)
def test_random_blocked_fields(spt, tpw, wpc, order):
    check(f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>")


def test_seeds_parse():
    for text in SEEDS:
        assert parse(text) is not None, text
        check(text)


def test_nesting_deeper_than_the_stack_is_a_layout_error():
    """Thousands of nested parents or brackets: a LayoutError, not a RecursionError."""
    deep_parent = "#ttg.slice<{dim = 0, parent = " * 3000 + SEEDS[0] + "}>" * 3000
    deep_list = "#ttg.linear<{register = " + "[" * 5000 + "]" * 5000 + "}>"
    for text in (deep_parent, deep_list):
        with pytest.raises(LayoutError, match="nested"):
            layoutkit.parse_layout(text)
