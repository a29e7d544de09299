"""The redeemables a stacked request names, resolved against the simulator's state.

The engine's stacking (`engine.evaluate_stack`) sees each redeemable as a
`StackEntry`: a compiled discount, gift credits, or a refusal. This module
makes those entries from what a request names (a code or a tier id), with
the checks that need state: the code or tier exists, is active and within
its dates, has uses left, and a gift card has the credits asked for. A
refusal keeps the error the service reports for it (`SimError`), which the
answer shows in the redeemable's `result.error`.

Discount codes are compiled like tiers (`promotions.code_spec`: a
`TierSpec` of the code's discount, rules and scope, named by the voucher's
id, which budget rules count by), once per voucher and terms; a gift card's
validation rules are compiled once per voucher and rules object, and the
engine checks them on the running order (`StackEntry.gift_rules`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .. import models
from ..engine import (
    CompiledTier,
    RuleFailure,
    RuleSet,
    StackCategory,
    StackEntry,
    TierConfigError,
    compile_rules,
    compile_tier,
)
from .promotions import PricingView, campaign_categories, code_spec, code_terms, tier_categories
from .refusals import InvalidPayload, NotFound, SimError
from .sessions import Held
from .state import derived

if TYPE_CHECKING:
    from .records import Campaign, Voucher
    from .simulator import Simulator

__all__ = [
    "QUANTITY_EXCEEDED", "ResolvedRedeemable", "check_redeemables", "duplicated", "expand_stack", "redeemed_as",
    "refuse_the_same_code_twice", "resolve_redeemables",
]


#: The refusal of a code whose uses have run out (its stock; a forecast
#: counts the orders it held back).
QUANTITY_EXCEEDED = "quantity_exceeded"


@dataclass(frozen=True, slots=True)
class ResolvedRedeemable:
    entry: StackEntry
    #: The code's voucher (None for a tier, or a code that does not exist).
    voucher: Voucher | None
    #: What refused it, as the service reports it (None: the engine decides).
    error: SimError | None
    #: Its categories as the wire shows them, without their stacking types
    #: (`promotions.with_stacking_types` adds them for the answer).
    categories: tuple[dict[str, Any], ...]
    campaign: Campaign | None


def check_redeemables(redeemables: list[models.RedeemableInput], rules: models.StackingRules) -> None:
    """The request-level refusals (400, nothing priced): more redeemables than
    the rules' `redeemables_limit`, or one redeemable named twice."""
    if len(redeemables) > rules.redeemables_limit:
        raise InvalidPayload(
            f"Property .redeemables: at most {rules.redeemables_limit} redeemables may be sent "
            f"(the project's redeemables_limit), got {len(redeemables)}"
        )
    seen: set[tuple[str, str]] = set()
    for sent in redeemables:
        if (sent.object, sent.id) in seen:
            raise duplicated(f"{sent.object} {sent.id}")
        seen.add((sent.object, sent.id))


def duplicated(what: str) -> SimError:
    """400 `duplicated_redeemables`: one redeemable sent twice."""
    return SimError(f"Duplicated redeemables detected in one request: {what}",
                    key="duplicated_redeemables", message="Duplicated redeemables detected")


def refuse_the_same_code_twice(resolved: list[ResolvedRedeemable]) -> None:
    """One voucher named twice, by its code and by its id, is one redeemable sent twice."""
    seen: dict[str, str] = {}
    for item in resolved:
        if item.voucher is not None:
            if item.voucher.id in seen:
                raise duplicated(f"voucher {seen[item.voucher.id]} and {item.entry.id} are one code")
            seen[item.voucher.id] = item.entry.id


def expand_stack(sim: Simulator, sent: list[models.RedeemableInput]) -> list[models.RedeemableInput]:
    """A promotion stack stands for its tiers, in its order; it must come
    alone (400 `invalid_redeemables`, the service's words)."""
    stacks = [r for r in sent if r.object == "promotion_stack"]
    if not stacks:
        return sent
    if len(sent) > 1:
        raise SimError("Promotion Stack cannot be use with other redeemables", key="invalid_redeemables",
                       message="Invalid redeemables")
    stack = sim.state.promotion_stacks.get(stacks[0].id)
    if stack is None:
        raise NotFound("promotion_stack", stacks[0].id)
    return [models.RedeemableInput(object="promotion_tier", id=tier_id) for tier_id in stack.tier_ids]


