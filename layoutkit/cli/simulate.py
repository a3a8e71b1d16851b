"""``layoutkit simulate``: run a kernel of an MLIR file on the CPU simulator.

    layoutkit simulate examples/kernels/transpose_swizzled.mlir --kernel transpose_swizzled \\
        --grid 32,32 --block 32,8 --arg in=in.npy --arg out=out.npy --out results/

Arguments are ``name=file.npy`` for memref arguments (the array must have the memref's
element type and shape) or ``name=number`` for scalar arguments. After the run every memref
argument is written to ``DIR/name.npy`` when ``--out`` is given; a summary line per array is
printed either way. ``--bank-conflicts`` prints, per shared-memory op, the wavefronts its
warps needed against the conflict-free ideal.

A host function (a ``func.func`` launching kernels with ``gpu.launch_func``) runs with
``--function NAME`` instead of ``--kernel``/``--grid``/``--block``; its results are written
to ``DIR/result0.npy``, ``DIR/result1.npy``, ... (scalars as 0-d arrays)::

    layoutkit simulate pipeline.mlir --function main --arg x=x.npy --arg alpha=0.5 --out res/

Given the source program instead (``linalg`` on tensors), ``--function`` compiles it with
the default pipeline (``tile-and-distribute``, as ``layoutkit compile``) first.

A Triton kernel (a ``tt.func`` of TTGIR) runs with ``--kernel`` and ``--grid`` alone: its
block is the module's ``ttg.num-warps`` x ``ttg.threads-per-warp``, and a pointer argument is
a ``.npy`` array of the pointee's dtype::

    layoutkit simulate softmax.ttgir --kernel softmax_rows --grid 3 --arg in_ptr=x.npy \
        --arg out_ptr=y.npy --arg n_rows=10 --arg n_cols=200 --arg row_stride=256 --out res/

``--report`` (TTGIR kernels) prints the measured cost of every op with its source line:
executions, thread-instructions by kind, global sectors of the addresses the run really used
(masked lanes left out), shared wavefronts, conversion plans; then totals and the ``--top N``
hot spots. ``--json`` prints the same as JSON (the summary lines go to stderr then).

``--max-steps N`` stops a run after N executed IR ops (default 10**8) with an error naming
the loop that ran away.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
import numpy as np

from layoutkit.cli import common
from layoutkit.errors import LayoutError, quote


def parse_dims(label: str, text: str) -> tuple[int, int, int]:
    """``"32,8"`` -> (32, 8, 1): 1 to 3 positive integers within the GPU's launch limits."""
    from layoutkit.backends.simt.launch import launch_dims

    try:
        dims = tuple(int(p) for p in text.split(","))
    except ValueError:
        raise LayoutError(f"--{label}: expected 1 to 3 positive integers X[,Y[,Z]], "
                          f"got {quote(text)}") from None
    return launch_dims(f"--{label}", dims, text)


NPY_MAGIC = b"\x93NUMPY"


