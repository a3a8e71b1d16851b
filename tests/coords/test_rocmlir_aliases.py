"""rocmlir-opt's printed form: ``#map = affine_map<...>`` aliases at the top of a file, used as
``#rock.transform_map<#map by [...] ...>`` below (issue 10, item 7) -- in files read by
``parse_transform_maps``, ``parse_layout(..., aliases=file_text)`` and ``layoutkit transform``.
Maps are checked against the index formulas written here."""

from __future__ import annotations

import numpy as np
import pytest

from layoutkit import LayoutError, parse_layout
from layoutkit.cli import main
from layoutkit.core.coords.transform_map import affine_map_aliases, parse_transform_maps

# as rocmlir-opt prints it: aliases first, a multi-line map as in rocMLIR's hand-written tests
FILE = '''// RUN: rocmlir-opt %s
#map = affine_map<(d0, d1, d2) -> ((d0 * 24 + d1) * 16 + d2)>
#map1 = affine_map<(d0) -> (d0 floordiv 384, (d0 mod 384) floordiv 16, d0 mod 16)>
#map2 = affine_map<(d0, d1) -> (d0, d1 - 2)>
#transform_map = #rock.transform_map<#map by [<Unmerge{4, 24, 16} ["g", "m", "k"] at [0, 1, 2] -> ["flat"] at [0]>] bounds = [4, 24, 16] -> [1536]>
#transform_map1 = #rock.transform_map<#map1 by [
  <Merge{4, 24, 16} ["flat"] at [0] -> ["g", "m", "k"] at [0, 1, 2]>
] bounds = [1536] -> [4, 24, 16]>
#transform_map2 = #rock.transform_map<#map2 by [<PassThrough ["M"] at [0] -> ["M"] at [0]>, <Pad{2, 2} ["Kp"] at [1] -> ["K"] at [1]>] bounds = [8, 20] -> [8, 16]>
func.func @f(%arg0: memref<1536xf32>) {
  %0 = rock.transform %arg0 by #transform_map1 : memref<1536xf32> to memref<4x24x16xf32>
  return
}
'''


def test_affine_map_aliases_are_read():
    aliases = affine_map_aliases(FILE)
    assert sorted(aliases) == ["map", "map1", "map2"]
    assert aliases["map2"].text == "affine_map<(d0, d1) -> (d0, d1 - 2)>"


def test_file_maps_resolve_their_affine_map_aliases():
    unmerge, merge, pad = parse_transform_maps(FILE)
    g, m, k = np.meshgrid(np.arange(4), np.arange(24), np.arange(16), indexing="ij")
    (flat,) = unmerge.apply(g, m, k)
    assert np.array_equal(flat, (g * 24 + m) * 16 + k)
    back = merge.apply(np.arange(1536))
    assert [b.tolist() for b in back] == [(np.arange(1536) // 384).tolist(), (np.arange(1536) % 384 // 16).tolist(),
                                          (np.arange(1536) % 16).tolist()]
    assert pad.apply(3, 7) == (3, 5)
    # the alias is printed back inline, so the text stands alone
    assert "affine_map<(d0) -> (d0 floordiv 384" in str(merge)


def test_parse_layout_with_the_file_as_aliases():
    unmerge = parse_layout("#transform_map", aliases=FILE)
    inline = parse_layout(str(unmerge))
    assert unmerge == inline
    assert unmerge.apply(1, 1, 0) == (400,)


def test_an_alias_that_disagrees_or_is_missing_is_an_error():
    with pytest.raises(LayoutError, match="#map1"):  # a 1-d map on a 3-d upper space
        parse_transform_maps(FILE.replace("#transform_map = #rock.transform_map<#map by", "#transform_map = #rock.transform_map<#map1 by"))
    with pytest.raises(LayoutError, match="'#map9' is not an affine map defined in the file"):
        parse_transform_maps(FILE.replace("<#map2 by", "<#map9 by"))
    with pytest.raises(LayoutError, match="written affine_map disagrees"):
        parse_transform_maps(FILE.replace("#map2 = affine_map<(d0, d1) -> (d0, d1 - 2)>", "#map2 = affine_map<(d0, d1) -> (d0, d1 - 3)>"))
    with pytest.raises(LayoutError, match="'#map2' = 'affine_map<\\(d0, d1\\) -> \\(d0, \\)>'"):
        parse_transform_maps(FILE.replace("(d0, d1 - 2)>", "(d0, )>"))


def test_transform_command_reads_rocmlir_files(tmp_path, capsys):
    path = tmp_path / "maps.mlir"
    path.write_text(FILE)
    aliases_only = tmp_path / "aliases.mlir"
    aliases_only.write_text("\n".join(line for line in FILE.splitlines() if "affine_map" in line and "#rock" not in line))
    pad_map = '#rock.transform_map<#map2 by [<PassThrough ["M"] at [0] -> ["M"] at [0]>, <Pad{2, 2} ["Kp"] at [1] -> ["K"] at [1]>] bounds = [8, 20] -> [8, 16]>'
    assert main(["transform", str(aliases_only), pad_map, "--bounds"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == ["upper: M=8, Kp=20", "lower: M=8, K=16", "map: affine_map<(d0, d1) -> (d0, d1 - 2)>"]
    assert out[3] == "out of bounds: left: K; right: K"
    assert main(["transform", pad_map]) == 2
    assert capsys.readouterr().err.startswith("error: transform_map: '#map2' is not an affine map defined in the file")
