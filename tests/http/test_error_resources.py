"""Every error about one resource names it: `resource_id` and `resource_type`.

The interface's error body lists `resource_id` and `resource_type`; promolab
fills them whenever the state of one resource is why a request is refused
(it is unknown, in use, of the wrong kind, already taken, inactive, ...). A
refusal of the request's own values (its shape, a non-positive amount,
metadata against the event schema, publishing neither a voucher nor a
campaign) names no resource. Each case runs over the HTTP face and must leave
the state as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from demo_keys import APP, LOYALTY
from promolab import Simulator
from promolab.http import SimulatorTransport

PURCHASE = "/v2/loyalties/programs/lprg_coffee_club/members/{member}/rewards/purchases"
INT64_MAX = 2**63 - 1


def voucher_id(code: str) -> Callable[[Simulator], str]:
    return lambda sim: sim.indexes.voucher_by_code[code]


def publication_with_source(source_id: str) -> Callable[[Simulator], str]:
    return lambda sim: next(p.id for p in sim.state.publications.values() if p.source_id == source_id)


def _publish(http: httpx.Client, body: dict[str, Any]) -> None:
    assert http.post("/client/v1/publish", headers=APP, json=body).status_code == 200


def _deactivate_voucher(code: str) -> Callable[[Simulator, httpx.Client], None]:
    def setup(sim: Simulator, http: httpx.Client) -> None:
        sim.state.vouchers[sim.indexes.voucher_by_code[code]].active = False

    return setup


def _deactivate_campaign(campaign_id: str) -> Callable[[Simulator, httpx.Client], None]:
    def setup(sim: Simulator, http: httpx.Client) -> None:
        sim.state.campaigns[campaign_id].active = False

    return setup


def _publish_first(sim: Simulator, http: httpx.Client) -> None:
    _publish(http, {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}, "source_id": "signup-1"})


def _take_every_welcome_code(sim: Simulator, http: httpx.Client) -> None:
    for customer in ("cust_carol", "cust_dave"):
        _publish(http, {"campaign": {"id": "camp_welcome_codes"}, "customer": {"id": customer}})


def _free_ref_code(sim: Simulator) -> str:
    """A code of the referral pool, which nobody holds yet."""
    return next(
        v.code for v in sim.state.vouchers.values()
        if v.campaign_id == "camp_referral" and v.holder_id is None
    )


def _event(referral: Any = None, *, source_id: str = "erin", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "event": "first_order_placed", "customer": {"source_id": source_id}, "metadata": {"amount": 1},
    }
    if referral is not None:
        body["referral"] = referral
    return {**body, **extra}


Setup = Callable[[Simulator, httpx.Client], None] | None
Expected = str | Callable[[Simulator], str] | None
#: (case, setup, method, path, body, status, key, resource_type, resource_id).
#: resource_type None: the error names no resource (and has no resource_id).
CASES: list[tuple[str, Setup, str, str, Any, int, str, str | None, Expected]] = [
    # -- loyalty
    ("reward in use", None, "DELETE", "/v2/loyalties/rewards/lrew_mug", None,
     400, "resource_in_use", "reward", "lrew_mug"),
    ("unknown reward", None, "DELETE", "/v2/loyalties/rewards/lrew_nope", None,
     404, "not_found", "reward", "lrew_nope"),
    ("reward not assigned", None, "POST", PURCHASE.format(member="lmbr_bob"), {"reward_id": "lrew_retired"},
     400, "reward_not_assigned", "reward", "lrew_retired"),
    ("inactive member", None, "POST", PURCHASE.format(member="lmbr_carol"), {"reward_id": "lrew_mug"},
     423, "non_active_member", "member", "lmbr_carol"),
    ("card short of points", None, "POST", PURCHASE.format(member="lmbr_bob"), {"reward_id": "lrew_mug"},
     423, "insufficient_card_balance", "card", "lcrd_bob_beans"),
    ("a body without reward", None, "POST", PURCHASE.format(member="lmbr_bob"), {}, 400, "invalid_payload", None, None),
    # -- publishing
    ("id and source_id of two customers", None, "POST", "/client/v1/publish",
     {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_alice", "source_id": "bob"}},
     400, "invalid_customer", "customer", "cust_alice"),
    ("campaign id under another name", None, "POST", "/client/v1/publish",
     {"campaign": {"id": "camp_newsletter", "name": "Welcome $5 codes"}, "customer": {"id": "cust_bob"}},
     400, "invalid_campaign", "campaign", "camp_newsletter"),
    ("code outside the named campaign", None, "POST", "/client/v1/publish",
     {"voucher": "WELCOME-OPEN-1", "campaign": {"id": "camp_newsletter"}, "customer": {"id": "cust_bob"}},
     400, "invalid_publish_params", "voucher", voucher_id("WELCOME-OPEN-1")),
    ("source_id of another publication", _publish_first, "POST", "/client/v1/publish",
     {"voucher": "WELCOME-OPEN-2", "customer": {"id": "cust_bob"}, "source_id": "signup-1"},
     400, "duplicate_source_id", "publication", publication_with_source("signup-1")),
    ("campaign without free code", _take_every_welcome_code, "POST", "/client/v1/publish",
     {"campaign": {"id": "camp_welcome_codes"}, "customer": {"id": "cust_erin"}},
     400, "no_voucher_suitable_for_publication", "campaign", "camp_welcome_codes"),
    ("code of another customer", None, "POST", "/client/v1/publish",
     {"voucher": "WELCOME-ALICE", "customer": {"id": "cust_bob"}},
     400, "voucher_already_published", "voucher", voucher_id("WELCOME-ALICE")),
    ("inactive code", _deactivate_voucher("WELCOME-OPEN-1"), "POST", "/client/v1/publish",
     {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}},
     400, "voucher_cannot_be_published", "voucher", voucher_id("WELCOME-OPEN-1")),
    ("inactive campaign", _deactivate_campaign("camp_newsletter"), "POST", "/client/v1/publish",
     {"campaign": {"id": "camp_newsletter"}, "customer": {"id": "cust_bob"}},
     400, "voucher_cannot_be_published", "campaign", "camp_newsletter"),
    ("unknown code", None, "POST", "/client/v1/publish", {"voucher": "NOPE", "customer": {"id": "cust_bob"}},
     404, "not_found", "voucher", "NOPE"),
    ("neither voucher nor campaign", None, "POST", "/client/v1/publish", {"customer": {"id": "cust_bob"}},
     400, "missing_vouchers", None, None),
    # -- custom events and referrals
    ("the referrer's own code", None, "POST", "/v1/events", _event({"code": "REF-ALICE"}, source_id="alice"),
     400, "referrer_not_permitted_to_redeem", "voucher", voucher_id("REF-ALICE")),
    ("not a referral code", None, "POST", "/v1/events", _event({"code": "WELCOME-ALICE"}),
     400, "invalid_voucher", "voucher", voucher_id("WELCOME-ALICE")),
    ("another customer's card", None, "POST", "/v1/events",
     {"event": "review_written", "customer": {"source_id": "alice"}, "metadata": {"rating": 5},
      "loyalty": {"code": "lcrd_bob_beans"}},
     400, "invalid_customer", "loyalty_card", "lcrd_bob_beans"),
    ("metadata out of the schema", None, "POST", "/v1/events",
     {"event": "review_written", "customer": {"source_id": "bob"}, "metadata": {"rating": 9}},
     400, "metadata_validation_failed", None, None),
    # -- gift balance
    ("not a gift card", None, "POST", "/v1/vouchers/WELCOME-ALICE/balance", {"amount": 100},
     400, "invalid_voucher", "voucher", voucher_id("WELCOME-ALICE")),
    ("a credit past 64 bits", None, "POST", "/v1/vouchers/GIFT-BOB-25/balance", {"amount": INT64_MAX},
     400, "invalid_add_balance_params", "voucher", voucher_id("GIFT-BOB-25")),
    ("a zero credit", None, "POST", "/v1/vouchers/GIFT-BOB-25/balance", {"amount": 0},
     400, "invalid_add_balance_params", None, None),
]


@pytest.mark.parametrize(
    ("setup", "method", "path", "body", "status", "key", "resource_type", "resource_id"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_an_error_names_the_resource_at_fault(
    sim: Simulator, setup: Setup, method: str, path: str, body: Any, status: int, key: str,
    resource_type: str | None, resource_id: Expected,
) -> None:
    with httpx.Client(base_url="http://promolab.local", transport=SimulatorTransport(sim)) as http:
        if setup is not None:
            setup(sim, http)
        before = sim.dump_json()
        headers = LOYALTY if path.startswith("/v2/") else APP
        response = http.request(method, path, headers=headers, json=body)
    error = response.json()
    assert (response.status_code, error["code"], error["key"]) == (status, status, key), error
    if resource_type is None:
        assert "resource_type" not in error and "resource_id" not in error, error
    else:
        expected_id = resource_id(sim) if callable(resource_id) else resource_id
        assert (error.get("resource_type"), error.get("resource_id")) == (resource_type, expected_id), error
    assert sim.dump_json() == before  # a refusal changes nothing


def test_resource_in_use_names_the_reward_and_what_holds_it(sim: Simulator) -> None:
    with httpx.Client(base_url="http://promolab.local", transport=SimulatorTransport(sim)) as http:
        error = http.delete("/v2/loyalties/rewards/lrew_mug", headers=LOYALTY).json()
    assert list(error) == [
        "code", "key", "message", "details", "request_id",
        "resource_id", "resource_type", "related_object_ids", "related_object_type", "related_object_total",
    ]
    assert error["resource_id"] == "lrew_mug" and error["resource_type"] == "reward"
    assert error["related_object_ids"] == ["lrewa_mug", "lrewa_legacy_mug"]
    assert (error["related_object_type"], error["related_object_total"]) == ("reward_assignment", 2)


def test_a_referral_code_not_yet_published_names_the_code(sim: Simulator) -> None:
    code = _free_ref_code(sim)
    with httpx.Client(base_url="http://promolab.local", transport=SimulatorTransport(sim)) as http:
        error = http.post("/v1/events", headers=APP, json=_event({"code": code})).json()
    assert (error["key"], error["resource_type"], error["resource_id"]) == (
        "not_published", "voucher", sim.indexes.voucher_by_code[code],
    )


@pytest.mark.parametrize(
    ("campaign_id", "why"),
    [("camp_newsletter", "a DISCOUNT_COUPONS campaign"), ("camp_gift", "an inactive gift campaign")],
)
def test_a_gift_card_from_the_wrong_campaign_names_it(sim: Simulator, campaign_id: str, why: str) -> None:
    """`issue_gift_voucher` (loyalty gift rewards, referral gift credits)."""
    from promolab.sim.gift import issue_gift_voucher
    from promolab.sim.refusals import SimError

    sim.state.campaigns["camp_gift"].active = False
    with pytest.raises(SimError) as caught:
        issue_gift_voucher(sim, campaign_id=campaign_id, customer_id="cust_bob", balance=100)
    body = caught.value.body()
    assert (body["key"], body["resource_type"], body["resource_id"]) == ("invalid_campaign", "campaign", campaign_id)
