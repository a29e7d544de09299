"""The interface's endpoints: each operation's wire contract, declared once.

An `Endpoint` says everything a caller and a server must agree on: the
operation's name (what a journal or replay line says), method and path,
which credentials it needs, its request and response models, its success
status, and how its path and query parameters map to the operation's
arguments. It sits with the wire models so that the client derives its
requests from it without importing the simulator; the simulator binds each
entry to the function that implements it (`promolab.sim.operations`), and the
HTTP face derives its router, `/openapi.json` and `/_sim/coverage` from the
two.

Every path the HTTP face serves (the interface's, those beyond it, the
control API's) is written here and nowhere else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import quote

from pydantic import BaseModel

from .balance import AddBalanceRequest, BalanceResult
from .custom_events import CustomEventRequest, CustomEventResult
from .customer_profiles import CustomerList, CustomerProfile
from .history import OrderList, RedemptionList
from .incentives import Incentive
from .products import (
    CollectionProductList,
    Product,
    ProductCollectionList,
    ProductList,
    Sku,
    SkuList,
)
from .project_rewards import ProjectReward, ProjectRewardList
from .promotions import ValidationRequest, ValidationResponse
from .publications import Publication, PublishRequest
from .qualifications import QualificationRequest, QualificationResponse
from .redemptions import RedemptionResponse, RollbackRequest, RollbackResponse
from .rewards import Reward, RewardPurchaseRequest, RewardPurchaseResult
from .segments import CustomerSegmentList, Segment
from .stacked_validations import StackedValidationRequest, StackedValidationResponse
from .stacking_rules import ProjectStackingRules, StackingRulesChange, StackingRulesList

__all__ = [
    "BEYOND_INTERFACE",
    "CONTROL",
    "ENDPOINTS",
    "INTERFACE",
    "LIMIT",
    "OPENAPI",
    "PAGE",
    "PAGE_99",
    "READS",
    "SERVICE",
    "Auth",
    "Endpoint",
    "Param",
    "endpoint_named",
]

R = TypeVar("R")

#: Which credentials a call needs: app keys (`/client`, `/v1`), app keys and
#: a Bearer token (`/v2/loyalties`), management keys (`/management`, `/_sim`).
Auth = Literal["app", "loyalty", "management", "none"]
ParamType = Literal["string", "boolean", "object", "integer"]

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True, slots=True)
class Param:
    """A path or query parameter: its wire `name` and the operation's `arg`."""

    name: str
    arg: str
    type: ParamType = "string"
    description: str = ""
    #: A regular expression every value must match (path parameters).
    pattern: str | None = None
    #: The bounds of an integer (a list's `limit` and `page`), inclusive.
    minimum: int | None = None
    maximum: int | None = None
    #: The values a string may take (a list's `order`).
    enum: tuple[str, ...] | None = None
    #: `date-time`: an instant with its offset (a list's `start_date`).
    format: Literal["date-time"] | None = None
    #: What an absent value means (a list's `limit` 10, `order` -created_at).
    default: int | str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Endpoint(Generic[R]):
    """One operation's wire contract; `R` is what a successful call returns."""

    name: str
    method: str
    path: str
    auth: Auth
    operation_id: str
    summary: str
    #: The model of a success's body (None: no body, or a plain JSON object).
    response: type[R] | None = None
    request: type[BaseModel] | None = None
    #: The body may be left out: sent without one (or with JSON `null`), it is
    #: read as `{}` (validation and rollback, whose every field is optional).
    #: Any other operation refuses a missing body (400 `invalid_payload`).
    optional_body: bool = False
    status: int = 200
    error_statuses: tuple[int, ...] = (400, 401, 404)
    path_params: tuple[Param, ...] = ()
    query: tuple[Param, ...] = ()
    tags: tuple[str, ...] = ()
    #: Part of the simulator's `/_sim/` control API, not of the interface.
    control: bool = False
    #: Safe to send again after a timeout (the service may have done it).
    idempotent: bool = False

    def __post_init__(self) -> None:
        placeholders = _PLACEHOLDER.findall(self.path)
        if placeholders != [p.name for p in self.path_params]:
            raise ValueError(f"{self.name}: path parameters {placeholders} are not declared in order")

    def url_path(self, **args: str) -> str:
        """The path with each parameter filled from its argument, escaped."""
        path = self.path
        for param in self.path_params:
            path = path.replace("{" + param.name + "}", quote(args[param.arg], safe=""), 1)
        return path

    def query_name(self, arg: str) -> str:
        """The wire name of the query parameter that carries `arg`."""
        for param in self.query:
            if param.arg == arg:
                return param.name
        raise KeyError(f"{self.name} has no query parameter for {arg!r}")

    @property
    def body_arg(self) -> str | None:
        """The operation's argument that carries the body (`request`), if any."""
        return "request" if self.request is not None else None


