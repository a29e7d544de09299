"""Vouchers as embedded in a publication and as the voucher reads list them (and the gift block shared with webhooks).

The interface shows a voucher with every key present and ``null`` for what is unset
(category, gift, loyalty_card, dates, validity, additional_info), so those stay as
``null``; only ``holder_id`` (absent for an unpublished code) is omitted when unknown.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any, Literal
from urllib.parse import parse_qs, urlsplit

from pydantic import AfterValidator, Field, StrictBool
from pydantic_core import PydanticCustomError

from ._base import WireModel
from .categories import Category
from .common import Metadata, Money, NonNegativeInt64, Timestamp
from .discounts import Discount
from .validation_rules import ValidationRuleAssignmentList

__all__ = [
    "Asset",
    "Gift",
    "GiftEffect",
    "ListUrl",
    "ValidityTimeframe",
    "Voucher",
    "VoucherAssets",
    "VoucherList",
    "VoucherPublishList",
    "VoucherRedemptionList",
    "VoucherType",
]


class VoucherType(StrEnum):
    DISCOUNT_VOUCHER = "DISCOUNT_VOUCHER"
    GIFT_VOUCHER = "GIFT_VOUCHER"
    LOYALTY_CARD = "LOYALTY_CARD"


class GiftEffect(StrEnum):
    APPLY_TO_ORDER = "APPLY_TO_ORDER"
    APPLY_TO_ITEMS = "APPLY_TO_ITEMS"


class Gift(WireModel):
    """Gift card credit: ``amount`` credited over its life, ``balance`` left to spend."""

    __omit_if_none__ = frozenset({"effect"})

    amount: Money
    balance: Money
    effect: GiftEffect | None = None


class Asset(WireModel):
    id: str
    url: str


class VoucherAssets(WireModel):
    qr: Asset
    barcode: Asset


class ValidityTimeframe(WireModel):
    """A recurring window: ISO 8601 durations (``PT1H`` every ``P2D``)."""

    duration: str
    interval: str


#: What the simulator renders (a voucher's path, its code percent-quoted, then `/redemptions?page=1&limit=10`):
#: a relative path of unreserved and percent-escaped characters, then exactly `page` and
#: `limit`. Every such value passes the checks below, which `_relative_list_url` skips for it.
_PLAIN_LIST_URL = re.compile(r"/(?!/)[A-Za-z0-9\-._~%/]*\?page=[0-9]+&limit=[0-9]+")


def _relative_list_url(value: str) -> str:
    # Interface: "relative path with page and limit query parameters".
    if _PLAIN_LIST_URL.fullmatch(value) is not None:
        return value  # a rendered voucher's url: parse_qs would cost more than the voucher
    parts = urlsplit(value)
    query = parse_qs(parts.query)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        raise PydanticCustomError("list_url", "list url should be a relative path such as /v1/...")
    if "page" not in query or "limit" not in query:
        raise PydanticCustomError(
            "list_url", "list url should carry page and limit query parameters"
        )
    return value


#: A voucher's path, then ``/redemptions?page=1&limit=10``
ListUrl = Annotated[str, AfterValidator(_relative_list_url)]


class VoucherRedemptionList(WireModel):
    #: The code's redemption limit. The simulator writes 0 for an unlimited code (the interface's
    #: publication has no null); the service's voucher reads show null, which parses too.
    quantity: NonNegativeInt64 | None
    redeemed_quantity: NonNegativeInt64
    object: Literal["list"] = "list"
    url: ListUrl


class VoucherPublishList(WireModel):
    object: Literal["list"] = "list"
    count: NonNegativeInt64
    url: ListUrl


class Voucher(WireModel):
    """A code; in a publication it is the code just given to the customer."""

    #: `categories` and `validation_rules_assignments` are the voucher reads' (a publication's
    #: voucher has neither); `holder_id` is absent for an unpublished code.
    __omit_if_none__ = frozenset({"holder_id", "categories", "validation_rules_assignments"})

    id: str
    code: str = Field(min_length=1)
    campaign: str | None = None
    campaign_id: str | None = None
    category: str | None = None
    category_id: str | None = None
    categories: list[Category] | None = None
    type: VoucherType
    discount: Discount | None = None
    gift: Gift | None = None
    loyalty_card: dict[str, Any] | None = None
    start_date: Timestamp | None = None
    expiration_date: Timestamp | None = None
    validity_timeframe: ValidityTimeframe | None = None
    validity_day_of_week: list[Annotated[int, Field(strict=True, ge=0, le=6)]] | None = None
    active: StrictBool
    additional_info: str | None = None
    metadata: Metadata
    assets: VoucherAssets
    is_referral_code: StrictBool
    created_at: Timestamp
    updated_at: Timestamp | None = None
    holder_id: str | None = None
    validation_rules_assignments: ValidationRuleAssignmentList | None = None
    redemption: VoucherRedemptionList
    publish: VoucherPublishList
    object: Literal["voucher"] = "voucher"


class VoucherList(WireModel):
    """A page of vouchers (each with its categories); `total` counts every match."""

    object: Literal["list"] = "list"
    data_ref: Literal["vouchers"] = "vouchers"
    vouchers: list[Voucher]
    total: NonNegativeInt64
