"""Qualifications (endpoint `QUALIFICATIONS`): what this customer can get for this cart.

The request gives a customer and/or an order and a scenario (which kinds of
redeemable to consider); the answer lists the redeemables that qualify, each
with the order as if it alone applied, best deal first or newest first, a
page at a time (docs/stacking.md § Qualifications).

Paging. `options.starting_after` is a cursor: a date-time (the service's:
under the DEFAULT order, the redeemables created strictly before it) or a
position the simulator handed out in `more_starting_after` (`position:N`,
see `parse_cursor`). The string `"null"` is no cursor, as the service reads
it. Under BEST_DEAL and LEAST_DEAL `created_at` does not order the list, so
only a position pages it (decision: docs/decisions.md § Qualifications).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import Field, Strict, WithJsonSchema, field_validator

from ._base import RequestModel, WireModel, checked_after, fail
from .categories import CategoryWithStackingRulesType
from .common import INTEGER_ONLY, Metadata, Money, NonNegativeInt64, Timestamp
from .customers import CustomerInput
from .discounts import Discount
from .orders import Order, OrderInput
from .promotions import ApplicableToList
from .stacking_rules import StackingRules

__all__ = [
    "QUALIFICATION_SCENARIOS",
    "QualificationFilterCondition",
    "QualificationGift",
    "QualificationOptions",
    "QualificationRequest",
    "QualificationResponse",
    "QualificationResult",
    "QualificationSession",
    "QualifiedRedeemable",
    "QualifiedRedeemables",
    "QualifiedStackTier",
    "parse_cursor",
]

QualificationScenario = Literal[
    "ALL", "CUSTOMER_WALLET", "AUDIENCE_ONLY", "PRODUCTS", "PRODUCTS_DISCOUNT", "PROMOTION_STACKS",
    "PRODUCTS_BY_CUSTOMER", "PRODUCTS_DISCOUNT_BY_CUSTOMER",
]
QUALIFICATION_SCENARIOS: tuple[str, ...] = get_args(QualificationScenario)
SortingRule = Literal["DEFAULT", "BEST_DEAL", "LEAST_DEAL"]
FilterField = Literal[
    "resource_type", "resource_id", "campaign_id", "campaign_type", "voucher_type", "code", "category_id",
]

#: A position cursor: up to 8 digits, far past any list the simulator holds.
_POSITION = re.compile(r"^position:(0|[1-9][0-9]{0,7})$")


def parse_cursor(value: str | None) -> datetime | int | None:
    """`starting_after` read: None (absent, or the string "null"), an aware
    date-time, or a position (`position:N`, N items already returned).
    Raises ValueError naming what is accepted."""
    if value is None or value == "null":
        return None
    found = _POSITION.match(value)
    if found is not None:
        return int(found.group(1))
    try:
        instant = datetime.fromisoformat(value)
    except ValueError:
        instant = None
    if instant is None or instant.utcoffset() is None:
        raise ValueError(
            "must be a date-time with a UTC offset (e.g. 2026-03-06T10:00:00.000Z) or the "
            f"more_starting_after of a previous page, got {value!r}"
        )
    return instant


#: The schema of a cursor: the service's date-time, a position, or "null".
Cursor = Annotated[str, WithJsonSchema({"anyOf": [
    {"type": "string", "format": "date-time"},
    {"type": "string", "pattern": _POSITION.pattern},
    {"const": "null"},
]})]


class QualificationFilterCondition(RequestModel):
    """One field's conditions (the service's filter operators)."""

    __omit_if_none__ = frozenset({"is_", "is_not", "in_", "not_in"})

    is_: str | None = Field(default=None, alias="$is")
    is_not: str | None = Field(default=None, alias="$is_not")
    in_: list[str] | None = Field(default=None, alias="$in")
    not_in: list[str] | None = Field(default=None, alias="$not_in")


class QualificationFilter(RequestModel):
    conditions: QualificationFilterCondition


def _date_cursor_needs_default_order(options: QualificationOptions) -> None:
    if options.sorting_rule != "DEFAULT" and isinstance(parse_cursor(options.starting_after), datetime):
        fail("starting_after",
             f"a date-time cursor pages the DEFAULT order only; under {options.sorting_rule} pass the "
             "more_starting_after of the previous page", options.starting_after)



class QualificationOptions(RequestModel):
    __omit_if_none__ = frozenset({"starting_after", "filters", "expand"})

    limit: Annotated[int, Strict(), Field(ge=1, le=50), INTEGER_ONLY] = 5
    starting_after: Cursor | None = None
    #: `{field: {conditions: {$in: [...]}}, junction: AND|OR}`
    filters: dict[str, Any] | None = None
    expand: list[Literal["redeemable", "category", "validation_rules"]] | None = None
    sorting_rule: SortingRule = "DEFAULT"

    @field_validator("starting_after")
    @classmethod
    def _cursor(cls, value: str | None) -> str | None:
        parse_cursor(value)
        return value

    @field_validator("filters")
    @classmethod
    def _filters(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        fields = get_args(FilterField)
        for name, spec in value.items():
            if name == "junction":
                if spec not in ("AND", "OR", "and", "or"):
                    raise ValueError(f"junction must be AND or OR, got {spec!r}")
                continue
            if name not in fields:
                raise ValueError(f"unknown filter field {name!r}; use one of {', '.join(fields)}")
            QualificationFilter.model_validate(spec)
        return value

    _date_cursor = checked_after(_date_cursor_needs_default_order)


class QualificationSession(RequestModel):
    """`{type: LOCK}` asks for locked credits; the simulator locks none (it
    accepts the session and shows `locked_credits: 0`)."""

    type: Literal["LOCK"]


class QualificationRequest(RequestModel):
    __omit_if_none__ = frozenset({"customer", "order", "tracking_id", "options", "session", "metadata"})

    customer: CustomerInput | None = None
    order: OrderInput | None = None
    tracking_id: Annotated[str, Field(max_length=200)] | None = None
    scenario: QualificationScenario = "ALL"
    options: QualificationOptions | None = None
    session: QualificationSession | None = None
    metadata: Metadata | None = None


class QualificationGift(WireModel):
    """A gift card's credits: its balance and what this order can use of it."""

    balance: Money
    credits: Money
    locked_credits: Money = 0