_ID = Param("id", "incentive_id", pattern=r"^linc_[a-f0-9]+$")

GET_INCENTIVE: Endpoint[Incentive] = Endpoint(
    "get_incentive", "GET", "/v2/loyalties/incentives/{id}", "loyalty",
    "getIncentive", "Get an incentive", Incentive, path_params=(_ID,), tags=("loyalty",), idempotent=True,
)
PURCHASE_REWARD: Endpoint[RewardPurchaseResult] = Endpoint(
    "purchase_reward", "POST", "/v2/loyalties/programs/{programId}/members/{memberId}/rewards/purchases",
    "loyalty", "purchaseReward", "Purchase a reward", RewardPurchaseResult, RewardPurchaseRequest,
    status=202, error_statuses=(400, 401, 404, 423),
    path_params=(Param("programId", "program_id"), Param("memberId", "member_id")), tags=("loyalty",),
)
DELETE_REWARD: Endpoint[Reward] = Endpoint(
    "delete_reward", "DELETE", "/v2/loyalties/rewards/{id}", "loyalty", "deleteReward", "Delete a reward",
    Reward, path_params=(Param("id", "reward_id"),), tags=("loyalty",), idempotent=True,
)
DELETE_WEBHOOK: Endpoint[None] = Endpoint(
    "delete_webhook", "DELETE", "/management/v1/projects/{projectId}/webhooks/{webhookId}", "management",
    "deleteWebhook", "Delete a webhook configuration", None, status=204, error_statuses=(401, 404),
    path_params=(Param("projectId", "project_id"), Param("webhookId", "webhook_id")), tags=("management",),
    idempotent=True,
)
PUBLISH: Endpoint[Publication] = Endpoint(
    "publish", "POST", "/client/v1/publish", "app", "publishVoucher", "Publish a voucher",
    Publication, PublishRequest,
    query=(Param("join_once", "join_once", "boolean", "One and always the same code per customer."),),
    tags=("publications",),
)
VALIDATE: Endpoint[ValidationResponse] = Endpoint(
    "validate", "POST", "/v1/promotions/validation", "app", "validatePromotions", "Validate promotions",
    ValidationResponse, ValidationRequest, optional_body=True,
    query=(
        Param("audienceRulesOnly", "audience_rules_only", "boolean", "Check only customer-related rules."),
        Param("filters", "filters", "object", "Promotion filters, bracketed or JSON."),
    ),
    tags=("validation",), idempotent=True,
)
TRACK_EVENT: Endpoint[CustomEventResult] = Endpoint(
    "track_event", "POST", "/v1/events", "app", "trackCustomEvent", "Send a custom event",
    CustomEventResult, CustomEventRequest, tags=("events",),
)
ADD_GIFT_BALANCE: Endpoint[BalanceResult] = Endpoint(
    "add_gift_balance", "POST", "/v1/vouchers/{code}/balance", "app", "addGiftBalance",
    "Add balance to a gift voucher", BalanceResult, AddBalanceRequest,
    path_params=(Param("code", "code"),), tags=("vouchers",),
)

#: The interface's operations, in the order the documents list them.
INTERFACE: tuple[Endpoint[Any], ...] = (
    GET_INCENTIVE, PURCHASE_REWARD, DELETE_REWARD, DELETE_WEBHOOK, PUBLISH, VALIDATE, TRACK_EVENT,
    ADD_GIFT_BALANCE,
)


