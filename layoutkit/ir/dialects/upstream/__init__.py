"""MLIR's upstream dialects: xDSL's where it has them, layoutkit's patches where it lacks
MLIR's custom syntax or an op."""
