"""track_event (custom events): its body, and the shortcuts of what it does,
against independent expectations.

- the body: the operation refuses one exactly when `models.CustomEventRequest`
  does, with the model's first error as its 400 (written out for some), and
  records what the model reads (a new customer from a copy of the body's);
- `earning`: `_open_now` (UTC copies of a program's bounds) against
  `_program_open`; `_customer_context` (a customer context reused) against a
  new one; rule inputs left out for rules that cannot read them
  (`_families`) against evaluating with everything (`rules_pass`); the early
  answer for customers who are members of nothing;
- the event metadata schema's verdicts, case by case;
- `ids.IdGenerator` (prebuilt hashers) against the keyed hash it stands for;
- `ledger.post` refuses before it takes an id.
"""

from __future__ import annotations

import copy
import hashlib
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import Simulator, models
from promolab.engine import lookup
from promolab.sim.earning import credits, points, validation
from promolab.sim.earning.caches import state_caches
from promolab.sim.ids import PREFIXES, IdGenerator
from promolab.sim.loyalty import ledger
from promolab.sim.operations import custom_events as events_op
from promolab.sim.operations.custom_events import TRACK_EVENT
from promolab.sim.records import EventSchema, Member, MetadataProperty
from promolab.sim.refusals import SimError
from wire_asserts import model_refusal, payload_refusal

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def demo_snapshot() -> dict[str, Any]:
    return Simulator.from_scenario(Path(__file__).parents[2] / "data" / "scenarios" / "demo.yaml").snapshot()


# -- the request body: `models.CustomEventRequest` alone decides --------------------------------
def _refusal(sim: Simulator, request: Any) -> str | None:
    return payload_refusal(lambda: sim.apply(TRACK_EVENT, request=copy.deepcopy(request)))


def _agrees(sim: Simulator, request: Any) -> None:
    """Differential, against the public model path: the operation refuses the
    body exactly when the model does, with the model's first error; a body it
    takes is recorded as the model reads it. (Undefined events are accepted,
    without effects, so that every name reaches the record.)"""
    sim.state.settings.undefined_events = "accept"
    before = len(sim.state.events)
    got = _refusal(sim, request)
    if type(request) is not dict:
        assert got == "Payload should be an object"
        return
    assert got == model_refusal(models.CustomEventRequest, request)
    if got is not None or len(sim.state.events) == before:
        return  # refused (an unknown customer id is 404)
    body = models.CustomEventRequest.model_validate(request)
    record = next(reversed(sim.state.events.values()))
    assert record.name == body.event
    assert record.metadata == (body.metadata or {})
    assert record.referral == (body.referral.model_dump(exclude_none=True) if body.referral else None)
    assert record.loyalty == (body.loyalty.model_dump() if body.loyalty else None)
    customer = sim.state.customers[record.customer_id]
    given = body.customer
    assert given.id in (None, customer.id) and given.source_id in (None, customer.source_id)


