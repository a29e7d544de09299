"""Referral conversions triggered by custom events.

An event carrying `referral: {code, referrer_id?}` converts the referral when
the code belongs to a REFERRAL_PROGRAM campaign whose
`referral.conversion_event` is this event:

- unknown code: 404 `not_found` (voucher); a code that is not a referral
  code: 400 `invalid_voucher`; a code not yet published to a referrer: 400
  `not_published`; a `referrer_id` that is neither the id nor the source_id
  of the code's holder: 400 `invalid_payload`; the holder converting their
  own code: 400 `referrer_not_permitted_to_redeem`;
- the referrer is the code's holder, the referee the event customer; a
  `ReferralConversion` records them;
- a referee converts a campaign once: a later event of the same referee in
  the same campaign is accepted (it is a fact; its earning rules still run)
  but records no second conversion and rewards nobody;
- a code whose campaign converts on another event, or an inactive campaign,
  converts nothing (the event is still recorded, with its `referral`);
- the referrer is rewarded per the campaign's `referrer_reward`:
  LOYALTY_POINTS credits their card of the named program/card definition
  (POINTS_EARNED through the ledger; skipped when they hold no such card,
  the conversion is still recorded), DISCOUNT_COUPON publishes them a free
  code of the named campaign (no free code: 400
  `no_voucher_suitable_for_publication` and the whole event is refused),
  GIFT_CREDITS adds `amount` to their gift card of the named campaign (their
  first one; a new card is issued when they hold none).

`plan_conversion` checks everything and changes nothing; `apply_conversion`
carries the plan out and cannot fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from .gift import check_gift_credit, credit_gift_balance, issue_gift_voucher
from .loyalty import ledger
from .loyalty.lookups import members_of
from .publishing import Selection, apply_publication, select_publication
from .publishing_lookups import held_codes
from .records import Campaign, Card, ReferralConversion, Voucher
from .refusals import BadRequest, InvalidPayload, NotFound
from .state import State, derived

if TYPE_CHECKING:
    from .simulator import Simulator

__all__ = ["ConversionPlan", "apply_conversion", "plan_conversion"]


@dataclass(frozen=True, slots=True)
class ConversionPlan:
    campaign: Campaign
    voucher: Voucher
    referrer_id: str
    #: LOYALTY_POINTS: the card to credit and the points.
    card: Card | None = None
    points: int = 0
    #: DISCOUNT_COUPON: the publication to make.
    coupon: Selection | None = None
    #: GIFT_CREDITS: the campaign, the referrer's card (None: issue one) and the amount.
    gift_campaign_id: str | None = None
    gift_voucher: Voucher | None = None
    gift_amount: int = 0


def _holder_matches(sim: Simulator, holder_id: str, referrer_id: str) -> bool:
    if referrer_id == holder_id:
        return True
    holder = sim.state.customers.get(holder_id)
    return holder is not None and holder.source_id is not None and holder.source_id == referrer_id


def plan_conversion(
    sim: Simulator,
    *,
    event: str,
    referral: Mapping[str, Any],
    referee_id: str | None,
    credited: Mapping[str, int] | None = None,
) -> ConversionPlan | None:
    """What the event's `referral` does (None: no conversion); raises the
    SimError of a refused referral. `referee_id` None is a customer this
    event creates. `credited` holds the points the same event's earning
    rules already plan to credit, by card id: a referrer's reward must fit
    on the card beside them (refused before anything changes)."""
    code = referral["code"]
    vid = sim.indexes.voucher_by_code.get(code)
    if vid is None:
        raise NotFound("voucher", code)
    voucher = sim.state.vouchers[vid]
    campaign = sim.state.campaigns.get(voucher.campaign_id) if voucher.campaign_id is not None else None
    if campaign is None or campaign.type != "REFERRAL_PROGRAM" or not voucher.is_referral_code:
        raise BadRequest(
            f"Voucher {code} is not a referral code",
            key="invalid_voucher",
            message="Invalid voucher",
            resource_id=voucher.id,
            resource_type="voucher",
        )
    if voucher.holder_id is None:
        raise BadRequest(
            "Referral code must be first published to Referrer before assigning it to Referee",
            key="not_published",
            message="Voucher is not published",
            resource_id=voucher.id,
            resource_type="voucher",
        )
    referrer_id = voucher.holder_id
    claimed = referral.get("referrer_id")
    if claimed is not None and not _holder_matches(sim, referrer_id, claimed):
        raise InvalidPayload(f"Property .referral.referrer_id: {claimed} is not the holder of referral code {code}")
    if referee_id == referrer_id:
        raise BadRequest(
            f"Customer {referrer_id} is the referrer of code {code} and cannot convert it",
            key="referrer_not_permitted_to_redeem",
            message="voucher cannot be redeemed by referrer",
            resource_id=voucher.id,
            resource_type="voucher",
        )
    settings = campaign.referral
    if settings is None or settings.conversion_event != event or not campaign.active:
        return None
    if referee_id is not None and (campaign.id, referee_id) in _converted(sim):
        return None
    plan = ConversionPlan(campaign=campaign, voucher=voucher, referrer_id=referrer_id)
    reward = settings.referrer_reward
    if reward is None:
        return plan
    if reward.type == "LOYALTY_POINTS":
        card = _referrer_card(sim, referrer_id, reward.program_id, reward.card_definition_id)
        if card is None or not reward.points:
            return plan
        if not ledger.fits(card, reward.points + (credited or {}).get(card.id, 0)):
            raise InvalidPayload(
                f"Referral campaign {campaign.id} would credit {reward.points} points to loyalty card "
                f"{card.id}, whose balance is {card.balance}: a card holds at most {ledger.MAX_BALANCE} points",
                resource_id=card.id,
                resource_type="loyalty_card",
            )
        return ConversionPlan(campaign, voucher, referrer_id, card=card, points=reward.points)
    if reward.type == "DISCOUNT_COUPON":
        assert reward.campaign_id is not None
        selection = select_publication(sim, customer_id=referrer_id, campaign_id=reward.campaign_id)
        return ConversionPlan(campaign, voucher, referrer_id, coupon=selection)
    # GIFT_CREDITS
    if not reward.amount or reward.campaign_id is None:
        return plan
    gift_campaign = sim.state.campaigns.get(reward.campaign_id)
    if gift_campaign is None:
        raise NotFound("campaign", reward.campaign_id)
    held = next((v for v in held_codes(sim, referrer_id, gift_campaign.id) if v.gift is not None), None)
    if held is None and (gift_campaign.type != "GIFT_VOUCHERS" or not gift_campaign.active):
        raise BadRequest(
            f"Campaign {gift_campaign.id} cannot issue a gift card to the referrer",
            key="invalid_campaign",
            message="Invalid campaign",
            resource_id=gift_campaign.id,
            resource_type="campaign",
        )
    if held is not None:
        check_gift_credit(held, reward.amount)  # the referrer's card must hold the credit
    return ConversionPlan(
        campaign, voucher, referrer_id, gift_campaign_id=gift_campaign.id, gift_voucher=held, gift_amount=reward.amount
    )


class _Converted:
    """(campaign id, referee id) of every recorded conversion, so that "has
    this referee converted this campaign already?" is a set lookup rather
    than a scan of every conversion (once per referral event).

    Derived, never stored; a new state object gets a new one. Conversions are
    only ever added: new ones are read from the end of the insertion-ordered
    dict, and fewer than seen rebuilds it.
    """

    __slots__ = ("pairs", "seen", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self.seen = 0
        self.pairs: set[tuple[str, str]] = set()

    def sync(self) -> set[tuple[str, str]]:
        conversions = self.state.referral_conversions
        new = len(conversions) - self.seen
        if new < 0:
            self.seen, self.pairs = 0, set()
            new = len(conversions)
        if new:
            self.pairs.update((c.campaign_id, c.referee_id) for c in islice(reversed(conversions.values()), new))
            self.seen = len(conversions)
        return self.pairs


def _converted(sim: Simulator) -> set[tuple[str, str]]:
    return derived(sim, "referral_conversions", _Converted).sync()


def _referrer_card(sim: Simulator, customer_id: str, program_id: str | None, definition: str | None) -> Card | None:
    if program_id is None or definition is None:
        return None
    members = members_of(sim, customer_id, program_id)
    return ledger.card_for(sim, members[0].id, definition) if members else None


def apply_conversion(sim: Simulator, plan: ConversionPlan, *, referee_id: str, event_id: str) -> ReferralConversion:
    conversion = ReferralConversion(
        id=sim.ids.next("conversion"),
        campaign_id=plan.campaign.id,
        code=plan.voucher.code,
        referrer_id=plan.referrer_id,
        referee_id=referee_id,
        event_id=event_id,
        created_at=sim.now,
    )
    sim.state.referral_conversions[conversion.id] = conversion
    reason = f"referral conversion {conversion.id}"
    if plan.card is not None and plan.points > 0:
        ledger.post(
            sim,
            plan.card,
            type="POINTS_EARNED",
            points=plan.points,
            details={
                "reason": "referral conversion",
                "metadata": {
                    "referral_conversion_id": conversion.id,
                    "campaign_id": plan.campaign.id,
                    "code": plan.voucher.code,
                    "referee_id": referee_id,
                },
            },
        )
    if plan.coupon is not None:
        referrer = sim.state.customers[plan.referrer_id]
        apply_publication(
            sim,
            plan.coupon,
            referrer,
            metadata={"referral_conversion_id": conversion.id, "referee_id": referee_id},
        )
    if plan.gift_campaign_id is not None and plan.gift_amount > 0:
        if plan.gift_voucher is not None:
            credit_gift_balance(sim, plan.gift_voucher, plan.gift_amount, reason=reason)
        else:
            issue_gift_voucher(
                sim,
                campaign_id=plan.gift_campaign_id,
                customer_id=plan.referrer_id,
                balance=plan.gift_amount,
                reason=reason,
            )
    return conversion
