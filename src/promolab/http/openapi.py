"""The served OpenAPI 3.1 document, generated from the route table and the
wire models so it cannot drift from what the simulator does.

Control routes (`/_sim/...`) are left out: they are this tool's, not the
service's, and contract fuzzers must not reset the simulator under test.
The one webhook event is described under `webhooks` (OpenAPI 3.1): what
promolab POSTs to a subscribed receiver, version 2024-01-01.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from .. import models
from ..models.endpoints import Endpoint, Param
from ..sim import MAX_ATTEMPTS, SIGNATURE_HEADER
from ..version import __version__
from .auth import AuthKind

__all__ = ["build_openapi"]

_SECURITY: dict[AuthKind, list[dict[str, list[str]]]] = {
    AuthKind.APP: [{"X-App-Id": [], "X-App-Token": []}],
    AuthKind.LOYALTY: [{"bearerAuth": [], "X-App-Id": [], "X-App-Token": []}],
    AuthKind.MANAGEMENT: [{"X-Management-Id": [], "X-Management-Token": []}],
    AuthKind.NONE: [],
}

_ERROR_DESCRIPTIONS = {
    400: "Bad request (invalid_payload, invalid_query_params, resource_in_use, ...)",
    401: "Unauthorized",
    404: "Not found",
    405: "Method not allowed",
    413: "Payload too large",
    415: "Unsupported media type",
    423: "Locked (loyalty refusals)",
    429: "Too many requests",
}


def _present(*names: str) -> dict[str, Any]:
    """JSON Schema for "these properties are there and not null"."""
    return {"required": list(names), "properties": {n: {"not": {"type": "null"}} for n in names}}


#: Cross-field rules of the request models that live in pydantic validators
#: (`require_one_of`, ...) and so are missing from the generated JSON Schema.
#: Without them the document accepts bodies the simulator refuses as
#: `invalid_payload` (found by tests/reliability/test_contract_fuzz.py).
_CROSS_FIELD_RULES: dict[str, dict[str, Any]] = {
    # models.customers.IdentifiedCustomerInput: id or source_id
    "PublishCustomer": {"anyOf": [_present("id"), _present("source_id")]},
    "EventCustomer": {"anyOf": [_present("id"), _present("source_id")]},
    # models.publications: a campaign by name or id; voucher or campaign
    "PublishCampaign": {"anyOf": [_present("name"), _present("id")]},
    "PublishRequest": {"anyOf": [_present("voucher"), _present("campaign")]},
    # models.orders.OrderItemInput: product_id, sku_id, or source_id + related_object
    "OrderItemInput": {"anyOf": [_present("product_id"), _present("sku_id"), _present("source_id", "related_object")]},
}


#: Rules of the response models that their generated schema cannot say.
#: A purchase's `transaction` is there exactly when it was created
#: (models.rewards.RewardPurchaseResult: left out for NO_SPENT_ON_REWARD).
_RESPONSE_RULES: dict[str, dict[str, Any]] = {
    "RewardPurchaseResult": {
        "if": {"properties": {"status": {"const": "TRANSACTION_CREATED"}}},
        "then": {"required": ["transaction"]},
        "else": {"not": {"required": ["transaction"]}},
    },
    # models.orders: a line's product or SKU is named by its id, or by the
    # source_id alone when the catalogue does not know it
    "OrderItemProduct": {"anyOf": [_present("id"), _present("source_id")]},
    "OrderItemSku": {"anyOf": [_present("id"), _present("source_id")]},
}


#: pydantic writes a `Field(ge=..., le=...)` that follows a BeforeValidator in
#: an `Annotated` type (models.discounts.Percent) under its own names;
#: JSON Schema validators ignore `ge`/`le`, so the document would allow
#: amounts the simulator refuses. Renamed to the JSON Schema keywords.
_BOUND_KEYWORDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}


def _standard_bounds(node: Any) -> Any:
    if isinstance(node, list):
        return [_standard_bounds(item) for item in node]
    if not isinstance(node, dict):
        return node
    variants = node.get("anyOf")
    numeric = node.get("type") in ("integer", "number") or (
        isinstance(variants, list) and bool(variants)
        and all(isinstance(v, dict) and v.get("type") in ("integer", "number") for v in variants)
    )
    return {
        (_BOUND_KEYWORDS[key] if numeric and key in _BOUND_KEYWORDS else key): _standard_bounds(value)
        for key, value in node.items()
    }


#: Properties whose parser accepts more than their generated schema says.
_PROPERTY_OVERRIDES: dict[tuple[str, str], dict[str, Any]] = {
    # models.orders.Quantity: an integer >= 1 or its decimal string ("1"), as
    # the real service's own examples send it.
    ("OrderItemInput", "quantity"): {
        "anyOf": [
            {"type": "integer", "minimum": 1, "maximum": 2**63 - 1},
            {"type": "string", "pattern": "^0*[1-9][0-9]{0,17}$"},
        ],
        "title": "Quantity",
    },
}


def build_openapi(endpoints: Sequence[Endpoint[Any]]) -> dict[str, Any]:
    public = [e for e in endpoints if not e.control]
    pairs: list[tuple[type[BaseModel], Any]] = [
        (models.ErrorBody, "serialization"),
        (models.WebhookEnvelope, "serialization"),
        (models.GiftBalanceAddedData, "serialization"),
    ]
    for r in public:
        if r.request is not None:
            pairs.append((r.request, "validation"))
        if isinstance(r.response, type) and issubclass(r.response, BaseModel):
            pairs.append((r.response, "serialization"))
    keyed, defs = models_json_schema(pairs, ref_template="#/components/schemas/{model}")
    schemas = _standard_bounds(defs.get("$defs", {}))
    for name, rule in (_CROSS_FIELD_RULES | _RESPONSE_RULES).items():
        if name in schemas:
            schemas[name] = {**schemas[name], **rule}
    for (name, prop), override in _PROPERTY_OVERRIDES.items():
        if prop in schemas.get(name, {}).get("properties", {}):
            schemas[name]["properties"][prop] = override
    paths: dict[str, dict[str, Any]] = {}
    for r in public:
        op: dict[str, Any] = {
            "operationId": r.operation_id,
            "summary": r.summary,
            "tags": list(r.tags),
            "security": _SECURITY[AuthKind(r.auth)],
            "parameters": _parameters(r),
            "responses": {},
        }
        if r.request is not None:
            body_schema = keyed[(r.request, "validation")]
            if r.optional_body:
                body_schema = {"anyOf": [body_schema, {"type": "null"}]}
            op["requestBody"] = {
                "required": not r.optional_body,
                "content": {"application/json": {"schema": body_schema}},
            }
        if r.status == 204 or r.response is None:
            op["responses"][str(r.status)] = {"description": "No content"}
        elif r.media_type != "application/json":  # a text answer (an export's CSV)
            op["responses"][str(r.status)] = {
                "description": "Success", "content": {r.media_type: {"schema": {"type": "string"}}},
            }
        else:
            op["responses"][str(r.status)] = {
                "description": "Success",
                "content": {"application/json": {"schema": keyed[(r.response, "serialization")]}},
            }
        error_ref = keyed[(models.ErrorBody, "serialization")]
        statuses = set(r.error_statuses) | {401, 405, 429}
        if r.request is not None:
            statuses |= {400, 413, 415}
        for status in sorted(statuses):
            op["responses"][str(status)] = {
                "description": _ERROR_DESCRIPTIONS.get(status, "Error"),
                "content": {"application/json": {"schema": error_ref}},
            }
        paths.setdefault(r.path, {})[r.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "promolab simulator of the loyalty, voucher and promotion service",
            "version": __version__,
            "description": "Generated from promolab's route table and wire models.",
        },
        "paths": paths,
        "webhooks": _webhooks(
            keyed[(models.WebhookEnvelope, "serialization")],
            keyed[(models.GiftBalanceAddedData, "serialization")],
        ),
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer"},
                "X-App-Id": {"type": "apiKey", "in": "header", "name": "X-App-Id"},
                "X-App-Token": {"type": "apiKey", "in": "header", "name": "X-App-Token"},
                "X-Management-Id": {"type": "apiKey", "in": "header", "name": "X-Management-Id"},
                "X-Management-Token": {"type": "apiKey", "in": "header", "name": "X-Management-Token"},
            },
        },
    }


def _webhooks(envelope: dict[str, Any], gift_data: dict[str, Any]) -> dict[str, Any]:
    """The `webhooks` section: the one event, as promolab delivers it
    (sim/webhooks; docs/publications-events-webhooks.md, "Webhooks").

    Keyed by the subscription name, like the service's own webhook document;
    the body is the envelope of the wire models with the event's own `type`
    and `data`, and the headers are those of every attempt, the version
    header first."""
    event_type = models.GIFT_BALANCE_ADDED_EVENT_TYPE
    body = {
        "allOf": [
            envelope,
            {
                "properties": {
                    "type": {"const": event_type},
                    "data": gift_data,
                    "event": {"properties": {"type": {"const": event_type}}},
                },
            },
        ],
    }
    headers = [
        {
            "name": models.WEBHOOK_VERSION_HEADER, "in": "header", "required": True,
            "description": "The webhook version the envelope follows (promolab's header).",
            "schema": {"type": "string", "const": models.WEBHOOK_VERSION},
        },
        {
            "name": SIGNATURE_HEADER, "in": "header", "required": True,
            "description": "Lower-case hex HMAC-SHA256 of the raw body, keyed with the configuration's secret.",
            "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        },
        {
            "name": "user-agent", "in": "header", "required": True,
            "schema": {"type": "string", "const": "promolab-webhooks/1"},
        },
    ]
    return {
        models.GIFT_BALANCE_ADDED: {
            "post": {
                "operationId": "giftBalanceAddedWebhook",
                "summary": "Credit was added to a customer's gift card",
                "description": (
                    f"Webhook version {models.WEBHOOK_VERSION}. Sent to every ACTIVE webhook configuration "
                    f"subscribed to {models.GIFT_BALANCE_ADDED}; the event is named `{event_type}` in the body "
                    f"and the version travels in the `{models.WEBHOOK_VERSION_HEADER}` header. Any answer "
                    "other than 2xx, a timeout or an error is retried on the simulated clock, "
                    f"{MAX_ATTEMPTS} attempts at most."
                ),
                "tags": ["webhooks"],
                "x-webhook-version": models.WEBHOOK_VERSION,
                "parameters": headers,
                "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
                "responses": {
                    "2XX": {"description": "Delivered."},
                    "default": {"description": "Not delivered: the attempt is retried."},
                },
            },
        },
    }


def _parameters(endpoint: Endpoint[Any]) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = []
    for param in endpoint.path_params:
        schema: dict[str, Any] = {"type": "string"}
        if param.pattern is not None:
            schema["pattern"] = param.pattern
        params.append({"name": param.name, "in": "path", "required": True, "schema": schema})
    for param in endpoint.query:
        name, description = param.name, param.description
        if param.type == "object":
            params.append({
                "name": name, "in": "query", "required": False, "description": description,
                "style": "deepObject", "explode": True, "schema": {"type": "object"},
            })
        elif param.type == "array":
            params.append({
                "name": name, "in": "query", "required": False, "description": description,
                "style": "form", "explode": True, "schema": {"type": "array", "items": {"type": "string"}},
            })
        elif param.type == "boolean":
            # http/query.py's query_bool: true/false, or 1/0.
            params.append({
                "name": name, "in": "query", "required": False, "description": description,
                "schema": {"anyOf": [{"type": "boolean"}, {"type": "integer", "enum": [0, 1]}]},
            })
        else:
            params.append({"name": name, "in": "query", "required": False, "description": description,
                           "schema": _scalar_schema(param)})
    return params


def _scalar_schema(param: Param) -> dict[str, Any]:
    """A string or integer parameter's schema: its bounds, values, format and
    default exactly as the endpoint declares them (what sim/listing.py checks)."""
    schema: dict[str, Any] = {"type": param.type}
    declared = {"minimum": param.minimum, "maximum": param.maximum, "format": param.format, "default": param.default}
    schema.update({key: value for key, value in declared.items() if value is not None})
    if param.enum is not None:
        schema["enum"] = list(param.enum)
    return schema
