"""A @triton.jit matmul compiled by Triton on the CPU (sm_80) and run by layoutkit with its
layouts: the output equals numpy, and the cost report shows the hot spots.

    python examples/triton/matmul_jit.py        # needs Triton: pip install triton==3.9.0

The kernel is the matmul of scripts/triton_kernels.py (64x64x32 tiles, grouped tile order,
a 3-stage cp.async pipeline), 256x256x256 f16.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np

import layoutkit.triton

# scripts/triton_kernels.py, loaded by its path (it is not a package)
spec = importlib.util.spec_from_file_location(
    "triton_kernels", Path(__file__).resolve().parents[2] / "scripts" / "triton_kernels.py")
kernels = importlib.util.module_from_spec(spec)
sys.modules["triton_kernels"] = kernels
spec.loader.exec_module(kernels)

rng = np.random.default_rng(0)
M = N = K = 256
a = rng.standard_normal((M, K)).astype(np.float16)
b = rng.standard_normal((K, N)).astype(np.float16)
c = np.zeros((M, N), np.float16)
result = layoutkit.triton.simulate(kernels.matmul, (16,), a, b, c, M, N, K, K, 1, N, 1, N, 1,
                                   BM=64, BN=64, BK=32, GROUP_M=8, num_warps=4, target="cuda:80")
error = np.abs(c.astype(np.float32) - a.astype(np.float32) @ b.astype(np.float32)).max()
print(f"max |c - a @ b| = {error:.4f} (f16 output)")
print(result.report.text(top=3), end="")
