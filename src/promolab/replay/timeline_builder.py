"""Accumulating the timeline and the balances while a replay runs.

Key state is followed incrementally, so a line costs O(what it touched): new
card transactions name the cards that moved (the card ledger is the only
writer of balances), new voucher transactions, new vouchers and the `code`
of `add_gift_balance` name the gift vouchers, and PENDING purchases are
re-checked only when the clock moved (they settle only on the clock). The
frames are built once, at the end (`timeline`, `balances`, `deliveries`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import TYPE_CHECKING, Any

from .columns import category, ints, nullable_ints, strings, times
from .reader import known_operations
from .timeline import BALANCE_COLUMNS, BALANCE_KINDS, COUNT_COLUMNS, TIMELINE_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

    from ..sim import Simulator

__all__ = ["LineOutcome", "TimelineBuilder"]


def _tail(mapping: dict[str, Any], count: int) -> Iterator[Any]:
    """The last `count` values of an insertion-ordered dict, newest first."""
    return islice(reversed(mapping.values()), count)


@dataclass(frozen=True, slots=True)
class LineOutcome:
    """What a line came to, as its timeline row says it: the operation, the
    outcome (`ok` or the refusal's key) and HTTP status, the result's summary
    or the refusal's message, and the line's own note."""

    op: str | None
    outcome: str
    status: int | None
    result: str | None = None
    message: str | None = None
    note: str | None = None


class TimelineBuilder:
    """Accumulates timeline rows and balance changes while a replay runs.

    Rows are kept as tuples and turned into typed columns once, at the end:
    a line costs a few `len()` calls, one tuple and what it touched. The
    validation columns, empty on all but the `validate` lines, are kept
    aside by row (`_validations`) rather than in every row."""

    # What `_follow` sets: the state followed and its counters at the last line.
    _state: Any
    _n_tx: int
    _pending: set[str]
    _n_vtx: int
    _n_vouchers: int
    delivery_start: int
    _n_deliveries: int

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        st = sim.state
        self._follow(st)
        #: Replay line of every delivery attempt logged during the replay.
        self.delivery_lines: list[int] = []
        #: Attempts logged during the replay in states since replaced (`_rebase`).
        self._earlier_deliveries: list[Any] = []
        self._cards: dict[str, int] = {}
        self._gifts: dict[str, int] = {}
        #: (line, time, op, outcome, status, result, message, note, *counts): `_ROW_COLUMNS`.
        self._rows: list[tuple[Any, ...]] = []
        #: row index -> (tiers, best_tier, best_discount), for the `validate` lines.
        self._validations: dict[int, tuple[int | None, str | None, int | None]] = {}
        self._bal: list[tuple[Any, ...]] = []
        now = sim.now
        for card in st.cards.values():
            self._cards[card.id] = card.balance
            self._bal.append((0, now, "card", card.id, card.member_id, card.balance, None))
        for voucher in st.vouchers.values():
            if voucher.gift is not None:
                self._gifts[voucher.id] = voucher.gift.balance
                self._bal.append((0, now, "gift", voucher.code, voucher.holder_id, voucher.gift.balance, None))

    def __len__(self) -> int:
        return len(self._rows)

    # -- per line ------------------------------------------------------------
    def add(
        self,
        line: int,
        now: datetime,
        outcome: LineOutcome,
        *,
        clock_moved: bool = False,
        gift_code: str | None = None,
        validation: tuple[int | None, str | None, int | None] | None = None,
    ) -> None:
        """One row; the key state is read after the line (cheaply). `now` is
        the clock after the line (the caller has it at hand); `validation`
        is (tiers, best_tier, best_discount) of a validate line."""
        st = self.sim.state
        if st is not self._state:
            self._rebase(line, now, st)
        cards: set[str] | None = None
        gifts: set[str] | None = None
        # card transactions: new ones, and PENDING ones settled by the clock
        n_tx = len(st.card_transactions)
        if n_tx != self._n_tx:
            cards = self._new_card_transactions(st.card_transactions, n_tx - self._n_tx)
            self._n_tx = n_tx
        if clock_moved and self._pending:
            cards = self._settled_cards(st.card_transactions, cards)
        # gift vouchers: new voucher transactions, new vouchers, the line's code
        n_vtx = len(st.voucher_transactions)
        if n_vtx != self._n_vtx:
            gifts = {vt.voucher_id for vt in _tail(st.voucher_transactions, n_vtx - self._n_vtx)}
            self._n_vtx = n_vtx
        n_vouchers = len(st.vouchers)
        if n_vouchers != self._n_vouchers:
            gifts = gifts if gifts is not None else set()
            gifts.update(v.id for v in _tail(st.vouchers, n_vouchers - self._n_vouchers) if v.gift is not None)
            self._n_vouchers = n_vouchers
        if gift_code is not None:
            voucher_id = self.sim.indexes.voucher_by_code.get(gift_code)
            if voucher_id is not None:
                gifts = gifts if gifts is not None else set()
                gifts.add(voucher_id)
        if cards:
            self._cards_changed(line, now, cards)
        if gifts:
            self._gifts_changed(line, now, gifts)
        n_deliveries = len(st.webhook_deliveries)
        if n_deliveries != self._n_deliveries:
            self.delivery_lines.extend([line] * (n_deliveries - self._n_deliveries))
            self._n_deliveries = n_deliveries
        if validation is not None:
            self._validations[len(self._rows)] = validation
        self._rows.append((
            line, now, outcome.op, outcome.outcome, outcome.status, outcome.result, outcome.message, outcome.note,
            len(st.publications), len(st.events), len(st.referral_conversions), len(self._pending),
            n_deliveries, len(st.pending_deliveries),
        ))

    def _rebase(self, line: int, now: datetime, st: Any) -> None:
        """Follow a state that replaced the one followed so far: a `reset` or
        `restore` line (a served journal has them). The counters start again
        from the new state; every balance that differs from the followed one
        becomes a row of this line (the change the swap made), and the
        delivery attempts of the old state are kept for `deliveries`."""
        self._earlier_deliveries.extend(self._state.webhook_deliveries[self.delivery_start:])
        self._follow(st)
        self._catch_up(line, now)

    def _follow(self, st: Any) -> None:
        """Start following `st`: what it holds already is the baseline of the
        counters that tell a line's changes (new transactions, vouchers,
        delivery attempts, the PENDING purchases to watch)."""
        self._state = st
        self._n_tx = len(st.card_transactions)
        self._pending = {t.id for t in st.card_transactions.values() if t.status == "PENDING"}
        self._n_vtx = len(st.voucher_transactions)
        self._n_vouchers = len(st.vouchers)
        self.delivery_start = self._n_deliveries = len(st.webhook_deliveries)

    def _catch_up(self, line: int, now: datetime) -> None:
        """Rows at `line` for every balance of the state that differs from the
        followed one (O(accounts)): after a state swap, and once at the end."""
        st = self.sim.state
        self._cards_changed(line, now, {c.id for c in st.cards.values() if self._cards.get(c.id) != c.balance})
        self._gifts_changed(line, now, {v.id for v in st.vouchers.values()
                                        if v.gift is not None and self._gifts.get(v.id) != v.gift.balance})

    def _new_card_transactions(self, txs: dict[str, Any], count: int) -> set[str]:
        """The cards named by the `count` newest card transactions (PENDING ones followed)."""
        cards = set()
        for tx in _tail(txs, count):
            cards.add(tx.card_id)
            if tx.status == "PENDING":
                self._pending.add(tx.id)
        return cards

    def _settled_cards(self, txs: dict[str, Any], cards: set[str] | None) -> set[str] | None:
        """`cards` plus the cards of the followed PENDING transactions that settled."""
        settled = [t for t in self._pending if txs[t].status != "PENDING"]
        if settled:
            cards = cards if cards is not None else set()
            for tx_id in settled:
                self._pending.discard(tx_id)
                cards.add(txs[tx_id].card_id)
        return cards

    def _cards_changed(self, line: int, now: datetime, cards: set[str]) -> None:
        all_cards = self.sim.state.cards
        followed = self._cards
        for card_id in sorted(cards) if len(cards) > 1 else cards:
            card = all_cards.get(card_id)
            if card is not None:
                old = followed.get(card_id)
                balance = card.balance
                if old != balance:
                    followed[card_id] = balance
                    self._bal.append((line, now, "card", card.id, card.member_id, balance,
                                      None if old is None else balance - old))

    def _gifts_changed(self, line: int, now: datetime, gifts: set[str]) -> None:
        vouchers = self.sim.state.vouchers
        for voucher_id in sorted(gifts):
            voucher = vouchers.get(voucher_id)
            if voucher is not None and voucher.gift is not None:
                old = self._gifts.get(voucher_id)
                if old != voucher.gift.balance:
                    self._gifts[voucher_id] = voucher.gift.balance
                    self._bal.append((line, now, "gift", voucher.code, voucher.holder_id, voucher.gift.balance,
                                      None if old is None else voucher.gift.balance - old))

    # -- frames --------------------------------------------------------------
    def reconcile(self) -> None:
        """Check the followed balances against the state (O(accounts), once).

        A difference means a balance moved without a card/voucher transaction
        the tracker could see; the final value is recorded at the last line so
        the balance table ends right, and a warning names the accounts."""
        st = self.sim.state
        line = self._rows[-1][0] if self._rows else 0
        now = self.sim.now
        drift = [c.id for c in st.cards.values() if self._cards.get(c.id) != c.balance]
        drift += [v.code for v in st.vouchers.values()
                  if v.gift is not None and v.id in self._gifts and self._gifts[v.id] != v.gift.balance]
        self._catch_up(line, now)
        if drift:
            warnings.warn(
                f"replay timeline: balances moved without a visible transaction: {', '.join(drift[:10])}",
                RuntimeWarning,
                stacklevel=3,
            )

    def timeline(self) -> pd.DataFrame:
        import numpy as np
        import pandas as pd

        n = len(self._rows)
        cols = dict(zip(_ROW_COLUMNS, zip(*self._rows), strict=True)) if n else {name: () for name in _ROW_COLUMNS}
        outcomes = ["ok", *sorted(set(cols["outcome"]) - {"ok"})]
        tiers, best_tier, best_discount = self._validation_columns(n)
        data: dict[str, Any] = {
            "line": ints(cols["line"]),
            "time": times(cols["time"]),
            "op": category(cols["op"], known_operations()),
            "outcome": category(cols["outcome"], outcomes),
            "status": nullable_ints(cols["status"]),
            "result": strings(cols["result"]),
            "tiers": nullable_ints(tiers),
            "best_tier": strings(best_tier),
            "best_discount": nullable_ints(best_discount),
        }
        for name in COUNT_COLUMNS:  # `len()`s: ints by construction
            data[name] = np.fromiter(cols[name], dtype=np.int64, count=n)
        data["message"] = strings(cols["message"])
        data["note"] = strings(cols["note"])
        return pd.DataFrame(data, columns=TIMELINE_COLUMNS)

    def _validation_columns(self, n: int) -> tuple[list[Any], list[Any], list[Any]]:
        """The tiers / best_tier / best_discount columns: None but on the validate rows."""
        tiers: list[Any] = [None] * n
        best_tier: list[Any] = [None] * n
        best_discount: list[Any] = [None] * n
        for index, (count, tier, discount) in self._validations.items():
            tiers[index], best_tier[index], best_discount[index] = count, tier, discount
        return tiers, best_tier, best_discount

    def balances(self) -> pd.DataFrame:
        import pandas as pd

        cols = dict(zip(BALANCE_COLUMNS, zip(*self._bal), strict=True)) if self._bal else {
            name: () for name in BALANCE_COLUMNS}
        return pd.DataFrame({
            "line": ints(cols["line"]),
            "time": times(cols["time"]),
            "kind": category(cols["kind"], BALANCE_KINDS),
            "account": strings(cols["account"]),
            "owner": strings(cols["owner"]),
            "balance": nullable_ints(cols["balance"]),
            "change": nullable_ints(cols["change"]),
        }, columns=BALANCE_COLUMNS)

    def deliveries(self) -> pd.DataFrame:
        """The delivery log of the attempts made during the replay, with the
        replay `line` that made each (its time step or its operation)."""
        import pandas as pd

        from ..analysis.state_frames import deliveries_frame

        attempts = [*self._earlier_deliveries, *self.sim.state.webhook_deliveries[self.delivery_start:]]
        frame = deliveries_frame(attempts)
        lines = self.delivery_lines[: len(frame)]
        frame.insert(0, "line", pd.array(lines + [None] * (len(frame) - len(lines)), dtype="Int64"))
        return frame


#: What a row of `TimelineBuilder._rows` holds (the validation columns are kept aside).
_ROW_COLUMNS = ("line", "time", "op", "outcome", "status", "result", "message", "note", *COUNT_COLUMNS)
