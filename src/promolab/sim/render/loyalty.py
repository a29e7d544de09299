"""Loyalty records -> wire models (incentive, reward, card transaction)."""

from __future__ import annotations

from typing import Any

from ... import models
from ..records import CardTransaction, Incentive, Reward
from ._time import iso

__all__ = ["render_incentive", "render_reward", "render_card_transaction"]


def render_incentive(record: Incentive) -> models.Incentive:
    body: dict[str, Any] = {
        "id": record.id,
        "name": record.name,
        "type": record.type,
        "status": record.status,
        "stock": record.stock,
        "created_at": iso(record.created_at),
        "updated_at": iso(record.updated_at),
        "object": "incentive",
    }
    for detail in ("points", "points_proportional", "material", "digital"):
        value = getattr(record, detail)
        if value is not None:
            body[detail] = value
    return models.Incentive.model_validate(body)


def render_reward(record: Reward) -> models.Reward:
    body: dict[str, Any] = {
        "id": record.id,
        "name": record.name,
        "type": record.type,
        "status": record.status,
        "metadata": record.metadata,
        "created_at": iso(record.created_at),
        "updated_at": iso(record.updated_at),
        "object": "reward",
    }
    if record.material is not None:
        body["material"] = record.material
    if record.digital is not None:
        body["digital"] = record.digital
    return models.Reward.model_validate(body)


def render_card_transaction(record: CardTransaction) -> models.CardTransaction:
    return models.CardTransaction.model_validate(
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
            "created_at": iso(record.created_at),
            "updated_at": iso(record.updated_at),
        }
    )
