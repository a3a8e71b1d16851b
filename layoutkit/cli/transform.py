"""``layoutkit transform TEXT... [--bounds] [--diff D0,D1,...]``.

Each TEXT is a ``#rock.transform_map<...>`` (or a file holding some, e.g. ``#map = ...``
lines); together, upper first, they form a chain. Prints the spaces and the composed affine
map; ``--bounds`` adds the dims that can go out of bounds and the checks a load needs;
``--diff`` adds the index-diff code of one step by the given upper delta.
"""

from __future__ import annotations

import os

import click

from layoutkit.cli import common
from layoutkit.errors import LayoutError, quote


def _read_maps(texts: tuple[str, ...]) -> list:
    """The maps of every TEXT: map text itself, or a file that holds some. ``#map =
    affine_map<...>`` lines of any TEXT define the affine maps every TEXT may name."""
    from layoutkit.core.coords.transform_map import affine_map_aliases, parse_transform_maps

    contents = []
    for text in texts:
        if "<" not in text:  # no map text: a file name ('-': stdin)
            if text != common.STDIO and not os.path.exists(text):
                raise LayoutError(f"TEXT: {quote(text)} is neither '#rock.transform_map<...>' text nor a file")
            text = common.read_input(text, "TEXT")
        contents.append(text)
    aliases = {name: alias for text in contents for name, alias in affine_map_aliases(text).items()}
    maps = []
    for text in contents:
        if "#rock.transform_map" in text or not affine_map_aliases(text):  # not just '#map = ...' lines
            maps.extend(parse_transform_maps(text, aliases))
    return maps


def _space(names: tuple[str, ...], sizes: tuple[int, ...]) -> str:
    return ", ".join(f"{n}={s}" for n, s in zip(names, sizes))


def _delta(text: str, rank: int) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise LayoutError(f"--diff: expected comma-separated integers, got {quote(text)}") from None
    if len(values) != rank:
        raise LayoutError(f"--diff: the chain has {rank} upper dims, got {len(values)} deltas in {quote(text)}")
    if any(v < 0 for v in values):
        raise LayoutError(f"--diff: index diffs step forward, deltas must be >= 0, got {quote(text)}")
    return values


@common.command("transform")
@click.argument("texts", nargs=-1, required=True, metavar="TEXT...")
@click.option("--bounds", "show_bounds", is_flag=True,
              help="Also show which lowest dims can go out of bounds (left, right) and the comparisons a load needs.")
@click.option("--diff", "diff", default=None, metavar="D0,D1,...",
              help="Also show the code that updates the lowest coordinates after one step by this upper delta "
                   "(one non-negative integer per upper dim).")
@common.output_option()
def command(texts: tuple[str, ...], show_bounds: bool, diff: str | None, output_file: str | None) -> None:
    """Compose rocMLIR transform maps into one chain (upper first) and print its spaces and
    its affine map.

    Each TEXT is '#rock.transform_map<...>' text or a file that holds such maps (for
    example '#map = ...' lines of an MLIR file; '-' reads stdin); all of them, in order,
    form the chain. '#map = affine_map<...>' lines of any TEXT define the '#map' a map may
    name, as rocmlir-opt prints them.

    \b
    Example:
      layoutkit transform maps.mlir --bounds --diff 0,1
    """
    from layoutkit.core.coords.bounds import out_of_bounds, validity
    from layoutkit.core.coords.codegen import diff_program, expression
    from layoutkit.core.coords.transform_map import TransformChain

    if output_file is not None:
        common.check_writable(output_file)
    chain = TransformChain(tuple(_read_maps(texts)))
    lines: list[str] = []
    delta = _delta(diff, len(chain.upper_bounds)) if diff is not None else None
    lines.append(f"upper: {_space(chain.upper_names, chain.upper_bounds)}")
    lines.append(f"lower: {_space(chain.lower_names, chain.lower_bounds)}")
    if chain.is_affine:
        lines.append(f"map: {chain.to_affine_map()}")
    else:
        lines.append("map: not affine (the chain holds an Xor)")
    if show_bounds:
        oob = out_of_bounds(chain)
        check = validity(chain)
        lines.append(f"out of bounds: left: {', '.join(oob.left_names) or 'none'}; "
                     f"right: {', '.join(oob.right_names) or 'none'}")
        plural = "" if check.comparisons == 1 else "s"
        lines.append(f"checks: {check} ({check.comparisons} compare{plural})")
    if delta is not None:
        program, space_vars = diff_program(chain, delta)
        counts = program.op_counts()
        lines.append(f"index diff by ({', '.join(map(str, delta))}): {counts['total']} operations "
                     f"({counts['div/mod']} div/mod) instead of {_recompute_ops(chain)} to re-evaluate")
        for target, op, args in program.statements:
            lines.append(f"  {target} = {expression(op, args)}")
        (_, [(coords, _)]) = program.results[0]
        for var, value in zip(space_vars[-1], coords):
            lines.append(f"  {var}' = {value}")
    common.write_output(output_file, "".join(line + "\n" for line in lines))


def _recompute_ops(chain) -> int:
    from layoutkit.core.coords.codegen import unrolled_program

    return unrolled_program([chain], [1] * len(chain.upper_bounds), checks=False).op_count
