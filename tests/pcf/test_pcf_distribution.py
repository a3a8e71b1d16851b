"""The distribution interface and the equivalence analysis over threadgroup-carried values
(layoutkit/passes/pcf_distribution.py) on hand-written IR: the expected classes and groups are
read off each program by hand (names in the test), not computed by the analysis' code path."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

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


class _Program:
    """A random nest of scf.for / scf.if over run_cluster ops carrying ``ACC`` payloads; it
    records every control-flow edge (value name pairs) and which values each op touches, so
    the expected classes and groups are plain graph components (breadth-first search)."""

    def __init__(self, rng) -> None:
        self.rng, self.count = rng, 0
        self.edges: list[tuple[str, str]] = []
        self.touches: dict[str, list[str]] = {}  # op (named by its result) -> values it touches
        self.values: list[str] = []

    def fresh(self, prefix: str) -> str:
        self.count += 1
        name = f"{prefix}{self.count}"
        self.values.append(name)
        return name

    def block(self, visible: list[str], depth: int) -> tuple[str, list[str]]:
        """Text of a block and the carried values visible at its end."""
        text, visible = "", list(visible)
        for _ in range(self.rng.randint(1, 3)):
            kind = self.rng.choice(["produce", "consume", "for", "if"] if depth < 3 else ["produce", "consume"])
            if kind == "consume" and not visible:
                kind = "produce"
            if kind == "produce":
                name = self.fresh("p")
                text += produce(name)
                self.touches[name] = [name]
            elif kind == "consume":
                source, name = self.rng.choice(visible), self.fresh("q")
                text += consume(name, source)
                self.touches[name] = [source, name]
            elif kind == "for":
                init = self.rng.choice(visible) if visible else None
                if init is None:
                    init = self.fresh("p")
                    text += produce(init)
                    self.touches[init] = [init]
                arg, result = self.fresh("it"), self.fresh("fr")
                body, inner = self.block([*visible, arg], depth + 1)
                yielded = self.rng.choice(inner)
                self.edges += [(init, arg), (yielded, arg), (yielded, result), (arg, result)]
                text += (f"%{result} = scf.for %k_{result} = %c0 to %n step %c1 iter_args(%{arg} = %{init})"
                         f" -> ({ACC}) {{\n{body}scf.yield %{yielded} : {ACC}\n}}\n")
                visible.append(result)
            else:
                result = self.fresh("ir")
                arms = []
                for _ in range(2):
                    body, inner = self.block(visible, depth + 1)
                    if not inner:
                        extra = self.fresh("p")
                        body += produce(extra)
                        self.touches[extra] = [extra]
                        inner = [extra]
                    yielded = self.rng.choice(inner)
                    self.edges.append((yielded, result))
                    arms.append(f"{body}scf.yield %{yielded} : {ACC}\n")
                text += f"%{result} = scf.if %p -> ({ACC}) {{\n{arms[0]}}} else {{\n{arms[1]}}}\n"
                visible.append(result)
        return text, visible


def _components(nodes, edges) -> list[set]:
    adjacent: dict = {v: set() for v in nodes}
    for a, b in edges:
        adjacent[a].add(b)
        adjacent[b].add(a)
    seen: set = set()
    parts = []
    for v in nodes:
        if v in seen:
            continue
        part, todo = set(), [v]
        while todo:
            w = todo.pop()
            if w not in part:
                part.add(w)
                todo.extend(adjacent[w] - part)
        seen |= part
        parts.append(part)
    return parts


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_classes_and_groups_equal_graph_components_of_random_programs(seed):
    import random

    prog = _Program(random.Random(seed))
    body, _ = prog.block([], 0)
    module, eq = analyse(program(body))
    classes = _components(prog.values, prog.edges)
    got = [names(c) for c in eq.classes if names(c) != {"tg"}]
    assert sorted(map(sorted, got)) == sorted(map(sorted, classes))
    # groups: ops joined through the classes of the values they touch
    class_of = {v: i for i, c in enumerate(classes) for v in c}
    op_edges = [(op, f"class{class_of[v]}") for op, vs in prog.touches.items() for v in vs]
    nodes = list(prog.touches) + [f"class{i}" for i in range(len(classes))]
    expected = sorted(sorted(p & set(prog.touches)) for p in _components(nodes, op_edges) if p & set(prog.touches))
    assert sorted(sorted(run_names(g)) for g in eq.groups) == expected
