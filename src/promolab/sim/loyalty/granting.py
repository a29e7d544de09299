"""Handing over what a member bought.

- MATERIAL: a `GrantedReward` naming the product (and SKU) to ship.
- DIGITAL `discount_coupons`: a code of the named campaign is published to
  the member's customer (`publishing.publish_to_customer`).
- DIGITAL `gift_vouchers`: a gift voucher with the named balance is issued to
  the member's customer (`gift.issue_gift_voucher`, which emits the
  EVENTS.CUSTOMER.VOUCHER.GIFT.BALANCE_ADDED webhook).

A grant either succeeds or raises a `SimError` having changed nothing (the id
counters included), so the caller can refuse or reject the purchase cleanly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..records import GrantedReward, Member, Reward
from ..refusals import BadRequest, SimError

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["describe", "grant"]


def grant(
    sim: Simulator, member: Member, reward: Reward, *, transaction_id: str | None
) -> GrantedReward:
    mark = sim.ids.mark()  # a refused hand-over gives back the ids it drew (due work: outside `_run_write`)
    try:
        fields = _hand_over(sim, member, reward, transaction_id)
    except SimError:
        sim.ids.rewind(mark)
        raise
    record = GrantedReward(
        id=sim.ids.next("granted_item"),
        member_id=member.id,
        program_id=member.program_id,
        reward_id=reward.id,
        transaction_id=transaction_id,
        created_at=sim.now,
        **fields,
    )
    sim.state.granted_rewards[record.id] = record
    return record


def describe(record: GrantedReward) -> dict[str, Any]:
    """The `details.result` of an APPROVED purchase: what was handed over."""
    result: dict[str, Any] = {"granted_reward_id": record.id, "kind": record.kind}
    for name in ("product_id", "sku_id", "voucher_code"):
        value = getattr(record, name)
        if value is not None:
            result[name] = value
    return result


def _hand_over(
    sim: Simulator, member: Member, reward: Reward, transaction_id: str | None
) -> dict[str, Any]:
    if reward.type == "MATERIAL":
        material = reward.material or {}
        sku = material.get("sku")
        if sku is not None:
            return {"kind": "MATERIAL", "product_id": sku.get("product_id"), "sku_id": sku["id"]}
        return {"kind": "MATERIAL", "product_id": material["product"]["id"]}
    digital = reward.digital or {}
    coupons = digital.get("discount_coupons")
    if coupons is not None:
        code = _publish(sim, member, reward, coupons["campaign_id"], transaction_id)
        return {"kind": "DISCOUNT_COUPON", "voucher_code": code}
    gift = digital["gift_vouchers"]
    from ..gift import issue_gift_voucher

    voucher = issue_gift_voucher(
        sim,
        campaign_id=gift["campaign_id"],
        customer_id=member.customer_id,
        balance=gift["balance"],
        reason=f"loyalty reward {reward.id}",
    )
    return {"kind": "GIFT_VOUCHER", "voucher_code": voucher.code}


def _publish(
    sim: Simulator, member: Member, reward: Reward, campaign_id: str, transaction_id: str | None
) -> str:
    from ..publishing import publish_to_customer

    publications = sim.state.publications
    before = len(publications)
    metadata: dict[str, Any] = {
        "loyalty_program_id": member.program_id,
        "loyalty_reward_id": reward.id,
    }
    if transaction_id is not None:
        metadata["loyalty_transaction_id"] = transaction_id
    publication = publish_to_customer(
        sim, customer_id=member.customer_id, campaign_id=campaign_id, metadata=metadata
    )
    if len(publications) != before + 1 or next(reversed(publications)) != publication.id:
        # A join_once campaign hands a customer one code, ever: the member
        # already holds it, so this purchase would buy nothing new.
        voucher = sim.state.vouchers[publication.voucher_id]
        raise BadRequest(
            f"Campaign {campaign_id} gives one code per customer and customer {member.customer_id} "
            f"already holds {voucher.code}",
            key="join_once_code_already_published",
            message="Customer already holds this campaign's code",
            resource_id=campaign_id,
            resource_type="campaign",
        )
    return sim.state.vouchers[publication.voucher_id].code
