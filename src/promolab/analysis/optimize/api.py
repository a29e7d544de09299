"""`optimize`: the tier settings that bring the most under the budgets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from ..figures import with_currency
from ..forecast.costs import CostModel
from ..response import ResponseModel
from .budgets import budgets_of
from .evaluation import Evaluated, Scope, evaluate
from .optimum import Constraint, Optimum
from .problem import Choice, Problem
from .solve import METHODS, best_choice
from .space import Space, TierGrid

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["optimize", "problem_of"]


def problem_of(evaluated: Evaluated, table: pd.DataFrame, budgets: Mapping[str, int] | None,
               min_redemptions: float) -> Problem:
    """The evaluated table as the choice's numbers (`Problem`)."""
    per_group = [table[table["group_index"] == g] for g in range(len(evaluated.groups))]
    return Problem.of(
        value=[rows["value"].astype("int64").tolist() for rows in per_group],
        p90=[rows["spend_p90"].astype("int64").tolist() for rows in per_group],
        redemptions=[rows["redemptions"].astype("float64").tolist() for rows in per_group],
        budgets=budgets_of(evaluated.groups, evaluated.bases, budgets),
        min_redemptions=min_redemptions,
    )


def _named(evaluated: Evaluated, choice: Choice) -> dict[str, str]:
    return {g.label: evaluated.options[k][o].name for k, (g, o) in enumerate(zip(evaluated.groups, choice, strict=True))}


def optimize(
    sim: Simulator,
    orders: pd.DataFrame,
    space: Space | TierGrid,
    *,
    model: ResponseModel | None = None,
    budgets: Mapping[str, int] | None = None,
    min_redemptions: float = 0.0,
    costs: CostModel | None = None,
    method: str = "milp",
) -> Optimum:
    """The option per group maximising expected incremental net revenue.

    `space`: a `Space` of `TierGrid`s (or one `TierGrid`). `model`: the
    response (default `ResponseModel()`). `budgets`: limits in cents by a
    group's tier or campaign id (default: the scenario's discount budgets on
    those tiers). `min_redemptions`: a floor on total expected redemptions.
    `costs`: a `CostModel` for the cost of goods (its rates are not used:
    the response model says who redeems). `method`: "milp" (HiGHS) or
    "brute" (every choice). Bad input raises ValueError naming it before
    anything is swept; an infeasible problem is an `Optimum` with
    `feasible=False` and the reason.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if isinstance(space, TierGrid):
        space = Space((space,))
    if not isinstance(space, Space):
        raise TypeError(f"space must be a Space or a TierGrid, got {type(space).__name__}")
    model = model if model is not None else ResponseModel()
    if not isinstance(model, ResponseModel):
        raise TypeError(f"model must be a ResponseModel, got {type(model).__name__}")
    Problem.of([[0]], [[0]], [[0.0]], min_redemptions=min_redemptions)  # the floor checked before the sweep
    evaluated = evaluate(sim, orders, space, Scope(model, costs or CostModel()))
    table = with_currency(evaluated.frame(), sim.currency)
    problem = problem_of(evaluated, table, budgets, min_redemptions)
    best = best_choice(problem, method)
    if best is None:
        reasons = problem.unmeetable() or ["the budgets and the redemption floor cannot be met together"]
        return Optimum(False, {}, None, (), None, None, table, sim.currency, reason="; ".join(reasons))
    check = problem.check(best)
    constraints = [Constraint(f"budget {b.key}", "budget", float(b.limit - s), float(b.limit))
                   for b, s in zip(problem.budgets, check.budget_slack, strict=True)]
    if min_redemptions > 0:
        constraints.append(Constraint("redemptions", "redemptions",
                                      (check.redemption_slack + problem.floor) / 1000, float(min_redemptions)))
    second = best_choice(problem, method, exclude=[best])
    return Optimum(
        feasible=True,
        choice=_named(evaluated, best),
        objective=check.objective,
        constraints=tuple(constraints),
        runner_up=None if second is None else _named(evaluated, second),
        runner_up_objective=None if second is None else problem.check(second).objective,
        table=table,
        currency=sim.currency,
    )
