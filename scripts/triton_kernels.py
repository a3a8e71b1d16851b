"""Triton kernels of our own, the inputs of the Triton front-end goldens.

Not run by CI (it needs ``triton``); ``scripts/generate_triton_frontend_goldens.py`` compiles
every entry of ``KERNELS`` with Triton 3.9 on a CPU and writes the TTIR and TTGIR it prints
into ``tests/triton/frontend/goldens/<name>/``.

Each ``Kernel`` names a ``@triton.jit`` function, its full signature (argument -> Triton type
string, ``"constexpr"`` for compile-time constants), the constexpr values, and the arguments
Triton would specialise as divisible by 16 (``tt.divisibility = 16`` on the function argument,
what a real launch with aligned pointers and sizes gives). Nothing here launches a kernel.

The kernels are written to cover the ops and layout rules of ``convert-triton-to-tritongpu``:
1-D/2-D/3-D tensors, reduce (one and two operands), scan, dot (f16 and tf32), trans/permute,
join/split/cat, reshape, gather, histogram, atomics, ``scf.for/if/while``, casts and integer ops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import triton
import triton.language as tl


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < n
    x = tl.load(x_ptr + offsets, mask=inside)
    y = tl.load(y_ptr + offsets, mask=inside)
    tl.store(out_ptr + offsets, x + y, mask=inside)


@triton.jit
def softmax_rows(in_ptr, out_ptr, n_rows, n_cols, row_stride,
                 ROWS: tl.constexpr, COLS: tl.constexpr):
    row0 = tl.program_id(0) * ROWS
    rows = row0 + tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    keep = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * row_stride + cols[None, :]
    x = tl.load(in_ptr + offs, mask=keep, other=-float("inf")).to(tl.float32)
    shifted = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(shifted)
    den = tl.sum(num, axis=1)
    tl.store(out_ptr + offs, (num / den[:, None]).to(tl.float16), mask=keep)


@triton.jit
def layer_norm_fwd(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n_cols, row_stride, eps,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=valid, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    centred = tl.where(valid, x - mean, 0.0)
    var = tl.sum(centred * centred, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=valid)
    b = tl.load(b_ptr + cols, mask=valid)
    y = centred * rstd * w + b
    tl.store(y_ptr + row * row_stride + cols, y.to(tl.float16), mask=valid)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
           stride_cm, stride_cn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    # grouped tile order: GROUP_M row-tiles share their B columns in L2
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % group_rows
    tile_n = (pid % per_group) // group_rows
    rm = (tile_m * BM + tl.arange(0, BM)) % M
    rn = (tile_n * BN + tl.arange(0, BN)) % N
    rm = tl.max_contiguous(tl.multiple_of(rm, BM), BM)
    rn = tl.max_contiguous(tl.multiple_of(rn, BN), BN)
    rk = tl.arange(0, BK)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        a = tl.load(a_tile, mask=rk[None, :] < left, other=0.0)
        b = tl.load(b_tile, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BK * stride_ak
        b_tile += BK * stride_bk
    cm = tile_m * BM + tl.arange(0, BM)
    cn = tile_n * BN + tl.arange(0, BN)
    c_tile = c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn
    tl.store(c_tile, acc.to(tl.float16), mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, stride_row, scale,
                  BM: tl.constexpr, BN: tl.constexpr, HEAD: tl.constexpr):
    # one block of queries against every block of keys/values, online softmax in base 2
    start = tl.program_id(0) * BM
    qrows = start + tl.arange(0, BM)
    dims = tl.arange(0, HEAD)
    q = tl.load(q_ptr + qrows[:, None] * stride_row + dims[None, :], mask=qrows[:, None] < seq_len)
    running_max = tl.full((BM,), -float("inf"), tl.float32)
    running_sum = tl.zeros((BM,), tl.float32)
    out = tl.zeros((BM, HEAD), tl.float32)
    qk_scale = scale * 1.4426950408889634
    for kv in range(0, seq_len, BN):
        kvrows = kv + tl.arange(0, BN)
        kv_ok = kvrows < seq_len
        k = tl.load(k_ptr + kvrows[:, None] * stride_row + dims[None, :], mask=kv_ok[:, None])
        v = tl.load(v_ptr + kvrows[:, None] * stride_row + dims[None, :], mask=kv_ok[:, None])
        s = tl.dot(q, tl.trans(k)) * qk_scale
        s = tl.where(kv_ok[None, :], s, -float("inf"))
        new_max = tl.maximum(running_max, tl.max(s, axis=1))
        p = tl.math.exp2(s - new_max[:, None])
        correction = tl.math.exp2(running_max - new_max)
        running_sum = running_sum * correction + tl.sum(p, axis=1)
        out = out * correction[:, None] + tl.dot(p.to(tl.float16), v)
        running_max = new_max
    out = out / running_sum[:, None]
    tl.store(o_ptr + qrows[:, None] * stride_row + dims[None, :], out.to(tl.float16),
             mask=qrows[:, None] < seq_len)


@triton.jit
def reduce_sum_2d(in_ptr, out_ptr, stride_row, AXIS: tl.constexpr, R: tl.constexpr, C: tl.constexpr):
    tile = tl.program_id(0)
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(in_ptr + tile * R * stride_row + rows[:, None] * stride_row + cols[None, :])
    total = tl.sum(x, axis=AXIS)
    if AXIS == 0:
        tl.store(out_ptr + tile * C + cols, total)
    else:
        tl.store(out_ptr + tile * R + rows, total)


@triton.jit
def argmax_rows(in_ptr, idx_ptr, val_ptr, n_cols, R: tl.constexpr, C: tl.constexpr):
    rows = tl.program_id(0) * R + tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(in_ptr + rows[:, None] * n_cols + cols[None, :], mask=cols[None, :] < n_cols,
                other=-float("inf"))
    best, where = tl.max(x, axis=1, return_indices=True)
    tl.store(idx_ptr + rows, where)
    tl.store(val_ptr + rows, best)


@triton.jit
def cumsum_rows(in_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    rows = tl.program_id(0) * R + tl.arange(0, R)
    cols = tl.arange(0, C)
    offs = rows[:, None] * C + cols[None, :]
    x = tl.load(in_ptr + offs)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=1))


@triton.jit
def outer3_reduce(a_ptr, b_ptr, c_ptr, out_ptr, X: tl.constexpr, Y: tl.constexpr, Z: tl.constexpr):
    # out[x, z] = sum_y a[x] * b[y] + c[z]   (3-D expand_dims, broadcast and a middle-axis reduce)
    a = tl.load(a_ptr + tl.arange(0, X))
    b = tl.load(b_ptr + tl.arange(0, Y))
    c = tl.load(c_ptr + tl.arange(0, Z))
    cube = a[:, None, None] * b[None, :, None] + c[None, None, :]
    plane = tl.sum(cube, axis=1)
    xs = tl.arange(0, X)
    zs = tl.arange(0, Z)
    tl.store(out_ptr + xs[:, None] * Z + zs[None, :], plane)


@triton.jit
def transpose_permute(in_ptr, out_ptr, cube_ptr, cube_out_ptr,
                      R: tl.constexpr, C: tl.constexpr, D0: tl.constexpr, D1: tl.constexpr,
                      D2: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    tile = tl.load(in_ptr + rows[:, None] * C + cols[None, :])
    flipped = tl.trans(tile)
    tl.store(out_ptr + cols[:, None] * R + rows[None, :], flipped)
    i = tl.arange(0, D0)[:, None, None]
    j = tl.arange(0, D1)[None, :, None]
    k = tl.arange(0, D2)[None, None, :]
    cube = tl.load(cube_ptr + i * (D1 * D2) + j * D2 + k)
    moved = tl.permute(cube, (2, 0, 1))
    ko = tl.arange(0, D2)[:, None, None]
    io = tl.arange(0, D0)[None, :, None]
    jo = tl.arange(0, D1)[None, None, :]
    tl.store(cube_out_ptr + ko * (D0 * D1) + io * D1 + jo, moved)


@triton.jit
def join_split_cat(a_ptr, b_ptr, pair_ptr, sum_ptr, cat_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    pairs = tl.join(a, b)
    two = tl.arange(0, 2)
    tl.store(pair_ptr + offs[:, None] * 2 + two[None, :], pairs)
    first, second = tl.split(pairs * 2.0)
    tl.store(sum_ptr + offs, first + second)
    both = tl.cat(a, b, can_reorder=True)
    tl.store(cat_ptr + tl.arange(0, 2 * N), both)


@triton.jit
def reshape_tile(in_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, W: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(in_ptr + offs)
    flat = tl.reshape(x, (R * C // W, W))
    rowmax = tl.max(flat, axis=1)
    back = tl.reshape(flat - rowmax[:, None], (R, C))
    tl.store(out_ptr + offs, back)


@triton.jit
def atomic_accumulate(vals_ptr, bins_ptr, total_ptr, max_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < n
    v = tl.load(vals_ptr + offs, mask=ok, other=0.0)
    b = tl.load(bins_ptr + offs, mask=ok, other=0)
    tl.atomic_add(total_ptr + b, v, mask=ok)
    tl.atomic_max(max_ptr + tl.program_id(0), tl.max(v, axis=0))


@triton.jit
def elementwise_mix(x_ptr, i_ptr, h_ptr, out_ptr, iout_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < n
    x = tl.load(x_ptr + offs, mask=ok, other=0.0)
    h = tl.load(h_ptr + offs, mask=ok, other=0.0)        # float16
    i = tl.load(i_ptr + offs, mask=ok, other=0)          # int32
    y = tl.maximum(x, h.to(tl.float32)) - tl.minimum(x, 0.0)
    y = tl.where(i > 3, tl.sqrt(tl.abs(y)), y / 3.0)
    y = tl.clamp(y, -2.0, 2.0) + i.to(tl.float32)
    tl.store(out_ptr + offs, y.to(tl.float16).to(tl.float32), mask=ok)
    j = ((i << 2) ^ (i >> 1)) & 255
    j = j % 7 + (i // 3) * tl.abs(i)
    tl.store(iout_ptr + offs, j.to(tl.int16).to(tl.int32), mask=ok)


@triton.jit
def histogram_bins(in_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(in_ptr + tl.arange(0, N))
    counts = tl.histogram(x, BINS)
    tl.store(out_ptr + tl.arange(0, BINS), counts)


@triton.jit
def gather_rows(src_ptr, idx_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    src = tl.load(src_ptr + offs)
    idx = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(src, idx, axis=1))


@triton.jit
def branch_and_while(x_ptr, out_ptr, n, limit, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if n > 0:                       # runtime condition: scf.if yielding a tensor
        x = x * 2.0
    else:
        x = x - 1.0
    steps = 0
    while tl.max(x, axis=0) < limit:  # scf.while carrying a tensor and a scalar
        x = x + 1.5
        steps += 1
    tl.store(out_ptr + offs, x + steps)


@triton.jit
def dot_tf32_epilogue(a_ptr, b_ptr, bias_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
    # one f32 tile product (tf32 on tensor cores), a bias row and a relu
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b) + tl.load(bias_ptr + rn)[None, :]
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.maximum(c, 0.0))


@triton.jit
def transpose_tile(in_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # triton issue 7815's shape: load a row-major tile, store it transposed (out[j, i] = in[i, j]);
    # the load and the store want different coalesced layouts, so a conversion must sit between
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    tile = tl.load(in_ptr + rm[:, None] * N + rn[None, :])
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], tile)


@triton.jit
def replicated_chain(in_ptr, out_ptr, row_ptr, R: tl.constexpr, C: tl.constexpr):
    # triton issue 10987's shape: a chain of divides on a reduced value, used both broadcast
    # back over the tile and stored per row; Triton computes the chain in the reduction's
    # slice layout, where every row's value is held (and divided) by many threads
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    offs = rows[:, None] * C + cols[None, :]
    x = tl.load(in_ptr + offs)
    total = tl.sum(x, axis=1)
    scale = total / 3.0
    scale = scale / 5.0
    scale = scale / 7.0
    scale = scale / 11.0
    tl.store(row_ptr + rows, scale)
    tl.store(out_ptr + offs, x / scale[:, None])


@dataclass(frozen=True)
class Kernel:
    """One golden: a jit function, the Triton type of each runtime argument, the constexpr
    values, and the arguments specialised as divisible by 16.

    ``signature`` is the full signature ``ASTSource`` wants, in argument order, e.g. for
    ``vector_add``: ``{"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
    "BLOCK": "constexpr"}``.
    """

    name: str
    fn: object
    types: dict
    constexprs: dict = field(default_factory=dict)
    divisible: tuple = ()

    def __post_init__(self):
        names = list(self.fn.arg_names)
        both = set(self.types) & set(self.constexprs)
        unknown = (set(self.types) | set(self.constexprs) | set(self.divisible)) - set(names)
        missing = [a for a in names if a not in self.types and a not in self.constexprs]
        if both or unknown or missing:
            raise ValueError(f"kernel {self.name!r}: typed and constexpr {sorted(both)}, "
                             f"unknown {sorted(unknown)}, untyped {missing}")

    @property
    def signature(self) -> dict:
        return {a: self.types.get(a, "constexpr") for a in self.fn.arg_names}

    @property
    def attrs(self) -> dict:
        """``ASTSource`` attributes: ``{(index,): [["tt.divisibility", 16]]}``."""
        names = list(self.fn.arg_names)
        return {(names.index(a),): [["tt.divisibility", 16]] for a in self.divisible}


# unit strides are constexpr 1, as Triton specialises an integer argument equal to 1 at launch
_MM = dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32",
           stride_am="i32", stride_bk="i32", stride_cm="i32")
_UNIT = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1}
_MM_DIV = ("a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm")

KERNELS = (
    Kernel("vector_add", vector_add,
           dict(x_ptr="*fp32", y_ptr="*fp32", out_ptr="*fp32", n="i32"),
           {"BLOCK": 1024}, ("x_ptr", "y_ptr", "out_ptr")),
    Kernel("softmax_rows", softmax_rows,
           dict(in_ptr="*fp16", out_ptr="*fp16", n_rows="i32", n_cols="i32",
                row_stride="i32"),
           {"ROWS": 4, "COLS": 256}, ("in_ptr", "out_ptr", "row_stride")),
    Kernel("layer_norm_fwd", layer_norm_fwd,
           dict(x_ptr="*fp16", w_ptr="*fp32", b_ptr="*fp32", y_ptr="*fp16",
                mean_ptr="*fp32", rstd_ptr="*fp32", n_cols="i32",
                row_stride="i32", eps="fp32"),
           {"BLOCK": 512}, ("x_ptr", "w_ptr", "b_ptr", "y_ptr", "mean_ptr", "rstd_ptr", "row_stride")),
    Kernel("matmul_64x64x32", matmul, _MM,
           {"BM": 64, "BN": 64, "BK": 32, "GROUP_M": 8, **_UNIT}, _MM_DIV),
    Kernel("matmul_128x128x64", matmul, _MM,
           {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8, **_UNIT}, _MM_DIV),
    Kernel("attention_fwd", attention_fwd,
           dict(q_ptr="*fp16", k_ptr="*fp16", v_ptr="*fp16", o_ptr="*fp16",
                seq_len="i32", stride_row="i32", scale="fp32"),
           {"BM": 64, "BN": 64, "HEAD": 64}, ("q_ptr", "k_ptr", "v_ptr", "o_ptr", "stride_row")),
    Kernel("reduce_sum_axis0", reduce_sum_2d,
           dict(in_ptr="*fp32", out_ptr="*fp32", stride_row="i32"),
           {"AXIS": 0, "R": 32, "C": 64}, ("in_ptr", "out_ptr", "stride_row")),
    Kernel("reduce_sum_axis1", reduce_sum_2d,
           dict(in_ptr="*fp32", out_ptr="*fp32", stride_row="i32"),
           {"AXIS": 1, "R": 32, "C": 64}, ("in_ptr", "out_ptr", "stride_row")),
    Kernel("argmax_rows", argmax_rows,
           dict(in_ptr="*fp32", idx_ptr="*i32", val_ptr="*fp32", n_cols="i32"),
           {"R": 16, "C": 128}, ("in_ptr", "idx_ptr", "val_ptr")),
    Kernel("cumsum_rows", cumsum_rows,
           dict(in_ptr="*fp32", out_ptr="*fp32"),
           {"R": 8, "C": 128}, ("in_ptr", "out_ptr")),
    Kernel("outer3_reduce", outer3_reduce,
           dict(a_ptr="*fp32", b_ptr="*fp32", c_ptr="*fp32", out_ptr="*fp32"),
           {"X": 8, "Y": 16, "Z": 32}, ("a_ptr", "b_ptr", "c_ptr", "out_ptr")),
    Kernel("transpose_permute", transpose_permute,
           dict(in_ptr="*fp16", out_ptr="*fp16", cube_ptr="*fp32",
                cube_out_ptr="*fp32"),
           {"R": 64, "C": 32, "D0": 4, "D1": 8, "D2": 16},
           ("in_ptr", "out_ptr", "cube_ptr", "cube_out_ptr")),
    Kernel("join_split_cat", join_split_cat,
           dict(a_ptr="*fp32", b_ptr="*fp32", pair_ptr="*fp32", sum_ptr="*fp32",
                cat_ptr="*fp32"),
           {"N": 256}, ("a_ptr", "b_ptr", "pair_ptr", "sum_ptr", "cat_ptr")),
    Kernel("reshape_tile", reshape_tile,
           dict(in_ptr="*fp32", out_ptr="*fp32"),
           {"R": 16, "C": 64, "W": 16}, ("in_ptr", "out_ptr")),
    Kernel("atomic_accumulate", atomic_accumulate,
           dict(vals_ptr="*fp32", bins_ptr="*i32", total_ptr="*fp32",
                max_ptr="*fp32", n="i32"),
           {"BLOCK": 256}, ("vals_ptr", "bins_ptr", "total_ptr", "max_ptr")),
    Kernel("elementwise_mix", elementwise_mix,
           dict(x_ptr="*fp32", i_ptr="*i32", h_ptr="*fp16", out_ptr="*fp32",
                iout_ptr="*i32", n="i32"),
           {"BLOCK": 512}, ("x_ptr", "i_ptr", "h_ptr", "out_ptr", "iout_ptr")),
    Kernel("histogram_bins", histogram_bins,
           dict(in_ptr="*i32", out_ptr="*i32"),
           {"N": 1024, "BINS": 64}, ("in_ptr", "out_ptr")),
    Kernel("gather_rows", gather_rows,
           dict(src_ptr="*fp32", idx_ptr="*i32", out_ptr="*fp32"),
           {"R": 32, "C": 32}, ("src_ptr", "idx_ptr", "out_ptr")),
    Kernel("branch_and_while", branch_and_while,
           dict(x_ptr="*fp32", out_ptr="*fp32", n="i32", limit="fp32"),
           {"BLOCK": 128}, ("x_ptr", "out_ptr")),
    Kernel("dot_tf32_epilogue", dot_tf32_epilogue,
           dict(a_ptr="*fp32", b_ptr="*fp32", bias_ptr="*fp32",
                c_ptr="*fp32"),
           {"BM": 32, "BN": 64, "BK": 32}, ("a_ptr", "b_ptr", "bias_ptr", "c_ptr")),
    Kernel("transpose_tile", transpose_tile,
           dict(in_ptr="*fp16", out_ptr="*fp16"),
           {"M": 64, "N": 64}, ("in_ptr", "out_ptr")),
    Kernel("replicated_chain", replicated_chain,
           dict(in_ptr="*fp32", out_ptr="*fp32", row_ptr="*fp32"),
           {"R": 64, "C": 64}, ("in_ptr", "out_ptr", "row_ptr")),
)
