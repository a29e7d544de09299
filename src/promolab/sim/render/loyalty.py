"""Loyalty records -> wire models (incentive, reward, card transaction), and
the v1 loyalty campaigns a pull reads (docs/decisions.md, "Loyalty programs
of a pull": one campaign per card definition).

Timestamps are handed over as the records' aware datetimes: the wire type
(`models.common.Timestamp`) normalises them to UTC milliseconds itself, which
gives the same value as formatting to text and parsing it back, at a fraction
of the cost (this is the hot path of `get_incentive`).
"""

from __future__ import annotations

from typing import Any

from ... import models
from ...models.campaign_reads import GET_VOUCHER
from ..card_tallies import MemberCard
from ..fast_validate import validated
from ..records import (
    CardDefinition,
    CardTransaction,
    EarningRule,
    Incentive,
    Program,
    Reward,
    RewardAssignment,
)
from ._time import iso
from .vouchers import voucher_assets

__all__ = [
    "CAMPAIGN_NAME_JOIN",
    "V1_CALCULATION",
    "campaign_name",
    "credited_definition",
    "earning_rule_body",
    "loyalty_campaign_body",
    "member_card_body",
    "render_card_transaction",
    "render_incentive",
    "render_reward",
    "reward_assignment_body",
]

#: The service's default code settings, which the v1 campaign states (the
#: simulator's cards keep their scenario ids as codes).
_CODE_CONFIG = {"length": 8, "charset": "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                "pattern": "########"}
#: v2 `calculation_type` -> (v1 `calculation_type`, sub-object, field); a pull reads it backwards.
V1_CALCULATION = {
    "PRE_DISCOUNT_ORDER_AMOUNT": ("ORDER_AMOUNT", "order", "amount"),
    "POST_DISCOUNT_ORDER_AMOUNT": ("ORDER_TOTAL_AMOUNT", "order", "total_amount"),
    "ORDER_METADATA_VALUE": ("ORDER_METADATA", "order", "metadata"),
    "CUSTOMER_METADATA_VALUE": ("CUSTOMER_METADATA", "customer", "metadata"),
    "PRE_DISCOUNT_ORDER_ITEMS_AMOUNT": ("ORDER_ITEMS_AMOUNT", "order_items", "amount"),
    "POST_DISCOUNT_ORDER_ITEMS_AMOUNT": ("ORDER_ITEMS_SUBTOTAL_AMOUNT", "order_items", "subtotal_amount"),
    "ORDER_ITEMS_QUANTITY": ("ORDER_ITEMS_QUANTITY", "order_items", "quantity"),
}


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


#: Between a program's name and its card definition's in a v1 campaign's name (a pull splits there).
CAMPAIGN_NAME_JOIN = ": "


def campaign_name(program: Program, definition: CardDefinition) -> str:
    """The v1 campaign's name: the program's, then the card definition's (unique while the programs' names are)."""
    return f"{program.name}{CAMPAIGN_NAME_JOIN}{definition.name}"


def loyalty_campaign_body(definition: CardDefinition, program: Program, cards: int) -> dict[str, Any]:
    """A card definition as the v1 LOYALTY_PROGRAM campaign it is (`cards`: how many members hold one)."""
    voucher: dict[str, Any] = {"type": "LOYALTY_CARD", "loyalty_card": {"points": 0}, "redemption": {"quantity": None},
                               "code_config": dict(_CODE_CONFIG), "is_referral_code": False}
    body: dict[str, Any] = {
        "id": definition.id, "name": campaign_name(program, definition), "campaign_type": "LOYALTY_PROGRAM",
        "type": "STATIC", "voucher": voucher, "auto_join": False, "join_once": True,
        "use_voucher_metadata_schema": False,
    }
    for key in ("start_date", "expiration_date"):
        instant = getattr(program, key)
        if instant is not None:
            voucher[key] = body[key] = iso(instant)
    body.update({
        "vouchers_count": cards, "active": program.status == "ACTIVE", "metadata": {},
        "created_at": iso(program.created_at), "creation_status": "DONE", "vouchers_generation_status": "DONE",
        "protected": False, "category_id": None, "categories": [], "object": "campaign",
    })
    return body


def credited_definition(incentive: Incentive) -> str | None:
    """The card definition an incentive credits (None: a MATERIAL or DIGITAL one credits no card)."""
    detail = incentive.points or incentive.points_proportional
    return None if detail is None else str(detail["card_definition_id"])


def _v1_loyalty(incentive: Incentive) -> dict[str, Any]:
    if incentive.points is not None:
        return {"type": "FIXED", "points": incentive.points["value"]}
    detail = incentive.points_proportional or {}
    calculation, container, field = V1_CALCULATION[detail["calculation_type"]]
    given = dict(detail[container][field])
    inner: dict[str, Any] = {"every": given.pop("every"), "points": given.pop("value")}
    targets = given.pop("applicable_to", None)
    if targets:  # v1 names one target: the first of v2's list
        kind = next(k for k in ("product", "sku", "products_collection") if k in targets[0])
        inner.update({"object": kind, "id": targets[0][kind]["id"]})
    inner.update(given)
    return {"type": "PROPORTIONAL", "calculation_type": calculation, container: {field: inner}}


def earning_rule_body(rule: EarningRule, incentive: Incentive, campaign_id: str) -> dict[str, Any]:
    """An earning rule in the v1 shape: its incentive's points as `loyalty`, its event, its campaign as `source`."""
    return {
        "id": rule.id, "created_at": iso(rule.created_at), "updated_at": None, "validation_rule_id": None,
        "loyalty": _v1_loyalty(incentive), "event": rule.event,
        "source": {"banner": incentive.name, "object_id": campaign_id, "object_type": "campaign"},
        "active": rule.active, "object": "earning_rule", "automation_id": f"auto_{rule.id}", "metadata": {},
    }


def reward_assignment_body(assignment: RewardAssignment, campaign_id: str, points: int) -> dict[str, Any]:
    """A reward assignment in the v1 shape: the reward at `points` of the campaign's card."""
    return {
        "id": assignment.id, "reward_id": assignment.reward_id, "related_object_id": campaign_id,
        "related_object_type": "campaign", "parameters": {"loyalty": {"points": points}},
        "created_at": iso(assignment.created_at), "updated_at": None, "object": "reward_assignment",
    }


def member_card_body(held: MemberCard, campaign: str, seed: int) -> dict[str, Any]:
    """A member's card as the v1 LOYALTY_CARD voucher it is (`campaign`: the campaign's name).

    `loyalty_card.points` is what the card was credited in all: its balance
    plus what purchases spent (`redemption.redeemed_points`), the service's
    `balance = points - redeemed_points` with nothing expired or subtracted.
    """
    card, member, tally = held.card, held.member, held.tally
    path = GET_VOUCHER.url_path(code=card.id)
    return {
        "id": card.id, "code": card.id, "campaign": campaign, "campaign_id": card.card_definition_id, "categories": [],
        "type": "LOYALTY_CARD", "discount": None, "gift": None,
        "loyalty_card": {"points": card.balance + tally.redeemed_points, "balance": card.balance},
        "active": member.status == "ACTIVE", "metadata": {}, "assets": voucher_assets(seed, card.id),
        "is_referral_code": False, "created_at": iso(member.created_at), "updated_at": iso(tally.last_change),
        "holder_id": member.customer_id,
        "redemption": {"redeemed_quantity": tally.redeemed_quantity, "redeemed_points": tally.redeemed_points,
                       "object": "list", "url": f"{path}/redemptions?page=1&limit=10"},
        "publish": {"object": "list", "count": 1, "url": f"{path}/publications?page=1&limit=10"},
        "object": "voucher",
    }
