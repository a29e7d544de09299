"""In which order a stack's redeemables are tried, and how each may combine.

A redeemable's categories decide its kind: a category of the stacking rules'
`exclusive_categories` ("never stackable") makes it EXCLUSIVE, else one of
`joint_categories` ("always stackable") JOINT, else it is COMMON (so is a
redeemable without a category). The order, under the service's only grouped
sorting rule, JOINT_ALWAYS_LAST: the exclusive ones first, then the common
ones, then the joint ones. Within the first two groups `redeemables_sorting_rule`
decides: REQUESTED_ORDER keeps the request's order, CATEGORY_HIERARCHY puts a
lower category hierarchy first (a redeemable without a category counts as the
service's default hierarchy, 1; ties keep the request's order). The joint
ones keep the request's order ("ignores the hierarchies" of those categories).

The per-category choices of the rules (calculation mode, no-effect rule)
are read here too, so that each rule about categories lives in one place.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...models import StackingRules
from .stack_entry import StackEntry, StackKind

__all__ = ["DEFAULT_HIERARCHY", "application_order", "initial_amount_mode", "skips_no_effect", "stack_kind"]

#: The service's hierarchy of a category that does not say (and of no category).
DEFAULT_HIERARCHY = 1

_GROUP: dict[StackKind, int] = {"EXCLUSIVE": 0, "COMMON": 1, "JOINT": 2}


def stack_kind(entry: StackEntry, rules: StackingRules) -> StackKind:
    ids = entry.category_ids
    if not ids:
        return "COMMON"
    if ids.intersection(rules.exclusive_categories):
        return "EXCLUSIVE"
    if ids.intersection(rules.joint_categories):
        return "JOINT"
    return "COMMON"


def application_order(
    entries: Sequence[StackEntry], rules: StackingRules
) -> list[tuple[StackEntry, StackKind]]:
    """The entries with their kinds, in the order they are tried."""
    by_hierarchy = rules.redeemables_sorting_rule == "CATEGORY_HIERARCHY"

    def key(item: tuple[StackEntry, StackKind]) -> tuple[int, int, int]:
        entry, kind = item
        hierarchy = 0
        if by_hierarchy and kind != "JOINT":
            hierarchy = min((c.hierarchy for c in entry.categories), default=DEFAULT_HIERARCHY)
        return _GROUP[kind], hierarchy, entry.position

    return sorted(((entry, stack_kind(entry, rules)) for entry in entries), key=key)


def initial_amount_mode(entry: StackEntry, rules: StackingRules) -> bool:
    """Whether the entry's discount is taken of the order as sent
    (INITIAL_AMOUNT) rather than as discounted so far."""
    return _by_category(
        entry, rules.initial_amount_mode_categories, rules.discounted_amount_mode_categories,
        rules.discount_calculation_mode == "INITIAL_AMOUNT",
    )  # fmt: skip


def skips_no_effect(entry: StackEntry, rules: StackingRules) -> bool:
    """Whether a redeemable that changes nothing is SKIPPED (`no_effect`)
    rather than applied anyway."""
    return _by_category(
        entry, rules.no_effect_skip_categories, rules.no_effect_redeem_anyway_categories,
        rules.redeemables_no_effect_rule == "SKIP",
    )  # fmt: skip


def _by_category(entry: StackEntry, yes: list[str], no: list[str], default: bool) -> bool:
    """A yes/no setting with per-category overrides: a category of the entry
    in `yes` says yes, else one in `no` says no, else the project's `default`
    (the rules keep the two lists disjoint)."""
    ids = entry.category_ids
    if not ids:
        return default
    if ids.intersection(yes):
        return True
    if ids.intersection(no):
        return False
    return default
