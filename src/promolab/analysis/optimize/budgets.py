"""The budgets a choice must keep: read from the scenario's rules, or given.

The scenario's budgets are read as the forecast reads them
(`forecast.budget_leaves`: each budget rule of a group's tier with what it
counts, its `UsageQuery`, and its bound), so there is one reading of a
scenario's budgets. The optimizer constrains two kinds of everyone's total:

- **money**: the discount a campaign gave (`campaign.orders.amount_discounted`),
  keyed by the campaign; `$less_than 500000` allows 499,999 cents, as the
  total must stay below the bound;
- **counts**: redemptions of the tier (`redemption.count.daily` / `.weekly` /
  `.monthly`, keyed by the tier) or of its campaign
  (`campaign.redemptions.count[.daily|.weekly|.monthly]`, keyed by the
  campaign), ever or per calendar period; `$less_than 300` allows 300
  redemptions (the rule reads the count before each one, so the 300th passes).

A budget covers the groups of its tier or campaign: it holds for a choice
when the sum of their P90s (spend, or redemptions per period) is within what
is left of its limit (`spread`: safe), the limit less what the simulator's
redemptions so far used of it (`with_used`: the totals the forecast's walk
starts from; a cap half used leaves half). Per-customer limits have no everyone's total (the
forecast's `budget_left` leaves them out too): they are not constraints, and
the answer lists them as left to the forecast's walk (`Limits.left_out`).
Any other budget rule on a group's tier (order amounts, a bound that is not
an upper one, a period on a money total) is refused with a ValueError: a
limit the optimizer cannot read is never silently dropped. The caller may
give `budgets={key: cents | CountLimit(...) | (cents, CountLimit(...), ...) |
None}` keyed by a group's tier or campaign id: cents replace the scenario's
money budget of that key, a `CountLimit` its count limit of the same period,
None leaves every budget rule of that key to the forecast's walk (how a rule
the optimizer cannot read is let through).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from ...engine import CompiledTier, Period, UsageLedger, UsageQuery
from ..forecast.budget_leaves import BudgetLeaf, budget_leaves
from .space import TierGrid

__all__ = ["Budget", "CountLimit", "GivenBudget", "Limits", "budgets_of", "with_used"]

Measure = Literal["discount", "count"]
PERIODS: tuple[Period, ...] = get_args(Period)


@dataclass(frozen=True)
class CountLimit:
    """A given limit on redemptions: at most `limit` ever, or in each calendar
    period (`"daily"`, `"weekly"`, `"monthly"`, cut as the scenario's budgets
    count them)."""

    limit: int
    period: Period | None = None

    def __post_init__(self) -> None:
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 0:
            raise ValueError(f"CountLimit.limit must be whole redemptions >= 0, got {self.limit!r}")
        if self.period is not None and self.period not in PERIODS:
            raise ValueError(f"CountLimit.period must be one of {', '.join(PERIODS)} or None, got {self.period!r}")


#: What `budgets=` maps a key to: cents of discount, a count limit, several of them, or None (leave it to the walk).
GivenBudget = int | CountLimit | tuple[int | CountLimit, ...] | None


@dataclass(frozen=True)
class Budget:
    """A limit on the summed P90 of the groups it covers: of spend (cents,
    `measure="discount"`) or of redemptions (`measure="count"`, ever or in
    each calendar `period`)."""

    key: str
    limit: int
    groups: tuple[int, ...]
    source: str
    measure: Measure = "discount"
    period: Period | None = None
    #: what it counts: redemptions of the tier (`key` a group's tier) or of the campaign
    scope: Literal["redeemable", "campaign"] = "campaign"
    #: what the simulator's state used of it before the orders, per key of its period (None: ever)
    used: Mapping[int | None, int] = field(default_factory=dict)

    def left(self, key: int | None = None) -> int:
        """The limit less what was used before the orders (in the period of `key`, `engine.period_key_arrays`):
        a cap the project has half used leaves half to the choice, as the forecast's walk starts from the
        same totals (`usage_of`)."""
        return self.limit - self.used.get(key, 0)

    @property
    def name(self) -> str:
        """How constraints are named: `budget camp_vip`, `weekly count camp_beans`."""
        if self.measure == "discount":
            return f"budget {self.key}"
        return f"{self.period or 'total'} count {self.key}"


@dataclass(frozen=True)
class Limits:
    """The budgets to keep, and the per-customer limits left to the forecast's walk."""

    budgets: tuple[Budget, ...]
    left_out: tuple[str, ...]

    @property
    def periods(self) -> tuple[Period, ...]:
        """The calendar periods the count budgets are cut in (what the evaluation sums per period)."""
        return tuple(p for p in PERIODS if any(b.period == p for b in self.budgets))


