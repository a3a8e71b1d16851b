"""tile_group's partition check is exact (layoutkit/ir/dialects/pcf_partition.py): layouts that
are a partition only at the old sample points (S = 64, 97, splits at S/2 or S/3, 2S/3) are
rejected with a witness, and the verdict on random 1-D layouts agrees with a worker-by-worker
count over every small worker count and ordered split value (0 <= d0 <= d1 <= s0)."""

from __future__ import annotations

import re
import sys
from itertools import combinations_with_replacement
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from xdsl.utils.exceptions import VerifyException

from layoutkit.ir import parse_module
from layoutkit.ir.dialects.pcf_partition import Undecided, solve

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_pcf_ext import cluster, tile_group  # noqa: E402

WITNESS = re.compile(r"\(d = \[([\d, ]*)\], s = \[([\d, ]*)\]\)")


def verdict(bounds: list[str], splits: int) -> str | None:
    """None when the verifier accepts, else its message (1-D, ``splits`` split values)."""
    dims = ", ".join(f"d{k}" for k in range(splits))
    clusters = [cluster(f"({dims})[s0] -> ({b})", f"tg.c{k}") for k, b in enumerate(bounds)]
    text = tile_group(clusters, splits="(" + ", ".join(["%h", "%x"][:splits]) + ")")
    try:
        parse_module(text)
    except VerifyException as error:
        return str(error)
    except Exception as error:  # parse_module wraps verifier errors
        return str(error)
    return None


def partitions(formulas, d, s) -> bool:
    """Worker-by-worker count: every worker of [0, s) in exactly one in-grid interval."""
    owners = [0] * s
    for formula in formulas:
        lo, hi = formula(d, s)
        if not 0 <= lo <= hi <= s:
            return False
        for w in range(lo, hi):
            owners[w] += 1
    return all(n == 1 for n in owners)


def domain(splits: int, largest: int):
    for s in range(1, largest + 1):
        for d in combinations_with_replacement(range(s + 1), splits):
            yield list(d), s


def witness(message: str) -> tuple[list[int], int]:
    m = WITNESS.search(message)
    assert m, message
    return [int(v) for v in m.group(1).split(",") if v.strip()], int(m.group(2))