def parse_arg(text: str) -> tuple[str, object]:
    """``"a=a.npy"`` -> ("a", array); ``"n=128"`` -> ("n", 128)."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise LayoutError(f"--arg: expected name=file.npy or name=number, got {quote(text)}")
    if value.endswith(".npy") or Path(value).is_file():
        return name, _load_npy(name, value)
    for kind in (int, float):
        try:
            return name, kind(value)
        except ValueError:
            pass
    raise LayoutError(f"--arg {name}: expected a .npy file or a number, got {quote(value)}")


def _load_npy(name: str, value: str) -> np.ndarray:
    path = Path(value)
    if not path.is_file():
        raise LayoutError(f"--arg {name}: no such file {quote(value)}")
    try:
        with path.open("rb") as file:
            magic = file.read(len(NPY_MAGIC))
        if magic != NPY_MAGIC:
            raise ValueError("no NUMPY header")
        return np.ascontiguousarray(np.load(path, allow_pickle=False))
    except (ValueError, OSError, EOFError) as err:
        raise LayoutError(f"--arg {name}: cannot read {quote(value)} as .npy ({err})") from None


def parse_args(texts: tuple[str, ...]) -> dict[str, object]:
    """The ``--arg`` options by name; a name given twice is an error."""
    args: dict[str, object] = {}
    for text in texts:
        name, value = parse_arg(text)
        if name in args:
            raise LayoutError(f"--arg {name}: given twice (in {quote(text)})")
        args[name] = value
    return args


def prepare_out_dir(out_dir: str) -> Path:
    """Create ``--out`` DIR (before the run, so a bad one fails fast) and check it is writable."""
    path = Path(out_dir)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise LayoutError(f"--out: cannot create directory {quote(out_dir)} ({err.strerror or err})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise LayoutError(f"--out: directory {quote(out_dir)} is not writable")
    return path


def _summary(name: str, array: np.ndarray) -> str:
    values = array.astype(np.float64)
    return (f"{name}: {array.dtype}{list(array.shape)} min {values.min():.6g} "
            f"max {values.max():.6g} sum {values.sum():.6g}") if array.size else f"{name}: empty"


@common.command("simulate")
@click.argument("file", metavar="FILE")
@click.option("--kernel", default=None, help="Name of the kernel gpu.func to run (with --grid, --block), "
              "or of a TTGIR tt.func (with --grid; its block is ttg.num-warps x ttg.threads-per-warp).")
@click.option("--function", "function", default=None,
              help="Name of a host func.func to run instead: it launches kernels with gpu.launch_func.")
@click.option("--grid", default=None, help="Blocks per grid: X[,Y,Z] (with --kernel).")
@click.option("--block", default=None, help="Threads per block: X[,Y,Z] (with --kernel).")
@click.option("--arg", "arg_texts", multiple=True, help="name=file.npy or name=number (repeat).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Write every memref argument to DIR/name.npy after the run (and a host "
                   "function's results to DIR/result0.npy, ...).")
@click.option("--warp-size", default=32, type=int, show_default=True,
              help="Lanes per warp (64 for AMD-style subgroups).")
@click.option("--bank-conflicts", is_flag=True,
              help="Count shared-memory wavefronts per op (32 four-byte banks).")
@click.option("--no-race-check", "no_race_check", is_flag=True,
              help="Leave out the shared-memory race and initialization checks (faster).")
@click.option("--report", "with_report", is_flag=True,
              help="TTGIR: print the measured cost of every op (executions, thread-instructions by kind, "
                   "global sectors, shared wavefronts, conversions), totals and hot spots.")
@click.option("--json", "as_json", is_flag=True, help="With --report: print the report as JSON.")
@click.option("--top", default=5, type=click.IntRange(0, 1000), show_default=True,
              help="With --report: how many hot spots to list.")
@click.option("--max-steps", default=None, type=int,
              help="Stop a run after this many executed IR ops (default 10**8): a runaway loop "
                   "is an error naming its line.")
def command(file: str, kernel: str | None, function: str | None, grid: str | None, block: str | None,
            arg_texts: tuple[str, ...], out_dir: str | None, warp_size: int, bank_conflicts: bool,
            no_race_check: bool, with_report: bool, as_json: bool, top: int, max_steps: int | None) -> None:
    """Run KERNEL (or a host FUNCTION) of the MLIR FILE ('-': stdin) on the lockstep SIMT simulator."""
    from layoutkit.backends.simt import run_function, simulate
    from layoutkit.backends.simt.launch import WARP_SIZES
    from layoutkit.backends.simt.machine import DEFAULT_MAX_STEPS
    from layoutkit.ir import parse_module

    if (kernel is None) == (function is None):
        raise LayoutError("give one of --kernel NAME (with --grid, --block) or --function NAME")
    if function is not None and (grid is not None or block is not None or bank_conflicts):
        raise LayoutError("--function: a host function launches its kernels with their own sizes; "
                          "--grid, --block and --bank-conflicts go with --kernel")
    if function is not None and no_race_check:
        raise LayoutError("--no-race-check: goes with --kernel (a host function's launches are checked)")
    text = None
    if kernel is not None and grid is not None and block is None:
        text = common.read_input(file, "FILE")  # a TTGIR kernel takes its block from the module
        if "tt.func" not in text:
            text = None
    if kernel is not None and (grid is None or (block is None and text is None)):
        raise LayoutError(f"--kernel {kernel}: needs --grid and --block")
    if (with_report or as_json) and (kernel is None or text is None):
        raise LayoutError("--report: measures TTGIR kernels (a tt.func run with --kernel and --grid)")
    if as_json and not with_report:
        raise LayoutError("--json: goes with --report")
    if max_steps is not None and max_steps < 1:
        raise LayoutError(f"--max-steps: expected a positive integer, got {max_steps}")
    max_steps = DEFAULT_MAX_STEPS if max_steps is None else max_steps
    if warp_size not in WARP_SIZES:
        raise LayoutError(f"--warp-size: expected one of {', '.join(map(str, WARP_SIZES))}, got {quote(str(warp_size))}")
    dims = (parse_dims("grid", grid), parse_dims("block", block) if block is not None else None) \
        if kernel is not None else None
    from layoutkit.cli.opt import source_error

    text = text if text is not None else common.read_input(file, "FILE")
    try:
        module = parse_module(text)
    except LayoutError as err:  # an IR error: FILE:LINE:COL: error: ...
        raise source_error("<stdin>" if file == "-" else file, text, str(err)) from None
    args = parse_args(arg_texts)
    out_path = prepare_out_dir(out_dir) if out_dir is not None else None
    arrays = {name: value for name, value in args.items() if isinstance(value, np.ndarray)}
    if function is not None:
        from layoutkit.pipelines.compile import DEFAULT_PIPELINE, compile_module, needs_compiling

        if needs_compiling(module):  # a linalg source program: compile it first
            compile_module(module)
            click.echo(f"compiled {file} with the {DEFAULT_PIPELINE} pipeline")
        unlowered = next((op for op in module.walk() if op.name.startswith("pcf.")), None)
        if unlowered is not None:
            from layoutkit.ir.context import op_line

            line = op_line(unlowered)
            raise LayoutError(f"--function {function}: {file} holds PCF ops ({unlowered.name}"
                              f"{f' on line {line}' if line else ''}), which run once lowered: "
                              f"layoutkit compile {file} --pipeline pcf-to-gpu -o out.mlir, then simulate out.mlir")
        reports: list = []
        results = run_function(module, function, args, warp_size=warp_size, max_steps=max_steps,
                               reports=reports)
        for report in reports:
            click.echo(str(report))
        arrays |= {f"result{i}": np.asarray(value) for i, value in enumerate(results)}
    else:
        report = simulate(module, kernel, *dims, args, warp_size=warp_size,
                          bank_conflicts=bank_conflicts, max_steps=max_steps,
                          race_check=not no_race_check, **({"report": True} if with_report else {}))
        click.echo(str(report), err=as_json)
        if report.report is not None:
            click.echo(json.dumps(report.report.to_dict(top), indent=1) if as_json else report.report.text(top),
                       nl=as_json)
        if report.shared_wavefronts is not None and bank_conflicts:
            for label, (wavefronts, ideal) in report.shared_wavefronts.items():
                click.echo(f"shared {wavefronts} wavefronts (ideal {ideal}, "
                           f"{wavefronts / max(ideal, 1):.1f}x): {label}")
    for name, array in arrays.items():
        click.echo(_summary(name, array), err=as_json)
        if out_path is not None:
            target = out_path / f"{name}.npy"
            try:
                np.save(target, array)
            except OSError as err:
                raise LayoutError(f"--out: cannot write {quote(str(target))} ({err.strerror or err})") from None
    if out_path is not None:
        click.echo(f"wrote {len(arrays)} arrays to {out_dir}", err=as_json)