def resolve_redeemables(
    sim: Simulator, view: PricingView, redeemables: list[models.RedeemableInput], holds: Held,
    at: datetime | None = None,
) -> list[ResolvedRedeemable]:
    """What each redeemable sent is, with the uses and credits that sessions
    other than the request's own hold (`sessions.held`) taken as spent.
    `at`: the instant a code's dates are checked at (default: now; a
    forecast resolves each order's codes at its own instant)."""
    when = sim.now if at is None else at
    return [_resolve(sim, view, position, r, holds, when) for position, r in enumerate(redeemables)]


def redeemed_as(resolved: ResolvedRedeemable) -> tuple[str, str, str | None]:
    """What a redemption of `resolved` is recorded against: (related object
    type, its id, the campaign id). A code counts under its voucher's id."""
    voucher = resolved.voucher
    related = ("voucher", voucher.id) if voucher is not None else ("promotion_tier", resolved.entry.id)
    return related[0], related[1], resolved.campaign.id if resolved.campaign is not None else None


def _resolve(
    sim: Simulator, view: PricingView, position: int, sent: models.RedeemableInput, holds: Held, at: datetime
) -> ResolvedRedeemable:
    if sent.object == "promotion_tier":
        return _tier(sim, view, position, sent.id)
    return _code(sim, position, sent, holds, at)


def _refused(position: int, sent_object: str, sent_id: str, error: SimError,
             voucher: Voucher | None = None, campaign: Campaign | None = None,
             categories: tuple[dict[str, Any], ...] = ()) -> ResolvedRedeemable:
    entry = StackEntry(position, sent_object, sent_id, refusal=RuleFailure(error.key, error.details),
                       categories=_stack_categories(categories))
    return ResolvedRedeemable(entry, voucher, error, categories, campaign)


def _stack_categories(categories: tuple[dict[str, Any], ...]) -> tuple[StackCategory, ...]:
    return tuple(StackCategory(c["id"], c["hierarchy"]) for c in categories)


def _tier(sim: Simulator, view: PricingView, position: int, tier_id: str) -> ResolvedRedeemable:
    record = sim.state.tiers.get(tier_id)
    if record is None:
        return _refused(position, "promotion_tier", tier_id, NotFound("promotion_tier", tier_id))
    campaign = sim.state.campaigns[record.campaign_id]
    categories = tier_categories(sim.state, record, campaign)
    compiled = view.by_id.get(tier_id)
    if compiled is None:  # not in the view: the tier is inactive
        error = SimError(f"Promotion tier {tier_id} is inactive", key="promotion_inactive",
                         message="promotion is inactive", resource_id=tier_id, resource_type="promotion_tier")
        return _refused(position, "promotion_tier", tier_id, error, campaign=campaign, categories=categories)
    entry = StackEntry(position, "promotion_tier", tier_id, discount=compiled,
                       categories=_stack_categories(categories))
    return ResolvedRedeemable(entry, None, None, categories, campaign)


