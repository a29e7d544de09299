"""Adding balance to a gift voucher (`endpoints.ADD_GIFT_BALANCE`).

400 `invalid_add_balance_params` for an amount <= 0 (the real service also
subtracts with a negative amount; this simulator only adds), 400
`invalid_voucher` for a code that is not a gift voucher (loyalty cards
included: their points live in loyalty v2 cards here), 404 for an unknown code.
Writes a CREDITS_ADDITION transaction and emits
EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED (see `promolab.sim.gift`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import models
from ...models import endpoints
from ..fast_validate import validated
from ..gift import credit_gift_balance
from ..operation import bind
from ..refusals import NotFound
from ..request_parsing import parse

if TYPE_CHECKING:
    from ..simulator import Simulator


def add_gift_balance(sim: Simulator, *, code: str, request: Any) -> models.BalanceResult:
    body = parse(models.AddBalanceRequest, request)
    vid = sim.indexes.voucher_by_code.get(code)
    if vid is None:
        raise NotFound("voucher", code)
    voucher = sim.state.vouchers[vid]
    # checks the credit (400s) before changing anything
    credit_gift_balance(sim, voucher, body.amount, source_id=body.source_id, reason=body.reason)
    gift = voucher.gift
    assert gift is not None
    return validated(
        models.BalanceResult,
        {
            "amount": body.amount,
            "total": gift.amount,
            "balance": gift.balance,
            "type": "gift_voucher",
            "operation_type": "MANUAL",
            "object": "balance",
            "related_object": {"type": "voucher", "id": voucher.id},
        }
    )


ADD_GIFT_BALANCE = bind(endpoints.ADD_GIFT_BALANCE, add_gift_balance, write=True)
