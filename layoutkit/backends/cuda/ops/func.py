"""CUDA emitter of ``func``: ``func.return`` (the end of a device function)."""

from __future__ import annotations

from xdsl.dialects import func

from layoutkit.backends.cuda.ops.gpu import return_
from layoutkit.backends.cuda.registry import emits

emits(func.ReturnOp)(return_)