# -- beyond the interface: operations of the real service that promolab adds --------------------
_PROJECT = Param("projectId", "project_id")
_STACKING_RULES_ID = Param("stackingRulesId", "stacking_rules_id")

CREATE_STACKING_RULES: Endpoint[ProjectStackingRules] = Endpoint(
    "create_stacking_rules", "POST", "/management/v1/projects/{projectId}/stacking-rules", "management", "createStackingRules",
    "Create the project's stacking rules", ProjectStackingRules, StackingRulesChange,
    error_statuses=(400, 401, 404, 409), path_params=(_PROJECT,), tags=("stacking rules",),
)
LIST_STACKING_RULES: Endpoint[StackingRulesList] = Endpoint(
    "list_stacking_rules", "GET", "/management/v1/projects/{projectId}/stacking-rules", "management", "listStackingRules",
    "List the project's stacking rules", StackingRulesList, error_statuses=(401, 404),
    path_params=(_PROJECT,), tags=("stacking rules",), idempotent=True,
)
GET_STACKING_RULES: Endpoint[ProjectStackingRules] = Endpoint(
    "get_stacking_rules", "GET", "/management/v1/projects/{projectId}/stacking-rules/{stackingRulesId}", "management", "getStackingRules",
    "Get the project's stacking rules", ProjectStackingRules, error_statuses=(401, 404),
    path_params=(_PROJECT, _STACKING_RULES_ID), tags=("stacking rules",), idempotent=True,
)
UPDATE_STACKING_RULES: Endpoint[ProjectStackingRules] = Endpoint(
    "update_stacking_rules", "PUT", "/management/v1/projects/{projectId}/stacking-rules/{stackingRulesId}", "management",
    "updateStackingRules", "Update the project's stacking rules", ProjectStackingRules, StackingRulesChange,
    path_params=(_PROJECT, _STACKING_RULES_ID), tags=("stacking rules",),
)
DELETE_STACKING_RULES: Endpoint[None] = Endpoint(
    "delete_stacking_rules", "DELETE", "/management/v1/projects/{projectId}/stacking-rules/{stackingRulesId}", "management",
    "deleteStackingRules", "Delete the project's stacking rules (back to the defaults)", None, status=204,
    error_statuses=(401, 404), path_params=(_PROJECT, _STACKING_RULES_ID), tags=("stacking rules",),
    idempotent=True,
)

VALIDATE_STACKED: Endpoint[StackedValidationResponse] = Endpoint(
    "validate_stacked", "POST", "/v1/validations", "app", "validateStackedDiscounts",
    "Validate stacked redeemables (codes, gift cards, tiers) under the stacking rules",
    StackedValidationResponse, StackedValidationRequest, error_statuses=(400, 401, 404), tags=("validation",),
    idempotent=True,
)

QUALIFICATIONS: Endpoint[QualificationResponse] = Endpoint(
    "qualifications", "POST", "/v1/qualifications", "app", "checkEligibility",
    "What this customer can get for this cart, best deal first (qualifications)",
    QualificationResponse, QualificationRequest, error_statuses=(400, 401), tags=("validation",),
    idempotent=True,
)

REDEEM_STACKED: Endpoint[RedemptionResponse] = Endpoint(
    "redeem_stacked", "POST", "/v1/redemptions", "app", "redeemStackedDiscounts",
    "Redeem stacked redeemables: spend what a stacked validation prices", RedemptionResponse,
    StackedValidationRequest, error_statuses=(400, 401, 404), tags=("redemptions",),
)
ROLLBACK_REDEMPTION: Endpoint[RollbackResponse] = Endpoint(
    "rollback_redemption", "POST", "/v1/redemptions/{parentRedemptionId}/rollbacks", "app",
    "rollbackStackedRedemptions", "Roll back a redemption with all its children", RollbackResponse,
    RollbackRequest, optional_body=True, error_statuses=(400, 401, 404),
    path_params=(Param("parentRedemptionId", "redemption_id"),),
    query=(Param("reason", "reason", "string", "Why the redemption is rolled back."),
           Param("tracking_id", "tracking_id", "string", "The customer's tracking id.")),
    tags=("redemptions",),
)

