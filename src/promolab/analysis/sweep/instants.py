"""Pricing each order at its own instant: campaign verdicts per order, contexts per order.

A dated batch (a `placed_at` column, no explicit `at`) asks every campaign
"do you run at this instant?" once per order. The answer changes rarely: at a
start or an expiry, at midnight for a day-of-week campaign, at a timeframe
window's edge. `CampaignCheck.verdict_at` says both the verdict and the span
[lo, hi) over which it holds, so `campaign_codes` walks the batch's sorted
distinct instants and jumps with `np.searchsorted` straight to the first
instant at or past `hi`: Python runs once per verdict change, numpy fills the
rest. The campaign logic itself stays in the engine (one implementation).

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


@dataclass(frozen=True)
class Instants:
    """A dated batch's instants: `distinct` (sorted µs) and, per order, its index there."""

    distinct: np.ndarray
    inverse: np.ndarray

    @classmethod
    def of(cls, placed_at_ns: np.ndarray) -> Instants:
        micros = placed_at_ns // 1000  # floor: what a datetime keeps of a nanosecond instant
        distinct, inverse = np.unique(micros, return_inverse=True)
        return cls(distinct, inverse.reshape(-1).astype(np.int32 if distinct.size < 2**31 else np.int64))

    def micros(self, i: int) -> int:
        return int(self.distinct[self.inverse[i]])


def campaign_codes(tier: CompiledTier, distinct: np.ndarray) -> np.ndarray:
    """The campaign check's reason code (0 = runs) at each of the sorted `distinct` instants.

    One `verdict_at` call per span: the verdict holds on [lo, hi), so the next
    instant to ask about is the first one >= hi. The instants are UTC
    datetimes, whose spans are never empty (only a zone with DST gives lo == hi).
    """
    out = np.zeros(distinct.size, dtype=np.int8)
    i, n = 0, distinct.size
    while i < n:
        verdict, _, hi = tier.campaign.verdict_at(to_datetime(int(distinct[i])))
        j = n if hi is None else int(np.searchsorted(distinct, to_micros(hi), side="left"))
        j = max(j, i + 1)
        if verdict is not None:
            out[i:j] = REASON_CODE[verdict.key]
        i = j
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
        t = self.micros.micros(j) if self.micros is not None else None
        m = int(self.metadata_code[j]) if self.metadata_code is not None else None
        found = self._made.get((t, m))
        if found is None:
            found = self._made[(t, m)] = PricingContext(
                now=to_datetime(t) if t is not None else self.base.now,
                redemption_metadata=self.metadata_sets[m] if m is not None else self.base.redemption_metadata,
            )
        return found
