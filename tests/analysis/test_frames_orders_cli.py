"""Orders builders, documented frame dtypes, the sweep summary and the CLI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis import (
    DELIVERY_COLUMNS,
    PUBLICATION_COLUMNS,
    SWEEP_COLUMNS,
    TRANSACTION_COLUMNS,
    VALIDATION_COLUMNS,
    as_requests,
    deliveries_frame,
    orders_from_frame,
    orders_from_records,
    publications_frame,
    sweep,
    transactions_frame,
    validation_frame,
)
from promolab.cli import main

from .support import random_orders

UTC_TIME = "datetime64[us, UTC]"


def test_orders_from_frame_keeps_row_order_and_first_customer() -> None:
    frame = pd.DataFrame({
        "order_id": ["b", "a", "b"], "product_id": ["prod_mug", "prod_tote", None],
        "sku_id": [None, None, "sku_ethiopia_250"], "quantity": [2.0, np.nan, 1],
        "price": [None, 999, None], "customer_source_id": ["alice", None, "bob"],
    })
    orders = orders_from_frame(frame)
    assert list(orders) == ["b", "a"]
    assert orders["b"] == {"customer": {"source_id": "alice"}, "order": {"items": [
        {"product_id": "prod_mug", "quantity": 2}, {"sku_id": "sku_ethiopia_250", "quantity": 1}]}}
    assert orders["a"] == {"order": {"items": [{"product_id": "prod_tote", "quantity": 1, "price": 999}]}}
    assert orders_from_records(frame.to_dict("records")) == orders


@pytest.mark.parametrize("bad, message", [
    ({"quantity": [0]}, "quantity"), ({"quantity": [1.5]}, "whole"), ({"price": [-1]}, "price"),
    ({"product_id": [None]}, "no product_id"),
])
def test_bad_line_items_are_refused(bad: dict, message: str) -> None:
    frame = pd.DataFrame({"order_id": [1], "product_id": ["prod_mug"], **bad})
    with pytest.raises(ValueError, match=message):
        orders_from_frame(frame)


def test_as_requests_accepts_python_shapes() -> None:
    cart = {"items": [{"product_id": "prod_mug", "quantity": 1}]}
    assert as_requests(cart) == [(0, {"order": cart})]
    assert as_requests([cart, {"order": {**cart, "source_id": "x"}}])[1][0] == "x"
    assert as_requests({"k": cart}) == [("k", {"order": cart})]


def test_sweep_refuses_an_unknown_product_without_price(sim: Simulator) -> None:
    frame = pd.DataFrame({"order_id": [1, 2, 2], "product_id": ["prod_mug", "prod_mug", "prod_nope"],
                          "quantity": [1, 1, 1]}, index=[10, 20, 30])
    # the row's index label (not its position) and the column, as for every other bad cell
    with pytest.raises(ValueError, match=r"^row 30, column 'product_id': prod_nope is not in the catalogue .*order 2"):
        sweep(sim, frame, progress=False)


def test_sweep_frame_dtypes_and_summary(sim: Simulator) -> None:
    result = sweep(sim, random_orders(200, seed=41), progress=False)
    frame = result.frame
    assert list(frame.columns) == list(SWEEP_COLUMNS)
    assert {c: str(t) for c, t in frame.dtypes.items()} == {
        "order_id": "category", "tier_id": "category", "valid": "bool", "discount_amount": "Int64",
        "total_amount": "Int64", "reason_key": "category",
    }
    assert frame["discount_amount"][~frame["valid"]].eq(0).all()
    assert frame["reason_key"][frame["valid"]].isna().all()
    summary = result.summary().set_index("tier_id")
    welcome = frame[frame["tier_id"] == "promo_welcome_10"]
    assert summary.loc["promo_welcome_10", "cost"] == welcome["discount_amount"].sum()
    assert summary.loc["promo_welcome_10", "share_affected"] == pytest.approx(welcome["valid"].mean())
    shipping = frame[frame["tier_id"] == "promo_free_shipping"]["discount_amount"]
    assert shipping.isna().any()  # valid without monetary value: NA, counted as 0
    assert summary.loc["promo_free_shipping", "cost"] == shipping.fillna(0).sum()
    campaigns = result.summary("campaign").set_index("campaign_id")
    assert campaigns.loc["camp_welcome", "valid_orders"] >= summary.loc["promo_welcome_10", "valid_orders"]
    assert "vectorized" in repr(result)


def test_validation_frame_dtypes(sim: Simulator) -> None:
    request = {"customer": {"source_id": "alice"},
               "order": {"items": [{"product_id": "prod_grinder", "quantity": 1}]}}
    frame = validation_frame([sim.client().validate_promotions(request)], order_ids=["o1"])
    assert list(frame.columns) == VALIDATION_COLUMNS
    dtypes = {c: str(t) for c, t in frame.dtypes.items()}
    assert dtypes["order_id"] == "object" and dtypes["discount_type"] == "category"
    assert all(dtypes[c] == "Int64" for c in ("hierarchy", "discount_amount", "amount", "total_amount", "items"))
    assert set(frame["order_id"]) == {"o1"} and len(frame) >= 2
    shipping = frame.set_index("tier_id").loc["promo_free_shipping"]
    assert pd.isna(shipping["discount_amount"])  # no monetary value: absent, not 0
    empty = validation_frame([])
    assert list(empty.columns) == VALIDATION_COLUMNS and str(empty["amount"].dtype) == "Int64"


def test_ledger_frames_dtypes(sim: Simulator) -> None:
    pubs = publications_frame([])
    assert list(pubs.columns) == PUBLICATION_COLUMNS and str(pubs["created_at"].dtype) == UTC_TIME
    assert str(pubs["voucher_type"].dtype) == "category"
    txns = transactions_frame(sim)
    assert list(txns.columns) == TRANSACTION_COLUMNS
    assert str(txns["points"].dtype) == "Int64" and str(txns["created_at"].dtype) == UTC_TIME
    log = deliveries_frame([{
        "sendout_id": "s1", "webhook_id": "wh", "event_type": "E", "attempt": 1,
        "attempted_at": "2026-03-06T10:00:00Z", "outcome": "failed", "status_code": 500, "error": None,
        "next_attempt_at": "2026-03-06T10:01:00Z", "target": "receiver:x", "signature": "abc",
    }])
    assert list(log.columns) == DELIVERY_COLUMNS
    assert str(log["attempted_at"].dtype) == UTC_TIME and str(log["status_code"].dtype) == "Int64"
    assert list(log["outcome"].cat.categories) == ["delivered", "failed", "timeout", "error"]
    assert list(deliveries_frame(sim).columns) == DELIVERY_COLUMNS


def test_cli_sweep_end_to_end(sim: Simulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    orders = random_orders(60, seed=42)
    source = tmp_path / "orders.csv"
    orders.to_csv(source, index=False)
    out = tmp_path / "result.parquet"
    code = main(["sweep", "--orders", str(source), "--out", str(out), "--no-progress",
                 "--tiers", "promo_welcome_10,promo_beans_15"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "per tier" in printed and "per campaign" in printed and "promo_beans_15" in printed
    written = pd.read_parquet(out)
    expected = sweep(sim, orders, ["promo_welcome_10", "promo_beans_15"], progress=False).frame
    assert written["discount_amount"].tolist() == expected["discount_amount"].tolist()
    assert written["order_id"].astype(str).tolist() == expected["order_id"].astype(str).tolist()
    csv_out = tmp_path / "result.csv"
    assert main(["sweep", "--orders", str(source), "--out", str(csv_out), "--no-progress",
                 "--engine", "dask"]) == 0
    assert len(pd.read_csv(csv_out)) == 60 * 17  # the demo's 17 tiers


def test_cli_sweep_bad_input(tmp_path: Path) -> None:
    assert main(["sweep", "--orders", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "o.parquet"),
                 "--no-progress"]) == 2
    assert main(["sweep", "--orders", str(tmp_path / "x.csv"), "--out", str(tmp_path / "o.txt")]) == 2


def test_sample_data_is_committed_small_and_sweepable(sim: Simulator) -> None:
    root = Path(__file__).resolve().parents[2] / "data" / "orders"
    for name in ("sample_orders.csv", "sample_orders.parquet"):
        assert (root / name).stat().st_size <= 2_000_000
    frame = pd.read_parquet(root / "sample_orders.parquet")
    assert 1 <= frame.groupby("order_id").size().min() and frame.groupby("order_id").size().max() <= 6
    result = sweep(sim, frame.head(3000), progress=False)
    assert result.frame["valid"].any()
