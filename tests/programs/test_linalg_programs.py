"""The programs of examples/linalg/ compiled by the tile-and-distribute pipeline, run in the
simulator and compared with numpy (each reference written here with numpy's own ops), and
their kernels compiled by NVRTC."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from layoutkit import LayoutError
from layoutkit.backends.simt.host import host_functions, run_function
from layoutkit.cli.compile import compile_module
from layoutkit.cli.opt import print_ir
from layoutkit.ir import parse_module

EXAMPLES = Path(__file__).parents[2] / "examples" / "linalg"


def _softmax(x):
    x = x.astype(np.float64)
    top = x.max(axis=1)
    e = np.exp(x - top[:, None])
    return e / e.sum(axis=1)[:, None], top, e.sum(axis=1)


def _conv(x, w):
    n, h, wd, _ = x.shape
    kh, kw, _, f = w.shape
    out = np.zeros((n, h - kh + 1, wd - kw + 1, f))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,cf->nhwf", x[:, i:i + h - kh + 1, j:j + wd - kw + 1, :], w[i, j])
    return (out,)


def _slices(x, y):
    out = np.zeros((12, 12))
    out[1:11, 2:10] = x[2:12, 4:20:2] + y
    return out


# program -> (input shapes, numpy reference returning a tuple of results)
PROGRAMS = {
    "matmul": ([(32, 24), (24, 16)], lambda a, b: (a @ b,)),
    "elementwise": ([(10, 15), (15,)], lambda x, v: ((x + v[None, :]) * x,)),
    "add_broadcast_multiply": ([(10, 15), (10, 15), (15,)], lambda x, y, v: ((x + y) * v[None, :],)),
    "batch_matmul": ([(3, 12, 10), (3, 10, 20)], lambda a, b: (np.matmul(a, b),)),
    "matmul_bias_relu": ([(32, 24), (24, 16), (16,)], lambda a, b, c: (np.maximum(a @ b + c, 0),)),
    "softmax": ([(6, 40)], _softmax),
    "column_sum": ([(20, 12)], lambda x: (x.sum(axis=0),)),
    "conv2d": ([(1, 10, 10, 4), (3, 3, 4, 8)], _conv),
    "transpose": ([(20, 36)], lambda x: (x.T,)),
    "matmul_partial": ([(30, 7), (7, 13)], lambda a, b: (a @ b,)),
    "tril": ([(20, 20)], lambda x: (np.tril(x),)),
    "slices": ([(16, 24), (10, 8)], lambda x, y: (_slices(x, y),)),
    "conv2d_same": ([(1, 8, 8, 4), (3, 3, 4, 8)],
                    lambda x, w: _conv(np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))), w)),
}

# (program, tile sizes, workgroup size): the default configuration and a few others
CONFIGS = [(name, None, None) for name in PROGRAMS] + [
    ("batch_matmul", "1,4,8", None),
    ("batch_matmul", "2,8,8", "4,2,2"),
    ("conv2d", "0,4,8,4", None),
    ("conv2d", "0,3,3,8", "4,3,3"),   # partial tiles: the input windows clamp with affine.min
    ("softmax", "4", None),
    ("column_sum", "5", "2"),
    ("transpose", "8,16", "8,4"),
    ("matmul_partial", "16,4", "2,4"),
    ("elementwise", "8,8", None),     # 10x15 in 8x8 tiles: partial in both loops
    ("tril", "8,16", "4,4"),          # linalg.index: the tile's offset plus the thread's row/column
    ("tril", "0,6", "6"),
    ("slices", "4,3", "2,2"),         # tiles of a strided slice, into a slice of the result
    ("conv2d_same", "0,3,3,8", "4,3,3"),  # partial tiles of the padded buffer and the output
]


def compile_program(name: str, tiles=None, workgroup=None):
    text = (EXAMPLES / f"{name}.mlir").read_text()
    return compile_module(parse_module(text), tile_sizes=tiles, workgroup_size=workgroup)


@pytest.mark.parametrize(("name", "tiles", "workgroup"), CONFIGS)
def test_program_runs_equal_to_numpy(name, tiles, workgroup):
    shapes, reference = PROGRAMS[name]
    rng = np.random.default_rng(len(name))
    inputs = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    module = compile_program(name, tiles, workgroup)
    text = print_ir(module)
    assert "tensor<" not in text and "linalg." not in text
    (function,) = host_functions(module)
    results = run_function(module, function, [x.copy() for x in inputs])
    expected = reference(*[x.astype(np.float64) for x in inputs])
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_kernels_compile_with_nvrtc(name):
    from layoutkit.backends.cuda import emit_cuda
    from layoutkit.backends.cuda.compile import compile_cuda, nvrtc_available

    if not nvrtc_available():
        pytest.skip("NVRTC is not installed (pip install -e '.[test]')")
    module = parse_module(print_ir(compile_program(name)))
    result = compile_cuda(emit_cuda(module), "sm_90", compiler="nvrtc")
    launches = print_ir(module).count("gpu.launch_func")
    assert len(result.kernels) == launches, result.report()


@pytest.mark.parametrize(("stride", "tiles"), [(2, None), (2, "0,3,2,8"), (3, "0,2,4,4")])
def test_strided_convolution(stride, tiles):
    """Input rows d1 * stride + d4: each tile's window starts at stride times its offset."""
    text = (EXAMPLES / "conv2d.mlir").read_text().replace("strides = dense<1>", f"strides = dense<{stride}>")
    out = (10 - 3) // stride + 1
    text = text.replace("1x8x8x8xf32", f"1x{out}x{out}x8xf32")
    rng = np.random.default_rng(stride)
    x = rng.standard_normal((1, 10, 10, 4)).astype(np.float32)
    w = rng.standard_normal((3, 3, 4, 8)).astype(np.float32)
    module = compile_module(parse_module(text), tile_sizes=tiles)
    (got,) = run_function(module, "conv2d", [x, w])
    (full,) = _conv(x.astype(np.float64), w.astype(np.float64))
    np.testing.assert_allclose(got, full[:, ::stride, ::stride, :], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("change", "message"), [
    (("%z[1, 2] [10, 8]", "%z[%c1, 2] [10, 8]"), "dynamic offsets"),
    (("ins(%window, %y", "ins(%y, %y"), None),
])
def test_slice_variants(change, message):
    text = (EXAMPLES / "slices.mlir").read_text().replace(*change)
    if "%c1" in text:
        text = text.replace("%zero = arith.constant", "%c1 = arith.constant 1 : index\n  %zero = arith.constant")
    if message:
        with pytest.raises(LayoutError, match=message):
            compile_module(parse_module(text))
        return
    y = np.random.default_rng(7).standard_normal((10, 8)).astype(np.float32)
    (got,) = run_function(compile_module(parse_module(text)), "slices", [np.zeros((16, 24), np.float32), y])
    want = np.zeros((12, 12), np.float32)
    want[1:11, 2:10] = 2 * y
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_insert_slice_before_its_destination_is_written_is_an_error():
    text = (EXAMPLES / "slices.mlir").read_text()
    fill = "  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<12x12xf32>) -> tensor<12x12xf32>\n"
    text = text.replace(fill, "").replace("  %r = tensor.insert_slice", fill + "  %r = tensor.insert_slice")
    with pytest.raises(LayoutError, match="bufferize: tensor.insert_slice in @slices would overwrite"):
        compile_module(parse_module(text))


