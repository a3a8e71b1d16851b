"""Private accesses of batched loops indexed by their induction variables
(``%acc[%mi, %ni, 0, 0]``) move strided views of the (elements, threads) data
(Machine.row_view): the outputs, counts and errors are those of the run one iteration at a
time and of a numpy formula written here."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutkit
from layoutkit.backends.simt.machine import Machine, progression

from .kernels import kernel_module


def grid_list(first: int, levels) -> list[int]:
    """``first`` plus a row-major grid of (count, step) levels, by brute force."""
    out = [first]
    for count, step in levels:
        out = [x + i * step for x in out for i in range(count)]
    return out


@settings(max_examples=150, deadline=None)
@given(first=st.integers(0, 50), outer=st.tuples(st.integers(1, 6), st.integers(-9, 40)),
       inner=st.tuples(st.integers(1, 6), st.integers(-9, 40)))
def test_progression_recovers_grids(first, outer, inner):
    starts = grid_list(first, [outer, inner])
    found = progression(starts)
    assert found is not None
    assert grid_list(*found) == starts


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=12))
def test_progression_is_exact_or_none(starts):
    found = progression(starts)
    if found is not None:
        assert grid_list(*found) == starts
    if len(set(np.diff(starts).tolist())) <= 1:  # an arithmetic progression is found
        assert found is not None


# thread t writes acc[mi, ni, r, e] = t + w[mi, ni] + 10 * r + e (w = 1000 * mi + 100 * ni) in one nest,
# adds 0.5 to it in a nest with the loops swapped, and copies it out in a third
BODY = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %h = arith.constant dense<0.5> : vector<3x2xf32>
      %zero = arith.constant dense<0.0> : vector<3x2xf32>
      %base = arith.constant dense<[[0.0, 1.0], [10.0, 11.0], [20.0, 21.0]]> : vector<3x2xf32>
      %acc = memref.alloca() : memref<4x8x3x2xf32>
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %tf = arith.sitofp %ti : i32 to f32
      %tv = vector.broadcast %tf : f32 to vector<3x2xf32>
      scf.for %mi = %c0 to %c4 step %c1 {
        scf.for %ni = %c0 to %c8 step %c1 {
          vector.store %zero, %acc[%mi, %ni, %c0, %c0] : memref<4x8x3x2xf32>, vector<3x2xf32>
        }
      }
      scf.for %mi = %c0 to %c4 step %c1 {
        scf.for %ni = %c0 to %c8 step %c1 {
          %mnv = vector.load %g[%mi, %ni, %c0, %c0] : memref<4x8x3x2xf32>, vector<3x2xf32>
          %old = vector.load %acc[%mi, %ni, %c0, %c0] : memref<4x8x3x2xf32>, vector<3x2xf32>
          %s0 = arith.addf %tv, %mnv : vector<3x2xf32>
          %s1 = arith.addf %s0, %base : vector<3x2xf32>
          %s = arith.addf %s1, %old : vector<3x2xf32>
          vector.store %s, %acc[%mi, %ni, %c0, %c0] : memref<4x8x3x2xf32>, vector<3x2xf32>
        }
      }
      scf.for %ni = %c0 to %c8 step %c1 {
        scf.for %mi = %c0 to %c4 step %c1 {
          %v = vector.load %acc[%mi, %ni, %c0, %c0] : memref<4x8x3x2xf32>, vector<3x2xf32>
          %w = arith.addf %v, %h : vector<3x2xf32>
          vector.store %w, %acc[%mi, %ni, %c0, %c0] : memref<4x8x3x2xf32>, vector<3x2xf32>
        }
      }
      scf.for %mi = %c0 to %c4 step %c1 {
        scf.for %ni = %c0 to %c8 step %c2 {
          %v = vector.load %acc[%mi, %ni, %c0, %c0] : memref<4x8x3x2xf32>, vector<3x2xf32>
          %ni1 = arith.addi %ni, %c1 : index
          %u = vector.load %acc[%mi, %ni1, %c0, %c0] : memref<4x8x3x2xf32>, vector<3x2xf32>
          vector.store %v, %o[%mi, %ni, %t, %c0, %c0] : memref<4x8x64x3x2xf32>, vector<3x2xf32>
          vector.store %u, %o[%mi, %ni1, %t, %c0, %c0] : memref<4x8x64x3x2xf32>, vector<3x2xf32>
        }
      }
      %rev = arith.constant 3 : index
      scf.for %mi = %c0 to %c4 step %c1 {
        %back = arith.subi %rev, %mi : index
        %v = vector.load %acc[%back, %c3, %c0, %c0] : memref<4x8x3x2xf32>, vector<3x2xf32>
        vector.store %v, %p[%mi, %t, %c0, %c0] : memref<4x64x3x2xf32>, vector<3x2xf32>
      }
"""
SIGNATURE = "%o: memref<4x8x64x3x2xf32>, %p: memref<4x64x3x2xf32>, %g: memref<4x8x3x2xf32>"


