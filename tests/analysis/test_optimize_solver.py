"""The optimizer's choice: the MILP (HiGHS) equals brute force over the whole grid.

100 seeded random problems (about a third infeasible) of 1-4 groups with 2-5 options each, random values
(some tied on purpose), P90 spends, redemptions, budgets over random subsets
of the groups, count limits (one to three periods each, P90 redemptions per
option and period, fractional) over random subsets and a redemption floor: both methods find the same choice (the
tie rule makes the setting equal, not only the objective), no constraint of
the answer is violated, the runner-up agrees, and infeasible problems are
infeasible for both.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from promolab.analysis.optimize import Problem, brute_force, solve_milp
from promolab.analysis.optimize.budgets import Budget
from promolab.analysis.optimize.problem import CountRow


def random_problem(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    groups = int(rng.integers(1, 5))
    sizes = rng.integers(2, 6, size=groups)
    # a few distinct values so that ties happen, negative ones too
    value = [rng.choice([-300, 0, 150, 150, 400, 900, 10_000_000], size=n).tolist() for n in sizes]
    p90 = [rng.integers(0, 5000, size=n).tolist() for n in sizes]
    redemptions = [np.round(rng.uniform(0, 50, size=n), 3).tolist() for n in sizes]
    budgets = []
    for k in range(int(rng.integers(0, 3))):
        members = tuple(sorted(rng.choice(groups, size=int(rng.integers(1, groups + 1)), replace=False).tolist()))
        budgets.append(Budget(f"b{k}", int(rng.integers(0, 4000 * len(members))), members, "given"))
    floor = float(rng.uniform(0, 30 * groups)) if rng.random() < 0.5 else 0.0
    counts = []
    for k in range(int(rng.integers(0, 3))):  # a count limit: a row per period
        members = rng.choice(groups, size=int(rng.integers(1, groups + 1)), replace=False).tolist()
        limit = int(rng.integers(0, 40 * len(members)))
        for period in range(int(rng.integers(1, 4))):
            counts.append(CountRow(f"c{k} p{period}", limit,
                                   {g: rng.uniform(0, 60, size=sizes[g]).tolist() for g in members}))
    return Problem.of(value, p90, redemptions, budgets, floor, counts)


def feasible_choices(problem: Problem) -> list[tuple[int, ...]]:
    grid = itertools.product(*(range(n) for n in problem.sizes))
    return [c for c in grid if problem.check(c).feasible]


@pytest.mark.parametrize("seed", range(100))
def test_milp_equals_brute_force(seed: int) -> None:
    problem = random_problem(seed)
    milp, brute = solve_milp(problem), brute_force(problem)
    assert milp == brute
    feasible = feasible_choices(problem)
    if brute is None:
        assert not feasible
        return
    check = problem.check(milp)  # type: ignore[arg-type]  # not None: equal to brute
    assert check.feasible
    assert check.objective == max(problem.check(c).objective for c in feasible)
    for bound in problem.bounds:  # never violated, counts included (P90 in thousandths rounded up)
        assert bound.used(milp) <= bound.limit  # type: ignore[arg-type]  # not None: equal to brute
    assert solve_milp(problem, [brute]) == brute_force(problem, [brute])


def test_ties_go_to_the_smallest_indices() -> None:
    problem = Problem.of([[5, 9, 9], [1, 1]], [[0, 0, 0], [0, 0]], [[0, 0, 0], [0, 0]])
    assert solve_milp(problem) == brute_force(problem) == (1, 0)
    assert solve_milp(problem, [(1, 0)]) == brute_force(problem, [(1, 0)]) == (1, 1)


def test_a_budget_no_choice_meets_is_named() -> None:
    problem = Problem.of([[1, 2]], [[700, 900]], [[1, 2]], [Budget("camp_x", 500, (0,), "given")])
    assert solve_milp(problem) is None
    assert problem.unmeetable() == ["budget camp_x: the least P90 spend of its groups is 700 cents, over its limit 500"]


def test_a_count_no_choice_meets_is_named() -> None:
    problem = Problem.of([[1, 2]], [[0, 0]], [[1, 2]], counts=[CountRow("weekly count camp_x, week of 2026-03-02",
                                                                      300, {0: [300.0004, 812.5]})])
    assert brute_force(problem) is None and solve_milp(problem) is None
    assert problem.unmeetable() == [("weekly count camp_x, week of 2026-03-02: the least P90 redemptions of its "
                                    "groups are 300.001, over its limit 300")]
    assert brute_force(Problem.of([[1]], [[0]], [[1]], counts=[CountRow("c", 300, {0: [300.0]})])) == (0,)


def test_a_count_budget_must_come_as_rows() -> None:
    with pytest.raises(ValueError, match="CountRow rows"):
        Problem.of([[1]], [[0]], [[1]], [Budget("camp_x", 3, (0,), "given", "count", "weekly")])


def test_a_floor_above_every_choice_is_named() -> None:
    problem = Problem.of([[1, 2]], [[0, 0]], [[1.0, 2.5]], min_redemptions=3)
    assert brute_force(problem) is None
    assert problem.unmeetable() == ["the floor of 3 redemptions: at most 2.5 are expected"]


@pytest.mark.parametrize("floor", [-1, float("nan"), True, "3"])
def test_a_bad_floor_is_refused(floor: object) -> None:
    with pytest.raises(ValueError, match="min_redemptions"):
        Problem.of([[1]], [[0]], [[0.0]], min_redemptions=floor)  # type: ignore[arg-type]  # bad on purpose
