"""Webhook deliveries, version 2024-01-01, and the gift-balance-added payload.

The interface names the event but shows no payload; the shapes follow the OpenAPI
``webhooks-2024-01-01`` document (``WebhookDistributionPayload`` envelope and
``EventCustomerVoucherGiftBalanceAddedData``) and docs/publications-events-webhooks.md. Keys that the example
sends as ``null`` (campaign dates and category, transaction source/reason) stay null;
optional keys it leaves out are omitted.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, Self

from pydantic import Field, StrictBool, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from ._base import WireModel
from .balance import BalanceRelatedObject, BalanceType
from .categories import Category
from .common import Int64, Metadata, Money, NonNegativeInt64, Timestamp
from .customers import Customer
from .discounts import Discount
from .vouchers import Gift, GiftEffect, VoucherType

__all__ = [
    "GIFT_BALANCE_ADDED",
    "GIFT_BALANCE_ADDED_EVENT_TYPE",
    "WEBHOOK_VERSION",
    "WEBHOOK_VERSION_HEADER",
    "BalanceOperationType",
    "CampaignGift",
    "CampaignType",
    "CampaignVoucherRedemption",
    "CodeConfig",
    "EventApiKey",
    "EventChannel",
    "EventSource",
    "EventUser",
    "GiftBalanceAddedData",
    "SimpleCampaign",
    "SimpleCampaignVoucher",
    "SimpleVoucher",
    "SimpleVoucherRedemption",
    "VoucherBalance",
    "VoucherTransaction",
    "VoucherTransactionDetails",
    "VoucherTransactionType",
    "WebhookEnvelope",
    "WebhookEvent",
    "WebhookSource",
]

GIFT_BALANCE_ADDED = "EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED"
WEBHOOK_VERSION = "2024-01-01"
#: The delivery header that carries `WEBHOOK_VERSION`. The interface names the version
#: but no way to carry it, and the envelope has no version field; the header is
#: promolab's (hence its prefix: a receiver must not expect it from the real service).
WEBHOOK_VERSION_HEADER = "x-promolab-webhook-version"
#: ``event.type`` of that event in a delivery.
GIFT_BALANCE_ADDED_EVENT_TYPE = "customer.voucher.gift.balance_added"


class EventChannel(StrEnum):
    USER_PORTAL = "USER_PORTAL"
    API = "API"
    CLIENT_API = "CLIENT_API"
    INTERNAL = "INTERNAL"


class EventUser(WireModel):
    id: str


class EventApiKey(WireModel):
    name: str
    app_id: str


class EventSource(WireModel):
    """Who caused the event: a dashboard user, an API key, or the service itself."""

    __omit_if_none__ = frozenset({"user", "api_key"})

    channel: EventChannel
    user: EventUser | None = None
    api_key: EventApiKey | None = None


class WebhookEvent(WireModel):
    __omit_if_none__ = frozenset({"entity_id"})

    id: str
    #: Lower-case event name, e.g. ``customer.voucher.gift.balance_added``.
    type: str
    created_at: Timestamp
    entity_id: str | None = None
    #: Id of the request that caused the event.
    group_id: str
    event_source: EventSource


class WebhookSource(WireModel):
    """The configuration that sent the delivery: a project webhook or a distribution."""

    id: str
    object: Literal["webhook", "distribution"]
    target_url: str


class CodeConfig(WireModel):
    __omit_if_none__ = frozenset(
        {"length", "prefix", "charset", "pattern", "postfix", "initial_count"}
    )

    length: NonNegativeInt64 | None = None
    prefix: str | None = None
    charset: str | None = None
    pattern: str | None = None
    postfix: str | None = None
    initial_count: NonNegativeInt64 | None = None


class CampaignGift(WireModel):
    """A gift campaign's template credit; it has no balance of its own."""

    __omit_if_none__ = frozenset({"effect"})

    amount: Money
    effect: GiftEffect | None = None


class CampaignVoucherRedemption(WireModel):
    #: null means unlimited redemptions.
    quantity: NonNegativeInt64 | None
    redeemed_quantity: NonNegativeInt64


class SimpleCampaignVoucher(WireModel):
    """The template every code of the campaign is generated from."""

    __omit_if_none__ = frozenset({"discount", "gift", "loyalty_card"})

    type: VoucherType
    discount: Discount | None = None
    gift: CampaignGift | None = None
    loyalty_card: dict[str, Any] | None = None
    redemption: CampaignVoucherRedemption
    code_config: CodeConfig


class CampaignType(StrEnum):
    AUTO_UPDATE = "AUTO_UPDATE"
    STATIC = "STATIC"
    STANDALONE = "STANDALONE"


class SimpleCampaign(WireModel):
    __omit_if_none__ = frozenset(
        {
            "campaign_type",
            "type",
            "is_referral_code",
            "voucher",
            "referral_program",
            "auto_join",
            "join_once",
            "active",
            "categories",
            "metadata",
            "created_at",
            "updated_at",
        }
    )

    id: str
    name: str
    campaign_type: str | None = None
    type: CampaignType | None = None
    is_referral_code: StrictBool | None = None
    voucher: SimpleCampaignVoucher | None = None
    referral_program: dict[str, Any] | None = None
    auto_join: StrictBool | None = None
    join_once: StrictBool | None = None
    active: StrictBool | None = None
    category_id: str | None = None
    category: str | None = None
    categories: list[Category] | None = None
    metadata: Metadata | None = None
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    description: str | None = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    object: Literal["campaign"] = "campaign"


