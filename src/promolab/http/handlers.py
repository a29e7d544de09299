"""Handlers of the interface's endpoints: HTTP in, simulator operation, HTTP out.

Handlers hold no business rules: they pick parameters out of the request,
call the operation and say which status a success gets.
"""

from __future__ import annotations

from typing import Any

from .query import query_bool, query_filters
from .routes import Call

__all__ = [
    "add_gift_balance",
    "delete_reward",
    "delete_webhook",
    "get_incentive",
    "publish",
    "purchase_reward",
    "track_event",
    "validate_promotions",
]


def get_incentive(call: Call) -> tuple[int, Any]:
    return 200, call.sim.apply("get_incentive", incentive_id=call.params["id"])


def purchase_reward(call: Call) -> tuple[int, Any]:
    result = call.sim.apply(
        "purchase_reward",
        program_id=call.params["programId"],
        member_id=call.params["memberId"],
        request=call.body,
    )
    return 202, result


def delete_reward(call: Call) -> tuple[int, Any]:
    return 200, call.sim.apply("delete_reward", reward_id=call.params["id"])


def delete_webhook(call: Call) -> tuple[int, Any]:
    call.sim.apply("delete_webhook", project_id=call.params["projectId"], webhook_id=call.params["webhookId"])
    return 204, None


def publish(call: Call) -> tuple[int, Any]:
    join_once = query_bool(call.query, "join_once")
    return 200, call.sim.apply("publish", request=call.body, join_once=join_once)


def validate_promotions(call: Call) -> tuple[int, Any]:
    audience_only = query_bool(call.query, "audienceRulesOnly")
    filters = query_filters(call.query)
    body = call.body if call.body is not None else {}
    return 200, call.sim.apply("validate", request=body, audience_rules_only=audience_only, filters=filters)


def track_event(call: Call) -> tuple[int, Any]:
    return 200, call.sim.apply("track_event", request=call.body)


def add_gift_balance(call: Call) -> tuple[int, Any]:
    return 200, call.sim.apply("add_gift_balance", code=call.params["code"], request=call.body)
