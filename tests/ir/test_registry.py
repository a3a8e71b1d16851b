"""The dialect registry, the generated op table, the layout attribute, and backends that
name an op they do not support."""

from __future__ import annotations

import numpy as np
import pytest

from layoutkit import LayoutError, parse_layout
from layoutkit.backends.cuda.registry import emitters
from layoutkit.backends.simt.registry import handlers
from layoutkit.backends.support import DOC, support_markdown
from layoutkit.ir import LayoutAttr, parse_module, print_module
from layoutkit.ir.registry import op_classes

BLOCKED = ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
           "warpsPerCTA = [4, 1], order = [1, 0]}>")
MMA = ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
       "instrShape = [16, 8]}>")
NESTED = ("#iree_vector_ext.nested_layout<subgroup_tile = [2, 1], batch_tile = [2, 4], "
          "outer_tile = [1, 1], thread_tile = [16, 4], element_tile = [1, 4], "
          "subgroup_strides = [1, 0], thread_strides = [1, 16]>")


def test_op_table_in_docs_is_current():
    assert DOC.read_text(encoding="utf-8") == support_markdown(), \
        "docs/ops.md is stale: python -m layoutkit.backends.support --write"


def test_every_backend_handler_is_for_a_registered_op():
    registered = set(op_classes().values())
    for backend, table in (("simulator", handlers()), ("CUDA", emitters())):
        stray = [cls.__name__ for cls in table if cls not in registered]
        assert not stray, f"{backend} handles ops the parser never builds: {stray}"


def test_registry_replaces_xdsl_ops_with_layoutkit_patches():
    from xdsl.dialects import memref

    assert op_classes()["memref.global"] is not memref.GlobalOp
    assert issubclass(op_classes()["memref.global"], memref.GlobalOp)
    assert op_classes()["memref.load"] is memref.LoadOp  # xDSL's own where it has MLIR's syntax


MODULE = f"""#blocked = {BLOCKED}
#mma = {MMA}
#smem = #ttg.shared_memory
#nested = {NESTED}
module attributes {{"ttg.num-warps" = 4 : i32, "ttg.memory" = #smem}} {{
  func.func @f(%a: tensor<16x64xf16, #blocked>,
               %b: tensor<32x16xf16, #ttg.dot_op<{{opIdx = 0, parent = #mma, kWidth = 2}}>>,
               %c: tensor<64x64xf16, #nested>) {{
    func.return
  }}
}}
"""


def _args(module):
    func = next(op for op in module.walk() if op.name == "func.func")
    return func.body.blocks[0].args


def test_layout_attribute_wraps_the_family_value_through_aliases():
    args = _args(parse_module(MODULE))
    assert all(isinstance(a.type.encoding, LayoutAttr) for a in args)
    blocked, dot, nested = (a.type.encoding.layout for a in args)
    assert blocked == parse_layout(BLOCKED)
    assert dot.parent == parse_layout(MMA)  # '#mma' inside the dot_op resolved
    assert nested == parse_layout(NESTED)
    # the value's algebra: who holds element (1, 5) of the blocked tensor, by formula:
    # 4 columns per thread, 8 threads along dim1 -> lane = row * 8 + col // 4, register col % 4
    owners = blocked.owners((1, 5), (16, 64))
    assert {"register": 1, "lane": 9, "warp": 0, "block": 0} in owners


def test_printed_module_parses_back_to_equal_layouts_and_keeps_other_attributes():
    module = parse_module(MODULE)
    text = print_module(module)
    assert "#ttg.shared_memory" in text  # a non-layout attribute, kept as written
    again = parse_module(text)
    assert [a.type for a in _args(again)] == [a.type for a in _args(module)]
    assert print_module(again) == text


def test_layout_attribute_of_a_value_prints_its_native_text():
    for text in (BLOCKED, MMA, NESTED):
        attr = LayoutAttr.of(parse_layout(text))
        assert attr.layout == parse_layout(text)
    with pytest.raises(LayoutError, match="no attribute syntax"):
        LayoutAttr.of(object())


def test_bad_layout_inside_ir_names_the_line():
    bad = MODULE.replace("sizePerThread = [1, 4]", "sizePerThread = [1, 3]")
    with pytest.raises(LayoutError, match=r"line 1, column \d+: .*sizePerThread"):
        parse_module(bad)


KERNEL = """gpu.module @m {
  gpu.func @k(%out: memref<64xi32>) kernel {
    %t = gpu.thread_id x
    %i = arith.index_cast %t : index to i32
    %s, %o = arith.addui_extended %i, %i : i32, i1
    memref.store %s, %out[%t] : memref<64xi32>
    gpu.return
  }
}
"""


def test_an_op_without_a_simulator_handler_names_op_line_and_backend():
    from layoutkit.backends.simt import simulate

    with pytest.raises(LayoutError, match=r"line 5.*'arith.addui_extended' is not supported by the simulator"):
        simulate(KERNEL, "k", grid=1, block=64, args=[np.zeros(64, np.int32)])


def test_an_op_without_a_cuda_emitter_names_op_line_and_backend():
    from layoutkit.backends.cuda import emit_cuda

    with pytest.raises(LayoutError, match=r"line 5: .*arith.addui_extended: not supported by the CUDA backend"):
        emit_cuda(KERNEL)


def test_readme_contributor_example_is_the_real_code():
    """Each ```py block of the README's contributor section stands verbatim in its file."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Contributing: adding an op"):]
    blocks = []
    for match in re.finditer(r"```py\n(.*?)```", section, re.DOTALL):
        path = re.findall(r"`(layoutkit/[\w/]+\.py)`", section[:match.start()])[-1]
        blocks.append((path, match.group(1)))
    assert len(blocks) == 3
    for path, code in blocks:
        assert code.strip() in (root / path).read_text(encoding="utf-8"), path
