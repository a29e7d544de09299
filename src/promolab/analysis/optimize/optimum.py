"""`Optimum`: the answer, typed: what to set, what it brings, what binds.

The chosen option per group, the objective (expected incremental net
revenue the settings add, cents), every constraint with its slack (money
budgets, count limits per period, the redemption floor; a
constraint *binds* when its slack is under 1 % of its bound: moving along it
would be what limits the answer), the runner-up (the best other choice,
solved again without the optimum) and the gap to it, and the evaluated
table of every option. An infeasible problem is an `Optimum` too
(`feasible=False`, `reason`: which constraint cannot be met at all, or that
they cannot be met together), not an exception. The per-customer limits of
the groups' tiers, which are not constraints here, are named in `left_out`
(and the summary) rather than dropped in silence.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ...display import format_money, text_table

__all__ = ["Constraint", "Optimum"]

#: A constraint binds when its slack is within this share of its bound.
BINDING_SHARE = 0.01


@dataclass(frozen=True)
class Constraint:
    """A budget (`kind="budget"`, cents of summed P90 spend), a count limit
    in one period (`kind="count"`, summed P90 redemptions) or the redemption
    floor (`kind="redemptions"`, expected redemptions)."""

    name: str
    kind: str
    used: float
    bound: float

    @property
    def slack(self) -> float:
        return self.used - self.bound if self.kind == "redemptions" else self.bound - self.used

    @property
    def binding(self) -> bool:
        return self.slack <= BINDING_SHARE * abs(self.bound)


@dataclass(frozen=True)
class Optimum:
    feasible: bool
    #: group label -> option name (empty when infeasible)
    choice: dict[str, str]
    objective: int | None
    constraints: tuple[Constraint, ...]
    runner_up: dict[str, str] | None
    runner_up_objective: int | None
    table: pd.DataFrame
    currency: str
    reason: str | None = None
    #: the groups' per-customer limits (and rules `budgets=` set to None), left to the forecast's walk
    left_out: tuple[str, ...] = ()

    @property
    def gap(self) -> int | None:
        """How far the runner-up is below the optimum (cents), None without one."""
        if self.objective is None or self.runner_up_objective is None:
            return None
        return self.objective - self.runner_up_objective

    @property
    def binding(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.constraints if c.binding)

    def chosen(self) -> pd.DataFrame:
        """The table's rows of the chosen options."""
        frame = self.table
        mask = pd.Series(False, index=frame.index)
        for group, option in self.choice.items():
            mask |= (frame["group"] == group) & (frame["option"] == option)
        return frame[mask].reset_index(drop=True)

    def summary(self) -> str:
        """For people: money with the currency."""
        def money(cents: object) -> str:
            return format_money(cents, self.currency)

        if not self.feasible:
            return f"no setting meets the constraints: {self.reason}"
        lines = [f"best setting: expected incremental net revenue {money(self.objective)}"]
        lines += [f"  {group}: {option}" for group, option in self.choice.items()]
        rows = []
        for c in self.constraints:
            if c.kind == "budget":
                rows.append([c.name, money(round(c.used)), money(round(c.bound)), money(round(c.slack)),
                             "binds" if c.binding else ""])
            else:
                rows.append([c.name, f"{c.used:,.1f}", f"{c.bound:,.1f}", f"{c.slack:,.1f}",
                             "binds" if c.binding else ""])
        if rows:
            lines.append(text_table(["constraint", "used", "bound", "slack", ""], rows))
        if self.left_out:
            lines.append(f"not constrained (left to the forecast's walk): {'; '.join(self.left_out)}")
        if self.runner_up is None:
            lines.append("runner-up: none (no other setting meets the constraints)")
        else:
            lines.append(f"runner-up: {'; '.join(f'{g}: {o}' for g, o in self.runner_up.items())}, "
                         f"{money(self.gap)} less")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Optimum(\n{self.summary()}\n)"
