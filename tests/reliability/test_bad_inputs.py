"""The bad-input catalogue: malformed requests across every endpoint.

Each case is one request that must be refused. It asserts
- the documented status AND key (docs/interface.md's table; 413/415 from the HTTP face),
- the error body shape: exactly the interface's ErrorBody fields, `code` equal
  to the status, a `request_id`, no traceback,
- and that the state dump is byte-identical before and after (`sim.dump_json()`
  in-process; `GET /_sim/state` bytes against the served simulator).

Families (built by functions below, so the count grows with the endpoints):
invalid JSON, non-standard JSON (NaN, 5000-digit numbers, 1e400, nesting,
lone surrogates, repeated keys), bodies not in UTF-8 (UTF-16/32, a byte
order mark, a charset other than UTF-8), wrong content type, huge bodies,
wrong types, missing fields, forbidden extra fields, oversized strings,
out-of-range integers and amounts the simulator would compute past 2^63-1
(points earned, price x quantity, an order's sum), unknown enum values,
unicode edge cases (NUL, RTL marks, emoji, lone surrogates), path ids
breaking their pattern, unknown query values, filters nested past the bound
and query strings past their size, unknown routes, wrong methods, bad
credentials and repeated credential headers.

All cases run in-process (fast); the ones marked `served` also run against a
`promolab serve` subprocess. Both print a summary line and write the figures
to test-output/reliability-results.json for the report.
"""

from __future__ import annotations

import codecs
import copy
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from promolab import Simulator, models
from promolab.http.app import MAX_JSON_DEPTH, App
from promolab.http.messages import HttpRequest, fold_headers
from promolab.http.query import MAX_QUERY_BYTES
from relsupport import (
    APP_HEADERS,
    DEMO,
    LOYALTY_HEADERS,
    MANAGEMENT_HEADERS,
    Server,
    demo_document,
    record_result,
    summary_line,
)

REQUEST_ID = re.compile(r"^v-[0-9a-f]{20}$")
ERROR_FIELDS = set(models.ErrorBody.model_fields)
MAX_BODY = 1024 * 1024  # Settings.max_body_bytes default; checked below

PURCHASE = "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_alice/rewards/purchases"
PUBLISH = "/client/v1/publish"
VALIDATE = "/v1/promotions/validation"
EVENTS = "/v1/events"
BALANCE = "/v1/vouchers/GIFT-ALICE-50/balance"
ADVANCE = "/_sim/clock/advance"
INCENTIVE = "/v2/loyalties/incentives/"
REWARD = "/v2/loyalties/rewards/"
WEBHOOK = "/management/v1/projects/proj_kestrel/webhooks/"

AUTH = {"app": APP_HEADERS, "loyalty": LOYALTY_HEADERS, "management": MANAGEMENT_HEADERS, "none": {}}

#: The POST endpoints with a JSON body: path, auth, and a body that would succeed.
BODY_ENDPOINTS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "purchase": (PURCHASE, "loyalty", {"reward_id": "lrew_mug"}),
    "publish": (PUBLISH, "app", {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}}),
    "validate": (VALIDATE, "app", {"customer": {"source_id": "alice"},
                                   "order": {"items": [{"product_id": "prod_mug", "quantity": 1}]}}),
    "events": (EVENTS, "app", {"event": "review_written", "customer": {"source_id": "alice"}, "metadata": {"rating": 5}}),
    "balance": (BALANCE, "app", {"amount": 1000}),
    "advance": (ADVANCE, "management", {"seconds": 3600}),
}

INT64_MAX = 2**63 - 1
LONG = "x" * 10_000
NUL = "\u0000"
RTL = "\u202e\u200f"
EMOJI = "\U0001f600\U0001f9d1\u200d\U0001f4bb"


@dataclass
class Bad:
    id: str
    method: str
    path: str
    status: int
    key: str
    body: Any = None  # bytes are sent as-is; anything else (not None) as JSON
    auth: str = "app"
    content_type: str | None = "application/json"
    query: str = ""
    served: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    #: Sent after `all_headers()`, as they are: a name here may repeat one there.
    header_pairs: list[tuple[str, str]] = field(default_factory=list)
    #: The error's `details` must start with this (the property it names).
    details: str | None = None

    def raw_body(self) -> bytes:
        if self.body is None:
            return b""
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body).encode()

    def all_headers(self) -> dict[str, str]:
        headers = {**AUTH[self.auth], **self.headers}
        if self.content_type is not None and self.body is not None:
            headers["Content-Type"] = self.content_type
        return headers

    def header_list(self) -> list[tuple[str, str]]:
        """Every header as sent, repeated names included."""
        return [*self.all_headers().items(), *self.header_pairs]

    def http_request(self) -> HttpRequest:
        """The request as the served simulator's ASGI adapter builds it."""
        headers, repeated = fold_headers(self.header_list())
        path, _, _ = self.path.partition("?")
        return HttpRequest(self.method, path, self.query, headers, self.raw_body(), repeated)


def _json_family() -> list[Bad]:
    """Broken and non-standard JSON, on every body endpoint: 400 invalid_payload."""
    raw = {
        "truncated": b'{"a": ',
        "single-quotes": b"{'a': 1}",
        "trailing-comma": b'{"a": 1,}',
        "not-utf8": b"\xff\xfe\xfa",
        "garbage": b"hello",
        "nan": b'{"a": NaN}',
        "infinity": b'{"a": Infinity}',
        "minus-infinity": b'{"a": -Infinity}',
        "5001-digit-number": b'{"a": 1' + b"0" * 5000 + b"}",
        "nested-100k": b"[" * 100_000 + b"]" * 100_000,
        f"nested-{MAX_JSON_DEPTH + 1}": b'{"a":' * (MAX_JSON_DEPTH + 1) + b"1" + b"}" * (MAX_JSON_DEPTH + 1),
        "lone-surrogate-escaped": b'{"a": "\\ud800"}',
        "lone-surrogate-raw-bytes": b'{"a": "\xed\xa0\x80"}',
        "lone-surrogate-in-key": b'{"\\udfff": 1}',
    }
    cases = []
    for name, (path, auth, good) in BODY_ENDPOINTS.items():
        text = json.dumps(good)
        first = json.dumps(dict([next(iter(good.items()))]))[1:-1]  # '"reward_id": "lrew_mug"'
        per_endpoint = {
            # RFC 8259: JSON between systems is UTF-8, without a byte order mark
            "utf8-bom": codecs.BOM_UTF8 + text.encode(),
            "utf16-le-bom": codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
            "utf16-be": text.encode("utf-16-be"),
            "utf32": text.encode("utf-32"),
            # a repeated key: which copy counts is not something parsers agree on
            "duplicate-key": ("{" + first + ", " + text[1:]).encode(),
        }
        if isinstance(good.get("customer"), dict):
            per_endpoint["duplicate-key-nested"] = text.replace(
                '"customer": {', '"customer": {"source_id": "zz-spoof", ', 1).encode()
        for label, body in {**raw, **per_endpoint}.items():
            served = label in ("truncated", "nan", "nested-100k", "lone-surrogate-escaped", "5001-digit-number",
                               "utf16-le-bom", "utf8-bom", "duplicate-key")
            cases.append(Bad(f"{name}:json:{label}", "POST", path, 400, "invalid_payload", body, auth=auth, served=served))
    return cases


