"""`layoutkit show` against the four triton-tensor-layout runs printed in seed 004 (spacing
may differ -- the seed is a web page that collapsed runs of spaces -- the content may not),
the hardware view against the blocked layout's definition, files of aliases, other layout
families, and bad input (one `error:` line, exit status 2)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from layoutkit import parse_layout
from layoutkit.cli import main

SEED_004_COMMANDS = [
    (
        '#triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>',
        'tensor<4x32xf16>',
        'Print layout attribute: #triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>',
        """\
[[ T0:0, T0:1, T0:2, T0:3, T1:0, T1:1, T1:2, T1:3, T2:0, T2:1, T2:2, T2:3, T3:0, T3:1, T3:2, T3:3, T4:0, T4:1, T4:2, T4:3, T5:0, T5:1, T5:2, T5:3, T6:0, T6:1, T6:2, T6:3, T7:0, T7:1, T7:2, T7:3]
[ T8:0, T8:1, T8:2, T8:3, T9:0, T9:1, T9:2, T9:3, T10:0, T10:1, T10:2, T10:3, T11:0, T11:1, T11:2, T11:3, T12:0, T12:1, T12:2, T12:3, T13:0, T13:1, T13:2, T13:3, T14:0, T14:1, T14:2, T14:3, T15:0, T15:1, T15:2, T15:3]
[ T16:0, T16:1, T16:2, T16:3, T17:0, T17:1, T17:2, T17:3, T18:0, T18:1, T18:2, T18:3, T19:0, T19:1, T19:2, T19:3, T20:0, T20:1, T20:2, T20:3, T21:0, T21:1, T21:2, T21:3, T22:0, T22:1, T22:2, T22:3, T23:0, T23:1, T23:2, T23:3]
[ T24:0, T24:1, T24:2, T24:3, T25:0, T25:1, T25:2, T25:3, T26:0, T26:1, T26:2, T26:3, T27:0, T27:1, T27:2, T27:3, T28:0, T28:1, T28:2, T28:3, T29:0, T29:1, T29:2, T29:3, T30:0, T30:1, T30:2, T30:3, T31:0, T31:1, T31:2, T31:3]]
""",
    ),
    (
        '#triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>',
        'tensor<8x32xf16>',
        'Print layout attribute: #triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>',
        """\
