"""Publishing codes to customers: the core shared by `publish`, referrals and rewards.

A publication hands one voucher to one customer. Every rule is checked before
anything changes (`select_publication` is pure), so a refused publication
leaves the state as it was; `publish_to_customer` then applies the choice.

Rules (docs/publications-events-webhooks.md):

- a code is published to one customer only: publishing it to another one is
  400 `voucher_already_published`; publishing it again to its holder makes a
  new publication (`publish.count` grows, the holder stays);
- a campaign publishes its first free code (no holder, never published,
  active) in creation order; none left is 400
  `no_voucher_suitable_for_publication`;
- `join_once` (the query flag, or the campaign's own `join_once`): a customer
  who already holds a publication of the campaign gets that publication back,
  never a second code (for a code outside any campaign, the code itself is the
  "campaign");
- `source_id`: the same source_id with the same customer and the same
  voucher/campaign returns the stored publication unchanged (a safe retry);
  with another customer or voucher/campaign it is 400 `duplicate_source_id`.
  Metadata and channel are not part of that identity: a retry that changes
  them still gets the stored publication;
- an inactive voucher or campaign is 400 `voucher_cannot_be_published`.

Customers are found or created by `customers`; campaigns, codes and earlier
publications are looked up through `publishing_lookups` (derived indexes, no
scans).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING, Any, NamedTuple

from .publishing_lookups import (
    find_campaign,
    first_publication,
    free_code,
    held_codes,
    publication_by_source_id,
    register_publication,
    voucher_by_code,
)
from .records import Customer, Publication, Voucher
from .refusals import BadRequest, NotFound

if TYPE_CHECKING:
    from .simulator import Simulator

#: The refusal of a campaign with no code left to publish (a forecast counts
#: the orders it held back).
NO_CODE_LEFT = "no_voucher_suitable_for_publication"

__all__ = [
    "NO_CODE_LEFT",
    "Selection",
    "apply_publication",
    "publication_fingerprint",
    "publish_to_customer",
    "select_publication",
]


def _cannot_publish(details: str, resource_type: str, resource_id: str) -> BadRequest:
    return BadRequest(
        details,
        key="voucher_cannot_be_published",
        message="Voucher cannot be published",
        resource_id=resource_id,
        resource_type=resource_type,
    )


class Selection(NamedTuple):
    """What a publication request resolves to: a stored publication to return
    (a retry, or join_once), or a voucher to publish now."""

    existing: Publication | None
    voucher: Voucher | None
    fingerprint: str


def publication_fingerprint(customer_id: str | None, voucher_code: str | None, campaign_id: str | None) -> str:
    """What makes two requests with one source_id "the same publication":
    `json.dumps({"customer": ..., "voucher" | "campaign": ...}, sort_keys=True,
    separators=(",", ":"))`, written out directly for str/None values (every
    publish computes one or two; tests/sim/test_sim_fast_paths.py
    checks the two agree)."""
    if voucher_code is not None:
        customer, code = _json_text(customer_id), _json_text(voucher_code)
        if customer is not None and code is not None:
            return f'{{"customer":{customer},"voucher":{code}}}'
        target: dict[str, Any] = {"voucher": voucher_code}
    else:
        customer, campaign = _json_text(customer_id), _json_text(campaign_id)
        if customer is not None and campaign is not None:
            return f'{{"campaign":{campaign},"customer":{customer}}}'
        target = {"campaign": campaign_id}
    return json.dumps({"customer": customer_id, **target}, sort_keys=True, separators=(",", ":"))


def _json_text(value: Any) -> str | None:
    """A str or None as `json.dumps` writes it (ASCII-escaped), else None."""
    if value is None:
        return "null"
    return encode_basestring_ascii(value) if type(value) is str else None


def _joined_from_holder(sim: Simulator, customer_id: str, campaign_id: str) -> Voucher | None:
    """A code of the campaign the customer holds without a publication record
    (given in the scenario with `holder:`)."""
    held = held_codes(sim, customer_id, campaign_id)
    return held[0] if held else None


def select_publication(
    sim: Simulator,
    *,
    customer_id: str | None,
    campaign_id: str | None = None,
    voucher_code: str | None = None,
    source_id: str | None = None,
    join_once: bool = False,
) -> Selection:
    """Decide what a publication request does, changing nothing.

    `customer_id` None stands for a customer that does not exist yet (it holds
    nothing and has published nothing). Raises the SimError of the first rule
    the request breaks.
    """
    if voucher_code is None and campaign_id is None:
        raise BadRequest("Either Campaign or Voucher is required", key="missing_vouchers", message="Missing vouchers")
    campaign = find_campaign(sim, campaign_id=campaign_id) if campaign_id is not None else None
    voucher = voucher_by_code(sim, voucher_code) if voucher_code is not None else None
    if voucher is not None and campaign is not None and voucher.campaign_id != campaign.id:
        raise BadRequest(
            f"Voucher {voucher.code} does not belong to campaign {campaign.id}",
            key="invalid_publish_params",
            message="Invalid publish params",
            resource_id=voucher.id,
            resource_type="voucher",
        )
    if voucher is not None and campaign is None and voucher.campaign_id is not None:
        campaign = sim.state.campaigns.get(voucher.campaign_id)
    fingerprint = publication_fingerprint(
        customer_id, voucher_code, None if voucher_code is not None else campaign_id
    )

    if source_id is not None:
        stored = publication_by_source_id(sim, source_id)
        if stored is not None:
            if stored.fingerprint == fingerprint and customer_id is not None:
                return Selection(stored, None, fingerprint)
            raise BadRequest(
                f"Publication with source_id: '{source_id}' already exists",
                key="duplicate_source_id",
                message="Duplicated source_id",
                resource_id=stored.id,
                resource_type="publication",
            )

    join_key = campaign.id if campaign is not None else None
    if customer_id is not None and (join_once or (campaign is not None and campaign.join_once)):
        joined = first_publication(sim, customer_id, join_key, voucher.id if voucher is not None else "")
        if joined is not None:
            return Selection(joined, None, fingerprint)
        if join_key is not None:
            held = _joined_from_holder(sim, customer_id, join_key)
            if held is not None:
                # Holder from the scenario, no publication yet: publish that code
                # again to its holder so the customer keeps one single code.
                voucher = held

    if campaign is not None and not campaign.active:
        raise _cannot_publish(f"Campaign {campaign.id} is not active", "campaign", campaign.id)
    if voucher is None:
        assert campaign is not None
        voucher = free_code(sim, campaign.id)
        if voucher is None:
            raise BadRequest(
                f"Couldn't find any voucher suitable for publication in campaign {campaign.id}",
                key=NO_CODE_LEFT,
                message="Couldn't find any voucher suitable for publication",
                resource_id=campaign.id,
                resource_type="campaign",
            )
        return Selection(None, voucher, fingerprint)
    if voucher.holder_id is not None and voucher.holder_id != customer_id:
        raise BadRequest(
            f"Voucher '{voucher.id}' has already been published",
            key="voucher_already_published",
            message="Voucher already published",
            resource_id=voucher.id,
            resource_type="voucher",
        )
    if not voucher.active:
        raise _cannot_publish(f"Voucher {voucher.code} is not active", "voucher", voucher.id)
    return Selection(None, voucher, fingerprint)


def apply_publication(
    sim: Simulator,
    selection: Selection,
    customer: Customer,
    *,
    channel: str = "API",
    metadata: Mapping[str, Any] | None = None,
    source_id: str | None = None,
) -> Publication:
    """Carry out a selection for an existing customer."""
    if selection.existing is not None:
        return selection.existing
    voucher = selection.voucher
    assert voucher is not None
    publication = Publication(
        id=sim.ids.next("publication"),
        created_at=sim.now,
        customer_id=customer.id,
        voucher_id=voucher.id,
        campaign_id=voucher.campaign_id,
        metadata=dict(metadata or {}),
        channel=channel,
        source_id=source_id,
        tracking_id=customer.source_id,
        fingerprint=selection.fingerprint,
    )
    register_publication(sim, publication, voucher)
    voucher.holder_id = customer.id
    voucher.publish_count += 1
    voucher.updated_at = sim.now
    return publication


def publish_to_customer(
    sim: Simulator,
    *,
    customer_id: str,
    campaign_id: str | None = None,
    voucher_code: str | None = None,
    channel: str = "API",
    metadata: dict[str, Any] | None = None,
    source_id: str | None = None,
    join_once: bool = False,
) -> Publication:
    """Publish a code (or a free code of a campaign) to an existing customer.

    Returns the new publication, or the stored one for a source_id retry or a
    join_once repeat. Raises a SimError (and changes nothing) when a rule
    refuses: 404 for an unknown customer/voucher/campaign, 400
    `missing_vouchers`, `voucher_already_published`,
    `no_voucher_suitable_for_publication`, `voucher_cannot_be_published`,
    `duplicate_source_id`, `invalid_publish_params`.
    """
    customer = sim.state.customers.get(customer_id)
    if customer is None:
        raise NotFound("customer", customer_id)
    selection = select_publication(
        sim,
        customer_id=customer.id,
        campaign_id=campaign_id,
        voucher_code=voucher_code,
        source_id=source_id,
        join_once=join_once,
    )
    return apply_publication(sim, selection, customer, channel=channel, metadata=metadata, source_id=source_id)
