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

Customers: `find_customer` resolves a request's `{id, source_id}`; an unknown
`id` is 404, an unknown `source_id` means "create it" (`create_customer`,
which keeps name, email and metadata). An existing customer is not updated by
a publication or an event.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING, Any, NamedTuple

from .records import Campaign, Customer, Publication, Voucher
from .refusals import BadRequest, NotFound

if TYPE_CHECKING:
    from ..models import CustomerInput
    from .simulator import Simulator

__all__ = [
    "Selection",
    "apply_publication",
    "campaign_codes",
    "create_customer",
    "find_campaign",
    "find_customer",
    "free_code",
    "held_codes",
    "publication_fingerprint",
    "publish_to_customer",
    "register_voucher",
    "resolve_customer",
    "select_publication",
]


# -- customers ---------------------------------------------------------------------------
def find_customer(sim: Simulator, ref: CustomerInput) -> Customer | None:
    """The customer a request names by `id` and/or `source_id`, or None when
    only a `source_id` is given and nobody has it yet (the caller creates it).

    Unknown `id`: 404. An `id` and a `source_id` that name two different
    customers (or a customer whose source_id is another one): 400
    `invalid_customer`.
    """
    st = sim.state
    cid = ref.id
    source_id = ref.source_id
    if cid is not None:
        customer = st.customers.get(cid)
        if customer is None:
            raise NotFound("customer", cid)
        if source_id is not None and customer.source_id != source_id:
            owner = sim.indexes.customer_by_source.get(source_id)
            if customer.source_id is not None or owner is not None:
                raise BadRequest(
                    f"Customer {cid} does not have source_id {source_id!r}",
                    key="invalid_customer",
                    message="Invalid customer",
                    resource_id=cid,
                    resource_type="customer",
                )
        return customer
    if source_id is None:
        raise BadRequest(
            "Customer should have at least one of the properties 'id' or 'source_id'",
            key="invalid_payload",
            message="Invalid payload",
        )
    existing = sim.indexes.customer_by_source.get(source_id)
    return None if existing is None else st.customers[existing]


def create_customer(sim: Simulator, ref: CustomerInput) -> Customer:
    """A new customer from a request's customer object (source_id required),
    with its name, email and a copy of its metadata (the stored customer
    shares nothing with the request body)."""
    source_id = ref.source_id
    if source_id is None:  # find_customer lets only a source_id through to creation
        raise ValueError("a customer is created from its source_id")
    customer = Customer(
        id=sim.ids.next("customer"),
        source_id=source_id,
        name=ref.name,
        email=ref.email,
        metadata=copy.deepcopy(ref.metadata) if ref.metadata else {},
        created_at=sim.now,
    )
    sim.state.customers[customer.id] = customer
    sim.indexes.customer_by_source[source_id] = customer.id
    return customer


def resolve_customer(sim: Simulator, ref: CustomerInput) -> Customer:
    """`find_customer`, creating the customer when it is unknown."""
    return find_customer(sim, ref) or create_customer(sim, ref)


# -- campaigns and vouchers -------------------------------------------------------------------
def find_campaign(sim: Simulator, *, campaign_id: str | None = None, name: str | None = None) -> Campaign:
    """A campaign by id, or by name (first created wins); 404 otherwise."""
    if campaign_id is not None:
        campaign = sim.state.campaigns.get(campaign_id)
        if campaign is None:
            raise NotFound("campaign", campaign_id)
        if name is not None and campaign.name != name:
            raise BadRequest(
                f"Campaign {campaign_id} is not named {name!r}",
                key="invalid_campaign",
                message="Invalid campaign",
                resource_id=campaign_id,
                resource_type="campaign",
            )
        return campaign
    if name is None:
        raise ValueError("name a campaign by id or name")
    for campaign in sim.state.campaigns.values():
        if campaign.name == name:
            return campaign
    raise NotFound("campaign", name)


def _voucher_by_code(sim: Simulator, code: str) -> Voucher:
    vid = sim.indexes.voucher_by_code.get(code)
    if vid is None:
        raise NotFound("voucher", code)
    return sim.state.vouchers[vid]


def _is_free(voucher: Voucher) -> bool:
    return voucher.holder_id is None and voucher.publish_count == 0 and voucher.active


