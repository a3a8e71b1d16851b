"""run_cuda: argument checks (everywhere) and, on a machine with a GPU, the example kernels
launched for real and compared with numpy and with the simulator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from layoutkit import LayoutError
from layoutkit.backends.cuda.run import gpu_available, run_cuda

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kernels"
VECTOR_ADD = (EXAMPLES / "vector_add.mlir").read_text()
HAS_GPU = gpu_available()


@pytest.mark.parametrize(("grid", "block", "args", "message"), [
    (0, 256, None, "grid"),
    ((1, 2, 3, 4), 256, None, "grid"),
    (4, (), None, "block"),
    (4, 256, [np.zeros(4, np.float32)] * 2, "takes 3 arguments"),
    (4, 256, {"a": np.zeros(4, np.float32), "b": np.zeros(4, np.float32)}, "missing kernel argument"),
    (4, 256, [np.zeros(4, np.float32), np.zeros(4, np.float32), 3.0], "expected a numpy array"),
    (4, 256, [np.zeros((2, 2), np.float32)] * 3, "must have shape"),
    (4, 256, [np.zeros(4, np.float64)] * 3, "float elements"),
    ("abc", 256, None, "grid"),
    (1.5, 256, None, "grid"),
    (True, 256, None, "grid"),
    (4, [32, 0.5], None, "block"),
    (4, 2**31, None, "block"),
    (4, 256, "abc", "args: expected a list or a dict"),
    (4, 256, 7, "args: expected a list or a dict"),
])
def test_bad_arguments_are_layout_errors(grid, block, args, message):
    arrays = args if args is not None or message.startswith("args") else [np.zeros(4, np.float32)] * 3
    with pytest.raises(LayoutError, match=message):
        run_cuda(VECTOR_ADD, "vector_add", grid, block, arrays)


def test_kernel_must_be_a_name():
    with pytest.raises(LayoutError, match="kernel: expected the kernel's name, got '5'"):
        run_cuda(VECTOR_ADD, 5, 1, 32, [])


def test_unknown_kernel():
    with pytest.raises(LayoutError, match="no gpu.func named 'nope'"):
        run_cuda(VECTOR_ADD, "nope", 1, 32, [])


@pytest.mark.skipif(HAS_GPU, reason="a GPU is present: test_examples_on_the_gpu runs instead")
def test_without_a_gpu_says_so():
    arrays = [np.zeros(1024, np.float32) for _ in range(3)]
    with pytest.raises(LayoutError, match="no CUDA GPU"):
        run_cuda(VECTOR_ADD, "vector_add", 4, 256, arrays)


@pytest.mark.skipif(not HAS_GPU, reason="no CUDA GPU on this machine: run_cuda needs one")
def test_examples_on_the_gpu():
    from layoutkit import simulate

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    c_gpu, c_sim = np.zeros(1000, np.float32), np.zeros(1000, np.float32)
    run_cuda(VECTOR_ADD, "vector_add", 4, 256, {"a": a, "b": b, "c": c_gpu})
    simulate(VECTOR_ADD, "vector_add", 4, 256, {"a": a, "b": b, "c": c_sim})
    np.testing.assert_array_equal(c_gpu, a + b)
    np.testing.assert_array_equal(c_gpu, c_sim)

    text = (EXAMPLES / "transpose_swizzled.mlir").read_text()
    x = rng.standard_normal((256, 256)).astype(np.float32)
    out = np.zeros_like(x)
    run_cuda(text, "transpose_swizzled", (8, 8), (32, 8), [x, out])
    np.testing.assert_array_equal(out, x.T)
