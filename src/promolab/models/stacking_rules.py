"""A project's stacking rules: how several codes and promotion tiers combine in one request.

One object per project, managed through the management API (create, list,
get, update, delete) and echoed by stackable validations. `StackingRules` is
the settings themselves, with the service's defaults; `ProjectStackingRules`
is the stored resource (the settings plus `id` and timestamps);
`StackingRulesChange` is the body of a create or an update, where only the
fields sent change (an array sent replaces the stored one).

Bounds and defaults are the service's (docs/stacking.md lists them); where its
two schemas disagree, docs/decisions.md says which one promolab follows.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ._base import RequestModel, WireModel, checked_after, fail
from .common import INTEGER_ONLY, ListEnvelope, Timestamp

__all__ = [
    "MAX_CATEGORY_IDS",
    "ApplicationMode",
    "DiscountCalculationMode",
    "NoEffectRule",
    "ProductsApplicationMode",
    "ProjectStackingRules",
    "RollbackOrderMode",
    "SortingRule",
    "StackingRules",
    "StackingRulesChange",
    "StackingRulesList",
]

ApplicationMode = Literal["ALL", "PARTIAL"]
SortingRule = Literal["REQUESTED_ORDER", "CATEGORY_HIERARCHY"]
DiscountCalculationMode = Literal["DISCOUNTED_AMOUNT", "INITIAL_AMOUNT"]
ProductsApplicationMode = Literal["STACK", "ONCE"]
NoEffectRule = Literal["REDEEM_ANYWAY", "SKIP"]
RollbackOrderMode = Literal["WITH_ORDER", "WITHOUT_ORDER"]
GroupedSortingRule = Literal["JOINT_ALWAYS_LAST"]

#: How many category ids one list may hold: far more than a project has
#: categories, and a bound on what one request can make the state keep.
MAX_CATEGORY_IDS = 100

CategoryId = Annotated[str, Field(min_length=1, max_length=100)]
CategoryIds = Annotated[list[CategoryId], Field(max_length=MAX_CATEGORY_IDS)]
#: Whole numbers only (10.0 is refused, as every count of the service's models).
Limit30 = Annotated[int, Field(ge=1, le=30, strict=True), INTEGER_ONLY]
Limit10 = Annotated[int, Field(ge=1, le=10, strict=True), INTEGER_ONLY]
Limit5 = Annotated[int, Field(ge=1, le=5, strict=True), INTEGER_ONLY]
CategoryLimits = Annotated[dict[CategoryId, Limit10], Field(max_length=MAX_CATEGORY_IDS)]

#: Pairs of category lists that may not name one category twice: a category
#: has one stacking eligibility, one calculation mode and one no-effect rule.
_DISJOINT = (
    ("exclusive_categories", "joint_categories"),
    ("initial_amount_mode_categories", "discounted_amount_mode_categories"),
    ("no_effect_skip_categories", "no_effect_redeem_anyway_categories"),
)


def _check_consistent(rules: Any) -> None:
    """The limits nest (applied <= sent, per category <= applied) and no
    category is in two lists that contradict each other."""
    if rules.applicable_redeemables_limit > rules.redeemables_limit:
        fail("applicable_redeemables_limit", "must be less than or equal to redeemables_limit",
             rules.applicable_redeemables_limit)
    per_category = rules.applicable_redeemables_per_category_limit
    if per_category is not None and per_category > rules.applicable_redeemables_limit:
        fail("applicable_redeemables_per_category_limit",
             "must be less than or equal to applicable_redeemables_limit", per_category)
    for first, second in _DISJOINT:
        both = sorted(set(getattr(rules, first)) & set(getattr(rules, second)))
        if both:
            fail(second, f"must not name a category of {first}: {', '.join(both)}", both)


class StackingRules(WireModel):
    """The settings, each with the service's default."""

    exclusive_categories: CategoryIds = Field(default_factory=list)
    joint_categories: CategoryIds = Field(default_factory=list)
    redeemables_limit: Limit30 = 30
    applicable_redeemables_limit: Limit30 = 5
    applicable_redeemables_per_category_limit: Limit30 | None = 1
    applicable_redeemables_category_limits: CategoryLimits = Field(default_factory=dict)
    applicable_exclusive_redeemables_limit: Limit5 = 1
    applicable_exclusive_redeemables_per_category_limit: Limit5 | None = 1
    discount_calculation_mode: DiscountCalculationMode = "DISCOUNTED_AMOUNT"
    initial_amount_mode_categories: CategoryIds = Field(default_factory=list)
    discounted_amount_mode_categories: CategoryIds = Field(default_factory=list)
    redeemables_application_mode: ApplicationMode = "ALL"
    redeemables_sorting_rule: SortingRule = "REQUESTED_ORDER"
    redeemables_products_application_mode: ProductsApplicationMode = "STACK"
    redeemables_no_effect_rule: NoEffectRule = "REDEEM_ANYWAY"
    no_effect_skip_categories: CategoryIds = Field(default_factory=list)
    no_effect_redeem_anyway_categories: CategoryIds = Field(default_factory=list)
    redeemables_rollback_order_mode: RollbackOrderMode = "WITH_ORDER"
    grouped_redeemables_sorting_rule: GroupedSortingRule = "JOINT_ALWAYS_LAST"

    _consistent = checked_after(_check_consistent)

    def settings(self) -> dict[str, Any]:
        """The settings alone (no id, no timestamps), as plain values."""
        return {name: getattr(self, name) for name in StackingRules.model_fields}


