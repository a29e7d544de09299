"""The quick time step of `Simulator.advance` never skips due work.

`Simulator.advance` only sets the clock when `processing.due_by` says that
nothing can be due on the way; `due_by` answers from per-state watches
(`loyalty.purchase_settlement.DueWatch`, `webhooks.due_order.DueOrder`) kept without a
full look at the state. Checked here against full scans and against the same
histories run with the quick path switched off:

- after every step of random histories (purchases with changing delays,
  clock moves, events earning points, webhook attempts that fail, retry and
  disable, configurations and rewards deleted, ledger entries and records
  added behind the operations' back, snapshots restored, resets), `due_by`
  says True for every instant at or after the earliest due work, and the
  purchases' watch never says later than the truth;
- the same histories, with receivers that call back into the simulator
  (nested advances), give byte-identical dumps and delivery logs whether
  `advance` may take its quick path or must always ask every processor.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.sim import simulator as simulator_module
from promolab.sim.loyalty import ledger
from promolab.sim.loyalty.purchase_settlement import DueWatch, due_watch
from promolab.sim.loyalty.reservations import PURCHASE_TYPE
from promolab.sim.operation import Operation
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.operations.custom_events import TRACK_EVENT
from promolab.sim.operations.purchases import PURCHASE_REWARD
from promolab.sim.operations.rewards import DELETE_REWARD
from promolab.sim.operations.webhook_configs import DELETE_WEBHOOK
from promolab.sim.records import CardTransaction, PendingDelivery
from promolab.sim.refusals import SimError
from promolab.sim.scheduler import due_by
from promolab.sim.state import State

DEMO = Path(__file__).parents[2] / "data" / "scenarios" / "demo.yaml"
PROGRAM = "lprg_coffee_club"
MEMBERS = ["lmbr_alice", "lmbr_bob", "lmbr_carol", "lmbr_dave"]
REWARDS = ["lrew_mug", "lrew_beans_1kg", "lrew_coupon", "lrew_sticker", "lrew_nope"]
CUSTOMERS = ["alice", "bob", "carol", "dave", "guest-1"]

_SNAPSHOT: dict[str, Any] | None = None


def _fresh() -> Simulator:
    global _SNAPSHOT
    if _SNAPSHOT is None:
        _SNAPSHOT = Simulator.from_scenario(DEMO).snapshot()
    sim = Simulator.restore(_SNAPSHOT)
    ledger.post(sim, sim.state.cards["lcrd_alice_beans"], type="ADMIN_CREDIT", points=20_000)
    return sim


# -- what a full scan says ----------------------------------------------------------------------------
def scan_next_due(sim: Simulator) -> datetime | None:
    """The earliest due work of the state, from every record."""
    st_ = sim.state
    purchases = [t.due_at for t in st_.card_transactions.values()
                 if t.status == "PENDING" and t.type == PURCHASE_TYPE and t.due_at is not None]
    sendouts = [p.next_attempt_at for p in st_.pending_deliveries]
    return min([*purchases, *sendouts], default=None)


def assert_watches_cover_due_work(sim: Simulator) -> None:
    earliest = scan_next_due(sim)
    watch = due_watch(sim)
    probes = [sim.now, sim.now + timedelta(seconds=1), sim.now + timedelta(hours=1), sim.now + timedelta(days=3)]
    for probe in probes:
        says = due_by(sim, probe)
        if earliest is not None and earliest <= probe:
            assert says, (probe, earliest)
    if earliest is not None:
        assert due_by(sim, earliest)
    # `due_by` stops at the first watch that says True: ask the purchases' watch itself too.
    purchases = [t.due_at for t in sim.state.card_transactions.values()
                 if t.status == "PENDING" and t.type == PURCHASE_TYPE and t.due_at is not None]
    says = watch.due_by(sim, sim.now)
    assert watch.seen == len(sim.state.card_transactions)
    if purchases:
        assert watch.earliest is not None and watch.earliest <= min(purchases)
        assert says or min(purchases) > sim.now


# -- random histories -----------------------------------------------------------------------------------
class Receiver:
    """Fails in a fixed cycle; every fifth call moves the clock from inside the
    delivery (past the target of an advance running it, at times: that
    advance then refuses to move the clock back, with or without quick steps)."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.calls = 0

    def __call__(self, headers: Any, body: bytes) -> int | None:
        self.calls += 1
        if self.calls % 5 == 0:
            self.sim.advance(30)
        kind = self.calls % 4
        if kind == 1:
            return 500
        if kind == 2:
            raise TimeoutError("slow")
        return None


