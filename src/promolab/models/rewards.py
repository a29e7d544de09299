"""Loyalty v2 rewards and the reward purchase call.

A reward's ``type`` decides its single detail object exactly as for incentives, and the
detail shapes are the incentive ones (interface: "same shape as incentive material").
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, Self

from pydantic import Field, model_validator

from ._base import RequestModel, WireModel, fail
from .common import Metadata, Timestamp
from .incentives import Digital, Material, check_detail_object
from .transactions import CardTransaction

__all__ = [
    "PurchaseStatus",
    "Reward",
    "RewardPurchaseRequest",
    "RewardPurchaseResult",
    "RewardStatus",
    "RewardType",
]


class RewardType(StrEnum):
    MATERIAL = "MATERIAL"
    DIGITAL = "DIGITAL"


class RewardStatus(StrEnum):
    ACTIVE = "ACTIVE"
    DRAFT = "DRAFT"
    INACTIVE = "INACTIVE"
    DELETED = "DELETED"


class PurchaseStatus(StrEnum):
    TRANSACTION_CREATED = "TRANSACTION_CREATED"
    NO_SPENT_ON_REWARD = "NO_SPENT_ON_REWARD"


class Reward(WireModel):
    """A reward; deleting it keeps it readable with status DELETED."""

    __omit_if_none__ = frozenset({"material", "digital"})

    id: str = Field(min_length=1)
    name: str
    type: RewardType
    status: RewardStatus
    material: Material | None = None
    digital: Digital | None = None
    metadata: Metadata
    created_at: Timestamp
    #: Required but nullable: the key is always sent, null until the first update.
    updated_at: Timestamp | None
    object: Literal["reward"] = "reward"

    @model_validator(mode="after")
    def _type_decides_detail(self) -> Self:
        check_detail_object(self, self.type.value, ("material", "digital"))
        return self


class RewardPurchaseRequest(RequestModel):
    reward_id: str = Field(min_length=1)


class RewardPurchaseResult(WireModel):
    """Answer to a purchase; the transaction is processed asynchronously after it.

    ``transaction`` is the created card transaction (TRANSACTION_CREATED). A
    NO_SPENT_ON_REWARD result creates none, and the interface types the field as an
    object, not as nullable: it is left out then (docs/loyalty.md)."""

    __omit_if_none__ = frozenset({"transaction"})

    status: PurchaseStatus
    message: str
    transaction: CardTransaction | None = None

    @model_validator(mode="after")
    def _created_means_transaction(self) -> Self:
        if self.status is PurchaseStatus.TRANSACTION_CREATED and self.transaction is None:
            fail("transaction", "a TRANSACTION_CREATED result carries the created transaction")
        return self
