"""What each client method sends, as a pure function of its arguments.

Each function turns a method's arguments into a `Prepared` call of one
endpoint (`models.endpoints`): the path filled in, the body, the query.
`Client` sends it and `AsyncClient` awaits it (`_methods.py`), so the two
cannot drift apart, and these can be tested without any network.

A request may be given as its model, as a mapping, or as keyword fields
(None left out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import models
from ..models import endpoints as e
from ._requests import Prepared, body_of, flatten_filters

__all__ = [
    "add_gift_balance",
    "create_stacking_rules",
    "delete_reward",
    "delete_stacking_rules",
    "delete_webhook",
    "get_incentive",
    "get_stacking_rules",
    "list_stacking_rules",
    "publish",
    "purchase_reward",
    "qualifications",
    "redeem_stacked",
    "release_session",
    "rollback_redemption",
    "track_event",
    "update_stacking_rules",
    "validate_promotions",
    "validate_stacked",
]


def _call(endpoint: e.Endpoint[Any], **path_args: str) -> Prepared[Any]:
    return Prepared(endpoint, endpoint.url_path(**path_args), idempotent=endpoint.idempotent)


# -- loyalty v2 ------------------------------------------------------------------------------


def get_incentive(incentive_id: str) -> Prepared[models.Incentive]:
    """Read one incentive (`linc_...`) of a loyalty program."""
    return _call(e.GET_INCENTIVE, incentive_id=incentive_id)


def purchase_reward(program_id: str, member_id: str, reward_id: str) -> Prepared[models.RewardPurchaseResult]:
    """Start a reward purchase for a member; it settles when the service
    processes it (on the simulated clock, for a simulator)."""
    endpoint = e.PURCHASE_REWARD
    return Prepared(endpoint, endpoint.url_path(program_id=program_id, member_id=member_id),
                    json={"reward_id": reward_id})


def delete_reward(reward_id: str) -> Prepared[models.Reward]:
    """Delete a reward no program offers any more (it stays readable, DELETED)."""
    return _call(e.DELETE_REWARD, reward_id=reward_id)


# -- management --------------------------------------------------------------------------------


def delete_webhook(project_id: str, webhook_id: str) -> Prepared[None]:
    """Delete a webhook configuration of a project (management credentials)."""
    return _call(e.DELETE_WEBHOOK, project_id=project_id, webhook_id=webhook_id)


StackingRulesBody = models.StackingRulesChange | Mapping[str, Any] | None


def create_stacking_rules(
    project_id: str, request: StackingRulesBody = None, **settings: Any
) -> Prepared[models.ProjectStackingRules]:
    """Write the project's stacking rules (the fields given; the defaults for
    the rest). 409 when the project has them already: update them instead."""
    endpoint = e.CREATE_STACKING_RULES
    return Prepared(endpoint, endpoint.url_path(project_id=project_id), body_of(request, settings))


def list_stacking_rules(project_id: str) -> Prepared[models.StackingRulesList]:
    """The project's stacking rules as a list: one object, or none while the defaults apply."""
    return _call(e.LIST_STACKING_RULES, project_id=project_id)


def get_stacking_rules(project_id: str, stacking_rules_id: str) -> Prepared[models.ProjectStackingRules]:
    """The project's stacking rules by id (`stk_...`)."""
    return _call(e.GET_STACKING_RULES, project_id=project_id, stacking_rules_id=stacking_rules_id)


def update_stacking_rules(
    project_id: str, stacking_rules_id: str, request: StackingRulesBody = None, **settings: Any
) -> Prepared[models.ProjectStackingRules]:
    """Change the fields given (an array given replaces the stored one). To
    send a per-category limit as null (no limit), pass a model or a mapping."""
    endpoint = e.UPDATE_STACKING_RULES
    path = endpoint.url_path(project_id=project_id, stacking_rules_id=stacking_rules_id)
    return Prepared(endpoint, path, body_of(request, settings), idempotent=True)


def delete_stacking_rules(project_id: str, stacking_rules_id: str) -> Prepared[None]:
    """Delete the project's stacking rules: the defaults apply again."""
    return _call(e.DELETE_STACKING_RULES, project_id=project_id, stacking_rules_id=stacking_rules_id)


# -- v1 / client ----------------------------------------------------------------------------