class ProjectStackingRules(StackingRules):
    """The stored resource: a project's settings with their id and dates."""

    __omit_if_none__ = frozenset({"updated_at"})

    id: str = Field(pattern=r"^stk_[a-f0-9]+$")
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["stacking_rules"] = "stacking_rules"


#: An item of the list: the project's stored object, or the defaults (the
#: settings alone: no id, since there is nothing to get, update or delete).
ListedStackingRules = ProjectStackingRules | StackingRules


class StackingRulesList(ListEnvelope[ListedStackingRules]):
    """The rules in force as a list of exactly one item, as the service
    answers it ("Returns always a list with one item"): the project's object,
    or the defaults without an id while the project has none (before one is
    created, and again after it is deleted). An SDK caller reading `data[0]`
    always finds the settings that stacked requests follow."""

    data: Annotated[list[ListedStackingRules], Field(min_length=1, max_length=1)]
    total: Literal[1] = 1


class StackingRulesChange(RequestModel):
    """The body of a create or an update: the fields to set, nothing else.

    Which fields were sent is `model_fields_set`. A `null` is "no such
    limit" for the two per-category limits, and "not sent" for any other
    field (as in every request of the service)."""

    __omit_if_none__ = frozenset(StackingRules.model_fields)

    exclusive_categories: CategoryIds | None = None
    joint_categories: CategoryIds | None = None
    redeemables_limit: Limit30 | None = None
    applicable_redeemables_limit: Limit30 | None = None
    applicable_redeemables_per_category_limit: Limit30 | None = None
    applicable_redeemables_category_limits: CategoryLimits | None = None
    applicable_exclusive_redeemables_limit: Limit5 | None = None
    applicable_exclusive_redeemables_per_category_limit: Limit5 | None = None
    discount_calculation_mode: DiscountCalculationMode | None = None
    initial_amount_mode_categories: CategoryIds | None = None
    discounted_amount_mode_categories: CategoryIds | None = None
    redeemables_application_mode: ApplicationMode | None = None
    redeemables_sorting_rule: SortingRule | None = None
    redeemables_products_application_mode: ProductsApplicationMode | None = None
    redeemables_no_effect_rule: NoEffectRule | None = None
    no_effect_skip_categories: CategoryIds | None = None
    no_effect_redeem_anyway_categories: CategoryIds | None = None
    redeemables_rollback_order_mode: RollbackOrderMode | None = None
    grouped_redeemables_sorting_rule: GroupedSortingRule | None = None

    def applied_to(self, rules: StackingRules) -> StackingRules:
        """`rules` with the sent fields changed, checked as a whole."""
        sent = {
            name: value
            for name in self.model_fields_set
            if (value := getattr(self, name)) is not None or name in _NULLABLE
        }
        return StackingRules.model_validate({**rules.settings(), **sent})


#: The settings where `null` is a value ("no such limit").
_NULLABLE = frozenset({
    "applicable_redeemables_per_category_limit",
    "applicable_exclusive_redeemables_per_category_limit",
})
