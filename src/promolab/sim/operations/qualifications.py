"""Qualifications (endpoint `QUALIFICATIONS`, beyond the interface): what can
this customer get for this cart, best deal first.

`sim.qualifying` judges every redeemable the request's scenario considers;
this module sorts the ones that qualify, cuts the page and renders it. A
read: nothing changes, nothing is journaled, no id is handed out.

Why not: `qualification_exclusions(sim, request)` gives, for the same
request, every redeemable considered and not returned with the key and
message of what excluded it. The wire answer does not carry them (the
service's does not); the control API and the analysis frames read them
from here.

Order and paging (docs/decisions.md § Qualifications): DEFAULT is
`created_at` descending, BEST_DEAL / LEAST_DEAL the amount the redeemable
takes off the cart alone, descending / ascending; ties newest first, then by
id. `more_starting_after` is the last item's `created_at` where that
date-time cuts the DEFAULT list exactly (the service's cursor), else a
position (`position:N`).
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ... import models
from ...engine import (
    StackEntry,
    evaluate_stack,
    outcome_wire,
    redeemable_order,
    stack_order,
    static_wire,
)
from ...models import Rendered, endpoints, format_timestamp
from ...models.qualifications import parse_cursor
from ..operation import bind
from ..promotions import tracking_id, with_stacking_types
from ..qualifying import Qualified, QualifiedStack, Qualifying, qualify
from ..request_parsing import parse
from ..sessions import held
from ..validation_rule_objects import tier_owner
from .stacking_rules import stacking_rules_in_force

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["QUALIFICATIONS", "qualification_exclusions", "qualifications"]

_EMPTY_LIST: dict[str, Any] = {"object": "list", "data_ref": "data", "data": [], "total": 0}


def qualifications(sim: Simulator, *, request: Any) -> Rendered[models.QualificationResponse]:
    body = parse(models.QualificationRequest, request)
    judged = qualify(sim, body, request)
    options = body.options or models.QualificationOptions()
    ranked = _ranked(judged.qualified, options.sorting_rule)
    start = _start(ranked, parse_cursor(options.starting_after))
    page = ranked[start:start + options.limit]
    end = start + len(page)
    listing: dict[str, Any] = {
        "object": "list", "data_ref": "data", "data": [_render(sim, judged, q, options) for q in page],
        "total": len(page), "has_more": end < len(ranked),
    }  # fmt: skip
    if end < len(ranked):
        listing["more_starting_after"] = _cursor_after(ranked, end, options.sorting_rule)
    out: dict[str, Any] = {"redeemables": listing}
    if judged.source is not None:
        out["tracking_id"] = tracking_id(sim.state.project.id, judged.source)
    elif body.tracking_id is not None:
        out["tracking_id"] = body.tracking_id
    if request.get("order") is not None:
        out["order"] = _cart(judged)
    out["stacking_rules"] = stacking_rules_in_force(sim).settings()
    return Rendered(models.QualificationResponse, out)


def qualification_exclusions(sim: Simulator, request: Any) -> list[dict[str, Any]]:
    """Every redeemable the request considers and does not return, with what
    excluded it: `{id, object, key, message}`, in the order they were judged
    (tiers, then codes). Refuses a bad request like the operation does."""
    body = parse(models.QualificationRequest, request)
    return qualify(sim, body, request).exclusions


# -- order and paging --------------------------------------------------------------------------------


def _ranked(qualified: list[Qualified | QualifiedStack], rule: str) -> list[Qualified | QualifiedStack]:
    """The qualified redeemables in answer order: ties newest first, then by id."""
    newest = sorted(qualified, key=lambda q: q.id)
    newest.sort(key=lambda q: q.created_at, reverse=True)
    if rule == "BEST_DEAL":
        newest.sort(key=lambda q: q.deal, reverse=True)  # stable: ties keep the order above
    elif rule == "LEAST_DEAL":
        newest.sort(key=lambda q: q.deal)
    return newest


def _start(ranked: list[Qualified | QualifiedStack], cursor: datetime | int | None) -> int:
    """Where the page starts: a position, or (a date-time, DEFAULT order
    only: the model refuses it elsewhere) the first item strictly older."""
    if cursor is None:
        return 0
    if isinstance(cursor, int):
        return min(cursor, len(ranked))
    return next((i for i, q in enumerate(ranked) if q.created_at < cursor), len(ranked))


def _cursor_after(ranked: list[Qualified | QualifiedStack], end: int, rule: str) -> str:
    last, following = ranked[end - 1], ranked[end]
    if rule == "DEFAULT" and following.created_at < last.created_at:
        return format_timestamp(last.created_at)
    return f"position:{end}"


# -- rendering ---------------------------------------------------------------------------------------


def _render(sim: Simulator, judged: Qualifying, q: Qualified | QualifiedStack,
            options: models.QualificationOptions) -> dict[str, Any]:
    if isinstance(q, QualifiedStack):
        return _render_stack(judged, q, options)
    resolved = q.resolved
    entry = resolved.entry
    expand = frozenset(options.expand or ())
    out: dict[str, Any] = {"id": entry.id, "object": entry.object, "created_at": format_timestamp(q.created_at)}
    if q.outcome is not None:
        wire = outcome_wire(q.outcome)
        out["result"] = {"discount": wire.discount}
        out["order"] = wire.order
        out["applicable_to"], out["inapplicable_to"] = wire.applicable_to, wire.inapplicable_to
    else:
        assert resolved.voucher is not None and resolved.voucher.gift is not None and q.gift_credits is not None
        locked = held(sim).credits[resolved.voucher.id]  # validation sessions' holds on the card
        out["result"] = {"gift": {"balance": resolved.voucher.gift.balance, "credits": q.gift_credits,
                                  "locked_credits": locked}}
        out["order"] = _gift_order(judged, entry, q.gift_credits)
        out["applicable_to"], out["inapplicable_to"] = dict(_EMPTY_LIST), dict(_EMPTY_LIST)
    if resolved.voucher is not None:
        out["metadata"] = dict(resolved.voucher.metadata)
    else:
        tier = entry.discount
        out["metadata"] = dict(tier.spec.metadata) if tier is not None else {}
    if "category" in expand:
        out["categories"] = with_stacking_types(resolved.categories, stacking_rules_in_force(sim))
    if "redeemable" in expand and resolved.campaign is not None:
        out["campaign_name"] = resolved.campaign.name
        out["campaign_id"] = resolved.campaign.id
    if entry.object == "promotion_tier" and entry.discount is not None:
        out["name"] = entry.discount.spec.name
        if entry.discount.spec.banner is not None:
            out["banner"] = entry.discount.spec.banner
    if "validation_rules" in expand:
        out["validation_rules_assignments"] = _assignments(sim, q)
    return out


def _render_stack(judged: Qualifying, q: QualifiedStack, options: models.QualificationOptions) -> dict[str, Any]:
    """A stack: the tiers it applies (each with its running order, as a
    stacked validation shows them) and the order with all of them applied."""
    expand = frozenset(options.expand or ())
    result = q.result
    tiers = []
    for stacked in result.applicable:  # a tier a limit left out is not part of what the stack gives
        tier = stacked.entry.discount
        assert tier is not None  # tiers always have a discount
        parts = static_wire(tier, judged.view.catalogue).fresh("category" in expand)
        tiers.append({
            "id": stacked.entry.id, "object": "promotion_tier", "created_at": format_timestamp(q.created_at),
            "result": {"discount": parts[2]}, "order": redeemable_order(result, stacked),
            "applicable_to": parts[0], "inapplicable_to": parts[1], "metadata": dict(tier.spec.metadata),
            "name": tier.spec.name,
        })
    return {
        "id": q.stack.id, "object": "promotion_stack", "created_at": format_timestamp(q.created_at), "result": {},
        "order": stack_order(result), "applicable_to": dict(_EMPTY_LIST), "inapplicable_to": dict(_EMPTY_LIST),
        "metadata": {}, "name": q.stack.name, "redeemables": tiers,
    }


def _gift_order(judged: Qualifying, entry: StackEntry, credits: int) -> dict[str, Any]:
    """The cart with the gift card's usable credits taken off (the stacking
    engine's answer for that one card)."""
    alone = StackEntry(0, entry.object, entry.id, gift_credits=credits, categories=entry.categories)
    result = evaluate_stack([alone], judged.order, judged.customer, judged.ctx, models.StackingRules())
    order = redeemable_order(result, result.redeemables[0])
    return order if order is not None else stack_order(result)


def _cart(judged: Qualifying) -> dict[str, Any]:
    """The order as sent, without discounts (the engine's wire order of a
    stack that applied nothing)."""
    return stack_order(evaluate_stack([], judged.order, judged.customer, judged.ctx, models.StackingRules()))


def _assignments(sim: Simulator, q: Qualified) -> dict[str, Any]:
    """`validation_rules_assignments`: the simulator keeps a tier's rules
    inline, so the one assignment is the tier's synthesized rule's
    (`validation_rule_objects`: the ids the rule reads serve), carrying its
    rules."""
    tier = sim.state.tiers.get(q.id) if q.resolved.entry.object == "promotion_tier" else None
    owner = tier_owner(tier) if tier is not None else None
    if owner is None:
        return dict(_EMPTY_LIST)
    assignment = {
        "id": owner.assignment_id, "rule_id": owner.rule_id, "related_object_id": q.id,
        "related_object_type": "promotion_tier", "validation_rule": copy.deepcopy(owner.validation_rules),
        "object": "validation_rules_assignment",
    }  # fmt: skip
    return {"object": "list", "data_ref": "data", "data": [assignment], "total": 1}


QUALIFICATIONS = bind(endpoints.QUALIFICATIONS, qualifications, write=False)
