"""Campaign records -> the campaign of the campaign list and of one campaign (`campaign_reads`).

What the state does not hold is derived, never drawn (reading changes
nothing and gives the same bytes): a campaign of codes shows the template
its codes follow, read from the codes themselves (the prefix they share,
the characters and length of the rest); its validation rules are the one
rule `val_<campaign id>` assigned by `asgm_<campaign id>`, the ids the
validation-rule reads give them (docs/decisions.md, "Campaigns").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..promotions import campaign_categories
from ..records import Campaign, Voucher
from .vouchers import code_prefix, first_category, wire_instant

if TYPE_CHECKING:
    from ..state import State

__all__ = ["campaign_body"]

#: A record without its creation instant (a test may make one) shows the epoch, as its categories do.
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _code_config(codes: Sequence[Voucher]) -> dict[str, Any]:
    """The pattern the campaign's codes follow: their shared prefix, then one `#` per other character."""
    prefix = code_prefix([v.code for v in codes])
    rests = [v.code[len(prefix):] for v in codes]
    length = max((len(rest) for rest in rests), default=0)
    config: dict[str, Any] = {"length": length, "charset": "".join(sorted(set("".join(rests)))),
                              "pattern": prefix + "#" * length}
    if prefix:
        config["prefix"] = prefix
    return config


def _voucher_template(campaign: Campaign, codes: Sequence[Voucher]) -> dict[str, Any]:
    limits = {v.redemption_quantity for v in codes}
    template: dict[str, Any] = {"type": "GIFT_VOUCHER" if campaign.type == "GIFT_VOUCHERS" else "DISCOUNT_VOUCHER"}
    if campaign.type == "GIFT_VOUCHERS":
        amount = campaign.gift_amount or 0
        template["gift"] = {"amount": amount, "balance": amount, "effect": "APPLY_TO_ORDER"}
    elif campaign.discount is not None:
        template["discount"] = campaign.discount
    template["redemption"] = {"quantity": limits.pop() if len(limits) == 1 else None}
    template["code_config"] = _code_config(codes)
    template["is_referral_code"] = campaign.type == "REFERRAL_PROGRAM"
    return template


def campaign_body(state: State, campaign: Campaign, codes: Sequence[Voucher], *,
                  assignments: dict[str, Any] | None = None, expand: str | None = None) -> dict[str, Any]:
    """The campaign, in the service's field order (`codes`: its vouchers, in creation order;
    `assignments`: one campaign's read shows its rule assignments, which the operation passes in
    as `validation_rule_objects.rule_assignments` writes them: that module imports this package)."""
    category = first_category(state, campaign)
    body: dict[str, Any] = {
        "id": campaign.id, "name": campaign.name, "campaign_type": campaign.type, "type": "STATIC",
    }
    if campaign.type != "PROMOTION":
        body["voucher"] = _voucher_template(campaign, codes)
    body |= {"auto_join": False, "join_once": campaign.join_once, "use_voucher_metadata_schema": False,
             "start_date": wire_instant(campaign.start_date), "expiration_date": wire_instant(campaign.expiration_date),
             "validity_timeframe": (campaign.validity_timeframe.model_dump() if campaign.validity_timeframe else None),
             "validity_day_of_week": campaign.validity_day_of_week,
             "vouchers_count": None if campaign.type == "PROMOTION" else len(codes),
             "active": campaign.active, "metadata": campaign.metadata,
             "created_at": wire_instant(campaign.created_at or _EPOCH),
             "category": category.name if category is not None else None,
             "creation_status": "DONE", "vouchers_generation_status": "DONE", "protected": False}
    if assignments is not None:
        body["validation_rules_assignments"] = assignments
    if expand == "access_settings_assignments":
        body["access_settings_assignments"] = {"object": "list", "data_ref": "data", "data": [], "total": 0}
    body |= {"category_id": category.id if category is not None else None,
             "categories": list(campaign_categories(state, campaign)), "object": "campaign"}
    return body
