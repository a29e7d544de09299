"""The derived lookups of the hot paths always say what a full scan of the
state says, whatever happened before: random sequences of operations
(accepted and refused), clock moves, webhook attempts that fail and retry,
configurations deleted, snapshots restored, resets, and records changed
behind the operations' back.

- `loyalty.reservations.PendingPurchases`: PENDING purchases, points and
  units they hold, the next due time, processing order;
- `webhooks.due_order.DueOrder`: the next due sendout, taken in due-time then
  queue order;
- `loyalty.lookups.LoyaltyLookups`: card of a member per card definition,
  memberships of a customer per program, assignment of a reward per program;
- `referrals._Converted`: who converted which referral campaign;
- `earning.validation.compiled_rules`: an earning rule's compiled validation rules.

None of it is ever part of a snapshot.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from promolab import Simulator
from promolab.sim.clock import parse_instant
from promolab.sim.earning.validation import _rule_passes, rules_pass
from promolab.sim.loyalty import ledger
from promolab.sim.loyalty.lookups import assignment_of, card_for, members_of
from promolab.sim.loyalty.purchase_settlement import PURCHASES
from promolab.sim.loyalty.reservations import (
    PURCHASE_TYPE,
    pending_index,
    pending_purchases,
    reserved_points,
    reserved_stock,
)
from promolab.sim.operation import Operation
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.operations.custom_events import TRACK_EVENT
from promolab.sim.operations.publishing import PUBLISH
from promolab.sim.operations.purchases import PURCHASE_REWARD
from promolab.sim.operations.validation import VALIDATE
from promolab.sim.operations.webhook_configs import DELETE_WEBHOOK
from promolab.sim.records import PendingDelivery
from promolab.sim.referrals import _converted
from promolab.sim.refusals import SimError
from promolab.sim.state import State
from promolab.sim.webhooks.delivery import DeliveryProcessor
from promolab.sim.webhooks.due_order import DueOrder, due_order

DEMO = Path(__file__).parents[2] / "data" / "scenarios" / "demo.yaml"

PROGRAM = "lprg_coffee_club"
MEMBERS = ["lmbr_alice", "lmbr_bob", "lmbr_carol", "lmbr_dave", "lmbr_frank", "lmbr_legacy_bob", "lmbr_nope"]
REWARDS = ["lrew_mug", "lrew_beans_1kg", "lrew_coupon", "lrew_gift_25", "lrew_sticker", "lrew_retired", "lrew_nope"]
CUSTOMERS = ["alice", "bob", "carol", "dave", "erin", "frank", "guest-1", "guest-2"]
CARDS = ["lcrd_alice_beans", "lcrd_alice_stars", "lcrd_bob_beans", "lcrd_dave_beans", "lcrd_dave_stars",
         "lcrd_frank_beans", "lcrd_carol_beans"]
DELIVERIES = DeliveryProcessor()

_SNAPSHOT: dict[str, Any] | None = None


def _fresh() -> Simulator:
    global _SNAPSHOT
    if _SNAPSHOT is None:
        _SNAPSHOT = Simulator.from_scenario(DEMO).snapshot()
    return Simulator.restore(_SNAPSHOT)


class Flaky:
    """A receiver failing in a fixed cycle: delivered, HTTP 500, timeout, error."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, headers: Any, body: bytes) -> int | None:
        self.calls += 1
        kind = self.calls % 4
        if kind == 1:
            return 500
        if kind == 2:
            raise TimeoutError("slow")
        if kind == 3:
            raise RuntimeError("boom")
        return None


# -- what a full scan says ------------------------------------------------------------------------
def scan_pending(sim: Simulator) -> list[str]:
    return [t.id for t in sim.state.card_transactions.values() if t.status == "PENDING" and t.type == PURCHASE_TYPE]


def scan_reserved_points(sim: Simulator, card_id: str) -> int:
    return sum(-sim.state.card_transactions[t].points for t in scan_pending(sim)
               if sim.state.card_transactions[t].card_id == card_id)


def scan_reserved_stock(sim: Simulator, assignment_id: str) -> int:
    return sum(1 for t in scan_pending(sim) if sim.state.card_transactions[t].reward_assignment_id == assignment_id)


