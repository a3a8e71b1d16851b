"""The seed's reworked GPU pipeline for a dynamic ``f16 x f16 -> f32`` matmul (seed 002,
"GPU Pipeline Rework"): the configuration it is driven by and the IR of each stage.

``linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%c : tensor<?x?xf32>)``
(``C += A @ B``, products of f16 values summed in f32) goes through eight passes, one per
stage, each one file in ``layoutkit/passes`` (``pcf-matmul`` pipeline):

1. ``pcf-create-dispatch-config``: ``translation_info`` on the function (pipeline
   ``RunClusterDistribute``, 128 threads = a 2x2 grid of 32-lane subgroups) and the
   ``lowering_config`` (workgroup tile ``TM x TN x TK``, subgroup split) on the matmul.
2. ``pcf-apply-workgroup-tiling``: a ``pcf.loop`` at workgroup scope over the
   ``ceil(M/TM) x ceil(N/TN)`` tile grid; each tile reads its slices of A and B, reads the C
   tile from the loop's sref, multiplies, writes it back.
3. ``pcf-wrap-workgroup-body``: the tile's matmul nested in a ``pcf.shared_executor`` at
   subgroup scope (C tile read-write, A and B tiles read-only).
4. ``pcf-form-run-cluster-flow``: the executor body as three ``run_cluster`` phases on the
   threadgroup: initialise the accumulator (the C tile zero-padded to ``TM x TN``), a K loop
   carrying it as the threadgroup's shared payload, write back.
5. ``pcf-introduce-shared-memory-copies``: ``pcf.alloc`` panels for A (``TM x TK``) and B
   (``TK x TN``) and each K step split into a copy cluster and a compute cluster.
6. ``pcf-distribute-run-cluster-to-subgroups``: a ``pcf.generic`` over the 2x2 subgroups;
   each copies a quarter of the panels and owns a ``TM/2 x TN/2`` accumulator, the phases
   kept as ``run_cluster`` at lane scope; ``gpu.barrier`` between copy and compute (the
   panels are read by other subgroups).
7. ``pcf-distribute-run-cluster-to-lanes``: a lane ``pcf.generic``; lanes copy 8-element
   chunks, each lane's accumulator is a packed ``tensor<MI x NI x 2 x 2 x f32>`` of
   ``mma.sync m16n8k16`` C fragments carried through the K loop, fragments of A and B are
   read from the panels in the PTX register layout and multiplied with ``nvgpu.mma.sync``;
   the lanes place the panels' 8-element chunks XOR-swizzled (:attr:`MatmulConfig.swizzle`)
   so that fragment reads are free of bank conflicts.
8. ``pcf-vectorize-lane-code``: the lane code on vectors and buffers: function tensors
   become memrefs, the packed accumulator a private ``memref.alloca`` of fragments.

The existing lowering (``pcf-convert-sref-to-memref``, ``pcf-lower-structural``,
``gpu-outline-kernels``) then makes the kernel. Fragment layout (PTX ISA, lane =
4 * group + pair): A reg r holds row ``group + 8*(r%2)``, columns ``2*pair + 8*(r/2) + {0,1}``;
B reg r holds k rows ``2*pair + 8*r + {0,1}`` of column ``group``; C reg r holds row
``group + 8*r``, columns ``2*pair + {0,1}``.

Each pass recognises its input stage and rebuilds the function's body as the next stage
from the configuration (the stages are specific to this matmul, as the seed's passes are).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    i64,
)

from layoutkit.errors import LayoutError

SG = "#iree_gpu.subgroup_scope"
LN = "#iree_gpu.lane_scope"
WG = "#iree_codegen.workgroup_scope<linearize>"
TG = f"!pcf.threadgroup<{SG}>"
TGL = f"!pcf.threadgroup<{LN}>"
OUT = f"!pcf.sref<?x?xf32, sync({WG})>"
MMA = (16, 8, 16)
SUBGROUP_SIZE = 32
SPLIT = (2, 2)
PIPELINE = "RunClusterDistribute"


@dataclass(frozen=True)
class MatmulConfig:
    """The workgroup tile ``TM x TN x TK`` of the pipeline with a 2x2 subgroup split.

    Each subgroup owns a ``TM/2 x TN/2`` block of ``(TM/32) x (TN/16)`` mma tiles of 16x8;
    each of the 4 subgroups copies a quarter of the A panel's rows and of the B panel's k rows.
    Example: 128x256x64 -> subgroup blocks 64x128, 4x16 mma tiles, 4 k steps of 16.
    """

    tile_m: int = 128
    tile_n: int = 256
    tile_k: int = 64

    def __post_init__(self) -> None:
        for name, value, multiple in (("M", self.tile_m, SPLIT[0] * MMA[0]), ("N", self.tile_n, SPLIT[1] * MMA[1]),
                                      ("K", self.tile_k, MMA[2])):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value % multiple:
                raise LayoutError(f"tile-sizes: the {name} tile must be a positive multiple of {multiple} "
                                  f"(2x2 subgroups of mma.sync m16n8k16), got {value!r}")
        if self.tile_m * self.tile_k + self.tile_k * self.tile_n > 48 * 1024 // 2:
            raise LayoutError(f"tile-sizes: panels of {self.tile_m}x{self.tile_k} and {self.tile_k}x"
                              f"{self.tile_n} f16 exceed 48 KiB of shared memory")

    @classmethod
    def from_sizes(cls, sizes) -> MatmulConfig:
        sizes = tuple(sizes)
        if len(sizes) != 3:
            raise LayoutError(f"tile-sizes: expected M,N,K such as 128,256,64, got {','.join(map(str, sizes))!r}")
        return cls(*sizes)

    @property
    def sub(self) -> tuple[int, int]:
        return self.tile_m // SPLIT[0], self.tile_n // SPLIT[1]

    @property
    def frags(self) -> tuple[int, int]:
        return self.sub[0] // MMA[0], self.sub[1] // MMA[1]

    @property
    def swizzle(self) -> tuple[int, int]:
        """Rows over which the panels' 8-element chunks are XOR-permuted: A chunk ``c`` of row
        ``r`` is stored at ``c ^ (r mod sa)``, B chunk ``c`` of k row ``k`` at
        ``c ^ ((k / 2) mod sb)`` (``sa``, ``sb``: the largest powers of two dividing the chunks
        per row, at most 8 and 4). Example: TK = 64, TN = 256 -> (8, 4): the 8 rows of an A
        fragment and the 4 k-row pairs of a B fragment fall in different banks."""
        def power(chunks: int, cap: int) -> int:
            return min(cap, chunks & -chunks)

        return power(self.tile_k // 8, 8), power(self.tile_n // 8, 4)

    @property
    def threads(self) -> int:
        return SPLIT[0] * SPLIT[1] * SUBGROUP_SIZE

    def translation_info(self) -> DictionaryAttr:
        return DictionaryAttr({
            "pipeline": StringAttr(PIPELINE),
            "workgroup_size": DenseArrayBase.from_list(i64, [self.threads, 1, 1]),
            "subgroup_size": IntegerAttr(SUBGROUP_SIZE, i64),
            "workgroup_tile": DenseArrayBase.from_list(i64, [self.tile_m, self.tile_n, self.tile_k]),
            "subgroup_split": DenseArrayBase.from_list(i64, list(SPLIT)),
            "mma_shape": DenseArrayBase.from_list(i64, list(MMA)),
        })

    def lowering_config(self) -> str:
        return (f"{{lowering_config = {{workgroup = array<i64: {self.tile_m}, {self.tile_n}, {self.tile_k}>, "
                f"subgroup_split = array<i64: {SPLIT[0]}, {SPLIT[1]}>}}}}")


def config_of(function: func.FuncOp) -> MatmulConfig | None:
    """The configuration recorded by ``pcf-create-dispatch-config`` on ``function``, if any."""
    info = function.attributes.get("translation_info")
    if not isinstance(info, DictionaryAttr) or info.data.get("pipeline") != StringAttr(PIPELINE):
        return None
    tile = info.data.get("workgroup_tile")
    return MatmulConfig.from_sizes(tile.get_values()) if isinstance(tile, DenseArrayBase) else None


def signature(function: func.FuncOp) -> tuple[str, str, str]:
    """The names of ``function``'s A, B and C arguments (``a``, ``b``, ``c`` when unnamed)."""
    args = function.body.blocks.first.args
    return tuple(a.name_hint or d for a, d in zip(args, "abc"))