def _code(sim: Simulator, position: int, sent: models.RedeemableInput, holds: Held, now: datetime) -> ResolvedRedeemable:
    st = sim.state
    vid = sim.indexes.voucher_by_code.get(sent.id)
    voucher = st.vouchers.get(vid) if vid is not None else st.vouchers.get(sent.id)
    if voucher is None:
        return _refused(position, "voucher", sent.id, NotFound("voucher", sent.id))
    campaign = st.campaigns.get(voucher.campaign_id) if voucher.campaign_id else None
    categories = campaign_categories(st, campaign) if campaign is not None else ()

    def refuse(key: str, message: str, details: str) -> ResolvedRedeemable:
        error = SimError(details, key=key, message=message, resource_id=voucher.code, resource_type="voucher")
        return _refused(position, "voucher", sent.id, error, voucher, campaign, categories)

    if not voucher.active or (campaign is not None and not campaign.active):
        return refuse("voucher_disabled", "voucher has been disabled", f"Voucher {voucher.code} is disabled")
    start = voucher.start_date or (campaign.start_date if campaign else None)
    end = voucher.expiration_date or (campaign.expiration_date if campaign else None)
    if start is not None and now < start:
        return refuse("voucher_not_active", "voucher is not active yet", f"Voucher {voucher.code} starts at {start.isoformat()}")
    if end is not None and now > end:
        return refuse("voucher_expired", "voucher has already expired", f"Voucher {voucher.code} expired at {end.isoformat()}")
    in_sessions = holds.uses[voucher.id]
    if voucher.redemption_quantity is not None and voucher.redeemed_quantity + in_sessions >= voucher.redemption_quantity:
        return refuse(QUANTITY_EXCEEDED, "voucher's redemptions limit has been exceeded",
                      f"Voucher {voucher.code} has been redeemed {voucher.redeemed_quantity} time(s) and is held by "
                      f"{in_sessions} session(s); its limit is {voucher.redemption_quantity}")
    stack_categories = _stack_categories(categories)
    if voucher.type == "GIFT_VOUCHER" and voucher.gift is not None:
        balance = voucher.gift.balance - holds.credits[voucher.id]
        asked = sent.gift.credits if sent.gift is not None else None
        if asked is not None and asked > balance:
            return refuse("gift_amount_exceeded", "gift amount has been exceeded",
                          f"Voucher {voucher.code} has {balance} of credits not held by sessions; {asked} were asked for")
        entry = StackEntry(position, "voucher", sent.id, gift_credits=balance if asked is None else asked,
                           categories=stack_categories, gift_rules=_gift_rules(sim, voucher, campaign))
        return ResolvedRedeemable(entry, voucher, None, categories, campaign)
    compiled = _compiled_code(sim, voucher, campaign) if voucher.type == "DISCOUNT_VOUCHER" else None
    if compiled is None:
        return refuse("invalid_voucher", "Invalid voucher",
                      f"Voucher {voucher.code} is a {voucher.type} without a discount; it cannot be stacked")
    entry = StackEntry(position, "voucher", sent.id, discount=compiled, categories=stack_categories)
    return ResolvedRedeemable(entry, voucher, None, categories, campaign)


def _compiled_code(sim: Simulator, voucher: Voucher, campaign: Campaign | None) -> CompiledTier | None:
    """The code's discount, rules and scope compiled like a tier's, kept per
    voucher for as long as its terms are the same objects."""
    terms = code_terms(voucher, campaign)
    if terms.discount is None:
        return None
    key = (terms.discount, terms.validation_rules, terms.applicable_to)
    cache: dict[str, tuple[tuple[Any, ...], CompiledTier]] = derived(sim, "compiled_codes", lambda state: {})
    found = cache.get(voucher.id)
    if found is not None and all(a is b for a, b in zip(found[0], key, strict=True)):
        return found[1]
    try:
        compiled = compile_tier(code_spec(voucher, campaign, terms))
    except TierConfigError:  # the loader refuses such a code: only a state built by hand has one
        return None
    cache[voucher.id] = (key, compiled)
    return compiled


def _gift_rules(sim: Simulator, voucher: Voucher, campaign: Campaign | None) -> RuleSet | None:
    """A gift card's validation rules (its own, else its campaign's)
    compiled, kept per voucher for as long as the rules object is the same."""
    rules = code_terms(voucher, campaign).validation_rules
    if not rules:
        return None
    cache: dict[str, tuple[Any, RuleSet]] = derived(sim, "compiled_gift_rules", lambda state: {})
    found = cache.get(voucher.id)
    if found is not None and found[0] is rules:
        return found[1]
    compiled = compile_rules(rules)  # the loader compiled the same rules: they compile
    cache[voucher.id] = (rules, compiled)
    return compiled
