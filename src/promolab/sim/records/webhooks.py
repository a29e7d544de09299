"""Webhook configurations and the log of every delivery attempt."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr

from ._base import Instant, Record, Secret

__all__ = ["DeliveryAttempt", "PendingDelivery", "WebhookConfig"]


class WebhookConfig(Record):
    """A project webhook / distribution target.

    `url` posts over HTTP through httpx; `receiver` names an in-process
    callable registered on the simulator (`sim.register_receiver`), which is
    how notebooks and tests observe deliveries without sockets.
    """

    id: str
    project_id: str
    url: str | None = None
    receiver: str | None = None
    secret: Secret = SecretStr("promolab-webhook-secret")
    events: list[str] = Field(default_factory=lambda: ["EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED"])
    status: Literal["ACTIVE", "DISABLED", "DELETED"] = "ACTIVE"
    created_at: Instant | None = None


class PendingDelivery(Record):
    """A sendout waiting for its next attempt on the simulated clock."""

    sendout_id: str
    webhook_id: str
    event_type: str
    body: str
    first_attempt_at: Instant
    next_attempt_at: Instant
    attempt: int


class DeliveryAttempt(Record):
    sendout_id: str
    webhook_id: str
    event_type: str
    attempt: int
    attempted_at: Instant
    outcome: Literal["delivered", "failed", "timeout", "error"]
    status_code: int | None = None
    error: str | None = None
    next_attempt_at: Instant | None = None
    signature: str
    target: str