def is_matmul_signature(function: func.FuncOp) -> bool:
    """``(tensor<?x?xf16>, tensor<?x?xf16>, tensor<?x?xf32>) -> tensor<?x?xf32>``."""
    want = ["tensor<?x?xf16>", "tensor<?x?xf16>", "tensor<?x?xf32>"]
    inputs = [str(t) for t in function.function_type.inputs.data]
    outputs = [str(t) for t in function.function_type.outputs.data]
    return inputs == want and outputs == want[2:] and all(isinstance(t, TensorType)
                                                          for t in function.function_type.inputs.data)


# ---------------------------------------------------------------- text of the stages
def _pad(name: str, source: str, shape: tuple[int, int], sizes: str, elt: str, zero: str, indent: str) -> str:
    """``%name``: the dynamic ``tensor<?x?xelt>`` ``source`` (sizes ``sizes``) zero-padded to ``shape``."""
    t = f"tensor<{shape[0]}x{shape[1]}x{elt}>"
    return (f"{indent}%{name}_e = tensor.empty() : {t}\n"
            f"{indent}%{name}_z = linalg.fill ins({zero} : {elt}) outs(%{name}_e : {t}) -> {t}\n"
            f"{indent}%{name} = tensor.insert_slice {source} into %{name}_z[0, 0] [{sizes}] [1, 1] "
            f": tensor<?x?x{elt}> into {t}\n")


def _header(fname: str, names, cfg: MatmulConfig, bufferized: bool = False) -> str:
    a, b, c = names
    kind = "memref" if bufferized else "tensor"
    info = str(cfg.translation_info())
    return (f"func.func @{fname}(%{a}: {kind}<?x?xf16>, %{b}: {kind}<?x?xf16>, %{c}: {kind}<?x?xf32>) "
            f"-> {kind}<?x?xf32> attributes {{translation_info = {info}}} {{\n"
            f"  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            f"  %c2 = arith.constant 2 : index\n"
            f"  %tile_m = arith.constant {cfg.tile_m} : index\n  %tile_n = arith.constant {cfg.tile_n} : index\n"
            f"  %tile_k = arith.constant {cfg.tile_k} : index\n"
            f"  %zf = arith.constant 0.0 : f32\n  %zh = arith.constant 0.0 : f16\n"
            f"  %M = {kind}.dim %{a}, %c0 : {kind}<?x?xf16>\n  %K = {kind}.dim %{a}, %c1 : {kind}<?x?xf16>\n"
            f"  %N = {kind}.dim %{b}, %c1 : {kind}<?x?xf16>\n"
            f"  %tm = arith.ceildivui %M, %tile_m : index\n  %tn = arith.ceildivui %N, %tile_n : index\n"
            f"  %kt = arith.ceildivui %K, %tile_k : index\n"
            f"  %r = pcf.loop scope({WG}) count(%tm, %tn)\n"
            f"    execute(%out = %{c})[%i: index, %j: index]\n"
            f"         : ({OUT}) -> ({kind}<?x?xf32>) {{\n"
            f"    %m0 = arith.muli %i, %tile_m : index\n    %n0 = arith.muli %j, %tile_n : index\n")


