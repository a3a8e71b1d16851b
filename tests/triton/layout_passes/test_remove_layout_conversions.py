"""``tritongpu-remove-layout-conversions`` (cost-model=triton) against Triton 3.9's own output of
every remove-layout-conversions step of ``goldens/manifest.json``: our pass runs on Triton's
input of the step and the result is compared as the other layout passes are (op names in
pre-order, operand wiring, every type, every encoding as parameters and as a function).

Steps that still differ are ``xfail(strict=True)`` with the reason: they fail today, and a
fix that makes one pass turns its xfail into an error until it is taken off the list."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from layoutkit.ir import make_context, parse_module
from layoutkit.passes import pass_class

sys.path.insert(0, str(Path(__file__).parent))
from test_layout_passes import compare  # noqa: E402

GOLDENS = Path(__file__).parent / "goldens"
MANIFEST = json.loads((GOLDENS / "manifest.json").read_text())
PASS = "tritongpu-remove-layout-conversions"
STEPS = [dict(step, kernel=run["kernel"], target=run["target"]) for run in MANIFEST["runs"]
         for step in run["steps"] if step["pass"] == "remove-layout-conversions"]

#: step id -> why our output still differs from Triton's
DIFFERENT = {
    **{f"{k}-{t}": "constants and the index math of the first run come out in another order"
       for k in ("matmul_64x64x32", "matmul_128x128x64") for t in ("cuda:80-04", "cuda:90-04", "hip:gfx942-03")},
    **{f"attention_fwd-{t}": "the copies of the index math of the first run come out in another number and order"
       for t in ("cuda:80-04", "cuda:90-04", "hip:gfx942-03")},
}


def _id(step) -> str:
    return f"{step['kernel']}-{step['target']}-{step['step']:02d}"


PARAMS = [pytest.param(s, id=_id(s), marks=[pytest.mark.xfail(strict=True, reason=DIFFERENT[_id(s)])]
                       if _id(s) in DIFFERENT else []) for s in STEPS]


@pytest.mark.parametrize("step", PARAMS)
def test_remove_layout_conversions_equals_triton(step):
    module = parse_module((GOLDENS / step["input"]).read_text())
    pass_class(PASS)().apply(make_context(), module)
    module.verify()
    compare(module, parse_module((GOLDENS / step["output"]).read_text()))


def test_every_kernel_has_its_remove_layout_conversions_steps():
    assert len(STEPS) == len(MANIFEST["kernels"]) * (4 + 4 + 3)  # cuda:80, cuda:90, hip:gfx942
    assert set(DIFFERENT) <= {_id(s) for s in STEPS}
    first = [s for s in STEPS if s["step"] in (3, 4)]
    assert all(s["changed"] for s in first)  # the first run always removes something
    assert len([s for s in first if _id(s) not in DIFFERENT]) >= 57


def test_ttir_input_is_one_error_line(capsys):
    from layoutkit.cli import main

    kernel = str(Path(__file__).parents[1] / "frontend" / "goldens" / "vector_add" / "kernel.ttir")
    status = main(["opt", kernel, f"--{PASS}"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert f"{PASS}: the module has no 'ttg.num-warps' attribute" in err, err


@pytest.mark.parametrize("src_shape, layout, dst_shape", [
    ((16, 64), "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>",
     (64, 16)),
    ((64, 16), "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
     (16, 64)),
    ((8, 4, 32), "#ttg.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [4, 1, 1], "
     "order = [2, 1, 0]}>", (32, 32)),
    ((32, 32), "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
     (1024,)),
])
def test_reshape_keeps_every_thread_s_elements(src_shape, layout, dst_shape):
    """The inferred result layout holds, in every register of every lane and warp, the element
    of the same row-major flat index as the source layout (a reshape moves no data)."""
    import numpy as np

    from layoutkit import parse_layout
    from layoutkit.analysis.hardware import hardware_map
    from layoutkit.triton.layout_rules import reshape_blocked

    src = parse_layout(layout)
    dst = reshape_blocked(src_shape, src, dst_shape)
    assert dst is not None
    np.testing.assert_array_equal(hardware_map(dst, dst_shape).elements, hardware_map(src, src_shape).elements)
    assert reshape_blocked(dst_shape, dst, src_shape) == src


def test_reshape_refuses_dims_merged_out_of_physical_order():
    from layoutkit import parse_layout
    from layoutkit.triton.layout_rules import reshape_blocked

    column_major = parse_layout("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
                                "order = [0, 1]}>")
    assert reshape_blocked((32, 32), column_major, (1024,)) is None
