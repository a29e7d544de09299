"""Dated orders: each order priced at its own `placed_at`, equal to the per-request engine.

The reference prices every (order, tier) with `price_normalized` at the order's
instant (a UTC datetime: the simulator's clock is UTC) and with the order's
own request metadata (its `channel`). Samples cross both DST changes of
Europe/Berlin in 2026 with orders given in local time, campaign starts and
expiries, timeframe windows and day-of-week campaigns.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.analysis import orders_from_frame, sweep
from promolab.analysis.orders import line_columns
from promolab.analysis.sweep import instants
from promolab.engine import CampaignInfo, CompiledTier, TierSpec, compile_tier
from promolab.sim.promotions import pricing_view

from .support import assert_same_rows, date_orders, engine_rows_dated, random_orders

BERLIN_1 = timezone(timedelta(hours=1))

#: Orders in Berlin local time (and a few in UTC) over six weeks and both 2026 DST changes.
LOCAL_INSTANTS = [
    "2026-02-20T09:15:00+01:00",
    "2026-02-28T23:59:59Z",                 # winter campaign: last second
    "2026-03-01T00:59:59+01:00",            # the same instant, local time
    "2026-03-01T01:00:00+01:00",            # winter campaign expired
    "2026-03-01T16:59:59+01:00",            # app-only campaign: one second before its start
    "2026-03-01T17:00:00+01:00",            # app-only: starts (16:00Z), window open
    "2026-03-06T10:00:00Z",
    "2026-03-07T18:00:00+01:00",            # Saturday, app window open
    "2026-03-07T19:00:00+01:00",            # Saturday, app window just closed
    "2026-03-08T23:59:59.999999Z",          # Sunday's last microsecond (weekend)
    "2026-03-09T00:00:00Z",                 # Monday
    "2026-03-29T01:59:59+01:00",            # DST gap: just before (00:59:59Z)
    "2026-03-29T03:00:00+02:00",            # just after (01:00:00Z)
    "2026-03-29T03:30:00+02:00",
    "2026-03-29T18:00:00+02:00",            # app window in summer time (16:00Z)
    "2026-03-29T19:59:59.999999+02:00",     # its last microsecond
    "2026-03-30T01:59:59+02:00",            # Sunday 23:59:59Z
    "2026-03-30T02:00:00+02:00",            # Monday 00:00Z
    "2026-04-04T12:00:00+02:00",
    "2026-10-24T23:59:59Z",
    "2026-10-25T01:59:59+02:00",            # DST fold: before it (23:59:59Z, Saturday)
    "2026-10-25T02:30:00+02:00",            # first 02:30 (00:30Z)
    "2026-10-25T02:30:00+01:00",            # second 02:30 (01:30Z)
    "2026-10-25T03:00:00+01:00",
    "2026-10-25 17:00:00+01:00",            # a space as separator (CSV of a datetime column)
]


def _campaign(cid: str, **kw: Any) -> CampaignInfo:
    return CampaignInfo(id=cid, **kw)


def dated_tiers() -> list[CompiledTier]:
    """Campaigns with dates, timeframes and days of the week, one tier each (a rule or two)."""
    amount = {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [2000]}}, "logic": "1"}}
    app = {"rules": {"1": {"name": "redemption.metadata", "property": "channel", "conditions": {"$is": ["app"]}},
                     "2": {"name": "order.items.count", "conditions": {"$more_than_or_equal": [2]}},
                     "logic": "1 and 2"}}
    campaigns = [
        _campaign("camp_summer", start_date=datetime(2026, 3, 29, 1, 0, tzinfo=UTC),
                  expiration_date=datetime(2026, 10, 25, 0, 59, 59, tzinfo=UTC)),
        _campaign("camp_six_hourly", start_date=datetime(2026, 3, 29, 0, 30, tzinfo=BERLIN_1),
                  validity_timeframe={"interval": "PT6H", "duration": "PT1H"}),
        _campaign("camp_mondays", validity_day_of_week=[1]),
        _campaign("camp_monthly_day", validity_timeframe={"interval": "P1M", "duration": "P1D"}),
        _campaign("camp_sat_window", start_date=datetime(2026, 3, 1, 16, 0, tzinfo=UTC),
                  validity_timeframe={"interval": "P1D", "duration": "PT2H"}, validity_day_of_week=[6, 0]),
        _campaign("camp_off", active=False),
        # minute-long windows: more spans than the sample's range allows walking (SPAN_BUDGET)
        _campaign("camp_minutes", validity_timeframe={"interval": "PT2M", "duration": "PT1M"}),
    ]
    discounts = [
        {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ORDER"},
        {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ORDER"},
        {"type": "AMOUNT", "amount_off": 250, "effect": "APPLY_TO_ITEMS"},
    ]
    out = []
    for i, campaign in enumerate(campaigns):
        applicable = ({"included": [{"object": "products_collection", "id": "pc_beans"}]}
                      if i % 3 == 2 else None)
        out.append(compile_tier(TierSpec(
            id=f"promo_dated_{i}", campaign=campaign, discount=discounts[i % 3], name=f"dated {i}",
            rules=app if i % 2 else amount, applicable_to=applicable)))
    return out


def all_tiers(sim: Simulator) -> list[CompiledTier]:
    return list(pricing_view(sim).tiers) + dated_tiers()


def _check(sim: Simulator, frame: pd.DataFrame, tiers: list[CompiledTier], **kw: Any) -> pd.DataFrame:
    result = sweep(sim, frame, tiers, progress=False, **kw)
    assert result.dated
    assert_same_rows(result.frame, engine_rows_dated(sim, frame, tiers, kw.get("metadata")))
    return result.frame


@pytest.mark.parametrize("budget", [4096, 1])
def test_dated_sweep_equals_the_engine_over_weeks_and_both_dst_changes(
    sim: Simulator, budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # budget 1: every campaign whose verdict changes takes the walk over the sorted distinct instants
    monkeypatch.setattr(instants, "SPAN_BUDGET", budget)
    frame = date_orders(random_orders(1_500, seed=31), LOCAL_INSTANTS, seed=1)
    got = _check(sim, frame, all_tiers(sim))
    valid = got.groupby("tier_id", observed=True)["valid"].agg(["any", "all"])
    # every time-bound tier is both valid and invalid somewhere in the sample: the dates matter
    for tier in ("promo_winter_20", "promo_app_espresso", "promo_weekend_filters", "promo_dated_0",
                 "promo_dated_1", "promo_dated_2", "promo_dated_4", "promo_dated_6"):
        assert valid.loc[tier, "any"] and not valid.loc[tier, "all"], tier


def test_dated_sweep_from_a_berlin_datetime_column(sim: Simulator) -> None:
    # datetime64[ns, Europe/Berlin] (the fast path), every 37 minutes across the spring gap
    instants = pd.date_range("2026-03-27", "2026-03-31", freq="37min", tz="Europe/Berlin")
    frame = date_orders(random_orders(900, seed=32), list(instants), seed=2)
    frame["placed_at"] = pd.to_datetime(frame["placed_at"], utc=True).dt.tz_convert("Europe/Berlin")
    assert isinstance(frame["placed_at"].dtype, pd.DatetimeTZDtype)
    _check(sim, frame, all_tiers(sim))


def test_the_app_only_tier_follows_each_orders_channel(sim: Simulator) -> None:
    frame = date_orders(random_orders(400, seed=33), ["2026-03-07T17:30:00Z"], seed=3)
    got = _check(sim, frame, list(pricing_view(sim).tiers))
    app = got[got["tier_id"] == "promo_app_espresso"].set_index("order_id")["valid"]
    channel = frame.groupby("order_id")["channel"].first()
    assert app.any() and not app[channel.reindex(app.index) != "app"].any()


def test_the_sweeps_metadata_is_under_each_orders_own(sim: Simulator) -> None:
    frame = date_orders(random_orders(300, seed=34), ["2026-03-07T17:30:00Z"], seed=4)
    _check(sim, frame, list(pricing_view(sim).tiers), metadata={"channel": "app", "store": "s1"})


def test_a_rule_reading_the_instant_is_priced_by_the_engine_per_order(sim: Simulator) -> None:
    since = {"rules": {"1": {"name": "redemption.metadata", "property": "signed_up",
                             "conditions": {"$less_than_ago": [10]}}, "logic": "1"}}
    tier = compile_tier(TierSpec(id="promo_new", campaign=_campaign("camp_new"), name="new",
                                 discount={"type": "AMOUNT", "amount_off": 300, "effect": "APPLY_TO_ORDER"},
                                 rules=since))
    frame = date_orders(random_orders(200, seed=35), LOCAL_INSTANTS, seed=5)
    frame["metadata.signed_up"] = "2026-03-25T00:00:00Z"
    result = sweep(sim, frame, [tier], progress=False)
    assert list(result.paths["path"]) == ["fallback"]
    assert "reads the pricing instant" in result.paths["reason"][0]
    assert_same_rows(result.frame, engine_rows_dated(sim, frame, [tier]))
    assert result.frame["valid"].any() and not result.frame["valid"].all()


def test_an_explicit_at_prices_every_order_at_that_instant(sim: Simulator) -> None:
    orders = random_orders(300, seed=36)
    frame = date_orders(orders, LOCAL_INSTANTS, seed=6, channels=False)
    at = datetime(2026, 3, 7, 16, 30, tzinfo=UTC)
    dated = sweep(sim, frame, progress=False, at=at)
    plain = sweep(sim, orders, progress=False, at=at)
    assert not dated.dated and dated.placed_at is None and dated.at == at
    pd.testing.assert_frame_equal(dated.frame, plain.frame, check_exact=True)


def test_the_result_says_each_orders_instant(sim: Simulator) -> None:
    frame = date_orders(random_orders(30, seed=37), LOCAL_INSTANTS, seed=7)
    result = sweep(sim, frame, progress=False)
    assert result.placed_at is not None and "placed_at" in repr(result)
    cols = line_columns(frame)
    assert [t.to_pydatetime() for t in result.placed_at] == [cols.placed_at_of(i) for i in range(cols.n_orders)]
    assert list(result.frame.columns) == ["order_id", "tier_id", "valid", "discount_amount", "total_amount",
                                          "reason_key"]


def test_csv_and_parquet_round_trips_give_the_same_sweep(sim: Simulator, tmp_path: Any) -> None:
    frame = date_orders(random_orders(300, seed=38), LOCAL_INSTANTS, seed=8)
    expected = sweep(sim, frame, progress=False).frame
    frame.to_csv(tmp_path / "o.csv", index=False)
    from_csv = pd.read_csv(tmp_path / "o.csv", dtype={"product_id": "string", "sku_id": "string"})
    pd.testing.assert_frame_equal(sweep(sim, from_csv, progress=False).frame, expected, check_exact=True)
    typed = frame.copy()
    typed["placed_at"] = pd.to_datetime(typed["placed_at"], utc=True, format="ISO8601").dt.tz_convert("Europe/Berlin")
    typed.to_parquet(tmp_path / "o.parquet")
    back = pd.read_parquet(tmp_path / "o.parquet")
    assert isinstance(back["placed_at"].dtype, pd.DatetimeTZDtype)
    pd.testing.assert_frame_equal(sweep(sim, back, progress=False).frame, expected, check_exact=True)


def test_dask_equals_pandas_on_dated_orders(sim: Simulator) -> None:
    frame = date_orders(random_orders(1_200, seed=39), LOCAL_INSTANTS, seed=9)
    tiers = all_tiers(sim)
    expected = sweep(sim, frame, tiers, progress=False)
    threaded = sweep(sim, frame, tiers, engine="dask", npartitions=5, chunk_size=100, progress=False)
    pd.testing.assert_frame_equal(threaded.frame, expected.frame, check_exact=True)
    assert threaded.dated
    ddf = dd.from_pandas(frame.set_index("order_id", drop=False), npartitions=3, sort=True).reset_index(drop=True)
    from_ddf = sweep(sim, ddf, tiers, engine="dask", progress=False)
    pd.testing.assert_frame_equal(from_ddf.frame, expected.frame, check_exact=True)
    assert from_ddf.dated and from_ddf.placed_at is not None


def test_distributed_workers_price_each_order_at_its_instant(sim: Simulator) -> None:
    distributed = pytest.importorskip("distributed")
    frame = date_orders(random_orders(300, seed=40), LOCAL_INSTANTS, seed=10)
    tiers = all_tiers(sim)
    expected = sweep(sim, frame, tiers, progress=False).frame
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        got = sweep(sim, frame, tiers, engine="dask", client=client, npartitions=3, progress=False).frame
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


_SPAN_START = datetime(2026, 2, 15, tzinfo=UTC)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 60 * 24 * 3600 * 10**6), min_size=1, max_size=25),
       st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"]))
def test_random_instants_equal_the_engine(sim: Simulator, offsets: list[int], zone: str) -> None:
    moments = [pd.Timestamp(_SPAN_START + timedelta(microseconds=m)).tz_convert(zone).isoformat()
               for m in offsets]
    frame = date_orders(random_orders(len(moments) * 2, seed=len(moments)), moments, seed=len(moments))
    _check(sim, frame, all_tiers(sim))


# -- bad input -------------------------------------------------------------------------------
def _frame(**columns: Any) -> pd.DataFrame:
    base = {"order_id": [1, 1, 2], "product_id": ["prod_mug"] * 3, "quantity": [1, 2, 1],
            "placed_at": ["2026-03-01T10:00:00Z"] * 3}
    base.update(columns)
    return pd.DataFrame(base, index=[15, 16, 17])


@pytest.mark.parametrize("columns, message", [
    ({"quantity": [1, 2, -2]}, "row 17, column 'quantity': must be >= 1, got -2"),
    ({"quantity": [1, 0, 1]}, "row 16, column 'quantity': must be >= 1, got 0"),
    ({"quantity": [1, 2.5, 1]}, "row 16, column 'quantity': must be a whole number"),
    ({"quantity": [1, "two", 1]}, "row 16, column 'quantity': not a number: 'two'"),
    ({"price": [100, -5, None]}, "row 16, column 'price': must be >= 0, got -5"),
    ({"price": [100, 9.99, None]}, "row 16, column 'price': must be a whole number"),
    ({"placed_at": ["2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z", "2026-03-01T10:00:00"]},
     "row 17, column 'placed_at': '2026-03-01T10:00:00' has no timezone"),
    ({"placed_at": ["2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z", "2026-03-01"]},
     "row 17, column 'placed_at': '2026-03-01' has no timezone"),
    ({"placed_at": ["2026-03-01T10:00:00Z", "yesterday", "2026-03-01T10:00:00Z"]},
     "row 16, column 'placed_at': not a timestamp: 'yesterday'"),
    ({"placed_at": ["2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z", None]},
     "row 17, column 'placed_at': missing timestamp"),
    ({"placed_at": ["2026-03-01T10:00:00Z", "2026-03-01T11:00:00+02:00", "2026-03-01T10:00:00Z"]},
     ("row 16, column 'placed_at': order 1 was placed at 2026-03-01T10:00:00\\+00:00 on its first line "
      "but 2026-03-01T09:00:00\\+00:00 here")),
    ({"placed_at": pd.Series([datetime(2026, 3, 1, 10, tzinfo=UTC), datetime(2026, 3, 1, 10, tzinfo=UTC),
                              datetime(2026, 3, 1, 10)], index=[15, 16, 17], dtype=object)},
     "row 17, column 'placed_at': '2026-03-01 10:00:00' has no timezone"),
    ({"placed_at": pd.Series([datetime(2026, 3, 1, 10, tzinfo=UTC), 12, datetime(2026, 3, 1, 10, tzinfo=UTC)],
                             index=[15, 16, 17], dtype=object)},
     "row 16, column 'placed_at': not a timestamp: 12"),
    ({"placed_at": pd.to_datetime(["2026-03-01T10:00:00"] * 3)},
     "row 15, column 'placed_at': '2026-03-01 10:00:00' has no timezone"),
    ({"placed_at": pd.Series(pd.to_datetime(["2026-03-01T10:00Z", "2026-03-01T10:00Z", None], utc=True),
                             index=[15, 16, 17])},
     "row 17, column 'placed_at': missing timestamp"),
])
def test_bad_dated_line_items_name_the_row_and_the_column(sim: Simulator, columns: dict[str, Any],
                                                           message: str) -> None:
    frame = _frame(**columns)
    for parse in (line_columns, orders_from_frame, lambda f: sweep(sim, f, progress=False)):
        with pytest.raises(ValueError, match=f"^{message}"):
            parse(frame)


def test_per_order_accessors() -> None:
    frame = pd.DataFrame({
        "order_id": ["a", "b", "a"], "product_id": ["prod_mug"] * 3,
        "placed_at": ["2026-03-29T03:00:00+02:00", "2026-03-29T01:59:59+01:00", "2026-03-29T01:00:00Z"],
        "channel": ["app", None, "web"], "metadata.store": [None, "s2", "s9"],
    })
    cols = line_columns(frame)
    assert cols.placed_at_of(0) == datetime(2026, 3, 29, 1, tzinfo=UTC)
    assert cols.placed_at_of(1) == datetime(2026, 3, 29, 0, 59, 59, tzinfo=UTC)
    assert cols.placed_at is not None and cols.placed_at.dtype == np.int64
    assert cols.metadata_of(0) == {"channel": "app"} and cols.metadata_of(1) == {"store": "s2"}
    assert cols.channel_of(0) == "app" and cols.channel_of(1) is None
    requests = orders_from_frame(frame)
    assert requests["a"]["metadata"] == {"channel": "app"} and "metadata" in requests["b"]
    # a metadata.channel column wins over channel
    frame["metadata.channel"] = ["kiosk", "kiosk", "kiosk"]
    assert line_columns(frame).metadata_of(0) == {"channel": "kiosk"}
