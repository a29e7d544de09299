""""Find the best" for the tuned tier: a small grid of its own value, and the answer.

The tuner moves one value by hand; the optimizer (`analysis.optimize`)
can say which value of a small grid brings the most expected incremental
net revenue under the scenario's budgets. The grid is of the tier's own
kind: percent off 5 to 50 in steps of 5 for a PERCENT tier, a spread
around the current amount for an AMOUNT or FIXED one. Each option is the
tuned tier *as edited* (`apply_edit`: its effect and minimum order kept)
with only the value changed, given to `optimize` as a named variant, so
the answer is about the tier the person is looking at, not the scenario's.

Pure: the grid and the reading of an `Optimum` here; the controller runs
`optimize` and never changes the tier unless asked to apply the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..analysis.optimize import Optimum, TierGrid
from ..engine import TierSpec
from .state import TierEdit, apply_edit

__all__ = ["PERCENT_GRID", "SPREAD", "BestValue", "best_grid", "best_of", "best_values"]

#: The percent offs tried for a PERCENT tier.
PERCENT_GRID: tuple[float, ...] = tuple(float(p) for p in range(5, 55, 5))
#: The multiples of the current amount tried for an AMOUNT or FIXED tier.
SPREAD: tuple[float, ...] = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
#: Amounts tried when the current one is 0 (minor units, times 1 to 10).
_FROM_ZERO = 500


def best_values(edit: TierEdit) -> tuple[float, ...]:
    """The values tried for `edit`'s tier, ascending and distinct: percents
    for PERCENT, whole minor units around the current value otherwise (the
    current value among them; 5 to 50 units of 100 minor units from 0)."""
    if edit.discount_type == "PERCENT":
        return PERCENT_GRID
    if edit.value <= 0:
        return tuple(float(_FROM_ZERO * k) for k in range(1, 11))
    values = {float(round(edit.value * f)) for f in SPREAD}
    return tuple(sorted(v for v in values if v > 0))


def _label(edit: TierEdit, value: float) -> str:
    return f"{edit.discount_type.lower()}={value:g}"


def best_grid(spec: TierSpec, edit: TierEdit) -> TierGrid:
    """The optimizer's group for the tuned tier: one named variant per value
    of `best_values(edit)`, each the tier as edited with that value."""
    return TierGrid(spec.id, variants={
        _label(edit, v): apply_edit(spec, replace(edit, value=v)) for v in best_values(edit)
    })


@dataclass(frozen=True)
class BestValue:
    """The optimizer's answer for the tuned tier, in the tuner's terms.

    `value`: what to set (the tuner's value: percent or minor units), None
    when no value meets the budgets (`reason` says why); `objective`: its
    expected incremental net revenue added to the scenario (cents);
    `runner_up` and `gap`: the next best value and how much less it brings.
    `optimum`: the whole answer (the table of every value)."""

    tier_id: str
    value: float | None
    objective: int | None
    runner_up: float | None
    gap: int | None
    optimum: Optimum
    reason: str | None = None


def best_of(edit: TierEdit, optimum: Optimum) -> BestValue:
    """Read `optimum` (of `best_grid(..., edit)`) back into values."""
    by_label = {_label(edit, v): v for v in best_values(edit)}
    if not optimum.feasible:
        return BestValue(edit.tier_id, None, None, None, None, optimum, optimum.reason)
    runner = None if optimum.runner_up is None else by_label[optimum.runner_up[edit.tier_id]]
    return BestValue(edit.tier_id, by_label[optimum.choice[edit.tier_id]], optimum.objective, runner,
                     optimum.gap, optimum)
