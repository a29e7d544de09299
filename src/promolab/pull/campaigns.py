"""The campaigns of a pulled project: promotions with their tiers and stacks,
campaigns of codes with their codes, and the categories they are in.

A campaign of codes shows its codes' template (`voucher`): the discount or
gift every code starts with, which the scenario writes once on the campaign;
a code whose own discount differs keeps it. The code pattern (`code_config`)
is derived by the service from the codes and is not written: the codes are.
A rule assigned to a campaign, tier or code is written inline on it
(`rules.read_rules`). What the simulator keeps from activity (codes'
redemption counts, publications, a gift card's spent balance is kept: it
is the card's state) is reported when a scenario cannot start with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import models
from ..sim import InlineTerms, format_instant
from .unexpressed import Unexpressed, leftovers, spec

__all__ = ["Campaigns", "campaigns_part", "category_entry"]

_CAMPAIGN_KEPT = ("id", "name", "campaign_type", "active", "start_date", "expiration_date", "validity_timeframe",
                  "validity_day_of_week", "metadata", "join_once", "voucher", "categories", "category_id",
                  "category")
_CAMPAIGN_DERIVED = ("type", "auto_join", "use_voucher_metadata_schema", "vouchers_count", "created_at",
                     "updated_at", "creation_status", "vouchers_generation_status", "protected",
                     "validation_rules_assignments", "access_settings_assignments")
_TIER_KEPT = ("id", "name", "banner", "action", "metadata", "hierarchy", "active", "category_id", "categories")
_TIER_DERIVED = ("created_at", "updated_at", "promotion_id", "campaign", "campaign_id",
                 "validation_rule_assignments")
_VOUCHER_KEPT = ("id", "code", "discount", "gift", "active", "start_date", "expiration_date", "additional_info",
                 "metadata", "holder_id", "redemption")
_VOUCHER_DERIVED = ("campaign", "campaign_id", "category", "category_id", "categories", "type", "loyalty_card",
                    "validity_timeframe", "validity_day_of_week", "assets", "is_referral_code", "created_at",
                    "updated_at", "validation_rules_assignments", "publish")

_TYPES = {"PROMOTION", "DISCOUNT_COUPONS", "GIFT_VOUCHERS", "REFERRAL_PROGRAM"}


@dataclass(frozen=True, slots=True)
class Campaigns:
    """The scenario's `campaigns` section, and what it could not hold."""

    campaigns: list[dict[str, Any]]
    unexpressed: list[Unexpressed]


def _instant(value: Any) -> str | None:
    return None if value is None else format_instant(value)


def _json(model: Any) -> Any:
    return None if model is None else model.model_dump(mode="json", exclude_none=True)


def _terms(entry: dict[str, Any], terms: Mapping[str, InlineTerms], owner: str) -> dict[str, Any]:
    found = terms.get(owner)
    if found is not None:
        entry["validation_rules"] = found.validation_rules
        entry["applicable_to"] = found.applicable_to
    return entry


def category_entry(category: models.Category) -> dict[str, Any]:
    return spec({"id": category.id, "name": category.name, "hierarchy": category.hierarchy,
                 "created_at": _instant(category.created_at)})


def _tier(tier: models.TierDefinition, terms: Mapping[str, InlineTerms], out: list[Unexpressed]) -> dict[str, Any]:
    out += leftovers("promotion_tier", tier, _TIER_KEPT, _TIER_DERIVED)
    entry = {"id": tier.id, "name": tier.name, "banner": tier.banner, "hierarchy": tier.hierarchy,
             "categories": [c.id for c in tier.categories or ()], "active": tier.active,
             "discount": _json(tier.action.discount), "metadata": tier.metadata}
    return spec(_terms(entry, terms, tier.id))


def _stack(stack: models.PromotionStack) -> dict[str, Any]:
    return {"id": stack.id, "name": stack.name, "tiers": list(stack.tiers.ids)}


