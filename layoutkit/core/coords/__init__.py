"""Coordinate transformations: rocMLIR's transform maps and layoutkit's extensions.

See :mod:`layoutkit.coords` for the public API.
"""

from layoutkit.core.coords.affine import AffineMap, parse_affine_map
from layoutkit.core.coords.builders import BottomUpBuilder, TopDownBuilder
from layoutkit.core.coords.transform_map import (
    TransformChain,
    TransformMap,
    as_chain,
    compose,
    parse_transform_map,
)
from layoutkit.core.coords.transforms import KINDS, Transform

__all__ = [
    "KINDS", "AffineMap", "BottomUpBuilder", "TopDownBuilder", "Transform", "TransformChain",
    "TransformMap", "as_chain", "compose", "parse_affine_map", "parse_transform_map",
]
