"""Simulator handlers of ``func``: ``func.return`` ends a kernel's body."""

from __future__ import annotations

from xdsl.dialects import func

from layoutkit.backends.simt.registry import terminates

terminates(func.ReturnOp)
