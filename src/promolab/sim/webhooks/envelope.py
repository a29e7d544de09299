"""The 2024-01-01 webhook envelope.

    {"id": "whs_…", "project_id", "created_at", "type", "data": {…},
     "source": {"id": "wh_…", "object": "webhook", "target_url"},
     "event": {"id", "type", "created_at", "entity_id", "group_id",
               "event_source": {"channel": "API"}}}

Subscriptions name events the dashboard way (`EVENTS.CUSTOMER.VOUCHER.GIFT.
BALANCE_ADDED`); a delivery names them the payload way, lower case without the
`EVENTS.` prefix (`customer.voucher.gift.balance_added`). Both the top-level
`type` and `event.type` carry that payload name: the data is the customer
variant of the event (it has a `customer`), so the project-level short name
`voucher.gift.balance_added` would promise a payload without one.

Every delivery of one emitted event shares the `event` block (same id, same
group); each configuration gets its own sendout id and `source`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from ... import models
from ..fast_validate import validated
from ..records import WebhookConfig
from ..render.vouchers import wire_instant
from .signing import encode_body

__all__ = ["EventBodies", "WebhookEvent", "build_envelope", "payload_type", "target_of"]


def payload_type(event_type: str) -> str:
    """`EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED` -> `customer.voucher.gift.balance_added`."""
    name = event_type[len("EVENTS."):] if event_type.upper().startswith("EVENTS.") else event_type
    return name.lower()


def target_of(config: WebhookConfig) -> str:
    """Where a configuration delivers: its URL, or `receiver://<name>` for an
    in-process receiver."""
    return config.url if config.url is not None else f"receiver://{config.receiver}"


@dataclass(frozen=True)
class WebhookEvent:
    """One emitted event as every delivery of it carries it: the project, the
    event's subscription name, id and instant, the entity it is about and the
    request that caused it (its group)."""

    project_id: str
    event_type: str
    event_id: str
    created_at: datetime
    entity_id: str
    group_id: str


def build_envelope(event: WebhookEvent, config: WebhookConfig, data: BaseModel | dict[str, Any],
                   sendout_id: str) -> dict[str, Any]:
    """The envelope of `event`'s delivery `sendout_id` to `config`, as
    JSON-ready data, checked against the wire model.

    `data` is the payload as JSON-ready data, or as the validated wire model
    (`models.GiftBalanceAddedData`), which the envelope takes as it is: it
    was checked when it was built from the records, and is written out here.
    """
    dumped: dict[str, Any] = _checked_envelope(event, config, data, sendout_id).model_dump(mode="json")
    return dumped


def _checked_envelope(event: WebhookEvent, config: WebhookConfig, data: BaseModel | dict[str, Any],
                      sendout_id: str) -> models.WebhookEnvelope:
    kind = payload_type(event.event_type)
    created = wire_instant(event.created_at)  # the instant itself: the Timestamp fields normalise it
    envelope = {
        "id": sendout_id,
        "project_id": event.project_id,
        "created_at": created,
        "type": kind,
        "data": data,
        "source": _source(config),
        "event": {
            "id": event.event_id,
            "type": kind,
            "created_at": created,
            "entity_id": event.entity_id,
            "group_id": event.group_id,
            "event_source": {"channel": "API"},
        },
    }
    return validated(models.WebhookEnvelope, envelope)


def _source(config: WebhookConfig) -> dict[str, Any]:
    """`source` of a delivery to `config`."""
    return {"id": config.id, "object": "webhook", "target_url": target_of(config)}


#: The envelope's fields written before `data` (the model's field order;
#: extra keys, if any, come after every field).
_BEFORE_DATA = tuple(itertools.takewhile(lambda name: name != "data", models.WebhookEnvelope.model_fields))


class EventBodies:
    """The encoded bodies (`encode_body` of `build_envelope`) of one event's
    deliveries, one per configuration, with what they share written once.

    Every delivery of an event carries the same `data` and `event`; only the
    sendout id and the `source` differ. Writing a gift payload out
    (`model_dump`) and encoding it cost more than the rest of the delivery,
    so with `data` given as its validated model, the first envelope is
    checked whole (its own fields, the data taken as it is) and written out
    without the data; each further one is that envelope with its own sendout
    id and its own checked `source`. The data is written and encoded once,
    and each body put together from the encoded parts: compact JSON is the
    concatenation of its members' encodings, so the bytes are those of
    `encode_body` of the whole envelope (tests/sim/test_publish_fast_paths.py
    compares both). Data given as JSON-ready data goes the plain way.
    """

    __slots__ = ("data", "data_text", "event", "head")

    def __init__(self, data: BaseModel | dict[str, Any], event: WebhookEvent) -> None:
        #: what every delivery of the event shares
        self.event = event
        self.data = data
        self.data_text = (
            encode_body(data.model_dump(mode="json")).decode("utf-8") if isinstance(data, BaseModel) else None
        )
        #: the first envelope checked, written out without its data
        self.head: dict[str, Any] | None = None

    def body(self, config: WebhookConfig, sendout_id: str) -> str:
        """The body of the delivery `sendout_id` to `config`."""
        if self.data_text is None:
            envelope = build_envelope(self.event, config, self.data, sendout_id)
            return encode_body(envelope).decode("utf-8")
        if self.head is None or type(sendout_id) is not str:  # (an id that is no string is checked too)
            checked = _checked_envelope(self.event, config, self.data, sendout_id)
            head = checked.model_dump(mode="json", exclude={"data"})
            if self.head is None:
                self.head = head
        else:
            source = validated(models.WebhookSource, _source(config)).model_dump(mode="json")
            head = {**self.head, "id": sendout_id, "source": source}
        before = {key: head[key] for key in _BEFORE_DATA if key in head}
        after = {key: value for key, value in head.items() if key not in before}
        members = [_members(before), '"data":' + self.data_text, _members(after)]
        return "{" + ",".join(m for m in members if m) + "}"


def _members(part: dict[str, Any]) -> str:
    """The members of `encode_body(part)`, without the braces."""
    return encode_body(part).decode("utf-8")[1:-1]
