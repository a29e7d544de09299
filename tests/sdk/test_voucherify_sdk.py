"""The official `voucherify` Python SDK (PyPI, 6.x) against `promolab serve`.

Every operation promolab serves that the SDK has a method for is called
through that method, over real HTTP, and its answer is checked on the SDK's
own parsed model (a model that failed to parse would raise before any
assert). Refusals come back as the SDK's exceptions, whose body parses into
the SDK's `Error` model.

What the SDK does not cover (`NOT_IN_SDK` below): the loyalties v2
operations (get incentive, purchase reward, delete reward), the client-side
publish (`POST /client/v1/publish`) and promotions validation
(`POST /v1/promotions/validation`); the SDK has other operations near them
(`/v1/rewards/{id}`, `/v1/publications`, `/v1/promotions/tiers`), under
other paths.

Request models are built with keyword arguments, the SDK's documented way:
`Model.from_dict(...)` also sends `null` for every nullable field left out,
which promolab accepts like the service does (`test_from_dict_bodies_are_accepted`).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest
import voucherify
from voucherify.exceptions import (
    ApiException,
    BadRequestException,
    NotFoundException,
    UnauthorizedException,
)

from promolab.models.endpoints import SERVICE

pytestmark = pytest.mark.served

# Validation and redemption share the redeemable item's shape; these are the
# SDK's names for it.
Redeemable = voucherify.ValidationsValidateRequestBodyRedeemablesItem
RedeemRedeemable = voucherify.RedemptionsRedeemRequestBodyRedeemablesItem

VALIDATION_ID = re.compile(r"^valid_[a-f0-9]+$")
REDEMPTION_ID = re.compile(r"^r_[a-f0-9]+$")
ROLLBACK_ID = re.compile(r"^rr_[a-f0-9]+$")
ORDER_ID = re.compile(r"^ord_[a-f0-9]+$")
VOUCHER_ID = re.compile(r"^v_[a-f0-9]+$")
STACKING_RULES_ID = re.compile(r"^stk_[a-f0-9]+$")
REQUEST_ID = re.compile(r"^v-[0-9a-f]{20}$")


# -- which served operations the SDK covers ------------------------------------------------------
#: (method, path with `{}` for each parameter) -> the SDK method that calls it.
IN_SDK: dict[tuple[str, str], str] = {
    ("DELETE", "/management/v1/projects/{}/webhooks/{}"): "ManagementApi.delete_webhook",
    ("POST", "/v1/events"): "EventsApi.track_custom_event",
    ("POST", "/v1/vouchers/{}/balance"): "VouchersApi.update_voucher_balance",
    ("POST", "/management/v1/projects/{}/stacking-rules"): "ManagementApi.create_stacking_rules",
    ("GET", "/management/v1/projects/{}/stacking-rules"): "ManagementApi.list_stacking_rules",
    ("GET", "/management/v1/projects/{}/stacking-rules/{}"): "ManagementApi.get_stacking_rules",
    ("PUT", "/management/v1/projects/{}/stacking-rules/{}"): "ManagementApi.update_stacking_rules",
    ("DELETE", "/management/v1/projects/{}/stacking-rules/{}"): "ManagementApi.delete_stacking_rules",
    ("POST", "/v1/validations"): "ValidationsApi.validate_stacked_discounts",
    ("POST", "/v1/redemptions"): "RedemptionsApi.redeem_stacked_discounts",
    ("POST", "/v1/redemptions/{}/rollbacks"): "RedemptionsApi.rollback_stacked_redemptions",
    ("DELETE", "/v1/vouchers/{}/sessions/{}"): "VouchersApi.release_validation_session",
    # the read endpoints a pull needs (tests/sdk/test_sdk_reads.py)
    ("GET", "/v1/products"): "ProductsApi.list_products",
    ("GET", "/v1/products/{}"): "ProductsApi.get_product",
    ("GET", "/v1/products/{}/skus"): "ProductsApi.list_skus_in_product",
    ("GET", "/v1/skus/{}"): "ProductsApi.get_sku",
    ("GET", "/v1/product-collections"): "ProductCollectionsApi.list_product_collections",
    ("GET", "/v1/product-collections/{}/products"): "ProductCollectionsApi.list_products_in_collection",
    ("GET", "/v1/customers"): "CustomersApi.list_customers",
    ("GET", "/v1/customers/{}"): "CustomersApi.get_customer",
    ("GET", "/v1/customers/{}/segments"): "CustomersApi.list_customer_segments",
    ("GET", "/v1/segments/{}"): "SegmentsApi.get_segment",
    ("GET", "/v1/rewards"): "RewardsApi.list_rewards",
    ("GET", "/v1/rewards/{}"): "RewardsApi.get_reward",
    ("GET", "/v1/orders"): "OrdersApi.list_orders",
    ("GET", "/v1/redemptions"): "RedemptionsApi.list_redemptions",
    ("GET", "/v1/validation-rules"): "ValidationRulesApi.list_validation_rules",  # tests/sdk/test_sdk_rule_reads.py
    ("GET", "/v1/validation-rules/{}"): "ValidationRulesApi.get_validation_rule",
    ("GET", "/v1/validation-rules-assignments"): "ValidationRulesApi.list_validation_rules_assignments",
    ("GET", "/v1/loyalties"): "LoyaltiesApi.list_loyalty_programs",
    ("GET", "/v1/loyalties/{}"): "LoyaltiesApi.get_loyalty_program",
    ("GET", "/v1/loyalties/{}/tiers"): "LoyaltiesApi.list_loyalty_tiers",
    ("GET", "/v1/loyalties/{}/earning-rules"): "LoyaltiesApi.list_earning_rules",
    ("GET", "/v1/loyalties/{}/rewards"): "LoyaltiesApi.list_reward_assignments2",
    ("GET", "/v1/loyalties/{}/members"): "LoyaltiesApi.list_members",
    ("GET", "/v1/campaigns"): "CampaignsApi.list_campaigns",
    ("GET", "/v1/campaigns/{}"): "CampaignsApi.get_campaign",
    ("GET", "/v1/campaigns/{}/summary"): "CampaignsApi.get_campaign_summary",
    ("GET", "/v1/campaigns/{}/transactions"): "CampaignsApi.list_campaign_transactions",
    ("GET", "/v1/vouchers"): "VouchersApi.list_vouchers",
    ("GET", "/v1/vouchers/{}"): "VouchersApi.get_voucher",
    ("GET", "/v1/promotions/tiers"): "PromotionsApi.list_promotion_tiers",
    ("GET", "/v1/promotions/{}/tiers"): "PromotionsApi.list_promotion_tiers_from_campaign",
    ("GET", "/v1/promotions/tiers/{}"): "PromotionsApi.get_promotion_tier",
    ("GET", "/v1/promotions/stacks"): "PromotionsApi.list_all_promotion_stacks",
    ("GET", "/v1/promotions/{}/stacks"): "PromotionsApi.list_promotion_stacks_in_campaign",
    ("GET", "/v1/categories"): "CategoriesApi.list_categories",
    ("POST", "/v1/exports"): "ExportsApi.create_export",
    ("GET", "/v1/exports"): "ExportsApi.list_exports",
    ("GET", "/v1/exports/{}"): "ExportsApi.get_export",
    # Served once the qualifications operation lands.
    ("POST", "/v1/qualifications"): "QualificationsApi.check_eligibility",
}
#: Served operations the SDK has no method for.
NOT_IN_SDK = {"get_incentive", "purchase_reward", "delete_reward", "publish", "validate",
              "download_export"}  # the SDK's download is the download host's GET /v1/exports/{id}?token=...
NOT_YET_SERVED = {("POST", "/v1/qualifications")}

_SERIALIZER = re.compile(r"def _(\w+)_serialize\(.*?method='(\w+)',\s*resource_path='([^']+)'", re.DOTALL)


def _shape(path: str) -> str:
    return re.sub(r"\{\w+\}", "{}", path)


def sdk_operations() -> dict[tuple[str, str], str]:
    """Every (method, path shape) the installed SDK calls, read from its API
    classes' request serializers."""
    found: dict[tuple[str, str], str] = {}
    for name, cls in inspect.getmembers(voucherify.api, inspect.isclass):
        for match in _SERIALIZER.finditer(inspect.getsource(cls)):
            found[(match[2], _shape(match[3]))] = f"{name}.{match[1]}"
    return found


