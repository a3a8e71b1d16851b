"""Kernel IR on xDSL (MLIR-compatible text): dialects and ops layoutkit adds."""
