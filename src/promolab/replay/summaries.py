"""The `result` column of a replayed line: a short summary for people.

`summarize(op, args, result)` gives the text of a successful line (and, for
`validate`, the tiers / best_tier / best_discount columns); an operation
without a summary of its own (`_SUMMARIES`) shows its result's type name.
Money goes through `display.format_money`, points with their unit. A
summary reads the answer as a wire model or as a JSON dict alike.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from ..display import format_money, format_points
from ..models.rendered import Rendered
from .reader import ADVANCE

__all__ = ["Summary", "duration", "summarize"]


def _get(obj: Any, *path: str) -> Any:
    """Read `a.b.c` from a wire model or a JSON dict alike (None if absent)."""
    for name in path:
        if obj is None:
            return None
        obj = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    return obj


def _field(obj: Any, name: str) -> Any:
    """`_get(obj, name)` for one name: the summaries of the frequent
    operations read a few fields a line, and the loop over a path costs more
    than the read."""
    if obj is None:
        return None
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _text(value: Any) -> str:
    return str(getattr(value, "value", value))


def duration(delta: timedelta | float) -> str:
    """`1d 2h 3m 4s` (fractions of a second as `0.5s`)."""
    seconds = delta.total_seconds() if isinstance(delta, timedelta) else float(delta)
    seconds_int = int(seconds)
    if seconds_int != seconds:
        return f"{seconds:g}s"
    days, rest = divmod(seconds_int, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m"), (secs, "s")) if n]
    return " ".join(parts) or "0s"


Summary = tuple[str, int | None, str | None, int | None]


def summarize(op: str, args: dict[str, Any], result: Any) -> Summary:
    """(summary, tiers, best_tier, best_discount) for a successful line.

    The summary is text for people: money through `display.format_money`
    (`GIFT-ALICE-50 +$25.00 -> balance $75.00`, in the default currency, USD:
    the simulator does not keep the scenario's), points with their unit
    (`-300 points`). The numeric columns (`best_discount`) stay in cents."""
    if isinstance(result, Rendered):  # the pricing operations' answers, read as their JSON
        result = result.wire
    summary = _SUMMARIES.get(op)
    if summary is None:
        return type(result).__name__ if result is not None else "ok", None, None, None
    return summary(args, result)


def _validate_summary(args: dict[str, Any], result: Any) -> Summary:
    promotions = _field(result, "promotions") or []
    best_id, best = None, None
    for tier in promotions:
        amount = _field(_field(tier, "order"), "total_discount_amount")
        if amount is None:
            amount = _field(tier, "discount_amount") or 0
        if best is None or amount > best:
            best_id, best = _field(tier, "id"), amount
    if not promotions:
        return "no tier applies", 0, None, None
    count = len(promotions)
    tiers = f"{count} tier" if count == 1 else f"{count} tiers"
    return f"{tiers}; best {best_id} {format_money(-(best or 0))}", count, best_id, best


# The summaries of the frequent operations read the answer's attributes
# directly (the answer is a wire model); a dict, or an object missing one of
# them, raises AttributeError and is read field by field, to the same text.


def _publish_summary(args: dict[str, Any], result: Any) -> Summary:
    try:
        code, who = result.voucher.code, result.tracking_id or result.customer_id
    except AttributeError:
        code = _field(_field(result, "voucher"), "code")
        who = _field(result, "tracking_id") or _field(result, "customer_id")
    return f"{code} -> {who}", None, None, None


def _track_event_summary(args: dict[str, Any], result: Any) -> Summary:
    try:
        customer = result.customer
        who, kind = customer.source_id or customer.id, result.type
    except AttributeError:
        customer = _field(result, "customer")
        who, kind = _field(customer, "source_id") or _field(customer, "id"), _field(result, "type")
    return f"{kind or args.get('request', {}).get('event')} by {who}", None, None, None


def _purchase_summary(args: dict[str, Any], result: Any) -> Summary:
    status = _field(result, "status")
    tx = _field(result, "transaction")
    if tx is None:
        return _text(status), None, None, None
    text = f"{_text(status)} {_field(tx, 'id')} {_text(_field(tx, 'status'))}"
    cost = _get(tx, "details", "points", "total")  # the reward's price, spent from the card
    if isinstance(cost, int) and not isinstance(cost, bool):
        text += f" {format_points(-cost, signed=True)}"
    return text, None, None, None


def _gift_summary(args: dict[str, Any], result: Any) -> Summary:
    try:
        amount, balance = result.amount, result.balance
    except AttributeError:
        amount, balance = _field(result, "amount"), _field(result, "balance")
    return (f"{args.get('code')} {format_money(amount, signed=True)} -> balance {format_money(balance)}",
            None, None, None)


def _status_summary(args: dict[str, Any], result: Any) -> Summary:
    return f"{_get(result, 'id')} {_text(_get(result, 'status'))}", None, None, None


def _delete_webhook_summary(args: dict[str, Any], result: Any) -> Summary:
    return f"{args.get('webhook_id')} deleted", None, None, None


def _stacking_rules_summary(args: dict[str, Any], result: Any) -> Summary:
    """`stk_… ALL REQUESTED_ORDER 5/30`: the id, the application mode and
    order, applied of sent. A list always holds one item, the rules in
    force, and reads as that item; the defaults have no id and read
    `defaults ALL REQUESTED_ORDER 5/30`."""
    if _get(result, "object") == "list":
        result = (_get(result, "data") or [None])[0]
    mode, order = _text(_get(result, "redeemables_application_mode")), _text(_get(result, "redeemables_sorting_rule"))
    limits = f"{_get(result, 'applicable_redeemables_limit')}/{_get(result, 'redeemables_limit')}"
    return f"{_get(result, 'id') or 'defaults'} {mode} {order} {limits}", None, None, None


def _delete_stacking_rules_summary(args: dict[str, Any], result: Any) -> Summary:
    return f"{args.get('stacking_rules_id')} deleted", None, None, None


def _stacked_summary(args: dict[str, Any], result: Any) -> Summary:
    """`valid: 2 of 3 applied, -$15.00` (or `not valid: …`): the verdict, how
    many redeemables applied of those sent, and the discount in all."""
    applied = [r for r in (_field(result, "redeemables") or []) if _text(_field(r, "status")) == "APPLICABLE"]
    sent = len(_get(args, "request", "redeemables") or [])
    discount = _field(_field(result, "order"), "total_discount_amount") or 0
    verdict = "valid" if _field(result, "valid") else "not valid"
    return f"{verdict}: {len(applied)} of {sent} applied, {format_money(-discount)}", None, None, None


def _qualifications_summary(args: dict[str, Any], result: Any) -> Summary:
    """`3 redeemables; best promo_vip_10pct -$11.30`: the page's size and its
    best deal (a gift card's deal: its usable credits); `0 redeemables`."""
    page = _field(result, "redeemables")
    items = _field(page, "data") or []
    if not items:
        return "0 redeemables", None, None, None
    best = max(items, key=_deal)  # the first of equal deals: the answer's order
    return f"{len(items)} redeemables; best {_field(best, 'id')} {format_money(-_deal(best))}", None, None, None


def _deal(redeemable: Any) -> int:
    gift = _field(_field(redeemable, "result"), "gift")
    if gift is not None:
        return int(_field(gift, "credits") or 0)
    return int(_field(_field(redeemable, "order"), "total_applied_discount_amount") or 0)


def _redemption_summary(args: dict[str, Any], result: Any) -> Summary:
    """`r_… 2 redeemed, -$15.00 -> ord_…`: the parent (or single) redemption,
    how many children, the discount in all, the order."""
    children = _field(result, "redemptions") or []
    parent = _field(result, "parent_redemption") or (children[0] if children else None)
    order = _field(result, "order")
    discount = _field(order, "total_discount_amount") or 0
    return (f"{_field(parent, 'id')} {len(children)} redeemed, {format_money(-discount)} -> {_field(order, 'id')}",
            None, None, None)


def _rollback_summary(args: dict[str, Any], result: Any) -> Summary:
    """`r_… rolled back (2), order CANCELED`."""
    rolled = len(_field(result, "rollbacks") or [])
    return f"{args.get('redemption_id')} rolled back ({rolled}), order {_field(_field(result, 'order'), 'status')}", \
        None, None, None


def _advance_summary(args: dict[str, Any], result: Any) -> Summary:
    return f"clock +{duration(float(args.get('seconds', 0)))}", None, None, None


#: The summary of each operation's result (any other: the result's type name).
_SUMMARIES: dict[str, Callable[[dict[str, Any], Any], Summary]] = {
    "validate": _validate_summary,
    "publish": _publish_summary,
    "track_event": _track_event_summary,
    "purchase_reward": _purchase_summary,
    "add_gift_balance": _gift_summary,
    "delete_reward": _status_summary,
    "delete_webhook": _delete_webhook_summary,
    ADVANCE: _advance_summary,
    "get_incentive": _status_summary,
    "create_stacking_rules": _stacking_rules_summary,
    "list_stacking_rules": _stacking_rules_summary,
    "get_stacking_rules": _stacking_rules_summary,
    "update_stacking_rules": _stacking_rules_summary,
    "delete_stacking_rules": _delete_stacking_rules_summary,
    "validate_stacked": _stacked_summary,
    "redeem_stacked": _redemption_summary,
    "qualifications": _qualifications_summary,
    "rollback_redemption": _rollback_summary,
}
