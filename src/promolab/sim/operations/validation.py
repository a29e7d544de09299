"""Promotion validation (endpoint 6): which tiers apply to this customer and
order, and what each does to the order, to the cent.

A read: it never changes state and is not journaled... except that a replay
line may still ask for it (replay records its outcome in the timeline).
Every field of the body is optional, so the body itself is too: over HTTP a
request without one (or with `null`) is validated as `{}`, and
`/openapi.json` says so (`requestBody.required: false`, docs/http.md).
The operation returns the response rendered to its wire JSON, typed by its
model (`Rendered[models.ValidationResponse]`, models/rendered.py): the HTTP
face serialises the JSON once, `.model()` reads it as the typed client does.

The request body is checked by `models.ValidationRequest` alone (its 400
names the field). The engine then reads the body's own `customer` and
`order`: it takes JSON-shaped input (`normalize_order` resolves each line
against the catalogue), and the model has just said those parts are valid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import models
from ...engine import PricingContext, PricingInputError, normalize_order, promotion_entries
from ...models import Rendered, endpoints
from ..operation import bind
from ..promotions import customer_context, invalid_payload, pricing_view, tracking_id
from ..refusals import InvalidQueryParams
from ..request_parsing import parse
from ..usage import usage_of

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["tier_filter", "validate"]

_FILTER_OPERATORS = ("$is", "$is_not", "$in", "$not_in")


def validate(
    sim: Simulator,
    *,
    request: dict[str, Any],
    audience_rules_only: bool = False,
    filters: dict[str, Any] | None = None,
) -> Rendered[models.ValidationResponse]:
    options = parse(models.ValidationRequest, request).options  # raises the model's 400
    expand_list = options.expand if options is not None else None
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
    ctx = PricingContext(
        now, request.get("metadata") or _NO_METADATA, audience_rules_only,
        _EXPAND_CATEGORY if expand_list and "category" in expand_list else _NO_EXPAND, usage_of(sim),
    )  # fmt: skip
    try:
        promotions = promotion_entries(view.catalogue, tiers, order, customer, ctx, track)
    except PricingInputError as exc:  # a UNIT tier's free units past 2^63-1
        raise invalid_payload(exc) from None
    return Rendered(models.ValidationResponse, {"valid": bool(promotions), "tracking_id": track, "promotions": promotions})


#: The redemption metadata of a request without any (read-only: rules only look).
_NO_METADATA: dict[str, Any] = {}
#: What a request may expand that the engine reads (the campaign's categories).
_EXPAND_CATEGORY = frozenset({"category"})
_NO_EXPAND: frozenset[str] = frozenset()


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


VALIDATE = bind(endpoints.VALIDATE, validate, write=False)
