"""Custom events (endpoint 7, POST /v1/events).

1. The body is parsed with `CustomEventRequest` (400 `invalid_payload`,
   which covers an event name outside 1..300 characters).
2. The name must be in the event schema: otherwise 400 `invalid_payload`, or,
   with `settings.undefined_events: accept`, the event is recorded without
   any effect (no earning, no referral).
3. Metadata is checked against the event's schema (400
   `metadata_validation_failed` naming the property): required, type, enum,
   min/max (numbers), min_length/max_length (strings and arrays), and keys
   outside the schema when the schema has `allow_extra: false`. A null value
   counts as absent.
4. Effects, all or nothing: the customer is created when unknown, earning
   rules credit cards (`promolab.sim.earning`), a referral converts
   (`promolab.sim.referrals`), and the event is recorded (`TrackedEvent`).
   Everything is checked before anything changes.

The response is the interface's custom event result (`referral` and
`loyalty` null, `metadata` as sent).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from ... import models
from ..earning import apply_credits, card_named, plan_credits
from ..errors import BadRequest, InvalidPayload
from ..inputs import parse
from ..publishing import create_customer, find_customer
from ..records import EventSchema, MetadataProperty, TrackedEvent
from ..referrals import apply_conversion, plan_conversion
from ..render import render_event_result
from . import operation

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["check_event_metadata", "track_event"]


@operation("track_event", write=True)
def track_event(sim: Simulator, *, request: Any) -> models.CustomEventResult:
    if not isinstance(request, Mapping):
        raise InvalidPayload("Payload should be an object")
    body = parse(models.CustomEventRequest, request)
    metadata = dict(body.metadata or {})
    schema = sim.state.event_schemas.get(body.event)
    if schema is None and sim.state.settings.undefined_events != "accept":
        raise InvalidPayload(
            f"Property .event: custom event {body.event!r} is not defined in the project's event schema"
        )
    if schema is not None:
        check_event_metadata(schema, metadata)

    named = body.customer
    customer = find_customer(sim, {"id": named.id, "source_id": named.source_id})
    # What the rules see of the customer (read only): the stored one, or the
    # one about to be created (the request's customer, dumped only then).
    customer_ref: dict[str, Any] | None = None
    if customer is not None:
        seen: Mapping[str, Any] = {
            "id": customer.id,
            "source_id": customer.source_id,
            "name": customer.name,
            "email": customer.email,
            "metadata": customer.metadata,
        }
    else:
        customer_ref = named.model_dump(exclude_none=True)
        seen = {k: v for k, v in customer_ref.items() if k != "id"}
    customer_id = customer.id if customer is not None else None

    credits = []
    conversion = None
    if schema is not None:
        card = card_named(sim, body.loyalty.code, customer_id) if body.loyalty is not None else None
        credits = plan_credits(sim, event=body.event, customer=seen, event_metadata=metadata, card=card)
        if body.referral is not None:
            conversion = plan_conversion(
                sim,
                event=body.event,
                referral=body.referral.model_dump(exclude_none=True),
                referee_id=customer_id,
            )

    # -- nothing refused: apply -------------------------------------------------------------
    if customer is None:
        assert customer_ref is not None
        customer = create_customer(sim, customer_ref)
    event_id = sim.ids.next("event")
    apply_credits(sim, credits, event=body.event, event_id=event_id)
    if conversion is not None:
        apply_conversion(sim, conversion, referee_id=customer.id, event_id=event_id)
    record = TrackedEvent(
        id=event_id,
        name=body.event,
        customer_id=customer.id,
        metadata=metadata,
        referral=body.referral.model_dump(exclude_none=True) if body.referral is not None else None,
        loyalty=body.loyalty.model_dump(exclude_none=True) if body.loyalty is not None else None,
        created_at=sim.now,
    )
    sim.state.events[record.id] = record
    return render_event_result(record, customer)


# -- metadata schema -------------------------------------------------------------------------------
def _fail(event: str, name: str, problem: str) -> BadRequest:
    return BadRequest(
        f"Property metadata.{name} of event {event!r} {problem}",
        key="metadata_validation_failed",
        message="Metadata validation failed",
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_date(value: Any) -> bool:
    if not isinstance(value, str) or len(value) != 10:
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_datetime(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return "T" in value or " " in value


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "date": _is_date,
    "datetime": _is_datetime,
    "object": lambda v: isinstance(v, Mapping),
    "array": lambda v: isinstance(v, list),
}


def _check_property(event: str, name: str, prop: MetadataProperty, value: Any) -> None:
    if not _TYPE_CHECKS[prop.type](value):
        raise _fail(event, name, f"should be of type {prop.type}, got {value!r}")
    if prop.enum is not None and value not in prop.enum:
        raise _fail(event, name, f"should be one of {prop.enum}, got {value!r}")
    if prop.type == "number":
        if prop.min is not None and value < prop.min:
            raise _fail(event, name, f"should be >= {prop.min:g}, got {value!r}")
        if prop.max is not None and value > prop.max:
            raise _fail(event, name, f"should be <= {prop.max:g}, got {value!r}")
    if isinstance(value, str | list):
        if prop.min_length is not None and len(value) < prop.min_length:
            raise _fail(event, name, f"should have at least {prop.min_length} characters/items, got {len(value)}")
        if prop.max_length is not None and len(value) > prop.max_length:
            raise _fail(event, name, f"should have at most {prop.max_length} characters/items, got {len(value)}")


def check_event_metadata(schema: EventSchema, metadata: Mapping[str, Any]) -> None:
    """Raise 400 `metadata_validation_failed` for the first property (schema
    order, then extra keys in request order) that breaks the event's schema."""
    for name, prop in schema.metadata.items():
        value = metadata.get(name)
        if value is None:
            if prop.required:
                raise _fail(schema.name, name, "is required")
            continue
        _check_property(schema.name, name, prop, value)
    if not schema.allow_extra:
        for name in metadata:
            if name not in schema.metadata:
                raise _fail(schema.name, name, "is not defined in the event schema")
