"""``layoutkit compare-pipelines KERNEL.ttir --target cuda:80 [--num-warps 4] [--json] [--seed N]``:
Triton 3.9's layout passes against layoutkit's ``cost-model=exact`` on one kernel, side by side
by ``layoutkit analyze``'s measure (:mod:`layoutkit.triton.compare`), each result run in the
TTGIR executor on random inputs against numpy (:mod:`layoutkit.backends.simt.golden_checks`).

Exit status 0 when both results equal numpy (or have no reference), 1 when one differs, 2 on
an error (one ``error:`` line).
"""

from __future__ import annotations

import json
import re

import click

from layoutkit.cli import common
from layoutkit.errors import LayoutError, quote

#: most warps --num-warps takes
MAX_WARPS = 32


@click.command("compare-pipelines")
@click.argument("file")
@click.option("--target", required=True, metavar="TARGET", help="cuda:80, cuda:90 or hip:gfx942.")
@click.option("--num-warps", default="4", metavar="N", help="Warps per program (default 4).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.option("--seed", default="0", metavar="N", help="Seed of the random inputs (default 0).")
@click.option("--no-run", is_flag=True, help="Measure only; do not run the results in the executor.")
def command(file: str, target: str, num_warps: str, as_json: bool, seed: str, no_run: bool) -> None:
    """Compare Triton's layout passes with cost-model=exact on FILE, a TTIR kernel."""
    from layoutkit.backends.simt.golden_checks import DIFFERS, check_with_numpy
    from layoutkit.cli.opt import read_module, source_error
    from layoutkit.triton.compare import compare_pipelines

    warps = _whole(num_warps, "--num-warps", 1, MAX_WARPS)
    if warps & (warps - 1):
        raise LayoutError(f"--num-warps: expected a power of two, got {quote(num_warps)}")
    rng_seed = _whole(seed, "--seed", 0, 2**32 - 1)
    source, text, module = read_module(file)
    if not any(op.name == "tt.func" for op in module.walk()):
        raise LayoutError(f"FILE: {quote(source)} has no tt.func (expected TTIR as Triton prints it)")
    if "ttg.num-warps" in module.attributes:
        raise LayoutError(f"FILE: {quote(source)} is TTGIR already (it has ttg.num-warps); expected TTIR")
    run = None if no_run else (lambda kernel, result: check_with_numpy(kernel, result, rng_seed))
    try:  # the text as read, so that an error's line is the file's
        comparison = compare_pipelines(text, target, warps, source=source, run=run)
    except LayoutError as err:
        if re.match(r"line \d+", str(err)):
            raise source_error(source, text, str(err)) from None
        raise
    out = json.dumps(comparison.to_dict(), indent=1) + "\n" if as_json else comparison.text()
    common.write_output("-", out, "--output")
    if any(s.ran == DIFFERS for s in comparison.sides):
        raise click.exceptions.Exit(1)


def _whole(text: str, field: str, low: int, high: int) -> int:
    if not text.isascii() or not text.isdigit() or not low <= int(text) <= high:
        raise LayoutError(f"{field}: expected a whole number from {low} to {high}, got {quote(text)}")
    return int(text)
