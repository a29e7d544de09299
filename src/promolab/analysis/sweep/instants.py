"""Pricing each order at its own instant: campaign verdicts per order, contexts per order.

A dated batch (a `placed_at` column, no explicit `at`) asks every campaign
"do you run at this instant?" once per order. The answer changes rarely: at a
start or an expiry, at midnight for a day-of-week campaign, at a timeframe
window's edge. `CampaignCheck.verdict_at` says both the verdict and the span
[lo, hi) over which it holds, so `campaign_codes` walks the batch's sorted
distinct instants and jumps with `np.searchsorted` straight to the first
instant at or past `hi`: Python runs once per verdict change, numpy fills the
rest. The campaign logic itself stays in the engine (one implementation). When the campaign's spans over the
batch's time range are few (the usual case: a month holds a few dozen
midnights and timeframe windows), they are walked without sorting the orders
at all and each order finds its span with one `np.searchsorted`.

Instants are handled in microseconds since the epoch, UTC: the resolution of
`datetime`, hence of what the simulator's clock shows, and of every span bound.

`OrderClock` is what the engine path prices an order with: its own instant
(dated batches) and its own request metadata (a `channel` / `metadata.<key>`
column) over the sweep's, one `PricingContext` per distinct (instant, metadata).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

from ...engine import CompiledTier, PricingContext
from .rulemasks import REASON_CODE

__all__ = ["Instants", "OrderClock", "campaign_codes", "merged_metadata"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)


def to_datetime(micros: int) -> datetime:
    """Microseconds since the epoch as the UTC datetime the simulator's clock would show."""
    return _EPOCH + timedelta(microseconds=int(micros))


def to_micros(moment: datetime) -> int:
    return (moment - _EPOCH) // _MICRO


class Instants:
    """A dated batch's instants: `micros` per order, their range, and (built only
    when needed) the sorted distinct instants with each order's index there."""

    def __init__(self, micros: np.ndarray) -> None:
        self.micros = micros
        self.first = int(micros.min()) if micros.size else 0
        self.last = int(micros.max()) if micros.size else 0
        self._distinct: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def of(cls, placed_at_ns: np.ndarray) -> Instants:
        return cls(placed_at_ns // 1000)  # floor: what a datetime keeps of a nanosecond instant

    def distinct(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted distinct instants, each order's index there): a sort, made once."""
        if self._distinct is None:
            values, inverse = np.unique(self.micros, return_inverse=True)
            self._distinct = values, inverse.reshape(-1)
        return self._distinct


#: Spans walked over the batch's time range before walking its distinct instants instead
#: (a timeframe of minute-long windows has more spans than a month of orders has instants).
SPAN_BUDGET = 4096


def _spans(tier: CompiledTier, first: int, last: int) -> tuple[list[int], list[int]] | None:
    """The verdict spans covering [first, last]: (starts, codes), None past `SPAN_BUDGET`.

    Each span's verdict holds up to its `hi`, so the next question is asked at
    `hi` itself: no order instant is needed to walk the range.
    """
    starts: list[int] = []
    codes: list[int] = []
    t = first
    while len(starts) < SPAN_BUDGET:
        verdict, _, hi = tier.campaign.verdict_at(to_datetime(t))
        starts.append(t)
        codes.append(REASON_CODE[verdict.key] if verdict is not None else 0)
        if hi is None or to_micros(hi) > last:
            return starts, codes
        t = max(to_micros(hi), t + 1)
    return None


def _distinct_codes(tier: CompiledTier, distinct: np.ndarray) -> np.ndarray:
    """The campaign's reason code at each of the sorted `distinct` instants: one
    `verdict_at` per span met, jumping with `np.searchsorted` to the first instant >= hi."""
    out = np.zeros(distinct.size, dtype=np.int8)
    i, n = 0, distinct.size
    while i < n:
        verdict, _, hi = tier.campaign.verdict_at(to_datetime(int(distinct[i])))
        j = n if hi is None else int(np.searchsorted(distinct, to_micros(hi), side="left"))
        j = max(j, i + 1)  # UTC instants never give an empty span; never loop on one
        if verdict is not None:
            out[i:j] = REASON_CODE[verdict.key]
        i = j
    return out


def campaign_codes(tiers: Sequence[CompiledTier], instants: Instants) -> list[int | np.ndarray]:
    """Per tier, the campaign check's reason code (0 = runs) for every order: an
    int when the verdict is the same for the whole batch, else an int8 array
    per order (shared by the tiers whose campaigns give the same spans: read only).

    The engine's `verdict_at` decides (one implementation of the campaign
    rules); Python runs once per verdict span, numpy maps the orders to spans:
    one `np.searchsorted` for every tier at once, over the union of their
    span starts (each tier's code is constant between two of them).
    """
    if instants.micros.size == 0:
        return [0] * len(tiers)
    out: list[int | np.ndarray] = []
    varying: dict[tuple[tuple[int, ...], tuple[int, ...]], list[int]] = {}  # spans -> the tiers that have them
    for t, tier in enumerate(tiers):
        found = _spans(tier, instants.first, instants.last)
        if found is not None:
            starts, codes = found
            out.append(codes[0])
            if len(set(codes)) > 1:
                varying.setdefault((tuple(starts), tuple(codes)), []).append(t)
            continue
        distinct, inverse = instants.distinct()
        table = _distinct_codes(tier, distinct)
        out.append(int(table[0]) if not table.any() or (table == table[0]).all() else table[inverse])
    if varying:
        union = np.unique(np.array([s for starts, _ in varying for s in starts], dtype=np.int64))
        segment = np.searchsorted(union, instants.micros, side="right") - 1
        for (span_starts, span_codes), members in varying.items():
            # the tier's code on each union span: that of its own span holding the union span's start
            own = np.searchsorted(np.array(span_starts, dtype=np.int64), union, side="right") - 1
            per_order = np.array(span_codes, dtype=np.int8)[own].take(segment)
            for t in members:
                out[t] = per_order
    return out


def merged_metadata(
    base: Mapping[str, object], sets: Sequence[Mapping[str, object]]
) -> tuple[dict[str, object], ...]:
    """Each order metadata set over the sweep's `metadata=` (the order's own keys win)."""
    return tuple({**base, **own} for own in sets) if sets else (dict(base),)


@dataclass
class OrderClock:
    """The `PricingContext` of each order of a batch (the engine path's view of time and metadata).

    `micros`: per-order instants (dated sweep), None to price all at `base.now`;
    `metadata_code` / `metadata_sets`: per-order metadata (merged with the
    sweep's), None / () for the sweep's alone. Contexts are made once per
    distinct (instant, metadata) pair.
    """

    base: PricingContext
    micros: Instants | None = None
    metadata_code: np.ndarray | None = None
    metadata_sets: tuple[Mapping[str, object], ...] = ()
    _made: dict[tuple[int | None, int | None], PricingContext] = field(default_factory=dict, repr=False)

    @property
    def constant(self) -> bool:
        return self.micros is None and self.metadata_code is None

    def context(self, j: int) -> PricingContext:
        """Order j's (batch position) context."""
        if self.constant:
            return self.base
        t = int(self.micros.micros[j]) if self.micros is not None else None
        m = int(self.metadata_code[j]) if self.metadata_code is not None else None
        found = self._made.get((t, m))
        if found is None:
            found = self._made[(t, m)] = PricingContext(
                now=to_datetime(t) if t is not None else self.base.now,
                redemption_metadata=self.metadata_sets[m] if m is not None else self.base.redemption_metadata,
            )
        return found
