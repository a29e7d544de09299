"""What publishing looks up: campaigns, codes and publications, without scans.

`find_campaign` and `voucher_by_code` resolve what a request names (404
otherwise). The rest answers from a derived index over publications and
vouchers (`_Lookups`), so that publishing stays O(1)-ish in a campaign of
100,000 codes or a replay of as many publications: a campaign's codes in
creation order and its first free one, the codes a customer holds, the
publication of a `source_id`, a customer's first publication in a campaign.
New vouchers and publications enter the state through `register_voucher` and
`register_publication`, which keep the index in step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .records import Campaign, Publication, Voucher
from .refusals import BadRequest, NotFound

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = [
    "campaign_codes",
    "customer_codes",
    "find_campaign",
    "first_publication",
    "free_code",
    "free_codes",
    "held_codes",
    "publication_by_source_id",
    "register_publication",
    "register_voucher",
    "standalone_codes",
    "voucher_by_code",
]


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


def voucher_by_code(sim: Simulator, code: str) -> Voucher:
    """The voucher of a code; 404 otherwise."""
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


def register_publication(sim: Simulator, publication: Publication, voucher: Voucher) -> None:
    """Add a new publication to the state and every index, before `voucher`
    (the code it publishes) changes hands: the code is indexed here under
    the publication's customer as a code they hold."""
    look = _lookups(sim)
    sim.state.publications[publication.id] = publication
    look._add_publication(publication)
    look.n_publications += 1
    if voucher.holder_id != publication.customer_id:
        look.held.setdefault(publication.customer_id, []).append(voucher.id)


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


def free_codes(sim: Simulator, campaign_id: str) -> int:
    """How many of the campaign's codes can still be published (`free_code`'s pool)."""
    return sum(_is_free(v) for v in campaign_codes(sim, campaign_id))


def held_codes(sim: Simulator, customer_id: str, campaign_id: str) -> list[Voucher]:
    """Codes of the campaign the customer holds, in creation order."""
    return [v for v in customer_codes(sim, customer_id) if v.campaign_id == campaign_id]


def customer_codes(sim: Simulator, customer_id: str) -> list[Voucher]:
    """Every code the customer holds now (given in the scenario or published
    to them), in the order they got them (qualifications' wallet)."""
    vouchers = sim.state.vouchers
    found = [vouchers[vid] for vid in dict.fromkeys(_lookups(sim).held.get(customer_id, []))]
    return [v for v in found if v.holder_id == customer_id]


def standalone_codes(sim: Simulator) -> list[Voucher]:
    """The codes outside any campaign (generic codes), in creation order."""
    vouchers = sim.state.vouchers
    return [vouchers[vid] for vid in _lookups(sim).by_campaign.get(None, [])]


def publication_by_source_id(sim: Simulator, source_id: str) -> Publication | None:
    pid = _lookups(sim).by_source.get(source_id)
    return None if pid is None else sim.state.publications.get(pid)


def first_publication(sim: Simulator, customer_id: str, campaign_id: str | None, voucher_id: str) -> Publication | None:
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
