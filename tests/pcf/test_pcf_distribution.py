"""The distribution interface and the equivalence analysis over threadgroup-carried values
(layoutkit/passes/pcf_distribution.py) on hand-written IR: the expected classes and groups are
read off each program by hand (names in the test), not computed by the analysis' code path."""

from __future__ import annotations

from layoutkit.ir import parse_module
from layoutkit.ir.dialects import pcf_ext
from layoutkit.passes.pcf_distribution import carried_equivalence, distributable

SG = "#iree_gpu.subgroup_scope"
TG = f"!pcf.threadgroup<{SG}>"
ACC = f"!pcf.threadgroup<{SG}, shared(tensor<4xf32>)>"


def program(body: str) -> str:
    return (f"func.func @f(%n: index, %p: i1) {{\n"
            f"  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            f"  pcf.shared_executor scope({SG}) execute[%tg: {TG}] {{\n{body}\n"
            f"  pcf.return\n  }}\n  return\n}}\n")


def produce(name: str, value: str = "1.0") -> str:
    return (f"%{name} = pcf.shared_executor.run_cluster %tg : {TG} -> {ACC} {{\n"
            f"  %v_{name} = arith.constant dense<{value}> : tensor<4xf32>\n  pcf.yield %v_{name} : tensor<4xf32>\n}}\n")


def consume(name: str, source: str) -> str:
    return (f"%{name} = pcf.shared_executor.run_cluster %tg ins(%{source} : {ACC}) : {TG} -> {ACC} {{\n"
            f"^bb0(%x_{name}: tensor<4xf32>):\n  pcf.yield %x_{name} : tensor<4xf32>\n}}\n")


def sink(source: str) -> str:
    return (f"pcf.shared_executor.run_cluster %tg ins(%{source} : {ACC}) : {TG} {{\n"
            f"^bb0(%y_{source}: tensor<4xf32>):\n  pcf.yield\n}}\n")


def analyse(text: str):
    module = parse_module(text)
    module.verify()
    return module, carried_equivalence(module)


def names(values) -> set[str]:
    return {v.name_hint for v in values}


def run_names(group) -> list[str]:
    """Each op of a group named by the value it produces, or 'sink(<consumed>)'."""
    out = []
    for op in group.ops:
        out.append(op.result.name_hint if op.result is not None else f"sink({op.ins[0].name_hint})")
    return out


def test_loop_carried_accumulator_is_one_class_and_one_group():
    body = (produce("a0")
            + f"%aK = scf.for %k = %c0 to %n step %c1 iter_args(%cur = %a0) -> ({ACC}) {{\n"
            + consume("nx", "cur") + "scf.yield %nx : " + ACC + "\n}\n" + sink("aK"))
    module, eq = analyse(program(body))
    carried = [c for c in eq.classes if names(c) & {"a0"}]
    assert len(carried) == 1 and names(carried[0]) == {"a0", "cur", "nx", "aK"}
    (group,) = [g for g in eq.groups if len(g.ops) > 1]
    assert run_names(group) == ["a0", "nx", "sink(aK)"]
    # the threadgroup argument itself is carried but joined to nothing
    tg = next(c for c in eq.classes if names(c) == {"tg"})
    assert not eq.same(tg[0], carried[0][0])


def test_branch_joined_values_are_distributed_together_and_apart_from_others():
    body = (f"%j = scf.if %p -> ({ACC}) {{\n" + produce("t", "1.0") + f"scf.yield %t : {ACC}\n}} else {{\n"
            + produce("e", "2.0") + f"scf.yield %e : {ACC}\n}}\n" + sink("j")
            + produce("lone") + sink("lone"))
    module, eq = analyse(program(body))
    joined = next(c for c in eq.classes if "j" in names(c))
    assert names(joined) == {"t", "e", "j"}
    groups = sorted(run_names(g) for g in eq.groups)
    assert groups == [["lone", "sink(lone)"], ["t", "e", "sink(j)"]]
    by_name = {v.name_hint: v for c in eq.classes for v in c}
    assert eq.same(by_name["t"], by_name["e"]) and not eq.same(by_name["t"], by_name["lone"])


def test_while_loop_edges_join_before_after_and_result():
    body = (produce("w0")
            + f"%wr = scf.while (%b = %w0) : ({ACC}) -> ({ACC}) {{\n"
            + f"  scf.condition(%p) %b : {ACC}\n}} do {{\n^bb0(%af: {ACC}):\n"
            + consume("step", "af") + f"scf.yield %step : {ACC}\n}}\n" + sink("wr"))
    module, eq = analyse(program(body))
    cls = next(c for c in eq.classes if "w0" in names(c))
    assert names(cls) == {"w0", "b", "af", "step", "wr"}
    assert [run_names(g) for g in eq.groups] == [["w0", "step", "sink(wr)"]]


def test_interface_views_run_ops_only():
    module, eq = analyse(program(produce("a0") + sink("a0")))
    runs = [op for op in module.walk() if isinstance(op, pcf_ext.RunClusterOp)]
    assert [names(distributable(op).produced()) for op in runs] == [{"a0"}, set()]
    assert [names(distributable(op).consumed()) for op in runs] == [set(), {"a0"}]
    executor = next(op for op in module.walk() if isinstance(op, pcf_ext.SharedExecutorOp))
    assert distributable(executor) is None
