"""`promolab sweep` options beyond the basics (--at, --customers, --scheduler errors) and
the summary people read: money with its currency, shares by `format_share`, free
shipping as `display.MISSING` (while the frames keep integers, fractions and NA)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from promolab import Simulator
from promolab.analysis import sweep
from promolab.cli import main
from promolab.display import MISSING, format_count, format_money, format_share

from .support import random_orders

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "orders" / "sample_orders.parquet"
SATURDAY = "2026-03-07T12:00:00Z"


def _rows(printed: str, section: str) -> dict[str, list[str]]:
    """The rows of one printed summary section, by id: cells split on runs of 2+ spaces."""
    import re

    block = printed.split(section, 1)[1].split("\n\n", 1)[0]
    lines = [line for line in block.splitlines()[1:] if line.startswith("  ")]
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines]
    return {row[0]: row[1:] for row in rows[1:]}  # rows[0] is the header


@pytest.fixture(scope="module")
def orders() -> pd.DataFrame:
    return random_orders(300, seed=51)


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return path


def test_summary_table_is_the_summary_formatted(sim: Simulator, orders: pd.DataFrame) -> None:
    # without a priced shipping line in the carts, free shipping has no monetary value
    result = sweep(sim, orders[orders["product_id"] != "prod_5h1pp1ng"], progress=False)
    data = result.summary().set_index("tier_id")
    table = result.summary_table(currency="EUR").set_index("tier")
    assert list(table.columns) == ["reach", "orders reached", "cost", "avg discount", "cost per order"]
    for tier_id, row in table.iterrows():
        figures = data.loc[tier_id]
        assert row["reach"] == format_share(figures["share_affected"])
        assert row["orders reached"] == format_count(figures["valid_orders"])
        if tier_id == "promo_free_shipping":
            continue
        assert row["cost"] == format_money(figures["cost"], "EUR")
        assert row["avg discount"] == format_money(figures["avg_discount"], "EUR")
    # free shipping: NA discounts in the frame, NA in the data summary (not 0), "-" for people
    shipping = result.frame[result.frame["tier_id"] == "promo_free_shipping"]
    assert shipping["discount_amount"][shipping["valid"]].isna().all() and shipping["valid"].any()
    assert pd.isna(data.loc["promo_free_shipping", "cost"])
    assert table.loc["promo_free_shipping", ["cost", "avg discount", "cost per order"]].tolist() == [MISSING] * 3
    campaigns = result.summary_table("campaign").set_index("campaign")
    assert campaigns.loc["camp_welcome", "cost"].startswith("$")  # priced by its other tier
    assert "€" in result.summary_text(currency="EUR") and "$" not in result.summary_text(currency="EUR")


def test_cli_summary_uses_money_shares_and_missing(tmp_path: Path, sim: Simulator,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.parquet"
    assert main(["sweep", "--orders", str(SAMPLE), "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    tiers = _rows(printed, "per tier")
    summary = sweep(sim, pd.read_parquet(SAMPLE), progress=False).summary().set_index("tier_id")
    assert summary.loc["promo_brew_bundle", "valid_orders"] == 3  # 3 of 12,000 orders
    assert tiers["promo_brew_bundle"][0] == "<0.1%"  # not "0.0%"
    for tier_id in ("promo_welcome_10", "promo_beans_15", "promo_brew_bundle"):
        _reach, reached, cost, avg, _per_order = tiers[tier_id]
        assert cost == format_money(summary.loc[tier_id, "cost"])
        assert avg == format_money(summary.loc[tier_id, "avg_discount"])
        assert reached == format_count(summary.loc[tier_id, "valid_orders"])
    assert tiers["promo_free_shipping"][2:] == [MISSING] * 3
    assert tiers["promo_flash_5"][3] == MISSING  # reached no order: no average
    assert "camp_welcome" in _rows(printed, "per campaign")


def test_cli_summary_in_the_scenario_currency(tmp_path: Path, _demo_document: dict[str, Any],
                                              orders: pd.DataFrame, capsys: pytest.CaptureFixture[str]) -> None:
    document = copy.deepcopy(_demo_document)
    document["project"]["currency"] = "GBP"
    scenario = tmp_path / "gbp.yaml"
    scenario.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    source = _write(orders, tmp_path / "o.csv")
    assert main(["sweep", "--scenario", str(scenario), "--orders", str(source), "--out",
                 str(tmp_path / "r.csv"), "--no-progress"]) == 0
    cost = _rows(capsys.readouterr().out, "per tier")["promo_welcome_10"][2]
    assert cost.startswith("£")


@pytest.mark.parametrize("at", [None, SATURDAY, "2026-03-07T13:00:00+01:00"])
def test_cli_at_prices_at_that_instant(at: str | None, tmp_path: Path, sim: Simulator, orders: pd.DataFrame,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.parquet"
    argv = ["sweep", "--orders", str(_write(orders, tmp_path / "o.parquet")), "--out", str(out), "--no-progress"]
    assert main(argv + (["--at", at] if at else [])) == 0
    expected = sweep(sim, orders, at=at, progress=False).frame
    written = pd.read_parquet(out)
    assert written["discount_amount"].tolist() == expected["discount_amount"].tolist()
    assert written["valid"].tolist() == expected["valid"].tolist()
    weekend = written[written["tier_id"] == "promo_weekend_filters"]["valid"]
    assert weekend.any() == (at is not None)  # a weekend tier: Saturday only
    assert ("2026-03-07T12:00:00.000Z" in capsys.readouterr().out) == (at is not None)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_cli_customers_file(suffix: str, tmp_path: Path, sim: Simulator, orders: pd.DataFrame) -> None:
    ids = list(dict.fromkeys(orders["order_id"]))
    mapping = {order_id: ("alice" if i % 2 else "bob") for i, order_id in enumerate(ids)}
    mapping[ids[0]] = None  # no customer for this one
    customers = pd.DataFrame({"order_id": list(mapping), "customer_source_id": list(mapping.values())})
    out = tmp_path / "r.parquet"
    source = _write(orders.drop(columns=["customer_source_id"], errors="ignore"), tmp_path / f"o{suffix}")
    assert main(["sweep", "--orders", str(source), "--customers", str(_write(customers, tmp_path / f"c{suffix}")),
                 "--out", str(out), "--no-progress"]) == 0
    given = {k: v for k, v in mapping.items() if v is not None}
    expected = sweep(sim, orders.drop(columns=["customer_source_id"], errors="ignore"), customers=given,
                     progress=False).frame
    written = pd.read_parquet(out)
    assert written["discount_amount"].tolist() == expected["discount_amount"].tolist()
    vip = written[written["tier_id"] == "promo_vip_10pct"]["valid"]
    assert vip.any()  # alice is a VIP: the file's customers were used


@pytest.mark.parametrize("extra, customers, message", [
    (["--at", "tomorrow"], None, "--at 'tomorrow'"),
    (["--at", "2026-03-07T12:00:00"], None, "no timezone"),
    (["--engine", "pandas", "--scheduler", "tcp://127.0.0.1:8786"], None, "--scheduler runs the dask engine"),
    (["--scheduler", "nonsense"], None, "cannot connect"),
    ([], "order_id,customer\n1,alice\n", "customer_source_id"),
    ([], "order_id,customer_source_id\nnot-an-order,alice\n", "none of its order ids"),
    ([], "order_id,customer_source_id\n{o},alice\n{o},bob\n", "has two customers"),
    (["--tiers", "promo_nope"], None, "unknown or inactive tier"),
])
def test_cli_sweep_bad_input_exits_2_with_one_line(extra: list[str], customers: str | None, message: str,
                                                   tmp_path: Path, orders: pd.DataFrame,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    source = _write(orders, tmp_path / "o.csv")
    argv = ["sweep", "--orders", str(source), "--out", str(tmp_path / "r.csv"), "--no-progress", *extra]
    if customers is not None:
        path = tmp_path / "c.csv"
        path.write_text(customers.format(o=orders["order_id"].iloc[0]), encoding="utf-8")
        argv += ["--customers", str(path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err
