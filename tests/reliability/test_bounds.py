"""Computed numbers stay within the bounds the served document declares, and
nesting of any depth is a 4xx: invariants over generated inputs, in-process
through `App.handle` (the same core `promolab serve` runs; the catalogue in
test_bad_inputs.py sends fixed cases of each kind to a served simulator too).

- Points earned: whatever an event's `amount` (ints of any size, floats up
  to 1e300) and whatever the card's balance, the event is either refused
  (400 `invalid_payload`, state byte-identical) exactly when the card would
  pass 2^63-1, or applied with the exact balance, and the member view keeps
  answering 200.
- Validation: items with prices and quantities anywhere in 0..2^63-1 are
  either refused (400 `invalid_payload`) exactly when a line's
  `price * quantity`, or the lines' sum standing as the order amount, passes
  2^63-1, or answered with a body the response model (hence the document's
  minimum/maximum) accepts. A UNIT tier's free units are checked likewise.
- Nesting: a body or a `filters` value nested to any depth is answered 400
  past 64 levels (or, for a query string, past its size bound first) and
  never 500.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from big_orders import big_orders
from promolab import Simulator, models
from promolab.http.app import MAX_JSON_DEPTH, App
from promolab.http.messages import HttpRequest
from promolab.http.query import MAX_QUERY_BYTES
from relsupport import APP_HEADERS, MANAGEMENT_HEADERS, demo_document

MAX = 2**63 - 1
APP = {k.lower(): v for k, v in APP_HEADERS.items()}
MANAGEMENT = {k.lower(): v for k, v in MANAGEMENT_HEADERS.items()}
EXAMPLES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def app() -> App:
    return App(Simulator.from_scenario(copy.deepcopy(demo_document())))


def post(app: App, path: str, body: bytes, query: str = "") -> tuple[int, dict[str, Any]]:
    response = app.handle(HttpRequest("POST", path, query, {**APP, "content-type": "application/json"}, body))
    assert response.status < 500, response.body[:300]
    return response.status, json.loads(response.body)


# -- points earned ---------------------------------------------------------------------------------
amounts = st.one_of(
    st.integers(0, 10**6),
    st.integers(0, 10**40),
    st.integers(MAX - 10**4, MAX + 10**4).map(lambda n: n * 100),
    st.floats(0, 1e300, allow_nan=False, allow_infinity=False),
)
balances = st.one_of(st.integers(0, 10**6), st.integers(MAX - 10**18, MAX), st.just(MAX))


@EXAMPLES
@given(amount=amounts, balance=balances)
def test_points_earned_never_pass_the_card_bound(app: App, amount: float, balance: int) -> None:
    """Frank's beans card earns 1 point per 100 of `order_placed.metadata.amount`."""
    card = app.sim.state.cards["lcrd_frank_beans"]
    card.balance = balance
    points = int(Decimal(repr(amount))) // 100 if isinstance(amount, float) else amount // 100
    before = app.sim.dump_json()
    body = json.dumps({"event": "order_placed", "customer": {"source_id": "frank"}, "metadata": {"amount": amount}})
    status, answer = post(app, "/v1/events", body.encode())
    if balance + points > MAX:
        assert (status, answer["key"]) == (400, "invalid_payload"), answer
        assert answer["resource_id"] == "lcrd_frank_beans"
        assert app.sim.dump_json() == before, "a refused event changed the state"
    else:
        assert status == 200, answer
        assert card.balance == balance + points
    view = app.handle(HttpRequest("GET", "/_sim/loyalty/members/lmbr_frank", "", MANAGEMENT))
    assert view.status == 200, view.body[:300]


# -- validation --------------------------------------------------------------------------------------
big = st.one_of(st.integers(1, 1_000), st.integers(2**60, MAX), st.sampled_from([MAX, 2**62, 10**10]))


validation_orders = big_orders(big, ["prod_mug", "prod_x"], unknown="prod_x", min_items=1)


