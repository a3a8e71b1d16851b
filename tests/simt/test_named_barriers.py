"""Named barriers (nvvm.barrier / nvvm.barrier.arrive = PTX bar.sync / bar.arrive) between
warps that run different code: exact results against numpy, a missing wait reported as a
race, a barrier nobody completes reported as a deadlock (never a hang), CUDA emission."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.backends.simt import SimulationError
from layoutkit.cli.opt import print_ir
from layoutkit.ir import parse_module

EXAMPLE = Path(__file__).parents[2] / "examples" / "kernels" / "producer_consumer.mlir"
WAIT = "nvvm.barrier id = %full number_of_threads = %n"


def kernel(wait: str = WAIT) -> str:
    text = EXAMPLE.read_text()
    assert WAIT in text
    return text.replace(WAIT, wait)


def run(text: str, grid: int = 1, block: int = 128):
    src = np.random.default_rng(0).standard_normal(256).astype(np.float32)
    dst = np.zeros(256, np.float32)
    layoutkit.simulate(text, "pc", grid=grid, block=block, args={"src": src, "dst": dst})
    return src, dst


def test_nvvm_barrier_syntax_round_trips_as_mlir_prints_it():
    text = """builtin.module {
  func.func @f(%a: i32, %n: i32) {
    nvvm.barrier
    nvvm.barrier id = %a
    nvvm.barrier id = %a number_of_threads = %n
    nvvm.barrier.arrive id = %a number_of_threads = %n
    nvvm.barrier.arrive number_of_threads = %n
    func.return
  }
}
"""
    assert print_ir(parse_module(text)) == text


def test_barrier_arrive_needs_a_count_and_ids_are_i32():
    with pytest.raises(LayoutError, match="nvvm.barrier.arrive: number_of_threads: required"):
        parse_module("func.func @f(%a: i32) {\n  nvvm.barrier.arrive id = %a\n  return\n}").verify()


@pytest.mark.parametrize("grid", [1, 3])
def test_producer_consumer_hand_off_equals_numpy(grid):
    src, dst = run(kernel(), grid=grid)
    expected = 2 * src.reshape(4, 64)[:, ::-1].reshape(-1)
    assert np.array_equal(dst, expected)


def test_consumer_that_arrives_instead_of_waiting_races():
    with pytest.raises(SimulationError, match=r"memref.load %sh\[%j\].*data race on shared memref 'sh': "
                                              r"this thread reads \(63,\), written by thread \(63, 0, 0\)"):
        run(kernel("nvvm.barrier.arrive id = %full number_of_threads = %n"))


def test_waiting_on_a_barrier_nobody_arrives_at_is_a_deadlock_report():
    text = kernel("%c3 = arith.constant 3 : i32\n        nvvm.barrier id = %c3 number_of_threads = %n")
    line_consumer = next(i for i, s in enumerate(text.splitlines(), 1) if "id = %c3" in s)
    line_producer = next(i for i, s in enumerate(text.splitlines(), 1) if "nvvm.barrier id = %empty" in s)
    with pytest.raises(SimulationError) as err:
        run(text)
    message = str(err.value)
    assert "deadlock: no warp can go on" in message
    assert f"warps 2, 3 wait at nvvm.barrier (line {line_consumer}) on barrier 3 (64 of 128 threads arrived)" in message
    assert f"warps 0, 1 wait at nvvm.barrier (line {line_producer}) on barrier 2 (64 of 128 threads arrived)" in message


def test_counts_that_never_fill_are_a_deadlock_too():
    # 256 threads expected, but warps 4-7 of the 256-thread block take empty cases: the
    # producer and consumer (2 warps each) wait forever at 128 of 256
    text = kernel().replace("%n = arith.constant 128 : i32", "%n = arith.constant 256 : i32")
    text = text.replace("    default {", "    case 2 {\n      scf.yield\n    }\n    case 3 {\n      scf.yield\n"
                        "    }\n    default {")
    with pytest.raises(SimulationError, match=r"deadlock: .*warps 0, 1 wait .* \(128 of 256 threads arrived\)"):
        run(text, block=256)


def test_a_warp_arriving_twice_before_completion_is_reported():
    # the consumer never arrives at 'empty': the producer's second sync finds its own arrival
    text = kernel().replace("        nvvm.barrier.arrive id = %empty number_of_threads = %n\n", "", 1)
    text = text.replace("nvvm.barrier id = %empty number_of_threads = %n",
                        "nvvm.barrier.arrive id = %empty number_of_threads = %n")
    with pytest.raises(SimulationError, match=r"warp 0 arrives at barrier 2 again before it completed "
                                              r"\(64 of 128 threads arrived\)"):
        run(text)


def test_count_must_be_whole_warps():
    text = kernel().replace("%n = arith.constant 128 : i32", "%n = arith.constant 100 : i32")
    with pytest.raises(SimulationError, match="number_of_threads 100 must be a positive multiple of the warp size 32"):
        run(text)


def test_full_block_named_barrier_orders_like_gpu_barrier():
    """Every warp syncing barrier 0 of the whole block: thread t reads what thread 63 - t wrote."""
    text = """gpu.module @kernels {
  gpu.func @k(%out: memref<64xf32>) kernel {
    %t = gpu.thread_id x
    %c63 = arith.constant 63 : index
    %sh = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %i = arith.index_cast %t : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %sh[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    BARRIER
    %j = arith.subi %c63, %t : index
    %v = memref.load %sh[%j] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%t] : memref<64xf32>
    gpu.return
  }
}"""
    for barrier in ("nvvm.barrier", "%z = arith.constant 0 : i32\n    %n = arith.constant 64 : i32\n"
                                    "    nvvm.barrier id = %z number_of_threads = %n"):
        out = np.zeros(64, np.float32)
        layoutkit.simulate(text.replace("BARRIER", barrier), "k", grid=1, block=64, args={"out": out})
        assert np.array_equal(out, np.arange(63, -1, -1, dtype=np.float32))
    with pytest.raises(SimulationError, match="data race"):
        layoutkit.simulate(text.replace("BARRIER", ""), "k", grid=1, block=64, args={"out": out})


def test_cli_reports_the_race_on_one_line_with_status_2(tmp_path):
    np.save(tmp_path / "src.npy", np.zeros(256, np.float32))
    np.save(tmp_path / "dst.npy", np.zeros(256, np.float32))
    broken = tmp_path / "broken.mlir"
    broken.write_text(kernel("nvvm.barrier.arrive id = %full number_of_threads = %n"))
    run_ = subprocess.run([sys.executable, "-m", "layoutkit", "simulate", str(broken), "--kernel", "pc",
                           "--grid", "1", "--block", "128", "--arg", f"src={tmp_path / 'src.npy'}",
                           "--arg", f"dst={tmp_path / 'dst.npy'}"], capture_output=True, text=True, timeout=120)
    assert run_.returncode == 2
    assert run_.stderr.count("\n") == 1 and run_.stderr.startswith("error: kernel @pc:")
    assert "data race" in run_.stderr


def test_cuda_emits_bar_sync_and_bar_arrive_and_nvrtc_compiles_it():
    from layoutkit.backends.cuda import emit_cuda
    from layoutkit.backends.cuda.compile import compile_cuda, nvrtc_available

    source = emit_cuda(parse_module(kernel()))
    assert 'asm volatile("bar.sync %0, %1;" :: "r"(int(2)), "r"(int(128)) : "memory");' in source
    assert 'asm volatile("bar.arrive %0, %1;" :: "r"(int(1)), "r"(int(128)) : "memory");' in source
    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    compile_cuda(source, "sm_80", compiler="nvrtc")


CLOCKS = """gpu.module @kernels {
  gpu.func @k(%out: memref<64xi32>) kernel {
    %t = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %w = arith.divui %t, %c32 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 64 : i32
    scf.index_switch %w
    case 0 {
      %a1 = arith.addi %one, %one : i32
      %a2 = arith.addi %a1, %one : i32
      %a3 = arith.addi %a2, %one : i32
      %a4 = arith.addi %a3, %one : i32
      %a5 = arith.addi %a4, %one : i32
      nvvm.barrier.arrive id = %one number_of_threads = %n
      scf.yield
    }
    default {
      nvvm.barrier id = %one number_of_threads = %n
      %b1 = arith.addi %one, %one : i32
      %b2 = arith.addi %b1, %one : i32
      %b3 = arith.addi %b2, %one : i32
      scf.yield
    }
    gpu.return
  }
}"""


def test_critical_path_counts_each_warps_ops_and_its_waits():
    """6 ops before the switch (the switch included). Warp 0: 5 adds + arrive (clock 12),
    yield, return: 14. Warp 1 waits (clock 7) until warp 0 arrived at 12, then 3 adds, yield,
    return: 17 (without the wait it would be 12)."""
    report = layoutkit.simulate(CLOCKS, "k", grid=1, block=64, args={"out": np.zeros(64, np.int32)})
    assert report.critical_path == 17
    assert report.barrier_arrivals == 2


def test_critical_path_without_divergence_is_every_op():
    text = CLOCKS.replace("    scf.index_switch %w", "    nvvm.barrier id = %one number_of_threads = %n\n"
                          "    scf.index_switch %c32")  # uniform: no fibers, every warp runs case default
    report = layoutkit.simulate(text, "k", grid=1, block=64, args={"out": np.zeros(64, np.int32)})
    assert report.critical_path == report.ops
