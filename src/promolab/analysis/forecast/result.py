"""`ForecastResult`: per order, per period, per budget; money in cents.

- `orders`: one row per order in time order (`ORDER_COLUMNS`; under a
  stacked policy `redeemables`, with a fixed set naming a campaign
  `published_codes`; then the frame's own per-order columns such as
  `channel` and `segment`);
- `budgets`: one row per budget or limit rule of a candidate tier (and per
  code stock and campaign pool of a fixed set): its
  bound, what was used by the end, when it first refused an order the tier
  would otherwise have won (`ran_out_at`) and how many it refused;
- `periods(freq)`: per campaign and calendar day / week / month of the
  project's time zone: redemptions, discount, orders held back, and the
  running totals (what a burn-down draws);
- `budget_left(freq)`: per budget of everyone's total and period, what it
  read at the period's end and what was left (`budget_left`);
- `summary()`: per campaign.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ...display import DEFAULT_CURRENCY
from ...engine import CompiledTier, WeekStart
from ..figures import figures
from .bands import ForecastBands
from .budget_left import BudgetTrack, budget_left
from .calendar_periods import FREQS, Freq, period_range, period_start
from .facts import OrderFacts
from .fixed_set import HELD_POOL, HELD_STOCK, FixedCode, FixedSet
from .publications import Publications
from .spending import Spending, WatchedTier

__all__ = ["BUDGET_COLUMNS", "ORDER_COLUMNS", "PERIOD_COLUMNS", "ForecastResult", "ForecastTotals"]

ORDER_COLUMNS = (
    "order_id", "placed_at", "customer", "amount", "quantity", "qualified_tier_id", "redeemed", "tier_id",
    "campaign_id", "discount", "held_back_tier_id", "held_back_by", "cost_of_goods", "cost", "margin",
)  # fmt: skip
#: `measure`: what `limit` and `used` are in: "count" (redemptions, codes), or minor
#: units of money ("discount", "order_amount"; the frame's `attrs["currency"]`).
BUDGET_COLUMNS = (
    "tier_id", "campaign_id", "rule_id", "rule", "per_customer", "period", "measure", "limit", "used", "ran_out_at",
    "orders_held_back",
)  # fmt: skip
PERIOD_COLUMNS = (
    "campaign_id", "period_start", "redemptions", "discount", "held_back", "redemptions_to_date", "discount_to_date",
)  # fmt: skip
#: The rule a fixed set's code is held back by when its uses run out.
_CODE_STOCK = "code stock (redemption quantity)"
#: ... and the rule a fixed set's campaign holds an order back by when no code is left to publish.
_CODE_POOL = "code pool (codes left to publish)"


def _labels(names: Sequence[str], codes: np.ndarray) -> pd.Categorical:
    return pd.Categorical.from_codes(codes.astype(np.int32), categories=pd.Index(list(names), dtype="string"))


class ForecastTotals(NamedTuple):
    """A forecast's totals over every order: what its summaries and a
    scenario comparison's `totals()` show first."""

    orders: int
    redeemed: int
    discount: int
    held_back: int