def _over_the_bound(order: dict[str, Any]) -> bool:
    """What the simulator must refuse: a computed line amount, or the lines'
    sum standing as the order amount, past 2^63-1 (mug: 1,200 a unit)."""
    amounts = []
    for item in order["items"]:
        if "amount" in item:
            amounts.append(item["amount"])
        else:
            amounts.append(item.get("price", 1200) * int(item["quantity"]))
    return any(a > MAX for a in amounts) or ("amount" not in order and sum(amounts) > MAX)


@EXAMPLES
@given(order=validation_orders)
def test_validation_amounts_stay_within_the_document(app: App, order: dict[str, Any]) -> None:
    status, answer = post(app, "/v1/promotions/validation", json.dumps({"order": order}).encode())
    if _over_the_bound(order):
        assert (status, answer["key"]) == (400, "invalid_payload"), answer
        assert answer["details"].startswith("Property .order.items"), answer
    else:
        assert status == 200, answer
        models.ValidationResponse.model_validate(answer)  # minimum/maximum of every amount and quantity


def test_free_units_past_the_bound_are_refused() -> None:
    """The weekend tier adds a pack of filters (600) to every order: to an
    order amount at the bound, or to a line of 2^63-1 units, that is a 400,
    not an order past the bound; one unit below, it is answered."""
    sim = Simulator.from_scenario(copy.deepcopy(demo_document()))
    sim.advance(86400)  # Friday -> Saturday: the weekend campaign runs
    app = App(sim)
    filters = {"product_id": "prod_filters", "quantity": 1}
    cases = [
        ({"amount": MAX, "items": [filters]}, "Property .order: "),
        ({"amount": 1, "items": [{**filters, "quantity": MAX, "amount": 1}]}, "Property .order.items[0]: "),
        ({"amount": 1, "items": [{**filters, "amount": MAX}]}, "Property .order.items[0]: "),
    ]
    before = sim.dump_json()
    for order, details in cases:
        status, answer = post(app, "/v1/promotions/validation", json.dumps({"order": order}).encode())
        assert (status, answer["key"]) == (400, "invalid_payload"), (order, answer)
        assert answer["details"].startswith(details) and "UNIT" in answer["details"], answer
        assert answer["message"] == "Invalid payload"
    assert sim.dump_json() == before
    status, answer = post(app, "/v1/promotions/validation",
                          json.dumps({"order": {"amount": MAX - 600, "items": [filters]}}).encode())
    assert status == 200, answer
    weekend = [p for p in answer["promotions"] if p["id"] == "promo_weekend_filters"]
    assert weekend and weekend[0]["order"]["amount"] == MAX
    models.ValidationResponse.model_validate(answer)


# -- nesting ---------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(depth=st.one_of(st.integers(1, 2 * MAX_JSON_DEPTH), st.integers(1, 5000)))
def test_any_nesting_depth_is_a_4xx(app: App, depth: int) -> None:
    nested = "[" * depth + "]" * depth
    # the body: {"metadata": {"x": [[...]]}} is nested depth + 2 deep
    status, answer = post(app, "/v1/promotions/validation", ('{"metadata": {"x": ' + nested + "}}").encode())
    if depth + 2 > MAX_JSON_DEPTH:
        assert (status, answer["key"]) == (400, "invalid_payload") and "nested deeper" in answer["details"]
    else:
        assert status == 200, answer
    # the filters: {"a": [[...]]} is nested depth + 1 deep; any filter of that shape is refused,
    # and one whose query string passes the size bound is refused for that first
    query = "filters=" + quote('{"a": ' + nested + "}")
    status, answer = post(app, "/v1/promotions/validation", b"{}", query)
    assert (status, answer["key"]) == (400, "invalid_query_params")
    if len(query) > MAX_QUERY_BYTES:
        assert "query string is longer" in answer["details"], answer
    else:
        assert ("nested deeper" in answer["details"]) == (depth + 1 > MAX_JSON_DEPTH), answer