def expected(threads: int) -> tuple[np.ndarray, np.ndarray]:
    mi, ni, t, r, e = np.meshgrid(np.arange(4), np.arange(8), np.arange(64), np.arange(3), np.arange(2),
                                  indexing="ij")
    acc = (t + 1000 * mi + 100 * ni + 10 * r + e + 0.5).astype(np.float32)
    acc[:, :, threads:] = 0
    p = acc[::-1, 3]
    return acc, p


@pytest.mark.parametrize("threads", [64, 48])  # (48: a partial block, the general path)
def test_nested_batched_private_accesses_equal_sequential_and_numpy(threads, monkeypatch):
    views = []
    row_view = Machine.row_view

    def counted(self, *args):
        views.append(row_view(self, *args))
        return views[-1]

    monkeypatch.setattr(Machine, "row_view", counted)
    module = kernel_module(SIGNATURE, BODY)
    mi, ni = np.meshgrid(np.arange(4), np.arange(8), indexing="ij")
    w = np.broadcast_to((1000 * mi + 100 * ni)[..., None, None], (4, 8, 3, 2)).astype(np.float32)
    reports, outputs = [], []
    for batch in (False, True):
        o = np.zeros((4, 8, 64, 3, 2), np.float32)
        p = np.zeros((4, 64, 3, 2), np.float32)
        reports.append(layoutkit.simulate(module, "k", 1, threads, {"o": o, "p": p, "g": w}, batch_loops=batch))
        outputs.append((o, p))
    want_o, want_p = expected(threads)
    for o, p in outputs:
        assert np.array_equal(o, want_o)
        assert np.array_equal(p, want_p)
    assert (reports[0].ops, reports[0].thread_instructions) == (reports[1].ops, reports[1].thread_instructions)
    if threads == 64:  # the strided views were used, for loads and for stores
        assert sum(view is not None and view[1] for view in views) >= 6


def test_batched_private_access_out_of_bounds_reports_like_sequential():
    body = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c5 = arith.constant 5 : index
      %z = arith.constant dense<1.0> : vector<2xf32>
      %acc = memref.alloca() : memref<4x2xf32>
      scf.for %i = %c0 to %c5 step %c1 {
        vector.store %z, %acc[%i, %c0] : memref<4x2xf32>, vector<2xf32>
      }"""
    errors = []
    for batch in (False, True):
        with pytest.raises(layoutkit.LayoutError, match="out of bounds") as caught:
            layoutkit.simulate(kernel_module("%o: memref<4xf32>", body), "k", 1, 32,
                               {"o": np.zeros(4, np.float32)}, batch_loops=batch)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


def test_one_module_run_at_several_block_sizes_keeps_exact_views():
    """The views' grids are kept with the kernel by the indices' values and the slot and
    column counts: other block sizes (other columns) get their own."""
    module = kernel_module(SIGNATURE, BODY)
    mi, ni = np.meshgrid(np.arange(4), np.arange(8), indexing="ij")
    w = np.broadcast_to((1000 * mi + 100 * ni)[..., None, None], (4, 8, 3, 2)).astype(np.float32)
    for threads in (64, 32, 64, 16):
        o = np.zeros((4, 8, 64, 3, 2), np.float32)
        p = np.zeros((4, 64, 3, 2), np.float32)
        layoutkit.simulate(module, "k", 1, threads, {"o": o, "p": p, "g": w})
        want_o, want_p = expected(threads)
        assert np.array_equal(o, want_o), threads
        assert np.array_equal(p, want_p), threads


# a sequential loop of 3 steps around a batched nest that adds (step + 1) to acc[mi, ni]
# (the mma loop's accumulator pattern: each step loads what the previous one stored);
# SPLIT is replaced by a store between the steps, through another path, or by nothing
STEPS = """
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %one = arith.constant dense<1.0> : vector<2xf32>
      %zero = arith.constant dense<0.0> : vector<2xf32>
      %seven = arith.constant 7.0 : f32
      %acc = memref.alloca() : memref<4x3x2xf32>
      %t = gpu.thread_id x
      scf.for %i = %c0 to %c4 step %c1 {
        scf.for %j = %c0 to %c3 step %c1 {
          vector.store %zero, %acc[%i, %j, %c0] : memref<4x3x2xf32>, vector<2xf32>
        }
      }
      %z = arith.constant 0 : i64
      %last = scf.for %s = %c0 to %c3 step %c1 iter_args(%carry = %z) -> (i64) {
        %s1 = arith.addi %s, %c1 : index
        %si = arith.index_cast %s1 : index to i32
        %sf = arith.sitofp %si : i32 to f32
        %sv = vector.insert %sf, %zero [0] : f32 into vector<2xf32>
        %add = vector.insert %sf, %sv [1] : f32 into vector<2xf32>
        scf.for %i = %c0 to %c4 step %c1 {
          scf.for %j = %c0 to %c3 step %c1 {
            %v = vector.load %acc[%i, %j, %c0] : memref<4x3x2xf32>, vector<2xf32>
            %w = arith.addf %v, %add : vector<2xf32>
            vector.store %w, %acc[%i, %j, %c0] : memref<4x3x2xf32>, vector<2xf32>
          }
        }
SPLIT
        scf.yield %carry : i64
      }
      scf.for %i = %c0 to %c4 step %c1 {
        scf.for %j = %c0 to %c3 step %c1 {
          %v = vector.load %acc[%i, %j, %c0] : memref<4x3x2xf32>, vector<2xf32>
          vector.store %v, %o[%i, %j, %t, %c0] : memref<4x3x32x2xf32>, vector<2xf32>
        }
      }
