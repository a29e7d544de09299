"""scripts/make_dated_orders.py: seeded, deterministic, shaped as documented, and the
shipped data/orders/month_orders.parquet is what the defaults generate."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest
import yaml

from script_modules import load_script

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "data" / "orders" / "month_orders.parquet"
BERLIN = "Europe/Berlin"


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return load_script("make_dated_orders")


@pytest.fixture(scope="module")
def small(gen: ModuleType) -> pd.DataFrame:
    frame: pd.DataFrame = gen.make_dated_orders(30_000, seed=11)
    return frame


@pytest.fixture(scope="module")
def per_order(small: pd.DataFrame) -> pd.DataFrame:
    return small.drop_duplicates("order_id").reset_index(drop=True)


def test_same_seed_same_frame_and_bytes(gen: ModuleType, tmp_path: Path) -> None:
    a, b = gen.make_dated_orders(3_000, seed=5), gen.make_dated_orders(3_000, seed=5)
    pd.testing.assert_frame_equal(a, b)
    for suffix in (".parquet", ".csv"):
        gen.write(a, tmp_path / f"a{suffix}")
        gen.write(b, tmp_path / f"b{suffix}")
        assert (tmp_path / f"a{suffix}").read_bytes() == (tmp_path / f"b{suffix}").read_bytes()


def test_another_seed_differs(gen: ModuleType) -> None:
    assert not gen.make_dated_orders(3_000, seed=5).equals(gen.make_dated_orders(3_000, seed=6))


def test_columns_and_dtypes(small: pd.DataFrame) -> None:
    assert list(small.columns) == [
        "order_id", "product_id", "sku_id", "quantity", "price", "customer_source_id",
        "placed_at", "channel", "segment",
    ]
    assert str(small["placed_at"].dtype) == "datetime64[ns, Europe/Berlin]"
    assert small["quantity"].dtype == np.int64 and str(small["price"].dtype) == "Int64"
    assert small["order_id"].nunique() == 30_000
    assert small["order_id"].iloc[0] == "ord_m000001"
    # Rows in time order, the lines of an order together.
    assert small["placed_at"].is_monotonic_increasing
    assert (small.groupby("order_id", observed=True)["placed_at"].nunique() == 1).all()


def test_every_instant_inside_the_window_and_local(small: pd.DataFrame) -> None:
    placed = small["placed_at"]
    assert placed.dt.tz is not None and str(placed.dt.tz) == BERLIN
    assert placed.min() >= pd.Timestamp("2026-03-01", tz=BERLIN)
    assert placed.max() < pd.Timestamp("2026-04-01", tz=BERLIN)
    # The DST day is covered, with no wall-clock time that does not exist there.
    dst_day = placed[placed.dt.date == pd.Timestamp("2026-03-29").date()]
    assert len(dst_day) and not (dst_day.dt.hour == 2).any()


def test_daily_profile(per_order: pd.DataFrame) -> None:
    share = per_order["placed_at"].dt.hour.value_counts(normalize=True).reindex(range(24), fill_value=0)
    assert share[0:6].sum() < 0.05  # quiet at night
    assert share[12] > 1.5 * share[10] and share[12] > share[15]  # a lunch peak
    assert share[20] == share.max()  # the evening peak is the day's highest


def test_weekday_profile_weekend_busiest(per_order: pd.DataFrame) -> None:
    day = per_order["placed_at"].dt.normalize()
    per_day = day.value_counts()
    weekday = pd.Series(per_day.index.day_of_week, index=per_day.index)
    mean = per_day.groupby(weekday).mean()
    assert mean[[5, 6]].min() > 1.12 * mean[[0, 1, 2, 3]].max()
    assert mean[4] > mean[[0, 1, 2, 3]].mean()


def test_repeat_customers_are_skewed(per_order: pd.DataFrame) -> None:
    counts = per_order["customer_source_id"].value_counts()
    counts = counts[counts > 0]
    assert (counts == 1).mean() > 0.5  # most buy once
    top = counts.iloc[: len(counts) // 10].sum() / counts.sum()
    assert top > 0.3  # a tenth of the customers place a third of the orders
    assert counts.max() >= 8  # someone buys at least weekly


def test_demo_customers_buy_and_segments_are_per_customer(gen: ModuleType, per_order: pd.DataFrame) -> None:
    document = yaml.safe_load((ROOT / "data" / "scenarios" / "demo.yaml").read_text(encoding="utf-8"))
    demo = {c["source_id"] for c in document["customers"]}
    seen = set(per_order["customer_source_id"].dropna().astype(str))
    assert demo <= seen
    known = per_order.dropna(subset=["customer_source_id"])
    assert (known.groupby("customer_source_id", observed=True)["segment"].nunique() == 1).all()
    assert set(known["segment"].astype(str)) == {"new", "regular", "loyal"}
    assert per_order["segment"].isna().equals(per_order["customer_source_id"].isna())  # guests only
    assert 0.04 < per_order["customer_source_id"].isna().mean() < 0.12


def test_channel_shares_near_their_targets(gen: ModuleType, per_order: pd.DataFrame) -> None:
    share = per_order["channel"].value_counts(normalize=True)
    for channel, target in zip(gen.CHANNELS, gen.CHANNEL_SHARES, strict=True):
        assert share[channel] == pytest.approx(target, abs=0.015)
    store_hours = per_order.loc[per_order["channel"] == "store", "placed_at"].dt.hour
    assert store_hours.between(8, 19).all()


def test_quantities_lines_and_catalogue(small: pd.DataFrame) -> None:
    assert (small["quantity"] >= 1).all()
    assert (small["quantity"] == 1).mean() > 0.55  # skewed small
    document = yaml.safe_load((ROOT / "data" / "scenarios" / "demo.yaml").read_text(encoding="utf-8"))
    products = {p["id"] for p in document["catalogue"]["products"]}
    skus = {s["id"] for p in document["catalogue"]["products"] for s in p.get("skus", [])}
    assert set(small["product_id"].dropna().astype(str)) <= products
    assert set(small["sku_id"].dropna().astype(str)) <= skus
    assert (small["product_id"].isna() ^ small["sku_id"].isna()).all()  # exactly one of them
    assert small["sku_id"].notna().mean() > 0.2  # a mix, like sample_orders
    assert 0.04 < small["price"].notna().mean() < 0.13  # a few marked-down lines
    lines = small.groupby("order_id", observed=True).size()
    assert lines.between(1, 6).all() and lines.mean() < 2.6


def test_options_window_and_timezone(gen: ModuleType) -> None:
    frame = gen.make_dated_orders(500, start="2026-10-20", days=14, timezone="America/New_York", seed=1)
    placed = frame["placed_at"]
    assert str(placed.dt.tz) == "America/New_York"
    assert placed.min() >= pd.Timestamp("2026-10-20", tz="America/New_York")
    assert placed.max() < pd.Timestamp("2026-11-03", tz="America/New_York")


def test_cli_writes_csv(gen: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "orders.csv"
    gen.main(["--orders", "200", "--days", "3", "--out", str(out)])
    frame = pd.read_csv(out)
    assert frame["order_id"].nunique() == 200
    placed = pd.to_datetime(frame["placed_at"], utc=True)
    assert placed.min() >= pd.Timestamp("2026-03-01", tz=BERLIN)
    assert placed.max() < pd.Timestamp("2026-03-04", tz=BERLIN)


def _digest(column: pd.Series) -> str:
    return hashlib.sha256(pd.util.hash_pandas_object(column, index=False).to_numpy().tobytes()).hexdigest()


def test_shipped_month_is_the_default_generation(gen: ModuleType) -> None:
    """The committed file cannot drift from the script: regenerate and compare."""
    shipped = pd.read_parquet(SHIPPED)
    fresh = gen.make_dated_orders()
    assert len(shipped) == len(fresh) and shipped["order_id"].nunique() == gen.DEFAULT_ORDERS
    assert list(shipped.columns) == list(fresh.columns)
    assert shipped.dtypes.astype(str).tolist() == fresh.dtypes.astype(str).tolist()
    for name in fresh.columns:  # column by column: assert_frame_equal is slow on 200,000 categories
        a, b = shipped[name], fresh[name]
        if isinstance(b.dtype, pd.CategoricalDtype):
            assert a.cat.categories.equals(b.cat.categories), name
            assert np.array_equal(a.cat.codes.to_numpy(), b.cat.codes.to_numpy()), name
        else:
            assert a.equals(b), name
    assert _digest(shipped["placed_at"]) == _digest(fresh["placed_at"])
    assert SHIPPED.stat().st_size < 6 * 1024 * 1024
