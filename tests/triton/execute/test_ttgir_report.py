"""The measured cost report of a TTGIR run (``simulate(..., report=True)``, ``--report``):
rows agree with ``layoutkit analyze`` on launches where no lane is masked, sectors equal a
brute-force count over the real addresses (masked tails included), and executions follow
the grid and the loops' trip counts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import layoutkit
from layoutkit.cli import main
from layoutkit.ir import parse_module
from layoutkit.triton import analyze

GOLDENS = Path(__file__).parents[1] / "frontend" / "goldens"


def text(kernel: str, target: str = "cuda-80") -> str:
    return (GOLDENS / kernel / f"full.{target}.ttgir").read_text()


def analyzed(source: str) -> dict:
    """analyze's rows by (op, ir_line)."""
    return {(r.op, r.ir_line): r for r in analyze(source).rows}


def brute_sectors(table: np.ndarray, element_address, active, vector: int) -> int:
    """Distinct 32-byte sectors per (block, warp, vector instruction) over active lanes, by
    Python sets: instruction i of a thread starts at register i * vector (vectors of
    consecutive registers). ``table`` (registers, lanes, warps, 1, rank); element_address
    and active map (block, coords) to a byte address / whether the lane accesses it."""
    registers, lanes, warps = table.shape[:3]
    total = 0
    for block, warp, first in np.ndindex(len(active), warps, registers // vector):
        sectors = set()
        for lane in range(lanes):
            coords = tuple(int(c) for c in table[first * vector, lane, warp, 0])
            if active[block](coords):
                sectors.add(element_address(block, coords) // 32)
        total += len(sectors)
    return total


@pytest.mark.parametrize("target", ["cuda-80", "cuda-90"])
def test_vector_add_rows_agree_with_analyze_and_brute_force(target):
    source = text("vector_add", target)
    static = analyzed(source)
    x = np.ones(2048, np.float32)
    result = layoutkit.simulate(source, "vector_add", grid=2, args=[x, x.copy(), np.zeros_like(x), 2048],
                                report=True)
    rows = [r for r in result.report.rows if r["op"] in ("tt.load", "tt.store")]
    assert len(rows) == 3
    for row in rows:
        expected = static[(row["op"], row["ir_line"])].cost
        assert row["executions"] == 2
        assert row["global"]["per_execution"] == expected["sectors"]  # 512: vec 1, 16 per request
        assert row["global"]["minimum_sectors"] == 2 * expected["minimum_sectors"]
        assert row["thread_instructions"] == {row["op"].replace("tt.", "").replace("load", "ld.global")
                                              .replace("store", "st.global"): 2 * 128 * expected["instructions"]}


def test_vector_add_masked_tail_sectors_equal_brute_force():
    source = text("vector_add")
    n = 3000  # the third program has 952 of its 1024 elements
    x = np.ones(n, np.float32)
    result = layoutkit.simulate(source, "vector_add", grid=3, args=[x, x.copy(), np.zeros_like(x), n], report=True)
    module = parse_module(source)
    load = next(op for op in module.walk() if op.name == "tt.load")
    table = load.ptr.type.encoding.layout.table((1024,))
    active = [lambda c, b=b: b * 1024 + c[0] < n for b in range(3)]
    expected = brute_sectors(table, lambda b, c: 4 * (b * 1024 + c[0]), active, vector=1)
    assert expected < 3 * 512  # the tail drops sectors
    for row in result.report.rows:
        if row["op"] in ("tt.load", "tt.store"):
            assert row["global"]["vector"] == 1
            assert row["global"]["sectors"] == expected


def test_vector_add_minimum_sectors_brute_force():
    """The minimum of a request is its distinct bytes / 32: 32 active lanes of 4 bytes
    each are 4 sectors; the tail's partly active requests fewer."""
    n = 3000
    x = np.ones(n, np.float32)
    result = layoutkit.simulate(text("vector_add"), "vector_add", grid=3, args=[x, x.copy(), np.zeros_like(x), n],
                                report=True)
    module = parse_module(text("vector_add"))
    table = next(op for op in module.walk() if op.name == "tt.load").ptr.type.encoding.layout.table((1024,))
    minimum = 0
    for block, warp, register in np.ndindex(3, 4, 8):
        live = sum(1 for lane in range(32) if block * 1024 + table[register, lane, warp, 0, 0] < n)
        minimum += -(-live * 4 // 32)
    load = next(r for r in result.report.rows if r["op"] == "tt.load")
    assert load["global"]["minimum_sectors"] == minimum


@pytest.mark.parametrize("m", [128, 100])
def test_hopper_matmul_rows(m):
    """sm_90 64x64x32 matmul: the copies and the epilogue store agree with analyze when no
    lane is masked; the masked store's sectors equal the brute force; in-loop ops run
    grid x trip count times; the conversion row is the plan analyze costs."""
    source = text("matmul_64x64x32", "cuda-90")
    n = k = 128
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    grid = 2 * 2
    result = layoutkit.simulate(source, "matmul", grid=grid, args=[a, b, c, m, n, k, k, n, n], report=True)
    expected = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), expected.astype(np.float32), rtol=2e-3, atol=2e-3)
    static = analyzed(source)
    rows = result.report.rows
    dots = [r for r in rows if r["op"] == "ttng.warp_group_dot"]
    assert sum(r["executions"] for r in dots) == grid * (k // 32)  # trip count x programs
    convert = next(r for r in rows if r["op"] == "ttg.convert_layout")
    cost = static[("ttg.convert_layout", convert["ir_line"])].cost
    assert convert["convert"]["kind"] == cost["kind"] and convert["convert"]["barriers"] == cost["barriers"]
    assert convert["convert"]["wavefronts"] == cost["store_wavefronts"] + cost["load_wavefronts"]
    assert convert["executions"] == grid
    store = next(r for r in rows if r["op"] == "tt.store")
    if m == 128:
        for row in rows:
            if "global" in row:
                s = static[(row["op"], row["ir_line"])].cost
                s = s.get("global", s)
                # per request: the pipelined loop's last iterations issue fully masked copies
                # (no request), which only execution knows
                assert row["global"]["sectors_per_request"] == s["sectors_per_request"], row
                assert row["global"]["minimum_per_request"] == s["minimum_per_request"], row
    module = parse_module(source)
    op = next(o for o in module.walk() if o.name == "tt.store")
    table = op.ptr.type.encoding.layout.table((64, 64))
    tiles = [(t % 2, t // 2) for t in range(grid)]  # GROUP_M = 8 > 2 row tiles: program t is tile (t % 2, t // 2)
    active = [lambda cc, t=t: t[0] * 64 + cc[0] < m and t[1] * 64 + cc[1] < n for t in tiles]
    address = lambda blk, cc: 2 * ((tiles[blk][0] * 64 + cc[0]) * n + tiles[blk][1] * 64 + cc[1])  # noqa: E731
    assert store["global"]["sectors"] == brute_sectors(table, address, active, store["global"]["vector"])


def test_cli_report_text_and_json(tmp_path, capsys):
    n = 2500
    for name in ("x", "y", "o"):
        np.save(tmp_path / f"{name}.npy", np.ones(n, np.float32))
    args = ["simulate", str(GOLDENS / "vector_add" / "full.cuda-80.ttgir"), "--kernel", "vector_add", "--grid", "3",
            "--arg", f"x_ptr={tmp_path / 'x.npy'}", "--arg", f"y_ptr={tmp_path / 'y.npy'}",
            "--arg", f"out_ptr={tmp_path / 'o.npy'}", "--arg", f"n={n}", "--report"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "triton_kernels.py:30" in out and "tt.load" in out and "hot spots" in out
    assert main([*args, "--json", "--top", "2"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["kernel"] == "vector_add" and len(data["hot_spots"]) == 2
    assert data["totals"]["global"]["sectors"] == sum(r["global"]["sectors"] for r in data["rows"] if "global" in r)
    assert "kernel @vector_add" in captured.err


def test_cli_report_needs_a_ttgir_kernel(tmp_path, capsys):
    code = main(["simulate", "examples/kernels/vector_add.mlir", "--kernel", "vector_add", "--grid", "1",
                 "--block", "32", "--report"])
    assert code == 2
    assert capsys.readouterr().err.strip() == \
        "error: --report: measures TTGIR kernels (a tt.func run with --kernel and --grid)"


def test_hopper_attention_shared_rows_agree_with_analyze():
    """Measured bank wavefronts of the shared accesses, per execution, are analyze's."""
    source = text("attention_fwd", "cuda-90")
    seq, head = 128, 64
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((seq, head)).astype(np.float16) for _ in range(3))
    out = np.zeros((seq, head), np.float16)
    result = layoutkit.simulate(source, "attention_fwd", grid=2, args=[q, k, v, out, seq, head, 0.125], report=True)
    static = analyzed(source)
    measured = [r for r in result.report.rows if r.get("shared", {}).get("measured")]
    assert measured
    for row in measured:
        cost = static[(row["op"], row["ir_line"])].cost
        assert row["shared"]["per_execution"] == cost["wavefronts"], row
        assert row["shared"]["lower_bound"] == cost["lower_bound"] * row["executions"], row


def test_reduction_instructions_follow_the_layout():
    """softmax_rows reduces 4x256 in #blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32],
    warpsPerCTA = [4, 1]}> along axis 1: 8 combines in the thread, log2(32) = 5 shuffle
    rounds, no warp exchange (each warp holds whole rows)."""
    x = np.zeros((8, 256), np.float16)
    result = layoutkit.simulate(text("softmax_rows"), "softmax_rows", grid=2, args=[x, x.copy(), 8, 256, 256],
                                report=True)
    reduces = [r for r in result.report.rows if r["op"] == "tt.reduce"]
    threads = 2 * 128
    assert [r["thread_instructions"] for r in reduces] == [{"alu": 8 * threads, "shfl": 5 * threads}] * 2


def test_reduction_across_warps_goes_through_shared_memory():
    """reduce_sum_axis0 (sm_80): the warps split axis 0, so the partial sums meet in shared memory."""
    source = text("reduce_sum_axis0")
    module = parse_module(source)
    op = next(o for o in module.walk() if o.name == "tt.reduce")
    layout = op.operands[0].type.encoding.layout
    warps_on_axis = layout.warps_per_cta[0] > 1
    x = np.ones((96, 64), np.float32)
    result = layoutkit.simulate(source, "reduce_sum_2d", grid=3, args=[x, np.zeros(3 * 64, np.float32), 64],
                                report=True)
    row = next(r for r in result.report.rows if r["op"] == "tt.reduce")
    assert ("bar.sync" in row["thread_instructions"]) == warps_on_axis


def test_loop_copies_count_every_iteration_as_analyze_does():
    """sm_80 64x64x32 matmul with K = 256 (8 iterations, their pointers stepping by whole
    sectors): every copy's requests equal analyze's per request, and the totals are
    programs x requests per execution x executions."""
    source = text("matmul_64x64x32", "cuda-80")
    size = 128
    rng = np.random.default_rng(3)
    a = rng.standard_normal((size, 256)).astype(np.float16)
    b = rng.standard_normal((256, size)).astype(np.float16)
    c = np.zeros((size, size), np.float16)
    result = layoutkit.simulate(source, "matmul", grid=4, args=[a, b, c, size, size, 256, 256, size, size],
                                report=True)
    static = analyzed(source)
    copies = [r for r in result.report.rows if r["op"] == "ttg.async_copy_global_to_local"]
    assert copies
    for row in copies:
        s = static[(row["op"], row["ir_line"])].cost
        s = s.get("global", s)
        assert row["global"]["sectors_per_request"] == s["sectors_per_request"], row
        assert row["global"]["minimum_per_request"] == s["minimum_per_request"], row
    # a 64x32 (A) or 32x64 (B) f16 tile is 4096 bytes: 128 sectors, all touched, per program
    # and copy executed (the prologue's and the loop's: 8 per program, masked ones excepted)
    assert sum(r["global"]["sectors"] for r in copies) == 2 * 4 * 8 * 128
