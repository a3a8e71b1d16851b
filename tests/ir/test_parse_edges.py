"""parse_module on what users paste: comment-only files, Triton's trailing #loc aliases,
and verifier failures xDSL raises as bare exceptions."""

from __future__ import annotations

import pytest

from layoutkit import LayoutError
from layoutkit.ir import parse_module, print_module


def test_comment_only_input_is_an_empty_module():
    module = parse_module("// nothing here\n\n   // still nothing\n")
    assert list(module.body.blocks[0].ops) == []


def test_location_aliases_after_the_module_resolve_and_lines_are_kept():
    text = (
        '#loc = loc("k.py":1:0)\n'
        "module {\n"
        "  func.func @f(%x: i32) -> i32 {\n"
        "    %y = arith.addi %x, %x : i32 loc(#loc1)\n"
        "    func.return %y : i32 loc(#loc2)\n"
        "  } loc(#loc)\n"
        "} loc(#loc)\n"
        '#loc1 = loc("k.py":3:4)\n'
        '#loc2 = loc("k.py":4:4)\n'
    )
    module = parse_module(text)
    assert "arith.addi" in print_module(module)
    broken = text.replace("arith.addi %x, %x : i32", "arith.addi %x, %x : i64")
    with pytest.raises(LayoutError, match=r"line 4\b"):
        parse_module(broken)


def test_a_verifier_raising_a_bare_exception_is_a_layout_error_with_the_line():
    text = ("func.func @f(%x: memref<4xf32>, %w: f32, %i: index) {\n"
            "  memref.store %w, %x[%i, %i] : memref<4xf32>\n"
            "  func.return\n"
            "}\n")
    with pytest.raises(LayoutError, match=r"line 2: memref.store: .*index for each dimension"):
        parse_module(text)


def test_text_that_ends_inside_a_region_says_so():
    with pytest.raises(LayoutError, match=r"line 2, column 1: expected more text in block definition"):
        parse_module("module {\n")
