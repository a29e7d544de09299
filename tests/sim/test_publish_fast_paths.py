"""The shortcuts of publish, add_gift_balance and purchase_reward say what the
plain definitions say.

- `render.vouchers.wire_instant` (a record's instant handed to a `Timestamp`
  as it is) against the text `iso` writes;
- `render_voucher` (instants handed over as datetimes) against the voucher
  rendered through text, through changes of every field of the records it
  shows, in place or not, and across a restore;
- the request bodies read without their model (publish, gift balance, reward
  purchase) against the model, on generated bodies;
- `webhooks.envelope.EventBodies` (one event's bodies put together from the
  payload encoded once) against `encode_body(build_envelope(...))` of the
  payload as JSON-ready data, which is what deliveries carried before;
- `loyalty.purchases._outside_window` (UTC copies of a program's bounds)
  against comparing the bounds themselves.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from promolab import Simulator, models
from promolab.models.common import Timestamp
from promolab.sim import records
from promolab.sim.gift import gift_balance_added_data
from promolab.sim.loyalty.purchases import _outside_window
from promolab.sim.operations import balance as balance_op
from promolab.sim.operations import publishing as publish_op
from promolab.sim.operations import purchases as purchase_op
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.operations.publishing import PUBLISH
from promolab.sim.refusals import SimError
from promolab.sim.render import (
    iso,
    render_balance,
    render_customer,
    render_simple_voucher,
    render_voucher_transaction,
)
from promolab.sim.render.vouchers import (
    _asset,
    render_simple_campaign,
    render_voucher,
    voucher_created_at,
    wire_instant,
)
from promolab.sim.request_parsing import parse
from promolab.sim.webhooks import build_envelope, encode_body, payload_type
from promolab.sim.webhooks.envelope import EventBodies, target_of

DEMO = Path(__file__).parents[2] / "data" / "scenarios" / "demo.yaml"
SHARED = [HealthCheck.function_scoped_fixture]


@pytest.fixture(scope="module")
def demo_snapshot() -> dict[str, Any]:
    return Simulator.from_scenario(DEMO).snapshot()


@pytest.fixture
def sim(demo_snapshot: dict[str, Any]) -> Simulator:
    return Simulator.restore(demo_snapshot)


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """What a call gives: its value, or the kind and text of its refusal."""
    try:
        return "ok", call()
    except SimError as exc:
        return "refused", (exc.status, exc.key, exc.details)
    except ValidationError as exc:
        return "invalid", [(e["type"], e["loc"][-1:]) for e in exc.errors(include_url=False)]
    except (ValueError, TypeError, OverflowError) as exc:
        return "error", type(exc).__name__


# -- instants ---------------------------------------------------------------------------------------
_TIMESTAMP: TypeAdapter[datetime] = TypeAdapter(Timestamp)
zones = st.sampled_from([None, UTC, timezone(timedelta(0)), timezone(timedelta(hours=2)),
                         timezone(timedelta(hours=-5, minutes=-30))])


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=zones))
@example(datetime(999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC))
@example(datetime(1000, 1, 1, tzinfo=timezone(timedelta(hours=2))))
@example(datetime(1001, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=2))))
@example(datetime(2026, 3, 6, 10, 0, 0, 999, tzinfo=UTC))
@example(datetime(2026, 3, 6, 10, 0, 0))
def test_wire_instant_validates_like_the_text(moment: datetime) -> None:
    got = _outcome(lambda: _TIMESTAMP.validate_python(wire_instant(moment)))
    assert got == _outcome(lambda: _TIMESTAMP.validate_python(iso(moment)))
    if got[0] == "ok":
        assert got[1].tzinfo is UTC or got[1].utcoffset() == timedelta(0)


def test_wire_instant_of_none() -> None:
    assert wire_instant(None) is None


# -- the publication's voucher --------------------------------------------------------------------
def _reference_voucher(voucher: records.Voucher, campaign: records.Campaign | None, seed: int) -> models.Voucher:
    """The voucher as it was rendered before the shortcuts: every part from a
    fresh dict, instants through their text."""
    code = quote(voucher.code, safe="")
    gift = voucher.gift
    return models.Voucher.model_validate({
        "id": voucher.id,
        "code": voucher.code,
        "campaign": campaign.name if campaign is not None else None,
        "campaign_id": voucher.campaign_id,
        "category": campaign.category if campaign is not None else None,
        "category_id": campaign.category_id if campaign is not None else None,
        "type": voucher.type,
        "discount": voucher.discount,
        "gift": None if gift is None else {"amount": gift.amount, "balance": gift.balance, "effect": gift.effect},
        "loyalty_card": None,
        "start_date": iso(voucher.start_date),
        "expiration_date": iso(voucher.expiration_date),
        "validity_timeframe": (
            campaign.validity_timeframe.model_dump() if campaign is not None and campaign.validity_timeframe else None
        ),
        "validity_day_of_week": campaign.validity_day_of_week if campaign is not None else None,
        "active": voucher.active,
        "additional_info": voucher.additional_info,
        "metadata": voucher.metadata,
        "assets": {"qr": _asset(seed, "qr", voucher.id), "barcode": _asset(seed, "barcode", voucher.id)},
        "is_referral_code": voucher.is_referral_code,
        "created_at": iso(voucher_created_at(voucher, campaign)),
        "updated_at": iso(voucher.updated_at),
        "holder_id": voucher.holder_id,
        "redemption": {
            "quantity": voucher.redemption_quantity if voucher.redemption_quantity is not None else 0,
            "redeemed_quantity": voucher.redeemed_quantity,
            "object": "list",
            "url": f"/v1/vouchers/{code}/redemptions?page=1&limit=10",
        },
        "publish": {
            "object": "list",
            "count": voucher.publish_count,
            "url": f"/v1/vouchers/{code}/publications?page=1&limit=10",
        },
        "object": "voucher",
    })


def _campaign_of(sim: Simulator, voucher: records.Voucher) -> records.Campaign | None:
    return sim.state.campaigns.get(voucher.campaign_id) if voucher.campaign_id is not None else None


def _same_voucher(sim: Simulator, voucher: records.Voucher) -> models.Voucher:
    campaign = _campaign_of(sim, voucher)
    got = render_voucher(voucher, campaign, seed=sim.seed)
    want = _reference_voucher(voucher, campaign, sim.seed)
    assert got == want
    assert got.model_dump_json() == want.model_dump_json()
    return got


_OTHER_TZ = timezone(timedelta(hours=3))
_MOMENT = datetime(2026, 4, 1, 12, 30, 15, 123456, tzinfo=UTC)

#: Changes of each field of a voucher record, applied to the newsletter code
#: a customer was just given. The keys must name every field of the record.
VOUCHER_CHANGES: dict[str, list[Callable[[records.Voucher], None]]] = {
    "id": [lambda v: setattr(v, "id", v.id + "_x")],
    "code": [lambda v: setattr(v, "code", "NEWS/À B?"), lambda v: setattr(v, "code", "NEWS-2")],
    "campaign_id": [lambda v: setattr(v, "campaign_id", "camp_welcome_codes"), lambda v: setattr(v, "campaign_id", None)],
    "type": [lambda v: setattr(v, "type", "GIFT_VOUCHER")],
    "discount": [
        lambda v: setattr(v, "discount", {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ORDER"}),
        lambda v: v.discount.update(amount_off=700) if v.discount else None,
        lambda v: setattr(v, "discount", None),
        lambda v: setattr(v, "discount", {"type": "PERCENT", "percent_off": 10}),
        lambda v: v.discount.update(percent_off=10.0) if v.discount else None,
    ],
    "gift": [
        lambda v: setattr(v, "gift", records.GiftState(amount=100, balance=50)),
        lambda v: setattr(v.gift, "balance", 20) if v.gift else None,
        lambda v: setattr(v, "gift", None),
    ],
    "active": [lambda v: setattr(v, "active", not v.active)],
    "start_date": [lambda v: setattr(v, "start_date", _MOMENT), lambda v: setattr(v, "start_date", None)],
    "expiration_date": [
        lambda v: setattr(v, "expiration_date", _MOMENT + timedelta(days=9)),
        lambda v: setattr(v, "expiration_date", (_MOMENT + timedelta(days=9)).astimezone(_OTHER_TZ)),
    ],
    "additional_info": [lambda v: setattr(v, "additional_info", "read me")],
    "metadata": [
        lambda v: v.metadata.update(a=1),
        lambda v: v.metadata.update(a=True),
        lambda v: v.metadata.update(a=1.0),
        lambda v: setattr(v, "metadata", {"b": 2, **v.metadata}),
        lambda v: v.metadata.update(nested={"k": [1, 2]}),
        lambda v: v.metadata["nested"]["k"].append(3) if "nested" in v.metadata else None,
    ],
    "is_referral_code": [lambda v: setattr(v, "is_referral_code", not v.is_referral_code)],
    "holder_id": [lambda v: setattr(v, "holder_id", "cust_bob"), lambda v: setattr(v, "holder_id", None)],
    "redemption_quantity": [lambda v: setattr(v, "redemption_quantity", 3), lambda v: setattr(v, "redemption_quantity", None)],
    "redeemed_quantity": [lambda v: setattr(v, "redeemed_quantity", v.redeemed_quantity + 1)],
    "redeemed_amount": [lambda v: setattr(v, "redeemed_amount", v.redeemed_amount + 100)],
    "publish_count": [lambda v: setattr(v, "publish_count", v.publish_count + 1)],
    "created_at": [lambda v: setattr(v, "created_at", None), lambda v: setattr(v, "created_at", _MOMENT)],
    "updated_at": [
        lambda v: setattr(v, "updated_at", _MOMENT + timedelta(milliseconds=1)),
        lambda v: setattr(v, "updated_at", (_MOMENT + timedelta(milliseconds=1)).astimezone(_OTHER_TZ)),
        lambda v: setattr(v, "updated_at", _MOMENT + timedelta(microseconds=1500)),
    ],
}

#: Changes of each field of a campaign record (the voucher shows some of them).
CAMPAIGN_CHANGES: dict[str, list[Callable[[records.Campaign], None]]] = {
    "id": [lambda c: setattr(c, "id", c.id)],
    "name": [lambda c: setattr(c, "name", "Renamed")],
    "type": [lambda c: setattr(c, "type", "PROMOTION")],
    "active": [lambda c: setattr(c, "active", not c.active)],
    "start_date": [lambda c: setattr(c, "start_date", _MOMENT)],
    "expiration_date": [lambda c: setattr(c, "expiration_date", _MOMENT + timedelta(days=1))],
    "validity_timeframe": [
        lambda c: setattr(c, "validity_timeframe", records.ValidityTimeframe(interval="P2D", duration="PT1H")),
        lambda c: setattr(c.validity_timeframe, "duration", "PT2H") if c.validity_timeframe else None,
        lambda c: setattr(c, "validity_timeframe", None),
    ],
    "validity_day_of_week": [
        lambda c: setattr(c, "validity_day_of_week", [1, 2]),
        lambda c: c.validity_day_of_week.append(3) if c.validity_day_of_week is not None else None,
    ],
    "category_id": [lambda c: setattr(c, "category_id", "cat_1")],
    "category": [lambda c: setattr(c, "category", "Coffee")],
    "metadata": [lambda c: c.metadata.update(x=1)],
    "join_once": [lambda c: setattr(c, "join_once", not c.join_once)],
    "discount": [lambda c: setattr(c, "discount", {"type": "AMOUNT", "amount_off": 100})],
    "gift_amount": [lambda c: setattr(c, "gift_amount", 1000)],
    "referral": [lambda c: setattr(c, "referral", None)],
    "created_at": [lambda c: setattr(c, "created_at", _MOMENT), lambda c: setattr(c, "created_at", None)],
}


def test_the_changes_cover_every_field_of_the_records() -> None:
    assert set(VOUCHER_CHANGES) == set(records.Voucher.model_fields)
    assert set(CAMPAIGN_CHANGES) == set(records.Campaign.model_fields)


_CHANGES = [("voucher", name, k) for name, fs in VOUCHER_CHANGES.items() for k in range(len(fs))] + [
    ("campaign", name, k) for name, fs in CAMPAIGN_CHANGES.items() for k in range(len(fs))
]


def _published(sim: Simulator) -> records.Voucher:
    pub = sim.apply(PUBLISH, request={"customer": {"source_id": "alice"}, "campaign": {"id": "camp_newsletter"}},
                    join_once=True)
    return sim.state.vouchers[pub.voucher.id]


@pytest.mark.parametrize(("target", "name", "k"), _CHANGES)
def test_a_changed_voucher_or_campaign_renders_as_through_text(
    sim: Simulator, target: str, name: str, k: int
) -> None:
    voucher = _published(sim)
    _same_voucher(sim, voucher)
    if target == "voucher":
        VOUCHER_CHANGES[name][k](voucher)
    else:
        campaign = _campaign_of(sim, voucher)
        assert campaign is not None
        CAMPAIGN_CHANGES[name][k](campaign)
    try:
        want = _reference_voucher(voucher, _campaign_of(sim, voucher), sim.seed)
    except ValidationError:
        with pytest.raises(ValidationError):
            render_voucher(voucher, _campaign_of(sim, voucher), seed=sim.seed)
        return
    assert _same_voucher(sim, voucher) == want


@pytest.mark.parametrize(("first", "then"), [
    ({"a": 1}, {"a": True}), ({"a": 1}, {"a": 1.0}), ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ({"a": 0}, {"a": False}),
])
def test_free_form_parts_equal_in_python_but_not_on_the_wire_render_apart(
    sim: Simulator, first: dict[str, Any], then: dict[str, Any]
) -> None:
    voucher = _published(sim)
    voucher.metadata.clear()
    voucher.metadata.update(first)
    shown = _same_voucher(sim, voucher)
    voucher.metadata.clear()
    voucher.metadata.update(then)  # in place: == says it is the same dict
    assert _same_voucher(sim, voucher).model_dump_json() != shown.model_dump_json()
    voucher.discount = {"type": "PERCENT", "percent_off": 10, "effect": "APPLY_TO_ORDER"}
    shown = _same_voucher(sim, voucher)
    voucher.discount["percent_off"] = 10.0
    assert _same_voucher(sim, voucher).model_dump_json() != shown.model_dump_json()


@settings(max_examples=60, deadline=None, suppress_health_check=SHARED)
@given(st.lists(st.sampled_from(_CHANGES), max_size=12))
def test_vouchers_follow_any_sequence_of_changes(demo_snapshot: dict[str, Any], changes: list[Any]) -> None:
    sim = Simulator.restore(demo_snapshot)
    voucher = _published(sim)
    _same_voucher(sim, voucher)
    for target, name, k in changes:
        if target == "voucher":
            VOUCHER_CHANGES[name][k](voucher)
        else:
            campaign = _campaign_of(sim, voucher)
            if campaign is None:
                continue
            CAMPAIGN_CHANGES[name][k](campaign)
        try:
            _reference_voucher(voucher, _campaign_of(sim, voucher), sim.seed)
        except ValidationError:
            with pytest.raises(ValidationError):
                render_voucher(voucher, _campaign_of(sim, voucher), seed=sim.seed)
            continue
        _same_voucher(sim, voucher)


def test_publications_follow_publishing_and_the_seed(sim: Simulator) -> None:
    first = sim.apply(PUBLISH, request={"customer": {"source_id": "zoe"}, "voucher": "WELCOME-OPEN-1"})  # no join_once
    again = sim.apply(PUBLISH, request={"customer": {"source_id": "zoe"}, "voucher": "WELCOME-OPEN-1"})
    assert again.voucher.publish.count == first.voucher.publish.count + 1
    assert first.voucher.publish.count == 1, "an earlier answer keeps what it showed"
    voucher = sim.state.vouchers[first.voucher.id]
    _same_voucher(sim, voucher)
    sim.seed += 1
    assert _same_voucher(sim, voucher).assets != again.voucher.assets


def test_a_restore_or_reset_starts_afresh(sim: Simulator) -> None:
    snapshot = sim.snapshot()
    voucher = _published(sim)
    shown = _same_voucher(sim, voucher)
    sim.load_snapshot(snapshot)
    voucher = sim.state.vouchers[voucher.id]
    assert voucher.holder_id != shown.holder_id or voucher.publish_count != shown.publish.count
    assert _same_voucher(sim, voucher) != shown
    voucher = _published(sim)
    _same_voucher(sim, voucher)
    sim.reset()
    _same_voucher(sim, sim.state.vouchers[voucher.id])


def test_a_publication_is_what_a_fresh_rendering_gives(sim: Simulator) -> None:
    for who in ("alice", "alice", "bob", "guest-1", "alice"):
        pub = sim.apply(PUBLISH, request={"customer": {"source_id": who}, "campaign": {"id": "camp_newsletter"}},
                        join_once=True)
        record = sim.state.publications[pub.id]
        voucher = sim.state.vouchers[record.voucher_id]
        fresh = models.Publication.model_validate({
            **pub.model_dump(),
            "created_at": iso(record.created_at),
            "voucher": _reference_voucher(voucher, _campaign_of(sim, voucher), sim.seed).model_dump(),
        })
        assert pub == fresh and pub.model_dump_json() == fresh.model_dump_json()


# -- request bodies ------------------------------------------------------------------------------------
texts = st.sampled_from(["", "a", "alice", "camp_newsletter", "NEWS-1", "é"])
scalars = st.one_of(st.none(), texts, st.integers(-3, 3), st.booleans(), st.floats(allow_nan=False))
refs = st.dictionaries(st.sampled_from(["id", "source_id", "name", "email", "metadata", "Name"]),
                       scalars | st.dictionaries(texts, scalars, max_size=2), max_size=3)
publish_bodies = st.dictionaries(
    st.sampled_from(["voucher", "campaign", "customer", "source_id", "channel", "metadata", "extra"]),
    scalars | refs, max_size=5,
)


def _model_publish_body(request: Any) -> publish_op.PublishBody:
    parsed = parse(models.PublishRequest, request)
    campaign = parsed.campaign
    return publish_op.PublishBody(
        voucher=parsed.voucher,
        campaign=None if campaign is None else (campaign.id, campaign.name),
        customer=parsed.customer.model_dump(exclude_none=True),
        source_id=parsed.source_id,
        metadata=parsed.metadata,
        channel=parsed.channel,
    )


def _typed(value: Any) -> Any:
    """`value` with the type of every part spelt out (== takes 1 and True for one)."""
    if isinstance(value, dict):
        return [(k, _typed(v)) for k, v in value.items()]
    if isinstance(value, tuple | list):
        return [type(value).__name__, *(_typed(v) for v in value)]
    return type(value).__name__, value


@settings(max_examples=600, deadline=None)
@given(publish_bodies)
@example({"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "alice"}})
@example({"voucher": "NEWS-1", "customer": {"id": "c", "source_id": "s", "name": "", "email": "e"}, "channel": "X"})
@example({"campaign": {"name": "n", "id": None}, "customer": {"source_id": "s", "id": None}, "source_id": "p"})
def test_publish_bodies_read_as_the_model_reads_them(request: dict[str, Any]) -> None:
    got = _outcome(lambda: publish_op.read_body(request))
    want = _outcome(lambda: _model_publish_body(request))
    assert _typed(got) == _typed(want)
    if publish_op.plain_body(request) is not None:
        assert want[0] == "ok"


balance_bodies = st.dictionaries(
    st.sampled_from(["amount", "source_id", "reason", "extra"]),
    st.one_of(scalars, st.integers(), st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1])),
    max_size=3,
)


@settings(max_examples=400, deadline=None)
@given(balance_bodies)
@example({"amount": 500})
@example({"amount": 2**63})
@example({"amount": True})
def test_balance_bodies_read_as_the_model_reads_them(request: dict[str, Any]) -> None:
    def model_body() -> balance_op.BalanceBody:
        parsed = parse(models.AddBalanceRequest, request)
        return balance_op.BalanceBody(parsed.amount, parsed.source_id, parsed.reason)

    assert _typed(_outcome(lambda: balance_op.read_body(request))) == _typed(_outcome(model_body))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["reward_id", "extra"]), scalars, max_size=2) | scalars)
@example({"reward_id": "lrew_mug"})
@example({"reward_id": ""})
def test_purchase_bodies_read_as_the_model_reads_them(request: Any) -> None:
    got = _outcome(lambda: purchase_op.read_reward_id(request))
    assert _typed(got) == _typed(_outcome(lambda: parse(models.RewardPurchaseRequest, request).reward_id))


# -- webhook bodies --------------------------------------------------------------------------------------
def _iso_instants(body: dict[str, Any]) -> dict[str, Any]:
    """`body` with its instants as `iso` text, as the renderers wrote them before."""
    return {k: iso(v) if isinstance(v, datetime) else v for k, v in body.items()}


def _reference_data(sim: Simulator, voucher: records.Voucher, transaction: records.VoucherTransaction) -> dict[str, Any]:
    """The gift payload as it was built before the shortcuts: the customer
    written out and checked again, instants as text, the checked dict."""
    campaign = sim.state.campaigns[voucher.campaign_id or ""]
    data = {
        "customer": render_customer(sim.state.customers[voucher.holder_id or ""]).model_dump(mode="json"),
        "campaign": render_simple_campaign(campaign),
        "voucher": _iso_instants(render_simple_voucher(voucher, campaign, fallback_created_at=sim.now)),
        "balance": render_balance(voucher, transaction.amount),
        "transaction": _iso_instants(render_voucher_transaction(transaction)),
    }
    checked: dict[str, Any] = models.GiftBalanceAddedData.model_validate(data).model_dump(mode="json")
    return checked


def _reference_envelope(config: records.WebhookConfig, data: dict[str, Any], sendout_id: str, *, project_id: str,
                        event_type: str, event_id: str, created_at: datetime, entity_id: str,
                        group_id: str) -> dict[str, Any]:
    """`build_envelope` as it was written before the shortcuts."""
    kind = payload_type(event_type)
    envelope = {
        "id": sendout_id,
        "project_id": project_id,
        "created_at": iso(created_at),
        "type": kind,
        "data": data,
        "source": {"id": config.id, "object": "webhook", "target_url": target_of(config)},
        "event": {
            "id": event_id, "type": kind, "created_at": iso(created_at), "entity_id": entity_id,
            "group_id": group_id, "event_source": {"channel": "API"},
        },
    }
    checked: dict[str, Any] = models.WebhookEnvelope.model_validate(envelope).model_dump(mode="json")
    return checked


_AWKWARD_METADATA = [
    {},
    {"f": 0.1, "big": 1e16, "small": 1e-7, "i": 2**62, "b": True, "n": None, "s": "ü€😀"},
    {"nested": {"list": [1, 2.5, "x"]}, "when": datetime(2026, 1, 1, tzinfo=UTC)},
]


def _gift_card(sim: Simulator, metadata: dict[str, Any]) -> tuple[records.Voucher, records.VoucherTransaction]:
    voucher = sim.state.vouchers[sim.indexes.voucher_by_code["GIFT-BOB-25"]]
    customer = sim.state.customers[voucher.holder_id or ""]
    customer.metadata = metadata
    customer.name = "Bøb \u2028 \"O\" \\ \x01"
    sim.state.campaigns["camp_gift"].metadata = metadata
    for hook in sim.state.webhooks.values():
        hook.status = "DISABLED"  # credited silently: the payload is built below
    sim.apply(ADD_GIFT_BALANCE, code="GIFT-BOB-25", request={"amount": 500, "reason": "für dich"})
    return voucher, next(reversed(sim.state.voucher_transactions.values()))


@pytest.mark.parametrize("metadata", _AWKWARD_METADATA)
def test_the_gift_payload_is_the_checked_dict_it_was(sim: Simulator, metadata: dict[str, Any]) -> None:
    voucher, transaction = _gift_card(sim, metadata)
    for _ in range(2):  # the second time with the kept customer and campaign
        data = gift_balance_added_data(sim, voucher, transaction)
        assert data.model_dump(mode="json") == _reference_data(sim, voucher, transaction)


@pytest.mark.parametrize("metadata", _AWKWARD_METADATA)
def test_event_bodies_are_the_encoded_envelopes(sim: Simulator, metadata: dict[str, Any]) -> None:
    voucher, transaction = _gift_card(sim, metadata)
    data = gift_balance_added_data(sim, voucher, transaction)
    as_json = _reference_data(sim, voucher, transaction)
    configs = list(sim.state.webhooks.values())
    configs.append(configs[0].model_copy(update={"id": "wh_url", "url": 'https://exämple.test/hook?a=1&b="2"'}))
    common: dict[str, Any] = {
        "project_id": sim.state.project.id,
        "event_type": models.GIFT_BALANCE_ADDED,
        "event_id": "evt_1",
        "created_at": sim.now + timedelta(microseconds=1500),
        "entity_id": voucher.id,
        "group_id": "v-1",
    }
    for source in (data, as_json):
        bodies = EventBodies(source, **common)
        for n, config in enumerate(configs):
            want = _reference_envelope(config, as_json, f"whs_{n}", **common)
            assert build_envelope(config=config, data=source, sendout_id=f"whs_{n}", **common) == want
            assert bodies.body(config, f"whs_{n}") == encode_body(want).decode("utf-8")


def test_an_emitted_webhook_carries_the_envelope_it_did(sim: Simulator) -> None:
    voucher, _ = _gift_card(sim, _AWKWARD_METADATA[1])
    for hook in sim.state.webhooks.values():
        hook.status = "ACTIVE"
    queued = len(sim.state.pending_deliveries)
    sim.apply(ADD_GIFT_BALANCE, code="GIFT-BOB-25", request={"amount": 700})
    transaction = next(reversed(sim.state.voucher_transactions.values()))
    sent = [p for p in sim.state.pending_deliveries[queued:] if p.event_type == models.GIFT_BALANCE_ADDED]
    assert len(sent) == len(sim.state.webhooks)
    data = _reference_data(sim, voucher, transaction)
    for pending in sent:
        body = json.loads(pending.body)
        want = _reference_envelope(
            sim.state.webhooks[pending.webhook_id], data, pending.sendout_id,
            project_id=sim.state.project.id, event_type=models.GIFT_BALANCE_ADDED, event_id=body["event"]["id"],
            created_at=sim.now, entity_id=voucher.id, group_id=body["event"]["group_id"],
        )
        assert pending.body == encode_body(want).decode("utf-8")


# -- program windows ----------------------------------------------------------------------------------
instants = st.none() | st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1),
                                    timezones=st.sampled_from([UTC, timezone(timedelta(hours=-7))]))


@settings(max_examples=200, deadline=None, suppress_health_check=SHARED)
@given(st.lists(st.tuples(instants, instants, st.booleans()), min_size=1, max_size=5))
def test_program_windows_follow_their_bounds(sim: Simulator, steps: list[Any]) -> None:
    program = sim.state.programs["lprg_coffee_club"]
    for start, end, through_pydantic in steps:
        if through_pydantic:  # instants as records hold them (pydantic's own tzinfo)
            program = program.model_copy(update={})
            sim.state.programs[program.id] = program
            program.start_date = None if start is None else records.Campaign.model_validate(
                {"id": "c", "name": "n", "start_date": start.isoformat()}).start_date
        else:
            program.start_date = start
        program.expiration_date = end
        now = sim.now
        want = (program.start_date is not None and now < program.start_date) or (
            program.expiration_date is not None and now > program.expiration_date
        )
        assert _outside_window(sim, program, now) == want
