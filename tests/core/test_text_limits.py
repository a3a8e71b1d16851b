"""Attribute text limits a user can rely on (issue 10, items 15 and 17).

- text longer than ``MAX_TEXT`` is refused before any parsing, with the limit in the message,
  in well under a second and without copying the text;
- text under the limit tokenizes in linear time (a list of 10x more bases takes about 10x
  longer, never 100x);
- digits are ASCII, as in MLIR: Arabic-Indic or full-width digits are no numbers, in
  attributes, CuTe text and tensor types alike.
"""

from __future__ import annotations

import gc
import time
import tracemalloc

import pytest

from layoutkit import LayoutError, parse_layout
from layoutkit.core.text import MAX_TEXT, tokenize
from layoutkit.layouts.parse import parse_tensor_type

BLOCKED = "#ttg.blocked<{{sizePerThread = [{}], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}}>"


@pytest.mark.parametrize("text", [
    BLOCKED.format("1, " * 3_500_000 + "1"),          # a 10 MB attribute
    "(" * 10_000_000,                                   # 10 MB of CuTe text
    "#ttg.linear<{register = [" + "[0, 1], " * 200_000 + "[0, 1]]}>",
])
def test_oversize_text_is_refused_at_once(text):
    assert len(text) > MAX_TEXT
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(LayoutError, match=f"characters is more than the {MAX_TEXT}"):
        parse_layout(text)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert elapsed < 0.5 and peak < 1 << 20


def test_tokenizing_is_linear():
    def seconds(count):
        text = "#ttg.linear<{register = [" + "[0, 1], " * count + "[0, 1]]}>"
        start = time.process_time()
        assert len(tokenize(text)) == 6 * count + 15
        return time.process_time() - start

    # CPU time of this process, interleaved and best of 7: other jobs on the cores do not skew one
    # side; the garbage collector off while timing (as timeit does): its full collections walk
    # every live token, which is not the tokenizer's cost and made the ratio reach 30x under load
    gc.disable()
    try:
        pairs = [(seconds(2_000), seconds(20_000)) for _ in range(7)]
    finally:
        gc.enable()
    small, large = min(p[0] for p in pairs), min(p[1] for p in pairs)
    assert large < 30 * small  # linear: about 10x; a quadratic scan would be about 100x


@pytest.mark.parametrize("digit", ["\u0661", "\uff14", "\u0664", "\u09e8"])  # ١ ４ ٤ ২
@pytest.mark.parametrize("template", [
    BLOCKED.format("DIGIT, 4"),
    "#iree_vector_ext.nested_layout<subgroup_tile = [1, 1], batch_tile = [DIGIT, 1], outer_tile = [1, 1], "
    "thread_tile = [4, 16], element_tile = [4, 1], subgroup_strides = [0, 0], thread_strides = [16, 1]>",
    "(DIGIT,8):(1,4)",
])
def test_non_ascii_digits_are_no_numbers(template, digit):
    text = template.replace("DIGIT", digit)
    with pytest.raises(LayoutError, match="unexpected character") as error:
        parse_layout(text)
    assert repr(digit)[1:-1] in str(error.value) or digit in str(error.value)


@pytest.mark.parametrize("text", ["tensor<\uff11\uff16x16xf16>", "tensor<16x16xi\u0661\u0666>"])
def test_non_ascii_digits_in_tensor_types(text):
    with pytest.raises(LayoutError, match="tensor type"):
        parse_tensor_type(text)
