"""Random interleavings of purchases, clock advances, earning, admin debits,
reward status changes and deletions never break the loyalty invariants:

- no card balance and no stock ever goes below zero;
- a card's balance is its opening balance plus the points of its APPROVED
  transactions (PENDING and REJECTED ones move nothing);
- every PENDING purchase is due in the future, settled ones are not due;
- points and units held by PENDING purchases never exceed what is there,
  unless an administrator took points or units away meanwhile (then the
  processing rejects instead);
- every granted reward comes from an APPROVED purchase or a free purchase,
  and each assignment's stock went down by exactly the units granted;
- a refused request changes nothing.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from promolab import Simulator
from promolab.sim.loyalty import ledger
from promolab.sim.loyalty.reservations import reserved_points, reserved_stock
from promolab.sim.operations.custom_events import TRACK_EVENT
from promolab.sim.operations.purchases import PURCHASE_REWARD
from promolab.sim.operations.rewards import DELETE_REWARD
from promolab.sim.refusals import SimError

from .conftest import DEMO

PROGRAM = "lprg_coffee_club"
MEMBERS = ["lmbr_alice", "lmbr_bob", "lmbr_carol", "lmbr_dave", "lmbr_frank", "lmbr_legacy_bob", "lmbr_nope"]
REWARDS = ["lrew_mug", "lrew_beans_1kg", "lrew_coupon", "lrew_gift_25", "lrew_sticker", "lrew_retired", "lrew_nope"]
BUYERS = ["lmbr_alice", "lmbr_frank", "lmbr_bob", "lmbr_dave"]
STATUSES = ["ACTIVE", "ACTIVE", "DRAFT", "INACTIVE"]
CARDS = ["lcrd_alice_beans", "lcrd_bob_beans", "lcrd_frank_beans", "lcrd_dave_beans", "lcrd_dave_stars",
         "lcrd_alice_stars"]

_DEMO_SNAPSHOT: dict | None = None


def _fresh() -> Simulator:
    global _DEMO_SNAPSHOT
    if _DEMO_SNAPSHOT is None:
        _DEMO_SNAPSHOT = Simulator.from_scenario(DEMO).snapshot()
    return Simulator.restore(_DEMO_SNAPSHOT)


def fingerprint(sim: Simulator) -> tuple:
    """A cheap stand-in for `dump_json()` (the refusal tests compare whole
    dumps): what a purchase could change."""
    st = sim.state
    return (
        sim.clock.iso(), tuple(sim.ids.state().items()), len(st.card_transactions),
        tuple((t.status, t.due_at) for t in st.card_transactions.values()),
        tuple(c.balance for c in st.cards.values()), tuple(a.stock for a in st.reward_assignments.values()),
        len(st.granted_rewards), len(st.publications), len(st.vouchers), len(st.pending_deliveries),
    )


def _gift_available() -> bool:
    try:
        import promolab.sim.gift  # noqa: F401
    except ImportError:
        return False
    return True


class LoyaltyMachine(RuleBasedStateMachine):
    @initialize(mug_stock=st.integers(0, 4))
    def load(self, mug_stock: int) -> None:
        self.sim = _fresh()
        self.sim.state.reward_assignments["lrewa_mug"].stock = mug_stock  # scarce mugs
        self.opening = {c.id: c.balance for c in self.sim.state.cards.values()}
        self.opening_stock = {a.id: a.stock for a in self.sim.state.reward_assignments.values()}
        self.free_grants: Counter[str] = Counter()
        # Cards/assignments an administrator took points/units from: their
        # reservations may exceed what is left until processing rejects.
        self.debited: set[str] = set()
        self.stock_cut: set[str] = set()
        self.stock_added: Counter[str] = Counter()
        self.rewards = REWARDS if _gift_available() else [r for r in REWARDS if r != "lrew_gift_25"]

    # -- rules ------------------------------------------------------------
    @rule(member=st.sampled_from(MEMBERS), reward_index=st.integers(0, len(REWARDS) - 1))
    def purchase_anything(self, member: str, reward_index: int) -> None:
        self._purchase(member, self.rewards[reward_index % len(self.rewards)])

    @rule(member=st.sampled_from(BUYERS), reward_index=st.integers(0, 4), times=st.integers(1, 5))
    def purchase_burst(self, member: str, reward_index: int, times: int) -> None:
        """The same purchase several times before the clock moves (a double
        click, concurrent requests)."""
        reward = self.rewards[reward_index % len(self.rewards)]
        for _ in range(times):
            self._purchase(member, reward)

    def _purchase(self, member: str, reward: str) -> None:
        before = fingerprint(self.sim)
        try:
            result = self.sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id=member, request={"reward_id": reward})
        except SimError as exc:
            assert exc.status in (400, 404, 423), exc.body()
            assert fingerprint(self.sim) == before, f"refusal {exc.key} changed the state"
            return
        if result.transaction is None:
            assignment = next(a for a in self.sim.state.reward_assignments.values()
                              if a.program_id == PROGRAM and a.reward_id == reward)
            self.free_grants[assignment.id] += 1
        else:
            assert result.transaction.status.value == "PENDING"

    @rule(seconds=st.sampled_from([0, 0.5, 1, 1.5, 2, 3, 10]))
    def advance(self, seconds: float) -> None:
        self.sim.advance(seconds)

    @rule(data=st.data())
    def meddle(self, data: st.DataObject) -> None:
        """Something else happens meanwhile: points earned or taken by an
        administrator, an event, a reward status change or deletion, stock
        added or removed."""
        action = data.draw(st.sampled_from(
            ["earn", "review", "admin_debit", "reward_status", "delete_reward", "restock"]
        ))
        getattr(self, f"_{action}")(data)

    def _earn(self, data: st.DataObject) -> None:
        card = data.draw(st.sampled_from(CARDS))
        ledger.post(self.sim, self.sim.state.cards[card], type="ADMIN_CREDIT", points=data.draw(st.integers(1, 600)))

    def _review(self, data: st.DataObject) -> None:
        """Earning through the events operation (#5): 50 beans per review."""
        member = data.draw(st.sampled_from(["alice", "bob", "carol", "dave", "frank"]))
        try:
            self.sim.apply(TRACK_EVENT, request={"event": "review_written", "customer": {"source_id": member},
                                                 "metadata": {"rating": 5}})
        except SimError:
            pass

    def _admin_debit(self, data: st.DataObject) -> None:
        record = self.sim.state.cards[data.draw(st.sampled_from(CARDS))]
        points = int(record.balance * data.draw(st.floats(0.05, 1.0)))
        if points > 0:
            ledger.post(self.sim, record, type="ADMIN_DEBIT", points=-points)
            self.debited.add(record.id)

    def _reward_status(self, data: st.DataObject) -> None:
        reward = data.draw(st.sampled_from(REWARDS[:5]))
        self.sim.state.rewards[reward].status = data.draw(st.sampled_from(STATUSES))  # type: ignore[assignment]

    def _delete_reward(self, data: st.DataObject) -> None:
        try:
            self.sim.apply(DELETE_REWARD, reward_id=data.draw(st.sampled_from(REWARDS[:6])))
        except SimError as exc:
            assert exc.key == "resource_in_use"

    def _restock(self, data: st.DataObject) -> None:
        record = self.sim.state.reward_assignments[data.draw(st.sampled_from(["lrewa_mug", "lrewa_beans", "lrewa_gift"]))]
        assert record.stock is not None
        new = max(0, record.stock + data.draw(st.integers(-2, 2)))
        if new < record.stock:
            self.stock_cut.add(record.id)
        self.stock_added[record.id] += new - record.stock
        record.stock = new

    # -- invariants --------------------------------------------------------
    @invariant()
    def balances_never_negative_and_match_the_ledger(self) -> None:
        approved: Counter[str] = Counter()
        for t in self.sim.state.card_transactions.values():
            if t.status == "APPROVED":
                approved[t.card_id] += t.points
        for card in self.sim.state.cards.values():
            assert card.balance >= 0
            assert card.balance == self.opening[card.id] + approved[card.id], card.id
            if card.id not in self.debited:
                assert reserved_points(self.sim, card.id) <= card.balance, card.id

    @invariant()
    def stock_never_negative_and_matches_the_grants(self) -> None:
        granted: Counter[str] = Counter()
        for t in self.sim.state.card_transactions.values():
            if t.type == "POINTS_SPENT_ON_REWARD" and t.status == "APPROVED":
                granted[t.reward_assignment_id or ""] += 1
        for a in self.sim.state.reward_assignments.values():
            if a.stock is None:
                continue
            assert a.stock >= 0
            used = granted[a.id] + self.free_grants[a.id]
            assert a.stock == self.opening_stock[a.id] + self.stock_added[a.id] - used, a.id
            if a.id not in self.stock_cut:
                assert reserved_stock(self.sim, a.id) <= a.stock, a.id

    @invariant()
    def pending_is_due_in_the_future(self) -> None:
        now = self.sim.now
        for t in self.sim.state.card_transactions.values():
            if t.status == "PENDING":
                assert t.due_at is not None and t.due_at > now
            else:
                assert t.due_at is None
                if t.type == "POINTS_SPENT_ON_REWARD":
                    assert ("rejection" in t.details) == (t.status == "REJECTED")

    @invariant()
    def every_grant_is_paid_for(self) -> None:
        approved = {t.id for t in self.sim.state.card_transactions.values()
                    if t.type == "POINTS_SPENT_ON_REWARD" and t.status == "APPROVED"}
        paid = [g.transaction_id for g in self.sim.state.granted_rewards.values() if g.transaction_id is not None]
        free = [g for g in self.sim.state.granted_rewards.values() if g.transaction_id is None]
        assert sorted(paid) == sorted(approved)
        assert len(free) == sum(self.free_grants.values())


LoyaltyMachine.TestCase.settings = settings(
    max_examples=80, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestLoyaltyInterleavings = LoyaltyMachine.TestCase


# -- focused properties: a burst of purchases, then meddling, then the clock --------------
PURCHASE = st.tuples(st.sampled_from(BUYERS), st.sampled_from(REWARDS[:5]))
MEDDLE = st.one_of(
    st.tuples(st.just("debit"), st.sampled_from(CARDS), st.floats(0.05, 1.0)),
    st.tuples(st.just("status"), st.sampled_from(REWARDS[:5]), st.sampled_from(["DRAFT", "INACTIVE", "DELETED"])),
    st.tuples(st.just("stock"), st.sampled_from(["lrewa_mug", "lrewa_beans", "lrewa_gift"]), st.integers(0, 2)),
    st.tuples(st.just("member"), st.sampled_from(BUYERS), st.just("INACTIVE")),
)


def _burst(sim: Simulator, purchases: list[tuple[str, str]]) -> list[str]:
    accepted = []
    for member, reward in purchases:
        try:
            result = sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id=member, request={"reward_id": reward})
        except SimError as exc:
            assert exc.status in (400, 423), exc.body()
            continue
        if result.transaction is not None:
            accepted.append(result.transaction.id)
    return accepted


@settings(max_examples=150, deadline=None)
@given(purchases=st.lists(PURCHASE, max_size=14), mug_stock=st.integers(0, 4))
def test_accepted_purchases_are_all_approved_when_nothing_else_happens(
    purchases: list[tuple[str, str]], mug_stock: int
) -> None:
    """The reservation is exact: whatever was accepted can be paid and
    delivered, so with no interference every PENDING purchase is APPROVED
    (except a second coupon of the join_once newsletter campaign: a customer
    gets one code of it, ever, and that is only known when it is granted)."""
    sim = _fresh()
    sim.state.reward_assignments["lrewa_mug"].stock = mug_stock
    accepted = _burst(sim, purchases)
    for card in sim.state.cards.values():
        assert reserved_points(sim, card.id) <= card.balance
    for assignment in sim.state.reward_assignments.values():
        assert assignment.stock is None or reserved_stock(sim, assignment.id) <= assignment.stock
    sim.advance(2)
    for tx_id in accepted:
        record = sim.state.card_transactions[tx_id]
        if record.status == "REJECTED":
            assert record.details["reward_id"] == "lrew_coupon"
            assert record.details["rejection"]["reason"] == "join_once_code_already_published"
        else:
            assert record.status == "APPROVED"
    assert all(c.balance >= 0 for c in sim.state.cards.values())


@settings(max_examples=150, deadline=None)
@given(purchases=st.lists(PURCHASE, min_size=1, max_size=10), meddling=st.lists(MEDDLE, max_size=4))
def test_processing_rechecks_what_changed_meanwhile(
    purchases: list[tuple[str, str]], meddling: list[tuple[str, str, object]]
) -> None:
    """After interference, an APPROVED purchase is one that still passed every
    rule at its due time; the others are REJECTED with a reason, and nothing
    goes below zero."""
    sim = _fresh()
    opening = {c.id: c.balance for c in sim.state.cards.values()}
    accepted = _burst(sim, purchases)
    for kind, key, value in meddling:
        if kind == "debit":
            card = sim.state.cards[key]
            points = int(card.balance * float(value))  # type: ignore[arg-type]
            if points:
                ledger.post(sim, card, type="ADMIN_DEBIT", points=-points)
        elif kind == "status":
            sim.state.rewards[key].status = value  # type: ignore[assignment]
        elif kind == "stock":
            sim.state.reward_assignments[key].stock = value  # type: ignore[assignment]
        else:
            sim.state.members[key].status = value  # type: ignore[assignment]
    sim.advance(3)
    approved = Counter()
    for tx_id in accepted:
        record = sim.state.card_transactions[tx_id]
        assert record.status in ("APPROVED", "REJECTED")
        if record.status == "REJECTED":
            assert record.details["rejection"]["reason"]
            continue
        approved[record.card_id] += record.points
        assert sim.state.rewards[record.details["reward_id"]].status == "ACTIVE"
        assert sim.state.members[record.member_id].status == "ACTIVE"
    for card in sim.state.cards.values():
        assert card.balance >= 0
    for assignment in sim.state.reward_assignments.values():
        assert assignment.stock is None or assignment.stock >= 0
    approved_all: Counter[str] = Counter()
    for t in sim.state.card_transactions.values():
        if t.status == "APPROVED":
            approved_all[t.card_id] += t.points
    for card in sim.state.cards.values():
        assert card.balance == opening[card.id] + approved_all[card.id]