def _footer(kind: str = "tensor") -> str:
    return f"    pcf.return\n  }}\n  func.return %r : {kind}<?x?xf32>\n}}\n"


def _tile_slices(names) -> str:
    """The tile's extent (``%ms x %ns``) and its slices of A and B and the C tile read."""
    a, b, _ = names
    return ("    %mr = arith.subi %M, %m0 : index\n    %ms = arith.minui %mr, %tile_m : index\n"
            "    %nr = arith.subi %N, %n0 : index\n    %ns = arith.minui %nr, %tile_n : index\n"
            f"    %at = tensor.extract_slice %{a}[%m0, 0] [%ms, %K] [1, 1] : tensor<?x?xf16> to tensor<?x?xf16>\n"
            f"    %bt = tensor.extract_slice %{b}[0, %n0] [%K, %ns] [1, 1] : tensor<?x?xf16> to tensor<?x?xf16>\n"
            f"    %ct = pcf.read_slice %out[%m0, %n0] [%ms, %ns] [1, 1] : {OUT} to tensor<?x?xf32>\n")


def _write_tile(value: str) -> str:
    return (f"    pcf.write_slice {value} into %out[%m0, %n0] [%ms, %ns] [1, 1] : tensor<?x?xf32> into {OUT}\n")


def stage_tiled(fname: str, names, cfg: MatmulConfig) -> str:
    """Stage 2: the workgroup ``pcf.loop`` with the tile's matmul."""
    return (_header(fname, names, cfg) + _tile_slices(names)
            + f"    %d = linalg.matmul {cfg.lowering_config()} ins(%at, %bt : tensor<?x?xf16>, tensor<?x?xf16>) "
              "outs(%ct : tensor<?x?xf32>) -> tensor<?x?xf32>\n"
            + _write_tile("%d") + _footer())


def _sref(shape: str, elt: str, scope: str = SG) -> str:
    return f"!pcf.sref<{shape}x{elt}, {scope}>"


def _executor_head() -> str:
    return (f"    %d = pcf.shared_executor scope({SG})\n"
            f"      execute(%acc = %ct, %lhs <- %at, %rhs <- %bt)[%tg: {TG}]\n"
            f"           : ({_sref('?x?', 'f32')}, {_sref('?x?', 'f16')}, {_sref('?x?', 'f16')})\n"
            f"          -> (tensor<?x?xf32>) reads(tensor<?x?xf16>, tensor<?x?xf16>) {{\n")


def stage_wrapped(fname: str, names, cfg: MatmulConfig) -> str:
    """Stage 3: the tile's matmul inside a subgroup-scope ``pcf.shared_executor``."""
    body = (f"      %x = pcf.read_slice %lhs[0, 0] [%ms, %K] [1, 1] : {_sref('?x?', 'f16')} to tensor<?x?xf16>\n"
            f"      %y = pcf.read_slice %rhs[0, 0] [%K, %ns] [1, 1] : {_sref('?x?', 'f16')} to tensor<?x?xf16>\n"
            f"      %z0 = pcf.read_slice %acc[0, 0] [%ms, %ns] [1, 1] : {_sref('?x?', 'f32')} to tensor<?x?xf32>\n"
            f"      %z = linalg.matmul {cfg.lowering_config()} ins(%x, %y : tensor<?x?xf16>, tensor<?x?xf16>) "
            "outs(%z0 : tensor<?x?xf32>) -> tensor<?x?xf32>\n"
            f"      pcf.write_slice %z into %acc[0, 0] [%ms, %ns] [1, 1] : tensor<?x?xf32> into {_sref('?x?', 'f32')}\n"
            "      pcf.return\n    }\n")
    return _header(fname, names, cfg) + _tile_slices(names) + _executor_head() + body + _write_tile("%d") + _footer()


def _acc_type(scope: str, shape: tuple[int, int]) -> str:
    return f"!pcf.threadgroup<{scope}, shared(tensor<{shape[0]}x{shape[1]}xf32>)>"


def _k_step(indent: str) -> str:
    return (f"{indent}%k0 = arith.muli %kk, %tile_k : index\n{indent}%kr = arith.subi %K, %k0 : index\n"
            f"{indent}%ks = arith.minui %kr, %tile_k : index\n")


