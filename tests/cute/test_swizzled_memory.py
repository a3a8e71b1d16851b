"""CuTe swizzled shared-memory layouts (``Sw<B,M,S> o 0 o shape:stride``) through `show`,
the layout protocol and pictures, against CuTe's definition written out here: the element
at coordinate c sits at ``o = inner(c)`` XOR-ed as ``o ^ (((o >> (M + S)) & (2**B - 1)) << M)``
(the yyy bits [M+S, M+S+B) into the zzz bits [M, M+B))."""

from __future__ import annotations

import re

import numpy as np
import pytest

import layoutkit
from layoutkit import LayoutError
from layoutkit.cli import main
from layoutkit.layouts.cute import SharedMemoryLayout


def swizzle(offset: int, bits: int, base: int, shift: int) -> int:
    return offset ^ (((offset >> (base + shift)) & ((1 << bits) - 1)) << base)


def expected_offsets(rows: int, cols: int, bits: int, base: int, shift: int) -> dict[tuple[int, int], int]:
    """Element (i, j) of a row-major rows x cols tile -> its swizzled offset, one by one."""
    return {(i, j): swizzle(i * cols + j, bits, base, shift) for i in range(rows) for j in range(cols)}


@pytest.mark.parametrize("bits, base, shift", [(3, 4, 3), (3, 3, 3), (2, 4, 3), (1, 0, 6)])
def test_show_prints_the_element_at_each_offset(capsys, bits, base, shift):
    text = f"Sw<{bits},{base},{shift}> o 0 o (8,64):(64,1)"
    assert main(["show", "-l", text, "-t", "tensor<8x64xf16>"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"Print layout attribute: {text} over 8x64"
    cells = [(int(r), int(c)) for r, c in re.findall(r"\(\s*(\d+):\s*(\d+)\)", out)]
    assert len(cells) == 8 * 64
    at = {offset: element for element, offset in expected_offsets(8, 64, bits, base, shift).items()}
    assert cells == [at[k] for k in range(8 * 64)]  # cell k: the element stored at offset k


def test_protocol_table_apply_owners_and_linear_layout():
    smem = layoutkit.parse_layout("Sw<3,4,3> o 0 o (8,64):(64,1)", tensor_shape=(8, 64))
    assert isinstance(smem, SharedMemoryLayout) and smem.hardware_dims() == {"offset": 512}
    expected = expected_offsets(8, 64, 3, 4, 3)
    table = smem.table()
    for (i, j), offset in expected.items():
        assert table[offset].tolist() == [i, j]
    assert smem.owners((2, 0)) == [{"offset": 144}]  # 128 has bit 7 set: bit 4 flips
    # a swizzle is linear over F2: the linear layout gives the same table
    np.testing.assert_array_equal(smem.to_linear_layout().table(), table)
    assert layoutkit.parse_layout(str(smem)) == smem  # 'Sw<...> o 0 o ... over 8x64' reads back


def test_nested_mode_is_one_tensor_dim_column_major():
    smem = layoutkit.parse_layout("Sw<2,3,3> o 0 o ((8,2),64):((64,512),1) over 16x64")
    assert smem.tensor_shape() == (16, 64)
    table = smem.table()
    for row in range(16):
        for col in range(64):
            inner = (row % 8) * 64 + (row // 8) * 512 + col  # mode 0's index is column-major (8, 2)
            assert table[swizzle(inner, 2, 3, 3)].tolist() == [row, col]


def test_the_128_byte_swizzle_of_f16_is_tritons_nvmma_shared():
    cute = layoutkit.parse_layout("Sw<3,3,3> o 0 o (8,64):(64,1) over 8x64")
    triton = layoutkit.parse_layout(
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>")
    assert layoutkit.equivalent(cute, triton, (8, 64))
    assert not layoutkit.equivalent(layoutkit.parse_layout("Sw<3,4,3> o 0 o (8,64):(64,1) over 8x64"), triton, (8, 64))


def test_unused_offsets_are_padding_and_have_no_linear_layout():
    smem = layoutkit.parse_layout("Sw<1,0,4> o 0 o (4,8):(16,1) over 4x8")  # rows 16 apart: 8 unused offsets each
    table = smem.table()
    assert smem.hardware_dims() == {"offset": 56}
    used = {swizzle(i * 16 + j, 1, 0, 4) for i in range(4) for j in range(8)}
    assert {k for k in range(56) if table[k, 0] >= 0} == used
    with pytest.raises(LayoutError, match="unused"):
        smem.to_linear_layout()


@pytest.mark.parametrize("text, fragment", [
    ("Sw<3,4,3> o 0 o (8,64):(0,1) over 8x64", "not injective"),
    ("Sw<3,4,3> o 0 o (8,64):(64,-1) over 8x64", "negative"),
    ("Sw<3,4,3> o 0 o (8,64):(64,1) over 64x8", "'8x64'"),
])
def test_bad_swizzled_layouts(text, fragment):
    with pytest.raises(LayoutError, match="shared memory layout|tensor shape") as info:
        layoutkit.parse_layout(text)
    assert fragment in str(info.value)


def test_render_draws_offsets(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from layoutkit.render.picture import drawing_of

    text = "Sw<3,4,3> o 0 o (8,64):(64,1)"
    drawing = drawing_of(layoutkit.parse_layout(text))  # no shape given: the layout's own
    expected = expected_offsets(8, 64, 3, 4, 3)
    assert drawing.kind == "memory"
    assert drawing.labels.tolist() == [[str(expected[i, j]) for j in range(64)] for i in range(8)]
    out = tmp_path / "swizzle.png"
    assert main(["render", "-l", text, "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "memory layout, 8x64 cells" in capsys.readouterr().out
