"""Check that every stage of ``layoutkit compile`` is valid upstream MLIR, with IREE's
``iree-opt`` (MLIR's parser and verifiers; runs on a CPU).

Not run by CI. Needs ``pip install iree-base-compiler==3.13.0`` (in its own virtualenv). For
every program of ``examples/linalg/`` the source and the IR after each pass of the
``tile-and-distribute`` pipeline (the stages ``--print-ir-after-all`` prints) go through
``iree-opt``; the verdicts and a SHA-256 of each stage's text are written to
``tests/programs/goldens/upstream_mlir.json``. ``tests/programs/test_upstream_mlir.py`` then
checks, without iree-opt, that layoutkit still prints exactly the verified text and that
every verdict is ``ok``::

    python scripts/check_upstream_mlir.py --iree-opt /work/venv-iree/bin/iree-opt
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "examples" / "linalg"
GOLDEN = ROOT / "tests" / "programs" / "goldens" / "upstream_mlir.json"


def stages(text: str) -> list[tuple[str, str]]:
    """``(stage, IR text)``: the source, then the IR after each pass, as
    ``layoutkit compile --print-ir-after-all`` prints them."""
    from layoutkit.cli.opt import print_ir
    from layoutkit.ir import parse_module
    from layoutkit.pipelines.compile import compile_module

    out = [("source", text)]
    compile_module(parse_module(text), after_pass=lambda done, module: out.append((done.name, print_ir(module))))
    return out


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def verdict(iree_opt: str, text: str) -> str:
    """``"ok"`` when iree-opt parses and verifies ``text``, else its first error line."""
    done = subprocess.run([iree_opt, "--verify-each", "-o", "/dev/null", "-"], input=text,
                          capture_output=True, text=True, timeout=120)
    if done.returncode == 0:
        return "ok"
    errors = [line for line in done.stderr.splitlines() if "error:" in line]
    return (errors or done.stderr.splitlines() or ["failed"])[0].replace("<stdin>", "stage")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iree-opt", required=True, help="path of IREE 3.13's iree-opt")
    args = parser.parse_args()
    golden, rejected = {}, 0
    for path in sorted(PROGRAMS.glob("*.mlir")):
        golden[path.stem] = {}
        for stage, text in stages(path.read_text()):
            said = verdict(args.iree_opt, text)
            golden[path.stem][stage] = {"sha256": digest(text), "iree_opt": said}
            rejected += said != "ok"
            print(f"{path.stem:18} {stage:22} {said}")
    GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    print(f"{sum(map(len, golden.values()))} stages of {len(golden)} programs, {rejected} rejected; wrote {GOLDEN.relative_to(ROOT)}")
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
