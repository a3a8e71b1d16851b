"""Parse-time checks: SSA dominance -- a value used before its definition, or outside the region
defining it, is a located LayoutError (MLIR: "operand #i does not dominate this use"), not
a simulator crash or a stale value."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

from layoutkit.cli import main  # noqa: E402
from layoutkit.errors import LayoutError  # noqa: E402
from layoutkit.ir import parse_module  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "pcf"

USE_BEFORE_DEF = """\
func.func @f(%a: index) -> index {
  %c2 = arith.constant 2 : index
  %x = arith.addi %y, %c2 : index
  %y = arith.muli %a, %c2 : index
  return %x : index
}
"""

LOOP_VALUE_OUTSIDE = """\
func.func @f(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.addi %t, %c1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = arith.addi %i, %c1 : index
  }
  return %z : index
}
"""

VALID = """\
func.func @g(%a: index) -> index {
  return %a : index
}
func.func @f(%n: index, %p: i1) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %t = arith.addi %i, %acc : index
    %u = scf.if %p -> (index) {
      %v = arith.addi %t, %n : index
      scf.yield %v : index
    } else {
      scf.yield %t : index
    }
    scf.yield %u : index
  }
  %r = func.call @g(%s) : (index) -> index
  %q = arith.addi %s, %r : index
  return %q : index
}
"""


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)


def test_use_before_definition_is_located():
    with pytest.raises(LayoutError) as err:
        parse_module(USE_BEFORE_DEF)
    use, definition = _line(USE_BEFORE_DEF, "%x ="), _line(USE_BEFORE_DEF, "%y =")
    assert str(err.value) == (f"line {use}: arith.addi: operand #0 '%y' does not dominate this use: "
                              f"it is defined later (line {definition})")


def test_value_of_a_later_region_used_before_it_is_located():
    """A forward reference to a value defined inside a later loop (xDSL binds it)."""
    with pytest.raises(LayoutError) as err:
        parse_module(LOOP_VALUE_OUTSIDE)
    use, loop = _line(LOOP_VALUE_OUTSIDE, "%z ="), _line(LOOP_VALUE_OUTSIDE, "scf.for")
    assert str(err.value).startswith(f"line {use}: arith.addi: operand #0 '%t' does not dominate this use: "
                                     f"it is defined inside a region of scf.for (line {loop})")


def test_nested_uses_and_block_arguments_are_accepted():
    module = parse_module(VALID)
    assert sum(1 for _ in module.walk()) > 10


def test_cli_reports_a_deleted_definition_in_an_example(tmp_path, capsys):
    """ping_pong.mlir with one definition of %gk deleted: before, xDSL bound the use to the
    other loop's %gk and `simulate` crashed with a KeyError."""
    text = (EXAMPLES / "ping_pong.mlir").read_text()
    lines = text.split("\n")
    defs = [i for i, line in enumerate(lines) if line.strip().startswith("%gk = ")]
    assert len(defs) >= 2
    use = next(i for i in range(defs[-2], len(lines)) if "%gk]" in lines[i] or "%gk," in lines[i])
    del lines[defs[-2]]  # its use now names the next loop's %gk, defined later
    path = tmp_path / "broken.mlir"
    path.write_text("\n".join(lines))
    code = main(["compile", str(path), "--pipeline", "pcf-to-gpu", "--workgroup-size", "128",
                 "--subgroup-size", "32", "-o", str(tmp_path / "out.mlir")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    column = lines[use - 1].index("memref.load") + 1
    assert err.startswith(f"{path}:{use}:{column}: error: ")
    assert "'%gk' does not dominate this use" in err


def test_undefined_value_points_at_its_first_use_not_a_comment():
    text = ("func.func @f(%n: index) -> index {\n  // uses %t\n  %c1 = arith.constant 1 : index\n"
            "  %z = arith.addi %t, %c1 : index\n  return %z : index\n}\n")
    with pytest.raises(LayoutError) as err:
        parse_module(text)
    line = _line(text, "%z =")
    column = text.split("\n")[line - 1].index("%t") + 1
    assert str(err.value).startswith(f"line {line}, column {column}: values used but not defined: [%t]")


def test_a_bare_xdsl_exception_in_a_type_is_located_at_the_type():
    """A semi-affine cluster bound raises a bare exception inside xDSL's affine parser: the
    error is on the line of the type, not line 1 (where nothing failed)."""
    text = ("// a comment on line 1\n"
            "func.func @f(%c: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0 * s0, s0)>, tg.a>) {\n"
            "  return\n}\n")
    with pytest.raises(LayoutError) as err:
        parse_module(text)
    assert str(err.value).startswith("line 2, column ")
    assert "Multiplication with non-constant" in str(err.value)
