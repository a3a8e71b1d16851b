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
DIFFERENT: dict[str, str] = {}


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
    assert len([s for s in first if _id(s) not in DIFFERENT]) >= 66


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


# -- the steps still different: the same encodings on every value --------------------------------

#: ops whose results are never index math (they read memory, reduce or combine across threads)
_NOT_INDEX = frozenset("""tt.load tt.dot tt.dot_scaled ttng.warp_group_dot tt.reduce tt.scan tt.atomic_rmw
tt.atomic_cas tt.gather tt.histogram ttg.local_load ttg.local_alloc tt.descriptor_load""".split())


def encoding_classes(module) -> dict:
    """Every encoded tensor value of ``module`` (op results and region arguments) as
    ``(index_math, kind, shape, element type) -> [layout, ...]``. ``kind`` is the defining op's
    name (``<parent op>:arg`` for a region argument); a value is index math when it is computed
    from scalars, ranges, splats and constants only (so a pass may clone it any number of times)."""
    from xdsl.dialects.builtin import NoneAttr, TensorType
    from xdsl.ir import BlockArgument

    index: dict = {}

    def is_index(value) -> bool:
        if value in index:
            return index[value]
        if isinstance(value, BlockArgument):
            result = not isinstance(value.type, TensorType)
        else:
            op = value.owner
            result = not op.regions and op.name not in _NOT_INDEX and all(is_index(v) for v in op.operands)
        index[value] = result
        return result

    classes: dict = {}
    for op in module.walk():
        values = [(op.name, r) for r in op.results]
        values += [(f"{op.name}:arg", a) for region in op.regions for block in region.blocks for a in block.args]
        for kind, value in values:
            t = value.type
            if not isinstance(t, TensorType) or isinstance(t.encoding, NoneAttr):
                continue
            key = (is_index(value), kind, tuple(t.get_shape()), str(t.element_type))
            classes.setdefault(key, []).append(t.encoding.layout)
    return classes


def encoding_differences(ours, theirs) -> list[str]:
    """Where ``ours`` and ``theirs`` do not hold the same encodings: for each kind of value
    (defining op, shape, element type), the encodings as functions on the shape
    (``layoutkit.core.protocol.equivalent``, as ``compare`` checks them) must match one to one
    -- the same number of values per function -- except index math, compared as a set of
    functions (a pass may keep several copies of it, in any order). Empty when they agree."""
    from layoutkit.core.protocol import equivalent

    mine, triton = encoding_classes(ours), encoding_classes(theirs)
    problems = []
    for key in sorted(set(mine) | set(triton), key=str):
        shape = key[2]
        functions: list[tuple[object, list[int]]] = []  # representative, [our count, Triton's count]
        for side, layouts in enumerate((mine.get(key, []), triton.get(key, []))):
            for layout in layouts:
                for rep, counts in functions:
                    if equivalent(rep, layout, shape):
                        counts[side] += 1
                        break
                else:
                    functions.append((layout, [int(side == 0), int(side == 1)]))
        for rep, (a, b) in functions:
            if (min(a, 1) != min(b, 1)) if key[0] else a != b:
                problems.append(f"{key[1]} {list(shape)}x{key[3]} in {rep}: {a} of ours, {b} of Triton's")
    return problems


#: the steps still different, and the first runs on the kernels whose index math used to come out
#: in another number and order (matched since the pass treats a convert between two encodings of
#: the same function as free): checked value for value whatever the op order
ENCODING_STEPS = [s for s in STEPS if _id(s) in DIFFERENT or s["step"] in (3, 4) and s["kernel"] in (
    "matmul_64x64x32", "matmul_128x128x64", "attention_fwd", "outer3_reduce")]


@pytest.mark.parametrize("step", ENCODING_STEPS, ids=[_id(s) for s in ENCODING_STEPS])
def test_steps_still_different_hold_triton_s_encodings(step):
    """Issue 13 asks for "the same encodings on every value": independently of the op order,
    every value of Triton's output has one of ours with the same defining op, shape and
    encoding (as a function), and every value of ours one of Triton's."""
    module = parse_module((GOLDENS / step["input"]).read_text())
    pass_class(PASS)().apply(make_context(), module)
    module.verify()
    assert encoding_differences(module, parse_module((GOLDENS / step["output"]).read_text())) == []


def _golden_output(step_id: str):
    (step,) = [s for s in STEPS if _id(s) == step_id]
    return parse_module((GOLDENS / step["output"]).read_text())


