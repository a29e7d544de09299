"""The loyalty programs of a pulled project: the scenario's `loyalty` section, read through the v1 reads.

The v1 loyalty endpoints show one LOYALTY_PROGRAM campaign per card
definition (docs/decisions.md, "Loyalty programs of a pull"), and nothing
says which campaigns were one program: each becomes a program of one card
definition, named back from `"<program>: <card definition>"`. Its members
are its cards (one member each, a card of its balance), its earning rules
give back an incentive each (the v1 `loyalty` read backwards through the
simulator's own table, `V1_CALCULATION`), its reward assignments cost
their price in its points, and the rewards come from the rewards list (`LIST_REWARDS`),
their stock on their assignments. The event each earning rule listens to
goes to the scenario's `event_schema` (the reads do not show its
properties). Whatever a scenario cannot hold, or needs and the reads do not
show, is a report row; a reference the pulled scenario could not resolve
(a card's holder not pulled, a reward's campaign) leaves its object out, said.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from .. import models
from ..models import loyalty_reads
from ..models import read_endpoints as reads
from ..sim import CAMPAIGN_NAME_JOIN, ID_PREFIXES, V1_CALCULATION, format_instant
from .reader import Reader
from .unexpressed import Unexpressed, leftovers, spec
from .walk import Window, walk

__all__ = ["Known", "Loyalty", "read_loyalty"]

_CAMPAIGN_KEPT = ("id", "name", "campaign_type", "active", "start_date", "expiration_date", "voucher", "type",
                  "auto_join", "join_once", "use_voucher_metadata_schema", "protected")
_CAMPAIGN_DERIVED = ("vouchers_count", "created_at", "updated_at", "creation_status", "vouchers_generation_status")
#: What the simulator's campaigns always say (`sim/render/loyalty.py`); another value is reported.
_CAMPAIGN_AS_SERVED = {"type": "STATIC", "auto_join": False, "join_once": True, "use_voucher_metadata_schema": False,
                       "protected": False}
_CARD_KEPT = ("id", "code", "holder_id", "loyalty_card", "active", "redemption")
_CARD_DERIVED = ("campaign", "campaign_id", "type", "discount", "gift", "assets", "is_referral_code", "created_at",
                 "updated_at", "publish")
_RULE_KEPT = ("id", "loyalty", "event", "source", "active", "validation_rule_id")
_RULE_DERIVED = ("created_at", "updated_at", "automation_id")
_REWARD_KEPT = ("id", "name", "type", "parameters", "stock", "redeemed", "metadata")
_REWARD_DERIVED = ("created_at", "updated_at")
#: v1 `calculation_type` -> (v2 `calculation_type`, sub-object, field): the simulator's table backwards.
_V2_CALCULATION = {v1: (v2, container, name) for v2, (v1, container, name) in V1_CALCULATION.items()}
#: A v1 reward's campaign type -> the v2 digital reward that gives a code of it.
_DIGITAL = {"GIFT_VOUCHERS": "gift_vouchers", "DISCOUNT_COUPONS": "discount_coupons"}

#: A campaign's members past its 99 pages are read on from the creation of the last one read.
_MEMBERS_BY_DATE = Window("created_at[after]", lambda card: card.created_at)


@dataclass(frozen=True, slots=True)
class Known:
    """What the pulled scenario holds that loyalty refers to: a reference elsewhere would not load."""

    customers: frozenset[str] = frozenset()
    campaigns: frozenset[str] = frozenset()
    products: frozenset[str] = frozenset()
    skus: frozenset[str] = frozenset()

    @classmethod
    def of(cls, customers: Iterable[Mapping[str, Any]], campaigns: Iterable[Mapping[str, Any]],
           catalogue: Mapping[str, Any]) -> Known:
        """From the sections already pulled (`customers`, `campaigns`, `catalogue`)."""
        products = catalogue.get("products", [])
        return cls(frozenset(c["id"] for c in customers if "id" in c), frozenset(c["id"] for c in campaigns),
                   frozenset(p["id"] for p in products),
                   frozenset(s["id"] for p in products for s in p.get("skus", [])))


@dataclass(frozen=True, slots=True)
class Loyalty:
    """The scenario's `loyalty` (and the `event_schema` its earning rules need), what it could not hold,
    the objects read (`dated`: for the pulled clock's start) and how many."""

    sections: list[tuple[str, Any]]
    unexpressed: list[Unexpressed]
    dated: list[Any]
    objects: int


@dataclass(slots=True)
class _Pulling:
    """The state of one loyalty pull: the report rows, and the ids already given out."""

    known: Known
    out: list[Unexpressed] = field(default_factory=list)
    assignments: dict[str, str] = field(default_factory=dict)  # assignment id -> the campaign it was kept in
    #: (object, id) -> the campaign it was kept in, for what a scenario holds once (an earning rule, a card's code)
    kept: dict[tuple[str, str], str] = field(default_factory=dict)
    events: dict[str, None] = field(default_factory=dict)
    incentives: list[dict[str, Any]] = field(default_factory=list)

    def left(self, kind: str, oid: str, name: str, why: str) -> None:
        self.out.append(Unexpressed(kind, oid, name, why))

    def once(self, kind: str, oid: str, campaign_id: str) -> bool:
        """Whether `oid` is kept in `campaign_id`: a scenario holds an id once, so the same one listed in
        a second campaign is reported and left out there (a broken target's; the ids are the project's)."""
        kept_in = self.kept.setdefault((kind, oid), campaign_id)
        if kept_in != campaign_id:
            self.left(kind, oid, "campaign_id", f"a scenario holds {oid} once: listed in {campaign_id} too, "
                      f"kept in {kept_in} only")
        return kept_in == campaign_id


@dataclass(frozen=True, slots=True)
class _Read:
    """What the target lists of one loyalty campaign."""

    campaign: models.LoyaltyCampaign
    tiers: list[models.LoyaltyTier]
    rules: list[models.LoyaltyEarningRule]
    assignments: list[models.LoyaltyRewardAssignment]
    cards: list[models.LoyaltyMember]


def _instant(value: datetime | None) -> str | None:
    return None if value is None else format_instant(value)


def _mapping(value: object) -> Mapping[str, Any]:
    """A sub-object of a target's free-form dict, or {} when the target sent something else there: the
    reader then finds nothing and reports it, where reading on would crash the pull on a stranger's value."""
    return value if isinstance(value, Mapping) else {}


def _known(value: object, pool: frozenset[str]) -> bool:
    """Whether a target's id is one the pull holds: an id that is not a string is none (and not a key)."""
    return isinstance(value, str) and value in pool


def _whole(value: object) -> int | None:
    """Points, a balance, a stock: a whole number >= 0 as a scenario holds it (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _shown(value: object) -> str:
    """A target's number for a report row: grouped when it is one, its repr when the target sent something else."""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else repr(value)


def _names(campaign: models.LoyaltyCampaign, run: _Pulling) -> tuple[str, str]:
    """(program, card definition) from the campaign's name, split where the simulator joins them."""
    program, joined, definition = campaign.name.partition(CAMPAIGN_NAME_JOIN)
    if joined and program and definition:
        return program, definition
    run.left("loyalty_campaign", campaign.id, "name",
             f"a pulled campaign's name is '<program>{CAMPAIGN_NAME_JOIN}<card definition>': both are named "
             f"{campaign.name!r}")
    return campaign.name, campaign.name


def _incentive_id(rule_id: str) -> str:
    """An incentive's id drawn from its earning rule's: the reads show none, and pulling twice must agree."""
    return ID_PREFIXES["incentive"] + hashlib.blake2b(rule_id.encode(), digest_size=12).hexdigest()


def _earned(loyalty: Mapping[str, Any], definition: str) -> tuple[str, str, dict[str, Any]] | None:
    """(incentive type, its detail's key, the detail) of a v1 earning rule's `loyalty`; None: not a scenario's."""
    if loyalty.get("type") == "FIXED" and _whole(loyalty.get("points")) is not None:
        return "POINTS", "points", {"value": loyalty["points"], "card_definition_id": definition}
    known = _V2_CALCULATION.get(str(loyalty.get("calculation_type")))
    if loyalty.get("type") != "PROPORTIONAL" or known is None:
        return None
    calculation, container, name = known
    given = dict(_mapping(_mapping(loyalty.get(container)).get(name)))
    if "every" not in given or "points" not in given:
        return None
    inner: dict[str, Any] = {"every": given.pop("every"), "value": given.pop("points")}
    kind, target = given.pop("object", None), given.pop("id", None)
    if kind is not None and not isinstance(kind, str):  # a key of `applicable_to`: a name, or not a scenario's
        return None
    if kind is not None:
        inner["applicable_to"] = [{kind: {"id": target}}]
    inner.update(given)
    return "POINTS_PROPORTIONAL", "points_proportional", {"calculation_type": calculation,
                                                          "card_definition_id": definition, container: {name: inner}}


#: The wire model an incentive's detail must fit, as the scenario's loader checks it (`check_incentive`).
_DETAILS: dict[str, type[BaseModel]] = {"points": models.IncentivePoints,
                                        "points_proportional": models.PointsProportional}


def _fitting(loyalty: Mapping[str, Any], definition: str) -> tuple[str, str, dict[str, Any]] | None:
    """`_earned`, when its detail is one the scenario loads (a target's odd values are reported, never fatal)."""
    earned = _earned(loyalty, definition)
    if earned is None:
        return None
    try:
        _DETAILS[earned[1]].model_validate(earned[2])
    except ValidationError:
        return None
    return earned


def _rule(rule: models.LoyaltyEarningRule, definition: str, run: _Pulling) -> dict[str, Any] | None:
    if not run.once("earning_rule", rule.id, definition):
        return None
    run.out.extend(leftovers("earning_rule", rule, _RULE_KEPT, _RULE_DERIVED))
    earned = _fitting(rule.loyalty, definition)
    if earned is None or not rule.event:
        what = "no event" if not rule.event else f"its loyalty {rule.loyalty!r}"
        run.left("earning_rule", rule.id, "loyalty" if rule.event else "event",
                 f"a scenario's earning rule credits points on an event: {what} is not one; left out")
        return None
    if rule.validation_rule_id is not None:
        run.left("earning_rule", rule.id, "validation_rule_id",
                 f"the rule's conditions ({rule.validation_rule_id}) are not read: written with none")
    kind, key, detail = earned
    iid = _incentive_id(rule.id)
    banner = rule.source.get("banner")
    name = banner if isinstance(banner, str) and banner else rule.id
    run.incentives.append({"id": iid, "name": name, "type": kind, key: detail})
    run.left("earning_rule", rule.id, "incentive",
             f"the reads show a rule's points, not its incentive: written as {iid}, ACTIVE, of unlimited stock")
    run.events.setdefault(rule.event)
    return spec({"id": rule.id, "event": rule.event, "incentive": iid, "active": None if rule.active else False})


def _card(card: models.LoyaltyMember, definition: str, holders: set[str], run: _Pulling) -> dict[str, Any] | None:
    run.out.extend(leftovers("loyalty_card", card, _CARD_KEPT, _CARD_DERIVED))
    if card.holder_id is None or card.holder_id not in run.known.customers:
        run.left("loyalty_card", card.id, "holder_id",
                 f"a scenario's card is a member's: its holder {card.holder_id!r} is not a pulled customer; left out")
        return None
    if card.holder_id in holders:
        run.left("loyalty_card", card.id, "holder_id",
                 f"a scenario's customer holds one card of a card definition: {card.holder_id}'s other is kept")
        return None
    if not run.once("loyalty_card", card.code, definition):
        return None
    holders.add(card.holder_id)
    if card.id != card.code:
        run.left("loyalty_card", card.id, "id", f"a scenario's card is found by its code: its id is {card.code!r}")
    balance = _whole(card.loyalty_card.get("balance", 0))
    if balance is None:
        run.left("loyalty_card", card.id, "loyalty_card.balance",
                 f"a scenario's card holds whole points >= 0: its balance "
                 f"{_shown(card.loyalty_card.get('balance'))} is not; left out")
        return None
    spent = card.redemption.get("redeemed_points") or 0
    if spent:
        run.left("loyalty_card", card.id, "redemption.redeemed_points",
                 f"a scenario's card starts at its balance: the {_shown(spent)} points it spent are the history's")
    entry = {"id": card.code, "card_definition": definition, "balance": balance}
    return spec({"customer": card.holder_id, "status": None if card.active is not False else "INACTIVE",
                 "cards": [spec(entry)]})


def _assignment(assignment: models.LoyaltyRewardAssignment, campaign_id: str, rewards: Mapping[str, Any],
                run: _Pulling) -> dict[str, Any] | None:
    points = _whole(_mapping(_mapping(assignment.parameters).get("loyalty")).get("points"))
    kept_in = run.assignments.get(assignment.id)
    if kept_in is not None:
        run.left("reward_assignment", assignment.id, "related_object_id",
                 f"a scenario's assignment is one program's: priced in {campaign_id} too, kept in {kept_in} only")
        return None
    if assignment.reward_id not in rewards or points is None:
        why = "has no price in points" if assignment.reward_id in rewards else \
            f"offers {assignment.reward_id}, which is not pulled"
        run.left("reward_assignment", assignment.id, "reward_id", f"the assignment {why}; left out")
        return None
    run.assignments[assignment.id] = campaign_id
    return {"id": assignment.id, "reward": assignment.reward_id,
            "costs": [{"card_definition": campaign_id, "points": points}]}


def _program(read: _Read, rewards: Mapping[str, Any], run: _Pulling) -> dict[str, Any]:
    campaign = read.campaign
    run.out.extend(leftovers("loyalty_campaign", campaign, _CAMPAIGN_KEPT, _CAMPAIGN_DERIVED))
    for key, served in _CAMPAIGN_AS_SERVED.items():
        if getattr(campaign, key) != served:
            run.left("loyalty_campaign", campaign.id, key,
                     f"a scenario's program is {key} {served!r}: its {getattr(campaign, key)!r} is not kept")
    start = _mapping(campaign.voucher.loyalty_card).get("points") if campaign.voucher is not None else None
    if start:
        run.left("loyalty_campaign", campaign.id, "voucher.loyalty_card.points",
                 f"a scenario's new card starts at 0 points, not {_shown(start)}")
    run.left("loyalty_campaign", campaign.id, "program",
             "the reads show one campaign per card definition, not which were one program nor the card type: "
             "written as a program of one POINTS card definition")
    run.out.extend(Unexpressed("loyalty_tier", tier.id, "campaign_id", "a scenario's program has no tiers; left out")
                   for tier in read.tiers)
    program_name, definition_name = _names(campaign, run)
    holders: set[str] = set()
    members = [m for m in (_card(card, campaign.id, holders, run) for card in read.cards) if m is not None]
    offered = [a for a in (_assignment(a, campaign.id, rewards, run) for a in read.assignments) if a is not None]
    rules = [r for r in (_rule(rule, campaign.id, run) for rule in read.rules) if r is not None]
    return spec({"name": program_name, "status": None if campaign.active is not False else "INACTIVE",
                 "start_date": _instant(campaign.start_date), "expiration_date": _instant(campaign.expiration_date),
                 "card_definitions": [{"id": campaign.id, "name": definition_name}], "members": members,
                 "rewards": offered, "earning_rules": rules})


def _reward(reward: models.ProjectReward, run: _Pulling) -> dict[str, Any] | None:
    """A v1 reward as the scenario's (a MATERIAL product or SKU, a DIGITAL code of a campaign), or None."""
    run.out.extend(leftovers("reward", reward, _REWARD_KEPT, _REWARD_DERIVED))
    if reward.redeemed:
        run.left("reward", reward.id, "redeemed",
                 f"a scenario's reward starts ungranted: its {reward.redeemed:,} grants are the history's")
    product = _mapping(reward.parameters.get("product"))
    campaign = _mapping(reward.parameters.get("campaign"))
    entry: dict[str, Any] = {"id": reward.id, "name": reward.name}
    missing = None
    if reward.type == "MATERIAL" and product.get("sku_id"):
        entry |= {"type": "MATERIAL", "material": {"sku": {"product_id": product.get("id"), "id": product["sku_id"]}}}
        missing = None if _known(product["sku_id"], run.known.skus) else f"SKU {product['sku_id']}"
    elif reward.type == "MATERIAL":
        entry |= {"type": "MATERIAL", "material": {"product": {"id": product.get("id")}}}
        missing = None if _known(product.get("id"), run.known.products) else f"product {product.get('id')}"
    elif reward.type == "CAMPAIGN" and _known(campaign.get("type"), frozenset(_DIGITAL)):
        detail = {"campaign_id": campaign.get("id")}
        if campaign.get("type") == "GIFT_VOUCHERS":
            detail["balance"] = campaign.get("balance")
        entry |= {"type": "DIGITAL", "digital": {_DIGITAL[campaign["type"]]: detail}}
        missing = None if _known(campaign.get("id"), run.known.campaigns) else f"campaign {campaign.get('id')}"
    else:
        run.left("reward", reward.id, "type", f"a scenario's reward is a product, a SKU, or a code of a coupon or "
                 f"gift campaign: a {reward.type} reward of {campaign.get('type')} is not; left out")
        return None
    if missing is not None:
        run.left("reward", reward.id, "parameters", f"the reward gives the {missing}, which is not pulled; left out")
        return None
    try:  # as the scenario's loader checks it (`check_reward`): a target's odd values are reported, never fatal
        if "material" in entry:
            models.Material.model_validate(entry["material"])
        else:
            models.Digital.model_validate(entry["digital"])
    except ValidationError:
        run.left("reward", reward.id, "parameters", f"the reward's {reward.parameters!r} is not a scenario's; left out")
        return None
    return spec({**entry, "metadata": reward.metadata})


def _stock(programs: Sequence[dict[str, Any]], rewards: Sequence[models.ProjectReward], run: _Pulling) -> None:
    """Each reward's stock on its assignments: the reads give a reward's sum only, so its first
    assignment holds it all and any other none (reported)."""
    offering: dict[str, list[dict[str, Any]]] = {}
    for program in programs:
        for assignment in program.get("rewards", []):
            offering.setdefault(assignment["reward"], []).append(assignment)
    for reward in rewards:
        if reward.stock is None:
            continue
        assigned = offering.get(reward.id)
        if not assigned:
            run.left("reward", reward.id, "stock",
                     f"a scenario's stock is its assignments': the reward's {reward.stock:,} has none to hold it")
            continue
        first, *others = assigned
        first["stock"] = reward.stock
        for other in others:
            other["stock"] = 0
            run.left("reward_assignment", other["id"], "stock",
                     f"the reads give {reward.id}'s stock ({reward.stock:,}) for all its assignments: "
                     f"{first['id']} holds it, this one none")


def _read(reader: Reader, campaign: models.LoyaltyCampaign, counted: Callable[[list[Any]], list[Any]]) -> _Read:
    by_id = {"campaign_id": campaign.id}
    return _Read(campaign, counted(walk(reader, loyalty_reads.LIST_LOYALTY_TIERS, by_id)),
                 counted(walk(reader, loyalty_reads.LIST_EARNING_RULES, by_id)),
                 counted(walk(reader, loyalty_reads.LIST_REWARD_ASSIGNMENTS, by_id)),
                 counted(walk(reader, loyalty_reads.LIST_MEMBERS, by_id, window=_MEMBERS_BY_DATE)))


def read_loyalty(reader: Reader, counted: Callable[[list[Any]], list[Any]], known: Known) -> Loyalty:
    """Read the loyalty campaigns (each with its tiers, earning rules, reward assignments and cards)
    and the rewards; `counted` is told each list read; `known`: what the rest of the pull holds."""
    campaigns: list[models.LoyaltyCampaign] = counted(walk(reader, loyalty_reads.LIST_LOYALTY_PROGRAMS))
    reads_ = [_read(reader, campaign, counted) for campaign in campaigns]
    listed: list[models.ProjectReward] = counted(walk(reader, reads.LIST_REWARDS))
    run = _Pulling(known)
    rewards = {entry["id"]: entry for entry in (_reward(reward, run) for reward in listed) if entry is not None}
    programs = [_program(read, rewards, run) for read in reads_]
    _stock(programs, [reward for reward in listed if reward.id in rewards], run)
    section = spec({"rewards": list(rewards.values()), "incentives": run.incentives, "programs": programs})
    run.out.extend(Unexpressed("event_schema", event, "metadata",
                               "the reads do not show an event's properties: written with none (any accepted)")
                   for event in run.events)
    sections = [(key, value) for key, value in (
        ("loyalty", section), ("event_schema", [{"name": event} for event in run.events])) if value]
    dated = [*campaigns, *listed, *(obj for read in reads_ for obj in (*read.tiers, *read.rules, *read.assignments,
                                                                        *read.cards))]
    return Loyalty(sections, run.out, dated, len(campaigns) + len(listed) + sum(
        len(r.tiers) + len(r.rules) + len(r.assignments) + len(r.cards) for r in reads_))