class QualificationResult(WireModel):
    __omit_if_none__ = frozenset({"discount", "gift"})

    discount: Discount | None = None
    gift: QualificationGift | None = None


class QualifiedStackTier(WireModel):
    """A tier a qualifying promotion stack applies, with its running order
    (the order as it and the stack's tiers before it left it)."""

    __omit_if_none__ = frozenset({"name"})

    id: str
    object: Literal["promotion_tier"] = "promotion_tier"
    created_at: Timestamp
    result: QualificationResult
    order: Order
    applicable_to: ApplicableToList
    inapplicable_to: ApplicableToList
    metadata: Metadata = Field(default_factory=dict)
    name: str | None = None


class QualifiedRedeemable(WireModel):
    """One redeemable that qualifies, with the order as if it alone applied;
    a promotion stack holds its tiers (`redeemables`, each with its running
    order) and its order has them all applied."""

    __omit_if_none__ = frozenset({
        "categories", "campaign_name", "campaign_id", "name", "banner", "validation_rules_assignments",
        "redeemables",
    })  # fmt: skip

    id: str
    object: Literal["voucher", "promotion_tier", "campaign", "promotion_stack"]
    created_at: Timestamp
    result: QualificationResult
    order: Order
    applicable_to: ApplicableToList
    inapplicable_to: ApplicableToList
    metadata: Metadata = Field(default_factory=dict)
    categories: list[CategoryWithStackingRulesType] | None = None
    campaign_name: str | None = None
    campaign_id: str | None = None
    name: str | None = None
    banner: str | None = None
    validation_rules_assignments: dict[str, Any] | None = None
    redeemables: list[QualifiedStackTier] | None = None


class QualifiedRedeemables(WireModel):
    """A page of redeemables: `total` is this page's size."""

    __omit_if_none__ = frozenset({"more_starting_after"})

    object: Literal["list"] = "list"
    data_ref: Literal["data"] = "data"
    data: list[QualifiedRedeemable]
    total: NonNegativeInt64
    has_more: bool
    more_starting_after: str | None = None


class QualificationResponse(WireModel):
    __omit_if_none__ = frozenset({"tracking_id", "order"})

    redeemables: QualifiedRedeemables
    tracking_id: str | None = None
    order: Order | None = None
    stacking_rules: StackingRules
