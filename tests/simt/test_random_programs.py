"""Random straight-line integer programs: the simulator against Python integers."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutkit

from .kernels import chain_module
from .reference import BINARY, DIVISION, wrap

# every integer op with its exact reference (b != 0 guaranteed for divisions)
REFERENCE = {**BINARY, **DIVISION}
SHIFTS = {"arith.shli", "arith.shrsi", "arith.shrui"}
DIVISIONS = set(DIVISION)


@settings(max_examples=25, deadline=None)
@given(
    bits=st.sampled_from([8, 16, 32, 64]),
    ops=st.lists(st.sampled_from(sorted(REFERENCE)), min_size=1, max_size=6),
    data=st.data(),
)
def test_random_integer_chain(bits, ops, data):
    threads = 8
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    x = data.draw(st.lists(st.integers(lo, hi), min_size=threads, max_size=threads))
    operands = []
    for op in ops:
        if op in SHIFTS:
            operands.append(data.draw(st.lists(st.integers(0, bits - 1), min_size=threads, max_size=threads)))
        elif op in DIVISIONS:
            operands.append(data.draw(st.lists(st.integers(lo, hi).filter(bool), min_size=threads,
                                               max_size=threads)))
        else:
            operands.append(data.draw(st.lists(st.integers(lo, hi), min_size=threads, max_size=threads)))
    module = chain_module(f"i{bits}", threads, ops)
    dtype = np.dtype(f"int{bits}")
    out = np.zeros(threads, dtype)
    layoutkit.simulate(module, "k", grid=1, block=threads,
                       args={"x": np.array(x, dtype), "y": np.array(operands, dtype), "o": out})
    expected = []
    for i in range(threads):
        value = x[i]
        for op, column in zip(ops, operands):
            # results wrap to the width (MIN / -1 too, which the hardware leaves undefined)
            value = wrap(REFERENCE[op](value, column[i], bits), bits)
        expected.append(value)
    assert out.tolist() == expected


FLOAT_REFERENCE = {
    "arith.addf": lambda a, b: a + b,
    "arith.subf": lambda a, b: a - b,
    "arith.mulf": lambda a, b: a * b,
    "arith.divf": lambda a, b: a / b,
    "arith.maximumf": max,
    "arith.minnumf": min,
}


@settings(max_examples=25, deadline=None)
@given(
    type_=st.sampled_from(["f16", "bf16", "f32"]),
    ops=st.lists(st.sampled_from(sorted(FLOAT_REFERENCE)), min_size=1, max_size=6),
    data=st.data(),
)
def test_random_float_chain_rounds_every_op(type_, ops, data):
    """Each op's exact result (in float64, exact or far more precise than the target for
    + - * /) rounded once to the type: what IEEE hardware computes."""
    import ml_dtypes

    dtype = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}[type_]
    threads = 8
    values = st.floats(0.25, 8.0, allow_nan=False, allow_infinity=False)
    x = np.array(data.draw(st.lists(values, min_size=threads, max_size=threads))).astype(dtype)
    y = np.array(data.draw(st.lists(st.lists(values, min_size=threads, max_size=threads),
                                    min_size=len(ops), max_size=len(ops)))).astype(dtype)
    module = chain_module(type_, threads, ops)
    out = np.zeros(threads, dtype)
    layoutkit.simulate(module, "k", grid=1, block=threads, args={"x": x, "y": y, "o": out})
    for i in range(threads):
        value = float(x[i])
        for k, op in enumerate(ops):
            exact = FLOAT_REFERENCE[op](value, float(y[k, i]))
            value = float(np.array([exact], np.float64).astype(dtype)[0])
        assert float(out[i]) == value or (np.isnan(out[i]) and np.isnan(value))
