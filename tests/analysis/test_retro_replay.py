"""Retro-replay: the history priced again before and after a change, beside what was redeemed.

Known numbers on a small history (the beans tier from 15 % to 20 % on three
orders), the rollback left out of `actual`, no change when nothing changes
(a hypothesis invariant over slices of the month), budgets that run out
earlier when a budgeted tier gives more, and refusals of a frame that is not
a history's.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab import Simulator, samples, with_changes
from promolab.analysis.retro_replay import RETRO_ORDER_COLUMNS, RETRO_TIER_COLUMNS, retro_replay
from promolab.pull import REDEMPTION_COLUMNS, read_project
from promolab.pull.reader import Reader
from pull_support import SCENARIOS, target_of

DEMO = SCENARIOS / "demo.yaml"
MARCH = SCENARIOS / "march_budgets.yaml"
BEANS_20 = {"tiers.promo_beans_15.discount.percent_off": 20}


def _history() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Three days of the demo shop: a stack on Alice's beans, Bob's beans rolled back, Alice's 1 kg bag."""
    sim = Simulator.from_scenario(DEMO)
    beans = {"object": "promotion_tier", "id": "promo_beans_15"}
    with sim.client() as client:
        client.redeem_stacked(customer={"source_id": "alice"},
                              order={"items": [{"product_id": "prod_beans_ethiopia", "quantity": 2}]},
                              redeemables=[{"object": "voucher", "id": "WELCOME-ALICE"}, beans])
        sim.advance(timedelta(days=1))
        made = client.redeem_stacked(customer={"source_id": "bob"},
                                     order={"items": [{"product_id": "prod_beans_colombia", "quantity": 1}]},
                                     redeemables=[beans])
        sim.advance(timedelta(days=1))
        client.rollback_redemption(made.redemptions[0].id, reason="returned")
        client.redeem_stacked(customer={"source_id": "alice"},
                              order={"items": [{"sku_id": "sku_ethiopia_1000", "quantity": 1}]}, redeemables=[beans])
    history = read_project(Reader(target_of(sim)), history_since=datetime(2026, 1, 1, tzinfo=UTC)).history
    assert history is not None
    return history.orders, history.redemptions


def test_the_beans_tier_at_20_percent_on_three_orders() -> None:
    orders, redemptions = _history()
    before, after = Simulator.from_scenario(DEMO), Simulator.from_scenario(with_changes(DEMO, BEANS_20))
    replay = retro_replay(before, after, orders, redemptions, policy=["promo_beans_15"])
    per_order = replay.per_order()
    assert tuple(per_order.columns) == RETRO_ORDER_COLUMNS
    assert per_order[["actual_discount", "before_discount", "after_discount", "change"]].astype(int).values.tolist() == [
        [540 + 500, 540, 720, 180],   # 2 x $18.00 at 15 % and 20 %; the welcome code's $5.00 was given too
        [0, 240, 320, 80],            # rolled back: nothing given in the end
        [930, 930, 1240, 310],        # the 1 kg bag, $62.00
    ]
    assert all(str(per_order[c].dtype) == "Int64" for c in RETRO_ORDER_COLUMNS[3:])
    per_tier = replay.per_tier().set_index("tier_id")
    assert tuple(replay.per_tier().columns) == RETRO_TIER_COLUMNS
    assert per_tier.loc["promo_beans_15"].astype(int).tolist() == [2, 540 + 930, 3, 1710, 3, 2280, 570]
    totals = replay.totals().set_index("measure")
    assert totals.loc["discount"].astype(int).tolist() == [1970, 1710, 2280]


def test_the_rolled_back_redemption_is_not_actual() -> None:
    orders, redemptions = _history()
    replay = retro_replay(Simulator.from_scenario(DEMO), Simulator.from_scenario(DEMO), orders, redemptions)
    assert len(replay.actual) == len(redemptions) - 2  # bob's redemption and its rollback
    assert set(replay.actual["object"]) == {"redemption"}


@settings(max_examples=8, deadline=None)
@given(start=st.integers(0, 20_000), size=st.integers(1, 3_000), policy=st.sampled_from(["stack", "best"]))
def test_nothing_changes_when_nothing_is_changed(start: int, size: int, policy: str) -> None:
    month = _month()
    ids = month["order_id"].drop_duplicates().iloc[start:start + size]
    orders = month[month["order_id"].isin(set(ids))]
    empty = pd.DataFrame({column: pd.Series([], dtype="string") for column in REDEMPTION_COLUMNS})
    replay = retro_replay(_march(), _march(), orders, empty, policy=policy)
    per_order = replay.per_order()
    assert len(per_order) == len(ids)
    assert (per_order["change"] == 0).all() and (per_order["actual_discount"] == 0).all()
    assert (replay.per_tier()["change"] == 0).all()


def test_a_budgeted_tier_that_gives_more_spends_more_of_its_budget_and_holds_more_back() -> None:
    orders = _month()  # the whole of March: the VIP budget runs out near its end
    empty = pd.DataFrame({column: pd.Series([], dtype="string") for column in REDEMPTION_COLUMNS})
    richer = Simulator.from_scenario(with_changes(MARCH, {"tiers.promo_vip_10pct.discount.percent_off": 20}))
    budgets = retro_replay(_march(), richer, orders, empty, policy="best").per_budget()
    vip = budgets[budgets["tier_id"] == "promo_vip_10pct"].iloc[0]
    assert vip["measure"] == "discount" and vip["limit"] == 500_000  # $5,000.00 of VIP discount
    assert vip["used_after"] > vip["used_before"]
    assert vip["orders_held_back_after"] > vip["orders_held_back_before"]
    assert vip["ran_out_at_after"] <= vip["ran_out_at_before"]
    assert (budgets["used_change"] == budgets["used_after"] - budgets["used_before"]).all()


def test_a_frame_that_is_not_a_historys_redemptions_is_refused() -> None:
    orders, _ = _history()
    with pytest.raises(ValueError, match=r"not a pulled history's redemptions frame \(no discount_amount"):
        retro_replay(Simulator.from_scenario(DEMO), Simulator.from_scenario(DEMO), orders,
                     pd.DataFrame(columns=[c for c in REDEMPTION_COLUMNS if c != "discount_amount"]))


def test_the_chart_shows_the_three_per_tier() -> None:
    orders, redemptions = _history()
    replay = retro_replay(Simulator.from_scenario(DEMO), Simulator.from_scenario(with_changes(DEMO, BEANS_20)),
                          orders, redemptions, policy=["promo_beans_15"])
    ax = replay.plot()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["actual", "before", "after"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["promo_beans_15"]
    assert ax.get_xticklabels()  # money on the axis


@functools.cache
def _month() -> pd.DataFrame:
    """The shipped month of orders, read once (tests slice it, never change it)."""
    return pd.read_parquet(samples.month_orders())


def _march() -> Simulator:
    return Simulator.from_scenario(MARCH)