RELEASE_SESSION: Endpoint[None] = Endpoint(
    "release_session", "DELETE", "/v1/vouchers/{code}/sessions/{sessionKey}", "app", "releaseValidationSession",
    "Release a validation session's hold on a code", None, status=204, error_statuses=(401, 404),
    path_params=(Param("code", "code"), Param("sessionKey", "session_key")), tags=("vouchers",), idempotent=True,
)

# -- the read endpoints of a pull (docs/reads.md): query declared here, carried out by sim/listing.py
#: A page's size and number, the service's bounds (customers and redemptions stop at page 99).
LIMIT = Param("limit", "limit", "integer", "How many objects a page holds.", minimum=1, maximum=100, default=10)
PAGE = Param("page", "page", "integer", "Which page, from 1.", minimum=1, maximum=100, default=1)
PAGE_99 = Param("page", "page", "integer", "Which page, from 1.", minimum=1, maximum=99, default=1)


def _order(*fields: str) -> Param:
    """`order`: one of `fields`, ascending, or descending with a `-`; newest first by default."""
    return Param("order", "order", "string", "Sort by this field; a leading - sorts descending.",
                 enum=tuple(f"{sign}{name}" for name in fields for sign in ("", "-")), default="-created_at")


def _instant(name: str, arg: str, description: str) -> Param:
    return Param(name, arg, "string", description, format="date-time")


_CREATED_BETWEEN = (
    _instant("start_date", "start_date", "Only objects created at or after this instant."),
    _instant("end_date", "end_date", "Only objects created at or before this instant."),
)
_PRODUCT_ID = Param("productId", "product_id")

LIST_PRODUCTS: Endpoint[ProductList] = Endpoint(
    "list_products", "GET", "/v1/products", "app", "listProducts", "List products", ProductList,
    query=(LIMIT, PAGE, _order("created_at", "updated_at"), *_CREATED_BETWEEN), tags=("products",), idempotent=True,
)
GET_PRODUCT: Endpoint[Product] = Endpoint(
    "get_product", "GET", "/v1/products/{productId}", "app", "getProduct", "Get a product (by id or source id)",
    Product, path_params=(_PRODUCT_ID,), tags=("products",), idempotent=True,
)
LIST_SKUS: Endpoint[SkuList] = Endpoint(
    "list_skus", "GET", "/v1/products/{productId}/skus", "app", "listSkusInProduct", "List a product's SKUs",
    SkuList, path_params=(_PRODUCT_ID,), query=(LIMIT, PAGE, _order("created_at", "updated_at"), *_CREATED_BETWEEN),
    tags=("products",), idempotent=True,
)
GET_SKU: Endpoint[Sku] = Endpoint(
    "get_sku", "GET", "/v1/skus/{skuId}", "app", "getSku", "Get a SKU (by id or source id)", Sku,
    path_params=(Param("skuId", "sku_id"),), tags=("products",), idempotent=True,
)
LIST_PRODUCT_COLLECTIONS: Endpoint[ProductCollectionList] = Endpoint(
    "list_product_collections", "GET", "/v1/product-collections", "app", "listProductCollections",
    "List product collections", ProductCollectionList, query=(LIMIT, PAGE, _order("created_at", "updated_at")),
    tags=("products",), idempotent=True,
)
LIST_COLLECTION_PRODUCTS: Endpoint[CollectionProductList] = Endpoint(
    "list_collection_products", "GET", "/v1/product-collections/{productCollectionId}/products", "app",
    "listProductsInCollection", "List the products and SKUs of a collection", CollectionProductList,
    path_params=(Param("productCollectionId", "collection_id"),),
    query=(LIMIT, PAGE, _order("created_at", "updated_at"),
           _instant("starting_after", "starting_after", "Only objects created after this instant.")),
    tags=("products",), idempotent=True,
)
_CUSTOMER_ID = Param("customerId", "customer_id")
LIST_CUSTOMERS: Endpoint[CustomerList] = Endpoint(
    "list_customers", "GET", "/v1/customers", "app", "listCustomers", "List customers", CustomerList,
    query=(
        LIMIT, PAGE_99,
        *(Param(name, name, "string", f"Only customers of this {name}.") for name in ("email", "city", "name")),
        Param("segment_id", "segment_id", "string", "Only customers of this segment."),
        _instant("created_at[before]", "created_before", "Only those created at or before this instant."),
        _instant("created_at[after]", "created_after", "Only those created at or after this instant."),
        _instant("updated_at[before]", "updated_before", "Only those updated at or before this instant."),
        _instant("updated_at[after]", "updated_after", "Only those updated at or after this instant."),
        _order("created_at", "updated_at", "source_id"),
        _instant("starting_after", "starting_after", "Only customers created after this instant (a cursor)."),
    ), tags=("customers",), idempotent=True,
)
GET_CUSTOMER: Endpoint[CustomerProfile] = Endpoint(
    "get_customer", "GET", "/v1/customers/{customerId}", "app", "getCustomer", "Get a customer (by id or source id)",
    CustomerProfile, path_params=(_CUSTOMER_ID,), tags=("customers",), idempotent=True,
)
LIST_CUSTOMER_SEGMENTS: Endpoint[CustomerSegmentList] = Endpoint(
    "list_customer_segments", "GET", "/v1/customers/{customerId}/segments", "app", "listCustomerSegments",
    "List the segments a customer is in", CustomerSegmentList, path_params=(_CUSTOMER_ID,),
    tags=("customers",), idempotent=True,
)
GET_SEGMENT: Endpoint[Segment] = Endpoint(
    "get_segment", "GET", "/v1/segments/{segmentId}", "app", "getSegment", "Get a segment", Segment,
    path_params=(Param("segmentId", "segment_id"),), tags=("customers",), idempotent=True,
)

