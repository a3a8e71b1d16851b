"""Every stage of every examples/linalg program is the text IREE 3.13's iree-opt verified.

``scripts/check_upstream_mlir.py`` ran iree-opt (MLIR's parser and verifiers) on the source
and on the IR after each pass, and kept a SHA-256 of each stage with the verdict in
``goldens/upstream_mlir.json``. A failure here means layoutkit now prints something iree-opt
has not checked: re-run the script (it needs iree-opt) and look at its verdicts.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
GOLDEN = json.loads((ROOT / "tests" / "programs" / "goldens" / "upstream_mlir.json").read_text())
_spec = importlib.util.spec_from_file_location("check_upstream_mlir", ROOT / "scripts" / "check_upstream_mlir.py")
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


#: stages iree-opt is expected to reject, with the error it gives (none: every stage verifies;
#: seed 001's second dispatch is written with generics, as upstream dropped linalg.add/mul)
KNOWN_REJECTED: dict[tuple[str, str], str] = {}  # (program, stage) -> iree-opt's expected error


def test_golden_covers_every_program():
    assert sorted(GOLDEN) == sorted(p.stem for p in (ROOT / "examples" / "linalg").glob("*.mlir"))


@pytest.mark.parametrize("program", sorted(GOLDEN))
def test_every_stage_is_the_verified_text(program):
    text = (ROOT / "examples" / "linalg" / f"{program}.mlir").read_text()
    got = {stage: check.digest(ir) for stage, ir in check.stages(text)}
    assert set(got) == set(GOLDEN[program]), "the pipeline's passes changed; run scripts/check_upstream_mlir.py"
    for stage, digest in got.items():
        expected = KNOWN_REJECTED.get((program, stage))
        if expected is None:
            assert GOLDEN[program][stage]["iree_opt"] == "ok", (stage, GOLDEN[program][stage])
        else:
            assert expected in GOLDEN[program][stage]["iree_opt"]
        assert digest == GOLDEN[program][stage]["sha256"], (
            f"{program}: the IR after {stage} is not the text iree-opt verified; run scripts/check_upstream_mlir.py")
