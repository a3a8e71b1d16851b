"""The README's first `layoutkit convert` example prints exactly what the README shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from layoutkit.cli import main

DOCS = Path(__file__).resolve().parents[2] / "README.md"


def test_first_command_line_example_matches_its_output(capsys):
    block = re.search(r"```\n\$ layoutkit convert (.*?)```", DOCS.read_text(encoding="utf-8"), re.S).group(1)
    command, _, shown = block.partition("\n" + "source:")
    args = shlex.split(command.replace("\\\n", " "))
    assert main(["convert", *args]) == 0
    out, _ = capsys.readouterr()
    assert out == "source:" + shown
