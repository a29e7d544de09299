"""Stackable validation (endpoint `VALIDATE_STACKED`): several redeemables, one order.

The request names up to 30 redeemables (discount codes, gift cards with the
credits to use, promotion tiers) with the order and customer they apply to;
the answer says, for each, APPLICABLE (with its running order: the order as
it and the redeemables before it left it), INAPPLICABLE (with the error that
refused it) or SKIPPED (with the stacking rule that left it out), then the
final order and the stacking rules it followed (docs/stacking.md).

One redeemable request shape, one answer shape per status: the same models
serve the redemption operation, which spends what a validation only prices.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool

from ._base import RequestModel, WireModel
from .categories import CategoryWithStackingRulesType
from .common import INTEGER_ONLY, Metadata, Money, NonNegativeInt64
from .customers import CustomerInput
from .discounts import Discount
from .errors import ErrorBody
from .orders import Order, OrderInput
from .promotions import ApplicableToList
from .stacking_rules import StackingRules

__all__ = [
    "MAX_REDEEMABLES",
    "RedeemableDetails",
    "RedeemableGift",
    "RedeemableGiftResult",
    "RedeemableInput",
    "RedeemableOutcome",
    "RedeemableResult",
    "RedeemableReward",
    "SessionInput",
    "SessionLock",
    "StackableOptions",
    "StackedValidationRequest",
    "StackedValidationResponse",
]

#: The most redeemables one request may send (the service's schema).
MAX_REDEEMABLES = 30

RedeemableId = Annotated[str, Field(min_length=1, max_length=100)]


class RedeemableGift(RequestModel):
    """The credits of a gift card to spend (at most its balance); without
    them, the balance, as far as the order needs it."""

    __omit_if_none__ = frozenset({"credits"})

    credits: Money | None = None


class RedeemableReward(RequestModel):
    """A loyalty card's pay-with-points reward (accepted; loyalty cards are
    not stacked yet: docs/decisions.md)."""

    __omit_if_none__ = frozenset({"id", "points"})

    id: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    points: NonNegativeInt64 | None = None


class RedeemableInput(RequestModel):
    """One redeemable of a stacked request: a code (`voucher`), a tier, or a
    promotion stack (alone: it stands for its tiers, in its order)."""

    __omit_if_none__ = frozenset({"gift", "reward"})

    object: Literal["voucher", "promotion_tier", "promotion_stack"]
    id: RedeemableId
    gift: RedeemableGift | None = None
    reward: RedeemableReward | None = None


TtlUnit = Literal["DAYS", "HOURS", "MINUTES", "SECONDS", "MILLISECONDS", "MICROSECONDS", "NANOSECONDS"]


class SessionInput(RequestModel):
    """A validation session: LOCK holds what the validation applied (a use
    of each code, the gift credits) until it is redeemed, released or ends;
    a redemption sending the key spends what the session holds."""

    __omit_if_none__ = frozenset({"key", "ttl", "ttl_unit"})

    type: Literal["LOCK"]
    key: Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_\-]+$")] | None = None
    ttl: Annotated[int, Field(ge=1, le=1_000_000, strict=True), INTEGER_ONLY] | None = None
    ttl_unit: TtlUnit | None = None


class SessionLock(WireModel):
    """The session a validation started (echoed)."""

    key: str
    type: Literal["LOCK"] = "LOCK"
    ttl: int
    ttl_unit: TtlUnit


class StackableOptions(RequestModel):
    __omit_if_none__ = frozenset({"expand"})

    expand: list[Literal["order", "redemption", "redeemable", "category"]] | None = None


class StackedValidationRequest(RequestModel):
    __omit_if_none__ = frozenset({"order", "customer", "session", "tracking_id", "metadata", "options"})

    redeemables: Annotated[list[RedeemableInput], Field(min_length=1, max_length=MAX_REDEEMABLES)]
    order: OrderInput | None = None
    customer: CustomerInput | None = None
    session: SessionInput | None = None
    tracking_id: Annotated[str, Field(max_length=200)] | None = None
    metadata: Metadata | None = None
    options: StackableOptions | None = None


class RedeemableDetails(WireModel):
    """Why a redeemable did not apply: the service's key and message."""

    key: str
    message: str


class RedeemableGiftResult(WireModel):
    __omit_if_none__ = frozenset({"balance", "locked_credits"})

    credits: Money
    balance: Money | None = None
    locked_credits: Money | None = None


class RedeemableResult(WireModel):
    """`discount` (codes and tiers) or `gift` when applicable; `error` and/or
    `details` when not."""

    __omit_if_none__ = frozenset({"discount", "gift", "error", "details"})

    discount: Discount | None = None
    gift: RedeemableGiftResult | None = None
    error: ErrorBody | None = None
    details: RedeemableDetails | None = None


class RedeemableOutcome(WireModel):
    """One redeemable's answer. `order`, `applicable_to` and `inapplicable_to`
    only when APPLICABLE; campaign and name with `expand: ["redeemable"]`."""

    __omit_if_none__ = frozenset({
        "order", "applicable_to", "inapplicable_to", "metadata", "categories", "campaign_name", "campaign_id",
        "name",
    })  # fmt: skip

    status: Literal["APPLICABLE", "INAPPLICABLE", "SKIPPED"]
    id: str
    object: Literal["voucher", "promotion_tier"]
    order: Order | None = None
    applicable_to: ApplicableToList | None = None
    inapplicable_to: ApplicableToList | None = None
    result: RedeemableResult = Field(default_factory=RedeemableResult)
    metadata: Metadata | None = None
    categories: list[CategoryWithStackingRulesType] | None = None
    campaign_name: str | None = None
    campaign_id: str | None = None
    name: str | None = None


class StackedValidationResponse(WireModel):
    """`valid`: under ALL, every redeemable applicable (or left out by a
    stacking limit) and one at least applied; under PARTIAL, one at least
    applied. Under PARTIAL `redeemables` lists the applicable ones only."""

    __omit_if_none__ = frozenset({"tracking_id", "session"})

    id: Annotated[str, Field(pattern=r"^valid_[a-f0-9]+$")]
    valid: StrictBool
    redeemables: list[RedeemableOutcome]
    skipped_redeemables: list[RedeemableOutcome] = Field(default_factory=list)
    inapplicable_redeemables: list[RedeemableOutcome] = Field(default_factory=list)
    order: Order
    tracking_id: str | None = None
    session: SessionLock | None = None
    stacking_rules: StackingRules