def test_the_sdk_covers_the_operations_listed_here() -> None:
    sdk = sdk_operations()
    assert len(sdk) > 200  # the scan found the SDK's operations at all
    served = {(e.method, _shape(e.path)): e.name for e in SERVICE}
    assert {key: sdk.get(key) for key in served} == {
        key: IN_SDK.get(key) for key in served
    }, "the SDK gained or lost one of the served operations: update IN_SDK/NOT_IN_SDK and docs/sdk.md"
    assert {name for key, name in served.items() if key not in IN_SDK} == NOT_IN_SDK
    assert set(IN_SDK) - set(served) <= NOT_YET_SERVED
    assert {key: sdk[key] for key in IN_SDK} == IN_SDK


# -- stacked validation ---------------------------------------------------------------------------
def test_validate_a_code_and_a_tier(sdk: Any) -> None:
    answer = sdk.validations.validate_stacked_discounts(voucherify.ValidationsValidateRequestBody(
        redeemables=[Redeemable(object="voucher", id="WELCOME-ALICE"),
                     Redeemable(object="promotion_tier", id="promo_welcome_10")],
        customer=voucherify.Customer(source_id="alice"),
        order=voucherify.Order(amount=6000),
    ))
    assert isinstance(answer, voucherify.ValidationsValidateResponseBody)
    assert VALIDATION_ID.match(answer.id) and answer.valid is True
    assert [(r.id, r.object, r.status) for r in answer.redeemables] == [
        ("WELCOME-ALICE", "voucher", "APPLICABLE"), ("promo_welcome_10", "promotion_tier", "APPLICABLE")]
    code, tier = answer.redeemables
    assert (code.result.discount.type, code.result.discount.effect, code.result.discount.amount_off) == (
        "AMOUNT", "APPLY_TO_ORDER", 500)
    assert tier.result.discount.amount_off == 1000
    # each redeemable's order is the order as it and those before it left it
    assert (code.order.total_discount_amount, code.order.total_amount) == (500, 5500)
    assert (tier.order.total_discount_amount, tier.order.total_amount, tier.order.applied_discount_amount) == (
        1500, 4500, 1000)
    order = answer.order
    assert (order.amount, order.total_discount_amount, order.total_amount, order.customer_id) == (
        6000, 1500, 4500, "cust_alice")
    assert answer.skipped_redeemables == [] and answer.inapplicable_redeemables == []
    assert answer.stacking_rules.redeemables_application_mode == "ALL"
    assert answer.stacking_rules.applicable_redeemables_limit == 5