def scan_card(sim: Simulator, member_id: str, definition: str) -> Any:
    return next((c for c in sim.state.cards.values()
                 if c.member_id == member_id and c.card_definition_id == definition), None)


def scan_members(sim: Simulator, customer_id: str, program_id: str) -> list[Any]:
    return [m for m in sim.state.members.values() if m.customer_id == customer_id and m.program_id == program_id]


def scan_assignment(sim: Simulator, program_id: str, reward_id: str) -> Any:
    return next((a for a in sim.state.reward_assignments.values()
                 if a.program_id == program_id and a.reward_id == reward_id), None)


def assert_indexes_match_scans(sim: Simulator) -> None:
    st_ = sim.state
    # PENDING purchases
    assert [t.id for t in pending_purchases(sim)] == scan_pending(sim)
    for card in st_.cards.values():
        assert reserved_points(sim, card.id) == scan_reserved_points(sim, card.id), card.id
    for assignment in st_.reward_assignments.values():
        assert reserved_stock(sim, assignment.id) == scan_reserved_stock(sim, assignment.id), assignment.id
    due = [st_.card_transactions[t].due_at for t in scan_pending(sim)]
    assert PURCHASES.next_due(sim) == min((d for d in due if d is not None), default=None)
    # webhook sendouts
    queue = st_.pending_deliveries
    assert DELIVERIES.next_due(sim) == min((p.next_attempt_at for p in queue), default=None)
    order = due_order(sim)
    assert sorted(id(p) for _, _, p in order.heap) == sorted(id(p) for p in queue)
    assert [order.seq_of[id(p)] for p in queue] == sorted(order.seq_of[id(p)] for p in queue)
    # loyalty lookups
    definitions = list(st_.card_definitions) + ["lcdef_nope"]
    for member in [*st_.members, "lmbr_nope"]:
        for definition in definitions:
            assert card_for(sim, member, definition) is scan_card(sim, member, definition)
    for customer in [*st_.customers, "cust_nope"]:
        for program in [*st_.programs, "lprg_nope"]:
            assert members_of(sim, customer, program) == scan_members(sim, customer, program)
    for program in st_.programs:
        for reward in [*st_.rewards, "lrew_nope"]:
            assert assignment_of(sim, program, reward) is scan_assignment(sim, program, reward)
    # referral conversions
    assert _converted(sim) == {(c.campaign_id, c.referee_id) for c in st_.referral_conversions.values()}
    # compiled earning rules
    customers: list[dict[str, Any]] = [
        {"id": "cust_alice", "source_id": "alice", "metadata": {"tier": "gold", "orders": 14}},
        {"id": "cust_bob", "source_id": "bob", "metadata": {"tier": "bronze"}},
        {"source_id": "new", "metadata": {}},
    ]
    metadatas: list[dict[str, Any]] = [{"amount": 5000}, {"amount": 50, "channel": "app"}, {}]
    for earning_rule in st_.earning_rules.values():
        for seen in customers:
            for metadata in metadatas:
                assert _rule_passes(sim, earning_rule, seen, metadata) == rules_pass(
                    sim, earning_rule.validation_rules, seen, metadata
                ), earning_rule.id


