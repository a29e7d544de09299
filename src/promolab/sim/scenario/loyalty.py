"""Building a scenario's loyalty section: rewards, incentives, programs.

Rewards and incentives first (checked against their wire models, their
DIGITAL campaigns resolved), then each program with what it contains, in
its own block (a refused program builds none of it): card definitions,
members and their cards, reward assignments and their costs, earning rules.
"""

from __future__ import annotations

from typing import Any

from ..records import (
    Card,
    CardDefinition,
    EarningRule,
    Incentive,
    Member,
    Program,
    Reward,
    RewardAssignment,
    RewardCost,
)
from . import schema
from .builder import Builder
from .wire_checks import check_incentive, check_reward, check_rules

__all__ = ["LoyaltyBuilder"]


class LoyaltyBuilder(Builder):
    """The `loyalty:` section of a scenario."""

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
                        raise self.missing("event", e.event, "event", f"event {e.event!r} is not in the event schema")
                    if e.validation_rules is not None:
                        with self.at(f"{path}.earning_rules[{j}].validation_rules"):
                            check_rules(e.validation_rules)
                    st.earning_rules[eid] = EarningRule(
                        id=eid, program_id=pid, event=e.event, incentive_id=incentive, active=e.active,
                        validation_rules=e.validation_rules, created_at=self.now,
                    )