def publish(
    request: models.PublishRequest | Mapping[str, Any] | None = None,
    *,
    voucher: str | None = None,
    customer: Mapping[str, Any] | None = None,
    campaign: Mapping[str, Any] | None = None,
    source_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    channel: str | None = None,
    join_once: bool = False,
) -> Prepared[models.Publication]:
    """Publish a voucher to a customer. With a `source_id` the call is
    idempotent (the same publication comes back), so it is retried after a
    timeout; without one it is not."""
    endpoint = e.PUBLISH
    body = body_of(request, {"voucher": voucher, "customer": customer, "campaign": campaign,
                             "source_id": source_id, "metadata": metadata, "channel": channel})
    params = [(endpoint.query_name("join_once"), "true")] if join_once else []
    return Prepared(endpoint, endpoint.path, body, params, idempotent=body.get("source_id") is not None)


def validate_promotions(
    request: models.ValidationRequest | Mapping[str, Any] | None = None,
    *,
    customer: Mapping[str, Any] | None = None,
    order: Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    audience_rules_only: bool = False,
    filters: Mapping[str, Any] | None = None,
) -> Prepared[models.ValidationResponse]:
    """Which promotion tiers apply to this customer and order, and what each
    does to the order. `filters` are sent bracketed, as the real SDKs do."""
    endpoint = e.VALIDATE
    body = body_of(request, {"customer": customer, "order": order, "metadata": metadata, "options": options})
    params = [(endpoint.query_name("audience_rules_only"), "true")] if audience_rules_only else []
    if filters:
        params += flatten_filters(filters, endpoint.query_name("filters"))
    return Prepared(endpoint, endpoint.path, body, params, idempotent=True)


def validate_stacked(
    request: StackedBody = None,
    *,
    redeemables: Sequence[Mapping[str, Any]] | None = None,
    customer: Mapping[str, Any] | None = None,
    order: Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    session: Mapping[str, Any] | None = None,
) -> Prepared[models.StackedValidationResponse]:
    """Several codes, gift cards and promotion tiers priced together on one
    order, under the project's stacking rules (`VALIDATE_STACKED`)."""
    body = _stacked_body(request, redeemables, customer, order, metadata, options, session)
    return Prepared(e.VALIDATE_STACKED, e.VALIDATE_STACKED.path, body, idempotent=True)


