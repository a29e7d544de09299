"""The forecast's walk in time order: budgets and limits spent as orders redeem.

Everything that does not depend on what was redeemed before is known for
every order before the walk starts (the sweep, `candidates`): the best
plain tier (no budget reads it, none of its redemptions is read), and for
each *watched* tier (a tier with budget rules, or one whose redemptions a
budget counts) its discount and the set of budget verdict combinations
under which it is valid. The walk visits, in time order, only the orders
where a watched tier could apply; for each it reads the budget totals from a
`UsageLedger` (the simulator's own counting), picks the winner exactly as
the policy does, and records the redemption. A watched tier that cannot beat
the plain best is not even asked about its budgets.

Orders with equal instants keep their input order (the order they would be
sent in).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from ...engine import UsageLedger, period_slot
from .budget_leaves import BudgetedTier, BudgetLeaf

if TYPE_CHECKING:
    from .candidates import Candidates  # which imports this module's WatchedTier

__all__ = ["Rates", "Reader", "Spending", "WalkPlan", "WalkStart", "WatchedTier", "counting_leaves", "readers_of", "verdicts_of",
           "walk", "walk_start"]


@dataclass(frozen=True)
class WatchedTier:
    """A tier whose choice changes what later orders can get."""

    position: int  # in the candidate order (ties go to the lower position)
    tier_id: str
    campaign_id: str
    budget: BudgetedTier | None

    @property
    def every(self) -> int:
        """Its verdict bits when it is valid under every combination of budget
        verdicts (bit b: the verdicts spell b): then no budget decides it.
        1 without a budget (one combination, the empty one)."""
        return (1 << (1 << len(self.budget.leaves))) - 1 if self.budget is not None else 1

    @property
    def unlimited(self) -> int:
        """The combination in which every budget holds (bit j: leaf j holds):
        the verdict it would have with budgets unlimited. 0 without a budget."""
        return (1 << len(self.budget.leaves)) - 1 if self.budget is not None else 0


@dataclass(frozen=True)
class Rates:
    """The chance that order i redeems candidate t: `tier[t] * order[i]`
    (a rate per tier times a factor per order, from its cohort), or with a
    response model `offer[i, t] * order[i]` (the model's chance for the
    offer t makes order i, `CostModel.rates`). `chance` is the one place
    that says so: every walk asks it."""

    tier: np.ndarray
    order: np.ndarray
    #: (orders, candidates): a response model's chance per offer, None for the flat rates
    offer: np.ndarray | None = None

    def chance(self, orders: np.ndarray, tiers: np.ndarray) -> np.ndarray:
        """The chance each order of `orders` redeems the candidate at the
        same place of `tiers` (positions; they broadcast together)."""
        base = self.tier[tiers] if self.offer is None else self.offer[orders, tiers]
        chance: np.ndarray = base * self.order[orders]
        return chance


@dataclass
class Spending:
    """The walk's answers, per order (input positions)."""

    #: the tier won (candidate position), -1 none
    tier: np.ndarray
    discount: np.ndarray
    redeemed: np.ndarray
    #: the tier that would have won with budgets unlimited, when a budget refused it (-1 none)
    held_tier: np.ndarray
    #: which leaf of that tier refused it (index into its leaves), -1 none
    held_leaf: np.ndarray
    ledger: UsageLedger
    #: the tier the order qualified for, redeemed or not (the stack policy: the first sent)
    qualified: np.ndarray | None = None
    #: the stack policy: each order's applied tiers, a bit per candidate position
    applied: np.ndarray | None = None
    #: the stack policy: one entry per tier redeemed (order, candidate position, discount), in time order
    children: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    #: a fixed set's codes: the uses redeemed per voucher id
    code_uses: dict[str, int] | None = None


