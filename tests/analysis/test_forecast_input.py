"""Bad input of `forecast`: each refused with a message naming the row (the
frame's index label, not a position) and the column, before anything is
computed (the candidate sweep never runs, no result comes back)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

from promolab import Simulator, samples
from promolab.analysis import CostModel, forecast
from promolab.analysis.forecast import api

#: Row labels that are not positions, so a message naming a position would fail.
LABELS = "line-"


@pytest.fixture(scope="module")
def budget_sim() -> Simulator:
    return Simulator.from_scenario(samples.forecast_scenario())


@pytest.fixture(scope="module")
def lines() -> pd.DataFrame:
    """The first 60 orders of the month sample, rows labelled line-0, line-1, ..."""
    month = pd.read_parquet(samples.month_orders())
    first = month[month["order_id"].isin(month["order_id"].unique()[:60])].copy()
    for column in ("order_id", "product_id", "sku_id", "customer_source_id", "channel", "segment"):
        first[column] = first[column].astype(object)  # editable cells (categoricals refuse new values)
    first.index = pd.Index([f"{LABELS}{i}" for i in range(len(first))])
    return first


def _set(row: int, column: str, value: Any) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def change(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy()
        if column == "placed_at" and not isinstance(value, pd.Timestamp):
            out["placed_at"] = out["placed_at"].map(lambda t: t.isoformat()).astype(object)
        out.iloc[row, out.columns.get_loc(column)] = value
        return out
    return change


def _keep(frame: pd.DataFrame) -> pd.DataFrame:
    return frame


def _customers(frame: pd.DataFrame) -> pd.DataFrame:
    """Known customers: every source_id of the frame but row 7's (its first row)."""
    ids = frame["customer_source_id"]
    return pd.DataFrame({"source_id": ids[ids != ids[f"{LABELS}7"]].dropna().unique()})


CASES: list[tuple[str, Callable[[pd.DataFrame], pd.DataFrame], dict[str, Any], str]] = [
    ("placed_at missing", _set(5, "placed_at", None), {},
     "row 'line-5', column 'placed_at': missing timestamp"),
    ("placed_at naive", _set(4, "placed_at", "2026-03-01 10:00:00"), {},
     "row 'line-4', column 'placed_at': '2026-03-01 10:00:00' has no timezone"),
    ("placed_at not a time", _set(3, "placed_at", "soon"), {},
     "row 'line-3', column 'placed_at': not a timestamp: 'soon'"),
    ("placed_at column absent", lambda f: f.drop(columns=["placed_at"]), {},
     "a forecast needs a 'placed_at' column"),
    ("negative quantity", _set(6, "quantity", -2), {},
     "row 'line-6', column 'quantity': must be >= 1, got -2"),
    ("fractional quantity", lambda f: f.assign(quantity=f["quantity"].astype(float)).pipe(_set(2, "quantity", 1.5)), {},
     "row 'line-2', column 'quantity': must be a whole number"),
    ("unknown product", lambda f: f.assign(price=pd.NA).pipe(_set(8, "product_id", "prod_nope")).pipe(
        _set(8, "sku_id", None)), {},
     "row 'line-8', column 'product_id': prod_nope is not in the catalogue and the line has no price"),
    ("unknown sku", lambda f: f.assign(price=pd.NA).pipe(_set(9, "sku_id", "sku_nope")), {},
     "row 'line-9', column 'sku_id': sku_nope is not in the catalogue and the line has no price"),
    ("sku of another product", _set(10, "product_id", "prod_mug"), {},  # row 10 has a SKU of beans
     "row 'line-10', column 'sku_id': prod_mug is not the product of SKU"),
    ("unknown customer", _keep, {"customers": _customers},
     "row 'line-7', column 'customer_source_id': customer "),
    ("known customers without the column", lambda f: f.drop(columns=["customer_source_id"]),
     {"customers": lambda f: pd.DataFrame({"source_id": ["alice"]})},
     "the orders have no 'customer_source_id' column"),
    ("known customers frame without source_id", _keep, {"customers": lambda f: pd.DataFrame({"name": ["a"]})},
     "needs a 'source_id'"),
    ("cohort column the orders lack", _keep,
     {"costs": lambda f: CostModel(cohort_rates={"loyalty": {"gold": 0.5}})},
     "cohort_rates names column 'loyalty', which the orders do not have"),
    ("product without a cost of goods", _keep, {"costs": lambda f: CostModel(cost_of_goods={"prod_mug": 300})},
     "cost_of_goods has no cost for"),
    ("unknown tier", _keep, {"tiers": lambda f: ["promo_nope"]}, "unknown or inactive tier 'promo_nope'"),
    ("unknown policy", _keep, {"policy": lambda f: "cheapest"}, "policy must be one of"),
]


