"""Turn a scenario document into a fresh `State`, all or nothing.

Loading happens in three passes: parse (YAML/JSON syntax, within the limits
of `parsing`), validate the document against `schema.Scenario` (types,
ranges, unknown keys), then build the flat state while resolving references
and checking wire shapes (discounts, incentives, rewards) against the wire
models, and compiling every promotion tier with the pricing engine
(`_compile_tier`). Each pass raises `ScenarioError` naming the file and the
path; the last two report every problem they find at once (a user fixes a
file in one round, not one per error). The state is only handed over when all
passes succeeded, so nothing is ever half-loaded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..ids import IdGenerator
from ..records import (
    Campaign,
    Card,
    CardDefinition,
    Collection,
    Customer,
    EarningRule,
    GiftState,
    Incentive,
    Member,
    Product,
    Program,
    Project,
    PromotionTier,
    Reward,
    RewardAssignment,
    RewardCost,
    Segment,
    Sku,
    Voucher,
    WebhookConfig,
)
from ..state import State
from . import schema
from .issues import ScenarioError, ScenarioIssue, validation_issues
from .parsing import check_document, parse_text, read_text
from .wire_checks import check_discount, check_incentive, check_reward, check_rules

__all__ = ["LoadedScenario", "load_scenario", "read_scenario"]

@dataclass(frozen=True, slots=True)
class LoadedScenario:
    state: State
    start: datetime | None
    seed: int | None
    document: dict[str, Any]


def read_scenario(
    source: str | Path | Mapping[str, Any], *, origin: str | None = None
) -> tuple[dict[str, Any], str]:
    """Parse a path (YAML or JSON) or take a mapping; return (document, origin).

    Either way the document is within the limits of `parsing` (size, depth,
    aliases, integers, no cycle, no duplicate key) or `ScenarioError` is
    raised; `origin` names a mapping that was read from a file."""
    if isinstance(source, Mapping):
        origin = origin or "<scenario>"
        check_document(source, origin)
        return dict(source), origin
    path = Path(source)
    origin = origin or str(path)
    document = parse_text(read_text(path, origin), origin, json_format=path.suffix == ".json")
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise ScenarioError(origin, "", f"the document must be a mapping, not {type(document).__name__}")
    return document, origin


def load_scenario(
    source: str | Path | Mapping[str, Any], *, ids: IdGenerator, now: datetime, origin: str | None = None
) -> LoadedScenario:
    """Load a path or an already parsed document; `origin` names it in errors
    (a document read by `read_scenario` keeps its file name this way)."""
    document, origin = read_scenario(source, origin=origin)
    try:
        spec = schema.Scenario.model_validate(document)
    except ValidationError as exc:
        raise ScenarioError.of(origin, validation_issues(exc, model=schema.Scenario)) from None
    start = spec.clock.start or now
    builder = _Builder(origin, ids, start)
    state = builder.build(spec)
    return LoadedScenario(state=state, start=spec.clock.start, seed=spec.seed, document=document)


class _Skip(Exception):
    """An entity names one that was refused: that error is already reported,
    so this one is skipped without a second, misleading `unknown ...`."""


class _Builder:
    """Flattens a validated `Scenario` into a `State`, resolving references.

    Every entity is built in its own `entity` block: a problem refuses that
    entity (and what it contains), is recorded, and the build goes on with
    the next one, so that `build` reports every problem of the file at once.
    """

    def __init__(self, origin: str, ids: IdGenerator, now: datetime) -> None:
        self.origin = origin
        self.ids = ids
        self.now = now
        self.state = State()
        self._path = ""
        #: Every code so far: a code pool of 100k must not rescan all vouchers.
        self._codes: set[str] = set()
        #: Every problem found so far, in build order.
        self.issues: list[ScenarioIssue] = []
        #: (kind, id or source_id) of refused entities: references to them are skipped.
        self._refused: set[tuple[str, str]] = set()

    # -- helpers ---------------------------------------------------------
    @contextmanager
    def at(self, path: str) -> Iterator[None]:
        """Name `path` in the errors raised inside (wire-model and engine
        errors included), which still end the enclosing entity."""
        previous = self._path
        self._path = path
        try:
            yield
        except ValidationError as exc:
            raise ScenarioError.of(self.origin, validation_issues(exc, path)) from None
        except (ValueError, KeyError, TypeError) as exc:
            if isinstance(exc, ScenarioError):
                raise
            raise ScenarioError(self.origin, path, str(exc)) from None
        finally:
            self._path = previous

    @contextmanager
    def entity(self, path: str, kind: str = "", *refs: str | None) -> Iterator[None]:
        """Build one entity at `path`: its first problem is recorded and ends
        the block (so what it contains is not built either); the build goes
        on. `refs` (its explicit id, source_id) are then refused as `kind`."""
        try:
            with self.at(path):
                yield
        except ScenarioError as exc:
            self.issues.extend(exc.issues)
            self._refused.update((kind, ref) for ref in refs if ref is not None)
        except _Skip:
            self._refused.update((kind, ref) for ref in refs if ref is not None)

    def fail(self, problem: str, field: str | None = None) -> ScenarioError:
        path = f"{self._path}.{field}" if field else self._path
        return ScenarioError(self.origin, path, problem)

    def missing(self, kind: str, ref: str, field: str, problem: str | None = None) -> Exception:
        """The error for a reference to an unknown `kind`: `_Skip` when that
        entity was refused (already reported), else `unknown <kind> 'ref'`."""
        if (kind, ref) in self._refused:
            return _Skip()
        return self.fail(problem or f"unknown {kind} {ref!r}", field)

    def new_id(self, kind: str, explicit: str | None, table: Mapping[str, Any], field: str = "id") -> str:
        if explicit is not None:
            if explicit in table:
                raise self.fail(f"duplicate id {explicit!r}", field)
            return explicit
        while True:
            candidate = self.ids.next(kind)
            if candidate not in table:
                return candidate

    def resolve(self, kind: str, table: Mapping[str, Any], ref: str, field: str) -> str:
        if ref in table:
            return ref
        if kind == "customer":
            for customer in self.state.customers.values():
                if customer.source_id == ref:
                    return customer.id
        raise self.missing(kind, ref, field)

    # -- passes ----------------------------------------------------------
    def build(self, spec: schema.Scenario) -> State:
        st = self.state
        st.project = Project(id=spec.project.id, name=spec.project.name, credentials=spec.project.credentials)
        st.settings = spec.settings
        self._catalogue(spec.catalogue)
        self._customers(spec)
        for i, event in enumerate(spec.event_schema):
            with self.entity(f"event_schema[{i}]"):
                if event.name in st.event_schemas:
                    raise self.fail(f"event {event.name!r} is defined twice", "name")
                st.event_schemas[event.name] = event
        for i, campaign in enumerate(spec.campaigns):
            self._campaign(f"campaigns[{i}]", campaign)
        self._loyalty(spec.loyalty)
        for i, campaign in enumerate(spec.campaigns):
            if campaign.referral is not None:
                with self.entity(f"campaigns[{i}].referral"):
                    self._check_referral(campaign)
        for i, hook in enumerate(spec.webhooks):
            with self.entity(f"webhooks[{i}]"):
                if (hook.url is None) == (hook.receiver is None):
                    raise self.fail("give exactly one of url or receiver")
                hid = self.new_id("webhook", hook.id, st.webhooks)
                st.webhooks[hid] = WebhookConfig(
                    id=hid, project_id=st.project.id, url=hook.url, receiver=hook.receiver,
                    secret=hook.secret, events=hook.events, status=hook.status, created_at=self.now,
                )
        if self.issues:
            raise ScenarioError.of(self.origin, self.issues)
        return st

    def _catalogue(self, spec: schema.CatalogueSpec) -> None:
        st = self.state
        for i, p in enumerate(spec.products):
            with self.entity(f"catalogue.products[{i}]", "product", p.id, p.source_id):
                pid = self.new_id("product", p.id, st.products)
                st.products[pid] = Product(
                    id=pid, source_id=p.source_id, name=p.name, price=p.price,
                    metadata=p.metadata, created_at=self.now,
                )
                for j, s in enumerate(p.skus):
                    with self.entity(f"catalogue.products[{i}].skus[{j}]", "sku", s.id):
                        sid = self.new_id("sku", s.id, st.skus)
                        st.skus[sid] = Sku(
                            id=sid, source_id=s.source_id, product_id=pid, sku=s.sku,
                            price=s.price, metadata=s.metadata, created_at=self.now,
                        )
        for i, c in enumerate(spec.collections):
            with self.entity(f"catalogue.collections[{i}]"):
                cid = self.new_id("collection", c.id, st.collections)
                products = [self._product_ref(ref, f"products[{k}]") for k, ref in enumerate(c.products)]
                skus = [self.resolve("sku", st.skus, ref, f"skus[{k}]") for k, ref in enumerate(c.skus)]
                st.collections[cid] = Collection(id=cid, name=c.name, products=products, skus=skus)

    def _product_ref(self, ref: str, field: str) -> str:
        if ref in self.state.products:
            return ref
        for product in self.state.products.values():
            if product.source_id == ref:
                return product.id
        raise self.missing("product", ref, field)

    def _customers(self, spec: schema.Scenario) -> None:
        st = self.state
        seen_sources: set[str] = set()
        for i, c in enumerate(spec.customers):
            with self.entity(f"customers[{i}]", "customer", c.id, c.source_id):
                if c.source_id is not None:
                    if c.source_id in seen_sources:
                        raise self.fail(f"duplicate source_id {c.source_id!r}", "source_id")
                    seen_sources.add(c.source_id)
                cid = self.new_id("customer", c.id, st.customers)
                st.customers[cid] = Customer(
                    id=cid, source_id=c.source_id, name=c.name, email=c.email,
                    metadata=c.metadata, created_at=self.now,
                )
        for i, s in enumerate(spec.segments):
            with self.entity(f"segments[{i}]"):
                sid = self.new_id("segment", s.id, st.segments)
                members = [self.resolve("customer", st.customers, ref, f"customers[{k}]") for k, ref in enumerate(s.customers)]
                st.segments[sid] = Segment(id=sid, name=s.name, customers=members)

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
            fields = c.model_dump(exclude={"id", "tiers", "vouchers", "code_pool"})
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
            for j, v in enumerate(c.vouchers):
                with self.entity(f"{path}.vouchers[{j}]"):
                    self._voucher(cid, c, v)
            if c.code_pool is not None:
                with self.entity(f"{path}.code_pool"):
                    for code in self._generate_codes(cid, c.code_pool):
                        self._voucher(cid, c, schema.VoucherSpec(code=code))

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

    def _loyalty(self, spec: schema.LoyaltySpec) -> None:
        st = self.state
        for i, r in enumerate(spec.rewards):
            with self.entity(f"loyalty.rewards[{i}]", "reward", r.id):
                rid = self.new_id("reward", r.id, st.rewards)
                record = Reward(id=rid, created_at=self.now, **r.model_dump(exclude={"id"}))
                check_reward(record)
                self._check_campaign_refs(record.digital)
                st.rewards[rid] = record
        built: list[tuple[int, str]] = []  # (index in the file, id) of the incentives built
        for i, inc in enumerate(spec.incentives):
            with self.entity(f"loyalty.incentives[{i}]", "incentive", inc.id):
                iid = self.new_id("incentive", inc.id, st.incentives)
                record_inc = Incentive(id=iid, created_at=self.now, **inc.model_dump(exclude={"id"}))
                check_incentive(record_inc)
                self._check_campaign_refs(record_inc.digital)
                st.incentives[iid] = record_inc
                built.append((i, iid))
        for i, p in enumerate(spec.programs):
            self._program(f"loyalty.programs[{i}]", p)
        for i, iid in built:
            incentive = st.incentives[iid]
            card_def = (incentive.points or incentive.points_proportional or {}).get("card_definition_id")
            if card_def is not None and card_def not in st.card_definitions:
                with self.entity(f"loyalty.incentives[{i}]"):
                    raise self.missing("card definition", card_def, "card_definition_id")

    def _check_campaign_refs(self, digital: dict[str, Any] | None) -> None:
        for kind, detail in (digital or {}).items():
            campaign_id = detail.get("campaign_id") if isinstance(detail, dict) else None
            if campaign_id is not None and campaign_id not in self.state.campaigns:
                raise self.missing("campaign", campaign_id, f"digital.{kind}.campaign_id")

    def _program(self, path: str, p: schema.ProgramSpec) -> None:
        st = self.state
        with self.entity(path, "program", p.id):
            pid = self.new_id("program", p.id, st.programs)
            st.programs[pid] = Program(
                id=pid, name=p.name, status=p.status, start_date=p.start_date,
                expiration_date=p.expiration_date, created_at=self.now,
            )
            # Inside the program's block: a refused program builds none of them.
            for j, d in enumerate(p.card_definitions):
                with self.entity(f"{path}.card_definitions[{j}]", "card definition", d.id):
                    did = self.new_id("card_definition", d.id, st.card_definitions)
                    st.card_definitions[did] = CardDefinition(id=did, program_id=pid, name=d.name, card_type=d.card_type)
            own_defs = {d.id for d in st.card_definitions.values() if d.program_id == pid}
            for j, m in enumerate(p.members):
                with self.entity(f"{path}.members[{j}]", "member", m.id):
                    mid = self.new_id("member", m.id, st.members)
                    customer = self.resolve("customer", st.customers, m.customer, "customer")
                    if any(x.program_id == pid and x.customer_id == customer for x in st.members.values()):
                        raise self.fail(f"customer {m.customer!r} is already a member of this program", "customer")
                    st.members[mid] = Member(id=mid, program_id=pid, customer_id=customer, status=m.status, created_at=self.now)
                    for k, card in enumerate(m.cards):
                        with self.entity(f"{path}.members[{j}].cards[{k}]"):
                            if card.card_definition not in own_defs:
                                raise self.missing("card definition", card.card_definition, "card_definition",
                                                   f"unknown card definition {card.card_definition!r} in this program")
                            if any(c.member_id == mid and c.card_definition_id == card.card_definition for c in st.cards.values()):
                                raise self.fail("a member has one card per card definition", "card_definition")
                            kid = self.new_id("card", card.id, st.cards)
                            st.cards[kid] = Card(id=kid, member_id=mid, program_id=pid, card_definition_id=card.card_definition, balance=card.balance)
            for j, a in enumerate(p.rewards):
                with self.entity(f"{path}.rewards[{j}]"):
                    aid = self.new_id("reward_assignment", a.id, st.reward_assignments)
                    reward = self.resolve("reward", st.rewards, a.reward, "reward")
                    if any(x.program_id == pid and x.reward_id == reward for x in st.reward_assignments.values()):
                        raise self.fail(f"reward {reward!r} is assigned twice to this program", "reward")
                    costs = []
                    for k, cost in enumerate(a.costs):
                        if cost.card_definition not in own_defs:
                            raise self.missing("card definition", cost.card_definition, f"costs[{k}].card_definition",
                                               f"unknown card definition {cost.card_definition!r} in this program")
                        costs.append(RewardCost(card_definition_id=cost.card_definition, points=cost.points))
                    if not costs:
                        raise self.fail("a reward assignment needs at least one cost", "costs")
                    st.reward_assignments[aid] = RewardAssignment(
                        id=aid, program_id=pid, reward_id=reward, costs=costs, stock=a.stock, created_at=self.now,
                    )
            for j, e in enumerate(p.earning_rules):
                with self.entity(f"{path}.earning_rules[{j}]"):
                    eid = self.new_id("earning_rule", e.id, st.earning_rules)
                    incentive = self.resolve("incentive", st.incentives, e.incentive, "incentive")
                    if st.incentives[incentive].type not in ("POINTS", "POINTS_PROPORTIONAL"):
                        raise self.fail("an earning rule credits points: its incentive must be POINTS or POINTS_PROPORTIONAL", "incentive")
                    if e.event not in st.event_schemas:
                        raise self.fail(f"event {e.event!r} is not in the event schema", "event")
                    if e.validation_rules is not None:
                        with self.at(f"{path}.earning_rules[{j}].validation_rules"):
                            check_rules(e.validation_rules)
                    st.earning_rules[eid] = EarningRule(
                        id=eid, program_id=pid, event=e.event, incentive_id=incentive, active=e.active,
                        validation_rules=e.validation_rules, created_at=self.now,
                    )

    def _check_referral(self, c: schema.CampaignSpec) -> None:
        assert c.referral is not None
        if c.referral.conversion_event not in self.state.event_schemas:
            raise self.fail(f"event {c.referral.conversion_event!r} is not in the event schema", "conversion_event")
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


