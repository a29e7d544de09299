"""Which execution path each tier takes, and why.

- `vectorized`: rules as masks (`rulemasks`) and the discount as numpy
  kernels (`vectorized`); no per-order Python at all.
- `hybrid`: the rules vectorize but the discount does not (UNIT
  ADD_MANY_ITEMS; a line sharing two aggregated budgets): masks pick the orders that
  pass campaign + rules, and the per-request engine prices only those.
- `fallback`: a rule family without a mask form: the per-request engine
  evaluates every order (after the campaign check, which is per sweep).

The campaign check (active, dates, timeframe, day of week) depends only on
the sweep instant, so it is evaluated once per tier on every path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...engine import Catalogue, CompiledTier, CustomerContext
from .batch import KeyTable
from .rulemasks import REASON_CODE, BoundRules, NotVectorizable, RuleProgram, compile_program
from .unitkernel import UnitKernel
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


def make_kernel(tier: CompiledTier, keys: KeyTable, catalogue: Catalogue) -> DiscountKernel | UnitKernel:
    """The tier's discount kernel for a key table; raises NotVectorizable."""
    if tier.kind == "UNIT":
        return UnitKernel(tier, keys, catalogue)
    return DiscountKernel(tier, keys)


def plan_tier(index: int, tier: CompiledTier, keys: KeyTable, catalogue: Catalogue) -> TierPlan:
    program: RuleProgram | None = None
    rule_problem = discount_problem = None
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


def plan_tiers(tiers: Sequence[CompiledTier], keys: KeyTable, catalogue: Catalogue) -> list[TierPlan]:
    return [plan_tier(i, t, keys, catalogue) for i, t in enumerate(tiers)]


@dataclass
class BoundTier:
    """A planned tier ready for one batch: campaign outcome, masks, kernel."""

    plan: TierPlan
    tier: CompiledTier
    #: reason code of the campaign check at the sweep instant, 0 when it passes
    campaign_code: int
    rules: BoundRules | None
    kernel: DiscountKernel | UnitKernel | None

    @property
    def path(self) -> str:
        if self.rules is None:
            return "fallback"
        return "vectorized" if self.kernel is not None else "hybrid"


def bind_tiers(
    plans: Sequence[TierPlan],
    tiers: Sequence[CompiledTier],
    keys: KeyTable,
    catalogue: Catalogue,
    customers: Sequence[CustomerContext | None],
    now: datetime,
    metadata: Mapping[str, Any],
) -> list[BoundTier]:
    out = []
    for plan, tier in zip(plans, tiers):
        failure = tier.campaign.evaluate(now)
        code = REASON_CODE[failure.key] if failure is not None else 0
        rules = kernel = None
        if plan.program is not None:
            rules = plan.program.bind(keys, customers, now, metadata)
            if plan.path == "vectorized":
                try:
                    kernel = make_kernel(tier, keys, catalogue)
                except NotVectorizable:
                    kernel = None  # keys of this batch share budgets: price with the engine
        out.append(BoundTier(plan, tier, code, rules, kernel))
    return out