STEPS = st.one_of(
    st.tuples(st.just("purchase"), st.sampled_from(MEMBERS), st.sampled_from(REWARDS)),
    st.tuples(st.just("delay"), st.sampled_from([0, 1, 5, 30, 3600])),
    st.tuples(st.just("advance"), st.sampled_from([0, 0.5, 1, 5, 29, 60, 600, 3600, 86_400])),
    st.tuples(st.just("event"), st.sampled_from(CUSTOMERS), st.integers(0, 20_000)),
    st.tuples(st.just("gift"), st.sampled_from(["GIFT-ALICE-50", "GIFT-BOB-25", "NOPE"]), st.sampled_from([0, 500])),
    st.tuples(st.just("delete_webhook"), st.sampled_from(["wh_crm", "wh_notebook"])),
    st.tuples(st.just("delete_reward"), st.sampled_from(["lrew_mug", "lrew_sticker"])),
    st.tuples(st.just("admin"), st.sampled_from(["lcrd_alice_beans", "lcrd_bob_beans"]), st.integers(-300, 300)),
    st.tuples(st.just("poke_purchase"), st.sampled_from([0, 2, 40])),
    st.tuples(st.just("poke_sendout"), st.sampled_from([0, 10, 3600])),
    st.tuples(st.just("save")),
    st.tuples(st.just("restore"), st.sampled_from(["restore", "load", "reset"])),
)