def qualifications(
    request: models.QualificationRequest | Mapping[str, Any] | None = None,
    *,
    customer: Mapping[str, Any] | None = None,
    order: Mapping[str, Any] | None = None,
    scenario: str | None = None,
    options: Mapping[str, Any] | None = None,
    tracking_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Prepared[models.QualificationResponse]:
    """Which redeemables this customer can get for this cart, each priced
    alone, best deal first with `options={"sorting_rule": "BEST_DEAL"}`
    (`QUALIFICATIONS`); page with `options={"starting_after": page.more_starting_after}`."""
    body = body_of(request, {"customer": customer, "order": order, "scenario": scenario, "options": options,
                             "tracking_id": tracking_id, "metadata": metadata})
    return Prepared(e.QUALIFICATIONS, e.QUALIFICATIONS.path, body, idempotent=True)


StackedBody = models.StackedValidationRequest | Mapping[str, Any] | None


def _stacked_body(
    request: StackedBody,
    redeemables: Sequence[Mapping[str, Any]] | None,
    customer: Mapping[str, Any] | None,
    order: Mapping[str, Any] | None,
    metadata: Mapping[str, Any] | None,
    options: Mapping[str, Any] | None,
    session: Mapping[str, Any] | None,
) -> Any:
    """The body of a stacked validation or redemption (the same request)."""
    return body_of(request, {"redeemables": list(redeemables) if redeemables is not None else None,
                             "customer": customer, "order": order, "metadata": metadata, "options": options,
                             "session": session})


def redeem_stacked(
    request: StackedBody = None,
    *,
    redeemables: Sequence[Mapping[str, Any]] | None = None,
    customer: Mapping[str, Any] | None = None,
    order: Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    session: Mapping[str, Any] | None = None,
) -> Prepared[models.RedemptionResponse]:
    """Redeem several codes, gift cards and tiers together: what
    `validate_stacked` prices, spent (`REDEEM_STACKED`). Not retried
    after a timeout: it may have been done."""
    body = _stacked_body(request, redeemables, customer, order, metadata, options, session)
    return Prepared(e.REDEEM_STACKED, e.REDEEM_STACKED.path, body)


def rollback_redemption(
    redemption_id: str,
    request: models.RollbackRequest | Mapping[str, Any] | None = None,
    *,
    reason: str | None = None,
    tracking_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Prepared[models.RollbackResponse]:
    """Roll back a redemption with all its children (a parent, or a
    redemption without one); `reason` and `tracking_id` go in the body."""
    endpoint = e.ROLLBACK_REDEMPTION
    body = body_of(request, {"reason": reason, "tracking_id": tracking_id, "metadata": metadata})
    return Prepared(endpoint, endpoint.url_path(redemption_id=redemption_id), body)


def release_session(code: str, session_key: str) -> Prepared[None]:
    """Release what a validation session (LOCK) holds of a code."""
    return _call(e.RELEASE_SESSION, code=code, session_key=session_key)


def track_event(
    request: models.CustomEventRequest | Mapping[str, Any] | None = None,
    *,
    event: str | None = None,
    customer: Mapping[str, Any] | None = None,
    referral: Mapping[str, Any] | None = None,
    loyalty: Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Prepared[models.CustomEventResult]:
    """Send a custom event (earning rules and referrals react to it)."""
    body = body_of(request, {"event": event, "customer": customer, "referral": referral,
                             "loyalty": loyalty, "metadata": metadata})
    return Prepared(e.TRACK_EVENT, e.TRACK_EVENT.path, body)


def add_gift_balance(
    code: str, amount: int, *, source_id: str | None = None, reason: str | None = None
) -> Prepared[models.BalanceResult]:
    """Add `amount` (minor units) to a gift voucher's balance."""
    endpoint = e.ADD_GIFT_BALANCE
    body = body_of(None, {"amount": amount, "source_id": source_id, "reason": reason})
    return Prepared(endpoint, endpoint.url_path(code=code), body)


# -- the served simulator's control API ---------------------------------------------------------


def sim_state() -> Prepared[dict[str, Any]]:
    """The whole state (secrets redacted)."""
    return _call(e.SIM_STATE)


def sim_reset() -> Prepared[dict[str, Any]]:
    """Back to the scenario's initial state."""
    return _call(e.SIM_RESET)


def sim_clock() -> Prepared[dict[str, Any]]:
    """`{"now": ...}`: the simulated clock."""
    return _call(e.SIM_CLOCK)


def sim_advance(seconds: float) -> Prepared[dict[str, Any]]:
    """Move the simulated clock forward, running the work due on the way."""
    return Prepared(e.SIM_ADVANCE, e.SIM_ADVANCE.path, {"seconds": seconds})


def sim_snapshot() -> Prepared[dict[str, Any]]:
    """A snapshot to restore later (secrets redacted)."""
    return _call(e.SIM_SNAPSHOT)


def sim_restore(snapshot: Mapping[str, Any]) -> Prepared[dict[str, Any]]:
    """Restore a snapshot (the running secrets are kept)."""
    return Prepared(e.SIM_RESTORE, e.SIM_RESTORE.path, dict(snapshot))


def sim_webhook_deliveries() -> Prepared[dict[str, Any]]:
    """`{"object": "list", "data": [attempt, ...]}`, oldest attempt first."""
    return _call(e.SIM_DELIVERIES)


def sim_member(member_id: str) -> Prepared[dict[str, Any]]:
    """A member's cards, balances, card transactions and granted rewards."""
    return _call(e.SIM_MEMBER, member_id=member_id)


def sim_why_not(request: models.StackedValidationRequest | Mapping[str, Any]) -> Prepared[dict[str, Any]]:
    """`{"object": "list", "data": [{position, tried, id, object, kind, status,
    applied, key, message, why}]}`: each redeemable of a stacked request,
    whether it applied and, if not, the rule or limit that stopped it and
    what it saw. Prices like a validation; changes nothing."""
    return Prepared(e.SIM_WHY_NOT, e.SIM_WHY_NOT.path, body_of(request, {}))


def sim_why_not_qualified(request: models.QualificationRequest | Mapping[str, Any]) -> Prepared[dict[str, Any]]:
    """`{"object": "list", "data": [{id, object, key, message}]}`: every
    redeemable a qualifications request considered and did not return, and
    the check that excluded it. Changes nothing."""
    return Prepared(e.SIM_WHY_NOT_QUALIFIED, e.SIM_WHY_NOT_QUALIFIED.path, body_of(request, {}))


def sim_coverage() -> Prepared[dict[str, Any]]:
    """`{"object": "list", "data": [{method, path, operation, implemented}]}`:
    which routes of the service this simulator implements."""
    return _call(e.SIM_COVERAGE)