def test_a_session_holds_gift_credits_until_released(sdk: Any) -> None:
    """$15.00 of GIFT-BOB-25's $18.00 held by a LOCK session: another
    validation cannot spend $10.00 of it until the session is released."""
    def validate(credits: int, session: Any = None) -> Any:
        return sdk.validations.validate_stacked_discounts(voucherify.ValidationsValidateRequestBody(
            redeemables=[Redeemable(object="voucher", id="GIFT-BOB-25",
                                    gift=voucherify.ValidationsValidateRequestBodyRedeemablesItemGift(credits=credits))],
            order=voucherify.Order(amount=6000), session=session,
        ))

    held = validate(1500, voucherify.Session(type="LOCK", key="ssn-sdk", ttl=1, ttl_unit="HOURS"))
    assert (held.valid, held.session.key, held.session.ttl, held.session.ttl_unit) == (True, "ssn-sdk", 1, "HOURS")
    refused = validate(1000)
    assert refused.valid is False and refused.redeemables[0].result.error.key == "gift_amount_exceeded"
    assert sdk.vouchers.release_validation_session("GIFT-BOB-25", "ssn-sdk") is None
    assert validate(1000).valid is True
    with pytest.raises(NotFoundException):
        sdk.vouchers.release_validation_session("GIFT-BOB-25", "ssn-sdk")