def _shape_family() -> list[Bad]:
    """Bodies that parse but are not objects: 400 invalid_payload."""
    cases = []
    for name, (path, auth, _good) in BODY_ENDPOINTS.items():
        for label, body in {"array": [1, 2], "string": "reward", "number": 42, "true": True}.items():
            cases.append(Bad(f"{name}:shape:{label}", "POST", path, 400, "invalid_payload", body, auth=auth,
                             served=label == "array"))
    return cases


def _content_type_family() -> list[Bad]:
    cases = []
    for name, (path, auth, good) in BODY_ENDPOINTS.items():
        for label, content_type in {
            "text-plain": "text/plain",
            "form": "application/x-www-form-urlencoded",
            "multipart": "multipart/form-data; boundary=x",
            "xml": "application/xml",
            # JSON is UTF-8 (RFC 8259): another declared charset is not read as if it were
            "charset-latin-1": "application/json; charset=latin-1",
            "charset-utf-16-quoted": 'application/json; charset="utf-16"',
            "charset-iso-8859-1-after-other": "application/json; version=1; charset=ISO-8859-1",
        }.items():
            cases.append(Bad(f"{name}:content-type:{label}", "POST", path, 415, "unsupported_media_type", good,
                             auth=auth, content_type=content_type,
                             served=label in ("text-plain", "charset-latin-1")))
        # Content-Type sent twice: no copy is picked
        cases.append(Bad(f"{name}:content-type:repeated", "POST", path, 415, "unsupported_media_type", good,
                         auth=auth, header_pairs=[("Content-Type", "application/json")], served=name == "events"))
    return cases


def _huge_family() -> list[Bad]:
    """A body past Settings.max_body_bytes: 413 request_too_large, even when it is valid JSON."""
    cases = []
    for name, (path, auth, good) in BODY_ENDPOINTS.items():
        padded = json.dumps({**good, "pad": ""}).encode()
        padded = padded[:-2] + b"x" * (MAX_BODY + 1 - len(padded)) + b'"}'
        assert len(padded) == MAX_BODY + 1
        cases.append(Bad(f"{name}:huge:limit+1", "POST", path, 413, "request_too_large", padded, auth=auth, served=True))
        cases.append(Bad(f"{name}:huge:3MiB-not-json", "POST", path, 413, "request_too_large", b"x" * (3 * MAX_BODY),
                         auth=auth, served=name == "publish"))
    return cases


def _purchase_family() -> list[Bad]:
    p = PURCHASE
    bad = [
        ("missing-reward-id", {}, 400, "invalid_payload"),
        ("reward-id-number", {"reward_id": 123}, 400, "invalid_payload"),
        ("reward-id-null", {"reward_id": None}, 400, "invalid_payload"),
        ("reward-id-empty", {"reward_id": ""}, 400, "invalid_payload"),
        ("reward-id-list", {"reward_id": ["lrew_mug"]}, 400, "invalid_payload"),
        ("reward-id-object", {"reward_id": {"id": "lrew_mug"}}, 400, "invalid_payload"),
        ("extra-field-quantity", {"reward_id": "lrew_mug", "quantity": 1}, 400, "invalid_payload"),
        ("extra-field-points", {"reward_id": "lrew_mug", "points": 0}, 400, "invalid_payload"),
        ("reward-id-10k", {"reward_id": LONG}, 404, "not_found"),
        ("reward-id-nul", {"reward_id": "lrew_mug" + NUL}, 404, "not_found"),
        ("reward-id-rtl", {"reward_id": RTL + "lrew_mug"}, 404, "not_found"),
        ("reward-id-emoji", {"reward_id": EMOJI}, 404, "not_found"),
        ("unknown-reward", {"reward_id": "lrew_nope"}, 404, "not_found"),
    ]
    cases = [Bad(f"purchase:{label}", "POST", p, status, key, body, auth="loyalty",
                 served=label in ("extra-field-quantity", "reward-id-10k", "reward-id-nul"))
             for label, body, status, key in bad]
    good = {"reward_id": "lrew_mug"}
    for label, program, member in [
        ("unknown-program", "lprg_nope", "lmbr_alice"),
        ("unknown-member", "lprg_coffee_club", "lmbr_nope"),
        ("program-10k", "p" * 10_000, "lmbr_alice"),
        ("member-emoji", "lprg_coffee_club", "%F0%9F%98%80"),
        ("member-encoded-slash", "lprg_coffee_club", "lmbr_alice%2Fx"),
        ("member-encoded-nul", "lprg_coffee_club", "lmbr_alice%00"),
        ("member-of-other-program", "lprg_legacy", "lmbr_alice"),
    ]:
        path = f"/v2/loyalties/programs/{program}/members/{member}/rewards/purchases"
        cases.append(Bad(f"purchase:path:{label}", "POST", path, 404, "not_found", good, auth="loyalty",
                         served=label in ("unknown-member", "member-encoded-nul")))
    return cases


