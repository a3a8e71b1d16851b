"""One check for the project's error contract, shared by the bad-input tests."""

from __future__ import annotations

import time

import pytest

from layoutkit import LayoutError


def raises(fragments, call, seconds: float = 2.0) -> str:
    """``call()`` raises a LayoutError holding every fragment, within ``seconds``."""
    start = time.perf_counter()
    with pytest.raises(LayoutError) as info:
        call()
    assert time.perf_counter() - start < seconds
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))
    return str(info.value)
