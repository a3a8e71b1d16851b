"""gpu ops of MLIR's current syntax in the simulator (subgroup ids, cluster strides,
attributions, atomics) and host functions launching kernels, each against numpy formulas."""

from __future__ import annotations

import numpy as np
import pytest

import layoutkit
from layoutkit.backends.simt import run_function
from layoutkit.cli import main
from layoutkit.errors import LayoutError

from .kernels import kernel_module

HOST = """module attributes {gpu.container_module} {
  func.func @main(%x: memref<256xf32>, %alpha: f32) -> (memref<4xf32>, f32) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %sums = memref.alloc() : memref<4xf32>
    gpu.launch_func @m::@scale blocks in (%c2, %c1, %c1) threads in (%c128, %c1, %c1) args(%x : memref<256xf32>, %alpha : f32)
    gpu.launch_func @m::@total blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1) args(%x : memref<256xf32>, %sums : memref<4xf32>)
    %s1 = memref.load %sums[%c1] : memref<4xf32>
    %twice = arith.addf %s1, %s1 : f32
    return %sums, %twice : memref<4xf32>, f32
  }
  gpu.module @m {
    gpu.func @scale(%x: memref<256xf32>, %alpha: f32) kernel {
      %i = gpu.global_id x
      %v = memref.load %x[%i] : memref<256xf32>
      %r = arith.mulf %v, %alpha : f32
      memref.store %r, %x[%i] : memref<256xf32>
      gpu.return
    }
    gpu.func @total(%x: memref<256xf32>, %sums: memref<4xf32>) kernel {
      %i = gpu.global_id x
      %b = gpu.block_id x
      %l = gpu.lane_id
      %v = memref.load %x[%i] : memref<256xf32>
      %r = gpu.subgroup_reduce add %v : (f32) -> f32
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %l, %c0 : index
      scf.if %first {
        %old = memref.atomic_rmw addf %r, %sums[%b] : (f32, memref<4xf32>) -> f32
      }
      gpu.return
    }
  }
}
"""


def test_host_function_launches_two_kernels_in_order():
    x = np.arange(256, dtype=np.float32)
    expected_x = x * np.float32(0.5)
    reports: list = []
    sums, twice = run_function(HOST, "main", {"x": x, "alpha": 0.5}, reports=reports)
    assert np.array_equal(x, expected_x)  # scale ran first, in place
    assert np.allclose(sums, expected_x.reshape(4, 64).sum(axis=1))
    assert twice == np.float32(2) * sums[1] and twice.dtype == np.float32
    assert [r.kernel for r in reports] == ["scale", "total"]


def test_simulate_function_cli_writes_results_and_arguments(tmp_path, capsys):
    (tmp_path / "host.mlir").write_text(HOST)
    x = np.linspace(-3, 5, 256, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    code = main(["simulate", str(tmp_path / "host.mlir"), "--function", "main", "--arg",
                 f"x={tmp_path / 'x.npy'}", "--arg", "alpha=2", "--out", str(tmp_path / "res")])
    assert code == 0
    assert np.array_equal(np.load(tmp_path / "res" / "x.npy"), x * 2)
    assert np.allclose(np.load(tmp_path / "res" / "result0.npy"), (x * 2).reshape(4, 64).sum(axis=1),
                       rtol=1e-5, atol=1e-4)
    assert np.load(tmp_path / "res" / "result1.npy").shape == ()
    assert "kernel @scale" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--function", "nope"], "no host func.func named 'nope' (module has: main)"),
    (["--function", "main", "--grid", "1"], "--grid, --block and --bank-conflicts go with --kernel"),
    ([], "give one of --kernel NAME"),
    (["--function", "main", "--arg", "alpha=1e40"], "'alpha' = 1e+40 is out of range for f32"),
])
def test_simulate_function_cli_errors(tmp_path, capsys, argv, message):
    (tmp_path / "host.mlir").write_text(HOST)
    np.save(tmp_path / "x.npy", np.zeros(256, np.float32))
    code = main(["simulate", str(tmp_path / "host.mlir"), "--arg", f"x={tmp_path / 'x.npy'}", *argv])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_float_scalar_out_of_range_is_an_error_not_inf():
    module = kernel_module("%o: memref<1xf32>, %alpha: f32", "")
    with pytest.raises(LayoutError, match="out of range for f32"):
        layoutkit.simulate(module, "k", 1, 1, {"o": np.zeros(1, np.float32), "alpha": 1e40})
    layoutkit.simulate(module, "k", 1, 1, {"o": np.zeros(1, np.float32), "alpha": float("inf")})