ODD_TEXT = ["", "x", "\ud800", "é", "a\ud800b", "🎉" * 300, "x" * 300, "x" * 301]
TABLE: list[Any] = [
    {"event": "order_placed", "customer": {"source_id": "alice"}, "metadata": {"amount": 1}},
    {"event": "order_placed", "customer": {"id": "cust_alice"}},
    {"event": "order_placed", "customer": {"id": "cust_alice", "source_id": "alice", "name": None}},
    {"event": "order_placed", "customer": {}},
    {"event": "order_placed", "customer": {"id": None, "source_id": None}},
    {"event": "order_placed", "customer": None},
    {"event": "order_placed"},
    {"customer": {"source_id": "a"}},
    {"event": 3, "customer": {"source_id": "a"}},
    {"event": "e", "customer": {"source_id": 3}},
    {"event": "e", "customer": {"source_id": "a", "Name": "x"}},
    {"event": "e", "customer": {"source_id": "a", "name": 3}},
    {"event": "e", "customer": {"source_id": "a", "metadata": {1: 2}}},
    {"event": "e", "customer": {"source_id": "a", "metadata": []}},
    {"event": "e", "customer": {"source_id": "a", "address": {"city": "x"}, "phone": "1"}},
    {"event": "e", "customer": {"source_id": "a", "metadata": {"k": {"deep": [1]}}}},
    {"event": "e", "customer": {"source_id": "a"}, "metadata": None},
    {"event": "e", "customer": {"source_id": "a"}, "metadata": {1: "x"}},
    {"event": "e", "customer": {"source_id": "a"}, "metadata": "x"},
    {"event": "e", "customer": {"source_id": "a"}, "extra": 1},
    {"event": "e", "customer": {"source_id": "a"}, "referral": {"code": "R"}},
    {"event": "e", "customer": {"source_id": "a"}, "referral": {"referrer_id": "c", "code": "R"}},
    {"event": "e", "customer": {"source_id": "a"}, "referral": {"code": "R", "referrer_id": None}},
    {"event": "e", "customer": {"source_id": "a"}, "referral": {"code": ""}},
    {"event": "e", "customer": {"source_id": "a"}, "referral": {"referrer_id": "c"}},
    {"event": "e", "customer": {"source_id": "a"}, "referral": {"code": "R", "x": 1}},
    {"event": "e", "customer": {"source_id": "a"}, "referral": None, "loyalty": None},
    {"event": "e", "customer": {"source_id": "a"}, "loyalty": {"code": "lcrd_x"}},
    {"event": "e", "customer": {"source_id": "a"}, "loyalty": {}},
    {"event": "e", "customer": {"source_id": "a"}, "loyalty": {"code": None}},
    {"event": "e", "customer": {"source_id": "a"}, "loyalty": "lcrd_x"},
    [("event", "e")],
    *({"event": text, "customer": {"source_id": "a"}} for text in ODD_TEXT),
    *({"event": "e", "customer": {"source_id": text}} for text in ODD_TEXT),
    *({"event": "e", "customer": {"id": text}} for text in ODD_TEXT),
    *({"event": "e", "customer": {"source_id": "a", "name": text}} for text in ODD_TEXT),
    *({"event": "e", "customer": {"source_id": "a"}, "referral": {"code": text}} for text in ODD_TEXT),
    *({"event": "e", "customer": {"source_id": "a"}, "loyalty": {"code": text}} for text in ODD_TEXT),
]


@pytest.mark.parametrize("request_body", TABLE)
def test_the_operation_refuses_a_body_as_the_model_does(sim: Simulator, request_body: Any) -> None:
    _agrees(sim, request_body)


@pytest.mark.parametrize(("request_body", "refusal"), [
    ({"event": "order_placed", "customer": {}}, "Property .customer.id: at least one of id, source_id is required"),
    ({"event": "order_placed"}, "Payload should have required property 'customer'"),
    ({"event": "", "customer": {"source_id": "a"}}, "Property .event: String should have at least 1 character"),
    ({"event": "x" * 301, "customer": {"source_id": "a"}},
     "Property .event: String should have at most 300 characters"),
    ({"event": "e", "customer": {"source_id": "a", "Name": "x"}}, "Property .customer.Name is not allowed"),
    ({"event": "e", "customer": {"source_id": "a"}, "referral": {"referrer_id": "c"}},
     "Property .referral should have required property 'code'"),
    ({"event": "e", "customer": {"source_id": "a"}, "loyalty": "lcrd_x"},
     "Property .loyalty: Input should be a valid dictionary or instance of LoyaltyInput"),
    ([("event", "e")], "Payload should be an object"),
])  # fmt: skip
def test_refusals_written_out(sim: Simulator, request_body: Any, refusal: str) -> None:
    sim.state.settings.undefined_events = "accept"
    assert _refusal(sim, request_body) == refusal


