"""Purchasing a loyalty reward (endpoint 2).

The request is checked at once (`loyalty.purchases`: 404, 400, 423, nothing
stored on a refusal). An accepted purchase of a priced reward answers 202
`TRANSACTION_CREATED` with a PENDING `POINTS_SPENT_ON_REWARD` card
transaction, due `settings.purchase_delay_seconds` later, when
`loyalty.purchase_settlement` approves or rejects it. A reward whose cost is 0 points
is handed over at once: `NO_SPENT_ON_REWARD`, no transaction (the answer has
no `transaction` key: the interface types it as an object, never null).
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ... import models
from ...models import endpoints
from ..clock import later_or_end
from ..fast_validate import validated
from ..loyalty import ledger
from ..loyalty.granting import grant
from ..loyalty.purchases import check_request
from ..loyalty.reservations import PURCHASE_TYPE
from ..operation import bind
from ..render.loyalty import render_card_transaction
from ..request_parsing import parse

if TYPE_CHECKING:
    from ..simulator import Simulator

CREATED_MESSAGE = "Points spent on reward transaction created"
FREE_MESSAGE = "The reward costs no points and has been granted"


def purchase_reward(
    sim: Simulator, *, program_id: str, member_id: str, request: Any
) -> models.RewardPurchaseResult:
    target, price = check_request(sim, program_id, member_id, parse(models.RewardPurchaseRequest, request).reward_id)
    assignment = target.assignment
    if price.card is None:
        grant(sim, target.member, target.reward, transaction_id=None)
        if assignment.stock is not None:
            assignment.stock -= 1
        return validated(
            models.RewardPurchaseResult,
            {"status": models.PurchaseStatus.NO_SPENT_ON_REWARD, "message": FREE_MESSAGE},  # no transaction
        )
    now = sim.now
    record = ledger.post(
        sim,
        price.card,
        type=PURCHASE_TYPE,
        points=-price.points,
        status="PENDING",
        details={
            "reason": f"Reward purchase: {target.reward.name}",
            "metadata": {},
            # (no expiration or date: a spend has none, and the wire leaves them out)
            "points": {"total": price.points},
            "reward_id": target.reward.id,
        },
        due_at=later_or_end(now, timedelta(seconds=sim.state.settings.purchase_delay_seconds)),
        reward_assignment_id=assignment.id,
    )
    return validated(
        models.RewardPurchaseResult,
        {
            "status": models.PurchaseStatus.TRANSACTION_CREATED,
            "message": CREATED_MESSAGE,
            "transaction": render_card_transaction(record),
        },
    )


PURCHASE_REWARD = bind(endpoints.PURCHASE_REWARD, purchase_reward, write=True)