@dataclass(frozen=True)
class WalkPlan:
    """What a walk reads, all known before it starts: the orders in time
    order, what each could get (the sweep, reduced), who and when budgets
    count it, the chance it redeems, and the ledger it spends into (a copy of
    the simulator's totals so far, which the walk then fills).

    One object because both walks (`walk`, the stacked `walk_stacked`) take
    the same facts, and a caller names each once."""

    #: order positions (input order), in time order
    order: np.ndarray
    #: per order: the best plain tier and, per watched tier, its discount and verdict bits
    found: Candidates
    watched: Sequence[WatchedTier]
    #: per order, the code of the customer budgets count (-1: none)
    customers: np.ndarray
    #: per customer code, the id the ledger knows it by
    customer_ids: Sequence[str | None]
    #: per order, its day, week and month keys in the project's time zone
    periods: tuple[np.ndarray, np.ndarray, np.ndarray]
    #: per order, the draw compared with `rates`
    draws: np.ndarray
    rates: Rates
    ledger: UsageLedger


@dataclass(frozen=True)
class WalkStart:
    """What a walk knows before it compares a single draw: the verdict bits
    settled (`_settled`), each order's best among the tiers whose verdict is
    known (`tier`, `discount`), the tiers the totals must decide (`contest`),
    whether redeeming `tier` changes a total some budget reads (`records`), and
    the chance it redeems `tier` (`chance`). None of it reads `WalkPlan.draws`,
    so the bands compute it once for all their draws (`walk_start`), and a
    worker gets it once, not per draw."""

    bits: np.ndarray
    tier: np.ndarray
    discount: np.ndarray
    contest: np.ndarray
    records: np.ndarray
    chance: np.ndarray


def walk_start(plan: WalkPlan) -> WalkStart:
    """The draw-independent part of `walk` (the candidates' verdict bits are settled in place)."""
    found, watched, customers = plan.found, plan.watched, plan.customers
    watched_discount = found.watched_discount
    n = len(found.plain_tier)
    tier = found.plain_tier.astype(np.int32, copy=True)
    discount = found.plain_discount.astype(np.int64, copy=True)
    bits = found.watched_bits
    contest = np.zeros(n, dtype=np.int64)
    records = np.zeros(n, dtype=bool)
    if watched:
        bits = _settled(watched, found.watched_bits, customers)
        # A watched tier valid under every verdict is chosen as a plain one
        # (its budgets cannot refuse it), on every order: the walk then only
        # asks about the tiers whose verdict is open, and the best it starts
        # from is already the best of the others (the policy's order is a
        # total order, so the order in which candidates are met does not matter).
        for w, spec in enumerate(watched):
            d = watched_discount[:, w]
            takes = (bits[:, w] == spec.every) & (
                (tier < 0) | (d > discount) | ((d == discount) & (spec.position < tier)))
            tier[takes] = spec.position
            discount[takes] = d[takes]
        contest = _contested(watched, watched_discount, bits, tier, discount)
        records = _recording(watched, tier, customers)
    chance = plan.rates.chance(np.arange(n), np.maximum(tier, 0))
    return WalkStart(bits, tier, discount, contest, records, chance)


def walk(plan: WalkPlan, start: WalkStart | None = None) -> Spending:
    """Walk the orders in `plan.order` (positions, time order) and spend.

    `found.watched_discount[i, w]` / `found.watched_bits[i, w]`: watched tier
    w's discount on order i and the variants it is valid under (bit b set:
    valid when the budget verdicts spell b, bit j of b for leaf j). `rates`:
    the chance each order redeems what it qualifies for, compared with the
    order's draw; an order that does not redeem spends nothing. `start`:
    `walk_start(plan)`, computed here when not given (the bands give it, one
    for every draw: it does not read the draws; it is read, never changed).
    """
    start = start if start is not None else walk_start(plan)
    draws, rates = plan.draws, plan.rates
    n = len(start.tier)
    tier = start.tier.copy()
    discount = start.discount.copy()
    held_tier = np.full(n, -1, dtype=np.int32)
    held_leaf = np.full(n, -1, dtype=np.int8)
    if plan.watched:
        # The orders the walk must visit: those where a tier with an open
        # verdict could beat the best of the others (`contest`, the totals
        # decide), and those that redeem a watched tier whose redemption
        # changes a total some budget reads. Elsewhere `tier` is the answer.
        visit = (start.contest != 0) | (start.records & (tier >= 0) & (draws < start.chance))
        _walk_busy(plan, plan.order[visit[plan.order]], start.bits, start.contest,
                   _Chosen(tier, discount, held_tier, held_leaf))
    chance = start.chance
    moved = np.flatnonzero(tier != start.tier)
    if len(moved):
        chance = chance.copy()
        chance[moved] = rates.chance(moved, np.maximum(tier[moved], 0))
    redeemed = (tier >= 0) & (draws < chance)
    discount = np.where(redeemed, discount, 0)
    return Spending(np.where(redeemed, tier, -1), discount, redeemed, held_tier, held_leaf, plan.ledger, qualified=tier)


