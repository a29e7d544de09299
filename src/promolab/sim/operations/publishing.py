"""Publishing a code to a customer (endpoint 5, POST /client/v1/publish).

Rules: `promolab.sim.publishing`. This operation adds the request side:
the body is parsed with `PublishRequest` (400 `invalid_payload` naming the
field; a body with neither `voucher` nor `campaign` is 400
`missing_vouchers`, as the real service answers), the campaign may be named
by id or name, and the customer is created from its `source_id` when unknown
— but only once every rule has passed, so a refused request changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ... import models
from ...models import endpoints
from ..customers import create_customer, find_customer
from ..operation import bind
from ..publishing import apply_publication, select_publication
from ..publishing_lookups import find_campaign
from ..refusals import BadRequest, InvalidPayload
from ..render import render_publication
from ..request_parsing import code, parse, text

if TYPE_CHECKING:
    from ..simulator import Simulator


class PublishBody(NamedTuple):
    """What `publish` reads from its request body (a parsed `PublishRequest`)."""

    voucher: str | None
    #: (id, name) of the campaign, None when the body names none
    campaign: tuple[str | None, str | None] | None
    #: the customer object without its unset fields, in the model's field order
    customer: dict[str, Any]
    source_id: str | None
    metadata: dict[str, Any] | None
    channel: str | None


def publish(sim: Simulator, *, request: Any, join_once: bool = False) -> models.Publication:
    if type(request) is not dict and not isinstance(request, Mapping):
        raise InvalidPayload("Payload should be an object")
    if request.get("voucher") is None and request.get("campaign") is None:
        raise BadRequest("Either Campaign or Voucher is required", key="missing_vouchers", message="Missing vouchers")
    body = read_body(request)
    customer_ref = body.customer
    customer = find_customer(sim, customer_ref)
    campaign_id: str | None = None
    if body.campaign is not None:
        campaign_id = find_campaign(sim, campaign_id=body.campaign[0], name=body.campaign[1]).id
    selection = select_publication(
        sim,
        customer_id=customer.id if customer is not None else None,
        campaign_id=campaign_id,
        voucher_code=body.voucher,
        source_id=body.source_id,
        join_once=join_once,
    )
    if customer is None:
        customer = create_customer(sim, customer_ref)
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


def read_body(request: Mapping[str, Any]) -> PublishBody:
    """The request body as `PublishRequest` parses it (400 `invalid_payload`
    naming the field when it does not)."""
    plain = plain_body(request)
    if plain is not None:
        return plain
    parsed = parse(models.PublishRequest, request)
    campaign = parsed.campaign
    return PublishBody(
        voucher=parsed.voucher,
        campaign=None if campaign is None else (campaign.id, campaign.name),
        customer=parsed.customer.model_dump(exclude_none=True),
        source_id=parsed.source_id,
        metadata=parsed.metadata,
        channel=parsed.channel,
    )


_PLAIN_KEYS = frozenset({"voucher", "campaign", "customer", "source_id", "channel"})
_CUSTOMER_KEYS = frozenset({"id", "source_id", "name", "email"})
_CAMPAIGN_KEYS = frozenset({"id", "name"})


def plain_body(request: Mapping[str, Any]) -> PublishBody | None:
    """The body of the common request, read without the model: strings
    (non-empty where the model requires it) or nulls, the campaign named by
    id and/or name, the customer by id and/or source_id (with a name and an
    email at most), no metadata. Anything else is None, and the model parses
    it (with its errors). For what it accepts, the model gives these values
    (tests/sim/test_publish_fast_paths.py checks both on generated bodies);
    parsing is otherwise a fifth of what a publish costs."""
    if type(request) is not dict or not _PLAIN_KEYS.issuperset(request):
        return None
    voucher, source_id, channel = request.get("voucher"), request.get("source_id"), request.get("channel")
    customer, campaign = request.get("customer"), request.get("campaign")
    if (
        not (code(voucher) and code(source_id) and code(channel))
        or type(customer) is not dict
        or not _CUSTOMER_KEYS.issuperset(customer)
    ):
        return None
    cid, customer_source, name, email = (
        customer.get("id"), customer.get("source_id"), customer.get("name"), customer.get("email")
    )
    if (cid is None and customer_source is None) or not (code(cid) and code(customer_source)):
        return None
    if not (text(name) and text(email)):
        return None  # (no minimum length: "" is a name)
    if campaign is not None:
        if type(campaign) is not dict or not _CAMPAIGN_KEYS.issuperset(campaign):
            return None
        campaign_id, campaign_name = campaign.get("id"), campaign.get("name")
        if (campaign_id is None and campaign_name is None) or not (code(campaign_id) and code(campaign_name)):
            return None
        campaign = (campaign_id, campaign_name)
    elif voucher is None:
        return None
    # the customer as model_dump(exclude_none=True) writes it: set fields, in field order
    ref: dict[str, Any] = {}
    if cid is not None:
        ref["id"] = cid
    if customer_source is not None:
        ref["source_id"] = customer_source
    if name is not None:
        ref["name"] = name
    if email is not None:
        ref["email"] = email
    return PublishBody._make((voucher, campaign, ref, source_id, None, channel))  # (tuple.__new__: quicker)


PUBLISH = bind(endpoints.PUBLISH, publish, write=True)