[[ T0:0, T0:1, T0:2, T0:3, T1:0, T1:1, T1:2, T1:3, T2:0, T2:1, T2:2, T2:3, T3:0, T3:1, T3:2, T3:3, T4:0, T4:1, T4:2, T4:3, T5:0, T5:1, T5:2, T5:3, T6:0, T6:1, T6:2, T6:3, T7:0, T7:1, T7:2, T7:3]
[ T8:0, T8:1, T8:2, T8:3, T9:0, T9:1, T9:2, T9:3, T10:0, T10:1, T10:2, T10:3, T11:0, T11:1, T11:2, T11:3, T12:0, T12:1, T12:2, T12:3, T13:0, T13:1, T13:2, T13:3, T14:0, T14:1, T14:2, T14:3, T15:0, T15:1, T15:2, T15:3]
[ T16:0, T16:1, T16:2, T16:3, T17:0, T17:1, T17:2, T17:3, T18:0, T18:1, T18:2, T18:3, T19:0, T19:1, T19:2, T19:3, T20:0, T20:1, T20:2, T20:3, T21:0, T21:1, T21:2, T21:3, T22:0, T22:1, T22:2, T22:3, T23:0, T23:1, T23:2, T23:3]
[ T24:0, T24:1, T24:2, T24:3, T25:0, T25:1, T25:2, T25:3, T26:0, T26:1, T26:2, T26:3, T27:0, T27:1, T27:2, T27:3, T28:0, T28:1, T28:2, T28:3, T29:0, T29:1, T29:2, T29:3, T30:0, T30:1, T30:2, T30:3, T31:0, T31:1, T31:2, T31:3]
[ T0:4, T0:5, T0:6, T0:7, T1:4, T1:5, T1:6, T1:7, T2:4, T2:5, T2:6, T2:7, T3:4, T3:5, T3:6, T3:7, T4:4, T4:5, T4:6, T4:7, T5:4, T5:5, T5:6, T5:7, T6:4, T6:5, T6:6, T6:7, T7:4, T7:5, T7:6, T7:7]
[ T8:4, T8:5, T8:6, T8:7, T9:4, T9:5, T9:6, T9:7, T10:4, T10:5, T10:6, T10:7, T11:4, T11:5, T11:6, T11:7, T12:4, T12:5, T12:6, T12:7, T13:4, T13:5, T13:6, T13:7, T14:4, T14:5, T14:6, T14:7, T15:4, T15:5, T15:6, T15:7]
[ T16:4, T16:5, T16:6, T16:7, T17:4, T17:5, T17:6, T17:7, T18:4, T18:5, T18:6, T18:7, T19:4, T19:5, T19:6, T19:7, T20:4, T20:5, T20:6, T20:7, T21:4, T21:5, T21:6, T21:7, T22:4, T22:5, T22:6, T22:7, T23:4, T23:5, T23:6, T23:7]
[ T24:4, T24:5, T24:6, T24:7, T25:4, T25:5, T25:6, T25:7, T26:4, T26:5, T26:6, T26:7, T27:4, T27:5, T27:6, T27:7, T28:4, T28:5, T28:6, T28:7, T29:4, T29:5, T29:6, T29:7, T30:4, T30:5, T30:6, T30:7, T31:4, T31:5, T31:6, T31:7]]
""",
    ),
    (
        '#triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>',
        'tensor<16x16xf16>',
        'Print layout attribute: #triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>',
        """\
