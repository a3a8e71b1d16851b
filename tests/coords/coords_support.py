"""Shared helpers for the coords tests: an independent scalar evaluator of transforms and a
random generator of small chains."""

from __future__ import annotations

import numpy as np
import pytest

from layoutkit.coords import TopDownBuilder, TransformMap


def ref_transform(kind: str, params: tuple, upper: list[int]) -> list[int]:
    """The transform's definition, element by element, written independently of the library."""
    if kind == "PassThrough":
        return list(upper)
    if kind == "Pad":
        return [u - params[2 * i] for i, u in enumerate(upper)]
    if kind == "Slice":
        return [u + params[2 * i] for i, u in enumerate(upper)]
    if kind == "Embed":
        return [sum(c * u for c, u in zip(params, upper))]
    if kind == "Unmerge":
        value = 0
        for u, length in zip(upper, params):
            value = value * length + u
        return [value]
    if kind == "Merge":
        x = upper[0]
        digits = []
        for length in reversed(params[1:]):
            digits.append(x % length)
            x //= length
        digits.append(x)
        return digits[::-1]
    if kind == "AddDim":
        return []
    if kind == "Broadcast":
        return [u % length for u, length in zip(upper, params)]
    if kind == "ConstDim":
        return [params[2 * i] for i in range(len(params) // 2)]
    if kind == "Xor":
        a, b = upper
        return [a ^ ((b >> params[1]) & params[0]), b]
    raise AssertionError(kind)


def ref_map(m: TransformMap, point: tuple[int, ...]) -> tuple[int, ...]:
    out = [None] * len(m.lower_bounds)
    for t in m.transforms:
        values = ref_transform(t.kind, t.params, [point[d] for d in t.upper_dims])
        for d, v in zip(t.lower_dims, values):
            out[d] = v
    return tuple(out)


def ref_chain_spaces(maps, point) -> list[tuple[int, ...]]:
    spaces = [tuple(point)]
    for m in maps:
        spaces.append(ref_map(m, spaces[-1]))
    return spaces


def grid(bounds) -> list[tuple[int, ...]]:
    return [tuple(int(v) for v in p) for p in np.ndindex(*bounds)]


def random_map(rng: np.random.Generator, names: list[str], sizes: list[int], tag: str) -> TransformMap:
    """A random top-down map from the space (names, sizes): every kind of transform."""
    b = TopDownBuilder(names, sizes)
    todo = list(names)
    rng.shuffle(todo)
    at = 0
    fresh = iter(f"{tag}{i}" for i in range(100))
    while todo:
        name = todo.pop()
        size = sizes[names.index(name)]
        choice = rng.integers(0, 9)
        if choice == 0 and todo:  # embed / unmerge two dims
            other = todo.pop()
            osize = sizes[names.index(other)]
            if rng.integers(0, 2):
                b.unmerge(next(fresh), at, [name, other], [size, osize])
            else:
                coefs = [int(rng.integers(-3, 5)), int(rng.integers(-2, 4))]
                b.embed(next(fresh), at, int(rng.integers(1, size * osize + 4)), [name, other], coefs)
            at += 1
        elif choice == 1:
            left, right = int(rng.integers(0, 3)), int(rng.integers(0, 3))
            if size - left - right >= 1:
                b.pad(next(fresh), [left, right], at=at, source=name)
            else:
                b.pass_through(next(fresh), at, name)
            at += 1
        elif choice == 2 and size > 1:
            factors = [f for f in range(2, size + 1) if size % f == 0]
            first = int(rng.choice(factors))
            lengths = [first, size // first]
            b.merge([next(fresh), next(fresh)], [at, at + 1], name, lengths)
            at += 2
        elif choice == 3:
            b.broadcast(next(fresh), int(rng.integers(1, size + 2)), at=at, source=name)
            at += 1
        elif choice == 4 and at > 0:
            b.ignore(name)
        elif choice == 5:
            begin = int(rng.integers(0, 3))
            b.slice(next(fresh), begin, begin + size + int(rng.integers(0, 3)), at=at, source=name)
            at += 1
        elif choice == 6:
            b.const_dim(next(fresh), at, int(rng.integers(0, 2)), 2)
            b.pass_through(next(fresh), at + 1, name)
            at += 2
        elif choice == 7 and todo:
            other = todo.pop()
            osize = sizes[names.index(other)]
            width = 1 << (size.bit_length() - 1)
            if size % width == 0 and width > 1:
                b.xor([next(fresh), next(fresh)], width - 1, int(rng.integers(0, 2)), at=[at, at + 1], source=[name, other])
            else:
                b.pass_through([next(fresh), next(fresh)], [at, at + 1], [name, other])
            at += 2
        else:
            b.pass_through(next(fresh), at, name)
            at += 1
    return b.get()


def random_chain(seed: int, max_points: int = 400) -> list[TransformMap]:
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 4))
    sizes = [int(rng.integers(1, 9)) for _ in range(rank)]
    while int(np.prod(sizes)) > max_points:
        sizes[int(np.argmax(sizes))] //= 2
    names = [f"u{i}" for i in range(rank)]
    maps = []
    for level in range(int(rng.integers(1, 4))):
        m = random_map(rng, names, sizes, f"s{level}_")
        maps.append(m)
        names, sizes = list(m.lower_names), list(m.lower_bounds)
        if not sizes:
            break
    return maps


@pytest.fixture
def seed_filter_chain():
    """Seed 003: Pad{0, 64 - 18} of K over the OIHW filter merged into K = (I, H, W)."""
    from layoutkit.coords import BottomUpBuilder

    b = BottomUpBuilder(["O", "I", "H", "W"], [128, 2, 3, 3])
    b.pass_through("M", 0, "O")
    b.merge("K", 1, ["I", "H", "W"])
    f2 = b.get()
    b = BottomUpBuilder.above(f2)
    b.pass_through("M")
    b.pad("Kp", [0, 64 - 18], source="K")
    return [b.get(), f2]
