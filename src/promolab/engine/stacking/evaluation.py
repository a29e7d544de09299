"""`evaluate_stack`: a stack's redeemables tried in order against one running order.

For each redeemable, in application order (`application_order`):

1. under ALL, once one was INAPPLICABLE every later one is SKIPPED
   (`preceding_validation_failed`): the request fails as a whole;
2. INAPPLICABLE when the caller refused it (`StackEntry.refusal`), when its
   campaign does not run at `ctx.now`, or when its validation rules fail on
   the order as the redeemables before it left it (`RunningOrder.rules_view`);
3. SKIPPED `exclusion_rules_not_met` when it is common and an exclusive one
   applied (exclusive ones are tried first, so one sent later still wins);
4. SKIPPED when a limit is reached (`limits`);
5. its discount is computed on the running order (a UNIT discount adds its
   units to it first, `running_units`); when it changes nothing and the
   no-effect rule says SKIP, it is SKIPPED `no_effect`;
6. otherwise it is APPLICABLE and the running order takes its discount.

`valid`: under ALL, nothing INAPPLICABLE and something applied; under
PARTIAL, something applied. An invalid ALL request applies nothing: its
final order is the order as sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...models import StackingRules
from ..budget_rules import Usage
from ..catalogue import Catalogue
from ..context import CustomerContext, PricingContext
from ..lines import NormalizedOrder
from ..order_pricing import OrderPricing
from ..rule_evaluation import BudgetScope, RuleFailure
from ..unit_allowance import allowance_of
from ..unit_budgets import UnitSpent
from .application_order import application_order, initial_amount_mode, skips_no_effect
from .limits import LIMIT_FAILURES, ApplicationLimits
from .running_order import RunningOrder
from .stack_entry import StackedRedeemable, StackEntry, StackKind, Status

__all__ = ["FIXED_REASONS", "StackResult", "alone_failure", "evaluate_stack", "why_rules_failed"]

_PRECEDING = RuleFailure(
    "preceding_validation_failed", "Redeemable cannot be applied due to preceding validation failure"
)
_EXCLUSION = RuleFailure("exclusion_rules_not_met", "Redeemable cannot be applied due to exclusion rules")
_NO_EFFECT = RuleFailure("no_effect", "Redeemable cannot be applied due to no effect")


@dataclass(slots=True)
class StackResult:
    """The answer for a whole stack."""

    #: One per entry, in the request's order.
    redeemables: list[StackedRedeemable]
    #: Entry positions in the order they were tried.
    tried: tuple[int, ...]
    valid: bool
    running: RunningOrder

    @property
    def applicable(self) -> list[StackedRedeemable]:
        return [r for r in self.redeemables if r.status == "APPLICABLE"]

    @property
    def discount(self) -> int:
        """Cents off the order in all (0 when the request is not valid under ALL)."""
        return self.running.discount if self.valid else 0

    def pricing_of(self, redeemable: StackedRedeemable) -> OrderPricing | None:
        """The running order once `redeemable` applied, typed (None unless
        APPLICABLE): the discounts so far, applied: its step's. Built when
        asked for, from what the redeemable keeps (`after`, `step`): the
        amounts of a stack never need it."""
        after, step = redeemable.after, redeemable.step
        if after is None or step is None:
            return None
        return RunningOrder.restore(self.running.order, after).pricing(step)

    def lines_of(self, redeemable: StackedRedeemable | None = None) -> NormalizedOrder:
        """The order whose lines `pricing_of(redeemable)` (without one,
        `final()`) prices, which its rendering needs: the order as sent with
        the units the UNIT discounts applied by then added."""
        if redeemable is None:
            return self.running.current if self.valid else self.running.order
        if redeemable.after is None:
            raise ValueError(f"{redeemable.entry.id} was not applied: it has no running order")
        return redeemable.after.current

    def final(self) -> OrderPricing:
        """The final order, typed (applied: the whole request's); the order
        as sent when the request is not valid under ALL."""
        if not self.valid:
            return RunningOrder(self.running.order).pricing()
        return self.running.pricing()


def evaluate_stack(
    entries: Sequence[StackEntry],
    order: NormalizedOrder,
    customer: CustomerContext | None,
    ctx: PricingContext,
    rules: StackingRules,
    catalogue: Catalogue | None = None,
) -> StackResult:
    """Try `entries` (positions 0..n-1, the request's order) on `order`.

    `catalogue`: what UNIT discounts add (the product or SKU they name, its
    price); needed only when an entry has one (ValueError without it)."""
    running = RunningOrder(order)
    limits = ApplicationLimits(rules)
    all_mode = rules.redeemables_application_mode == "ALL"
    once = rules.redeemables_products_application_mode == "ONCE"
    answers: dict[int, StackedRedeemable] = {}
    tried = []
    failed = exclusive_applied = False
    spent: UnitSpent | None = None  # made when a unit budget is first spent: most stacks have none
    for entry, kind in application_order(entries, rules):
        tried.append(entry.position)
        if failed:
            answers[entry.position] = _not_applied(entry, kind, "SKIPPED", _PRECEDING, _WHY_PRECEDING)
            continue
        failure = _check(entry, running, customer, ctx, _after(entry, running, rules, once, ctx.usage, spent))
        if failure is not None:
            why = why_rules_failed(failure, running.total, running.order.amount, len(answers))
            answers[entry.position] = _not_applied(entry, kind, "INAPPLICABLE", failure, why)
            failed = all_mode
            continue
        if kind == "COMMON" and exclusive_applied:
            answers[entry.position] = _not_applied(entry, kind, "SKIPPED", _EXCLUSION, _WHY_EXCLUSION)
            continue
        refusal = limits.refusal(entry, kind)
        if refusal is not None:
            answers[entry.position] = _not_applied(entry, kind, "SKIPPED", refusal, refusal.message)
            continue
        tier = entry.discount
        if tier is None:
            step = running.gift(entry.gift_credits or 0)
        elif tier.amount_discount is not None:
            left = allowance_of(tier, running.current, ctx.usage, spent) if tier.scope.budgeted else None
            step = running.price(tier, initial_amount_mode(entry, rules), once, left)
        elif catalogue is None:
            raise ValueError(f"{entry.id}: a UNIT discount in a stack needs the catalogue")
        else:
            step = running.units(tier, catalogue, once)
        if not step.has_effect and skips_no_effect(entry, rules):
            answers[entry.position] = _not_applied(entry, kind, "SKIPPED", _NO_EFFECT, _WHY_NO_EFFECT)
            continue
        running.apply(step)
        if step.spent_units and tier is not None:  # the next redeemables' unit budgets count them
            if spent is None:
                spent = UnitSpent()
            spent.add(tier.id, tier.spec.campaign.id, step.spent_units)
        limits.record(entry, kind)
        exclusive_applied = exclusive_applied or kind == "EXCLUSIVE"
        answers[entry.position] = StackedRedeemable(
            entry, kind, "APPLICABLE", step=step, after=running.snapshot()
        )
    statuses = [a.status for a in answers.values()]
    applied = "APPLICABLE" in statuses
    valid = applied and not (all_mode and "INAPPLICABLE" in statuses)
    return StackResult([answers[e.position] for e in entries], tuple(tried), valid, running)


_WHY_PRECEDING = "an earlier redeemable was inapplicable, and the rules apply all or none"
_WHY_EXCLUSION = "a redeemable of an exclusive category applied"
_WHY_NO_EFFECT = "it would change nothing in the order as the redeemables before it left it"


def _not_applied(
    entry: StackEntry, kind: StackKind, status: Status, failure: RuleFailure, why: str
) -> StackedRedeemable:
    return StackedRedeemable(entry, kind, status, failure.key, failure.message, why)


def _after(
    entry: StackEntry, running: RunningOrder, rules: StackingRules, once: bool, usage: Usage | None,
    spent: UnitSpent | None,
) -> Callable[[], int] | None:
    """What the entry's `order.total_amount` rules read: the running total
    once its own discount (or credits) applied, priced only if a rule asks
    (decision: docs/decisions.md § Stacked validations and redemptions)."""
    tier = entry.discount
    if tier is not None:
        if not tier.rules.reads_total:
            return None
        initial_mode = initial_amount_mode(entry, rules)
        return lambda: running.total - running.price(
            tier, initial_mode, once, allowance_of(tier, running.current, usage, spent)
        ).total
    if entry.gift_rules is None or not entry.gift_rules.reads_total:
        return None
    return lambda: running.total - running.gift(entry.gift_credits or 0).total


def _check(
    entry: StackEntry, running: RunningOrder, customer: CustomerContext | None, ctx: PricingContext,
    after: Callable[[], int] | None = None,
) -> RuleFailure | None:
    """Why the entry cannot apply to the running order (None: it can)."""
    if entry.refusal is not None:
        return entry.refusal
    tier = entry.discount
    if tier is None:  # a gift card: the caller has checked its balance; its rules, if any
        rules = entry.gift_rules
        if rules is None:
            return None
        budget = BudgetScope(ignored=ctx.ignored_rules) if ctx.ignored_rules else None
        return rules.evaluate_after(
            after, running.rules_view(), customer, ctx.now, ctx.redemption_metadata, ctx.audience_only, budget
        )
    failure = None if ctx.audience_only else tier.campaign.evaluate(ctx.now)
    if failure is None and after is not None:
        failure = tier.rules.evaluate_after(
            after, running.rules_view(), customer, ctx.now, ctx.redemption_metadata, ctx.audience_only,
            BudgetScope(ctx.usage, (tier.id, tier.spec.campaign.id), ctx.ignored_rules),
        )  # fmt: skip
    elif failure is None:
        failure = tier.rules.evaluate(
            running.rules_view(), customer, ctx.now, ctx.redemption_metadata, ctx.audience_only,
            usage=ctx.usage, subject=(tier.id, tier.spec.campaign.id), ignored=ctx.ignored_rules,
        )  # fmt: skip
    return failure


def alone_failure(
    entry: StackEntry, order: NormalizedOrder, customer: CustomerContext | None, ctx: PricingContext
) -> RuleFailure | None:
    """Why the entry cannot apply to `order` by itself (None: it can): the
    check a stack makes of its first redeemable, for callers that judge one
    redeemable alone (qualifications' gift cards)."""
    running = RunningOrder(order)
    return _check(entry, running, customer, ctx, _after(entry, running, StackingRules(), False, ctx.usage, None))


def why_rules_failed(failure: RuleFailure, total: int, amount: int, before: int) -> str:
    """The failure's message, with the running amount its rules saw (`total`)
    when the `before` redeemables tried before it had already discounted the
    order (`amount` as sent)."""
    if failure.key != "order_rules_violated" or total == amount:
        return failure.message
    return f"{failure.message} (the order's amount was {total} after the {before} redeemable(s) tried before it)"


#: The reasons that do not depend on the order: key -> (message, why). Callers
#: that decide a stack another way (the analysis layer's vectorized policy
#: comparison) report these, so the words live here only.
FIXED_REASONS: dict[str, tuple[str, str]] = {
    _PRECEDING.key: (_PRECEDING.message, _WHY_PRECEDING),
    _EXCLUSION.key: (_EXCLUSION.message, _WHY_EXCLUSION),
    _NO_EFFECT.key: (_NO_EFFECT.message, _WHY_NO_EFFECT),
    **{f.key: (f.message, f.message) for f in LIMIT_FAILURES},
}