[[ T0:0| T4:0, T0:1| T4:1, T0:2| T4:2, T0:3| T4:3, T1:0| T5:0, T1:1| T5:1, T1:2| T5:2, T1:3| T5:3, T2:0| T6:0, T2:1| T6:1, T2:2| T6:2, T2:3| T6:3, T3:0| T7:0, T3:1| T7:1, T3:2| T7:2, T3:3| T7:3]
[ T8:0| T12:0, T8:1| T12:1, T8:2| T12:2, T8:3| T12:3, T9:0| T13:0, T9:1| T13:1, T9:2| T13:2, T9:3| T13:3, T10:0| T14:0, T10:1| T14:1, T10:2| T14:2, T10:3| T14:3, T11:0| T15:0, T11:1| T15:1, T11:2| T15:2, T11:3| T15:3]
[ T16:0| T20:0, T16:1| T20:1, T16:2| T20:2, T16:3| T20:3, T17:0| T21:0, T17:1| T21:1, T17:2| T21:2, T17:3| T21:3, T18:0| T22:0, T18:1| T22:1, T18:2| T22:2, T18:3| T22:3, T19:0| T23:0, T19:1| T23:1, T19:2| T23:2, T19:3| T23:3]
[ T24:0| T28:0, T24:1| T28:1, T24:2| T28:2, T24:3| T28:3, T25:0| T29:0, T25:1| T29:1, T25:2| T29:2, T25:3| T29:3, T26:0| T30:0, T26:1| T30:1, T26:2| T30:2, T26:3| T30:3, T27:0| T31:0, T27:1| T31:1, T27:2| T31:2, T27:3| T31:3]
[ T32:0| T36:0, T32:1| T36:1, T32:2| T36:2, T32:3| T36:3, T33:0| T37:0, T33:1| T37:1, T33:2| T37:2, T33:3| T37:3, T34:0| T38:0, T34:1| T38:1, T34:2| T38:2, T34:3| T38:3, T35:0| T39:0, T35:1| T39:1, T35:2| T39:2, T35:3| T39:3]
[ T40:0| T44:0, T40:1| T44:1, T40:2| T44:2, T40:3| T44:3, T41:0| T45:0, T41:1| T45:1, T41:2| T45:2, T41:3| T45:3, T42:0| T46:0, T42:1| T46:1, T42:2| T46:2, T42:3| T46:3, T43:0| T47:0, T43:1| T47:1, T43:2| T47:2, T43:3| T47:3]
[ T48:0| T52:0, T48:1| T52:1, T48:2| T52:2, T48:3| T52:3, T49:0| T53:0, T49:1| T53:1, T49:2| T53:2, T49:3| T53:3, T50:0| T54:0, T50:1| T54:1, T50:2| T54:2, T50:3| T54:3, T51:0| T55:0, T51:1| T55:1, T51:2| T55:2, T51:3| T55:3]
[ T56:0| T60:0, T56:1| T60:1, T56:2| T60:2, T56:3| T60:3, T57:0| T61:0, T57:1| T61:1, T57:2| T61:2, T57:3| T61:3, T58:0| T62:0, T58:1| T62:1, T58:2| T62:2, T58:3| T62:3, T59:0| T63:0, T59:1| T63:1, T59:2| T63:2, T59:3| T63:3]
[ T64:0| T68:0, T64:1| T68:1, T64:2| T68:2, T64:3| T68:3, T65:0| T69:0, T65:1| T69:1, T65:2| T69:2, T65:3| T69:3, T66:0| T70:0, T66:1| T70:1, T66:2| T70:2, T66:3| T70:3, T67:0| T71:0, T67:1| T71:1, T67:2| T71:2, T67:3| T71:3]
[ T72:0| T76:0, T72:1| T76:1, T72:2| T76:2, T72:3| T76:3, T73:0| T77:0, T73:1| T77:1, T73:2| T77:2, T73:3| T77:3, T74:0| T78:0, T74:1| T78:1, T74:2| T78:2, T74:3| T78:3, T75:0| T79:0, T75:1| T79:1, T75:2| T79:2, T75:3| T79:3]
[ T80:0| T84:0, T80:1| T84:1, T80:2| T84:2, T80:3| T84:3, T81:0| T85:0, T81:1| T85:1, T81:2| T85:2, T81:3| T85:3, T82:0| T86:0, T82:1| T86:1, T82:2| T86:2, T82:3| T86:3, T83:0| T87:0, T83:1| T87:1, T83:2| T87:2, T83:3| T87:3]
[ T88:0| T92:0, T88:1| T92:1, T88:2| T92:2, T88:3| T92:3, T89:0| T93:0, T89:1| T93:1, T89:2| T93:2, T89:3| T93:3, T90:0| T94:0, T90:1| T94:1, T90:2| T94:2, T90:3| T94:3, T91:0| T95:0, T91:1| T95:1, T91:2| T95:2, T91:3| T95:3]
[ T96:0|T100:0, T96:1|T100:1, T96:2|T100:2, T96:3|T100:3, T97:0|T101:0, T97:1|T101:1, T97:2|T101:2, T97:3|T101:3, T98:0|T102:0, T98:1|T102:1, T98:2|T102:2, T98:3|T102:3, T99:0|T103:0, T99:1|T103:1, T99:2|T103:2, T99:3|T103:3]
[ T104:0|T108:0, T104:1|T108:1, T104:2|T108:2, T104:3|T108:3, T105:0|T109:0, T105:1|T109:1, T105:2|T109:2, T105:3|T109:3, T106:0|T110:0, T106:1|T110:1, T106:2|T110:2, T106:3|T110:3, T107:0|T111:0, T107:1|T111:1, T107:2|T111:2, T107:3|T111:3]
[ T112:0|T116:0, T112:1|T116:1, T112:2|T116:2, T112:3|T116:3, T113:0|T117:0, T113:1|T117:1, T113:2|T117:2, T113:3|T117:3, T114:0|T118:0, T114:1|T118:1, T114:2|T118:2, T114:3|T118:3, T115:0|T119:0, T115:1|T119:1, T115:2|T119:2, T115:3|T119:3]
[ T120:0|T124:0, T120:1|T124:1, T120:2|T124:2, T120:3|T124:3, T121:0|T125:0, T121:1|T125:1, T121:2|T125:2, T121:3|T125:3, T122:0|T126:0, T122:1|T126:1, T122:2|T126:2, T122:3|T126:3, T123:0|T127:0, T123:1|T127:1, T123:2|T127:2, T123:3|T127:3]]
""",
    ),
    (
        '#triton_gpu.shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1,0], hasLeadingOffset = false}>',
        'tensor<4x8xf16>',
        'Print layout attribute: #triton_gpu.shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], hasLeadingOffset = false}>',
        """\