def test_a_body_is_recorded_as_sent(sim: Simulator) -> None:
    metadata = {"amount": 3400, "channel": "web", "basket": {"items": [1, 2]}}
    request = {"event": "order_placed", "customer": {"source_id": "newbie", "name": "N", "email": "n@x",
                                                     "metadata": {"tier": {"level": 1}}},
               "referral": {"code": "REF-ALICE", "referrer_id": None}, "metadata": metadata}
    result = sim.apply(TRACK_EVENT, request=request)
    record = next(reversed(sim.state.events.values()))
    assert (record.name, record.metadata, record.referral, record.loyalty) == (
        "order_placed", metadata, {"code": "REF-ALICE"}, None)
    customer = sim.state.customers[record.customer_id]
    assert (customer.source_id, customer.name, customer.email, customer.metadata) == (
        "newbie", "N", "n@x", {"tier": {"level": 1}})
    assert result.customer.id == customer.id and result.metadata == metadata
    request["customer"]["metadata"]["tier"]["level"] = 2  # the caller's body, changed afterwards
    metadata["channel"] = "app"
    assert customer.metadata == {"tier": {"level": 1}} and record.metadata["channel"] == "web"


_text = st.one_of(st.sampled_from(ODD_TEXT[:5]), st.text(max_size=4))
_value = st.one_of(st.none(), st.integers(), st.booleans(), _text, st.lists(st.integers(), max_size=2))
_mapping = st.one_of(st.none(), _value, st.dictionaries(st.one_of(_text, st.integers()), _value, max_size=3))
_customer = st.one_of(
    _value,
    st.dictionaries(
        st.sampled_from(["id", "source_id", "name", "email", "metadata", "phone", "address", "birthday",
                         "birthdate", "description", "nope"]),
        st.one_of(_value, _mapping),
        max_size=4,
    ),
)
_small = st.one_of(_value, st.dictionaries(st.sampled_from(["code", "referrer_id", "x"]), _value, max_size=3))
_body = st.dictionaries(
    st.sampled_from(["event", "customer", "metadata", "referral", "loyalty", "other"]),
    st.one_of(_text, _customer, _mapping, _small),
    max_size=5,
)


@SETTINGS
@given(_body)
def test_generated_bodies_are_refused_as_the_model_refuses_them(
    demo_snapshot: dict[str, Any], request_body: dict[str, Any]
) -> None:
    _agrees(Simulator.restore(demo_snapshot), request_body)


# -- the answer's customer ----------------------------------------------------------------------
def test_event_results_show_the_customer_as_it_is(sim: Simulator) -> None:
    request = {"event": "order_placed", "customer": {"source_id": "alice"}, "metadata": {"amount": 100}}
    before = sim.apply(TRACK_EVENT, request=dict(request))
    sim.state.customers["cust_alice"].metadata["orders"] = 15.0
    after = sim.apply(TRACK_EVENT, request=dict(request))
    assert before.customer.metadata["orders"] == 14
    assert after.model_dump_json().count('"orders":15.0') == 1


# -- earning ---------------------------------------------------------------------------------------
PARIS = timezone(timedelta(hours=1))


@SETTINGS
@given(
    start=st.one_of(st.none(), st.datetimes(timezones=st.sampled_from([UTC, PARIS]))),
    end=st.one_of(st.none(), st.datetimes(timezones=st.sampled_from([UTC, PARIS]))),
    status=st.sampled_from(["ACTIVE", "INACTIVE"]),
    at=st.datetimes(min_value=datetime(2000, 1, 2), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)),
)
def test_the_program_window_in_utc_says_what_the_bounds_say(
    sim: Simulator, start: datetime | None, end: datetime | None, status: str, at: datetime
) -> None:
    st_ = sim.state
    program = st_.programs["lprg_coffee_club"]
    caches = state_caches(sim)
    credits._open_now(caches, st_, "lprg_coffee_club", at)  # an entry made before the change
    program.start_date, program.expiration_date, program.status = start, end, status
    for moment in (at, start, end):
        if moment is not None:
            assert credits._open_now(caches, st_, "lprg_coffee_club", moment) == credits._program_open(
                st_, "lprg_coffee_club", moment
            )
    assert credits._open_now(caches, st_, "lprg_nope", at) is False


def _seen(sim: Simulator, customer_id: str) -> dict[str, Any]:
    c = sim.state.customers[customer_id]
    return {"id": c.id, "source_id": c.source_id, "name": c.name, "email": c.email, "metadata": c.metadata}


