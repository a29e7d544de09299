"""The choice as numbers: one option per group, whole units throughout.

Per group and option: `value` (cents, what is maximised) and `redemptions`
in thousandths (rounded down); the bounds, each a limit on the summed use of
the options chosen in the groups it covers: a money budget's P90 spend
(cents, rounded up) or a count limit's P90 redemptions in one period
(thousandths, rounded up, against the limit x 1000); and a floor on total
redemptions (in thousandths, rounded up). Whole numbers so that the MILP
and brute force answer the same problem exactly (no float tolerance decides
a tie or a bound), and so that a choice's objective and slacks are computed
once, here, for both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .budgets import Budget

__all__ = ["Bound", "Check", "CountRow", "Problem"]

Choice = tuple[int, ...]


@dataclass(frozen=True)
class Check:
    """A choice's objective and, per constraint, its slack (>= 0: met)."""

    objective: int
    #: per bound (`Problem.bounds`), its limit less the choice's use
    bound_slack: tuple[int, ...]
    redemption_slack: int

    @property
    def feasible(self) -> bool:
        return self.redemption_slack >= 0 and all(s >= 0 for s in self.bound_slack)


@dataclass(frozen=True)
class CountRow:
    """A count limit in one period (or ever): per group it covers, each
    option's P90 redemptions there (expected counts)."""

    name: str
    limit: int
    p90: Mapping[int, Sequence[float]]


@dataclass(frozen=True)
class Bound:
    """One constraint row: the summed `use` of the options chosen in the groups
    it covers is at most `limit` (cents, or thousandths of a redemption)."""

    name: str
    limit: int
    use: tuple[tuple[int, np.ndarray], ...]  # (group, per option)
    unit: Literal["cents", "thousandths"]

    def used(self, choice: Choice) -> int:
        return sum(int(use[choice[g]]) for g, use in self.use)

    def least(self) -> int:
        return sum(int(use.min()) for _, use in self.use)

    def why_unmeetable(self) -> str:
        if self.unit == "cents":
            return (f"{self.name}: the least P90 spend of its groups is {self.least()} cents, "
                    f"over its limit {self.limit}")
        return (f"{self.name}: the least P90 redemptions of its groups are {self.least() / 1000:,.3f}, "
                f"over its limit {self.limit // 1000:,}")


def _thousandths_up(values: Sequence[float]) -> np.ndarray:
    """Counts in thousandths rounded up (a P90 bound is kept safe), float noise
    below a millionth not rounding a whole number up."""
    return np.ceil(np.asarray(values, dtype=np.float64) * 1000 - 1e-6).astype(np.int64)


@dataclass(frozen=True)
class Problem:
    value: tuple[np.ndarray, ...]
    redemptions: tuple[np.ndarray, ...]  # thousandths
    bounds: tuple[Bound, ...]
    floor: int  # thousandths

    @staticmethod
    def of(value: Sequence[Sequence[int]], p90: Sequence[Sequence[int]], redemptions: Sequence[Sequence[float]],
           budgets: Sequence[Budget] = (), min_redemptions: float = 0.0, counts: Sequence[CountRow] = ()) -> Problem:
        """From per-group lists: `p90` the options' P90 spend (cents) that the
        money `budgets` sum, `redemptions` as expected counts, `counts` the
        count limits' rows."""
        if isinstance(min_redemptions, bool) or not isinstance(min_redemptions, int | float) \
                or not math.isfinite(min_redemptions) or min_redemptions < 0:
            raise ValueError(f"min_redemptions must be a number >= 0, got {min_redemptions!r}")
        if not value or any(len(v) == 0 for v in value):
            raise ValueError("every group needs at least one option")
        if any(b.measure != "discount" for b in budgets):
            raise ValueError("a count budget is given as CountRow rows (`counts`, one per period), not in `budgets`")
        spend = [np.asarray(v, dtype=np.int64) for v in p90]
        bounds = [Bound(b.name, b.limit, tuple((g, spend[g]) for g in b.groups), "cents") for b in budgets]
        bounds += [Bound(c.name, c.limit * 1000, tuple((g, _thousandths_up(u)) for g, u in sorted(c.p90.items())),
                         "thousandths") for c in counts]
        return Problem(
            value=tuple(np.asarray(v, dtype=np.int64) for v in value),
            redemptions=tuple(np.floor(np.asarray(v, dtype=np.float64) * 1000).astype(np.int64) for v in redemptions),
            bounds=tuple(bounds),
            floor=math.ceil(min_redemptions * 1000),
        )

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(v) for v in self.value)

    def check(self, choice: Choice) -> Check:
        """Exact integer figures of one option per group."""
        objective = sum(int(self.value[g][o]) for g, o in enumerate(choice))
        slack = tuple(b.limit - b.used(choice) for b in self.bounds)
        redeemed = sum(int(self.redemptions[g][o]) for g, o in enumerate(choice))
        return Check(objective, slack, redeemed - self.floor)

    def unmeetable(self) -> list[str]:
        """The constraints no choice can meet even alone (what an infeasible answer names)."""
        out = [b.why_unmeetable() for b in self.bounds if b.least() > b.limit]
        most = sum(int(r.max()) for r in self.redemptions)
        if most < self.floor:
            out.append(f"the floor of {self.floor / 1000:g} redemptions: at most {most / 1000:g} are expected")
        return out
