"""An encoding written inside the tensor type (`tensor<16x32xf16, #ttg.blocked<...>>`) is the
layout `render` and `show` use when no -l is given, as for `triton-tensor-layout`."""

from __future__ import annotations

import numpy as np
import pytest

from layoutkit import LayoutError
from layoutkit.cli.render import render_file
from layoutkit.cli.show import render_show
from layoutkit.layouts.parse import tensor_type_encoding

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"


def test_tensor_type_encoding():
    assert tensor_type_encoding(f"tensor<16x32xf16, {BLOCKED}>") == BLOCKED
    assert tensor_type_encoding("tensor<16x32x!tt.ptr<f16>, #blocked>") == "#blocked"
    assert tensor_type_encoding("tensor<16x32xf16>") is None
    with pytest.raises(LayoutError, match="tensor type"):
        tensor_type_encoding("tensor<16x32>")


def test_render_and_show_take_the_encoding_from_the_type(tmp_path):
    pytest.importorskip("matplotlib")
    inside = render_file(None, f"tensor<16x32xf16, {BLOCKED}>", str(tmp_path / "a.svg"))
    given = render_file(BLOCKED, "tensor<16x32xf16>", str(tmp_path / "b.svg"))
    assert np.array_equal(inside.labels, given.labels)
    assert render_show(None, f"tensor<16x32xf16, {BLOCKED}>") == render_show(BLOCKED, "tensor<16x32xf16>")
