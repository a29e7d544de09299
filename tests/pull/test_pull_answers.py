"""Serve -> pull -> load: the pulled simulator prices as the original does.

For the bundled scenarios, every order of data/orders/sample_orders.csv gets
the same promotion validation, the same qualifications and the same stacked
validation (the campaigns' codes the customer holds and a stack of tiers)
from the pulled scenario as from the one served, and a sweep of the orders
gives the same frame: a pull that lost a rule, a scope, a limit or an order
of tiers would price differently somewhere here.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import pandas.testing as pdt
import pytest

from promolab import Simulator
from promolab.analysis import as_requests, sweep
from promolab.pull import ProjectFacts, PullOptions, pull
from pull_support import ROOT, SCENARIOS, target_of

ORDERS = ROOT / "data" / "orders" / "sample_orders.csv"
#: Enough orders to meet every tier and code, few enough to stay quick.
SOME = 60


@cache
def _orders() -> pd.DataFrame:
    return pd.read_csv(ORDERS, dtype={"sku_id": "string", "product_id": "string"})


def _requests() -> list[tuple[Hashable, dict[str, Any]]]:
    return as_requests(_orders())[:SOME]


def _pulled(name: str, folder: Path) -> tuple[Simulator, Simulator]:
    original = Simulator.from_scenario(SCENARIOS / f"{name}.yaml")
    project = original.state.project
    out = folder / "pulled.yaml"
    pull(target_of(original), out, PullOptions(project=ProjectFacts(project.id, project.timezone)))
    return original, Simulator.from_scenario(out)


def _redeemables(sim: Simulator, request: dict[str, Any]) -> list[dict[str, str]]:
    """A stacked request of the codes the order's customer holds, then every active tier (up to five in all)."""
    customer = (request.get("customer") or {}).get("source_id")
    holder = next((c.id for c in sim.state.customers.values() if c.source_id == customer), None)
    codes = [{"object": "voucher", "id": v.code} for v in sim.state.vouchers.values()
             if v.holder_id == holder and holder is not None and v.type != "LOYALTY_CARD"]
    tiers = [{"object": "promotion_tier", "id": t.id} for t in sim.state.tiers.values() if t.active]
    return (codes + tiers)[:5]


def _answers(sim: Simulator, redeemables: list[list[dict[str, str]]]) -> list[Any]:
    seen: list[Any] = []
    with sim.client() as client:
        for (_, request), stacked in zip(_requests(), redeemables, strict=True):
            seen.append(client.validate_promotions(request).model_dump(mode="json"))
            seen.append(client.qualifications(customer=request.get("customer"), order=request["order"],
                                              scenario="ALL").model_dump(mode="json"))
            stacked_answer = client.validate_stacked(redeemables=stacked, customer=request.get("customer"),
                                                     order=request["order"]).model_dump(mode="json")
            stacked_answer.pop("id")  # drawn from the scenario's seed, which is the simulator's, not the project's
            seen.append(stacked_answer)
    return seen


@pytest.mark.parametrize("name", ["demo", "march_budgets"])
def test_the_pulled_scenario_validates_qualifies_and_stacks_as_the_original(name: str, tmp_path: Path) -> None:
    original, pulled = _pulled(name, tmp_path)
    redeemables = [_redeemables(original, request) for _, request in _requests()]
    assert _answers(pulled, redeemables) == _answers(original, redeemables)


@pytest.mark.parametrize("name", ["demo", "march_budgets"])
def test_the_pulled_scenario_sweeps_the_sample_orders_to_the_same_frame(name: str, tmp_path: Path) -> None:
    original, pulled = _pulled(name, tmp_path)
    pdt.assert_frame_equal(sweep(pulled, _orders(), progress=False).frame,
                           sweep(original, _orders(), progress=False).frame)
