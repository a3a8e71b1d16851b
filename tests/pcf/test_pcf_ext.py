"""The PCF collective extension (docs/pcf-extension.md, layoutkit/ir/dialects/pcf_ext.py): every
type and op parses and prints back unchanged; each verifier rule fails with one
``FILE:LINE:COL: error:`` line naming the op and field; tile_group's partition check agrees with
a brute-force count of the workers each cluster holds."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from layoutkit.cli import main
from layoutkit.cli.opt import print_ir
from layoutkit.ir import parse_module
from layoutkit.ir.dialects.pcf_ext import ClusterType, ThreadgroupType

SOURCE = Path(__file__).resolve().parent / "syntax" / "pcf_ext.mlir"
SG = "#iree_gpu.subgroup_scope"
TG = f"!pcf.threadgroup<{SG}>"


def cluster(bounds: str, name: str, payload: str = "", scope: str = SG) -> str:
    return f"!pcf.cluster<{scope}, affine_map<{bounds}>, {name}{payload}>"


LEFT, RIGHT = cluster("(d0)[s0] -> (0, d0)", "tg.left"), cluster("(d0)[s0] -> (d0, s0)", "tg.right")


def executor(body: str, head: str = "", refs: str = "", types: str = "") -> str:
    """A function whose line 3 is the first line of ``body`` inside a shared_executor."""
    return (f"func.func @f(%h: index, %x: index, %t: tensor<8xf32>) {{\n"
            f"  {head}pcf.shared_executor scope({SG}) execute{refs}[%tg: {TG}]{types} {{\n"
            f"  {body}\n  pcf.return\n  }}\n  return\n}}\n")


def tile_group(clusters: list[str], body: str = "", splits: str = "(%h)") -> str:
    args = ", ".join(f"%c{k}: {c}" for k, c in enumerate(clusters))
    return executor(f"pcf.shared_executor.tile_group %tg split{splits} : {TG} {{\n  ^bb0({args}):\n"
                    f"  {body}\n  pcf.yield\n  }}")


def run_opt(tmp_path, capsys, text: str) -> tuple[int, str, str]:
    path = tmp_path / "in.mlir"
    path.write_text(text)
    code = main(["opt", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err.replace(str(path), "FILE")


def test_every_form_round_trips():
    text = print_ir(parse_module(SOURCE.read_text()))
    assert print_ir(parse_module(text)) == text
    names = {op.name for op in parse_module(text).walk() if op.name.startswith("pcf.")}
    assert {"pcf.shared_executor", "pcf.shared_executor.tile_group", "pcf.shared_executor.run_cluster",
            "pcf.shared_executor.run_thread", "pcf.subview", "pcf.expand_shape"} <= names


def test_types_carry_their_parts():
    module = parse_module(SOURCE.read_text())
    groups = [a.type for op in module.walk() for r in op.regions for b in r.blocks for a in b.args
              if isinstance(a.type, (ThreadgroupType, ClusterType))]
    ids = {g.id for g in groups if isinstance(g, ClusterType)}
    assert {"tg.left", "tg.right", "tg.c00", "tg.c01", "tg.c1", "tg.c1.lo", "tg.c1.hi"} == ids
    tg2 = next(g for g in groups if isinstance(g, ThreadgroupType) and g.private_types)
    assert [str(t) for t in tg2.shared_types] == ["vector<4xf32>"]
    assert [str(t) for t in tg2.private_types] == ["i32"]
    c00 = next(g for g in groups if isinstance(g, ClusterType) and g.id == "tg.c00")
    assert c00.rank == 2 and c00.bounds.data.eval([3, 5], [8, 8]) == (0, 3, 0, 5)


RUN_L = f"%p = pcf.shared_executor.run_cluster %c0 : {LEFT} -> {cluster('(d0)[s0] -> (0, d0)', 'tg.left', ', shared(f32)')} {{\n"
CASES = {
    "overlap": (tile_group([LEFT, cluster("(d0)[s0] -> (d0 - 1, s0)", "tg.right")]), "3",
                "pcf.shared_executor.tile_group: clusters tg.left and tg.right overlap"),
    "gap": (tile_group([LEFT, cluster("(d0)[s0] -> (d0 + 1, s0)", "tg.right")]), "3",
            "pcf.shared_executor.tile_group: the clusters cover 63 of 64 workers"),
    "outside": (tile_group([LEFT, cluster("(d0)[s0] -> (d0, s0 + 1)", "tg.right")]), "3",
                "pcf.shared_executor.tile_group: cluster tg.right: bounds [(32, 65)] leave the worker grid"),
    "duplicate id": (tile_group([LEFT, cluster("(d0)[s0] -> (d0, s0)", "tg.left")]), "3",
                     "pcf.shared_executor.tile_group: cluster id 'tg.left' is not unique"),
    "id twice in region": (executor(
        f"pcf.shared_executor.tile_group %tg split(%h) : {TG} {{\n  ^bb0(%a: {LEFT}, %b: {RIGHT}):\n  pcf.yield\n  }}\n"
        f"  pcf.shared_executor.tile_group %tg split(%x) : {TG} {{\n  ^bb0(%c: {LEFT}, %d: {RIGHT}):\n  pcf.yield\n  }}"),
        "2", "pcf.shared_executor: cluster id 'tg.left' is defined twice in the region"),
    "nested id prefix": (tile_group([LEFT, RIGHT], body=(
        f"pcf.shared_executor.tile_group %c1 split(%x) : {RIGHT} {{\n  ^bb0(%a: {cluster('(d0)[s0] -> (0, d0)', 'tg.right.a')},"
        f" %b: {cluster('(d0)[s0] -> (d0, s0)', 'other.b')}):\n  pcf.yield\n  }}")), "5",
        "pcf.shared_executor.tile_group: cluster other.b: id must start with 'tg.right.'"),
    "split count": (tile_group([LEFT, RIGHT], splits="(%h, %x)"), "3",
                    "pcf.shared_executor.tile_group: cluster tg.left: bounds (d0)[s0] -> (0, d0) need one dim per split value (2)"),
    "cluster scope": (tile_group([LEFT, cluster("(d0)[s0] -> (d0, s0)", "tg.right", scope="#iree_gpu.lane_scope")]), "3",
                      "pcf.shared_executor.tile_group: cluster tg.right: scope #iree_gpu.lane_scope must be the source's"),
    "odd bounds": (tile_group([cluster("(d0)[s0] -> (0, d0, 1)", "tg.left"), RIGHT]), "3",
                   "pcf.cluster: bounds: (d0)[s0] -> (0, d0, 1) needs two results (lo, hi) per grid dimension, got 3"),
    "bounds symbols": (tile_group([cluster("(d0)[s0, s1] -> (0, d0)", "tg.left"), RIGHT]), "3",
                       "pcf.cluster: bounds: (d0)[s0, s1] -> (0, d0) needs one symbol (worker count) per grid dimension (1), got 2"),
    "bounds not a map": (tile_group(["!pcf.cluster<#iree_gpu.subgroup_scope, 4, tg.left>", RIGHT]), "4",
                         "pcf.cluster: bounds: expected an affine_map, got 4"),
    "divide by zero": (tile_group([LEFT, cluster("(d0)[s0] -> (d0 floordiv 0, s0)", "tg.right")]), "3",
                       "pcf.shared_executor.tile_group: cluster tg.right: bounds (d0)[s0] -> ((d0 floordiv 0), s0) divide by zero"),
    "nested payload": (f"func.func @f(%a: !pcf.threadgroup<{SG}, private({TG})>) {{\n  return\n}}\n", "1",
                       "pcf.threadgroup: private: payloads are value types, got !pcf.threadgroup<#iree_gpu.subgroup_scope>"),
    "initialize yields": (executor("", head="").replace(
        f"scope({SG}) execute", f"scope({SG}) initialize {{\n    pcf.yield %x : index\n  }} -> (%a: f32)\n  execute"),
        "2", "pcf.shared_executor: initialize yields (index) but the region takes (f32)"),
    "outside executor": (f"func.func @f(%g: {TG}, %h: index) {{\n  pcf.shared_executor.tile_group %g split(%h) : {TG} {{\n"
                         f"  ^bb0(%a: {LEFT}, %b: {RIGHT}):\n  pcf.yield\n  }}\n  return\n}}\n", "2",
                         "pcf.shared_executor.tile_group: must be inside a pcf.shared_executor"),
    "threadgroup arg": (executor("").replace(f"[%tg: {TG}]", "[%tg: index]"), "2",
                        "pcf.shared_executor: execute: the last argument must be a !pcf.threadgroup<#iree_gpu.subgroup_scope>, got index"),
    "readonly type": (executor("", refs="(%r <- %t)", types=f" : (!pcf.sref<4xf32, {SG}>) -> () reads(tensor<8xf32>)"), "2",
                      "pcf.shared_executor: ref #0: !pcf.sref<4xf32, #iree_gpu.subgroup_scope> must have the shape and element type of tensor<8xf32>"),
    "ref scope": (executor("", head="%r = ", refs="(%r = %t)", types=" : (!pcf.sref<8xf32, #iree_gpu.lane_scope>) -> (tensor<8xf32>)"), "2",
                  "pcf.shared_executor: ref #0: scope #iree_gpu.lane_scope of"),
    "run_cluster payload type": (tile_group([LEFT, RIGHT], body=RUN_L + "  %z = arith.constant 0 : i32\n  pcf.yield %z : i32\n  }"), "5",
                                 "pcf.shared_executor.run_cluster: yields (i32) but the result carries shared(f32) and nothing else"),
    "run_cluster result group": (tile_group([LEFT, RIGHT], body=RUN_L.replace("%c0 :", "%c1 :").replace(f"%c1 : {LEFT}", f"%c1 : {RIGHT}")
                                            + "  %z = arith.constant 0.0 : f32\n  pcf.yield %z : f32\n  }"), "5",
                                 "pcf.shared_executor.run_cluster: result !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, shared(f32)> must be the same group as"),
    "run_cluster args": (tile_group([cluster("(d0)[s0] -> (0, d0)", "tg.left", ", shared(f32)"), RIGHT], body=(
        f"pcf.shared_executor.run_cluster %c1 ins(%c0 : {cluster('(d0)[s0] -> (0, d0)', 'tg.left', ', shared(f32)')}) : {RIGHT} {{\n"
        "  ^bb0(%v: f16):\n  pcf.yield\n  }")), "5",
        "pcf.shared_executor.run_cluster: the region takes (f16) but needs (f32)"),
    "run_cluster private": (tile_group([cluster("(d0)[s0] -> (0, d0)", "tg.left", ", private(f32)"), RIGHT], body=(
        f"pcf.shared_executor.run_cluster %c1 ins(%c0 : {cluster('(d0)[s0] -> (0, d0)', 'tg.left', ', private(f32)')}) : {RIGHT} {{\n"
        "  ^bb0(%v: f32):\n  pcf.yield\n  }")), "5",
        "pcf.shared_executor.run_cluster: ins #0: a private payload (f32) cannot be read collectively; use run_thread"),
    "run_thread other cluster": (tile_group([cluster("(d0)[s0] -> (0, d0)", "tg.left", ", private(f32)"), RIGHT], body=(
        f"pcf.shared_executor.run_thread %c1 ins(%c0 : {cluster('(d0)[s0] -> (0, d0)', 'tg.left', ', private(f32)')}) : {RIGHT} {{\n"
        "  ^bb0(%i: index, %v: f32):\n  pcf.yield\n  }")), "5",
        "pcf.shared_executor.run_thread: ins #0: reads a payload of cluster tg.left from cluster tg.right"),
    "run_thread ids": (tile_group([LEFT, RIGHT], body=f"pcf.shared_executor.run_thread %c1 : {RIGHT} {{\n  pcf.yield\n  }}"), "5",
                       "pcf.shared_executor.run_thread: the region takes () but needs (index)"),
    "run_thread shared": (tile_group([LEFT, cluster("(d0)[s0] -> (d0, s0)", "tg.right", ", shared(f32)")], body=(
        f"pcf.shared_executor.run_thread %c1 ins(%c1 : {cluster('(d0)[s0] -> (d0, s0)', 'tg.right', ', shared(f32)')}) : "
        f"{cluster('(d0)[s0] -> (d0, s0)', 'tg.right', ', shared(f32)')} {{\n  ^bb0(%i: index):\n  pcf.yield\n  }}")), "5",
        "pcf.shared_executor.run_thread: ins #0: a shared payload (f32) is collective; use run_cluster"),
    "subview out of bounds": ("func.func @f(%s: !pcf.sref<8x16xf32, #pcf.sequential>) {\n  %v = pcf.subview %s[6, 0] [4, 8] [1, 2] : "
                              "!pcf.sref<8x16xf32, #pcf.sequential> to !pcf.sref<4x8xf32, #pcf.sequential>\n  return\n}\n", "2",
                              "pcf.subview: dim 0: offset 6 + (4 - 1) * stride 1 is outside the size 8 of"),
    "subview scope": ("func.func @f(%s: !pcf.sref<8x16xf32, #pcf.sequential>) {\n  %v = pcf.subview %s[0, 0] [4, 8] [1, 2] : "
                      "!pcf.sref<8x16xf32, #pcf.sequential> to !pcf.sref<4x8xf32, #iree_gpu.lane_scope>\n  return\n}\n", "2",
                      "pcf.subview: result: !pcf.sref<4x8xf32, #iree_gpu.lane_scope> must have the element type, scope and sync of"),
    "subview sizes": ("func.func @f(%s: !pcf.sref<8x16xf32, #pcf.sequential>) {\n  %v = pcf.subview %s[0, 0] [4, 8] [1, 2] : "
                      "!pcf.sref<8x16xf32, #pcf.sequential> to !pcf.sref<4x4xf32, #pcf.sequential>\n  return\n}\n", "2",
                      "pcf.subview: sizes: size 8 of dim 1 must be equal to dim 1 of"),
    "expand product": ("func.func @f(%s: !pcf.sref<32x16xf32, #pcf.sequential>) {\n  %e = pcf.expand_shape %s [[0, 1], [2]] output_shape [4, 4, 16] : "
                       "!pcf.sref<32x16xf32, #pcf.sequential> into !pcf.sref<4x4x16xf32, #pcf.sequential>\n  return\n}\n", "2",
                       "pcf.expand_shape: group 0: sizes [4, 4] multiply to 16, not to dim 0 (32) of"),
    "expand groups": ("func.func @f(%s: !pcf.sref<32x16xf32, #pcf.sequential>) {\n  %e = pcf.expand_shape %s [[0, 2], [1]] output_shape [4, 8, 16] : "
                      "!pcf.sref<32x16xf32, #pcf.sequential> into !pcf.sref<4x8x16xf32, #pcf.sequential>\n  return\n}\n", "2",
                      "pcf.expand_shape: reassociation: [[0, 2], [1]] must split 0..2 into consecutive non-empty groups"),
    "expand output_shape": ("func.func @f(%s: !pcf.sref<?x16xf32, #pcf.sequential>, %n: index) {\n  %e = pcf.expand_shape %s [[0, 1], [2]] output_shape [%n, 4, 16] : "
                            "!pcf.sref<?x16xf32, #pcf.sequential> into !pcf.sref<?x8x16xf32, #pcf.sequential>\n  return\n}\n", "2",
                            "pcf.expand_shape: output_shape: entry 1 must be 8 as dim 1 of"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_verifier_rules_fail_with_one_located_line(tmp_path, capsys, name):
    text, line, fragment = CASES[name]
    code, out, err = run_opt(tmp_path, capsys, text)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"FILE:{line}:"), err
    assert fragment in err, (fragment, err)


def test_fixed_variants_pass(tmp_path, capsys):
    ok = [tile_group([LEFT, RIGHT]),
          tile_group([LEFT, RIGHT], body=RUN_L + "  %z = arith.constant 0.0 : f32\n  pcf.yield %z : f32\n  }"),
          executor("", refs="(%r <- %t)", types=f" : (!pcf.sref<8xf32, {SG}>) -> () reads(tensor<8xf32>)")]
    for text in ok:
        code, out, err = run_opt(tmp_path, capsys, text)
        assert code == 0, err


# Three 1-D clusters over [0, s0) with split values d0 < d1: (lo, hi) as affine text and as a
# Python formula; the expectation is a brute-force count of the workers each cluster holds.
LAYOUTS = {
    "partition": [("0", "d0", lambda d, s: (0, d[0])), ("d0", "d1", lambda d, s: (d[0], d[1])),
                  ("d1", "s0", lambda d, s: (d[1], s))],
    "shifted overlap": [("0", "d0 + 1", lambda d, s: (0, d[0] + 1)), ("d0", "d1", lambda d, s: (d[0], d[1])),
                        ("d1", "s0", lambda d, s: (d[1], s))],
    "hole": [("0", "d0", lambda d, s: (0, d[0])), ("d0 + 2", "d1", lambda d, s: (d[0] + 2, d[1])),
             ("d1", "s0", lambda d, s: (d[1], s))],
    "reversed halves": [("d1", "s0", lambda d, s: (d[1], s)), ("0", "d0", lambda d, s: (0, d[0])),
                        ("d0", "d1", lambda d, s: (d[0], d[1]))],
    "nested": [("0", "s0", lambda d, s: (0, s)), ("d0", "d1", lambda d, s: (d[0], d[1])),
               ("d1", "d1", lambda d, s: (d[1], d[1]))],
}


def brute_force_partitions(layout, d, s) -> bool:
    owners = [0] * s
    for _, _, formula in layout:
        lo, hi = formula(d, s)
        for w in range(max(lo, 0), min(hi, s)):
            owners[w] += 1
        if lo < 0 or hi > s or lo > hi:
            return False
    return all(n == 1 for n in owners)


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_partition_check_agrees_with_brute_force(tmp_path, capsys, name):
    layout = LAYOUTS[name]
    clusters = [cluster(f"(d0, d1)[s0] -> ({lo}, {hi})", f"tg.c{k}") for k, (lo, hi, _) in enumerate(layout)]
    code, _, err = run_opt(tmp_path, capsys, tile_group(clusters, splits="(%h, %x)"))
    expected = brute_force_partitions(layout, [21, 42], 64)
    assert (code == 0) == expected, err


def brute_force_ok(bounds, n_splits: int) -> bool:
    """Does every sample the verifier uses (S = 64, 97) give disjoint boxes covering S x S?
    ``bounds``: per cluster, per dimension, (lo, hi) as (name, offset) pairs evaluated here."""
    for extent in (64, 97):
        values = {"0": 0, "s": extent, **{f"d{k}": extent * (k + 1) // (n_splits + 1) for k in range(n_splits)}}
        owners = {}
        for box in bounds:
            ranges = [(values[lo] + a, values[hi] + b) for (lo, a), (hi, b) in box]
            if any(not 0 <= lo <= hi <= extent for lo, hi in ranges):
                return False
            for point in product(*(range(lo, hi) for lo, hi in ranges)):
                owners[point] = owners.get(point, 0) + 1
        if len(owners) != extent ** 2 or any(n != 1 for n in owners.values()):
            return False
    return True


def affine(name: str, offset: int, dim: int) -> str:
    base = {"0": "0", "s": f"s{dim}"}.get(name, name)
    return base if offset == 0 else f"{base} + {offset}" if offset > 0 else f"{base} - {-offset}"


END = st.tuples(st.sampled_from(["0", "d0", "d1", "s"]), st.sampled_from([0, 0, 0, 1, -1]))
GRID_BOX = st.lists(st.tuples(END, END), min_size=2, max_size=2)


QUARTERS = [[(("0", 0), ("d0", 0)), (("0", 0), ("d1", 0))], [(("0", 0), ("d0", 0)), (("d1", 0), ("s", 0))],
            [(("d0", 0), ("s", 0)), (("0", 0), ("d1", 0))], [(("d0", 0), ("s", 0)), (("d1", 0), ("s", 0))]]


@settings(max_examples=40, deadline=None)
@given(st.lists(GRID_BOX, min_size=1, max_size=4))
@example(QUARTERS)
@example(QUARTERS[:3])
@example([QUARTERS[0], QUARTERS[1], [(("d0", -1), ("s", 0)), (("0", 0), ("s", 0))]])
def test_2d_partition_check_agrees_with_brute_force(tmp_path_factory, boxes):
    """Random 2-D boxes over [0, s0) x [0, s1) from the endpoints 0, d0, d1, s (+-1): the verifier
    accepts exactly when a worker-by-worker count finds a partition at every small point of the
    domain (the check is exact, not sampled)."""
    clusters = [cluster("(d0, d1)[s0, s1] -> (" + ", ".join(
        f"{affine(lo, a, k)}, {affine(hi, b, k)}" for k, ((lo, a), (hi, b)) in enumerate(box)) + ")", f"tg.c{i}")
        for i, box in enumerate(boxes)]
    path = tmp_path_factory.mktemp("p") / "in.mlir"
    path.write_text(tile_group(clusters, splits="(%h, %x)"))
    code = main(["opt", str(path), "-o", str(path.with_suffix(".out"))])
    assert (code == 0) == partition_everywhere(boxes)


def partition_everywhere(bounds) -> bool:
    """Brute force of the exact rule (docs/pcf-extension.md, "tile_group"): at every small point
    of the domain -- s0, s1 in 1..5, and in each grid dimension the splits its bounds use ordered
    0 <= d0 <= d1 <= s of that dimension -- the boxes are inside the grid, disjoint and cover it.
    The bounds are 0, d0, d1, s (+-1), so a layout that fails anywhere fails at a small point."""
    used = [{name for box in bounds for end in box[dim] for name, _ in [end] if name.startswith("d")}
            for dim in range(2)]
    for s0, s1, d0, d1 in product(range(1, 6), range(1, 6), range(6), range(6)):
        extents = (s0, s1)
        values = {"d0": d0, "d1": d1}
        chains = [[0, *(values[d] for d in sorted(used[r])), extents[r]] for r in range(2)]
        if any(chain != sorted(chain) for chain in chains):
            continue  # outside the domain
        owners = {}
        for box in bounds:
            ranges = []
            for dim, ((lo, a), (hi, b)) in enumerate(box):
                at = {"0": 0, "s": extents[dim], **values}
                ranges.append((at[lo] + a, at[hi] + b))
            if any(not 0 <= lo <= hi <= extents[dim] for dim, (lo, hi) in enumerate(ranges)):
                return False
            for point in product(*(range(lo, hi) for lo, hi in ranges)):
                owners[point] = owners.get(point, 0) + 1
        if len(owners) != s0 * s1 or any(n != 1 for n in owners.values()):
            return False
    return True


def test_partitions_found_by_brute_force_exist():
    """The random test above sees accepted layouts too: quarters split at d0 and d1."""
    assert brute_force_ok(QUARTERS, 2)
    assert not brute_force_ok(QUARTERS[:3], 2)


def test_nested_executor_may_reuse_cluster_ids(tmp_path, capsys):
    inner = "\n".join(tile_group([LEFT, RIGHT]).split("\n")[1:-3])  # the shared_executor, its tile_group
    inner = inner.replace("%tg", "%tg2").replace("%c0", "%e0").replace("%c1", "%e1")
    text = tile_group([LEFT, RIGHT], body=inner)
    code, _, err = run_opt(tmp_path, capsys, text)
    assert code == 0, err