#: Orders turned into Python values at a time: the walk's memory stays bounded.
_BLOCK = 16_384
#: A budget's verdict never reads the instant (`budget_leaves` refuses date tests on totals).
_NO_INSTANT = datetime(1970, 1, 1, tzinfo=UTC)


def _beats(d: int, position: int, best_d: int, best: int) -> bool:
    """The policy's order: the larger discount, then the earlier tier."""
    return best < 0 or d > best_d or (d == best_d and position < best)


def _settled(watched: Sequence[WatchedTier], watched_bits: np.ndarray, customers: np.ndarray) -> np.ndarray:
    """The verdict bits the walk sees.

    A tier whose budgets all count per customer reads 0 for an order without
    a counted customer (an unknown source_id, or none) and records nothing
    for it: its verdict there is known before the walk (`check(0)`), so it is
    settled here when it holds (a refusal still goes through the walk, which
    says which budget held it back)."""
    bits = watched_bits  # settled in place: the caller's candidates are not used after the walk
    nobody = customers < 0
    for w, spec in enumerate(watched):
        leaves = spec.budget.leaves if spec.budget is not None else ()
        if leaves and all(leaf.query.per_customer for leaf in leaves):
            column = bits[:, w]
            verdicts = sum(1 << j for j, leaf in enumerate(leaves) if leaf.check(0, _NO_INSTANT))
            holds = nobody & (column != 0) & ((column >> verdicts) & 1).astype(bool)
            column[holds] = spec.every
    return bits


def _budgeted(watched: Sequence[WatchedTier]) -> list[int]:
    """The watched tiers with a budget: the only ones whose verdict can be open
    (neither 0 nor `every`) on an order, in the walk's bit order."""
    return [w for w, spec in enumerate(watched) if spec.budget is not None]


def _contested(watched: Sequence[WatchedTier], watched_discount: np.ndarray, bits: np.ndarray, tier: np.ndarray,
               discount: np.ndarray) -> np.ndarray:
    """Per order, the budgeted tiers (bit a: the a-th of `_budgeted`) whose
    verdict is open and that could beat the best of the tiers whose verdict is
    known (`tier`, `discount`): the only ones the walk must ask the totals about."""
    asked = _budgeted(watched)
    contest = np.zeros(len(tier), dtype=np.int64 if len(asked) < 63 else object)  # object: Python ints, any width
    for a, w in enumerate(asked):
        column, d, spec = bits[:, w], watched_discount[:, w], watched[w]
        could = (column != 0) & (column != spec.every) & (
            (tier < 0) | (d > discount) | ((d == discount) & (spec.position < tier)))
        contest |= could.astype(contest.dtype) << a
    return contest


def _recording(watched: Sequence[WatchedTier], tier: np.ndarray, customers: np.ndarray) -> np.ndarray:
    """Per order, whether redeeming its `tier` (a watched one) changes a total
    some budget reads: a per-customer total only when the order has a
    counted customer. Such an order is visited when its draw redeems."""
    known = customers >= 0
    records = np.zeros(len(tier), dtype=bool)
    for spec in watched:
        mine = tier == spec.position
        if not any(not leaf.query.per_customer for leaf in counting_leaves(watched, spec)):
            mine &= known
        records |= mine
    return records