def test_a_reused_customer_context_follows_the_customer(sim: Simulator) -> None:
    caches = state_caches(sim)
    record = sim.state.customers["cust_alice"]
    first = validation._customer_context(sim, caches, "cust_alice", _seen(sim, "cust_alice"))
    assert validation._customer_context(sim, caches, "cust_alice", _seen(sim, "cust_alice")) is first
    record.metadata["tier"] = "bronze"  # in place: the context holds the mapping itself
    assert first.metadata["tier"] == "bronze"
    for change in (lambda: setattr(record, "metadata", {"tier": "gold"}), lambda: setattr(record, "name", "A"),
                   lambda: setattr(record, "email", "a@b"), lambda: setattr(record, "source_id", "a2")):
        before = validation._customer_context(sim, caches, "cust_alice", _seen(sim, "cust_alice"))
        change()
        after = validation._customer_context(sim, caches, "cust_alice", _seen(sim, "cust_alice"))
        assert after is not before
        assert after == validation._new_context(sim, _seen(sim, "cust_alice"), False)


RULE_SETS: list[dict[str, Any]] = [
    {"rules": {"1": {"name": "customer.metadata", "property": "tier", "conditions": {"$in": ["gold", "silver"]}},
               "logic": "1"}},
    {"rules": {"1": {"name": "customer.segment", "conditions": {"$in": ["seg_vip"]}}, "logic": "1"}},
    {"rules": {"1": {"name": "customer.segment", "conditions": {"$not_in": ["seg_vip"]}}}},
    {"rules": {"1": {"name": "order.amount", "conditions": {"$more_than": [2000]}}}},
    {"rules": {"1": {"name": "order.metadata", "property": "channel", "conditions": {"$is": ["web"]}}}},
    {"rules": {"1": {"name": "custom_event.metadata", "property": "channel", "conditions": {"$is": ["app"]}}}},
    {"rules": {"1": {"name": "customer.metadata", "property": "tier", "conditions": {"$is": ["gold"]}},
               "2": {"name": "order.amount", "conditions": {"$less_than": [2000]}}, "logic": "1 or 2"}},
    {"rules": {"1": {"name": "customer.metadata", "property": "tier", "conditions": {"$is": ["gold"]}},
               "2": {"name": "customer.segment", "conditions": {"$in": ["seg_newsletter"]}}, "logic": "1 and 2"}},
]


def test_families_say_which_inputs_rules_may_read() -> None:
    assert validation._families(validation._rewrite(RULE_SETS[0])) == {"customer.metadata"}
    assert validation._families(validation._rewrite(RULE_SETS[5])) == {"redemption.metadata"}
    assert validation._families({"rules": {"1": {"name": 3}}}) is None


@pytest.mark.parametrize("rules", range(len(RULE_SETS)))
@pytest.mark.parametrize("customer_id", ["cust_alice", "cust_bob", "cust_carol", "cust_dave", "cust_erin"])
def test_rules_given_only_what_they_read_decide_as_with_everything(sim: Simulator, rules: int, customer_id: str) -> None:
    rule = sim.state.earning_rules["lern_loyal_stars"]
    rule.validation_rules = copy.deepcopy(RULE_SETS[rules])
    for metadata in ({"amount": 1500, "channel": "web"}, {"amount": 2500, "channel": "app"}, {}):
        seen = _seen(sim, customer_id)
        for _ in range(2):  # the second time from the caches
            assert validation._rule_passes(sim, rule, seen, metadata) == validation.rules_pass(
                sim, rule.validation_rules, seen, metadata
            )
        planned = credits.plan_credits(sim, event="order_placed", customer=seen, event_metadata=metadata)
        stars = any(credit.rule.id == "lern_loyal_stars" for credit in planned)
        has_card = customer_id in ("cust_alice", "cust_dave")
        assert stars == (has_card and validation.rules_pass(sim, rule.validation_rules, seen, metadata))


