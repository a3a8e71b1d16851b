"""One coordinate transformation: a rocMLIR ``#rock.transform`` (plus layoutkit's ``Xor``).

A transform takes some *upper* dims (its inputs) to some *lower* dims (its outputs); a
:class:`~layoutkit.core.coords.transform_map.TransformMap` is a set of transforms that
together cover every upper and every lower dim exactly once.

==========  =====================  =================================================
kind        params                 upper -> lower
==========  =====================  =================================================
PassThrough —                      ``l_i = u_i``
Pad         ``{l1, r1, l2, r2..}`` ``l_i = u_i - left_i``; upper size = lower + left + right
Slice       ``{b1, e1, b2, e2..}`` ``l_i = u_i + begin_i``; upper size = end - begin
Embed       ``{c1, .., cn}``       n -> 1: ``l = c1 * u1 + ... + cn * un``
Unmerge     ``{L1, .., Ln}``       n -> 1: ``l = ((u1 * L2 + u2) * L3 + u3) ...``
Merge       ``{L1, .., Ln}``       1 -> n: ``l_i = (x mod S_{i-1}) floordiv S_i``,
                                   ``S_i = L_{i+1} * ... * L_n``; ``l_1 = x floordiv S_1``
AddDim      ``{size}``             1 -> 0: the upper dim is dropped
Broadcast   ``{L1, .., Ln}``       ``l_i = u_i mod L_i``
ConstDim    ``{v1, len1, ..}``     0 -> n: ``l_i = v_i``
Xor         ``{mask, shift}``      2 -> 2: ``a' = a xor ((b >> shift) & mask)``, ``b' = b``
==========  =====================  =================================================

Worked example: ``Merge{2, 3, 3}`` of ``K = 13`` gives ``(13 floordiv 9, (13 mod 9)
floordiv 3, 13 mod 3) = (1, 1, 1)``; an upper value past the end (``K = 20``) overflows into
the first (slowest) output only: ``(2, 0, 2)``.

``Xor`` is layoutkit's own, so that shared-memory swizzles (Triton's ``swizzled_shared``)
are expressible; it is not affine, so maps holding one print without an ``affine_map``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from layoutkit.core.bits import is_int
from layoutkit.core.coords import affine
from layoutkit.core.coords.affine import MAX_VALUE, floor_div, floor_mod
from layoutkit.errors import LayoutError, quote

KINDS = (
    "PassThrough", "Pad", "Slice", "Embed", "Unmerge", "Merge", "AddDim", "Broadcast", "ConstDim", "Xor",
)


def _names_text(names: tuple[str, ...]) -> str:
    return "[" + ", ".join('"' + n.replace("\\", "\\\\").replace('"', '\\"') + '"' for n in names) + "]"


@dataclass(frozen=True)
class Transform:
    """One transform: ``kind{params} [upper_names] at [upper_dims] -> [lower_names] at [lower_dims]``."""

    kind: str
    params: tuple[int, ...]
    upper_names: tuple[str, ...]
    upper_dims: tuple[int, ...]
    lower_names: tuple[str, ...]
    lower_dims: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise LayoutError(f"transform: unknown kind {quote(self.kind)} (known: {', '.join(KINDS)})")
        for field in ("params", "upper_names", "upper_dims", "lower_names", "lower_dims"):
            value = getattr(self, field)
            try:
                object.__setattr__(self, field, tuple(value))
            except TypeError:
                raise LayoutError(f"{self.kind}: {field} must be a sequence, got {quote(value)}") from None
        if not all(is_int(p) for p in self.params):
            raise LayoutError(f"{self.kind}: params must be integers, got {quote(list(self.params))}")
        object.__setattr__(self, "params", tuple(int(p) for p in self.params))
        if any(abs(p) >= MAX_VALUE for p in self.params):
            raise LayoutError(f"{self.kind}: params must lie below 2**62 in magnitude, got {quote(list(self.params))}")
        for side in ("upper", "lower"):
            names, dims = getattr(self, f"{side}_names"), getattr(self, f"{side}_dims")
            if not all(isinstance(n, str) and n for n in names):
                raise LayoutError(f"{self}: {side} names must be non-empty strings, got {quote(list(names))}")
            if not all(is_int(d) and d >= 0 for d in dims):
                raise LayoutError(f"{self}: {side} dims must be non-negative integers, got {quote(list(dims))}")
            object.__setattr__(self, f"{side}_dims", tuple(int(d) for d in dims))
            if len(names) != len(dims):
                raise LayoutError(f"{self}: {len(names)} {side} names for {len(dims)} {side} dims")
            if len(set(names)) != len(names):
                raise LayoutError(f"{self}: {side} dim name {quote(_first_duplicate(names))} used twice")
            if len(set(dims)) != len(dims):
                raise LayoutError(f"{self}: {side} dim {_first_duplicate(dims)} used twice")
        self._check_shape()

    def _check_shape(self) -> None:
        n_up, n_low, p = len(self.upper_dims), len(self.lower_dims), self.params
        kind = self.kind

        def need(cond: bool, message: str) -> None:
            if not cond:
                raise LayoutError(f"{self}: {message}")

        if kind in ("PassThrough", "Pad", "Slice", "Broadcast"):
            need(n_up == n_low and n_up >= 1, f"{kind} takes as many upper dims as lower dims (at least one)")
        if kind == "PassThrough":
            need(not p, "PassThrough has no parameters")
        elif kind in ("Pad", "Slice"):
            need(len(p) == 2 * n_up, f"{kind} needs two parameters per dim")
            for i in range(n_up):
                a, b = p[2 * i], p[2 * i + 1]
                name = self.upper_names[i]
                if kind == "Pad":
                    need(a >= 0 and b >= 0, f"padding of {quote(name)} must be non-negative, got {{{a}, {b}}}")
                else:
                    need(a >= 0 and b > a, f"slice of {quote(name)} needs 0 <= begin < end, got {{{a}, {b}}}")
        elif kind in ("Embed", "Unmerge"):
            need(n_low == 1 and n_up >= 1, f"{kind} takes one or more upper dims to one lower dim")
            need(len(p) == n_up, f"{kind} needs one parameter per upper dim")
            if kind == "Unmerge":
                need(all(x > 0 for x in p), "Unmerge lengths must be positive")
        elif kind == "Merge":
            need(n_up == 1 and n_low >= 1, "Merge takes one upper dim to one or more lower dims")
            need(len(p) == n_low, "Merge needs one length per lower dim")
            need(all(x > 0 for x in p), "Merge lengths must be positive")
        elif kind == "AddDim":
            need(n_up == 1 and n_low == 0, "AddDim takes one upper dim and no lower dims")
            need(len(p) == 1 and p[0] > 0, "AddDim needs one positive size")
        elif kind == "Broadcast":
            need(len(p) == n_low and all(x > 0 for x in p), "Broadcast needs one positive length per dim")
        elif kind == "ConstDim":
            need(n_up == 0 and n_low >= 1, "ConstDim takes no upper dims and one or more lower dims")
            need(len(p) == 2 * n_low, "ConstDim needs a (value, length) pair per lower dim")
            for i in range(n_low):
                v, length = p[2 * i], p[2 * i + 1]
                need(0 <= v < length, f"constant {v} of {quote(self.lower_names[i])} must lie in [0, {length})")
        elif kind == "Xor":
            need(n_up == 2 and n_low == 2, "Xor takes two upper dims [a, b] to two lower dims [a', b']")
            need(len(p) == 2 and p[0] >= 0 and p[1] >= 0, "Xor needs {mask, shift}, both non-negative")

    # -- text -------------------------------------------------------------------------
    def __str__(self) -> str:
        params = "{" + ", ".join(map(str, self.params)) + "}" if self.params else ""
        return (
            f"<{self.kind}{params} {_names_text(self.upper_names)} at [{', '.join(map(str, self.upper_dims))}]"
            f" -> {_names_text(self.lower_names)} at [{', '.join(map(str, self.lower_dims))}]>"
        )

    # -- derived ----------------------------------------------------------------------
    @cached_property
    def merge_strides(self) -> tuple[int, ...]:
        """``S_i`` of a Merge/Unmerge: the product of the lengths after ``i``."""
        strides, s = [], 1
        for length in reversed(self.params):
            strides.append(s)
            s *= length
        return tuple(reversed(strides))

    @property
    def is_affine(self) -> bool:
        return self.kind != "Xor"

    def pairs(self) -> list[tuple[int, int]]:
        """(left/begin/length..., right/end/...) per dim for Pad, Slice and ConstDim."""
        return [(self.params[2 * i], self.params[2 * i + 1]) for i in range(len(self.params) // 2)]

    # -- evaluation -------------------------------------------------------------------
    def apply(self, upper: list[Any]) -> list[Any]:
        """Lower values (one per ``lower_dims``) from upper values (one per ``upper_dims``);
        ints or numpy arrays, floor semantics for ``floordiv`` and ``mod``."""
        kind, p = self.kind, self.params
        if kind == "PassThrough":
            return list(upper)
        if kind == "Pad":
            return [u - left for u, (left, _) in zip(upper, self.pairs())]
        if kind == "Slice":
            return [u + begin for u, (begin, _) in zip(upper, self.pairs())]
        if kind == "Embed":
            return [_linear(upper, p)]
        if kind == "Unmerge":
            return [_linear(upper, self.merge_strides)]
        if kind == "Merge":
            x, strides = upper[0], self.merge_strides
            out = [floor_div(x, strides[0])]
            rest = x - out[0] * strides[0] if strides[0] & (strides[0] - 1) else floor_mod(x, strides[0])
            for i in range(1, len(p)):
                digit = floor_div(rest, strides[i])
                out.append(digit)
                if i + 1 < len(p):
                    rest = rest - digit * strides[i] if strides[i] & (strides[i] - 1) else floor_mod(rest, strides[i])
            return out
        if kind == "AddDim":
            return []
        if kind == "Broadcast":
            return [floor_mod(u, length) for u, length in zip(upper, p)]
        if kind == "ConstDim":
            return [v for v, _ in self.pairs()]
        # Xor
        a, b = upper
        return [a ^ ((b >> p[1]) & p[0]), b]

    def expressions(self, upper: list[affine.Sum]) -> list[affine.Sum]:
        """The lower dims as affine expressions of the upper ones (LayoutError for Xor)."""
        kind, p = self.kind, self.params
        if kind == "PassThrough":
            return list(upper)
        if kind == "Pad":
            return [affine.add(u, affine.constant(-left)) for u, (left, _) in zip(upper, self.pairs())]
        if kind == "Slice":
            return [affine.add(u, affine.constant(begin)) for u, (begin, _) in zip(upper, self.pairs())]
        if kind in ("Embed", "Unmerge"):
            coefs = p if kind == "Embed" else self.merge_strides
            out = affine.constant(0)
            for u, c in zip(upper, coefs):
                out = affine.add(out, affine.mul(u, c))
            return [out]
        if kind == "Merge":
            x, s = upper[0], self.merge_strides
            out = [affine.floordiv(x, s[0])]
            for i in range(1, len(p)):
                out.append(affine.floordiv(affine.mod(x, s[i - 1]), s[i]))
            return out
        if kind == "AddDim":
            return []
        if kind == "Broadcast":
            return [affine.mod(u, length) for u, length in zip(upper, p)]
        if kind == "ConstDim":
            return [affine.constant(v) for v, _ in self.pairs()]
        raise LayoutError(f"{self}: Xor is not an affine transform and has no affine_map")

    # -- inversion --------------------------------------------------------------------
    def inverse(self, upper_sizes: dict[int, int], lower_sizes: dict[int, int]) -> Transform:
        """The transform from this one's lower dims back to its upper dims, where it is a
        bijection of the in-bounds spaces; else a LayoutError saying why."""
        kind, p = self.kind, self.params
        swap = dict(upper_names=self.lower_names, upper_dims=self.lower_dims,
                    lower_names=self.upper_names, lower_dims=self.upper_dims)
        if kind in ("PassThrough", "Xor"):
            return Transform(kind, p, **swap)
        if kind == "Merge":
            return Transform("Unmerge", p, **swap)
        if kind == "Unmerge":
            return Transform("Merge", p, **swap)
        if kind == "AddDim" and p[0] == 1:
            return Transform("ConstDim", (0, 1), **swap)
        if kind == "ConstDim" and p == (0, 1):
            return Transform("AddDim", (1,), **swap)
        if kind == "Pad" and all(x == 0 for x in p):
            return Transform("PassThrough", (), **swap)
        if kind == "Slice" and all(b == 0 and e == lower_sizes[d] for (b, e), d in zip(self.pairs(), self.lower_dims)):
            return Transform("PassThrough", (), **swap)
        if kind == "Broadcast" and all(upper_sizes[u] == length for u, length in zip(self.upper_dims, p)):
            return Transform("PassThrough", (), **swap)
        if kind == "Embed":
            order = sorted(range(len(p)), key=lambda i: -p[i])
            sizes = [upper_sizes[self.upper_dims[i]] for i in order]
            strides, s = [], 1
            for size in reversed(sizes):
                strides.append(s)
                s *= size
            if [p[i] for i in order] == list(reversed(strides)) and s == lower_sizes[self.lower_dims[0]]:
                return Transform(
                    "Merge", tuple(sizes), upper_names=self.lower_names, upper_dims=self.lower_dims,
                    lower_names=tuple(self.upper_names[i] for i in order),
                    lower_dims=tuple(self.upper_dims[i] for i in order),
                )
        raise LayoutError(f"{self}: not invertible ({kind} is not a bijection of the in-bounds spaces)")


def _linear(values: list[Any], coefs: tuple[int, ...]) -> Any:
    total: Any = 0
    for v, c in zip(values, coefs):
        if c:
            total = total + (v if c == 1 else c * v)
    return total


def _first_duplicate(items: Any) -> Any:
    seen = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    return None