class _Lookups:
    """Derived lookups over publications and vouchers, so that publishing
    stays O(1)-ish in a campaign of 100,000 codes or a replay of as many
    publications (a linear scan per request would make a replay quadratic).

    Kept on the simulator, tied to the `State` object it was built from and
    to the number of publications/vouchers it has seen: a restore, a reset or
    a change made elsewhere makes it rebuild itself. Every answer is checked
    against the records, so a stale entry can only cost time, not correctness.
    """

    __slots__ = (
        "by_campaign",
        "by_customer",
        "by_source",
        "cursor",
        "held",
        "n_publications",
        "n_vouchers",
        "state",
    )

    def __init__(self, sim: Simulator) -> None:
        st = sim.state
        self.state = st
        self.n_publications = len(st.publications)
        self.n_vouchers = len(st.vouchers)
        self.by_source: dict[str, str] = {}
        self.by_customer: dict[str, list[str]] = {}
        for p in st.publications.values():
            self._add_publication(p)
        self.by_campaign: dict[str | None, list[str]] = {}
        self.held: dict[str, list[str]] = {}
        for v in st.vouchers.values():
            self._add_voucher(v)
        #: campaign -> index in by_campaign before which no code is free for good
        self.cursor: dict[str | None, int] = {}

    def _add_publication(self, p: Publication) -> None:
        if p.source_id is not None:
            self.by_source.setdefault(p.source_id, p.id)
        self.by_customer.setdefault(p.customer_id, []).append(p.id)

    def _add_voucher(self, v: Voucher) -> None:
        self.by_campaign.setdefault(v.campaign_id, []).append(v.id)
        if v.holder_id is not None:
            self.held.setdefault(v.holder_id, []).append(v.id)


_LOOKUPS = "_promolab_publishing_lookups"


def _lookups(sim: Simulator) -> _Lookups:
    found: _Lookups | None = getattr(sim, _LOOKUPS, None)
    st = sim.state
    if (
        found is None
        or found.state is not st
        or found.n_publications != len(st.publications)
        or found.n_vouchers != len(st.vouchers)
    ):
        found = _Lookups(sim)
        setattr(sim, _LOOKUPS, found)
    return found


def register_voucher(sim: Simulator, voucher: Voucher) -> None:
    """Add a new voucher to the state and every index."""
    look = _lookups(sim)
    sim.state.vouchers[voucher.id] = voucher
    sim.indexes.voucher_by_code[voucher.code] = voucher.id
    look._add_voucher(voucher)
    look.n_vouchers += 1


def free_code(sim: Simulator, campaign_id: str) -> Voucher | None:
    """The campaign's first free code (no holder, never published, active)."""
    look = _lookups(sim)
    ids = look.by_campaign.get(campaign_id, [])
    vouchers = sim.state.vouchers
    start = look.cursor.get(campaign_id, 0)
    advancing = True
    for i in range(start, len(ids)):
        v = vouchers[ids[i]]
        if _is_free(v):
            return v
        used_for_good = v.holder_id is not None or v.publish_count > 0
        if advancing and used_for_good:
            look.cursor[campaign_id] = i + 1
        else:
            advancing = False  # an inactive code may come back: do not skip past it
    return None


def campaign_codes(sim: Simulator, campaign_id: str) -> list[Voucher]:
    """The campaign's codes in creation order."""
    vouchers = sim.state.vouchers
    return [vouchers[vid] for vid in _lookups(sim).by_campaign.get(campaign_id, [])]


def held_codes(sim: Simulator, customer_id: str, campaign_id: str) -> list[Voucher]:
    """Codes of the campaign the customer holds, in creation order."""
    look = _lookups(sim)
    vouchers = sim.state.vouchers
    found = [vouchers[vid] for vid in dict.fromkeys(look.held.get(customer_id, []))]
    return [v for v in found if v.holder_id == customer_id and v.campaign_id == campaign_id]


def _cannot_publish(details: str, resource_type: str, resource_id: str) -> BadRequest:
    return BadRequest(
        details,
        key="voucher_cannot_be_published",
        message="Voucher cannot be published",
        resource_id=resource_id,
        resource_type=resource_type,
    )


# -- selection (pure) and application -----------------------------------------------------------
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
    publish computes one or two; tests/sim/test_publishing_fast_paths.py
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


def _by_source_id(sim: Simulator, source_id: str) -> Publication | None:
    pid = _lookups(sim).by_source.get(source_id)
    return None if pid is None else sim.state.publications.get(pid)


def _joined(sim: Simulator, customer_id: str, campaign_id: str | None, voucher_id: str) -> Publication | None:
    """The customer's first publication in the campaign (or of the code, for a
    code outside campaigns)."""
    publications = sim.state.publications
    for pid in _lookups(sim).by_customer.get(customer_id, []):
        publication = publications[pid]
        if campaign_id is not None and publication.campaign_id == campaign_id:
            return publication
        if campaign_id is None and publication.voucher_id == voucher_id:
            return publication
    return None


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
    voucher = _voucher_by_code(sim, voucher_code) if voucher_code is not None else None
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
        stored = _by_source_id(sim, source_id)
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
        joined = _joined(sim, customer_id, join_key, voucher.id if voucher is not None else "")
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
                key="no_voucher_suitable_for_publication",
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
    look = _lookups(sim)
    sim.state.publications[publication.id] = publication
    look._add_publication(publication)
    look.n_publications += 1
    if voucher.holder_id != customer.id:
        look.held.setdefault(customer.id, []).append(voucher.id)
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
