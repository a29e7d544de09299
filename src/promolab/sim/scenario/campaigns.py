"""Building a scenario's campaigns: tiers, vouchers, code pools, referrals.

A campaign builds what it contains in its own block (a refused campaign
builds none of it): PROMOTION tiers, checked and compiled as a validation
will compile them, and vouchers, listed or generated from a code pool
(deterministic from the seed). A referral's conversion event and referrer
reward are checked once the loyalty programs exist (`_check_referral`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..records import Campaign, GiftState, PromotionStack, PromotionTier, Voucher
from . import schema
from .builder import Builder
from .wire_checks import check_discount, check_rules

__all__ = ["CampaignsBuilder"]


class CampaignsBuilder(Builder):
    """The `campaigns:` section of a scenario."""

    def _campaign(self, path: str, c: schema.CampaignSpec) -> None:
        st = self.state
        with self.entity(path, "campaign", c.id):
            cid = self.new_id("campaign", c.id, st.campaigns)
            if c.type == "PROMOTION" and (c.vouchers or c.code_pool):
                raise self.fail("a PROMOTION campaign has tiers, not vouchers", "vouchers")
            if c.type != "PROMOTION" and c.tiers:
                raise self.fail(f"a {c.type} campaign has vouchers, not tiers", "tiers")
            if c.type in ("DISCOUNT_COUPONS", "REFERRAL_PROGRAM") and c.discount is not None:
                with self.at(f"{path}.discount"):
                    check_discount(c.discount)
            if c.type == "GIFT_VOUCHERS" and c.gift_amount is None:
                raise self.fail("a GIFT_VOUCHERS campaign needs gift_amount", "gift_amount")
            if c.referral is not None and c.type != "REFERRAL_PROGRAM":
                raise self.fail("only a REFERRAL_PROGRAM campaign converts referrals", "referral")
            fields = c.model_dump(exclude={"id", "tiers", "stacks", "vouchers", "code_pool"})
            st.campaigns[cid] = Campaign(id=cid, created_at=self.now, **fields)
            # Inside the campaign's block: a refused campaign builds none of them.
            for j, t in enumerate(c.tiers):
                with self.entity(f"{path}.tiers[{j}]"):
                    tid = self.new_id("promotion_tier", t.id, st.tiers)
                    with self.at(f"{path}.tiers[{j}].discount"):
                        check_discount(t.discount)
                    if t.validation_rules is not None:
                        with self.at(f"{path}.tiers[{j}].validation_rules"):
                            check_rules(t.validation_rules)
                    record = PromotionTier(
                        id=tid, campaign_id=cid, created_at=self.now,
                        **t.model_dump(exclude={"id"}),
                    )
                    self._compile_tier(record, st.campaigns[cid], len(st.campaigns) - 1)
                    st.tiers[tid] = record
            for j, stack in enumerate(c.stacks):
                with self.entity(f"{path}.stacks[{j}]"):
                    self._stack(cid, stack)
            for j, v in enumerate(c.vouchers):
                with self.entity(f"{path}.vouchers[{j}]"):
                    self._voucher(cid, c, v)
            if c.code_pool is not None:
                with self.entity(f"{path}.code_pool"):
                    for code in self._generate_codes(cid, c.code_pool):
                        self._voucher(cid, c, schema.VoucherSpec(code=code))

    def _stack(self, campaign_id: str, stack: schema.PromotionStackSpec) -> None:
        """A promotion stack: tiers of its own campaign, each once."""
        st = self.state
        for k, tier_id in enumerate(stack.tiers):
            tier = st.tiers.get(tier_id)
            if tier is None or tier.campaign_id != campaign_id:
                raise self.missing("promotion tier", tier_id, f"tiers[{k}]", f"{tier_id} is not a tier of this campaign")
        if len(set(stack.tiers)) != len(stack.tiers):
            raise self.fail("a stack names each tier once", "tiers")
        sid = self.new_id("promotion_stack", stack.id, st.promotion_stacks)
        st.promotion_stacks[sid] = PromotionStack(
            id=sid, campaign_id=campaign_id, name=stack.name, tier_ids=list(stack.tiers), created_at=self.now
        )

    def _compile_tier(self, tier: PromotionTier, campaign: Campaign, index: int) -> None:
        """Compile `tier` as a validation will (`promotions.build_view`), so a
        tier the engine cannot evaluate (an `applicable_to` effect other than
        APPLY_TO_EVERY, an effect not allowed for its discount type, a bad
        scope entry...) refuses the scenario here, naming the tier, instead of
        loading and then failing every validation with a 500. Inactive tiers
        are compiled too: a scenario states nothing the engine cannot do."""
        from ...engine import TierConfigError, compile_tier
        from ..promotions import campaign_info, tier_spec

        try:
            compile_tier(tier_spec(tier, campaign_info(campaign, index)))
        except TierConfigError as exc:
            raise self.fail(exc.message) from None

    def _voucher(self, campaign_id: str, c: schema.CampaignSpec, v: schema.VoucherSpec) -> None:
        st = self.state
        if v.code in self._codes:
            raise self.fail(f"duplicate voucher code {v.code!r}", "code")
        vid = self.new_id("voucher", v.id, st.vouchers)
        holder = self.resolve("customer", st.customers, v.holder, "holder") if v.holder else None
        gift = v.gift
        if c.type == "GIFT_VOUCHERS" and gift is None:
            amount = c.gift_amount or 0
            gift = GiftState(amount=amount, balance=amount)
        if gift is not None and gift.balance > gift.amount:
            raise self.fail("gift balance cannot exceed the credited amount", "gift.balance")
        discount = v.discount if v.discount is not None else c.discount
        if v.discount is not None:
            with self.at(f"{self._path}.discount"):
                check_discount(v.discount)
        st.vouchers[vid] = Voucher(
            id=vid, code=v.code, campaign_id=campaign_id,
            type="GIFT_VOUCHER" if c.type == "GIFT_VOUCHERS" else "DISCOUNT_VOUCHER",
            discount=None if c.type == "GIFT_VOUCHERS" else discount,
            gift=gift, active=v.active,
            start_date=v.start_date or c.start_date, expiration_date=v.expiration_date or c.expiration_date,
            additional_info=v.additional_info, metadata=v.metadata,
            is_referral_code=c.type == "REFERRAL_PROGRAM", holder_id=holder,
            redemption_quantity=v.redemption_quantity, publish_count=1 if holder else 0,
            created_at=self.now,
        )
        self._codes.add(v.code)

    def _generate_codes(self, campaign_id: str, pool: Any) -> list[str]:
        existing = set(self._codes)
        codes: list[str] = []
        n = 0
        while len(codes) < pool.count:
            n += 1
            digest = hashlib.blake2b(f"{self.ids.seed}:{campaign_id}:{n}".encode(), digest_size=32).digest()
            body = "".join(pool.charset[b % len(pool.charset)] for b in digest[: pool.length])
            code = f"{pool.prefix}{body}{pool.postfix}"
            if code not in existing:
                existing.add(code)
                codes.append(code)
            if n > pool.count * 20 + 100:
                raise self.fail("cannot generate enough distinct codes; widen length or charset")
        return codes

    def _check_referral(self, c: schema.CampaignSpec) -> None:
        assert c.referral is not None
        if c.referral.conversion_event not in self.state.event_schemas:
            event = c.referral.conversion_event
            raise self.missing("event", event, "conversion_event", f"event {event!r} is not in the event schema")
        reward = c.referral.referrer_reward
        if reward is None:
            return
        if reward.type == "LOYALTY_POINTS":
            if reward.program_id not in self.state.programs:
                raise self.missing("program", str(reward.program_id), "referrer_reward.program_id")
            if reward.card_definition_id not in self.state.card_definitions:
                raise self.missing("card definition", str(reward.card_definition_id), "referrer_reward.card_definition_id")
            if not reward.points:
                raise self.fail("LOYALTY_POINTS needs points > 0", "referrer_reward.points")
        elif reward.campaign_id not in self.state.campaigns:
            raise self.missing("campaign", str(reward.campaign_id), "referrer_reward.campaign_id")
