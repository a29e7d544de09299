"""Which execution path each tier takes, and why.

- `vectorized`: rules as masks (`rulemasks`) and the discount as numpy
  kernels (`vectorized`); no per-order Python at all.
- `hybrid`: the rules vectorize but the discount does not (UNIT
  ADD_MANY_ITEMS; a line sharing two aggregated budgets): masks pick the orders that
  pass campaign + rules, and the per-request engine prices only those.
- `fallback`: a rule family without a mask form: the per-request engine
  evaluates every order (after the campaign check, which is per sweep).

The campaign check (active, dates, timeframe, day of week) depends only on
the sweep instant, so it is evaluated once per tier on every path; in a dated
sweep (each order at its `placed_at`) once per verdict span (`instants`), and
a tier whose rules read the instant (`NOW_OPERATORS`: "days ago" and the like)
takes the engine path, which prices each order at its own instant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...engine import Catalogue, CompiledTier, compile_rules
from .batch import KeyTable, OrderBatch
from .instants import OrderClock, campaign_codes
from .rulemasks import REASON_CODE, BoundRules, NotVectorizable, RuleProgram, compile_program
from .unitkernel import ManyUnitKernel, UnitKernel
from .vectorized import DiscountKernel

__all__ = ["PATHS", "BoundTier", "TierPlan", "bind_tiers", "plan_tiers"]

PATHS = ("vectorized", "hybrid", "fallback")


@dataclass(frozen=True)
class TierPlan:
    index: int
    tier_id: str
    campaign_id: str
    kind: str
    effect: str
    path: str
    reason: str
    program: RuleProgram | None


def _families(tier: CompiledTier) -> str:
    rules = (tier.spec.rules or {}).get("rules") or {}
    names = sorted({str(r.get("name")) for k, r in rules.items() if k != "logic" and isinstance(r, Mapping)})
    return ", ".join(names) if names else "no rules"


def make_kernel(tier: CompiledTier, keys: KeyTable, catalogue: Catalogue
                ) -> DiscountKernel | UnitKernel | ManyUnitKernel:
    """The tier's discount kernel for a key table; raises NotVectorizable."""
    if tier.kind == "UNIT":
        return UnitKernel(tier, keys, catalogue) if len(tier.units) == 1 else ManyUnitKernel(tier, keys, catalogue)
    return DiscountKernel(tier, keys)


#: A rule of a line family ("order.amount") carrying a tier's whole rule tree under
#: a key the engine does not read: see `reads_instant`.
_PROBE_FAMILY = "order.amount"


def reads_instant(rules: Mapping[str, Any] | None) -> bool:
    """Whether a tier's rules use an operator whose answer depends on the pricing instant.

    The engine owns that list (its `NOW_OPERATORS`, behind the import contract:
    analysis sees `promolab.engine` only). It answers through the public
    `RuleSet.order_only`: a line-family rule is order-only unless an operator
    *anywhere in it* reads the instant, so a line-family rule holding the whole
    tree asks exactly that, without a second copy of the operator list here.
    """
    if not rules:
        return False
    probe = {"name": _PROBE_FAMILY, "conditions": {}, "probe": dict(rules)}
    return not compile_rules({"rules": {"1": probe}}).order_only


def plan_tier(index: int, tier: CompiledTier, keys: KeyTable, catalogue: Catalogue, *,
              dated: bool = False) -> TierPlan:
    """`dated`: orders are priced at their own instants (rule masks are bound at one)."""
    program: RuleProgram | None = None
    rule_problem = discount_problem = None
    if dated and reads_instant(tier.spec.rules):
        rule_problem = "a rule reads the pricing instant, and each order has its own"
    else:
        try:
            program = compile_program(tier.spec.rules)
        except ValueError as exc:  # NotVectorizable, or a logic string the masks cannot parse
            rule_problem = str(exc)
    try:
        make_kernel(tier, keys, catalogue)
    except NotVectorizable as exc:
        discount_problem = str(exc)
    what = f"{tier.kind} {tier.effect}"
    if program is None:
        path = "fallback"
        reason = f"rules not vectorizable ({rule_problem}): the engine evaluates every order"
    elif discount_problem is not None:
        path = "hybrid"
        reason = (f"discount not vectorizable ({discount_problem}); rules vectorized "
                  f"({_families(tier)}): the engine prices only the orders that pass them")
    else:
        path = "vectorized"
        reason = f"{what}; rules: {_families(tier)}"
    return TierPlan(index, tier.id, tier.spec.campaign.id, tier.kind, tier.effect, path, reason, program)


def plan_tiers(tiers: Sequence[CompiledTier], keys: KeyTable, catalogue: Catalogue, *,
               dated: bool = False) -> list[TierPlan]:
    return [plan_tier(i, t, keys, catalogue, dated=dated) for i, t in enumerate(tiers)]


@dataclass
class BoundTier:
    """A planned tier ready for one batch: campaign outcome, masks, kernel."""

    plan: TierPlan
    tier: CompiledTier
    #: reason code of the campaign check at the sweep instant, 0 when it passes
    #: (in a dated sweep: the code shared by every order, when they all share one)
    campaign_code: int
    rules: BoundRules | None
    kernel: DiscountKernel | UnitKernel | ManyUnitKernel | None
    #: per-order campaign codes (batch positions) when the verdict varies over a dated batch
    campaign_codes: np.ndarray | None = None

    @property
    def path(self) -> str:
        if self.rules is None:
            return "fallback"
        return "vectorized" if self.kernel is not None else "hybrid"


def bind_tiers(plans: Sequence[TierPlan], tiers: Sequence[CompiledTier], batch: OrderBatch, catalogue: Catalogue,
               clock: OrderClock) -> list[BoundTier]:
    """Bind each planned tier to the batch's keys and customers. `clock`: the
    sweep's context (`clock.base`: its instant and metadata), the orders' own
    instants in a dated sweep (`clock.micros`; None checks every campaign at
    the sweep's instant) and their own metadata (`clock.metadata_sets`, see
    `RuleProgram.bind`)."""
    keys, customers = batch.keys, batch.customers
    now, metadata, instants = clock.base.now, clock.base.redemption_metadata, clock.micros
    metadata_sets = clock.metadata_sets if clock.metadata_code is not None else None
    out = []
    dated = campaign_codes(tiers, instants) if instants is not None else None
    for t, (plan, tier) in enumerate(zip(plans, tiers)):
        per_order = None
        if dated is None:
            failure = tier.campaign.evaluate(now)
            code = REASON_CODE[failure.key] if failure is not None else 0
        else:
            found = dated[t]
            if isinstance(found, np.ndarray):
                per_order, code = found, 0
            else:
                code = found
        rules = kernel = None
        if plan.program is not None:
            rules = plan.program.bind(keys, customers, now, metadata, metadata_sets)
            if plan.path == "vectorized":
                try:
                    kernel = make_kernel(tier, keys, catalogue)
                except NotVectorizable:
                    kernel = None  # keys of this batch share budgets: price with the engine
        out.append(BoundTier(plan, tier, code, rules, kernel, per_order))
    return out
