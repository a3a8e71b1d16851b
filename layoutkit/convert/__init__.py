"""Layout conversions with their cost: no-op, register permutation, warp shuffles, or a round
trip through shared memory with a chosen scratch layout (see :mod:`layoutkit.convert.planner`).

>>> from layoutkit.convert import plan_conversion          # doctest: +SKIP
>>> plan = plan_conversion(src, dst, (128, 128), "f16")      # doctest: +SKIP
>>> plan.kind, plan.cost.table(), plan.apply(values)        # doctest: +SKIP
"""

from __future__ import annotations

from layoutkit.convert.plan import (
    Barrier,
    ConversionCost,
    ConversionPlan,
    SharedLoad,
    SharedStore,
    Shuffle,
)
from layoutkit.convert.planner import conversion_cost, plan_conversion
from layoutkit.convert.scratch import ScratchLayout

__all__ = [
    "plan_conversion", "conversion_cost", "ConversionPlan", "ConversionCost", "ScratchLayout",
    "Shuffle", "SharedStore", "SharedLoad", "Barrier",
]
