"""Who a tier is priced for and when: the customer and the pricing context.

Frozen. The instant is timezone-aware (campaign days of the week are read in
its timezone); metadata mappings are read, never written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .budget_rules import Usage

__all__ = ["CustomerContext", "PricingContext"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class CustomerContext:
    id: str | None = None
    source_id: str | None = None
    name: str | None = None
    email: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    segment_ids: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class PricingContext:
    now: datetime
    redemption_metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    audience_only: bool = False
    expand: frozenset[str] = frozenset()
    #: What budget rules count (None: nothing redeemed yet; see budget_rules).
    usage: Usage | None = None
    #: Rule names taken as satisfied (qualifications: `QUALIFICATION_IGNORED`).
    ignored_rules: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.now.tzinfo is None:
            raise ValueError("PricingContext.now must be timezone-aware")
