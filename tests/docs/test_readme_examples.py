"""Every ```python example in README.md runs, and prints what the README says it prints.

Examples of one ``## `` section share their names, as a reader running them in order would.
Blocks with ``>>>`` prompts run as doctests; other blocks run as scripts. They run in a
scratch folder that sees the repository's ``examples/``. A block that launches on a GPU
(``run_cuda(``) runs only where one is present, as the README says.
"""

from __future__ import annotations

import doctest
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def sections() -> list[tuple[str, list[tuple[int, str]]]]:
    """Each ``## `` section's title and its python blocks (with their line numbers)."""
    text = README.read_text(encoding="utf-8")
    result = []
    for match in re.finditer(r"^## (.*?)\n(.*?)(?=^## |\Z)", text, re.DOTALL | re.MULTILINE):
        offset = text.count("\n", 0, match.start(2)) + 1
        body = match.group(2)
        blocks = [(offset + body.count("\n", 0, m.start()) + 1, m.group(1)) for m in BLOCK.finditer(body)]
        if blocks:
            result.append((match.group(1), blocks))
    return result


def gpu_present() -> bool:
    try:
        from layoutkit.backends.cuda.run import gpu_available
    except ImportError:
        return False
    return gpu_available()


def test_readme_has_python_examples_in_most_sections():
    assert len(sections()) >= 8


@pytest.mark.parametrize("title, blocks", sections(), ids=[t[:40] for t, _ in sections()])
def test_readme_section_examples(title, blocks, tmp_path, capsys):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    names: dict = {"__name__": "readme"}
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        for line, block in blocks:
            if "run_cuda(" in block and not gpu_present():
                continue
            if ">>>" in block:
                test = doctest.DocTestParser().get_doctest(block, names, f"README.md:{line}", str(README), line)
                runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
                runner.run(test, clear_globs=False)
                assert runner.summarize(verbose=False).failed == 0, f"README.md:{line} ({title}) failed"
                names.update(test.globs)  # a DocTest runs in a copy: later blocks see its names
            else:
                exec(compile(block, f"README.md:{line}", "exec"), names)
    finally:
        os.chdir(here)


def test_readme_demo_prints_what_the_readme_shows(capsys):
    """The README's main demo: the command and its output, exactly."""
    import shlex

    from layoutkit.cli import main

    text = README.read_text(encoding="utf-8")
    demo = re.search(r"^## Demo\n.*?^```console\n\$ (.*?)\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    assert demo is not None
    argv = shlex.split(demo.group(1))
    assert argv[0] == "layoutkit"
    assert main(argv[1:]) == 0
    assert capsys.readouterr().out == demo.group(2)