PAD = "low[0, 1, 1, 0] high[0, 1, 1, 0]"


@pytest.mark.parametrize(("low", "high", "value"), [("0, 2, 0, 0", "0, 0, 3, 0", "1.5"),
                                                    ("0, 0, 0, 0", "0, 2, 2, 0", "-2.0")])
def test_padding_amounts_and_values(low, high, value):
    """Asymmetric padding with a nonzero value: the result is a convolution of np.pad's array."""
    lows, highs = ([int(v) for v in t.split(",")] for t in (low, high))
    h, w = 8 + lows[1] + highs[1], 8 + lows[2] + highs[2]
    text = (EXAMPLES / "conv2d_same.mlir").read_text().replace(PAD, f"low[{low}] high[{high}]")
    text = text.replace("1x10x10x4xf32", f"1x{h}x{w}x4xf32").replace("1x8x8x8xf32", f"1x{h - 2}x{w - 2}x8xf32")
    text = text.replace("tensor.yield %zero", "tensor.yield %pad").replace(
        "%zero = arith.constant", f"%pad = arith.constant {value} : f32\n  %zero = arith.constant")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 8, 8, 4)).astype(np.float32)
    f = rng.standard_normal((3, 3, 4, 8)).astype(np.float32)
    (got,) = run_function(compile_module(parse_module(text)), "conv2d_same", [x, f])
    padded = np.pad(x.astype(np.float64), [(lo, hi) for lo, hi in zip(lows, highs)], constant_values=float(value))
    (want,) = _conv(padded, f.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("change", "message"), [
    (("tensor.yield %zero", "%v = arith.index_cast %j : index to i64\n    %u = arith.sitofp %v : i64 to f32\n"
      "    tensor.yield %u"), "tensor.pad in @conv2d_same must yield one value defined outside its body"),
    ((PAD, "low[0, %c1, 1, 0] high[0, 1, 1, 0]"), "tensor.pad with dynamic low or high padding in @conv2d_same"),
])
def test_pad_errors(change, message):
    text = (EXAMPLES / "conv2d_same.mlir").read_text().replace(*change)
    if "%c1" in text:
        text = text.replace("tensor<1x10x10x4xf32>", "tensor<1x?x10x4xf32>").replace(
            "%zero = arith.constant", "%c1 = arith.constant 1 : index\n  %zero = arith.constant")
    with pytest.raises(LayoutError, match=message):
        compile_module(parse_module(text))
