"""Coordinate transformations: rocMLIR's transform maps and layoutkit's extensions.

One module per concept (``transforms``, ``transform_map``, ``affine``, ``builders``,
``bounds``, ``index_diff``, ``codegen``); :mod:`layoutkit.coords` is the public API.
"""
