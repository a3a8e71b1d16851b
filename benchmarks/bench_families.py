"""Benchmark: ``table()`` of a 256x256 layout in every layout family present, and CuTe's
algebra against pycute (NVIDIA's Python CuTe, shipped in the ``nvidia-cutlass`` wheel).

    python benchmarks/bench_families.py [--repeat 25]

Prints one line per family: the median time of ``table()`` over ``--repeat`` runs (target:
under 5 ms), and for every CuTe operation (construction, size, evaluation, coalesce,
composition -- by int modes, by layouts, with a non-injective or broadcast operand --,
complement, the inverses, divides and products) layoutkit's and pycute's medians on the same
operands, measured interleaved in the same process, and their ratio (target: layoutkit at
least 3x faster). Families another part of
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


class _Empty:
    """The floor of any constructor in CPython: a call making an empty ``__slots__`` object."""

    __slots__ = ()


class _TwoFields:
    """What pycute's constructor does: two attributes stored, nothing checked."""

    __slots__ = ("shape", "stride")

    def __init__(self, shape: Any, stride: Any = None) -> None:
        self.shape = shape
        self.stride = stride


def cute_cases(cute: Any, pycute: Any) -> list[tuple[str, Callable[[], Any], Callable[[], Any] | None]]:
    """(operation, layoutkit call, pycute call) on the same operands, built beforehand."""
    def both(shape, stride):
        return cute.Layout(shape, stride), (pycute.Layout(shape, stride) if pycute else None)

    a, pa = both((128, 128), (128, 1))
    t, pt = both((32, 8), (1, 32))
    b1, pb1 = both((6, 2), (8, 2))
    b2, pb2 = both((4, 3), (3, 1))
    ni, pni = both(((8, 4), (2, 2)), ((1, 8), (32, 32)))  # two modes of stride 32: not injective
    bc, pbc = both((4, 8), (0, 1))                          # a broadcast (stride-0) left operand
    bb, pbb = both((2, 4), (1, 4))
    c, pc = both((4, 2), (1, 16))
    tv, ptv = both(((4, 8), (2, 2)), ((32, 1), (16, 8)))
    p = pycute
    return [
        ("Layout(shape, stride)", lambda: cute.Layout((128, 128), (128, 1)),
         p and (lambda: p.Layout((128, 128), (128, 1)))),
        ("  trusted internal", lambda: cute.Layout._make((128, 128), (128, 1)),
         p and (lambda: p.Layout((128, 128), (128, 1)))),
        ("  floor: empty object", lambda: _Empty(), p and (lambda: p.Layout((128, 128), (128, 1)))),
        ("  floor: 2 fields stored", lambda: _TwoFields((128, 128), (128, 1)),
         p and (lambda: p.Layout((128, 128), (128, 1)))),
        ("size", lambda: tv.size, p and (lambda: p.size(ptv))),
        ("cosize", lambda: tv.cosize, p and (lambda: p.cosize(ptv))),
        ("layout(i)", lambda: tv(13), p and (lambda: ptv(13))),
        ("coalesce", lambda: cute.coalesce(tv), p and (lambda: p.coalesce(ptv))),
        ("composition by (32,8)", lambda: cute.composition(a, (32, 8)), p and (lambda: p.composition(pa, (32, 8)))),
        ("composition layouts", lambda: cute.composition(b1, b2), p and (lambda: p.composition(pb1, pb2))),
        ("composition by a layout", lambda: cute.composition(a, t), p and (lambda: p.composition(pa, pt))),
        ("composition non-injective", lambda: cute.composition(a, ni), p and (lambda: p.composition(pa, pni))),
        ("composition broadcast", lambda: cute.composition(bc, bb), p and (lambda: p.composition(pbc, pbb))),
        ("complement", lambda: cute.complement(c, 128), p and (lambda: p.complement(pc, 128))),
        ("right_inverse", lambda: cute.right_inverse(tv), p and (lambda: p.right_inverse(ptv))),
        ("left_inverse", lambda: cute.left_inverse(tv), p and (lambda: p.left_inverse(ptv))),
        ("logical_divide by (32,8)", lambda: cute.logical_divide(a, (32, 8)),
         p and (lambda: p.logical_divide(pa, (32, 8)))),
        ("logical_divide by a layout", lambda: cute.logical_divide(a, t), p and (lambda: p.logical_divide(pa, pt))),
        ("zipped_divide", lambda: cute.zipped_divide(a, (32, 8)), p and (lambda: p.zipped_divide(pa, (32, 8)))),
        ("tiled_divide", lambda: cute.tiled_divide(a, (32, 8)), p and (lambda: p.tiled_divide(pa, (32, 8)))),
        ("logical_product", lambda: cute.logical_product(c, t), p and (lambda: p.logical_product(pc, pt))),
        ("zipped_product", lambda: cute.zipped_product(c, t), p and (lambda: p.zipped_product(pc, pt))),
        ("tiled_product", lambda: cute.tiled_product(c, t), p and (lambda: p.tiled_product(pc, pt))),
    ]


def bench_cute_algebra() -> None:
    from layoutkit import cute

    try:
        import pycute
    except ImportError:
        pycute = None
    print("CuTe algebra against pycute: median us per call, interleaved in the same process (target: 3x)")
    if pycute is None:
        print("  pycute not installed (pip install --no-deps nvidia-cutlass): layoutkit alone")
    ratios = []
    for name, ours, theirs in cute_cases(cute, pycute):
        result = ours()
        t_ours, t_theirs = _interleaved_medians(ours, theirs, rounds=9, number=500)
        line = f"  {name:<27} layoutkit {t_ours:7.2f} us"
        if theirs is not None:
            same = str(theirs()).replace(" ", "") == str(result)
            ratio = t_theirs / t_ours
            verdict = "ok" if ratio >= 3 else "below 3x"
            line += f"  pycute {t_theirs:7.2f} us  {ratio:6.1f}x  {verdict:<8}"
            if "floor" not in name:
                line += f"  same result: {same}  {result}"
            if not name.startswith(("Layout(", "  ")):
                ratios.append((ratio, name))
        print(line)
    if ratios:
        worst = min(ratios)
        print(f"  every operation: at least {worst[0]:.1f}x pycute (slowest: {worst[1]}); the checked public "
              "constructor validates its input, pycute's stores it unchecked, so it is shown apart, with "
              "the floors of any constructor in CPython: 3x pycute is below an empty object's creation")


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