class History:
    """Plays a list of steps on a fresh simulator, checking the watches after each."""

    def __init__(self, check: bool) -> None:
        self.check = check
        self.sim = _fresh()
        self._receivers()
        self.saved: dict[str, Any] | None = None
        self.pokes = 0
        self.errors: list[str] = []

    def _receivers(self) -> None:
        self.sim.register_receiver("notebook", Receiver(self.sim))
        self.sim.register_receiver("crm", lambda headers, body: 200)

    def _quietly(self, op: Operation[..., Any], **args: Any) -> None:
        try:
            self.sim.apply(op, **args)
        except SimError:
            pass

    def play(self, steps: list[tuple[Any, ...]]) -> None:
        for step in steps:
            getattr(self, "_" + step[0])(*step[1:])
            if self.check:
                assert_watches_cover_due_work(self.sim)

    def _purchase(self, member: str, reward: str) -> None:
        self._quietly(PURCHASE_REWARD, program_id=PROGRAM, member_id=member, request={"reward_id": reward})

    def _delay(self, seconds: int) -> None:
        self.sim.state.settings.purchase_delay_seconds = seconds

    def _advance(self, seconds: float) -> None:
        try:
            self.sim.advance(seconds)
        except ValueError as exc:  # a receiver moved the clock past this call's target
            self.errors.append(str(exc))

    def _event(self, customer: str, amount: int) -> None:
        self._quietly(TRACK_EVENT, request={"event": "order_placed", "customer": {"source_id": customer},
                                            "metadata": {"amount": amount}})

    def _gift(self, code: str, amount: int) -> None:
        self._quietly(ADD_GIFT_BALANCE, code=code, request={"amount": amount})

    def _delete_webhook(self, hook: str) -> None:
        self._quietly(DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id=hook)

    def _delete_reward(self, reward: str) -> None:
        self._quietly(DELETE_REWARD, reward_id=reward)

    def _admin(self, card: str, points: int) -> None:
        record = self.sim.state.cards[card]
        if points and record.balance + points >= 0:
            ledger.post(self.sim, record, type="ADMIN_CREDIT" if points > 0 else "ADMIN_DEBIT", points=points)

    def _poke_purchase(self, seconds: int) -> None:
        """A PENDING purchase written straight into the state (no ledger, no operation)."""
        self.pokes += 1
        card = self.sim.state.cards["lcrd_alice_beans"]
        record = CardTransaction(
            id=f"lctx_poke_{self.pokes}", card_id=card.id, program_id=card.program_id, member_id=card.member_id,
            card_definition_id=card.card_definition_id, card_type="LOYALTY_CARD", type=PURCHASE_TYPE,
            status="PENDING", points=-10, details={"reward_id": "lrew_mug"}, created_at=self.sim.now,
            due_at=self.sim.now + timedelta(seconds=seconds), reward_assignment_id="lrewa_mug",
        )
        self.sim.state.card_transactions[record.id] = record

    def _poke_sendout(self, seconds: int) -> None:
        """A sendout appended straight to the queue."""
        self.pokes += 1
        self.sim.state.pending_deliveries.append(PendingDelivery(
            sendout_id=f"whs_poke_{self.pokes}", webhook_id="wh_notebook", event_type="EVENTS.X", body="{}",
            first_attempt_at=self.sim.now, next_attempt_at=self.sim.now + timedelta(seconds=seconds), attempt=1,
        ))

    def _save(self) -> None:
        self.saved = self.sim.snapshot()

    def _restore(self, how: str) -> None:
        if self.saved is None:
            return
        if how == "restore":
            self.sim = Simulator.restore(self.saved)
            self._receivers()
        elif how == "load":
            self.sim.load_snapshot(self.saved)
        else:
            self.sim.reset()

    def outcome(self) -> tuple[str, list[Any], list[str]]:
        deliveries = [a.model_dump(mode="json") for a in self.sim.state.webhook_deliveries]
        return self.sim.dump_json(), deliveries, self.errors


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(STEPS, min_size=1, max_size=60))
def test_due_by_says_true_whenever_work_is_due(steps: list[tuple[Any, ...]]) -> None:
    History(check=True).play(steps)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(STEPS, min_size=1, max_size=60))
def test_quick_time_steps_change_nothing(steps: list[tuple[Any, ...]]) -> None:
    _assert_quick_steps_change_nothing(steps, check=False)


def _assert_quick_steps_change_nothing(steps: list[tuple[Any, ...]], *, check: bool) -> None:
    """The same history with the quick time steps and with every step asking
    the processors (`due_by` always True) ends the same."""
    quick = History(check=check)
    quick.play(steps)
    with mock.patch.object(simulator_module, "due_by", lambda sim, target: True):
        asking = History(check=False)
        asking.play(steps)
    assert quick.outcome() == asking.outcome()


# -- the purchases' watch ---------------------------------------------------------------------------------
def test_watch_is_per_state_and_starts_from_the_exact_value() -> None:
    sim = _fresh()
    sim.state.settings.purchase_delay_seconds = 60
    sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id="lmbr_alice", request={"reward_id": "lrew_mug"})
    watch = due_watch(sim)
    assert isinstance(watch, DueWatch)
    assert not due_by(sim, sim.now + timedelta(seconds=59))
    assert due_by(sim, sim.now + timedelta(seconds=60))
    assert watch.earliest == sim.now + timedelta(seconds=60)
    sim.reset()
    assert due_watch(sim) is not watch
    assert not due_by(sim, sim.now + timedelta(days=30))


