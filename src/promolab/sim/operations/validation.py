"""Promotion validation (endpoint 6): which tiers apply to this customer and
order, and what each does to the order, to the cent.

A read: it never changes state and is not journaled... except that a replay
line may still ask for it (replay records its outcome in the timeline).
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

from typing import TYPE_CHECKING, Any

from ... import models
from ..errors import InvalidPayload, InvalidQueryParams
from ..inputs import parse
from ..pricing.engine import price_normalized
from ..pricing.errors import PricingInputError
from ..pricing.items import normalize_order
from ..pricing.types import PricingContext
from ..promotions import customer_context, pricing_view, tracking_id
from . import operation

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["plainly_valid", "tier_filter", "validate"]

_FILTER_OPERATORS = ("$is", "$is_not", "$in", "$not_in")


@operation("validate", write=False)
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
        raise InvalidPayload(f"Property .{exc.field}: {exc.message}") from None
    expand = frozenset(expand_list) if expand_list else frozenset()
    ctx = PricingContext(
        now=sim.now,
        redemption_metadata=request.get("metadata") or {},
        audience_only=audience_rules_only,
        expand=expand,
    )
    track = tracking_id(sim.state.project.id, source)
    promotions = []
    for tier in view.tiers:
        if keep is not None and tier.id not in keep:
            continue
        if audience_rules_only and tier.campaign.evaluate(ctx.now) is not None:
            # The engine's audience_only skips campaign checks along with the
            # non-customer rules; the endpoint still never lists a campaign that
            # is not running now (inactive, not started, expired, off-schedule):
            # audienceRulesOnly narrows the tier's validation rules, nothing else.
            continue
        outcome = price_normalized(view.catalogue, tier, order, customer, ctx)
        if not outcome.valid:
            continue
        spec = tier.spec
        # One dict literal (pre-sized) and then the absent fields removed: the
        # body is built for every valid tier, and this keeps the key order.
        body: dict[str, Any] = {
            "valid": True,
            "applicable_to": outcome.applicable_to,
            "inapplicable_to": outcome.inapplicable_to,
            "tracking_id": track,
            "order": outcome.order,
            "id": spec.id,
            "name": spec.name,
            "banner": spec.banner,
            "discount": outcome.discount,
            "campaign": outcome.campaign,
            "hierarchy": spec.hierarchy,
            "discount_amount": outcome.discount_amount,
            "applied_discount_amount": outcome.applied_discount_amount,
            "metadata": dict(spec.metadata),
            "object": "promotion_tier",
        }
        if spec.banner is None:
            del body["banner"]
        if outcome.discount_amount is None:  # a free-shipping unit without a price
            del body["discount_amount"], body["applied_discount_amount"]
        promotions.append(body)
    return {"valid": bool(promotions), "tracking_id": track, "promotions": promotions}


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


# -- the cheap request check -----------------------------------------------------------------
# Each helper answers "would the model accept this value?" with True only when
# it certainly would (exact JSON types, known keys); False means "ask the model".
_INT64_MAX = 2**63 - 1
_REQUEST_KEYS = frozenset({"customer", "order", "metadata", "options"})
_CUSTOMER_TEXT = frozenset({"name", "email", "phone", "birthday", "birthdate", "description"})
_CUSTOMER_KEYS = _CUSTOMER_TEXT | {"id", "source_id", "metadata", "address"}
_ORDER_KEYS = frozenset({"id", "source_id", "amount", "items", "metadata"})
#: `product` / `sku` objects are left to the model (rare in requests).
_ITEM_KEYS = frozenset({"product_id", "sku_id", "source_id", "related_object", "quantity", "price", "amount", "metadata"})


def _text(value: Any) -> bool:
    return value is None or type(value) is str


def _id(value: Any) -> bool:
    return value is None or (type(value) is str and value != "")


def _money(value: Any) -> bool:
    return value is None or (type(value) is int and 0 <= value <= _INT64_MAX)


def _object(value: Any) -> bool:
    return value is None or (type(value) is dict and all(type(k) is str for k in value))


def _quantity(value: Any) -> bool:
    """An int from 1 to 2**63-1, or its ASCII digit string (the model's Quantity)."""
    if type(value) is str and value.isascii() and value.isdigit():
        value = int(value)
    return type(value) is int and 1 <= value <= _INT64_MAX


def _item_ok(item: Any) -> bool:
    if type(item) is not dict or not _ITEM_KEYS.issuperset(item):
        return False
    if not _quantity(item.get("quantity")):
        return False
    if not (_id(item.get("product_id")) and _id(item.get("sku_id")) and _id(item.get("source_id"))):
        return False
    related = item.get("related_object")
    if related is not None and (type(related) is not str or related not in ("product", "sku")):
        return False
    if not (_money(item.get("price")) and _money(item.get("amount")) and _object(item.get("metadata"))):
        return False
    # the model's rule: product_id or sku_id, or source_id with related_object
    return (
        item.get("product_id") is not None
        or item.get("sku_id") is not None
        or (item.get("source_id") is not None and related is not None)
    )


def _order_ok(order: Any) -> bool:
    if order is None:
        return True
    if type(order) is not dict or not _ORDER_KEYS.issuperset(order):
        return False
    if not (_text(order.get("id")) and _text(order.get("source_id")) and _money(order.get("amount"))):
        return False
    if not _object(order.get("metadata")):
        return False
    items = order.get("items")
    return items is None or (type(items) is list and all(_item_ok(item) for item in items))


def _customer_ok(customer: Any) -> bool:
    if customer is None:
        return True
    if type(customer) is not dict or not _CUSTOMER_KEYS.issuperset(customer):
        return False
    return (
        _id(customer.get("id"))
        and _id(customer.get("source_id"))
        and all(_text(customer.get(k)) for k in _CUSTOMER_TEXT)
        and _object(customer.get("metadata"))
        and _object(customer.get("address"))
    )


def _options_ok(options: Any) -> bool:
    if options is None:
        return True
    if type(options) is not dict or not {"expand"}.issuperset(options):
        return False
    expand = options.get("expand")
    return expand is None or (type(expand) is list and all(type(e) is str for e in expand))


def plainly_valid(request: Any) -> bool:
    """True only if `models.ValidationRequest` certainly accepts `request`
    (tests/sim/test_validation_endpoint.py checks this against the model)."""
    return (
        type(request) is dict
        and _REQUEST_KEYS.issuperset(request)
        and _customer_ok(request.get("customer"))
        and _order_ok(request.get("order"))
        and _object(request.get("metadata"))
        and _options_ok(request.get("options"))
    )
