"""`optimize`: the tier settings that bring the most under the budgets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...sim import usage_of
from ..figures import with_currency
from ..forecast.costs import CostModel
from ..response import ResponseModel
from .budgets import Budget, GivenBudget, Limits, budgets_of, with_used
from .evaluation import FREQ, Evaluated, Scope, evaluate, group_bases
from .optimum import Constraint, Optimum
from .problem import Bound, Choice, CountRow, Problem
from .solve import METHODS, best_choice
from .space import Space, TierGrid
from .spread import p90

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["optimize", "problem_of"]


def count_rows(evaluated: Evaluated, table: pd.DataFrame, budgets: Sequence[Budget]) -> list[CountRow]:
    """The count limits as rows: one per limit of ever, one per period its
    orders fall in for a limit per day, week or month (the period named by its
    first day), each group's options' P90 redemptions there."""
    groups = range(len(evaluated.groups))
    rows: list[CountRow] = []
    first = [int(np.flatnonzero(table["group_index"].to_numpy() == g)[0]) for g in groups]
    for budget in (b for b in budgets if b.measure == "count"):
        if budget.period is None:
            total = table["redemptions_p90"].astype("float64").to_numpy()
            rows.append(CountRow(budget.name, budget.left(), {
                g: total[first[g]:first[g] + len(evaluated.options[g])].tolist() for g in budget.groups}))
            continue
        sums = next(p for p in evaluated.periods if p.period == budget.period)
        spread = [[p90(m, v) for m, v in zip(mean, var, strict=True)]
                  for mean, var in zip(sums.redemptions.T, sums.variance.T, strict=True)]
        for k, (key, start) in enumerate(zip(sums.keys.tolist(), sums.starts, strict=True)):
            rows.append(CountRow(f"{budget.name}, {FREQ[budget.period]} of {start}", budget.left(key), {
                g: spread[k][first[g]:first[g] + len(evaluated.options[g])] for g in budget.groups}))
    return rows


def problem_of(evaluated: Evaluated, table: pd.DataFrame, limits: Limits, min_redemptions: float) -> Problem:
    """The evaluated table as the choice's numbers (`Problem`)."""
    per_group = [table[table["group_index"] == g] for g in range(len(evaluated.groups))]
    return Problem.of(
        value=[rows["value"].astype("int64").tolist() for rows in per_group],
        p90=[rows["spend_p90"].astype("int64").tolist() for rows in per_group],
        redemptions=[rows["redemptions"].astype("float64").tolist() for rows in per_group],
        budgets=[replace(b, limit=b.left()) for b in limits.budgets if b.measure == "discount"],
        min_redemptions=min_redemptions,
        counts=count_rows(evaluated, table, limits.budgets),
    )


def _named(evaluated: Evaluated, choice: Choice) -> dict[str, str]:
    return {g.label: evaluated.options[k][o].name for k, (g, o) in enumerate(zip(evaluated.groups, choice, strict=True))}


def optimize(
    sim: Simulator,
    orders: pd.DataFrame,
    space: Space | TierGrid,
    *,
    model: ResponseModel | None = None,
    budgets: Mapping[str, GivenBudget] | None = None,
    min_redemptions: float = 0.0,
    costs: CostModel | None = None,
    method: str = "milp",
) -> Optimum:
    """The option per group maximising expected incremental net revenue.

    `space`: a `Space` of `TierGrid`s (or one `TierGrid`). `model`: the
    response (default `ResponseModel()`). `budgets`: by a group's tier or
    campaign id, cents of discount, a `CountLimit` of redemptions (ever or
    per day, week or month) or None (leave that key's rules to the forecast's
    walk), replacing the scenario's of that kind (default: the scenario's
    discount and redemption-count budgets on those tiers, `budgets`).
    `min_redemptions`: a floor on total expected redemptions.
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
    # and the budgets, less what the scenario's redemptions so far used of them
    limits = with_used(budgets_of(space.groups, group_bases(sim, space), budgets), usage_of(sim))
    evaluated = evaluate(sim, orders, space, Scope(model, costs or CostModel(), limits.periods))
    table = with_currency(evaluated.frame(), sim.currency)
    problem = problem_of(evaluated, table, limits, min_redemptions)
    best = best_choice(problem, method)
    if best is None:
        reasons = problem.unmeetable() or ["the budgets and the redemption floor cannot be met together"]
        return Optimum(False, {}, None, (), None, None, table, sim.currency, reason="; ".join(reasons),
                       left_out=limits.left_out)
    check = problem.check(best)
    constraints = [_constraint(b, s) for b, s in zip(problem.bounds, check.bound_slack, strict=True)]
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
        left_out=limits.left_out,
    )


def _constraint(bound: Bound, slack: int) -> Constraint:
    """A bound of the answer in people's units: cents, or redemptions."""
    if bound.unit == "cents":
        return Constraint(bound.name, "budget", float(bound.limit - slack), float(bound.limit))
    return Constraint(bound.name, "count", (bound.limit - slack) / 1000, bound.limit / 1000)
