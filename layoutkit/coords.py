"""Coordinate transformations (rocMLIR's transform maps): the public API.

>>> from layoutkit.coords import BottomUpBuilder
>>> b = BottomUpBuilder(["O", "I", "H", "W"], [128, 2, 3, 3])
>>> b.pass_through("M", 0, "O"); b.merge("K", 1, ["I", "H", "W"])
>>> b.get().apply(5, 13)
(5, 1, 1, 1)

- :class:`Transform`, :class:`TransformMap`, :class:`TransformChain`: the values;
  :func:`parse_transform_map` reads ``#rock.transform_map<...>`` text, ``str`` prints it;
- :class:`BottomUpBuilder`, :class:`TopDownBuilder`: build maps with named dims;
- :func:`compose` (a chain as one map), ``chain.to_affine_map()``, ``invert()``;
- :func:`out_of_bounds`, :func:`validity`: which lowest dims need bounds checks;
- :class:`IndexWalker`, :func:`transforming_for`: index diffs; :func:`unrolled_program`:
  the unrolled loop's index code (Python and C) with its operation counts;
- bridges (from :mod:`layoutkit.translate`, loaded on first use): :func:`swizzled_shared_chain`,
  :func:`padded_shared_chain` (Triton shared memory), :func:`nested_layout_chain` (IREE),
  :func:`cute_chain` (CuTe).
"""

from layoutkit._lazy import lazy_exports
from layoutkit.core.coords.affine import AffineMap, parse_affine_map
from layoutkit.core.coords.bounds import BoundCheck, OutOfBounds, Validity, out_of_bounds, validity
from layoutkit.core.coords.builders import BottomUpBuilder, TopDownBuilder
from layoutkit.core.coords.codegen import Program, unrolled_program
from layoutkit.core.coords.index_diff import IndexWalker, Iteration, transforming_for
from layoutkit.core.coords.transform_map import (
    TransformChain,
    TransformMap,
    as_chain,
    compose,
    parse_transform_map,
)
from layoutkit.core.coords.transforms import KINDS, Transform

__all__ = [
    "KINDS", "AffineMap", "BottomUpBuilder", "BoundCheck", "IndexWalker", "Iteration", "OutOfBounds",
    "Program", "TopDownBuilder", "Transform", "TransformChain", "TransformMap", "Validity", "as_chain",
    "compose", "out_of_bounds", "parse_affine_map", "parse_transform_map", "transforming_for",
    "unrolled_program", "validity",
]

_BRIDGES = ("swizzled_shared_chain", "padded_shared_chain", "nested_layout_chain", "cute_chain")
__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(_BRIDGES, "layoutkit.translate"))
