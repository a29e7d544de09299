"""The shortcuts of track_event (custom events) say what the plain definitions say.

- `operations.custom_events.plainly_valid` / `read_body`: a body the hand-written
  check accepts is one `models.CustomEventRequest` accepts, and is read as the
  model reads it (`new_customer_ref` too); whole event sequences give the same
  results and state either way;
- `earning`: `_open_now` (UTC copies of a program's bounds) against
  `_program_open`; `_customer_context` (a customer context reused) against a
  new one; rule inputs left out for rules that cannot read them
  (`_families`) against evaluating with everything (`rules_pass`); the early
  answer for customers who are members of nothing;
- `ids.IdGenerator` (prebuilt hashers) against the keyed hash it stands for;
- `ledger.post` refuses before it takes an id.
"""

from __future__ import annotations

import copy
import hashlib
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

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

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# -- the request body ---------------------------------------------------------------------------
def _model_body(request: Any) -> events_op.EventBody | None:
    """What the model reads of `request`, as `read_body` lays it out (None: refused)."""
    try:
        body = models.CustomEventRequest.model_validate(request)
    except ValidationError:
        return None
    return events_op.EventBody(
        event=body.event,
        customer={"id": body.customer.id, "source_id": body.customer.source_id},
        metadata=dict(body.metadata or {}),
        referral=body.referral.model_dump(exclude_none=True) if body.referral is not None else None,
        loyalty=body.loyalty.model_dump(exclude_none=True) if body.loyalty is not None else None,
        parsed=body,
    )


def _agrees(request: Any) -> None:
    expected = _model_body(request)
    if not events_op.plainly_valid(request):
        return  # the model decides
    assert expected is not None, f"plainly valid but refused by the model: {request!r}"
    fast = events_op.read_body(request)
    assert fast.event == expected.event
    assert fast.customer.get("id") == expected.customer["id"]
    assert fast.customer.get("source_id") == expected.customer["source_id"]
    assert fast.metadata == expected.metadata
    assert fast.referral == expected.referral
    assert fast.loyalty == expected.loyalty
    assert list(fast.referral or ()) == list(expected.referral or ())  # key order
    ref = events_op.new_customer_ref(fast)
    model_ref = expected.parsed.customer.model_dump(exclude_none=True) if expected.parsed else None
    assert ref == model_ref and list(ref) == list(model_ref or ())


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
def test_the_cheap_check_accepts_only_what_the_model_accepts(request_body: Any) -> None:
    _agrees(request_body)


def test_the_usual_bodies_take_the_cheap_way() -> None:
    assert events_op.plainly_valid({"event": "order_placed", "customer": {"source_id": "alice"},
                                    "metadata": {"amount": 3400, "channel": "web"}})
    assert events_op.plainly_valid({"event": "first_order_placed", "customer": {"source_id": "g"},
                                    "referral": {"code": "REF-ALICE"}, "metadata": {"amount": 1}})


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
def test_generated_bodies_are_read_as_the_model_reads_them(request_body: dict[str, Any]) -> None:
    _agrees(request_body)


def _sequence() -> list[dict[str, Any]]:
    """Events of every kind the demo knows, some refused."""
    out: list[dict[str, Any]] = []
    for i in range(40):
        who = ["alice", "bob", "carol", "dave", "erin", "frank", f"guest-{i % 7}"][i % 7]
        out.append({"event": "order_placed", "customer": {"source_id": who},
                    "metadata": {"amount": 1000 + 37 * i, "channel": ["web", "app", "store"][i % 3]}})
        out.append({"event": "review_written", "customer": {"source_id": who}, "metadata": {"rating": 1 + i % 5}})
        if i % 5 == 0:
            out.append({"event": "first_order_placed", "customer": {"source_id": f"new-{i}", "name": "N"},
                        "referral": {"code": "REF-ALICE"}, "metadata": {"amount": 5000}})
        if i % 6 == 0:
            out.append({"event": "order_placed", "customer": {"id": "cust_alice"},
                        "loyalty": {"code": "lcrd_alice_beans"}, "metadata": {"amount": 700}})
        if i % 9 == 0:
            out.append({"event": "order_placed", "customer": {"source_id": "bob"},
                        "loyalty": {"code": "lcrd_alice_beans"}, "metadata": {"amount": 700}})
            out.append({"event": "order_placed", "customer": {"source_id": "bob"}, "metadata": {"amount": -1}})
            out.append({"event": "nope", "customer": {"source_id": "bob"}})
            out.append({"event": "order_placed", "customer": {"id": "cust_nope"}, "metadata": {"amount": 1}})
    return out


