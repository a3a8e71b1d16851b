"""The console examples of README's `layoutkit opt` section print what the README shows.

``$ cat FILE`` followed by text defines FILE; a command commented ``# the same`` prints what
the command before it printed; ``...`` ends an output shown only in part. The ``lit``
commands are left to tests/filecheck/test_lit.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def console_examples() -> list[tuple[str, list[str]]]:
    """Each ``$ command`` of the section's console blocks with the lines shown after it."""
    section = re.search(r"^## `layoutkit opt`.*?(?=^## )", README.read_text(encoding="utf-8"), re.S | re.M)[0]
    examples: list[tuple[str, list[str]]] = []
    for block in re.findall(r"^```console\n(.*?)^```", section, re.S | re.M):
        for line in block.splitlines():
            if line.startswith("$ "):
                examples.append((line[2:], []))
            else:
                examples[-1][1].append(line)
    return examples


def test_readme_opt_examples(tmp_path):
    examples = console_examples()
    assert len(examples) >= 7
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    previous = None
    for command, shown in examples:
        if command.startswith("lit "):
            continue
        if command.startswith("cat ") and "|" not in command:
            (tmp_path / command.split()[1]).write_text("\n".join(shown) + "\n")
        run = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=120)
        printed = (run.stdout + run.stderr).splitlines()
        if "# the same" in command:
            assert run.returncode == 0 and printed == previous, command
            continue
        if shown[-1:] == ["..."]:
            printed, shown = printed[:len(shown) - 1], shown[:-1]
        assert printed == shown, command
        assert run.returncode == (2 if any("error: " in line for line in shown) else 0), command
        previous = printed