#: redeemables (object, id, gift credits), customer, order amount -> valid, statuses, final total.
STACKED_CASES = [
    pytest.param([("promotion_tier", "promo_welcome_10", None), ("voucher", "GIFT-ALICE-50", 2000)], "alice", 6000,
                 True, ["APPLICABLE", "APPLICABLE"], 3000, id="tier-then-gift-credits"),
    pytest.param([("voucher", "GIFT-ALICE-50", 2000), ("promotion_tier", "promo_welcome_10", None)], "alice", 6000,
                 False, ["APPLICABLE", "INAPPLICABLE"], 6000, id="gift-first-leaves-the-tier-under-its-minimum"),
    pytest.param([("voucher", "WELCOME-OPEN-1", None), ("voucher", "NOPE-0001", None),
                  ("promotion_tier", "promo_welcome_10", None)], "bob", 6000,
                 False, ["APPLICABLE", "INAPPLICABLE", "SKIPPED"], 6000, id="unknown-code-skips-the-rest"),
]


@pytest.mark.parametrize(("redeemables", "customer", "amount", "valid", "statuses", "total"), STACKED_CASES)
def test_stacked_validation_outcomes(sdk: Any, redeemables: list[tuple[str, str, int | None]], customer: str,
                                     amount: int, valid: bool, statuses: list[str], total: int) -> None:
    answer = sdk.validations.validate_stacked_discounts(voucherify.ValidationsValidateRequestBody(
        redeemables=[
            Redeemable(object=kind, id=id_) if credits is None else
            Redeemable(object=kind, id=id_, gift=voucherify.ValidationsValidateRequestBodyRedeemablesItemGift(
                credits=credits))
            for kind, id_, credits in redeemables],
        customer=voucherify.Customer(source_id=customer),
        order=voucherify.Order(amount=amount),
    ))
    assert answer.valid is valid
    assert [r.status for r in answer.redeemables] == statuses
    assert [r.id for r in answer.redeemables] == [id_ for _, id_, _ in redeemables]
    if valid:
        assert answer.order.total_amount == total
    for outcome in answer.redeemables:
        if outcome.id.startswith("GIFT-"):
            assert (outcome.result.gift.credits, outcome.result.gift.balance) == (2000, 5000)
    inapplicable = {r.id: r.result for r in answer.inapplicable_redeemables}
    skipped = {r.id: r.result.details.key for r in answer.skipped_redeemables}
    assert set(inapplicable) == {r.id for r in answer.redeemables if r.status == "INAPPLICABLE"}
    assert set(skipped) == {r.id for r in answer.redeemables if r.status == "SKIPPED"}
    for rid, result in inapplicable.items():
        if rid == "NOPE-0001":
            assert (result.error.code, result.error.key, result.error.resource_type) == (404, "not_found", "voucher")
        else:
            assert (result.error.key, result.error.resource_id) == ("order_rules_violated", rid)
    assert set(skipped.values()) <= {"preceding_validation_failed"}


# -- stacked redemption and its rollback -------------------------------------------------------------
def _redeem(sdk: Any, customer: str, amount: int, *redeemables: tuple[str, str]) -> Any:
    return sdk.redemptions.redeem_stacked_discounts(voucherify.RedemptionsRedeemRequestBody(
        redeemables=[RedeemRedeemable(object=kind, id=id_) for kind, id_ in redeemables],
        customer=voucherify.Customer(source_id=customer),
        order=voucherify.Order(amount=amount),
    ))