def test_rules_of_one_event_reading_more_than_the_first_get_it(sim: Simulator) -> None:
    st_ = sim.state
    order_rule = st_.earning_rules["lern_order"]
    order_rule.validation_rules = copy.deepcopy(RULE_SETS[0])  # customer only: a blank order
    st_.earning_rules["lern_loyal_stars"].validation_rules = copy.deepcopy(RULE_SETS[7])  # segments too
    seen = _seen(sim, "cust_alice")
    planned = credits.plan_credits(sim, event="order_placed", customer=seen, event_metadata={"amount": 900})
    assert [c.rule.id for c in planned] == ["lern_order", "lern_loyal_stars"]  # alice: gold, newsletter
    st_.segments["seg_newsletter"].customers.remove("cust_alice")
    planned = credits.plan_credits(sim, event="order_placed", customer=seen, event_metadata={"amount": 900})
    assert [c.rule.id for c in planned] == ["lern_order"]


def test_customers_who_are_members_of_nothing_earn_nothing_until_they_are(sim: Simulator) -> None:
    seen = _seen(sim, "cust_erin")
    assert credits.plan_credits(sim, event="order_placed", customer=seen, event_metadata={"amount": 900}) == []
    sim.state.members["lmbr_erin"] = Member(id="lmbr_erin", program_id="lprg_coffee_club", customer_id="cust_erin")
    card = sim.state.cards["lcrd_carol_beans"].model_copy(update={"id": "lcrd_erin", "member_id": "lmbr_erin"})
    sim.state.cards["lcrd_erin"] = card
    planned = credits.plan_credits(sim, event="order_placed", customer=seen, event_metadata={"amount": 900})
    assert [(c.rule.id, c.card.id, c.points) for c in planned] == [("lern_order", "lcrd_erin", 9)]


# -- ids and the ledger ------------------------------------------------------------------------------
def test_ids_are_the_keyed_hash_of_seed_kind_and_counter() -> None:
    ids = IdGenerator(7, {"event": 41})
    for round_ in range(3):
        if round_ == 2:
            ids.seed = 12345  # a new seed: new hashers
        for kind, prefix in PREFIXES.items():
            n = ids.state().get(kind, 0) + 1
            digest = hashlib.blake2b(f"{ids.seed}:{kind}:{n}".encode(), digest_size=16).hexdigest()
            assert ids.next(kind) == prefix + digest[:24]
            assert ids.next(kind, length=8).startswith(prefix)
    with pytest.raises(KeyError):
        ids.next("nope")
    assert "nope" not in ids.state()


def test_a_refused_posting_takes_no_id(sim: Simulator) -> None:
    card = sim.state.cards["lcrd_dave_beans"]
    before = sim.ids.state()
    with pytest.raises(ValueError, match="cannot take"):
        ledger.post(sim, card, type="ADMIN_DEBIT", points=-1)
    ghost = card.model_copy(update={"card_definition_id": "lcdef_nope"})
    with pytest.raises(KeyError):
        ledger.post(sim, ghost, type="ADMIN_CREDIT", points=1)
    assert sim.ids.state() == before
    record = ledger.post(sim, card, type="ADMIN_CREDIT", points=5, details={"reason": "r", "extra": 1})
    assert record.details == {"reason": "r", "metadata": {}, "points": {"total": 5}, "extra": 1}
    assert list(record.details) == ["reason", "metadata", "points", "extra"]
    assert sim.state.card_transactions[record.id] is record and card.balance == 5


# -- the metadata schema ------------------------------------------------------------------------------
_NUMBER = MetadataProperty(type="number", min=1, max=5)
_CHANNEL = MetadataProperty(type="string", enum=["web", "app"])
_CODE = MetadataProperty(type="string", min_length=2, max_length=3)

