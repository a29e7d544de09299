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
control API's) is written here or in a family's module this one gathers
(`read_endpoints`, `rule_reads`, `loyalty_reads`, `campaign_reads`,
`promotion_reads`: the read endpoints of a pull; `export_endpoints`: the
exports), and nowhere else; the
`Endpoint` and `Param` themselves are in `models.endpoint`.
"""

from __future__ import annotations

from typing import Any

from . import (
    campaign_reads,
    export_endpoints,
    loyalty_reads,
    promotion_reads,
    read_endpoints,
    rule_reads,
)
from .balance import AddBalanceRequest, BalanceResult
from .custom_events import CustomEventRequest, CustomEventResult
from .endpoint import Auth, Endpoint, Param
from .incentives import Incentive
from .promotions import ValidationRequest, ValidationResponse
from .publications import Publication, PublishRequest
from .qualifications import QualificationRequest, QualificationResponse
from .redemptions import RedemptionResponse, RollbackRequest, RollbackResponse
from .rewards import Reward, RewardPurchaseRequest, RewardPurchaseResult
from .stacked_validations import StackedValidationRequest, StackedValidationResponse
from .stacking_rules import ProjectStackingRules, StackingRulesChange, StackingRulesList

__all__ = [
    "BEYOND_INTERFACE",
    "CONTROL",
    "ENDPOINTS",
    "INTERFACE",
    "OPENAPI",
    "READS",
    "SERVICE",
    "Auth",
    "Endpoint",
    "Param",
    "endpoint_named",
]

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

#: The read endpoints of a pull, in the order the service's documents list them.
READS: tuple[Endpoint[Any], ...] = (
    *read_endpoints.READS, *rule_reads.READS, *loyalty_reads.READS, *campaign_reads.READS, *promotion_reads.READS)

#: Operations of the real service beyond the interface document, served and
#: journaled like the interface's own.
BEYOND_INTERFACE: tuple[Endpoint[Any], ...] = (
    CREATE_STACKING_RULES, LIST_STACKING_RULES, GET_STACKING_RULES, UPDATE_STACKING_RULES,
    DELETE_STACKING_RULES, VALIDATE_STACKED, QUALIFICATIONS, REDEEM_STACKED, ROLLBACK_REDEMPTION,
    RELEASE_SESSION, *READS, *export_endpoints.ENDPOINTS,
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
