"""The IR's dialects, one module each; every module registers itself in
:mod:`layoutkit.ir.registry` when imported (the registry finds them all).

``upstream/`` holds MLIR's upstream dialects: xDSL's as they are (``xdsl.py``), and
layoutkit's patches where xDSL lacks MLIR's syntax or an op (``gpu``, ``memref.global``,
``nvgpu``, ...). Modules beside it are layoutkit's own: the layout attribute of every
family (``layouts.py``), and the compilers' dialects as they are added.
"""
