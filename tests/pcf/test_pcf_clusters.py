"""Seed 002's warp-specialization examples end to end: clusters resolved (pcf-resolve-clusters),
lowered with pcf-to-gpu, run in the simulator against numpy's matmul, CUDA compiled with
NVRTC; and their broken variants reported (a missing wait -> race, a barrier nobody
completes -> deadlock, a run_thread reading another cluster's payload -> verifier error)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from layoutkit import LayoutError
from layoutkit.backends.simt import SimulationError
from layoutkit.backends.simt.host import run_function
from layoutkit.cli.opt import print_ir
from layoutkit.ir import parse_module
from layoutkit.pipelines.compile import compile_module

EXAMPLES = Path(__file__).parents[2] / "examples" / "pcf"
WS = (EXAMPLES / "warp_specialized.mlir").read_text()
PP = (EXAMPLES / "ping_pong.mlir").read_text()
CONSUMER_WAIT = "              nvvm.barrier id = %full number_of_threads = %threads\n"
SYNC = "\n            nvvm.barrier id = %one number_of_threads = %threads\n"  # the shear (not the loop's)


def lower(text: str) -> str:
    module = compile_module(parse_module(text), "pcf-to-gpu", workgroup_size="128", subgroup_size="32")
    return print_ir(module)


def run(lowered: str, function: str, tm: int, k: int):
    rng = np.random.default_rng(tm * 100 + k)
    a = rng.standard_normal((4 * tm, k)).astype(np.float32)
    b = rng.standard_normal((k, 32)).astype(np.float32)
    c = np.full((4 * tm, 32), np.nan, np.float32)
    (result,) = run_function(lowered, function, [a, b, c, tm])
    return a, b, result


@pytest.fixture(scope="module")
def ws_lowered() -> str:
    return lower(WS)


@pytest.fixture(scope="module")
def pp_lowered() -> str:
    return lower(PP)


@pytest.mark.parametrize(("tm", "k"), [(1, 8), (3, 24), (2, 40)])
def test_warp_specialized_matmul_equals_numpy(ws_lowered, tm, k):
    a, b, c = run(ws_lowered, "ws_matmul", tm, k)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("tm", "k"), [(1, 8), (3, 24), (2, 40)])
def test_ping_pong_matmul_equals_numpy(pp_lowered, tm, k):
    a, b, c = run(pp_lowered, "pp_matmul", tm, k)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_ping_pong_without_the_shear_computes_the_same():
    """Both halves in lockstep (no extra syncs): the same product, phases not overlapped."""
    assert PP.count(SYNC) == 2
    unsheared = PP.replace(SYNC, "\n")
    a, b, c = run(lower(unsheared), "pp_matmul", 2, 16)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_resolution_gives_one_switch_case_per_cluster_with_the_barriers(ws_lowered):
    kernel = ws_lowered[ws_lowered.index("gpu.func"):]
    assert kernel.count("scf.index_switch") == 1
    case0, case1 = kernel.split("case 1 {")
    assert "nvvm.barrier.arrive id = %full" in case0 and "nvvm.barrier id = %empty" in case0
    assert "nvvm.barrier id = %full" in case1 and "nvvm.barrier.arrive id = %empty" in case1
    assert "pcf." not in ws_lowered


def test_consumer_that_forgets_to_wait_is_a_race():
    assert WS.count(CONSUMER_WAIT) == 1
    broken = lower(WS.replace(CONSUMER_WAIT, CONSUMER_WAIT.replace("nvvm.barrier", "nvvm.barrier.arrive")))
    with pytest.raises(SimulationError, match=r"vector.transfer_read %b_s.*data race on shared memref 'b_s': "
                                              r"this thread reads \(0, 0, 0\), written by thread \(0, 0, 0\)"):
        run(broken, "ws_matmul", 1, 16)


def test_a_half_left_waiting_is_a_deadlock_report():
    """tg.ping without its last sync: tg.pong's last bar.sync waits for 128 threads, 64 come."""
    broken_text = PP.replace(SYNC + "            %orow", "\n            %orow", 1)
    assert broken_text.count(SYNC) == 1
    broken = lower(broken_text)
    with pytest.raises(SimulationError) as err:
        run(broken, "pp_matmul", 1, 8)
    message = str(err.value)
    assert "deadlock: no warp can go on: warps 2, 3 wait at nvvm.barrier (line " in message
    assert "on barrier 1 (64 of 128 threads arrived)" in message


