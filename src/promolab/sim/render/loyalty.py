"""Loyalty records -> wire models (incentive, reward, card transaction).

Timestamps are handed over as the records' aware datetimes: the wire type
(`models.common.Timestamp`) normalises them to UTC milliseconds itself, which
gives the same value as formatting to text and parsing it back, at a fraction
of the cost (this is the hot path of `get_incentive`).
"""

from __future__ import annotations

from typing import Any

from ... import models
from ..fast_validate import validated
from ..records import CardTransaction, Incentive, Reward

__all__ = ["render_card_transaction", "render_incentive", "render_reward"]


def render_incentive(record: Incentive) -> models.Incentive:
    body: dict[str, Any] = {
        "id": record.id,
        "name": record.name,
        "type": record.type,
        "status": record.status,
        "stock": record.stock,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "object": "incentive",
    }
    for detail in ("points", "points_proportional", "material", "digital"):
        value = getattr(record, detail)
        if value is not None:
            body[detail] = value
    return validated(models.Incentive, body)


def render_reward(record: Reward) -> models.Reward:
    body: dict[str, Any] = {
        "id": record.id,
        "name": record.name,
        "type": record.type,
        "status": record.status,
        "metadata": record.metadata,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "object": "reward",
    }
    if record.material is not None:
        body["material"] = record.material
    if record.digital is not None:
        body["digital"] = record.digital
    return validated(models.Reward, body)


def render_card_transaction(record: CardTransaction) -> models.CardTransaction:
    return validated(
        models.CardTransaction,
        {
            "id": record.id,
            "card_id": record.card_id,
            "program_id": record.program_id,
            "member_id": record.member_id,
            "card_definition_id": record.card_definition_id,
            "card_type": record.card_type,
            "type": record.type,
            "status": record.status,
            "details": record.details,
            "created_at": record.created_at,
            "updated_at": record.updated_at,
        }
    )