class SimpleVoucherRedemption(WireModel):
    __omit_if_none__ = frozenset({"redeemed_amount", "redeemed_points"})

    #: null means unlimited redemptions.
    quantity: NonNegativeInt64 | None
    redeemed_quantity: NonNegativeInt64
    redeemed_amount: Money | None = None
    redeemed_points: NonNegativeInt64 | None = None


class SimpleVoucher(WireModel):
    __omit_if_none__ = frozenset(
        {
            "id",
            "gift",
            "discount",
            "loyalty_card",
            "campaign",
            "campaign_id",
            "is_referral_code",
            "holder_id",
            "referrer_id",
            "categories",
            "active",
            "updated_at",
            "redemption",
            "metadata",
        }
    )

    id: str | None = None
    code: str = Field(min_length=1)
    gift: Gift | None = None
    discount: Discount | None = None
    loyalty_card: dict[str, Any] | None = None
    type: VoucherType
    campaign: str | None = None
    campaign_id: str | None = None
    is_referral_code: StrictBool | None = None
    holder_id: str | None = None
    referrer_id: str | None = None
    category_id: str | None = None
    categories: list[Category] | None = None
    active: StrictBool | None = None
    created_at: Timestamp
    updated_at: Timestamp | None = None
    redemption: SimpleVoucherRedemption | None = None
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    metadata: Metadata | None = None
    object: Literal["voucher"] = "voucher"


class BalanceOperationType(StrEnum):
    MANUAL = "MANUAL"
    AUTOMATIC = "AUTOMATIC"


class VoucherBalance(WireModel):
    """A balance snapshot. ``operation_type`` is optional because the service's own
    payload example leaves it out of ``data.balance`` (it is set inside the transaction)."""

    __omit_if_none__ = frozenset({"amount", "points", "operation_type"})

    type: BalanceType
    total: Int64
    amount: Int64 | None = None
    points: Int64 | None = None
    object: Literal["balance"] = "balance"
    balance: Int64
    operation_type: BalanceOperationType | None = None
    related_object: BalanceRelatedObject


class VoucherTransactionType(StrEnum):
    """Gift card and (v1) loyalty card transaction types."""

    CREDITS_REDEMPTION = "CREDITS_REDEMPTION"
    CREDITS_REFUND = "CREDITS_REFUND"
    CREDITS_ADDITION = "CREDITS_ADDITION"
    CREDITS_REMOVAL = "CREDITS_REMOVAL"
    PENDING_POINTS_ACTIVATION = "PENDING_POINTS_ACTIVATION"
    POINTS_ACCRUAL = "POINTS_ACCRUAL"
    POINTS_REDEMPTION = "POINTS_REDEMPTION"
    POINTS_REFUND = "POINTS_REFUND"
    POINTS_ADDITION = "POINTS_ADDITION"
    POINTS_REMOVAL = "POINTS_REMOVAL"
    POINTS_EXPIRATION = "POINTS_EXPIRATION"
    POINTS_TRANSFER_IN = "POINTS_TRANSFER_IN"
    POINTS_TRANSFER_OUT = "POINTS_TRANSFER_OUT"


class VoucherTransactionDetails(WireModel):
    __omit_if_none__ = frozenset({"balance"})

    balance: VoucherBalance | None = None


class VoucherTransaction(WireModel):
    """The ledger entry written for the balance change (``vtx_…``)."""

    id: str
    source_id: str | None
    voucher_id: str
    campaign_id: str
    #: ``API``, ``voucherify-web-ui``, ... or null.
    source: str | None
    reason: str | None
    type: VoucherTransactionType
    details: VoucherTransactionDetails | None
    related_transaction_id: str | None
    created_at: Timestamp


class GiftBalanceAddedData(WireModel):
    """``data`` of EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED."""

    customer: Customer
    campaign: SimpleCampaign
    voucher: SimpleVoucher
    balance: VoucherBalance
    transaction: VoucherTransaction


class WebhookEnvelope(WireModel):
    """One delivery. ``data`` is typed for the one event the interface has, and kept as
    plain JSON for any other event a real deployment may send."""

    id: str
    project_id: str
    created_at: Timestamp
    type: str
    data: GiftBalanceAddedData | dict[str, Any] = Field(union_mode="left_to_right")
    source: WebhookSource
    event: WebhookEvent

    @model_validator(mode="after")
    def _gift_payload_is_typed(self) -> Self:
        # The dict fallback is for unknown events only: a broken gift payload must fail
        # with the location of the broken field, not pass as an untyped dict.
        if isinstance(self.data, dict) and self.event.type == GIFT_BALANCE_ADDED_EVENT_TYPE:
            try:
                self.data = GiftBalanceAddedData.model_validate(self.data)
            except ValidationError as error:
                raise ValidationError.from_exception_data(
                    "WebhookEnvelope",
                    [
                        InitErrorDetails(
                            type=PydanticCustomError(e["type"], e["msg"]),
                            loc=("data", *e["loc"]),
                            input=e["input"],
                        )
                        for e in error.errors()
                    ],
                ) from None
        return self
