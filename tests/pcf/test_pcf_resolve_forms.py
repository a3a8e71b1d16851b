"""pcf-resolve-clusters on the executor forms beyond the basic one: read-only (``<-``) operands
and ``initialize`` regions (examples/pcf/clusters_readonly.mlir) and a rank-2 worker grid whose
clusters are boxes found from both ids (examples/pcf/clusters_2d.mlir): resolved, lowered with
pcf-to-gpu, run in the simulator and compared with numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context

from layoutkit import LayoutError
from layoutkit.backends.simt.host import run_function
from layoutkit.cli.opt import print_ir
from layoutkit.ir import parse_module
from layoutkit.passes.pcf_resolve_clusters import PcfResolveClustersPass
from layoutkit.pipelines.compile import compile_module

EXAMPLES = Path(__file__).parents[2] / "examples" / "pcf"
RO = (EXAMPLES / "clusters_readonly.mlir").read_text()
BOXES = (EXAMPLES / "clusters_2d.mlir").read_text()


def resolve(text: str) -> str:
    module = parse_module(text)
    PcfResolveClustersPass().apply(Context(), module)
    return print_ir(module)


def lower(text: str) -> str:
    return print_ir(compile_module(parse_module(text), "pcf-to-gpu", workgroup_size="128", subgroup_size="32"))


@pytest.fixture(scope="module")
def ro_lowered() -> str:
    return lower(RO)


@pytest.fixture(scope="module")
def boxes_lowered() -> str:
    return lower(BOXES)


@pytest.mark.parametrize("h", [0, 1, 3, 4])
def test_readonly_operand_and_initialize_equal_numpy(ro_lowered, h):
    x = np.random.default_rng(h).standard_normal(32).astype(np.float32)
    y = np.full((3, 32), np.nan, np.float32)
    (result,) = run_function(ro_lowered, "ro_scale", [x, y, h, 3])
    right = np.arange(32) >= 8 * h  # subgroups [h, 4) are tg.right: columns 8 h ..
    expected = 2 * x[None, :] + np.arange(3, dtype=np.float32)[:, None] + 100 * right[None, :]
    np.testing.assert_allclose(result, expected, rtol=1e-6)


def test_readonly_operand_is_tied_and_unused_and_initialize_is_inlined():
    text = resolve(RO)
    generic = text[text.index("pcf.generic sync true"):]
    assert generic.startswith("pcf.generic sync true scope(#iree_gpu.subgroup_scope)\n")
    assert "execute(%in = %x)[%worker: index, %workers: index]" in generic
    assert "initialize" not in text and "pcf.shared_executor" not in text
    body = generic[generic.index("{"):]
    assert body.index("%two = arith.constant 2.0") < body.index("scf.index_switch")
    assert "arith.mulf %two, %xs : f32" in body and "arith.addf %sx_1, %hundred : f32" in body


def expected_boxes(h: int, v: int, rows: int) -> np.ndarray:
    """Subgroup w of the (4 x 1) grid: cluster q0 ([0, h) x [0, v)), q1 ([0, h) x [v, 1)) or
    q2 ([h, 4) x [0, 1)); it writes 1000 (cluster + 1) + 10 i + j + row, (i, j) its ids in the box."""
    out = np.empty((rows, 32), np.float32)
    for w in range(4):
        if w < h:
            k, i, j = (0 if 0 < v else 1), w, 0 - (0 if 0 < v else v)
        else:
            k, i, j = 2, w - h, 0
        for b in range(rows):
            out[b, 8 * w:8 * w + 8] = 1000 * (k + 1) + 10 * i + j + b
    return out


@pytest.mark.parametrize(("h", "v"), [(0, 0), (1, 1), (2, 0), (3, 1), (4, 1)])
def test_rank2_boxes_equal_numpy(boxes_lowered, h, v):
    y = np.full((2, 32), np.nan, np.float32)
    (result,) = run_function(boxes_lowered, "boxes", [y, h, v, 2])
    np.testing.assert_array_equal(result, expected_boxes(h, v, 2))


def test_rank2_cluster_index_uses_both_ids():
    text = resolve(BOXES)
    for name in ("tg_q1", "tg_q2"):
        assert f"arith.cmpi ule, %{name}_lo0, %worker : index" in text
        assert f"arith.cmpi ule, %{name}_lo1, %worker1 : index" in text
        assert f"arith.cmpi ult, %worker1, %{name}_hi1 : index" in text
    assert "%j = arith.subi %worker1, %tg_q0_lo1 : index" in text


def test_initialize_that_writes_memory_is_a_layout_error():
    text = RO.replace("      %hundred = arith.constant 100.0 : f32\n",
                      "      %hundred = arith.constant 100.0 : f32\n      %z = arith.constant 0 : index\n"
                      "      memref.store %two, %x[%z] : memref<32xf32>\n")
    with pytest.raises(LayoutError, match="the initialize region writes memory \\(memref.store\\)"):
        resolve(text)
