"""ROUTES: the interface's endpoints, plus gift balance and the control API."""

from __future__ import annotations

from typing import Any

from .. import models
from ..sim.operations import REGISTRY
from . import control, handlers
from .auth import AuthKind
from .routes import Call, Route

__all__ = ["ROUTES"]

_APP_ERRORS = (400, 401, 404)


def coverage(call: Call) -> tuple[int, Any]:
    """`GET /_sim/coverage`: which interface routes of this table are implemented.
    Beside the table it lists (a handler elsewhere would import the table back)."""
    rows = [
        {
            "method": r.method,
            "path": r.path,
            "operation": r.operation,
            "implemented": r.operation is None or r.operation in REGISTRY,
        }
        for r in ROUTES
        if not r.control
    ]
    return 200, {"object": "list", "data": rows}


ROUTES: list[Route] = [
    Route(
        "GET", "/v2/loyalties/incentives/{id}", AuthKind.LOYALTY, handlers.get_incentive,
        operation_id="getIncentive", summary="Get an incentive", operation="get_incentive",
        response_model=models.Incentive, path_patterns={"id": r"^linc_[a-f0-9]+$"}, tags=("loyalty",),
    ),
    Route(
        "POST", "/v2/loyalties/programs/{programId}/members/{memberId}/rewards/purchases", AuthKind.LOYALTY,
        handlers.purchase_reward, operation_id="purchaseReward", summary="Purchase a reward",
        operation="purchase_reward", request_model=models.RewardPurchaseRequest,
        response_model=models.RewardPurchaseResult, status=202, error_statuses=(400, 401, 404, 423),
        tags=("loyalty",),
    ),
    Route(
        "DELETE", "/v2/loyalties/rewards/{id}", AuthKind.LOYALTY, handlers.delete_reward,
        operation_id="deleteReward", summary="Delete a reward", operation="delete_reward",
        response_model=models.Reward, tags=("loyalty",),
    ),
    Route(
        "DELETE", "/management/v1/projects/{projectId}/webhooks/{webhookId}", AuthKind.MANAGEMENT,
        handlers.delete_webhook, operation_id="deleteWebhook", summary="Delete a webhook configuration",
        operation="delete_webhook", status=204, error_statuses=(401, 404), tags=("management",),
    ),
    Route(
        "POST", "/client/v1/publish", AuthKind.APP, handlers.publish, operation_id="publishVoucher",
        summary="Publish a voucher", operation="publish", request_model=models.PublishRequest,
        response_model=models.Publication,
        query=(("join_once", "boolean", "One and always the same code per customer."),),
        tags=("publications",),
    ),
    Route(
        "POST", "/v1/promotions/validation", AuthKind.APP, handlers.validate_promotions,
        operation_id="validatePromotions", summary="Validate promotions", operation="validate",
        request_model=models.ValidationRequest, response_model=models.ValidationResponse,
        query=(
            ("audienceRulesOnly", "boolean", "Check only customer-related rules."),
            ("filters", "object", "Promotion filters, bracketed or JSON."),
        ),
        tags=("validation",),
    ),
    Route(
        "POST", "/v1/events", AuthKind.APP, handlers.track_event, operation_id="trackCustomEvent",
        summary="Send a custom event", operation="track_event", request_model=models.CustomEventRequest,
        response_model=models.CustomEventResult, tags=("events",),
    ),
    Route(
        "POST", "/v1/vouchers/{code}/balance", AuthKind.APP, handlers.add_gift_balance,
        operation_id="addGiftBalance", summary="Add balance to a gift voucher", operation="add_gift_balance",
        request_model=models.AddBalanceRequest, response_model=models.BalanceResult, tags=("vouchers",),
    ),
    # -- control API ------------------------------------------------------
    Route("GET", "/_sim/state", AuthKind.MANAGEMENT, control.state, operation_id="simState",
          summary="Dump the whole state (secrets redacted)", control=True, error_statuses=(401,)),
    Route("POST", "/_sim/reset", AuthKind.MANAGEMENT, control.reset, operation_id="simReset",
          summary="Back to the scenario's initial state", control=True, error_statuses=(401,)),
    Route("GET", "/_sim/clock", AuthKind.MANAGEMENT, control.clock, operation_id="simClock",
          summary="Read the simulated clock", control=True, error_statuses=(401,)),
    Route("POST", "/_sim/clock/advance", AuthKind.MANAGEMENT, control.advance, operation_id="simAdvance",
          summary="Advance the simulated clock, running due work", control=True,
          request_model=control.AdvanceRequest, error_statuses=(400, 401)),
    Route("GET", "/_sim/snapshot", AuthKind.MANAGEMENT, control.snapshot, operation_id="simSnapshot",
          summary="Take a snapshot (secrets redacted)", control=True, error_statuses=(401,)),
    Route("POST", "/_sim/restore", AuthKind.MANAGEMENT, control.restore, operation_id="simRestore",
          summary="Restore a snapshot (the running secrets are kept)", control=True, error_statuses=(400, 401)),
    Route("GET", "/_sim/webhooks/deliveries", AuthKind.MANAGEMENT, control.deliveries,
          operation_id="simDeliveries", summary="Every webhook delivery attempt", control=True,
          error_statuses=(401,)),
    Route("GET", "/_sim/loyalty/members/{memberId}", AuthKind.MANAGEMENT, control.member,
          operation_id="simMember", summary="A member's cards, balances, transactions and rewards",
          control=True, error_statuses=(401, 404)),
    Route("GET", "/_sim/coverage", AuthKind.MANAGEMENT, coverage, operation_id="simCoverage",
          summary="Which interface operations are implemented", control=True, error_statuses=(401,)),
]
