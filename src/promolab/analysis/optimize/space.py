"""The search space: per group (a tier, or a tier x segment), the options to choose among.

A `TierGrid` names a tier of the scenario and the values to try for its
terms: `percent_off` (a PERCENT tier), `amount_off` (an AMOUNT tier),
`min_amount` (the `order.amount` threshold, rewritten by
`analysis.tier_terms`, the widgets' rule), `cap` (the most the tier gives an
order: `amount_limit` of an order-level discount, `aggregated_amount_limit`
of an items-level one), each axis crossed with the others, plus named
`variants` (any `TierSpec`: a scenario change the grid cannot say). An empty
axis keeps the tier's own value. `segment` restricts the group to the orders
whose segment column holds that value, so one tier can get a different
setting per segment. Options are plain `TierSpec`s with distinct ids, swept
at once.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...engine import CompiledTier, TierSpec
from ..tier_terms import with_min_amount

__all__ = ["Option", "Space", "TierGrid"]

_ORDER_EFFECTS = ("APPLY_TO_ORDER",)
#: An axis not given: the tier keeps its own value.
_KEEP = object()


@dataclass(frozen=True)
class Option:
    """One setting of a group: its label and the tier it makes."""

    name: str
    spec: TierSpec


def _whole_cents(values: Sequence[Any], what: str, tier: str) -> tuple[int | None, ...]:
    out: list[int | None] = []
    for value in values:
        if value is None:
            out.append(None)
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"TierGrid({tier!r}).{what} must be whole cents >= 0 (or None), got {value!r}")
        out.append(value)
    return tuple(out)


@dataclass(frozen=True)
class TierGrid:
    """The options of one group (see the module's docstring)."""

    tier: str
    percent_off: Sequence[float] = ()
    amount_off: Sequence[int] = ()
    min_amount: Sequence[int | None] = ()
    cap: Sequence[int | None] = ()
    variants: Mapping[str, TierSpec] = field(default_factory=dict)
    segment: str | None = None

    def __post_init__(self) -> None:
        for value in self.percent_off:
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
                raise ValueError(f"TierGrid({self.tier!r}).percent_off must be numbers from 0 to 100, got {value!r}")
        for value in self.amount_off:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"TierGrid({self.tier!r}).amount_off must be whole cents >= 0, got {value!r}")
        _whole_cents(self.min_amount, "min_amount", self.tier)
        _whole_cents(self.cap, "cap", self.tier)
        for name, spec in self.variants.items():
            if not isinstance(spec, TierSpec):
                raise TypeError(f"TierGrid({self.tier!r}).variants[{name!r}] must be a TierSpec, "
                                 f"got {type(spec).__name__}")
        if self.percent_off and self.amount_off:
            raise ValueError(f"TierGrid({self.tier!r}) gives both percent_off and amount_off: a tier has one kind")
        if not (self.percent_off or self.amount_off or self.min_amount or self.cap or self.variants):
            raise ValueError(f"TierGrid({self.tier!r}) is empty: give values to try or variants")

    @property
    def label(self) -> str:
        """The group's name in tables: the tier, and its segment when it has one."""
        return self.tier if self.segment is None else f"{self.tier}[{self.segment}]"

    def options(self, base: CompiledTier) -> list[Option]:
        """The grid over `base` (the scenario's tier), then the variants, in that order."""
        spec = base.spec
        kind = base.kind
        if self.percent_off and kind != "PERCENT":
            raise ValueError(f"TierGrid({self.tier!r}).percent_off: the tier is {kind}, not PERCENT")
        if self.amount_off and kind != "AMOUNT":
            raise ValueError(f"TierGrid({self.tier!r}).amount_off: the tier is {kind}, not AMOUNT")
        value_field = "percent_off" if self.percent_off else "amount_off"
        values: Sequence[Any] = self.percent_off or self.amount_off or (None,)
        out: list[Option] = []
        keep: tuple[Any, ...] = (_KEEP,)
        axes: Iterator[tuple[Any, Any, Any]] = itertools.product(values, self.min_amount or keep, self.cap or keep)
        effect = str(spec.discount.get("effect") or "")
        cap_field = "amount_limit" if effect in _ORDER_EFFECTS else "aggregated_amount_limit"
        if not (self.percent_off or self.amount_off or self.min_amount or self.cap):
            axes = iter(())
        for n, (value, minimum, cap) in enumerate(axes):
            discount = dict(spec.discount)
            parts = []
            if value is not None:
                discount[value_field] = value
                parts.append(f"{value_field}={value:g}")
            if cap is not _KEEP:
                discount.pop(cap_field, None)
                if cap is not None:
                    discount[cap_field] = cap
                parts.append(f"cap={cap}")
            rules = spec.rules
            if minimum is not _KEEP:
                rules = with_min_amount(spec.rules, minimum)
                parts.append(f"min_amount={minimum}")
            out.append(Option(", ".join(parts), replace(spec, id=f"{spec.id}~{self.segment or ''}~{n}",
                                                        discount=discount, rules=rules)))
        for k, (name, variant) in enumerate(self.variants.items()):
            out.append(Option(str(name), replace(variant, id=f"{spec.id}~{self.segment or ''}~v{k}")))
        return out


@dataclass(frozen=True)
class Space:
    """The groups to choose a setting for, and the per-order column holding
    the segment (read when a group has a `segment`)."""

    groups: Sequence[TierGrid]
    segment_column: str = "segment"

    def __post_init__(self) -> None:
        if isinstance(self.groups, TierGrid):
            object.__setattr__(self, "groups", (self.groups,))
        groups = tuple(self.groups)
        if not groups:
            raise ValueError("Space has no group: give at least one TierGrid")
        for group in groups:
            if not isinstance(group, TierGrid):
                raise TypeError(f"Space.groups must be TierGrid objects, got {type(group).__name__}")
        labels = [g.label for g in groups]
        if len(set(labels)) != len(labels):
            raise ValueError(f"Space.groups repeat a (tier, segment): {', '.join(labels)}")
        tiers = {g.tier for g in groups}
        for tier in tiers:
            segments = [g.segment for g in groups if g.tier == tier]
            if None in segments and len(segments) > 1:
                raise ValueError(f"tier {tier!r} is a group of all orders and of a segment: choose one")
        object.__setattr__(self, "groups", groups)
