"""Unit budgets: how many units of a product a campaign or tier discounts, ever.

An `applicable_to` entry may carry a budget of units across redemptions
(the service's `product_*_quantity_limit` fields): "units sold above this
limit will not be discounted". Unlike `quantity_limit` and
`aggregated_quantity_limit`, which cap one request, a unit budget is spent by
redemptions and given back by their rollbacks, so what is left depends on
the usage ledger (`usage_ledger.UsageLedger.units`), the customer and, in a
stack, the redeemables applied before (`UnitSpent`).

- `product_*` fields sit on product and SKU entries, `product_in_collection_*`
  on collection entries; either way the budget counts the units **of each
  product** reached through the entry (a SKU's units count for its product),
  discounted by the campaign (every tier and code of it) or by the tier (or
  code) itself, of everyone or of the customer.
- A request discounts at most what is left: each budgeted line's
  discountable units are trimmed (`amount_discounts`), the amount follows.
  An exhausted budget gives a smaller (or no) discount; the redeemable stays
  applicable (docs/decisions.md § Unit budgets).
- `*_formula` twins are refused: the engine evaluates no formula.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .lines import Line

__all__ = [
    "UNIT_BUDGET_FIELDS",
    "BudgetSubject",
    "UnitBudget",
    "UnitSpent",
    "budgets_by_product",
    "parse_unit_budgets",
    "product_key",
    "spent_units",
    "unit_allowance",
]

Subject = Literal["campaign", "redeemable"]


@dataclass(frozen=True, slots=True)
class UnitBudget:
    """One budget of an entry: its field, what it counts and its limit."""

    field: str
    #: whose redemptions count: the whole campaign's or the tier's (code's) own
    scope: Subject
    per_customer: bool
    limit: int


#: Each field: (entry objects it belongs on, scope, per customer).
UNIT_BUDGET_FIELDS: Mapping[str, tuple[tuple[str, ...], Subject, bool]] = {
    "product_campaign_quantity_limit": (("product", "sku"), "campaign", False),
    "product_customer_campaign_quantity_limit": (("product", "sku"), "campaign", True),
    "product_in_collection_campaign_quantity_limit": (("products_collection",), "campaign", False),
    "product_in_collection_customer_campaign_quantity_limit": (("products_collection",), "campaign", True),
    "product_promotion_tier_quantity_limit": (("product", "sku"), "redeemable", False),
    "product_customer_promotion_tier_quantity_limit": (("product", "sku"), "redeemable", True),
    "product_in_collection_promotion_tier_quantity_limit": (("products_collection",), "redeemable", False),
    "product_in_collection_customer_promotion_tier_quantity_limit": (
        ("products_collection",), "redeemable", True,
    ),
}  # fmt: skip


def parse_unit_budgets(raw: Mapping[str, object], obj: str) -> tuple[UnitBudget, ...]:
    """The unit budgets of an `applicable_to` entry of object `obj`; raises
    ValueError naming the field (a formula, a negative or non-integer limit, a
    field on the wrong kind of entry)."""
    out = []
    for name, (objects, scope, per_customer) in UNIT_BUDGET_FIELDS.items():
        if raw.get(f"{name}_formula") is not None:
            raise ValueError(
                f"applicable_to entry {name}_formula: formulas are not evaluated; give {name} as an integer"
            )
        value = raw.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"applicable_to entry {name} must be a non-negative integer, got {value!r}")
        if obj not in objects:
            raise ValueError(f"applicable_to entry {name} belongs on a {' or '.join(objects)} entry, not on {obj}")
        out.append(UnitBudget(name, scope, per_customer, value))
    return tuple(out)


def product_key(line: Line) -> str | None:
    """The product whose units a line's units count as (a SKU's: its product)."""
    if line.product_id is not None:
        return line.product_id
    if line.sku is not None and line.sku.product_id is not None:
        return line.sku.product_id
    return line.sku_id


class UnitSpent:
    """Units discounted by the redeemables a stack applied so far (not yet
    in the ledger): the next redeemable of the same campaign or tier counts
    them too."""

    __slots__ = ("_spent",)

    def __init__(self) -> None:
        self._spent: dict[tuple[str, str, str], int] = {}

    def add(self, redeemable_id: str, campaign_id: str | None, units: Iterable[tuple[str, int]]) -> None:
        for product, n in units:
            for key in (("redeemable", redeemable_id, product), ("campaign", campaign_id or "", product)):
                self._spent[key] = self._spent.get(key, 0) + n

    def units(self, scope: Subject, subject: str, product: str) -> int:
        return self._spent.get((scope, subject, product), 0)


@dataclass(frozen=True, slots=True)
class BudgetSubject:
    """Whose budgets a pricing reads: the tier (or code), its campaign, the customer."""

    redeemable_id: str
    campaign_id: str
    customer_id: str | None


def unit_allowance(
    budgets_by_product: Mapping[str, tuple[UnitBudget, ...]],
    who: BudgetSubject,
    counts: object,
    spent: UnitSpent | None = None,
) -> dict[str, int]:
    """Units left per product: the smallest `limit - used` of the budgets on
    the entries reaching it (never below 0). `counts` is the context's usage:
    a ledger that counts units (`UsageLedger.units`), or anything else
    (nothing spent yet)."""
    # read per budgeted tier per request: a getattr, where an isinstance of a
    # runtime-checkable Protocol would cost microseconds
    read: Callable[[Subject, str, Hashable | None, str], int] | None = getattr(counts, "units", None)
    out: dict[str, int] = {}
    for product, budgets in budgets_by_product.items():
        left = None
        for b in budgets:
            subject = who.campaign_id if b.scope == "campaign" else who.redeemable_id
            customer = who.customer_id if b.per_customer else None
            used = 0
            if read is not None and not (b.per_customer and customer is None):
                used = read(b.scope, subject, customer, product)
            if spent is not None:  # one request has one customer: its spending counts in every budget
                used += spent.units(b.scope, subject, product)
            room = b.limit - used
            left = room if left is None or room < left else left
        out[product] = max(0, left if left is not None else 0)
    return out


def budgets_by_product(reached: Iterable[tuple[Line, tuple[UnitBudget, ...]]]) -> dict[str, tuple[UnitBudget, ...]]:
    """The budgets bearing on each product of the lines a scope reaches."""
    out: dict[str, tuple[UnitBudget, ...]] = {}
    for line, budgets in reached:
        if not budgets:
            continue
        key = product_key(line)
        if key is None:
            continue
        found = out.get(key)
        if found is None:  # the common case: one line per product
            out[key] = budgets
        elif found is not budgets:
            out[key] = found + tuple(b for b in budgets if b not in found)
    return out


def spent_units(lines: Sequence[Line], counted: Sequence[int], discounts: Sequence[int]) -> tuple[tuple[str, int], ...]:
    """(product, units) a redemption spends of its unit budgets: the counted
    units of each line it discounted (a line left at 0 spends nothing: its
    units were not discounted), summed per product, sorted."""
    out: dict[str, int] = {}
    for line, n, discount in zip(lines, counted, discounts):
        key = product_key(line)
        if n and discount > 0 and key is not None:
            out[key] = out.get(key, 0) + n
    return tuple(sorted(out.items()))