LOOPS = {
    "for": """      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %big = arith.constant 10000000000 : index
      scf.for %i = %c0 to %big step %c1 {
      }""",
    "while": """      %t = arith.constant true
      scf.while () : () -> () {
        scf.condition(%t)
      } do {
        scf.yield
      }""",
}


@pytest.mark.parametrize("loop, line", [("for", 8), ("while", 6)])
def test_step_limit_stops_a_runaway_loop_naming_its_line(loop, line):
    module = kernel_module("%o: memref<1xf32>", LOOPS[loop])
    with pytest.raises(layoutkit.LayoutError, match=rf"scf\.{loop}.*\(line {line}\): stopped after 1001 "
                                                    r"executed ops, more than the step limit 1000"):
        layoutkit.simulate(module, "k", 1, 32, {"o": np.zeros(1, np.float32)}, max_steps=1000)


def test_step_limit_cli_and_bad_value(tmp_path, capsys):
    (tmp_path / "k.mlir").write_text(str(kernel_module("%o: memref<1xf32>", LOOPS["while"])))
    np.save(tmp_path / "o.npy", np.zeros(1, np.float32))
    base = ["simulate", str(tmp_path / "k.mlir"), "--kernel", "k", "--grid", "1", "--block", "32",
            "--arg", f"o={tmp_path / 'o.npy'}"]
    assert main([*base, "--max-steps", "500"]) == 2
    assert "more than the step limit 500" in capsys.readouterr().err
    assert main([*base, "--max-steps", "0"]) == 2
    assert "--max-steps: expected a positive integer" in capsys.readouterr().err