def _flow(cfg: MatmulConfig, with_copies: bool) -> str:
    """Stages 4 and 5: the executor body as run_cluster phases (and the shared-memory copies)."""
    tm, tn, tk = cfg.tile_m, cfg.tile_n, cfg.tile_k
    acc = _acc_type(SG, (tm, tn))
    tacc = f"tensor<{tm}x{tn}xf32>"
    ind = " " * 10
    text = ""
    if with_copies:
        text += (f"      %lds_a = pcf.alloc() : {_sref(f'{tm}x{tk}', 'f16')}\n"
                 f"      %lds_b = pcf.alloc() : {_sref(f'{tk}x{tn}', 'f16')}\n")
    text += (f"      %acc0 = pcf.shared_executor.run_cluster %tg : {TG} -> {acc} {{\n"
             f"        %ci = pcf.read_slice %acc[0, 0] [%ms, %ns] [1, 1] : {_sref('?x?', 'f32')} to tensor<?x?xf32>\n"
             + _pad("cp", "%ci", (tm, tn), "%ms, %ns", "f32", "%zf", "        ")
             + f"        pcf.yield %cp : {tacc}\n      }}\n"
             f"      %accK = scf.for %kk = %c0 to %kt step %c1 iter_args(%cur = %acc0) -> ({acc}) {{\n")
    reads = (f"{ind}%x = pcf.read_slice %lhs[0, %k0] [%ms, %ks] [1, 1] : {_sref('?x?', 'f16')} to tensor<?x?xf16>\n"
             + _pad("xp", "%x", (tm, tk), "%ms, %ks", "f16", "%zh", ind)
             + f"{ind}%y = pcf.read_slice %rhs[%k0, 0] [%ks, %ns] [1, 1] : {_sref('?x?', 'f16')} to tensor<?x?xf16>\n"
             + _pad("yp", "%y", (tk, tn), "%ks, %ns", "f16", "%zh", ind))
    if with_copies:
        text += (_k_step("        ") + f"        pcf.shared_executor.run_cluster %tg : {TG} {{\n" + reads
                 + f"{ind}pcf.write_slice %xp into %lds_a[0, 0] [{tm}, {tk}] [1, 1] : tensor<{tm}x{tk}xf16> into "
                 f"{_sref(f'{tm}x{tk}', 'f16')}\n"
                 f"{ind}pcf.write_slice %yp into %lds_b[0, 0] [{tk}, {tn}] [1, 1] : tensor<{tk}x{tn}xf16> into "
                 f"{_sref(f'{tk}x{tn}', 'f16')}\n{ind}pcf.yield\n        }}\n")
        operands = (f"{ind}%xs = pcf.read_slice %lds_a[0, 0] [{tm}, {tk}] [1, 1] : {_sref(f'{tm}x{tk}', 'f16')} "
                    f"to tensor<{tm}x{tk}xf16>\n"
                    f"{ind}%ys = pcf.read_slice %lds_b[0, 0] [{tk}, {tn}] [1, 1] : {_sref(f'{tk}x{tn}', 'f16')} "
                    f"to tensor<{tk}x{tn}xf16>\n")
        x, y = "%xs", "%ys"
    else:
        operands, x, y = _k_step(ind) + reads, "%xp", "%yp"
    text += (f"        %next = pcf.shared_executor.run_cluster %tg ins(%cur : {acc}) : {TG} -> {acc} {{\n"
             f"        ^bb0(%accv: {tacc}):\n" + operands
             + f"{ind}%z = linalg.matmul ins({x}, {y} : tensor<{tm}x{tk}xf16>, tensor<{tk}x{tn}xf16>) "
               f"outs(%accv : {tacc}) -> {tacc}\n"
             f"{ind}pcf.yield %z : {tacc}\n        }}\n        scf.yield %next : {acc}\n      }}\n"
             f"      pcf.shared_executor.run_cluster %tg ins(%accK : {acc}) : {TG} {{\n"
             f"      ^bb0(%final: {tacc}):\n"
             f"        %fs = tensor.extract_slice %final[0, 0] [%ms, %ns] [1, 1] : {tacc} to tensor<?x?xf32>\n"
             f"        pcf.write_slice %fs into %acc[0, 0] [%ms, %ns] [1, 1] : tensor<?x?xf32> into {_sref('?x?', 'f32')}\n"
             "        pcf.yield\n      }\n      pcf.return\n    }\n")
    return text


def stage_flow(fname: str, names, cfg: MatmulConfig, with_copies: bool = False) -> str:
    """Stage 4 (``with_copies`` False) or 5: run-cluster phases, the accumulator through K."""
    return (_header(fname, names, cfg) + _tile_slices(names) + _executor_head() + _flow(cfg, with_copies)
            + _write_tile("%d") + _footer())


def _clamp(name: str, extent: str, offset: str, size: str, ind: str) -> str:
    """``%name = min(size, max(extent, offset) - offset)``: the valid rows of a block at ``offset``."""
    return (f"{ind}%{name}_x = arith.maxui {extent}, {offset} : index\n"
            f"{ind}%{name}_r = arith.subi %{name}_x, {offset} : index\n"
            f"{ind}%{name} = arith.minui %{name}_r, {size} : index\n")


def _panel_allocs(cfg: MatmulConfig) -> str:
    tm, tn, tk = cfg.tile_m, cfg.tile_n, cfg.tile_k
    return (f"    %lds_a = pcf.alloc() : {_sref(f'{tm}x{tk}', 'f16')}\n"
            f"    %lds_b = pcf.alloc() : {_sref(f'{tk}x{tn}', 'f16')}\n")


def _subgroup_ids(cfg: MatmulConfig) -> str:
    sm, sn = cfg.sub
    return ("      %sm = arith.divui %sg, %c2 : index\n      %sn = arith.remui %sg, %c2 : index\n"
            f"      %sub_m = arith.constant {sm} : index\n      %sub_n = arith.constant {sn} : index\n"
            f"      %quarter_m = arith.constant {cfg.tile_m // 4} : index\n"
            f"      %quarter_k = arith.constant {cfg.tile_k // 4} : index\n"
            "      %om = arith.muli %sm, %sub_m : index\n      %on = arith.muli %sn, %sub_n : index\n"
            "      %qa = arith.muli %sg, %quarter_m : index\n      %qb = arith.muli %sg, %quarter_k : index\n")


