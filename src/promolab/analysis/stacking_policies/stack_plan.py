"""How one stack of redeemables is evaluated over a batch, per policy.

Everything about a redeemable that does not depend on the order is settled
here once: a refusal by the caller or a campaign that does not run at the
pricing instant (INAPPLICABLE for every order), its rules as masks
(`sweep.rulemasks`), its discount as a numpy kernel (`sweep.vectorized`),
or its gift credits (`EntryTables`). Everything that depends on the policy
only comes from the engine's own functions (`application_order`,
`initial_amount_mode`, `skips_no_effect`), so the order in which the
redeemables are tried, their kinds and per-category modes are the engine's
(`PolicyPlan`).

A stack is vectorized when every redeemable that can reach the rules has
rules with a mask form and, for a discount, a kernel or (UNIT) its units on
the stack's targets (`unit_arrays`: the keys of the lines they append are
added to the batch's before rules and kernels bind); otherwise the whole
stack takes the engine (`evaluate_stack` per order), and `reason` says why.
A stack with free units and a proportional item discount takes the engine:
the split would share its amount with the appended lines, which the arrays
keep out of item discounts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...engine import (
    TOTAL_AMOUNT,
    Catalogue,
    CategoryLimit,
    CompiledTier,
    CustomerContext,
    PricingContext,
    RuleFailure,
    StackEntry,
    StackKind,
    application_order,
    category_limits,
    initial_amount_mode,
    skips_no_effect,
)
from ...models import StackingRules
from ..sweep.batch import KeyTable
from ..sweep.rulemasks import BoundRules, NotVectorizable, compile_program
from ..sweep.unit_arrays import UnitPlan, UnitTargets
from ..sweep.vectorized import DiscountKernel

__all__ = ["EntryTables", "PolicyPlan", "StackPlan", "plan_stack"]

#: Rule codes of one redeemable are int8 (`BoundRules.evaluate(by_rule=True)`).
_MAX_RULES = 120
#: Rule families whose masks change from one redeemable to the next (never reused).
_RUNNING = frozenset({"order.amount", TOTAL_AMOUNT})


@dataclass
class EntryTables:
    """One redeemable of the stack, bound to a batch."""

    entry: StackEntry
    #: INAPPLICABLE for every order before its rules are read (caller's refusal, campaign).
    constant: RuleFailure | None = None
    rules: BoundRules | None = None
    kernel: DiscountKernel | None = None
    #: The engine's message per failing-rule code (filled on first sight: `RuleMessages`).
    messages: dict[int, RuleFailure] = field(default_factory=dict)
    #: Leaf keys of its `order.amount` rules: masks that change with the running total.
    amount_leaves: frozenset[str] = frozenset()
    #: A UNIT discount's units, on the stack's targets (`unit_arrays`).
    units: UnitPlan | None = None
    #: Whether its rules read `order.total_amount` (the total once its own step applied).
    reads_total: bool = False

    @property
    def tier(self) -> CompiledTier | None:
        return self.entry.discount


@dataclass(frozen=True)
class PlannedEntry:
    """A redeemable as one policy tries it."""

    tables: EntryTables
    kind: StackKind
    initial: bool
    skip_no_effect: bool
    #: Redeemables tried before it (what a rule failure's `why` counts).
    before: int
    categories: tuple[str, ...]
    #: Its categories' limits, as the engine states them (`category_limits`).
    category_limits: tuple[CategoryLimit, ...]


@dataclass(frozen=True)
class PolicyPlan:
    name: str
    rules: StackingRules
    order: tuple[PlannedEntry, ...]

    @property
    def all_mode(self) -> bool:
        return self.rules.redeemables_application_mode == "ALL"

    @property
    def once(self) -> bool:
        return self.rules.redeemables_products_application_mode == "ONCE"


@dataclass
class StackPlan:
    entries: list[EntryTables]
    policies: list[PolicyPlan]
    path: str
    reason: str
    amount_leaves: frozenset[str] = frozenset()
    #: The products/SKUs its UNIT discounts add (None: it has none).
    unit_targets: UnitTargets | None = None


def _bind_entry(
    entry: StackEntry, keys: KeyTable, customers: Sequence[CustomerContext | None], ctx: PricingContext,
    targets: UnitTargets,
) -> tuple[EntryTables, str | None]:
    """The entry's tables and, when it cannot be vectorized, why."""
    if entry.refusal is not None:
        return EntryTables(entry, constant=entry.refusal), None
    tier = entry.discount
    if tier is None:  # gift credits, and the card's rules if it has some
        tables = EntryTables(entry)
        rules = entry.gift_rules
        return tables, _bind_rules(tables, rules.source if rules is not None else None, keys, customers, ctx)
    failure = tier.campaign.evaluate(ctx.now)
    if failure is not None:
        return EntryTables(entry, constant=failure), None
    tables = EntryTables(entry)
    problem = _bind_rules(tables, tier.spec.rules, keys, customers, ctx)
    if problem is not None:
        return tables, problem
    if tier.amount_discount is None:  # free units: one column per target (`unit_arrays`)
        tables.units = UnitPlan.of(tier, targets)
        return tables, None
    try:
        tables.kernel = DiscountKernel(tier, keys)
    except NotVectorizable as exc:
        return tables, f"{entry.id}: discount not vectorizable ({exc})"
    return tables, None


