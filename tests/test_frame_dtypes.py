"""One dtype rule for every public frame (docs/analysis.md, "One dtype rule").

Table-driven: each public frame of promolab.analysis, forecast and sweep
results, the what-if widgets and replay is built from one scenario whose
money is in Chilean pesos (so a frame that forgets the scenario's currency
shows as "USD", the default), and every column is checked against the rule:
integers (money in minor units, counts, points, positions) `Int64`,
fractions and averages `Float64`, flags `bool`, never numpy's `int64` /
`float64`; a frame with money says its currency in `attrs["currency"]`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from promolab import Simulator, samples
from promolab.analysis import (
    CostModel,
    TierGrid,
    best_tier,
    breakdown,
    compare_scenarios,
    compare_stacking_policies,
    compare_tiers,
    deliveries_frame,
    discount_matrix,
    forecast,
    optimize,
    publications_frame,
    sweep,
    sweep_costs,
    transactions_frame,
    validation_frame,
    weekday_hour_table,
    why_not_frame,
    why_not_qualified_frame,
    with_cohorts,
)
from promolab.replay import replay
from promolab.widgets import WhatIfController

CURRENCY = "CLP"


@cache
def _document(name: str) -> dict[str, Any]:
    path = samples.forecast_scenario() if name == "forecast" else samples.demo_scenario()
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    document.setdefault("project", {})["currency"] = CURRENCY
    return document


def _sim(name: str = "demo") -> Simulator:
    return Simulator.from_scenario(copy.deepcopy(_document(name)))


@cache
def _orders() -> pd.DataFrame:
    frame = pd.read_parquet(samples.data_path("orders/sample_orders.parquet"))
    return frame[frame["order_id"].isin(frame["order_id"].unique()[:300])].reset_index(drop=True)


@cache
def _month() -> pd.DataFrame:
    month = pd.read_parquet(samples.data_path("orders/month_orders.parquet"))
    return month[month["order_id"].isin(month["order_id"].unique()[:1500])].reset_index(drop=True)


@cache
def _sweep() -> Any:
    return sweep(_sim(), _orders(), progress=False)


@cache
def _forecast() -> Any:
    return forecast(_sim("forecast"), _month(), costs=CostModel(redemption_rate=0.7, seed=1), progress=False)


@cache
def _stacked() -> Any:
    stack = [{"object": "promotion_tier", "id": "promo_beans_15"}, {"object": "promotion_tier", "id": "promo_welcome_10"}]
    return compare_stacking_policies(_sim(), _orders(), stack, {"all": {}, "partial": {"redeemables_application_mode": "PARTIAL"}})


@cache
def _comparison() -> Any:
    return compare_scenarios({"now": _sim("forecast"), "demo": _sim()}, _month(), progress=False)


@cache
def _whatif() -> WhatIfController:
    return WhatIfController(_sim(), _orders(), sample=200, currency=CURRENCY)


@cache
def _replayed() -> Any:
    return replay(_sim(), samples.data_path("events/demo_day.jsonl"))


def _request() -> dict[str, Any]:
    return {"customer": {"source_id": "alice"},
            "order": {"items": [{"product_id": "prod_beans_colombia", "quantity": 2}]},
            "redeemables": [{"object": "promotion_tier", "id": "promo_beans_15"},
                            {"object": "promotion_tier", "id": "promo_welcome_10"}]}


def _validated() -> pd.DataFrame:
    """A response does not carry its currency: the caller gives the scenario's."""
    with _sim().client() as client:
        response = client.validate_promotions(order=_request()["order"], customer=_request()["customer"])
    return validation_frame([response], currency=CURRENCY)


