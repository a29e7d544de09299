"""`/openapi.json` and the answers agree, checked on real answers.

The contract fuzzer (tests/reliability/test_contract_fuzz.py) samples
requests at random against a served simulator; this module replays one fixed
session in process, covering every public route and most statuses, and
validates every answer against the schema the served document gives for that
path, method and status (JSON Schema 2020-12, as OpenAPI 3.1 says), and every
webhook delivery against the document's `webhooks` section. It also pins what
the document says where promolab departs from the interface or the service's
own OpenAPI: fields left out rather than sent as null, an optional validation
body, the publish body (voucher or campaign).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from demo_keys import APP, BASE, LOYALTY, MANAGEMENT
from promolab import Simulator, models
from promolab.http import SimulatorTransport
from promolab.http.table import ROUTES

PURCHASES = "/v2/loyalties/programs/{programId}/members/{memberId}/rewards/purchases"


@pytest.fixture(scope="module")
def document(demo_path: Any) -> dict[str, Any]:
    """The served document (it depends on the routes, not on the state: one per module)."""
    with httpx.Client(base_url=BASE, transport=SimulatorTransport(Simulator.from_scenario(demo_path))) as client:
        response = client.get("/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def validator(document: Mapping[str, Any], schema: Mapping[str, Any]) -> Draft202012Validator:
    """A validator of `schema` whose `#/components/...` references resolve in `document`."""
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": document["components"], **schema}
    Draft202012Validator.check_schema(root)
    return Draft202012Validator(root)


def errors_of(document: Mapping[str, Any], schema: Mapping[str, Any], instance: Any) -> list[str]:
    found = validator(document, schema).iter_errors(instance)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in found]


def response_schema(document: Mapping[str, Any], path: str, method: str, status: int) -> dict[str, Any] | None:
    """The documented schema of that answer (None: documented without a body);
    fails when the status is not documented for the operation."""
    responses = document["paths"][path][method.lower()]["responses"]
    assert str(status) in responses, f"{method} {path} answered {status}, which the document does not list"
    content = responses[str(status)].get("content")
    return None if content is None else content["application/json"]["schema"]


# -- the session: (template path, method, concrete path, headers, body) ------------------------------
RULES = "/management/v1/projects/{projectId}/stacking-rules"
RULES_ID = RULES + "/{stackingRulesId}"
#: The id the demo's first stacking rules get (ids are seeded).
RULES_OF_DEMO = "/management/v1/projects/proj_kestrel/stacking-rules/stk_ab6ba985e3051d657a0b1a02"

EXPORT = "/v1/exports/{exportId}"
#: The id the demo's first export gets (ids are seeded).
EXPORT_OF_DEMO = "exp_d246e1c11931630f34fb6b72"
#: The id the demo's first stacked redemption (its parent) gets.
PARENT_OF_DEMO = "r_ec50f5a1315ac91fb472c318"
ROLLBACKS = "/v1/redemptions/{parentRedemptionId}/rollbacks"
SESSIONS = "/v1/vouchers/{code}/sessions/{sessionKey}"
COLLECTION_PRODUCTS = "/v1/product-collections/{productCollectionId}/products"

#: A redemption with a parent: a code and a gift card's credits.
TWO_CODES = {
    "customer": {"source_id": "alice"}, "order": {"source_id": "order-1", "items": [{"product_id": "prod_mug", "quantity": 6}]},
    "redeemables": [{"object": "voucher", "id": "WELCOME-ALICE"}, {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 500}}],
}

_NO_BODY = object()
SESSION: list[tuple[str, str, str, dict[str, str], Any]] = [
    ("/v2/loyalties/incentives/{id}", "GET", "/v2/loyalties/incentives/linc_0a11ce01", LOYALTY, _NO_BODY),
    ("/v2/loyalties/incentives/{id}", "GET", "/v2/loyalties/incentives/linc_ff", LOYALTY, _NO_BODY),
    ("/v2/loyalties/incentives/{id}", "GET", "/v2/loyalties/incentives/LINC", LOYALTY, _NO_BODY),
    ("/v2/loyalties/incentives/{id}", "GET", "/v2/loyalties/incentives/linc_0a11ce01", {}, _NO_BODY),
    (PURCHASES, "POST", "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_alice/rewards/purchases",
     LOYALTY, {"reward_id": "lrew_mug"}),  # 202 TRANSACTION_CREATED, a PENDING transaction
    (PURCHASES, "POST", "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_frank/rewards/purchases",
     LOYALTY, {"reward_id": "lrew_sticker"}),  # 202 NO_SPENT_ON_REWARD
    (PURCHASES, "POST", "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_dave/rewards/purchases",
     LOYALTY, {"reward_id": "lrew_gift_25"}),  # settled two steps later: a gift card, and its webhook
    (PURCHASES, "POST", "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_bob/rewards/purchases",
     LOYALTY, {"reward_id": "lrew_mug"}),  # 423
    (PURCHASES, "POST", "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_nobody/rewards/purchases",
     LOYALTY, {"reward_id": "lrew_mug"}),  # 404
    (PURCHASES, "POST", "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_bob/rewards/purchases",
     LOYALTY, {"reward_id": "lrew_retired"}),  # 400 reward_not_assigned
    (PURCHASES, "POST", "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_bob/rewards/purchases",
     LOYALTY, {}),  # 400 invalid_payload
    ("/v2/loyalties/rewards/{id}", "DELETE", "/v2/loyalties/rewards/lrew_retired", LOYALTY, _NO_BODY),
    ("/v2/loyalties/rewards/{id}", "DELETE", "/v2/loyalties/rewards/lrew_mug", LOYALTY, _NO_BODY),
    ("/v2/loyalties/rewards/{id}", "DELETE", "/v2/loyalties/rewards/lrew_nope", LOYALTY, _NO_BODY),
    ("/management/v1/projects/{projectId}/webhooks/{webhookId}", "DELETE",
     "/management/v1/projects/proj_kestrel/webhooks/wh_crm", MANAGEMENT, _NO_BODY),
    ("/management/v1/projects/{projectId}/webhooks/{webhookId}", "DELETE",
     "/management/v1/projects/proj_kestrel/webhooks/wh_crm", MANAGEMENT, _NO_BODY),
    ("/client/v1/publish", "POST", "/client/v1/publish", APP,
     {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}}),
    ("/client/v1/publish", "POST", "/client/v1/publish", APP,
     {"campaign": {"name": "Newsletter 10% coupons"}, "customer": {"source_id": "zoe"}, "source_id": "s-1"}),
    ("/client/v1/publish", "POST", "/client/v1/publish", APP, {"customer": {"id": "cust_bob"}}),
    ("/client/v1/publish", "POST", "/client/v1/publish", APP,
     {"voucher": "WELCOME-ALICE", "customer": {"id": "cust_bob"}}),
    ("/client/v1/publish", "POST", "/client/v1/publish?join_once=maybe", APP,
     {"voucher": "WELCOME-OPEN-2", "customer": {"id": "cust_bob"}}),
    ("/v1/promotions/validation", "POST", "/v1/promotions/validation", APP,
     {"customer": {"source_id": "alice"}, "order": {"items": [{"product_id": "prod_mug", "quantity": 2}]}}),
    ("/v1/promotions/validation", "POST", "/v1/promotions/validation", APP, _NO_BODY),
    ("/v1/promotions/validation", "POST", "/v1/promotions/validation", APP, {"order": {"amount": 1.5}}),
    ("/v1/events", "POST", "/v1/events", APP,
     {"event": "review_written", "customer": {"source_id": "bob"}, "metadata": {"rating": 5}}),
    ("/v1/events", "POST", "/v1/events", APP,
     {"event": "review_written", "customer": {"source_id": "bob"}, "metadata": {"rating": 9}}),
    ("/v2/loyalties/incentives/{id}", "GET", "/v2/loyalties/incentives/linc_0a11ce01", LOYALTY, _NO_BODY),
    ("/v1/vouchers/{code}/balance", "POST", "/v1/vouchers/GIFT-ALICE-50/balance", APP, {"amount": 400}),
    ("/v1/vouchers/{code}/balance", "POST", "/v1/vouchers/WELCOME-ALICE/balance", APP, {"amount": 400}),
    ("/v1/vouchers/{code}/balance", "POST", "/v1/vouchers/NO-SUCH/balance", APP, {"amount": 400}),
    # stacking rules: none, created, refused twice, changed, read, deleted, gone
    (RULES, "GET", "/management/v1/projects/proj_kestrel/stacking-rules", MANAGEMENT, _NO_BODY),
    (RULES, "POST", "/management/v1/projects/proj_kestrel/stacking-rules", MANAGEMENT,
     {"redeemables_application_mode": "PARTIAL", "exclusive_categories": ["cat_flash"]}),
    (RULES, "POST", "/management/v1/projects/proj_kestrel/stacking-rules", MANAGEMENT, {}),  # 409
    (RULES, "POST", "/management/v1/projects/proj_other/stacking-rules", MANAGEMENT, {}),  # 404
    (RULES, "GET", "/management/v1/projects/proj_kestrel/stacking-rules", MANAGEMENT, _NO_BODY),
    (RULES_ID, "PUT", f"{RULES_OF_DEMO}", MANAGEMENT, {"applicable_redeemables_limit": 31}),  # 400
    (RULES_ID, "PUT", f"{RULES_OF_DEMO}", MANAGEMENT,
     {"applicable_redeemables_per_category_limit": None, "joint_categories": ["cat_flash"]}),  # 400: both lists
    (RULES_ID, "PUT", f"{RULES_OF_DEMO}", MANAGEMENT, {"applicable_redeemables_per_category_limit": None}),
    (RULES_ID, "GET", f"{RULES_OF_DEMO}", MANAGEMENT, _NO_BODY),
    (RULES_ID, "GET", "/management/v1/projects/proj_kestrel/stacking-rules/stk_0", MANAGEMENT, _NO_BODY),
    (RULES_ID, "DELETE", f"{RULES_OF_DEMO}", MANAGEMENT, _NO_BODY),
    (RULES_ID, "DELETE", f"{RULES_OF_DEMO}", MANAGEMENT, _NO_BODY),  # 404
    # stacked validation: applicable, inapplicable and skipped redeemables; refused requests
    ("/v1/validations", "POST", "/v1/validations", APP, {
        "customer": {"source_id": "alice"}, "options": {"expand": ["redeemable", "category"]},
        "order": {"items": [{"product_id": "prod_mug", "quantity": 6}]},
        "redeemables": [{"object": "voucher", "id": "WELCOME-ALICE"}, {"object": "promotion_tier", "id": "promo_welcome_10"},
                        {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 500}},
                        {"object": "voucher", "id": "NO-SUCH"}, {"object": "promotion_tier", "id": "promo_nope"}],
    }),
    ("/v1/validations", "POST", "/v1/validations", APP, {
        "redeemables": [{"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 99999}}]}),
    ("/v1/validations", "POST", "/v1/validations", APP, {
        "redeemables": [{"object": "voucher", "id": "A"}, {"object": "voucher", "id": "A"}]}),  # 400 duplicated
    ("/v1/validations", "POST", "/v1/validations", APP, {"redeemables": []}),  # 400 invalid_payload
    # qualifications: a page with a cursor, every expand, the last page; refused requests
    ("/v1/qualifications", "POST", "/v1/qualifications", APP, {
        "customer": {"source_id": "alice"}, "order": {"items": [{"product_id": "prod_mug", "quantity": 2}]},
        "options": {"limit": 2, "sorting_rule": "BEST_DEAL", "expand": ["redeemable", "category", "validation_rules"]},
    }),
    ("/v1/qualifications", "POST", "/v1/qualifications", APP, {
        "scenario": "CUSTOMER_WALLET", "customer": {"source_id": "bob"}, "options": {"limit": 50}}),
    ("/v1/qualifications", "POST", "/v1/qualifications", APP, {"options": {"limit": 51}}),  # 400 invalid_payload
    ("/v1/qualifications", "POST", "/v1/qualifications", {}, {}),  # 401
    # stacked redemption (a parent and two children), refused ones, its rollback, refused rollbacks
    ("/v1/redemptions", "POST", "/v1/redemptions", APP, TWO_CODES),
    ("/v1/redemptions", "POST", "/v1/redemptions", APP, {"redeemables": [{"object": "voucher", "id": "NO-SUCH"}]}),  # 404
    ("/v1/redemptions", "POST", "/v1/redemptions", APP, {
        "redeemables": [{"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 99999}}]}),  # 400
    (ROLLBACKS, "POST", f"/v1/redemptions/{PARENT_OF_DEMO}/rollbacks?reason=returned", APP, _NO_BODY),
    (ROLLBACKS, "POST", f"/v1/redemptions/{PARENT_OF_DEMO}/rollbacks", APP, {"reason": "again"}),  # 400 already
    (ROLLBACKS, "POST", "/v1/redemptions/r_00/rollbacks", APP, {}),  # 404
    # a validation session holding a code, released, then gone
    ("/v1/validations", "POST", "/v1/validations", APP, {
        "redeemables": [{"object": "voucher", "id": "WELCOME-OPEN-2"}], "session": {"type": "LOCK", "key": "ssn-demo"}}),
    (SESSIONS, "DELETE", "/v1/vouchers/WELCOME-OPEN-2/sessions/ssn-demo", APP, _NO_BODY),
    (SESSIONS, "DELETE", "/v1/vouchers/WELCOME-OPEN-2/sessions/ssn-demo", APP, _NO_BODY),  # 404
    # the read endpoints: a page, a refused query, an unknown id, no credentials
    ("/v1/products", "GET", "/v1/products?limit=3&page=2&order=created_at", APP, _NO_BODY),
    ("/v1/products", "GET", "/v1/products?limit=101", APP, _NO_BODY),  # 400
    ("/v1/products", "GET", "/v1/products", {}, _NO_BODY),  # 401
    ("/v1/products/{productId}", "GET", "/v1/products/beans-ethiopia", APP, _NO_BODY),
    ("/v1/products/{productId}", "GET", "/v1/products/prod_nope", APP, _NO_BODY),  # 404
    ("/v1/products/{productId}/skus", "GET", "/v1/products/prod_beans_ethiopia/skus?order=-updated_at", APP, _NO_BODY),
    ("/v1/products/{productId}/skus", "GET", "/v1/products/prod_nope/skus", APP, _NO_BODY),  # 404
    ("/v1/skus/{skuId}", "GET", "/v1/skus/sku_ethiopia_250", APP, _NO_BODY),
    ("/v1/skus/{skuId}", "GET", "/v1/skus/sku_nope", APP, _NO_BODY),  # 404
    ("/v1/product-collections", "GET", "/v1/product-collections?order=name", APP, _NO_BODY),  # 400
    ("/v1/product-collections", "GET", "/v1/product-collections", APP, _NO_BODY),
    (COLLECTION_PRODUCTS, "GET", "/v1/product-collections/pc_beans/products?starting_after=2026-01-01T00:00:00Z",
     APP, _NO_BODY),
    (COLLECTION_PRODUCTS, "GET", "/v1/product-collections/pc_nope/products", APP, _NO_BODY),  # 404
    ("/v1/customers", "GET", "/v1/customers?limit=2&order=-source_id&created_at[after]=2026-01-01T00:00:00Z", APP,
     _NO_BODY),
    ("/v1/customers", "GET", "/v1/customers?page=100", APP, _NO_BODY),  # 400: page 99 at most
    ("/v1/customers/{customerId}", "GET", "/v1/customers/alice", APP, _NO_BODY),
    ("/v1/customers/{customerId}", "GET", "/v1/customers/cust_nope", APP, _NO_BODY),  # 404
    ("/v1/customers/{customerId}/segments", "GET", "/v1/customers/cust_alice/segments", APP, _NO_BODY),
    ("/v1/customers/{customerId}/segments", "GET", "/v1/customers/cust_nope/segments", APP, _NO_BODY),  # 404
    ("/v1/segments/{segmentId}", "GET", "/v1/segments/seg_vip", APP, _NO_BODY),
    ("/v1/segments/{segmentId}", "GET", "/v1/segments/seg_nope", APP, _NO_BODY),  # 404
    ("/v1/rewards", "GET", "/v1/rewards?limit=100", APP, _NO_BODY),
    ("/v1/rewards", "GET", "/v1/rewards?limit=0", APP, _NO_BODY),  # 400
    ("/v1/rewards/{rewardId}", "GET", "/v1/rewards/lrew_gift_25", APP, _NO_BODY),
    ("/v1/rewards/{rewardId}", "GET", "/v1/rewards/lrew_nope", APP, _NO_BODY),  # 404
    ("/v1/loyalties", "GET", "/v1/loyalties?limit=100&order=created_at&expand=category", APP, _NO_BODY),
    ("/v1/loyalties", "GET", "/v1/loyalties?expand=tiers", APP, _NO_BODY),  # 400
    ("/v1/loyalties/{campaignId}", "GET", "/v1/loyalties/lcdef_stars", APP, _NO_BODY),
    ("/v1/loyalties/{campaignId}", "GET", "/v1/loyalties/lprg_coffee_club", APP, _NO_BODY),  # 404: a program, not a card
    ("/v1/loyalties/{campaignId}/tiers", "GET", "/v1/loyalties/lcdef_beans/tiers?limit=5", APP, _NO_BODY),
    ("/v1/loyalties/{campaignId}/earning-rules", "GET", "/v1/loyalties/lcdef_beans/earning-rules", APP, _NO_BODY),
    ("/v1/loyalties/{campaignId}/earning-rules", "GET", "/v1/loyalties/lcdef_nope/earning-rules", APP, _NO_BODY),
    ("/v1/loyalties/{campaignId}/rewards", "GET", "/v1/loyalties/lcdef_beans/rewards?limit=2&page=2", APP, _NO_BODY),
    ("/v1/loyalties/{campaignId}/members", "GET", "/v1/loyalties/lcdef_beans/members?order=-updated_at", APP, _NO_BODY),
    ("/v1/loyalties/{campaignId}/members", "GET", "/v1/loyalties/lcdef_stars/members?customer=dave&limit=1", APP,
     _NO_BODY),
    ("/v1/loyalties/{campaignId}/members", "GET", "/v1/loyalties/lcdef_beans/members?updated_at[after]=2026-13-01",
     APP, _NO_BODY),  # 400
    # after the session's redemption and its rollback: orders, redemptions and a rollback
    ("/v1/orders", "GET", "/v1/orders?order=created_at", APP, _NO_BODY),
    ("/v1/orders", "GET", "/v1/orders?page=0", APP, _NO_BODY),  # 400
    ("/v1/redemptions", "GET", "/v1/redemptions?limit=100&order=-voucher_code", APP, _NO_BODY),
    ("/v1/redemptions", "GET", "/v1/redemptions?page=100", APP, _NO_BODY),  # 400: page 99 at most
    ("/v1/redemptions", "GET", "/v1/redemptions?customer=cust_alice&created_at[after]=2026-01-01T00:00:00Z",
     APP, _NO_BODY),
    ("/v1/validation-rules", "GET", "/v1/validation-rules?limit=100&order=name", APP, _NO_BODY),
    ("/v1/validation-rules", "GET", "/v1/validation-rules?order=code", APP, _NO_BODY),  # 400
    ("/v1/validation-rules/{validationRuleId}", "GET", "/v1/validation-rules/val_camp_mug_codes", APP, _NO_BODY),
    ("/v1/validation-rules/{validationRuleId}", "GET", "/v1/validation-rules/val_nope", APP, _NO_BODY),  # 404
    ("/v1/validation-rules-assignments", "GET", "/v1/validation-rules-assignments?related_object_id=promo_beans_15",
     APP, _NO_BODY),
    ("/v1/validation-rules-assignments", "GET", "/v1/validation-rules-assignments?limit=0", APP, _NO_BODY),  # 400
    ("/v1/campaigns", "GET", "/v1/campaigns?limit=100&expand=access_settings_assignments", APP, _NO_BODY),
    ("/v1/campaigns", "GET", "/v1/campaigns?filters[active][$enabled]=", APP, _NO_BODY),  # 400: not served
    ("/v1/campaigns/{campaignId}", "GET", "/v1/campaigns/camp_mug_codes", APP, _NO_BODY),
    ("/v1/campaigns/{campaignId}", "GET", "/v1/campaigns/camp_nope", APP, _NO_BODY),  # 404
    ("/v1/campaigns/{campaignId}/summary", "GET", "/v1/campaigns/camp_gift/summary?start_date=2026-03-01", APP, _NO_BODY),
    ("/v1/campaigns/{campaignId}/summary", "GET", "/v1/campaigns/camp_welcome/summary?end_date=soon", APP, _NO_BODY),  # 400
    ("/v1/campaigns/{campaignId}/summary", "GET", "/v1/campaigns/camp_nope/summary", APP, _NO_BODY),  # 404
    ("/v1/campaigns/{campaignId}/transactions", "GET", "/v1/campaigns/camp_gift/transactions?limit=1", APP, _NO_BODY),
    ("/v1/campaigns/{campaignId}/transactions", "GET", "/v1/campaigns/camp_gift/transactions?order=x", APP, _NO_BODY),
    ("/v1/vouchers", "GET", "/v1/vouchers?limit=100&order=code&ids=v_1&ids=v_2", APP, _NO_BODY),
    ("/v1/vouchers", "GET", "/v1/vouchers?customer=bob&created_at[after]=2026-01-01T00:00:00Z", APP, _NO_BODY),
    ("/v1/vouchers", "GET", "/v1/vouchers?order=type", APP, _NO_BODY),  # 400
    ("/v1/vouchers/{code}", "GET", "/v1/vouchers/GIFT-BOB-25", APP, _NO_BODY),
    ("/v1/vouchers/{code}", "GET", "/v1/vouchers/NO-SUCH", APP, _NO_BODY),  # 404
    ("/v1/promotions/tiers", "GET", "/v1/promotions/tiers?is_available=true&order=updated_at&limit=100", APP, _NO_BODY),
    ("/v1/promotions/tiers", "GET", "/v1/promotions/tiers?is_available=maybe", APP, _NO_BODY),  # 400
    ("/v1/promotions/{campaignId}/tiers", "GET", "/v1/promotions/camp_brewers_club/tiers", APP, _NO_BODY),
    ("/v1/promotions/{campaignId}/tiers", "GET", "/v1/promotions/camp_nope/tiers", APP, _NO_BODY),  # 404
    ("/v1/promotions/tiers/{promotionTierId}", "GET", "/v1/promotions/tiers/promo_kettle_filters", APP, _NO_BODY),
    ("/v1/promotions/tiers/{promotionTierId}", "GET", "/v1/promotions/tiers/promo_nope", APP, _NO_BODY),  # 404
    ("/v1/promotions/stacks", "GET", "/v1/promotions/stacks?order=-name&created_at[before]=2030-01-01T00:00:00Z",
     APP, _NO_BODY),
    ("/v1/promotions/stacks", "GET", "/v1/promotions/stacks?updated_at[after]=soon", APP, _NO_BODY),  # 400
    ("/v1/promotions/{campaignId}/stacks", "GET", "/v1/promotions/camp_brewers_club/stacks", APP, _NO_BODY),
    ("/v1/promotions/{campaignId}/stacks", "GET", "/v1/promotions/camp_nope/stacks", APP, _NO_BODY),  # 404
    ("/v1/categories", "GET", "/v1/categories", APP, _NO_BODY),
    # exports: one made, one refused, read back, downloaded (its CSV), unknown ids
    ("/v1/exports", "POST", "/v1/exports", APP, {"exported_object": "redemption",
                                                  "parameters": {"fields": ["id", "date", "order_amount"]}}),
    ("/v1/exports", "POST", "/v1/exports", APP, {"exported_object": "order", "parameters": {"fields": ["nope"]}}),  # 400
    ("/v1/exports", "GET", "/v1/exports?order=-status", APP, _NO_BODY),
    ("/v1/exports", "GET", "/v1/exports?limit=0", APP, _NO_BODY),  # 400
    (EXPORT, "GET", f"/v1/exports/{EXPORT_OF_DEMO}", APP, _NO_BODY),
    (EXPORT, "GET", "/v1/exports/exp_nope", APP, _NO_BODY),  # 404
    (EXPORT + "/download", "GET", f"/v1/exports/{EXPORT_OF_DEMO}/download", APP, _NO_BODY),
    (EXPORT + "/download", "GET", "/v1/exports/exp_nope/download", APP, _NO_BODY),  # 404
]


def _send(http: httpx.Client, method: str, path: str, headers: dict[str, str], body: Any) -> httpx.Response:
    if body is _NO_BODY:
        return http.request(method, path, headers=headers)
    return http.request(method, path, headers=headers, json=body)


def test_every_answer_of_a_session_is_what_the_document_says(
    sim: Simulator, http: httpx.Client, document: dict[str, Any]
) -> None:
    deliveries: list[tuple[dict[str, str], bytes]] = []
    sim.register_receiver("notebook", lambda headers, body: deliveries.append((dict(headers), body)))
    statuses: dict[str, set[int]] = {}
    for template, method, path, headers, body in SESSION:
        sim.advance(1)  # so that changes get a time of their own
        response = _send(http, method, path, headers, body)
        statuses.setdefault(f"{method} {template}", set()).add(response.status_code)
        if response.headers.get("content-type", "").startswith("text/csv"):  # an export's CSV: documented as text
            documented = document["paths"][template][method.lower()]["responses"][str(response.status_code)]
            assert set(documented["content"]) == {"text/csv"} and response.text.startswith("id,date,order_amount\r\n")
            continue
        schema = response_schema(document, template, method, response.status_code)
        if schema is None:
            assert response.content == b"", f"{method} {path}: documented without a body"
            continue
        problems = errors_of(document, schema, response.json())
        assert not problems, f"{method} {path} -> {response.status_code}: {problems}\n{response.text}"
    # the session reaches every public route, and these statuses
    assert set(statuses) == {f"{r.method} {r.path}" for r in ROUTES if not r.endpoint.control}
    assert statuses[f"POST {PURCHASES}"] == {202, 423, 404, 400}
    assert statuses["GET /v2/loyalties/incentives/{id}"] == {200, 400, 401, 404}
    assert statuses["POST /v1/qualifications"] == {200, 400, 401}
    assert statuses["GET /v1/products"] == {200, 400, 401}
    # the webhook delivery the gift balance caused, against the `webhooks` section
    assert len(deliveries) == 2, "a gift card bought with points, then a gift balance: two webhooks"
    (operation,) = (item["post"] for item in document["webhooks"].values())
    for headers, raw in deliveries:
        problems = errors_of(document, operation["requestBody"]["content"]["application/json"]["schema"],
                             httpx.Response(200, content=raw).json())
        assert not problems, problems
        for parameter in operation["parameters"]:
            assert parameter["in"] == "header"
            name = parameter["name"]
            assert name in headers or not parameter["required"], f"delivery without header {name}"
            assert not errors_of(document, parameter["schema"], headers[name]), (name, headers[name])


def test_the_webhook_section_names_the_event_and_its_version(document: dict[str, Any]) -> None:
    (name,) = document["webhooks"]
    assert name == models.GIFT_BALANCE_ADDED
    operation = document["webhooks"][name]["post"]
    assert operation["x-webhook-version"] == models.WEBHOOK_VERSION == "2024-01-01"
    assert "2024-01-01" in operation["description"]
    version = next(p for p in operation["parameters"] if p["name"] == "x-promolab-webhook-version")
    assert version["required"] and version["schema"]["const"] == "2024-01-01"
    assert document["openapi"].startswith("3.1")  # `webhooks` is an OpenAPI 3.1 section
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert {"$ref": "#/components/schemas/WebhookEnvelope"} in body["allOf"]


#: (schema, property, null allowed, required) in the served document. Where the
#: interface types a field as a plain value and promolab leaves it out when it
#: has none, the document must not promise a null; where it is nullable and
#: always sent, the document must say both.
SENT_AS: list[tuple[str, str, bool, bool]] = [
    ("CardTransaction", "updated_at", False, False),
    ("CardTransaction", "created_at", False, True),
    ("CardTransactionDetails", "reason", False, False),
    ("TransactionPoints", "expiration_date", False, False),
    ("TransactionPoints", "expiration_type", False, False),
    ("TransactionPoints", "date", False, False),
    ("TransactionPoints", "type", False, False),
    ("RewardPurchaseResult", "transaction", False, False),
    ("Incentive", "updated_at", True, True),
    ("Reward", "updated_at", True, True),
    ("Publication", "source_id", True, True),
    ("Publication", "tracking_id", False, False),
    ("ErrorBody", "details", False, False),
    ("ErrorBody", "resource_id", False, False),
    ("ErrorBody", "resource_type", False, False),
    ("CustomEventResult", "referral", True, True),
]


@pytest.mark.parametrize(("schema", "prop", "nullable", "required"), SENT_AS,
                         ids=[f"{s}.{p}" for s, p, _, _ in SENT_AS])
def test_the_document_says_which_fields_are_null_or_absent(
    document: dict[str, Any], schema: str, prop: str, nullable: bool, required: bool
) -> None:
    definition = document["components"]["schemas"][schema]
    assert (prop in definition.get("required", [])) is required
    assert (not errors_of(document, definition["properties"][prop], None)) is nullable


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"status": "TRANSACTION_CREATED", "message": "m"}, "refused"),
        ({"status": "NO_SPENT_ON_REWARD", "message": "m"}, "valid"),
        ({"status": "NO_SPENT_ON_REWARD", "message": "m", "transaction": None}, "refused"),
    ],
    ids=["created without transaction", "free without transaction", "free with a null transaction"],
)
def test_the_purchase_answer_has_a_transaction_exactly_when_one_was_created(
    document: dict[str, Any], body: dict[str, Any], status: str
) -> None:
    schema = response_schema(document, PURCHASES, "POST", 202)
    assert schema is not None
    assert ("valid" if not errors_of(document, schema, body) else "refused") == status


# -- request bodies: the document's verdict is the simulator's ---------------------------------------
#: A path of each public route that takes a body, with ids that exist.
BODY_PATHS = {
    "purchaseReward": "/v2/loyalties/programs/lprg_coffee_club/members/lmbr_alice/rewards/purchases",
    "publishVoucher": "/client/v1/publish",
    "validatePromotions": "/v1/promotions/validation",
    "trackCustomEvent": "/v1/events",
    "addGiftBalance": "/v1/vouchers/GIFT-BOB-25/balance",
    "createStackingRules": "/management/v1/projects/proj_kestrel/stacking-rules",
    "updateStackingRules": RULES_OF_DEMO,
    "validateStackedDiscounts": "/v1/validations",
    "checkEligibility": "/v1/qualifications",
    "redeemStackedDiscounts": "/v1/redemptions",
    "rollbackStackedRedemptions": f"/v1/redemptions/{PARENT_OF_DEMO}/rollbacks",
    "createExport": "/v1/exports",
}
BODY_ROUTES = [r for r in ROUTES if not r.endpoint.control and r.endpoint.request is not None]


def test_every_route_with_a_body_is_listed() -> None:
    assert {r.endpoint.operation_id for r in BODY_ROUTES} == set(BODY_PATHS)


@pytest.mark.parametrize("route", BODY_ROUTES, ids=lambda r: r.endpoint.operation_id)
@pytest.mark.parametrize("sent", ["no body", "null"])
def test_a_missing_body_is_refused_exactly_where_the_document_requires_one(
    http: httpx.Client, document: dict[str, Any], route: Any, sent: str
) -> None:
    """`requestBody.required` (no body) and the body schema (`null`) say what
    the simulator does with a body left out: refused as `invalid_payload`, or
    read as the empty request (validation)."""
    operation = document["paths"][route.path][route.method.lower()]
    headers = {"loyalty": LOYALTY, "management": MANAGEMENT}.get(route.endpoint.auth, APP)
    if route.method == "PUT":  # a change of something that exists
        http.post(BODY_PATHS["createStackingRules"], headers=MANAGEMENT, json={}).raise_for_status()
    if route.endpoint.operation_id == "rollbackStackedRedemptions":  # a redemption to roll back
        http.post(BODY_PATHS["redeemStackedDiscounts"], headers=APP, json=TWO_CODES).raise_for_status()
    path = BODY_PATHS[route.endpoint.operation_id]
    if sent == "no body":
        documented = not operation["requestBody"]["required"]
        response = http.request(route.method, path, headers=headers)
    else:
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        documented = not errors_of(document, schema, None)
        response = http.request(route.method, path, headers=headers, content=b"null")
    if documented:
        assert response.status_code == 200, response.text
    else:
        assert (response.status_code, response.json()["key"]) == (400, "invalid_payload"), response.text
    # the optional bodies: validation's (every field optional), a rollback's (a reason at most)
    assert documented is (route.endpoint.operation_id in ("validatePromotions", "rollbackStackedRedemptions"))


def test_validation_without_a_body_is_validation_of_the_empty_request(http: httpx.Client) -> None:
    answers = [
        http.post("/v1/promotions/validation", headers=APP).json(),
        http.post("/v1/promotions/validation", headers=APP, content=b"null").json(),
        http.post("/v1/promotions/validation", headers=APP, json={}).json(),
    ]
    assert answers[0] == answers[1] == answers[2]
    assert set(answers[0]) == {"valid", "tracking_id", "promotions"}


#: Publish bodies: what the document says of each, and what the simulator answers.
PUBLISH_BODIES: list[tuple[str, dict[str, Any], str]] = [
    ("a voucher", {"voucher": "WELCOME-OPEN-1", "customer": {"id": "cust_bob"}}, "accepted"),
    ("a campaign by name, no voucher",
     {"campaign": {"name": "Newsletter 10% coupons"}, "customer": {"id": "cust_bob"}}, "accepted"),
    ("a campaign by id, no voucher", {"campaign": {"id": "camp_welcome_codes"}, "customer": {"id": "cust_bob"}},
     "accepted"),
    ("a voucher of the named campaign",
     {"voucher": "WELCOME-OPEN-1", "campaign": {"id": "camp_welcome_codes"}, "customer": {"id": "cust_bob"}},
     "accepted"),
    ("a null voucher and a campaign",
     {"voucher": None, "campaign": {"id": "camp_welcome_codes"}, "customer": {"id": "cust_bob"}}, "accepted"),
    ("neither voucher nor campaign", {"customer": {"id": "cust_bob"}}, "missing_vouchers"),
    ("both null", {"voucher": None, "campaign": None, "customer": {"id": "cust_bob"}}, "missing_vouchers"),
    ("an unnamed campaign", {"campaign": {}, "customer": {"id": "cust_bob"}}, "invalid_payload"),
    ("a campaign count", {"campaign": {"name": "Newsletter 10% coupons", "count": 2}, "customer": {"id": "cust_bob"}},
     "invalid_payload"),
    ("an empty voucher", {"voucher": "", "customer": {"id": "cust_bob"}}, "invalid_payload"),
    ("an unnamed customer", {"voucher": "WELCOME-OPEN-1", "customer": {"name": "Bob"}}, "invalid_payload"),
    ("a campaign as a string", {"campaign": "camp_welcome_codes", "customer": {"id": "cust_bob"}}, "invalid_payload"),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in PUBLISH_BODIES], ids=[c[0] for c in PUBLISH_BODIES])
def test_publish_accepts_a_voucher_or_a_campaign_as_the_document_says(
    http: httpx.Client, document: dict[str, Any], body: dict[str, Any], expected: str
) -> None:
    """The interface marks `voucher` required; promolab also takes a campaign
    instead (docs/publications-events-webhooks.md), and the document's body
    schema accepts exactly the bodies the simulator does not refuse for their
    shape."""
    schema = document["paths"]["/client/v1/publish"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    described = document["components"]["schemas"]["PublishRequest"]["description"]
    assert "campaign" in described and "missing_vouchers" in described  # says it in words too
    response = http.post("/client/v1/publish", headers=APP, json=body)
    answer = "accepted" if response.status_code == 200 else response.json()["key"]
    assert answer == expected, response.text
    assert (not errors_of(document, schema, body)) is (expected == "accepted")
    if expected == "accepted":
        voucher = response.json()["voucher"]
        campaign = body.get("campaign") or {}
        assert voucher["code"] == body.get("voucher") or body.get("voucher") is None
        assert voucher["campaign_id"] == campaign.get("id", voucher["campaign_id"])
        assert voucher["campaign"] == campaign.get("name", voucher["campaign"])