def stage_subgroups(fname: str, names, cfg: MatmulConfig) -> str:
    """Stage 6: a subgroup ``pcf.generic``; each subgroup's phases a lane-scope executor."""
    tm, tn, tk = cfg.tile_m, cfg.tile_n, cfg.tile_k
    sm, sn = cfg.sub
    qm, qk = tm // 4, tk // 4
    acc = _acc_type(LN, (sm, sn))
    tacc = f"tensor<{sm}x{sn}xf32>"
    ind = " " * 12
    text = (_header(fname, names, cfg) + _tile_slices(names) + _panel_allocs(cfg)
            + f"    %d = pcf.generic scope({SG})\n      execute(%acc = %ct)[%sg: index, %nsg: index]\n"
            f"           : ({_sref('?x?', 'f32')}) -> (tensor<?x?xf32>) {{\n" + _subgroup_ids(cfg)
            + _clamp("msub", "%ms", "%om", "%sub_m", "      ") + _clamp("nsub", "%ns", "%on", "%sub_n", "      ")
            + _clamp("arows", "%ms", "%qa", "%quarter_m", "      ")
            + f"      pcf.shared_executor scope({LN}) execute[%lanes: {TGL}] {{\n"
            f"        %acc0 = pcf.shared_executor.run_cluster %lanes : {TGL} -> {acc} {{\n"
            f"          %ci = pcf.read_slice %acc[%om, %on] [%msub, %nsub] [1, 1] : {_sref('?x?', 'f32')} "
            "to tensor<?x?xf32>\n"
            + _pad("cp", "%ci", (sm, sn), "%msub, %nsub", "f32", "%zf", "          ")
            + f"          pcf.yield %cp : {tacc}\n        }}\n"
            f"        %accK = scf.for %kk = %c0 to %kt step %c1 iter_args(%cur = %acc0) -> ({acc}) {{\n"
            + _k_step("          ") + _clamp("brows", "%ks", "%qb", "%quarter_k", "          ")
            + f"          %kb = arith.addi %k0, %qb : index\n"
            f"          pcf.shared_executor.run_cluster %lanes : {TGL} {{\n"
            f"{ind}%x = tensor.extract_slice %at[%qa, %k0] [%arows, %ks] [1, 1] : tensor<?x?xf16> to tensor<?x?xf16>\n"
            + _pad("xp", "%x", (qm, tk), "%arows, %ks", "f16", "%zh", ind)
            + f"{ind}pcf.write_slice %xp into %lds_a[%qa, 0] [{qm}, {tk}] [1, 1] : tensor<{qm}x{tk}xf16> into "
              f"{_sref(f'{tm}x{tk}', 'f16')}\n"
            f"{ind}%y = tensor.extract_slice %bt[%kb, 0] [%brows, %ns] [1, 1] : tensor<?x?xf16> to tensor<?x?xf16>\n"
            + _pad("yp", "%y", (qk, tn), "%brows, %ns", "f16", "%zh", ind)
            + f"{ind}pcf.write_slice %yp into %lds_b[%qb, 0] [{qk}, {tn}] [1, 1] : tensor<{qk}x{tn}xf16> into "
              f"{_sref(f'{tk}x{tn}', 'f16')}\n"
            f"{ind}pcf.yield\n          }}\n          gpu.barrier\n"
            f"          %next = pcf.shared_executor.run_cluster %lanes ins(%cur : {acc}) : {TGL} -> {acc} {{\n"
            f"          ^bb0(%accv: {tacc}):\n"
            f"{ind}%xs = pcf.read_slice %lds_a[%om, 0] [{sm}, {tk}] [1, 1] : {_sref(f'{tm}x{tk}', 'f16')} "
            f"to tensor<{sm}x{tk}xf16>\n"
            f"{ind}%ys = pcf.read_slice %lds_b[0, %on] [{tk}, {sn}] [1, 1] : {_sref(f'{tk}x{tn}', 'f16')} "
            f"to tensor<{tk}x{sn}xf16>\n"
            f"{ind}%z = linalg.matmul ins(%xs, %ys : tensor<{sm}x{tk}xf16>, tensor<{tk}x{sn}xf16>) "
            f"outs(%accv : {tacc}) -> {tacc}\n"
            f"{ind}pcf.yield %z : {tacc}\n          }}\n          gpu.barrier\n          scf.yield %next : {acc}\n"
            "        }\n"
            f"        pcf.shared_executor.run_cluster %lanes ins(%accK : {acc}) : {TGL} {{\n"
            f"        ^bb0(%final: {tacc}):\n"
            f"          %fs = tensor.extract_slice %final[0, 0] [%msub, %nsub] [1, 1] : {tacc} to tensor<?x?xf32>\n"
            f"          pcf.write_slice %fs into %acc[%om, %on] [%msub, %nsub] [1, 1] : tensor<?x?xf32> into "
            f"{_sref('?x?', 'f32')}\n"
            "          pcf.yield\n        }\n        pcf.return\n      }\n      pcf.return\n    }\n"
            + _write_tile("%d") + _footer())
    return text