[[(0:0),(0:1),(0:2),(0:3),(0:4),(0:5),(0:6),(0:7)]
[ (1:2),(1:3),(1:0),(1:1),(1:6),(1:7),(1:4),(1:5)]
[ (2:4),(2:5),(2:6),(2:7),(2:0),(2:1),(2:2),(2:3)]
[ (3:6),(3:7),(3:4),(3:5),(3:2),(3:3),(3:0),(3:1)]]
""",
    ),
]


def normalized(text: str) -> list[str]:
    """Lines with runs of whitespace collapsed (what the seed's HTML rendering did)."""
    return [re.sub(r"\s+", " ", line).strip() for line in text.strip().splitlines()]


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("layout, tensor, header, grid", SEED_004_COMMANDS)
def test_seed_004_views(capsys, layout, tensor, header, grid):
    code, out, err = run(capsys, "show", "-l", layout, "-t", tensor)
    assert code == 0 and err == ""
    first, *rest = out.splitlines()
    prefix = "Print layout attribute: "
    assert first.startswith(prefix)
    # the header prints the layout back; it denotes the layout the seed printed
    assert parse_layout(first[len(prefix):]) == parse_layout(header[len(prefix):])
    assert normalized("\n".join(rest)) == normalized(grid)


def test_seed_004_size_per_thread_2x4_rows(capsys):
    # the seed's third blocked example shows its first three rows
    layout = "#triton_gpu.blocked<{sizePerThread = [2, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>"
    code, out, _ = run(capsys, "show", "-l", layout, "-t", "tensor<8x32xf16>")
    rows = normalized(out)[1:4]
    assert rows[0].startswith("[[ T0:0, T0:1, T0:2, T0:3, T1:0, T1:1, T1:2, T1:3, T2:0,")
    assert rows[1] == "[ " + ", ".join(f"T{t}:{r}" for t in range(8) for r in range(4, 8)) + "]"
    assert rows[2] == "[ " + ", ".join(f"T{t}:{r}" for t in range(8, 16) for r in range(4)) + "]"


def test_hardware_view_of_a_blocked_layout(capsys):
    # sizePerThread [1, 4], threadsPerWarp [4, 8], warpsPerCTA [4, 1] on 16x16: lane l of
    # warp w holds row l // 8 + 4 w and, in register r, column (4 (l % 8) + r) mod 16
    layout = SEED_004_COMMANDS[2][0]
    code, out, _ = run(capsys, "show", "-l", layout, "-t", "tensor<16x16xf16>", "--hw-view")
    lines = out.splitlines()[1:]
    assert len(lines) == 4 * (1 + 4)
    for w in range(4):
        assert lines[5 * w] == f"Warp{w}:"
        for r in range(4):
            cells = re.findall(r"\(\s*(\d+),\s*(\d+)\)", lines[5 * w + 1 + r])
            expected = [(lane // 8 + 4 * w, (4 * (lane % 8) + r) % 16) for lane in range(32)]
            assert [(int(a), int(b)) for a, b in cells] == expected


def test_hardware_view_of_a_shared_layout(capsys):
    layout = SEED_004_COMMANDS[3][0]
    code, out, _ = run(capsys, "show", "-l", layout, "-t", "tensor<4x8xf16>", "--use-hw-view")
    lines = out.splitlines()[1:]
    assert lines[0] == "Block: 0:"
    # offset 8 r + m holds (r, ((m // 2) ^ r) * 2 + m % 2) (seed 004's formula for vec = 2)
    for offset in range(32):
        r, m = divmod(offset, 8)
        c = (((m // 2) ^ r) * 2 + m % 2) % 8
        assert lines[1 + offset] == f"Offset: {offset} -> ({r},{c})"


ALIAS_FILE = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>
#dot = #ttg.dot_op<{opIdx = 0, parent = #blocked}>
module attributes {"ttg.num-warps" = 4 : i32} {
}
"""


def test_input_file_with_alias_names(capsys, tmp_path):
    path = tmp_path / "kernel.ttgir"
    path.write_text(ALIAS_FILE)
    code, out, _ = run(capsys, "show", "-i", str(path), "--alias-names", "shared,blocked", "-t", "tensor<4x8xf16>")
    assert code == 0
    headers = [line for line in out.splitlines() if line.startswith("Print layout attribute:")]
    assert headers[0].startswith("Print layout attribute: #shared = #ttg.swizzled_shared<")
    assert headers[1].startswith("Print layout attribute: #blocked = #ttg.blocked<")
    shared_view = out.split(headers[1])[0]
    assert shared_view.endswith("(3:1)]]\n\n")  # each named alias is followed by an empty line


def test_input_file_prints_every_alias_and_layout_may_name_one(capsys, tmp_path):
    path = tmp_path / "kernel.ttgir"
    path.write_text(ALIAS_FILE)
    code, out, _ = run(capsys, "show", "-i", str(path), "-t", "tensor<16x16xf16>")
    assert code == 0
    assert [line.split(" = ")[0] for line in out.splitlines() if line.startswith("Print")] == [
        "Print layout attribute: #blocked", "Print layout attribute: #shared", "Print layout attribute: #dot"]
    code, out2, _ = run(capsys, "show", "-i", str(path), "--alias-names", "blocked", "-l", "#blocked", "-t", "tensor<16x16xf16>")
    first, second = out2.split("\n\n", 1)
    assert normalized(first)[1:] == normalized(second)[1:]


def test_layout_with_input_file_prints_only_that_layout(capsys, tmp_path):
    # -l "#dot" -i FILE: the file defines the aliases, -l picks the one to print
    path = tmp_path / "kernel.ttgir"
    path.write_text(ALIAS_FILE)
    code, out, err = run(capsys, "show", "-i", str(path), "-l", "#dot", "-t", "tensor<16x16xf16>")
    assert code == 0, err
    headers = [line for line in out.splitlines() if line.startswith("Print layout attribute:")]
    assert len(headers) == 1 and headers[0].startswith("Print layout attribute: #ttg.dot_op<{opIdx = 0, parent = ")
    direct = ALIAS_FILE.splitlines()[2].split(" = ", 1)[1].replace("#blocked", ALIAS_FILE.splitlines()[0].split(" = ", 1)[1])
    code, alone, err = run(capsys, "show", "-l", direct, "-t", "tensor<16x16xf16>")
    assert code == 0, err
    assert normalized(out) == normalized(alone)


def test_a_bare_word_is_no_layout_and_an_alias_is_hinted(capsys, tmp_path):
    path = tmp_path / "kernel.ttgir"
    path.write_text(ALIAS_FILE)
    code, out, err = run(capsys, "show", "-i", str(path), "-l", "dot", "-t", "tensor<16x16xf16>")
    assert code == 2 and out == ""
    assert err == ("error: layout text: 'dot' is no layout (known: #iree_vector_ext, #rock, #triton_gpu, #ttg, "
                   "CuTe 'shape:stride'); the alias is written '#dot'\n")
    code, out, err = run(capsys, "show", "-l", "blocked", "-t", "tensor<16x16xf16>")
    assert code == 2 and err.startswith("error: layout text: 'blocked' is no layout") and "alias" not in err


def test_encoding_inside_a_pointer_tensor_type(capsys):
    # a .ttgir tensor of pointers: the element type has its own <...>, the encoding follows
    blocked = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    code, out, err = run(capsys, "show", "-t", f"tensor<16x16x!tt.ptr<f16>, {blocked}>")
    assert code == 0, err
    code, direct, err = run(capsys, "show", "-l", blocked, "-t", "tensor<16x16xf16>")
    assert code == 0, err
    assert out == direct


def test_output_file(capsys, tmp_path):
    target = tmp_path / "view.txt"
    layout, tensor, _, grid = SEED_004_COMMANDS[0]
    code, out, _ = run(capsys, "show", "-l", layout, "-t", tensor, "-o", str(target))
    assert code == 0 and out == ""
    assert normalized(target.read_text())[1:] == normalized(grid)


def test_other_families(capsys):
    nested = (
        "#iree_vector_ext.nested_layout<subgroup_tile = [2, 1], batch_tile = [2, 4], outer_tile = [1, 1], "
        "thread_tile = [16, 4], element_tile = [1, 4], subgroup_strides = [1, 0], thread_strides = [1, 16]>"
    )
    code, out, err = run(capsys, "show", "-l", nested, "-t", "tensor<64x64xf16>", "--subgroup-size", "64")
    assert code == 0, err
    rows = [re.findall(r"[^,\[\]]+", line) for line in out.splitlines()[1:]]
    cell = lambda r, c: [s.strip() for s in rows[r][c].split("|")]  # noqa: E731
    # seed 000: thread t is at (t % 16, 4 * (t // 16)) of its tile; batch 1 of dim 0 is
    # register 16 (distributed shape [2, 4, 1, 1, 1, 4]); subgroup 1 starts at row 32
    assert cell(0, 4) == ["T16:0"]
    assert cell(16, 0) == ["T0:16"]
    assert cell(32, 0) == ["T64:0"]
    code, out, err = run(capsys, "show", "-l", "((4,8),(2,2)):((32,1),(16,8))", "-t", "tensor<16x8xf16>")
    assert code == 0, err
    rows = [re.findall(r"T\d+:\d+", line) for line in out.splitlines()[1:]]
    assert rows[9][3] == "T5:3"  # thread 5, value 3 -> index 57 = row 9, column 3


@pytest.mark.parametrize(
    "args, message",
    [
        (["-l", "#ttg.blockd<{order = [1, 0]}>", "-t", "tensor<4x8xf16>"], "unknown TritonGPU encoding"),
        (["-l", SEED_004_COMMANDS[0][0], "-t", "tensor<4x8>"], "tensor type"),
        (["-l", SEED_004_COMMANDS[0][0], "-t", "tensor<4x8x16xf16>"], "rank"),
        (["-i", "/no/such/file.ttgir", "-t", "tensor<4x8xf16>"], "cannot read"),
        (["-t", "tensor<4x8xf16>"], "give a layout"),
        (["-l", "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]", "-t", "tensor<4x8xf16>"], "expected"),
        (["-l", SEED_004_COMMANDS[0][0]], "Missing option"),
    ],
)
def test_bad_input_is_one_error_line(capsys, args, message):
    code, out, err = run(capsys, "show", *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and message in err


@pytest.mark.parametrize("names, message", [("mma", "no layout alias '#mma'"), ("blocked,,shared", "alias-names")])
def test_bad_alias_is_one_error_line(capsys, tmp_path, names, message):
    path = tmp_path / "kernel.ttgir"
    path.write_text(ALIAS_FILE)
    code, out, err = run(capsys, "show", "-i", str(path), "--alias-names", names, "-t", "tensor<4x8xf16>")
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and message in err


def test_console_script_end_to_end():
    layout, tensor, _, grid = SEED_004_COMMANDS[3]
    done = subprocess.run(
        [sys.executable, "-m", "layoutkit", "show", "-l", layout, "-t", tensor],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert normalized(done.stdout)[1:] == normalized(grid)
    bad = subprocess.run(
        [sys.executable, "-m", "layoutkit", "show", "-l", "#ttg.nope<{}>", "-t", tensor],
        capture_output=True, text=True, timeout=60,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_several_ctas_get_a_block_prefix(capsys):
    layout = (
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0], "
        "CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>"
    )
    code, out, err = run(capsys, "show", "-l", layout, "-t", "tensor<4x16xf32>")
    assert code == 0, err
    rows = [re.findall(r"B\d+:T\d+:\d+", line) for line in out.splitlines()[1:]]
    # CTA b holds rows 2b and 2b + 1; lane 16 (r % 2) + c holds (r, c)
    assert rows == [[f"B{r // 2}:T{(r % 2) * 16 + c}:0" for c in range(16)] for r in range(4)]
    code, out, err = run(capsys, "show", "-l", layout.replace("CTASplitNum = [2, 1]", "CTASplitNum = [1, 1]"),
                         "-t", "tensor<2x16xf32>")
    cells = normalized(out)[1].strip("[]").replace(" ", "").split(",")
    assert cells == [f"B0:T{c}:0|B1:T{c}:0" for c in range(16)]  # both CTAs hold everything


def test_encoding_inside_the_tensor_type(capsys):
    layout, tensor, _, grid = SEED_004_COMMANDS[3]
    code, out, err = run(capsys, "show", "-t", tensor[:-1] + ", " + layout + ">")
    assert code == 0, err
    assert normalized(out)[1:] == normalized(grid)


def test_padded_shared_views(capsys):
    layout = "#ttg.padded_shared<[8:+2] {order = [1, 0], shape = [4, 8]}>"
    code, out, err = run(capsys, "show", "-l", layout, "-t", "tensor<4x8xf16>")
    assert code == 0, err
    rows = out.splitlines()[1:]
    # 8 elements, then 2 pads, row after row; none after the last element
    for r in range(4):
        cells = rows[r].strip("[]").split(",")
        assert cells[:8] == [f"({r}:{c})" for c in range(8)]
        assert cells[8:] == (["pad", "pad"] if r < 3 else [])
    code, out, err = run(capsys, "show", "-l", layout, "-t", "tensor<4x8xf16>", "--hw-view")
    lines = out.splitlines()[2:]
    assert len(lines) == 4 * 8 + 3 * 2
    for offset, line in enumerate(lines):
        r, c = divmod(offset, 10)
        assert line == (f"Offset: {offset} -> ({r},{c})" if c < 8 else f"Offset: {offset} -> padding")


VIEW_CASES = [
    (SEED_004_COMMANDS[2][0], "tensor<16x16xf16>", []),
    (SEED_004_COMMANDS[3][0], "tensor<4x8xf16>", []),
    ("#ttg.padded_shared<[8:+2] {order = [1, 0], shape = [4, 8]}>", "tensor<4x8xf16>", []),
    ("((4,8),(2,2)):((32,1),(16,8))", "tensor<16x8xf16>", []),
    ("#iree_vector_ext.nested_layout<subgroup_tile = [1, 1], batch_tile = [1, 1], outer_tile = [1, 1], "
     "thread_tile = [4, 8], element_tile = [1, 2], subgroup_strides = [0, 0], thread_strides = [8, 1]>",
     "tensor<4x16xf16>", ["--subgroup-size", "32"]),
]


@pytest.mark.parametrize("hardware", [[], ["--hw-view"]], ids=["tensor-view", "hw-view"])
@pytest.mark.parametrize("layout, tensor, extra", VIEW_CASES)
def test_views_end_with_one_newline_and_o_writes_the_same_text(capsys, tmp_path, layout, tensor, extra, hardware):
    code, out, err = run(capsys, "show", "-l", layout, "-t", tensor, *extra, *hardware)
    assert code == 0 and err == ""
    assert out.endswith("\n") and not out.endswith("\n\n")
    target = tmp_path / "view.txt"
    code, out_o, err = run(capsys, "show", "-l", layout, "-t", tensor, *extra, *hardware, "-o", str(target))
    assert (code, out_o, err) == (0, "", "")
    assert target.read_text(encoding="utf-8") == out


def test_help_names_every_option_and_an_example(capsys):
    for command, words in [
        ("show", ["-l, --layout", "-t, --tensor", "-i, --input", "--alias-names", "--hw-view", "-o, --output",
                  "Examples:", "layoutkit show -t"]),
        ("transform", ["TEXT...", "--bounds", "--diff", "Example:", "layoutkit transform"]),
    ]:
        code, out, _ = run(capsys, command, "--help")
        assert code == 0
        for word in words:
            assert word in out, (command, word)


@pytest.mark.parametrize("layout, tensor", [
    (SEED_004_COMMANDS[2][0], "tensor<16x16xf16>"),  # 128 threads, 4 registers, broadcast pairs
    ("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0], "
     "CGALayout = [[0, 0], [1, 0], [2, 0], [0, 1]]}>", "tensor<64x32xf32>"),  # 16 blocks, some broadcast
])
def test_owners_are_padded_like_triton(capsys, layout, tensor):
    """Triton's numCharacterPadding: each owner is left-padded by the digits its block,
    thread and register ids lack against the block count, thread count and register count."""
    code, out, err = run(capsys, "show", "-l", layout, "-t", tensor)
    assert code == 0, err
    hw = parse_layout(layout).hardware_dims(tuple(int(d) for d in re.findall(r"\d+", tensor)[:2]))
    blocks, threads, regs = hw["block"], hw["warp"] * hw["lane"], hw["register"]
    rows = out.splitlines()[1:]
    seen = 0
    for line in rows:
        body = line[2:].rstrip("]")  # a rank-2 line starts with 2 characters of '[' and indent
        for cell in body.split(", "):
            for owner in cell.split("|"):
                m = re.fullmatch(r"( *)(?:B(\d+):)?T(\d+):(\d+)", owner)
                assert m, owner
                b, t, r = int(m.group(2) or 0), int(m.group(3)), int(m.group(4))
                pad = len(str(threads)) - len(str(t)) + len(str(regs)) - len(str(r))
                pad += len(str(blocks)) - len(str(b)) if blocks > 1 else 0
                assert len(m.group(1)) == pad, (owner, pad)
                seen += 1
    assert seen >= 256


TTGIR_WITH_OTHER_ALIASES = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#loc = loc("kernel.py":12:0)
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#loc1 = loc(unknown)
module attributes {"ttg.num-warps" = 4 : i32} {
} loc(#loc)
"""


def test_file_with_non_layout_aliases_prints_only_layouts(capsys, tmp_path):
    """Issue 10 item 5: #smem, #tmem and #loc lines are skipped, as triton-tensor-layout does."""
    path = tmp_path / "kernel.ttgir"
    path.write_text(TTGIR_WITH_OTHER_ALIASES)
    code, out, err = run(capsys, "show", "-i", str(path), "-t", "tensor<16x8xf16>")
    assert code == 0, err
    headers = [line for line in out.splitlines() if line.startswith("Print layout attribute")]
    assert [h.split(" = ")[0] for h in headers] == ["Print layout attribute: #blocked", "Print layout attribute: #mma"]


def test_tensor_type_names_an_alias_of_the_file(capsys, tmp_path):
    """``-t "tensor<..., #mma>" -i FILE`` shows the file's #mma (and only it)."""
    path = tmp_path / "kernel.ttgir"
    path.write_text(TTGIR_WITH_OTHER_ALIASES)
    code, out, err = run(capsys, "show", "-i", str(path), "-t", "tensor<16x8xf32, #mma>")
    assert code == 0, err
    assert out.splitlines()[0] == (
        "Print layout attribute: #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], "
        "instrShape = [16, 8]}>")
    assert out.splitlines()[1] == "[[ T0:0,  T0:1,  T1:0,  T1:1,  T2:0,  T2:1,  T3:0,  T3:1]"
    code, out, err = run(capsys, "show", "-i", str(path), "-t", "tensor<16x8xf32, #smem>")
    assert code == 2 and err.startswith("error: ") and "smem" in err and len(err.splitlines()) == 1
