"""The served OpenAPI 3.1 document, generated from the route table and the
wire models so it cannot drift from what the simulator does.

Control routes (`/_sim/...`) are left out: they are this tool's, not the
service's, and contract fuzzers must not reset the simulator under test.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from .. import __version__, models
from .auth import AuthKind
from .routes import Route

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


def build_openapi(routes: list[Route]) -> dict[str, Any]:
    public = [r for r in routes if not r.control]
    pairs: list[tuple[type[BaseModel], Any]] = [(models.ErrorBody, "serialization")]
    for r in public:
        if r.request_model is not None:
            pairs.append((r.request_model, "validation"))
        if isinstance(r.response_model, type) and issubclass(r.response_model, BaseModel):
            pairs.append((r.response_model, "serialization"))
    keyed, defs = models_json_schema(pairs, ref_template="#/components/schemas/{model}")
    schemas = defs.get("$defs", {})
    paths: dict[str, dict[str, Any]] = {}
    for r in public:
        op: dict[str, Any] = {
            "operationId": r.operation_id,
            "summary": r.summary,
            "tags": list(r.tags),
            "security": _SECURITY[r.auth],
            "parameters": _parameters(r),
            "responses": {},
        }
        if r.request_model is not None:
            op["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": keyed[(r.request_model, "validation")]}},
            }
        if r.status == 204 or r.response_model is None:
            op["responses"][str(r.status)] = {"description": "No content"}
        else:
            op["responses"][str(r.status)] = {
                "description": "Success",
                "content": {"application/json": {"schema": keyed[(r.response_model, "serialization")]}},
            }
        error_ref = keyed[(models.ErrorBody, "serialization")]
        statuses = set(r.error_statuses) | {401, 405, 429}
        if r.request_model is not None:
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


def _parameters(route: Route) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = []
    for name in re.findall(r"\{(\w+)\}", route.path):
        schema: dict[str, Any] = {"type": "string"}
        if name in route.path_patterns:
            schema["pattern"] = route.path_patterns[name]
        params.append({"name": name, "in": "path", "required": True, "schema": schema})
    for name, kind, description in route.query:
        if kind == "object":
            params.append({
                "name": name, "in": "query", "required": False, "description": description,
                "style": "deepObject", "explode": True, "schema": {"type": "object"},
            })
        else:
            params.append({"name": name, "in": "query", "required": False, "description": description, "schema": {"type": kind}})
    return params