#: (property, value, the problem the 400 names; None: the value fits), by hand.
METADATA_VERDICTS: list[tuple[MetadataProperty, Any, str | None]] = [
    (_NUMBER, 1, None), (_NUMBER, 5, None), (_NUMBER, 2.5, None),
    (_NUMBER, 0, "should be >= 1, got 0"), (_NUMBER, 6, "should be <= 5, got 6"),
    (_NUMBER, 5.5, "should be <= 5, got 5.5"), (_NUMBER, float("inf"), "should be <= 5, got inf"),
    (_NUMBER, True, "should be of type number, got True"), (_NUMBER, "3", "should be of type number, got '3'"),
    (MetadataProperty(type="number", enum=[1, 2.5]), 2.5, None),
    (MetadataProperty(type="number", enum=[1, 2.5]), 2, "should be one of [1, 2.5], got 2"),
    (MetadataProperty(type="number", min=0), -0.5, "should be >= 0, got -0.5"),
    (MetadataProperty(type="string"), "", None), (MetadataProperty(type="string"), "x" * 1000, None),
    (MetadataProperty(type="string"), 1, "should be of type string, got 1"),
    (_CHANNEL, "web", None), (_CHANNEL, "store", "should be one of ['web', 'app'], got 'store'"),
    (_CODE, "ab", None), (_CODE, "abc", None),
    (_CODE, "a", "should have at least 2 characters/items, got 1"),
    (_CODE, "abcd", "should have at most 3 characters/items, got 4"),
    (MetadataProperty(type="boolean"), False, None), (MetadataProperty(type="boolean"), 0, "should be of type boolean, got 0"),
    (MetadataProperty(type="array", max_length=1), [1], None),
    (MetadataProperty(type="array", max_length=1), [1, 2], "should have at most 1 characters/items, got 2"),
    (MetadataProperty(type="array"), {"a": 1}, "should be of type array, got {'a': 1}"),
    (MetadataProperty(type="object"), {"a": 1}, None),
    (MetadataProperty(type="date"), "2026-03-06", None),
    (MetadataProperty(type="date"), "2026-03-06T10:00:00Z", "should be of type date, got '2026-03-06T10:00:00Z'"),
    (MetadataProperty(type="datetime"), "2026-03-06T10:00:00Z", None),
    (MetadataProperty(type="datetime"), "2026-03-06", "should be of type datetime, got '2026-03-06'"),
]  # fmt: skip


@pytest.mark.parametrize(("prop", "value", "problem"), METADATA_VERDICTS)
def test_metadata_values_against_their_schema(prop: MetadataProperty, value: Any, problem: str | None) -> None:
    schema = EventSchema(name="e", metadata={"p": prop})
    if problem is None:
        events_op.check_event_metadata(schema, {"p": value})
        return
    with pytest.raises(SimError) as caught:
        events_op.check_event_metadata(schema, {"p": value})
    assert (caught.value.status, caught.value.key) == (400, "metadata_validation_failed")
    assert caught.value.details == f"Property metadata.p of event 'e' {problem}"


def test_metadata_required_and_extra_keys() -> None:
    schema = EventSchema(name="e", metadata={"p": MetadataProperty(type="number", required=True)}, allow_extra=False)
    events_op.check_event_metadata(schema, {"p": 1})
    for metadata, name, problem in (({}, "p", "is required"), ({"p": None}, "p", "is required"),
                                    ({"p": 1, "q": 2}, "q", "is not defined in the event schema")):
        with pytest.raises(SimError) as caught:
            events_op.check_event_metadata(schema, metadata)
        assert caught.value.details == f"Property metadata.{name} of event 'e' {problem}"


# -- points, read once per rule -----------------------------------------------------------------------
@pytest.mark.parametrize("calculation", ["ORDER_METADATA_VALUE", "CUSTOMER_METADATA_VALUE"])
@pytest.mark.parametrize("prop", ["amount", "deep.amount", "", "missing", 7])
def test_points_of_a_metadata_value_read_flat_keys_and_paths(calculation: str, prop: Any) -> None:
    side = "order" if calculation == "ORDER_METADATA_VALUE" else "customer"
    detail = {"calculation_type": calculation, side: {"metadata": {"every": 10, "value": 2, "property": prop}}}
    metadata = {"amount": 95, "deep": {"amount": 41}, "": 30, "7": 70}
    expected = 2 * (lookup(metadata, str(prop)) // 10) if lookup(metadata, str(prop)) is not None else 0
    given = (metadata, {}) if side == "customer" else ({}, metadata)
    assert points.points_for("POINTS_PROPORTIONAL", detail, *given) == expected
