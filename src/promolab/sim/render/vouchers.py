"""Voucher records -> the voucher of a publication, and the gift-card shapes
of the balance webhook (simple campaign, simple voucher, balance, transaction).

List urls are relative: the voucher's own path (the voucher read's, `GET_VOUCHER`),
then `/redemptions?page=1&limit=10` or `/publications?page=1&limit=10`.
Asset ids and urls are derived from the voucher id and the seed (no id is
drawn from the generator), so rendering a voucher twice gives the same bytes
and reading never changes the state.

`redemption.quantity` is the code's redemption limit; the wire model has no
null, so an unlimited code shows 0 (see docs/publications-events-webhooks.md).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import models
from ...models.campaign_reads import GET_VOUCHER
from ..records import Campaign, Category, Voucher, VoucherTransaction
from ._time import iso

if TYPE_CHECKING:
    from ..state import State

__all__ = [
    "ASSETS_BASE_URL",
    "VoucherRead",
    "code_prefix",
    "first_category",
    "render_balance",
    "render_simple_campaign",
    "render_simple_voucher",
    "render_voucher",
    "render_voucher_transaction",
    "voucher_assets",
    "voucher_created_at",
    "wire_instant",
]

ASSETS_BASE_URL = "https://assets.promolab.local/v1/assets"


@dataclass(frozen=True, slots=True)
class VoucherRead:
    """What the voucher reads add to a publication's voucher: the campaign's categories (as
    `categories_wire` writes them) and, for one voucher, its rule assignments (else None)."""

    categories: Sequence[dict[str, Any]]
    assignments: dict[str, Any] | None = None


def _asset(seed: int, kind: str, voucher_id: str) -> dict[str, str]:
    digest = hashlib.blake2b(f"{seed}:{kind}:{voucher_id}".encode(), digest_size=24).hexdigest()
    asset_id = f"U2FsdGVkX1{digest}"
    return {"id": asset_id, "url": f"{ASSETS_BASE_URL}/{kind}/{asset_id}"}


def voucher_assets(seed: int, voucher_id: str) -> dict[str, dict[str, str]]:
    """A voucher's QR code and barcode: ids derived from the seed and the voucher's id, never drawn."""
    return {"qr": _asset(seed, "qr", voucher_id), "barcode": _asset(seed, "barcode", voucher_id)}


def code_prefix(codes: list[str]) -> str:
    """The prefix a campaign's codes share, up to its last `-` (`GIFT-`): what a new
    code of the campaign starts with, and the prefix its code pattern shows."""
    if not codes:
        return ""
    common = os.path.commonprefix(codes)
    cut = common.rfind("-")
    return common[: cut + 1] if cut >= 0 else ""


def voucher_created_at(voucher: Voucher, campaign: Campaign | None) -> Any:
    return voucher.created_at or (campaign.created_at if campaign is not None else None)


def wire_instant(value: datetime | None) -> datetime | str | None:
    """What a `Timestamp` field of a wire model is given for a record's instant.

    The datetime itself: the wire type normalises it to UTC milliseconds,
    which is the value `iso(value)` parsed back gives, without writing and
    reading the text. Only where the text would not be that value (a naive
    datetime) is the text handed over, so the model says what it said before
    (tests/sim/test_publish_fast_paths.py compares both).
    """
    if value is None or value.utcoffset() is not None:
        return value
    return iso(value)


def first_category(state: State, campaign: Campaign | None) -> Category | None:
    """The category a voucher or campaign object names in its one-category
    fields (`category_id`, `category`: the id and the name): the campaign's
    first, as the service's single-category fields can show one only."""
    if campaign is None or not campaign.categories:
        return None
    return state.categories.get(campaign.categories[0])


def render_voucher(voucher: Voucher, campaign: Campaign | None, *, seed: int, category: Category | None,
                   read: VoucherRead | None = None) -> models.Voucher:
    """The full voucher object embedded in a publication (`category`: `first_category`), or as
    the voucher reads show it (`read`: with its categories, and one voucher's rule assignments)."""
    path = GET_VOUCHER.url_path(code=voucher.code)
    gift = voucher.gift
    body: dict[str, Any] = {
        "id": voucher.id,
        "code": voucher.code,
        "campaign": campaign.name if campaign is not None else None,
        "campaign_id": voucher.campaign_id,
        "category": category.name if category is not None else None,
        "category_id": category.id if category is not None else None,
        "type": voucher.type,
        "discount": voucher.discount,
        "gift": None if gift is None else {"amount": gift.amount, "balance": gift.balance, "effect": gift.effect},
        "loyalty_card": None,
        "start_date": wire_instant(voucher.start_date),
        "expiration_date": wire_instant(voucher.expiration_date),
        "validity_timeframe": (
            campaign.validity_timeframe.model_dump() if campaign is not None and campaign.validity_timeframe else None
        ),
        "validity_day_of_week": campaign.validity_day_of_week if campaign is not None else None,
        "active": voucher.active,
        "additional_info": voucher.additional_info,
        "metadata": voucher.metadata,
        "assets": voucher_assets(seed, voucher.id),
        "is_referral_code": voucher.is_referral_code,
        "created_at": wire_instant(voucher_created_at(voucher, campaign)),
        "updated_at": wire_instant(voucher.updated_at),
        "holder_id": voucher.holder_id,
        "redemption": {
            "quantity": voucher.redemption_quantity if voucher.redemption_quantity is not None else 0,
            "redeemed_quantity": voucher.redeemed_quantity,
            "object": "list",
            "url": f"{path}/redemptions?page=1&limit=10",
        },
        "publish": {
            "object": "list",
            "count": voucher.publish_count,
            "url": f"{path}/publications?page=1&limit=10",
        },
        "object": "voucher",
    }
    if read is not None:
        body["categories"] = list(read.categories)
        body["validation_rules_assignments"] = read.assignments
    return models.Voucher.model_validate(body)