@dataclass
class ForecastResult:
    orders: pd.DataFrame
    budgets: pd.DataFrame
    #: one row per tier redeemed: `row` (in `orders`), `order_id`, `tier_id`,
    #: `campaign_id`, `discount` (a stack's parts under the "stack" policy)
    redemptions: pd.DataFrame
    excluded: dict[str, str]
    #: the candidate tiers, in order (what `send_one_by_one` takes)
    tier_ids: tuple[str, ...]
    #: each candidate tier's and fixed-set code's campaign (a code outside any campaign is its own)
    tier_campaigns: dict[str, str]
    timezone: str
    #: each order's (day, week, month) keys (`engine.period_keys`), in the rows' order
    period_keys: tuple[np.ndarray, np.ndarray, np.ndarray]
    #: the project's first day of the week (its weekly periods)
    week_start: WeekStart = "MONDAY"
    #: the budgets of everyone's total and the code stocks, as `budget_left` follows them
    budget_tracks: tuple[BudgetTrack, ...] = ()
    #: what every amount of the frames is in (the simulator's: its scenario's `project.currency`)
    currency: str = DEFAULT_CURRENCY
    #: the scenario's tier and campaign names by id (`names.scenario_names`), for charts
    names: dict[str, str] = field(default_factory=dict)
    #: `forecast(..., draws=N)`: P10/P50/P90 per budget and per tier over N draws (`bands`); None without draws
    bands: ForecastBands | None = None

    @classmethod
    def build(cls, tiers: Sequence[CompiledTier], watched: Sequence[WatchedTier], excluded: dict[str, str],
              facts: OrderFacts, spent: Spending, order: np.ndarray, fixed: FixedSet | None = None,
              published: Publications | None = None) -> ForecastResult:
        tz, goods = facts.timezone, facts.cost_of_goods
        extras = fixed.extras if fixed is not None else []
        ids = [t.id for t in tiers] + [e.label for e in extras]
        campaigns = [t.spec.campaign.id for t in tiers] + [e.campaign_id for e in extras]
        campaign_names = list(dict.fromkeys(campaigns))
        campaign_code = np.array([campaign_names.index(c) for c in campaigns], dtype=np.int32)
        won = (spent.qualified if spent.qualified is not None else spent.tier)[order]
        redeemed = spent.redeemed[order]
        tier_code = np.where(redeemed, spent.tier[order], -1)
        held = spent.held_tier[order]
        amount = np.asarray(facts.amount)[order]
        discount = spent.discount[order]
        customer = facts.customer[order]
        rules = _HeldRules(held, spent.held_leaf[order], facts.placed_at[order], tz)
        tracks: list[BudgetTrack] = []
        for spec in watched:
            if spec.budget is None:
                continue
            for j, leaf in enumerate(spec.budget.leaves):
                used: int | None = None
                if not leaf.query.per_customer and leaf.query.period is None:
                    used = spent.ledger.total(leaf.query, spec.tier_id, spec.campaign_id, None, None)
                rules.add(spec.position, j, _Rule(spec.tier_id, spec.campaign_id, leaf.rule_id, leaf.name, leaf.limit,
                                                  used, per_customer=leaf.query.per_customer,
                                                  period=leaf.query.period, measure=leaf.query.measure))
                if not leaf.query.per_customer:
                    tracks.append(BudgetTrack(
                        spec.tier_id, spec.campaign_id, leaf.name,
                        "tier_id" if leaf.query.scope == "redeemable" else "campaign_id", leaf.query.measure,
                        leaf.query.period, leaf.limit,
                        spent.ledger.totals_by_period(leaf.query, spec.tier_id, spec.campaign_id)))
        uses = spent.code_uses or {}
        for extra in extras:  # a code's stock (its redemption quantity); a campaign's pool of codes
            if isinstance(extra, FixedCode):
                used_up = extra.redeemed + uses.get(extra.voucher_id, 0)
                rules.add(extra.position, HELD_STOCK, _Rule(extra.code, extra.campaign_id, None, _CODE_STOCK,
                                                            extra.quantity, used_up),
                          always=extra.quantity is not None)
                if extra.quantity is not None:
                    tracks.append(BudgetTrack(extra.code, extra.campaign_id, _CODE_STOCK, "tier_id", "count", None,
                                              extra.quantity, {None: used_up}))
                continue
            assert published is not None
            left = published.free_left[fixed.campaigns.index(extra)] if fixed is not None else 0
            rules.add(extra.position, HELD_POOL,
                      _Rule(extra.label, extra.campaign_id, None, _CODE_POOL, extra.free, extra.free - left))
            rules.add(extra.position, HELD_STOCK, _Rule(extra.label, extra.campaign_id, None, _CODE_STOCK, None, None),
                      always=False)  # its codes' own uses, code by code
        held_rule, rule_names, budgets_rows = rules.held_rule, rules.names, rules.rows
        frame = pd.DataFrame({
            # strings made once per distinct value, then taken (a million orders: 0.9 s -> 0.3 s)
            "order_id": pd.Series(facts.order_ids.take(order)).astype("string").array,
            "placed_at": pd.DatetimeIndex(facts.placed_at[order], tz="UTC").tz_convert(tz),
            "customer": pd.array(list(facts.customer_names), dtype="string").take(customer, allow_fill=True),
            "amount": amount,
            "quantity": facts.quantity[order],
            "qualified_tier_id": _labels(ids, won),
            "redeemed": redeemed,
            "tier_id": _labels(ids, tier_code),
            "campaign_id": _labels(campaign_names, np.where(tier_code >= 0, campaign_code[np.maximum(tier_code, 0)], -1)),
            "discount": discount,
            "held_back_tier_id": _labels(ids, held),
            "held_back_by": _labels(rule_names, held_rule),
            "cost_of_goods": pd.array(goods[order] if goods is not None else [None] * len(order), dtype="Int64"),
        })  # fmt: skip
        if published is not None:  # the codes the set's campaigns handed each order's customer
            handed = [",".join(c for c in codes if c is not None) or None
                      for codes in zip(*(np.asarray(p, dtype=object)[order] for p in published.codes), strict=True)]
            frame["published_codes"] = pd.array(handed, dtype="string")
        if spent.applied is not None:  # the stack policy: every tier applied
            masks = spent.applied[order]
            names = [",".join(t for p, t in enumerate(ids) if m >> p & 1) for m in masks.tolist()]
            frame.insert(frame.columns.get_loc("tier_id") + 1, "redeemables", pd.array([n or None for n in names], dtype="string"))
        frame["cost"] = frame["discount"]  # what the redemptions give away (cohort breakdowns sum it)
        frame["margin"] = frame["amount"] - frame["cost_of_goods"] - frame["discount"]
        for name, values in facts.columns.items():
            if name not in frame.columns:
                frame[name] = values[order]
        frame.index = pd.RangeIndex(len(frame))
        budgets = pd.DataFrame(budgets_rows, columns=list(BUDGET_COLUMNS)).astype({
            "tier_id": "string", "campaign_id": "string", "rule_id": "string", "rule": "string",
            "period": "string", "measure": "string", "limit": "Int64", "used": "Int64", "orders_held_back": "Int64",
        })  # fmt: skip
        if budgets.empty:
            budgets["ran_out_at"] = pd.Series([], dtype=f"datetime64[ns, {tz}]")
        keys = (facts.periods[0][order], facts.periods[1][order], facts.periods[2][order])
        redemptions = _redemptions(frame, spent, order, ids, campaign_names, campaign_code)
        currency = facts.currency
        return cls(figures(frame, currency), figures(budgets, currency), figures(redemptions, currency),
                   dict(excluded), tuple(t.id for t in tiers), dict(zip(ids, campaigns, strict=True)), tz, keys,
                   facts.week_start, tuple(tracks), currency)

    def periods(self, freq: Freq = "day") -> pd.DataFrame:
        """Per campaign and calendar period (the project's time zone; weeks from
        its first day of the week): what was redeemed, what budgets held back,
        and the running totals. Every period from the first order to the last
        is listed for every campaign redeemed or held back, empty ones with 0."""
        if freq not in FREQS:
            raise ValueError(f"freq must be one of {', '.join(FREQS)}, got {freq!r}")
        o, r = self.orders, self.redemptions
        if o.empty:
            return self._no_periods()
        start = period_start(self.period_keys, freq, self.timezone)
        held = o["held_back_tier_id"].notna().to_numpy()
        rows = r["row"].to_numpy()
        parts = pd.DataFrame({
            "campaign_id": pd.concat([r["campaign_id"].astype("string"),
                                      o.loc[held, "held_back_tier_id"].astype(object).map(self.tier_campaigns).astype("string")],
                                     ignore_index=True),
            "period_start": pd.concat([start.iloc[rows], start[held]], ignore_index=True),
            "redemptions": np.r_[np.ones(len(r), dtype=np.int64), np.zeros(int(held.sum()), dtype=np.int64)],
            "discount": np.r_[r["discount"].to_numpy(dtype=np.int64), np.zeros(int(held.sum()), dtype=np.int64)],
            "held_back": np.r_[np.zeros(len(r), dtype=np.int64), np.ones(int(held.sum()), dtype=np.int64)],
        })  # fmt: skip
        if parts.empty:
            return self._no_periods()
        every = self.period_starts(freq)
        grid = pd.MultiIndex.from_product([sorted(parts["campaign_id"].unique()), every],
                                          names=["campaign_id", "period_start"])
        sums = parts.groupby(["campaign_id", "period_start"]).sum().reindex(grid, fill_value=0).reset_index()
        sums["campaign_id"] = sums["campaign_id"].astype("string")
        for column in ("redemptions", "discount"):
            sums[f"{column}_to_date"] = sums.groupby("campaign_id")[column].cumsum()
        return figures(sums[list(PERIOD_COLUMNS)], self.currency)

    def _no_periods(self) -> pd.DataFrame:
        """`periods` of a forecast that redeemed nothing: no rows, the columns typed."""
        empty = pd.DataFrame({c: pd.array([], dtype="Int64") for c in PERIOD_COLUMNS})
        empty["campaign_id"] = pd.array([], dtype="string")
        empty["period_start"] = pd.DatetimeIndex([], tz=self.timezone)
        return figures(empty, self.currency)

    def period_starts(self, freq: Freq = "day") -> pd.DatetimeIndex:
        """Every calendar period's start from the first order's to the last's
        (the project's time zone; empty without orders)."""
        if freq not in FREQS:
            raise ValueError(f"freq must be one of {', '.join(FREQS)}, got {freq!r}")
        if self.orders.empty:
            return pd.DatetimeIndex([], tz=self.timezone)
        start = period_start(self.period_keys, freq, self.timezone)
        return period_range(start.min(), start.max(), freq)

    def budget_left(self, freq: Freq = "day") -> pd.DataFrame:
        """Per budget of everyone's total (and code stock) and calendar period:
        the total it read at the period's end (`used`) and what was `left`
        under its `limit` (`budget_left.BUDGET_LEFT_COLUMNS`)."""
        return budget_left(self, freq)

    def __repr__(self) -> str:
        from .result_summary import forecast_line

        return forecast_line(self)

    def _repr_html_(self) -> str:
        """Totals, per campaign and per budget, for a notebook (`result_summary`)."""
        from .result_summary import forecast_summary

        return forecast_summary(self).html()

    def plot_burn_down(self, campaign: str, *, freq: Freq = "day", ax: Any = None, currency: str | None = None) -> Any:
        """The campaign's running total against the budget the scenario gives it
        (its `budgets` row of the campaign's whole total), the crossing marked and
        explained (`burn_down.plot_campaign_burn_down`), in the forecast's currency unless
        `currency` names another. Returns the Axes."""
        from .burn_down import plot_campaign_burn_down

        return plot_campaign_burn_down(self, campaign, freq=freq, ax=ax, currency=currency or self.currency)

    def plot_bands(self, *, ax: Any = None) -> Any:
        """The fan chart of `bands`: per budget of everyone's total, its running
        total over the days (P10-P90 band, P50 line) against its limit
        (`bands_chart`). ValueError without draws. Returns the Figure."""
        from .bands_chart import plot_bands

        if self.bands is None:
            raise ValueError("this forecast has no bands: run forecast(..., draws=N, seed=S)")
        return plot_bands(self.bands, names=self.names, currency=self.currency, ax=ax)

    def totals(self) -> ForecastTotals:
        """Orders, redemptions, discount given (minor units) and orders held back by a budget."""
        o = self.orders
        return ForecastTotals(len(o), int(o["redeemed"].sum()), int(o["discount"].sum()),
                              int(o["held_back_tier_id"].notna().sum()))

    def summary(self) -> pd.DataFrame:
        """Per campaign: redemptions, discount given, orders held back by a budget."""
        p = self.periods("month")
        out = p.groupby("campaign_id", as_index=False)[["redemptions", "discount", "held_back"]].sum()
        return figures(out.sort_values("discount", ascending=False, kind="stable").reset_index(drop=True),
                       self.currency)