def _gift_balance(sdk: Any, code: str, customer: str) -> int:
    answer = sdk.validations.validate_stacked_discounts(voucherify.ValidationsValidateRequestBody(
        redeemables=[Redeemable(object="voucher", id=code)],
        customer=voucherify.Customer(source_id=customer), order=voucherify.Order(amount=1000),
    ))
    return int(answer.redeemables[0].result.gift.balance)


def test_redeem_a_tier_and_a_gift_card_then_roll_back(sdk: Any) -> None:
    assert _gift_balance(sdk, "GIFT-BOB-25", "bob") == 1800
    answer = _redeem(sdk, "bob", 6000, ("promotion_tier", "promo_welcome_10"), ("voucher", "GIFT-BOB-25"))
    assert isinstance(answer, voucherify.RedemptionsRedeemResponseBody)
    parent = answer.parent_redemption
    assert REDEMPTION_ID.match(parent.id) and parent.related_object_type == "redemption"
    assert (parent.result, parent.status, parent.customer_id) == ("SUCCESS", "SUCCEEDED", "cust_bob")
    tier, gift = answer.redemptions
    assert all(REDEMPTION_ID.match(r.id) and r.redemption == parent.id for r in answer.redemptions)
    assert (tier.related_object_type, tier.related_object_id, tier.promotion_tier.campaign.id) == (
        "promotion_tier", "promo_welcome_10", "camp_welcome")
    assert (gift.related_object_type, gift.voucher.code, gift.voucher.type, gift.amount) == (
        "voucher", "GIFT-BOB-25", "GIFT_VOUCHER", 1800)
    assert VOUCHER_ID.match(gift.related_object_id) and gift.voucher.gift.balance == 0
    order = answer.order
    assert ORDER_ID.match(order.id) and order.status == "PAID"
    assert (order.amount, order.total_discount_amount, order.total_amount) == (6000, 2800, 3200)
    assert order.redemptions[parent.id]["stacked"] == [tier.id, gift.id]
    assert _gift_balance(sdk, "GIFT-BOB-25", "bob") == 0

    rolled = sdk.redemptions.rollback_stacked_redemptions(parent.id, reason="returned")
    assert isinstance(rolled, voucherify.RedemptionsRollbacksCreateResponseBody)
    assert ROLLBACK_ID.match(rolled.parent_rollback.id)
    assert (rolled.parent_rollback.redemption, rolled.parent_rollback.reason, rolled.parent_rollback.status) == (
        parent.id, "returned", "SUCCEEDED")
    # (each child's `parent_rollback_id` is not in the SDK's RedemptionRollback model: it drops it)
    assert [(r.redemption, r.related_object_type, r.status) for r in rolled.rollbacks] == [
        (tier.id, "promotion_tier", "SUCCEEDED"), (gift.id, "voucher", "SUCCEEDED")]
    assert rolled.order.id == order.id and rolled.order.status == "CANCELED"  # WITH_ORDER, the default
    assert _gift_balance(sdk, "GIFT-BOB-25", "bob") == 1800

    with pytest.raises(BadRequestException) as again:
        sdk.redemptions.rollback_stacked_redemptions(parent.id)
    error = voucherify.Error.from_json(again.value.body)
    assert (error.code, error.key, error.resource_id) == (400, "already_rolled_back", rolled.parent_rollback.id)


def test_one_redeemable_has_no_parent(sdk: Any) -> None:
    answer = _redeem(sdk, "alice", 6000, ("voucher", "WELCOME-ALICE"))
    assert answer.parent_redemption is None
    (redemption,) = answer.redemptions
    assert (redemption.voucher.code, redemption.voucher.discount.amount_off, redemption.redemption) == (
        "WELCOME-ALICE", 500, None)
    assert (answer.order.total_amount, answer.order.status) == (5500, "PAID")
    rolled = sdk.redemptions.rollback_stacked_redemptions(redemption.id)
    assert rolled.parent_rollback is None
    assert [r.redemption for r in rolled.rollbacks] == [redemption.id]
    assert rolled.order.status == "CANCELED"