LIST_REWARDS: Endpoint[ProjectRewardList] = Endpoint(
    "list_rewards", "GET", "/v1/rewards", "app", "listRewards", "List rewards", ProjectRewardList,
    query=(LIMIT, PAGE, Param("assignment_id", "assignment_id", "string", "Only the reward of this assignment.")),
    tags=("rewards",), idempotent=True,
)
GET_REWARD: Endpoint[ProjectReward] = Endpoint(
    "get_reward", "GET", "/v1/rewards/{rewardId}", "app", "getReward", "Get a reward", ProjectReward,
    path_params=(Param("rewardId", "reward_id"),), tags=("rewards",), idempotent=True,
)
LIST_ORDERS: Endpoint[OrderList] = Endpoint(
    "list_orders", "GET", "/v1/orders", "app", "listOrders", "List the orders redemptions were made on",
    OrderList, query=(LIMIT, PAGE, _order("created_at", "updated_at")), tags=("orders",), idempotent=True,
)
LIST_REDEMPTIONS: Endpoint[RedemptionList] = Endpoint(
    "list_redemptions", "GET", "/v1/redemptions", "app", "listRedemptions", "List redemptions and rollbacks",
    RedemptionList, query=(
        LIMIT, PAGE_99,
        Param("result", "result", "string", "Only SUCCESS or FAILURE ones."),
        Param("campaign", "campaign", "string", "Only those of this campaign (id)."),
        Param("customer", "customer", "string", "Only those of this customer (id)."),
        _order("created_at", "id", "voucher_code", "tracking_id", "customer_id"),
        _instant("created_at[before]", "created_before", "Only those made at or before this instant."),
        _instant("created_at[after]", "created_after", "Only those made at or after this instant."),
    ), tags=("redemptions",), idempotent=True,
)

#: The read endpoints of a pull, in the order the service's documents list them.
READS: tuple[Endpoint[Any], ...] = (
    LIST_PRODUCTS, GET_PRODUCT, LIST_SKUS, GET_SKU, LIST_PRODUCT_COLLECTIONS, LIST_COLLECTION_PRODUCTS,
    LIST_CUSTOMERS, GET_CUSTOMER, LIST_CUSTOMER_SEGMENTS, GET_SEGMENT, LIST_REWARDS, GET_REWARD, LIST_ORDERS,
    LIST_REDEMPTIONS,
)