def stage_lanes(fname: str, names, cfg: MatmulConfig, vectorized: bool = False) -> str:
    """Stage 7 (lane code, packed accumulator tensor) or 8 (``vectorized``: memrefs and a
    private ``memref.alloca`` of fragments)."""
    a, b, _ = names
    tm, tn, tk = cfg.tile_m, cfg.tile_n, cfg.tile_k
    mi_n, ni_n = cfg.frags
    kind = "memref" if vectorized else "tensor"
    packed = f"{kind}<{mi_n}x{ni_n}x2x2xf32>"
    pa, pb = _sref(f"{tm}x{tk}", "f16"), _sref(f"{tk}x{tn}", "f16")
    row_a, row_b = tk // 8, tn // 8

    def frag_read(acc: str, ind: str) -> str:
        return (f"{ind}%cf = vector.load {acc}[%mi, %ni, %c0, %c0] : {packed}, vector<2x2xf32>\n" if vectorized else
                f"{ind}%cf = vector.transfer_read {acc}[%mi, %ni, %c0, %c0], %zf {{in_bounds = [true, true]}} "
                f": {packed}, vector<2x2xf32>\n")

    def frag_write(value: str, acc: str, out: str, ind: str) -> str:
        return (f"{ind}vector.store {value}, {acc}[%mi, %ni, %c0, %c0] : {packed}, vector<2x2xf32>\n" if vectorized
                else f"{ind}{out} = vector.transfer_write {value}, {acc}[%mi, %ni, %c0, %c0] "
                     f"{{in_bounds = [true, true]}} : vector<2x2xf32>, {packed}\n")

    def frag_pos(ind: str) -> str:
        return (f"{ind}%mi16 = arith.muli %mi, %c16 : index\n{ind}%ni8 = arith.muli %ni, %c8 : index\n"
                f"{ind}%rw = arith.addi %wm, %mi16 : index\n{ind}%row = arith.addi %rw, %g : index\n"
                f"{ind}%row8 = arith.addi %row, %c8 : index\n{ind}%cw = arith.addi %wn, %ni8 : index\n"
                f"{ind}%col = arith.addi %cw, %p2 : index\n")

    text = (_header(fname, names, cfg, vectorized) + _panel_allocs(cfg)
            + f"    pcf.generic scope({SG}) execute[%sg: index, %nsg: index] {{\n" + _subgroup_ids(cfg)
            + "      %wm = arith.addi %m0, %om : index\n      %wn = arith.addi %n0, %on : index\n"
            + f"      pcf.generic scope({LN}) execute[%lane: index, %nlane: index] {{\n"
            "        %c4 = arith.constant 4 : index\n        %c8 = arith.constant 8 : index\n"
            "        %c16 = arith.constant 16 : index\n"
            f"        %mi_n = arith.constant {mi_n} : index\n        %ni_n = arith.constant {ni_n} : index\n"
            f"        %chunks_a = arith.constant {tm // 4 * row_a} : index\n"
            f"        %chunks_b = arith.constant {tk // 4 * row_b} : index\n"
            f"        %row_a = arith.constant {row_a} : index\n        %row_b = arith.constant {row_b} : index\n"
            "        %g = arith.divui %lane, %c4 : index\n        %pr = arith.remui %lane, %c4 : index\n"
            "        %p2 = arith.muli %pr, %c2 : index\n"
            f"        %swz_rows_a = arith.constant {cfg.swizzle[0]} : index\n"
            f"        %swz_rows_b = arith.constant {cfg.swizzle[1]} : index\n"
            # a lane's fragment rows are group (+ 8, + multiples of 16), its B k rows 2 pair (+ 1, + 8)
            "        %ga = arith.remui %g, %swz_rows_a : index\n        %swz_a = arith.muli %ga, %c8 : index\n"
            "        %pb = arith.remui %pr, %swz_rows_b : index\n        %swz_b = arith.muli %pb, %c8 : index\n"
            "        %zc = arith.constant dense<0.0> : vector<2x2xf32>\n"
            "        %za = arith.constant dense<0.0> : vector<4x2xf16>\n"
            "        %zb = arith.constant dense<0.0> : vector<2x2xf16>\n")
    # the accumulator fragments, initialised from C (lanes past M or N read padding, never written)
    if vectorized:
        text += (f"        %frags = memref.alloca() : {packed}\n"
                 "        scf.for %mi = %c0 to %mi_n step %c1 {\n          scf.for %ni = %c0 to %ni_n step %c1 {\n")
    else:
        text += (f"        %frags0 = arith.constant dense<0.0> : {packed}\n"
                 f"        %t_out = scf.for %mi = %c0 to %mi_n step %c1 iter_args(%t = %frags0) -> ({packed}) {{\n"
                 f"          %u_out = scf.for %ni = %c0 to %ni_n step %c1 iter_args(%u = %t) -> ({packed}) {{\n")
    text += (frag_pos(" " * 12)
             + f"            %r0 = pcf.read_slice %out[%row, %col] [1, 2] [1, 1] : {OUT} to vector<1x2xf32>\n"
             f"            %r1 = pcf.read_slice %out[%row8, %col] [1, 2] [1, 1] : {OUT} to vector<1x2xf32>\n"
             "            %cf0 = vector.insert_strided_slice %r0, %zc {offsets = [0, 0], strides = [1, 1]} "
             ": vector<1x2xf32> into vector<2x2xf32>\n"
             "            %cfi = vector.insert_strided_slice %r1, %cf0 {offsets = [1, 0], strides = [1, 1]} "
             ": vector<1x2xf32> into vector<2x2xf32>\n"
             + frag_write("%cfi", "%frags" if vectorized else "%u", "%u2", " " * 12)
             + ("" if vectorized else f"            scf.yield %u2 : {packed}\n") + "          }\n"
             + ("" if vectorized else f"          scf.yield %u_out : {packed}\n") + "        }\n")
    acc_in = "%frags" if vectorized else "%t_out"
    itk = "" if vectorized else f" iter_args(%cur = {acc_in}) -> ({packed})"
    bindk = "" if vectorized else "%accK = "
    cur = "%frags" if vectorized else "%cur"
    text += (f"        {bindk}scf.for %kk = %c0 to %kt step %c1{itk} {{\n"
             "          %k0 = arith.muli %kk, %tile_k : index\n"
             # the copy phase: 8-element chunks of this subgroup's quarter of each panel
             f"          scf.for %ch = %lane to %chunks_a step %nlane {{\n"
             "            %cr = arith.divui %ch, %row_a : index\n            %cc0 = arith.remui %ch, %row_a : index\n"
             "            %cc = arith.muli %cc0, %c8 : index\n            %ra = arith.addi %qa, %cr : index\n"
             "            %grow = arith.addi %m0, %ra : index\n            %gcol = arith.addi %k0, %cc : index\n"
             f"            %v = vector.transfer_read %{a}[%grow, %gcol], %zh : {kind}<?x?xf16>, vector<1x8xf16>\n"
             "            %rsa = arith.remui %ra, %swz_rows_a : index\n            %rsw = arith.muli %rsa, %c8 : index\n"
             "            %ccs = arith.xori %cc, %rsw : index\n"
             f"            pcf.write_slice %v into %lds_a[%ra, %ccs] [1, 8] [1, 1] : vector<1x8xf16> into {pa}\n"
             "          }\n"
             f"          scf.for %ch = %lane to %chunks_b step %nlane {{\n"
             "            %cr = arith.divui %ch, %row_b : index\n            %cc0 = arith.remui %ch, %row_b : index\n"
             "            %cc = arith.muli %cc0, %c8 : index\n            %rb = arith.addi %qb, %cr : index\n"
             "            %grow = arith.addi %k0, %rb : index\n            %gcol = arith.addi %n0, %cc : index\n"
             f"            %v = vector.transfer_read %{b}[%grow, %gcol], %zh : {kind}<?x?xf16>, vector<1x8xf16>\n"
             "            %rh = arith.divui %rb, %c2 : index\n            %rsb = arith.remui %rh, %swz_rows_b : index\n"
             "            %rsw = arith.muli %rsb, %c8 : index\n            %ccs = arith.xori %cc, %rsw : index\n"
             f"            pcf.write_slice %v into %lds_b[%rb, %ccs] [1, 8] [1, 1] : vector<1x8xf16> into {pb}\n"
             "          }\n          gpu.barrier\n")
    # the compute phase: mma.sync over the subgroup's block, k steps of 16
    itks, bindks = ("", "") if vectorized else (f" iter_args(%v0 = %cur) -> ({packed})", "%next = ")
    itm, bindm = ("", "") if vectorized else (f" iter_args(%v1 = %v0) -> ({packed})", "%v1_out = ")
    itn, bindn = ("", "") if vectorized else (f" iter_args(%v2 = %v1) -> ({packed})", "%v2_out = ")
    facc = cur if vectorized else "%v2"
    text += (f"          {bindks}scf.for %kq = %c0 to %tile_k step %c16{itks} {{\n"
             "            %ka = arith.addi %kq, %p2 : index\n            %ka8 = arith.addi %ka, %c8 : index\n"
             "            %kas = arith.xori %ka, %swz_a : index\n            %ka8s = arith.xori %ka8, %swz_a : index\n"
             f"            {bindm}scf.for %mi = %c0 to %mi_n step %c1{itm} {{\n"
             "              %mi16 = arith.muli %mi, %c16 : index\n              %rs = arith.addi %om, %mi16 : index\n"
             "              %fr = arith.addi %rs, %g : index\n              %fr8 = arith.addi %fr, %c8 : index\n")
    for k, (r, c) in enumerate((("%fr", "%kas"), ("%fr8", "%kas"), ("%fr", "%ka8s"), ("%fr8", "%ka8s"))):
        prev = "%za" if k == 0 else f"%fa{k - 1}"
        text += (f"              %a{k}m = pcf.read_slice %lds_a[{r}, {c}] [1, 2] [1, 1] : {pa} to vector<1x2xf16>\n"
                 f"              %a{k} = vector.shape_cast %a{k}m : vector<1x2xf16> to vector<2xf16>\n"
                 f"              %fa{k} = vector.insert %a{k}, {prev} [{k}] : vector<2xf16> into vector<4x2xf16>\n")
    text += (f"              {bindn}scf.for %ni = %c0 to %ni_n step %c1{itn} {{\n"
             "                %ni8 = arith.muli %ni, %c8 : index\n                %ns8 = arith.addi %on, %ni8 : index\n"
             "                %nb = arith.addi %ns8, %g : index\n                %nbs = arith.xori %nb, %swz_b : index\n")
    for k, r in enumerate(("%ka", "%ka8")):
        prev = "%zb" if k == 0 else f"%fb{k - 1}"
        text += (f"                %b{k}m = pcf.read_slice %lds_b[{r}, %nbs] [2, 1] [1, 1] : {pb} to vector<2x1xf16>\n"
                 f"                %b{k} = vector.shape_cast %b{k}m : vector<2x1xf16> to vector<2xf16>\n"
                 f"                %fb{k} = vector.insert %b{k}, {prev} [{k}] : vector<2xf16> into vector<2x2xf16>\n")
    text += (frag_read(facc, " " * 16)
             + "                %dm = nvgpu.mma.sync (%fa3, %fb1, %cf) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, "
               "vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>\n"
             + frag_write("%dm", facc, "%v3", " " * 16)
             + ("" if vectorized else f"                scf.yield %v3 : {packed}\n") + "              }\n"
             + ("" if vectorized else f"              scf.yield %v2_out : {packed}\n") + "            }\n"
             + ("" if vectorized else f"            scf.yield %v1_out : {packed}\n") + "          }\n"
             + "          gpu.barrier\n" + ("" if vectorized else f"          scf.yield %next : {packed}\n")
             + "        }\n")
    # write back: C register r is row group + 8r, columns 2 pair + {0, 1}; writes past M, N land nowhere
    fin = "%frags" if vectorized else "%accK"
    text += ("        scf.for %mi = %c0 to %mi_n step %c1 {\n          scf.for %ni = %c0 to %ni_n step %c1 {\n"
             + frag_pos(" " * 12) + frag_read(fin, " " * 12).replace("%cf =", "%dv =")
             + "            %d0 = vector.extract_strided_slice %dv {offsets = [0, 0], sizes = [1, 2], strides = [1, 1]} "
               ": vector<2x2xf32> to vector<1x2xf32>\n"
               "            %d1 = vector.extract_strided_slice %dv {offsets = [1, 0], sizes = [1, 2], strides = [1, 1]} "
               ": vector<2x2xf32> to vector<1x2xf32>\n"
             f"            pcf.write_slice %d0 into %out[%row, %col] [1, 2] [1, 1] : vector<1x2xf32> into {OUT}\n"
             f"            pcf.write_slice %d1 into %out[%row8, %col] [1, 2] [1, 1] : vector<1x2xf32> into {OUT}\n"
             "          }\n        }\n        pcf.return\n      }\n      pcf.return\n    }\n" + _footer(kind))
    return text