def _redemptions(frame: pd.DataFrame, spent: Spending, order: np.ndarray, ids: Sequence[str],
                 campaign_names: Sequence[str], campaign_code: np.ndarray) -> pd.DataFrame:
    """One row per tier redeemed, in time order."""
    if spent.children is not None:
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        rows, positions, discounts = rank[spent.children[0]], spent.children[1], spent.children[2]
    else:
        rows = np.flatnonzero(frame["redeemed"].to_numpy())
        positions = spent.tier[order][rows]
        discounts = frame["discount"].to_numpy()[rows]
    return pd.DataFrame({
        "row": rows,
        "order_id": frame["order_id"].to_numpy()[rows] if len(rows) else pd.array([], dtype="string"),
        "tier_id": _labels(ids, positions),
        "campaign_id": _labels(campaign_names, campaign_code[positions]),
        "discount": discounts.astype(np.int64),
    })


@dataclass(frozen=True)
class _Rule:
    """A rule as its `budgets` row names it: whose (a tier, code or
    campaign's pool), which, its limit and what was used of it."""

    tier_id: str
    campaign_id: str
    rule_id: str | None
    name: str
    limit: int | None
    used: int | None
    per_customer: bool = False
    period: str | None = None
    #: what `limit` and `used` count: a budget family's measure (`UsageQuery.measure`);
    #: a code's stock and a campaign's pool count codes
    measure: str = "count"


