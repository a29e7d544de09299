"""Promotion validation (endpoint 6): which tiers apply to this customer and
order, and what each does to the order, to the cent.

A read: it never changes state and is not journaled... except that a replay
line may still ask for it (replay records its outcome in the timeline).
Every field of the body is optional, so the body itself is too: over HTTP a
request without one (or with `null`) is validated as `{}`, and
`/openapi.json` says so (`requestBody.required: false`, docs/http.md).
The operation returns the response as wire JSON (a dict): the HTTP face sends
it as is, and `Simulator.validate_promotions` parses it into the model.

The request body is still checked against `models.ValidationRequest`, but a
pydantic validation costs about as much as pricing a few tiers, so the usual
body (the fields an order validation sends, with plain JSON types) is
recognised by `plainly_valid`, a hand-written check that accepts only what the
model accepts; any other body, valid or not, goes through the model, which
gives the exact 400 message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ... import models
from ...engine import PricingInputError, normalize_order, tier_entries
from ...models import endpoints
from ..operation import bind
from ..promotions import customer_context, invalid_payload, pricing_view, tracking_id
from ..refusals import InvalidQueryParams
from ..request_parsing import CUSTOMER_CHECKS, code, fields_ok, json_object, money, parse, text

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["plainly_valid", "tier_filter", "validate"]

_FILTER_OPERATORS = ("$is", "$is_not", "$in", "$not_in")


def validate(
    sim: Simulator,
    *,
    request: dict[str, Any],
    audience_rules_only: bool = False,
    filters: dict[str, Any] | None = None,
) -> dict[str, Any]:
    if plainly_valid(request):
        options = request.get("options")
        expand_list = options.get("expand") if options else None
    else:
        parsed = parse(models.ValidationRequest, request)  # raises the model's 400
        expand_list = parsed.options.expand if parsed.options else None
    view = pricing_view(sim)
    keep = tier_filter(filters, view.tier_meta) if filters else None
    customer, source = customer_context(sim, view, request.get("customer"))
    try:
        order = normalize_order(view.catalogue, request.get("order"), customer.id if customer else None)
    except PricingInputError as exc:
        raise invalid_payload(exc) from None
    now = sim.now
    track = tracking_id(sim.state.project.id, source)
    # Only tiers whose campaign runs now: the engine would refuse the others,
    # and with audienceRulesOnly (which skips the campaign checks along with
    # the non-customer rules) the endpoint still never lists a campaign that
    # is not running now (inactive, not started, expired, off-schedule).
    tiers = view.running.at(now)
    if keep is not None:
        tiers = tuple(tier for tier in tiers if tier.id in keep)
    try:
        promotions = tier_entries(
            view.catalogue, tiers, order, customer, now, request.get("metadata") or _NO_METADATA,
            audience_rules_only, bool(expand_list and "category" in expand_list), track,
        )  # fmt: skip
    except PricingInputError as exc:  # a UNIT tier's free units past 2^63-1
        raise invalid_payload(exc) from None
    return {"valid": bool(promotions), "tracking_id": track, "promotions": promotions}


#: The redemption metadata of a request without any (read-only: rules only look).
_NO_METADATA: dict[str, Any] = {}


def tier_filter(filters: dict[str, Any], tier_meta: dict[str, tuple[str, dict[str, Any]]]) -> set[str]:
    """Tier ids kept by `filters`, the real service's filter object:
    `{"promotion_id": {"conditions": {"$is": "camp_1"}}, "metadata.region": {...}}`.
    Fields: promotion_id / campaign_id (the campaign), id / tier_id (the tier),
    metadata.<key> (tier metadata). Operators: $is, $is_not, $in, $not_in."""
    checks = []
    for field, spec in filters.items():
        conditions = spec.get("conditions", spec) if isinstance(spec, dict) else None
        if not isinstance(conditions, dict) or not conditions:
            raise InvalidQueryParams(f"Filter {field!r} needs conditions, e.g. filters[{field}][conditions][$is]=...")
        for op, value in conditions.items():
            if op not in _FILTER_OPERATORS:
                raise InvalidQueryParams(f"Filter operator {op!r} is not supported; use one of {', '.join(_FILTER_OPERATORS)}")
            values = [str(v) for v in (value if isinstance(value, list) else [value])]
            if field in ("promotion_id", "campaign_id"):
                getter = _campaign_of
            elif field in ("id", "tier_id"):
                getter = _tier_id
            elif field.startswith("metadata."):
                getter = _metadata_getter(field[len("metadata."):])
            else:
                raise InvalidQueryParams(f"Unknown filter field {field!r}; use promotion_id, id or metadata.<key>")
            checks.append((getter, op, values))
    kept = set()
    for tier_id, meta in tier_meta.items():
        if all(_holds(getter(tier_id, meta), op, values) for getter, op, values in checks):
            kept.add(tier_id)
    return kept


def _campaign_of(tier_id: str, meta: tuple[str, dict[str, Any]]) -> str:
    return meta[0]


def _tier_id(tier_id: str, meta: tuple[str, dict[str, Any]]) -> str:
    return tier_id


def _metadata_getter(key: str) -> Any:
    def get(tier_id: str, meta: tuple[str, dict[str, Any]]) -> str | None:
        value = meta[1].get(key)
        if value is None:
            return None
        return str(value).lower() if isinstance(value, bool) else str(value)

    return get


def _holds(actual: str | None, op: str, values: list[str]) -> bool:
    lowered = [v.lower() if v.lower() in ("true", "false") else v for v in values]
    if op in ("$is", "$in"):
        return actual in lowered
    return actual not in lowered


# -- the cheap request check (the shared checks are in `request_parsing`) ---------------------
# An object is checked key by key against a table of its known fields (an
# unknown key fails), so only the fields present cost anything: a usual body
# has a customer with one id and items with an id and a quantity.
def _quantity(value: Any) -> bool:
    """An int from 1 to 2**63-1, or its ASCII digit string (the model's Quantity)."""
    if type(value) is str and value.isascii() and value.isdigit():
        value = int(value)
    return type(value) is int and 1 <= value <= models.INT64_MAX


def _related(value: Any) -> bool:
    return value is None or (type(value) is str and value in ("product", "sku"))


#: `product` / `sku` objects are left to the model (rare in requests).
_ITEM_FIELDS: dict[str, Callable[[Any], bool]] = {
    "product_id": code, "sku_id": code, "source_id": code, "related_object": _related,
    "quantity": _quantity, "price": money, "amount": money, "metadata": json_object,
}  # fmt: skip


def _item_ok(item: Any) -> bool:
    if not fields_ok(item, _ITEM_FIELDS) or "quantity" not in item:
        return False
    # the model's rule: product_id or sku_id, or source_id with related_object
    return (
        item.get("product_id") is not None
        or item.get("sku_id") is not None
        or (item.get("source_id") is not None and item.get("related_object") is not None)
    )


def _items_ok(items: Any) -> bool:
    if items is None:
        return True
    if type(items) is not list:
        return False
    return _usual_items(items) or all(_item_ok(item) for item in items)


def _usual_items(items: list[Any]) -> bool:
    """Every item is exactly `{"product_id": <ASCII id>, "quantity": <1..2**63-1>}`,
    what a shop's cart usually sends: checked in one loop, without the
    per-field calls of `_item_ok` (which accepts all of these too)."""
    for item in items:
        if type(item) is not dict or len(item) != 2:
            return False
        product_id = item.get("product_id")
        quantity = item.get("quantity")
        if (
            type(product_id) is not str
            or type(quantity) is not int
            or not product_id
            or not 1 <= quantity <= models.INT64_MAX
            or not product_id.isascii()
        ):
            return False
    return True


_ORDER_FIELDS: dict[str, Callable[[Any], bool]] = {
    "id": text, "source_id": text, "amount": money, "items": _items_ok, "metadata": json_object,
}  # fmt: skip


def _order_ok(order: Any) -> bool:
    return order is None or fields_ok(order, _ORDER_FIELDS)


def _customer_ok(customer: Any) -> bool:
    return customer is None or fields_ok(customer, CUSTOMER_CHECKS)


def _expand_ok(expand: Any) -> bool:
    return expand is None or (type(expand) is list and all(type(e) is str for e in expand))


def _options_ok(options: Any) -> bool:
    return options is None or fields_ok(options, {"expand": _expand_ok})


_REQUEST_FIELDS: dict[str, Callable[[Any], bool]] = {
    "customer": _customer_ok, "order": _order_ok, "metadata": json_object, "options": _options_ok,
}  # fmt: skip


def plainly_valid(request: Any) -> bool:
    """True only if `models.ValidationRequest` certainly accepts `request`
    (tests/sim/test_validation_endpoint.py checks this against the model)."""
    return fields_ok(request, _REQUEST_FIELDS)


VALIDATE = bind(endpoints.VALIDATE, validate, write=False)
