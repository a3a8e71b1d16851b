"""The algebra: F2 linear layouts, CuTe shape:stride layouts, coordinate transformation
chains, tables and equivalence. Imports no IR, plotting or CUDA code."""