Reader = tuple[Callable[[Any, datetime], bool], Callable[[object, tuple[int, int, int]], int]]


def verdicts_of(readers: Sequence[Reader], customer: object, keys: tuple[int, int, int]) -> tuple[int, int]:
    """A tier's budget verdicts now (bit j: leaf j holds) and its first failing leaf (-1 none)."""
    verdicts, failed = 0, -1
    for j, (check, read) in enumerate(readers):
        if check(read(customer, keys), _NO_INSTANT):
            verdicts |= 1 << j
        elif failed < 0:
            failed = j
    return verdicts, failed


def readers_of(watched: Sequence[WatchedTier], ledger: UsageLedger) -> list[list[Reader]]:
    """Per watched tier, per budget leaf: its check and its bound reader."""
    return [
        [(leaf.check, ledger.reader(leaf.query, w.tier_id, w.campaign_id)) for leaf in w.budget.leaves]
        if w.budget is not None else []
        for w in watched
    ]


def counting_leaves(watched: Sequence[WatchedTier], tier: WatchedTier) -> list[BudgetLeaf]:
    """The budget rules that count `tier`'s redemptions: its own
    redeemable-scope leaves and every campaign-scope leaf of its campaign
    (whichever watched tier carries it). What redeeming it must record, and
    whether that changes a total read for everyone."""
    return [
        leaf for other in watched if other.budget is not None for leaf in other.budget.leaves
        if (leaf.query.scope == "redeemable" and other.position == tier.position)
        or (leaf.query.scope == "campaign" and other.campaign_id == tier.campaign_id)
    ]


def _recorders(watched: Sequence[WatchedTier], ledger: UsageLedger) -> dict[int, Callable[[object, tuple[int, int, int], int, int], None]]:
    """Per watched tier (by position): the recorder of the slots any budget
    reads its redemptions in (its own budgets; its campaign's budgets)."""
    return {w.position: ledger.recorder(w.tier_id, w.campaign_id, [leaf.query for leaf in counting_leaves(watched, w)])
            for w in watched}


@dataclass(frozen=True)
class _Chosen:
    """The walk's answers per order (input positions), filled in place: the
    tier chosen and its discount, and the tier a budget held back and which
    of its leaves did."""

    tier: np.ndarray
    discount: np.ndarray
    held_tier: np.ndarray
    held_leaf: np.ndarray


