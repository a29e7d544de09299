"""Why not: what stopped each redeemable, from the control API and as a DataFrame.

The explanation is the engine's; the tests check that it names the rule or
limit and what it saw, that the two ways of reading it agree, that the wire
answer of a validation never carries it, and that reading it changes nothing.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from promolab import Simulator
from promolab.analysis import (
    NOT_QUALIFIED_COLUMNS,
    WHY_NOT_COLUMNS,
    why_not_frame,
    why_not_qualified_frame,
)
from promolab.client import ApiError

DEMO = "data/scenarios/demo.yaml"
MUGS = {"items": [{"product_id": "prod_mug", "quantity": 5}]}  # $60.00


def _request(*redeemables: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"redeemables": list(redeemables), "order": MUGS, **extra}


CODE = {"object": "voucher", "id": "WELCOME-ALICE"}  # $5.00 off
WELCOME_10 = {"object": "promotion_tier", "id": "promo_welcome_10"}  # $10.00 off orders over $50.00


@pytest.mark.parametrize(("request_", "rules", "rows"), [
    # applied: no key, no explanation
    (_request(CODE, WELCOME_10), {}, [("APPLICABLE", 500, None), ("APPLICABLE", 1000, None)]),
    # unknown code
    (_request(CODE, {"object": "voucher", "id": "NOPE"}), {"redeemables_application_mode": "PARTIAL"},
     [("APPLICABLE", 500, None), ("INAPPLICABLE", 0, "not_found")]),
    # the limit of one applied redeemable
    (_request(CODE, WELCOME_10), {"applicable_redeemables_limit": 1, "applicable_redeemables_per_category_limit": 1},
     [("APPLICABLE", 500, None), ("SKIPPED", 0, "applicable_redeemables_limit_exceeded")]),
    # all or nothing: after an inapplicable one, the rest is skipped
    (_request({"object": "voucher", "id": "NOPE"}, CODE), {},
     [("INAPPLICABLE", 0, "not_found"), ("SKIPPED", 0, "preceding_validation_failed")]),
])
def test_each_redeemable_says_what_stopped_it(request_: dict[str, Any], rules: dict[str, Any],
                                               rows: list[tuple[str, int, str | None]]) -> None:
    sim = Simulator.from_scenario(DEMO)
    with sim.client() as client:
        if rules:
            client.create_stacking_rules(sim.state.project.id, **rules)
        data = client.control.why_not(request_)["data"]
    assert [(r["status"], r["applied"], r["key"]) for r in data] == rows
    for row in data:
        assert list(row) == list(WHY_NOT_COLUMNS)
        assert (row["why"] is None) is (row["status"] == "APPLICABLE")


def test_the_explanation_names_the_rule_and_the_running_amount_it_saw() -> None:
    """$60.00 of mugs: the $5.00 code leaves $55.00, a $10.00 gift card $45.00;
    the $10-off-orders-over-$50 tier, tried third, sees $45.00 and fails, and
    the explanation says what it saw."""
    sim = Simulator.from_scenario(DEMO)
    gift = {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 1000}}
    with sim.client() as client:
        client.create_stacking_rules(sim.state.project.id, redeemables_application_mode="PARTIAL")
        rows = client.control.why_not(_request(CODE, gift, WELCOME_10))["data"]
    tier = rows[2]
    assert (tier["status"], tier["key"]) == ("INAPPLICABLE", "order_rules_violated")
    assert tier["message"] == "order.amount must be more than 5000"
    assert "4500" in tier["why"] and "2 redeemable(s) tried before it" in tier["why"]


def test_the_frame_is_the_control_answer_with_dtypes_and_reading_changes_nothing() -> None:
    sim = Simulator.from_scenario(DEMO)
    request = _request(CODE, {"object": "voucher", "id": "NOPE"})
    before = sim.dump()
    frame = why_not_frame(sim, request)
    with sim.client() as client:
        served = client.control.why_not(request)["data"]
    assert sim.dump() == before
    assert list(frame.columns) == list(WHY_NOT_COLUMNS)
    assert frame["applied"].dtype == "Int64" and frame["status"].dtype == "string"  # counts: Int64 (docs/analysis.md)
    expected = pd.DataFrame(served, columns=list(WHY_NOT_COLUMNS)).astype(frame.dtypes.to_dict())
    pd.testing.assert_frame_equal(frame, expected)


def test_the_wire_answer_never_carries_the_explanation() -> None:
    sim = Simulator.from_scenario(DEMO)
    with sim.client() as client:
        client.create_stacking_rules(sim.state.project.id, redeemables_application_mode="PARTIAL")
        answer = client.validate_stacked(_request(CODE, {"object": "voucher", "id": "NOPE"}))
    text = answer.model_dump_json()
    assert '"why"' not in text and "tried before it" not in text


def test_a_bad_request_is_refused_like_a_validation() -> None:
    sim = Simulator.from_scenario(DEMO)
    with sim.client() as client, pytest.raises(ApiError) as caught:
        client.control.why_not({"redeemables": []})
    assert (caught.value.status, caught.value.key) == (400, "invalid_payload")


def test_what_a_qualification_left_out_and_why() -> None:
    """Without a customer, the VIP tier (customer rules) is left out for that;
    the served list and the frame agree, and the qualification's own answer
    never names what it left out."""
    sim = Simulator.from_scenario(DEMO)
    request = {"order": MUGS, "options": {"limit": 50}}
    frame = why_not_qualified_frame(sim, request)
    with sim.client() as client:
        served = client.control.why_not_qualified(request)["data"]
        answer = client.qualifications(request)
    assert list(frame.columns) == list(NOT_QUALIFIED_COLUMNS)
    assert frame.to_dict("records") == served
    left_out = {row["id"]: row["key"] for row in served}
    assert left_out["promo_vip_10pct"] == "customer_rules_violated"
    returned = {r.id for r in answer.redeemables.data}
    assert not returned & set(left_out)
    assert "customer_rules_violated" not in answer.model_dump_json()