#: Operations of the real service beyond the interface document, served and
#: journaled like the interface's own.
BEYOND_INTERFACE: tuple[Endpoint[Any], ...] = (
    CREATE_STACKING_RULES, LIST_STACKING_RULES, GET_STACKING_RULES, UPDATE_STACKING_RULES,
    DELETE_STACKING_RULES, VALIDATE_STACKED, QUALIFICATIONS, REDEEM_STACKED, ROLLBACK_REDEMPTION,
    RELEASE_SESSION, *READS,
)

#: Every operation of the service that promolab serves: the simulator binds
#: each to its implementation, the client has a method for each.
SERVICE: tuple[Endpoint[Any], ...] = (*INTERFACE, *BEYOND_INTERFACE)


def _control(name: str, method: str, path: str, operation_id: str, summary: str,
             errors: tuple[int, ...] = (401,), params: tuple[Param, ...] = ()) -> Endpoint[dict[str, Any]]:
    """A `/_sim/` endpoint: management credentials, a plain JSON answer."""
    return Endpoint(name, method, path, "management", operation_id, summary, error_statuses=errors,
                    path_params=params, control=True)


SIM_STATE = _control("sim_state", "GET", "/_sim/state", "simState", "Dump the whole state (secrets redacted)")
SIM_RESET = _control("reset", "POST", "/_sim/reset", "simReset", "Back to the scenario's initial state")
SIM_CLOCK = _control("sim_clock", "GET", "/_sim/clock", "simClock", "Read the simulated clock")
SIM_ADVANCE = _control("advance", "POST", "/_sim/clock/advance", "simAdvance",
                       "Advance the simulated clock, running due work", (400, 401))
SIM_SNAPSHOT = _control("sim_snapshot", "GET", "/_sim/snapshot", "simSnapshot",
                        "Take a snapshot (secrets redacted)")
SIM_RESTORE = _control("restore", "POST", "/_sim/restore", "simRestore",
                       "Restore a snapshot (the running secrets are kept)", (400, 401))
SIM_DELIVERIES = _control("sim_deliveries", "GET", "/_sim/webhooks/deliveries", "simDeliveries",
                          "Every webhook delivery attempt")
SIM_MEMBER = _control("sim_member", "GET", "/_sim/loyalty/members/{memberId}", "simMember",
                      "A member's cards, balances, transactions and rewards", (401, 404),
                      (Param("memberId", "member_id"),))
SIM_WHY_NOT = _control("sim_why_not", "POST", "/_sim/why-not", "simWhyNot",
                       "Why each redeemable of a stacked request was or was not applied", (400, 401))
SIM_WHY_NOT_QUALIFIED = _control("sim_why_not_qualified", "POST", "/_sim/why-not/qualifications",
                                 "simWhyNotQualified", "What a qualification left out, and why", (400, 401))
SIM_COVERAGE = _control("sim_coverage", "GET", "/_sim/coverage", "simCoverage",
                        "Which interface operations are implemented")

#: The served simulator's control API (like moto's `/moto-api/`).
CONTROL: tuple[Endpoint[dict[str, Any]], ...] = (
    SIM_STATE, SIM_RESET, SIM_CLOCK, SIM_ADVANCE, SIM_SNAPSHOT, SIM_RESTORE, SIM_DELIVERIES, SIM_MEMBER,
    SIM_WHY_NOT, SIM_WHY_NOT_QUALIFIED, SIM_COVERAGE,
)

#: The served document itself (no credentials).
OPENAPI: Endpoint[dict[str, Any]] = Endpoint(
    "openapi", "GET", "/openapi.json", "none", "openapi", "This document", control=True,
)

ENDPOINTS: tuple[Endpoint[Any], ...] = (*SERVICE, *CONTROL, OPENAPI)
_BY_NAME = {e.name: e for e in ENDPOINTS}


def endpoint_named(name: str) -> Endpoint[Any]:
    """The endpoint of operation `name` (`KeyError` names the known ones)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no endpoint {name!r}; known: {', '.join(sorted(_BY_NAME))}") from None
