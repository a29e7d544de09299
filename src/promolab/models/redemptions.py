"""Stacked redemptions and their rollbacks (endpoints `REDEEM_STACKED`, `ROLLBACK_REDEMPTION`).

A redemption spends what a stacked validation only prices: one child
redemption per redeemable applied (a use of the code, the gift credits), and
a parent that holds them when more than one applied (a single redeemable has
no parent, as in the service). The order they spent on is stored (`ord_…`)
and lists its redemptions. A rollback undoes a parent with all its children
(or a redemption without a parent), once, within three months.

The same request as a validation (`StackedValidationRequest`); the answers'
shapes follow the service's examples (docs/stacking.md).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ._base import RequestModel, WireModel
from .common import Metadata, Money, Timestamp
from .customers import CustomerInput
from .orders import Order, OrderInput
from .stacked_validations import RedeemableOutcome

__all__ = [
    "OrderRedemptionEntry",
    "Redemption",
    "RedemptionChannel",
    "RedemptionResponse",
    "RedemptionRollback",
    "RollbackRequest",
    "RollbackResponse",
    "StoredOrder",
]

RedemptionStatus = Literal["SUCCEEDED", "FAILED", "ROLLED_BACK"]
RelatedObject = Literal["voucher", "promotion_tier", "redemption"]


class OrderRedemptionEntry(WireModel):
    """One redemption on an order: the parent (`stacked`: its children) or a
    single redemption; `rollback_*` once rolled back."""

    __omit_if_none__ = frozenset({"rollback_id", "rollback_date", "stacked", "rollback_stacked"})

    date: Timestamp
    rollback_id: str | None = None
    rollback_date: Timestamp | None = None
    related_object_type: RelatedObject
    related_object_id: str
    stacked: list[str] | None = None
    rollback_stacked: list[str] | None = None


class StoredOrder(Order):
    """The order a redemption spent on, as stored (`ord_…`)."""

    __omit_if_none__ = Order.__omit_if_none__ | frozenset({"updated_at"})

    id: Annotated[str, Field(pattern=r"^ord_[a-f0-9]+$")]
    source_id: str | None = None
    status: Literal["PAID", "CANCELED"]
    created_at: Timestamp
    updated_at: Timestamp | None = None
    redemptions: dict[str, OrderRedemptionEntry] = Field(default_factory=dict)


class RedemptionChannel(WireModel):
    channel_id: str | None = None
    channel_type: Literal["USER", "API", "AUTO_REDEEM"] = "API"


class Redemption(WireModel):
    """A child (one redeemable: `voucher` or `promotion_tier` set) or a
    parent (`related_object_type: redemption`). `amount`: gift credits spent."""

    __omit_if_none__ = frozenset({"amount", "voucher", "promotion_tier", "related_redemptions"})

    id: Annotated[str, Field(pattern=r"^r_[a-f0-9]+$")]
    object: Literal["redemption"] = "redemption"
    date: Timestamp
    customer_id: str | None = None
    tracking_id: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    amount: Money | None = None
    #: The parent's id (a child), else null.
    redemption: str | None = None
    result: Literal["SUCCESS", "FAILURE"] = "SUCCESS"
    status: RedemptionStatus
    order: Order
    channel: RedemptionChannel = Field(default_factory=RedemptionChannel)
    related_object_type: RelatedObject
    related_object_id: str
    voucher: dict[str, Any] | None = None
    promotion_tier: dict[str, Any] | None = None
    related_redemptions: dict[str, Any] | None = None


class RedemptionResponse(WireModel):
    __omit_if_none__ = frozenset({"parent_redemption"})

    redemptions: list[Redemption]
    parent_redemption: Redemption | None = None
    order: StoredOrder
    inapplicable_redeemables: list[RedeemableOutcome] = Field(default_factory=list)
    skipped_redeemables: list[RedeemableOutcome] = Field(default_factory=list)


class RollbackRequest(RequestModel):
    """Why and for whom; the service also takes a customer and order update."""

    __omit_if_none__ = frozenset({"reason", "tracking_id", "customer", "order", "metadata"})

    reason: Annotated[str, Field(max_length=1000)] | None = None
    tracking_id: Annotated[str, Field(max_length=200)] | None = None
    customer: CustomerInput | None = None
    order: OrderInput | None = None
    metadata: Metadata | None = None


class RedemptionRollback(WireModel):
    """The rollback of one redemption. `redemption` is the redemption it
    undoes (a child's own id for a child: the service's example, see
    docs/decisions.md); `amount` is negative: credits given back."""

    __omit_if_none__ = frozenset({"amount", "reason", "voucher", "promotion_tier", "parent_rollback_id"})

    id: Annotated[str, Field(pattern=r"^rr_[a-f0-9]+$")]
    object: Literal["redemption_rollback"] = "redemption_rollback"
    date: Timestamp
    customer_id: str | None = None
    tracking_id: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    amount: Annotated[int, Field(le=0, strict=True)] | None = None
    reason: str | None = None
    result: Literal["SUCCESS", "FAILURE"] = "SUCCESS"
    status: Literal["SUCCEEDED", "FAILED"] = "SUCCEEDED"
    redemption: str
    order: Order
    related_object_type: RelatedObject
    related_object_id: str
    voucher: dict[str, Any] | None = None
    promotion_tier: dict[str, Any] | None = None
    parent_rollback_id: str | None = None


class RollbackResponse(WireModel):
    __omit_if_none__ = frozenset({"parent_rollback"})

    rollbacks: list[RedemptionRollback]
    parent_rollback: RedemptionRollback | None = None
    order: StoredOrder