# -- random histories -------------------------------------------------------------------------------
class DerivedIndexMachine(RuleBasedStateMachine):
    @initialize()
    def load(self) -> None:
        self.sim = _fresh()
        self._receivers()
        ledger.post(self.sim, self.sim.state.cards["lcrd_alice_beans"], type="ADMIN_CREDIT", points=5000)
        self.saved: dict[str, Any] | None = None

    def _receivers(self) -> None:
        self.sim.register_receiver("notebook", Flaky())
        self.sim.register_receiver("crm", lambda headers, body: 200)

    def _quietly(self, op: Operation[..., Any], **args: Any) -> None:
        try:
            self.sim.apply(op, **args)
        except SimError:
            pass

    @rule(member=st.sampled_from(MEMBERS), reward=st.sampled_from(REWARDS), times=st.integers(1, 3))
    def purchase(self, member: str, reward: str, times: int) -> None:
        for _ in range(times):
            self._quietly(PURCHASE_REWARD, program_id=PROGRAM, member_id=member, request={"reward_id": reward})

    @rule(delay=st.sampled_from([0, 1, 2, 5, 30]))
    def purchase_delay(self, delay: int) -> None:
        """Due times out of creation order."""
        self.sim.state.settings.purchase_delay_seconds = delay

    @rule(seconds=st.sampled_from([0, 0.5, 1, 2, 3, 29, 60, 90, 600, 3600, 86400]))
    def advance(self, seconds: float) -> None:
        self.sim.advance(seconds)

    @rule(customer=st.sampled_from(CUSTOMERS), amount=st.integers(-5, 20000),
          kind=st.sampled_from(["order", "review", "referral", "unknown", "card"]))
    def event(self, customer: str, amount: int, kind: str) -> None:
        request: dict[str, Any] = {"event": "order_placed", "customer": {"source_id": customer},
                                   "metadata": {"amount": amount}}
        if kind == "review":
            request = {"event": "review_written", "customer": {"source_id": customer},
                       "metadata": {"rating": amount % 7}}
        elif kind == "referral":
            request = {"event": "first_order_placed", "customer": {"source_id": customer},
                       "referral": {"code": "REF-ALICE"}, "metadata": {"amount": amount}}
        elif kind == "unknown":
            request = {"event": "nope", "customer": {"source_id": customer}}
        elif kind == "card":
            request["loyalty"] = {"code": "lcrd_alice_beans"}
        self._quietly(TRACK_EVENT, request=request)

    @rule(code=st.sampled_from(["GIFT-ALICE-50", "GIFT-BOB-25", "WELCOME-ALICE", "NOPE"]),
          amount=st.sampled_from([0, 500, 2500]))
    def gift(self, code: str, amount: int) -> None:
        self._quietly(ADD_GIFT_BALANCE, code=code, request={"amount": amount})

    @rule(customer=st.sampled_from(CUSTOMERS))
    def publish(self, customer: str) -> None:
        self._quietly(PUBLISH, request={"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": customer}},
                    join_once=True)

    @rule(hook=st.sampled_from(["wh_crm", "wh_notebook", "wh_nope"]))
    def delete_webhook(self, hook: str) -> None:
        self._quietly(DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id=hook)

    @rule(card=st.sampled_from(CARDS), points=st.integers(-400, 400))
    def admin(self, card: str, points: int) -> None:
        record = self.sim.state.cards[card]
        if points and record.balance + points >= 0:
            ledger.post(self.sim, record, type="ADMIN_CREDIT" if points > 0 else "ADMIN_DEBIT", points=points)

    @rule(data=st.data())
    def meddle(self, data: st.DataObject) -> None:
        """Records changed behind the operations' back, as tests and notebooks do."""
        st_ = self.sim.state
        what = data.draw(st.sampled_from(["member", "reward", "rules", "queue", "assignment"]))
        if what == "member":
            st_.members[data.draw(st.sampled_from(MEMBERS[:5]))].status = data.draw(
                st.sampled_from(["ACTIVE", "INACTIVE"]))
        elif what == "reward":
            st_.rewards[data.draw(st.sampled_from(REWARDS[:5]))].status = data.draw(
                st.sampled_from(["ACTIVE", "INACTIVE"]))
        elif what == "rules":
            tier = data.draw(st.sampled_from(["gold", "silver", "bronze"]))
            st_.earning_rules["lern_loyal_stars"].validation_rules = {
                "rules": {"1": {"name": "customer.metadata", "property": "tier", "conditions": {"$in": [tier]}}},
                "logic": "1",
            }
        elif what == "queue":
            st_.pending_deliveries.append(PendingDelivery(
                sendout_id="whs_manual", webhook_id="wh_notebook", event_type="EVENTS.X", body="{}",
                first_attempt_at=self.sim.now, next_attempt_at=self.sim.now + timedelta(seconds=30), attempt=1,
            ))
        elif "lrewa_mug" in st_.reward_assignments:
            del st_.reward_assignments["lrewa_mug"]

    @rule()
    def validate(self) -> None:
        self._quietly(VALIDATE, request={"customer": {"source_id": "alice"},
                                         "order": {"items": [{"product_id": "prod_mug", "quantity": 1}]}})

    @rule()
    def save(self) -> None:
        self.saved = self.sim.snapshot()

    @precondition(lambda self: self.saved is not None)
    @rule(how=st.sampled_from(["restore", "load", "reset"]))
    def restore(self, how: str) -> None:
        assert self.saved is not None
        if how == "restore":
            self.sim = Simulator.restore(self.saved)
            self._receivers()
        elif how == "load":
            self.sim.load_snapshot(self.saved)
        else:
            self.sim.reset()

    @invariant()
    def indexes_match_full_scans(self) -> None:
        assert_indexes_match_scans(self.sim)

    @invariant()
    def derived_data_is_never_in_a_snapshot(self) -> None:
        fields = set(State.model_fields)
        optional = {name for name, field in State.model_fields.items() if field.exclude_if is not None}
        assert fields - optional <= set(self.sim.snapshot()["state"]) <= fields  # records only


DerivedIndexMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=35, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestDerivedIndexes = DerivedIndexMachine.TestCase


# -- order of the work taken off the indexes ----------------------------------------------------------
T0 = parse_instant("2026-03-06T10:00:00Z")


def _reference_take(queue: list[PendingDelivery], moment: datetime) -> PendingDelivery | None:
    """The queue scan the index replaces: earliest due, queue order on ties."""
    due = [p for p in queue if p.next_attempt_at <= moment]
    if not due:
        return None
    first = min(due, key=lambda p: p.next_attempt_at)
    queue.remove(first)
    return first


def _sendout(n: int, offset: int) -> PendingDelivery:
    at = T0 + timedelta(seconds=offset)
    return PendingDelivery(sendout_id=f"whs_{n}", webhook_id="wh_x", event_type="E", body="{}",
                           first_attempt_at=at, next_attempt_at=at, attempt=1)


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(st.one_of(
    st.tuples(st.just("add"), st.integers(0, 6)),
    st.tuples(st.just("take"), st.integers(0, 8)),
), max_size=40))
def test_due_order_takes_what_the_queue_scan_takes(steps: list[tuple[str, int]]) -> None:
    state, reference = State(), []
    order = DueOrder(state)
    for n, (kind, value) in enumerate(steps):
        if kind == "add":
            sendout = _sendout(n, value)
            state.pending_deliveries.append(sendout)
            reference.append(sendout)
        else:
            moment = T0 + timedelta(seconds=value)
            expected = _reference_take(reference, moment)
            assert order.sync().take_due(moment) is expected
        assert state.pending_deliveries == reference
        assert order.sync().next_due() == min((p.next_attempt_at for p in reference), default=None)


@settings(max_examples=60, deadline=None)
@given(purchases=st.lists(st.tuples(st.sampled_from(["lrew_mug", "lrew_coupon", "lrew_sticker"]),
                                    st.sampled_from([0, 1, 2, 3, 10])), min_size=1, max_size=12),
       step=st.sampled_from([1, 3, 11]))
def test_purchases_are_processed_by_due_time_then_creation_order(
    purchases: list[tuple[str, int]], step: int
) -> None:
    sim = _fresh()
    ledger.post(sim, sim.state.cards["lcrd_alice_beans"], type="ADMIN_CREDIT", points=100_000)
    due: dict[str, tuple[datetime, int]] = {}
    for n, (reward, delay) in enumerate(purchases):
        sim.state.settings.purchase_delay_seconds = delay
        try:
            result = sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id="lmbr_alice", request={"reward_id": reward})
        except SimError:
            continue
        if result.transaction is not None:
            record = sim.state.card_transactions[result.transaction.id]
            assert record.due_at is not None
            due[record.id] = (record.due_at, n)
    while any(sim.state.card_transactions[t].status == "PENDING" for t in due):
        sim.advance(step)
    # Granted rewards are created in processing order (free rewards have no transaction).
    settled = [g.transaction_id for g in sim.state.granted_rewards.values() if g.transaction_id in due]
    approved = [t for t in sorted(due, key=lambda t: due[t]) if sim.state.card_transactions[t].status == "APPROVED"]
    assert settled == approved
    assert pending_index(sim).next_due() is None
