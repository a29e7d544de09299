"""Reading what a project redeemed: its orders, its redemptions and rollbacks.

Both lists read the simulator's records (`state.orders`, `state.redemptions`,
`state.rollbacks`) through their `Listing` (sim/listing.py); the answers are
rendered by the functions the redemption answers use, so a listed
redemption is the one its redemption call returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import models
from ...models import read_endpoints
from ..fast_validate import validated
from ..listing import Listing, at_or_after, at_or_before, equals
from ..operation import bind
from ..records import RedeemedOrder, RedemptionRecord, RollbackRecord
from ..render.customers import customer_body
from ..render.redemptions import render_redemption, render_rollback, render_stored_order

if TYPE_CHECKING:
    from ..simulator import Simulator
    from ..state import State


@dataclass(frozen=True, slots=True)
class _Entry:
    """One line of the redemptions list: a redemption, or a rollback with the redemption it undoes."""

    record: RedemptionRecord | RollbackRecord
    redemption: RedemptionRecord
    voucher_code: str | None

    @property
    def date(self) -> datetime:
        return self.record.date


def _entries(state: State) -> list[_Entry]:
    """Redemptions and rollbacks in the order they were made (ids are minted in order, dates may tie)."""
    def code(redemption: RedemptionRecord) -> str | None:
        if redemption.related_object_type != "voucher":
            return None
        voucher = state.vouchers.get(redemption.related_object_id)
        return voucher.code if voucher is not None else None

    entries = [_Entry(r, r, code(r)) for r in state.redemptions.values()]
    entries += [_Entry(b, state.redemptions[b.redemption_id], code(state.redemptions[b.redemption_id]))
                for b in state.rollbacks.values()]
    return sorted(entries, key=lambda e: e.date)


#: The channel every listed redemption and rollback came through: the
#: simulator has one, its API (docs/decisions.md, "Lists").
LISTED_CHANNEL = {"channel_id": "promolab-api", "channel_type": "API"}


def _as_listed(state: State, body: dict[str, Any], customer_id: str | None) -> dict[str, Any]:
    """A redemption's or rollback's answer as the list shows it: with its
    `channel` and its `customer` (the customer object) after the order, in
    the service's key order."""
    customer = state.customers.get(customer_id) if customer_id is not None else None
    listed: dict[str, Any] = {}
    for key, value in body.items():
        if key == "channel":
            continue
        listed[key] = value
        if key == "order":
            listed["channel"] = dict(LISTED_CHANNEL)
            listed["customer"] = customer_body(customer) if customer is not None else None
    return listed


def _order_time(order: RedeemedOrder) -> datetime:
    return order.created_at


ORDERS: Listing[RedeemedOrder] = Listing(
    read_endpoints.LIST_ORDERS, "orders",
    sort={"created_at": _order_time, "updated_at": lambda o: o.updated_at or o.created_at},
)
REDEMPTIONS: Listing[_Entry] = Listing(
    read_endpoints.LIST_REDEMPTIONS, "redemptions",
    sort={"created_at": lambda e: e.date, "id": lambda e: e.record.id, "voucher_code": lambda e: e.voucher_code,
          "tracking_id": lambda e: e.record.tracking_id, "customer_id": lambda e: e.record.customer_id},
    filters={
        "result": equals(lambda e: "SUCCESS"),  # a refused redemption records nothing
        "campaign": equals(lambda e: e.redemption.campaign_id),
        "customer": equals(lambda e: e.record.customer_id),
        "created_before": at_or_before(lambda e: e.date),
        "created_after": at_or_after(lambda e: e.date),
    },
)


def list_orders(sim: Simulator, /, **query: object) -> models.OrderList:
    return validated(models.OrderList, ORDERS.answer(sim.state.orders.values(), query, render_stored_order))


def list_redemptions(sim: Simulator, /, **query: object) -> models.RedemptionList:
    state = sim.state

    def render(entry: _Entry) -> dict[str, Any]:
        record = entry.record
        body = render_rollback(state, record) if isinstance(record, RollbackRecord) else render_redemption(state, record)
        return _as_listed(state, body, record.customer_id)

    return validated(models.RedemptionList, REDEMPTIONS.answer(_entries(state), query, render))


LIST_ORDERS = bind(read_endpoints.LIST_ORDERS, list_orders, write=False)
LIST_REDEMPTIONS = bind(read_endpoints.LIST_REDEMPTIONS, list_redemptions, write=False)

#: This family's operations, in the order of `read_endpoints.READS`.
READS = (LIST_ORDERS, LIST_REDEMPTIONS)