# (bounds as affine text, the same as Python, what the message says): all three pass at the
# old samples and fail elsewhere.
MISSED = {
    "overlap when d0 >= 90": (["0, d0", "d0 - d0 floordiv 90, s0"],
                              [lambda d, s: (0, d[0]), lambda d, s: (d[0] - d[0] // 90, s)], 1,
                              "clusters tg.c0 and tg.c1 overlap"),
    "gap when d0 >= 64": (["0, d0", "d0 + d0 floordiv 64, s0 + d0 floordiv 64"],
                          [lambda d, s: (0, d[0]), lambda d, s: (d[0] + d[0] // 64, s + d[0] // 64)], 1,
                          "leave the worker grid"),
    "empty middle when d0 == d1": (["0, d0 + 1", "d0 + 1, d1", "d1, s0"],
                                   [lambda d, s: (0, d[0] + 1), lambda d, s: (d[0] + 1, d[1]),
                                    lambda d, s: (d[1], s)], 2, "leave the worker grid"),
}


@pytest.mark.parametrize("name", sorted(MISSED))
def test_layouts_the_samples_miss_are_rejected_with_a_true_witness(name):
    bounds, formulas, splits, message = MISSED[name]
    for extent in (64, 97):  # the old samples accept it
        assert partitions(formulas, [extent * (k + 1) // (splits + 1) for k in range(splits)], extent)
    error = verdict(bounds, splits)
    assert error is not None and message in error, error
    d, s = witness(error)
    assert d == sorted(d) and 0 <= d[0] and d[-1] <= s
    assert not partitions(formulas, d, s)


def test_hole_from_100_workers_is_a_cover_error():
    """(0, s0 floordiv 2) and (s0 floordiv 2 + s0 floordiv 100, s0): from 100 workers on, worker
    s0 / 2 is in no cluster; the samples (64, 97) never see it."""
    bounds = ["0, s0 floordiv 2", "s0 floordiv 2 + s0 floordiv 100, s0"]
    formulas = [lambda d, s: (0, s // 2), lambda d, s: (s // 2 + s // 100, s)]
    error = verdict(bounds, 1)
    assert error is not None and "the clusters cover" in error, error
    d, s = witness(error)
    assert s >= 100 and not partitions(formulas, d, s)
    covered, total = map(int, re.search(r"cover (\d+) of (\d+)", error).groups())
    assert (covered, total) == (s - s // 100, s)


ACCEPTED = {
    "halves by floordiv": ["0, s0 floordiv 2", "s0 floordiv 2, s0"],
    "halves by ceildiv": ["0, s0 ceildiv 2", "s0 ceildiv 2, s0"],
    "mod remainder": ["0, s0 - s0 mod 4", "s0 - s0 mod 4, s0"],
    "three-way chain": ["0, d0", "d0, d1", "d1, s0"],
    "empty first": ["0, 0", "0, s0"],
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_true_partitions_are_accepted(name):
    bounds = ACCEPTED[name]
    splits = 2 if "d1" in " ".join(bounds) else 1
    assert verdict(bounds, splits) is None


def test_2d_quadrants_by_floordiv_are_proven():
    quads = [("0", "s0 floordiv 2", "0", "d0"), ("0", "s0 floordiv 2", "d0", "s1"),
             ("s0 floordiv 2", "s0", "0", "d0"), ("s0 floordiv 2", "s0", "d0", "s1")]
    clusters = [cluster(f"(d0)[s0, s1] -> ({', '.join(q)})", f"tg.q{k}") for k, q in enumerate(quads)]
    parse_module(tile_group(clusters))
    broken = quads[:3] + [("s0 floordiv 2", "s0", "d0 + d0 floordiv 70", "s1")]
    clusters = [cluster(f"(d0)[s0, s1] -> ({', '.join(q)})", f"tg.q{k}") for k, q in enumerate(broken)]
    with pytest.raises(Exception, match=r"cover \d+ of \d+ workers|leave the worker grid"):
        parse_module(tile_group(clusters))


ENDS = ["0", "d0", "d1", "s0", "s0 floordiv 2", "d0 floordiv 2"]
PY = {"0": lambda d, s: 0, "d0": lambda d, s: d[0], "d1": lambda d, s: d[1], "s0": lambda d, s: s,
      "s0 floordiv 2": lambda d, s: s // 2, "d0 floordiv 2": lambda d, s: d[0] // 2}
END = st.tuples(st.sampled_from(ENDS), st.sampled_from([0, 0, 1, -1]))


def text(end) -> str:
    name, k = end
    return name if k == 0 else f"{name} + {k}" if k > 0 else f"{name} - {-k}"


def python(end):
    name, k = end
    return lambda d, s: PY[name](d, s) + k


def pair(lo, hi):
    low, high = python(lo), python(hi)
    return lambda d, s: (low(d, s), high(d, s))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(END, END), min_size=1, max_size=3))
@example([(("0", 0), ("d0", 0)), (("d0", 0), ("d1", 0)), (("d1", 0), ("s0", 0))])
@example([(("0", 0), ("s0 floordiv 2", 0)), (("s0 floordiv 2", 0), ("s0", 0))])
@example([(("0", 0), ("d0 floordiv 2", 1)), (("d0 floordiv 2", 1), ("s0", 0))])
def test_verdict_agrees_with_a_count_over_small_domains(layout):
    """Accepted: a partition at every s0 <= 9 and ordered split values; rejected: the witness
    in the message is not a partition."""
    bounds = [f"{text(lo)}, {text(hi)}" for lo, hi in layout]
    formulas = [pair(lo, hi) for lo, hi in layout]
    error = verdict(bounds, 2)
    if error is None:
        assert all(partitions(formulas, d, s) for d, s in domain(2, 9))
    elif "cannot decide" not in error and "divide by zero" not in error:
        d, s = witness(error)
        assert not partitions(formulas, d, s), error


def test_solve_is_exact_on_small_systems():
    """Integer feasibility: 2x = 1 has no integer solution (the gcd rounding), x + y >= 3 with
    x, y <= 1 neither; x - y >= 2, y >= 1 has one (checked by substitution)."""
    assert solve([{"x": 2, 1: -1}, {"x": -2, 1: 1}], ["x"]) is None
    assert solve([{"x": 1, "y": 1, 1: -3}, {"x": -1, 1: 1}, {"y": -1, 1: 1}], ["x", "y"]) is None
    point = solve([{"x": 1, "y": -1, 1: -2}, {"y": 1, 1: -1}], ["x", "y"])
    assert point["x"] - point["y"] >= 2 and point["y"] >= 1
    with pytest.raises(Undecided):  # 2x <= y, 3x >= y + 1: no unit coefficient to eliminate x or y
        solve([{"x": -2, "y": 1}, {"x": 3, "y": -1, 1: -1}, {"y": 2, "x": -3, 1: 5}, {"y": -3, "x": 2, 1: 7}],
              ["x", "y"])