@pytest.mark.parametrize("change, options, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_naming_row_and_column_before_anything_runs(
        change: Callable[[pd.DataFrame], pd.DataFrame], options: dict[str, Any], message: str,
        budget_sim: Simulator, lines: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> None:
    frame = change(lines)
    swept: list[int] = []
    real = api.candidates

    def watched_candidates(*args: Any, **kwargs: Any) -> Any:
        swept.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "candidates", watched_candidates)
    chunks: list[int] = []
    kwargs = {name: make(frame) for name, make in options.items()}
    returned = None
    with pytest.raises(ValueError) as refused:
        returned = forecast(budget_sim, frame, progress=False, on_chunk=chunks.append, **kwargs)
    assert message in str(refused.value), str(refused.value)
    assert returned is None and not swept and not chunks  # nothing computed half way
    assert "\n" not in str(refused.value)  # one line: what the CLI prints


def test_the_sku_case_really_mixes_a_product_and_another_products_sku(lines: pd.DataFrame) -> None:
    row = lines.iloc[10]
    assert isinstance(row["sku_id"], str) and not row["sku_id"].startswith("sku_mug"), row


@pytest.mark.parametrize("make, message", [
    (lambda: CostModel(redemption_rate=1.5), "redemption_rate must be a number between 0 and 1, got 1.5"),
    (lambda: CostModel(redemption_rate={"promo_beans_15": -0.1}), "redemption_rate['promo_beans_15']"),
    (lambda: CostModel(default_rate=2), "default_rate must be a number between 0 and 1"),
    (lambda: CostModel(cohort_rates={"channel": {"app": 1.2}}), "cohort_rates['channel']['app']"),
    (lambda: CostModel(shipping_cost=-1), "shipping_cost must be whole cents >= 0, got -1"),
    (lambda: CostModel(cost_of_goods={"prod_mug": -5}), "cost_of_goods['prod_mug'] must be whole cents >= 0"),
    (lambda: CostModel(cost_of_goods=1.5), "cost_of_goods (a share of the price)"),
])
def test_a_bad_cost_model_is_refused_when_made(make: Callable[[], CostModel], message: str) -> None:
    with pytest.raises(ValueError) as refused:
        make()
    assert message in str(refused.value), str(refused.value)


def test_unknown_customers_are_new_customers_without_a_known_list(budget_sim: Simulator,
                                                                  lines: pd.DataFrame) -> None:
    strangers = lines.assign(customer_source_id=lines["customer_source_id"].where(
        lines.index != f"{LABELS}7", "cust_never_seen"))
    result = forecast(budget_sim, strangers, progress=False)
    assert "cust_never_seen" in set(result.orders["customer"].dropna())
    # with the stranger listed as known, the same answer as without a list
    known = pd.DataFrame({"source_id": strangers["customer_source_id"].dropna().unique()})
    listed = forecast(budget_sim, strangers, customers=known, progress=False)
    pd.testing.assert_frame_equal(listed.orders, result.orders)
