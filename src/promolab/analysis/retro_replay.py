"""Retro-replay: what a change would have done to the orders a project really had.

Given a project's history (the orders frame and the redemptions frame a pull
writes, docs/pull.md), the simulator of the project as it was (`before`) and
a changed copy (`after`: a tier's discount, a rule, a stacking setting,
`with_changes`), every historical order is priced again at its own instant
under both, budgets and limits spent in time order (the forecast's walk,
`compare_scenarios`: one implementation of redeeming over time), and set
beside what was actually redeemed on it. The answer is per order, per tier
and per budget, money in `Int64` minor units, and a chart.

What an order is taken to redeem under each scenario is the forecast's
`policy`: "stack" (default) sends every promotion it qualifies for, as a
checkout that applies all it is offered; "best" the single largest; a list
sends that fixed set with every order. The `actual` columns are the
history's: the redemptions that succeeded and were not rolled back. Where
`before` and `actual` differ, the policy is not how the project's checkout
chose (or the pulled scenario misses what the project holds): the per-order
frame shows which orders.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from .figures import figures
from .forecast import CostModel, ScenarioComparison, compare_scenarios
from .standing import standing_redemptions

if TYPE_CHECKING:
    from ..sim import Simulator

__all__ = ["RETRO_ORDER_COLUMNS", "RETRO_TIER_COLUMNS", "RetroReplay", "retro_replay"]

RETRO_ORDER_COLUMNS = ("order_id", "placed_at", "customer", "amount", "actual_discount", "before_discount",
                       "after_discount", "change")
RETRO_TIER_COLUMNS = ("tier_id", "actual_redemptions", "actual_discount", "before_redemptions", "before_discount",
                      "after_redemptions", "after_discount", "change")
_NAMES = ("before", "after")


@dataclass(frozen=True)
class RetroReplay:
    """The history priced again under `before` and `after`, beside what was redeemed."""

    comparison: ScenarioComparison
    #: the history's standing redemptions (the `actual` columns' source)
    actual: pd.DataFrame

    @property
    def currency(self) -> str:
        return self.comparison.currency

    def per_order(self) -> pd.DataFrame:
        """One row per historical order, in time order (`RETRO_ORDER_COLUMNS`):
        what it was given, and what it would be given before and after the change."""
        before, after = (self.comparison.results[name].orders for name in _NAMES)
        top = self.actual[self.actual["parent_id"].isna()]
        given = top.groupby("order_id", observed=True)["discount_amount"].sum()
        frame = before[["order_id", "placed_at", "customer", "amount"]].copy()
        frame["actual_discount"] = frame["order_id"].map(given).fillna(0).astype("Int64")
        frame["before_discount"] = before["discount"].astype("Int64").to_numpy()
        # Both walks put the same orders in the same (time) order: the rows line up.
        if not (before["order_id"].to_numpy() == after["order_id"].to_numpy()).all():
            raise AssertionError("the two forecasts walked the orders in different orders")
        frame["after_discount"] = after["discount"].astype("Int64").to_numpy()
        frame["change"] = frame["after_discount"] - frame["before_discount"]
        return figures(frame.reset_index(drop=True), self.currency)

    def per_tier(self) -> pd.DataFrame:
        """One row per promotion tier redeemed in any of the three (`RETRO_TIER_COLUMNS`)."""
        tiers = self.actual[self.actual["redeemable_type"] == "promotion_tier"]
        parts = {"actual": tiers.groupby("redeemable_id")["discount_amount"].agg(["size", "sum"])}
        for name in _NAMES:
            spent = self.comparison.results[name].redemptions
            parts[name] = spent.groupby(spent["tier_id"].astype("string"))["discount"].agg(["size", "sum"])
        rows = sorted(set().union(*(part.index for part in parts.values())))
        frame = pd.DataFrame({"tier_id": pd.array(rows, dtype="string")})
        for name, part in parts.items():
            part = part.reindex(rows).fillna(0)
            frame[f"{name}_redemptions"] = part["size"].astype("Int64").to_numpy()
            frame[f"{name}_discount"] = part["sum"].astype("Int64").to_numpy()
        frame["change"] = frame["after_discount"] - frame["before_discount"]
        return figures(frame[list(RETRO_TIER_COLUMNS)], self.currency)

    def per_budget(self) -> pd.DataFrame:
        """Each budget or limit of the candidate tiers: its bound, and what was used of it
        before and after the change, when it ran out and how many orders it held back."""
        keys = ["tier_id", "campaign_id", "rule_id", "rule", "per_customer", "period", "measure", "limit"]
        before, after = (self.comparison.results[name].budgets for name in _NAMES)
        measures = ["used", "ran_out_at", "orders_held_back"]
        merged = before[keys + measures].merge(after[keys + measures], on=keys, how="outer",
                                               suffixes=("_before", "_after"))
        merged["used_change"] = merged["used_after"] - merged["used_before"]
        return figures(merged, self.currency)

    def totals(self) -> pd.DataFrame:
        """Orders, redemptions and discount: actual, before and after."""
        orders = self.per_order()
        rows = [{"measure": "discount", "actual": orders["actual_discount"].sum(),
                 "before": orders["before_discount"].sum(), "after": orders["after_discount"].sum()},
                {"measure": "orders given a discount", "actual": int((orders["actual_discount"] > 0).sum()),
                 "before": int((orders["before_discount"] > 0).sum()),
                 "after": int((orders["after_discount"] > 0).sum())}]
        frame = pd.DataFrame(rows).astype({"measure": "string", "actual": "Int64", "before": "Int64",
                                           "after": "Int64"})
        return figures(frame, self.currency)

    def plot(self, ax: Any = None) -> Any:
        """Discount per tier: actual, before and after the change (bars, money on the axis)."""
        import matplotlib.pyplot as plt

        from ..display import format_money

        tiers = self.per_tier()
        if ax is None:
            _, ax = plt.subplots(figsize=(8, 0.5 + 0.45 * max(len(tiers), 1)))
        width = 0.27
        positions = range(len(tiers))
        for n, (label, column) in enumerate((("actual", "actual_discount"), ("before", "before_discount"),
                                              ("after", "after_discount"))):
            ax.barh([p + (n - 1) * width for p in positions], tiers[column].astype("int64"), height=width,
                    label=label)
        ax.set_yticks(list(positions), list(tiers["tier_id"]))
        ax.invert_yaxis()
        ax.xaxis.set_major_formatter(lambda value, _: format_money(int(value), self.currency))
        ax.set_xlabel(f"discount ({self.currency})")
        ax.set_title("What the change would have done to the history")
        ax.legend()
        return ax


def retro_replay(before: Simulator, after: Simulator, orders: pd.DataFrame, redemptions: pd.DataFrame, *,
                 policy: str | Sequence[str] = "stack", costs: CostModel | None = None,
                 progress: bool = False) -> RetroReplay:
    """Price the historical `orders` (a line-items frame with `placed_at`) under
    `before` and `after`, and set them beside the history's `redemptions`
    (the frame a pull writes). Raises what `forecast` raises for bad orders."""
    actual = standing_redemptions(redemptions)  # refuses a frame that is not a history's, before any pricing
    comparison = compare_scenarios({"before": before, "after": after}, orders, policy=policy, costs=costs,
                                   progress=progress)
    return RetroReplay(comparison, actual)
