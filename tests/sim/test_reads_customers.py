"""The customers read endpoints: the list (pages, cursor, filters, order) and one customer.

Answers validate against the service's published schema (tests/data/) and
parse with promolab's model; a customer's summary counts what the simulator
recorded for it; a walk over pages and the `starting_after` cursor meets
every one of 10,000 customers exactly once.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reads_catalogue import assert_documented
from test_reads_history import history_sim

from demo_keys import APP, BASE
from promolab import Simulator, models
from promolab.http import SimulatorTransport
from promolab.sim import InvalidQueryParams
from promolab.sim.operations import BY_NAME

LIST, GET = BY_NAME["list_customers"], BY_NAME["get_customer"]
START = datetime(2026, 3, 6, 10, 0, tzinfo=UTC)


def crowd(count: int) -> Simulator:
    """`count` customers, each created a second after the one before, every fourth tying with the one before."""
    sim = Simulator.from_scenario({"customers": [{"id": f"cust_{i:05d}", "source_id": f"c-{count - i:05d}",
                                                  "name": f"Customer {i}", "email": f"c{i}@example.com"}
                                                 for i in range(count)]})
    second = 0
    for i, record in enumerate(sim.state.customers.values()):
        second += 0 if i % 4 == 3 else 1
        record.created_at = START + timedelta(seconds=second)
    return sim


@pytest.fixture(scope="module")
def recorded(_demo_document: dict[str, Any]) -> Simulator:
    return history_sim(copy.deepcopy(_demo_document))


@pytest.mark.parametrize(("template", "path", "model"), [
    ("/v1/customers", "/v1/customers?limit=100", models.CustomerList),
    ("/v1/customers/{customerId}", "/v1/customers/alice", models.CustomerProfile),
])
def test_an_answer_is_what_the_service_documents_and_parses(
    recorded: Simulator, template: str, path: str, model: type[models.WireModel]
) -> None:
    assert_documented(recorded, template, path, model)


def test_a_customers_summary_counts_what_was_recorded(recorded: Simulator) -> None:
    """history_sim: alice redeemed a code and a gift card (500 credits) in
    order-0, rolled back, then a gift card (300 credits) in order-2; bob a tier in order-1."""
    alice = recorded.apply(GET, customer_id="alice").summary
    assert (alice.redemptions.total_redeemed, alice.redemptions.total_rolled_back) == (3, 2)
    assert alice.redemptions.gift == {"redeemed_amount": 300, "amount_to_go": 0}
    assert (alice.orders.total_count, alice.orders.total_amount, alice.orders.average_amount) == (2, 16000, 8000)
    assert alice.orders.last_order_date is not None
    bob = recorded.apply(GET, customer_id="cust_bob").summary
    assert (bob.redemptions.total_redeemed, bob.orders.total_count) == (1, 1)
    erin = recorded.apply(GET, customer_id="erin").summary
    assert (erin.redemptions.total_redeemed, erin.orders.total_count, erin.orders.last_order_date) == (0, 0, None)


WALKED = crowd(1000)


@settings(max_examples=30, deadline=None)
@given(limit=st.integers(11, 100), order=st.sampled_from(["created_at", "-created_at", "source_id", "-source_id"]))
def test_walking_the_pages_meets_every_customer_once(limit: int, order: str) -> None:
    seen: list[str] = []
    for page in range(1, 100):
        answer = WALKED.apply(LIST, limit=limit, page=page, order=order)
        seen += [c.id for c in answer.customers]
        if not answer.has_more:
            break
    assert len(seen) == len(set(seen)) == 1000 and answer.total == 1000


def test_ten_thousand_customers_through_pages_then_the_cursor() -> None:
    """Page 99 of 100 is as far as pages go (9,900 customers); the cursor,
    the creation time of the last one seen, brings the rest, oldest first."""
    sim = crowd(10_000)
    seen: list[str] = []
    for page in range(1, 100):
        seen += [c.id for c in sim.apply(LIST, limit=100, page=page, order="created_at").customers]
    last = sim.state.customers[seen[-1]].created_at
    assert last is not None
    rest = sim.apply(LIST, limit=100, order="created_at", starting_after=last.isoformat())
    seen += [c.id for c in rest.customers]
    assert len(seen) == len(set(seen)) == 10_000
    assert rest.has_more is False and rest.total == 100


@pytest.mark.parametrize(("query", "expected"), [
    ({"email": "bob@example.com"}, ["cust_bob"]),
    ({"name": "Carol Lindqvist"}, ["cust_carol"]),
    ({"segment_id": "seg_vip"}, ["cust_alice", "cust_dave"]),
    ({"segment_id": "seg_nope"}, []),
    ({"city": "Paris"}, []),
    ({"created_after": "2027-01-01T00:00:00Z"}, []),
])
def test_the_filters(sim: Simulator, query: dict[str, str], expected: list[str]) -> None:
    answer = sim.apply(LIST, order="created_at", limit=100, **query)
    assert [c.id for c in answer.customers] == expected
    assert (answer.total, answer.has_more) == (len(expected), False)


@pytest.mark.parametrize(("args", "param"), [
    ({"page": 100}, "page"), ({"limit": 0}, "limit"), ({"order": "email"}, "order"),
    ({"starting_after": "soon"}, "starting_after"), ({"updated_before": "2026-13-01T00:00:00Z"}, "updated_at"),
])
def test_bad_queries_are_refused_naming_the_parameter(sim: Simulator, args: dict[str, Any], param: str) -> None:
    with pytest.raises(InvalidQueryParams, match=f"Query parameter {param}"):
        sim.apply(LIST, **args)


def test_an_unknown_customer_is_404(sim: Simulator) -> None:
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(sim)) as http:
        response = http.get("/v1/customers/cust_nope", headers=APP)
    assert (response.status_code, response.json()["key"], response.json()["resource_type"]) == (
        404, "not_found", "customer")