__all__ = ["MatmulConfig", "config_of", "is_matmul_signature", "signature", "stage_flow", "stage_lanes",
           "stage_subgroups", "stage_tiled", "stage_wrapped"]


# ---------------------------------------------------------------- recognising and rebuilding stages
#: stage number -> (what the IR holds then, the pass producing it)
STAGES: dict[int, tuple[str, str]] = {
    1: ("a configured linalg.matmul", "pcf-create-dispatch-config"),
    2: ("a workgroup pcf.loop around the tile's matmul", "pcf-apply-workgroup-tiling"),
    3: ("the tile's matmul in a subgroup shared_executor", "pcf-wrap-workgroup-body"),
    4: ("run_cluster phases with the accumulator carried through K", "pcf-form-run-cluster-flow"),
    5: ("a copy cluster before a compute cluster per K step", "pcf-introduce-shared-memory-copies"),
    6: ("a subgroup generic with lane-scope run_cluster phases", "pcf-distribute-run-cluster-to-subgroups"),
    7: ("lane code with mma.sync fragments on tensors", "pcf-distribute-run-cluster-to-lanes"),
    8: ("vectorized lane code on buffers", "pcf-vectorize-lane-code"),
}


def stage_of(function: func.FuncOp) -> int | None:
    """Which stage of the pipeline ``function`` is at (None: not a pcf-matmul function)."""
    from xdsl.dialects.linalg.ops import MatmulOp

    from layoutkit.ir.dialects import pcf, pcf_ext
    from layoutkit.ir.dialects.upstream.nvgpu import MmaSyncOp

    if config_of(function) is None:
        return None
    ops = list(function.walk())
    if any(isinstance(o, MmaSyncOp) for o in ops):
        return 7 if isinstance(function.function_type.inputs.data[0], TensorType) else 8
    executors = [o for o in ops if isinstance(o, pcf_ext.SharedExecutorOp)]
    if any(isinstance(e.scope, pcf.LaneScopeAttr) for e in executors):
        return 6
    if executors:
        inner = list(executors[0].walk())
        if any(isinstance(o, pcf.AllocOp) for o in inner):
            return 5
        return 4 if any(isinstance(o, pcf_ext.RunClusterOp) for o in inner) else 3
    matmuls = [o for o in ops if isinstance(o, MatmulOp)]
    if matmuls and isinstance(matmuls[0].parent_op(), pcf.LoopOp):
        return 2
    return 1 if matmuls else None


