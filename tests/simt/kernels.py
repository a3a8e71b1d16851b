"""Helpers for small test kernels written inline."""

from __future__ import annotations

from layoutkit.ir import parse_module


def kernel_module(signature: str, body: str, name: str = "k", declarations: str = ""):
    """A module with one kernel ``@name(signature)`` whose body is ``body`` (+ gpu.return),
    after ``declarations`` (e.g. ``memref.global`` lines) in its gpu.module."""
    return parse_module(
        f"module {{\n  gpu.module @m {{\n{declarations}\n"
        f"    gpu.func @{name}({signature}) kernel {{\n{body}\n      gpu.return\n    }}\n  }}\n}}\n"
    )
