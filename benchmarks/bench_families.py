"""Benchmark: ``table()`` of a 256x256 layout in every layout family present, and CuTe's
algebra against pycute (NVIDIA's Python CuTe, shipped in the ``nvidia-cutlass`` wheel).

    python benchmarks/bench_families.py [--repeat 25]

Prints one line per family: the median time of ``table()`` over ``--repeat`` runs (target:
under 5 ms), and for CuTe ``composition`` / ``logical_divide`` of ``(128,128):(128,1)`` by
the tiler ``(32,8)``: layoutkit's and pycute's medians, measured interleaved in the same
process, and their ratio (target: layoutkit at least 3x faster). Families another part of
the tree has not written yet print ``not available``. With ``--pictures`` (needs
matplotlib): the fully labelled 64x64 picture of seed 000's nested layout written as PNG,
SVG and PDF, against the same figure labelled with one matplotlib Text per cell.
"""

from __future__ import annotations

import argparse
import statistics
import time
import timeit
from collections.abc import Callable
from typing import Any

SHAPE = (256, 256)
TABLE_TARGET_MS = 5.0

BLOCKED = (
    "#ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 2], "
    "order = [1, 0]}>"
)
NESTED = (
    "#iree_vector_ext.nested_layout<subgroup_tile = [2, 2], batch_tile = [4, 4], "
    "outer_tile = [1, 1], thread_tile = [8, 8], element_tile = [4, 4], "
    "subgroup_strides = [1, 2], thread_strides = [8, 1]>"
)
# 256 threads x 256 values: value (4 rows, 64 columns), lane 32 x 4 rows, warp (2 x 128 rows,
# 4 x 64 columns); a bijection onto the column-major index of 256x256
CUTE_TV = "((32,(2,4)),(4,64)):((4,(128,16384)),(1,256)) over 256x256"
ROCK = (
    "#rock.transform_map<affine_map<(d0) -> (d0 floordiv 256, d0 mod 256)> "
    "by [<Merge{256, 256} [\"k\"] at [0] -> [\"a\", \"b\"] at [0, 1]>] bounds = [65536] -> [256, 256]>"
)


def _parse(text: str, **options: Any) -> Any:
    from layoutkit import parse_layout

    return parse_layout(text, **options)


def families() -> list[tuple[str, Callable[[], Any]]]:
    """(name, builder of a layout whose ``table(SHAPE)`` is timed)."""
    return [
        ("Triton #ttg.blocked", lambda: _parse(BLOCKED)),
        ("LinearLayout (of the blocked layout)", lambda: _parse(BLOCKED).to_linear_layout(SHAPE)),
        ("IREE nested_layout", lambda: _parse(NESTED, subgroup_size=64)),
        ("CuTe thread-value layout", lambda: _parse(CUTE_TV)),
        ("rocMLIR transform_map", lambda: _parse(ROCK)),
    ]


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm caches (numpy, lazy imports)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def bench_tables(repeat: int) -> None:
    print(f"table() of a {SHAPE[0]}x{SHAPE[1]} layout, median of {repeat} runs (target < {TABLE_TARGET_MS} ms)")
    for name, build in families():
        try:
            layout = build()
            table = layout.table(SHAPE)
        except Exception as err:  # a family not written yet, or not able to cover the shape
            print(f"  {name:<40} not available ({type(err).__name__}: {err})")
            continue
        ms = median_ms(lambda layout=layout: layout.table(SHAPE), repeat)
        verdict = "ok" if ms < TABLE_TARGET_MS else "SLOW"
        print(f"  {name:<40} {ms:8.3f} ms   table shape {tuple(table.shape)}   {verdict}")


def _interleaved_medians(ours: Callable[[], Any], theirs: Callable[[], Any] | None,
                         rounds: int = 15, number: int = 1000) -> tuple[float, float | None]:
    a, b = [], []
    for _ in range(rounds):
        a.append(timeit.timeit(ours, number=number) / number * 1e6)
        if theirs is not None:
            b.append(timeit.timeit(theirs, number=number) / number * 1e6)
    return statistics.median(a), (statistics.median(b) if b else None)