# -- custom events, gift balance, webhooks ------------------------------------------------------------
def _alice_beans(sdk: Any) -> int:
    with sdk.server.client() as client:
        member = client.control.member("lmbr_alice")
    return next(int(c["balance"]) for c in member["cards"] if c["id"] == "lcrd_alice_beans")


@pytest.mark.parametrize(("event", "metadata", "points"), [
    ("review_written", {"rating": 5}, 50),              # linc_0a11ce01: 50 points
    ("order_placed", {"amount": 4200, "channel": "web"}, 42),   # 1 point per 100 of the amount
])
def test_track_a_custom_event(sdk: Any, event: str, metadata: dict[str, Any], points: int) -> None:
    before = _alice_beans(sdk)
    answer = sdk.events.track_custom_event(voucherify.EventsCreateRequestBody(
        event=event, customer=voucherify.Customer(source_id="alice"), metadata=metadata))
    assert isinstance(answer, voucherify.EventsCreateResponseBody)
    assert (answer.object, answer.type, answer.metadata) == ("event", event, metadata)
    assert (answer.customer.object, answer.customer.id, answer.customer.source_id) == (
        "customer", "cust_alice", "alice")
    assert _alice_beans(sdk) - before == points


def test_add_gift_balance(sdk: Any) -> None:
    answer = sdk.vouchers.update_voucher_balance(
        "GIFT-BOB-25", voucherify.VouchersBalanceUpdateRequestBody(amount=1000, reason="apology"))
    assert isinstance(answer, voucherify.VouchersBalanceUpdateResponseBody)
    assert (answer.object, answer.type, answer.operation_type) == ("balance", "gift_voucher", "MANUAL")
    assert (answer.amount, answer.total, answer.balance) == (1000, 3500, 2800)
    assert answer.related_object.type == "voucher" and VOUCHER_ID.match(answer.related_object.id)
    assert _gift_balance(sdk, "GIFT-BOB-25", "bob") == 2800


def test_delete_a_webhook(sdk: Any) -> None:
    assert sdk.management.delete_webhook(sdk.project_id, "wh_crm") is None  # 204
    with pytest.raises(NotFoundException) as gone:
        sdk.management.delete_webhook(sdk.project_id, "wh_crm")
    error = voucherify.Error.from_json(gone.value.body)
    assert (error.key, error.resource_type, error.resource_id) == ("not_found", "webhook", "wh_crm")


