"""Stackable validation (endpoint `VALIDATE_STACKED`, beyond the interface).

Up to 30 redeemables (discount codes, gift cards, promotion tiers) priced
together on one order under the project's stacking rules: the engine's
`evaluate_stack` decides, this module resolves what the request names
(`stack_redeemables`) and renders the answer. A validation changes nothing
but the id counter (each answer has its own `valid_…` id), so it is a write
for the journal: a replay hands out the same ids.

Request-level refusals (400, nothing priced): more redeemables than the
project's `redeemables_limit` (`invalid_payload`), one redeemable named twice
(`duplicated_redeemables`). Everything about one redeemable is in its answer
(HTTP 200 even when `valid` is false).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import models
from ...engine import (
    PricingContext,
    PricingInputError,
    StackedRedeemable,
    StackResult,
    evaluate_stack,
    normalize_order,
    redeemable_order,
    stack_order,
    static_wire,
)
from ...models import Rendered, endpoints
from ..operation import bind
from ..promotions import (
    PricingView,
    customer_context,
    invalid_payload,
    pricing_view,
    tracking_id,
    with_stacking_types,
)
from ..records import SessionHold
from ..refusals import SimError
from ..request_parsing import parse
from ..sessions import held, lock
from ..stack_redeemables import (
    ResolvedRedeemable,
    check_redeemables,
    expand_stack,
    refuse_the_same_code_twice,
    resolve_redeemables,
)
from ..usage import usage_of
from .stacking_rules import stacking_rules_in_force

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["StackedRequest", "priced_stack", "validate_stacked"]

_EMPTY_LIST = {"data": [], "total": 0, "data_ref": "data", "object": "list"}


class StackedRequest:
    """A stacked request priced: the parsed body, what each redeemable
    resolved to, the engine's answer, and what rendering needs."""

    __slots__ = ("body", "expand", "resolved", "result", "rules", "tracking_id", "view")

    def __init__(self, body: models.StackedValidationRequest, view: PricingView, resolved: list[ResolvedRedeemable],
                 result: StackResult, rules: models.StackingRules, tracking: str | None) -> None:
        self.body = body
        self.view = view
        self.resolved = resolved
        self.result = result
        self.rules = rules
        self.tracking_id = tracking
        self.expand = frozenset(body.options.expand or ()) if body.options is not None else frozenset()

    def outcome(self, stacked: StackedRedeemable) -> dict[str, Any]:
        """One redeemable's answer, wire shape."""
        resolved = self.resolved[stacked.entry.position]
        entry = stacked.entry
        out: dict[str, Any] = {"status": stacked.status, "id": entry.id, "object": entry.object}
        if stacked.status == "APPLICABLE":
            out["order"] = redeemable_order(self.result, stacked)
            if entry.discount is not None:
                parts = static_wire(entry.discount, self.view.catalogue).fresh("category" in self.expand)
                out["applicable_to"], out["inapplicable_to"] = parts[0], parts[1]
                out["result"] = {"discount": parts[2]}
            else:
                assert stacked.step is not None and resolved.voucher is not None and resolved.voucher.gift is not None
                out["applicable_to"], out["inapplicable_to"] = dict(_EMPTY_LIST), dict(_EMPTY_LIST)
                out["result"] = {"gift": {"credits": stacked.step.order_discount, "balance": resolved.voucher.gift.balance}}
        else:
            details = {"key": stacked.reason_key, "message": stacked.reason}
            if stacked.status == "INAPPLICABLE":
                error = resolved.error or SimError(
                    stacked.reason or "", key=stacked.reason_key, message=stacked.reason,
                    resource_id=entry.id, resource_type=entry.object,
                )  # fmt: skip
                out["result"] = {"error": error.body(), "details": details}
            else:
                out["result"] = {"details": details}
        out["metadata"] = self._metadata(resolved)
        out["categories"] = with_stacking_types(resolved.categories, self.rules)
        if "redeemable" in self.expand and resolved.campaign is not None:
            out["campaign_name"] = resolved.campaign.name
            out["campaign_id"] = resolved.campaign.id
            if entry.discount is not None and entry.object == "promotion_tier":
                out["name"] = entry.discount.spec.name
        return out

    @staticmethod
    def _metadata(resolved: ResolvedRedeemable) -> dict[str, Any]:
        if resolved.voucher is not None:
            return dict(resolved.voucher.metadata)
        tier = resolved.entry.discount
        return dict(tier.spec.metadata) if tier is not None else {}


def priced_stack(sim: Simulator, request: Any) -> StackedRequest:
    """Parse and price a stacked request (validation's and redemption's
    common part); raises the request-level 400s before pricing anything."""
    body = parse(models.StackedValidationRequest, request)
    rules = stacking_rules_in_force(sim)
    check_redeemables(body.redeemables, rules)
    redeemables = expand_stack(sim, body.redeemables)
    view = pricing_view(sim)
    given = request.get("customer") if isinstance(request, dict) else None
    customer, source = customer_context(sim, view, given)
    try:
        order = normalize_order(view.catalogue, request.get("order"), customer.id if customer else None)
    except PricingInputError as exc:
        raise invalid_payload(exc) from None
    session_key = body.session.key if body.session is not None else None
    resolved = resolve_redeemables(sim, view, redeemables, held(sim, except_key=session_key))
    refuse_the_same_code_twice(resolved)
    ctx = PricingContext(sim.now, body.metadata or {}, usage=usage_of(sim))
    try:
        result = evaluate_stack([r.entry for r in resolved], order, customer, ctx, rules, catalogue=view.catalogue)
    except PricingInputError as exc:  # a UNIT discount's free units past 2^63-1
        raise invalid_payload(exc) from None
    tracking = tracking_id(sim.state.project.id, source) if source is not None else body.tracking_id
    return StackedRequest(body, view, resolved, result, rules, tracking)


def validate_stacked(sim: Simulator, *, request: Any) -> Rendered[models.StackedValidationResponse]:
    priced = priced_stack(sim, request)
    result = priced.result
    outcomes = [priced.outcome(r) for r in result.redeemables]
    partial = priced.rules.redeemables_application_mode == "PARTIAL"
    out: dict[str, Any] = {
        "id": sim.ids.next("validation"),
        "valid": result.valid,
        "redeemables": [o for o in outcomes if o["status"] == "APPLICABLE"] if partial else outcomes,
        "skipped_redeemables": [o for o in outcomes if o["status"] == "SKIPPED"],
        "inapplicable_redeemables": [o for o in outcomes if o["status"] == "INAPPLICABLE"],
        "order": stack_order(result),
    }
    if priced.tracking_id is not None:
        out["tracking_id"] = priced.tracking_id
    asked = priced.body.session
    if asked is not None and result.valid:
        session = lock(sim, asked, _holds(priced))
        out["session"] = {"key": session.key, "type": "LOCK", "ttl": session.ttl, "ttl_unit": session.ttl_unit}
    out["stacking_rules"] = priced.rules.settings()
    return Rendered(models.StackedValidationResponse, out)


def _holds(priced: StackedRequest) -> list[SessionHold]:
    """What a LOCK session of this validation holds: a use of each code
    applied, and the credits of each gift card (tiers are not held)."""
    out = []
    for stacked in priced.result.applicable:
        voucher = priced.resolved[stacked.entry.position].voucher
        if voucher is not None:
            credits = stacked.step.order_discount if stacked.entry.gift_credits is not None and stacked.step else 0
            out.append(SessionHold(voucher_id=voucher.id, credits=credits))
    return out


VALIDATE_STACKED = bind(endpoints.VALIDATE_STACKED, validate_stacked, write=True)
