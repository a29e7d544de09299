"""An order as pricing reads it: its priced lines and amounts (`normalize_order` builds it).

Plain dataclasses with slots rather than frozen ones, for speed (see `Line`);
read-only once built: lines of plain items are shared between the orders that
hold them (`normalize._plain_line`), and the memo dicts are the only parts
that fill up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .catalogue import CatalogueProduct, CatalogueSku

if TYPE_CHECKING:
    from .render.order import ItemTemplate

__all__ = ["Line", "NormalizedOrder"]


# Not frozen on purpose: a frozen dataclass's __init__ sets each of its fields
# through object.__setattr__, about 5x the cost of a plain one, and a line is
# built per item per request. Nothing mutates a Line after normalize_order,
# except render/order.py filling `wire_item` on first use (always with the same
# template: lines of plain items are shared between orders, see
# normalize._plain_line).
@dataclass(slots=True)
class Line:
    index: int
    product_id: str | None
    sku_id: str | None
    source_id: str | None
    product: CatalogueProduct | None
    sku: CatalogueSku | None
    quantity: int
    price: int | None
    amount: int | None
    collection_ids: frozenset[str]
    metadata: Mapping[str, Any]
    wire_product: Mapping[str, Any] | None
    wire_sku: Mapping[str, Any] | None
    #: Everything product/SKU matching reads off a line (ids, catalogue
    #: source_ids, collections): caches of "does this scope entry / rule target
    #: match this line" are keyed by it, so each answer is computed once.
    match_key: tuple[Any, ...] | None = field(default=None, repr=False, compare=False)
    #: The line as an undiscounted order item, built on first use and copied
    #: for every tier: the tiers of a request build it once.
    wire_item: ItemTemplate | None = field(default=None, repr=False, compare=False)

    @property
    def amount_or_zero(self) -> int:
        return self.amount if self.amount is not None else 0

    def with_amount(self, amount: int) -> Line:
        """This line with another amount (a stack's running subtotal): the
        same identity for scope matching (`match_key`), no wire template
        (the template shows the amount as sent). Written out rather than
        `dataclasses.replace`, which reads every field by name (5x the cost,
        per line per redeemable of a stacked request)."""
        return Line(
            self.index, self.product_id, self.sku_id, self.source_id, self.product, self.sku, self.quantity,
            self.price, amount, self.collection_ids, self.metadata, self.wire_product, self.wire_sku,
            self.match_key,
        )  # fmt: skip

    def with_units(self, quantity: int, amount: int | None) -> Line:
        """This line with the quantity and amount a UNIT discount of a stack
        left it (`stacking.running_order`): the same identity for scope
        matching, no wire template (the template shows the line as sent)."""
        return Line(
            self.index, self.product_id, self.sku_id, self.source_id, self.product, self.sku, quantity,
            self.price, amount, self.collection_ids, self.metadata, self.wire_product, self.wire_sku,
            self.match_key,
        )  # fmt: skip


# Not frozen either, for the same reason as Line: one is built per request,
# and nothing changes it after normalize_order (its memo dicts fill up).
@dataclass(slots=True)
class NormalizedOrder:
    lines: tuple[Line, ...]
    #: order.amount as sent, else the sum of line amounts
    amount: int
    #: order.initial_amount as sent, else `amount`
    initial_amount: int
    items_amount: int
    total_quantity: int
    metadata: Mapping[str, Any]
    customer_id: str | None
    referrer_id: str | None
    #: Per-request results (e.g. rule verdicts for this order, customer and
    #: instant), keyed by the token of the compiled part they belong to: the
    #: tiers of one request that share the part compute it once. Never part of
    #: the answer.
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    #: Results that depend on nothing but `lines`, `amount` and
    #: `initial_amount` and a compiled, immutable part of a tier (the lines a
    #: scope reaches and their discountable units, a tier's discount and its
    #: wire order), keyed by that part's token. Shared by every order of the
    #: same catalogue with the same plain items and amounts (see
    #: `normalize_order`), else private to this order. Never part of the answer.
    shared: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