# -- stacking rules ----------------------------------------------------------------------------------
def test_stacking_rules_lifecycle(sdk: Any) -> None:
    api, project = sdk.management, sdk.project_id
    listed = api.list_stacking_rules(project)
    # always one item: the defaults, without an id, until rules are created
    assert (listed.object, listed.total, len(listed.data)) == ("list", 1, 1)
    defaults = listed.data[0]
    assert defaults.id is None and defaults.created_at is None
    assert (defaults.redeemables_limit, defaults.applicable_redeemables_limit, defaults.redeemables_application_mode,
            defaults.redeemables_sorting_rule) == (30, 5, "ALL", "REQUESTED_ORDER")

    created = api.create_stacking_rules(project, voucherify.ManagementProjectsStackingRulesCreateRequestBody(
        redeemables_application_mode="PARTIAL", applicable_redeemables_limit=3, exclusive_categories=["cat_flash"]))
    assert STACKING_RULES_ID.match(created.id)
    assert (created.redeemables_application_mode, created.applicable_redeemables_limit,
            created.exclusive_categories) == ("PARTIAL", 3, ["cat_flash"])
    # the rest are the service's defaults
    assert (created.redeemables_limit, created.applicable_redeemables_per_category_limit,
            created.discount_calculation_mode, created.redeemables_rollback_order_mode) == (
        30, 1, "DISCOUNTED_AMOUNT", "WITH_ORDER")
    assert created.created_at is not None and created.updated_at is None

    got = api.get_stacking_rules(project, created.id)
    assert got.to_dict() == created.to_dict()

    change = voucherify.ManagementProjectsStackingRulesUpdateRequestBody(
        redeemables_limit=20, redeemables_rollback_order_mode="WITHOUT_ORDER")
    updated = api.update_stacking_rules(project, created.id, change)
    assert (updated.id, updated.redeemables_limit, updated.redeemables_rollback_order_mode) == (
        created.id, 20, "WITHOUT_ORDER")
    assert updated.applicable_redeemables_limit == 3 and updated.updated_at is not None

    listed = api.list_stacking_rules(project)
    assert listed.total == 1 and [(r.id, r.redeemables_limit) for r in listed.data] == [(created.id, 20)]
    # a stacked validation follows them
    validated = sdk.validations.validate_stacked_discounts(voucherify.ValidationsValidateRequestBody(
        redeemables=[Redeemable(object="voucher", id="WELCOME-ALICE")], order=voucherify.Order(amount=6000)))
    assert (validated.stacking_rules.redeemables_application_mode, validated.stacking_rules.redeemables_limit) == (
        "PARTIAL", 20)

    assert api.delete_stacking_rules(project, created.id) is None  # 204
    listed = api.list_stacking_rules(project)  # the defaults again
    assert (listed.total, listed.data[0].id, listed.data[0].redeemables_application_mode) == (1, None, "ALL")
    with pytest.raises(NotFoundException):
        api.get_stacking_rules(project, created.id)


# -- refusals: the SDK's exceptions carrying promolab's error body -------------------------------------
def _create_twice(sdk: Any) -> None:
    body = voucherify.ManagementProjectsStackingRulesCreateRequestBody(redeemables_limit=10)
    sdk.management.create_stacking_rules(sdk.project_id, body)
    sdk.management.create_stacking_rules(sdk.project_id, body)


def _wrong_token(sdk: Any) -> None:
    configuration = voucherify.Configuration(host=sdk.server.base_url, api_key={
        "X-App-Id": sdk.server.credentials["app_id"], "X-App-Token": "not-the-token"})
    with voucherify.ApiClient(configuration) as client:
        voucherify.EventsApi(client).track_custom_event(voucherify.EventsCreateRequestBody(
            event="newsletter_signup", customer=voucherify.Customer(source_id="alice")))


REFUSALS: list[Any] = [
    pytest.param(lambda s: s.vouchers.update_voucher_balance(
        "GIFT-NOPE-1", voucherify.VouchersBalanceUpdateRequestBody(amount=100)),
        NotFoundException, 404, "not_found", "voucher", id="balance-unknown-code"),
    pytest.param(lambda s: s.vouchers.update_voucher_balance(
        "WELCOME-ALICE", voucherify.VouchersBalanceUpdateRequestBody(amount=100)),
        BadRequestException, 400, "invalid_voucher", "voucher", id="balance-not-a-gift-card"),
    pytest.param(lambda s: s.vouchers.update_voucher_balance(
        "GIFT-ALICE-50", voucherify.VouchersBalanceUpdateRequestBody(amount=-100)),
        BadRequestException, 400, "invalid_add_balance_params", None, id="balance-negative"),
    pytest.param(lambda s: s.events.track_custom_event(voucherify.EventsCreateRequestBody(
        event="review_written", customer=voucherify.Customer(source_id="alice"), metadata={"rating": 9})),
        BadRequestException, 400, "metadata_validation_failed", None, id="event-metadata-out-of-schema"),
    pytest.param(lambda s: _redeem(s, "bob", 6000, ("voucher", "GIFT-BOB-25"),
                                   ("promotion_tier", "promo_welcome_10")),
                 BadRequestException, 400, "order_rules_violated", "promotion_tier", id="redeem-tier-under-minimum"),
    pytest.param(lambda s: s.redemptions.rollback_stacked_redemptions("r_00000000deadbeef"),
                 NotFoundException, 404, "not_found", "redemption", id="rollback-unknown"),
    pytest.param(lambda s: s.management.delete_webhook("proj_nope", "wh_crm"),
                 NotFoundException, 404, "not_found", "project", id="webhook-unknown-project"),
    pytest.param(_create_twice, ApiException, 409, "duplicate_found", "stacking_rules", id="stacking-rules-twice"),
    pytest.param(_wrong_token, UnauthorizedException, 401, "unauthorized", None, id="wrong-app-token"),
]