def _voucher(voucher: models.Voucher, template: Mapping[str, Any], terms: Mapping[str, InlineTerms],
             out: list[Unexpressed]) -> dict[str, Any]:
    out += leftovers("voucher", voucher, _VOUCHER_KEPT, _VOUCHER_DERIVED)
    discount = _json(voucher.discount)
    gift = None if voucher.gift is None else {"amount": voucher.gift.amount, "balance": voucher.gift.balance}
    if voucher.redemption.redeemed_quantity:
        out.append(Unexpressed("voucher", voucher.id, "redemption.redeemed_quantity",
                               f"a scenario's code starts unredeemed: its {voucher.redemption.redeemed_quantity:,} "
                               "redemptions are the history's (--history)"))
    if voucher.publish.count != (1 if voucher.holder_id else 0):  # a holder's code is published once
        out.append(Unexpressed("voucher", voucher.id, "publish.count",
                               "a scenario's code is published to its holder once: the publications are not kept"))
    entry = {"id": voucher.id, "code": voucher.code,
             "discount": None if discount == template.get("discount") else discount,
             "gift": gift, "active": None if voucher.active else False,
             "start_date": _instant(voucher.start_date), "expiration_date": _instant(voucher.expiration_date),
             "additional_info": voucher.additional_info, "metadata": voucher.metadata,
             "holder": voucher.holder_id, "redemption_quantity": voucher.redemption.quantity or None}
    return spec(_terms(entry, terms, voucher.id))


def _campaign(campaign: models.Campaign, terms: Mapping[str, InlineTerms], out: list[Unexpressed]) -> dict[str, Any]:
    out += leftovers("campaign", campaign, _CAMPAIGN_KEPT, _CAMPAIGN_DERIVED)
    template = campaign.voucher
    entry: dict[str, Any] = {
        "id": campaign.id, "name": campaign.name, "type": campaign.campaign_type,
        "active": None if campaign.active else False,
        "start_date": _instant(campaign.start_date), "expiration_date": _instant(campaign.expiration_date),
        "validity_timeframe": _json(campaign.validity_timeframe), "validity_day_of_week": campaign.validity_day_of_week,
        "categories": [c.id for c in campaign.categories], "metadata": campaign.metadata,
        "join_once": campaign.join_once or None,
    }
    if template is not None:
        entry["discount"] = _json(template.discount)
        entry["gift_amount"] = template.gift.amount if template.gift is not None else None
    if campaign.campaign_type == "REFERRAL_PROGRAM":
        out.append(Unexpressed("campaign", campaign.id, "referral",
                               "the campaign reads do not show a referral program's conversion event and reward: "
                               "write them into the scenario's `referral`"))
    return _terms(entry, terms, campaign.id)


def campaigns_part(campaigns: Sequence[models.Campaign], tiers: Sequence[models.TierDefinition],
                   stacks: Sequence[models.PromotionStack], vouchers: Sequence[models.Voucher],
                   terms: Mapping[str, InlineTerms]) -> Campaigns:
    """The `campaigns` section: each campaign with its tiers, stacks and codes (read as lists of the
    whole project and put under their campaign, each in the order it was listed)."""
    out: list[Unexpressed] = []
    by_campaign: dict[str, dict[str, list[dict[str, Any]]]] = {}
    entries: list[dict[str, Any]] = []
    templates: dict[str, dict[str, Any]] = {}
    for campaign in campaigns:
        if campaign.campaign_type == "LOYALTY_PROGRAM":  # read through the loyalty reads (pull/loyalty.py)
            continue
        if campaign.campaign_type not in _TYPES:
            out.append(Unexpressed("campaign", campaign.id, "campaign_type",
                                   f"a scenario has no campaign of type {campaign.campaign_type}; left out"))
            continue
        entry = _campaign(campaign, terms, out)
        templates[campaign.id] = {"discount": entry.get("discount")}
        by_campaign[campaign.id] = {"tiers": [], "stacks": [], "vouchers": []}
        entries.append(entry)
    for tier in tiers:
        if tier.campaign_id in by_campaign:
            by_campaign[tier.campaign_id]["tiers"].append(_tier(tier, terms, out))
    for stack in stacks:
        if stack.campaign_id in by_campaign:
            by_campaign[stack.campaign_id]["stacks"].append(_stack(stack))
    for voucher in vouchers:
        if voucher.campaign_id in by_campaign:
            by_campaign[voucher.campaign_id]["vouchers"].append(
                _voucher(voucher, templates[voucher.campaign_id], terms, out))
        elif voucher.type != "LOYALTY_CARD":
            out.append(Unexpressed("voucher", voucher.id, "campaign_id",
                                   "a scenario's codes belong to a campaign: a standalone code is left out"))
    sections = [spec({**entry, **by_campaign[entry["id"]]}) for entry in entries]
    return Campaigns(sections, out)
