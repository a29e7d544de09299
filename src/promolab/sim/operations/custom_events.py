"""Custom events (endpoint 7, `endpoints.TRACK_EVENT`).

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
from ...models import endpoints
from ..customers import create_customer, find_customer
from ..earning.credits import apply_credits, card_named, plan_credits
from ..fast_validate import validated
from ..operation import bind
from ..records import EventSchema, TrackedEvent
from ..referrals import apply_conversion, plan_conversion
from ..refusals import BadRequest, InvalidPayload
from ..render import render_event_result
from ..request_parsing import parse

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["check_event_metadata", "track_event"]


def track_event(sim: Simulator, *, request: Any) -> models.CustomEventResult:
    body = parse(models.CustomEventRequest, request)
    event = body.event
    # The model's own copy of the body's metadata (the event record keeps another).
    metadata = body.metadata if body.metadata is not None else {}
    loyalty = body.loyalty
    st = sim.state
    schema = st.event_schemas.get(event)
    if schema is None and st.settings.undefined_events != "accept":
        raise InvalidPayload(
            f"Property .event: custom event {event!r} is not defined in the project's event schema"
        )
    if schema is not None:
        check_event_metadata(schema, metadata)

    given = body.customer
    customer = find_customer(sim, given)
    # What the rules see of the customer (read only; earning reads its id,
    # source_id, name, email and metadata): the stored customer's fields as
    # they are, or, for one about to be created, the request's customer as
    # parsed (no id: `find_customer` answers None only for a bare source_id).
    seen: Mapping[str, Any] = customer.__dict__ if customer is not None else given.__dict__
    customer_id: str | None = seen["id"]

    credits = []
    conversion = None
    referral = body.referral.model_dump(exclude_none=True) if body.referral is not None else None
    if schema is not None:
        card = card_named(sim, loyalty.code, customer_id) if loyalty is not None else None
        credits = plan_credits(sim, event=event, customer=seen, event_metadata=metadata, card=card)
        if referral is not None:
            credited: dict[str, int] = {}
            for credit in credits:
                credited[credit.card.id] = credited.get(credit.card.id, 0) + credit.points
            conversion = plan_conversion(
                sim, event=event, referral=referral, referee_id=customer_id, credited=credited
            )

    # -- nothing refused: apply -------------------------------------------------------------
    if customer is None:
        customer = create_customer(sim, given)
        customer_id = customer.id
    event_id = sim.ids.next("event")
    if credits:
        apply_credits(sim, credits, event=event, event_id=event_id)
    if conversion is not None:
        apply_conversion(sim, conversion, referee_id=customer.id, event_id=event_id)
    record = validated(
        TrackedEvent,
        {
            "id": event_id,
            "name": event,
            "customer_id": customer_id,
            "metadata": metadata,
            "referral": referral,
            "loyalty": None if loyalty is None else {"code": loyalty.code},
            "created_at": sim.now,
        },
    )
    st.events[event_id] = record
    return render_event_result(record, customer)


# -- metadata schema -------------------------------------------------------------------------------
def _fail(event: str, name: str, problem: str) -> BadRequest:
    return BadRequest(
        f"Property metadata.{name} of event {event!r} {problem}",
        key="metadata_validation_failed",
        message="Metadata validation failed",
    )


def _is_number(value: Any) -> bool:
    kind = type(value)
    if kind is int or kind is float:
        return True
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


def _check_property(schema: EventSchema, name: str, prop: Mapping[str, Any], value: Any) -> None:
    """Raise the 400 for `value` of the property whose fields `prop` holds
    (the record's `__dict__`, read once: this runs for every property of
    every event), or return when it fits. The usual values (a number in
    range, a string) are decided by plain type tests before any other rule."""
    kind = prop["type"]
    if kind == "number":
        if type(value) is not int and type(value) is not float and not _is_number(value):
            raise _fail(schema.name, name, f"should be of type {kind}, got {value!r}")
    elif kind == "string":
        if type(value) is not str and not isinstance(value, str):
            raise _fail(schema.name, name, f"should be of type {kind}, got {value!r}")
    elif not _TYPE_CHECKS[kind](value):
        raise _fail(schema.name, name, f"should be of type {kind}, got {value!r}")
    enum = prop["enum"]
    if enum is not None and value not in enum:
        raise _fail(schema.name, name, f"should be one of {enum}, got {value!r}")
    if kind == "number":
        low, high = prop["min"], prop["max"]
        if low is not None and value < low:
            raise _fail(schema.name, name, f"should be >= {low:g}, got {value!r}")
        if high is not None and value > high:
            raise _fail(schema.name, name, f"should be <= {high:g}, got {value!r}")
        return  # a number is neither a str nor a list: no length
    if isinstance(value, str | list):
        shortest, longest = prop["min_length"], prop["max_length"]
        if shortest is not None and len(value) < shortest:
            raise _fail(schema.name, name, f"should have at least {shortest} characters/items, got {len(value)}")
        if longest is not None and len(value) > longest:
            raise _fail(schema.name, name, f"should have at most {longest} characters/items, got {len(value)}")


def check_event_metadata(schema: EventSchema, metadata: Mapping[str, Any]) -> None:
    """Raise 400 `metadata_validation_failed` for the first property (schema
    order, then extra keys in request order) that breaks the event's schema."""
    properties = schema.metadata
    for name, prop in properties.items():
        value = metadata.get(name)
        if value is None:
            if prop.required:
                raise _fail(schema.name, name, "is required")
            continue
        _check_property(schema, name, prop.__dict__, value)
    if not schema.allow_extra:
        for name in metadata:
            if name not in properties:
                raise _fail(schema.name, name, "is not defined in the event schema")


TRACK_EVENT = bind(endpoints.TRACK_EVENT, track_event, write=True)