def test_a_settled_purchase_leaves_the_watch_early_until_the_exact_value_is_asked() -> None:
    sim = _fresh()
    sim.state.settings.purchase_delay_seconds = 10
    sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id="lmbr_alice", request={"reward_id": "lrew_mug"})
    start = sim.now
    sim.advance(10)  # processed at its instant
    assert scan_next_due(sim) is None
    # The exact value was asked on the way out of the advance: the watch is tight again.
    assert due_watch(sim).earliest is None
    assert not due_by(sim, start + timedelta(days=1))


def test_fewer_transactions_than_seen_goes_back_to_the_exact_value() -> None:
    sim = _fresh()
    sim.state.settings.purchase_delay_seconds = 5
    sim.apply(PURCHASE_REWARD, program_id=PROGRAM, member_id="lmbr_alice", request={"reward_id": "lrew_mug"})
    assert due_by(sim, sim.now + timedelta(seconds=5))
    # Records removed behind the operations' back (a notebook cleaning up).
    for key in [k for k, t in sim.state.card_transactions.items() if t.status == "PENDING"]:
        del sim.state.card_transactions[key]
    assert not due_by(sim, sim.now + timedelta(days=1))


def test_due_order_watch_follows_a_replaced_queue() -> None:
    sim = _fresh()
    queued = PendingDelivery(sendout_id="whs_x", webhook_id="wh_notebook", event_type="E", body="{}",
                             first_attempt_at=sim.now, next_attempt_at=sim.now + timedelta(seconds=30), attempt=1)
    sim.state.pending_deliveries = [queued]
    assert not due_by(sim, sim.now + timedelta(seconds=29))
    assert due_by(sim, sim.now + timedelta(seconds=30))
    sim.state.pending_deliveries = []
    assert not due_by(sim, sim.now + timedelta(days=1))


def test_watches_are_never_in_a_snapshot() -> None:
    sim = _fresh()
    due_by(sim, sim.now)
    fields = set(State.model_fields)
    optional = {name for name, field in State.model_fields.items() if field.exclude_if is not None}
    assert fields - optional <= set(sim.snapshot()["state"]) <= fields  # records only


def test_long_seeded_histories_match_with_and_without_quick_steps() -> None:
    """Longer histories than the shrinking-friendly ones above (a fixed seed each)."""
    for seed in range(3):
        _assert_quick_steps_change_nothing(_seeded_steps(seed, 150), check=True)


def _seeded_steps(seed: int, count: int) -> list[tuple[Any, ...]]:
    import random

    rng = random.Random(seed)
    choices: list[Any] = [
        lambda: ("purchase", rng.choice(MEMBERS), rng.choice(REWARDS)),
        lambda: ("purchase", "lmbr_alice", rng.choice(["lrew_mug", "lrew_coupon"])),
        lambda: ("delay", rng.choice([0, 1, 5, 30, 3600])),
        lambda: ("advance", rng.choice([0, 0.5, 1, 5, 29, 60, 600, 3600, 86_400])),
        lambda: ("advance", rng.choice([1, 5, 29, 60])),
        lambda: ("event", rng.choice(CUSTOMERS), rng.randint(0, 20_000)),
        lambda: ("gift", rng.choice(["GIFT-ALICE-50", "GIFT-BOB-25"]), 500),
        lambda: ("delete_webhook", rng.choice(["wh_crm", "wh_notebook"])) if rng.random() < 0.1 else ("save",),
        lambda: ("delete_reward", "lrew_sticker") if rng.random() < 0.1 else ("save",),
        lambda: ("admin", rng.choice(["lcrd_alice_beans", "lcrd_bob_beans"]), rng.randint(-300, 300)),
        lambda: ("poke_purchase", rng.choice([0, 2, 40])),
        lambda: ("poke_sendout", rng.choice([0, 10, 3600])),
        lambda: ("restore", rng.choice(["restore", "load", "reset"])) if rng.random() < 0.2 else ("save",),
    ]
    return [rng.choice(choices)() for _ in range(count)]
