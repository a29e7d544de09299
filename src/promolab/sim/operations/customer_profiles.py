"""Reading customers: the list (paged, filtered, with a cursor) and one by id or source id.

A customer's `summary` is computed from the simulator's records for the
page's customers only (its redemptions, rollbacks and orders, gathered in
one pass over them), so a page of a large project costs a sort, not a
summary of everyone. The simulator's loyalty programs are the v2 API's
(`/v2/loyalties`), not the v1 loyalty cards a customer's `loyalty` sums,
so `loyalty.points` is 0 and `loyalty.campaigns` empty; `referred_customers`
and `referrals` come from the referral conversions (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import models
from ...models import read_endpoints
from ..fast_validate import validated
from ..listing import Listing, at_or_after, at_or_before, equals, later_than
from ..operation import bind
from ..records import Customer
from ..refusals import NotFound
from ..render._time import iso

if TYPE_CHECKING:
    from ..simulator import Simulator
    from ..state import State


def _created(record: Customer) -> datetime | None:
    return record.created_at


def _customers(state: State, segment_id: object) -> Iterable[Customer]:
    if isinstance(segment_id, str):
        segment = state.segments.get(segment_id)
        members = frozenset(segment.customers) if segment is not None else frozenset()
        return [c for c in state.customers.values() if c.id in members]
    return state.customers.values()


#: Nothing changes a customer's fields after it is made, so `updated_at`
#: sorts (and filters) like `created_at`; `segment_id` is applied before the
#: listing (it reads a segment, not the customer). A scenario's customers
#: have no address, so a `city` matches none.
CUSTOMERS: Listing[Customer] = Listing(
    read_endpoints.LIST_CUSTOMERS, "customers",
    sort={"created_at": _created, "updated_at": _created, "source_id": lambda c: c.source_id},
    filters={
        "email": equals(lambda c: c.email), "city": equals(lambda c: None), "name": equals(lambda c: c.name),
        "created_before": at_or_before(_created), "created_after": at_or_after(_created),
        "updated_before": at_or_before(_created), "updated_after": at_or_after(_created),
        "starting_after": later_than(_created),
    },
    has_more=True, prefiltered=frozenset({"segment_id"}),
)


@dataclass(slots=True)
class _Tally:
    redeemed: int = 0
    rolled_back: int = 0
    gift_spent: int = 0
    orders: list[tuple[datetime, int]] = field(default_factory=list)
    referred: list[dict[str, Any]] = field(default_factory=list)


def _tallies(state: State, wanted: set[str]) -> dict[str, _Tally]:
    """Each wanted customer's redemptions (one per code or tier redeemed; a
    stacked parent counts none), rollbacks, gift credits and orders, in one pass."""
    tallies = {cid: _Tally() for cid in wanted}
    for record in state.redemptions.values():
        tally = tallies.get(record.customer_id or "")
        if tally is None or record.related_object_type == "redemption":
            continue
        tally.redeemed += 1
        if record.status == "ROLLED_BACK":
            tally.rolled_back += 1
        elif record.amount is not None:
            tally.gift_spent += record.amount
    for order in state.orders.values():
        tally = tallies.get(order.customer_id or "")
        if tally is not None:
            tally.orders.append((order.created_at, int(order.priced.get("amount") or 0)))
    for conversion in state.referral_conversions.values():
        tally = tallies.get(conversion.referrer_id)
        if tally is not None:
            tally.referred.append({"campaign_id": conversion.campaign_id, "referrer_id": conversion.referrer_id,
                                   "related_object_id": conversion.event_id, "related_object_type": "customer_event",
                                   "date": iso(conversion.created_at)})
    return tallies


def _profile(record: Customer, tally: _Tally) -> dict[str, Any]:
    amounts = [amount for _, amount in sorted(tally.orders, key=lambda o: o[0])]
    orders: dict[str, Any] = {
        "total_amount": sum(amounts), "total_count": len(amounts),
        "average_amount": sum(amounts) // len(amounts) if amounts else 0,
        "last_order_amount": amounts[-1] if amounts else 0,
    }
    if tally.orders:
        orders["last_order_date"] = iso(max(when for when, _ in tally.orders))
    body: dict[str, Any] = {
        "id": record.id, "source_id": record.source_id, "name": record.name, "email": record.email, "address": None,
        "summary": {
            "redemptions": {
                "total_redeemed": tally.redeemed, "total_failed": 0, "total_succeeded": tally.redeemed,
                "total_rolled_back": tally.rolled_back, "total_rollback_failed": 0,
                "total_rollback_succeeded": tally.rolled_back,
                "gift": {"redeemed_amount": tally.gift_spent, "amount_to_go": 0},
                "loyalty_card": {"redeemed_points": 0, "points_to_go": 0},
            },
            "orders": orders,
        },
        "loyalty": {"points": 0, "referred_customers": len(tally.referred), "campaigns": {}},
        "referrals": {"total": len(tally.referred), "campaigns": tally.referred},
        "metadata": record.metadata, "system_metadata": {},
    }
    if record.created_at is not None:
        body["created_at"] = iso(record.created_at)
    body["object"] = "customer"
    return body


def list_customers(sim: Simulator, /, **query: object) -> models.CustomerList:
    """The page's customers only are summarised (one pass over the records for all of them)."""
    state = sim.state
    page = CUSTOMERS.page(_customers(state, query.get("segment_id")), query)
    tallies = _tallies(state, {c.id for c in page.items})
    return validated(models.CustomerList, CUSTOMERS.envelope(page, [_profile(c, tallies[c.id]) for c in page.items]))


def get_customer(sim: Simulator, *, customer_id: str) -> models.CustomerProfile:
    customers = sim.state.customers
    found = customers.get(customer_id) or next((c for c in customers.values() if c.source_id == customer_id), None)
    if found is None:
        raise NotFound("customer", customer_id)
    return validated(models.CustomerProfile, _profile(found, _tallies(sim.state, {found.id})[found.id]))


LIST_CUSTOMERS = bind(read_endpoints.LIST_CUSTOMERS, list_customers, write=False)
GET_CUSTOMER = bind(read_endpoints.GET_CUSTOMER, get_customer, write=False)

#: This family's operations, in the order of `read_endpoints.READS`.
READS = (LIST_CUSTOMERS, GET_CUSTOMER)


def profiles(state: State, customers: list[Customer]) -> list[dict[str, Any]]:
    """The profiles of `customers`, as the list shows them (an export's rows, sim/export_rows.py)."""
    tallies = _tallies(state, {c.id for c in customers})
    return [_profile(c, tallies[c.id]) for c in customers]
