"""Every ``$ layoutkit ...`` console example of README.md (outside the `layoutkit opt`
section, which tests/docs/test_readme_opt.py covers) prints what the README shows.

A trailing ``\\`` continues a command on the next line; ``...`` in a shown line matches
anything (timings); a line with a wall time (``0.196 s``, ``per second``) is a measurement
and only its presence is checked. Setup and contributor commands (``pip``, ``lit``,
benchmarks) and an input described only in a comment (``bad.mlir  # a kernel argument ...``)
are not run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_SECTIONS = ("`layoutkit opt`", "Set up", "Contributing")


def console_examples() -> list[tuple[str, str, list[str]]]:
    """(section, command, lines shown after it) for each console example."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    examples = []
    for match in re.finditer(r"^## (.*?)\n(.*?)(?=^## |\Z)", text, re.S | re.M):
        if match.group(1).startswith(SKIPPED_SECTIONS):
            continue
        for block in re.findall(r"^```console\n(.*?)^```", match.group(2), re.S | re.M):
            lines: list[str] = []
            for line in block.splitlines():
                if lines and lines[-1].startswith("$ ") and lines[-1].endswith("\\"):
                    lines[-1] = lines[-1][:-1] + line.strip()
                else:
                    lines.append(line)
            for line in lines:
                if line.startswith("$ "):
                    examples.append((match.group(1), line[2:], []))
                elif examples:
                    examples[-1][2].append(line)
    return examples


def runnable(command: str) -> bool:
    return not command.startswith(("lit ", "pip ", "python benchmarks")) and "  # " not in command


def matches(shown: str, printed: str) -> bool:
    if re.search(r"\d+\.\d+ s\b|per second", shown):
        return True
    return re.fullmatch(re.escape(shown).replace(re.escape("..."), ".*"), printed) is not None


def test_readme_console_examples(tmp_path):
    examples = [e for e in console_examples() if runnable(e[1])]
    assert len(examples) >= 15
    for directory in ("examples", "tests"):  # inputs the README names by repository path
        (tmp_path / directory).symlink_to(ROOT / directory)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    for section, command, shown in examples:
        run = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=300)
        printed = (run.stdout + run.stderr).splitlines()
        if shown[-1:] == ["..."]:
            printed, shown = printed[:len(shown) - 1], shown[:-1]
        assert len(printed) == len(shown) and all(map(matches, shown, printed)), (section, command, printed)
        failed = any(re.match(r"(\S+:\d+:\d+: )?error: ", line) for line in shown)  # CLI or IR error
        assert run.returncode == (2 if failed else 0), command


@pytest.mark.parametrize("shown, printed, expected", [
    ("kernel @k: 5 ops in ... s", "kernel @k: 5 ops in 0.1 s", True),
    ("sum 5.49755e+11", "sum 5.49755e+12", False),
])
def test_wildcards(shown, printed, expected):
    assert matches(shown, printed) is expected