def functions_at(module, stage: int, pass_name: str) -> list[func.FuncOp]:
    """The pcf-matmul functions of ``module`` at ``stage`` (a LayoutError for one at an
    earlier stage: the pass that would bring it here has not run)."""
    found = []
    for function in module.walk():
        if not isinstance(function, func.FuncOp):
            continue
        at = stage_of(function)
        if at == stage:
            found.append(function)
        elif at is not None and at < stage:
            raise LayoutError(f"{pass_name}: @{function.sym_name.data} holds {STAGES[at][0]}; run "
                              f"{STAGES[at + 1][1]} first (pipeline pcf-matmul)")
    return found


def replace_function(function: func.FuncOp, text: str) -> func.FuncOp:
    """Put the function parsed from ``text`` in place of ``function``."""
    from layoutkit.ir import parse_module

    new = next(o for o in parse_module(text).body.block.ops if isinstance(o, func.FuncOp))
    new.detach()
    block = function.parent_block()
    block.insert_op_before(new, function)
    block.erase_op(function)
    return new


def rebuild(module, stage: int, pass_name: str, build) -> None:
    """Every function at ``stage - 1`` rebuilt as ``build(name, argument names, config)``."""
    for function in functions_at(module, stage - 1, pass_name):
        replace_function(function, build(function.sym_name.data, signature(function), config_of(function)))


def check_distribution_groups(function: func.FuncOp, pass_name: str) -> None:
    """What the baseline distribution of the run_cluster phases relies on, from the
    equivalence analysis of each shared_executor: the accumulator's phases (its producer,
    the K-loop step, its consumer) are one group whose carried values are one class, and
    every other phase (a copy) stands alone and carries nothing; every phase runs on the
    whole threadgroup (clusters of a tile_group are not distributed by this baseline)."""
    from layoutkit.ir.dialects import pcf_ext
    from layoutkit.passes.pcf_distribution import carried_equivalence

    where = f"{pass_name}: @{function.sym_name.data}"
    for executor in [o for o in function.walk() if isinstance(o, pcf_ext.SharedExecutorOp)]:
        analysis = carried_equivalence(executor)
        accumulators = [g for g in analysis.groups if g.values]
        if len(accumulators) != 1 or len(accumulators[0].ops) != 3:
            shapes = [len(g.ops) for g in accumulators]
            raise LayoutError(f"{where}: expected the accumulator's init, K step and write-back as one "
                              f"distribution group, found groups of {shapes} phases")
        (group,) = accumulators
        if not all(analysis.same(group.values[0], v) for v in group.values):
            raise LayoutError(f"{where}: the accumulator's carried values are not one equivalence class")
        for op in (o for g in analysis.groups for o in g.ops):
            if not isinstance(op.on.type, pcf_ext.ThreadgroupType):
                raise LayoutError(f"{where}: {op.name} on cluster {op.on.type.id}: only whole-threadgroup "
                                  "phases are distributed by the baseline")
