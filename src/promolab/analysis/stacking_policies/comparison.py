"""`StackingComparison`: the same orders re-priced under several stacking policies, as frames.

Built over the runner's arrays once (no pandas in the evaluation loop);
conventions of every analysis frame: money `Int64` cents, enums and repeated
text `category`, counts integers, averages float cents.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from ...display import DEFAULT_CURRENCY
from ..figures import figures
from .reason_table import ReasonTable
from .stack_outputs import STATUSES, StackOutputs

__all__ = ["ORDER_COLUMNS", "REDEEMABLE_COLUMNS", "SUMMARY_COLUMNS", "StackGroup", "StackingComparison"]

ORDER_COLUMNS = ["order_id", "policy", "valid", "applicable", "amount", "discount", "total"]
REDEEMABLE_COLUMNS = [
    "order_id", "policy", "position", "object", "redeemable_id", "status", "applied", "reason_key", "reason", "why",
]
SUMMARY_COLUMNS = [
    "policy", "orders", "valid_orders", "share_valid", "total_discount", "mean_discount", "avg_discount_valid",
    "applicable", "skipped", "inapplicable",
]


def _money(values: np.ndarray) -> pd.arrays.IntegerArray:
    values = np.ascontiguousarray(values, dtype=np.int64)
    return pd.arrays.IntegerArray(values, np.zeros(values.shape, dtype=bool))


def _categorical(codes: np.ndarray, categories: Sequence[object]) -> pd.Categorical:
    return pd.Categorical.from_codes(np.asarray(codes), categories=pd.Index(list(categories), dtype=object))


def _text(codes: np.ndarray, texts: Sequence[str | None]) -> pd.Categorical:
    """Row codes into a table of texts (None = NA; equal texts are one category)."""
    labels, uniques = pd.factorize(pd.Series(list(texts), dtype=object), use_na_sentinel=True)
    remap = np.asarray(labels, dtype=np.int64)
    return pd.Categorical.from_codes(remap.take(codes), categories=pd.Index(uniques, dtype="string"))


@dataclass
class StackGroup:
    """Orders priced with one list of redeemables (all of them, unless lists are per order)."""

    #: Position of each of its orders among all orders.
    positions: np.ndarray
    amounts: np.ndarray
    objects: tuple[str, ...]
    ids: tuple[str, ...]
    out: StackOutputs
    path: str
    reason: str
    engine_orders: int


@dataclass
class StackingComparison:
    """Per order and policy, per redeemable, per policy; `difference(a, b)`; `plot()`;
    a one-line repr and a notebook summary (`comparison_summary`)."""

    order_ids: pd.Index
    policies: tuple[str, ...]
    groups: list[StackGroup]
    reasons: ReasonTable = field(repr=False)
    #: what the amounts are in (the simulator's currency)
    currency: str = DEFAULT_CURRENCY

    # -- per (order, policy) ------------------------------------------------------------------
    @cached_property
    def orders(self) -> pd.DataFrame:
        """One row per (order, policy), order-major: `ORDER_COLUMNS`."""
        n_policies = len(self.policies)
        parts = []
        for g in self.groups:
            n = g.positions.size
            parts.append({
                "order": np.repeat(g.positions, n_policies),
                "policy": np.tile(np.arange(n_policies), n),
                "valid": g.out.valid.reshape(-1),
                "applicable": g.out.applicable.reshape(-1),
                "amount": np.repeat(g.amounts, n_policies),
                "discount": g.out.discount.reshape(-1),
                "total": g.out.total.reshape(-1),
            })
        cols = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]} if parts else {}
        if len(self.groups) > 1:
            order = np.lexsort((cols["policy"], cols["order"]))
            cols = {k: v[order] for k, v in cols.items()}
        if not cols:
            cols = {k: np.zeros(0, dtype=np.int64) for k in ("order", "policy", "applicable", "amount", "discount", "total")}
            cols["valid"] = np.zeros(0, dtype=bool)
        return figures(pd.DataFrame({
            "order_id": _categorical(cols["order"], self.order_ids),
            "policy": _categorical(cols["policy"], self.policies),
            "valid": cols["valid"].astype(bool),
            "applicable": cols["applicable"].astype(np.int64),
            "amount": _money(cols["amount"]),
            "discount": _money(cols["discount"]),
            "total": _money(cols["total"]),
        }), self.currency)

    # -- per (order, policy, redeemable) --------------------------------------------------------
    @cached_property
    def redeemables(self) -> pd.DataFrame:
        """One row per (order, policy, redeemable as sent): `REDEEMABLE_COLUMNS`. `reason_key`,
        `reason` (the service's message) and `why` (for a person, with the running amount a
        rule saw) are NA where the redeemable applied."""
        n_policies = len(self.policies)
        objects: list[str] = []
        ids: list[str] = []
        parts = []
        for g in self.groups:
            n, r = g.positions.size, len(g.ids)
            base = len(ids)
            objects.extend(g.objects)
            ids.extend(g.ids)
            parts.append({
                "order": np.repeat(g.positions, n_policies * r),
                "policy": np.tile(np.repeat(np.arange(n_policies), r), n),
                "position": np.tile(np.arange(r), n * n_policies),
                "label": np.tile(np.arange(base, base + r), n * n_policies),
                "amount": np.repeat(g.amounts, n_policies * r),
                "status": g.out.status.reshape(-1),
                "applied": g.out.applied.reshape(-1),
                "reason": g.out.reason.reshape(-1),
                "seen": g.out.seen.reshape(-1),
            })
        names = ("order", "policy", "position", "label", "amount", "status", "applied", "reason", "seen")
        cols = {k: np.concatenate([p[k] for p in parts]) if parts else np.zeros(0, dtype=np.int64) for k in names}
        if len(self.groups) > 1:
            order = np.lexsort((cols["position"], cols["policy"], cols["order"]))
            cols = {k: v[order] for k, v in cols.items()}
        keys, messages, whys, why_code = self.reasons.columns(cols["reason"], cols["seen"], cols["amount"])
        object_codes, object_names = pd.factorize(pd.Series(objects, dtype=object))
        id_codes, id_names = pd.factorize(pd.Series(ids, dtype=object))
        label = cols["label"].astype(np.int64)
        return figures(pd.DataFrame({
            "order_id": _categorical(cols["order"], self.order_ids),
            "policy": _categorical(cols["policy"], self.policies),
            "position": cols["position"].astype(np.int16),
            "object": _categorical(np.asarray(object_codes).take(label), list(object_names)),
            "redeemable_id": _categorical(np.asarray(id_codes).take(label), list(id_names)),
            "status": _categorical(cols["status"], STATUSES),
            "applied": _money(cols["applied"]),
            "reason_key": _text(cols["reason"].astype(np.int64), keys),
            "reason": _text(cols["reason"].astype(np.int64), messages),
            "why": _text(why_code, whys),
        }), self.currency)

    # -- per policy -------------------------------------------------------------------------------
    def summary(self) -> pd.DataFrame:
        """Per policy: `SUMMARY_COLUMNS`. `mean_discount` is over every order,
        `avg_discount_valid` over the valid ones (float cents, NaN when none);
        `applicable` / `skipped` / `inapplicable` count redeemables by status."""
        rows = []
        for p, name in enumerate(self.policies):
            orders = sum(g.positions.size for g in self.groups)
            valid = sum(int(g.out.valid[:, p].sum()) for g in self.groups)
            total = sum(int(g.out.discount[:, p].sum()) for g in self.groups)
            counts = np.zeros(len(STATUSES), dtype=np.int64)
            for g in self.groups:
                counts += np.bincount(g.out.status[:, p].reshape(-1), minlength=len(STATUSES))
            rows.append({
                "policy": name, "orders": orders, "valid_orders": valid,
                "share_valid": valid / orders if orders else float("nan"), "total_discount": total,
                "mean_discount": total / orders if orders else float("nan"),
                "avg_discount_valid": total / valid if valid else float("nan"),
                "applicable": int(counts[0]), "inapplicable": int(counts[1]), "skipped": int(counts[2]),
            })
        frame = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
        frame["policy"] = pd.Categorical(frame["policy"], categories=list(self.policies))
        return figures(frame, self.currency)

    def reason_counts(self) -> pd.DataFrame:
        """Redeemables not applied, per policy, status and reason key (largest first within a policy)."""
        table = self.redeemables
        table = table[table["status"] != "APPLICABLE"]
        counts = (table.groupby(["policy", "status", "reason_key"], observed=True).size()
                  .rename("redeemables").reset_index())
        return figures(counts.sort_values(["policy", "redeemables"], ascending=[True, False], kind="stable")
                       .reset_index(drop=True))

    def difference(self, a: str, b: str) -> pd.DataFrame:
        """Per order: the discount under `b` minus the discount under `a` (cents), with both sides."""
        for name in (a, b):
            if name not in self.policies:
                raise ValueError(f"unknown policy {name!r}; compared: {', '.join(self.policies)}")
        orders = self.orders
        left = orders[orders["policy"] == a].reset_index(drop=True)
        right = orders[orders["policy"] == b].reset_index(drop=True)
        return figures(pd.DataFrame({
            "order_id": left["order_id"],
            "valid_a": left["valid"], "valid_b": right["valid"],
            "discount_a": left["discount"], "discount_b": right["discount"],
            "difference": right["discount"] - left["discount"],
        }), self.currency)

    @property
    def paths(self) -> pd.DataFrame:
        """Per list of redeemables: how its orders were priced (vectorized / fallback) and why."""
        return figures(pd.DataFrame({
            "redeemables": pd.array([", ".join(g.ids) for g in self.groups], dtype="string"),
            "orders": [g.positions.size for g in self.groups],
            "path": pd.Categorical([g.path for g in self.groups], categories=["vectorized", "fallback"]),
            "engine_orders": [g.engine_orders for g in self.groups],
            "reason": pd.array([g.reason for g in self.groups], dtype="string"),
        }))

    def __repr__(self) -> str:
        from .comparison_summary import comparison_line

        return comparison_line(self)

    def _repr_html_(self) -> str:
        """Per policy and the redeemables not applied, for a notebook (`comparison_summary`)."""
        from .comparison_summary import comparison_summary

        return comparison_summary(self).html()

    def plot(self, stat: str = "sum", ax: object = None, currency: str | None = None) -> object:
        """Discount per policy (`chart.plot_policy_discounts`), in the comparison's currency unless given."""
        from .chart import plot_policy_discounts

        return plot_policy_discounts(self, stat=stat, ax=ax, currency=currency)
