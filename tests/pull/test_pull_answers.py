"""Serve -> pull -> load: the pulled simulator prices as the original does.

For the bundled scenarios, every order of data/orders/sample_orders.csv gets
the same promotion validation, the same qualifications and the same stacked
validation (the campaigns' codes the customer holds and a stack of tiers)
from the pulled scenario as from the one served, and a sweep of the orders
gives the same frame; generated projects of tiers and codes (hypothesis)
price generated orders the same way too: a pull that lost a rule, a scope, a limit or an order
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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


def _discount(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"type": "PERCENT", "percent_off": draw(st.integers(1, 60)), "effect": "APPLY_TO_ORDER"}
    return {"type": "AMOUNT", "amount_off": draw(st.integers(1, 5_000)), "effect": "APPLY_TO_ORDER"}


@st.composite
def _promotions(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A project of tiers (some with an order-amount rule), a campaign of codes with a code of its own
    discount, and orders to price against it."""
    products = [{"id": f"prod_{n}", "name": f"product {n}", "price": draw(st.integers(100, 10_000))} for n in range(3)]
    tiers = []
    for n in range(draw(st.integers(1, 4))):
        tier: dict[str, Any] = {"id": f"tier_{n}", "name": f"tier {n}", "hierarchy": n + 1, "discount": _discount(draw),
                                "active": draw(st.booleans())}
        if draw(st.booleans()):
            bound = draw(st.integers(0, 20_000))
            tier["validation_rules"] = {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [bound]}},
                                                  "logic": "1"}}
        tiers.append(tier)
    codes = [{"code": f"CODE-{n}", "holder": "ann"} for n in range(draw(st.integers(0, 3)))]
    if codes and draw(st.booleans()):
        codes[0]["discount"] = _discount(draw)
    document = {"version": 1, "clock": {"start": "2026-05-01T09:00:00Z"}, "catalogue": {"products": products},
                "customers": [{"id": "cust_ann", "source_id": "ann"}],
                "campaigns": [{"id": "camp_tiers", "name": "Tiers", "type": "PROMOTION", "tiers": tiers},
                              {"id": "camp_codes", "name": "Codes", "type": "DISCOUNT_COUPONS",
                               "discount": _discount(draw), "vouchers": codes}]}
    orders = [{"items": [{"product_id": p["id"], "quantity": draw(st.integers(1, 5))}
                         for p in draw(st.lists(st.sampled_from(products), min_size=1, max_size=3, unique_by=lambda p: p["id"]))]}
              for _ in range(3)]
    return document, orders


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(project=_promotions())
def test_generated_promotions_price_the_same_after_a_pull(project: tuple[dict[str, Any], list[dict[str, Any]]],
                                                          tmp_path_factory: pytest.TempPathFactory) -> None:
    document, orders = project
    original = Simulator.from_scenario(document)
    out = tmp_path_factory.mktemp("pulled") / "pulled.yaml"
    pull(target_of(original), out, PullOptions(project=ProjectFacts(original.state.project.id)))
    pulled = Simulator.from_scenario(out)
    stacked = [{"object": "voucher", "id": v["code"]} for v in document["campaigns"][1]["vouchers"]][:2] + [
        {"object": "promotion_tier", "id": t["id"]} for t in document["campaigns"][0]["tiers"]][:3]

    def answers(sim: Simulator) -> list[Any]:
        seen: list[Any] = []
        with sim.client() as client:
            for order in orders:
                seen.append(client.validate_promotions(customer={"source_id": "ann"}, order=order).model_dump(mode="json"))
                seen.append(client.qualifications(customer={"source_id": "ann"}, order=order, scenario="ALL")
                            .model_dump(mode="json"))
                if stacked:
                    answer = client.validate_stacked(redeemables=stacked, customer={"source_id": "ann"},
                                                     order=order).model_dump(mode="json")
                    answer.pop("id")  # drawn from the seed
                    seen.append(answer)
        return seen

    assert answers(pulled) == answers(original)
