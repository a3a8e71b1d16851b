"""Which ops each backend runs: the table of every op the IR parser knows (from the dialect
registry) against the simulator's and the CUDA emitter's registries.

    python -m layoutkit.backends.support            # print the table (Markdown)
    python -m layoutkit.backends.support --write    # regenerate docs/ops.md
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "ops.md"


@dataclass(frozen=True)
class OpSupport:
    """One op: its name, who defines it (xDSL or layoutkit), and the backends that run it."""

    name: str
    defined_by: str
    simulator: bool
    cuda: bool


def op_support() -> list[OpSupport]:
    """Every registered op, sorted by name."""
    from layoutkit.backends.cuda.registry import supports as cuda_supports
    from layoutkit.backends.simt.registry import supports as simulator_supports
    from layoutkit.ir.registry import defined_by_layoutkit, op_classes

    return [OpSupport(name, "layoutkit" if defined_by_layoutkit(cls) else "xDSL",
                      simulator_supports(cls), cuda_supports(cls))
            for name, cls in sorted(op_classes().items())]


def support_markdown() -> str:
    """docs/ops.md: per dialect, a row per op with ✓ where a backend supports it."""
    rows = op_support()
    lines = ["# Ops and backends", "",
             "Generated from the dialect registry by `python -m layoutkit.backends.support --write`;",
             "a test checks that it is current. ✓: the backend runs (simulator) or emits (CUDA) the op.",
             "`defined by`: xDSL's op as it is, or layoutkit's (its own op, or MLIR syntax xDSL lacks).", ""]
    supported = [r for r in rows if r.simulator or r.cuda]
    lines.append(f"{len(rows)} ops in {len({r.name.split('.')[0] for r in rows})} dialects; "
                 f"{sum(r.simulator for r in rows)} run in the simulator, "
                 f"{sum(r.cuda for r in rows)} are emitted as CUDA. "
                 f"Ops no backend runs can still be parsed, printed and transformed by passes.")
    mark = {True: "✓", False: ""}
    dialect = None
    for row in rows:
        name = row.name.split(".")[0]
        if name != dialect:
            dialect = name
            count = sum(1 for r in supported if r.name.split(".")[0] == name)
            lines += ["", f"## {name} ({count} with a backend)", "",
                      "| op | defined by | simulator | CUDA |", "| --- | --- | --- | --- |"]
        lines.append(f"| `{row.name}` | {row.defined_by} | {mark[row.simulator]} | {mark[row.cuda]} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = support_markdown()
    if "--write" in argv:
        DOC.parent.mkdir(exist_ok=True)
        DOC.write_text(text, encoding="utf-8")
        print(f"wrote {DOC}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