def _read(leaf: BudgetLeaf, base: CompiledTier) -> tuple[str, Budget] | str:
    """A budget rule as a `Budget` keyed by what it counts, or the note of a
    per-customer limit; raises ValueError on a rule the optimizer cannot read."""
    query = leaf.query
    campaign = base.spec.campaign.id
    key = base.id if query.scope == "redeemable" else campaign
    where = f"rule {leaf.rule_id} of {base.id}"
    if query.per_customer:
        return f"{where} ({leaf.name}: per customer)"
    why = None
    if leaf.limit is None:
        why = "its conditions are not an upper bound ($less_than / $less_than_or_equal a number)"
    elif query.measure == "order_amount":
        why = "it limits order amounts, and the optimizer constrains discount and redemptions"
    elif query.measure == "discount" and query.period is not None:
        why = "it limits discount per period, and the optimizer constrains discount ever"
    if why is not None or leaf.limit is None:
        raise ValueError(f"tier {base.id}: {where} ({leaf.name}) cannot be a constraint: {why}; give "
                         f"budgets={{{key!r}: None}} to leave it to the forecast's walk, or a limit to keep instead")
    if query.measure == "discount":
        return f"discount {key}", Budget(key, leaf.limit - 1, (), where)
    return f"count {key} {query.period}", Budget(key, leaf.limit, (), where, "count", query.period)


def _given(key: str, value: object) -> list[tuple[str, Budget]]:
    """A given budget (or several, a flat tuple) in the slots it replaces; two of one slot (two money
    budgets, two count limits of one period) are refused, as the last would silently replace the first."""
    if not (isinstance(value, tuple) and value):
        return [_given_one(key, value)]
    slots = [_given_one(key, one) for one in value]
    names = [name for name, _ in slots]
    if len(set(names)) < len(names):
        raise ValueError(f"budgets[{key!r}] gives two limits of one kind (a money budget, or count limits of one "
                         f"period), of which only one could be kept: got {value!r}")
    return slots


def _given_one(key: str, value: object) -> tuple[str, Budget]:
    """One given budget: cents of discount or a `CountLimit`, in the slot it replaces."""
    if isinstance(value, CountLimit):
        return f"count {key} {value.period}", Budget(key, value.limit, (), "given", "count", value.period)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"budgets[{key!r}] must be whole cents >= 0, a CountLimit, a tuple of them or None, "
                         f"got {value!r}")
    return f"discount {key}", Budget(key, value, (), "given")


def budgets_of(groups: Sequence[TierGrid], bases: Sequence[CompiledTier],
               given: Mapping[str, GivenBudget] | None) -> Limits:
    """The scenario's budgets on the groups' tiers, then the given ones."""
    given = dict(given or {})
    tiers = {g.tier for g in groups}
    keys = tiers | {b.spec.campaign.id for b in bases}
    for key in given:
        if key not in keys:
            raise ValueError(f"budgets names {key!r}, neither a group's tier nor its campaign "
                             f"(groups: {', '.join(sorted(keys))})")
    found: dict[str, Budget] = {}
    left_out: list[str] = []
    for base in {b.id: b for b in bases}.values():  # a tier of several segment groups read once
        for leaf in budget_leaves(base):
            key = base.id if leaf.query.scope == "redeemable" else base.spec.campaign.id
            if key in given and given[key] is None:
                left_out.append(f"rule {leaf.rule_id} of {base.id} ({leaf.name}: left out by budgets=)")
                continue
            read = _read(leaf, base)
            if isinstance(read, str):
                left_out.append(read)
            elif read[0] not in found:  # a campaign's budget read once, from its first tier
                found[read[0]] = read[1]
    for key, value in given.items():
        if value is not None:
            found.update(_given(key, value))
    out = []
    for budget in found.values():
        members = tuple(g for g, (group, base) in enumerate(zip(groups, bases, strict=True))
                        if budget.key in (group.tier, base.spec.campaign.id))
        scope: Literal["redeemable", "campaign"] = "redeemable" if budget.key in tiers else "campaign"
        out.append(Budget(budget.key, budget.limit, members, budget.source, budget.measure, budget.period, scope))
    return Limits(tuple(out), tuple(dict.fromkeys(left_out)))


def with_used(limits: Limits, ledger: UsageLedger) -> Limits:
    """The budgets with what `ledger` (the simulator's redemptions so far, `usage_of`) has used of each:
    what the rule counts, so the choice is held to what is left (`Budget.left`)."""
    return replace(limits, budgets=tuple(
        replace(b, used=ledger.totals_by_period(UsageQuery(b.scope, b.measure, False, b.period), b.key, b.key))
        for b in limits.budgets))
