"""A promotion tier as given: its campaign, discount, rules and scope.

Frozen. Instants are timezone-aware datetimes. `TierSpec.discount`, `.rules`
and `.applicable_to` keep the wire shapes of the service (plain mappings) so
that a scenario file can be passed through as is; `compile_tier` checks and
pre-digests them once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

__all__ = ["CampaignInfo", "TierSpec"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class CampaignInfo:
    id: str
    name: str | None = None
    active: bool = True
    start_date: datetime | None = None
    expiration_date: datetime | None = None
    #: {"interval": "P2D", "duration": "PT1H"}: active for `duration` at the start
    #: of every `interval`, counted from start_date (or 1970-01-01T00:00Z).
    validity_timeframe: Mapping[str, str] | None = None
    #: 0 = Sunday .. 6 = Saturday, in the timezone of PricingContext.now.
    validity_day_of_week: tuple[int, ...] | list[int] | None = None
    created_index: int = 0
    categories: tuple[Mapping[str, Any], ...] | list[Mapping[str, Any]] = ()


@dataclass(frozen=True, slots=True)
class TierSpec:
    id: str
    campaign: CampaignInfo
    discount: Mapping[str, Any]
    name: str | None = None
    banner: str | None = None
    hierarchy: int = 1
    rules: Mapping[str, Any] | None = None
    applicable_to: Mapping[str, Any] | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
