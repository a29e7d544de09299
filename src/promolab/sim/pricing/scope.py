"""A tier's `applicable_to`: which lines its item effects reach, and the caps.

`{"included": [entry...], "excluded": [entry...]}`; an entry is
`{"object": "product"|"sku"|"products_collection", "id", "source_id"?,
"product_id"?, "quantity_limit"?, "aggregated_quantity_limit"?,
"amount_limit"?, "aggregated_amount_limit"?, "price"? (FIXED new unit price),
"effect"? ("APPLY_TO_EVERY", the only one supported)}`.

- A product entry matches the product's lines and its SKUs' lines; a SKU entry
  its lines; a collection entry the lines whose product or SKU is in it.
- A line matched by an excluded entry is never discounted, even inside an
  included collection. With no included entry every line is in scope.
- When several included entries match a line, the most restrictive of each cap
  applies ("the lowest possible discount"): the smallest limits, and for FIXED
  the highest new price. An aggregated limit is a budget shared by all lines its
  entry matches, consumed in line order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .items import Line
from .types import Catalogue

__all__ = ["Scope", "ScopeEntry", "compile_scope", "wire_list"]

_OBJECTS = ("product", "sku", "products_collection")
_CAPS = ("quantity_limit", "aggregated_quantity_limit", "amount_limit", "aggregated_amount_limit")


@dataclass(frozen=True, slots=True, eq=False)
class ScopeEntry:
    object: str
    id: str | None
    source_id: str | None
    product_id: str | None
    product_source_id: str | None
    price: int | None
    price_formula: str | None
    effect: str
    quantity_limit: int | None
    aggregated_quantity_limit: int | None
    amount_limit: int | None
    aggregated_amount_limit: int | None

    def matches(self, line: Line) -> bool:
        if self.object == "product":
            if self.id is not None:
                return line.product_id == self.id
            return line.product is not None and line.product.source_id == self.source_id
        if self.object == "sku":
            if self.id is not None:
                return line.sku_id == self.id
            return line.sku is not None and line.sku.source_id == self.source_id
        return self.id in line.collection_ids

    def wire(self, catalogue: Catalogue) -> dict[str, Any]:
        """The entry as the service lists it in applicable_to / inapplicable_to.

        A missing product/SKU `source_id` is taken from the catalogue, and when
        the catalogue has none either, the id itself is shown (the service's own
        example does this for products created without a source_id).
        """
        out: dict[str, Any] = {"object": self.object}
        if self.id is not None:
            out["id"] = self.id
        if self.object == "product":
            product = catalogue.product(self.id) if self.id else None
            source = self.source_id or (product.source_id if product else None) or self.id
            if source is not None:
                out["source_id"] = source
        elif self.object == "sku":
            sku = catalogue.sku(self.id) if self.id else None
            source = self.source_id or (sku.source_id if sku else None) or self.id
            if source is not None:
                out["source_id"] = source
            product_id = self.product_id or (sku.product_id if sku else None)
            if product_id is not None:
                out["product_id"] = product_id
                parent = catalogue.product(product_id)
                psource = self.product_source_id or (parent.source_id if parent else None)
                out["product_source_id"] = psource or product_id
        elif self.source_id is not None:
            out["source_id"] = self.source_id
        if self.price is not None:
            out["price"] = self.price
        if self.price_formula is not None:
            out["price_formula"] = self.price_formula
        out["effect"] = self.effect
        for cap in _CAPS:
            value = getattr(self, cap)
            if value is not None:
                out[cap] = value
        return out


def _int(entry: Mapping[str, Any], key: str) -> int | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"applicable_to entry {key} must be a non-negative integer, got {value!r}")
    return value


def _entry(raw: Any) -> ScopeEntry:
    if not isinstance(raw, Mapping):
        raise ValueError(f"applicable_to entry must be an object, got {raw!r}")  # noqa: TRY004 - reported as TierConfigError
    obj = raw.get("object")
    if obj not in _OBJECTS:
        raise ValueError(f"applicable_to entry object must be one of {_OBJECTS}, got {obj!r}")
    entry_id = raw.get("id")
    source_id = raw.get("source_id")
    if entry_id is None and (source_id is None or obj == "products_collection"):
        raise ValueError(f"applicable_to entry {raw!r} needs an id")
    effect = raw.get("effect") or "APPLY_TO_EVERY"
    if effect != "APPLY_TO_EVERY":
        raise ValueError(f"applicable_to effect {effect} is not supported (only APPLY_TO_EVERY)")
    return ScopeEntry(
        object=obj,
        id=entry_id,
        source_id=source_id,
        product_id=raw.get("product_id"),
        product_source_id=raw.get("product_source_id"),
        price=_int(raw, "price"),
        price_formula=raw.get("price_formula"),
        effect=effect,
        quantity_limit=_int(raw, "quantity_limit"),
        aggregated_quantity_limit=_int(raw, "aggregated_quantity_limit"),
        amount_limit=_int(raw, "amount_limit"),
        aggregated_amount_limit=_int(raw, "aggregated_amount_limit"),
    )


@dataclass(frozen=True, slots=True)
class Scope:
    included: tuple[ScopeEntry, ...]
    excluded: tuple[ScopeEntry, ...]

    @property
    def defined(self) -> bool:
        return bool(self.included or self.excluded)

    def eligible(self, lines: Sequence[Line]) -> list[tuple[int, tuple[ScopeEntry, ...]]]:
        """(line index, matching included entries) for every line item effects reach."""
        out: list[tuple[int, tuple[ScopeEntry, ...]]] = []
        for i, line in enumerate(lines):
            if self.excluded and any(e.matches(line) for e in self.excluded):
                continue
            if self.included:
                entries = tuple(e for e in self.included if e.matches(line))
                if not entries:
                    continue
                out.append((i, entries))
            else:
                out.append((i, ()))
        return out


def compile_scope(applicable_to: Mapping[str, Any] | None) -> Scope:
    if not applicable_to:
        return Scope((), ())
    included = applicable_to.get("included") or ()
    excluded = applicable_to.get("excluded") or ()
    if not isinstance(included, Sequence) or not isinstance(excluded, Sequence):
        raise ValueError("applicable_to.included/excluded must be arrays")  # noqa: TRY004 - reported as TierConfigError
    return Scope(tuple(_entry(e) for e in included), tuple(_entry(e) for e in excluded))


def wire_list(entries: Sequence[ScopeEntry], catalogue: Catalogue) -> dict[str, Any]:
    data = [e.wire(catalogue) for e in entries]
    return {"data": data, "total": len(data), "data_ref": "data", "object": "list"}
