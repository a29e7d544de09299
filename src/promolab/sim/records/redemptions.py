"""Orders redeemed on, redemptions and their rollbacks: what a redemption spends is kept here.

A redemption record keeps the running order its answer showed (wire shape),
what it spent (the code's use, gift credits) so that a rollback gives exactly
that back, and the ids that tie parent, children, order and rollbacks
together. Budgets and limits count redemption records (`SUCCEEDED` ones).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from ._base import Instant, Metadata, Money, Record

__all__ = ["RedeemedOrder", "RedemptionRecord", "RollbackRecord"]


class RedeemedOrder(Record):
    """An order redemptions were made on (`ord_…`)."""

    id: str
    source_id: str | None = None
    status: Literal["PAID", "CANCELED"] = "PAID"
    created_at: Instant
    updated_at: Instant | None = None
    customer_id: str | None = None
    #: The order as the request sent it (a later request naming the same
    #: `source_id` is priced on it: the stored order wins).
    sent: dict[str, Any]
    #: The order with every discount of its redemptions (wire shape, without
    #: id, status and redemptions, which are rendered from the fields above).
    priced: dict[str, Any]
    #: parent (or single) redemption id -> the order's entry for it
    redemptions: dict[str, dict[str, Any]] = Field(default_factory=dict)


class RedemptionRecord(Record):
    id: str
    #: None for a parent or a single redemption.
    parent_id: str | None = None
    date: Instant
    order_id: str
    customer_id: str | None = None
    tracking_id: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    related_object_type: Literal["voucher", "promotion_tier", "redemption"]
    related_object_id: str
    campaign_id: str | None = None
    #: Gift credits spent (gift cards only).
    amount: Money | None = None
    #: Cents this redemption took off the order (a parent: all its children's).
    discount: Money = 0
    #: The order amount before discounts (campaign order-value budgets).
    order_amount: Money = 0
    #: The running order the answer showed (wire shape).
    order: dict[str, Any]
    status: Literal["SUCCEEDED", "ROLLED_BACK"] = "SUCCEEDED"
    children: list[str] = Field(default_factory=list)
    rollback_id: str | None = None
    #: Units of each product discounted under unit budgets (engine
    #: `unit_budgets`), what the usage ledger counts; written only when
    #: some were, so states without unit budgets keep their bytes.
    units: dict[str, Annotated[int, Field(ge=1, strict=True)]] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _without_empty_units(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if not self.units:
            out.pop("units", None)
        return out


class RollbackRecord(Record):
    id: str
    redemption_id: str
    parent_rollback_id: str | None = None
    date: Instant
    customer_id: str | None = None
    tracking_id: str | None = None
    reason: str | None = None
    metadata: Metadata = Field(default_factory=dict)
    #: Credits given back, negative (the service's sign).
    amount: int | None = None
    order: dict[str, Any]
    children: list[str] = Field(default_factory=list)
