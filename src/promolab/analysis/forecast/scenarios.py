"""`compare_scenarios`: the same dated orders forecast under several scenarios.

A proposal is judged against what runs now on the same month of orders: each
scenario (a simulator, or a simulator with what-if tiers) is forecast with
the same orders and the same cost model, so the redemption draws are the
same orders' and every difference is the scenarios'. The frames line the
scenarios up side by side (one column per scenario, in the order given) and
`difference(a, b)` says what `b` changes against `a`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from ..figures import figures
from .api import forecast
from .costs import CostModel
from .result import ForecastResult

if TYPE_CHECKING:
    from ...sim import Simulator

__all__ = ["ScenarioComparison", "compare_scenarios"]

_MEASURES = ("redemptions", "discount", "held_back")


@dataclass
class ScenarioComparison:
    results: dict[str, ForecastResult]

    @property
    def names(self) -> list[str]:
        return list(self.results)

    @property
    def currency(self) -> str:
        """What the amounts are in: the first scenario's currency (scenarios
        compared side by side are in one)."""
        return next(iter(self.results.values())).currency

    def campaigns(self) -> pd.DataFrame:
        """Per campaign: redemptions, discount and orders held back under each
        scenario (columns `<measure>` x scenario), campaigns of any scenario."""
        parts = {name: r.summary().set_index("campaign_id")[list(_MEASURES)] for name, r in self.results.items()}
        wide = pd.concat(parts, axis=1, names=["scenario", "measure"]).fillna(0).astype("Int64")
        wide = wide.swaplevel(axis=1)[[(m, n) for m in _MEASURES for n in self.names]]
        wide.index = wide.index.astype("string")
        return figures(wide.sort_index(), self.currency)

    def totals(self) -> pd.DataFrame:
        """One row per scenario: orders, redeemed, discount, margin (when costed)."""
        rows = []
        for name, r in self.results.items():
            margin = r.orders["margin"]
            rows.append({"scenario": name, **r.totals()._asdict(),
                         "margin": margin.sum() if margin.notna().all() and len(margin) else pd.NA})
        return figures(pd.DataFrame(rows).astype({"scenario": "string", "margin": "Int64"}), self.currency)

    def periods(self, freq: Literal["day", "week", "month"] = "day") -> pd.DataFrame:
        """`ForecastResult.periods` of every scenario, stacked with a `scenario` column."""
        frames = [r.periods(freq).assign(scenario=name) for name, r in self.results.items()]
        out = pd.concat(frames, ignore_index=True)
        out["scenario"] = pd.Categorical(out["scenario"], categories=self.names)
        return figures(out[["scenario", *[c for c in out.columns if c != "scenario"]]], self.currency)

    def orders(self) -> pd.DataFrame:
        """Per order: the tier redeemed and the discount under each scenario."""
        first = next(iter(self.results.values())).orders
        out = pd.DataFrame({"order_id": first["order_id"], "placed_at": first["placed_at"]})
        for name, r in self.results.items():
            o = r.orders.set_index("order_id").loc[first["order_id"]]
            out[f"tier_id[{name}]"] = o["tier_id"].astype("string").to_numpy()
            out[f"discount[{name}]"] = o["discount"].array
        return figures(out, self.currency)

    def difference(self, a: str, b: str) -> pd.DataFrame:
        """Per campaign, `b` minus `a` of each measure; the orders whose tier changed are in `orders()`."""
        for name in (a, b):
            if name not in self.results:
                raise KeyError(f"no scenario {name!r}; compared: {', '.join(self.names)}")
        wide = self.campaigns()
        out = pd.DataFrame({m: wide[(m, b)] - wide[(m, a)] for m in _MEASURES})
        return figures(out.reset_index(), self.currency)

    def plot(self, *, ax: Any = None, currency: str = "USD", difference: bool = False) -> Any:
        """Discount per campaign under each scenario (grouped bars, each later one
        with its change from the first); `difference=True`: the changes as bars.
        Returns the Axes."""
        from .scenario_chart import plot_scenario_discounts

        return plot_scenario_discounts(self, ax=ax, currency=currency, difference=difference)

    def __repr__(self) -> str:
        from .result_summary import comparison_line

        return comparison_line(self)

    def _repr_html_(self) -> str:
        """Per scenario and per campaign, for a notebook (`result_summary`)."""
        from .result_summary import comparison_summary

        return comparison_summary(self).html()


def compare_scenarios(
    scenarios: Mapping[str, Simulator | tuple[Simulator, Any]],
    orders: pd.DataFrame,
    *,
    policy: str | Sequence[str] = "best",
    costs: CostModel | None = None,
    customers: Any = None,
    progress: bool = False,
) -> ScenarioComparison:
    """Forecast `orders` under each scenario: `{"now": sim, "proposal": other_sim}`,
    or `(sim, tiers)` for what-if tiers on a simulator (ids / TierSpec /
    CompiledTier, as `forecast(tiers=...)`), each with the same `policy`
    (as `forecast`'s: "best", "stack", or a fixed set of tiers, codes and
    campaigns of codes). Needs at least two."""
    if len(scenarios) < 2:
        raise ValueError("compare at least two scenarios")
    results = {}
    for name, scenario in scenarios.items():
        sim, tiers = scenario if isinstance(scenario, tuple) else (scenario, None)
        results[str(name)] = forecast(sim, orders, tiers=tiers, policy=policy, costs=costs, customers=customers,
                                      progress=progress)
    return ScenarioComparison(results)
