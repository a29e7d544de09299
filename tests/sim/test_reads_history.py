"""The orders and redemptions lists: what the simulator recorded, as the service lists it.

A few stacked redemptions (one rolled back) are made through the client;
then each list must validate against the service's published schema
(tests/data/), parse with promolab's model, hold every recorded redemption
and rollback once across its pages, and filter and sort as documented.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reads_catalogue import assert_documented

from promolab import Simulator, models
from promolab.sim import InvalidQueryParams
from promolab.sim.operations import BY_NAME

REDEEMABLES = [
    [{"object": "voucher", "id": "WELCOME-ALICE"}, {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 500}}],
    [{"object": "promotion_tier", "id": "promo_welcome_10"}],
    [{"object": "voucher", "id": "GIFT-ALICE-50", "gift": {"credits": 300}}],
]


def history_sim(demo: dict[str, Any]) -> Simulator:
    """Three redemptions a minute apart (the first with two children), the first rolled back."""
    sim = Simulator.from_scenario(demo)
    with sim.client() as client:
        parents = []
        for i, redeemables in enumerate(REDEEMABLES):
            customer = "alice" if i != 1 else "bob"
            answer = client.redeem_stacked(customer={"source_id": customer}, redeemables=redeemables,
                                           order={"source_id": f"order-{i}", "amount": 8000})
            parents.append(answer)
            sim.advance(60)
        client.rollback_redemption((parents[0].parent_redemption or parents[0].redemptions[0]).id, reason="returned")
    return sim


@pytest.fixture(scope="module")
def recorded(_demo_document: dict[str, Any]) -> Simulator:
    return history_sim(copy.deepcopy(_demo_document))


def test_each_list_is_what_the_service_documents_and_parses(recorded: Simulator) -> None:
    assert_documented(recorded, "/v1/orders", "/v1/orders?limit=100", models.OrderList)
    assert_documented(recorded, "/v1/redemptions", "/v1/redemptions?limit=100", models.RedemptionList)


def test_the_lists_hold_what_was_recorded(recorded: Simulator) -> None:
    state = recorded.state
    orders = recorded.apply(BY_NAME["list_orders"], limit=100, order="created_at")
    assert [o.source_id for o in orders.orders] == ["order-0", "order-1", "order-2"]
    assert orders.total == len(state.orders) == 3
    listed = recorded.apply(BY_NAME["list_redemptions"], limit=100, order="created_at")
    ids = [r.id for r in listed.redemptions]
    assert sorted(ids) == sorted([*state.redemptions, *state.rollbacks])
    assert listed.total == len(ids) == len(set(ids))
    rollbacks = [r for r in listed.redemptions if isinstance(r, models.RedemptionRollback)]
    assert rollbacks and all(r.reason == "returned" for r in rollbacks)
    newest = recorded.apply(BY_NAME["list_redemptions"], limit=100)  # -created_at by default
    assert [r.id for r in newest.redemptions] == ids[::-1]


@settings(max_examples=25, deadline=None)
@given(limit=st.integers(1, 100), order=st.sampled_from(["created_at", "-id", "voucher_code", "-tracking_id",
                                                          "customer_id"]))
def test_walking_the_redemption_pages_meets_each_once(recorded: Simulator, limit: int, order: str) -> None:
    seen: list[str] = []
    for page in range(1, 100):
        answer = recorded.apply(BY_NAME["list_redemptions"], limit=limit, page=page, order=order)
        if not answer.redemptions:
            break
        seen += [r.id for r in answer.redemptions]
    assert sorted(seen) == sorted([*recorded.state.redemptions, *recorded.state.rollbacks])


@pytest.mark.parametrize(("query", "expected"), [
    ({"customer": "cust_bob"}, lambda r: r.customer_id == "cust_bob"),
    ({"campaign": "camp_gift"}, lambda r: r.redemption.campaign_id == "camp_gift"),
    ({"result": "FAILURE"}, lambda r: False),
    ({"result": "SUCCESS"}, lambda r: True),
    ({"created_after": "2026-03-06T10:01:00Z"}, lambda r: r.record.date.minute >= 1),
    ({"created_before": "2026-03-06T10:00:59Z"}, lambda r: r.record.date.minute < 1),
])
def test_the_redemption_filters(recorded: Simulator, query: dict[str, str], expected: Any) -> None:
    from promolab.sim.operations.history import _entries

    want = sorted(e.record.id for e in _entries(recorded.state) if expected(e if "customer" not in query else e.record))
    answer = recorded.apply(BY_NAME["list_redemptions"], limit=100, **query)
    assert sorted(r.id for r in answer.redemptions) == want
    assert answer.total == len(want)


@pytest.mark.parametrize(("name", "args", "param"), [
    ("list_redemptions", {"page": 100}, "page"), ("list_redemptions", {"order": "amount"}, "order"),
    ("list_redemptions", {"created_after": "last week"}, "created_at[after]"),
    ("list_orders", {"limit": 0}, "limit"), ("list_orders", {"order": "-id"}, "order"),
])
def test_bad_queries_are_refused_naming_the_parameter(recorded: Simulator, name: str, args: dict[str, Any],
                                                      param: str) -> None:
    with pytest.raises(InvalidQueryParams, match=re.escape(f"Query parameter {param} ")):
        recorded.apply(BY_NAME[name], **args)


def test_nothing_recorded_is_an_empty_list(sim: Simulator) -> None:
    assert sim.apply(BY_NAME["list_orders"]).model_dump(mode="json") == {
        "object": "list", "data_ref": "orders", "orders": [], "total": 0}
    assert sim.apply(BY_NAME["list_redemptions"]).total == 0