def render_simple_campaign(campaign: Campaign, *, category: Category | None) -> dict[str, Any]:
    """`data.campaign` of the gift balance webhook (SimpleCampaign)."""
    voucher: dict[str, Any] = {
        "type": "GIFT_VOUCHER" if campaign.type == "GIFT_VOUCHERS" else "DISCOUNT_VOUCHER",
        "redemption": {"quantity": None, "redeemed_quantity": 0},
        "code_config": {},
    }
    if campaign.type == "GIFT_VOUCHERS":
        voucher["gift"] = {"amount": campaign.gift_amount or 0, "effect": "APPLY_TO_ORDER"}
    elif campaign.discount is not None:
        voucher["discount"] = campaign.discount
    body = {
        "id": campaign.id,
        "name": campaign.name,
        "campaign_type": campaign.type,
        "type": "STATIC",
        "is_referral_code": campaign.type == "REFERRAL_PROGRAM",
        "voucher": voucher,
        "auto_join": False,
        "join_once": campaign.join_once,
        "active": campaign.active,
        "category_id": category.id if category is not None else None,
        "category": category.name if category is not None else None,
        "metadata": campaign.metadata,
        "start_date": iso(campaign.start_date),
        "expiration_date": iso(campaign.expiration_date),
        "created_at": iso(campaign.created_at),
        "object": "campaign",
    }
    if body["created_at"] is None:
        del body["created_at"]
    return body


def render_simple_voucher(
    voucher: Voucher, campaign: Campaign | None, *, fallback_created_at: Any, category: Category | None
) -> dict[str, Any]:
    """`data.voucher` of the gift balance webhook (SimpleVoucher), for the
    wire model to check (instants as `wire_instant` gives them)."""
    gift = voucher.gift
    body: dict[str, Any] = {
        "id": voucher.id,
        "code": voucher.code,
        "gift": None if gift is None else {"amount": gift.amount, "balance": gift.balance, "effect": gift.effect},
        "type": voucher.type,
        "campaign": campaign.name if campaign is not None else None,
        "campaign_id": voucher.campaign_id,
        "is_referral_code": voucher.is_referral_code,
        "holder_id": voucher.holder_id,
        "category_id": category.id if category is not None else None,
        "active": voucher.active,
        "created_at": wire_instant(voucher_created_at(voucher, campaign) or fallback_created_at),
        "updated_at": wire_instant(voucher.updated_at),
        "redemption": {
            "quantity": voucher.redemption_quantity,
            "redeemed_quantity": voucher.redeemed_quantity,
            "redeemed_amount": voucher.redeemed_amount,
        },
        "start_date": wire_instant(voucher.start_date),
        "expiration_date": wire_instant(voucher.expiration_date),
        "metadata": voucher.metadata,
        "object": "voucher",
    }
    return body


def render_balance(voucher: Voucher, added: int, *, operation_type: str | None = None) -> dict[str, Any]:
    """A gift balance snapshot after adding `added`."""
    gift = voucher.gift
    assert gift is not None
    body: dict[str, Any] = {
        "type": "gift_voucher",
        "total": gift.amount,
        "amount": added,
        "object": "balance",
        "balance": gift.balance,
        "related_object": {"id": voucher.id, "type": "voucher"},
    }
    if operation_type is not None:
        body["operation_type"] = operation_type
    return body


def render_voucher_transaction(record: VoucherTransaction) -> dict[str, Any]:
    """`data.transaction` of the gift balance webhook, for the wire model to
    check (the instant as `wire_instant` gives it)."""
    return {
        "id": record.id,
        "source_id": record.source_id,
        "voucher_id": record.voucher_id,
        "campaign_id": record.campaign_id or "",
        "source": record.source,
        "reason": record.reason,
        "type": record.type,
        "details": record.details,
        "related_transaction_id": record.related_transaction_id,
        "created_at": wire_instant(record.created_at),
    }
