"""``pcf-create-dispatch-config``: stage 1 of the pcf-matmul pipeline (seed 002,
CreateDispatchConfigPass): record the pipeline and launch shape on a dynamic
``f16 x f16 -> f32`` matmul function and the workgroup tile on its ``linalg.matmul``.

Example: ``func.func @mm(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>)``
whose body is ``%r = linalg.matmul ins(%a, %b ...) outs(%c ...)`` and ``return %r`` gets
``translation_info = {pipeline = "RunClusterDistribute", workgroup_size = array<i64: 128, 1, 1>,
subgroup_size = 32, workgroup_tile = array<i64: 128, 256, 64>, ...}`` and the matmul
``lowering_config = {workgroup = array<i64: 128, 256, 64>, subgroup_split = array<i64: 2, 2>}``.
Functions without a linalg.matmul are left alone; one with any other matmul (static or other
element types, more ops) is a LayoutError.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, ModuleOp, i64
from xdsl.dialects.linalg.ops import MatmulOp
from xdsl.passes import ModulePass

from layoutkit.errors import LayoutError
from layoutkit.passes.pcf_matmul import SPLIT, MatmulConfig, config_of, is_matmul_signature

NAME = "pcf-create-dispatch-config"


def _plain_matmul(function: func.FuncOp) -> MatmulOp | None:
    """The function's only op before its return, if it is ``linalg.matmul`` of its arguments."""
    ops = list(function.body.block.ops)
    if len(ops) != 2 or not isinstance(ops[0], MatmulOp) or not isinstance(ops[1], func.ReturnOp):
        return None
    args = list(function.body.block.args)
    matmul = ops[0]
    if list(matmul.inputs) != args[:2] or list(matmul.outputs) != args[2:] or list(ops[1].operands) != [matmul.res[0]]:
        return None
    return matmul


@dataclass(frozen=True)
class PcfCreateDispatchConfigPass(ModulePass):
    """Stage 1 of pcf-matmul: translation_info (RunClusterDistribute, 2x2 subgroups) and the workgroup tile."""

    name = NAME
    tile_sizes: tuple[int, ...] = (128, 256, 64)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        config = MatmulConfig.from_sizes(self.tile_sizes)
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            matmuls = [o for o in function.walk() if isinstance(o, MatmulOp)]
            if config_of(function) is not None or not matmuls:
                continue
            matmul = _plain_matmul(function) if is_matmul_signature(function) else None
            if matmul is None:
                types = ", ".join(str(t) for t in (*matmuls[0].inputs.types, *matmuls[0].outputs.types))
                raise LayoutError(f"{NAME}: @{function.sym_name.data}: the pipeline takes a function whose "
                                  "body is one linalg.matmul of its arguments (tensor<?x?xf16>, "
                                  f"tensor<?x?xf16>, tensor<?x?xf32>) returned, got a matmul of ({types})")
            function.attributes["translation_info"] = config.translation_info()
            matmul.attributes["lowering_config"] = DictionaryAttr({
                "workgroup": DenseArrayBase.from_list(i64, [config.tile_m, config.tile_n, config.tile_k]),
                "subgroup_split": DenseArrayBase.from_list(i64, list(SPLIT))})


__all__ = ["PcfCreateDispatchConfigPass"]