"""


@pytest.mark.parametrize("split, extra", [
    ("", 0.0),
    # thread 0 stores 7 at acc[1, 1, 0] after each step: the next step must load it
    ("""        %first = arith.cmpi eq, %t, %c0 : index
        scf.if %first {
          memref.store %seven, %acc[%c1, %c1, %c0] : memref<4x3x2xf32>
        }""", 7.0),
    # a use of acc that is neither a load nor a store: nothing is forwarded
    ("""        %d = memref.dim %acc, %c0 : memref<4x3x2xf32>""", 0.0),
])
def test_stores_forwarded_to_the_next_steps_loads_are_exact(split, extra, monkeypatch):
    forwarded = []
    rows_stored = Machine.rows_stored

    def counted(self, *args):
        found = rows_stored(self, *args)
        forwarded.append(found is not None)
        return found

    monkeypatch.setattr(Machine, "rows_stored", counted)
    module = kernel_module("%o: memref<4x3x32x2xf32>", STEPS.replace("SPLIT", split))
    outs = []
    for batch in (False, True):
        o = np.zeros((4, 3, 32, 2), np.float32)
        layoutkit.simulate(module, "k", 1, 32, {"o": o}, batch_loops=batch)
        outs.append(o)
    want = np.full((4, 3, 32, 2), 1.0 + 2.0 + 3.0, np.float32)
    if extra:  # thread 0's acc[1, 1, 0]: 7 after step 1, + 2 + 3 (the last step's 7 stays)
        want[1, 1, 0, 0] = 7.0
    assert np.array_equal(outs[0], want)
    assert np.array_equal(outs[1], want)
    assert any(forwarded) == (split == "")  # steps 2 and 3 read step 1's and 2's stores


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=6), st.integers(1, 4), st.booleans())
def test_grouped_finds_values_equal_within_groups(values, width, spoil):
    """Machine.grouped against a Python check of each group (on a stand-in machine)."""
    import types

    array = np.repeat(np.array(values, np.int64), width)
    if spoil and width > 1:
        array[-1] += 1  # the last group is no longer equal
    noted = []
    machine = types.SimpleNamespace(_grouped={}, note_iterations=lambda *args: noted.append(args))
    found = Machine.grouped(machine, array, width)
    groups = [array[i:i + width].tolist() for i in range(0, array.size, width)]
    if all(len(set(g)) == 1 for g in groups):
        assert found is not None and found[1] == width
        assert found[0].tolist() == [g[0] for g in groups]
        assert noted and noted[0][0] is array
    else:
        assert found is None and not noted
    assert Machine.grouped(machine, array, width) is found  # kept
