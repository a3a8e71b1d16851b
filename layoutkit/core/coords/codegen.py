"""Index code for an unrolled ``transforming_for``, with and without index diffs.

:func:`unrolled_program` builds the straight-line code of a fully unrolled loop nest: for
every iteration, the lowest coordinates of every chain and their validity. Two ways:

- ``use_index_diffs=False``: every iteration evaluates every map of every chain from its
  upper point ``start + index * stride`` (what unrolling does without diffs);
- ``use_index_diffs=True``: the first iteration evaluates the maps; every later one steps
  from an earlier iteration (see :func:`~layoutkit.core.coords.index_diff.loop_order`) with
  the index-diff rules. Deltas known at compile time fold into constants (an Embed's diff is
  one add); a transform whose incoming delta is only known at run time (after a Merge's
  carries, say) is evaluated from its new upper values instead, whichever is cheaper.

Both fold constants (``x + 0``, ``x * 1``) and share equal subexpressions within an
iteration. The :class:`Program` prints as Python (:meth:`Program.python`) or C
(:meth:`Program.c`) and counts its arithmetic operations (:meth:`Program.op_counts`), one
per operator: ``+ - * floordiv mod xor >> & compare select``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from layoutkit.core.coords import affine
from layoutkit.core.coords.bounds import validity
from layoutkit.core.coords.index_diff import loop_order
from layoutkit.core.coords.transform_map import TransformMap, as_chain
from layoutkit.core.coords.transforms import Transform
from layoutkit.errors import LayoutError

Value = int | str  # a compile-time constant or a variable name


@dataclass(frozen=True)
class Operator:
    """One operation of the index code: the class it is counted in, its value on constants
    (None: never folded this way), and its Python and C forms as templates over the
    arguments ``{0}, {1}, {2}``."""

    report_class: str
    fold: Callable[..., int] | None
    python: str
    c: str


OPERATORS = {
    "add": Operator("add/sub", lambda a, b: a + b, "{0} + {1}", "{0} + {1}"),
    "sub": Operator("add/sub", lambda a, b: a - b, "{0} - {1}", "{0} - {1}"),
    "mul": Operator("mul", lambda a, b: a * b, "{0} * {1}", "{0} * {1}"),
    "floordiv": Operator("div/mod", lambda a, b: a // b, "{0} // {1}", "lk_floordiv({0}, {1})"),
    "mod": Operator("div/mod", lambda a, b: a % b, "{0} % {1}", "lk_mod({0}, {1})"),
    "xor": Operator("bit", lambda a, b: a ^ b, "{0} ^ {1}", "{0} ^ {1}"),
    "shr": Operator("bit", lambda a, b: a >> b, "{0} >> {1}", "{0} >> {1}"),
    "and": Operator("bit", lambda a, b: a & b, "{0} & {1}", "{0} & {1}"),
    "land": Operator("bit", lambda a, b: a & b, "{0} & {1}", "{0} & {1}"),
    "ge": Operator("compare", lambda a, b: int(a >= b), "int({0} >= {1})", "({0} >= {1})"),
    "ult": Operator("compare", lambda a, b: int(0 <= a < b), "int(0 <= {0} < {1})",
                    "((unsigned long long)({0}) < (unsigned long long)({1}))"),
    "select": Operator("select", None, "{1} if {0} else {2}", "({0} ? {1} : {2})"),
}
REPORT_CLASSES = ("add/sub", "mul", "div/mod", "bit", "compare", "select")


def expression(op: str, args: tuple[Value, ...], language: str = "python") -> str:
    """``op`` applied to ``args`` as Python or C source, e.g. ``expression("mod", ("x", 4),
    "c") == "lk_mod(x, 4)"``."""
    operator = OPERATORS[op]
    return (operator.python if language == "python" else operator.c).format(*args)


@dataclass
class Program:
    """Straight-line index code: ``statements`` are ``(target, op, args)``; ``results``
    holds, per iteration, ``(index, [(coords, valid) per chain])``."""

    params: list[str]
    statements: list[tuple[str, str, tuple[Value, ...]]] = field(default_factory=list)
    results: list[tuple[tuple[int, ...], list[tuple[list[Value], Value]]]] = field(default_factory=list)
    name: str = "transforming_for_body"

    # -- counting ----------------------------------------------------------------------
    def op_counts(self) -> dict[str, int]:
        """Operations by class (``add/sub``, ``mul``, ``div/mod``, ``bit``, ``compare``,
        ``select``) and their ``total``."""
        counts = Counter(OPERATORS[op].report_class for _, op, _ in self.statements)
        out = {k: counts.get(k, 0) for k in REPORT_CLASSES}
        out["total"] = sum(counts.values())
        return out

    @property
    def op_count(self) -> int:
        return len(self.statements)

    # -- printing ------------------------------------------------------------------------
    def python(self) -> str:
        """A Python function ``name(*params)`` returning ``[(index, ((coords), valid), ...), ...]``."""
        lines = [f"def {self.name}({', '.join(self.params)}):"]
        for target, op, args in self.statements:
            lines.append(f"    {target} = {expression(op, args)}")
        lines.append("    return [")
        for index, per_chain in self.results:
            parts = ", ".join(f"(({', '.join(map(str, coords))}{',' if len(coords) == 1 else ''}), {valid})"
                              for coords, valid in per_chain)
            lines.append(f"        ({index}, {parts}),")
        lines.append("    ]")
        return "\n".join(lines) + "\n"

    def c(self) -> str:
        """A C function ``void name(params..., long long *out)`` writing, per iteration and
        chain, the coordinates then the validity (0/1) into ``out``."""
        args = ", ".join(f"long long {p}" for p in self.params)
        lines = [
            "static inline long long lk_floordiv(long long a, long long b) "
            "{ long long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }",
            "static inline long long lk_mod(long long a, long long b) "
            "{ long long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }",
            f"void {self.name}({args}{', ' if args else ''}long long *out) {{",
        ]
        for target, op, args_ in self.statements:
            lines.append(f"  long long {target} = {expression(op, args_, 'c')};")
        k = 0
        for _, per_chain in self.results:
            for coords, valid in per_chain:
                for v in [*coords, valid]:
                    lines.append(f"  out[{k}] = {v};")
                    k += 1
        lines.append("}")
        return "\n".join(lines) + "\n"

    @property
    def output_count(self) -> int:
        return sum(len(coords) + 1 for _, per in self.results for coords, _ in per)


class _Emitter:
    """Appends statements with constant folding and per-iteration common subexpressions."""

    def __init__(self, program: Program):
        self.program = program
        self.counter = 0
        self.cache: dict[tuple, str] = {}

    def new_iteration(self) -> None:
        self.cache = {}

    def op(self, op: str, *args: Value) -> Value:
        fold = OPERATORS[op].fold
        if fold is not None and all(isinstance(a, int) for a in args):
            return fold(*args)
        a = args[0]
        b = args[1] if len(args) > 1 else None
        if op == "add":
            if a == 0:
                return b  # type: ignore[return-value]
            if b == 0:
                return a
        if op in ("sub", "shr", "xor") and b == 0:
            return a
        if op == "mul":
            if 0 in (a, b):
                return 0
            if b == 1:
                return a
            if a == 1:
                return b  # type: ignore[return-value]
        if op == "floordiv" and b == 1:
            return a
        if op == "mod" and b == 1:
            return 0
        if op == "and" and b == 0:
            return 0
        if op == "select" and isinstance(a, int):
            return args[1] if a else args[2]
        if op == "land":
            if a == 1:
                return b  # type: ignore[return-value]
            if b == 1:
                return a
        key = (op, args)
        if key in self.cache:
            return self.cache[key]
        self.counter += 1
        target = f"v{self.counter}"
        self.program.statements.append((target, op, tuple(args)))
        self.cache[key] = target
        return target

    # -- evaluating maps -----------------------------------------------------------------
    def expr(self, e: affine.Sum, dims: list[Value]) -> Value:
        total: Value = 0
        for coef, atom in e.terms:
            if isinstance(atom, affine.Dim):
                value = dims[atom.index]
            else:
                inner = self.expr(atom.operand, dims)
                value = self.op("floordiv" if atom.kind == "floordiv" else "mod", inner, atom.divisor)
            total = self.op("add", total, self.op("mul", value, coef))
        return self.op("add", total, e.const)

    def transform(self, t: Transform, upper: list[Value]) -> list[Value]:
        if t.kind == "Xor":
            mask, shift = t.params
            a, b = upper
            return [self.op("xor", a, self.op("and", self.op("shr", b, shift), mask)), b]
        dims = [affine.dim(i) for i in range(len(upper))]
        return [self.expr(e, upper) for e in t.expressions(dims)]

    def map(self, m: TransformMap, upper: list[Value]) -> list[Value]:
        out: list[Value] = [0] * len(m.lower_bounds)
        for t in m.transforms:
            for d, v in zip(t.lower_dims, self.transform(t, [upper[u] for u in t.upper_dims])):
                out[d] = v
        return out

    # -- stepping maps -------------------------------------------------------------------
    def step_transform(self, t: Transform, upper_new: list[Value], delta: list[int | None],
                       lower: list[Value]) -> tuple[list[Value], list[int | None]]:
        """New lower values and their deltas (None: known only at run time)."""
        kind, p = t.kind, t.params
        if kind == "ConstDim":
            return list(lower), [0] * len(lower)
        if all(d == 0 for d in delta):
            return list(lower), [0] * len(lower)
        known = all(d is not None for d in delta)
        if kind == "PassThrough":
            return list(upper_new), list(delta)
        if kind in ("Pad", "Slice") and known:
            return [self.op("add", low, d) for low, d in zip(lower, delta)], list(delta)  # type: ignore[arg-type]
        if kind in ("Embed", "Unmerge") and known:
            coefs = p if kind == "Embed" else t.merge_strides
            step = sum(c * d for c, d in zip(coefs, delta))  # type: ignore[misc]
            return [self.op("add", lower[0], step)], [step]
        if kind == "Merge" and known:
            s, step = t.merge_strides, delta[0]
            digits = [step // s[0]] + [(step % s[i - 1]) // s[i] for i in range(1, len(p))]  # type: ignore[operator]
            new = [self.op("add", low, d) for low, d in zip(lower, digits)]
            carry_possible = False
            for i in range(len(p) - 1, 0, -1):
                if digits[i] == 0 and not carry_possible:
                    continue
                c = self.op("ge", new[i], p[i])
                if digits[i] + (1 if carry_possible else 0) <= 1:
                    wrapped: Value = 0  # stepped by at most one: an overflow lands exactly on L
                else:
                    wrapped = self.op("sub", new[i], p[i])
                new[i] = self.op("select", c, wrapped, new[i])
                new[i - 1] = self.op("add", new[i - 1], c)
                carry_possible = not isinstance(c, int) or c == 1
            return new, [None] * len(new)
        values = self.transform(t, upper_new)
        out_delta: list[int | None] = [None] * len(values)
        if kind == "Xor":
            out_delta[1] = delta[1]
        return values, out_delta

    def step_map(self, m: TransformMap, upper_new: list[Value], delta: list[int | None],
                 lower: list[Value]) -> tuple[list[Value], list[int | None]]:
        out = list(lower)
        out_delta: list[int | None] = [None] * len(lower)
        for t in m.transforms:
            values, deltas = self.step_transform(
                t, [upper_new[u] for u in t.upper_dims], [delta[u] for u in t.upper_dims],
                [lower[d] for d in t.lower_dims])
            for d, v, dd in zip(t.lower_dims, values, deltas):
                out[d] = v
                out_delta[d] = dd
        return out, out_delta

    def checks(self, chain: Any, lower: list[Value]) -> Value:
        valid: Value = 1
        for check in validity(chain).checks:
            x = lower[check.dim]
            test = self.op("ult", x, check.size) if check.right else self.op("ge", x, 0)
            valid = self.op("land", valid, test)
        return valid


def unrolled_program(chains: Any, bounds: Any, strides: Any = None, use_index_diffs: bool = True,
                     name: str = "transforming_for_body", checks: bool = True) -> Program:
    """The unrolled loop nest's index code (see the module docstring). The start point of
    chain ``k`` is the parameters ``s{k}_0, s{k}_1, ...``."""
    chain_list = [as_chain(c) for c in (chains if isinstance(chains, (list, tuple)) else [chains])]
    bounds = tuple(int(b) for b in bounds)
    strides = tuple(int(s) for s in strides) if strides is not None else (1,) * len(bounds)
    if len(strides) != len(bounds) or any(b <= 0 for b in bounds):
        raise LayoutError(f"unrolled_program: bounds {list(bounds)} must be positive with one stride each")
    for k, c in enumerate(chain_list):
        if len(c.upper_bounds) != len(bounds):
            raise LayoutError(f"unrolled_program: chain {k} has {len(c.upper_bounds)} upper dims, the loop has {len(bounds)}")
    params = [f"s{k}_{j}" for k, c in enumerate(chain_list) for j in range(len(bounds))]
    program = Program(params, name=name)
    emit = _Emitter(program)
    # state[index][k] = list of spaces, each a list of values
    state: dict[tuple[int, ...], list[list[list[Value]]]] = {}
    for index, prev, moved in loop_order(bounds):
        emit.new_iteration()
        per_chain = []
        spaces_all = []
        for k, chain in enumerate(chain_list):
            if prev is None or not use_index_diffs:
                upper: list[Value] = [emit.op("add", f"s{k}_{j}", i * st) for j, (i, st) in enumerate(zip(index, strides))]
                spaces = [upper]
                for m in chain.maps:
                    spaces.append(emit.map(m, spaces[-1]))
            else:
                old = state[prev][k]
                delta: list[int | None] = [strides[j] if j == moved else 0 for j in range(len(bounds))]
                upper = [emit.op("add", u, d) for u, d in zip(old[0], delta)]  # type: ignore[arg-type]
                spaces = [upper]
                for m, old_lower in zip(chain.maps, old[1:]):
                    lower, delta = emit.step_map(m, spaces[-1], delta, old_lower)
                    spaces.append(lower)
            spaces_all.append(spaces)
            per_chain.append((list(spaces[-1]), emit.checks(chain, spaces[-1]) if checks else 1))
        state[index] = spaces_all
        program.results.append((index, per_chain))
    _drop_dead(program)
    return program


def _drop_dead(program: Program) -> None:
    """Remove statements whose value nothing reads (upper points a diff never needed)."""
    live = {v for _, per in program.results for coords, valid in per for v in [*coords, valid] if isinstance(v, str)}
    kept = []
    for target, op, args in reversed(program.statements):
        if target in live:
            kept.append((target, op, args))
            live.update(a for a in args if isinstance(a, str))
    program.statements = list(reversed(kept))


def _identifier(name: str) -> str:
    out = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    return out if out and not out[0].isdigit() else f"_{out}"


def diff_program(chain: Any, delta: Any) -> tuple[Program, list[list[str]]]:
    """The index-diff code of one step by the constant upper ``delta``: its parameters are
    the current coordinates of every space (named after the dims, a space suffix added on a
    clash); its one result is the new lowest coordinates. Also returns the parameter names
    per space."""
    chain = as_chain(chain)
    delta = tuple(int(d) for d in delta)
    if len(delta) != len(chain.upper_bounds):
        raise LayoutError(f"diff: the chain has {len(chain.upper_bounds)} upper dims "
                          f"{list(chain.upper_names)}, got {len(delta)} deltas")
    seen: set[str] = set()
    space_vars: list[list[str]] = []
    for k, (names, _) in enumerate(chain.spaces()):
        current = []
        for n in names:
            var = _identifier(n)
            if var in seen:
                var = f"{var}_{k}"
            seen.add(var)
            current.append(var)
        space_vars.append(current)
    program = Program([v for vs in space_vars for v in vs], name="index_diff")
    emit = _Emitter(program)
    upper: list[Value] = [emit.op("add", u, d) for u, d in zip(space_vars[0], delta)]
    deltas: list[int | None] = list(delta)
    for m, old in zip(chain.maps, space_vars[1:]):
        upper, deltas = emit.step_map(m, upper, deltas, list(old))
    program.results.append(((), [(list(upper), 1)]))
    _drop_dead(program)
    return program, space_vars
