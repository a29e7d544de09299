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

from ...models import ProjectStackingRules
from ..records import Campaign, Category, GiftState, PromotionStack, PromotionTier, Voucher
from . import schema
from .builder import Builder
from .wire_checks import check_discount, check_rules

__all__ = ["CampaignsBuilder"]


class CampaignsBuilder(Builder):
    """The `categories:` and `campaigns:` sections of a scenario."""

    def _categories(self, categories: list[schema.CategorySpec]) -> None:
        """The project's categories; a stacking type joins the project's
        stacking rules (`exclusive_categories` / `joint_categories`), the one
        place that decides it once loaded (the management API may change it)."""
        st = self.state
        typed: dict[str, list[str]] = {"EXCLUSIVE": [], "JOINT": []}
        for i, c in enumerate(categories):
            with self.entity(f"categories[{i}]", "category", c.id):
                if c.id in st.categories:
                    raise self.fail(f"duplicate id {c.id!r}", "id")
                if c.stacking_rules_type is not None:
                    self._check_stacking_type(c.id, c.stacking_rules_type)
                    typed[c.stacking_rules_type].append(c.id)
                st.categories[c.id] = Category(id=c.id, name=c.name, hierarchy=c.hierarchy,
                                               created_at=c.created_at or self.now)
        if not (typed["EXCLUSIVE"] or typed["JOINT"]):
            return
        rules = st.stacking_rules
        if rules is None:
            rules = ProjectStackingRules(id=self.ids.next("stacking_rules"), created_at=self.now)
        exclusive = [*rules.exclusive_categories, *(c for c in typed["EXCLUSIVE"] if c not in rules.exclusive_categories)]
        joint = [*rules.joint_categories, *(c for c in typed["JOINT"] if c not in rules.joint_categories)]
        with self.entity("categories"):
            st.stacking_rules = ProjectStackingRules.model_validate(
                {**rules.model_dump(), "exclusive_categories": exclusive, "joint_categories": joint}
            )

    def _check_stacking_type(self, category_id: str, kind: str) -> None:
        """A category the scenario's stacking rules list under the other type is a contradiction."""
        rules = self.state.stacking_rules
        other, listed = ("joint_categories", "JOINT") if kind == "EXCLUSIVE" else ("exclusive_categories", "EXCLUSIVE")
        if rules is not None and category_id in getattr(rules, other):
            raise self.fail(f"{kind} here, but project.stacking_rules.{other} makes it {listed}", "stacking_rules_type")

    def _category_refs(self, ids: list[str], field: str) -> list[str]:
        """Category ids named by a campaign or a tier: each once, each defined."""
        for k, category_id in enumerate(ids):
            if category_id not in self.state.categories:
                raise self.missing("category", category_id, f"{field}[{k}]")
        if len(set(ids)) != len(ids):
            raise self.fail("names a category more than once", field)
        return list(ids)

    def _campaign_categories(self, c: schema.CampaignSpec) -> list[str]:
        """`categories: [ids]`, or the service's `category_id` as a one-item list
        (not both). `category`, the service's category *name*, is refused: a
        name is no reference, and the category is defined once, at the top."""
        if c.category is not None:
            raise self.fail("a campaign names its categories by id: define the category under the top-level "
                            "`categories:` and list its id in `categories: [...]`", "category")
        if c.category_id is not None:
            if c.categories:
                raise self.fail("give categories or category_id (a one-item categories), not both", "category_id")
            if c.category_id not in self.state.categories:
                raise self.missing("category", c.category_id, "category_id")
            return [c.category_id]
        return self._category_refs(c.categories, "categories")

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
            self._check_code_terms(path, c.type, c)
            categories = self._campaign_categories(c)
            fields = c.model_dump(exclude={"id", "tiers", "stacks", "vouchers", "code_pool", "categories",
                                           "category_id", "category"})
            st.campaigns[cid] = Campaign(id=cid, created_at=self.now, categories=categories, **fields)
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
                        categories=self._category_refs(t.categories, "categories"),
                        **t.model_dump(exclude={"id", "categories"}),
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
            compile_tier(tier_spec(tier, campaign_info(self.state, campaign, index)))
        except TierConfigError as exc:
            raise self.fail(exc.message) from None

    def _check_code_terms(self, path: str, kind: str, terms: schema.CampaignSpec | schema.VoucherSpec) -> None:
        """A code's (or a code campaign's) rules and scope, checked where they
        are written: rules as the engine compiles them; a scope only on
        discount codes (a gift card pays for the order)."""
        if kind == "PROMOTION" and (terms.validation_rules is not None or terms.applicable_to is not None):
            field = "validation_rules" if terms.validation_rules is not None else "applicable_to"
            raise self.fail("a PROMOTION campaign's tiers carry their own rules and scope", field)
        if kind == "GIFT_VOUCHERS" and terms.applicable_to is not None:
            raise self.fail("a gift card pays for the order: it has no applicable_to", "applicable_to")
        if terms.validation_rules is not None:
            with self.at(f"{path}.validation_rules"):
                check_rules(terms.validation_rules)

    def _compile_code(self, voucher: Voucher, campaign: Campaign, key: tuple[int, int, int]) -> None:
        """Compile the code as a stacked validation will
        (`stack_redeemables._compiled_code`), so a scope or rule the engine
        cannot evaluate (a bad `applicable_to` entry, an effect the discount
        does not allow with it) refuses the scenario here, naming the code.
        Once per distinct terms: `key` names the scenario's own mappings the
        terms come from (the records hold copies), so the 100,000 codes of a
        campaign that carry none of their own compile once."""
        from ...engine import TierConfigError, compile_tier
        from ..promotions import code_spec, code_terms

        if key in self._compiled_terms:
            return
        terms = code_terms(voucher, campaign)
        if voucher.type != "DISCOUNT_VOUCHER" or terms.discount is None:
            return
        try:
            compile_tier(code_spec(voucher, campaign, terms))
        except TierConfigError as exc:
            raise self.fail(exc.message) from None
        self._compiled_terms.add(key)

    def _voucher(self, campaign_id: str, c: schema.CampaignSpec, v: schema.VoucherSpec) -> None:
        st = self.state
        self._check_code_terms(self._path, c.type, v)
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
            validation_rules=v.validation_rules, applicable_to=v.applicable_to, created_at=self.now,
        )
        terms_key = (id(discount), id(v.validation_rules if v.validation_rules is not None else c.validation_rules),
                     id(v.applicable_to if v.applicable_to is not None else c.applicable_to))
        self._compile_code(st.vouchers[vid], st.campaigns[campaign_id], terms_key)
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