@pytest.mark.parametrize(("call", "exception", "status", "key", "resource_type"), REFUSALS)
def test_refusals_raise_the_sdk_exception_with_our_error_body(
        sdk: Any, call: Callable[[Any], Any], exception: type[ApiException], status: int, key: str,
        resource_type: str | None) -> None:
    with pytest.raises(exception) as raised:
        call(sdk)
    assert type(raised.value) is exception and raised.value.status == status
    error = voucherify.Error.from_json(raised.value.body)
    assert (error.code, error.key, error.resource_type) == (status, key, resource_type)
    assert error.message and REQUEST_ID.match(error.request_id)


# -- qualifications (runs once the server's /openapi.json has the path) -------------------------------
def _needs_qualifications(sdk: Any) -> None:
    with sdk.server.http() as http:
        paths = http.get("/openapi.json").json()["paths"]
    if "/v1/qualifications" not in paths:
        pytest.skip("this promolab does not serve POST /v1/qualifications yet")


def _qualify(sdk: Any, customer: str, amount: int, scenario: str) -> Any:
    return sdk.qualifications.check_eligibility(voucherify.QualificationsCheckEligibilityRequestBody(
        customer=voucherify.Customer(source_id=customer), order=voucherify.Order(amount=amount),
        scenario=scenario, options=voucherify.QualificationsOption(limit=50)))


def test_qualifications_all(sdk: Any) -> None:
    _needs_qualifications(sdk)
    answer = _qualify(sdk, "alice", 6000, "ALL")
    assert isinstance(answer, voucherify.QualificationsCheckEligibilityResponseBody)
    found = answer.redeemables
    assert (found.object, found.data_ref, found.total) == ("list", "data", len(found.data))
    by_id = {r.id: r for r in found.data}
    assert by_id["promo_welcome_10"].object == "promotion_tier"
    assert by_id["promo_welcome_10"].result.discount.amount_off == 1000
    assert not {"promo_winter_20", "promo_flash_5"} & set(by_id)  # campaign over / paused
    assert answer.order.amount == 6000
    # qualifications ignore "total amount before discount" (order.amount) rules, as the service
    # documents: under its minimum the tier still qualifies (a stacked validation would refuse it)
    assert "promo_welcome_10" in {r.id for r in _qualify(sdk, "alice", 2000, "ALL").redeemables.data}


def test_qualifications_customer_wallet(sdk: Any) -> None:
    _needs_qualifications(sdk)
    found = _qualify(sdk, "alice", 6000, "CUSTOMER_WALLET").redeemables.data
    assert "WELCOME-ALICE" in {r.id for r in found}
    assert {r.object for r in found} == {"voucher"}
    assert not {"WELCOME-OPEN-1", "GIFT-BOB-25"} & {r.id for r in found}  # not alice's


# -- the SDK's from_dict bodies ---------------------------------------------------------------------
def test_from_dict_bodies_are_accepted(sdk: Any) -> None:
    body = voucherify.ValidationsValidateRequestBody.from_dict({
        "redeemables": [{"object": "voucher", "id": "WELCOME-ALICE"}],
        "customer": {"source_id": "alice"},
        "order": {"amount": 6000, "items": [{"product_id": "prod_mug", "quantity": 1}]},
    })
    assert body.to_dict()["redeemables"][0]["reward"] is None  # what the SDK sends
    assert sdk.validations.validate_stacked_discounts(body).valid is True