def _run(sim: Simulator) -> list[Any]:
    outcomes: list[Any] = []
    for request in _sequence():
        sim.advance(timedelta(seconds=30))
        try:
            outcomes.append(sim.apply(TRACK_EVENT, request=copy.deepcopy(request)).model_dump(mode="json"))
        except SimError as exc:
            outcomes.append((type(exc).__name__, str(exc)))
    return outcomes


def test_the_cheap_way_and_the_model_give_the_same_results_and_state(
    sim: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = Simulator.restore(sim.snapshot())
    fast = _run(sim)
    monkeypatch.setattr(events_op, "plainly_valid", lambda request: False)
    slow = _run(other)
    assert fast == slow
    assert sim.state.dump() == other.state.dump()
    assert sim.ids.state() == other.ids.state()


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


# -- the metadata schema's usual values ---------------------------------------------------------------
_PROPERTIES = [
    MetadataProperty(type="number", required=True, min=0),
    MetadataProperty(type="number", min=1, max=5),
    MetadataProperty(type="number", enum=[1, 2.5]),
    MetadataProperty(type="string", enum=["web", "app"]),
    MetadataProperty(type="string"),
    MetadataProperty(type="string", min_length=2, max_length=3),
    MetadataProperty(type="boolean"),
    MetadataProperty(type="array", max_length=1),
    MetadataProperty(type="date"),
]
_VALUES = [0, -1, 1, 5, 6, 2.5, -0.5, float("nan"), float("inf"), True, False, "web", "x", "", "abcd",
           [1], [1, 2], {"a": 1}, "2026-03-06", "2026-03-06T10:00:00Z"]


@pytest.mark.parametrize("prop", _PROPERTIES)
def test_a_value_that_plainly_fits_is_one_the_full_check_accepts(prop: MetadataProperty) -> None:
    schema = EventSchema(name="e", metadata={"p": prop})
    taken = 0
    for value in _VALUES:
        if events_op._plainly_fits(prop.__dict__, value):
            taken += 1
            events_op._check_property(schema, "p", prop, value)  # does not raise
    if prop.type in ("number", "string") and prop.min_length is None and prop.enum != [1, 2.5]:
        assert taken > 0  # the usual values take the short way


@SETTINGS
@given(
    prop=st.builds(
        MetadataProperty,
        type=st.sampled_from(["number", "string", "boolean", "array"]),
        enum=st.one_of(st.none(), st.lists(st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b"])), max_size=3)),
        min=st.one_of(st.none(), st.floats(-5, 5)),
        max=st.one_of(st.none(), st.floats(-5, 5)),
        min_length=st.one_of(st.none(), st.integers(0, 3)),
        max_length=st.one_of(st.none(), st.integers(0, 3)),
    ),
    value=st.one_of(st.integers(-6, 6), st.floats(allow_nan=True), st.booleans(), st.text(max_size=4),
                    st.lists(st.integers(), max_size=4)),
)
def test_generated_values_that_plainly_fit_pass_the_full_check(prop: MetadataProperty, value: Any) -> None:
    schema = EventSchema(name="e", metadata={"p": prop})
    if events_op._plainly_fits(prop.__dict__, value):
        events_op._check_property(schema, "p", prop, value)
    try:
        events_op.check_event_metadata(schema, {"p": value})
        fast = None
    except SimError as exc:
        fast = str(exc)
    try:
        events_op._check_property(schema, "p", prop, value)
        full = None
    except SimError as exc:
        full = str(exc)
    assert fast == full  # the same verdict, the same message


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
