"""Deleting webhook configurations (endpoint 4, management interface)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...models import endpoints
from ..operation import bind
from ..refusals import NotFound

if TYPE_CHECKING:
    from ..simulator import Simulator


def delete_webhook(sim: Simulator, *, project_id: str, webhook_id: str) -> None:
    """The configuration is marked DELETED (kept for the delivery log) and its
    pending retries are dropped: a deleted configuration gets nothing more."""
    if project_id != sim.state.project.id:
        raise NotFound("project", project_id)
    config = sim.state.webhooks.get(webhook_id)
    if config is None or config.status == "DELETED":
        raise NotFound("webhook", webhook_id)
    config.status = "DELETED"
    sim.state.pending_deliveries = [p for p in sim.state.pending_deliveries if p.webhook_id != webhook_id]


DELETE_WEBHOOK = bind(endpoints.DELETE_WEBHOOK, delete_webhook, write=True)
