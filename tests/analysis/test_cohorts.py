"""promolab.analysis.cohorts and cohort_charts on synthetic per-order frames (the
column contract of the forecast's per-order result)."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import analysis
from promolab.analysis import (
    BREAKDOWN_COLUMNS,
    DEFAULT_BASKET_BANDS,
    WEEKDAYS,
    basket_band_labels,
    breakdown,
    plot_burn_down,
    plot_discount_by_cohort,
    plot_weekday_hour_heatmap,
    weekday_hour_table,
    with_cohorts,
)

BERLIN = "Europe/Berlin"


def orders(rows: list[dict[str, Any]], tz: str = BERLIN, *, costs: bool = False) -> pd.DataFrame:
    """A per-order frame from short rows: `at` an ISO instant with its offset; the
    rest default to a plain unredeemed $30 web order."""
    frame = pd.DataFrame({
        "order_id": pd.array([r.get("order_id", f"o{i}") for i, r in enumerate(rows)], dtype="string"),
        "placed_at": pd.to_datetime([r.get("at", "2026-03-02T12:00:00+01:00") for r in rows], utc=True)
        .tz_convert(tz).astype(f"datetime64[ns, {tz}]"),
        "customer": pd.array([r.get("customer") for r in rows], dtype="string"),
        "channel": pd.array([r.get("channel", "web") for r in rows], dtype="string"),
        "segment": pd.array([r.get("segment") for r in rows], dtype="string"),
        "amount": np.array([r.get("amount", 3000) for r in rows], dtype=np.int64),
        "redeemed": np.array([r.get("campaign") is not None for r in rows], dtype=bool),
        "discount": np.array([r.get("discount", 0) for r in rows], dtype=np.int64),
        "campaign_id": pd.array([r.get("campaign") for r in rows], dtype="string"),
    })
    if costs:
        frame["cost"] = np.array([r.get("cost", 0) for r in rows], dtype=np.int64)
        frame["margin"] = np.array([r.get("margin", 0) for r in rows], dtype=np.int64)
    return frame


# -- cohort columns ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("at", "tz", "weekday", "hour", "day"),
    [
        # Europe/Berlin's spring DST change, Sunday 29 March 2026: 02:00 -> 03:00.
        ("2026-03-29T01:30:00+01:00", BERLIN, "Sunday", 1, "2026-03-29"),
        ("2026-03-29T03:30:00+02:00", BERLIN, "Sunday", 3, "2026-03-29"),
        # A late Sunday evening in Berlin (22:30 UTC).
        ("2026-03-22T23:30:00+01:00", BERLIN, "Sunday", 23, "2026-03-22"),
        # Sunday 23:30 in New York is Monday 03:30 UTC: still Sunday, the frame's own zone.
        ("2026-03-22T23:30:00-04:00", "America/New_York", "Sunday", 23, "2026-03-22"),
        # Monday 00:30 in Berlin is still Sunday in UTC: Monday.
        ("2026-03-23T00:30:00+01:00", BERLIN, "Monday", 0, "2026-03-23"),
        # Autumn: 02:30 happens twice in Berlin on 25 October 2026; both are hour 2.
        ("2026-10-25T02:30:00+02:00", BERLIN, "Sunday", 2, "2026-10-25"),
        ("2026-10-25T02:30:00+01:00", BERLIN, "Sunday", 2, "2026-10-25"),
    ],
)
def test_weekday_hour_and_day_are_local(at: str, tz: str, weekday: str, hour: int, day: str) -> None:
    row = with_cohorts(orders([{"at": at}], tz)).iloc[0]
    assert (row["weekday"], row["hour"], row["day"]) == (weekday, hour, pd.Timestamp(day))


def test_cohort_dtypes() -> None:
    out = with_cohorts(orders([{}, {"at": "2026-03-08T10:00:00+01:00"}]))
    assert out["weekday"].dtype == pd.CategoricalDtype(list(WEEKDAYS), ordered=True)
    assert str(out["hour"].dtype) == "Int64" and out["new_customer"].dtype == bool
    assert out["day"].dtype.kind == "M" and getattr(out["day"].dtype, "tz", None) is None
    assert out["basket_band"].cat.ordered
    assert list(out["basket_band"].cat.categories) == basket_band_labels()


def test_with_cohorts_leaves_its_input_alone() -> None:
    frame = orders([{}])
    before = frame.copy()
    with_cohorts(frame)
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # Time order, not row order: the later row is the returning one.
        ([{"customer": "a", "at": "2026-03-05T10:00:00+01:00"}, {"customer": "a", "at": "2026-03-02T10:00:00+01:00"}],
         [False, True]),
        # Equal times: the first row is the new one.
        ([{"customer": "a"}, {"customer": "a"}, {"customer": "b"}], [True, False, True]),
        # Guests (no customer) always count as new.
        ([{"customer": None}, {"customer": None}], [True, True]),
        ([{"customer": "a"}, {"customer": None}, {"customer": "a", "at": "2026-03-03T09:00:00+01:00"}],
         [True, True, False]),
    ],
)
def test_new_vs_returning(rows: list[dict[str, Any]], expected: list[bool]) -> None:
    assert with_cohorts(orders(rows))["new_customer"].tolist() == expected


@pytest.mark.parametrize(
    ("amount", "band"),
    [
        (0, "under $25.00"), (2499, "under $25.00"), (2500, "$25.00–49.99"), (4999, "$25.00–49.99"),
        (5000, "$50.00–99.99"), (9999, "$50.00–99.99"), (10000, "$100.00 and over"),
        (123456, "$100.00 and over"),
    ],
)
def test_basket_bands_at_their_edges(amount: int, band: str) -> None:
    assert with_cohorts(orders([{"amount": amount}]))["basket_band"].iloc[0] == band


def test_custom_bands_and_currency() -> None:
    assert basket_band_labels([1000], "EUR") == ["under €10.00", "€10.00 and over"]
    out = with_cohorts(orders([{"amount": 999}, {"amount": 1000}]), bands=[1000])
    assert out["basket_band"].tolist() == ["under $10.00", "$10.00 and over"]
    with pytest.raises(ValueError, match="increasing"):
        basket_band_labels([5000, 2500])
    assert DEFAULT_BASKET_BANDS == (2500, 5000, 10000)


def test_placed_at_must_be_aware() -> None:
    frame = orders([{}])
    frame["placed_at"] = frame["placed_at"].dt.tz_localize(None)
    with pytest.raises(TypeError, match="timezone-aware"):
        with_cohorts(frame)


# -- breakdown -----------------------------------------------------------------------------------
SAMPLE = [
    {"customer": "a", "channel": "web", "amount": 2000, "campaign": "c1", "discount": 300, "cost": 10, "margin": 5},
    {"customer": "a", "channel": "app", "amount": 6000, "campaign": "c2", "discount": 700, "cost": 20, "margin": 6},
    {"customer": "b", "channel": "web", "amount": 12000, "campaign": "c1", "discount": 1000, "cost": 30, "margin": 7},
    {"customer": None, "channel": None, "amount": 3000, "cost": 40, "margin": 8},
]


def test_breakdown_columns_dtypes_and_values() -> None:
    table = breakdown(orders(SAMPLE, costs=True), "channel")
    assert list(table.columns) == ["channel", *BREAKDOWN_COLUMNS, "cost", "margin"]
    assert table["channel"].tolist()[:2] == ["app", "web"] and pd.isna(table["channel"].iloc[2])  # NA last
    assert table["orders"].tolist() == [1, 2, 1] and str(table["orders"].dtype) == "Int64"
    assert table["redeemed"].tolist() == [1, 2, 0]
    assert table["discount"].tolist() == [700, 1300, 0] and str(table["discount"].dtype) == "Int64"
    assert table["redemption_share"].tolist() == [1.0, 1.0, 0.0]
    assert table["discount_per_order"].tolist() == [700.0, 650.0, 0.0]
    assert table["cost"].tolist() == [20, 40, 40] and table["margin"].tolist() == [6, 12, 8]
    assert str(table["channel"].dtype) == "string"


def test_zero_rows_are_kept_in_category_order() -> None:
    table = breakdown(orders(SAMPLE), "weekday")  # every order on a Monday
    assert table["weekday"].tolist() == list(WEEKDAYS)
    assert table["orders"].tolist() == [4, 0, 0, 0, 0, 0, 0]
    assert table["redemption_share"].iloc[1:].isna().all() and table["discount_per_order"].iloc[1:].isna().all()
    hours = breakdown(orders(SAMPLE), "hour")
    assert hours["hour"].tolist() == list(range(24)) and hours["orders"].sum() == 4
    bands = breakdown(orders(SAMPLE), ["new_customer", "basket_band"])
    assert len(bands) == 2 * 4
    assert bands["new_customer"].tolist() == [False] * 4 + [True] * 4
    assert bands["basket_band"].tolist() == basket_band_labels() * 2


def test_days_span_from_first_to_last() -> None:
    frame = orders([{"at": "2026-03-01T10:00:00+01:00"}, {"at": "2026-03-04T23:59:00+01:00"}])
    table = breakdown(frame, "day")
    assert table["day"].tolist() == list(pd.date_range("2026-03-01", "2026-03-04"))
    assert table["orders"].tolist() == [1, 0, 0, 1]


def test_campaign_filter_counts_one_campaigns_redemptions() -> None:
    frame = orders(SAMPLE, costs=True)
    table = breakdown(frame, "channel", campaign="c1")
    assert table["orders"].tolist() == [1, 2, 1]  # orders stay all orders
    assert table["redeemed"].tolist() == [0, 2, 0] and table["discount"].tolist() == [0, 1300, 0]
    assert table["cost"].tolist() == [20, 40, 40]  # the orders' own figures, unfiltered
    assert breakdown(frame, "channel", campaign="nope")["redeemed"].sum() == 0


def test_unknown_column_is_named() -> None:
    with pytest.raises(KeyError, match="region"):
        breakdown(orders(SAMPLE), "region")


def test_empty_frame_keeps_its_categories() -> None:
    table = breakdown(orders(SAMPLE).iloc[:0], ["weekday"])
    assert len(table) == 7 and table["orders"].sum() == 0


_row = st.fixed_dictionaries({
    "at": st.datetimes(
        min_value=pd.Timestamp("2026-03-20").to_pydatetime(), max_value=pd.Timestamp("2026-04-05").to_pydatetime()
    ).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S+00:00")),
    "customer": st.one_of(st.none(), st.sampled_from(["a", "b", "c"])),
    "channel": st.one_of(st.none(), st.sampled_from(["web", "app", "store"])),
    "segment": st.one_of(st.none(), st.sampled_from(["new", "loyal"])),
    "amount": st.integers(0, 20_000),
    "campaign": st.one_of(st.none(), st.sampled_from(["c1", "c2"])),
    "discount": st.integers(0, 5_000),
    "cost": st.integers(-1_000, 1_000),
    "margin": st.integers(-1_000, 5_000),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(_row, min_size=1, max_size=40),
       by=st.sampled_from([["weekday"], ["hour"], ["channel"], ["segment", "new_customer"],
                           ["basket_band", "channel"], ["day"], ["customer", "weekday"]]),
       campaign=st.one_of(st.none(), st.just("c1")))
def test_breakdown_sums_equal_the_frame_totals(rows: list[dict[str, Any]], by: list[str], campaign: str | None) -> None:
    for row in rows:
        if row["campaign"] is None:
            row["discount"] = 0
    frame = orders(rows, costs=True)
    table = breakdown(frame, by, campaign=campaign)
    counted = frame["redeemed"] & (frame["campaign_id"].eq(campaign).fillna(False) if campaign else True)
    assert table["orders"].sum() == len(frame)
    assert table["redeemed"].sum() == counted.sum()
    assert table["discount"].sum() == frame.loc[counted, "discount"].sum()
    assert table["cost"].sum() == frame["cost"].sum() and table["margin"].sum() == frame["margin"].sum()
    assert not table.duplicated(subset=by).any()
    # per-order figures agree with the sums where a group has orders
    has = table["orders"] > 0
    assert np.allclose(table.loc[has, "discount_per_order"] * table.loc[has, "orders"], table.loc[has, "discount"])


def test_weekday_hour_table() -> None:
    frame = orders([
        {"at": "2026-03-29T01:30:00+01:00", "campaign": "c1", "discount": 100},
        {"at": "2026-03-29T03:30:00+02:00", "campaign": "c2", "discount": 250},
        {"at": "2026-03-23T00:30:00+01:00"},
    ])
    table = weekday_hour_table(frame, "discount")
    assert table.shape == (7, 24) and list(table.index) == list(WEEKDAYS)
    assert table.loc["Sunday", 1] == 100 and table.loc["Sunday", 3] == 250 and table.to_numpy().sum() == 350
    assert weekday_hour_table(frame, "orders").loc["Monday", 0] == 1
    assert weekday_hour_table(frame, "redeemed", campaign="c2").to_numpy().sum() == 1


# -- charts --------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _close_figures() -> Any:
    yield
    plt.close("all")


def test_burn_down_draws_a_line_per_campaign_and_the_budget() -> None:
    starts = pd.date_range("2026-03-02", periods=4, freq="W-MON", tz=BERLIN)
    periods = pd.DataFrame({
        "campaign_id": ["c1"] * 4 + ["c2"] * 4,
        "period_start": list(starts) * 2,
        "discount": [100, 300, 600, 1000, 50, 60, 70, 80],
    })
    ax = plot_burn_down(periods, budget=900, note="why it goes on", names={"c1": "Campaign $1"})
    assert len(ax.lines) == 4  # two campaigns, the budget and c1's crossing (c2 stays under it)
    assert list(ax.lines[0].get_ydata()) == [100, 300, 600, 1000]
    assert list(ax.lines[2].get_ydata()) == [900, 900]
    crossing = [line for line in ax.lines if line.get_gid() == "crossing"]
    assert len(crossing) == 1 and list(crossing[0].get_ydata()) == [1000.0]
    assert pd.Timestamp(crossing[0].get_xdata()[0]) == starts[3].tz_convert(None)  # the first week at or past 900
    (caption,) = [t for t in ax.texts if t.get_gid() == "crossing-note"]
    assert caption.get_text() == "reaches the budget in the period starting 23 Mar 2026\nwhy it goes on"
    # by name where given, `$` escaped (not mathtext)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [r"Campaign \$1", "c2", r"budget \$9.00"]
    under = plot_burn_down(periods, budget=5000)
    assert not [line for line in under.lines if line.get_gid() == "crossing"] and not under.texts
    per_period = plot_burn_down(periods.rename(columns={"discount": "redemptions"}), cumulative=False)
    assert len(per_period.lines) == 2 and list(per_period.lines[1].get_ydata()) == [50, 110, 180, 260]


def test_discount_by_cohort_draws_a_bar_per_row() -> None:
    table = breakdown(orders(SAMPLE), "weekday")
    ax = plot_discount_by_cohort(table, "weekday")
    assert len(ax.patches) == 7
    assert [p.get_height() for p in ax.patches] == [2000, 0, 0, 0, 0, 0, 0]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(WEEKDAYS)
    # the six weekdays without a bar say why: no orders that day, or none of them redeemed
    notes = [(round(t.xy[0]), t.get_text()) for t in ax.texts if t.get_gid() == "empty-bar"]
    expected = [(i, "no orders" if n == 0 else "none redeemed") for i, n in enumerate(table["orders"]) if i > 0]
    assert notes == expected and (table["redeemed"].iloc[1:] == 0).all()
    two = plot_discount_by_cohort(breakdown(orders(SAMPLE), ["new_customer", "basket_band"]),
                                  ["new_customer", "basket_band"], value="orders")
    assert len(two.patches) == 8 and two.get_xticklabels()[1].get_text() == r"returning · \$25.00–49.99"


@pytest.mark.parametrize(("value", "total"), [("discount", 2000), ("orders", 4), ("redeemed", 3)])
def test_heatmap_is_seven_by_twenty_four(value: str, total: int) -> None:
    ax = plot_weekday_hour_heatmap(orders(SAMPLE), value)
    array = np.asarray(ax.images[0].get_array())
    assert array.shape == (7, 24) and array.sum() == total
    assert [t.get_text() for t in ax.get_yticklabels()] == list(WEEKDAYS)


def test_public_names() -> None:
    for name in ("with_cohorts", "breakdown", "plot_burn_down", "plot_discount_by_cohort",
                 "plot_weekday_hour_heatmap", "weekday_hour_table"):
        assert name in analysis.__all__
    assert analysis.__all__ == sorted(analysis.__all__, key=lambda n: (not n.isupper(), n[0].islower(), n))
