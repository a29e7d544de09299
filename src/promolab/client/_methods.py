"""The client's operations, written once for both `Client` and `AsyncClient`.

Each method only builds a `Spec` and hands it to `self._call`, which the sync
client runs to a result and the async client turns into a coroutine (so on
`AsyncClient` every method is awaited). One body per operation means the two
clients cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from .. import models
from ._requests import Spec, body_of, flatten_filters

__all__ = ["ControlOperations", "Operations"]


def _seg(value: str) -> str:
    return quote(value, safe="")


class Operations:
    def _call(self, spec: Spec) -> Any:  # pragma: no cover - provided by subclasses
        raise NotImplementedError

    # -- loyalty v2 ----------------------------------------------------------
    def get_incentive(self, incentive_id: str) -> models.Incentive:
        """GET /v2/loyalties/incentives/{id}."""
        return self._call(Spec("GET", f"/v2/loyalties/incentives/{_seg(incentive_id)}", "loyalty", models.Incentive, idempotent=True))  # type: ignore[no-any-return]

    def purchase_reward(self, program_id: str, member_id: str, reward_id: str) -> models.RewardPurchaseResult:
        """Starts a purchase; the outcome settles when the service processes it."""
        path = f"/v2/loyalties/programs/{_seg(program_id)}/members/{_seg(member_id)}/rewards/purchases"
        return self._call(Spec("POST", path, "loyalty", models.RewardPurchaseResult, json={"reward_id": reward_id}))  # type: ignore[no-any-return]

    def delete_reward(self, reward_id: str) -> models.Reward:
        return self._call(Spec("DELETE", f"/v2/loyalties/rewards/{_seg(reward_id)}", "loyalty", models.Reward, idempotent=True))  # type: ignore[no-any-return]

    # -- management ------------------------------------------------------------
    def delete_webhook(self, project_id: str, webhook_id: str) -> None:
        path = f"/management/v1/projects/{_seg(project_id)}/webhooks/{_seg(webhook_id)}"
        return self._call(Spec("DELETE", path, "management", None, idempotent=True))  # type: ignore[no-any-return]

    # -- v1 / client -------------------------------------------------------------
    def publish(
        self,
        request: models.PublishRequest | Mapping[str, Any] | None = None,
        *,
        voucher: str | None = None,
        customer: Mapping[str, Any] | None = None,
        campaign: Mapping[str, Any] | None = None,
        source_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        channel: str | None = None,
        join_once: bool = False,
    ) -> models.Publication:
        body = body_of(request, {"voucher": voucher, "customer": customer, "campaign": campaign,
                                 "source_id": source_id, "metadata": metadata, "channel": channel})
        params = [("join_once", "true")] if join_once else []
        return self._call(Spec("POST", "/client/v1/publish", "app", models.Publication, json=body, params=params,  # type: ignore[no-any-return]
                               idempotent=body.get("source_id") is not None))

    def validate_promotions(
        self,
        request: models.ValidationRequest | Mapping[str, Any] | None = None,
        *,
        customer: Mapping[str, Any] | None = None,
        order: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        audience_rules_only: bool = False,
        filters: Mapping[str, Any] | None = None,
    ) -> models.ValidationResponse:
        body = body_of(request, {"customer": customer, "order": order, "metadata": metadata, "options": options})
        params = [("audienceRulesOnly", "true")] if audience_rules_only else []
        if filters:
            params += flatten_filters(filters)
        return self._call(Spec("POST", "/v1/promotions/validation", "app", models.ValidationResponse,  # type: ignore[no-any-return]
                               json=body, params=params, idempotent=True))

    def track_event(
        self,
        request: models.CustomEventRequest | Mapping[str, Any] | None = None,
        *,
        event: str | None = None,
        customer: Mapping[str, Any] | None = None,
        referral: Mapping[str, Any] | None = None,
        loyalty: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> models.CustomEventResult:
        body = body_of(request, {"event": event, "customer": customer, "referral": referral,
                                 "loyalty": loyalty, "metadata": metadata})
        return self._call(Spec("POST", "/v1/events", "app", models.CustomEventResult, json=body))  # type: ignore[no-any-return]

    def add_gift_balance(self, code: str, amount: int, *, source_id: str | None = None, reason: str | None = None) -> models.BalanceResult:
        body = body_of(None, {"amount": amount, "source_id": source_id, "reason": reason})
        return self._call(Spec("POST", f"/v1/vouchers/{_seg(code)}/balance", "app", models.BalanceResult, json=body))  # type: ignore[no-any-return]


class ControlOperations:
    """The served simulator's `/_sim/` control API (management credentials)."""

    def __init__(self, call: Any) -> None:
        self._call = call

    def state(self) -> dict[str, Any]:
        return self._call(Spec("GET", "/_sim/state", "management", None), raw=True)  # type: ignore[no-any-return]

    def reset(self) -> dict[str, Any]:
        return self._call(Spec("POST", "/_sim/reset", "management", None), raw=True)  # type: ignore[no-any-return]

    def clock(self) -> dict[str, Any]:
        return self._call(Spec("GET", "/_sim/clock", "management", None), raw=True)  # type: ignore[no-any-return]

    def advance(self, seconds: float) -> dict[str, Any]:
        return self._call(Spec("POST", "/_sim/clock/advance", "management", None, json={"seconds": seconds}), raw=True)  # type: ignore[no-any-return]

    def snapshot(self) -> dict[str, Any]:
        return self._call(Spec("GET", "/_sim/snapshot", "management", None), raw=True)  # type: ignore[no-any-return]

    def restore(self, snapshot: Mapping[str, Any]) -> dict[str, Any]:
        return self._call(Spec("POST", "/_sim/restore", "management", None, json=dict(snapshot)), raw=True)  # type: ignore[no-any-return]

    def webhook_deliveries(self) -> dict[str, Any]:
        """`{"object": "list", "data": [attempt, ...]}`, oldest attempt first."""
        return self._call(Spec("GET", "/_sim/webhooks/deliveries", "management", None), raw=True)  # type: ignore[no-any-return]

    def member(self, member_id: str) -> dict[str, Any]:
        """A member's cards, balances, card transactions and granted rewards."""
        return self._call(Spec("GET", f"/_sim/loyalty/members/{_seg(member_id)}", "management", None), raw=True)  # type: ignore[no-any-return]