def _bind_rules(
    tables: EntryTables, validation_rule: Mapping[str, Any] | None, keys: KeyTable,
    customers: Sequence[CustomerContext | None], ctx: PricingContext,
) -> str | None:
    """The redeemable's rules as masks on `tables` (a discount's or a gift
    card's: one path for both); when they have no mask form, why."""
    entry = tables.entry
    try:
        program = compile_program(validation_rule, total_amount=TOTAL_AMOUNT not in ctx.ignored_rules)
    except ValueError as exc:  # NotVectorizable, or logic the masks cannot parse
        return f"{entry.id}: rules not vectorizable ({exc})"
    if len(program.leaves) > _MAX_RULES:
        return f"{entry.id}: more than {_MAX_RULES} rules"
    if program.tree is not None:
        tables.rules = program.bind(keys, customers, ctx.now, ctx.redemption_metadata)
        tables.amount_leaves = frozenset(
            tables.rules.leaf_keys[rid] for rid, leaf in program.leaves.items() if leaf.family in _RUNNING
        )
        tables.reads_total = any(leaf.family == TOTAL_AMOUNT for leaf in program.leaves.values())
    return None


def _policy(name: str, rules: StackingRules, tables: Mapping[int, EntryTables]) -> PolicyPlan:
    ordered = application_order([t.entry for t in tables.values()], rules)
    planned = tuple(
        PlannedEntry(tables[entry.position], kind, initial_amount_mode(entry, rules), skips_no_effect(entry, rules),
                     before, tuple(c.id for c in entry.categories), category_limits(entry, rules))
        for before, (entry, kind) in enumerate(ordered)
    )
    return PolicyPlan(name, rules, planned)


def plan_stack(
    entries: Sequence[StackEntry],
    policies: Mapping[str, StackingRules],
    keys: KeyTable,
    customers: Sequence[CustomerContext | None],
    ctx: PricingContext,
    catalogue: Catalogue,
) -> StackPlan:
    targets = UnitTargets(keys, catalogue)
    for e in entries:  # every target first: rules and kernels bind to the keys of the lines they append
        if e.discount is not None and e.discount.amount_discount is None:
            for unit in e.discount.units:
                targets.index(unit.unit_type)
    keys = targets.with_target_keys()
    bound = [_bind_entry(e, keys, customers, ctx, targets) for e in entries]
    tables = {t.entry.position: t for t, _ in bound}
    plans = [_policy(name, rules, tables) for name, rules in policies.items()]
    problems = [p for _, p in bound if p is not None]
    has_units = any(t.units is not None for t, _ in bound)
    if has_units and not problems:
        problems = _unit_problems([t for t, _ in bound])
    leaves = frozenset().union(*(t.amount_leaves for t, _ in bound))
    units = targets if has_units else None
    if problems:
        return StackPlan([t for t, _ in bound], plans, "fallback",
                         "; ".join(problems) + ": the engine evaluates every order", leaves, units)
    kinds = ", ".join(_describe(t) for t, _ in bound)
    return StackPlan([t for t, _ in bound], plans, "vectorized", kinds, leaves, units)


def _unit_problems(entries: Sequence[EntryTables]) -> list[str]:
    """Why the running arrays cannot hold a stack with UNIT discounts: a
    proportional item discount (it would share its amount with the lines the
    units appended, which the arrays leave out of item discounts)."""
    return [f"{t.entry.id}: a proportional item discount in a stack with free units"
            for t in entries if t.kernel is not None and not t.kernel.order_level and t.kernel.proportional]


def _describe(tables: EntryTables) -> str:
    entry = tables.entry
    if tables.constant is not None:
        return f"{entry.id}: {tables.constant.key}"
    if entry.discount is None:
        return f"{entry.id}: gift credits"
    tier = entry.discount
    return f"{entry.id}: {tier.kind} {tier.effect}"