def test_run_thread_reading_another_clusters_payload_is_a_verifier_error(tmp_path):
    left = "!pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.load>"
    right = "!pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.compute>"
    leaking = WS.replace(
        "        pcf.shared_executor.run_thread %load : " + left + " {",
        f"        %own = pcf.shared_executor.run_thread %load : {left}\n"
        f"            -> {left[:-1]}, private(index)> {{\n        ^bb0(%tid: index):\n          pcf.yield %tid : index\n"
        f"        }}\n        pcf.shared_executor.run_thread %load : {left} {{", 1).replace(
        f"        pcf.shared_executor.run_thread %compute : {right} {{\n        ^bb0(%w: index):",
        f"        pcf.shared_executor.run_thread %compute ins(%own : {left[:-1]}, private(index)>) : {right} {{\n"
        f"        ^bb0(%w: index, %stolen: index):", 1)
    assert "ins(%own" in leaking
    path = tmp_path / "leak.mlir"
    path.write_text(leaking)
    with pytest.raises(LayoutError, match="reads a payload of cluster tg.load from cluster tg.compute"):
        parse_module(leaking).verify()
    done = subprocess.run([sys.executable, "-m", "layoutkit", "compile", str(path), "--pipeline", "pcf-to-gpu"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert f"{path}:" in done.stderr and "error: pcf.shared_executor.run_thread: ins #0: reads a payload of " \
        "cluster tg.load from cluster tg.compute" in done.stderr


@pytest.mark.parametrize("name", ["ws", "pp"])
def test_examples_emit_cuda_that_nvrtc_compiles(name, ws_lowered, pp_lowered):
    from layoutkit.backends.cuda import emit_cuda
    from layoutkit.backends.cuda.compile import compile_cuda, nvrtc_available

    source = emit_cuda(parse_module(ws_lowered if name == "ws" else pp_lowered))
    assert "switch (cluster)" in source
    assert 'asm volatile("bar.sync %0, %1;"' in source
    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    compile_cuda(source, "sm_80", compiler="nvrtc")


def test_plain_version_equals_numpy_and_barrier_arrivals_follow_the_schedule(ws_lowered):
    """Barrier arrivals counted by warps: plain = 2 block barriers x 4 warps per K step; the
    specialized one = per step 2 warps at full (arrive) + 2 at full (wait) + 2 at empty
    (wait, from step 2) + 2 at empty (arrive, until 2 steps before the end), plus the
    executor's closing barrier (4 warps) per workgroup tile."""
    tm, k = 2, 32
    steps = k // 8
    plain = lower((EXAMPLES / "plain_matmul.mlir").read_text())
    for lowered, function, expected in ((plain, "plain_matmul", tm * steps * 2 * 4),
                                        (ws_lowered, "ws_matmul", tm * (2 * 2 * steps + 2 * 2 * (steps - 2) + 4))):
        rng = np.random.default_rng(5)
        a = rng.standard_normal((4 * tm, k)).astype(np.float32)
        b = rng.standard_normal((k, 32)).astype(np.float32)
        reports: list = []
        (c,) = run_function(lowered, function, [a, b, np.zeros((4 * tm, 32), np.float32), tm], reports=reports)
        np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
        assert reports[0].barrier_arrivals == expected


HANDOFF = (Path(__file__).parents[1] / "filecheck" / "pcf" / "resolve-clusters-handoff.mlir").read_text()


@pytest.mark.parametrize("split", [1, 2, 3])
def test_shared_payload_handed_to_another_cluster_through_workgroup_memory(split):
    """tg.left (subgroups [0, split)) yields 2 x and sum(x); every subgroup of tg.right stores
    2 x + sum(x) at 4 * its subgroup id; tg.left's slots stay untouched."""
    text = HANDOFF.replace("%h = arith.constant 1 : index", f"%h = arith.constant {split} : index")
    lowered = lower(text)
    x = np.array([1.5, -2.0, 3.25, 4.0], np.float32)
    out = np.full(16, -1, np.float32)
    run_function(lowered, "handoff", [x, out, 1])
    expected = np.full((4, 4), -1, np.float32)
    expected[split:] = 2 * x + x.sum()
    np.testing.assert_array_equal(out, expected.reshape(-1))
    from layoutkit.backends.cuda import emit_cuda
    from layoutkit.backends.cuda.compile import compile_cuda, nvrtc_available

    if nvrtc_available():
        compile_cuda(emit_cuda(parse_module(lowered)), "sm_80", compiler="nvrtc")


def test_nested_tile_group_runs_each_leaf_cluster_with_its_relative_ids():
    """4 subgroups: tg.left = [0, 3) split at 1 into tg.left.a = [0, 1), tg.left.b = [1, 3);
    tg.right = [3, 4). out[sg] = 100 + id in a, 200 + id in b, 300 + id in right; out2[sg] =
    400 + id in tg.left (run in both nested cases)."""
    text = (Path(__file__).parents[1] / "filecheck" / "pcf" / "resolve-clusters-nested.mlir").read_text()
    lowered = lower(text)
    out = np.full(4, 7, np.int64)
    out2 = np.full(4, 7, np.int64)
    run_function(lowered, "nested", [out, out2, 1])
    assert out.tolist() == [100, 200, 201, 300]
    assert out2.tolist() == [400, 401, 402, 7]


@pytest.mark.parametrize(("file", "function"), [("warp_specialized.mlir", "ws_matmul"), ("ping_pong.mlir", "pp_matmul")])
def test_examples_through_the_cli(tmp_path, file, function):
    """layoutkit compile --pipeline pcf-to-gpu, then layoutkit simulate --function: c = a @ b."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((12, 16)).astype(np.float32)
    b = rng.standard_normal((16, 32)).astype(np.float32)
    for name, value in (("a", a), ("b", b), ("c", np.zeros((12, 32), np.float32))):
        np.save(tmp_path / f"{name}.npy", value)
    cli = [sys.executable, "-m", "layoutkit"]
    out = tmp_path / "out.mlir"
    subprocess.run([*cli, "compile", str(EXAMPLES / file), "--pipeline", "pcf-to-gpu", "--workgroup-size", "128",
                    "--subgroup-size", "32", "-o", str(out)], check=True, capture_output=True, timeout=120)
    subprocess.run([*cli, "simulate", str(out), "--function", function, *(f"--arg={n}={tmp_path / n}.npy" for n in "abc"),
                    "--arg", "tm=3", "--out", str(tmp_path / "res")], check=True, capture_output=True, timeout=120)
    np.testing.assert_allclose(np.load(tmp_path / "res" / "c.npy"), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
