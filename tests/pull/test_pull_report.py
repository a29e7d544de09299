"""What a project holds that a scenario cannot say: one report row each, and the pull goes on."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from promolab import Simulator
from promolab.pull import REPORT_COLUMNS, ProjectFacts, PullOptions, pull, report_path
from pull_support import target_of


class _Richer(httpx.BaseTransport):
    """The demo project with what real projects add: addresses, images, a rule-based collection."""

    def __init__(self, sim: Simulator) -> None:
        from promolab.http.transport import SimulatorTransport

        self.inner = SimulatorTransport(sim)
        self.changes: dict[str, Callable[[dict[str, Any]], None]] = {
            "/v1/customers": self._customers, "/v1/products": self._products,
            "/v1/product-collections": self._collections,
        }

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        change = self.changes.get(request.url.path)
        if change is None:
            return response
        body = json.loads(response.read())
        change(body)
        return httpx.Response(response.status_code, json=body)

    @staticmethod
    def _customers(body: dict[str, Any]) -> None:
        first = body["customers"][0]
        first["address"] = {"city": "Lisbon", "country": "PT"}
        first["phone"] = "+351 555 0100"

    @staticmethod
    def _products(body: dict[str, Any]) -> None:
        first = body["products"][0]
        first["image_url"] = "https://img.example.com/beans.png"
        first["attributes"] = ["origin"]
        first["skus"]["data"][0]["attributes"] = {"weight": "250g"}

    @staticmethod
    def _collections(body: dict[str, Any]) -> None:
        data = body["data"]
        data.append({"id": "pc_new_arrivals", "name": "New arrivals", "type": "AUTO_UPDATE",
                     "filter": {"junction": "and", "created_at": {"conditions": {"$after": ["2026-01-01"]}}},
                     "created_at": "2026-03-01T00:00:00.000Z", "object": "products_collection"})
        body["total"] = len(data)


#: The report's objects of a pulled loyalty program.
_LOYALTY = {"loyalty_campaign", "loyalty_card", "loyalty_tier", "earning_rule", "event_schema", "reward",
            "reward_assignment"}


def test_every_value_without_a_place_is_reported_and_the_rest_is_pulled(demo: Simulator, tmp_path: Path) -> None:
    out = tmp_path / "ours.yaml"
    pulled = pull(target_of(demo, _Richer(demo)), out, PullOptions(project=ProjectFacts(demo.state.project.id)))
    with report_path(out).open(encoding="utf-8", newline="") as report:
        rows = list(csv.reader(report))
    assert tuple(rows[0]) == REPORT_COLUMNS
    # the referral program's row (tests/pull/test_pull_round_trip.py) and the loyalty rows (test_pull_loyalty.py)
    skipped = [row for row in rows[1:] if row[0] in _LOYALTY or row[:2] == ["campaign", "camp_referral"]]
    rows = [row for row in rows if row not in skipped]
    assert rows[1:] == [
        ["customer", "cust_alice", "address", "a scenario's customer has no address"],
        ["customer", "cust_alice", "phone", "a scenario's customer has no phone"],
        ["product", "prod_beans_ethiopia", "attributes", "a scenario's product has no attributes"],
        ["product", "prod_beans_ethiopia", "image_url", "a scenario's product has no image_url"],
        ["products_collection", "pc_new_arrivals", "filter",
         "an AUTO_UPDATE collection's rule is not a scenario's; left out"],
        ["sku", "sku_ethiopia_250", "attributes", "a scenario's sku has no attributes"],
    ]
    assert len(pulled.unexpressed) == 6 + len(skipped)
    ours = Simulator.from_scenario(out)
    assert sorted(ours.state.collections) == sorted(demo.state.collections)  # the rule-based one left out
    assert ours.state.customers.keys() == demo.state.customers.keys()