def _walk_busy(plan: WalkPlan, busy: np.ndarray, watched_bits: np.ndarray, contest: np.ndarray,
               chosen: _Chosen) -> None:
    """The sequential part, on plain Python values (numpy scalars are slow one
    at a time), with the ledger's slots bound once (`reader`, `recorder`).
    On each order it asks only the tiers `contest` names, in watched order:
    the answer does not depend on that order, since the policy's order
    (`_beats`: larger discount, then earlier tier) is a total order.
    `watched_bits`: the plan's, settled (`_settled`); `contest`: `_contested`."""
    # Locals, not attribute reads, in the loop below (it runs once per busy order).
    watched, ledger, customers, periods = plan.watched, plan.ledger, plan.customers, plan.periods
    draws, rates, customer_ids = plan.draws, plan.rates, plan.customer_ids
    watched_discount, amounts = plan.found.watched_discount, plan.found.amount
    tier, discount, held_tier, held_leaf = chosen.tier, chosen.discount, chosen.held_tier, chosen.held_leaf
    readers = readers_of(watched, ledger)
    recorders = _recorders(watched, ledger)
    asked = _budgeted(watched)
    unlimited = [watched[w].unlimited for w in asked]
    positions = [watched[w].position for w in asked]
    # A tier with one budget that stays spent (`BudgetLeaf.stays_spent`) is
    # not asked again until its period turns: `stuck[a]` holds the period key
    # it was found spent in (True: a budget without a period, spent for good);
    # `stuck_slot[a]`: which key (0 day, 1 week, 2 month; 3 no period; -1 never).
    stuck: list[object] = [None] * len(asked)
    stuck_slot = [_stuck_slot(watched[w]) for w in asked]
    asked_readers = [readers[w] for w in asked]
    ids = [*customer_ids, None]  # code -1: no customer
    named: dict[int, tuple[int, ...]] = {}  # contest bits -> the tiers they name
    for start in range(0, len(busy), _BLOCK):
        block = busy[start : start + _BLOCK]
        w_disc = watched_discount[block][:, asked].tolist()
        w_bits = watched_bits[block][:, asked].tolist()
        contested = contest[block].tolist()
        chosen_t = tier[block].tolist()
        chosen_d = discount[block].tolist()
        held_t = [-1] * len(block)
        held_j = [-1] * len(block)
        cust = customers[block].tolist()
        amount = amounts[block].tolist()
        keyed = days, weeks, months = [p[block].tolist() for p in periods]
        redeemers = _redeemers(rates, block, draws[block])
        for k in range(len(chosen_t)):
            best, best_d = chosen_t[k], chosen_d[k]
            customer = ids[cust[k]]
            m = contested[k]
            if m:
                held = held_f = -1
                held_d = 0
                bits_k, disc_k = w_bits[k], w_disc[k]
                found = named.get(m)
                if found is None:
                    found = named[m] = tuple(a for a in range(len(asked)) if m >> a & 1)
                for a in found:
                    d, position = disc_k[a], positions[a]
                    if best >= 0 and (d < best_d or (d == best_d and position > best)):
                        continue  # a tier asked before it won, and beats it whatever its budgets say
                    bits = bits_k[a]
                    slot = stuck_slot[a]
                    if slot >= 0 and stuck[a] is not None and (slot == 3 or stuck[a] == keyed[slot][k]):
                        verdicts, failed = 0, 0  # its one budget is spent until the period turns
                    else:
                        verdicts, failed = verdicts_of(asked_readers[a], customer, (days[k], weeks[k], months[k]))
                        if slot >= 0 and not verdicts:
                            stuck[a] = keyed[slot][k] if slot < 3 else True
                    if not bits >> verdicts & 1:
                        # inline `_beats(d, position, held_d, held)`: a call per refusal is a tenth of the loop
                        if bits >> unlimited[a] & 1 and (held < 0 or d > held_d or (d == held_d and position < held)):
                            held, held_f, held_d = position, failed, d  # a budget refused it
                        continue
                    best, best_d = position, d
                chosen_t[k], chosen_d[k] = best, best_d
                if held >= 0 and (best < 0 or held_d > best_d or (held_d == best_d and held < best)):  # `_beats`
                    held_t[k], held_j[k] = held, held_f
            if best >= 0 and redeemers[k] >> best & 1:
                record = recorders.get(best)
                if record is not None:
                    record(customer, (days[k], weeks[k], months[k]), best_d, amount[k])
        tier[block] = chosen_t
        discount[block] = chosen_d
        held_tier[block] = held_t
        held_leaf[block] = held_j


def _redeemers(rates: Rates, block: np.ndarray, drawn: np.ndarray) -> list[int]:
    """Per order of `block`, the candidates it would redeem if it won them
    (bit t: its draw is below `rates.chance` of t): known before the walk,
    since a chance never reads the totals, and one bit test in its loop
    (a list of every chance per order costs ten times as much)."""
    count = len(rates.tier)
    redeems = drawn[:, None] < rates.chance(block[:, None], np.arange(count)[None, :])
    if count < 63:
        bits: list[int] = (redeems.astype(np.int64) @ (np.int64(1) << np.arange(count, dtype=np.int64))).tolist()
        return bits
    packed = np.packbits(redeems, axis=1, bitorder="little")  # Python ints, any width
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def _stuck_slot(w: WatchedTier) -> int:
    """Which period key a tier's one stays-spent budget turns with (0 day, 1
    week, 2 month, 3 none), -1 when it has no such single budget."""
    if w.budget is None or len(w.budget.leaves) != 1 or not w.budget.leaves[0].stays_spent:
        return -1
    slot = period_slot(w.budget.leaves[0].query.period)
    return 3 if slot is None else slot
