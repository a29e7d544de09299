"""POST /client/v1/publish: publications, join_once, source_id retries, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promolab import ApiError, Simulator, models
from promolab.sim.operations.publishing import PUBLISH
from promolab.sim.publishing import publish_to_customer
from promolab.sim.refusals import SimError

DEMO = Path(__file__).parents[2] / "data" / "scenarios" / "demo.yaml"


@pytest.fixture(scope="module")
def demo_snapshot() -> dict[str, Any]:
    return Simulator.from_scenario(DEMO).snapshot()


@pytest.fixture
def sim(demo_snapshot: dict[str, Any]) -> Simulator:
    return Simulator.restore(demo_snapshot)


def voucher(sim: Simulator, code: str) -> Any:
    return sim.state.vouchers[sim.indexes.voucher_by_code[code]]


def publish(sim: Simulator, request: dict[str, Any], *, join_once: bool = False) -> models.Publication:
    """The publish operation, run on the simulator itself (no HTTP)."""
    return sim.apply(PUBLISH, request=request, join_once=join_once)


def refused(sim: Simulator, request: dict[str, Any], *, join_once: bool = False) -> SimError:
    before = sim.dump_json()
    with pytest.raises(SimError) as caught:
        publish(sim, request, join_once=join_once)
    assert sim.dump_json() == before, "a refused publication changed the state"
    return caught.value


# -- the publication object ---------------------------------------------------------------------
def test_publishing_a_campaign_code_returns_the_full_publication(sim: Simulator) -> None:
    pub = publish(sim, {"customer": {"id": "cust_bob"}, "campaign": {"id": "camp_newsletter"}})
    body = pub.model_dump(mode="json")
    assert body["id"].startswith("pub_")
    assert body["object"] == "publication"
    assert body["created_at"] == "2026-03-06T10:00:00.000Z"
    assert body["customer_id"] == "cust_bob"
    assert body["tracking_id"] == "bob"
    assert body["metadata"] == {}
    assert body["channel"] == "API"
    assert body["source_id"] is None
    assert body["result"] == "SUCCESS"
    assert body["customer"] == {
        "id": "cust_bob", "name": "Bob Okafor", "email": "bob@example.com", "source_id": "bob",
        "metadata": {"tier": "silver", "region": "EU", "newsletter": False, "orders": 5}, "object": "customer",
    }
    v = body["voucher"]
    code = v["code"]
    assert code.startswith("NEWS-")
    assert body["vouchers_id"] == [v["id"]]
    assert v["campaign"] == "Newsletter 10% coupons" and v["campaign_id"] == "camp_newsletter"
    assert v["type"] == "DISCOUNT_VOUCHER"
    assert v["discount"] == {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ORDER"}
    assert v["holder_id"] == "cust_bob"
    assert v["is_referral_code"] is False and v["active"] is True
    assert v["redemption"] == {
        "quantity": 0, "redeemed_quantity": 0, "object": "list",
        "url": f"/v1/vouchers/{code}/redemptions?page=1&limit=10",
    }
    assert v["publish"] == {"object": "list", "count": 1, "url": f"/v1/vouchers/{code}/publications?page=1&limit=10"}
    for kind in ("qr", "barcode"):
        asset = v["assets"][kind]
        assert asset["id"].startswith("U2FsdGVk") and asset["url"].endswith(f"/{kind}/{asset['id']}")
    assert v["assets"]["qr"]["id"] != v["assets"]["barcode"]["id"]
    for key in ("category", "category_id", "gift", "loyalty_card", "start_date", "expiration_date",
                "validity_timeframe", "validity_day_of_week", "additional_info"):
        assert key in v and v[key] is None
    # the state follows
    record = voucher(sim, code)
    assert record.holder_id == "cust_bob" and record.publish_count == 1
    assert sim.state.publications[body["id"]].voucher_id == record.id


def test_first_free_code_in_creation_order(sim: Simulator) -> None:
    first = publish(sim, {"customer": {"id": "cust_bob"}, "campaign": {"id": "camp_welcome_codes"}})
    second = publish(sim, {"customer": {"id": "cust_carol"}, "campaign": {"name": "Welcome $5 codes"}})
    assert (first.voucher.code, second.voucher.code) == ("WELCOME-OPEN-1", "WELCOME-OPEN-2")


def test_campaign_codes_are_taken_in_order_around_named_and_inactive_ones(sim: Simulator) -> None:
    pool = [v.code for v in sim.state.vouchers.values() if v.campaign_id == "camp_newsletter"]

    def next_code(i: int) -> str:
        return publish(sim, {"customer": {"source_id": f"p{i}"}, "campaign": {"id": "camp_newsletter"}}).voucher.code

    publish(sim, {"voucher": pool[1], "customer": {"source_id": "named"}})
    voucher(sim, pool[3]).active = False
    assert [next_code(i) for i in range(3)] == [pool[0], pool[2], pool[4]]
    voucher(sim, pool[3]).active = True  # an inactive code that comes back is free again
    assert next_code(3) == pool[3]
    assert next_code(4) == pool[5]


def test_publishing_a_named_code(sim: Simulator) -> None:
    pub = publish(sim, {"voucher": "WELCOME-OPEN-2", "customer": {"source_id": "frank"}})
    assert pub.customer_id == "cust_frank"
    assert pub.voucher.code == "WELCOME-OPEN-2" and pub.voucher.holder_id == "cust_frank"
    assert voucher(sim, "WELCOME-OPEN-2").holder_id == "cust_frank"


def test_channel_and_metadata_are_kept(sim: Simulator) -> None:
    pub = publish(sim, {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"},
                        "channel": "Newsletter March", "metadata": {"batch": 3}})
    assert pub.channel == "Newsletter March" and pub.metadata == {"batch": 3}
    stored = sim.state.publications[pub.id]
    assert stored.channel == "Newsletter March" and stored.metadata == {"batch": 3}


def test_unknown_source_id_creates_the_customer(sim: Simulator) -> None:
    before = len(sim.state.customers)
    pub = publish(sim, {"voucher": "WELCOME-OPEN-1",
                        "customer": {"source_id": "zoe", "name": "Zoe Park", "email": "zoe@example.com"}})
    assert len(sim.state.customers) == before + 1
    created = sim.state.customers[pub.customer_id]
    assert created.id.startswith("cust_") and created.source_id == "zoe"
    assert (created.name, created.email) == ("Zoe Park", "zoe@example.com")
    assert pub.customer.name == "Zoe Park" and pub.tracking_id == "zoe"
    assert sim.indexes.customer_by_source["zoe"] == created.id
    # the next request by source_id finds the same customer
    again = publish(sim, {"voucher": "WELCOME-OPEN-2", "customer": {"source_id": "zoe"}})
    assert again.customer_id == created.id and len(sim.state.customers) == before + 1


def test_republishing_a_code_to_its_holder_counts_a_publication(sim: Simulator) -> None:
    first = publish(sim, {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}})
    second = publish(sim, {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}})
    assert first.id != second.id
    assert second.voucher.publish.count == 2 and second.voucher.holder_id == "cust_bob"
    assert voucher(sim, "WELCOME-OPEN-1").publish_count == 2


def test_publish_count_and_holder_match_the_publications(sim: Simulator) -> None:
    publish(sim, {"customer": {"id": "cust_bob"}, "campaign": {"id": "camp_welcome_codes"}})
    publish(sim, {"customer": {"id": "cust_carol"}, "campaign": {"id": "camp_welcome_codes"}})
    publish(sim, {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}})
    for _ in range(3):
        publish(sim, {"customer": {"source_id": "x"}, "campaign": {"id": "camp_newsletter"}})
    for record in sim.state.vouchers.values():
        pubs = [p for p in sim.state.publications.values() if p.voucher_id == record.id]
        if not pubs:
            continue
        assert record.publish_count == len(pubs), record.code
        assert {p.customer_id for p in pubs} == {record.holder_id}, record.code


# -- join_once -------------------------------------------------------------------------------------
def test_join_once_query_flag_always_gives_the_same_code(sim: Simulator) -> None:
    request = {"customer": {"id": "cust_bob"}, "campaign": {"id": "camp_welcome_codes"}}
    first = publish(sim, request, join_once=True)
    dump = sim.dump_json()
    for _ in range(3):
        again = publish(sim, request, join_once=True)
        assert again == first
    assert sim.dump_json() == dump
    # without the flag this (non-join_once) campaign hands out another code
    other = publish(sim, request)
    assert other.voucher.code != first.voucher.code


def test_campaign_join_once_gives_the_same_code_without_the_flag(sim: Simulator) -> None:
    request = {"customer": {"source_id": "newcomer"}, "campaign": {"id": "camp_newsletter"}}
    first = publish(sim, request)
    dump = sim.dump_json()
    assert publish(sim, request) == first
    assert publish(sim, request, join_once=True) == first  # flag and campaign setting agree
    assert sim.dump_json() == dump
    codes = [v for v in sim.state.vouchers.values() if v.campaign_id == "camp_newsletter" and v.holder_id]
    assert [v.code for v in codes] == [first.voucher.code]


def test_join_once_flag_then_campaign_setting(sim: Simulator) -> None:
    first = publish(sim, {"customer": {"id": "cust_dave"}, "campaign": {"id": "camp_newsletter"}}, join_once=True)
    second = publish(sim, {"customer": {"id": "cust_dave"}, "campaign": {"id": "camp_newsletter"}})
    assert second.id == first.id and second.voucher.code == first.voucher.code


def test_join_once_keeps_a_code_held_from_the_scenario(sim: Simulator) -> None:
    # Alice holds WELCOME-ALICE (scenario `holder:`), without a publication record.
    pub = publish(sim, {"customer": {"id": "cust_alice"}, "campaign": {"id": "camp_welcome_codes"}}, join_once=True)
    assert pub.voucher.code == "WELCOME-ALICE"
    assert publish(sim, {"customer": {"id": "cust_alice"}, "campaign": {"id": "camp_welcome_codes"}},
                        join_once=True).id == pub.id


def test_join_once_with_a_named_code_returns_the_customers_code(sim: Simulator) -> None:
    first = publish(sim, {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}}, join_once=True)
    again = publish(sim, {"voucher": "WELCOME-OPEN-2", "customer": {"id": "cust_bob"}}, join_once=True)
    assert again.id == first.id and again.voucher.code == "WELCOME-OPEN-1"
    assert voucher(sim, "WELCOME-OPEN-2").holder_id is None


# -- source_id ---------------------------------------------------------------------------------------
def test_source_id_retry_returns_the_stored_publication(sim: Simulator) -> None:
    request = {"customer": {"source_id": "retry-me", "name": "R"}, "campaign": {"id": "camp_welcome_codes"},
               "source_id": "pub-001", "metadata": {"a": 1}}
    first = publish(sim, request)
    dump = sim.dump_json()
    again = publish(sim, request)
    assert again == first
    assert again.model_dump_json() == first.model_dump_json()
    assert sim.dump_json() == dump
    # metadata/channel are not part of the identity: still the stored one
    assert publish(sim, {**request, "metadata": {"a": 2}}) == first
    assert sim.dump_json() == dump


def test_source_id_retry_of_a_named_code(sim: Simulator) -> None:
    request = {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}, "source_id": "s-1"}
    first = publish(sim, request)
    dump = sim.dump_json()
    assert publish(sim, request) == first
    assert sim.dump_json() == dump
    assert voucher(sim, "WELCOME-OPEN-1").publish_count == 1


@pytest.mark.parametrize(
    "second",
    [
        {"customer": {"id": "cust_carol"}, "campaign": {"id": "camp_welcome_codes"}},  # other customer
        {"customer": {"source_id": "brand-new"}, "campaign": {"id": "camp_welcome_codes"}},  # new customer
        {"customer": {"id": "cust_bob"}, "campaign": {"id": "camp_newsletter"}},  # other campaign
        {"customer": {"id": "cust_bob"}, "voucher": "WELCOME-OPEN-2"},  # a code instead
    ],
)
def test_source_id_reused_with_other_parameters(sim: Simulator, second: dict[str, Any]) -> None:
    publish(sim, {"customer": {"id": "cust_bob"}, "campaign": {"id": "camp_welcome_codes"}, "source_id": "dup"})
    error = refused(sim, {**second, "source_id": "dup"})
    assert (error.status, error.key) == (400, "duplicate_source_id")
    assert "dup" in error.details


# -- refusals -----------------------------------------------------------------------------------------
def _exhaust_welcome(sim: Simulator) -> None:
    publish(sim, {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}})
    publish(sim, {"voucher": "WELCOME-OPEN-2", "customer": {"id": "cust_carol"}})


def _deactivate_voucher(sim: Simulator) -> None:
    voucher(sim, "WELCOME-OPEN-1").active = False


def _deactivate_campaign(sim: Simulator) -> None:
    sim.state.campaigns["camp_welcome_codes"].active = False


ERROR_CASES: list[tuple[str, Any, dict[str, Any], bool, int, str, dict[str, str]]] = [
    # (name, setup, request, join_once, status, key, extra error fields)
    ("already published", None, {"voucher": "WELCOME-ALICE", "customer": {"id": "cust_bob"}}, False,
     400, "voucher_already_published", {}),
    ("already published, new customer", None, {"voucher": "WELCOME-ALICE", "customer": {"source_id": "new"}},
     False, 400, "voucher_already_published", {}),
    ("no free code", _exhaust_welcome, {"campaign": {"id": "camp_welcome_codes"}, "customer": {"id": "cust_dave"}},
     False, 400, "no_voucher_suitable_for_publication", {}),
    ("no code in a promotion campaign", None, {"campaign": {"id": "camp_welcome"}, "customer": {"id": "cust_dave"}},
     False, 400, "no_voucher_suitable_for_publication", {}),
    ("unknown voucher", None, {"voucher": "NOPE", "customer": {"id": "cust_bob"}}, False,
     404, "not_found", {"resource_id": "NOPE", "resource_type": "voucher"}),
    ("unknown campaign id", None, {"campaign": {"id": "camp_nope"}, "customer": {"id": "cust_bob"}}, False,
     404, "not_found", {"resource_id": "camp_nope", "resource_type": "campaign"}),
    ("unknown campaign name", None, {"campaign": {"name": "Nope"}, "customer": {"source_id": "new"}}, False,
     404, "not_found", {"resource_id": "Nope", "resource_type": "campaign"}),
    ("unknown customer id", None, {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_nope"}}, False,
     404, "not_found", {"resource_id": "cust_nope", "resource_type": "customer"}),
    ("no customer identifier", None, {"voucher": "WELCOME-OPEN-1", "customer": {"name": "Anon"}}, False,
     400, "invalid_payload", {}),
    ("no customer at all", None, {"voucher": "WELCOME-OPEN-1"}, False, 400, "invalid_payload", {}),
    ("neither voucher nor campaign", None, {"customer": {"id": "cust_bob"}}, False, 400, "missing_vouchers", {}),
    ("unknown field", None, {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}, "vouher": 1}, False,
     400, "invalid_payload", {}),
    ("inactive voucher", _deactivate_voucher, {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "new"}},
     False, 400, "voucher_cannot_be_published", {}),
    ("inactive campaign", _deactivate_campaign,
     {"campaign": {"id": "camp_welcome_codes"}, "customer": {"id": "cust_bob"}}, True,
     400, "voucher_cannot_be_published", {}),
    ("code outside the named campaign", None,
     {"voucher": "WELCOME-OPEN-1", "campaign": {"id": "camp_newsletter"}, "customer": {"id": "cust_bob"}}, False,
     400, "invalid_publish_params", {}),
    ("id and source_id of two customers", None,
     {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob", "source_id": "alice"}}, False,
     400, "invalid_customer", {}),
]


@pytest.mark.parametrize(
    ("setup", "request_body", "join_once", "status", "key", "extra"),
    [case[1:] for case in ERROR_CASES],
    ids=[case[0] for case in ERROR_CASES],
)
def test_refused_publications_change_nothing(
    sim: Simulator, setup: Any, request_body: dict[str, Any], join_once: bool, status: int, key: str,
    extra: dict[str, str],
) -> None:
    if setup is not None:
        setup(sim)
    client = sim.client()
    before = sim.dump_json()
    with pytest.raises(ApiError) as caught:
        client.publish(request_body, join_once=join_once)
    assert sim.dump_json() == before
    assert (caught.value.status, caught.value.key) == (status, key)
    error = caught.value.error.model_dump(mode="json")
    assert error["request_id"]
    for field, value in extra.items():
        assert error[field] == value
    # the same refusal in-process
    error_in_process = refused(sim, request_body, join_once=join_once)
    assert (error_in_process.status, error_in_process.key) == (status, key)


# -- contract used by loyalty (issue 6) ---------------------------------------------------------------
def test_publish_to_customer_contract(sim: Simulator) -> None:
    pub = publish_to_customer(sim, customer_id="cust_erin", campaign_id="camp_newsletter",
                              metadata={"why": "reward"}, channel="LOYALTY")
    assert pub.customer_id == "cust_erin" and pub.channel == "LOYALTY" and pub.metadata == {"why": "reward"}
    assert sim.state.vouchers[pub.voucher_id].holder_id == "cust_erin"
    # campaign join_once: the same publication again, nothing new
    dump = sim.dump_json()
    assert publish_to_customer(sim, customer_id="cust_erin", campaign_id="camp_newsletter") is pub
    assert sim.dump_json() == dump
    with pytest.raises(SimError) as caught:
        publish_to_customer(sim, customer_id="cust_nobody", campaign_id="camp_newsletter")
    assert caught.value.key == "not_found"
    assert sim.dump_json() == dump


# -- end to end and determinism -------------------------------------------------------------------------
def test_publish_through_the_client(sim: Simulator) -> None:
    client = sim.client()
    pub = client.publish(customer={"source_id": "web-visitor-9"}, campaign={"name": "Newsletter 10% coupons"},
                         source_id="signup-9", channel="Website")
    assert isinstance(pub, models.Publication)
    assert pub.channel == "Website" and pub.source_id == "signup-9" and pub.tracking_id == "web-visitor-9"
    again = client.publish(customer={"source_id": "web-visitor-9"}, campaign={"name": "Newsletter 10% coupons"},
                           source_id="signup-9", channel="Website")
    assert again == pub
    with pytest.raises(ApiError) as caught:
        client.publish(customer={"source_id": "someone-else"}, campaign={"name": "Newsletter 10% coupons"},
                       source_id="signup-9")
    assert caught.value.key == "duplicate_source_id"


def test_same_calls_same_bytes(demo_snapshot: dict[str, Any]) -> None:
    def run() -> list[str]:
        sim = Simulator.restore(demo_snapshot)
        client = sim.client()
        return [
            client.publish(customer={"source_id": f"c{i}"}, campaign={"id": "camp_newsletter"}).model_dump_json()
            for i in range(3)
        ] + [sim.dump_json()]

    assert run() == run()
