"""Run the lit + FileCheck tests of this directory, so that ``pytest`` runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_lit_tests_pass():
    here = Path(__file__).parent
    run = subprocess.run([sys.executable, "-c", "from lit.main import main; main()", "-v", str(here)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"lit failed:\n{run.stdout}\n{run.stderr}"
    assert "Passed" in run.stdout, run.stdout  # some tests were found and ran
