"""What the engine is told about each redeemable of a stacked request, and what it answers.

The caller (the simulator, the analysis layer) resolves each redeemable the
request names against its own state: a discount code or a promotion tier
becomes a compiled discount (`CompiledTier`), a gift card the credits it may
spend, and one the caller cannot use (unknown, disabled, exhausted, over its
balance) a `refusal`. The engine only ever sees these entries, so it stays
free of state and of the service's records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ..compiled_tier import CompiledTier
from ..rule_evaluation import RuleFailure
from ..rules import RuleSet

if TYPE_CHECKING:
    from .running_order import RunningState, Step

__all__ = ["StackCategory", "StackEntry", "StackKind", "StackedRedeemable", "Status"]

#: How a redeemable's categories let it combine with others (stacking rules'
#: exclusive_categories / joint_categories; any other category, or none, is common).
StackKind = Literal["EXCLUSIVE", "COMMON", "JOINT"]
Status = Literal["APPLICABLE", "INAPPLICABLE", "SKIPPED"]


@dataclass(frozen=True, slots=True)
class StackCategory:
    id: str
    #: Lower first under CATEGORY_HIERARCHY (the service's minimum is 0).
    hierarchy: int = 1


@dataclass(frozen=True, slots=True)
class StackEntry:
    """One redeemable of the request, resolved by the caller."""

    #: Its place in the request's `redeemables` (answers keep that order).
    position: int
    #: "voucher" or "promotion_tier", as sent.
    object: str
    #: The code or tier id, as sent.
    id: str
    #: The discount of a discount code or promotion tier (None for a gift card).
    discount: CompiledTier | None = None
    #: A gift card's credits to spend: what the request asked for, else its
    #: balance (the caller has checked it against the balance).
    gift_credits: int | None = None
    categories: tuple[StackCategory, ...] = ()
    #: Set when the caller could not use the redeemable at all (not found,
    #: disabled, redemption limit reached, credits over the balance): it is
    #: INAPPLICABLE with this key and message.
    refusal: RuleFailure | None = None
    #: A gift card's validation rules (a discount's are its `discount.rules`):
    #: checked on the running order like a discount's, `order.total_amount`
    #: reading the total once its credits applied.
    gift_rules: RuleSet | None = None
    #: The ids of `categories`, what the stacking rules' category lists are
    #: matched against (computed once: read per rule per request).
    category_ids: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.refusal is None and (self.discount is None) == (self.gift_credits is None):
            raise ValueError(f"{self.id}: an entry has a discount or gift credits (exactly one), or a refusal")
        object.__setattr__(self, "category_ids", frozenset(c.id for c in self.categories))


@dataclass(slots=True)
class StackedRedeemable:
    """The engine's answer for one entry."""

    entry: StackEntry
    kind: StackKind
    status: Status
    #: Why it was not applied: the service's key (`order_rules_violated`,
    #: `applicable_redeemables_limit_exceeded`, ...) and message.
    reason_key: str | None = None
    reason: str | None = None
    #: Why not, for a person: the rule or limit, and what it saw. Never part
    #: of the service's answer (the control API and the analysis layer show it).
    why: str | None = None
    #: What it did to the order (APPLICABLE only).
    step: Step | None = None
    #: The running order's state once it applied, from which its running
    #: order is priced when read (`StackResult.pricing_of`, rendered by
    #: `engine.render.redeemable_order`).
    after: RunningState | None = None

    @property
    def applied(self) -> int:
        """Cents this redeemable took off the order (0 unless APPLICABLE)."""
        return self.step.total if self.step is not None else 0
