"""The what-if controller: state in, tables and a chart out.

`WhatIfController` holds an `OrderDraft` (the order builder) and a `TierEdit`
(the tier tuner). Every change re-runs

- `compare_tiers` on the built order, over every active tier plus the
  what-if copy of the tuned tier (which tiers apply, the discount, why not);
- `sweep` of the tuned tier, before (cached per tier) and after the edit,
  over the sample orders (cost, reach, average discount);

then hands a `WhatIfResult` to its listeners (the view). No widgets here: the
tests drive it directly.

The currency money is shown in is the controller's (`currency=`, by default
the simulator's, `Simulator.currency`: the scenario's `project.currency`). It
travels with what is shown: every `WhatIfResult` and saved `Variant` carries
it, and a comparison frame keeps it in its `attrs`, so the tables, the status
line, the charts and the variants panel read it there rather than each
defaulting to one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..analysis import compare_tiers, prepare_orders, sweep
from ..analysis.figures import with_currency
from ..analysis.optimize import optimize
from ..analysis.sweep.batch import Chunk
from ..display import checked_currency
from ..engine import TierConfigError, TierSpec
from ..sim import pricing_view
from .best import BestValue, best_grid, best_of
from .outlook import Outlook, outlook
from .state import (
    EFFECTS,
    TUNABLE_TYPES,
    OrderDraft,
    SliderSpec,
    TierEdit,
    apply_edit,
    edit_of,
    slider_spec,
    whatif_id,
)
from .variants import (
    Variant,
    VariantBook,
    VariantRef,
    dated_comparison,
    sweep_comparison,
)

if TYPE_CHECKING:
    from ..analysis import CostModel, OrderBatch, SweepResult
    from ..sim import Simulator

__all__ = ["METRICS", "ORDER_COLUMNS", "WhatIfController", "WhatIfResult", "sample_orders"]

#: Columns of `WhatIfResult.order_table`.
ORDER_COLUMNS = ["tier_id", "tier_name", "whatif", "valid", "discount_amount", "total_amount", "reason"]

#: Columns of `WhatIfResult.tier_table` (rows `before`, `after`, `change`) and
#: their dtypes, by the rule of every frame (docs/analysis.md): counts and money
#: `Int64`, shares and averages of money `Float64`.
METRIC_DTYPES = {
    "orders": "Int64",
    "orders_reached": "Int64",
    "share_reached": "Float64",
    "cost": "Int64",
    "avg_discount": "Float64",
    "cost_per_order": "Float64",
    "max_discount": "Int64",
}
METRICS = list(METRIC_DTYPES)
#: Rows of `WhatIfResult.tier_table`.
STATES = ["before", "after", "change"]

Listener = Callable[["WhatIfResult"], Any]

def sample_orders(orders: pd.DataFrame, n: int | None, *, seed: int = 0) -> pd.DataFrame:
    """The lines of `n` orders drawn without replacement with a fixed seed
    (all orders when `n` is None or not smaller), in their original order."""
    ids = pd.unique(orders["order_id"])
    if n is None or n >= len(ids):
        return orders
    chosen = np.random.default_rng(seed).choice(len(ids), size=n, replace=False)
    keep = set(ids[np.sort(chosen)].tolist())
    return orders[orders["order_id"].isin(keep)].reset_index(drop=True)


@dataclass(frozen=True)
class WhatIfResult:
    """One consistent picture of the current state.

    - `order_table`: one row per tier (the what-if copy right after the tuned
      tier) for the built order: `ORDER_COLUMNS`, money in cents;
    - `tier_table`: (`before`, `after`, `change`) x `METRICS` for the tuned
      tier over the sample orders, one column per figure so each has its
      own dtype (`METRIC_DTYPES`): money in cents, shares in [0, 1];
    - `currency`: what the cents are in (the controller's): every display of
      the result (`present`, `charts`) formats money in it;
    - `outlook`: what the edited tier is expected to bring over the same
      orders under the default `ResponseModel()` (incremental net revenue
      and its P10-P90 band, `outlook.py`); None when `error`;
    - `error`: why the edit could not be evaluated (then `after` is NA).
    """

    draft: OrderDraft
    edit: TierEdit
    whatif: TierSpec | None
    order_table: pd.DataFrame
    tier_table: pd.DataFrame
    n_orders: int
    currency: str
    outlook: Outlook | None = None
    error: str | None = None

    @property
    def before(self) -> pd.Series:
        return self.tier_table.loc["before"]

    @property
    def after(self) -> pd.Series:
        return self.tier_table.loc["after"]


class WhatIfController:
    """State + the analysis it drives. Mutators return the new result.

    `orders`: a line-items frame (docs/analysis.md), e.g. the sample orders;
    `sample`: sweep only that many of its orders (seeded draw) for speed.
    `tier`: the tier to tune first (default the first tunable active tier).
    `currency`: what every amount is shown in; by default the simulator's
    (`Simulator.currency`, the scenario's `project.currency`).
    """

    def __init__(
        self,
        sim: Simulator,
        orders: pd.DataFrame,
        *,
        sample: int | None = None,
        seed: int = 0,
        tier: str | None = None,
        draft: OrderDraft | None = None,
        currency: str | None = None,
    ) -> None:
        self.currency = checked_currency(currency if currency is not None else sim.currency)
        self.sim = sim
        view = pricing_view(sim)
        self.tiers: dict[str, TierSpec] = {t.id: t.spec for t in view.tiers}
        self.tunable: list[str] = [
            t.id for t in view.tiers if str(t.spec.discount.get("type")) in TUNABLE_TYPES
        ]
        if not self.tunable:
            raise ValueError("the simulator has no tunable (AMOUNT, PERCENT, FIXED) tier")
        catalogue = view.catalogue
        #: product id -> name, priced catalogue products in scenario order
        self.products: dict[str, str] = {
            p.id: p.name or p.id for p in catalogue.products.values() if p.price is not None
        }
        #: customer source_id -> name
        self.customers: dict[str, str] = {
            c.source_id: c.name or c.source_id for c in sim.state.customers.values() if c.source_id
        }
        self.orders = sample_orders(orders, sample, seed=seed)
        self.batch: OrderBatch = prepare_orders(sim, self.orders)
        #: each swept order's amount (cents), as the sweep and the optimizer read it
        self.amounts: np.ndarray = Chunk(self.batch, 0, self.batch.n_orders).amount
        self.draft = draft or OrderDraft.of(list(self.products))
        first = tier if tier is not None else self.tunable[0]
        self.edit = self._initial_edit(first)
        self._before: dict[str, dict[str, Any]] = {}
        self._listeners: list[Listener] = []
        self._result: WhatIfResult | None = None
        self.book = VariantBook()

    # -- listeners -------------------------------------------------------------
    def on_change(self, listener: Listener) -> None:
        """Call `listener(result)` after every change (the view's refresh)."""
        self._listeners.append(listener)

    def _changed(self) -> WhatIfResult:
        self._result = None
        result = self.result
        for listener in list(self._listeners):
            listener(result)
        return result

    # -- order builder -----------------------------------------------------------
    def set_quantity(self, product_id: str, quantity: int) -> WhatIfResult:
        self.draft = self.draft.with_quantity(product_id, quantity)
        return self._changed()

    def set_customer(self, customer: str | None) -> WhatIfResult:
        """A stored customer's source_id (priced with metadata and segments), an
        unknown one (priced as sent), or None (no customer)."""
        self.draft = self.draft.with_customer(customer)
        return self._changed()

    def set_order(self, customer: str | None = None, **quantities: int) -> WhatIfResult:
        """Replace the whole order: `set_order("alice", prod_grinder=1, prod_mug=2)`."""
        self.draft = OrderDraft.of(list(self.products), customer, **quantities)
        return self._changed()

    # -- tier tuner ----------------------------------------------------------------
    def _initial_edit(self, tier_id: str) -> TierEdit:
        if tier_id not in self.tunable:
            raise ValueError(f"tier {tier_id!r} is not a tunable active tier; tunable: {', '.join(self.tunable)}")
        return edit_of(self.tiers[tier_id])

    def select_tier(self, tier_id: str) -> WhatIfResult:
        self.edit = self._initial_edit(tier_id)
        return self._changed()

    def set_value(self, value: float) -> WhatIfResult:
        self.edit = replace(self.edit, value=value)
        return self._changed()

    def set_effect(self, effect: str) -> WhatIfResult:
        self.edit = replace(self.edit, effect=effect)
        return self._changed()

    def set_min_amount(self, cents: int | None) -> WhatIfResult:
        self.edit = replace(self.edit, min_amount=None if cents is None else int(cents))
        return self._changed()

    def update(self, **changes: Any) -> WhatIfResult:
        """Several tuner changes at once (`value`, `effect`, `min_amount`), one re-run."""
        unknown = set(changes) - {"value", "effect", "min_amount"}
        if unknown:
            raise TypeError(f"unknown changes: {', '.join(sorted(unknown))}")
        self.edit = replace(self.edit, **changes)
        return self._changed()

    def reset_tier(self) -> WhatIfResult:
        """Back to the tuned tier as the scenario defines it."""
        self.edit = self._initial_edit(self.edit.tier_id)
        return self._changed()

    def find_best(self) -> BestValue:
        """The value of the tuned tier (as edited otherwise) that brings the most
        expected incremental net revenue under the scenario's budgets, over the
        sample orders and the default `ResponseModel()` (`best.py`). Changes
        nothing: `apply_best` sets it."""
        spec = self.tiers[self.edit.tier_id]
        return best_of(self.edit, optimize(self.sim, self.orders, best_grid(spec, self.edit)))

    def apply_best(self, best: BestValue) -> WhatIfResult:
        """Set the value `find_best` chose (for the tier it was found for)."""
        if best.tier_id != self.edit.tier_id:
            raise ValueError(f"the best value was found for {best.tier_id}, the tuned tier is {self.edit.tier_id}")
        if best.value is None:
            raise ValueError(f"no value to apply: {best.reason}")
        return self.set_value(best.value)

    @property
    def effects(self) -> tuple[str, ...]:
        return EFFECTS[self.edit.discount_type]

    @property
    def slider(self) -> SliderSpec:
        """How the view shows the value (bounds fixed per tier, from its own value)."""
        return slider_spec(self.edit, original_value=edit_of(self.tiers[self.edit.tier_id]).value,
                           currency=self.currency)

    # -- variants --------------------------------------------------------------------
    def save_variant(self, name: str, *, replace: bool = False) -> Variant:
        """Keep the tuned tier as it stands under `name` (unique per tier;
        `replace=True` overwrites). An edit the engine refuses is not saved:
        a variant is something the comparisons can sweep."""
        result = self.result
        if result.whatif is None:
            raise ValueError(f"the tuned tier cannot be saved: {result.error}")
        original = self.tiers[self.edit.tier_id]
        return self.book.save(Variant(name, self.edit, result.whatif, original, self.currency), replace=replace)

    def variants(self) -> pd.DataFrame:
        """The saved variants, in the order saved: name, tier, what changed in words."""
        return self.book.frame()

    def variant(self, name: VariantRef) -> Variant:
        """A saved variant: by name (the tuned tier's, else the only one of that
        name), or by `(tier_id, name)`."""
        return self.book.find(name, current_tier=self.edit.tier_id)

    def delete_variant(self, name: VariantRef) -> Variant:
        """Forget a variant (a name, or `(tier_id, name)` when two tiers share it)."""
        return self.book.delete(name, current_tier=self.edit.tier_id)

    def load_variant(self, name: VariantRef) -> WhatIfResult:
        """Tune the variant's tier as the variant had it (its tier is selected)."""
        self.edit = self.book.find(name, current_tier=self.edit.tier_id).edit
        return self._changed()

    def compare_variants(
        self,
        names: Iterable[VariantRef] | None = None,
        *,
        dated_orders: pd.DataFrame | None = None,
        costs: CostModel | None = None,
        customers: Any = None,
    ) -> pd.DataFrame:
        """The saved variants (all, or the ones named) against the current scenario.

        Without `dated_orders`: each variant's tier over the sample orders, as
        the tuner sweeps it (`variants.COMPARISON_COLUMNS`). With them: the
        whole shop forecast in time order, each variant replacing its tier
        (`analysis.compare_scenarios`, `variants.DATED_COLUMNS`). Money in cents;
        `variants.comparison_display` is the same frame for a person, in the
        controller's currency (kept in the frame's `attrs`).
        """
        chosen = self.book.select(names, current_tier=self.edit.tier_id)
        if not chosen:
            raise ValueError("no variant to compare: save one first")
        if dated_orders is not None:
            frame = dated_comparison(self.sim, chosen, dated_orders, costs=costs, customers=customers)
        else:
            frame = sweep_comparison(chosen, self._summary_of, self.batch.n_orders)
        return with_currency(frame, self.currency)

    def _summary_of(self, tier: str | TierSpec) -> dict[str, Any]:
        return self._summary_before(tier) if isinstance(tier, str) else self._summary(tier)

    # -- results --------------------------------------------------------------------
    @property
    def result(self) -> WhatIfResult:
        if self._result is None:
            self._result = self._compute()
        return self._result

    def _compute(self) -> WhatIfResult:
        spec = self.tiers[self.edit.tier_id]
        error = None
        candidate = apply_edit(spec, self.edit)
        whatif: TierSpec | None = candidate
        before = self._summary_before(spec.id)
        expected: Outlook | None = None
        try:
            swept = self._sweep(candidate)
        except (TierConfigError, ValueError) as exc:  # the engine refuses the edited tier
            error, whatif = str(exc), None
            after = dict.fromkeys(METRICS, pd.NA)
        else:
            after = _figures(swept)
            expected = outlook(self.edit.discount_type, self.amounts, _discounts(swept))
        table = pd.DataFrame({
            name: pd.array([before[name], after[name], pd.NA], dtype=dtype) for name, dtype in METRIC_DTYPES.items()
        }, index=pd.Index(STATES, name="state"))
        table.loc["change"] = table.loc["after"] - table.loc["before"]
        table = with_currency(table.astype(METRIC_DTYPES), self.currency)
        return WhatIfResult(
            draft=self.draft,
            edit=self.edit,
            whatif=whatif,
            order_table=self._order_table(whatif),
            tier_table=table,
            n_orders=self.batch.n_orders,
            currency=self.currency,
            outlook=expected,
            error=error,
        )

    def _summary_before(self, tier_id: str) -> dict[str, Any]:
        found = self._before.get(tier_id)
        if found is None:
            found = self._before[tier_id] = self._summary(tier_id)
        return found

    def _sweep(self, tier: str | TierSpec) -> SweepResult:
        return sweep(self.sim, self.batch, [tier], progress=False)

    def _summary(self, tier: str | TierSpec) -> dict[str, Any]:
        return _figures(self._sweep(tier))

    def _order_table(self, whatif: TierSpec | None) -> pd.DataFrame:
        tiers: list[Any] = []
        for tier_id in self.tiers:
            tiers.append(tier_id)
            if tier_id == self.edit.tier_id and whatif is not None:
                tiers.append(whatif)
        if self.draft.is_empty:
            frame = pd.DataFrame({
                "tier_id": pd.array([t if isinstance(t, str) else t.id for t in tiers], dtype="string"),
                "tier_name": pd.array(
                    [self.tiers[t].name if isinstance(t, str) else t.name for t in tiers], dtype="string"
                ),
                "valid": False,
                "discount_amount": pd.array([0] * len(tiers), dtype="Int64"),
                "total_amount": pd.array([0] * len(tiers), dtype="Int64"),
                "reason": pd.array(["the order is empty"] * len(tiers), dtype="string"),
            })
        else:
            compared = compare_tiers(self.sim, self.draft.request(), tiers=tiers)
            frame = compared[["tier_id", "tier_name", "valid", "discount_amount", "total_amount", "reason"]].copy()
            frame["tier_id"] = frame["tier_id"].astype("string")
        frame.insert(2, "whatif", frame["tier_id"] == whatif_id(self.edit.tier_id))
        frame["whatif"] = frame["whatif"].astype(bool)
        return with_currency(frame[ORDER_COLUMNS].reset_index(drop=True), self.currency)


def _figures(swept: SweepResult) -> dict[str, Any]:
    """The tier table's figures of a one-tier sweep."""
    row = swept.summary().iloc[0]
    return {
        "orders": row["orders"],
        "orders_reached": row["valid_orders"],
        "share_reached": row["share_affected"],
        "cost": row["cost"],
        "avg_discount": row["avg_discount"],
        "cost_per_order": row["cost_per_order"],
        "max_discount": row["max_discount"],
    }


def _discounts(swept: SweepResult) -> np.ndarray:
    """Per order, what a one-tier sweep's tier gives (cents; 0 where it is not
    valid or gives no money)."""
    frame = swept.frame
    given = frame["discount_amount"].fillna(0).to_numpy(dtype=np.int64)
    out: np.ndarray = np.where(frame["valid"].to_numpy(dtype=bool), given, 0)
    return out