def test_subgroup_id_and_num_subgroups():
    module = kernel_module("%o: memref<2x96xindex>", """      %x = gpu.thread_id x
      %y = gpu.thread_id y
      %w = gpu.subgroup_id : index
      %n = gpu.num_subgroups : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c24 = arith.constant 24 : index
      %yy = arith.muli %y, %c24 : index
      %t = arith.addi %x, %yy : index
      memref.store %w, %o[%c0, %t] : memref<2x96xindex>
      memref.store %n, %o[%c1, %t] : memref<2x96xindex>""")
    out = np.zeros((2, 96), np.int64)
    layoutkit.simulate(module, "k", 1, (24, 4), {"o": out})
    linear = np.arange(96)
    assert np.array_equal(out[0], linear // 32) and np.all(out[1] == 3)


@pytest.mark.parametrize("size, stride", [(4, 2), (2, 8), (8, 1), (4, 8)])
def test_subgroup_reduce_cluster_stride(size, stride):
    module = kernel_module("%x: memref<64xi32>, %o: memref<64xi32>", f"""      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xi32>
      %r = gpu.subgroup_reduce add %v cluster(size = {size}, stride = {stride}) : (i32) -> i32
      memref.store %r, %o[%t] : memref<64xi32>""")
    x = np.random.default_rng(size * stride).integers(-100, 100, 64).astype(np.int32)
    out = np.zeros(64, np.int32)
    layoutkit.simulate(module, "k", 1, 64, {"x": x, "o": out})
    lane, warp = np.arange(64) % 32, np.arange(64) // 32
    # the cluster of lane l: lanes base + k * stride, base = l with its cluster bits cleared
    base = lane - (lane // stride % size) * stride
    members = base[:, None] + np.arange(size)[None, :] * stride
    expected = x[warp[:, None] * 32 + members].sum(axis=1)
    assert np.array_equal(out, expected)


def test_workgroup_and_private_attributions():
    """Block-wide reversal through a workgroup attribution, a private scratch per thread."""
    module = layoutkit.ir.parse_module("""module {
  gpu.module @m {
    gpu.func @k(%x: memref<128xf32>, %o: memref<128xf32>) workgroup(%tile: memref<64xf32, #gpu.address_space<workgroup>>) private(%p: memref<2xf32, #gpu.address_space<private>>) kernel {
      %t = gpu.thread_id x
      %g = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c63 = arith.constant 63 : index
      %v = memref.load %x[%g] : memref<128xf32>
      memref.store %v, %p[%c0] : memref<2xf32, #gpu.address_space<private>>
      %w = memref.load %p[%c0] : memref<2xf32, #gpu.address_space<private>>
      memref.store %w, %tile[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c63, %t : index
      %u = memref.load %tile[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %u, %o[%g] : memref<128xf32>
      gpu.return
    }
  }
}
""")
    x = np.arange(128, dtype=np.float32)
    out = np.zeros(128, np.float32)
    layoutkit.simulate(module, "k", 2, 64, {"x": x, "o": out})
    assert np.array_equal(out, x.reshape(2, 64)[:, ::-1].ravel())


def _sequential(kind, dtype, initial, index, values):
    """The formula: threads update one after another in thread order."""
    ops = {"addf": np.add, "addi": np.add, "mulf": np.multiply, "maxs": np.maximum, "mins": np.minimum,
           "maxnumf": np.fmax, "minnumf": np.fmin, "andi": np.bitwise_and, "ori": np.bitwise_or,
           "xori": np.bitwise_xor, "assign": lambda a, b: b, "muli": np.multiply,
           "maxu": lambda a, b: max(a.view(np.uint32), b.view(np.uint32)).view(np.int32),
           "minu": lambda a, b: min(a.view(np.uint32), b.view(np.uint32)).view(np.int32)}
    memory, old = initial.copy(), np.zeros(len(index), dtype)
    for t, (i, v) in enumerate(zip(index, values)):
        old[t] = memory[i]
        memory[i] = ops[kind](memory[i], v)
    return memory, old


@pytest.mark.parametrize("kind, type_", [
    ("addf", "f32"), ("mulf", "f32"), ("maxnumf", "f32"), ("minnumf", "f32"), ("assign", "f32"),
    ("addi", "i32"), ("muli", "i32"), ("maxs", "i32"), ("mins", "i32"), ("maxu", "i32"),
    ("minu", "i32"), ("andi", "i32"), ("ori", "i32"), ("xori", "i32"),
])
@pytest.mark.parametrize("space", ["global", "workgroup"])
def test_atomic_rmw_in_thread_order(kind, type_, space):
    dtype = np.float32 if type_ == "f32" else np.int32
    memref = f"memref<8x{type_}>" if space == "global" else f"memref<8x{type_}, #gpu.address_space<workgroup>>"
    setup = "" if space == "global" else f"""      %buf = memref.alloc() : {memref}
      %lt8 = arith.cmpi ult, %t, %c8 : index
      scf.if %lt8 {{
        %init = memref.load %m[%t] : memref<8x{type_}>
        memref.store %init, %buf[%t] : {memref}
      }}
      gpu.barrier"""
    target = "%m" if space == "global" else "%buf"
    module = kernel_module(f"%m: memref<8x{type_}>, %v: memref<96x{type_}>, %i: memref<96xindex>, "
                           f"%old: memref<96x{type_}>", f"""      %t = gpu.thread_id x
      %c8 = arith.constant 8 : index
{setup}
      %v0 = memref.load %v[%t] : memref<96x{type_}>
      %i0 = memref.load %i[%t] : memref<96xindex>
      %o = memref.atomic_rmw {kind} %v0, {target}[%i0] : ({type_}, {memref}) -> {type_}
      memref.store %o, %old[%t] : memref<96x{type_}>""")
    rng = np.random.default_rng(len(kind))
    initial = (rng.integers(-5, 6, 8) if dtype == np.int32 else rng.normal(size=8)).astype(dtype)
    values = (rng.integers(-5, 6, 96) if dtype == np.int32 else rng.normal(size=96)).astype(dtype)
    index = rng.integers(0, 3, 96).astype(np.int64)  # many collisions on 3 addresses
    memory, old = initial.copy(), np.zeros(96, dtype)
    layoutkit.simulate(module, "k", 1, 96, {"m": memory, "v": values, "i": index, "old": old})
    want_memory, want_old = _sequential(kind, dtype, initial, index, values)
    assert np.array_equal(old, want_old)
    if space == "global":
        assert np.array_equal(memory, want_memory)


def test_atomic_counter_over_many_threads_and_blocks():
    module = kernel_module("%c: memref<1xi32>, %slot: memref<4096xi32>", """      %g = gpu.global_id x
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %o = memref.atomic_rmw addi %one, %c[%c0] : (i32, memref<1xi32>) -> i32
      %oi = arith.index_cast %o : i32 to index
      %gi = arith.index_cast %g : index to i32
      memref.store %gi, %slot[%oi] : memref<4096xi32>""")
    counter, slot = np.zeros(1, np.int32), np.full(4096, -1, np.int32)
    layoutkit.simulate(module, "k", 16, 256, {"c": counter, "slot": slot})
    assert counter[0] == 4096 and np.array_equal(slot, np.arange(4096))  # thread order
