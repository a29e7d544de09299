"""Stacked redemptions and their rollbacks (endpoints `REDEEM_STACKED`, `ROLLBACK_REDEMPTION`).

A redemption prices the request exactly like a stacked validation
(`stacked_validation.priced_stack`), then, if it is valid, spends: one child
redemption per redeemable applied, in application order, under a parent when
more than one applied; the order is stored (or the stored one reused) and
lists the redemption. A request that is not valid is refused with the error
of the first redeemable that was not applied (400; under ALL its
INAPPLICABLE error, else why it was skipped) and changes nothing.

A rollback undoes a parent and all its children, or a redemption without a
parent: it gives back what each spent, marks them ROLLED_BACK, and under the
rollback order mode WITH_ORDER cancels the order (discounts removed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import models
from ...engine import redeemable_order, stack_order
from ...models import Rendered, endpoints
from ..clock import format_instant
from ..operation import bind
from ..records import RedeemedOrder, RedemptionRecord, RollbackRecord
from ..refusals import NotFound, SimError
from ..render.redemptions import (
    render_redemption,
    render_rollback,
    render_stored_order,
    undiscounted,
)
from ..request_parsing import parse
from ..sessions import release
from ..stack_redeemables import redeemed_as
from ..stack_spending import (
    credits_of,
    give_back,
    order_by_source,
    remember_order,
    rollback_deadline,
    spend,
)
from ..usage import usage_of
from .stacked_validation import StackedRequest, priced_stack
from .stacking_rules import stacking_rules_in_force

if TYPE_CHECKING:
    from ...engine import StackedRedeemable
    from ..simulator import Simulator

__all__ = ["redeem_stacked", "rollback_redemption"]


def redeem_stacked(sim: Simulator, *, request: Any) -> Rendered[models.RedemptionResponse]:
    stored = None
    if isinstance(request, dict) and isinstance(request.get("order"), dict):
        stored = order_by_source(sim, request["order"].get("source_id"))
        if stored is not None:  # the stored order wins over the one sent (docs/decisions.md)
            request = {**request, "order": dict(stored.sent)}
    priced = priced_stack(sim, request)
    result = priced.result
    if not result.valid:
        raise _refusal(priced)
    st, now = sim.state, sim.now
    applied = [result.redeemables[p] for p in result.tried if result.redeemables[p].status == "APPLICABLE"]
    customer_id = result.running.order.customer_id
    if stored is None:
        sent = request.get("order") if isinstance(request.get("order"), dict) else {}
        stored = RedeemedOrder(id=sim.ids.next("order"), source_id=sent.get("source_id"), created_at=now,
                               customer_id=customer_id, sent=dict(sent), priced={})
        remember_order(sim, stored)
    else:
        stored.updated_at = now
    stored.status = "PAID"
    final = stack_order(result)
    stored.priced = final
    parent_id = sim.ids.next("redemption") if len(applied) > 1 else None
    metadata = dict(priced.body.metadata or {})
    usage = usage_of(sim)
    children = []
    for stacked in applied:
        child = _child(sim, priced, stacked, parent_id, stored.id, metadata)
        spend(sim, child)
        st.redemptions[child.id] = child
        usage.add(child)
        children.append(child)
    amount = result.running.order.amount
    if parent_id is not None:
        parent = RedemptionRecord(
            id=parent_id, date=now, order_id=stored.id, customer_id=customer_id, tracking_id=priced.tracking_id,
            metadata=metadata, related_object_type="redemption", related_object_id=parent_id,
            discount=result.discount, order_amount=amount, order=final, children=[c.id for c in children],
        )  # fmt: skip
        st.redemptions[parent_id] = parent
        stored.redemptions[parent_id] = {
            "date": format_instant(now), "related_object_type": "redemption", "related_object_id": parent_id,
            "stacked": list(parent.children),
        }  # fmt: skip
    else:
        only = children[0]
        stored.redemptions[only.id] = {
            "date": format_instant(now), "related_object_type": only.related_object_type, "related_object_id": only.related_object_id,
        }  # fmt: skip
    if priced.body.session is not None:  # its holds are spent now
        release(sim, priced.body.session.key)
    outcomes = [priced.outcome(r) for r in result.redeemables]
    out: dict[str, Any] = {"redemptions": [render_redemption(st, c) for c in children]}
    if parent_id is not None:
        out["parent_redemption"] = render_redemption(st, st.redemptions[parent_id])
    out["order"] = render_stored_order(stored)
    out["inapplicable_redeemables"] = [o for o in outcomes if o["status"] == "INAPPLICABLE"]
    out["skipped_redeemables"] = [o for o in outcomes if o["status"] == "SKIPPED"]
    return Rendered(models.RedemptionResponse, out)


def _child(sim: Simulator, priced: StackedRequest, stacked: StackedRedeemable, parent_id: str | None,
           order_id: str, metadata: dict[str, Any]) -> RedemptionRecord:
    resolved = priced.resolved[stacked.entry.position]
    result = priced.result
    step = stacked.step
    assert step is not None
    related_type, related_id, campaign_id = redeemed_as(resolved)
    order = redeemable_order(result, stacked)
    assert order is not None
    return RedemptionRecord(
        id=sim.ids.next("redemption"), parent_id=parent_id, date=sim.now, order_id=order_id,
        customer_id=result.running.order.customer_id, tracking_id=priced.tracking_id, metadata=metadata,
        related_object_type=related_type, related_object_id=related_id,
        campaign_id=campaign_id,
        amount=credits_of(stacked),
        discount=step.total, order_amount=result.running.order.amount, order=order,
        units=dict(step.spent_units),
    )  # fmt: skip


def _refusal(priced: StackedRequest) -> SimError:
    """The error of a redemption that is not valid: the first redeemable
    (in application order) that was not applied."""
    result = priced.result
    inapplicable = [p for p in result.tried if result.redeemables[p].status == "INAPPLICABLE"]
    position = inapplicable[0] if inapplicable else result.tried[0]
    stacked = result.redeemables[position]
    error = priced.resolved[position].error
    if error is not None:
        return error
    return SimError(
        stacked.why or stacked.reason or "", key=stacked.reason_key, message=stacked.reason,
        resource_id=stacked.entry.id, resource_type=stacked.entry.object,
    )  # fmt: skip


def rollback_redemption(
    sim: Simulator, *, redemption_id: str, request: Any = None, reason: str | None = None,
    tracking_id: str | None = None,
) -> Rendered[models.RollbackResponse]:
    body = parse(models.RollbackRequest, request if request is not None else {})
    st, now = sim.state, sim.now
    record = st.redemptions.get(redemption_id)
    if record is None:
        raise NotFound("redemption", redemption_id)
    if record.parent_id is not None:
        raise SimError("You can rollback only a redemption that does not have parent redemption.",
                       key="invalid_redemption_parent", message="Invalid redemption parent",
                       resource_id=redemption_id, resource_type="redemption")
    if record.status == "ROLLED_BACK":
        raise SimError("Redemption has been already rolled back.", key="already_rolled_back",
                       message="Already rolled back", resource_id=record.rollback_id,
                       resource_type="redemption_rollback")
    if now > rollback_deadline(record.date):
        raise SimError(f"Redemption {redemption_id} of {record.date.isoformat()} is older than 3 months "
                       "and can no longer be rolled back", key="invalid_redemption", message="Invalid redemption",
                       resource_id=redemption_id, resource_type="redemption")
    stored = st.orders[record.order_id]
    cancel = stacking_rules_in_force(sim).redeemables_rollback_order_mode == "WITH_ORDER"
    shown = undiscounted(stored.priced) if cancel else stored.priced
    why = body.reason or reason
    who = body.tracking_id or tracking_id or record.tracking_id
    metadata = dict(body.metadata or {})
    children = [st.redemptions[c] for c in record.children] if record.children else [record]
    parent_rollback_id = sim.ids.next("rollback") if record.children else None
    rollbacks = []
    for child in children:
        rollback = RollbackRecord(
            id=sim.ids.next("rollback"), redemption_id=child.id, parent_rollback_id=parent_rollback_id, date=now,
            customer_id=child.customer_id, tracking_id=who, reason=why, metadata=metadata,
            amount=-child.amount if child.amount else None, order=undiscounted(child.order) if cancel else child.order,
        )  # fmt: skip
        give_back(sim, child)
        usage_of(sim).remove(child)
        child.status, child.rollback_id = "ROLLED_BACK", rollback.id
        st.rollbacks[rollback.id] = rollback
        rollbacks.append(rollback)
    entry = stored.redemptions[record.id]
    if parent_rollback_id is not None:
        parent = RollbackRecord(
            id=parent_rollback_id, redemption_id=record.id, date=now, customer_id=record.customer_id,
            tracking_id=who, reason=why, metadata=metadata, order=shown, children=[r.id for r in rollbacks],
        )  # fmt: skip
        st.rollbacks[parent.id] = parent
        record.status, record.rollback_id = "ROLLED_BACK", parent.id
        entry.update({"rollback_id": parent.id, "rollback_date": format_instant(now), "rollback_stacked": list(parent.children)})
    else:
        entry.update({"rollback_id": rollbacks[0].id, "rollback_date": format_instant(now)})
    if cancel:
        stored.status, stored.priced = "CANCELED", shown
    stored.updated_at = now
    out: dict[str, Any] = {"rollbacks": [render_rollback(st, r) for r in rollbacks]}
    if parent_rollback_id is not None:
        out["parent_rollback"] = render_rollback(st, st.rollbacks[parent_rollback_id])
    out["order"] = render_stored_order(stored)
    return Rendered(models.RollbackResponse, out)


REDEEM_STACKED = bind(endpoints.REDEEM_STACKED, redeem_stacked, write=True)
ROLLBACK_REDEMPTION = bind(endpoints.ROLLBACK_REDEMPTION, rollback_redemption, write=True)