def bench_cute_algebra() -> None:
    from layoutkit import cute

    try:
        import pycute
    except ImportError:
        pycute = None
    a = cute.Layout((128, 128), (128, 1))
    tiler = (32, 8)
    print("CuTe algebra: (128,128):(128,1) by (32,8), median us per call, interleaved with pycute")
    if pycute is None:
        print("  pycute not installed (pip install --no-deps nvidia-cutlass): layoutkit alone")
    pa = pycute.Layout((128, 128), (128, 1)) if pycute else None
    for op in ("composition", "logical_divide"):
        ours = getattr(cute, op)
        result = ours(a, tiler)
        theirs = None
        if pycute is not None:
            reference_op = getattr(pycute, op)

            def theirs(f=reference_op):
                return f(pa, tiler)
        t_ours, t_theirs = _interleaved_medians(lambda f=ours: f(a, tiler), theirs)
        line = f"  {op:<15} layoutkit {t_ours:7.2f} us  -> {result}"
        if theirs is not None:
            same = str(theirs()).replace(" ", "") == str(result)
            ratio = t_theirs / t_ours
            verdict = "ok" if ratio >= 3 else "below 3x target"
            line += f"\n  {'':<15} pycute    {t_theirs:7.2f} us  -> same result: {same}; layoutkit {ratio:.1f}x faster ({verdict})"
        print(line)
    # the general (non fast-path) algebra on a hierarchical tiler, for reference
    tiler_layout = cute.parse("<(4,8):(8,1), 8:1>")
    t_general, _ = _interleaved_medians(lambda: cute.logical_divide(a, tiler_layout), None, rounds=5)
    line = f"  logical_divide by <(4,8):(8,1), 8:1> (general path) layoutkit {t_general:7.2f} us"
    if pycute is not None:
        ptiler = (pycute.Layout((4, 8), (8, 1)), pycute.Layout(8, 1))
        _, t_p = _interleaved_medians(lambda: None, lambda: pycute.logical_divide(pa, ptiler), rounds=5)
        line += f", pycute {t_p:7.2f} us ({t_p / t_general:.1f}x)"
    print(line)


SEED000 = (
    "#iree_vector_ext.nested_layout<subgroup_tile = [2, 1], batch_tile = [2, 4], outer_tile = [1, 1], "
    "thread_tile = [16, 4], element_tile = [1, 4], subgroup_strides = [1, 0], thread_strides = [1, 16]>"
)


def _figure_with_text_per_cell(layout: Any) -> Any:
    """The reference: layoutkit's figure without its label artist, labelled the common way
    (one ``ax.text`` per cell, as matplotlib users and layoutkit before did)."""
    import numpy as np

    from layoutkit.render import picture

    fig, drawing = picture.layout_figure(layout, labels=False)
    ax = fig.axes[0]
    light = drawing.colors[..., :3] @ np.array([0.299, 0.587, 0.114]) > 0.55
    for (r, c), text in np.ndenumerate(drawing.labels):
        if text:
            ax.text(c, r, text, ha="center", va="center", fontsize=4, family="DejaVu Sans Mono",
                    color="black" if light[r, c] else "white", in_layout=False)
    return fig


def bench_pictures(repeat: int = 3) -> None:
    import io

    from layoutkit.render.picture import layout_figure, save_figure

    layout = _parse(SEED000)
    print(f"picture of seed 000 (64x64 cells, every cell labelled), median of {repeat} runs: figure + save")
    for suffix in ("png", "svg", "pdf"):
        def ours(suffix=suffix):
            save_figure(layout_figure(layout)[0], io.BytesIO() if suffix != "svg" else io.StringIO(), suffix)

        def reference(suffix=suffix):
            save_figure(_figure_with_text_per_cell(layout), io.BytesIO() if suffix != "svg" else io.StringIO(), suffix)

        t_ours = median_ms(ours, repeat) / 1e3
        t_ref = median_ms(reference, repeat) / 1e3
        print(f"  {suffix}  layoutkit {t_ours:5.2f} s   one Text per cell {t_ref:5.2f} s   ({t_ref / t_ours:.1f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=25, help="runs per table() median")
    parser.add_argument("--pictures", action="store_true", help="also time the 64x64 picture (slow: ~1 min)")
    args = parser.parse_args()
    bench_tables(args.repeat)
    bench_cute_algebra()
    if args.pictures:
        bench_pictures()


if __name__ == "__main__":
    main()
