"""Gift card credit: adding balance, issuing gift cards, and the webhook.

`credit_gift_balance` is the one writer of gift balances: it moves
`gift.amount` (lifetime credited) and `gift.balance` (left to spend) by the
same amount, writes a CREDITS_ADDITION `VoucherTransaction`, and emits
EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED when the card has a holder (the
event is about a customer's gift voucher: an unpublished card has no customer
to put in the payload, so it is credited silently).

`issue_gift_voucher` hands a customer a gift card worth `balance`:
- a campaign with `join_once` that already gave the customer a card credits
  that card (one card per customer);
- otherwise it takes the campaign's first free code (no holder, never
  published, active) and, when none is left, generates a new code (prefix
  shared by the campaign's codes + 8 characters, seeded) rather than refusing:
  a gift card bought with points must not fail for want of pre-generated codes;
- the card's template credit (the campaign's `gift_amount`) is replaced by
  exactly `balance`: the card starts at 0 and `balance` is added through
  `credit_gift_balance`, so the transaction and the webhook say what was given.

Both check everything before changing anything: a SimError means no change.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from .. import models
from .fast_validate import validated
from .publishing import Selection, apply_publication, publication_fingerprint
from .publishing_lookups import campaign_codes, free_code, held_codes, register_voucher
from .records import GiftState, Voucher, VoucherTransaction
from .refusals import BadRequest, NotFound
from .render.customers import customer_body
from .render.vouchers import (
    code_prefix,
    first_category,
    render_balance,
    render_simple_campaign,
    render_simple_voucher,
    render_voucher_transaction,
)
from .webhooks import emit, subscribers

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = ["GIFT_BALANCE_ADDED", "check_gift_credit", "credit_gift_balance", "issue_gift_voucher"]

GIFT_BALANCE_ADDED = models.GIFT_BALANCE_ADDED
_INT64_MAX = 2**63 - 1
_CHARSET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def check_gift_credit(voucher: Voucher, amount: int) -> None:
    """Refuse what `credit_gift_balance` cannot do (400s), changing nothing."""
    if voucher.type != "GIFT_VOUCHER" or voucher.gift is None:
        raise BadRequest(
            f"Voucher {voucher.code} is not a gift voucher; balance can be added to gift vouchers only",
            key="invalid_voucher",
            message="Invalid voucher",
            resource_id=voucher.id,
            resource_type="voucher",
        )
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise BadRequest(
            f"Amount must be a positive integer (cents), got {amount!r}",
            key="invalid_add_balance_params",
            message="Invalid add balance params",
        )
    if voucher.gift.amount + amount > _INT64_MAX:
        raise BadRequest(
            f"Adding {amount} would overflow the gift amount of voucher {voucher.code}",
            key="invalid_add_balance_params",
            message="Invalid add balance params",
            resource_id=voucher.id,
            resource_type="voucher",
        )


def credit_gift_balance(
    sim: Simulator,
    voucher: Voucher,
    amount: int,
    *,
    source_id: str | None = None,
    reason: str | None = None,
    source: str | None = "API",
) -> VoucherTransaction:
    """Add `amount` cents to a gift voucher; returns the CREDITS_ADDITION
    transaction. Raises 400 `invalid_voucher` (not a gift voucher) or
    `invalid_add_balance_params` (amount <= 0) before changing anything."""
    check_gift_credit(voucher, amount)
    gift = voucher.gift
    assert gift is not None
    now = sim.now
    gift.amount += amount
    gift.balance += amount
    voucher.updated_at = now
    transaction = validated(
        VoucherTransaction,
        {
            "id": sim.ids.next("voucher_transaction"),
            "voucher_id": voucher.id,
            "campaign_id": voucher.campaign_id,
            "source_id": source_id,
            "source": source,
            "reason": reason,
            "type": "CREDITS_ADDITION",
            "amount": amount,
            "details": {"balance": render_balance(voucher, amount, operation_type="MANUAL")},
            "created_at": now,
        },
    )
    sim.state.voucher_transactions[transaction.id] = transaction
    # The payload is built (and checked) only for someone to send it to: it
    # costs more than the credit itself, and building it changes nothing.
    if voucher.holder_id is not None and subscribers(sim, GIFT_BALANCE_ADDED):
        emit(sim, GIFT_BALANCE_ADDED, gift_balance_added_data(sim, voucher, transaction), entity_id=voucher.id)
    return transaction


def gift_balance_added_data(
    sim: Simulator, voucher: Voucher, transaction: VoucherTransaction
) -> models.GiftBalanceAddedData:
    """`data` of EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED, checked against
    the wire model. The model itself is returned: `emit` nests it in each
    delivery's envelope as it is (an envelope takes a model instance without
    checking it again)."""
    assert voucher.holder_id is not None and voucher.campaign_id is not None
    campaign = sim.state.campaigns[voucher.campaign_id]
    customer = sim.state.customers[voucher.holder_id]
    category = first_category(sim.state, campaign)
    return validated(
        models.GiftBalanceAddedData,
        {
            "customer": customer_body(customer),
            "campaign": render_simple_campaign(campaign, category=category),
            "voucher": render_simple_voucher(voucher, campaign, fallback_created_at=sim.now, category=category),
            "balance": render_balance(voucher, transaction.amount),
            "transaction": render_voucher_transaction(transaction),
        }
    )


# -- issuing ----------------------------------------------------------------------------------
def issue_gift_voucher(
    sim: Simulator,
    *,
    campaign_id: str,
    customer_id: str,
    balance: int,
    reason: str | None = None,
) -> Voucher:
    """Give `customer_id` a gift card of `campaign_id` worth `balance` cents
    (see the module docstring for which card). Emits the balance webhook when
    `balance` > 0. Raises 404 (unknown campaign/customer), 400
    `invalid_campaign` (not a GIFT_VOUCHERS campaign, or inactive) or
    `invalid_add_balance_params` (negative balance) before changing anything."""
    campaign = sim.state.campaigns.get(campaign_id)
    if campaign is None:
        raise NotFound("campaign", campaign_id)
    customer = sim.state.customers.get(customer_id)
    if customer is None:
        raise NotFound("customer", customer_id)
    if campaign.type != "GIFT_VOUCHERS":
        raise BadRequest(
            f"Campaign {campaign_id} is a {campaign.type} campaign, not GIFT_VOUCHERS",
            key="invalid_campaign",
            message="Invalid campaign",
            resource_id=campaign_id,
            resource_type="campaign",
        )
    if not campaign.active:
        raise BadRequest(
            f"Campaign {campaign_id} is not active",
            key="invalid_campaign",
            message="Invalid campaign",
            resource_id=campaign_id,
            resource_type="campaign",
        )
    if isinstance(balance, bool) or not isinstance(balance, int) or balance < 0:
        raise BadRequest(
            f"Gift balance must be a non-negative integer (cents), got {balance!r}",
            key="invalid_add_balance_params",
            message="Invalid add balance params",
        )

    if campaign.join_once:
        held = held_codes(sim, customer_id, campaign_id)
        if held:
            if balance > 0:
                credit_gift_balance(sim, held[0], balance, reason=reason)
            return held[0]

    voucher = free_code(sim, campaign_id)
    if voucher is None:
        voucher = _new_gift_voucher(sim, campaign_id)
    voucher.gift = GiftState(amount=0, balance=0, effect=voucher.gift.effect if voucher.gift else "APPLY_TO_ORDER")
    selection = Selection(None, voucher, publication_fingerprint(customer_id, voucher.code, None))
    apply_publication(sim, selection, customer)
    if balance > 0:
        credit_gift_balance(sim, voucher, balance, reason=reason)
    return voucher


def _new_gift_voucher(sim: Simulator, campaign_id: str) -> Voucher:
    campaign = sim.state.campaigns[campaign_id]
    prefix = code_prefix([v.code for v in campaign_codes(sim, campaign_id)])
    vid = sim.ids.next("voucher")
    n = 0
    while True:
        n += 1
        digest = hashlib.blake2b(f"{sim.seed}:{campaign_id}:{vid}:{n}".encode(), digest_size=16).digest()
        code = prefix + "".join(_CHARSET[b % len(_CHARSET)] for b in digest[:8])
        if code not in sim.indexes.voucher_by_code:
            break
    voucher = Voucher(
        id=vid,
        code=code,
        campaign_id=campaign_id,
        type="GIFT_VOUCHER",
        gift=GiftState(amount=0, balance=0),
        active=True,
        start_date=campaign.start_date,
        expiration_date=campaign.expiration_date,
        created_at=sim.now,
    )
    register_voucher(sim, voucher)
    return voucher
