"""The choice as numbers: one option per group, whole units throughout.

Per group and option: `value` (cents, what is maximised), `p90` (cents,
rounded up) and `redemptions` in thousandths (rounded down); the budgets
(a limit on the summed P90 of the groups each covers) and a floor on total
redemptions (in thousandths, rounded up). Whole numbers so that the MILP
and brute force answer the same problem exactly (no float tolerance decides
a tie or a bound), and so that a choice's objective and slacks are computed
once, here, for both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .budgets import Budget

__all__ = ["Check", "Problem"]

Choice = tuple[int, ...]


@dataclass(frozen=True)
class Check:
    """A choice's objective and, per constraint, its slack (>= 0: met)."""

    objective: int
    budget_slack: tuple[int, ...]
    redemption_slack: int

    @property
    def feasible(self) -> bool:
        return self.redemption_slack >= 0 and all(s >= 0 for s in self.budget_slack)


@dataclass(frozen=True)
class Problem:
    value: tuple[np.ndarray, ...]
    p90: tuple[np.ndarray, ...]
    redemptions: tuple[np.ndarray, ...]  # thousandths
    budgets: tuple[Budget, ...]
    floor: int  # thousandths

    @staticmethod
    def of(value: Sequence[Sequence[int]], p90: Sequence[Sequence[int]], redemptions: Sequence[Sequence[float]],
           budgets: Sequence[Budget] = (), min_redemptions: float = 0.0) -> Problem:
        """From per-group lists (redemptions as expected counts)."""
        if isinstance(min_redemptions, bool) or not isinstance(min_redemptions, int | float) \
                or not math.isfinite(min_redemptions) or min_redemptions < 0:
            raise ValueError(f"min_redemptions must be a number >= 0, got {min_redemptions!r}")
        if not value or any(len(v) == 0 for v in value):
            raise ValueError("every group needs at least one option")
        return Problem(
            value=tuple(np.asarray(v, dtype=np.int64) for v in value),
            p90=tuple(np.asarray(v, dtype=np.int64) for v in p90),
            redemptions=tuple(np.floor(np.asarray(v, dtype=np.float64) * 1000).astype(np.int64) for v in redemptions),
            budgets=tuple(budgets),
            floor=math.ceil(min_redemptions * 1000),
        )

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(v) for v in self.value)

    def check(self, choice: Choice) -> Check:
        """Exact integer figures of one option per group."""
        objective = sum(int(self.value[g][o]) for g, o in enumerate(choice))
        slack = tuple(b.limit - sum(int(self.p90[g][choice[g]]) for g in b.groups) for b in self.budgets)
        redeemed = sum(int(self.redemptions[g][o]) for g, o in enumerate(choice))
        return Check(objective, slack, redeemed - self.floor)

    def unmeetable(self) -> list[str]:
        """The constraints no choice can meet even alone (what an infeasible answer names)."""
        out = []
        for b in self.budgets:
            least = sum(int(self.p90[g].min()) for g in b.groups)
            if least > b.limit:
                out.append(f"budget {b.key}: the least P90 spend of its groups is {least} cents, over its limit {b.limit}")
        most = sum(int(r.max()) for r in self.redemptions)
        if most < self.floor:
            out.append(f"the floor of {self.floor / 1000:g} redemptions: at most {most / 1000:g} are expected")
        return out
