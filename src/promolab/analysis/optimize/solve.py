"""The best choice: a MILP on HiGHS (`scipy.optimize.milp`), and brute force.

Binary `x[g, o]`, one option per group (`sum_o x[g, o] = 1`), maximise
`sum value x` subject to each bound's `sum use x <= limit` (a budget's P90
spend, a count limit's P90 redemptions in a period) and
`sum redemptions x >= floor`: linear, exact, and already a dependency (scipy
ships HiGHS). Ties are broken the same way by both methods: among the
choices of the best objective, the one with the smallest option indices,
compared group by group (the MILP fixes the objective and minimises group 0's
index, then group 1's, ...). `brute_force` enumerates the whole grid: the
reference the MILP is tested against, and fine for a few hundred choices.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from .problem import Choice, Problem

__all__ = ["METHODS", "best_choice", "brute_force", "solve_milp"]

METHODS = ("milp", "brute")


def brute_force(problem: Problem, exclude: Iterable[Choice] = ()) -> Choice | None:
    """The best feasible choice over the whole grid, None when none is."""
    skip = set(exclude)
    best: tuple[int, Choice] | None = None
    for choice in itertools.product(*(range(n) for n in problem.sizes)):
        if choice in skip:
            continue
        check = problem.check(choice)
        if check.feasible and (best is None or check.objective > best[0]):
            best = (check.objective, choice)  # product() runs in index order: the first of a tie stays
    return None if best is None else best[1]


def _scaled(row: np.ndarray) -> float:
    top = float(np.abs(row).max()) if row.size else 0.0
    return top if top > 0 else 1.0


class _Model:
    """The MILP's constraints, to which the tie-breaking passes add theirs."""

    def __init__(self, problem: Problem, exclude: Iterable[Choice]) -> None:
        self.problem = problem
        self.offsets = np.cumsum([0, *problem.sizes])
        self.n = int(self.offsets[-1])
        self.value = np.concatenate(problem.value).astype(np.float64)
        self.rows: list[LinearConstraint] = []
        for g in range(len(problem.sizes)):
            row = np.zeros(self.n)
            row[self.offsets[g]:self.offsets[g + 1]] = 1
            self.rows.append(LinearConstraint(row, 1, 1))
        for bound in problem.bounds:
            row = np.zeros(self.n)
            for g, use in bound.use:
                row[self.offsets[g]:self.offsets[g + 1]] = use
            s = _scaled(row)
            self.rows.append(LinearConstraint(row / s, -np.inf, (bound.limit + 0.5) / s))
        if problem.floor > 0:
            row = np.concatenate(problem.redemptions).astype(np.float64)
            s = _scaled(row)
            self.rows.append(LinearConstraint(row / s, (problem.floor - 0.5) / s, np.inf))
        for choice in exclude:
            self.exclude(choice)

    def exclude(self, choice: Choice) -> None:
        row = np.zeros(self.n)
        for g, o in enumerate(choice):
            row[self.offsets[g] + o] = 1
        self.rows.append(LinearConstraint(row, -np.inf, len(choice) - 1))

    def run(self, cost: np.ndarray) -> Choice | None:
        """The solver's choice, checked in whole units: a row scaled to 1 lets
        HiGHS's feasibility tolerance (~1e-6 of the row) through, which on a
        bound of 300,000 thousandths is a unit over; such a choice is cut off
        and the model solved again, so the MILP answers the exact problem."""
        while True:
            result = milp(cost, constraints=self.rows, integrality=np.ones(self.n), bounds=Bounds(0, 1),
                          options={"mip_rel_gap": 0.0, "presolve": True})
            if result.x is None or result.status != 0:
                return None
            x = np.rint(result.x).astype(np.int64)
            choice = tuple(int(np.argmax(x[self.offsets[g]:self.offsets[g + 1]]))
                           for g in range(len(self.problem.sizes)))
            if self.problem.check(choice).feasible:
                return choice
            self.exclude(choice)


def solve_milp(problem: Problem, exclude: Iterable[Choice] = ()) -> Choice | None:
    """The best feasible choice by MILP (ties: see the module's docstring)."""
    model = _Model(problem, list(exclude))
    s = _scaled(model.value)
    first = model.run(-model.value / s)
    if first is None:
        return None
    objective = problem.check(first).objective
    # fix the objective, then take the smallest index group by group
    model.rows.append(LinearConstraint(model.value / s, (objective - 0.5) / s, np.inf))
    chosen = first
    for g in range(len(problem.sizes)):
        cost = np.zeros(model.n)
        cost[model.offsets[g]:model.offsets[g + 1]] = np.arange(problem.sizes[g])
        found = model.run(cost)
        if found is None:
            break
        chosen = found
        row = np.zeros(model.n)
        row[model.offsets[g] + found[g]] = 1
        model.rows.append(LinearConstraint(row, 1, 1))
    return chosen


def best_choice(problem: Problem, method: str = "milp", exclude: Iterable[Choice] = ()) -> Choice | None:
    """The best feasible choice by `method` ("milp" or "brute")."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    return solve_milp(problem, exclude) if method == "milp" else brute_force(problem, exclude)
