"""How many points one credit of an incentive gives for an event.

POINTS incentives give `points.value`. POINTS_PROPORTIONAL incentives give
`value * floor(x / every)` where x is:

| calculation_type            | x                                                        |
|-----------------------------|----------------------------------------------------------|
| CUSTOMER_METADATA_VALUE     | customer metadata `customer.metadata.property`           |
| ORDER_METADATA_VALUE        | event metadata `order.metadata.property`                 |
| PRE_DISCOUNT_ORDER_AMOUNT   | event metadata `amount`                                  |
| POST_DISCOUNT_ORDER_AMOUNT  | event metadata `total_amount`, else `amount`             |
| ORDER_ITEMS_* (3 kinds)     | none: an event carries no order items, 0 points          |

A missing, non-numeric or negative x gives 0 points. Numbers may be JSON
numbers or numeric strings; the floor is exact, whatever the size of x.
Pure arithmetic on the incentive's mapping and the event: the planner
(`credits`) decides whether the credit happens, and refuses one past a
card's bound (`MAX_POINTS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from ...engine import lookup
from ..loyalty import ledger
from ..records import Incentive

__all__ = ["MAX_POINTS", "incentive_points", "points_for"]

#: The most points a card (and so one credit) can hold.
MAX_POINTS = ledger.MAX_BALANCE


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | Decimal | str):
        try:
            number = Decimal(str(value).strip())
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


def _proportional(every_value: Mapping[str, Any] | None, x: Any) -> int:
    if not every_value:
        return 0
    every = int(every_value.get("every") or 0)
    value = int(every_value.get("value") or 0)
    if every <= 0:
        return 0
    if type(x) is int:  # the usual amount: exact at any size
        return value * (x // every) if x >= 0 else 0
    number = _number(x)
    if number is None or number < 0:
        return 0
    # Not `number // every`: a decimal division whose quotient has more digits
    # than the context's precision (28) raises. floor(x / every) is
    # floor(floor(x) / every) for a whole `every`, and `int()` of a decimal
    # truncates exactly; an x so large that the quotient passes any card's
    # bound counts as that bound + 1 (the credit is refused either way, and
    # `1e999999` is not expanded to a million digits).
    if number >= (MAX_POINTS + 1) * every:
        return value * (MAX_POINTS + 1)
    return value * (int(number) // every)


def incentive_points(
    incentive: Incentive, customer_metadata: Mapping[str, Any], event_metadata: Mapping[str, Any]
) -> int:
    """Points one credit of `incentive` gives for this event (see the table above)."""
    kind = incentive.type
    detail = incentive.points if kind == "POINTS" else incentive.points_proportional
    return points_for(kind, detail, customer_metadata, event_metadata)


def points_for(
    kind: str, detail: Mapping[str, Any] | None, customer_metadata: Mapping[str, Any], event_metadata: Mapping[str, Any]
) -> int:
    """`incentive_points` from the incentive's type and its `points` (POINTS)
    or `points_proportional` (any other type) mapping, read once by the planner."""
    if kind == "POINTS":
        return int((detail or {}).get("value") or 0)
    if kind != "POINTS_PROPORTIONAL" or detail is None:
        return 0
    calculation = detail.get("calculation_type")
    if calculation == "ORDER_METADATA_VALUE" or calculation == "CUSTOMER_METADATA_VALUE":
        of_order = calculation == "ORDER_METADATA_VALUE"
        spec = (detail.get("order" if of_order else "customer") or {}).get("metadata") or {}
        metadata = event_metadata if of_order else customer_metadata
        name = spec.get("property", "")
        if type(name) is str and name in metadata:  # a flat key (the usual one), read at once
            return _proportional(spec, metadata[name])
        return _proportional(spec, lookup(metadata, str(name)))
    if calculation == "PRE_DISCOUNT_ORDER_AMOUNT":
        return _proportional((detail.get("order") or {}).get("amount"), event_metadata.get("amount"))
    if calculation == "POST_DISCOUNT_ORDER_AMOUNT":
        x = event_metadata.get("total_amount")
        return _proportional(
            (detail.get("order") or {}).get("total_amount"), x if x is not None else event_metadata.get("amount")
        )
    return 0