def _incentive_family() -> list[Bad]:
    pattern = [
        ("uppercase-hex", "linc_0A11CE01"),
        ("no-hex", "linc_"),
        ("wrong-prefix", "LINC_0a11ce01"),
        ("not-hex", "linc_xyz"),
        ("other-resource", "lrew_mug"),
        ("encoded-space", "linc_0a11ce01%20"),
        ("encoded-nul", "linc_0a11ce01%00"),
        ("emoji", "linc_%F0%9F%98%80"),
        ("rtl-mark", "%E2%80%AElinc_0a11ce01"),
        ("encoded-slash", "linc_0a11%2Fce01"),
        ("10k-not-hex", "linc_" + "z" * 10_000),
    ]
    cases = [Bad(f"incentive:pattern:{label}", "GET", INCENTIVE + ident, 400, "invalid_payload", auth="loyalty",
                 served=label in ("uppercase-hex", "encoded-nul", "emoji"))
             for label, ident in pattern]
    cases += [
        Bad("incentive:unknown", "GET", INCENTIVE + "linc_ffff", 404, "not_found", auth="loyalty", served=True),
        Bad("incentive:10k-hex", "GET", INCENTIVE + "linc_" + "a" * 10_000, 404, "not_found", auth="loyalty"),
    ]
    return cases


def _reward_and_webhook_family() -> list[Bad]:
    cases = []
    for label, ident in [("unknown", "lrew_nope"), ("10k", "r" * 10_000), ("emoji", "%F0%9F%98%80"),
                         ("nul", "lrew_mug%00"), ("rtl", "%E2%80%AElrew_mug"), ("encoded-slash", "lrew%2Fmug")]:
        cases.append(Bad(f"reward:delete:{label}", "DELETE", REWARD + ident, 404, "not_found", auth="loyalty",
                         served=label in ("unknown", "nul")))
    cases.append(Bad("reward:delete:assigned", "DELETE", REWARD + "lrew_mug", 400, "resource_in_use", auth="loyalty",
                     served=True))
    for label, path in [
        ("unknown-webhook", WEBHOOK + "wh_nope"),
        ("unknown-project", "/management/v1/projects/proj_nope/webhooks/wh_crm"),
        ("webhook-10k", WEBHOOK + "w" * 10_000),
        ("webhook-emoji", WEBHOOK + "%F0%9F%98%80"),
        ("webhook-nul", WEBHOOK + "wh_crm%00"),
    ]:
        cases.append(Bad(f"webhook:delete:{label}", "DELETE", path, 404, "not_found", auth="management",
                         served=label == "unknown-webhook"))
    return cases


