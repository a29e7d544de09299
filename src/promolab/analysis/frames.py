"""Tidy DataFrames of what the service returns (columns and dtypes: docs/analysis.md).

Conventions, as in `state_frames.py` (whose `typed_frame` builds every frame
here): money and points are `Int64` (nullable integers; NA = the field was
absent), enums are categoricals with the interface's full category list,
instants are timezone-aware UTC, other text is `string`. Empty input gives an
empty frame with the same columns and dtypes.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import pandas as pd

from .. import models
from .figures import figures
from .state_frames import DELIVERY_OUTCOMES, TRANSACTION_STATUSES, TRANSACTION_TYPES, typed_frame

__all__ = [
    "DELIVERY_COLUMNS",
    "DISCOUNT_EFFECTS",
    "DISCOUNT_TYPES",
    "PUBLICATION_COLUMNS",
    "TRANSACTION_COLUMNS",
    "VALIDATION_COLUMNS",
    "deliveries_frame",
    "publications_frame",
    "transactions_frame",
    "validation_frame",
]

DISCOUNT_TYPES = ["AMOUNT", "PERCENT", "FIXED", "UNIT"]
DISCOUNT_EFFECTS = [
    "APPLY_TO_ORDER", "APPLY_TO_ITEMS", "APPLY_TO_ITEMS_PROPORTIONALLY",
    "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY", "APPLY_TO_ITEMS_BY_QUANTITY",
    "ADD_MISSING_ITEMS", "ADD_NEW_ITEMS", "ADD_MANY_ITEMS",
]
VOUCHER_TYPES = [t.value for t in models.VoucherType]

VALIDATION_COLUMNS = [
    "order_id", "tier_id", "tier_name", "campaign_id", "hierarchy", "discount_type", "effect",
    "discount_amount", "applied_discount_amount", "amount", "order_discount_amount",
    "items_discount_amount", "total_discount_amount", "total_amount", "items", "tracking_id",
]
PUBLICATION_COLUMNS = [
    "id", "created_at", "customer_id", "customer_source_id", "tracking_id", "channel", "source_id",
    "voucher_id", "voucher_code", "voucher_type", "campaign", "campaign_id", "result",
]
TRANSACTION_COLUMNS = [
    "id", "created_at", "updated_at", "program_id", "member_id", "card_id", "card_definition_id",
    "card_type", "type", "status", "points", "reward_id", "reason", "rejection_reason",
]
DELIVERY_COLUMNS = [
    "sendout_id", "webhook_id", "event_type", "attempt", "attempted_at", "outcome", "status_code",
    "error", "next_attempt_at", "target", "signature",
]


TIME_DTYPE = "datetime64[us, UTC]"


def _frame(rows: list[dict[str, Any]], **kw: Any) -> pd.DataFrame:
    """`typed_frame`, with instants at a fixed resolution (pandas would infer one)."""
    frame = typed_frame(rows, **kw)
    for col in kw.get("times", ()):
        frame[col] = frame[col].astype(TIME_DTYPE)
    return frame


def _model(cls: Any, value: Any) -> Any:
    return value if isinstance(value, cls) else cls.model_validate(value)


def validation_frame(
    results: models.ValidationResponse | Sequence[Any], order_ids: Sequence[Hashable] | None = None,
    currency: str | None = None,
) -> pd.DataFrame:
    """One row per valid tier of each validation response.

    `results` is one `ValidationResponse` (or its wire dict) or a list of
    them; `order_ids` labels each response (default: its position).
    Order amounts are the tier's computed order (`order_discount_amount` is
    the order-level `discount_amount`); absent fields are NA. A response
    does not say its currency: `currency` (the scenario's) marks the frame
    with it (`attrs["currency"]`, the dtype rule of docs/analysis.md).
    """
    if isinstance(results, models.ValidationResponse | dict):
        results = [results]
    responses = [_model(models.ValidationResponse, r) for r in results]
    labels = list(order_ids) if order_ids is not None else list(range(len(responses)))
    if len(labels) != len(responses):
        raise ValueError("order_ids must label every response")
    rows = []
    for label, response in zip(labels, responses):
        for tier in response.promotions:
            order, discount = tier.order, tier.discount
            rows.append({
                "order_id": label, "tier_id": tier.id, "tier_name": tier.name, "campaign_id": tier.campaign.id,
                "hierarchy": tier.hierarchy, "discount_type": str(discount.type),
                "effect": getattr(discount, "effect", None),
                "discount_amount": tier.discount_amount, "applied_discount_amount": tier.applied_discount_amount,
                "amount": order.amount, "order_discount_amount": order.discount_amount,
                "items_discount_amount": order.items_discount_amount,
                "total_discount_amount": order.total_discount_amount, "total_amount": order.total_amount,
                "items": len(order.items), "tracking_id": tier.tracking_id,
            })
    frame = _frame(
        rows,
        columns=VALIDATION_COLUMNS,
        ints=("hierarchy", "discount_amount", "applied_discount_amount", "amount", "order_discount_amount",
              "items_discount_amount", "total_discount_amount", "total_amount", "items"),
        categories={"discount_type": DISCOUNT_TYPES, "effect": DISCOUNT_EFFECTS},
    )
    frame["order_id"] = pd.Series([r["order_id"] for r in rows], dtype=object)
    return figures(frame, currency)


def publications_frame(publications: Iterable[Any]) -> pd.DataFrame:
    """One row per publication (`models.Publication` or its wire dict)."""
    rows = []
    for value in publications:
        p = _model(models.Publication, value)
        rows.append({
            "id": p.id, "created_at": p.created_at, "customer_id": p.customer_id,
            "customer_source_id": p.customer.source_id, "tracking_id": p.tracking_id, "channel": p.channel,
            "source_id": p.source_id, "voucher_id": p.voucher.id, "voucher_code": p.voucher.code,
            "voucher_type": str(p.voucher.type), "campaign": p.voucher.campaign,
            "campaign_id": p.voucher.campaign_id, "result": p.result,
        })
    return _frame(
        rows, columns=PUBLICATION_COLUMNS, times=("created_at",),
        categories={"voucher_type": VOUCHER_TYPES, "result": ["SUCCESS"]},
    )


def _transaction_row(t: Any) -> dict[str, Any]:
    if isinstance(t, models.CardTransaction):
        details = t.details
        points = details.points.total if details.points is not None else None
        rejection = details.rejection.reason if details.rejection is not None else None
        reward_id, reason = details.reward_id, details.reason
    else:  # a simulator record
        details = t.details
        points = t.points
        rejection = (details.get("rejection") or {}).get("reason")
        reward_id, reason = details.get("reward_id"), details.get("reason")
    return {
        "id": t.id, "created_at": t.created_at, "updated_at": t.updated_at, "program_id": t.program_id,
        "member_id": t.member_id, "card_id": t.card_id, "card_definition_id": t.card_definition_id,
        "card_type": t.card_type, "type": str(t.type), "status": str(t.status), "points": points,
        "reward_id": reward_id, "reason": reason, "rejection_reason": rejection,
    }


def transactions_frame(transactions: Any) -> pd.DataFrame:
    """Card transactions: a list of `models.CardTransaction` (or wire dicts), or
    a `Simulator` (its whole ledger; `points` then is the signed balance change)."""
    if hasattr(transactions, "state") and hasattr(transactions.state, "card_transactions"):
        items: Iterable[Any] = transactions.state.card_transactions.values()
    else:
        items = (t if hasattr(t, "card_type") and not isinstance(t, dict) else
                 models.CardTransaction.model_validate(t) for t in transactions)
    rows = [_transaction_row(t) for t in items]
    return _frame(
        rows, columns=TRANSACTION_COLUMNS, ints=("points",), times=("created_at", "updated_at"),
        categories={"type": TRANSACTION_TYPES, "status": TRANSACTION_STATUSES},
    )


def deliveries_frame(log: Any) -> pd.DataFrame:
    """Webhook delivery attempts: a `Simulator` (its delivery log), or a list of
    attempts (records, or dicts with the same keys)."""
    if hasattr(log, "state") and hasattr(log.state, "webhook_deliveries"):
        log = log.state.webhook_deliveries
    rows = [a.model_dump() if hasattr(a, "model_dump") else dict(a) for a in log]
    return _frame(
        rows, columns=DELIVERY_COLUMNS, ints=("attempt", "status_code"),
        times=("attempted_at", "next_attempt_at"), categories={"outcome": DELIVERY_OUTCOMES},
    )
