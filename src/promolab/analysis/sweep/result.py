"""`SweepResult`: the long frame, the path each tier took, and the summary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from ...display import DEFAULT_CURRENCY, format_count
from ...rich_summary import Summary, Table, currency_of
from ..figures import figures
from .rulemasks import REASONS
from .runner import Outputs, order_code_dtype, tier_code_dtype
from .summary import campaign_summary, summary_table, summary_text, tier_summary

__all__ = ["SWEEP_COLUMNS", "SweepResult", "build_frame"]

#: Columns of `SweepResult.frame`, in order (dtypes: docs/analysis.md).
SWEEP_COLUMNS = ("order_id", "tier_id", "valid", "discount_amount", "total_amount", "reason_key")


def build_frame(order_ids: pd.Index, tier_ids: Sequence[str], out: Outputs) -> pd.DataFrame:
    """The long frame over the output arrays, without copying them.

    Rows are order-major: row = order position * T + tier position (codes
    made here unless the chunks filled them, see `Outputs`).
    """
    n, t = len(order_ids), len(tier_ids)
    order_codes = out.order_code
    if order_codes is None:
        order_codes = np.repeat(np.arange(n, dtype=order_code_dtype(n)), t)
    tier_codes = out.tier_code
    if tier_codes is None:
        tier_codes = np.tile(np.arange(t, dtype=tier_code_dtype(t)), n)
    out.reason -= 1  # 0 (valid) -> -1 (NA); k -> k - 1 (index into REASONS)
    frame = pd.DataFrame(
        {
            "order_id": pd.Categorical.from_codes(order_codes, categories=order_ids, validate=False),
            "tier_id": pd.Categorical.from_codes(tier_codes, categories=pd.Index(list(tier_ids)), validate=False),
            "valid": out.valid,
            "discount_amount": pd.arrays.IntegerArray(out.discount, out.na),
            "total_amount": pd.arrays.IntegerArray(out.total, np.zeros(n * t, dtype=bool)),
            "reason_key": pd.Categorical.from_codes(out.reason, categories=pd.Index(list(REASONS)), validate=False),
        },
        copy=False,
    )
    return frame


@dataclass
class SweepResult:
    """What `sweep` returns.

    - `frame`: one row per (order, tier), columns `SWEEP_COLUMNS`;
    - `paths`: one row per tier: `tier_id`, `campaign_id`, `kind`, `effect`,
      `path` (vectorized / hybrid / fallback) and `reason`;
    - `summary()` / `summary("campaign")`: cost, share of orders affected,
      average discount (see `summary.py`): data, in cents and fractions;
    - `summary_table()` / `summary_text()`: the same for people, money with
      its currency (the scenario's `project.currency`; the simulator does not
      keep it, so pass it: `promolab.display.scenario_currency`);
    - `dated`: True when each order was priced at its own `placed_at` (no `at`
      was given and the orders carry the column); `at` is then the simulator's
      clock at the sweep, used for no order, and `placed_at` holds each
      order's instant (UTC, indexed by order id; None when not dated).
    """

    frame: pd.DataFrame
    paths: pd.DataFrame
    at: datetime
    engine: str
    n_orders: int
    tier_ids: tuple[str, ...]
    campaign_ids: tuple[str, ...]
    dated: bool = False
    placed_at: pd.Series | None = None
    #: what the amounts are in (the simulator's currency); the frames carry it too
    currency: str = DEFAULT_CURRENCY

    def _matrices(self) -> tuple[np.ndarray, np.ndarray]:
        t = len(self.tier_ids)
        valid = self.frame["valid"].to_numpy().reshape(self.n_orders, t)
        discount = np.asarray(self.frame["discount_amount"].array._data).reshape(self.n_orders, t)
        return valid, discount

    def summary(self, by: str = "tier", *, rule: str = "first") -> pd.DataFrame:
        """Per tier (default) or per campaign (`by="campaign"`, `rule="first"|"best"`).

        A row whose discounts have no monetary value (free shipping) has NA
        money figures, not 0: what `summary_text` prints as "-"."""
        valid, discount = self._matrices()
        if by == "tier":
            frame = tier_summary(valid, discount, self.tier_ids, self.campaign_ids, list(self.paths["path"]))
        elif by == "campaign":
            frame = campaign_summary(valid, discount, self.campaign_ids, rule)
        else:
            raise ValueError("by must be 'tier' or 'campaign'")
        frame = figures(frame, self.currency)
        unpriced = np.array(self._no_value(by, valid), dtype=bool)
        for column in ("cost", "avg_discount", "cost_per_order", "max_discount"):
            if column in frame.columns:
                frame.loc[unpriced, column] = pd.NA
        return frame

    def _no_value(self, by: str, valid: np.ndarray) -> list[bool]:
        """Per summary row: it applies somewhere (`valid`: orders x tiers), yet none
        of its discounts has a monetary value (every valid discount NA: free shipping)."""
        t = len(self.tier_ids)
        priced = valid & ~self.frame["discount_amount"].isna().to_numpy().reshape(self.n_orders, t)
        keys = self.tier_ids if by == "tier" else tuple(dict.fromkeys(self.campaign_ids))
        owners = self.tier_ids if by == "tier" else self.campaign_ids
        flags = []
        for key in keys:
            cols = [i for i, owner in enumerate(owners) if owner == key]
            flags.append(bool(valid[:, cols].any()) and not bool(priced[:, cols].any()))
        return flags

    def summary_table(self, by: str = "tier", *, rule: str = "first", currency: str | None = None) -> pd.DataFrame:
        """`summary(by, rule=rule)` as text cells for people: reach as a percentage,
        money with its currency (default the result's), `display.MISSING` where
        there is no amount (no order reached; a tier whose discounts have no
        monetary value: NA in `summary()` too)."""
        return summary_table(self.summary(by, rule=rule), currency or self.currency)

    def summary_text(self, by: str = "tier", *, rule: str = "first", currency: str | None = None) -> str:
        """`summary_table` as aligned text, for `print`."""
        return summary_text(self.summary_table(by, rule=rule, currency=currency))

    def _when(self) -> str:
        return "each order's placed_at" if self.dated else self.at.isoformat()

    def _paths_shown(self, sep: str) -> str:
        counts = self.paths["path"].value_counts().to_dict()
        return ", ".join(f"{k}{sep}{v}" for k, v in counts.items() if v)

    def __repr__(self) -> str:
        return (f"<SweepResult {self.n_orders} orders x {len(self.tier_ids)} tiers at "
                f"{self._when()} engine={self.engine} paths: {self._paths_shown('=')}>")

    def _repr_html_(self) -> str:
        """The sweep's size, instant and paths, and `summary_table()` per tier."""
        currency = currency_of(self)
        facts = [("orders x tiers", f"{format_count(self.n_orders)} x {format_count(len(self.tier_ids))}"),
                 ("priced at", self._when()), ("engine", self.engine), ("paths", self._paths_shown(" ")),
                 ("currency", currency)]
        table = Table.of("per tier", self.summary_table(currency=currency))
        return Summary("SweepResult", facts, (table,)).html()