class _HeldRules:
    """The `budgets` rows and each order's `held_back_by`, rule by rule: an
    order counts for a rule when the tier (or code, or campaign) at
    `position` held it back for `reason` (a budget leaf's index, or the
    fixed set's `HELD_STOCK` / `HELD_POOL`)."""

    def __init__(self, held: np.ndarray, reason: np.ndarray, placed_at: np.ndarray, timezone: str) -> None:
        self.held, self.reason, self.placed_at, self.timezone = held, reason, placed_at, timezone
        self.held_rule = np.full(len(held), -1, dtype=np.int32)
        self.names: list[str] = []
        self.rows: list[dict[str, object]] = []

    def add(self, position: int, reason: int, rule: _Rule, *, always: bool = True) -> None:
        """A row for the rule (when `always`, or when it held an order back)."""
        name = rule.name
        hits = np.flatnonzero((self.held == position) & (self.reason == reason))
        if not always and not hits.size:
            return
        if name not in self.names:
            self.names.append(name)
        self.held_rule[hits] = self.names.index(name)
        self.rows.append({
            "tier_id": rule.tier_id, "campaign_id": rule.campaign_id, "rule_id": rule.rule_id, "rule": name,
            "per_customer": rule.per_customer, "period": rule.period, "measure": rule.measure, "limit": rule.limit,
            "used": rule.used,
            "ran_out_at": (pd.Timestamp(int(self.placed_at[hits[0]]), tz="UTC").tz_convert(self.timezone)
                           if hits.size else pd.NaT),
            "orders_held_back": int(hits.size),
        })  # fmt: skip
