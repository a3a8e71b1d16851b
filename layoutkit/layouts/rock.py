"""rocMLIR's family: ``#rock.transform_map<...>`` text read into a
:class:`~layoutkit.core.coords.TransformMap` (``parse_layout`` dispatches here).

The bridges that write other families' layouts as transform chains (Triton's swizzled and
padded shared memory, IREE's nested layouts, CuTe's shape:stride layouts) live in
:mod:`layoutkit.translate.rock`; their names are re-exported here on first use.

>>> m = parse_text('#rock.transform_map<affine_map<(d0) -> (d0 floordiv 3, d0 mod 3)> '
...                'by [<Merge{2, 3} ["k"] at [0] -> ["a", "b"] at [0, 1]>] bounds = [6] -> [2, 3]>', {})
>>> m.apply(4)
(1, 1)
"""

from __future__ import annotations

from typing import Any

from layoutkit._lazy import lazy_exports
from layoutkit.core.coords.transform_map import TransformMap, parse_transform_map
from layoutkit.errors import LayoutError, quote


def parse_text(text: str, aliases: Any = None, **options: Any) -> TransformMap:
    """Parse one ``#rock.transform_map<...>``; options are ignored (other families' sizes)."""
    stripped = text.strip()
    if not stripped.startswith("#rock.transform_map"):
        name = stripped.split("<", 1)[0]
        raise LayoutError(f"rock layout: only '#rock.transform_map<...>' is a layout, got {quote(name)}")
    return parse_transform_map(stripped, aliases)


BRIDGES = ("swizzled_shared_chain", "padded_shared_chain", "nested_layout_chain", "cute_chain")
__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(BRIDGES, "layoutkit.translate"))
