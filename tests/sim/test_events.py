"""POST /v1/events: event schema, metadata rules, earning rules and referrals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promolab import ApiError, Simulator, models
from promolab.sim.operations.custom_events import TRACK_EVENT
from promolab.sim.operations.publishing import PUBLISH
from promolab.sim.records import EventSchema, MetadataProperty, ReferrerReward
from promolab.sim.refusals import SimError

DEMO = Path(__file__).parents[2] / "data" / "scenarios" / "demo.yaml"


@pytest.fixture(scope="module")
def demo_snapshot() -> dict[str, Any]:
    return Simulator.from_scenario(DEMO).snapshot()


@pytest.fixture
def sim(demo_snapshot: dict[str, Any]) -> Simulator:
    return Simulator.restore(demo_snapshot)


def balance(sim: Simulator, card_id: str) -> int:
    return sim.state.cards[card_id].balance


def earned(sim: Simulator) -> list[tuple[str, int]]:
    """(card, points) of every POINTS_EARNED transaction, in order."""
    return [(t.card_id, t.points) for t in sim.state.card_transactions.values() if t.type == "POINTS_EARNED"]


def event(sim: Simulator, name: str, customer: dict[str, Any], **rest: Any) -> models.CustomEventResult:
    return sim.apply(TRACK_EVENT, request={"event": name, "customer": customer, **rest})


def refused(sim: Simulator, request: dict[str, Any]) -> SimError:
    before = sim.dump_json()
    with pytest.raises(SimError) as caught:
        sim.apply(TRACK_EVENT, request=request)
    assert sim.dump_json() == before, "a refused event changed the state"
    return caught.value


# -- response and recording ------------------------------------------------------------------------
def test_result_shape_and_recorded_event(sim: Simulator) -> None:
    result = event(sim, "review_written", {"source_id": "alice"}, metadata={"rating": 5})
    assert result.model_dump(mode="json") == {
        "object": "event",
        "type": "review_written",
        "customer": {
            "id": "cust_alice", "name": "Alice Moreau", "email": "alice@example.com", "source_id": "alice",
            "metadata": {"tier": "gold", "region": "EU", "newsletter": True, "orders": 14}, "object": "customer",
        },
        "referral": None,
        "loyalty": None,
        "metadata": {"rating": 5},
    }
    (tracked,) = sim.state.events.values()
    assert tracked.id.startswith("evcus_") and tracked.name == "review_written"
    assert tracked.customer_id == "cust_alice" and tracked.metadata == {"rating": 5}


def test_metadata_defaults_to_an_empty_object(sim: Simulator) -> None:
    assert event(sim, "newsletter_signup", {"id": "cust_bob"}).metadata == {}


def test_unknown_customer_is_created(sim: Simulator) -> None:
    result = event(sim, "newsletter_signup", {"source_id": "walk-in", "name": "Walk In", "email": "w@x.org"})
    created = sim.state.customers[result.customer.id]
    assert created.source_id == "walk-in" and created.name == "Walk In" and created.email == "w@x.org"
    assert sim.indexes.customer_by_source["walk-in"] == created.id
    assert earned(sim) == []


# -- event names ------------------------------------------------------------------------------------------
def test_undefined_event_is_refused_by_default(sim: Simulator) -> None:
    error = refused(sim, {"event": "cart_abandoned", "customer": {"source_id": "alice"}})
    assert (error.status, error.key) == (400, "invalid_payload")
    assert "cart_abandoned" in error.details


def test_undefined_event_accepted_when_the_project_says_so(sim: Simulator) -> None:
    sim.state.settings.undefined_events = "accept"
    result = event(sim, "cart_abandoned", {"source_id": "fresh"}, metadata={"anything": [1, 2]})
    assert result.type == "cart_abandoned"
    assert [e.name for e in sim.state.events.values()] == ["cart_abandoned"]
    assert earned(sim) == [] and sim.state.referral_conversions == {}


@pytest.mark.parametrize(("length", "ok"), [(0, False), (1, True), (300, True), (301, False)])
def test_event_name_length(sim: Simulator, length: int, ok: bool) -> None:
    sim.state.settings.undefined_events = "accept"  # isolate the length rule
    request = {"event": "e" * length, "customer": {"source_id": "alice"}}
    if ok:
        assert sim.apply(TRACK_EVENT, request=request).type == "e" * length
    else:
        error = refused(sim, request)
        assert (error.status, error.key) == (400, "invalid_payload")
        assert ".event" in error.details


# -- metadata schema --------------------------------------------------------------------------------------
@pytest.fixture
def schema_sim(sim: Simulator) -> Simulator:
    sim.state.event_schemas["profile_updated"] = EventSchema(
        name="profile_updated",
        allow_extra=False,
        metadata={
            "nickname": MetadataProperty(type="string", min_length=2, max_length=5),
            "tags": MetadataProperty(type="array", max_length=2),
            "opted_in": MetadataProperty(type="boolean"),
            "birthday": MetadataProperty(type="date"),
            "seen_at": MetadataProperty(type="datetime"),
            "address": MetadataProperty(type="object"),
            "plan": MetadataProperty(type="string", required=True, enum=["free", "pro"]),
        },
    )
    return sim


METADATA_ERRORS: list[tuple[str, str, dict[str, Any], str]] = [
    # (id, event, metadata, property named)
    ("required missing", "order_placed", {}, "amount"),
    ("required null", "order_placed", {"amount": None}, "amount"),
    ("number as string", "order_placed", {"amount": "12"}, "amount"),
    ("boolean is not a number", "order_placed", {"amount": True}, "amount"),
    ("below min", "order_placed", {"amount": -1}, "amount"),
    ("not in enum", "order_placed", {"amount": 10, "channel": "fax"}, "channel"),
    ("above max", "review_written", {"rating": 6}, "rating"),
    ("below min 1", "review_written", {"rating": 0}, "rating"),
    ("string type", "review_written", {"rating": 3, "product_id": 7}, "product_id"),
    ("too short", "profile_updated", {"plan": "pro", "nickname": "a"}, "nickname"),
    ("too long", "profile_updated", {"plan": "pro", "nickname": "abcdef"}, "nickname"),
    ("array too long", "profile_updated", {"plan": "pro", "tags": [1, 2, 3]}, "tags"),
    ("array type", "profile_updated", {"plan": "pro", "tags": "a"}, "tags"),
    ("boolean type", "profile_updated", {"plan": "pro", "opted_in": "yes"}, "opted_in"),
    ("date type", "profile_updated", {"plan": "pro", "birthday": "1990-13-01"}, "birthday"),
    ("datetime type", "profile_updated", {"plan": "pro", "seen_at": "yesterday"}, "seen_at"),
    ("object type", "profile_updated", {"plan": "pro", "address": ["x"]}, "address"),
    ("enum required", "profile_updated", {"plan": "enterprise"}, "plan"),
    ("extra key refused", "profile_updated", {"plan": "pro", "shoe_size": 44}, "shoe_size"),
]


@pytest.mark.parametrize(
    ("name", "metadata", "prop"), [c[1:] for c in METADATA_ERRORS], ids=[c[0] for c in METADATA_ERRORS]
)
def test_metadata_breaking_the_schema(schema_sim: Simulator, name: str, metadata: dict[str, Any], prop: str) -> None:
    error = refused(schema_sim, {"event": name, "customer": {"source_id": "alice"}, "metadata": metadata})
    assert (error.status, error.key) == (400, "metadata_validation_failed")
    assert f"metadata.{prop}" in error.details


@pytest.mark.parametrize(
    ("name", "metadata"),
    [
        ("order_placed", {"amount": 0}),
        ("order_placed", {"amount": 12.5, "channel": "app", "extra": "allowed by default"}),
        ("review_written", {"rating": 1, "product_id": None}),
        ("profile_updated", {"plan": "free", "nickname": "ab", "tags": [1, 2], "opted_in": False,
                             "birthday": "1990-02-28", "seen_at": "2026-03-01T10:00:00Z", "address": {"city": "Oslo"}}),
    ],
)
def test_metadata_within_the_schema(schema_sim: Simulator, name: str, metadata: dict[str, Any]) -> None:
    request = {"event": name, "customer": {"source_id": "bob"}, "metadata": metadata}
    assert schema_sim.apply(TRACK_EVENT, request=request).type == name


# -- earning rules ------------------------------------------------------------------------------------------
def test_fixed_points_for_a_review(sim: Simulator) -> None:
    before = balance(sim, "lcrd_alice_beans")
    event(sim, "review_written", {"id": "cust_alice"}, metadata={"rating": 4})
    assert balance(sim, "lcrd_alice_beans") == before + 50
    (tx,) = sim.state.card_transactions.values()
    assert (tx.type, tx.status, tx.points, tx.card_id) == ("POINTS_EARNED", "APPROVED", 50, "lcrd_alice_beans")
    assert tx.details["metadata"]["earning_rule_id"] == "lern_review"
    assert sim.state.incentives["linc_0a11ce01"].stock == 100000 - 1


@pytest.mark.parametrize(
    ("amount", "points"),
    [(0, 0), (99, 0), (100, 1), (101, 1), (199, 1), (199.99, 1), (200, 2), (201, 2), (1250, 12), (99999, 999)],
)
def test_proportional_points_on_event_metadata_round_down(sim: Simulator, amount: float, points: int) -> None:
    # Bob is silver: lern_loyal_stars applies, but he has no stars card.
    before = balance(sim, "lcrd_bob_beans")
    event(sim, "order_placed", {"source_id": "bob"}, metadata={"amount": amount})
    assert balance(sim, "lcrd_bob_beans") == before + points
    assert earned(sim) == ([("lcrd_bob_beans", points)] if points else [])


@pytest.mark.parametrize(("orders", "stars"), [(4, 0), (5, 1), (9, 1), (10, 2), (22, 4), (24, 4), (25, 5), (26, 5)])
def test_proportional_points_on_customer_metadata(sim: Simulator, orders: int, stars: int) -> None:
    sim.state.customers["cust_dave"].metadata["orders"] = orders
    before = balance(sim, "lcrd_dave_stars")
    event(sim, "order_placed", {"id": "cust_dave"}, metadata={"amount": 50})  # < 100: no beans
    assert balance(sim, "lcrd_dave_stars") == before + stars
    assert earned(sim) == ([("lcrd_dave_stars", stars)] if stars else [])


@pytest.mark.parametrize(("tier", "credited"), [("gold", True), ("silver", True), ("bronze", False), (None, False)])
def test_validation_rule_on_an_earning_rule(sim: Simulator, tier: str | None, credited: bool) -> None:
    metadata = sim.state.customers["cust_dave"].metadata
    if tier is None:
        del metadata["tier"]
    else:
        metadata["tier"] = tier
    event(sim, "order_placed", {"id": "cust_dave"}, metadata={"amount": 300})
    assert ("lcrd_dave_stars", 4) in earned(sim) if credited else ("lcrd_dave_stars", 4) not in earned(sim)
    assert ("lcrd_dave_beans", 3) in earned(sim)  # the other rule has no validation rule


def test_both_rules_of_an_event_credit_their_cards(sim: Simulator) -> None:
    event(sim, "order_placed", {"source_id": "alice"}, metadata={"amount": 1250})
    assert earned(sim) == [("lcrd_alice_beans", 12), ("lcrd_alice_stars", 2)]  # orders 14 -> 2 stars


def test_loyalty_code_names_the_card(sim: Simulator) -> None:
    event(sim, "order_placed", {"source_id": "alice"}, metadata={"amount": 1250}, loyalty={"code": "lcrd_alice_stars"})
    assert earned(sim) == [("lcrd_alice_stars", 2)]
    event(sim, "order_placed", {"source_id": "alice"}, metadata={"amount": 1250}, loyalty={"code": "lcrd_alice_beans"})
    assert earned(sim)[1:] == [("lcrd_alice_beans", 12)]


def test_stock_limits_and_inactive_incentives(sim: Simulator) -> None:
    sim.state.incentives["linc_0a11ce01"].stock = 1
    event(sim, "review_written", {"id": "cust_alice"}, metadata={"rating": 5})
    event(sim, "review_written", {"id": "cust_alice"}, metadata={"rating": 5})
    assert earned(sim) == [("lcrd_alice_beans", 50)]
    assert sim.state.incentives["linc_0a11ce01"].stock == 0
    sim.state.incentives["linc_0a11ce01"].stock = 10
    sim.state.incentives["linc_0a11ce01"].status = "DRAFT"
    event(sim, "review_written", {"id": "cust_alice"}, metadata={"rating": 5})
    assert earned(sim) == [("lcrd_alice_beans", 50)]


def test_stock_is_counted_within_one_event(sim: Simulator) -> None:
    from promolab.sim.records import EarningRule

    sim.state.earning_rules["lern_review_twice"] = EarningRule(
        id="lern_review_twice", program_id="lprg_coffee_club", event="review_written", incentive_id="linc_0a11ce01"
    )
    event(sim, "review_written", {"id": "cust_alice"}, metadata={"rating": 5})
    assert earned(sim) == [("lcrd_alice_beans", 50), ("lcrd_alice_beans", 50)]  # two rules, stock to spare
    sim.state.incentives["linc_0a11ce01"].stock = 1
    event(sim, "review_written", {"id": "cust_alice"}, metadata={"rating": 5})
    assert earned(sim)[2:] == [("lcrd_alice_beans", 50)]  # one unit left: one credit
    assert sim.state.incentives["linc_0a11ce01"].stock == 0


def test_no_credit_without_an_active_membership(sim: Simulator) -> None:
    event(sim, "review_written", {"id": "cust_carol"}, metadata={"rating": 5})  # INACTIVE member
    event(sim, "review_written", {"id": "cust_erin"}, metadata={"rating": 5})  # not a member
    event(sim, "review_written", {"source_id": "stranger"}, metadata={"rating": 5})  # created now
    assert earned(sim) == []
    sim.state.programs["lprg_coffee_club"].status = "INACTIVE"
    event(sim, "review_written", {"id": "cust_alice"}, metadata={"rating": 5})
    assert earned(sim) == []


# -- referrals ------------------------------------------------------------------------------------------------
def test_referral_conversion_rewards_the_referrer(sim: Simulator) -> None:
    before = balance(sim, "lcrd_dave_beans")
    result = event(sim, "first_order_placed", {"source_id": "erin"}, metadata={"amount": 3000},
                   referral={"code": "REF-DAVE"})
    assert result.referral is None  # as the interface shows it
    (conversion,) = sim.state.referral_conversions.values()
    assert (conversion.campaign_id, conversion.code) == ("camp_referral", "REF-DAVE")
    assert (conversion.referrer_id, conversion.referee_id) == ("cust_dave", "cust_erin")
    assert conversion.event_id in sim.state.events
    assert balance(sim, "lcrd_dave_beans") == before + 500
    (tx,) = sim.state.card_transactions.values()
    assert (tx.type, tx.status, tx.points, tx.member_id) == ("POINTS_EARNED", "APPROVED", 500, "lmbr_dave")
    assert tx.details["metadata"]["referral_conversion_id"] == conversion.id


@pytest.mark.parametrize("referrer_id", ["cust_dave", "dave"])
def test_referrer_id_may_name_the_holder(sim: Simulator, referrer_id: str) -> None:
    event(sim, "first_order_placed", {"source_id": "erin"}, metadata={"amount": 1},
          referral={"code": "REF-DAVE", "referrer_id": referrer_id})
    assert len(sim.state.referral_conversions) == 1


def test_new_customer_can_be_the_referee(sim: Simulator) -> None:
    result = event(sim, "first_order_placed", {"source_id": "friend-of-alice"}, metadata={"amount": 1},
                   referral={"code": "REF-ALICE"})
    (conversion,) = sim.state.referral_conversions.values()
    assert conversion.referee_id == result.customer.id and conversion.referrer_id == "cust_alice"


def test_a_referee_converts_a_campaign_once(sim: Simulator) -> None:
    event(sim, "first_order_placed", {"source_id": "erin"}, metadata={"amount": 1}, referral={"code": "REF-DAVE"})
    alice_before = balance(sim, "lcrd_alice_beans")
    event(sim, "first_order_placed", {"source_id": "erin"}, metadata={"amount": 1}, referral={"code": "REF-ALICE"})
    assert len(sim.state.referral_conversions) == 1
    assert balance(sim, "lcrd_alice_beans") == alice_before
    assert len(sim.state.events) == 2  # the second event is still recorded


def test_code_of_a_program_converting_on_another_event(sim: Simulator) -> None:
    event(sim, "order_placed", {"source_id": "erin"}, metadata={"amount": 10}, referral={"code": "REF-DAVE"})
    assert sim.state.referral_conversions == {}
    assert next(iter(sim.state.events.values())).referral == {"code": "REF-DAVE"}


def test_discount_coupon_reward(sim: Simulator) -> None:
    settings = sim.state.campaigns["camp_referral"].referral
    assert settings is not None
    settings.referrer_reward = ReferrerReward(type="DISCOUNT_COUPON", campaign_id="camp_welcome_codes")
    event(sim, "first_order_placed", {"source_id": "erin"}, metadata={"amount": 1}, referral={"code": "REF-DAVE"})
    (pub,) = sim.state.publications.values()
    assert pub.customer_id == "cust_dave" and sim.state.vouchers[pub.voucher_id].code == "WELCOME-OPEN-1"


def test_discount_coupon_reward_without_free_code_refuses_the_event(sim: Simulator) -> None:
    settings = sim.state.campaigns["camp_referral"].referral
    assert settings is not None
    settings.referrer_reward = ReferrerReward(type="DISCOUNT_COUPON", campaign_id="camp_welcome_codes")
    for code in ("WELCOME-OPEN-1", "WELCOME-OPEN-2"):
        sim.apply(PUBLISH, request={"voucher": code, "customer": {"id": "cust_bob"}})
    error = refused(sim, {"event": "first_order_placed", "customer": {"source_id": "new-friend"},
                          "metadata": {"amount": 1}, "referral": {"code": "REF-DAVE"}})
    assert error.key == "no_voucher_suitable_for_publication"


def test_gift_credits_reward(sim: Simulator) -> None:
    settings = sim.state.campaigns["camp_referral"].referral
    assert settings is not None
    settings.referrer_reward = ReferrerReward(type="GIFT_CREDITS", campaign_id="camp_gift", amount=1000)
    # Alice holds GIFT-ALICE-50: it is credited.
    event(sim, "first_order_placed", {"source_id": "erin"}, metadata={"amount": 1}, referral={"code": "REF-ALICE"})
    gift = sim.state.vouchers[sim.indexes.voucher_by_code["GIFT-ALICE-50"]].gift
    assert gift is not None and (gift.amount, gift.balance) == (6000, 6000)
    # Dave holds none: a card worth exactly 1000 is issued to him.
    event(sim, "first_order_placed", {"source_id": "frank"}, metadata={"amount": 1}, referral={"code": "REF-DAVE"})
    (card,) = [v for v in sim.state.vouchers.values() if v.campaign_id == "camp_gift" and v.holder_id == "cust_dave"]
    assert card.gift is not None and (card.gift.amount, card.gift.balance) == (1000, 1000)
    assert [t.type for t in sim.state.voucher_transactions.values()] == ["CREDITS_ADDITION", "CREDITS_ADDITION"]


def _unpublished_referral_code(sim: Simulator) -> str:
    return next(v.code for v in sim.state.vouchers.values() if v.campaign_id == "camp_referral" and not v.holder_id)


# -- refusals change nothing ---------------------------------------------------------------------------------
ERROR_CASES: list[tuple[str, dict[str, Any], int, str]] = [
    ("self referral", {"event": "first_order_placed", "customer": {"source_id": "dave"}, "metadata": {"amount": 1},
                       "referral": {"code": "REF-DAVE"}}, 400, "referrer_not_permitted_to_redeem"),
    ("self referral by id", {"event": "first_order_placed", "customer": {"id": "cust_alice"},
                             "metadata": {"amount": 1}, "referral": {"code": "REF-ALICE"}},
     400, "referrer_not_permitted_to_redeem"),
    ("not published", {"event": "first_order_placed", "customer": {"source_id": "erin"},
                       "metadata": {"amount": 1}, "referral": {"code": "<unpublished>"}}, 400, "not_published"),
    ("unknown referral code", {"event": "first_order_placed", "customer": {"source_id": "erin"},
                               "metadata": {"amount": 1}, "referral": {"code": "REF-NOPE"}}, 404, "not_found"),
    ("not a referral code", {"event": "first_order_placed", "customer": {"source_id": "erin"},
                             "metadata": {"amount": 1}, "referral": {"code": "WELCOME-ALICE"}}, 400, "invalid_voucher"),
    ("referrer_id of someone else", {"event": "first_order_placed", "customer": {"source_id": "erin"},
                                     "metadata": {"amount": 1}, "referral": {"code": "REF-DAVE", "referrer_id": "bob"}},
     400, "invalid_payload"),
    ("referral without code", {"event": "first_order_placed", "customer": {"source_id": "erin"},
                               "metadata": {"amount": 1}, "referral": {"referrer_id": "cust_dave"}}, 400, "invalid_payload"),
    ("unknown customer id", {"event": "review_written", "customer": {"id": "cust_nope"}, "metadata": {"rating": 3}},
     404, "not_found"),
    ("no customer identifier", {"event": "review_written", "customer": {"name": "x"}, "metadata": {"rating": 3}},
     400, "invalid_payload"),
    ("unknown loyalty card", {"event": "review_written", "customer": {"id": "cust_alice"}, "metadata": {"rating": 3},
                              "loyalty": {"code": "lcrd_nope"}}, 404, "not_found"),
    ("someone else's card", {"event": "review_written", "customer": {"id": "cust_alice"}, "metadata": {"rating": 3},
                             "loyalty": {"code": "lcrd_bob_beans"}}, 400, "invalid_customer"),
    ("card for a new customer", {"event": "review_written", "customer": {"source_id": "newbie"},
                                 "metadata": {"rating": 3}, "loyalty": {"code": "lcrd_bob_beans"}},
     400, "invalid_customer"),
    ("undefined event", {"event": "nope", "customer": {"source_id": "alice"}}, 400, "invalid_payload"),
    ("metadata", {"event": "review_written", "customer": {"source_id": "newbie"}, "metadata": {"rating": 9}},
     400, "metadata_validation_failed"),
    ("unknown field", {"event": "review_written", "customer": {"source_id": "alice"}, "metadata": {"rating": 3},
                       "loyality": {}}, 400, "invalid_payload"),
]


@pytest.mark.parametrize(("request_body", "status", "key"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_refused_events_change_nothing(sim: Simulator, request_body: dict[str, Any], status: int, key: str) -> None:
    if request_body.get("referral", {}).get("code") == "<unpublished>":
        request_body = {**request_body, "referral": {"code": _unpublished_referral_code(sim)}}
    # earlier accepted events make the state non-trivial
    event(sim, "review_written", {"id": "cust_alice"}, metadata={"rating": 5})
    client = sim.client()
    before = sim.dump_json()
    with pytest.raises(ApiError) as caught:
        client.track_event(request_body)
    assert (caught.value.status, caught.value.key) == (status, key)
    assert sim.dump_json() == before
    in_process = refused(sim, request_body)
    assert (in_process.status, in_process.key) == (status, key)


# -- end to end -----------------------------------------------------------------------------------------------
def test_events_through_the_client(sim: Simulator) -> None:
    client = sim.client()
    result = client.track_event(event="first_order_placed", customer={"source_id": "erin"},
                                referral={"code": "REF-ALICE", "referrer_id": "cust_alice"},
                                metadata={"amount": 4200})
    assert isinstance(result, models.CustomEventResult)
    assert result.type == "first_order_placed" and result.customer.id == "cust_erin"
    assert result.metadata == {"amount": 4200}
    assert sim.transactions().query("card_id == 'lcrd_alice_beans'")["points"].tolist() == [500]
    with pytest.raises(ApiError) as caught:
        client.track_event(event="first_order_placed", customer={"source_id": "alice"},
                           referral={"code": "REF-ALICE"}, metadata={"amount": 1})
    assert caught.value.status == 400 and caught.value.key == "referrer_not_permitted_to_redeem"


# -- a referrer's reward must fit on its card (64-bit bounds) --------------------------------------
@pytest.mark.parametrize(
    ("reward", "fill"),
    [
        # points: the referrer's card is one point short of room for the 500-point reward
        (ReferrerReward(type="LOYALTY_POINTS", program_id="lprg_coffee_club",
                        card_definition_id="lcdef_beans", points=500), "points"),
        # gift credit: the referrer's gift card cannot take another 1000 cents
        (ReferrerReward(type="GIFT_CREDITS", campaign_id="camp_gift", amount=1000), "gift"),
    ],
    ids=["points", "gift"],
)
def test_a_referral_reward_past_the_64_bit_bound_refuses_the_event_and_changes_nothing(
    sim: Simulator, reward: ReferrerReward, fill: str
) -> None:
    settings = sim.state.campaigns["camp_referral"].referral
    assert settings is not None
    settings.referrer_reward = reward
    if fill == "points":
        card = sim.state.cards["lcrd_alice_beans"]
        card.balance = 2**63 - 1 - 499
    else:
        gift = sim.state.vouchers[sim.indexes.voucher_by_code["GIFT-ALICE-50"]].gift
        assert gift is not None
        gift.amount = gift.balance = 2**63 - 1 - 999
    before = sim.dump()
    error = refused(sim, {"event": "first_order_placed", "customer": {"source_id": "new-friend"},
                          "metadata": {"amount": 1}, "referral": {"code": "REF-ALICE"}})
    assert error.status == 400
    assert sim.dump() == before  # no customer created, no conversion recorded, no credit


def test_a_referral_reward_counts_the_same_events_earning_credits_to_the_card(sim: Simulator) -> None:
    """Earning rules and the referrer's reward may credit one card in one event:
    each fits alone, together they do not; the event is refused whole."""
    from promolab.sim.referrals import plan_conversion
    from promolab.sim.refusals import InvalidPayload

    card = sim.state.cards["lcrd_dave_beans"]  # the 500-point reward of REF-DAVE's referrer
    card.balance = 2**63 - 1 - 600
    with pytest.raises(InvalidPayload):
        plan_conversion(sim, event="first_order_placed", referral={"code": "REF-DAVE"}, referee_id=None,
                        credited={card.id: 200})
    plan = plan_conversion(sim, event="first_order_placed", referral={"code": "REF-DAVE"}, referee_id=None,
                           credited={card.id: 100})
    assert plan is not None and plan.points == 500
