"""A tier's `applicable_to`: which lines its item effects reach, and the caps.

`{"included": [entry...], "excluded": [entry...]}`; an entry is
`{"object": "product"|"sku"|"products_collection", "id", "source_id"?,
"product_id"?, "quantity_limit"?, "aggregated_quantity_limit"?,
"amount_limit"?, "aggregated_amount_limit"?, "price"? (FIXED new unit price),
"effect"? ("APPLY_TO_EVERY", the only one supported), unit budgets
(`product_*_quantity_limit`, see `unit_budgets.py`)?}`.

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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .catalogue import Catalogue
from .lines import Line
from .unit_budgets import UnitBudget, parse_unit_budgets

__all__ = ["LineScope", "Scope", "ScopeEntry", "compile_scope", "wire_list"]

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
    #: budgets of units across redemptions (`unit_budgets`); () when none
    unit_budgets: tuple[UnitBudget, ...] = ()

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
        for budget in self.unit_budgets:
            out[budget.field] = budget.limit
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
        unit_budgets=parse_unit_budgets(raw, obj),
    )


#: Cached line identities per scope before the cache is emptied (requests can
#: name any number of unknown products).
_CACHE_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class LineScope:
    """How a tier's included entries bear on one line it reaches, combined once
    per product/SKU (see `Scope.line_scope`)."""

    #: the included entries matching the line (`()` when none is defined)
    entries: tuple[ScopeEntry, ...]
    #: the smallest `quantity_limit` / `amount_limit` of those entries, or None
    quantity_limit: int | None
    amount_limit: int | None
    #: FIXED: the highest entry `price` (the lowest discount), or None
    new_price: int | None
    #: (entry, its `aggregated_quantity_limit` / `aggregated_amount_limit`)
    #: for the entries that have one: budgets shared by every line they match
    quantity_budgets: tuple[tuple[ScopeEntry, int], ...]
    amount_budgets: tuple[tuple[ScopeEntry, int], ...]
    #: the unit budgets of those entries (across redemptions, `unit_budgets`)
    unit_budgets: tuple[UnitBudget, ...] = ()

    @classmethod
    def of(cls, entries: tuple[ScopeEntry, ...]) -> LineScope:
        qlimits = [e.quantity_limit for e in entries if e.quantity_limit is not None]
        alimits = [e.amount_limit for e in entries if e.amount_limit is not None]
        prices = [e.price for e in entries if e.price is not None]
        return cls(
            entries,
            min(qlimits) if qlimits else None,
            min(alimits) if alimits else None,
            max(prices) if prices else None,
            tuple(
                (e, e.aggregated_quantity_limit)
                for e in entries
                if e.aggregated_quantity_limit is not None
            ),
            tuple(
                (e, e.aggregated_amount_limit) for e in entries if e.aggregated_amount_limit is not None
            ),
            tuple(b for e in entries for b in e.unit_budgets),
        )


@dataclass(frozen=True, slots=True)
class Scope:
    included: tuple[ScopeEntry, ...]
    excluded: tuple[ScopeEntry, ...]
    #: line.match_key -> the line's LineScope, or None when the line is out of
    #: scope. Matching reads nothing but what the match key holds, so each
    #: product/SKU is matched against the entries once, not once per request.
    _lines: dict[tuple[Any, ...], LineScope | None] = field(
        default_factory=dict, repr=False, compare=False
    )
    #: Identity of this scope in per-order memos (`NormalizedOrder.shared`):
    #: a fresh object, kept alive by the memo that holds it, so that no other
    #: scope can ever take its place there (unlike an `id()`).
    token: object = field(default_factory=object, repr=False, compare=False)
    #: Whether an included entry carries a unit budget: the discount then
    #: depends on what was redeemed before, not on the order alone (set by
    #: `compile_scope`; read per tier per request, hence a field).
    budgeted: bool = False

    @property
    def defined(self) -> bool:
        return bool(self.included or self.excluded)

    def line_scope(self, line: Line) -> LineScope | None:
        """How the included entries bear on `line`; None when item effects do not reach it."""
        key = line.match_key
        if key is None:  # a Line built by hand: no identity to cache under
            return self._match(line)
        cache = self._lines
        if key in cache:
            return cache[key]
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        found = cache[key] = self._match(line)
        return found

    def reached(self, lines: Sequence[Line]) -> list[tuple[int, Line, LineScope]]:
        """(position, line, LineScope) of every line item effects reach: what
        `line_scope` gives, with the cache read inline (this runs per line per
        tier per request)."""
        cache = self._lines
        out = []
        for i, line in enumerate(lines):
            key = line.match_key
            if key is not None and key in cache:
                found = cache[key]
            else:
                found = self.line_scope(line)
            if found is not None:
                out.append((i, line, found))
        return out

    def _match(self, line: Line) -> LineScope | None:
        if self.excluded and any(e.matches(line) for e in self.excluded):
            return None
        if not self.included:
            return _UNSCOPED
        entries = tuple(e for e in self.included if e.matches(line))
        return LineScope.of(entries) if entries else None

    def eligible(self, lines: Sequence[Line]) -> list[tuple[int, tuple[ScopeEntry, ...]]]:
        """(line index, matching included entries) for every line item effects reach."""
        out: list[tuple[int, tuple[ScopeEntry, ...]]] = []
        for i, line in enumerate(lines):
            found = self.line_scope(line)
            if found is not None:
                out.append((i, found.entries))
        return out


_UNSCOPED = LineScope.of(())


#: Scopes compiled so far, by their canonical JSON: tiers with the same
#: applicable_to share one Scope, hence its line cache and its per-order memo.
_INTERNED: dict[str, Scope] = {}
_NO_SCOPE = Scope((), ())


def compile_scope(applicable_to: Mapping[str, Any] | None) -> Scope:
    """The compiled scope; equal `applicable_to` objects give the same Scope."""
    if not applicable_to:
        return _NO_SCOPE
    try:
        key = json.dumps(applicable_to, sort_keys=True)
    except (TypeError, ValueError):  # not plain JSON: compile it on its own
        return _compile_scope(applicable_to)
    found = _INTERNED.get(key)
    if found is None:
        if len(_INTERNED) >= _CACHE_LIMIT:
            _INTERNED.clear()
        found = _INTERNED[key] = _compile_scope(applicable_to)
    return found


def _compile_scope(applicable_to: Mapping[str, Any]) -> Scope:
    unknown = sorted(str(k) for k in applicable_to if k not in ("included", "excluded"))
    if unknown:
        # e.g. a tier written with the response's `data` list: silently
        # ignoring it would put every line in scope.
        raise ValueError(f"applicable_to accepts 'included' and 'excluded' only, got {unknown}")
    included = applicable_to.get("included") or ()
    excluded = applicable_to.get("excluded") or ()
    if not isinstance(included, Sequence) or not isinstance(excluded, Sequence):
        raise ValueError("applicable_to.included/excluded must be arrays")  # noqa: TRY004 - reported as TierConfigError
    inside = tuple(_entry(e) for e in included)
    outside = tuple(_entry(e) for e in excluded)
    for e in outside:
        if e.unit_budgets:
            raise ValueError(f"applicable_to.excluded entries discount nothing: {e.unit_budgets[0].field} belongs on included entries")
    return Scope(inside, outside, budgeted=any(e.unit_budgets for e in inside))


def wire_list(entries: Sequence[ScopeEntry], catalogue: Catalogue) -> dict[str, Any]:
    data = [e.wire(catalogue) for e in entries]
    return {"data": data, "total": len(data), "data_ref": "data", "object": "list"}