def test_encoding_differences_sees_one_changed_encoding():
    """The check can fail: one load of Triton's own output given another layout (a 1-D blocked
    one: the 8 rows over lanes instead of over warps) is reported, on both sides."""
    from layoutkit import parse_layout
    from layoutkit.triton.layout_rules import set_encoding

    theirs, ours = _golden_output("outer3_reduce-cuda:80-04"), _golden_output("outer3_reduce-cuda:80-04")
    assert encoding_differences(ours, theirs) == []
    load = next(op for op in ours.walk() if op.name == "tt.load")  # 8xf32, slice of slice of warps [1, 4, 1]
    other = parse_layout("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>")
    set_encoding(load.results[0], other)
    problems = encoding_differences(ours, theirs)
    assert any("1 of ours, 0 of Triton's" in p for p in problems), problems
    assert any("0 of ours, 1 of Triton's" in p for p in problems), problems


def test_encoding_differences_counts_copies_except_index_math():
    """A second copy of index math (a make_range) is allowed; a second convert is not."""
    from xdsl.rewriter import InsertPoint, Rewriter

    theirs = _golden_output("outer3_reduce-cuda:80-04")
    ours = _golden_output("outer3_reduce-cuda:80-04")
    make_range = next(op for op in ours.walk() if op.name == "tt.make_range")
    Rewriter.insert_op(make_range.clone(), InsertPoint.after(make_range))
    assert encoding_differences(ours, theirs) == []
    convert = next(op for op in ours.walk() if op.name == "ttg.convert_layout")
    Rewriter.insert_op(convert.clone(), InsertPoint.after(convert))
    problems = encoding_differences(ours, theirs)
    assert len(problems) == 1 and problems[0].startswith("ttg.convert_layout [8, 32]xf32"), problems
    assert problems[0].endswith("2 of ours, 1 of Triton's"), problems


def test_encoding_differences_compares_functions_not_parameters():
    """Two encodings with other parameters but the same function on the shape are the same:
    Triton's 1x1x32 broadcast operand in warps [4, 1, 1] is its result's warps [1, 4, 1] there."""
    from layoutkit import parse_layout
    from layoutkit.triton.layout_rules import set_encoding

    theirs, ours = _golden_output("outer3_reduce-cuda:80-04"), _golden_output("outer3_reduce-cuda:80-04")
    value = next(op for op in ours.walk() if op.name == "tt.make_range").results[0]
    layout = value.type.encoding.layout  # slice(dim 1, slice(dim 2, blocked warps [1, 4, 1]))
    assert "warpsPerCTA = [1, 4, 1]" in str(layout)
    set_encoding(value, parse_layout(str(layout).replace("warpsPerCTA = [1, 4, 1]", "warpsPerCTA = [1, 1, 4]")))
    assert encoding_differences(ours, theirs) == []


def _each_thread_keeps_its_elements(src, dst, shape) -> bool:
    """Brute force: every (block, warp, lane) holds the same set of elements in both layouts,
    so a conversion only moves values between that thread's registers."""
    from layoutkit.analysis.hardware import hardware_map

    a, b = hardware_map(src, shape).elements, hardware_map(dst, shape).elements
    if a.shape[:3] != b.shape[:3]:
        return False
    return all(set(x.tolist()) == set(y.tolist())
               for x, y in zip(a.reshape(-1, a.shape[3]), b.reshape(-1, b.shape[3]), strict=True))


@pytest.mark.parametrize("src, dst, shape", [
    # the same layout, its lanes and one warp bit holding copies (matmul_128's row offsets)
    ("[1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]",
     "[1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]", (128, 1)),
    # another order, the same function on a one-column shape
    ("[1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]",
     "[1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]", (128, 1)),
    # 64 columns over 32 lanes x 4 warps (two warps copies) versus every warp holding all 64
    ("[1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]",
     "[1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]", (1, 64)),
    # rows spread over 2 warps (copied on the other 2) versus over 4 warps: data moves
    ("[1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]",
     "[1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]", (128, 1)),
    # the same layout, 4 contiguous elements per thread
    ("[1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]",
     "[1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]", (16, 64)),
    ("[1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]",
     "[1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]", (32, 32)),
])
def test_reorders_registers_is_each_thread_keeping_its_elements(src, dst, shape):
    """Triton's cvtReordersRegisters (the convert costs 0 and backward slices go through it),
    against a brute-force reading of both layouts' hardware tables."""
    from layoutkit import parse_layout
    from layoutkit.triton.remove_layout_conversions import reorders_registers

    a, b = (parse_layout(f"#ttg.blocked<{{sizePerThread = {p}}}>") for p in (src, dst))
    assert reorders_registers(a, b, shape) == _each_thread_keeps_its_elements(a, b, shape)
