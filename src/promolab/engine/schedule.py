"""Which tiers' campaigns run at an instant, remembered until a verdict can change.

A validation request prices every active tier, and the first thing a tier
checks is its campaign (active flag, dates, timeframe, day of the week). Those
verdicts depend on the instant alone and change rarely (at a start, an expiry,
midnight, a timeframe window edge), while requests come every few seconds of
simulated time. `RunningTiers` therefore keeps the running tiers of the last
instant asked about, with the span over which every campaign's verdict holds
(`CampaignCheck.span`), and re-runs the checks only for an instant outside it
(and then only those of the campaigns whose own span it left:
`CampaignCheck.verdict_at`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone, tzinfo
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .compiled_tier import CompiledTier

__all__ = ["RunningTiers"]


class RunningTiers:
    """The tiers (in their given order) whose campaign passes its checks at an
    instant: `at(now)` is `tuple(t for t in tiers if t.campaign.evaluate(now) is None)`.

    Tiers and their campaigns are immutable, so the one thing to watch is the
    instant; the answer is reused for instants in the same timezone within the
    span of the last computation (the day of the week is read in `now`'s zone).
    The memo is one tuple, replaced whole, so concurrent callers never see a
    half-updated one.
    """

    __slots__ = ("_memo", "tiers")

    def __init__(self, tiers: Sequence[CompiledTier]) -> None:
        self.tiers = tuple(tiers)
        #: (timezone, lo, hi, running tiers), or None before the first instant
        self._memo: (
            tuple[tzinfo | None, datetime | None, datetime | None, tuple[CompiledTier, ...]] | None
        ) = None

    def at(self, now: datetime) -> tuple[CompiledTier, ...]:
        memo = self._memo
        if memo is not None:
            tz, lo, hi, running = memo
            if now.tzinfo is tz and (lo is None or lo <= now) and (hi is None or now < hi):
                return running
        return self._compute(now)

    def _compute(self, now: datetime) -> tuple[CompiledTier, ...]:
        running = []
        lo: datetime | None = None
        hi: datetime | None = None
        cacheable = True
        for tier in self.tiers:
            verdict, tier_lo, tier_hi = tier.campaign.verdict_at(now)
            if verdict is None:
                running.append(tier)
            if tier_lo is not None and tier_lo == tier_hi:  # an empty span: ask again next time
                cacheable = False
            if tier_lo is not None and (lo is None or tier_lo > lo):
                lo = tier_lo
            if tier_hi is not None and (hi is None or tier_hi < hi):
                hi = tier_hi
        result = tuple(running)
        tz = now.tzinfo
        if type(tz) is timezone:
            # The bounds in `now`'s own fixed-offset zone: the same instants,
            # and a comparison of datetimes sharing their tzinfo object skips
            # the utcoffset() calls (the campaigns' dates come with
            # pydantic's own tzinfo, which costs ~1 µs per comparison).
            lo = lo.astimezone(tz) if lo is not None else None
            hi = hi.astimezone(tz) if hi is not None else None
        self._memo = (tz, lo, hi, result) if cacheable else None
        return result
