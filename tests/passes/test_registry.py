"""The pass and pipeline registries, pass options, and ``layoutkit opt`` in-process: exit
status 2 with one error line for every user error, errors located in the input file."""

from __future__ import annotations

import dataclasses
import io
import sys
import types

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.passes import ModulePass

from layoutkit.cli import main
from layoutkit.errors import LayoutError
from layoutkit.passes import PASSES, pass_class, pass_summary
from layoutkit.pipelines import PIPELINES, parse_pass_pipeline

MODULE = """module {
  func.func @f(%x: i32) -> i32 {
    %y = arith.addi %x, %x : i32
    func.return %y : i32
  }
}
"""


@dataclasses.dataclass(frozen=True)
class SuffixPass(ModulePass):
    """Append a suffix to every function's name (a test pass with options)."""

    name = "test-suffix"
    suffix: str = "_x"
    times: int = 1

    def apply(self, ctx, op) -> None:
        for inner in op.walk():
            if isinstance(inner, func.FuncOp):
                inner.sym_name = StringAttr(inner.sym_name.data + self.suffix * self.times)


@dataclasses.dataclass(frozen=True)
class FailingPass(ModulePass):
    """Reject the input at line 3 (a test pass)."""

    name = "test-fail"

    def apply(self, ctx, op) -> None:
        raise LayoutError("line 3: arith.addi: this pass rejects it")


@dataclasses.dataclass(frozen=True)
class BreakingPass(ModulePass):
    """Leave IR that does not verify (a test pass)."""

    name = "test-break"

    def apply(self, ctx, op) -> None:
        for inner in op.walk():
            if isinstance(inner, func.ReturnOp):
                inner.detach()
                inner.erase()


@pytest.fixture
def test_passes(monkeypatch):
    """The test passes registered the way every pass is: one line each in PASSES."""
    module = types.ModuleType("layoutkit_test_passes")
    for cls in (SuffixPass, FailingPass, BreakingPass):
        setattr(module, cls.__name__, cls)
        monkeypatch.setitem(PASSES, cls.name, f"layoutkit_test_passes:{cls.__name__}")
    monkeypatch.setitem(sys.modules, module.__name__, module)


def run_opt(args, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    status = main(["opt", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_every_registered_pass_loads_under_its_name():
    assert {"canonicalize", "cse", "dce", "strip-debuginfo"} <= set(PASSES)
    for name in PASSES:
        cls = pass_class(name)
        assert issubclass(cls, ModulePass) and cls.name == name
        assert pass_summary(name)


def test_every_pipeline_parses_into_registered_passes():
    for name, (text, purpose) in PIPELINES.items():
        passes = parse_pass_pipeline(text)
        assert passes and purpose and all(p.name in PASSES for p in passes)
        assert parse_pass_pipeline(name) == passes
    assert [p.name for p in parse_pass_pipeline("builtin.module(cleanup, dce)")] == ["canonicalize", "cse", "dce"]


def test_a_wrong_registry_line_is_caught(monkeypatch):
    monkeypatch.setitem(PASSES, "cse-typo", "xdsl.transforms.common_subexpression_elimination:CommonSubexpressionElimination")
    with pytest.raises(TypeError, match="not a ModulePass named 'cse-typo'"):
        pass_class("cse-typo")
    with pytest.raises(LayoutError, match="no pass named 'nope'"):
        pass_class("nope")


def test_pass_options_from_flags_and_pipeline_text(test_passes, tmp_path, capsys):
    path = tmp_path / "m.mlir"
    path.write_text(MODULE)
    status, out, _ = run_opt([str(path), "--test-suffix=suffix=_y times=2", "--test-suffix"], capsys)
    assert status == 0 and "func.func @f_y_y_x(" in out
    status, out, _ = run_opt([str(path), "--pass-pipeline=builtin.module(test-suffix{suffix=_z},cse)"], capsys)
    assert status == 0 and "func.func @f_z(" in out
    status, out, _ = run_opt(["--list-passes"], capsys)
    assert "--test-suffix" in out and "suffix: str = _x" in out and "times: int = 1" in out


@pytest.mark.parametrize("args, message", [
    (["--test-suffix=times=x"], "error: --test-suffix: Incompatible types: given ('x',), expected <class 'int'>"),
    (["--test-suffix=colour=red"], 'error: --test-suffix: Provided arguments ["colour"] not found'),
    (["--pass-pipeline=builtin.module(test-suffix{times=1.5})"], "error: --pass-pipeline: test-suffix: Incompatible types"),
    (["--pass-pipeline=builtin.module(cleanup{x=1})"], "error: --pass-pipeline: pipeline 'cleanup' takes no options"),
    (["--dce=aggressive"], "error: --dce: takes no options, got 'dce{aggressive}'"),
    (["--test-fail"], "<stdin>:3:10: error: arith.addi: this pass rejects it"),
    (["--test-break"], "<stdin>: error: after pass test-break: the IR does not verify"),
    (["-o", "/no/such/dir/x.mlir"], "error: --output: cannot write '/no/such/dir/x.mlir'"),
])
def test_errors_are_one_line_with_status_2(test_passes, args, message, capsys, monkeypatch):
    status, out, err = run_opt(["-", *args], capsys, stdin=MODULE, monkeypatch=monkeypatch)
    assert status == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err


def test_stdin_that_is_not_utf8(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"module {\xff}")))
    assert main(["opt", "-"]) == 2
    assert capsys.readouterr().err == "error: FILE: '<stdin>' is not UTF-8 text (byte 0xff at position 8)\n"


def test_no_passes_prints_no_dumps(capsys, monkeypatch):
    status, out, err = run_opt(["--print-ir-after-all"], capsys, stdin=MODULE, monkeypatch=monkeypatch)
    assert status == 0 and err == "" and out.startswith("builtin.module {")


def test_print_ir_after_all_dumps_after_each_pass_in_order(capsys, monkeypatch):
    status, _, err = run_opt(["--dce", "--cse", "--dce", "--print-ir-after-all"], capsys, stdin=MODULE,
                             monkeypatch=monkeypatch)
    headers = [line for line in err.splitlines() if line.startswith("// -----//")]
    assert status == 0 and headers == [
        "// -----// IR Dump After DeadCodeElimination (dce) //----- //",
        "// -----// IR Dump After CommonSubexpressionElimination (cse) //----- //",
        "// -----// IR Dump After DeadCodeElimination (dce) //----- //",
    ]
    assert err.count("builtin.module {") == 3


def test_a_summary_is_the_whole_first_sentence():
    # before: --list-passes cut "...: conversions to dot operands that" at the docstring's line end
    for name in PASSES:
        doc = (pass_class(name).__doc__ or "").strip()
        if not doc:
            continue
        paragraph = doc.split("\n\n")[0]
        assert pass_summary(name) == " ".join(line.strip() for line in paragraph.splitlines()), name
        assert "\n" not in pass_summary(name)
    assert pass_summary("tritongpu-reduce-data-duplication").endswith("(swizzled as Triton does).")
