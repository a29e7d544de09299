"""Publishing a code to a customer (endpoint 5, `endpoints.PUBLISH`).

Rules: `promolab.sim.publishing`. This operation adds the request side:
the body is parsed with `PublishRequest` (400 `invalid_payload` naming the
field; a body with neither `voucher` nor `campaign` is 400
`missing_vouchers`, as the real service answers), the campaign may be named
by id or name, and the customer is created from its `source_id` when unknown
— but only once every rule has passed, so a refused request changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import models
from ...models import endpoints
from ..customers import create_customer, find_customer
from ..operation import bind
from ..publishing import apply_publication, select_publication
from ..publishing_lookups import find_campaign
from ..render import render_publication
from ..request_parsing import parse

if TYPE_CHECKING:
    from ..simulator import Simulator


def publish(sim: Simulator, *, request: Any, join_once: bool = False) -> models.Publication:
    body = parse(models.PublishRequest, request)
    given = body.customer
    customer = find_customer(sim, given)
    campaign_id: str | None = None
    if body.campaign is not None:
        campaign_id = find_campaign(sim, campaign_id=body.campaign.id, name=body.campaign.name).id
    selection = select_publication(
        sim,
        customer_id=customer.id if customer is not None else None,
        campaign_id=campaign_id,
        voucher_code=body.voucher,
        source_id=body.source_id,
        join_once=join_once,
    )
    if customer is None:
        customer = create_customer(sim, given)
        selection = select_publication(  # same answer, now with the customer's id in the fingerprint
            sim,
            customer_id=customer.id,
            campaign_id=campaign_id,
            voucher_code=body.voucher,
            source_id=body.source_id,
            join_once=join_once,
        )
    publication = apply_publication(
        sim,
        selection,
        customer,
        channel=body.channel or "API",
        metadata=body.metadata,
        source_id=body.source_id,
    )
    return render_publication(sim, publication)


PUBLISH = bind(endpoints.PUBLISH, publish, write=True)
