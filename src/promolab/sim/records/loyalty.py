"""Loyalty v2: programs, card definitions, members, cards, rewards, incentives.

Incentives and rewards keep their wire detail objects (`points`, `material`,
`digital`, ...) as mappings checked against the wire models at load time, so
`get_incentive` renders them without translation.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ._base import Instant, Metadata, Points, Record

__all__ = [
    "Card",
    "CardDefinition",
    "CardTransaction",
    "EarningRule",
    "GrantedReward",
    "Incentive",
    "Member",
    "Program",
    "Reward",
    "RewardAssignment",
    "RewardCost",
]


class Program(Record):
    id: str
    name: str
    status: Literal["ACTIVE", "INACTIVE"] = "ACTIVE"
    #: Validity window; outside it purchases are refused as non-active.
    start_date: Instant | None = None
    expiration_date: Instant | None = None
    created_at: Instant | None = None


class CardDefinition(Record):
    id: str
    program_id: str
    name: str
    card_type: str = "POINTS"


class Member(Record):
    id: str
    program_id: str
    customer_id: str
    status: Literal["ACTIVE", "INACTIVE"] = "ACTIVE"
    created_at: Instant | None = None


class Card(Record):
    """One wallet of a member: a balance in the points of one card definition."""

    id: str
    member_id: str
    program_id: str
    card_definition_id: str
    balance: Points = 0


class Reward(Record):
    id: str
    name: str
    type: Literal["MATERIAL", "DIGITAL"]
    status: Literal["ACTIVE", "DRAFT", "INACTIVE", "DELETED"] = "ACTIVE"
    metadata: Metadata = Field(default_factory=dict)
    material: dict[str, Any] | None = None
    digital: dict[str, Any] | None = None
    created_at: Instant | None = None
    updated_at: Instant | None = None


class RewardCost(Record):
    card_definition_id: str
    points: Points


class RewardAssignment(Record):
    """A reward offered in a program, at a point price and with its own stock."""

    id: str
    program_id: str
    reward_id: str
    costs: list[RewardCost]
    #: Remaining units; None means unlimited.
    stock: int | None = Field(default=None, ge=0, le=2147483647)
    created_at: Instant | None = None


class Incentive(Record):
    id: str = Field(pattern=r"^linc_[a-f0-9]+$")
    name: str = Field(max_length=200)
    type: Literal["POINTS", "POINTS_PROPORTIONAL", "MATERIAL", "DIGITAL"]
    status: Literal["DRAFT", "ACTIVE", "DELETED"] = "ACTIVE"
    stock: int = Field(default=2147483647, ge=0, le=2147483647)
    points: dict[str, Any] | None = None
    points_proportional: dict[str, Any] | None = None
    material: dict[str, Any] | None = None
    digital: dict[str, Any] | None = None
    created_at: Instant | None = None
    updated_at: Instant | None = None


class EarningRule(Record):
    """Credits a member's card when a custom event with this name arrives."""

    id: str
    program_id: str
    event: str
    incentive_id: str
    active: bool = True
    #: Optional conditions on the event's/customer's metadata, same shape as
    #: promotion validation rules.
    validation_rules: dict[str, Any] | None = None
    created_at: Instant | None = None


class CardTransaction(Record):
    """A card transaction with the bookkeeping the wire does not show."""

    id: str
    card_id: str
    program_id: str
    member_id: str
    card_definition_id: str
    card_type: str
    type: str
    status: Literal["PENDING", "PROCESSING", "APPROVED", "REJECTED"]
    #: Signed change of the card balance once APPROVED (negative for spending).
    points: int
    details: dict[str, Any] = Field(default_factory=dict)
    created_at: Instant
    updated_at: Instant | None = None
    #: When a PENDING transaction is processed on the simulated clock.
    due_at: Instant | None = None
    reward_assignment_id: str | None = None


class GrantedReward(Record):
    """What a member received for an approved purchase."""

    id: str
    member_id: str
    program_id: str
    reward_id: str
    transaction_id: str | None
    kind: Literal["MATERIAL", "DISCOUNT_COUPON", "GIFT_VOUCHER"]
    product_id: str | None = None
    sku_id: str | None = None
    voucher_code: str | None = None
    created_at: Instant
