"""Long lists in Parquet beside the scenario: the same state as inline, refusals that name the place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from promolab import Simulator, with_changes
from promolab.sim import ScenarioError
from promolab.sim.scenario import tables

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "scenarios" / "demo.yaml"

CUSTOMERS = [
    {"source_id": "t-1", "name": "Tess", "email": "tess@example.com", "metadata": {"tier": "gold", "orders": 3}},
    {"source_id": "t-2", "name": None, "email": "two@example.com", "metadata": None},
    {"id": "cust_t3", "source_id": "t-3", "name": "Three", "email": None, "metadata": {}},
]
CODES = [
    {"code": "TBL-0001"},
    {"code": "TBL-0002", "redemption_quantity": 3, "metadata": {"batch": "b"}},
    {"code": "TBL-0003", "discount": {"type": "AMOUNT", "amount_off": 700}, "holder": "t-1"},
]


def _inline(document: dict[str, Any]) -> dict[str, Any]:
    clean = [{k: v for k, v in row.items() if v is not None} for row in CUSTOMERS]
    document["customers"] = document.get("customers", []) + clean
    coupons = next(c for c in document["campaigns"] if c.get("type") == "DISCOUNT_COUPONS" and "vouchers" in c)
    coupons["vouchers"] = coupons["vouchers"] + CODES
    return document


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    columns = sorted({k for row in rows for k in row})
    return pd.DataFrame([{c: (json.dumps(row[c]) if c in tables.JSON_COLUMNS and row.get(c) is not None
                              else row.get(c)) for c in columns} for row in rows])


def _tabled(folder: Path) -> Path:
    """The demo with its customers and one campaign's codes in Parquet files beside it."""
    document = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    inline = _inline(yaml.safe_load(DEMO.read_text(encoding="utf-8")))
    _frame(inline["customers"]).to_parquet(folder / "ours.customers.parquet", index=False)
    coupons = next(n for n, c in enumerate(inline["campaigns"]) if c.get("type") == "DISCOUNT_COUPONS" and "vouchers" in c)
    _frame(inline["campaigns"][coupons]["vouchers"]).to_parquet(folder / "ours.codes.parquet", index=False)
    document["customers"] = {"table": "ours.customers.parquet"}
    document["campaigns"][coupons]["vouchers"] = {"table": "ours.codes.parquet"}
    path = folder / "ours.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def test_tables_load_the_same_state_as_inline_lists(tmp_path: Path) -> None:
    inline = Simulator.from_scenario(_inline(yaml.safe_load(DEMO.read_text(encoding="utf-8"))))
    tabled = Simulator.from_scenario(_tabled(tmp_path))
    assert tabled.state.customers == inline.state.customers
    assert tabled.state.vouchers == inline.state.vouchers
    assert tabled.state.model_dump(mode="json") == inline.state.model_dump(mode="json")


def test_a_changed_copy_of_a_scenario_with_tables_loads(tmp_path: Path) -> None:
    changed = with_changes(_tabled(tmp_path), {"tiers.promo_beans_15.discount.percent_off": 20})
    assert len(Simulator.from_scenario(changed).state.vouchers) == len(Simulator.from_scenario(_tabled(tmp_path)).state.vouchers)


@pytest.mark.parametrize(("reference", "where", "message"), [
    ({"table": "/etc/passwd.parquet"}, "customers.table", "inside the scenario's folder"),
    ({"table": "../elsewhere.parquet"}, "customers.table", "inside the scenario's folder"),
    ({"table": "ours.customers.csv"}, "customers.table", "a table is a .parquet file"),
    ({"table": "missing.parquet"}, "customers.table", "cannot read missing.parquet"),
    ({"table": "ours.customers.parquet", "rows": 3}, "customers", "{table: FILE.parquet} and nothing else"),
])
def test_a_bad_reference_is_refused_naming_it(reference: dict[str, Any], where: str, message: str,
                                              tmp_path: Path) -> None:
    path = _tabled(tmp_path)
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    document["customers"] = reference
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    with pytest.raises(ScenarioError) as refused:
        Simulator.from_scenario(path)
    assert refused.value.path == where and message in refused.value.problem


def test_a_bad_row_is_refused_naming_its_row_and_field(tmp_path: Path) -> None:
    path = _tabled(tmp_path)
    rows = pd.read_parquet(tmp_path / "ours.customers.parquet")
    rows.loc[len(rows) - 2, "metadata"] = "{not json"
    rows.to_parquet(tmp_path / "ours.customers.parquet", index=False)
    with pytest.raises(ScenarioError, match=r"customers\[\d+\]\.metadata: not JSON text \(row \d+ of ours"):
        Simulator.from_scenario(path)
    rows.loc[len(rows) - 2, "metadata"] = None
    rows["email"] = rows["email"].astype(object)
    rows.loc[len(rows) - 1, "email"] = None
    rows["source_id"] = rows["source_id"].astype(object)
    rows.loc[0, "source_id"] = None
    rows.to_parquet(tmp_path / "ours.customers.parquet", index=False)
    Simulator.from_scenario(path)  # nulls are fields left out: still a scenario


def test_too_many_rows_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _tabled(tmp_path)
    monkeypatch.setattr(tables, "MAX_TABLE_ROWS", 3)
    with pytest.raises(ScenarioError, match="ours.customers.parquet: more than 3 rows"):
        Simulator.from_scenario(path)