#: name -> (what builds it, its money columns)
FRAMES: dict[str, tuple[Callable[[], pd.DataFrame], tuple[str, ...]]] = {
    "validation_frame": (_validated, ("discount_amount", "total_amount")),
    "compare_tiers": (lambda: compare_tiers(_sim(), _orders()), ("discount_amount", "total_amount", "amount")),
    "best_tier": (lambda: best_tier(compare_tiers(_sim(), _orders())), ("discount_amount",)),
    "discount_matrix": (lambda: discount_matrix(compare_tiers(_sim(), _orders())), ()),
    "publications_frame": (lambda: publications_frame(_published()), ()),
    "transactions_frame": (lambda: transactions_frame(_sim()), ()),
    "deliveries_frame": (lambda: deliveries_frame(_replayed_sim()), ()),
    "why_not_frame": (lambda: why_not_frame(_sim(), _request()), ()),
    "why_not_qualified_frame": (lambda: why_not_qualified_frame(_sim(), {"order": _request()["order"]}), ()),
    "sweep.frame": (lambda: _sweep().frame, ("discount_amount", "total_amount")),
    "sweep.paths": (lambda: _sweep().paths, ()),
    "sweep.summary": (lambda: _sweep().summary(), ("cost", "avg_discount", "cost_per_order", "max_discount")),
    "sweep.summary(campaign)": (lambda: _sweep().summary("campaign"), ("cost", "avg_discount", "cost_per_order")),
    "sweep_costs": (lambda: sweep_costs(_sim(), _sweep(), CostModel(redemption_rate=0.5)), ("discount",)),
    "optimize.table": (lambda: optimize(_sim(), _orders(), TierGrid("promo_beans_15", percent_off=[20, 30])).table,
                       ("spend", "spend_p90", "subsidy", "incremental_net_revenue", "value")),
    "stacking.orders": (lambda: _stacked().orders, ("amount", "discount", "total")),
    "stacking.redeemables": (lambda: _stacked().redeemables, ("applied",)),
    "stacking.summary": (lambda: _stacked().summary(), ("total_discount",)),
    "stacking.reason_counts": (lambda: _stacked().reason_counts(), ()),
    "stacking.difference": (lambda: _stacked().difference("all", "partial"), ("discount_a", "discount_b")),
    "forecast.orders": (lambda: _forecast().orders, ("amount", "discount", "cost", "margin")),
    "forecast.budgets": (lambda: _forecast().budgets, ()),
    "forecast.redemptions": (lambda: _forecast().redemptions, ("discount",)),
    "forecast.periods": (lambda: _forecast().periods("week"), ("discount", "discount_to_date")),
    "forecast.budget_left": (lambda: _forecast().budget_left("week"), ()),
    "forecast.summary": (lambda: _forecast().summary(), ("discount",)),
    "comparison.campaigns": (lambda: _comparison().campaigns(), ()),
    "comparison.totals": (lambda: _comparison().totals(), ()),
    "comparison.periods": (lambda: _comparison().periods("week"), ("discount",)),
    "comparison.orders": (lambda: _comparison().orders(), ()),
    "comparison.difference": (lambda: _comparison().difference("now", "demo"), ()),
    "with_cohorts": (lambda: with_cohorts(_forecast().orders), ("amount", "discount")),
    "breakdown": (lambda: breakdown(_forecast().orders, "weekday"), ("discount",)),
    "weekday_hour_table": (lambda: weekday_hour_table(_forecast().orders, "discount"), ()),
    "whatif.order_table": (lambda: _whatif().result.order_table, ("discount_amount", "total_amount")),
    "whatif.tier_table": (lambda: _whatif().result.tier_table, ("cost", "avg_discount")),
    "whatif.compare_variants": (lambda: _variants(), ()),
    "replay.timeline": (lambda: _replayed().timeline, ()),
    "replay.balances": (lambda: _replayed().balances, ()),
    "replay.deliveries": (lambda: _replayed().deliveries, ()),
}


def _published() -> list[Any]:
    with _sim().client() as client:
        return [client.publish(voucher="WELCOME-OPEN-1", customer={"source_id": "erin"}, join_once=True)]


def _replayed_sim() -> Simulator:
    sim = _sim()
    replay(sim, samples.data_path("events/demo_day.jsonl"))
    return sim


def _variants() -> pd.DataFrame:
    controller = WhatIfController(_sim(), _orders(), sample=200, currency=CURRENCY)
    controller.save_variant("now")
    return controller.compare_variants()


def _offences(frame: pd.DataFrame) -> list[str]:
    out = []
    for name, dtype in frame.dtypes.items():
        if isinstance(dtype, np.dtype) and dtype.kind in "iuf":
            out.append(f"{name}: {dtype}")
    return out


@pytest.mark.parametrize("name", list(FRAMES))
def test_every_public_frame_follows_the_dtype_rule(name: str) -> None:
    build, money = FRAMES[name]
    frame = build()
    assert not _offences(frame), _offences(frame)
    for column in money:
        assert str(frame[column].dtype) in ("Int64", "Float64"), (column, frame[column].dtype)
    if money:
        assert frame.attrs.get("currency") == CURRENCY


def test_a_summary_shows_no_amount_where_its_text_shows_none() -> None:
    """Free shipping's discounts have no monetary value: NA in `summary()`
    (not 0 and 0.000), which `summary_text` prints as "-"."""
    summary = _sweep().summary().set_index("tier_id")
    shipping = summary.loc["promo_free_shipping"]
    assert shipping["valid_orders"] > 0
    assert all(pd.isna(shipping[c]) for c in ("cost", "avg_discount", "cost_per_order", "max_discount"))
    line = next(x for x in _sweep().summary_text().splitlines() if "promo_free_shipping" in x)
    assert line.split()[-3:] == ["-", "-", "-"]
    priced = summary.loc["promo_welcome_10"]
    assert priced["cost"] > 0 and priced["avg_discount"] == priced["cost"] / priced["valid_orders"]


def test_the_what_if_figures_each_have_their_own_column_and_dtype() -> None:
    from promolab.widgets.controller import METRIC_DTYPES

    table = _whatif().result.tier_table
    assert list(table.index) == ["before", "after", "change"]
    assert {c: str(t) for c, t in table.dtypes.items()} == METRIC_DTYPES
    assert (table.loc["change"] == table.loc["after"] - table.loc["before"]).all()


def test_budgets_say_what_their_limit_counts() -> None:
    budgets = _forecast().budgets.set_index("rule")
    assert budgets.loc["campaign.redemptions.count.weekly", "measure"] == "count"
    assert budgets.loc["campaign.orders.amount_discounted", "measure"] == "discount"