def _publish_family() -> list[Bad]:
    c = {"source_id": "erin"}
    bad: list[tuple[str, Any, int, str]] = [
        ("missing-customer", {"voucher": "WELCOME-OPEN-1"}, 400, "invalid_payload"),
        ("customer-string", {"voucher": "WELCOME-OPEN-1", "customer": "erin"}, 400, "invalid_payload"),
        ("customer-empty", {"voucher": "WELCOME-OPEN-1", "customer": {}}, 400, "invalid_payload"),
        ("customer-id-null", {"voucher": "WELCOME-OPEN-1", "customer": {"id": None, "source_id": None}}, 400,
         "invalid_payload"),
        ("customer-source-id-number", {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": 7}}, 400,
         "invalid_payload"),
        ("customer-unknown-field", {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin", "Name": "E"}},
         400, "invalid_payload"),
        ("customer-address-string", {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "e", "address": "x"}},
         400, "invalid_payload"),
        ("neither-voucher-nor-campaign", {"customer": c}, 400, "missing_vouchers"),
        ("voucher-number", {"voucher": 12345, "customer": c}, 400, "invalid_payload"),
        ("voucher-empty", {"voucher": "", "customer": c}, 400, "invalid_payload"),
        ("voucher-list", {"voucher": ["WELCOME-OPEN-1"], "customer": c}, 400, "invalid_payload"),
        ("campaign-string", {"campaign": "camp_newsletter", "customer": c}, 400, "invalid_payload"),
        ("campaign-empty", {"campaign": {}, "customer": c}, 400, "invalid_payload"),
        ("campaign-unknown-field", {"campaign": {"id": "camp_newsletter", "type": "X"}, "customer": c}, 400,
         "invalid_payload"),
        ("metadata-list", {"voucher": "WELCOME-OPEN-1", "customer": c, "metadata": [1]}, 400, "invalid_payload"),
        ("metadata-string", {"voucher": "WELCOME-OPEN-1", "customer": c, "metadata": "m"}, 400, "invalid_payload"),
        ("channel-number", {"voucher": "WELCOME-OPEN-1", "customer": c, "channel": 5}, 400, "invalid_payload"),
        ("channel-empty", {"voucher": "WELCOME-OPEN-1", "customer": c, "channel": ""}, 400, "invalid_payload"),
        ("source-id-empty", {"voucher": "WELCOME-OPEN-1", "customer": c, "source_id": ""}, 400, "invalid_payload"),
        ("source-id-number", {"voucher": "WELCOME-OPEN-1", "customer": c, "source_id": 1}, 400, "invalid_payload"),
        ("extra-field", {"voucher": "WELCOME-OPEN-1", "customer": c, "vouchers": 2}, 400, "invalid_payload"),
        ("unknown-voucher", {"voucher": "NOPE-123", "customer": c}, 404, "not_found"),
        ("voucher-10k", {"voucher": LONG, "customer": c}, 404, "not_found"),
        ("voucher-nul", {"voucher": "WELCOME-OPEN-1" + NUL, "customer": c}, 404, "not_found"),
        ("voucher-emoji", {"voucher": EMOJI, "customer": c}, 404, "not_found"),
        ("voucher-rtl", {"voucher": RTL + "WELCOME-OPEN-1", "customer": c}, 404, "not_found"),
        ("unknown-campaign", {"campaign": {"id": "camp_nope"}, "customer": c}, 404, "not_found"),
        ("already-published", {"voucher": "WELCOME-ALICE", "customer": {"source_id": "bob"}}, 400,
         "voucher_already_published"),
        ("10k-customer-unknown-voucher", {"voucher": "NOPE", "customer": {"source_id": LONG, "name": LONG}}, 404,
         "not_found"),
    ]
    cases = [Bad(f"publish:{label}", "POST", PUBLISH, status, key, body,
                 served=label in ("customer-empty", "neither-voucher-nor-campaign", "voucher-10k", "extra-field"))
             for label, body, status, key in bad]
    good = {"voucher": "WELCOME-OPEN-1", "customer": c}
    for label, query in [("maybe", "join_once=maybe"), ("empty", "join_once="), ("two", "join_once=2"),
                         ("yes", "join_once=yes"), ("nul", "join_once=%00"), ("emoji", "join_once=%F0%9F%98%80")]:
        cases.append(Bad(f"publish:query:join_once-{label}", "POST", PUBLISH, 400, "invalid_query_params", good,
                         query=query, served=label in ("maybe", "empty")))
    return cases


def _validate_family() -> list[Bad]:
    item = {"product_id": "prod_mug", "quantity": 1}
    bad: list[tuple[str, Any, int, str]] = [
        ("order-string", {"order": "big"}, 400, "invalid_payload"),
        ("order-amount-negative", {"order": {"amount": -1}}, 400, "invalid_payload"),
        ("order-amount-2^63", {"order": {"amount": 2**63}}, 400, "invalid_payload"),
        ("order-amount--2^63-1", {"order": {"amount": -(2**63) - 1}}, 400, "invalid_payload"),
        ("order-amount-string", {"order": {"amount": "100"}}, 400, "invalid_payload"),
        ("order-amount-float", {"order": {"amount": 10.5}}, 400, "invalid_payload"),
        ("order-amount-integral-float", {"order": {"amount": 10.0}}, 400, "invalid_payload"),
        ("order-amount-bool", {"order": {"amount": True}}, 400, "invalid_payload"),
        ("order-amount-1e400", b'{"order": {"amount": 1e400}}', 400, "invalid_payload"),
        ("items-object", {"order": {"items": {"product_id": "prod_mug"}}}, 400, "invalid_payload"),
        ("item-quantity-zero", {"order": {"items": [{**item, "quantity": 0}]}}, 400, "invalid_payload"),
        ("item-quantity-negative", {"order": {"items": [{**item, "quantity": -1}]}}, 400, "invalid_payload"),
        ("item-quantity-2^63", {"order": {"items": [{**item, "quantity": 2**63}]}}, 400, "invalid_payload"),
        # a digit string ("1") is accepted on purpose (models.orders.Quantity), not other strings
        ("item-quantity-word", {"order": {"items": [{**item, "quantity": "one"}]}}, 400, "invalid_payload"),
        ("item-quantity-string-zero", {"order": {"items": [{**item, "quantity": "0"}]}}, 400, "invalid_payload"),
        ("item-quantity-string-signed", {"order": {"items": [{**item, "quantity": "+1"}]}}, 400, "invalid_payload"),
        ("item-quantity-fraction", {"order": {"items": [{**item, "quantity": 1.5}]}}, 400, "invalid_payload"),
        ("item-missing-quantity", {"order": {"items": [{"product_id": "prod_mug"}]}}, 400, "invalid_payload"),
        ("item-no-identifier", {"order": {"items": [{"quantity": 1, "price": 100}]}}, 400, "invalid_payload"),
        ("item-source-id-without-related", {"order": {"items": [{"source_id": "mug", "quantity": 1}]}}, 400,
         "invalid_payload"),
        ("item-related-object-unknown-enum",
         {"order": {"items": [{"source_id": "mug", "related_object": "bundle", "quantity": 1}]}}, 400,
         "invalid_payload"),
        ("item-price-negative", {"order": {"items": [{**item, "price": -100}]}}, 400, "invalid_payload"),
        ("item-price-2^63", {"order": {"items": [{**item, "price": 2**63}]}}, 400, "invalid_payload"),
        ("item-unknown-field", {"order": {"items": [{**item, "colour": "red"}]}}, 400, "invalid_payload"),
        ("item-product-override-string", {"order": {"items": [{**item, "product": {"override": "yes"}}]}}, 400,
         "invalid_payload"),
        ("item-unknown-product-no-price", {"order": {"items": [{"product_id": "prod_nope", "quantity": 1}]}}, 400,
         "invalid_payload"),
        ("customer-string", {"customer": "alice"}, 400, "invalid_payload"),
        ("customer-unknown-field", {"customer": {"source_id": "alice", "tier": "gold"}}, 400, "invalid_payload"),
        ("metadata-list", {"metadata": ["a"]}, 400, "invalid_payload"),
        ("options-expand-string", {"options": {"expand": "category"}}, 400, "invalid_payload"),
        ("options-unknown", {"options": {"limit": 5}}, 400, "invalid_payload"),
        ("extra-top-level", {"order": {"items": [item]}, "session": {"key": "LOCK"}}, 400, "invalid_payload"),
        # each value in range, but what the simulator computes from them is not (order.amount, items[].amount)
        ("line-price-x-quantity-past-2^63",
         {"order": {"items": [{"product_id": "prod_x", "quantity": 10**10, "price": 10**10}]}}, 400, "invalid_payload"),
        ("line-quantity-max-x-catalogue-price",
         {"order": {"items": [{"product_id": "prod_mug", "quantity": INT64_MAX}]}}, 400, "invalid_payload"),
        ("line-digit-string-quantity-max-x-price",
         {"order": {"items": [{"product_id": "prod_x", "quantity": str(INT64_MAX), "price": 2}]}}, 400,
         "invalid_payload"),
        ("line-past-2^63-with-order-amount-sent",
         {"order": {"amount": 1, "items": [{"product_id": "prod_x", "quantity": 4, "price": 2**62}]}}, 400,
         "invalid_payload"),
        ("items-sum-past-2^63",
         {"order": {"items": [{"product_id": "prod_x", "quantity": 1, "price": INT64_MAX},
                              {"product_id": "prod_y", "quantity": 1, "amount": 1}]}}, 400, "invalid_payload"),
    ]
    cases = [Bad(f"validate:{label}", "POST", VALIDATE, status, key, body,
                 served=label in ("order-amount-2^63", "item-quantity-zero", "item-related-object-unknown-enum",
                                  "line-price-x-quantity-past-2^63", "items-sum-past-2^63"))
             for label, body, status, key in bad]
    good = {"order": {"items": [item]}}
    for label, query in [
        ("audience-maybe", "audienceRulesOnly=maybe"),
        ("audience-empty", "audienceRulesOnly="),
        ("audience-2", "audienceRulesOnly=2"),
        ("filters-not-json", "filters=%7Bnot-json"),
        ("filters-array", "filters=%5B1%2C2%5D"),
        ("filters-unclosed-bracket", "filters%5Bpromotion_id=camp_vip"),
        ("filters-garbage-after-bracket", "filters%5Bpromotion_id%5Dx=camp_vip"),
        # any depth is a 4xx, never the decoder's RecursionError
        ("filters-json-nested-1000", "filters=" + quote('{"a":' + "[" * 1000 + "]" * 1000 + "}")),
        ("filters-json-nested-500", "filters=" + quote('{"a":' + "[" * 500 + "]" * 500 + "}")),
        (f"filters-json-nested-{MAX_JSON_DEPTH + 1}",
         "filters=" + quote('{"promotion_id":' * (MAX_JSON_DEPTH + 1) + '"x"' + "}" * (MAX_JSON_DEPTH + 1))),
        ("filters-brackets-nested-100", "filters" + "%5Ba%5D" * 100 + "=x"),
        # the same strictness as bodies
        ("filters-json-duplicate-key",
         "filters=" + quote('{"promotion_id": {"conditions": {"$is": "camp_vip", "$is": "camp_welcome"}}}')),
        ("filters-json-1e400", "filters=" + quote('{"promotion_id": {"conditions": {"$is": 1e400}}}')),
        # a query string past the bound, even one that would otherwise be a valid filter
        ("query-past-limit", "filters%5Bpromotion_id%5D%5Bconditions%5D%5B%24in%5D="
         + ",".join(["camp_vip"] * (MAX_QUERY_BYTES // 9))),
    ]:
        cases.append(Bad(f"validate:query:{label}", "POST", VALIDATE, 400, "invalid_query_params", good, query=query,
                         served=label in ("audience-maybe", "filters-not-json", "filters-json-nested-1000",
                                          "query-past-limit")))
    return cases


def _events_family() -> list[Bad]:
    c = {"source_id": "alice"}
    bad: list[tuple[str, Any, int, str]] = [
        ("missing-event", {"customer": c}, 400, "invalid_payload"),
        ("event-empty", {"event": "", "customer": c}, 400, "invalid_payload"),
        ("event-301-chars", {"event": "e" * 301, "customer": c}, 400, "invalid_payload"),
        ("event-10k-chars", {"event": LONG, "customer": c}, 400, "invalid_payload"),
        ("event-300-chars-undefined", {"event": "e" * 300, "customer": c}, 400, "invalid_payload"),
        ("event-number", {"event": 7, "customer": c}, 400, "invalid_payload"),
        ("event-null", {"event": None, "customer": c}, 400, "invalid_payload"),
        ("event-undefined", {"event": "order_cancelled", "customer": c}, 400, "invalid_payload"),
        ("event-nul", {"event": "order_placed" + NUL, "customer": c, "metadata": {"amount": 1}}, 400,
         "invalid_payload"),
        ("event-rtl", {"event": RTL + "review_written", "customer": c, "metadata": {"rating": 5}}, 400,
         "invalid_payload"),
        ("event-emoji", {"event": EMOJI, "customer": c}, 400, "invalid_payload"),
        ("event-case", {"event": "ORDER_PLACED", "customer": c, "metadata": {"amount": 1}}, 400, "invalid_payload"),
        ("missing-customer", {"event": "newsletter_signup"}, 400, "invalid_payload"),
        ("customer-empty", {"event": "newsletter_signup", "customer": {}}, 400, "invalid_payload"),
        ("customer-list", {"event": "newsletter_signup", "customer": [c]}, 400, "invalid_payload"),
        ("metadata-list", {"event": "newsletter_signup", "customer": c, "metadata": []}, 400, "invalid_payload"),
        ("referral-missing-code", {"event": "first_order_placed", "customer": c, "referral": {},
                                   "metadata": {"amount": 1}}, 400, "invalid_payload"),
        ("referral-code-number", {"event": "first_order_placed", "customer": c, "referral": {"code": 1},
                                  "metadata": {"amount": 1}}, 400, "invalid_payload"),
        ("loyalty-missing-code", {"event": "review_written", "customer": c, "loyalty": {},
                                  "metadata": {"rating": 5}}, 400, "invalid_payload"),
        ("loyalty-unknown-field", {"event": "review_written", "customer": c, "loyalty": {"id": "x"},
                                   "metadata": {"rating": 5}}, 400, "invalid_payload"),
        ("extra-field", {"event": "newsletter_signup", "customer": c, "source": "web"}, 400, "invalid_payload"),
        ("meta-required-missing", {"event": "order_placed", "customer": c, "metadata": {}}, 400,
         "metadata_validation_failed"),
        ("meta-amount-string", {"event": "order_placed", "customer": c, "metadata": {"amount": "12"}}, 400,
         "metadata_validation_failed"),
        ("meta-amount-negative", {"event": "order_placed", "customer": c, "metadata": {"amount": -1}}, 400,
         "metadata_validation_failed"),
        ("meta-amount-bool", {"event": "order_placed", "customer": c, "metadata": {"amount": True}}, 400,
         "metadata_validation_failed"),
        ("meta-channel-unknown-enum", {"event": "order_placed", "customer": c,
                                       "metadata": {"amount": 10, "channel": "fax"}}, 400,
         "metadata_validation_failed"),
        ("meta-rating-above-max", {"event": "review_written", "customer": c, "metadata": {"rating": 6}}, 400,
         "metadata_validation_failed"),
        ("meta-rating-below-min", {"event": "review_written", "customer": c, "metadata": {"rating": 0}}, 400,
         "metadata_validation_failed"),
        ("meta-product-id-number", {"event": "review_written", "customer": c,
                                    "metadata": {"rating": 4, "product_id": 5}}, 400, "metadata_validation_failed"),
    ]
    # Frank holds a beans card; 1 point per 100 of `amount` would take it past 2^63-1.
    frank = {"source_id": "frank"}
    for label, amount in [("1e21", b"1e21"), ("1e30", b"1e30"), ("10^30", str(10**30).encode()),
                          ("1e300", b"1e300"), ("int-2^63-x-100", str(2**63 * 100).encode()),
                          ("1e400", b"1e400")]:
        body = b'{"event": "order_placed", "customer": {"source_id": "frank"}, "metadata": {"amount": ' + amount + b"}}"
        bad.append((f"earning-amount-{label}", body, 400, "invalid_payload"))
    bad.append(("earning-amount-1e21-card-named", {
        "event": "order_placed", "customer": frank, "loyalty": {"code": "lcrd_frank_beans"},
        "metadata": {"amount": 1e21}}, 400, "invalid_payload"))
    return [Bad(f"events:{label}", "POST", EVENTS, status, key, body,
                served=label in ("event-301-chars", "event-undefined", "meta-channel-unknown-enum", "event-nul",
                                 "earning-amount-1e21", "earning-amount-1e30"))
            for label, body, status, key in bad]


def _balance_family() -> list[Bad]:
    bad: list[tuple[str, str, Any, int, str]] = [
        ("amount-zero", BALANCE, {"amount": 0}, 400, "invalid_add_balance_params"),
        ("amount-negative", BALANCE, {"amount": -500}, 400, "invalid_add_balance_params"),
        ("amount-min-int64", BALANCE, {"amount": -(2**63)}, 400, "invalid_add_balance_params"),
        ("amount-2^63", BALANCE, {"amount": 2**63}, 400, "invalid_payload"),
        ("amount-string", BALANCE, {"amount": "1000"}, 400, "invalid_payload"),
        ("amount-float", BALANCE, {"amount": 10.5}, 400, "invalid_payload"),
        ("amount-bool", BALANCE, {"amount": True}, 400, "invalid_payload"),
        ("amount-null", BALANCE, {"amount": None}, 400, "invalid_payload"),
        ("missing-amount", BALANCE, {"source_id": "x"}, 400, "invalid_payload"),
        ("source-id-empty", BALANCE, {"amount": 100, "source_id": ""}, 400, "invalid_payload"),
        ("reason-number", BALANCE, {"amount": 100, "reason": 5}, 400, "invalid_payload"),
        ("extra-field", BALANCE, {"amount": 100, "currency": "EUR"}, 400, "invalid_payload"),
        ("unknown-code", "/v1/vouchers/NOPE/balance", {"amount": 100}, 404, "not_found"),
        ("code-10k", f"/v1/vouchers/{'G' * 10_000}/balance", {"amount": 100}, 404, "not_found"),
        ("code-emoji", "/v1/vouchers/%F0%9F%98%80/balance", {"amount": 100}, 404, "not_found"),
        ("code-nul", "/v1/vouchers/GIFT-ALICE-50%00/balance", {"amount": 100}, 404, "not_found"),
        ("not-a-gift-voucher", "/v1/vouchers/WELCOME-OPEN-1/balance", {"amount": 100}, 400, "invalid_voucher"),
    ]
    return [Bad(f"balance:{label}", "POST", path, status, key, body,
                served=label in ("amount-zero", "amount-2^63", "code-nul", "not-a-gift-voucher"))
            for label, path, body, status, key in bad]


#: A body each route with a request model would take (the stacked routes: a code of the demo and an order).
_GOOD_BODIES: dict[str, dict[str, Any]] = {
    "purchase_reward": {"reward_id": "lrew_mug"},
    "publish": {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}},
    "validate": {"customer": {"source_id": "alice"}, "order": {"items": [{"product_id": "prod_mug", "quantity": 1}]}},
    "track_event": {"event": "review_written", "customer": {"source_id": "alice"}},
    "add_gift_balance": {"amount": 1000},
    "create_stacking_rules": {},
    "update_stacking_rules": {},
    "validate_stacked": {"redeemables": [{"object": "voucher", "id": "WELCOME-OPEN-1"}], "order": {"amount": 5000}},
    "qualifications": {"order": {"amount": 5000}},
    "redeem_stacked": {"redeemables": [{"object": "voucher", "id": "WELCOME-OPEN-1"}], "order": {"amount": 5000}},
    "rollback_redemption": {},
    "create_export": {"exported_object": "order"},
}
#: Values of each JSON type, tried in this order: the first a property does not accept is sent.
_WRONG_TYPES: list[tuple[str, Any]] = [("object", {}), ("array", [1]), ("string", "x"), ("integer", 7),
                                        ("boolean", True)]


def _json_types(schema: dict[str, Any], components: dict[str, Any]) -> set[str] | None:
    """The JSON types a property's schema accepts (None: any)."""
    if "$ref" in schema:
        return _json_types(components[schema["$ref"].rsplit("/", 1)[-1]], components)
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        found: set[str] = set()
        for alternative in alternatives:
            types = _json_types(alternative, components)
            if types is None:
                return None
            found |= types
        return found
    if "const" in schema or "enum" in schema:
        values = [schema["const"]] if "const" in schema else schema["enum"]
        return {"string" if isinstance(v, str) else "boolean" if isinstance(v, bool) else "integer"
                for v in values if v is not None} | ({"null"} if None in values else set())
    kind = schema.get("type")
    if kind is None:
        return {"object"} if "properties" in schema else None
    found = set(kind) if isinstance(kind, list) else {kind}
    return found | ({"integer"} if "number" in found else set())


def _properties(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """The properties of an object schema (through a $ref or a nullable anyOf)."""
    if "$ref" in schema:
        return _properties(components[schema["$ref"].rsplit("/", 1)[-1]], components)
    for alternative in schema.get("anyOf") or ():
        found = _properties(alternative, components)
        if found:
            return found
    return dict(schema.get("properties") or {})


def _checked_first_family() -> list[Bad]:
    """Every property of every request model, one and two levels down, sent
    with a value of a type it does not take (`order.source_id: {}` on
    `POST /v1/redemptions` was a 500: the order was looked up before the body
    was checked), on a path naming nothing that exists: 400 invalid_payload
    naming that property, never a 404 or a 500. Derived from the route table
    and the document, so a new route or field joins by itself."""
    from promolab.http.openapi import build_openapi
    from promolab.http.table import ROUTES

    document = build_openapi([r.endpoint for r in ROUTES])
    components = document["components"]["schemas"]
    cases = []
    for route in ROUTES:
        endpoint = route.endpoint
        if endpoint.request is None or endpoint.control:
            continue
        path = endpoint.url_path(**{p.arg: f"nowhere_{p.arg}" for p in endpoint.path_params})
        body_schema = document["paths"][endpoint.path][endpoint.method.lower()]["requestBody"]
        root = body_schema["content"]["application/json"]["schema"]
        good = _GOOD_BODIES[endpoint.name]
        targets: list[tuple[tuple[str, ...], dict[str, Any]]] = []
        for name, schema in _properties(root, components).items():
            targets.append(((name,), schema))
            targets.extend(((name, inner), s) for inner, s in _properties(schema, components).items())
        for where, schema in targets:
            accepted = _json_types(schema, components)
            if accepted is None:
                continue
            label, value = next(((t, v) for t, v in _WRONG_TYPES if t not in accepted), (None, None))
            if label is None:
                continue
            body = copy.deepcopy(good)
            # an object the good body lacks is sent with this one property: the
            # error may then name a property it requires instead (but under it)
            named = where if len(where) == 1 or where[0] in good else where[:1]
            if len(where) > 1:
                body[where[0]] = {**body.get(where[0], {}), where[1]: value}
            else:
                body[where[0]] = value
            dotted = ".".join(where)
            cases.append(Bad(f"{endpoint.name}:checked-first:{dotted}={label}", endpoint.method, path, 400,
                             "invalid_payload", body, auth=route.auth.value, details="Property ." + ".".join(named),
                             served=dotted == "order.source_id"))
    return cases


def _control_family() -> list[Bad]:
    m = "management"
    cases = [
        Bad("control:advance:negative", "POST", ADVANCE, 400, "invalid_payload", {"seconds": -1}, auth=m, served=True),
        Bad("control:advance:string", "POST", ADVANCE, 400, "invalid_payload", {"seconds": "soon"}, auth=m),
        Bad("control:advance:missing", "POST", ADVANCE, 400, "invalid_payload", {}, auth=m),
        Bad("control:advance:extra", "POST", ADVANCE, 400, "invalid_payload", {"seconds": 1, "minutes": 1}, auth=m),
        Bad("control:advance:eleven-years", "POST", ADVANCE, 400, "invalid_payload", {"seconds": 11 * 366 * 86400},
            auth=m),
        Bad("control:advance:1e308", "POST", ADVANCE, 400, "invalid_payload", {"seconds": 1e308}, auth=m),
        Bad("control:restore:array", "POST", "/_sim/restore", 400, "invalid_payload", [1], auth=m, served=True),
        Bad("control:restore:empty", "POST", "/_sim/restore", 400, "invalid_payload", {}, auth=m),
        Bad("control:restore:wrong-format", "POST", "/_sim/restore", 400, "invalid_payload", {"format": "x"}, auth=m),
        Bad("control:member:unknown", "GET", "/_sim/loyalty/members/lmbr_nope", 404, "not_found", auth=m),
    ]
    return cases


def _routing_and_auth_family() -> list[Bad]:
    good_publish = BODY_ENDPOINTS["publish"][2]
    return [
        Bad("route:unknown", "GET", "/v1/nothing", 404, "not_found", served=True),
        Bad("route:collection", "GET", "/v2/loyalties/incentives", 404, "not_found", auth="loyalty"),
        Bad("route:trailing-slash", "POST", PUBLISH + "/", 404, "not_found", good_publish),
        Bad("route:double-slash", "POST", "/client//v1/publish", 404, "not_found", good_publish),
        Bad("method:put-incentive", "PUT", INCENTIVE + "linc_0a11ce01", 405, "method_not_allowed", auth="loyalty",
            served=True),
        Bad("method:get-publish", "GET", PUBLISH, 405, "method_not_allowed"),
        Bad("method:delete-events", "DELETE", EVENTS, 405, "method_not_allowed"),
        Bad("method:patch-webhook", "PATCH", WEBHOOK + "wh_crm", 405, "method_not_allowed", auth="management"),
        Bad("auth:publish-no-credentials", "POST", PUBLISH, 401, "unauthorized", good_publish, auth="none",
            served=True),
        Bad("auth:publish-wrong-token", "POST", PUBLISH, 401, "unauthorized", good_publish, auth="none",
            headers={"X-App-Id": "kestrel-app", "X-App-Token": "kestrel-app-token" + NUL}),
        Bad("auth:purchase-without-bearer", "POST", PURCHASE, 401, "unauthorized", {"reward_id": "lrew_mug"}),
        Bad("auth:purchase-bearer-lowercase-token", "POST", PURCHASE, 401, "unauthorized", {"reward_id": "lrew_mug"},
            headers={"Authorization": "Bearer KESTREL-ACCESS-TOKEN"}),
        Bad("auth:control-with-app-credentials", "POST", "/_sim/reset", 401, "unauthorized", None, served=True),
        Bad("auth:state-with-loyalty-credentials", "GET", "/_sim/state", 401, "unauthorized", auth="loyalty"),
        Bad("auth:webhook-with-app-credentials", "DELETE", WEBHOOK + "wh_crm", 401, "unauthorized", auth="loyalty"),
        # A credential header sent twice is refused, whatever its copies hold (the
        # same value twice, or a wrong one first and the right one last).
        Bad("auth:publish-app-id-twice-same", "POST", PUBLISH, 401, "unauthorized", good_publish,
            header_pairs=[("X-App-Id", APP_HEADERS["X-App-Id"])], served=True),
        Bad("auth:publish-app-token-twice-same", "POST", PUBLISH, 401, "unauthorized", good_publish,
            header_pairs=[("x-app-token", APP_HEADERS["X-App-Token"])]),
        Bad("auth:publish-app-id-wrong-then-right", "POST", PUBLISH, 401, "unauthorized", good_publish, auth="none",
            header_pairs=[("X-App-Id", "spoof"), ("X-App-Id", APP_HEADERS["X-App-Id"]),
                          ("X-App-Token", APP_HEADERS["X-App-Token"])], served=True),
        Bad("auth:purchase-bearer-twice", "POST", PURCHASE, 401, "unauthorized", {"reward_id": "lrew_mug"},
            auth="loyalty", header_pairs=[("Authorization", LOYALTY_HEADERS["Authorization"])]),
        Bad("auth:state-management-token-twice", "GET", "/_sim/state", 401, "unauthorized", auth="management",
            header_pairs=[("X-Management-Token", MANAGEMENT_HEADERS["X-Management-Token"])], served=True),
        Bad("auth:webhook-management-id-twice", "DELETE", WEBHOOK + "wh_crm", 401, "unauthorized",
            auth="management", header_pairs=[("X-Management-Id", MANAGEMENT_HEADERS["X-Management-Id"])]),
    ]


CASES: list[Bad] = [
    *_json_family(),
    *_shape_family(),
    *_content_type_family(),
    *_huge_family(),
    *_purchase_family(),
    *_incentive_family(),
    *_reward_and_webhook_family(),
    *_publish_family(),
    *_validate_family(),
    *_events_family(),
    *_balance_family(),
    *_control_family(),
    *_routing_and_auth_family(),
    *_checked_first_family(),
]
SERVED = [c for c in CASES if c.served]
assert len({c.id for c in CASES}) == len(CASES), "case ids must be unique"

RESULTS: dict[str, Counter[str]] = {"in_process": Counter(), "served": Counter()}


def check_error(status: int, content_type: str | None, body: bytes, case: Bad) -> dict[str, Any]:
    assert status == case.status, f"{case.id}: got {status} {body[:300]!r}"
    assert (content_type or "").split(";")[0] == "application/json", case.id
    data = json.loads(body)
    assert set(data) <= ERROR_FIELDS, f"{case.id}: fields outside ErrorBody: {set(data) - ERROR_FIELDS}"
    models.ErrorBody.model_validate(data)
    assert data["code"] == case.status and data["key"] == case.key, f"{case.id}: {data}"
    if case.details is not None:
        assert data["details"].startswith(case.details), f"{case.id}: {data['details']}"
    assert isinstance(data["message"], str) and data["message"], case.id
    assert REQUEST_ID.match(data.get("request_id", "")), f"{case.id}: {data}"
    assert b"Traceback" not in body and b"File \"" not in body, case.id
    return data


# -- in-process ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def app() -> App:
    sim = Simulator.from_scenario(copy.deepcopy(demo_document()))
    assert sim.state.settings.max_body_bytes == MAX_BODY
    return App(sim)


def test_catalogue_size() -> None:
    families = Counter(c.id.split(":")[0] for c in CASES)
    print(f"\nbad-input catalogue: {len(CASES)} cases ({len(SERVED)} also served); by endpoint {dict(families)}")
    assert len(CASES) >= 150
    # every interface endpoint and the body-taking control route are covered
    assert {"purchase", "incentive", "reward", "webhook", "publish", "validate", "events", "balance",
            "control"} <= set(families)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_input_in_process(app: App, case: Bad) -> None:
    before = app.sim.dump_json()
    response = app.handle(case.http_request())
    content_type = dict(response.header_list()).get("content-type")
    check_error(response.status, content_type, response.body, case)
    assert app.sim.dump_json() == before, f"{case.id}: the state changed"
    RESULTS["in_process"][case.id.split(":")[0]] += 1


#: Near misses of the encoding and duplicate cases above, which must stay accepted.
ACCEPTED = [
    ("charset-utf-8", "application/json; charset=utf-8", b'{"customer": {"source_id": "alice"}}'),
    ("charset-quoted-upper", 'application/json; charset="UTF-8"', b'{"customer": {"source_id": "alice"}}'),
    ("charset-utf8-no-space", "application/json;charset=utf8", b"{}"),
    ("plus-json-other-parameter", "application/vnd.promolab+json; version=2", b"{}"),
    ("escaped-surrogate-pair", "application/json", b'{"metadata": {"emoji": "\\ud83d\\ude00"}}'),
    ("raw-utf8-emoji", "application/json", '{"metadata": {"emoji": "\U0001f600"}}'.encode()),
    ("same-key-in-sibling-objects", "application/json", b'{"customer": {"id": "cust_alice"}, "metadata": {"id": 1}}'),
]


@pytest.mark.parametrize(("label", "content_type", "body"), ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_near_misses_are_accepted(app: App, label: str, content_type: str, body: bytes) -> None:
    headers = {**{k.lower(): v for k, v in APP_HEADERS.items()}, "content-type": content_type}
    response = app.handle(HttpRequest("POST", VALIDATE, "", headers, body))
    assert response.status == 200, response.body[:300]


# -- served --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def served(module_server_factory: Any) -> Server:
    return module_server_factory(DEMO)


@pytest.fixture(scope="module")
def served_http(served: Server) -> Any:
    with served.http() as client:
        yield client


@pytest.mark.served
@pytest.mark.parametrize("case", SERVED, ids=lambda c: c.id)
def test_bad_input_served(served: Server, served_http: httpx.Client, case: Bad) -> None:
    before = served.state_json(served_http)
    url = httpx.URL(served.base_url + case.path + (f"?{case.query}" if case.query else ""))
    request = served_http.build_request(case.method, url, headers=case.header_list(), content=case.raw_body() or None)
    response = served_http.send(request)
    check_error(response.status_code, response.headers.get("content-type"), response.content, case)
    assert served.state_json(served_http) == before, f"{case.id}: the served state changed"
    RESULTS["served"][case.id.split(":")[0]] += 1


@pytest.fixture(scope="module", autouse=True)
def _summary() -> Any:
    yield
    total_in, total_served = sum(RESULTS["in_process"].values()), sum(RESULTS["served"].values())
    summary_line(f"bad inputs: {len(CASES)} malformed requests in the catalogue; refused with the documented "
                 f"status+key and the state unchanged: {total_in}/{len(CASES)} in-process, "
                 f"{total_served}/{len(SERVED)} served")
    if total_in or total_served:
        record_result("bad_inputs", {
            "catalogue": len(CASES),
            "in_process_passed": total_in,
            "served_subset": len(SERVED),
            "served_passed": total_served,
            "by_endpoint": dict(sorted(Counter(c.id.split(":")[0] for c in CASES).items())),
        })
