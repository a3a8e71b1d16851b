"""Bounds analysis (sound by enumeration), index diffs (against recomputation), the
transforming_for loop and its generated index code."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from coords_support import grid, random_chain, ref_chain_spaces

from layoutkit.coords import (
    IndexWalker,
    TopDownBuilder,
    Transform,
    TransformChain,
    TransformMap,
    out_of_bounds,
    transforming_for,
    unrolled_program,
    validity,
)
from layoutkit.core.coords.codegen import diff_program


def actual_oob(maps):
    """(left, right) sets of lowest dims that really leave the bounds, by enumeration."""
    bounds = maps[-1].lower_bounds
    left, right = set(), set()
    for point in grid(maps[0].upper_bounds):
        low = ref_chain_spaces(maps, point)[-1]
        for d, (v, size) in enumerate(zip(low, bounds)):
            if v < 0:
                left.add(d)
            if v >= size:
                right.add(d)
    return left, right


def test_seed_bounds_example(seed_filter_chain):
    oob = out_of_bounds(seed_filter_chain)
    assert oob.left_names == () and oob.right_names == ("I",)
    left, right = actual_oob(seed_filter_chain)
    assert left == set(oob.left) and right == set(oob.right)  # sound and exact here
    check = validity(seed_filter_chain)
    assert check.comparisons == 1 and str(check) == "unsigned(I) < 2"


def test_rocmlir_pad_vector_needs_one_unsigned_compare():
    m = TransformMap((Transform("Pad", (0, 8), ("x",), (0,), ("y",), (0,)),), (16,), (8,))
    check = validity(m)
    assert check.comparisons == 1 and str(check) == "unsigned(y) < 8"
    assert [bool(check.evaluate(m.apply(x))) for x in range(16)] == [x < 8 for x in range(16)]


def test_embed_rule_is_sound_where_rocmlirs_per_coefficient_rule_is_not():
    m = TransformMap((Transform("Embed", (1, 1), ("a", "b"), (0, 1), ("s",), (0,)),), (4, 4), (5,))
    # rocMLIR flags right only when some coef * upper size > lower size: 1 * 4 > 5 is false
    assert out_of_bounds(m).right == {0}
    assert actual_oob([m]) == (set(), {0})
    neg = TransformMap((Transform("Embed", (2, -1), ("a", "b"), (0, 1), ("s",), (0,)),), (3, 3), (5,))
    assert (set(out_of_bounds(neg).left), set(out_of_bounds(neg).right)) == actual_oob([neg]) == ({0}, set())


@pytest.mark.parametrize("seed", range(120))
def test_bounds_analysis_is_sound(seed):
    maps = random_chain(seed, max_points=200)
    oob = out_of_bounds(maps)
    left, right = actual_oob(maps)
    assert left <= set(oob.left) and right <= set(oob.right)
    # validity agrees with the real bounds on every point
    chain = TransformChain(tuple(maps))
    check = validity(chain)
    idx = np.indices(chain.upper_bounds).reshape(len(chain.upper_bounds), -1)
    low = [np.broadcast_to(v, idx.shape[1:]) for v in chain.apply(*list(idx))]
    inside = np.ones(idx.shape[1:], dtype=bool)
    for v, size in zip(low, chain.lower_bounds):
        inside &= (v >= 0) & (v < size)
    assert np.array_equal(np.broadcast_to(check.evaluate(low), inside.shape), inside)


# -- index diffs -------------------------------------------------------------------------------
def test_seed_embed_diff():
    b = TopDownBuilder(["d0", "d1"], [4, 16])
    b.embed("o", 0, 1024, ["d0", "d1"], [256, 1])
    m = b.get()
    for x in grid((4, 16)):
        for delta in grid((2, 4)):
            assert IndexWalker([m], x).step(delta).lower == (m.apply(*x)[0] + 256 * delta[0] + delta[1],)


def test_rocmlir_diff_vectors():
    b = TopDownBuilder(["x"], [64])
    b.merge(["l0", "l1"], [0, 1], "x", [16, 4])
    merge = b.get()
    for x in range(64):
        l0, l1 = merge.apply(x)
        assert IndexWalker([merge], (x,)).step((1,)).lower == (l0 + (l1 + 1) // 4, (l1 + 1) % 4)
    b = TopDownBuilder(["a", "b"], [3, 5])
    b.embed("e", 0, 8, ["a", "b"], [1, 1])
    w = IndexWalker([b.get()], (1, 1))
    assert w.step((1, 2)).lower[0] - w.lower[0] == 3
    b = TopDownBuilder(["a", "b"], [16, 4])
    b.unmerge("u", 0, ["a", "b"], [16, 4])
    w = IndexWalker([b.get()], (2, 1))
    assert w.step((1, 2)).lower[0] - w.lower[0] == 6


@pytest.mark.parametrize("seed", range(60))
def test_index_diffs_equal_recomputation(seed):
    maps = random_chain(seed, max_points=120)
    chain = TransformChain(tuple(maps))
    bounds = chain.upper_bounds
    starts = [np.asarray(v) for v in np.indices(bounds).reshape(len(bounds), -1)]  # every start at once
    walker = IndexWalker(chain, tuple(starts))
    for delta in grid(tuple(min(b, 3) for b in bounds)) + [tuple(-1 for _ in bounds)]:
        stepped = walker.step(delta)
        moved = IndexWalker(chain, tuple(s + d for s, d in zip(starts, delta)))
        for got, want in zip(stepped.spaces, moved.spaces):
            for g, w in zip(got, want):
                assert np.array_equal(np.broadcast_to(g, starts[0].shape), np.broadcast_to(w, starts[0].shape))
    # and one scalar walk against the per-element definitions
    point = tuple(0 for _ in bounds)
    w = IndexWalker(chain, point)
    for _ in range(5):
        w = w.step(tuple(1 for _ in bounds))
        point = tuple(p + 1 for p in point)
        assert list(w.spaces) == ref_chain_spaces(maps, point)


def test_transforming_for_seed_copy_loop(seed_filter_chain):
    b = TopDownBuilder(["d0", "d1"], [4, 16])
    b.embed("buffer", 0, 1024, ["d0", "d1"], [256, 1])
    buffer = b.get()
    chains = [seed_filter_chain, [buffer]]
    s0, s1 = 3, 40
    iterations = list(transforming_for(chains, [(s0, s1), (0, 8)], [4, 8], [1, 1]))
    assert [it.index for it in iterations] == grid((4, 8))
    for it in iterations:
        i, j = it.index
        m, k = s0 + i, s1 + j
        assert it.coords[0] == (m, k // 9, (k % 9) // 3, k % 3)
        assert it.valid[0] == (k < 18)
        assert it.coords[1] == (256 * i + 8 + j,) and it.valid[1]
    assert iterations[-1].coords[1] == (768 + 15,)  # the seed's last store
    plain = list(transforming_for(chains, [(s0, s1), (0, 8)], [4, 8], [1, 1], use_index_diffs=False))
    assert plain == iterations


def test_transforming_for_with_thread_arrays_and_strides(seed_filter_chain):
    threads = np.arange(32)
    its = list(transforming_for([seed_filter_chain], [(threads, threads % 5)], [2, 3], [4, 2]))
    for it in its:
        i, j = it.index
        k = threads % 5 + 2 * j
        assert np.array_equal(it.coords[0][1], k // 9) and np.array_equal(it.coords[0][3], k % 3)
        assert np.array_equal(it.coords[0][0], threads + 4 * i)


def _random_loop_chains(seed):
    maps = random_chain(seed, max_points=150)
    return TransformChain(tuple(maps))


@pytest.mark.parametrize("seed", range(25))
def test_generated_python_matches_transforming_for(seed):
    chain = _random_loop_chains(seed)
    rank = len(chain.upper_bounds)
    bounds = tuple([2, 3, 2][:rank])
    strides = tuple([1, 2, 1][:rank])
    start = tuple(range(rank))
    want = list(transforming_for([chain], [start], bounds, strides, use_index_diffs=False))
    for diffs in (False, True):
        program = unrolled_program([chain], bounds, strides, use_index_diffs=diffs)
        namespace: dict = {}
        exec(program.python(), namespace)
        got = namespace[program.name](*start)
        assert [g[0] for g in got] == [it.index for it in want]
        assert [g[1][0] for g in got] == [it.coords[0] for it in want]
        assert [bool(g[1][1]) for g in got] == [bool(it.valid[0]) for it in want]


def test_diffs_remove_the_repeated_divisions(seed_filter_chain):
    b = TopDownBuilder(["d0", "d1"], [4, 16])
    b.embed("buffer", 0, 1024, ["d0", "d1"], [256, 1])
    chains = [seed_filter_chain, [b.get()]]
    full = unrolled_program(chains, [4, 8], [1, 1], use_index_diffs=False).op_counts()
    diff = unrolled_program(chains, [4, 8], [1, 1], use_index_diffs=True).op_counts()
    assert full["div/mod"] == 32 * 4  # every iteration re-evaluates the Merge
    assert diff["div/mod"] == 4  # only the first one does
    assert diff["mul"] < full["mul"]


def test_generated_c_compiles_and_agrees(tmp_path, seed_filter_chain):
    b = TopDownBuilder(["d0", "d1"], [4, 16])
    b.embed("buffer", 0, 1024, ["d0", "d1"], [256, 1])
    chains = [seed_filter_chain, [b.get()]]
    starts = [(3, 11), (0, 8)]
    want = list(transforming_for(chains, starts, [4, 8], [1, 1]))
    for diffs in (False, True):
        program = unrolled_program(chains, [4, 8], [1, 1], use_index_diffs=diffs)
        n = program.output_count
        main = (program.c() + "#include <stdio.h>\n"
                f"int main(void) {{ long long out[{n}];\n  {program.name}(3, 11, 0, 8, out);\n"
                f"  for (int i = 0; i < {n}; i++) printf(\"%lld\\n\", out[i]);\n  return 0; }}\n")
        source = tmp_path / f"body{int(diffs)}.c"
        source.write_text(main)
        exe = tmp_path / f"body{int(diffs)}"
        subprocess.run(["cc", "-O1", "-o", str(exe), str(source)], check=True)
        values = [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
        flat = [v for it in want for coords, valid in zip(it.coords, it.valid) for v in (*coords, int(valid))]
        assert values == flat


def test_diff_program_for_one_step(seed_filter_chain):
    program, space_vars = diff_program(seed_filter_chain, (0, 1))
    assert space_vars[-1] == ["O", "I", "H", "W"]
    namespace: dict = {}
    exec(program.python(), namespace)
    for m, k in grid((2, 20)):
        spaces = IndexWalker(seed_filter_chain, (m, k)).spaces
        args = [v for space in spaces for v in space]
        ((_, (coords, _)),) = namespace[program.name](*args)
        assert coords == IndexWalker(seed_filter_chain, (m, k + 1)).lower
    assert program.op_counts()["div/mod"] == 0
