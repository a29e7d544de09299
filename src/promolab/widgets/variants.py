"""Saved variants of tuned tiers, and how they compare with the scenario.

A variant is a tuned tier kept under a name, so that several ideas for the
same tier (or for different tiers) can be put side by side instead of being
remembered one slider position at a time. No ipywidgets here: the controller
(`controller.py`) holds a `VariantBook` and answers with the frames built
below; the panel (`variants_view.py`) only shows them.

Two comparisons, both against the *current scenario* (the tiers as the
simulator defines them):

- over the controller's sample orders, tier by tier (`sweep_comparison`):
  each variant's tier alone, as the tuner's before/after does;
- over dated orders (`dated_comparison`): the whole shop forecast in time
  order (`analysis.compare_scenarios`), every active tier competing, budgets
  and limits spent as the orders come, each variant replacing its tier.

Money is cents in both frames; the currency it is in travels with the frame
(`with_currency`, in `frame.attrs`, set by the controller), so that
`comparison_display` and `charts.variants_figure` show it as the scenario
has it without being told again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..analysis import compare_scenarios
from ..analysis.figures import figures, frame_currency, with_currency
from ..display import MISSING, format_count, format_money, is_missing
from ..engine import TierSpec
from ..sim import pricing_view
from .present import edit_changes, readable
from .state import TierEdit, edit_of

if TYPE_CHECKING:
    from ..analysis import CostModel
    from ..sim import Simulator

__all__ = [
    "COMPARISON_COLUMNS",
    "CURRENT",
    "DATED_COLUMNS",
    "LIST_COLUMNS",
    "Variant",
    "VariantBook",
    "VariantRef",
    "comparison_currency",
    "comparison_display",
    "dated_comparison",
    "sweep_comparison",
    "variant_tiers",
    "with_currency",
]

#: The name of the rows that show the tiers as the simulator has them (not a variant name).
CURRENT = "current scenario"

#: Columns of `WhatIfController.variants()`.
LIST_COLUMNS = ["variant", "tier_id", "changes"]

#: Columns of the comparison over the sample orders (money in cents, shares in [0, 1]).
COMPARISON_COLUMNS = [
    "variant", "tier_id", "changes", "orders", "orders_affected", "share_affected", "cost", "avg_discount",
    "cost_change", "share_change", "avg_discount_change",
]

#: Columns of the comparison over dated orders (`ScenarioComparison.totals()` and the differences).
DATED_COLUMNS = [
    "variant", "tier_id", "changes", "orders", "redeemed", "discount", "held_back", "margin",
    "redeemed_change", "discount_change", "held_back_change", "margin_change",
]

#: A variant named alone, or with its tier when several tiers have one of that name.
VariantRef = str | tuple[str, str]


@dataclass(frozen=True)
class Variant:
    """A tuned tier kept under a name: the edit (to load it back into the
    tuner), the what-if `TierSpec` it made (what the comparisons sweep), and
    the currency its amounts are told in (`changes`: the controller's)."""

    name: str
    edit: TierEdit
    spec: TierSpec
    original: TierSpec
    currency: str

    @property
    def tier_id(self) -> str:
        return self.edit.tier_id

    @property
    def changes(self) -> str:
        return edit_changes(edit_of(self.original), self.edit, currency=self.currency)

    def replacing(self) -> TierSpec:
        """The variant under its tier's own id: what stands in for the tier in
        a forecast, so per-tier redemption rates (`CostModel`) and the result
        frames' `tier_id` read as for the tier it replaces."""
        return replace(self.spec, id=self.original.id)


class VariantBook:
    """The saved variants, by (tier id, name), in the order saved. A name is
    unique per tier; the same name may be used for two tiers, and is then
    told apart by its tier (`(tier_id, name)`, or the tier being tuned)."""

    def __init__(self) -> None:
        self._saved: dict[tuple[str, str], Variant] = {}

    def __len__(self) -> int:
        return len(self._saved)

    def __iter__(self) -> Iterator[Variant]:
        return iter(list(self._saved.values()))

    def save(self, variant: Variant, *, replace: bool = False) -> Variant:
        name = variant.name.strip() if isinstance(variant.name, str) else ""
        if not name:
            raise ValueError("a variant needs a name")
        if name == CURRENT:
            raise ValueError(f"{CURRENT!r} names the scenario itself; choose another name")
        key = (variant.tier_id, name)
        if key in self._saved and not replace:
            raise ValueError(f"tier {variant.tier_id} already has a variant {name!r} (pass replace=True to overwrite it)")
        self._saved[key] = variant if name == variant.name else Variant(
            name, variant.edit, variant.spec, variant.original, variant.currency)
        return self._saved[key]

    def find(self, ref: VariantRef, *, current_tier: str | None = None) -> Variant:
        """The variant `ref` names: `(tier_id, name)`, or a name, which is the
        tier being tuned's variant if it has one, else the only one of that name."""
        if isinstance(ref, tuple):
            found = self._saved.get(ref)
            if found is None:
                raise KeyError(f"no variant {ref[1]!r} of tier {ref[0]}; saved: {self._names()}")
            return found
        if current_tier is not None and (current_tier, ref) in self._saved:
            return self._saved[(current_tier, ref)]
        matches = [v for (_, name), v in self._saved.items() if name == ref]
        if not matches:
            raise KeyError(f"no variant {ref!r}; saved: {self._names()}")
        if len(matches) > 1:
            tiers = ", ".join(v.tier_id for v in matches)
            raise ValueError(f"several tiers have a variant {ref!r} ({tiers}): name it as (tier_id, name)")
        return matches[0]

    def delete(self, ref: VariantRef, *, current_tier: str | None = None) -> Variant:
        found = self.find(ref, current_tier=current_tier)
        del self._saved[(found.tier_id, found.name)]
        return found

    def select(self, refs: Iterable[VariantRef] | None, *, current_tier: str | None = None) -> list[Variant]:
        """The variants named (all, in the order saved, when `refs` is None), each once."""
        if refs is None:
            return list(self._saved.values())
        if isinstance(refs, str):
            refs = [refs]
        chosen = [self.find(r, current_tier=current_tier) for r in refs]
        return list({(v.tier_id, v.name): v for v in chosen}.values())

    def frame(self) -> pd.DataFrame:
        rows = [{"variant": v.name, "tier_id": v.tier_id, "changes": v.changes} for v in self._saved.values()]
        return pd.DataFrame(rows, columns=LIST_COLUMNS).astype("string")

    def _names(self) -> str:
        return ", ".join(f"{name} ({tier})" for tier, name in self._saved) or "none"


def _labels(variants: Sequence[Variant]) -> list[str]:
    """Each variant's label: its name, with its tier when another variant shares the name."""
    names = [v.name for v in variants]
    return [v.name if names.count(v.name) == 1 else f"{v.name} ({v.tier_id})" for v in variants]


def sweep_comparison(
    variants: Sequence[Variant], summarize: Callable[[str | TierSpec], Mapping[str, Any]], n_orders: int
) -> pd.DataFrame:
    """Per tier of the variants: the tier as in the scenario (`CURRENT`), then
    each of its variants, over the same orders (`summarize` is the
    controller's sweep of one tier), with the differences from the scenario."""
    rows: list[dict[str, Any]] = []
    for tier_id in dict.fromkeys(v.tier_id for v in variants):
        base = summarize(tier_id)
        mine = [v for v in variants if v.tier_id == tier_id]
        for label, summary, changes in [(CURRENT, base, "as in the scenario")] + [
            (v.name, summarize(v.spec), v.changes) for v in mine
        ]:
            rows.append({
                "variant": label, "tier_id": tier_id, "changes": changes, "orders": n_orders,
                "orders_affected": int(summary["orders_reached"]), "share_affected": summary["share_reached"],
                "cost": summary["cost"], "avg_discount": summary["avg_discount"],
                "cost_change": summary["cost"] - base["cost"],
                "share_change": summary["share_reached"] - base["share_reached"],
                "avg_discount_change": summary["avg_discount"] - base["avg_discount"],
            })
    frame = pd.DataFrame(rows, columns=COMPARISON_COLUMNS)
    frame[["variant", "tier_id", "changes"]] = frame[["variant", "tier_id", "changes"]].astype("string")
    # a campaign's cost is whole cents (the average discount is a mean: it stays a float)
    return figures(frame.astype({"orders": "Int64", "orders_affected": "Int64", "cost": "Int64", "cost_change": "Int64",
                                 "share_affected": "Float64", "avg_discount": "Float64", "share_change": "Float64",
                                 "avg_discount_change": "Float64"}))


def variant_tiers(sim: Simulator, variant: Variant) -> list[str | TierSpec]:
    """Every active tier of the simulator (what a forecast weighs by default),
    the variant's tier replaced by the variant under the tier's id."""
    return [variant.replacing() if t.id == variant.tier_id else t.id for t in pricing_view(sim).tiers]


def dated_comparison(
    sim: Simulator,
    variants: Sequence[Variant],
    orders: pd.DataFrame,
    *,
    costs: CostModel | None = None,
    customers: Any = None,
    progress: bool = False,
) -> pd.DataFrame:
    """The scenario and each variant forecast over dated `orders`
    (`compare_scenarios`: same orders, same cost model, budgets spent in time
    order): `ScenarioComparison.totals()` per variant, with the differences."""
    if not variants:
        raise ValueError("no variant to compare: save one first")
    labels = _labels(variants)
    scenarios: dict[str, Any] = {CURRENT: sim}
    scenarios.update({label: (sim, variant_tiers(sim, v)) for label, v in zip(labels, variants, strict=True)})
    totals = compare_scenarios(scenarios, orders, costs=costs, customers=customers, progress=progress).totals()
    frame = totals.rename(columns={"scenario": "variant"})
    frame.insert(1, "tier_id", pd.array([None] + [v.tier_id for v in variants], dtype="string"))
    frame.insert(2, "changes", pd.array(["as in the scenario"] + [v.changes for v in variants], dtype="string"))
    base = frame.iloc[0]
    for column in ("redeemed", "discount", "held_back", "margin"):
        frame[f"{column}_change"] = frame[column] - base[column]
    return figures(frame[DATED_COLUMNS])


def _points(value: Any) -> str:
    """A difference of shares, in percentage points."""
    return MISSING if is_missing(value) else f"{100 * value:+.1f} pts"


#: A comparison frame's currency is where every frame keeps it (`analysis.figures`).
comparison_currency = frame_currency



def comparison_display(frame: pd.DataFrame) -> pd.DataFrame:
    """A comparison (either form) for a person to read: money with its
    currency (the frame's, `comparison_currency`), shares as percentages,
    differences signed."""
    currency = comparison_currency(frame)
    money = [c for c in ("cost", "avg_discount", "discount", "margin") if c in frame.columns]
    out = readable(frame, money=money, shares=[c for c in ("share_affected",) if c in frame.columns],
                   counts=[c for c in ("orders", "orders_affected", "redeemed", "held_back") if c in frame.columns],
                   currency=currency)
    def signed_money(value: Any) -> str:
        return format_money(value, currency, signed=True)

    def signed_count(value: Any) -> str:
        return format_count(value, signed=True)

    changes: dict[str, Callable[[Any], str]] = {
        "cost_change": signed_money, "avg_discount_change": signed_money, "discount_change": signed_money,
        "margin_change": signed_money, "share_change": _points, "redeemed_change": signed_count,
        "held_back_change": signed_count,
    }
    for column, fmt in changes.items():
        if column in out.columns:
            values = [fmt(None if v is pd.NA else v) for v in frame[column].tolist()]
            out[column] = pd.Series(values, index=out.index, dtype="string")
    return out.fillna("")
